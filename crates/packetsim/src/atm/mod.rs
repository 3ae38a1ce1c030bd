//! ATM at the cell level (study 1, spec/1-atm.md §2.1-2.3): 53-byte cells, AAL5 segmentation
//! and reassembly, and an output-buffered cell switch with the plain, PPD and EPD discard
//! policies.
//!
//! Layout: `cell.rs` (the cell and its sizes), `aal5.rs` (segmentation: how many cells a
//! packet becomes; reassembly: a frame with a missing cell is discarded and counted),
//! `switch.rs` (the output queue of B cells with per-VC frame state and drop counters split
//! by cause), `port.rs` (a slotted cell link direction: the transmitter mode behind
//! scenario links of `kind = "atm"`), `sim.rs` (the slotted cell-level network of spec §3.1
//! driving sans-IO TCP endpoints: the engine study 1 ran before it ran on the world, kept as
//! the reference the world's slotted time base matches draw for draw, `sim::Draws::World`).
//!
//! Cells carry no bytes: a cell is its VC, the number of the frame it belongs to and the
//! end-of-frame bit. The frame number is the simulator's knowledge of frame boundaries (spec
//! §2.3 "the simulator knows frame boundaries anyway"); a real AAL5 receiver finds them from
//! the end-of-frame bit and the CRC, with the same outcome: a frame missing any cell is lost.
//!
//! Performance: nothing here allocates per cell. The switch queue is a ring of fixed capacity
//! B, per-VC state is a small vector sized at build.
//!
//! Layering: `cell`, `aal5` and `switch` use the kernel only; `sim` drives the sans-IO TCP
//! endpoints (`crate::transport`) and a frame source (`crate::app`) itself, without `world`.

pub mod aal5;
pub mod cell;
pub mod port;
pub mod sim;
pub mod switch;

pub use aal5::{cells_for, Reassembler, ReassemblyStats};
pub use cell::{Cell, Vci, CELL_BYTES, CELL_HEADER, CELL_PAYLOAD};
pub use switch::{CellSwitch, Discard, SwitchConfig, SwitchStats, Verdict};
