//! Loss recovery: how the window behaves between a fast retransmit and the end of recovery
//! (after ns-3 `TcpRecoveryOps`). The sender alone decides *when* recovery starts and ends
//! (dupack threshold, partial/full ACK, RTO) and owns `Phase`; congestion control has already
//! set ssthresh when [`LossRecovery::enter`] runs.
//!
//! - `none` (Tahoe): no fast recovery; cwnd = 1 MSS and go-back-N (spec 5 §2.6).
//! - `reno` (RFC 5681 §3.2): inflate by one MSS per dupack, deflate and exit on any new ACK.
//! - `newreno` (RFC 6582): partial ACKs retransmit the next hole and stay in recovery.
//! - `sack` (RFC 6675): cwnd = ssthresh; the sender's scoreboard, pipe and NextSeg pick what
//!   to send (see `scoreboard.rs` and the sender).
//! - `prr` (RFC 6937, `tcp.sack_recovery = "prr"`): RFC 6675's scoreboard and NextSeg with
//!   cwnd = pipe + sndcnt on every ACK of the recovery (see `prr.rs`).
//! - `sack1` (ns-2.35 `Agent/TCP/Sack1`, `tcp.sack_recovery = "sack1"`): a pipe counter in
//!   packets, holes below the highest SACK first (see `sack1.rs`).

mod newreno;
mod none;
mod prr;
mod reno;
mod sack;
mod sack1;

pub use newreno::NewReno;
pub use none::Tahoe;
pub use prr::PrrRecovery;
pub use reno::RenoRecovery;
pub use sack::SackRecovery;
pub use sack1::Sack1Recovery;

use super::cc::CcState;
use super::config::PartialAckTimer;

/// Whether a partial ACK restarts the retransmission timer (RFC 6582 §4): every one
/// ("slow-but-steady") or only the first of a recovery ("impatient"). `seen` records that
/// this recovery has had a partial ACK; the recovery clears it on entry.
fn partial_ack_restarts(timer: PartialAckTimer, seen: &mut bool) -> bool {
    let restart = match timer {
        PartialAckTimer::SlowButSteady => true,
        PartialAckTimer::Impatient => !*seen,
    };
    *seen = true;
    restart
}

/// How the sender proceeds after a fast retransmit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// Retransmit the first unacknowledged segment and enter `Phase::Recovery`.
    FastRecovery,
    /// Resend everything from snd_una as the window allows (Tahoe), in `Phase::Loss`.
    GoBackN,
}

/// What the sender does on a partial ACK (new data acknowledged, below `recover`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialAck {
    /// Leave recovery (Reno: the first new ACK ends it).
    Exit,
    /// Retransmit the first unacknowledged segment and stay in recovery; restart the RTO timer
    /// only if `reset_timer` (RFC 6582 §3.2 step 5 and the "impatient" variant).
    RetransmitNext {
        /// Whether to restart the retransmission timer.
        reset_timer: bool,
    },
    /// Stay in recovery; the scoreboard drives retransmissions (SACK); restart the RTO timer
    /// only if `reset_timer`.
    Stay {
        /// Whether to restart the retransmission timer.
        reset_timer: bool,
    },
    /// Stay in recovery, restart the timer and clear its backoff (ns-2 Sack1: `newtimer`,
    /// `t_backoff_ = 1`).
    StayNewTimer,
}

/// A loss-recovery policy (STYLE habit 3).
pub trait LossRecovery {
    /// Fast retransmit: set cwnd (ssthresh is already set).
    fn enter(&mut self, st: &mut CcState) -> Entry;
    /// A further duplicate ACK during recovery.
    fn on_dupack(&mut self, _st: &mut CcState) {}
    /// A partial ACK of `acked` bytes during recovery.
    fn on_partial_ack(&mut self, st: &mut CcState, acked: u32) -> PartialAck;
    /// The full ACK: recovery ends (`st.bytes_in_flight` is the FlightSize after the ACK).
    fn exit(&mut self, st: &mut CcState);
    /// Whether recovery is driven by the SACK scoreboard and pipe (RFC 6675).
    fn uses_sack(&self) -> bool {
        false
    }
    /// Scenario name.
    fn name(&self) -> &'static str;
}

/// The built-in loss recoveries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyRecovery {
    /// No fast recovery.
    Tahoe(Tahoe),
    /// RFC 5681 fast recovery.
    Reno(RenoRecovery),
    /// RFC 6582.
    NewReno(NewReno),
    /// RFC 6675.
    Sack(SackRecovery),
    /// RFC 6937 PRR over RFC 6675 (boxed: its counters would widen every sender).
    Prr(Box<PrrRecovery>),
    /// ns-2.35 `Agent/TCP/Sack1`.
    Sack1(Sack1Recovery),
}

macro_rules! dispatch {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            AnyRecovery::Tahoe($r) => $e,
            AnyRecovery::Reno($r) => $e,
            AnyRecovery::NewReno($r) => $e,
            AnyRecovery::Sack($r) => $e,
            AnyRecovery::Prr($r) => $e,
            AnyRecovery::Sack1($r) => $e,
        }
    };
}

impl LossRecovery for AnyRecovery {
    fn enter(&mut self, st: &mut CcState) -> Entry {
        dispatch!(self, r => r.enter(st))
    }
    fn on_dupack(&mut self, st: &mut CcState) {
        dispatch!(self, r => r.on_dupack(st))
    }
    fn on_partial_ack(&mut self, st: &mut CcState, acked: u32) -> PartialAck {
        dispatch!(self, r => r.on_partial_ack(st, acked))
    }
    fn exit(&mut self, st: &mut CcState) {
        dispatch!(self, r => r.exit(st))
    }
    fn uses_sack(&self) -> bool {
        dispatch!(self, r => r.uses_sack())
    }
    fn name(&self) -> &'static str {
        dispatch!(self, r => r.name())
    }
}

#[cfg(test)]
mod tests {
    use super::super::cc::Phase;
    use super::super::config::FullAckCwnd;
    use super::*;

    fn st() -> CcState {
        CcState {
            cwnd: 10_000,
            ssthresh: 5000,
            bytes_in_flight: 10_000,
            mss: 1000,
            phase: Phase::Open,
        }
    }

    // RFC 5681 §3.2 steps 2-4: cwnd = ssthresh + 3 SMSS, +SMSS per dupack; new ACK deflates.
    #[test]
    fn reno_recovery_inflates_and_deflates() {
        let mut s = st();
        let mut r = RenoRecovery;
        assert_eq!(r.enter(&mut s), Entry::FastRecovery);
        assert_eq!(s.cwnd, 8000);
        r.on_dupack(&mut s);
        assert_eq!(s.cwnd, 9000);
        assert_eq!(r.on_partial_ack(&mut s, 1000), PartialAck::Exit);
        assert_eq!(s.cwnd, 5000);
    }

    // RFC 6582 §3.2 step 5: deflate by the amount acked, add back SMSS if >= SMSS acked;
    // impatient: reset the timer only on the first partial ACK.
    #[test]
    fn newreno_partial_ack_deflates_and_impatient_resets_once() {
        let mut s = st();
        let mut r = NewReno::new(PartialAckTimer::Impatient, FullAckCwnd::FlightSize);
        r.enter(&mut s);
        assert_eq!(s.cwnd, 8000);
        assert_eq!(
            r.on_partial_ack(&mut s, 3000),
            PartialAck::RetransmitNext { reset_timer: true }
        );
        assert_eq!(s.cwnd, 6000);
        assert_eq!(
            r.on_partial_ack(&mut s, 500),
            PartialAck::RetransmitNext { reset_timer: false }
        );
        assert_eq!(s.cwnd, 5500);
        // RFC 6582 §3.2 step 3 option 1: cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
        s.bytes_in_flight = 2000;
        r.exit(&mut s);
        assert_eq!(s.cwnd, 3000);
    }

    // RFC 6675 §5 step 4.2: cwnd = ssthresh on entry.
    #[test]
    fn sack_enter_sets_cwnd_to_ssthresh() {
        let mut s = st();
        assert_eq!(SackRecovery::default().enter(&mut s), Entry::FastRecovery);
        assert_eq!(s.cwnd, 5000);
    }

    // spec 5 §2.6 Tahoe: cwnd = 1 MSS and go-back-N.
    #[test]
    fn tahoe_enter_goes_back_to_one_mss() {
        let mut s = st();
        assert_eq!(Tahoe.enter(&mut s), Entry::GoBackN);
        assert_eq!(s.cwnd, 1000);
    }
}
