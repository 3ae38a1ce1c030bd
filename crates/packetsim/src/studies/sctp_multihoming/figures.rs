//! Each figure's chart (figure.svg) and data (figure.csv).

use super::*;

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
    let mut csv = String::from("curve,label,x,n,mean_s,ci95_low_s,ci95_high_s,median_s");
    for d in DIAGNOSTICS {
        let _ = write!(csv, ",{}", d.trim_start_matches("flows.file.sctp."));
    }
    csv.push('\n');
    for (c, pts) in &r.curves {
        for p in pts {
            let _ = write!(
                csv,
                "{},{},{},{},{:?},{:?},{:?},{:?}",
                c.id,
                csv_field(&c.label),
                p.x,
                p.n,
                p.mean,
                p.lo,
                p.hi,
                p.median
            );
            for d in DIAGNOSTICS {
                let v = p.diag.iter().find(|x| x.0 == d).map(|x| x.1);
                let _ = write!(csv, ",{}", v.map_or(String::new(), |v| format!("{v:?}")));
            }
            csv.push('\n');
        }
    }
    write_atomic(&dir.join("figure.csv"), &csv).map_err(|e| e.to_string())?;
    write_atomic(&dir.join("figure.svg"), &chart.to_svg()).map_err(|e| e.to_string())
}
