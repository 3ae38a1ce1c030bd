//! Linux's estimator (`rtt_estimator = "linux"`), as `net/ipv4/tcp_input.c`
//! `tcp_rtt_estimator` and `tcp_set_rto` compute it (the arithmetic is re-derived here, in
//! nanoseconds, from the description below):
//! - SRTT is kept 8-fold (`srtt_us`); each sample `m` moves it by (m − SRTT)/8.
//! - `mdev` is the mean deviation kept 4-fold, gain 1/4; a sample below SRTT moves it with
//!   gain 1/32 only (the "Eifel-like" damping: a falling RTT does not raise the RTO).
//! - `mdev_max` is the largest `mdev` of the current window of data (from `rtt_seq`, the
//!   snd_nxt when the window began), never below `rto_min`; `rttvar` follows it up at once
//!   and down by a quarter of the gap each time the cumulative ACK passes `rtt_seq`.
//! - RTO = SRTT + rttvar, at most `rto_max`. As `rttvar >= rto_min`, the floor is added to
//!   SRTT rather than bounding the sum: a 100 ms path gets an RTO of about 300 ms where RFC
//!   6298 with a 200 ms floor gives 200 ms.
//! - The first sample: SRTT = m, mdev = 2m, rttvar = max(2m, rto_min), so RTO = 3m at least.
//! - Backoff doubles the RTO per expiry (`icsk_backoff`, `inet_csk_rto_backoff`), capped at
//!   `rto_max`; a sample clears it.

use super::super::TcpConfig;
use crate::packet::Seq;
use packetsim_kernel::Dur;

/// Linux estimator state (nanoseconds).
#[derive(Clone, Debug)]
pub struct Linux {
    /// 8 × SRTT (0: no sample yet).
    srtt8: i64,
    /// 4 × mean deviation.
    mdev: i64,
    /// The largest `mdev` in this window of data, at least `rto_min`.
    mdev_max: i64,
    /// The variance term added to SRTT.
    rttvar: i64,
    /// snd_nxt when this window began.
    rtt_seq: Seq,
    /// RTO before backoff (the initial RTO before a sample).
    base_rto: Dur,
    backoff: u32,
    rto_min: i64,
    rto_max: Dur,
}

impl Linux {
    /// A fresh estimator: RTO = `cfg.rto_initial` (Linux `TCP_TIMEOUT_INIT`, 1 s).
    pub fn new(cfg: &TcpConfig) -> Linux {
        Linux {
            srtt8: 0,
            mdev: 0,
            mdev_max: 0,
            rttvar: 0,
            rtt_seq: Seq(0),
            base_rto: cfg.rto_initial.min(cfg.rto_max),
            backoff: 0,
            rto_min: cfg.rto_min.0 as i64,
            rto_max: cfg.rto_max,
        }
    }

    /// A sample `r`, the cumulative ACK now at `una` and snd_nxt at `nxt`; clears the backoff.
    pub fn on_sample(&mut self, r: Dur, una: Seq, nxt: Seq) {
        let mut m = (r.0 as i64).max(1);
        if self.srtt8 != 0 {
            m -= self.srtt8 >> 3;
            self.srtt8 += m;
            if m < 0 {
                m = -m - (self.mdev >> 2);
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= self.mdev >> 2;
            }
            self.mdev += m;
            if self.mdev > self.mdev_max {
                self.mdev_max = self.mdev;
                self.rttvar = self.rttvar.max(self.mdev_max);
            }
            if una > self.rtt_seq {
                if self.mdev_max < self.rttvar {
                    self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
                }
                self.rtt_seq = nxt;
                self.mdev_max = self.rto_min;
            }
        } else {
            self.srtt8 = m << 3;
            self.mdev = m << 1;
            self.rttvar = self.mdev.max(self.rto_min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = nxt;
        }
        self.srtt8 = self.srtt8.max(1);
        let rto = (self.srtt8 >> 3) + self.rttvar;
        self.base_rto = Dur(rto as u64).min(self.rto_max);
        self.backoff = 0;
    }

    /// The retransmission timer expired: double the RTO, capped at rto_max.
    pub fn on_timeout(&mut self) {
        self.backoff = super::shift_after_timeout(self.base_rto, self.backoff, self.rto_max);
    }

    /// Clears the backoff without a sample.
    pub fn clear_backoff(&mut self) {
        self.backoff = 0;
    }

    /// The current RTO, including backoff.
    pub fn rto(&self) -> Dur {
        super::backed_off(self.base_rto, self.backoff, self.rto_max)
    }

    /// Smoothed RTT, if a sample has been taken.
    pub fn srtt(&self) -> Option<Dur> {
        (self.srtt8 != 0).then_some(Dur((self.srtt8 >> 3) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> Linux {
        Linux::new(&TcpConfig {
            rto_min: Dur::from_millis(200),
            ..TcpConfig::default()
        })
    }

    // tcp_rtt_estimator's first sample: SRTT = 100 ms, mdev = 200 ms, rttvar = max(200, 200)
    // ms: RTO 300 ms (RFC 6298 gives 100 + 4 × 50 = 300 ms too).
    #[test]
    fn first_sample_three_rtts() {
        let mut e = est();
        assert_eq!(e.rto(), Dur::from_secs(1), "TCP_TIMEOUT_INIT");
        e.on_sample(Dur::from_millis(100), Seq(1), Seq(10_001));
        assert_eq!(e.srtt(), Some(Dur::from_millis(100)));
        assert_eq!(e.rto(), Dur::from_millis(300));
    }

    // A steady 100 ms path: mdev decays to 0, but each window's mdev_max starts at rto_min, so
    // rttvar decays toward 200 ms and no lower: RTO = SRTT + rto_min = 300 ms, where RFC 6298
    // with rto_min 200 ms gives max(100 + 4 × RTTVAR, 200) = 200 ms.
    #[test]
    fn steady_path_rto_is_srtt_plus_rto_min() {
        let mut e = est();
        let mut una = Seq(1);
        e.on_sample(Dur::from_millis(100), una, una + 10_000);
        for _ in 0..200 {
            una = una + 10_000;
            e.on_sample(Dur::from_millis(100), una, una + 10_000);
        }
        assert_eq!(e.srtt(), Some(Dur::from_millis(100)));
        assert_eq!(e.rto(), Dur::from_millis(300));
        e.on_timeout();
        assert_eq!(e.rto(), Dur::from_millis(600));
        e.on_sample(Dur::from_millis(100), una, una + 10_000);
        assert_eq!(e.rto(), Dur::from_millis(300));
    }

    // A sample far above SRTT raises rttvar at once (mdev above mdev_max): after the first
    // sample (SRTT 100, mdev 200, rttvar 200 ms), 420 ms gives SRTT 100 + 320/8 = 140 ms and
    // mdev 200 + (320 − 200/4) = 470 ms, within the same window: RTO 140 + 470 ms.
    #[test]
    fn large_deviation_raises_rttvar_at_once() {
        let mut e = est();
        let una = Seq(1);
        e.on_sample(Dur::from_millis(100), una, una + 10_000);
        e.on_sample(Dur::from_millis(420), una, una + 10_000);
        assert_eq!(e.srtt(), Some(Dur::from_millis(140)));
        assert_eq!(e.rto(), Dur::from_millis(140 + 470));
    }
}
