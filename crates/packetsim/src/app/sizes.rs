//! Flow-size distributions for workloads (`app = "poisson"`): exponential, Pareto, log-normal,
//! and an empirical CDF read from a file. Every draw takes its uniforms from a kernel [`Rng`]
//! stream the caller owns, so a run is a pure function of its seed.
//!
//! Parametrisation (what a scenario writes):
//! - exponential: `mean`; a draw is `mean · (−ln(1 − U))`.
//! - Pareto (type I): `mean` and shape `α > 1`; scale `x_m = mean·(α − 1)/α`, a draw is
//!   `x_m / (1 − U)^(1/α)`.
//! - log-normal: `mean` and `σ` of the underlying normal; `μ = ln(mean) − σ²/2`, so that
//!   E[X] = exp(μ + σ²/2) = mean; a draw is `exp(μ + σ·Z)` with Z standard normal.
//! - empirical: points `(bytes, F)` with F non-decreasing from its first value to exactly 1;
//!   a draw inverts the CDF with linear interpolation between points (U ≤ F₀ gives the first
//!   size), as the data-centre simulators that ship these files sample them.
//!
//! Every draw is rounded up to a whole byte, at least 1.

use packetsim_kernel::Rng;
use std::fmt;

/// A flow-size distribution (bytes).
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Exponential with this mean, bytes.
    Exponential {
        /// Mean, bytes.
        mean: f64,
    },
    /// Pareto type I with this mean (bytes) and shape α (> 1).
    Pareto {
        /// Mean, bytes.
        mean: f64,
        /// Shape α.
        shape: f64,
    },
    /// Log-normal with this mean (bytes) and σ of the underlying normal.
    LogNormal {
        /// Mean, bytes.
        mean: f64,
        /// σ of ln X.
        sigma: f64,
    },
    /// An empirical CDF.
    Empirical(Cdf),
}

impl SizeDist {
    /// One draw, bytes (at least 1).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let x = match self {
            SizeDist::Exponential { mean } => rng.exponential(*mean),
            SizeDist::Pareto { mean, shape } => {
                let xm = mean * (shape - 1.0) / shape;
                xm / (1.0 - rng.uniform()).powf(1.0 / shape)
            }
            SizeDist::LogNormal { mean, sigma } => {
                let mu = mean.ln() - sigma * sigma / 2.0;
                (mu + sigma * rng.normal()).exp()
            }
            SizeDist::Empirical(c) => c.quantile(rng.uniform()),
        };
        (x.ceil() as u64).max(1)
    }

    /// The distribution's mean, bytes (before rounding up to whole bytes).
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Exponential { mean }
            | SizeDist::Pareto { mean, .. }
            | SizeDist::LogNormal { mean, .. } => *mean,
            SizeDist::Empirical(c) => c.mean(),
        }
    }
}

/// An empirical CDF: sizes (bytes) with their cumulative probabilities.
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    /// `(bytes, F(bytes))`, sizes non-decreasing, F non-decreasing, the last F exactly 1.
    points: Vec<(f64, f64)>,
}

/// Why a CDF file was refused: the 1-based line and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CdfError {
    /// 1-based line of the file (0: the file as a whole).
    pub line: usize,
    /// What is wrong.
    pub msg: String,
}

impl fmt::Display for CdfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.msg)
        } else {
            write!(f, "line {}: {}", self.line, self.msg)
        }
    }
}

/// A short escaped excerpt of a CDF file's token, for errors.
fn short(s: &str) -> String {
    crate::scenario::files::excerpt_n(s, crate::scenario::files::FILE_EXCERPT_CHARS)
}

impl Cdf {
    /// Parses a CDF file: one point `bytes probability` per line (whitespace or a comma
    /// between), `#` starts a comment, blank lines are skipped. Sizes and probabilities must
    /// not decrease, probabilities lie in [0, 1] and the last is 1.
    pub fn parse(text: &str) -> Result<Cdf, CdfError> {
        let mut points: Vec<(f64, f64)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let err = |msg: String| CdfError { line, msg };
            let body = raw.split('#').next().unwrap_or("").trim();
            if body.is_empty() {
                continue;
            }
            let fields: Vec<&str> = body
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .collect();
            let &[size, p] = fields.as_slice() else {
                // Only a short excerpt of the line: never a file's contents (issue 38).
                return Err(err(format!(
                    "expected two numbers, `bytes probability`; got {} field(s), starting {}",
                    fields.len(),
                    short(body)
                )));
            };
            let num = |s: &str, what: &str| -> Result<f64, CdfError> {
                s.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| {
                        err(format!(
                            "expected a number for the {what}; got {}",
                            short(s)
                        ))
                    })
            };
            let (size, p) = (num(size, "size in bytes")?, num(p, "probability")?);
            if size < 0.0 {
                return Err(err(format!("a size cannot be negative; got {size}")));
            }
            if !(0.0..=1.0).contains(&p) {
                return Err(err(format!("a probability lies in [0, 1]; got {p}")));
            }
            if let Some(&(s0, p0)) = points.last() {
                if size < s0 || p < p0 {
                    return Err(err(format!(
                        "points must not decrease: ({size}, {p}) follows ({s0}, {p0})"
                    )));
                }
            }
            points.push((size, p));
        }
        match points.last() {
            None => Err(CdfError {
                line: 0,
                msg: "no points: expected lines of `bytes probability`".into(),
            }),
            Some(&(_, p)) if p != 1.0 => Err(CdfError {
                line: text.lines().count(),
                msg: format!("the last probability must be 1; got {p}"),
            }),
            Some(_) => Ok(Cdf { points }),
        }
    }

    /// The size at cumulative probability `u` (inverse CDF, linear between points).
    pub fn quantile(&self, u: f64) -> f64 {
        let i = self.points.partition_point(|&(_, p)| p < u);
        let Some(&(x1, p1)) = self.points.get(i) else {
            return self.points.last().map_or(0.0, |p| p.0);
        };
        if i == 0 || p1 <= self.points[i - 1].1 {
            return x1;
        }
        let (x0, p0) = self.points[i - 1];
        x0 + (x1 - x0) * (u - p0) / (p1 - p0)
    }

    /// The mean of the interpolated distribution: the first point's mass at its size plus,
    /// per segment, its probability times the segment's midpoint.
    pub fn mean(&self) -> f64 {
        let (x0, p0) = self.points[0];
        let mut m = x0 * p0;
        for w in self.points.windows(2) {
            let ((a, pa), (b, pb)) = (w[0], w[1]);
            m += (pb - pa) * (a + b) / 2.0;
        }
        m
    }

    /// The points.
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean_of(d: &SizeDist, n: usize, seed: u64) -> f64 {
        let mut r = Rng::from_seed(seed);
        (0..n).map(|_| d.sample(&mut r) as f64).sum::<f64>() / n as f64
    }

    // Module doc (exponential): 200,000 draws of mean 50,000 B have a standard error of
    // 112 B; within 1% (5 standard errors, plus the 0.5 B of rounding up).
    #[test]
    fn exponential_mean_over_many_draws_within_one_percent() {
        let d = SizeDist::Exponential { mean: 50_000.0 };
        let m = mean_of(&d, 200_000, 1);
        assert!((m / 50_000.0 - 1.0).abs() < 0.01, "{m}");
    }

    // Module doc (Pareto, x_m = mean(α−1)/α): with α = 2.5 the variance is finite; the
    // standard error over 400,000 draws is about 0.2% of the mean, so within 2%. The
    // smallest draw is x_m = 30,000 B (30,001 when x_m's floating-point value rounds up).
    #[test]
    fn pareto_mean_and_scale() {
        let d = SizeDist::Pareto {
            mean: 50_000.0,
            shape: 2.5,
        };
        let mut r = Rng::from_seed(2);
        let xs: Vec<u64> = (0..400_000).map(|_| d.sample(&mut r)).collect();
        let m = xs.iter().sum::<u64>() as f64 / xs.len() as f64;
        assert!((m / 50_000.0 - 1.0).abs() < 0.02, "{m}");
        assert!((30_000..=30_001).contains(xs.iter().min().unwrap()));
    }

    // Module doc (log-normal, μ = ln(mean) − σ²/2): σ = 1, so the coefficient of variation
    // is √(e − 1) = 1.31 and the standard error over 200,000 draws 0.3%: within 1.5%. The
    // median is exp(μ) = mean·e^(−1/2).
    #[test]
    fn lognormal_mean_and_median() {
        let d = SizeDist::LogNormal {
            mean: 100_000.0,
            sigma: 1.0,
        };
        let mut r = Rng::from_seed(3);
        let mut xs: Vec<u64> = (0..200_000).map(|_| d.sample(&mut r)).collect();
        let m = xs.iter().sum::<u64>() as f64 / xs.len() as f64;
        assert!((m / 100_000.0 - 1.0).abs() < 0.015, "{m}");
        xs.sort_unstable();
        let median = xs[xs.len() / 2] as f64;
        let want = 100_000.0 * (-0.5f64).exp();
        assert!((median / want - 1.0).abs() < 0.01, "{median} vs {want}");
    }

    // Module doc (empirical): the inverse CDF at known quantiles, with linear interpolation
    // between points and the first size for U at or below its probability.
    #[test]
    fn cdf_quantiles_interpolate_between_points() {
        let c = Cdf::parse("# test\n1000 0.5\n3000, 0.75\n\n11000 1 # end\n").unwrap();
        assert_eq!(c.quantile(0.0), 1000.0);
        assert_eq!(c.quantile(0.5), 1000.0);
        assert_eq!(c.quantile(0.625), 2000.0);
        assert_eq!(c.quantile(0.75), 3000.0);
        assert_eq!(c.quantile(0.875), 7000.0);
        assert_eq!(c.quantile(1.0), 11000.0);
        // 0.5·1000 + 0.25·2000 + 0.25·7000.
        assert_eq!(c.mean(), 2750.0);
        // Sampled: half of the draws are exactly the first size, and the mean is 2750 B.
        let d = SizeDist::Empirical(c);
        let mut r = Rng::from_seed(4);
        let xs: Vec<u64> = (0..100_000).map(|_| d.sample(&mut r)).collect();
        let at_first = xs.iter().filter(|&&x| x == 1000).count() as f64 / 1e5;
        assert!((at_first - 0.5).abs() < 0.01, "{at_first}");
        let m = xs.iter().sum::<u64>() as f64 / 1e5;
        assert!((m / 2750.0 - 1.0).abs() < 0.02, "{m}");
    }

    // Module doc: the same seed gives the same sizes.
    #[test]
    fn draws_are_reproducible_per_seed() {
        let d = SizeDist::LogNormal {
            mean: 10_000.0,
            sigma: 2.0,
        };
        let a: Vec<u64> = {
            let mut r = Rng::from_seed(9);
            (0..100).map(|_| d.sample(&mut r)).collect()
        };
        let b: Vec<u64> = {
            let mut r = Rng::from_seed(9);
            (0..100).map(|_| d.sample(&mut r)).collect()
        };
        let c: Vec<u64> = {
            let mut r = Rng::from_seed(10);
            (0..100).map(|_| d.sample(&mut r)).collect()
        };
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    // Cdf::parse: each refusal names its line.
    #[test]
    fn bad_cdf_files_are_refused_with_their_line() {
        let e = Cdf::parse("100 0.5\n50 0.7\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.msg.contains("must not decrease"), "{e}");
        let e = Cdf::parse("# c\n100 0.5\n200 x\n").unwrap_err();
        assert_eq!((e.line, e.to_string().starts_with("line 3: ")), (3, true));
        let e = Cdf::parse("100 1.5\n").unwrap_err();
        assert!(e.msg.contains("[0, 1]"), "{e}");
        let e = Cdf::parse("100 0.5\n200 0.9\n").unwrap_err();
        assert!(e.msg.contains("last probability must be 1"), "{e}");
        let e = Cdf::parse("100\n").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(Cdf::parse("# nothing\n").is_err());
    }
}
