//! Tahoe: no fast recovery. On the dupack threshold the sender retransmits, sets
//! cwnd = 1 MSS (ssthresh already halved) and slow-starts from snd_una, go-back-N
//! (spec 5 §2.6; ns-2 `TcpAgent`).

use super::{CcState, Entry, LossRecovery, PartialAck};

/// Tahoe: no fast recovery.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tahoe;

impl LossRecovery for Tahoe {
    fn enter(&mut self, st: &mut CcState) -> Entry {
        st.cwnd = st.mss;
        Entry::GoBackN
    }
    fn on_partial_ack(&mut self, _st: &mut CcState, _acked: u32) -> PartialAck {
        // Tahoe never enters Phase::Recovery; leave it if somehow there.
        PartialAck::Exit
    }
    fn exit(&mut self, _st: &mut CcState) {}
    fn name(&self) -> &'static str {
        "tahoe"
    }
}
