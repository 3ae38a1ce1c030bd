//! Statistics helpers: time-weighted averages, running mean and variance (Welford), and
//! Student-t 95% confidence intervals for replicated runs.

use crate::time::Time;

/// The time-weighted average of a piecewise-constant quantity (a queue length, say).
#[derive(Clone, Debug, Default)]
pub struct TimeAverage {
    value: f64,
    since: Time,
    start: Time,
    area: f64,
    max: f64,
}

impl TimeAverage {
    /// Starts tracking at `start` with value zero.
    pub fn new(start: Time) -> Self {
        TimeAverage {
            value: 0.0,
            since: start,
            start,
            area: 0.0,
            max: 0.0,
        }
    }
    /// The quantity changes to `v` at `now`.
    pub fn set(&mut self, now: Time, v: f64) {
        if now > self.since {
            // Through i64, the same value for any span below 292 years: one instruction
            // instead of five for u64 (a queue's length changes on most packets).
            let span = (now - self.since).as_nanos();
            debug_assert!(span <= i64::MAX as u64);
            self.area += self.value * span as i64 as f64;
            self.since = now;
        }
        self.value = v;
        if v > self.max {
            self.max = v;
        }
    }
    /// The current value.
    pub fn value(&self) -> f64 {
        self.value
    }
    /// The largest value seen.
    pub fn max(&self) -> f64 {
        self.max
    }
    /// The average from the start to `now` (the current value if no time has passed).
    pub fn mean(&self, now: Time) -> f64 {
        let span = now.saturating_since(self.start).as_nanos() as f64;
        if span <= 0.0 {
            return self.value;
        }
        let area = self.area + self.value * now.saturating_since(self.since).as_nanos() as f64;
        area / span
    }
}

/// Running mean and variance by Welford's method.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunningStats {
    n: u64,
    mean: f64,
    m2: f64,
    min: f64,
    max: f64,
}

impl RunningStats {
    /// Adds one sample.
    pub fn push(&mut self, x: f64) {
        self.n += 1;
        if self.n == 1 {
            self.min = x;
            self.max = x;
        } else {
            self.min = self.min.min(x);
            self.max = self.max.max(x);
        }
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }
    /// The number of samples.
    pub fn count(&self) -> u64 {
        self.n
    }
    /// The sample mean (0 with no samples).
    pub fn mean(&self) -> f64 {
        self.mean
    }
    /// The unbiased sample variance (0 with fewer than two samples).
    pub fn variance(&self) -> f64 {
        if self.n < 2 {
            0.0
        } else {
            self.m2 / (self.n - 1) as f64
        }
    }
    /// The sample standard deviation.
    pub fn std_dev(&self) -> f64 {
        self.variance().sqrt()
    }
    /// The smallest sample.
    pub fn min(&self) -> f64 {
        self.min
    }
    /// The largest sample.
    pub fn max(&self) -> f64 {
        self.max
    }
    /// Half the width of the two-sided 95% Student-t confidence interval of the mean
    /// (0 with fewer than two samples).
    pub fn ci95_half_width(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        t95(self.n - 1) * self.std_dev() / (self.n as f64).sqrt()
    }
}

/// The two-sided 95% quantile of Student's t distribution with `df` degrees of freedom
/// (t_{0.975, df}); infinite for `df` = 0 (no interval).
///
/// Up to 10,000 degrees of freedom this is statrs' inverse of the t distribution function.
/// Above, statrs' inverse (through the inverse regularized beta function) loses accuracy
/// (1.9599809 at 10^5, where the true value is 1.9599877; 1.8266 at 10^7), so there the
/// quantile is the Cornish-Fisher expansion around statrs' normal quantile z (Abramowitz and
/// Stegun 26.7.5, three terms), whose error falls as df^-4 (below 1e-15 there; the two agree
/// to 5e-10 at 1,000 and 10,000).
///
/// Until 2026-12-07 this was a 4-decimal table up to 30 degrees of freedom and the same
/// expansion with a 10-digit z above: the table's rounding moved a quantile by at most 5e-5,
/// so a confidence bound now differs from before by at most 0.003% of its half-width.
pub fn t95(df: u64) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
    /// Where statrs' own inverse stops being accurate to 1e-9.
    const EXACT_UP_TO: u64 = 10_000;
    match df {
        0 => f64::INFINITY,
        1..=EXACT_UP_TO => match StudentsT::new(0.0, 1.0, df as f64) {
            Ok(t) => t.inverse_cdf(0.975),
            // Unreachable: the location is finite, the scale and the degrees of freedom positive.
            Err(_) => f64::NAN,
        },
        _ => {
            let z = Normal::standard().inverse_cdf(0.975);
            let n = df as f64;
            let g1 = (z.powi(3) + z) / 4.0;
            let g2 = (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / 96.0;
            let g3 = (3.0 * z.powi(7) + 19.0 * z.powi(5) + 17.0 * z.powi(3) - 15.0 * z) / 384.0;
            z + g1 / n + g2 / n.powi(2) + g3 / n.powi(3)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_average_weights_by_duration() {
        let mut a = TimeAverage::new(Time(0));
        a.set(Time(0), 2.0);
        a.set(Time(10), 4.0);
        // 2 for 10 ns, 4 for 30 ns: (20 + 120) / 40.
        assert!((a.mean(Time(40)) - 3.5).abs() < 1e-12);
        assert_eq!(a.max(), 4.0);
    }

    #[test]
    fn welford_matches_the_textbook_formulas() {
        let mut s = RunningStats::default();
        for x in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            s.push(x);
        }
        assert_eq!(s.mean(), 5.0);
        assert!((s.variance() - 32.0 / 7.0).abs() < 1e-12);
        assert_eq!((s.min(), s.max()), (2.0, 9.0));
    }

    // Published quantiles t(0.975, df) to 7 significant digits (e.g. NIST/SEMATECH e-Handbook
    // 1.3.6.7.2 and R's qt(0.975, df)).
    #[test]
    fn t_quantiles_match_tables() {
        for (df, want) in [
            (1, 12.706_205),
            (2, 4.302_653),
            (5, 2.570_582),
            (9, 2.262_157),
            (29, 2.045_230),
            (30, 2.042_272),
            (40, 2.021_075),
            (99, 1.984_217),
            (1000, 1.962_339),
        ] {
            assert!(
                (t95(df) - want).abs() < 2e-6,
                "df {df}: {} vs {want}",
                t95(df)
            );
        }
        assert_eq!(t95(0), f64::INFINITY);
        // Past statrs' accurate range: t(0.975, 10^5) = 1.959988, and towards the normal
        // quantile 1.959964 (from above) as df grows; no step where the two methods meet.
        assert!((t95(100_000) - 1.959_988).abs() < 2e-6, "{}", t95(100_000));
        assert!(
            (t95(10_000_000) - 1.959_964).abs() < 2e-6,
            "{}",
            t95(10_000_000)
        );
        assert!((t95(10_000) - t95(10_001)).abs() < 1e-7);
        assert!(t95(10_000) > t95(10_001) && t95(10_001) > 1.959_963_98);
    }

    #[test]
    fn ci_of_ten_samples() {
        let mut s = RunningStats::default();
        for x in 1..=10 {
            s.push(x as f64);
        }
        // sd = 3.027650, n = 10, t(0.975, 9) = 2.262157 -> 2.165852
        assert!((s.ci95_half_width() - 2.165_852).abs() < 1e-5);
    }
}
