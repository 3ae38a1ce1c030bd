//! SCTP packets (RFC 4960 §3), Repr-style: a common header and a list of typed chunks. Each
//! chunk knows its length on the wire, padded to 4 bytes, so an SCTP packet costs what it costs
//! on a real link: IP 20 + common header 12 + chunks (a DATA chunk is 16 + user data).
//!
//! TSNs are 32-bit serial numbers ([`Tsn`], the wrap-aware [`Seq`] type); stream sequence
//! numbers are 16-bit.

use super::Seq;
use crate::ids::Addr;
use packetsim_kernel::Time;

/// A transmission sequence number, compared modulo 2^32 (RFC 4960 §1.6).
pub type Tsn = Seq;

/// Bytes of the SCTP common header (ports, verification tag, checksum).
pub const SCTP_COMMON_HEADER_BYTES: u32 = 12;
/// Bytes of a DATA chunk's header.
pub const DATA_CHUNK_HEADER_BYTES: u32 = 16;
/// Bytes of a SACK chunk without gap blocks or duplicate TSNs.
pub const SACK_CHUNK_BASE_BYTES: u32 = 16;
/// Bytes of an IPv4 address parameter in INIT and INIT-ACK.
const ADDR_PARAM_BYTES: u32 = 8;
/// Bytes of the fixed part of INIT and INIT-ACK.
const INIT_FIXED_BYTES: u32 = 20;
/// Bytes of a HEARTBEAT / HEARTBEAT-ACK chunk: chunk header 4, parameter header 4, and the
/// sender-specific information (timestamp 8, destination address 4, nonce 8).
const HEARTBEAT_BYTES: u32 = 28;

/// `n` rounded up to a multiple of 4.
pub const fn pad4(n: u32) -> u32 {
    (n + 3) & !3
}

/// One DATA chunk (RFC 4960 §3.3.1). The user data itself is not modelled, only its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataChunk {
    /// Transmission sequence number.
    pub tsn: Tsn,
    /// Stream identifier.
    pub stream: u16,
    /// Stream sequence number (ignored by the receiver when `unordered`).
    pub ssn: u16,
    /// The U bit: deliver without regard to stream order.
    pub unordered: bool,
    /// Bytes of user data (without padding).
    pub len: u32,
}

impl DataChunk {
    /// Bytes on the wire: header plus padded user data.
    pub fn wire_len(&self) -> u32 {
        DATA_CHUNK_HEADER_BYTES + pad4(self.len)
    }
}

/// A gap-ack block (RFC 4960 §3.3.4): TSNs `cum_tsn + start ..= cum_tsn + end` received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GapBlock {
    /// Offset of the first TSN of the block from the cumulative TSN ack.
    pub start: u16,
    /// Offset of the last TSN of the block from the cumulative TSN ack.
    pub end: u16,
}

/// A SACK chunk (RFC 4960 §3.3.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SackChunk {
    /// The highest TSN received in sequence.
    pub cum_tsn: Tsn,
    /// Advertised receiver window credit, bytes.
    pub a_rwnd: u32,
    /// Gap-ack blocks, in increasing TSN order.
    pub gaps: Vec<GapBlock>,
    /// TSNs received more than once since the last SACK.
    pub dups: Vec<Tsn>,
}

impl SackChunk {
    /// Bytes on the wire.
    pub fn wire_len(&self) -> u32 {
        SACK_CHUNK_BASE_BYTES + 4 * self.gaps.len() as u32 + 4 * self.dups.len() as u32
    }
}

/// INIT / INIT-ACK contents that matter to the model (RFC 4960 §3.3.2-3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitChunk {
    /// The sender's initial TSN.
    pub initial_tsn: Tsn,
    /// The sender's receiver window.
    pub a_rwnd: u32,
    /// Outbound streams requested.
    pub streams: u16,
    /// Every address the sender can be reached at (its address list).
    pub addrs: Vec<Addr>,
}

impl InitChunk {
    /// Bytes on the wire (fixed part plus one IPv4 address parameter per address).
    pub fn wire_len(&self) -> u32 {
        INIT_FIXED_BYTES + ADDR_PARAM_BYTES * self.addrs.len() as u32
    }
}

/// HEARTBEAT information (RFC 4960 §3.3.5): opaque to the peer, echoed in the ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeartbeatInfo {
    /// When the HEARTBEAT was sent (for the RTT sample).
    pub sent_at: Time,
    /// The destination address it was sent to.
    pub dest: Addr,
    /// A value the sender can check the echo against.
    pub nonce: u64,
}

/// An SCTP chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk {
    /// Association setup, first leg.
    Init(InitChunk),
    /// Association setup, second leg; carries a state cookie of `cookie_len` bytes.
    InitAck {
        /// The responder's INIT parameters.
        init: InitChunk,
        /// Length of the state cookie parameter's value.
        cookie_len: u32,
    },
    /// Association setup, third leg: echoes the cookie.
    CookieEcho {
        /// Length of the echoed cookie.
        cookie_len: u32,
    },
    /// Association setup, last leg.
    CookieAck,
    /// User data.
    Data(DataChunk),
    /// Selective acknowledgement.
    Sack(SackChunk),
    /// Path probe.
    Heartbeat(HeartbeatInfo),
    /// Answer to a path probe, echoing its information.
    HeartbeatAck(HeartbeatInfo),
    /// Graceful close, first leg.
    Shutdown {
        /// The cumulative TSN ack of the sender of SHUTDOWN.
        cum_tsn: Tsn,
    },
    /// Graceful close, second leg.
    ShutdownAck,
    /// Graceful close, last leg.
    ShutdownComplete,
    /// Ungraceful close.
    Abort,
}

impl Chunk {
    /// Bytes on the wire, padded to 4.
    pub fn wire_len(&self) -> u32 {
        match self {
            Chunk::Init(i) => i.wire_len(),
            Chunk::InitAck { init, cookie_len } => init.wire_len() + 4 + pad4(*cookie_len),
            Chunk::CookieEcho { cookie_len } => 4 + pad4(*cookie_len),
            Chunk::CookieAck | Chunk::ShutdownAck | Chunk::ShutdownComplete | Chunk::Abort => 4,
            Chunk::Data(d) => d.wire_len(),
            Chunk::Sack(s) => s.wire_len(),
            Chunk::Heartbeat(_) | Chunk::HeartbeatAck(_) => HEARTBEAT_BYTES,
            Chunk::Shutdown { .. } => 8,
        }
    }
}

/// An SCTP packet: the common header and its chunks, bundled in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SctpPacket {
    /// The chunks, in the order they are bundled.
    pub chunks: Vec<Chunk>,
}

impl SctpPacket {
    /// A packet holding one chunk.
    pub fn single(c: Chunk) -> SctpPacket {
        SctpPacket { chunks: vec![c] }
    }
    /// Bytes above the IP header: common header plus every chunk.
    pub fn wire_len(&self) -> u32 {
        SCTP_COMMON_HEADER_BYTES + self.chunks.iter().map(Chunk::wire_len).sum::<u32>()
    }
    /// Bytes of user data carried (DATA chunks only, unpadded).
    pub fn user_bytes(&self) -> u32 {
        self.chunks
            .iter()
            .map(|c| match c {
                Chunk::Data(d) => d.len,
                _ => 0,
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_data_packet_is_1500_bytes_with_1452_of_user_data() {
        // Spec 3 §2.5: ns-2's dataChunkSize 1468 = 16 + 1452; 20 + 12 + 1468 = 1500.
        let p = SctpPacket::single(Chunk::Data(DataChunk {
            tsn: Seq(1),
            stream: 0,
            ssn: 0,
            unordered: false,
            len: 1452,
        }));
        assert_eq!(super::super::IP_HEADER_BYTES + p.wire_len(), 1500);
        assert_eq!(p.user_bytes(), 1452);
    }

    #[test]
    fn sack_length_counts_blocks_and_duplicates() {
        let s = SackChunk {
            cum_tsn: Seq(7),
            a_rwnd: 65536,
            gaps: vec![GapBlock { start: 2, end: 3 }, GapBlock { start: 5, end: 5 }],
            dups: vec![Seq(4)],
        };
        assert_eq!(Chunk::Sack(s).wire_len(), 16 + 8 + 4);
        assert_eq!(pad4(1), 4);
        assert_eq!(pad4(1452), 1452);
        assert_eq!(
            DataChunk {
                tsn: Seq(0),
                stream: 0,
                ssn: 0,
                unordered: true,
                len: 1001
            }
            .wire_len(),
            16 + 1004
        );
    }
}
