//! The TCP header as a typed struct (RFC 793 §3.1), with the SACK (RFC 2018) and timestamp
//! (RFC 7323) options and the ECN flags (RFC 3168 §6.1).

use super::Seq;
use packetsim_kernel::Time;

/// TCP control flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    /// No flags.
    pub const NONE: TcpFlags = TcpFlags(0);
    /// FIN: no more data from sender.
    pub const FIN: TcpFlags = TcpFlags(0x01);
    /// SYN: synchronise sequence numbers.
    pub const SYN: TcpFlags = TcpFlags(0x02);
    /// RST: reset the connection.
    pub const RST: TcpFlags = TcpFlags(0x04);
    /// ACK: the acknowledgment field is significant.
    pub const ACK: TcpFlags = TcpFlags(0x10);
    /// ECE: ECN echo (RFC 3168).
    pub const ECE: TcpFlags = TcpFlags(0x40);
    /// CWR: congestion window reduced (RFC 3168).
    pub const CWR: TcpFlags = TcpFlags(0x80);

    /// Whether every flag of `other` is set.
    pub const fn contains(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }
    /// `self` with the flags of `other` added.
    pub const fn with(self, other: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | other.0)
    }
}

impl std::ops::BitOr for TcpFlags {
    type Output = TcpFlags;
    fn bitor(self, o: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | o.0)
    }
}

/// Up to four SACK blocks `[left, right)`, most recently changed first (RFC 2018 §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    len: u8,
    blocks: [(Seq, Seq); 4],
}

impl SackBlocks {
    /// The most blocks an option can hold.
    pub const MAX: usize = 4;

    /// Blocks from a slice (at most [`SackBlocks::MAX`]; more is a bug in the caller).
    pub fn from_slice(bs: &[(Seq, Seq)]) -> SackBlocks {
        debug_assert!(bs.len() <= Self::MAX);
        let mut s = SackBlocks::default();
        for &b in bs.iter().take(Self::MAX) {
            s.push(b);
        }
        s
    }
    /// Appends a block if there is room; returns whether it was added.
    pub fn push(&mut self, b: (Seq, Seq)) -> bool {
        if (self.len as usize) < Self::MAX {
            self.blocks[self.len as usize] = b;
            self.len += 1;
            true
        } else {
            false
        }
    }
    /// The blocks, first to last.
    pub fn as_slice(&self) -> &[(Seq, Seq)] {
        &self.blocks[..self.len as usize]
    }
    /// The number of blocks.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// Whether there are no blocks.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The timestamp option (RFC 7323 §3). Values are simulation times, so they never wrap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timestamps {
    /// TSval: the sender's clock when the segment was sent.
    pub val: Time,
    /// TSecr: the TSval being echoed.
    pub ecr: Time,
}

/// A TCP header plus the length of the payload it carries.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TcpHeader {
    /// Sequence number of the first byte (or of the SYN/FIN).
    pub seq: Seq,
    /// Next sequence number expected by the sender of this segment (valid with ACK).
    pub ack: Seq,
    /// Control flags.
    pub flags: TcpFlags,
    /// Advertised receive window in bytes (unscaled: the simulation needs no scaling).
    pub wnd: u32,
    /// Bytes of data carried.
    pub payload: u32,
    /// SACK-permitted option (on SYN segments).
    pub sack_permitted: bool,
    /// SACK blocks (RFC 2018).
    pub sack: SackBlocks,
    /// Timestamp option (RFC 7323).
    pub ts: Option<Timestamps>,
    /// Count the header's bytes as ns-2.35 does (the endpoints set it from
    /// `TcpConfig::ns2_header_sizes`; see [`TcpHeader::header_len`]).
    pub ns2_len: bool,
}

impl TcpHeader {
    /// Bytes of the TCP header with its options, padded to 4 bytes.
    ///
    /// With [`TcpHeader::ns2_len`], the bytes ns-2.35 counts instead: 20 (its TCP/IP header,
    /// `tcpip_base_hdr_size_ 40`, less the IP header counted apart), plus 8 per SACK block with
    /// no option kind, length or padding (`tcp/tcp-sink.cc` `Sacker::append_ack`:
    /// `size() += sack_index * 8`), plus `ts_option_size_` 10 with timestamps on segments
    /// carrying data (`tcp/tcp.cc` `TcpAgent::headersize`); no SACK-permitted option (a SYN is
    /// `tcpip_base_hdr_size_` bytes, `TcpAgent::output`), and the receiver's ACKs carry no
    /// timestamp bytes (`TcpSink::ack` sends `packetSize_ 40`).
    #[inline]
    pub fn header_len(&self) -> u32 {
        if self.ns2_len {
            return ns2_header_len(self.sack.len, self.ts.is_some() && self.payload > 0);
        }
        let mut opts = 0u32;
        if self.sack_permitted {
            opts += 2;
        }
        if !self.sack.is_empty() {
            opts += 2 + 8 * self.sack.len() as u32;
        }
        if self.ts.is_some() {
            opts += 10;
        }
        20 + opts.div_ceil(4) * 4
    }
    /// Bytes on the wire above IP: header, options and payload.
    pub fn wire_len(&self) -> u32 {
        self.header_len() + self.payload
    }
    /// The sequence space this segment occupies: payload, plus one for SYN and for FIN.
    pub fn seq_len(&self) -> u32 {
        self.payload
            + self.flags.contains(TcpFlags::SYN) as u32
            + self.flags.contains(TcpFlags::FIN) as u32
    }
}

/// [`TcpHeader::header_len`] with `ns2_len`: out of line, so that the default sizes, computed
/// for every packet sent, stay a few branch-free instructions.
#[cold]
#[inline(never)]
fn ns2_header_len(sack_blocks: u8, ts_on_data: bool) -> u32 {
    20 + 8 * sack_blocks as u32 + if ts_on_data { 10 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_lengths_are_padded_to_words() {
        let mut h = TcpHeader {
            payload: 1460,
            ..Default::default()
        };
        assert_eq!(h.wire_len(), 1480);
        h.ts = Some(Timestamps {
            val: Time(1),
            ecr: Time(0),
        });
        assert_eq!(h.header_len(), 32);
        h.sack = SackBlocks::from_slice(&[(Seq(1), Seq(2)), (Seq(5), Seq(9)), (Seq(20), Seq(30))]);
        // 20 + 10 (TS) + 2 + 24 (3 blocks) = 56
        assert_eq!(h.header_len(), 56);
    }

    /// Every combination of the options against RFC 793 §3.1's rule (options padded to a
    /// multiple of 4 bytes) with RFC 2018 §2-3 (SACK-permitted 2 bytes, SACK 2 + 8n) and RFC
    /// 7323 §3 (timestamps 10), added up one by one.
    #[test]
    fn every_option_combination_is_padded_as_the_rfcs_add_up() {
        let blocks = [
            (Seq(1), Seq(2)),
            (Seq(5), Seq(9)),
            (Seq(20), Seq(30)),
            (Seq(40), Seq(50)),
        ];
        let mut seen = std::collections::BTreeSet::new();
        for sp in [false, true] {
            for ts in [false, true] {
                for n in 0..=SackBlocks::MAX {
                    let h = TcpHeader {
                        payload: 100,
                        sack_permitted: sp,
                        sack: SackBlocks::from_slice(&blocks[..n]),
                        ts: ts.then_some(Timestamps {
                            val: Time(5),
                            ecr: Time(3),
                        }),
                        ..Default::default()
                    };
                    let mut opts = 0;
                    if sp {
                        opts += 2;
                    }
                    if n > 0 {
                        opts += 2 + 8 * n as u32;
                    }
                    if ts {
                        opts += 10;
                    }
                    let padded = (opts + 3) / 4 * 4;
                    assert_eq!(h.header_len(), 20 + padded, "sp {sp} ts {ts} blocks {n}");
                    assert_eq!(h.wire_len(), 120 + padded);
                    seen.insert(h.header_len());
                }
            }
        }
        // 20 (none), 24 (SACK-permitted), 32 (TS, 1 block), 36, ... up to 20 + 48 (all four
        // blocks, timestamps and SACK-permitted: 46 option bytes).
        assert_eq!(seen.first(), Some(&20));
        assert_eq!(seen.last(), Some(&68));
    }

    /// ns-2.35's sizes: an ACK of `Agent/TCPSink/Sack1` is `packetSize_` 40 plus 8 per SACK
    /// block (`tcp/tcp-sink.cc` `Sacker::append_ack`), a SYN `tcpip_base_hdr_size_` 40
    /// (`tcp/tcp.cc` `TcpAgent::output`), a data segment 40 + `ts_option_size_` 10 with
    /// timestamps (`TcpAgent::headersize`). Sizes here are above the 20-byte IP header.
    #[test]
    fn ns2_lengths_count_eight_bytes_a_sack_block_and_no_padding() {
        let mut ack = TcpHeader {
            flags: TcpFlags::ACK,
            ns2_len: true,
            ..Default::default()
        };
        assert_eq!(ack.wire_len(), 20);
        ack.sack = SackBlocks::from_slice(&[(Seq(1), Seq(2))]);
        assert_eq!(ack.wire_len(), 28, "40 + 8 with IP; RFC 2018 layout: 52");
        ack.sack =
            SackBlocks::from_slice(&[(Seq(1), Seq(2)), (Seq(5), Seq(9)), (Seq(20), Seq(30))]);
        assert_eq!(ack.wire_len(), 44, "40 + 24 with IP; RFC 2018 layout: 68");
        ack.ts = Some(Timestamps {
            val: Time(1),
            ecr: Time(0),
        });
        assert_eq!(
            ack.wire_len(),
            44,
            "the sink's ACKs carry no timestamp bytes"
        );
        let syn = TcpHeader {
            flags: TcpFlags::SYN,
            sack_permitted: true,
            ns2_len: true,
            ..Default::default()
        };
        assert_eq!(
            syn.wire_len(),
            20,
            "no SACK-permitted option; RFC layout: 24"
        );
        let mut data = TcpHeader {
            payload: 1460,
            ns2_len: true,
            ..Default::default()
        };
        assert_eq!(data.wire_len(), 1480);
        data.ts = ack.ts;
        assert_eq!(
            data.wire_len(),
            1490,
            "ts_option_size_ 10, unpadded; RFC layout: 1492"
        );
    }
}
