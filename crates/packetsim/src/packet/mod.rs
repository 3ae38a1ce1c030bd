//! Packets and their typed headers, Repr-style: plain structs, never bytes. Each header knows
//! its length on the wire (`wire_len`), which is what links serialise and queues count.
//!
//! A [`Packet`] is small and `Clone`; in the world it lives in a slab and moves by index.
//! Layering: this module uses only the kernel and [`crate::ids`].

mod sctp;
mod seq;
mod tcp;

pub use sctp::{
    pad4, Chunk, DataChunk, GapBlock, HeartbeatInfo, InitChunk, SackChunk, SctpPacket, Tsn,
    DATA_CHUNK_HEADER_BYTES, SACK_CHUNK_BASE_BYTES, SCTP_COMMON_HEADER_BYTES,
};
pub use seq::Seq;
pub use tcp::{SackBlocks, TcpFlags, TcpHeader, Timestamps};

use crate::ids::{Addr, AgentId, FlowId};

/// Bytes of the IPv4 header that every packet carries.
pub const IP_HEADER_BYTES: u32 = 20;
/// Bytes of a UDP header.
pub const UDP_HEADER_BYTES: u32 = 8;

/// The two ECN bits of the IP header (RFC 3168 §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Ecn {
    /// Not ECN-capable transport.
    #[default]
    NotEct,
    /// ECN-capable transport, ECT(0).
    Ect0,
    /// ECN-capable transport, ECT(1).
    Ect1,
    /// Congestion experienced, set by a router instead of dropping.
    Ce,
}

impl Ecn {
    /// Whether a router may mark this packet instead of dropping it.
    pub fn is_ect(self) -> bool {
        matches!(self, Ecn::Ect0 | Ecn::Ect1)
    }
}

/// DiffServ code points (RFC 2474, RFC 2597, RFC 3246) used by the simulator.
pub mod dscp {
    /// Best effort (default PHB).
    pub const BE: u8 = 0;
    /// Assured Forwarding class 1, low drop precedence ("IN").
    pub const AF11: u8 = 10;
    /// Assured Forwarding class 1, medium drop precedence ("OUT" in two-level RIO).
    pub const AF12: u8 = 12;
    /// Assured Forwarding class 1, high drop precedence.
    pub const AF13: u8 = 14;
    /// Expedited Forwarding.
    pub const EF: u8 = 46;

    /// Whether `d` is an Assured Forwarding code point (AFxy: x in 1..=4, y in 1..=3).
    pub const fn is_af(d: u8) -> bool {
        let class = d >> 3;
        let prec = (d >> 1) & 3;
        d & 1 == 0 && class >= 1 && class <= 4 && prec >= 1
    }

    /// Bit `d` set for the code points `d` < 64 of OUT precedence: AF code points of medium
    /// or high drop precedence (AFx2, AFx3). Derived from [`is_af`] at compile time, so that
    /// the precedence every queue admission asks for is one bit test.
    pub(crate) const OUT: u64 = {
        let mut m = 0u64;
        let mut d = 0u8;
        while d < 64 {
            if is_af(d) && (d >> 1) & 3 >= 2 {
                m |= 1 << d;
            }
            d += 1;
        }
        m
    };
}

/// The two drop precedences of RIO (RFC 2597 folded to two levels, as the study does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precedence {
    /// In profile (low drop precedence); also every non-AF packet.
    In = 0,
    /// Out of profile (medium or high drop precedence).
    Out = 1,
}

/// The precedence of every `dscp` byte, from [`dscp::OUT`] at compile time: code points of 64
/// and up are not AF (their class is 8 or more), so IN.
static PRECEDENCE: [Precedence; 256] = {
    let mut t = [Precedence::In; 256];
    let mut d = 0;
    while d < 64 {
        if (dscp::OUT >> d) & 1 == 1 {
            t[d] = Precedence::Out;
        }
        d += 1;
    }
    t
};

/// The transport part of a packet.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// A TCP segment (header plus `payload` bytes of data).
    Tcp(TcpHeader),
    /// An SCTP packet (common header and chunks), boxed to keep `Body` small.
    Sctp(Box<SctpPacket>),
    /// A UDP datagram with a sequence number (for loss accounting) and `payload` bytes.
    Udp {
        /// Sequence number of the datagram within its flow.
        seq: u64,
        /// Bytes of data.
        payload: u32,
    },
    /// A control message between node elements (a route update, a path-setup message, a
    /// registration): real bytes on the wire, read only by the element family that sent it.
    Control(ControlHeader),
}

/// A control message's header: which element family it belongs to, what kind of message it
/// is, its size on the wire, and a few words whose meaning the family defines (addresses,
/// sequence numbers). Plain data, so that the packet layer knows nothing of mobility or ATM.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ControlHeader {
    /// The element family (each family picks its own constant, e.g. Cellular IP, HAWAII).
    pub family: u16,
    /// The message kind within the family.
    pub kind: u16,
    /// Bytes above the IP header (what the message costs on the wire).
    pub bytes: u32,
    /// Family-defined arguments.
    pub args: [u32; 4],
}

/// Link-layer side fields of a packet: tags that travel with it but cost no wire bytes
/// (DESIGN.md, Network: "Packet side fields"). A transmitter's dequeue hook writes them; an
/// endpoint's window policy may read them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// Bytes queued behind this packet's transmitter when it was dequeued, excluding the
    /// packet itself (a base station's queue report, spec 2 §2.2), if a hook wrote it.
    pub queue_report: Option<u32>,
}

impl Body {
    /// Bytes on the wire above the IP header.
    #[inline(always)]
    pub fn transport_len(&self) -> u32 {
        match self {
            Body::Tcp(h) => h.wire_len(),
            Body::Sctp(p) => p.wire_len(),
            Body::Udp { payload, .. } => UDP_HEADER_BYTES + payload,
            Body::Control(c) => c.bytes,
        }
    }
}

/// A packet in flight.
#[derive(Clone, Debug, PartialEq)]
pub struct Packet {
    /// Source address.
    pub src: Addr,
    /// Destination address; routing forwards on it.
    pub dst: Addr,
    /// The flow the packet belongs to (filled in by the agent adapter).
    pub flow: FlowId,
    /// The endpoint at `dst` that receives it (filled in by the agent adapter).
    pub to: AgentId,
    /// Bytes on the wire including the IP header (filled in by the adapter from the body).
    pub size: u32,
    /// ECN codepoint.
    pub ecn: Ecn,
    /// DiffServ code point (0 = best effort).
    pub dscp: u8,
    /// A number unique within the run (filled in by the adapter), for traces.
    pub uid: u64,
    /// Link-layer side fields (no wire bytes).
    pub meta: Meta,
    /// The transport header and payload length.
    pub body: Body,
}

impl Packet {
    /// A packet from `src` to `dst` carrying `body`; the adapter fills in the rest.
    #[inline(always)]
    pub fn new(src: Addr, dst: Addr, body: Body) -> Packet {
        let size = IP_HEADER_BYTES + body.transport_len();
        Packet {
            src,
            dst,
            flow: FlowId(0),
            to: AgentId(0),
            size,
            ecn: Ecn::NotEct,
            dscp: 0,
            uid: 0,
            meta: Meta::default(),
            body,
        }
    }

    /// The TCP header, if this is a TCP segment.
    pub fn tcp(&self) -> Option<&TcpHeader> {
        match &self.body {
            Body::Tcp(h) => Some(h),
            _ => None,
        }
    }

    /// The SCTP packet, if this is one.
    pub fn sctp(&self) -> Option<&SctpPacket> {
        match &self.body {
            Body::Sctp(p) => Some(p),
            _ => None,
        }
    }

    /// The packet's drop precedence: OUT for AF code points of medium or high precedence,
    /// IN for everything else.
    #[inline(always)]
    pub fn precedence(&self) -> Precedence {
        // One load: every queue admission asks (the bit test with its range check was 12
        // instructions).
        PRECEDENCE[self.dscp as usize]
    }

    /// Sets the drop precedence of an AF packet (AFx1 for IN, AFx2 for OUT); other packets
    /// are left unchanged.
    pub fn set_precedence(&mut self, p: Precedence) {
        if dscp::is_af(self.dscp) {
            let y = match p {
                Precedence::In => 1,
                Precedence::Out => 2,
            };
            self.dscp = (self.dscp & !0b110) | (y << 1);
        }
    }

    /// Bytes of application data carried.
    pub fn payload(&self) -> u32 {
        match &self.body {
            Body::Tcp(h) => h.payload,
            Body::Sctp(p) => p.user_bytes(),
            Body::Udp { payload, .. } => *payload,
            Body::Control(_) => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn af_precedence_reads_and_lowers() {
        let mut p = Packet::new(Addr(0), Addr(1), Body::Udp { seq: 0, payload: 1 });
        assert_eq!(p.precedence(), Precedence::In, "best effort counts as IN");
        p.dscp = dscp::AF12;
        assert_eq!(p.precedence(), Precedence::Out);
        p.set_precedence(Precedence::In);
        assert_eq!(p.dscp, dscp::AF11);
        p.dscp = dscp::AF13;
        assert_eq!(p.precedence(), Precedence::Out);
        p.dscp = dscp::EF;
        p.set_precedence(Precedence::Out);
        assert_eq!(p.dscp, dscp::EF, "EF has no drop precedence");
        assert!(dscp::is_af(34) && !dscp::is_af(dscp::EF) && !dscp::is_af(dscp::BE));
    }

    /// The OUT table gives, for every possible `dscp` byte (0-255), the precedence of the
    /// rule it replaces: RFC 2597's AFxy with y = 2 or 3 is OUT, every other code point IN.
    #[test]
    fn precedence_table_matches_the_af_rule() {
        let mut p = Packet::new(Addr(0), Addr(1), Body::Udp { seq: 0, payload: 1 });
        let mut outs = Vec::new();
        for d in 0..=255u8 {
            p.dscp = d;
            let rule = dscp::is_af(d) && (d >> 1) & 3 >= 2;
            assert_eq!(p.precedence() == Precedence::Out, rule, "dscp {d}");
            if rule {
                outs.push(d);
            }
        }
        // AF12, AF13, AF22, AF23, AF32, AF33, AF42, AF43.
        assert_eq!(outs, vec![12, 14, 20, 22, 28, 30, 36, 38]);
    }
}
