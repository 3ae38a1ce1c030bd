//! What each figure's runs give: per curve and x, the transfer time's mean and CI, the
//! diagnostics, and the per-run values the paired claims read.

use super::*;

impl Results {
    pub(super) fn curve(&self, id: &str) -> &[Point] {
        self.curves
            .iter()
            .find(|c| c.0.id == id)
            .map_or(&[][..], |c| &c.1[..])
    }
    pub(super) fn at(&self, id: &str, x: f64) -> Option<&Point> {
        self.curve(id).iter().find(|p| (p.x - x).abs() < 1e-9)
    }
    pub(super) fn mean(&self, id: &str, x: f64) -> f64 {
        self.at(id, x).map_or(f64::NAN, |p| p.mean)
    }
}

/// Diagnostics averaged per point (beside the transfer time), for S4 and S11.
pub(super) const DIAGNOSTICS: [&str; 8] = [
    "flows.file.sctp.paths.0.t3_expiries",
    "flows.file.sctp.paths.1.t3_expiries",
    "flows.file.sctp.paths.0.fast_retransmits",
    "flows.file.sctp.paths.1.fast_retransmits",
    "flows.file.sctp.paths.0.rto_mean_s",
    "flows.file.sctp.paths.1.rto_mean_s",
    "flows.file.sctp.paths.1.retransmitted_chunks",
    "flows.file.sctp.alt_t3_wait_s",
];

pub(super) fn collect(
    fig: &FigureSpec,
    points: &[PointSummary],
    runs: &[Vec<StoredRun>],
) -> Results {
    let mut curves: Vec<(CurveSpec, Vec<Point>)> =
        fig.curves.iter().map(|c| (c.clone(), Vec::new())).collect();
    let per_run = |runs: &[StoredRun], name: &str| -> Vec<(u64, f64)> {
        runs.iter()
            .filter_map(|r| {
                let v = r.metrics.iter().find(|m| m.0 == name)?.1?;
                v.is_finite().then_some((r.seed, v))
            })
            .collect()
    };
    for (i, p) in points.iter().enumerate() {
        let point_runs = runs.get(i).map_or(&[][..], |r| &r[..]);
        let get = |k: &str| p.point.value(k).unwrap_or_default().to_string();
        let x: f64 = get("x").parse().unwrap_or(f64::NAN);
        let id = get("curve");
        let Some(m) = p.metrics.iter().find(|m| m.name == METRIC) else {
            continue;
        };
        let diag = DIAGNOSTICS
            .iter()
            .filter_map(|d| {
                p.metrics
                    .iter()
                    .find(|m| m.name == *d)
                    .map(|m| (d.to_string(), m.mean))
            })
            .collect();
        if let Some(c) = curves.iter_mut().find(|c| c.0.id == id) {
            c.1.push(Point {
                x,
                mean: m.mean,
                lo: m.ci95_low,
                hi: m.ci95_high,
                median: m.median,
                n: m.n,
                diag,
                runs: per_run(point_runs, METRIC),
                diag_runs: DIAGNOSTICS
                    .iter()
                    .map(|d| (d.to_string(), per_run(point_runs, d)))
                    .collect(),
            });
        }
    }
    for c in &mut curves {
        c.1.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    Results {
        spec: fig.clone(),
        curves,
    }
}

impl Results {
    /// The per-run transfer times of curve `id` at `x`, (seed, s).
    pub(super) fn samples(&self, id: &str, x: f64) -> &[(u64, f64)] {
        self.at(id, x).map_or(&[][..], |p| &p.runs[..])
    }
    /// The per-run values of diagnostic `name` (suffix) of curve `id` at `x`.
    pub(super) fn diag_samples(&self, id: &str, x: f64, name: &str) -> &[(u64, f64)] {
        self.at(id, x)
            .and_then(|p| p.diag_runs.iter().find(|d| d.0.ends_with(name)))
            .map_or(&[][..], |d| &d.1[..])
    }
    /// Curve `a` minus curve `b` at `x`: paired over the shared seeds (Welch if they differ).
    pub(super) fn diff(&self, a: &str, b: &str, x: f64) -> Estimate {
        Estimate::difference(self.samples(a, x), self.samples(b, x))
    }
    /// The mean transfer time of curve `id` at `x`, with its CI.
    pub(super) fn est(&self, id: &str, x: f64) -> Estimate {
        Estimate::mean(&values(self.samples(id, x)))
    }
}

pub(super) fn values(s: &[(u64, f64)]) -> Vec<f64> {
    s.iter().map(|v| v.1).collect()
}
