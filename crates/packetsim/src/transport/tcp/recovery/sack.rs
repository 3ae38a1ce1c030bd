//! SACK-based loss recovery, RFC 6675 §5: on entry cwnd = ssthresh (step 4.2); the sender then
//! sends while cwnd - pipe >= SMSS, choosing segments with NextSeg (§4) from its scoreboard.
//! Partial ACKs keep the sender in recovery; recovery ends when the cumulative ACK reaches
//! RecoveryPoint (`recover`). The scoreboard, pipe and NextSeg live in the sender
//! (`scoreboard.rs`), because they need the send sequence space. A partial ACK restarts the
//! retransmission timer every time (RFC 6298 §5.3) or, `impatient`, only the first of an
//! episode (ns-3.37 `TcpSocketBase::ProcessAck`, per [`PartialAckTimer`]).

use super::super::config::PartialAckTimer;
use super::{partial_ack_restarts, CcState, Entry, LossRecovery, PartialAck};

/// RFC 6675 recovery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SackRecovery {
    timer: PartialAckTimer,
    /// Whether a partial ACK was already seen in this recovery episode.
    partial_seen: bool,
}

impl SackRecovery {
    /// A SACK recovery with the given partial-ACK timer policy.
    pub fn new(timer: PartialAckTimer) -> SackRecovery {
        SackRecovery {
            timer,
            partial_seen: false,
        }
    }
}

impl Default for SackRecovery {
    /// Every partial ACK restarts the timer (the behaviour before `sack_partial_ack_timer`).
    fn default() -> Self {
        SackRecovery::new(PartialAckTimer::SlowButSteady)
    }
}

impl LossRecovery for SackRecovery {
    fn enter(&mut self, st: &mut CcState) -> Entry {
        // RFC 6675 §5 step 4.2: cwnd = ssthresh (set by congestion control).
        self.partial_seen = false;
        st.cwnd = st.ssthresh.max(st.mss);
        Entry::FastRecovery
    }
    fn on_partial_ack(&mut self, _st: &mut CcState, _acked: u32) -> PartialAck {
        let reset_timer = partial_ack_restarts(self.timer, &mut self.partial_seen);
        PartialAck::Stay { reset_timer }
    }
    fn exit(&mut self, _st: &mut CcState) {}
    fn uses_sack(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        "sack"
    }
}
