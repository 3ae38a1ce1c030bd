//! Each figure's chart (figure.svg) and data (figure.csv).

use super::*;
use crate::report::chart::Panel;

/// How far above every other curve the RTO-floor curves must reach (their highest mean over
/// the others' highest) before they get a panel of their own.
const APART: f64 = 2.0;

/// The panels of figure `r`, when it needs them (issue 37: figures on one axis must not hide
/// the comparison). With a 1 s RTO floor (spec 3 Q4) TCP takes several times longer than
/// every other curve at Figure 3's high losses: on one axis those two curves set the scale
/// and the other eight bunch at the bottom, where they cross. So when the RTO-floor curves
/// reach more than [`APART`] times the others' highest mean, the figure is two panels, each
/// on its own y axis: the curves without the floor, then the floor's curves beside TCP Reno
/// and SACK at the scenario's floor (10 ms), which they are compared with. `None` when one
/// axis shows every curve (Figure 2, and every quick run, which has no RTO-floor curve).
pub(super) fn panels(r: &Results) -> Option<(Vec<Panel>, String)> {
    let floor1 = |c: &CurveSpec| c.id.ends_with("_rto1");
    let highest = |want: bool| {
        r.curves
            .iter()
            .filter(|(c, _)| floor1(c) == want)
            .flat_map(|(_, pts)| pts.iter().map(|p| p.mean))
            .filter(|m| m.is_finite())
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let (with, without) = (highest(true), highest(false));
    if !(with.is_finite() && without > 0.0 && with > APART * without) {
        return None;
    }
    let ids = |pick: &dyn Fn(&CurveSpec) -> bool| -> Vec<usize> {
        (0..r.curves.len())
            .filter(|&i| pick(&r.curves[i].0))
            .collect()
    };
    let top = ids(&|c| !floor1(c));
    let bottom = ids(&|c| floor1(c) || c.id == "tcp_reno" || c.id == "tcp_sack");
    let caption = format!(
        "Drawn in two panels, each on its own y axis: TCP with a 1 s RTO floor (Q4) \
         takes up to {with:.0} s, {:.1} times the slowest other curve ({without:.0} s), and on \
         one axis would flatten the differences between the others. The lower panel repeats \
         TCP Reno and SACK at the scenario's 10 ms floor for comparison.",
        with / without
    );
    let panels = vec![
        Panel {
            caption: "without the 1 s RTO floor".into(),
            curves: top,
        },
        Panel {
            caption: "TCP with a 1 s RTO floor (Q4) beside TCP Reno and SACK (own y axis)".into(),
            curves: bottom,
        },
    ];
    Some((panels, caption))
}

/// Figure `r` into `dir`: figure.svg and figure.csv.
pub(super) fn write_figure(dir: &Path, r: &Results) -> Result<(), String> {
    let chart = LineChart {
        title: r.spec.title.clone(),
        x_label: r.spec.axis.label().into(),
        y_label: "4 MiB transfer time (s), mean and 95% CI".into(),
        curves: r
            .curves
            .iter()
            .map(|(c, pts)| Curve {
                label: c.label.clone(),
                points: pts.iter().map(|p| (p.x, p.mean, p.lo, p.hi)).collect(),
            })
            .collect(),
        non_negative: true,
    };
    let mut csv = CsvText::new();
    let header = [
        "curve",
        "label",
        "x",
        "n",
        "mean_s",
        "ci95_low_s",
        "ci95_high_s",
        "median_s",
    ];
    csv.row(
        header
            .into_iter()
            .chain(DIAGNOSTICS.map(|d| d.trim_start_matches("flows.file.sctp."))),
    );
    for (c, pts) in &r.curves {
        for p in pts {
            let diagnostics = DIAGNOSTICS.map(|d| {
                let v = p.diag.iter().find(|x| x.0 == d).map(|x| x.1);
                v.map_or(String::new(), |v| format!("{v:?}"))
            });
            csv.row(
                [
                    c.id.to_string(),
                    c.label.clone(),
                    p.x.to_string(),
                    p.n.to_string(),
                    format!("{:?}", p.mean),
                    format!("{:?}", p.lo),
                    format!("{:?}", p.hi),
                    format!("{:?}", p.median),
                ]
                .into_iter()
                .chain(diagnostics),
            );
        }
    }
    write_atomic(&dir.join("figure.csv"), &csv.finish()).map_err(|e| e.to_string())?;
    let svg = match panels(r) {
        Some((panels, _)) => chart.to_svg_in_panels(&panels),
        None => chart.to_svg(),
    };
    write_atomic(&dir.join("figure.svg"), &svg).map_err(|e| e.to_string())
}
