//! SACK-based loss recovery, RFC 6675 §5: on entry cwnd = ssthresh (step 4.2); the sender then
//! sends while cwnd - pipe >= SMSS, choosing segments with NextSeg (§4) from its scoreboard.
//! Partial ACKs keep the sender in recovery; recovery ends when the cumulative ACK reaches
//! RecoveryPoint (`recover`). The scoreboard, pipe and NextSeg live in the sender
//! (`scoreboard.rs`), because they need the send sequence space.

use super::{CcState, Entry, LossRecovery, PartialAck};

/// RFC 6675 recovery.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SackRecovery;

impl LossRecovery for SackRecovery {
    fn enter(&mut self, st: &mut CcState) -> Entry {
        // RFC 6675 §5 step 4.2: cwnd = ssthresh (set by congestion control).
        st.cwnd = st.ssthresh.max(st.mss);
        Entry::FastRecovery
    }
    fn on_partial_ack(&mut self, _st: &mut CcState, _acked: u32) -> PartialAck {
        PartialAck::Stay
    }
    fn exit(&mut self, _st: &mut CcState) {}
    fn uses_sack(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        "sack"
    }
}
