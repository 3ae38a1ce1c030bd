//! ns-2.35's `Agent/TCP/Sack1` loss recovery (`tcp/tcp-sack1.cc`), beside RFC 6675 (`sack`):
//!
//! - Entry (`Sack1TcpAgent::dupack_action`): only on the DupThresh-th duplicate ACK that
//!   SACKs new data (no IsLost trigger); cwnd = ssthresh (the sender applies ns-2's
//!   `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)` under `ssthresh_rule = "ns2"`); a pipe
//!   counter in packets starts at (outstanding packets − DupThresh) and the first
//!   unacknowledged segment is retransmitted without counting it in the pipe.
//! - Every ACK during recovery takes one packet off the pipe (`Sack1TcpAgent::recv`,
//!   `--pipe_`); a partial ACK takes one more (`partial_ack_` false, ns-2's default) and
//!   restarts the retransmission timer with the backoff cleared (`newtimer`, `t_backoff_ = 1`).
//! - The sender sends while pipe < cwnd (`Sack1TcpAgent::send_much`): first the lowest hole at
//!   or above HighRxt that has SACKed data above it (`ScoreBoardRQ::GetNextRetran`), else new
//!   data, each within the peer's window; each adds one packet to the pipe.
//! - The ACK at or beyond `recover` ends recovery with cwnd as set on entry (`newack`, no
//!   growth) and clears `recover` (`recover_ = 0`), so the next loss may fast-retransmit at
//!   once even under the `after_loss` guard.
//!
//! The sender holds the parts that need its sequence space (`sender.rs`, `transmit_sack1`).

use super::{CcState, Entry, LossRecovery, PartialAck};

/// Sack1 recovery state: ns-2's `pipe_`, in packets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sack1Recovery {
    /// Packets estimated in the network (`pipe_`); meaningful in recovery only.
    pub pipe: u32,
}

impl LossRecovery for Sack1Recovery {
    fn enter(&mut self, st: &mut CcState) -> Entry {
        // `slowdown(CLOSE_CWND_HALF)`: cwnd = the halved window (ssthresh is already set).
        st.cwnd = st.ssthresh.max(st.mss);
        Entry::FastRecovery
    }
    fn on_dupack(&mut self, _st: &mut CcState) {
        // `Sack1TcpAgent::recv` in fast recovery: `--pipe_` on every ACK.
        self.pipe = self.pipe.saturating_sub(1);
    }
    fn on_partial_ack(&mut self, _st: &mut CcState, _acked: u32) -> PartialAck {
        // `--pipe_` for the ACK and once more for the partial ACK (`partial_ack_` false).
        self.pipe = self.pipe.saturating_sub(2);
        PartialAck::StayNewTimer
    }
    fn exit(&mut self, _st: &mut CcState) {}
    fn uses_sack(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        "sack1"
    }
}
