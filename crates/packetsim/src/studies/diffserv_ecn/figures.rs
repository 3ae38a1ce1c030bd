//! Figs 2-5, 8 and 9: per-flow AF goodput (2, 5) on an axis over the goodputs, the classes'
//! mean goodput (3, 8) in a panel per class, their std dev (4, 9) from 0.

use super::*;

/// Figs 2-5, 8 and 9 (SVG) at `r`, into `root`.
pub(super) fn bar_figures(root: &Path, r: &Results) -> Result<(), String> {
    let svg = |name: &str, c: BarChart| {
        write_atomic(&root.join(name), &c.to_svg()).map_err(|e| e.to_string())
    };
    // Figs 2 and 5: per-flow AF goodput, no ecn vs ecn to AF, on an axis spanning the
    // goodputs (points, not bars: the differences are a few kb/s on hundreds); their std dev
    // across flows is Figs 4 and 9 (on its own scale).
    for (sim, fig) in [(1u32, "fig2"), (2, "fig5")] {
        let (n_af, _, share) = sim_params(sim);
        svg(
            &format!("{fig}.svg"),
            BarChart {
                title: format!(
                    "{} (Sim {sim}): AF goodput per flow (their std dev: {})",
                    if sim == 1 { "Fig 2" } else { "Fig 5" },
                    if sim == 1 { "Fig 4" } else { "Fig 9" }
                ),
                y_label: "goodput (kb/s, wire level), mean and 95% CI".into(),
                categories: (1..=n_af)
                    .map(|i| format!("AF{i}"))
                    .chain(["mean".into()])
                    .collect(),
                series: SCENARIOS[..2]
                    .iter()
                    .map(|(k, l)| {
                        let mut vals: Vec<(f64, f64)> = (1..=n_af)
                            .map(|i| r.get(sim, k, &format!("af{i}_kbps")))
                            .collect();
                        vals.push(r.get(sim, k, "af_mean_kbps"));
                        (l.to_string(), vals)
                    })
                    .collect(),
                reference: Some((share, format!("profile share {share:.1} kb/s"))),
                non_negative: true,
                y_axis: YAxis::Data,
            },
        )?;
    }
    // Figs 3/4 and 8/9: AF and BE mean and std dev under the three scenarios.
    for (sim, fmean, fstd) in [(1u32, "fig3", "fig4"), (2, "fig8", "fig9")] {
        for (fig, metric, what) in [
            (fmean, "mean_kbps", "average goodput"),
            (fstd, "std_kbps", "std dev of goodput"),
        ] {
            let chart = BarChart {
                title: format!(
                    "{} (Sim {sim}): {what} of AF and BE",
                    fig.replace("fig", "Fig ")
                ),
                y_label: format!("{what} (kb/s), mean and 95% CI"),
                categories: vec!["AF".into(), "BE".into()],
                series: SCENARIOS
                    .iter()
                    .map(|(k, l)| {
                        (
                            l.to_string(),
                            vec![
                                r.get(sim, k, &format!("af_{metric}")),
                                r.get(sim, k, &format!("be_{metric}")),
                            ],
                        )
                    })
                    .collect(),
                reference: None,
                non_negative: true,
                // Std devs from 0 (the means' panels each span their own values).
                y_axis: YAxis::FromZero,
            };
            // Means: a panel per class, each on an axis over its own values (AF and BE goodputs
            // lie far apart, the scenarios' differences within each are a few kb/s; issue 37).
            // Std devs: one axis from 0.
            let text = if metric == "mean_kbps" {
                chart.to_svg_by_category()
            } else {
                chart.to_svg()
            };
            write_atomic(&root.join(format!("{fig}.svg")), &text).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
