//! NewReno, RFC 6582 §3.2: fast recovery as Reno, but a partial ACK (below `recover`)
//! retransmits the first unacknowledged segment, deflates cwnd by the bytes acknowledged and
//! adds back SMSS when at least SMSS was acknowledged, and stays in recovery (step 5). The
//! retransmit timer is reset on the first partial ACK ("impatient", RFC 6582 §4) or on every
//! one ("slow-but-steady", spec 5 §2.6), per [`PartialAckTimer`]. The full ACK ends recovery
//! with cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) (step 3, option 1).

use super::super::config::{FullAckCwnd, PartialAckTimer};
use super::{partial_ack_restarts, CcState, Entry, LossRecovery, PartialAck};

/// RFC 6582 fast recovery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewReno {
    timer: PartialAckTimer,
    full_ack: FullAckCwnd,
    /// Whether a partial ACK was already seen in this recovery episode.
    partial_seen: bool,
}

impl NewReno {
    /// A NewReno recovery with the given partial-ACK timer policy.
    pub fn new(timer: PartialAckTimer, full_ack: FullAckCwnd) -> NewReno {
        NewReno {
            timer,
            full_ack,
            partial_seen: false,
        }
    }
}

impl LossRecovery for NewReno {
    fn enter(&mut self, st: &mut CcState) -> Entry {
        // RFC 6582 §3.2 step 2 (as RFC 5681 §3.2 step 4).
        self.partial_seen = false;
        st.cwnd = st.ssthresh + 3 * st.mss;
        Entry::FastRecovery
    }
    fn on_dupack(&mut self, st: &mut CcState) {
        // RFC 6582 §3.2 step 4 (RFC 5681 §3.2 step 5).
        st.cwnd = st.cwnd.saturating_add(st.mss);
    }
    fn on_partial_ack(&mut self, st: &mut CcState, acked: u32) -> PartialAck {
        // RFC 6582 §3.2 step 5: deflate by the amount acked, add back SMSS if >= SMSS.
        let back = if acked >= st.mss { st.mss } else { 0 };
        st.cwnd = (st.cwnd.saturating_sub(acked) + back).max(st.mss);
        let reset_timer = partial_ack_restarts(self.timer, &mut self.partial_seen);
        PartialAck::RetransmitNext { reset_timer }
    }
    fn exit(&mut self, st: &mut CcState) {
        // RFC 6582 §3.2 step 3: on the full ACK, option 2 (ssthresh) or option 1.
        st.cwnd = match self.full_ack {
            FullAckCwnd::Ssthresh => st.ssthresh,
            FullAckCwnd::FlightSize => st.ssthresh.min(st.bytes_in_flight.max(st.mss) + st.mss),
        }
        .max(st.mss);
    }
    fn name(&self) -> &'static str {
        "newreno"
    }
}
