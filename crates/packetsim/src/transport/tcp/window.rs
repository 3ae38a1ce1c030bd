//! Receive-window policies: what a receiver advertises. The fixed buffer (`FixedWindow`,
//! `cfg.rcv_window`) is the default and ns-2's behaviour (TCPSink advertises a constant
//! window). Study 2 adds the base-station-buffer policy (`BsBufferWindow`, `bs_buffer.rs`,
//! spec 2 §2.3; `cfg.bs_buffer`) as another variant of [`AnyWindow`] (enum dispatch, no
//! boxing). [`AnyWindow::from_config`] picks the policy a configuration asks for.
//!
//! DESIGN.md, "Transport": the policy "sees each arriving segment and its side fields". The
//! receiver calls [`WindowPolicy::on_segment`] with every TCP packet that reaches it (SYN,
//! data, duplicate or out of order), before it handles the segment, so the window of the ACK
//! that segment triggers already reflects it; then [`WindowPolicy::advertised`] for each ACK
//! it sends.

mod bs_buffer;

pub use bs_buffer::BsBufferWindow;

use super::TcpConfig;
use crate::packet::Packet;
use packetsim_kernel::Time;

/// A rule for the window a receiver advertises.
pub trait WindowPolicy {
    /// A TCP segment arrived at `now` in `pkt` (header and side fields). Default: ignored.
    #[inline]
    fn on_segment(&mut self, now: Time, pkt: &Packet) {
        let _ = (now, pkt);
    }
    /// The window to advertise at `now`, in bytes, given the bytes held out of order.
    fn advertised(&mut self, now: Time, out_of_order_bytes: u32) -> u32;
}

/// A fixed advertised window (the receive buffer size). Out-of-order bytes are not
/// subtracted: the sender already limits itself to `snd_una + window`, which counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedWindow {
    /// Window, bytes.
    pub bytes: u32,
}

impl WindowPolicy for FixedWindow {
    fn advertised(&mut self, _now: Time, _ooo: u32) -> u32 {
        self.bytes
    }
}

/// The built-in window policies.
#[derive(Clone, Debug, PartialEq)]
pub enum AnyWindow {
    /// A fixed buffer.
    Fixed(FixedWindow),
    /// The base-station-buffer window of study 2 (spec 2 §2.3).
    BsBuffer(BsBufferWindow),
}

impl AnyWindow {
    /// The policy `cfg` asks for: `BsBuffer` when `cfg.bs_buffer` is present, else the fixed
    /// `cfg.rcv_window`. `cfg` must be valid.
    pub fn from_config(cfg: &TcpConfig) -> AnyWindow {
        match &cfg.bs_buffer {
            Some(b) => AnyWindow::BsBuffer(BsBufferWindow::new(b, cfg.mss)),
            None => AnyWindow::Fixed(FixedWindow {
                bytes: cfg.rcv_window.min(u32::MAX as u64 / 2) as u32,
            }),
        }
    }
}

impl WindowPolicy for AnyWindow {
    #[inline]
    fn on_segment(&mut self, now: Time, pkt: &Packet) {
        match self {
            AnyWindow::Fixed(w) => w.on_segment(now, pkt),
            AnyWindow::BsBuffer(w) => w.on_segment(now, pkt),
        }
    }

    fn advertised(&mut self, now: Time, ooo: u32) -> u32 {
        match self {
            AnyWindow::Fixed(w) => w.advertised(now, ooo),
            AnyWindow::BsBuffer(w) => w.advertised(now, ooo),
        }
    }
}
