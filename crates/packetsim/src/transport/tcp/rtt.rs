//! Retransmission timeout estimation: the built-in estimators behind one enum (STYLE.md habit
//! 2), chosen by the `[tcp]` key `rtt_estimator`:
//! - `rfc6298` (default): RFC 6298 in nanoseconds (`rtt/rfc6298.rs`);
//! - `bsd`: Jacobson's fixed-point estimator in clock ticks as in 4.3BSD and YATS (study 1,
//!   `rtt/bsd.rs`);
//! - `ns2`: ns-2.35's tick-based estimator and RTO arithmetic (`tcp.cc` `rtt_update`,
//!   `rtt_timeout`, `rtt_backoff`; issue 14 item 4, `rtt/ns2.rs`);
//! - `linux`: Linux's `tcp_rtt_estimator` and `tcp_set_rto` (RTO = SRTT + a variance term
//!   that never falls below `rto_min`; issue 33, `rtt/linux.rs`).
//!
//! Each keeps its own backoff state; `rfc6298`, `bsd` and `linux` double it with
//! [`backed_off`] and [`shift_after_timeout`] (`ns2` keeps ns-2.35's multiplier with its free
//! and clobber limits). Which segments give samples (Karn's rule, timestamps) is the
//! sender's business. An adaptive floor (`rto_min_srtt_factor = k`, study 1 extension X3)
//! applies to every estimator: RTO >= k·SRTT once sampled, still capped at rto_max.
//! A further estimator is a file here, a variant of [`RttEstimatorKind`] and of
//! [`RttEstimator`].

mod bsd;
mod linux;
mod ns2;
mod rfc6298;

pub use bsd::Bsd;
pub use linux::Linux;
pub use ns2::Ns2;
pub use rfc6298::Rfc6298;

use super::TcpConfig;
use crate::packet::Seq;
use packetsim_kernel::{Dur, Time};
use serde::{Deserialize, Serialize};

/// Largest backoff shift of the doubling estimators (at most 2^16 × the RTO).
const MAX_BACKOFF_SHIFT: u32 = 16;

/// The RTO `base` after `shift` doublings (RFC 6298 §5.5), capped at `max`.
#[inline]
pub(crate) fn backed_off(base: Dur, shift: u32, max: Dur) -> Dur {
    Dur(base.0.saturating_mul(1u64 << shift)).min(max)
}

/// The shift after the timer expired at shift `shift`: one more doubling, unless the RTO is
/// already at `max` (or the shift at its limit).
pub(crate) fn shift_after_timeout(base: Dur, shift: u32, max: Dur) -> u32 {
    if backed_off(base, shift, max) < max {
        (shift + 1).min(MAX_BACKOFF_SHIFT)
    } else {
        shift
    }
}

/// Which estimator a connection uses (the `[tcp]` key `rtt_estimator`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttEstimatorKind {
    /// RFC 6298 (the behaviour before this key existed).
    #[default]
    Rfc6298,
    /// BSD fixed point in ticks of `tick`.
    Bsd,
    /// ns-2.35 `TcpAgent` fixed point in ticks of `tick` (`tcpTick_`).
    Ns2,
    /// Linux `tcp_rtt_estimator` / `tcp_set_rto`.
    Linux,
}

impl RttEstimatorKind {
    /// Whether this is the default (for `skip_serializing_if`).
    pub fn is_default(&self) -> bool {
        *self == RttEstimatorKind::default()
    }
}

/// A connection's estimator (enum dispatch).
#[derive(Clone, Debug)]
pub struct RttEstimator {
    inner: AnyEstimator,
    /// k in RTO >= k·SRTT; 0 when there is no adaptive floor (a configured k is positive).
    /// A bare f64, not `Option<f64>`, so that `rto` fits in the same 16 bytes.
    srtt_floor: f64,
    rto_max: Dur,
    /// The current RTO ([`RttEstimator::rto`]), computed again after every change of the
    /// estimator: the sender restarts its timer on every ACK of new data and would otherwise
    /// run the estimator's dispatch and backoff arithmetic each time.
    rto: Dur,
}

#[derive(Clone, Debug)]
enum AnyEstimator {
    Rfc6298(Rfc6298),
    Bsd(Bsd),
    Ns2(Ns2),
    Linux(Linux),
}

impl RttEstimator {
    /// A fresh estimator of the configured kind.
    pub fn new(cfg: &TcpConfig) -> RttEstimator {
        let inner = match cfg.rtt_estimator {
            RttEstimatorKind::Rfc6298 => AnyEstimator::Rfc6298(Rfc6298::new(cfg)),
            RttEstimatorKind::Bsd => AnyEstimator::Bsd(Bsd::new(cfg)),
            RttEstimatorKind::Ns2 => AnyEstimator::Ns2(Ns2::new(cfg)),
            RttEstimatorKind::Linux => AnyEstimator::Linux(Linux::new(cfg)),
        };
        let mut e = RttEstimator {
            inner,
            srtt_floor: cfg.rto_min_srtt_factor.unwrap_or(0.0),
            rto_max: cfg.rto_max,
            rto: Dur::ZERO,
        };
        e.update_rto();
        e
    }

    /// A valid RTT measurement `r`, taken as sent at time 0; clears the backoff.
    #[inline]
    pub fn on_sample(&mut self, r: Dur) {
        self.on_sample_between(Time::ZERO, Time(r.0));
    }

    /// A valid RTT measurement of a segment sent at `sent` and acknowledged (or echoed) at
    /// `now`; clears the backoff. The `ns2` estimator counts tick boundaries between the two.
    #[inline]
    pub fn on_sample_between(&mut self, sent: Time, now: Time) {
        match &mut self.inner {
            AnyEstimator::Rfc6298(e) => e.on_sample(now - sent),
            AnyEstimator::Bsd(e) => e.on_sample(now - sent),
            AnyEstimator::Ns2(e) => e.on_sample(sent, now),
            // Without the sequence numbers every sample opens a new window.
            AnyEstimator::Linux(e) => e.on_sample(now - sent, Seq(1), Seq(0)),
        }
        self.update_rto();
    }

    /// [`Self::on_sample_between`] with the cumulative ACK `una` and snd_nxt `nxt` after the
    /// ACK, which the `linux` estimator windows its variance by; the others ignore them.
    #[inline]
    pub fn on_sample_seq(&mut self, sent: Time, now: Time, una: Seq, nxt: Seq) {
        match &mut self.inner {
            AnyEstimator::Linux(e) => {
                e.on_sample(now - sent, una, nxt);
                self.update_rto();
            }
            _ => self.on_sample_between(sent, now),
        }
    }

    /// The retransmission timer expired: back off.
    pub fn on_timeout(&mut self) {
        match &mut self.inner {
            AnyEstimator::Rfc6298(e) => e.on_timeout(),
            AnyEstimator::Bsd(e) => e.on_timeout(),
            AnyEstimator::Ns2(e) => e.on_timeout(),
            AnyEstimator::Linux(e) => e.on_timeout(),
        }
        self.update_rto();
    }

    /// Clears the backoff without a sample (ns-2 Sack1's partial ACK: `t_backoff_ = 1`).
    pub fn clear_backoff(&mut self) {
        match &mut self.inner {
            AnyEstimator::Rfc6298(e) => e.clear_backoff(),
            AnyEstimator::Bsd(e) => e.clear_backoff(),
            AnyEstimator::Ns2(e) => e.clear_backoff(),
            AnyEstimator::Linux(e) => e.clear_backoff(),
        }
        self.update_rto();
    }

    /// The current RTO, including backoff and the adaptive floor.
    #[inline]
    pub fn rto(&self) -> Dur {
        self.rto
    }

    /// Computes the RTO of the estimator's state into `self.rto`; called by every method that
    /// changes that state.
    fn update_rto(&mut self) {
        let rto = match &self.inner {
            AnyEstimator::Rfc6298(e) => e.rto(),
            AnyEstimator::Bsd(e) => e.rto(),
            AnyEstimator::Ns2(e) => e.rto(),
            AnyEstimator::Linux(e) => e.rto(),
        };
        let k = self.srtt_floor;
        self.rto = match self.srtt() {
            Some(s) if k > 0.0 => rto.max(Dur((s.0 as f64 * k) as u64)).min(self.rto_max),
            _ => rto,
        };
    }

    /// Smoothed RTT, if a sample has been taken.
    #[inline]
    pub fn srtt(&self) -> Option<Dur> {
        match &self.inner {
            AnyEstimator::Rfc6298(e) => e.srtt(),
            AnyEstimator::Bsd(e) => e.srtt(),
            AnyEstimator::Ns2(e) => e.srtt(),
            AnyEstimator::Linux(e) => e.srtt(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Study 1 X3: RTO >= k·SRTT; without a sample, or with k absent, the estimator's own RTO.
    #[test]
    fn adaptive_floor_k_times_srtt() {
        let cfg = TcpConfig {
            rtt_estimator: RttEstimatorKind::Bsd,
            rto_min: Dur::from_millis(10),
            rto_min_srtt_factor: Some(4.0),
            ..TcpConfig::default()
        };
        let mut e = RttEstimator::new(&cfg);
        assert_eq!(e.rto(), Dur::from_secs(1), "initial");
        for _ in 0..50 {
            e.on_sample(Dur::from_millis(40));
        }
        // SRTT -> 40 ms, SD -> 0: the estimator says 40 ms, the floor 160 ms.
        assert_eq!(e.srtt(), Some(Dur::from_millis(40)));
        assert_eq!(e.rto(), Dur::from_millis(160));
        let plain = RttEstimator::new(&TcpConfig {
            rto_min_srtt_factor: None,
            ..cfg
        });
        assert_eq!(plain.rto(), Dur::from_secs(1));
    }
}
