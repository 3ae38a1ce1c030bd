//! Reno fast recovery, RFC 5681 §3.2: on the third duplicate ACK cwnd = ssthresh + 3·SMSS
//! (step 4); each further duplicate ACK inflates cwnd by SMSS (step 5); the first ACK of new
//! data, even a partial one, deflates cwnd to ssthresh and ends recovery (step 6).

use super::{CcState, Entry, LossRecovery, PartialAck};

/// RFC 5681 fast recovery.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenoRecovery;

impl LossRecovery for RenoRecovery {
    fn enter(&mut self, st: &mut CcState) -> Entry {
        // RFC 5681 §3.2 step 4.
        st.cwnd = st.ssthresh + 3 * st.mss;
        Entry::FastRecovery
    }
    fn on_dupack(&mut self, st: &mut CcState) {
        // RFC 5681 §3.2 step 5: artificially inflate by one SMSS.
        st.cwnd = st.cwnd.saturating_add(st.mss);
    }
    fn on_partial_ack(&mut self, st: &mut CcState, _acked: u32) -> PartialAck {
        // RFC 5681 §3.2 step 6: deflate on the next new ACK.
        self.exit(st);
        PartialAck::Exit
    }
    fn exit(&mut self, st: &mut CcState) {
        st.cwnd = st.ssthresh;
    }
    fn name(&self) -> &'static str {
        "reno"
    }
}
