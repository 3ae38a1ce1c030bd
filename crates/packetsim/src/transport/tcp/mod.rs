//! TCP, byte-based: sender and receiver endpoints (sans-IO), with congestion control and loss
//! recovery as separate parts (see STYLE.md habits 2-4).
//!
//! PUBLIC API (used by the world adapter; keep these names and signatures):
//! - `TcpConfig`, `Variant`
//! - `AppData::{Unlimited, Bytes(u64)}`: how much the sending application offers
//! - `TcpSender::new(cfg: &TcpConfig, local: Addr, remote: Addr, app: AppData) -> TcpSender`,
//!   `TcpSender::open(&mut self, now: Time, out: &mut Outbox)` (sends the SYN),
//!   `TcpSender::stats(&self) -> &SenderStats`, `TcpSender::cc_metrics(&self) -> CcMetrics`
//! - `TcpReceiver::new(cfg: &TcpConfig, local: Addr, remote: Addr) -> TcpReceiver`,
//!   `TcpReceiver::stats(&self) -> &ReceiverStats`
//! - both implement `crate::transport::Endpoint`.

mod config;
mod receiver;
mod sender;
mod variant;

pub use config::TcpConfig;
pub use receiver::{ReceiverStats, TcpReceiver};
pub use sender::{AppData, CcMetrics, SenderStats, TcpSender};
pub use variant::Variant;
