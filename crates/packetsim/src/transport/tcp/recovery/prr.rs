//! Proportional Rate Reduction, RFC 6937 (`tcp.sack_recovery = "prr"`): RFC 6675's loss
//! detection, scoreboard, pipe and NextSeg (as `sack`), but cwnd is not set to ssthresh at
//! once: on every ACK of the recovery (the one that starts it included) PRR sets cwnd = pipe +
//! sndcnt, so that the data sent during recovery follows the data delivered, scaled by
//! ssthresh/RecoverFS while pipe is above ssthresh, and catches up toward ssthresh (bounded
//! by the slow-start reduction bound, PRR-SSRB) once pipe is below it (RFC 6937 §3.1). At
//! the end of recovery cwnd = ssthresh. Linux's recovery since 3.2, and ns-3's default
//! (`TcpPrrRecovery`) since 3.32.
//!
//! The sender supplies what needs its sequence space: DeliveredData of each ACK (bytes newly
//! cumulatively acknowledged and not SACKed before, plus bytes newly SACKed), the pipe after
//! the ACK (RFC 6675 SetPipe), and the bytes it sends during recovery (prr_out).
//!
//! Decisions:
//! - The reduction bound is RFC 6937's PRR-SSRB (limit = max(prr_delivered − prr_out,
//!   DeliveredData) + SMSS on every ACK). ns-3.37's SSRB (and Linux's) allow the extra SMSS
//!   only on an ACK that acknowledges retransmitted data, else limit = DeliveredData.
//! - A negative sndcnt (more sent than the proportion allows) counts as 0; cwnd is at least 1
//!   SMSS.
//! - The fast retransmit goes whatever sndcnt is (it is sent outside the cwnd test, as RFC
//!   6675 step 4.3) and counts in prr_out.

use super::super::config::PartialAckTimer;
use super::{partial_ack_restarts, CcState, Entry, LossRecovery, PartialAck};

/// RFC 6937 PRR state (meaningful during one recovery episode).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrrRecovery {
    timer: PartialAckTimer,
    /// Whether a partial ACK was already seen in this recovery episode.
    partial_seen: bool,
    /// prr_delivered: bytes delivered since recovery began.
    prr_delivered: u64,
    /// prr_out: bytes sent (new or retransmitted) since recovery began.
    prr_out: u64,
    /// RecoverFS: FlightSize (snd.nxt − snd.una) when recovery began.
    recover_fs: u64,
    /// DeliveredData of the ACK being processed (set by the sender before it acts on it).
    pub delivered: u32,
}

impl PrrRecovery {
    /// A PRR recovery with the given partial-ACK timer policy (as [`super::SackRecovery`]).
    pub fn new(timer: PartialAckTimer) -> PrrRecovery {
        PrrRecovery {
            timer,
            partial_seen: false,
            prr_delivered: 0,
            prr_out: 0,
            recover_fs: 0,
            delivered: 0,
        }
    }

    /// RFC 6937 §3.1, on entering recovery: prr_delivered = prr_out = 0, RecoverFS =
    /// FlightSize.
    pub fn begin(&mut self, flight_size: u32) {
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.recover_fs = flight_size as u64;
    }

    /// RFC 6937 §3.1, on every ACK starting or during recovery, after the scoreboard took it:
    /// prr_delivered += DeliveredData (`self.delivered`), then cwnd = pipe + sndcnt.
    pub fn on_ack(&mut self, st: &mut CcState, pipe: u32) {
        self.prr_delivered += self.delivered as u64;
        let (ssthresh, pipe64, mss) = (st.ssthresh as u64, pipe as u64, st.mss as u64);
        let sndcnt = if pipe64 > ssthresh {
            // Proportional rate reduction: CEIL(prr_delivered·ssthresh/RecoverFS) − prr_out.
            (self.prr_delivered * ssthresh)
                .div_ceil(self.recover_fs.max(1))
                .saturating_sub(self.prr_out)
        } else {
            // PRR-SSRB: catch up toward ssthresh, at most one SMSS beyond what was delivered.
            let limit = self
                .prr_delivered
                .saturating_sub(self.prr_out)
                .max(self.delivered as u64)
                + mss;
            (ssthresh - pipe64).min(limit)
        };
        st.cwnd = (pipe64 + sndcnt).min(u32::MAX as u64 / 2).max(mss) as u32;
    }

    /// RFC 6937 §3.1: prr_out += data sent.
    pub fn sent(&mut self, len: u32) {
        self.prr_out += len as u64;
    }
}

impl LossRecovery for PrrRecovery {
    fn enter(&mut self, st: &mut CcState) -> Entry {
        // The sender then calls `begin` and `on_ack`, which set cwnd.
        self.partial_seen = false;
        st.cwnd = st.ssthresh.max(st.mss);
        Entry::FastRecovery
    }
    fn on_partial_ack(&mut self, _st: &mut CcState, _acked: u32) -> PartialAck {
        let reset_timer = partial_ack_restarts(self.timer, &mut self.partial_seen);
        PartialAck::Stay { reset_timer }
    }
    fn exit(&mut self, st: &mut CcState) {
        // RFC 6937 §3.1: on exiting recovery, cwnd = ssthresh.
        st.cwnd = st.ssthresh.max(st.mss);
    }
    fn uses_sack(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        "prr"
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::cc::Phase;
    use super::*;

    const MSS: u32 = 1000;

    fn st(ssthresh: u32) -> CcState {
        CcState {
            cwnd: ssthresh,
            ssthresh,
            bytes_in_flight: 0,
            mss: MSS,
            phase: Phase::Open,
        }
    }

    /// One ACK delivering `delivered` bytes with `pipe` after it; returns the bytes the
    /// sender may then send (cwnd − pipe), and sends them (whole segments).
    fn ack(p: &mut PrrRecovery, s: &mut CcState, delivered: u32, pipe: u32) -> u32 {
        p.delivered = delivered;
        p.on_ack(s, pipe);
        let room = s.cwnd.saturating_sub(pipe) / MSS * MSS;
        p.sent(room);
        room
    }

    // RFC 6937 §3.1 on its first example (§6: one loss in a window of 20 segments, Reno's
    // ssthresh 10), in bytes as ns-3.37's `TcpPrrRecovery::DoRecovery` counts: while pipe >
    // ssthresh, sndcnt = ⌈prr_delivered·10/20⌉ − prr_out, so after the fast retransmit
    // (sent whatever sndcnt is) PRR sends one segment for every two delivered; once pipe
    // reaches ssthresh (the 11th ACK after entry) PRR-SSRB sends one per segment delivered,
    // keeping pipe at ssthresh. prr_out ends at ssthresh.
    #[test]
    fn one_loss_sends_one_segment_per_two_delivered() {
        let mut p = PrrRecovery::new(PartialAckTimer::SlowButSteady);
        let mut s = st(10_000);
        p.enter(&mut s);
        p.begin(20_000);
        // The 3rd duplicate ACK: 3 SACKed, segment 0 lost: pipe 16.
        p.delivered = MSS;
        p.on_ack(&mut s, 16_000);
        assert_eq!(
            s.cwnd, 16_500,
            "⌈1000·10/20⌉ − 0 = 500 bytes: no room but the fast retransmit"
        );
        p.sent(MSS);
        let mut pipe = 17_000;
        let mut sent = vec![];
        for _ in 0..16 {
            pipe -= MSS; // one more segment SACKed
            let n = ack(&mut p, &mut s, MSS, pipe);
            pipe += n;
            sent.push(n / MSS);
        }
        assert_eq!(sent, [0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1]);
        assert_eq!(pipe, 10_000);
        assert_eq!((p.prr_delivered, p.prr_out), (17_000, 10_000));
        // The full ACK: cwnd = ssthresh.
        p.exit(&mut s);
        assert_eq!(s.cwnd, 10_000);
    }

    // RFC 6937 §3.1 PRR-SSRB: once pipe is below ssthresh (more lost than the reduction),
    // sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData) + SMSS): a
    // slow-start-like catch-up of at most one segment more than delivered per ACK. ssthresh
    // 10, RecoverFS 20: 12 segments lost at once leave pipe 6 after the entering ACK (2
    // delivered): sndcnt = min(4, max(2 − 0, 2) + 1) = 3 segments.
    #[test]
    fn below_ssthresh_catches_up_bounded_by_ssrb() {
        let mut p = PrrRecovery::new(PartialAckTimer::SlowButSteady);
        let mut s = st(10_000);
        p.begin(20_000);
        assert_eq!(ack(&mut p, &mut s, 2 * MSS, 6_000), 3_000);
        // pipe 9 - 1 delivered = 8: min(2, max(3 − 3, 1) + 1) = 2.
        assert_eq!(ack(&mut p, &mut s, MSS, 8_000), 2_000);
        // pipe 10 - 1 = 9: min(1, max(4 − 5 → 0, 1) + 1) = 1; then pipe = ssthresh.
        assert_eq!(ack(&mut p, &mut s, MSS, 9_000), 1_000);
        assert_eq!(ack(&mut p, &mut s, MSS, 9_000), 1_000);
        assert_eq!(s.cwnd, 10_000);
    }

    // RFC 6937 §3.1: a negative sndcnt (prr_out ahead of the proportion) sends nothing and
    // cwnd = pipe; with nothing in flight PRR-SSRB still lets one segment go.
    #[test]
    fn no_sending_ahead_of_the_proportion() {
        let mut p = PrrRecovery::new(PartialAckTimer::SlowButSteady);
        let mut s = st(10_000);
        p.begin(20_000);
        p.sent(5 * MSS);
        assert_eq!(ack(&mut p, &mut s, MSS, 15_000), 0);
        assert_eq!(s.cwnd, 15_000);
        let mut s = st(2_000);
        p.begin(4_000);
        p.delivered = 0;
        p.on_ack(&mut s, 0);
        assert_eq!(s.cwnd, 1_000);
    }
}
