//! Real bytes for a simulated packet: an IPv4 header and a TCP, UDP or SCTP header built from
//! the packet's typed headers, payload bytes zero. Used only by the pcap writer, never by the
//! simulation (which moves typed headers, not bytes).
//!
//! IPv4 and TCP/UDP headers and their checksums are built with `etherparse`; SCTP (which
//! etherparse does not know) is laid out here chunk by chunk as RFC 4960 §3 draws it, with the
//! CRC32c checksum of Appendix B from the `crc` crate.
//!
//! What the bytes say, and where they depart from the simulation:
//!
//! - Addresses: simulated address `n` is `10.x.y.z` with `x.y.z` = `n + 1` (24 bits).
//! - Ports: a flow's sending end uses port `20000 + flow % 40000`, its receiving end a
//!   per-protocol port ([`TCP_PORT`], [`UDP_PORT`], [`SCTP_PORT`]).
//! - TCP: sequence and acknowledgment numbers, flags (with ECE/CWR), SACK-permitted, SACK
//!   blocks and timestamps (TSval/TSecr in microseconds of simulated time, modulo 2^32) as the
//!   typed header holds them. Windows: the simulation's windows are unscaled 32-bit values, so
//!   every SYN carries a window-scale option (RFC 7323 §2) whose shift is the least that lets
//!   the sender's window fit 16 bits; these 4 option bytes are not counted by the simulation.
//!   A header whose SACK blocks and timestamps would overflow the 40 bytes of options keeps
//!   the blocks that fit (as real stacks do: three with timestamps).
//! - The IP total length is the length of these bytes, which equals the simulated size except
//!   for the two cases above.
//! - ECN and DSCP are the packet's; TTL 64; the identification field is the packet's uid
//!   modulo 2^16; don't-fragment set.
//! - Control messages of node elements go out as IP protocol 253 (RFC 3692 experimental) with
//!   zero bytes of their simulated size.

use crate::packet::{Body, Chunk, Ecn, Packet, SctpPacket, TcpFlags, TcpHeader};
use etherparse::{IpDscp, IpEcn, IpNumber, Ipv4Header, TcpOptionElement, UdpHeader};

/// The port of a TCP flow's receiving end.
pub const TCP_PORT: u16 = 5001;
/// The port of a UDP flow's receiving end.
pub const UDP_PORT: u16 = 5002;
/// The port of an SCTP association's receiving end.
pub const SCTP_PORT: u16 = 5003;

/// The IPv4 address that stands for simulated address `a`.
pub fn ipv4_of(a: crate::ids::Addr) -> [u8; 4] {
    let n = (a.0.wrapping_add(1)) & 0x00ff_ffff;
    [10, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// The port of the sending end of flow `flow`.
pub fn sender_port(flow: crate::ids::FlowId) -> u16 {
    20000 + (flow.0 % 40000) as u16
}

/// How to address one packet: ports by direction within its flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ports {
    /// Source port.
    pub src: u16,
    /// Destination port.
    pub dst: u16,
}

impl Ports {
    /// The ports of a packet of `flow` carrying `body`, `forward` when it goes from the flow's
    /// sending end to its receiving end.
    pub fn of(flow: crate::ids::FlowId, body: &Body, forward: bool) -> Ports {
        let server = match body {
            Body::Tcp(_) => TCP_PORT,
            Body::Sctp(_) => SCTP_PORT,
            Body::Udp { .. } | Body::Control(_) => UDP_PORT,
        };
        let client = sender_port(flow);
        if forward {
            Ports {
                src: client,
                dst: server,
            }
        } else {
            Ports {
                src: server,
                dst: client,
            }
        }
    }
}

fn ecn(e: Ecn) -> IpEcn {
    match e {
        Ecn::NotEct => IpEcn::NotEct,
        Ecn::Ect0 => IpEcn::Ect0,
        Ecn::Ect1 => IpEcn::Ect1,
        Ecn::Ce => IpEcn::CongestionExperienced,
    }
}

/// The least shift that makes `wnd` fit 16 bits (at most 14, RFC 7323 §2.3).
pub fn window_shift(wnd: u32) -> u8 {
    let mut s = 0u8;
    while s < 14 && (wnd >> s) > 0xffff {
        s += 1;
    }
    s
}

/// The TCP timestamp value for a simulated time: microseconds, modulo 2^32.
pub fn ts_value(t: packetsim_kernel::Time) -> u32 {
    (t.as_nanos() / 1000) as u32
}

/// Per-connection state the bytes need: the window shift each side announced on its SYN.
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpWireState {
    /// Shift announced by the sending end (forward) and the receiving end (reverse).
    pub shift: [u8; 2],
}

/// Appends the bytes of `p` (IPv4 header onwards, payload zero) to `out`. `tcp` is the
/// window-scale state of the packet's connection, updated by SYN segments. Returns the
/// length of the whole packet in bytes (what `out` grew by).
pub fn encode(
    p: &Packet,
    ports: Ports,
    forward: bool,
    tcp: &mut TcpWireState,
    out: &mut Vec<u8>,
) -> usize {
    let start = out.len();
    let (proto, transport): (IpNumber, Vec<u8>) = match &p.body {
        Body::Tcp(h) => (IpNumber::TCP, tcp_bytes(h, ports, forward, tcp)),
        Body::Udp { payload, .. } => (IpNumber::UDP, udp_bytes(*payload, ports)),
        Body::Sctp(s) => (IpNumber::SCTP, sctp_bytes(s, ports, p.flow)),
        Body::Control(c) => (IpNumber(253), vec![0u8; c.bytes as usize]),
    };
    let mut ip = Ipv4Header::new(
        transport.len() as u16,
        64,
        proto,
        ipv4_of(p.src),
        ipv4_of(p.dst),
    )
    .expect("a simulated packet fits an IPv4 datagram");
    ip.dscp = IpDscp::try_new(p.dscp & 0x3f).expect("masked to 6 bits");
    ip.ecn = ecn(p.ecn);
    ip.identification = p.uid as u16;
    ip.header_checksum = ip.calc_header_checksum();
    out.extend_from_slice(&ip.to_bytes());
    // Transport checksums cover the pseudo-header, so they are computed here where the IP
    // header is known.
    let mut transport = transport;
    match proto {
        IpNumber::TCP => {
            let hl = ((transport[12] >> 4) as usize) * 4;
            let (hdr, payload) = transport.split_at(hl);
            let (mut h, _) = etherparse::TcpHeader::from_slice(hdr).expect("our own TCP header");
            h.checksum = h
                .calc_checksum_ipv4(&ip, payload)
                .expect("a simulated segment fits");
            transport[..hl].copy_from_slice(&h.to_bytes());
        }
        IpNumber::UDP => {
            let u = UdpHeader::with_ipv4_checksum(ports.src, ports.dst, &ip, &transport[8..])
                .expect("a simulated datagram fits");
            transport[..8].copy_from_slice(&u.to_bytes());
        }
        _ => {}
    }
    out.extend_from_slice(&transport);
    out.len() - start
}

/// The TCP header (checksum left 0) and zero payload of `h`.
fn tcp_bytes(h: &TcpHeader, ports: Ports, forward: bool, st: &mut TcpWireState) -> Vec<u8> {
    let side = usize::from(!forward);
    let syn = h.flags.contains(TcpFlags::SYN);
    let shift = if syn {
        let s = window_shift(h.wnd);
        st.shift[side] = s;
        0
    } else {
        st.shift[side]
    };
    let mut t = etherparse::TcpHeader::new(
        ports.src,
        ports.dst,
        h.seq.0,
        (h.wnd >> shift).min(0xffff) as u16,
    );
    t.acknowledgment_number = h.ack.0;
    t.fin = h.flags.contains(TcpFlags::FIN);
    t.syn = syn;
    t.rst = h.flags.contains(TcpFlags::RST);
    t.ack = h.flags.contains(TcpFlags::ACK);
    t.ece = h.flags.contains(TcpFlags::ECE);
    t.cwr = h.flags.contains(TcpFlags::CWR);
    t.psh = h.payload > 0;
    let mut opts: Vec<TcpOptionElement> = Vec::with_capacity(6);
    let mut room = 40usize;
    if syn {
        opts.push(TcpOptionElement::Noop);
        opts.push(TcpOptionElement::WindowScale(st.shift[side]));
        room -= 4;
    }
    if h.sack_permitted {
        opts.push(TcpOptionElement::Noop);
        opts.push(TcpOptionElement::Noop);
        opts.push(TcpOptionElement::SelectiveAcknowledgementPermitted);
        room -= 4;
    }
    if let Some(ts) = h.ts {
        opts.push(TcpOptionElement::Noop);
        opts.push(TcpOptionElement::Noop);
        opts.push(TcpOptionElement::Timestamp(
            ts_value(ts.val),
            ts_value(ts.ecr),
        ));
        room -= 12;
    }
    let blocks = h.sack.as_slice();
    if !blocks.is_empty() && room >= 12 {
        let fit = ((room - 4) / 8).min(blocks.len()).min(4);
        let b = |i: usize| blocks.get(i).filter(|_| i < fit).map(|b| (b.0 .0, b.1 .0));
        opts.push(TcpOptionElement::Noop);
        opts.push(TcpOptionElement::Noop);
        opts.push(TcpOptionElement::SelectiveAcknowledgement(
            (blocks[0].0 .0, blocks[0].1 .0),
            [b(1), b(2), b(3)],
        ));
    }
    t.set_options(&opts).expect("options fit in 40 bytes");
    let mut v = Vec::with_capacity(t.header_len() + h.payload as usize);
    v.extend_from_slice(&t.to_bytes());
    v.resize(v.len() + h.payload as usize, 0);
    v
}

/// A UDP header (checksum left 0) and `payload` zero bytes.
fn udp_bytes(payload: u32, ports: Ports) -> Vec<u8> {
    let u = UdpHeader {
        source_port: ports.src,
        destination_port: ports.dst,
        length: (8 + payload) as u16,
        checksum: 0,
    };
    let mut v = Vec::with_capacity(8 + payload as usize);
    v.extend_from_slice(&u.to_bytes());
    v.resize(8 + payload as usize, 0);
    v
}

const CRC32C: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);

/// SCTP chunk type codes (RFC 4960 §3.2).
mod chunk_type {
    pub const DATA: u8 = 0;
    pub const INIT: u8 = 1;
    pub const INIT_ACK: u8 = 2;
    pub const SACK: u8 = 3;
    pub const HEARTBEAT: u8 = 4;
    pub const HEARTBEAT_ACK: u8 = 5;
    pub const ABORT: u8 = 6;
    pub const SHUTDOWN: u8 = 7;
    pub const SHUTDOWN_ACK: u8 = 8;
    pub const COOKIE_ECHO: u8 = 10;
    pub const COOKIE_ACK: u8 = 11;
    pub const SHUTDOWN_COMPLETE: u8 = 14;
}

fn put16(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_be_bytes());
}
fn put32(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_be_bytes());
}
fn pad(v: &mut Vec<u8>) {
    while v.len() & 3 != 0 {
        v.push(0);
    }
}

/// A chunk header followed by `body`, its length field covering the unpadded chunk.
fn chunk(v: &mut Vec<u8>, kind: u8, flags: u8, body: &[u8]) {
    v.push(kind);
    v.push(flags);
    put16(v, 4 + body.len() as u16);
    v.extend_from_slice(body);
    pad(v);
}

fn init_body(i: &crate::packet::InitChunk, tag: u32) -> Vec<u8> {
    let mut b = Vec::with_capacity(16 + 8 * i.addrs.len());
    put32(&mut b, tag);
    put32(&mut b, i.a_rwnd);
    put16(&mut b, i.streams);
    put16(&mut b, i.streams);
    put32(&mut b, i.initial_tsn.0);
    for &a in &i.addrs {
        // IPv4 Address parameter (RFC 4960 §3.3.2.1): type 5, length 8.
        put16(&mut b, 5);
        put16(&mut b, 8);
        b.extend_from_slice(&ipv4_of(a));
    }
    b
}

fn heartbeat_body(h: &crate::packet::HeartbeatInfo) -> Vec<u8> {
    // Heartbeat Info parameter (type 1): the sender's opaque 20 bytes.
    let mut b = Vec::with_capacity(24);
    put16(&mut b, 1);
    put16(&mut b, 24);
    b.extend_from_slice(&h.sent_at.as_nanos().to_be_bytes());
    b.extend_from_slice(&ipv4_of(h.dest));
    b.extend_from_slice(&h.nonce.to_be_bytes());
    b
}

/// The SCTP common header and chunks of `s`, with its CRC32c.
fn sctp_bytes(s: &SctpPacket, ports: Ports, flow: crate::ids::FlowId) -> Vec<u8> {
    // One verification tag per association (both ends use it); INIT carries 0 (§8.5.1).
    let tag = flow.0.wrapping_add(1);
    let is_init = matches!(s.chunks.first(), Some(Chunk::Init(_)));
    let mut v = Vec::with_capacity(s.wire_len() as usize);
    put16(&mut v, ports.src);
    put16(&mut v, ports.dst);
    put32(&mut v, if is_init { 0 } else { tag });
    put32(&mut v, 0);
    for c in &s.chunks {
        match c {
            Chunk::Data(d) => {
                let mut b = Vec::with_capacity(12 + d.len as usize);
                put32(&mut b, d.tsn.0);
                put16(&mut b, d.stream);
                put16(&mut b, d.ssn);
                put32(&mut b, 0); // payload protocol identifier: unspecified
                b.resize(12 + d.len as usize, 0);
                // B and E: every message fits one chunk; U when unordered.
                let flags = 0x03 | if d.unordered { 0x04 } else { 0 };
                chunk(&mut v, chunk_type::DATA, flags, &b);
            }
            Chunk::Sack(k) => {
                let mut b = Vec::with_capacity(12 + 4 * (k.gaps.len() + k.dups.len()));
                put32(&mut b, k.cum_tsn.0);
                put32(&mut b, k.a_rwnd);
                put16(&mut b, k.gaps.len() as u16);
                put16(&mut b, k.dups.len() as u16);
                for g in &k.gaps {
                    put16(&mut b, g.start);
                    put16(&mut b, g.end);
                }
                for d in &k.dups {
                    put32(&mut b, d.0);
                }
                chunk(&mut v, chunk_type::SACK, 0, &b);
            }
            Chunk::Init(i) => chunk(&mut v, chunk_type::INIT, 0, &init_body(i, tag)),
            Chunk::InitAck { init, cookie_len } => {
                let mut b = init_body(init, tag);
                // State Cookie parameter (type 7).
                put16(&mut b, 7);
                put16(&mut b, 4 + *cookie_len as u16);
                b.resize(b.len() + *cookie_len as usize, 0);
                pad(&mut b);
                chunk(&mut v, chunk_type::INIT_ACK, 0, &b);
            }
            Chunk::CookieEcho { cookie_len } => chunk(
                &mut v,
                chunk_type::COOKIE_ECHO,
                0,
                &vec![0u8; *cookie_len as usize],
            ),
            Chunk::CookieAck => chunk(&mut v, chunk_type::COOKIE_ACK, 0, &[]),
            Chunk::Heartbeat(h) => chunk(&mut v, chunk_type::HEARTBEAT, 0, &heartbeat_body(h)),
            Chunk::HeartbeatAck(h) => {
                chunk(&mut v, chunk_type::HEARTBEAT_ACK, 0, &heartbeat_body(h))
            }
            Chunk::Shutdown { cum_tsn } => {
                chunk(&mut v, chunk_type::SHUTDOWN, 0, &cum_tsn.0.to_be_bytes())
            }
            Chunk::ShutdownAck => chunk(&mut v, chunk_type::SHUTDOWN_ACK, 0, &[]),
            Chunk::ShutdownComplete => chunk(&mut v, chunk_type::SHUTDOWN_COMPLETE, 0, &[]),
            Chunk::Abort => chunk(&mut v, chunk_type::ABORT, 0, &[]),
        }
    }
    // RFC 4960 Appendix B: CRC32c over the packet with the checksum field zero, stored in
    // network byte order as computed (the reflected CRC's bytes, least significant first).
    let crc = CRC32C.checksum(&v);
    v[8..12].copy_from_slice(&crc.to_le_bytes());
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{Addr, FlowId};
    use crate::packet::{
        dscp, DataChunk, GapBlock, SackBlocks, SackChunk, Seq, Timestamps, IP_HEADER_BYTES,
    };
    use etherparse::{NetSlice, SlicedPacket, TransportSlice};
    use packetsim_kernel::Time;

    fn bytes(p: &Packet, forward: bool, st: &mut TcpWireState) -> Vec<u8> {
        let mut v = Vec::new();
        let n = encode(p, Ports::of(p.flow, &p.body, forward), forward, st, &mut v);
        assert_eq!(n, v.len());
        v
    }

    fn tcp(flags: TcpFlags, payload: u32) -> TcpHeader {
        TcpHeader {
            seq: Seq(1461),
            ack: Seq(1),
            flags,
            wnd: 20_000,
            payload,
            ..TcpHeader::default()
        }
    }

    #[test]
    fn data_segment_keeps_seq_flags_ecn_dscp_and_the_simulated_length() {
        let mut h = tcp(TcpFlags::ACK | TcpFlags::CWR, 1460);
        h.ts = Some(Timestamps {
            val: Time::from_millis(1500),
            ecr: Time::from_micros(7),
        });
        let mut p = Packet::new(Addr(0), Addr(3), Body::Tcp(h));
        p.flow = FlowId(2);
        p.ecn = Ecn::Ce;
        p.dscp = dscp::AF12;
        p.uid = 0x1_0005;
        let v = bytes(&p, true, &mut TcpWireState::default());
        // No SYN, so the bytes are exactly the simulated size: 20 + 20 + 12 + 1460.
        assert_eq!(v.len() as u32, p.size);
        let s = SlicedPacket::from_ip(&v).unwrap();
        let Some(NetSlice::Ipv4(ip)) = s.net else {
            panic!("IPv4")
        };
        let iph = ip.header().to_header();
        assert_eq!(iph.source, [10, 0, 0, 1]);
        assert_eq!(iph.destination, [10, 0, 0, 4]);
        assert_eq!(iph.ecn, IpEcn::CongestionExperienced, "RFC 3168 CE = 11");
        assert_eq!(iph.dscp.value(), dscp::AF12);
        assert_eq!(iph.identification, 5);
        assert_eq!(iph.total_len as u32, p.size);
        assert_eq!(iph.header_checksum, iph.calc_header_checksum());
        let Some(TransportSlice::Tcp(t)) = s.transport else {
            panic!("TCP")
        };
        let th = t.to_header();
        assert_eq!((th.source_port, th.destination_port), (20002, TCP_PORT));
        assert_eq!((th.sequence_number, th.acknowledgment_number), (1461, 1));
        assert!(th.ack && th.cwr && !th.ece && !th.syn && th.psh);
        assert_eq!(th.window_size, 20_000, "no SYN seen: shift 0");
        assert_eq!(t.payload().len(), 1460);
        assert!(t.payload().iter().all(|&b| b == 0));
        assert_eq!(
            th.checksum,
            th.calc_checksum_ipv4(&iph, t.payload()).unwrap()
        );
        let opts: Vec<_> = th.options_iterator().map(|o| o.unwrap()).collect();
        assert!(opts.contains(&TcpOptionElement::Timestamp(1_500_000, 7)));
    }

    #[test]
    fn syn_announces_the_window_shift_that_later_segments_use() {
        // RFC 7323 §2.2: the SYN's own window is never scaled; later windows are >> shift.
        let mut st = TcpWireState::default();
        let mut syn = tcp(TcpFlags::SYN, 0);
        syn.wnd = 262_144;
        syn.sack_permitted = true;
        let p = Packet::new(Addr(0), Addr(1), Body::Tcp(syn));
        let v = bytes(&p, true, &mut st);
        let (t, _) = etherparse::TcpHeader::from_slice(&v[20..]).unwrap();
        assert!(t.syn);
        assert_eq!(t.window_size, 0xffff);
        let opts: Vec<_> = t.options_iterator().map(|o| o.unwrap()).collect();
        assert!(opts.contains(&TcpOptionElement::WindowScale(3)));
        assert!(opts.contains(&TcpOptionElement::SelectiveAcknowledgementPermitted));
        assert_eq!(st.shift, [3, 0]);
        let mut d = tcp(TcpFlags::ACK, 0);
        d.wnd = 262_144;
        let v = bytes(&Packet::new(Addr(0), Addr(1), Body::Tcp(d)), true, &mut st);
        let (t, _) = etherparse::TcpHeader::from_slice(&v[20..]).unwrap();
        assert_eq!(t.window_size as u32, 262_144 >> 3);
        // The other side's shift is its own (0: it sent no SYN here).
        let v = bytes(&Packet::new(Addr(1), Addr(0), Body::Tcp(d)), false, &mut st);
        let (t, _) = etherparse::TcpHeader::from_slice(&v[20..]).unwrap();
        assert_eq!(t.window_size, 0xffff, "clamped, unscaled");
        assert_eq!((t.source_port, t.destination_port), (TCP_PORT, 20000));
    }

    #[test]
    fn sack_blocks_are_kept_in_order_and_cut_to_three_beside_timestamps() {
        // RFC 2018 §3: 40 option bytes hold four blocks, three with the timestamp option.
        let blocks = [
            (Seq(100), Seq(200)),
            (Seq(300), Seq(400)),
            (Seq(500), Seq(600)),
            (Seq(700), Seq(800)),
        ];
        let mut h = tcp(TcpFlags::ACK, 0);
        h.sack = SackBlocks::from_slice(&blocks);
        let p = Packet::new(Addr(1), Addr(0), Body::Tcp(h));
        assert_eq!(p.size, 20 + 20 + 36);
        let v = bytes(&p, false, &mut TcpWireState::default());
        assert_eq!(v.len() as u32, p.size);
        let (t, _) = etherparse::TcpHeader::from_slice(&v[20..]).unwrap();
        let opts: Vec<_> = t.options_iterator().map(|o| o.unwrap()).collect();
        assert!(opts.contains(&TcpOptionElement::SelectiveAcknowledgement(
            (100, 200),
            [Some((300, 400)), Some((500, 600)), Some((700, 800))]
        )));
        h.ts = Some(Timestamps {
            val: Time::ZERO,
            ecr: Time::ZERO,
        });
        let v = bytes(
            &Packet::new(Addr(1), Addr(0), Body::Tcp(h)),
            false,
            &mut TcpWireState::default(),
        );
        let (t, _) = etherparse::TcpHeader::from_slice(&v[20..]).unwrap();
        let opts: Vec<_> = t.options_iterator().map(|o| o.unwrap()).collect();
        assert!(opts.contains(&TcpOptionElement::SelectiveAcknowledgement(
            (100, 200),
            [Some((300, 400)), Some((500, 600)), None]
        )));
        assert_eq!(t.header_len(), 60);
    }

    #[test]
    fn udp_datagram_has_its_length_and_a_valid_checksum() {
        let mut p = Packet::new(
            Addr(4),
            Addr(9),
            Body::Udp {
                seq: 3,
                payload: 500,
            },
        );
        p.flow = FlowId(1);
        let v = bytes(&p, true, &mut TcpWireState::default());
        assert_eq!(v.len() as u32, p.size);
        let s = SlicedPacket::from_ip(&v).unwrap();
        let Some(NetSlice::Ipv4(ip)) = s.net else {
            panic!("IPv4")
        };
        let Some(TransportSlice::Udp(u)) = s.transport else {
            panic!("UDP")
        };
        let uh = u.to_header();
        assert_eq!(
            (uh.source_port, uh.destination_port, uh.length),
            (20001, UDP_PORT, 508)
        );
        let iph = ip.header().to_header();
        assert_eq!(
            uh.checksum,
            uh.calc_checksum_ipv4(&iph, u.payload()).unwrap()
        );
    }

    #[test]
    fn sctp_chunks_are_laid_out_as_rfc4960_draws_them() {
        // RFC 4960 §3.3.1 (DATA) and §3.3.4 (SACK), bundled; lengths as the simulation counts.
        let s = SctpPacket {
            chunks: vec![
                Chunk::Sack(SackChunk {
                    cum_tsn: Seq(7),
                    a_rwnd: 65536,
                    gaps: vec![GapBlock { start: 2, end: 3 }],
                    dups: vec![Seq(5)],
                }),
                Chunk::Data(DataChunk {
                    tsn: Seq(42),
                    stream: 1,
                    ssn: 9,
                    unordered: false,
                    len: 1001,
                }),
            ],
        };
        let mut p = Packet::new(Addr(0), Addr(1), Body::Sctp(Box::new(s.clone())));
        p.flow = FlowId(0);
        let v = bytes(&p, true, &mut TcpWireState::default());
        assert_eq!(v.len() as u32, IP_HEADER_BYTES + s.wire_len());
        assert_eq!(v[9], 132, "IP protocol SCTP");
        let sc = &v[20..];
        assert_eq!(u16::from_be_bytes([sc[0], sc[1]]), 20000);
        assert_eq!(u16::from_be_bytes([sc[2], sc[3]]), SCTP_PORT);
        assert_eq!(u32::from_be_bytes([sc[4], sc[5], sc[6], sc[7]]), 1, "tag");
        // The checksum is the CRC32c of the packet with the field zeroed.
        let mut z = sc.to_vec();
        z[8..12].fill(0);
        assert_eq!(CRC32C.checksum(&z).to_le_bytes(), sc[8..12]);
        // SACK chunk: type 3, length 16 + 4 + 4.
        let sack = &sc[12..];
        assert_eq!((sack[0], u16::from_be_bytes([sack[2], sack[3]])), (3, 24));
        assert_eq!(u32::from_be_bytes([sack[4], sack[5], sack[6], sack[7]]), 7);
        // DATA chunk after it: type 0, flags B|E, length 16 + 1001 (unpadded), TSN 42.
        let data = &sack[24..];
        assert_eq!((data[0], data[1]), (0, 0x03));
        assert_eq!(u16::from_be_bytes([data[2], data[3]]), 16 + 1001);
        assert_eq!(u32::from_be_bytes([data[4], data[5], data[6], data[7]]), 42);
        assert_eq!(u16::from_be_bytes([data[8], data[9]]), 1);
        assert_eq!(u16::from_be_bytes([data[10], data[11]]), 9);
        assert_eq!(data.len(), 16 + 1004, "padded to 4");
    }

    #[test]
    fn init_carries_verification_tag_zero_and_its_addresses() {
        let init = crate::packet::InitChunk {
            initial_tsn: Seq(0),
            a_rwnd: 1 << 20,
            streams: 1,
            addrs: vec![Addr(6), Addr(8)],
        };
        let s = SctpPacket::single(Chunk::Init(init));
        let p = Packet::new(Addr(6), Addr(9), Body::Sctp(Box::new(s.clone())));
        let v = bytes(&p, true, &mut TcpWireState::default());
        assert_eq!(v.len() as u32, IP_HEADER_BYTES + s.wire_len());
        let sc = &v[20..];
        assert_eq!(&sc[4..8], &[0, 0, 0, 0], "RFC 4960 §8.5.1: INIT has tag 0");
        assert_eq!(sc[12], 1);
        // Two IPv4 address parameters after the 20-byte fixed part: 10.0.0.7 and 10.0.0.9.
        assert_eq!(&sc[12 + 20..12 + 28], &[0, 5, 0, 8, 10, 0, 0, 7]);
        assert_eq!(&sc[12 + 28..12 + 36], &[0, 5, 0, 8, 10, 0, 0, 9]);
    }
}
