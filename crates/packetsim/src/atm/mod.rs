//! ATM at the cell level (study 1, spec/1-atm.md §2.1-2.3): 53-byte cells, AAL5 segmentation
//! and reassembly, and an output-buffered cell switch with the plain, PPD and EPD discard
//! policies.
//!
//! Layout: `cell.rs` (the cell and its sizes), `aal5.rs` (segmentation: how many cells a
//! packet becomes; reassembly: a frame with a missing cell is discarded and counted),
//! `switch.rs` (the output queue of B cells with per-VC frame state and drop counters split
//! by cause), `port.rs` (a slotted cell link direction: the transmitter mode behind
//! scenario links of `kind = "atm"`). Study 1 runs on the world with these links
//! (`studies::atm_tcp`); its former cell-level engine, `sim.rs`, was removed after commit
//! ff13d99.
//!
//! Cells carry no bytes: a cell is its VC, the number of the frame it belongs to and the
//! end-of-frame bit. The frame number is the simulator's knowledge of frame boundaries (spec
//! §2.3 "the simulator knows frame boundaries anyway"); a real AAL5 receiver finds them from
//! the end-of-frame bit and the CRC, with the same outcome: a frame missing any cell is lost.
//!
//! Performance: nothing here allocates per cell. The switch queue is a ring of fixed capacity
//! B, per-VC state is a small vector sized at build.
//!
//! Layering: `cell`, `aal5` and `switch` use the kernel only; `port` implements
//! `net::SlottedPort`.

pub mod aal5;
pub mod cell;
pub mod port;
pub mod switch;

pub use aal5::{cells_for, Reassembler, ReassemblyStats};
pub use cell::{Cell, Vci, CELL_BYTES, CELL_HEADER, CELL_PAYLOAD};
pub use switch::{CellSwitch, Discard, SwitchConfig, SwitchStats, Verdict};
