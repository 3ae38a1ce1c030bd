//! One destination transport address of the peer and everything the sender keeps per
//! destination (spec 3 §2.5 "Per-destination state"): congestion state (RFC 2960 §7.2), RTO
//! estimation (RFC 2960 §6.3.1), the T3-rtx deadline, the error counter and active flag
//! (RFC 2960 §8.2) and heartbeat state (RFC 2960 §8.3).
//!
//! Decisions recorded here:
//! - RTO = SRTT + 4·RTTVAR with no clock-granularity term (RFC 2960 §6.3.1 C3 with G = 0),
//!   clamped to [RTO.min, RTO.max]; backoff stores the doubled value, which stays until the
//!   next sample (spec 3 §2.5 E2).
//! - `partial_bytes_acked` is reduced by the cwnd before the increase (RFC 2960 §7.2.2).

use super::SctpConfig;
use crate::ids::Addr;
use crate::transport::rtt::RttSmoother;
use packetsim_kernel::{Dur, Time};

/// Per-destination state.
#[derive(Clone, Debug)]
pub struct Path {
    /// The peer's address.
    pub addr: Addr,
    /// Our source address for packets to `addr`.
    pub local: Addr,
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes.
    pub ssthresh: u64,
    /// Bytes acknowledged during congestion avoidance (RFC 2960 §7.2.2).
    pub partial_bytes_acked: u64,
    /// DATA chunk bytes (chunk length on the wire) sent here and neither acked, gap-acked
    /// nor marked for retransmission.
    pub outstanding: u64,
    /// SRTT and RTTVAR.
    pub smooth: RttSmoother,
    /// Current RTO (backoff included).
    pub rto: Dur,
    /// T3-rtx deadline, when running.
    pub t3: Option<Time>,
    /// The chunk being timed for an RTT sample (TSN, send time): one per round trip, first
    /// transmissions only (Karn, RFC 2960 §6.3.1 C4/C5).
    pub timed: Option<(super::Tsn, Time)>,
    /// Consecutive errors (T3 expiries, unanswered heartbeats) since the last ack.
    pub errors: u32,
    /// Reachable (RFC 2960 §8.2).
    pub active: bool,
    /// End of the current heartbeat period (the heartbeat timer), when heartbeating.
    pub hb_due: Option<Time>,
    /// Whether something usable for RTT measurement (first-transmission DATA or a
    /// HEARTBEAT) went here during the current heartbeat period (spec 3 §2.5 "idle").
    pub used_in_period: bool,
    /// An unanswered HEARTBEAT: (nonce, the time it counts as unanswered).
    pub hb_pending: Option<(u64, Time)>,
    /// Chunks fast-retransmitted that had last been sent here.
    pub fast_retransmits: u64,
    /// T3 expiries here.
    pub t3_expiries: u64,
    /// Chunks retransmitted to this destination (fast or after a timeout).
    pub retransmissions_sent: u64,
    /// HEARTBEATs sent here.
    pub heartbeats_sent: u64,
    /// RTT samples from HEARTBEAT-ACKs.
    pub heartbeat_samples: u64,
    /// RTT samples from DATA.
    pub data_samples: u64,
    /// RTO changes (when, value).
    pub rto_history: Vec<(Time, Dur)>,
    /// The idle-decay timer (`idle_cwnd_decay`): when cwnd next decays if nothing is sent.
    pub decay_at: Option<Time>,
    /// Path verification (`path_verification`): no HEARTBEAT-ACK from here yet.
    pub unconfirmed: bool,
    /// Whether the idle decay is on (`idle_cwnd_decay`).
    idle_decay: bool,
    /// cwnd above this decays when idle (ns-2 `iInitialCwnd * uiMaxDataSize`).
    decay_above: u64,
    /// One "MTU" in cwnd arithmetic (`cwnd_unit`: the MTU, or ns-2.35's `uiMaxDataSize`).
    mtu: u64,
    /// ssthresh never goes below this on a cut (`ssthresh_floor_mtus`·MTU).
    ssthresh_floor: u64,
    /// A T3 expiry cuts only when cwnd > 1 MTU (`t3_cut_above_one_mtu`).
    t3_cut_above_one_mtu: bool,
    rto_min: Dur,
    rto_max: Dur,
}

impl Path {
    /// A fresh destination: cwnd = initial_cwnd_mtus·MTU (RFC 2960 §7.2.1; RFC 4960 §7.2.1 with
    /// `initial_cwnd_rfc4960`, see [`SctpConfig::initial_cwnd`]), ssthresh = the
    /// peer's rwnd unless configured, RTO = RTO.Initial (RFC 2960 §6.3.1 C1).
    pub fn new(cfg: &SctpConfig, addr: Addr, local: Addr, peer_rwnd: u64, now: Time) -> Path {
        let mtu = cfg.cwnd_mtu();
        Path {
            addr,
            local,
            cwnd: cfg.initial_cwnd(),
            ssthresh: cfg.initial_ssthresh.unwrap_or(peer_rwnd),
            partial_bytes_acked: 0,
            outstanding: 0,
            smooth: RttSmoother::default(),
            rto: cfg.rto_initial,
            t3: None,
            timed: None,
            errors: 0,
            active: true,
            hb_due: None,
            used_in_period: false,
            hb_pending: None,
            fast_retransmits: 0,
            t3_expiries: 0,
            retransmissions_sent: 0,
            heartbeats_sent: 0,
            heartbeat_samples: 0,
            data_samples: 0,
            rto_history: vec![(now, cfg.rto_initial)],
            decay_at: None,
            unconfirmed: false,
            idle_decay: cfg.idle_cwnd_decay,
            decay_above: cfg.initial_cwnd_mtus as u64 * mtu,
            mtu,
            ssthresh_floor: cfg.ssthresh_floor_mtus as u64 * mtu,
            t3_cut_above_one_mtu: cfg.t3_cut_above_one_mtu,
            rto_min: cfg.rto_min,
            rto_max: cfg.rto_max,
        }
    }

    /// An RTT measurement `r` (RFC 2960 §6.3.1 C2/C3): first SRTT = R, RTTVAR = R/2; later
    /// RTTVAR = 3/4·RTTVAR + 1/4·|SRTT − R|, SRTT = 7/8·SRTT + 1/8·R; RTO = SRTT + 4·RTTVAR,
    /// clamped to [RTO.min, RTO.max]. Clears any backoff.
    pub fn on_rtt_sample(&mut self, now: Time, r: Dur) {
        self.smooth.sample(r);
        let rto = self.smooth.rto(Dur::ZERO);
        self.set_rto(now, rto.max(self.rto_min).min(self.rto_max));
    }

    /// Timer backoff (RFC 2960 §6.3.3 E2; §8.3 for heartbeats): RTO = min(2·RTO, RTO.max).
    pub fn back_off(&mut self, now: Time) {
        self.set_rto(now, self.rto.double().min(self.rto_max));
    }

    fn set_rto(&mut self, now: Time, rto: Dur) {
        if rto != self.rto {
            self.rto = rto;
            self.rto_history.push((now, rto));
        }
    }

    /// Whether new data may be sent here: outstanding < cwnd (RFC 2960 §6.1 rule B).
    pub fn has_room(&self) -> bool {
        self.outstanding < self.cwnd
    }

    /// cwnd growth on a SACK that advanced the cumulative TSN ack point, with `acked` bytes
    /// newly acknowledged for this destination (cumulatively or by gap blocks) and
    /// `was_full` = outstanding ≥ cwnd before the SACK.
    /// - slow start while cwnd ≤ ssthresh (RFC 2960 §7.2.1): cwnd += min(acked, MTU), only
    ///   when the window was full;
    /// - congestion avoidance (RFC 2960 §7.2.2): partial_bytes_acked += acked; once it
    ///   reaches cwnd and the window was full, partial_bytes_acked −= cwnd, cwnd += MTU.
    pub fn on_bytes_acked(&mut self, acked: u64, was_full: bool) {
        if acked == 0 {
            return;
        }
        if self.cwnd <= self.ssthresh {
            if was_full {
                self.cwnd += acked.min(self.mtu);
            }
        } else {
            self.partial_bytes_acked += acked;
            if self.partial_bytes_acked >= self.cwnd && was_full {
                self.partial_bytes_acked -= self.cwnd;
                self.cwnd += self.mtu;
            }
        }
    }

    /// A packet went here at `now`: with `idle_cwnd_decay`, the decay timer restarts with the
    /// RTO (ns-2 `opCwndDegradeTimer->resched(dRto)` in `SendMuch` / `RtxMarkedChunks`).
    pub fn on_sent(&mut self, now: Time) {
        if self.idle_decay {
            self.decay_at = Some(now + self.rto);
        }
    }

    /// The decay timer expired (RFC 4960 §7.2.1; ns-2.35
    /// `SctpAgent::CwndDegradeTimerExpiration`): nothing was sent here for an RTO, so if cwnd
    /// is above the initial `initial_cwnd_mtus`·MTU, cwnd = max(cwnd/2, 4·MTU); the timer
    /// restarts with the RTO.
    pub fn on_idle_decay(&mut self, now: Time) {
        if self.cwnd > self.decay_above {
            self.cwnd = (self.cwnd / 2).max(4 * self.mtu);
        }
        self.decay_at = Some(now + self.rto);
    }

    /// Nothing outstanding any more: partial_bytes_acked = 0 (RFC 2960 §7.2.2).
    pub fn on_drained(&mut self) {
        self.partial_bytes_acked = 0;
    }

    /// Fast-retransmit reaction (RFC 2960 §7.2.3): ssthresh = max(cwnd/2, 2·MTU) (4·MTU with
    /// `ssthresh_floor_mtus = 4`, RFC 4960 §7.2.3), cwnd = ssthresh.
    pub fn on_fast_rtx_cut(&mut self) {
        self.ssthresh = (self.cwnd / 2).max(self.ssthresh_floor);
        self.cwnd = self.ssthresh;
        self.partial_bytes_acked = 0;
    }

    /// T3 expiry reaction (RFC 2960 §7.2.3, §6.3.3 E1): ssthresh = max(cwnd/2, floor),
    /// cwnd = 1·MTU. With `t3_cut_above_one_mtu` nothing changes while cwnd is 1 MTU already
    /// (ns-2.35 `SctpAgent::Timeout`).
    pub fn on_timeout_cut(&mut self) {
        if self.t3_cut_above_one_mtu && self.cwnd <= self.mtu {
            return;
        }
        self.ssthresh = (self.cwnd / 2).max(self.ssthresh_floor);
        self.cwnd = self.mtu;
        self.partial_bytes_acked = 0;
    }

    /// Smoothed RTT if sampled.
    pub fn srtt(&self) -> Option<Dur> {
        self.smooth.srtt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use packetsim_kernel::Time;

    fn path() -> Path {
        Path::new(
            &SctpConfig::default(),
            Addr(10),
            Addr(1),
            65_536,
            Time::ZERO,
        )
    }

    // RFC 2960 §6.3.1 C1-C3: RTO.Initial 3 s; first sample 70 ms: SRTT 70, RTTVAR 35,
    // RTO = 210 ms clamped up to RTO.min = 1 s.
    #[test]
    fn fresh_first_sample_clamps_to_rto_min() {
        let mut p = path();
        assert_eq!(p.rto, Dur::from_secs(3));
        p.on_rtt_sample(Time::from_millis(5), Dur::from_millis(70));
        assert_eq!(p.srtt(), Some(Dur::from_millis(70)));
        assert_eq!(p.rto, Dur::from_secs(1));
        // A large sample: SRTT = 7/8·70 + 1/8·2000 = 311.25 ms; RTTVAR = 3/4·35 + 1/4·1930.
        p.on_rtt_sample(Time::from_millis(6), Dur::from_millis(2000));
        let expect = Dur::from_micros(311_250) + Dur(4 * Dur::from_micros(508_750).0);
        assert_eq!(p.rto, expect);
        assert_eq!(p.rto_history.len(), 3);
    }

    // RFC 2960 §6.3.3 E2: the RTO doubles per expiry, capped at RTO.max, and stays until a
    // new sample.
    #[test]
    fn backed_off_doubles_caps_and_sample_restores() {
        let mut p = path();
        let mut seen = vec![];
        for _ in 0..6 {
            p.back_off(Time::ZERO);
            seen.push(p.rto.0 / 1_000_000_000);
        }
        assert_eq!(seen, vec![6, 12, 24, 48, 60, 60]);
        p.on_rtt_sample(Time::ZERO, Dur::from_millis(70));
        assert_eq!(p.rto, Dur::from_secs(1));
    }

    // RFC 2960 §7.2.1: slow start while cwnd <= ssthresh, +min(acked, MTU) only when full.
    #[test]
    fn slow_start_grows_by_bytes_only_when_full() {
        let mut p = path();
        p.on_bytes_acked(2 * 1468, false);
        assert_eq!(p.cwnd, 3000, "window not full: no growth");
        p.on_bytes_acked(2 * 1468, true);
        assert_eq!(p.cwnd, 4500, "+MTU at most");
        p.on_bytes_acked(700, true);
        assert_eq!(p.cwnd, 5200, "+acked when less than MTU");
        // The <= boundary: cwnd == ssthresh is still slow start.
        p.ssthresh = 5200;
        p.on_bytes_acked(1468, true);
        assert_eq!(p.cwnd, 6668);
    }

    // RFC 2960 §7.2.2: congestion avoidance by partial_bytes_acked.
    #[test]
    fn congestion_avoidance_grows_by_partial_bytes_acked() {
        let mut p = path();
        p.cwnd = 6000;
        p.ssthresh = 5000;
        p.on_bytes_acked(2936, true);
        assert_eq!((p.cwnd, p.partial_bytes_acked), (6000, 2936));
        p.on_bytes_acked(2936, true);
        assert_eq!((p.cwnd, p.partial_bytes_acked), (6000, 5872));
        p.on_bytes_acked(1468, false);
        assert_eq!(p.cwnd, 6000, "window not full: no growth");
        p.on_bytes_acked(10, true);
        assert_eq!((p.cwnd, p.partial_bytes_acked), (7500, 7350 - 6000));
        p.on_drained();
        assert_eq!(p.partial_bytes_acked, 0);
    }

    fn path_with(cfg: &SctpConfig) -> Path {
        Path::new(cfg, Addr(10), Addr(1), 65_536, Time::ZERO)
    }

    // RFC 2960 §7.2.3 (default): ssthresh = max(cwnd/2, 2 MTU) on fast retransmit and T3;
    // RFC 4960 §7.2.3 / ns-2.35 `SctpAgent::FastRtx` and `Timeout`: max(cwnd/2, 4 MTU).
    #[test]
    fn ssthresh_floor_is_two_or_four_mtus() {
        let mut p = path();
        p.cwnd = 5000;
        p.on_fast_rtx_cut();
        assert_eq!((p.ssthresh, p.cwnd), (3000, 3000), "2 MTU floor");
        let c4 = SctpConfig {
            ssthresh_floor_mtus: 4,
            ..SctpConfig::default()
        };
        let mut p = path_with(&c4);
        p.cwnd = 5000;
        p.on_fast_rtx_cut();
        assert_eq!((p.ssthresh, p.cwnd), (6000, 6000), "4 MTU floor");
        p.cwnd = 20_000;
        p.on_timeout_cut();
        assert_eq!(
            (p.ssthresh, p.cwnd),
            (10_000, 1500),
            "cwnd/2 above the floor"
        );
        p.on_timeout_cut();
        assert_eq!((p.ssthresh, p.cwnd), (6000, 1500), "repeated T3: the floor");
    }

    // RFC 4960 §7.2.3 as ns-2.35 codes it (`SctpAgent::Timeout`: `if (iCwnd > 1 * uiMaxDataSize)`):
    // with t3_cut_above_one_mtu a T3 expiry at cwnd = 1 MTU leaves ssthresh alone; by default
    // (RFC 2960) it halves again.
    #[test]
    fn t3_cut_only_above_one_mtu_when_asked() {
        let mut p = path();
        p.cwnd = 20_000;
        p.on_timeout_cut();
        p.on_timeout_cut();
        assert_eq!((p.ssthresh, p.cwnd), (3000, 1500), "RFC 2960: cut again");
        let mut p = path_with(&SctpConfig {
            t3_cut_above_one_mtu: true,
            ..SctpConfig::default()
        });
        p.cwnd = 20_000;
        p.on_timeout_cut();
        p.on_timeout_cut();
        assert_eq!((p.ssthresh, p.cwnd), (10_000, 1500), "no cut at 1 MTU");
    }

    // RFC 4960 §7.2.1: initial cwnd min(4·MTU, max(2·MTU, 4380 B)) (ns-2.35 `SctpAgent::Reset`)
    // in place of RFC 2960's `initial_cwnd_mtus`·MTU.
    #[test]
    fn rfc4960_initial_cwnd() {
        for (mtu, want) in [(1500, 4380), (1000, 4000), (9000, 18_000)] {
            let c = SctpConfig {
                mtu,
                initial_cwnd_rfc4960: true,
                ..SctpConfig::default()
            };
            assert_eq!(path_with(&c).cwnd, want, "MTU {mtu}");
        }
        assert_eq!(
            path_with(&SctpConfig::default()).cwnd,
            3000,
            "RFC 2960: 2 MTU"
        );
    }

    // RFC 4960 §7.2.1 / ns-2.35 `CwndDegradeTimerExpiration`: an RTO without sending here,
    // cwnd = max(cwnd/2, 4·MTU) while cwnd > initialCwnd_·MTU (3000 B), and the timer
    // restarts; so 12000 -> 6000 -> 6000, and 4500 rises to 6000 (ns-2's test). A packet
    // sent restarts the timer with the RTO; off (the default), nothing is scheduled.
    #[test]
    fn idle_decay_halves_to_four_mtus_above_the_initial_cwnd() {
        let c = SctpConfig {
            idle_cwnd_decay: true,
            ..SctpConfig::default()
        };
        let mut p = path_with(&c);
        p.on_sent(Time::from_millis(100));
        assert_eq!(p.decay_at, Some(Time::from_millis(3100)), "RTO.Initial 3 s");
        let mut cw = vec![];
        for start in [12_000, 6000, 4500, 3000] {
            p.cwnd = start;
            p.on_idle_decay(Time::from_millis(3100));
            cw.push(p.cwnd);
        }
        assert_eq!(cw, vec![6000, 6000, 6000, 3000]);
        assert_eq!(p.decay_at, Some(Time::from_millis(6100)));
        let mut off = path_with(&SctpConfig::default());
        off.on_sent(Time::from_millis(100));
        assert_eq!(off.decay_at, None);
    }
}
