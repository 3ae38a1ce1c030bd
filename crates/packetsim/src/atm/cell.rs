//! The ATM cell (spec §2.2): 53 bytes on the wire, a 5-byte header and 48 bytes of payload;
//! the header carries the virtual circuit (VCI) and the end-of-frame bit (the AUU bit of the
//! payload type field), set on the last cell of an AAL5 frame only.

/// Bytes of a cell on the wire.
pub const CELL_BYTES: u32 = 53;
/// Header bytes of a cell.
pub const CELL_HEADER: u32 = 5;
/// Payload bytes of a cell.
pub const CELL_PAYLOAD: u32 = 48;

/// A virtual-circuit identifier (one per TCP connection in study 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Vci(pub u16);

impl std::fmt::Display for Vci {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "vci#{}", self.0)
    }
}

/// One cell. `frame` numbers the AAL5 frames of its VC from 0 (see the module doc of
/// `crate::atm`: it stands for the frame boundaries a receiver finds from the end-of-frame bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The circuit.
    pub vci: Vci,
    /// The frame of this VC the cell belongs to.
    pub frame: u32,
    /// The last cell of its frame (AUU = 1).
    pub eof: bool,
    /// The frame's length in cells, as the AAL5 trailer in the last cell tells it (the
    /// trailer's length field and CRC); read by the receiver on the end-of-frame cell only.
    pub cells: u16,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_is_header_plus_payload_and_small() {
        assert_eq!(CELL_HEADER + CELL_PAYLOAD, CELL_BYTES);
        // Cells sit in the switch's ring by value: keep them small.
        assert!(std::mem::size_of::<Cell>() <= 12);
    }
}
