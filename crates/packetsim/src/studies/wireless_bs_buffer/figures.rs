//! The study's figures, CSVs and report.md.

use super::*;

/// The agreement lines of bench/validate/wireless/results.md (Figs 5-7) or outage.md (Fig 8),
/// generated there from ns-2's and packetsim's data files by compare.py and outage.py.
pub(super) const NS2_BASELINES: &str =
    include_str!("../../../../../bench/validate/wireless/results.md");
pub(super) const NS2_OUTAGE: &str =
    include_str!("../../../../../bench/validate/wireless/outage.md");

pub(super) fn ns2_summary(md: &str) -> String {
    md.lines()
        .filter(|l| l.starts_with("- "))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(super) fn curve(label: String, pts: Vec<(f64, Estimate)>) -> Curve {
    Curve {
        label,
        points: pts
            .into_iter()
            .map(|(x, e)| {
                let h = if e.half().is_finite() { e.half() } else { 0.0 };
                (x, e.mean, e.mean - h, e.mean + h)
            })
            .collect(),
    }
}

pub(super) fn rate_chart(
    f: &Data,
    rates: &[u32],
    windows: &[&str],
    metric: &str,
    title: &str,
    y: &str,
) -> LineChart {
    LineChart {
        title: title.into(),
        x_label: "radio bandwidth W (Mb/s)".into(),
        y_label: format!("{y}, mean and 95% CI"),
        curves: windows
            .iter()
            .map(|w| {
                curve(
                    window_label(w),
                    rates
                        .iter()
                        .map(|&r| (r as f64 / 1000.0, f.est(&at_rw(r, w), metric)))
                        .collect(),
                )
            })
            .collect(),
        non_negative: true,
    }
}

/// A CSV text whose header is `first`, then each metric and its CI half-width.
pub(super) fn csv_with_header(first: &[&str], metrics: &[&str]) -> CsvText {
    let mut c = CsvText::new();
    c.row(
        first.iter().map(|f| f.to_string()).chain(
            metrics
                .iter()
                .flat_map(|m| [m.to_string(), format!("{m}_ci95")]),
        ),
    );
    c
}

/// A row's mean and CI half-width fields of `metrics`, from `e`.
pub(super) fn mean_ci_fields(metrics: &[&str], e: impl Fn(&str) -> Estimate) -> Vec<String> {
    metrics
        .iter()
        .flat_map(|m| {
            let e = e(m);
            [format!("{:.4}", e.mean), format!("{:.4}", e.half())]
        })
        .collect()
}

pub(super) fn rate_csv(f: &Data, rates: &[u32], windows: &[&str], metrics: &[&str]) -> String {
    let mut c = csv_with_header(&["rate_mbps", "window"], metrics);
    for &r in rates {
        for w in windows {
            let fields = [(r as f64 / 1000.0).to_string(), window_label(w)];
            let stats = mean_ci_fields(metrics, |m| f.est(&at_rw(r, w), m));
            c.row(fields.into_iter().chain(stats));
        }
    }
    c.finish()
}

/// A file to write: its name under the study's folder and its text.
pub(super) type File = (String, String);

/// Files to write, in order.
#[derive(Default)]
pub(super) struct Files(Vec<File>);

impl Files {
    /// Adds the file `name` with `text` (never fails: the writing is done by the caller).
    fn write(&mut self, name: &str, text: &str) -> Result<(), String> {
        self.0.push((name.to_string(), text.to_string()));
        Ok(())
    }
}

/// Writes the figures and CSVs of the study's own pass under `root`.
pub(super) fn write_figures(study: &Wireless, root: &Path, d: &AllData) -> Result<(), String> {
    let mut files = figs57_files(d)?;
    files.extend(fig8_files(d)?);
    files.extend(bse5_files(study, d)?);
    if let Some(ext) = &d.ext {
        files.extend(ext_sections(d, ext)?.1);
    }
    if let Some((rr, prio)) = &d.shared {
        files.extend(shared_report(rr, prio, &d.g.mobiles).1);
    }
    for (name, text) in files {
        write_atomic(&root.join(&name), &text).map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(())
}

/// Figs 5-7 and their CSV.
pub(super) fn figs57_files(d: &AllData) -> Result<Vec<File>, String> {
    let g = &d.g;
    let mut files = Files::default();
    let f = &d.figs;
    for (fig, metric, title, y) in [
        (
            "fig5",
            "occ_kb",
            "Fig 5: average BS buffer occupancy",
            "occupancy (KB)",
        ),
        (
            "fig6",
            "thr_kbps",
            "Fig 6: TCP throughput",
            "throughput (kb/s)",
        ),
        (
            "fig7",
            "delay_ms",
            "Fig 7: average server-to-mobile delay",
            "delay (ms)",
        ),
    ] {
        files.write(
            &format!("{fig}.svg"),
            &rate_chart(f, &g.rates, &WINDOWS, metric, title, y).to_svg(),
        )?;
    }
    files.write(
        "figs5-7.csv",
        &rate_csv(
            f,
            &g.rates,
            &WINDOWS,
            &[
                "occ_kb",
                "thr_kbps",
                "frac",
                "delay_ms",
                "delay_p95_ms",
                "timeouts",
                "retransmits",
            ],
        ),
    )?;
    Ok(files.0)
}

/// Fig 8 and its CSV.
pub(super) fn fig8_files(d: &AllData) -> Result<Vec<File>, String> {
    let g = &d.g;
    let mut files = Files::default();
    let mut curves = Vec::new();
    let mut csv = CsvText::new();
    csv.row([
        "outage_s",
        "window",
        "policy",
        "lost",
        "lost_ci95",
        "lost_queued",
        "dup",
        "dup_ci95",
        "waste",
        "waste_ci95",
        "recovery_s",
    ]);
    for policy in ["blind", "hold"] {
        for w in ["16", "p16"] {
            curves.push(curve(
                format!("{} ({policy})", window_label(w)),
                g.outages
                    .iter()
                    .map(|&o| (o, d.fig8.est(&at_fig8(o, w, policy), "waste")))
                    .collect(),
            ));
            for &o in &g.outages {
                let e = |m: &str| d.fig8.est(&at_fig8(o, w, policy), m);
                let numbers = [
                    e("lost").mean,
                    e("lost").half(),
                    e("lost_queued").mean,
                    e("dup").mean,
                    e("dup").half(),
                    e("waste").mean,
                    e("waste").half(),
                    e("recovery_s").mean,
                ];
                csv.row(
                    [o.to_string(), window_label(w), policy.to_string()]
                        .into_iter()
                        .chain(numbers.map(|x| format!("{x:.3}"))),
                );
            }
        }
    }
    files.write("fig8.csv", &csv.finish())?;
    files.write(
        "fig8.svg",
        &LineChart {
            title: "Fig 8: lost + duplicate data packets per outage (W = 1 Mb/s)".into(),
            x_label: "outage duration D (s)".into(),
            y_label: "lost + duplicate packets, mean and 95% CI".into(),
            curves,
            non_negative: true,
        }
        .to_svg(),
    )?;
    Ok(files.0)
}

/// BS-E5's series (first seed of the sweep, run again through the driver) as CSV and figures.
pub(super) fn bse5_files(study: &Wireless, d: &AllData) -> Result<Vec<File>, String> {
    let mut files = Files::default();
    let seed0 = d
        .bse5
        .runs
        .first()
        .and_then(|r| r.first())
        .map_or(BASE_SEED, |r| r.seed);
    let mut csv = CsvText::new();
    csv.row(["sched", "alpha", "t_s", "q_kb", "rwnd_kb"]);
    for (sched, cycle) in [("fixed", false), ("cycle", true)] {
        let mut qc = Vec::new();
        let mut wc = Vec::new();
        for a in [1.0, 0.5, 0.25] {
            let s = series(study, &d.g, seed0, a, cycle)?;
            for &(t, q, w) in &s {
                csv.row([
                    sched.to_string(),
                    a.to_string(),
                    format!("{t:.1}"),
                    format!("{q:.3}"),
                    format!("{w:.3}"),
                ]);
            }
            let pts = |k: usize| -> Vec<(f64, f64, f64, f64)> {
                s.iter()
                    .map(|x| {
                        let v = if k == 0 { x.1 } else { x.2 };
                        (x.0, v, v, v)
                    })
                    .collect()
            };
            qc.push(Curve {
                label: format!("a = {a}"),
                points: pts(0),
            });
            wc.push(Curve {
                label: format!("a = {a}"),
                points: pts(1),
            });
        }
        let what = if cycle {
            "W 0.4 → 1.6 → 0.4 Mb/s every 20 s"
        } else {
            "W = 1 Mb/s"
        };
        files.write(
            &format!("bs-e5-{sched}-q.svg"),
            &LineChart {
                title: format!("BS-E5: BS queue Q, {what} (seed {seed0})"),
                x_label: "time (s)".into(),
                y_label: "Q (KB)".into(),
                curves: qc,
                non_negative: true,
            }
            .to_svg(),
        )?;
        files.write(
            &format!("bs-e5-{sched}-rwnd.svg"),
            &LineChart {
                title: format!("BS-E5: advertised window, {what} (seed {seed0})"),
                x_label: "time (s)".into(),
                y_label: "rwnd (KB)".into(),
                curves: wc,
                non_negative: true,
            }
            .to_svg(),
        )?;
    }
    files.write("bs-e5-series.csv", &csv.finish())?;
    Ok(files.0)
}

/// BS-E5's time series for one seed: Q (KB, at each downlink data packet) and rwnd (KB, at each
/// ACK reaching the base station), as the last value on a 100 ms grid.
pub(super) fn series(
    study: &Wireless,
    g: &Grid,
    seed: u64,
    alpha: f64,
    cycle: bool,
) -> Result<Vec<(f64, f64, f64)>, String> {
    let def = Def {
        name: "bs-e5",
        shared: false,
        grid: g.clone(),
        ns2: false,
    };
    let point = GridPoint {
        index: 0,
        assignments: vec![
            ("alpha".into(), alpha.to_string()),
            ("sched".into(), if cycle { "cycle" } else { "fixed" }.into()),
        ],
    };
    let c = Cfg::from_point(&point)?;
    let tr = trace(&c, &shape::watched_run(study, &def, &point, seed)?);
    let mut out = Vec::new();
    let (mut qi, mut ai) = (0, 0);
    let (mut q, mut w) = (0.0, 16.0);
    for k in 1..=(RUN_S * 10.0) as usize {
        let t = k as f64 / 10.0;
        while qi < tr.ms.data.len() && tr.ms.data[qi].t <= t {
            if let Some(x) = tr.ms.data[qi].q {
                q = x as f64 / 1024.0;
            }
            qi += 1;
        }
        while ai < tr.bs.acks.len() && tr.bs.acks[ai].t <= t {
            w = tr.bs.acks[ai].wnd as f64 / 1024.0;
            ai += 1;
        }
        out.push((t, q, w));
    }
    Ok(out)
}

/// The extensions' report sections and files (random rate, W_max and rate mode, radio loss).
pub(super) fn ext_sections(
    d: &AllData,
    ext: &(Data, Data, Data),
) -> Result<(String, Vec<File>), String> {
    let (wmax, loss, random) = ext;
    let mut md = String::new();
    let mut files = ext_random(random, &mut md)?;
    files.extend(ext_window(wmax, &d.g, &mut md)?);
    files.extend(ext_loss(loss, &d.g, &mut md)?);
    Ok((md, files))
}

/// The two-state random radio rate.
pub(super) fn ext_random(random: &Data, md: &mut String) -> Result<Vec<File>, String> {
    let mut files = Files::default();
    let mut csv = CsvText::new();
    csv.row([
        "window",
        "occ_kb",
        "thr_kbps",
        "frac",
        "delay_ms",
        "delay_p95_ms",
        "timeouts",
    ]);
    let _ = writeln!(
        md,
        "\n## Extension: two-state random radio rate\n\nThe downlink rate switches between \
         {GOOD_KBPS} kb/s (good) and {BAD_KBPS} kb/s (bad), each state lasting an exponential \
         time of mean {MEAN_STATE_S} s (seeded, starting good; `links.radio.rate_process`); mean \
         of runs, [10 s, 100 s); fraction of the 1 Mb/s mean rate.\n\n| window | occupancy \
         (KB) | throughput (kb/s) | fraction of 1 Mb/s | delay (ms) | p95 delay (ms) |\n\
         |---|---|---|---|---|---|"
    );
    for w in WINDOWS {
        let at = [("sched", "random".to_string()), ("window", w.to_string())];
        let e = |m: &str| random.est(&at, m);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:.3} | {} | {} |",
            window_label(w),
            e("occ_kb").show(2),
            e("thr_kbps").show(0),
            e("frac").mean,
            e("delay_ms").show(0),
            e("delay_p95_ms").show(0)
        );
        let means = [
            "occ_kb",
            "thr_kbps",
            "frac",
            "delay_ms",
            "delay_p95_ms",
            "timeouts",
        ]
        .map(|m| format!("{:.4}", e(m).mean));
        csv.row([window_label(w)].into_iter().chain(means));
    }
    files.write("ext-random.csv", &csv.finish())?;
    Ok(files.0)
}

/// W_max 8/32/64 KB and rate mode.
pub(super) fn ext_window(wmax: &Data, g: &Grid, md: &mut String) -> Result<Vec<File>, String> {
    let mut files = Files::default();
    let ext_w = ["p8", "p32", "p64", "r16"];
    files.write(
        "ext-window.csv",
        &rate_csv(
            wmax,
            &g.rates,
            &ext_w,
            &["occ_kb", "thr_kbps", "frac", "delay_ms"],
        ),
    )?;
    for (metric, name, y) in [
        ("occ_kb", "ext-window-occupancy.svg", "occupancy (KB)"),
        ("thr_kbps", "ext-window-throughput.svg", "throughput (kb/s)"),
    ] {
        files.write(
            name,
            &rate_chart(
                wmax,
                &g.rates,
                &ext_w,
                metric,
                "Extension: W_max 8/32/64 KB and rate mode",
                y,
            )
            .to_svg(),
        )?;
    }
    let _ = writeln!(md, "\n## Extension: W_max and rate mode (mean over runs; compare the proposal and fixed windows above)\n\n| W (Mb/s) | window | occupancy (KB) | throughput (kb/s) | fraction of W | delay (ms) |\n|---|---|---|---|---|---|");
    for &r in &g.rates {
        for w in ext_w {
            let e = |m: &str| wmax.est(&at_rw(r, w), m).mean;
            let _ = writeln!(
                md,
                "| {:.1} | {} | {:.2} | {:.0} | {:.3} | {:.0} |",
                r as f64 / 1000.0,
                window_label(w),
                e("occ_kb"),
                e("thr_kbps"),
                e("frac"),
                e("delay_ms")
            );
        }
    }
    Ok(files.0)
}

/// Random radio loss.
pub(super) fn ext_loss(loss: &Data, g: &Grid, md: &mut String) -> Result<Vec<File>, String> {
    let mut files = Files::default();
    let mut csv = CsvText::new();
    csv.row([
        "loss",
        "rate_mbps",
        "window",
        "occ_kb",
        "thr_kbps",
        "frac",
        "delay_ms",
        "timeouts",
    ]);
    let _ = writeln!(md, "\n## Extension: random radio loss (both directions; mean over runs)\n\n| loss | W (Mb/s) | window | occupancy (KB) | throughput (kb/s) | fraction of W | timeouts |\n|---|---|---|---|---|---|---|");
    for l in ["0.01", "0.05"] {
        let mut curves = Vec::new();
        for w in WINDOWS {
            let at = |r: u32| {
                let mut a = at_rw(r, w);
                a.push(("loss", l.to_string()));
                a
            };
            curves.push(curve(
                window_label(w),
                g.rates
                    .iter()
                    .map(|&r| (r as f64 / 1000.0, loss.est(&at(r), "thr_kbps")))
                    .collect(),
            ));
            for &r in &g.rates {
                let e = |m: &str| loss.est(&at(r), m).mean;
                let means = ["occ_kb", "thr_kbps", "frac", "delay_ms", "timeouts"]
                    .map(|m| format!("{:.4}", e(m)));
                csv.row(
                    [
                        l.to_string(),
                        (r as f64 / 1000.0).to_string(),
                        window_label(w),
                    ]
                    .into_iter()
                    .chain(means),
                );
                let _ = writeln!(
                    md,
                    "| {l} | {:.1} | {} | {:.2} | {:.0} | {:.3} | {:.1} |",
                    r as f64 / 1000.0,
                    window_label(w),
                    e("occ_kb"),
                    e("thr_kbps"),
                    e("frac"),
                    e("timeouts")
                );
            }
        }
        files.write(
            &format!("ext-loss-{l}.svg"),
            &LineChart {
                title: format!("Extension: throughput with radio loss {l}"),
                x_label: "radio bandwidth W (Mb/s)".into(),
                y_label: "throughput (kb/s), mean and 95% CI".into(),
                curves,
                non_negative: true,
            }
            .to_svg(),
        )?;
    }
    files.write("ext-loss.csv", &csv.finish())?;
    Ok(files.0)
}

/// The report of the study's own pass, `checks` with the "as ns-2.35 would" column attached.
pub(super) fn report(d: &AllData, checks: &[Check], set: &Setting) -> String {
    let g = &d.g;
    // The checks as ns-2.35 would judge them, read back from the attached column.
    let ns2_checks: Vec<Check> = checks
        .iter()
        .filter_map(|c| {
            c.as_ns2.as_ref().map(|n| Check {
                verdict: n.verdict,
                measured: n.measured.clone(),
                ..c.clone()
            })
        })
        .collect();
    let fig8_runs = d.fig8.runs.first().map_or(0, Vec::len);
    let mut md = format!(
        "# Study 2: wireless TCP with a receive window driven by the BS buffer\n\n\
         Source: spec/2-wireless-bs-buffer.md. Scenario: scenarios/wireless-bs-buffer.toml with overrides \
         (radio rate, window, outage, filter weight). Reno, IW 1, MSS 1000 B, RTO granularity 100 ms / min 0.2 s / \
         initial 3 s; TR-ACKs (3) and no recover guard in every arm. Figs 5-7: {} runs per point (start jitter \
         U[0, 1] s), 100 s, first 10 s discarded. Fig 8: {} runs per point, t0 ~ U[20, 30] s, run t0 + D + 40 s. \
         Every point of a sweep shares the seeds of a replication, so comparisons are paired.\n\n\
         Measurements (spec §2.7): occupancy = exact time average of the mobile's downlink queue (packets waiting, \
         not the one in transmission, × 1040 B) over [10 s, end]; throughput = in-order payload bytes delivered \
         to the application in the window; delay = arrival at the mobile − start of the packet's transmission at \
         the server (its server-side queueing excluded), over data packets delivered in the window; Fig 8 counts \
         from the outage start to the sender's recovery (the mobile has everything sent before reconnection) or \
         30 s after reconnection.\n\n## Shape checks\n\n{}\n\n{}\n{}",
        set.runs,
        fig8_runs,
        checks::counts_line(checks),
        checks::table(checks),
        checks::ns2_section(
            &format!(
                "The paper used ns-2. Figures 5-8 and BS-E5 were run again with `profile = \
                 \"ns2\"` (ns-2.35's TCP mechanisms, docs/scenario-format.md \"Profiles\", \
                 where the study's scenario does not set its own: limited transmit, ns-2's tick \
                 timers and ssthresh rule; it keeps its recover_guard = \"none\"), same seeds, judged by the same checks: numbers in ns2/checks.csv, runs in \
                 ns2/runs/. With it: {}.",
                checks::counts_line(&ns2_checks)
            ),
            checks
        )
    );
    md.push_str(&tables(d));
    if let Some(ext) = &d.ext {
        md.push_str(&ext_sections(d, ext).map(|x| x.0).unwrap_or_default());
    } else {
        let _ = writeln!(md, "\n(Quick run: extensions not run.)");
    }
    if let Some((rr, prio)) = &d.shared {
        md.push_str(&shared_report(rr, prio, &g.mobiles).0);
    }
    let _ = writeln!(
        md,
        "\n## Validation against ns-2.35 (bench/validate/wireless/results.md)\n\n\
         The fixed-window baselines of Figs 5-7 (every W, 4/8/16/64 KB) run in ns-2.35 with its own \
         TCP/Reno, TCPSink and DropTail queues on the same topology. Largest relative differences \
         (ns-2 against packetsim's full reproduction, stored in that folder):\n\n{}\n\n\
         Fig 8 in ns-2.35 (bench/validate/wireless/outage.md: one blind outage, fixed 16 KB and \
         an emulation of the proposal that sets the server's window from the base station's \
         queue every radio packet time; no TR-ACKs there):\n\n{}\n\n\
         ## Not done\n\n- ns-2 checks neither the TR-ACKs nor the proposal's exact per-packet \
         update (outage.tcl's emulation samples the queue once per radio packet time).\n\n## Figures\n",
        ns2_summary(NS2_BASELINES),
        ns2_summary(NS2_OUTAGE)
    );
    for (fname, t) in [
        ("fig5", "Fig 5"),
        ("fig6", "Fig 6"),
        ("fig7", "Fig 7"),
        ("fig8", "Fig 8"),
        ("bs-e5-fixed-q", "BS-E5 Q at 1 Mb/s"),
        ("bs-e5-fixed-rwnd", "BS-E5 rwnd at 1 Mb/s"),
        ("bs-e5-cycle-q", "BS-E5 Q with the rate cycle"),
        ("bs-e5-cycle-rwnd", "BS-E5 rwnd with the rate cycle"),
    ] {
        let _ = writeln!(md, "![{t}]({fname}.svg)\n");
    }
    md
}

/// The report's tables of Figs 5-7, Fig 8 and BS-E5.
pub(super) fn tables(d: &AllData) -> String {
    let (g, f) = (&d.g, &d.figs);
    let mut md = String::new();
    let _ = writeln!(md, "## Figures 5-7 (mean over runs)\n\n| W (Mb/s) | window | occupancy (KB) | throughput (kb/s) | fraction of W | delay (ms) | p95 delay (ms) | timeouts |\n|---|---|---|---|---|---|---|---|");
    for &r in &g.rates {
        for w in WINDOWS {
            let e = |m: &str| f.est(&at_rw(r, w), m).mean;
            let _ = writeln!(
                md,
                "| {:.1} | {} | {:.2} | {:.0} | {:.3} | {:.0} | {:.0} | {:.1} |",
                r as f64 / 1000.0,
                window_label(w),
                e("occ_kb"),
                e("thr_kbps"),
                e("frac"),
                e("delay_ms"),
                e("delay_p95_ms"),
                e("timeouts")
            );
        }
    }
    let _ = writeln!(md, "\n## Figure 8 (per outage; mean over runs)\n\n| D (s) | policy | fixed 16 KB lost / dup / sum | proposal lost / dup / sum | ratio |\n|---|---|---|---|---|");
    for policy in ["blind", "hold"] {
        for &o in &g.outages {
            let e = |w: &str, m: &str| d.fig8.est(&at_fig8(o, w, policy), m).mean;
            let ratio = e("p16", "waste") / e("16", "waste");
            let ratio = if ratio.is_finite() {
                format!("{ratio:.2}")
            } else {
                "n/a".into()
            };
            let _ = writeln!(
                md,
                "| {o} | {policy} | {:.1} / {:.1} / {:.1} | {:.1} / {:.1} / {:.1} | {ratio} |",
                e("16", "lost"),
                e("16", "dup"),
                e("16", "waste"),
                e("p16", "lost"),
                e("p16", "dup"),
                e("p16", "waste"),
            );
        }
    }
    let _ = writeln!(md, "\n## BS-E5 (proposal, W_max 16 KB; mean over runs)\n\n| schedule | a | std dev of Q (KB) | std dev of rwnd (KB) | mean rwnd (KB) | occupancy (KB) | throughput (kb/s) |\n|---|---|---|---|---|---|---|");
    for s in ["fixed", "cycle"] {
        for a in ["1", "0.5", "0.25"] {
            let e = |m: &str| {
                d.bse5
                    .est(&[("alpha", a.to_string()), ("sched", s.to_string())], m)
                    .mean
            };
            let _ = writeln!(
                md,
                "| {s} | {a} | {:.2} | {:.2} | {:.2} | {:.2} | {:.0} |",
                e("q_std_kb"),
                e("rwnd_std_kb"),
                e("rwnd_mean_kb"),
                e("occ_kb"),
                e("thr_kbps")
            );
        }
    }
    md
}
