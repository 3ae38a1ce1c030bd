//! AAL5 (spec §2.2; ITU-T I.363.5): the sender appends an 8-byte trailer to a packet of L bytes
//! and pads to a multiple of 48, giving `ceil((L + 8) / 48)` cells sent back to back, the last
//! with the end-of-frame bit. The receiver collects a frame's cells; a frame missing any cell
//! is discarded (and counted) when its end-of-frame cell arrives, or when cells of a later
//! frame arrive first (its end-of-frame cell was lost); a complete frame is passed up.

use super::cell::{Cell, Vci, CELL_PAYLOAD};

/// The AAL5 trailer (CPCS-PDU trailer: UU, CPI, length, CRC-32), bytes.
pub const TRAILER: u32 = 8;

/// Cells an AAL5 frame of `payload` bytes takes: `ceil((payload + 8) / 48)`.
#[inline]
pub const fn cells_for(payload: u32) -> u32 {
    (payload + TRAILER).div_ceil(CELL_PAYLOAD)
}

/// Padding bytes in the frame of `payload` bytes (0 to 47).
#[inline]
pub const fn padding(payload: u32) -> u32 {
    cells_for(payload) * CELL_PAYLOAD - payload - TRAILER
}

/// The cells of frame `frame` of circuit `vci` for a `payload`-byte packet, in order.
pub fn segment(vci: Vci, frame: u32, payload: u32) -> impl Iterator<Item = Cell> {
    let n = cells_for(payload);
    (0..n).map(move |i| Cell {
        vci,
        frame,
        eof: i + 1 == n,
        cells: n as u16,
    })
}

/// Counters of a reassembler.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReassemblyStats {
    /// Cells received.
    pub cells: u64,
    /// Frames passed up complete.
    pub frames_ok: u64,
    /// Frames discarded for a missing cell (corrupted).
    pub frames_corrupted: u64,
    /// Cells that arrived in frames that were then discarded.
    pub cells_wasted: u64,
}

/// The AAL5 receiver of one circuit.
#[derive(Clone, Debug, Default)]
pub struct Reassembler {
    /// The frame being collected and the cells of it seen so far.
    current: Option<(u32, u32)>,
    stats: ReassemblyStats,
}

impl Reassembler {
    /// A receiver with nothing collected.
    pub fn new() -> Reassembler {
        Reassembler::default()
    }

    /// Takes one cell; returns the frame number when this cell completes an intact frame.
    pub fn on_cell(&mut self, c: Cell) -> Option<u32> {
        self.stats.cells += 1;
        let count = match self.current {
            Some((f, n)) if f == c.frame => n + 1,
            Some((_, n)) => {
                // Cells of a later frame: the one being collected lost its end-of-frame cell.
                self.discard(n);
                1
            }
            None => 1,
        };
        if !c.eof {
            self.current = Some((c.frame, count));
            return None;
        }
        self.current = None;
        if count == c.cells as u32 {
            self.stats.frames_ok += 1;
            Some(c.frame)
        } else {
            // The length in the trailer does not match (the CRC would fail): discard.
            self.discard(count);
            None
        }
    }

    fn discard(&mut self, cells: u32) {
        self.stats.frames_corrupted += 1;
        self.stats.cells_wasted += cells as u64;
    }

    /// Counters.
    pub fn stats(&self) -> &ReassemblyStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // spec §2.2: N = ceil((L + 8) / 48); 9180 B -> 192 cells with 28 B padding; a 52-byte ACK
    // (40 B of headers + 12 B timestamp option) -> 2 cells.
    #[test]
    fn segmentation_counts_and_padding() {
        let rows = [
            (0, 1, 40),
            (40, 1, 0),
            (41, 2, 47),
            (9180, 192, 28),
            (52, 2, 36),
        ];
        for (l, n, pad) in rows {
            assert_eq!((cells_for(l), padding(l)), (n, pad), "payload {l}");
            let cells: Vec<Cell> = segment(Vci(3), 7, l).collect();
            assert_eq!(cells.len() as u32, n);
            assert!(cells[..cells.len() - 1].iter().all(|c| !c.eof));
            assert!(
                cells.last().unwrap().eof,
                "end-of-frame on the last cell only"
            );
        }
    }

    // spec §2.2: a complete frame is passed up; a frame missing any one cell is discarded and
    // counted, whichever cell is missing (the end-of-frame one included, found when the next
    // frame starts), and the next frame is judged afresh.
    #[test]
    fn reassembly_rejects_any_missing_cell() {
        let n = cells_for(9180) as usize;
        let mut r = Reassembler::new();
        let got: Vec<_> = segment(Vci(1), 0, 9180)
            .filter_map(|c| r.on_cell(c))
            .collect();
        assert_eq!(got, vec![0]);
        for missing in 0..n {
            let mut r = Reassembler::new();
            let mut out = vec![];
            for (i, c) in segment(Vci(1), 1, 9180).enumerate() {
                if i != missing {
                    out.extend(r.on_cell(c));
                }
            }
            // The next frame arrives intact.
            out.extend(segment(Vci(1), 2, 52).filter_map(|c| r.on_cell(c)));
            assert_eq!(out, vec![2], "missing cell {missing}");
            assert_eq!(r.stats().frames_corrupted, 1);
            assert_eq!(r.stats().frames_ok, 1);
            assert_eq!(r.stats().cells_wasted, n as u64 - 1);
        }
    }
}
