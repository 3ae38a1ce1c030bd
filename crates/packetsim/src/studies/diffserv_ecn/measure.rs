//! What one run measures (goodputs, the AF queue's IN/OUT ratios) and the per-point results
//! the claims, figures and tables read.

use super::*;

pub(super) fn pop_std(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n).sqrt()
}

pub(super) fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let q: f64 = xs.iter().map(|x| x * x).sum();
    if q == 0.0 {
        0.0
    } else {
        s * s / (xs.len() as f64 * q)
    }
}

/// One run's metrics from its summary (goodputs in kb/s, wire level = payload × 1040/1000;
/// ratios in %).
pub(super) fn measure(sim: u32, duration_s: f64, summary: &crate::report::Summary) -> Metrics {
    let (n_af, _, _) = sim_params(sim);
    let f = &summary.flows;
    let kbps =
        |name: &str| f[name].bytes_delivered as f64 * 8.0 / duration_s / 1000.0 * WIRE / PAYLOAD;
    let af: Vec<f64> = (1..=n_af).map(|i| kbps(&format!("af{i}"))).collect();
    let be: Vec<f64> = (1..=BE_FLOWS).map(|i| kbps(&format!("be{i}"))).collect();
    let q = &summary.queues["core:ingress->egress/af"];
    let (qi, qo) = (q.precedence_in, q.precedence_out);
    let pct = |a: u64, b: u64| {
        if b == 0 {
            0.0
        } else {
            100.0 * a as f64 / b as f64
        }
    };
    let mut m: Vec<(String, Option<f64>)> = Vec::new();
    for (i, g) in af.iter().enumerate() {
        m.push((format!("af{}_kbps", i + 1), Some(*g)));
    }
    let share = sim_params(sim).2;
    m.extend([
        (
            "af_mean_kbps".to_string(),
            Some(af.iter().sum::<f64>() / af.len() as f64),
        ),
        ("af_std_kbps".into(), Some(pop_std(&af))),
        (
            "af_min_kbps".into(),
            Some(af.iter().cloned().fold(f64::INFINITY, f64::min)),
        ),
        (
            "af_max_kbps".into(),
            Some(af.iter().cloned().fold(0.0, f64::max)),
        ),
        (
            "af_below_share".into(),
            Some(af.iter().filter(|&&g| g < share).count() as f64),
        ),
        ("af_jain".into(), Some(jain(&af))),
        ("af_class_kbps".into(), Some(af.iter().sum())),
        (
            "be_mean_kbps".into(),
            Some(be.iter().sum::<f64>() / be.len() as f64),
        ),
        ("be_std_kbps".into(), Some(pop_std(&be))),
        ("be_jain".into(), Some(jain(&be))),
        ("out_in_pct".into(), Some(pct(qo.arrivals, qi.arrivals))),
        ("out_early_pct".into(), Some(pct(qo.early, qo.arrivals))),
        (
            "out_forced_pct".into(),
            Some(pct(qo.forced + qo.overflow, qo.arrivals)),
        ),
        ("out_ce_pct".into(), Some(pct(qo.marks, qo.arrivals))),
        (
            "in_forced_pct".into(),
            Some(pct(qi.forced + qi.overflow, qi.arrivals)),
        ),
        ("in_early_pct".into(), Some(pct(qi.early, qi.arrivals))),
        ("in_ce_pct".into(), Some(pct(qi.marks, qi.arrivals))),
    ]);
    m
}

/// Means (and CI half-widths) per (sim, scenario) and metric, at one setting of the other
/// parameters (bucket depth, `count`, marking), and the per-run values behind them.
pub(super) struct Results<'a> {
    points: &'a [PointSummary],
    runs: &'a [Vec<StoredRun>],
    /// The setting: the values the other swept parameters must have.
    at: Vec<(&'static str, String)>,
}

impl<'a> Results<'a> {
    /// The main sweep's points at `depth` and `count`.
    pub(super) fn main(swept: &'a Swept<Def>, depth: u64, count: &str) -> Self {
        Results {
            points: &swept.points,
            runs: &swept.runs,
            at: vec![("depth", depth.to_string()), ("count", count.to_string())],
        }
    }
    /// The sensitivity sweep's points at `marking` and `depth`.
    pub(super) fn sensitivity(swept: &'a Swept<Def>, marking: &str, depth: u64) -> Self {
        Results {
            points: &swept.points,
            runs: &swept.runs,
            at: vec![
                ("marking", marking.to_string()),
                ("depth", depth.to_string()),
            ],
        }
    }
    pub(super) fn index(&self, sim: u32, ecn: &str) -> Option<usize> {
        let has = |p: &PointSummary, k: &str, v: &str| {
            p.point.assignments.iter().any(|a| a.0 == k && a.1 == v)
        };
        self.points.iter().position(|p| {
            has(p, "sim", &sim.to_string())
                && has(p, "ecn", ecn)
                && self.at.iter().all(|(k, v)| has(p, k, v))
        })
    }
    pub(super) fn get(&self, sim: u32, ecn: &str, metric: &str) -> (f64, f64) {
        self.index(sim, ecn)
            .and_then(|i| self.points[i].metrics.iter().find(|m| m.name == metric))
            .map(|m| {
                (
                    m.mean,
                    if m.ci95_high.is_finite() {
                        (m.ci95_high - m.mean).max(0.0)
                    } else {
                        0.0
                    },
                )
            })
            .unwrap_or((f64::NAN, f64::NAN))
    }
    pub(super) fn m(&self, sim: u32, ecn: &str, metric: &str) -> f64 {
        self.get(sim, ecn, metric).0
    }
    /// The per-run values of `metric` (replication order; missing values left out).
    pub(super) fn vals(&self, sim: u32, ecn: &str, metric: &str) -> Vec<f64> {
        self.seeded(sim, ecn, metric)
            .into_iter()
            .map(|(_, x)| x)
            .collect()
    }
    /// The per-run `(seed, value)` of `metric` (replication order; missing values left out).
    pub(super) fn seeded(&self, sim: u32, ecn: &str, metric: &str) -> Vec<(u64, f64)> {
        let runs = self
            .index(sim, ecn)
            .and_then(|i| self.runs.get(i))
            .map_or(&[][..], |r| &r[..]);
        runs.iter()
            .filter_map(|r| Some((r.seed, r.metrics.iter().find(|m| m.0 == metric)?.1?)))
            .collect()
    }
    /// The mean of `metric` with its CI.
    pub(super) fn est(&self, sim: u32, ecn: &str, metric: &str) -> Estimate {
        Estimate::mean(&self.vals(sim, ecn, metric))
    }
    /// `metric` of scenario `a` minus scenario `b`, paired run by run over the seeds the
    /// scenarios share (Welch only if the seeds do not match, as in a store from before).
    pub(super) fn diff(&self, sim: u32, a: &str, b: &str, metric: &str) -> Estimate {
        Estimate::difference(&self.seeded(sim, a, metric), &self.seeded(sim, b, metric))
    }
    /// The AF class queue's time-average length (packets) per run, from the runs' summaries.
    pub(super) fn af_queue_len(&self, sim: u32, ecn: &str) -> Estimate {
        let runs = self
            .index(sim, ecn)
            .and_then(|i| self.runs.get(i))
            .map_or(&[][..], |r| &r[..]);
        let xs: Vec<f64> = runs
            .iter()
            .filter_map(|r| {
                let v: serde_json::Value = serde_json::from_str(&r.summary_json).ok()?;
                v["queues"]["core:ingress->egress/af"]["mean_len_pkts"].as_f64()
            })
            .collect();
        Estimate::mean(&xs)
    }
}
