//! What the claims, figures and report read from the runs: the per-run measures (goodput,
//! loss, idle gaps, efficiency) and series of them over seeds, paired by seed.

use super::config::{AtmNetConfig, AtmRunResult};
use super::plan::Plan;
use crate::studies::checks::Estimate;

/// A finished run with the numbers the study uses.
pub struct Done {
    /// The old job list's group (`main/450`, `sens/T=500/100`, `x1/ppd`, `x3`, `e4/9180`).
    pub group: String,
    /// Its x (RTOmin ms, k, or buffer cells).
    pub x: f64,
    /// Replication, from 0.
    pub rep: u32,
    /// Its configuration.
    pub cfg: AtmNetConfig,
    /// Its statistics.
    pub r: AtmRunResult,
}

pub fn secs(r: &AtmRunResult) -> f64 {
    r.elapsed().0 as f64 * 1e-9
}

/// Sender 1's goodput, bit/s.
pub fn thr1_bps(r: &AtmRunResult) -> f64 {
    r.conns[0].delivered as f64 * 8.0 / secs(r)
}

/// All senders' goodput, bit/s.
pub fn thr_bps(r: &AtmRunResult) -> f64 {
    r.conns.iter().map(|c| c.delivered).sum::<u64>() as f64 * 8.0 / secs(r)
}

pub fn loss(r: &AtmRunResult) -> f64 {
    r.switch.dropped() as f64
}

pub fn median_gap(r: &AtmRunResult) -> f64 {
    let mut g = r.idle_gaps.clone();
    if g.is_empty() {
        return f64::NAN;
    }
    g.sort_unstable();
    g[g.len() / 2] as f64
}

pub fn spurious(r: &AtmRunResult) -> f64 {
    r.conns.iter().map(|c| c.spurious).sum::<u64>() as f64
}

pub fn efficiency(d: &Done) -> f64 {
    let slots = (d.r.slots - d.cfg.warmup_slots) as f64;
    d.r.goodput_after_warmup() as f64 / (slots * d.cfg.payload_per_slot())
}

/// The runs of `group`, at `x`, as (seed rep, value), in rep order.
pub fn series(done: &[Done], group: &str, x: f64, f: impl Fn(&Done) -> f64) -> Vec<(u64, f64)> {
    done.iter()
        .filter(|d| d.group == group && d.x == x)
        .map(|d| (d.rep as u64, f(d)))
        .collect()
}

pub fn vals(s: &[(u64, f64)]) -> Vec<f64> {
    s.iter().map(|x| x.1).collect()
}

pub fn est(done: &[Done], group: &str, x: f64, f: impl Fn(&Done) -> f64) -> Estimate {
    Estimate::mean(&vals(&series(done, group, x, f)))
}

/// Per-seed ratio a/b of two paired series.
pub fn ratio(a: &[(u64, f64)], b: &[(u64, f64)]) -> Estimate {
    let r: Vec<f64> = a
        .iter()
        .zip(b)
        .filter(|(x, y)| x.0 == y.0)
        .map(|(x, y)| x.1 / y.1)
        .collect();
    Estimate {
        how: "mean of per-seed ratios",
        ..Estimate::mean(&r)
    }
}

pub fn paired(a: &[(u64, f64)], b: &[(u64, f64)]) -> Estimate {
    Estimate::difference(a, b)
}

/// Per-seed mean over several series with the same seeds.
pub fn pooled(parts: &[Vec<(u64, f64)>]) -> Vec<(u64, f64)> {
    let Some(first) = parts.first() else {
        return vec![];
    };
    first
        .iter()
        .enumerate()
        .map(|(i, (seed, _))| {
            let m = parts.iter().map(|p| p[i].1).sum::<f64>() / parts.len() as f64;
            (*seed, m)
        })
        .collect()
}

pub fn diff_series(
    a: &[(u64, f64)],
    b: &[(u64, f64)],
    f: impl Fn(f64, f64) -> f64,
) -> Vec<(u64, f64)> {
    a.iter().zip(b).map(|(x, y)| (x.0, f(x.1, y.1))).collect()
}

/// The study's runs and plan, as the claims, figures and report read them.
pub struct Ctx<'a> {
    pub done: &'a [Done],
    pub plan: &'a Plan,
}
impl Ctx<'_> {
    pub fn eff(&self, fig: u32, size: u32, b: u32) -> Vec<(u64, f64)> {
        series(self.done, &format!("e{fig}/{size}"), b as f64, efficiency)
    }

    /// Per-seed efficiency of figure `fig`, averaged over the given sizes and buffers.
    pub fn eff_pooled(&self, fig: u32, sizes: &[u32], buffers: &[u32]) -> Vec<(u64, f64)> {
        let mut parts = vec![];
        for &s in sizes {
            for &b in buffers {
                parts.push(self.eff(fig, s, b));
            }
        }
        pooled(&parts)
    }

    pub fn main(&self, rto: u64, f: impl Fn(&Done) -> f64) -> Vec<(u64, f64)> {
        series(self.done, &format!("main/{rto}"), rto as f64, f)
    }
}
