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
            self.area += self.value * (now - self.since).as_nanos() as f64;
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
/// (t_{0.975, df}). Exact table values up to 30, then the Cornish-Fisher expansion around the
/// normal quantile, which is within 1e-4 of the true value from df = 30 on.
pub fn t95(df: u64) -> f64 {
    const TABLE: [f64; 30] = [
        12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010,
        2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739,
        2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df as usize - 1],
        _ => {
            let z: f64 = 1.959_963_985;
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

    #[test]
    fn t_quantiles_match_tables() {
        assert_eq!(t95(1), 12.7062);
        assert_eq!(t95(9), 2.2622);
        // Published values: t(0.975, 40) = 2.0211, t(0.975, 99) = 1.9842, t(0.975, 1000) = 1.9623.
        assert!((t95(40) - 2.0211).abs() < 2e-4, "{}", t95(40));
        assert!((t95(99) - 1.9842).abs() < 2e-4, "{}", t95(99));
        assert!((t95(1000) - 1.9623).abs() < 2e-4, "{}", t95(1000));
    }

    #[test]
    fn ci_of_ten_samples() {
        let mut s = RunningStats::default();
        for x in 1..=10 {
            s.push(x as f64);
        }
        // sd = 3.02765, n = 10, t = 2.2622 -> 2.1659
        assert!((s.ci95_half_width() - 2.1659).abs() < 1e-3);
    }
}
