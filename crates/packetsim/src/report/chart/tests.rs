//! The figure rules of the module doc, checked on the SVG plotters writes (the drawing
//! halves print SKIPPED and pass when no TrueType font is installed).

use super::*;
use std::collections::HashSet;

/// Whether figures can be drawn here (a font is installed); says SKIPPED when not.
fn drawn(test: &str) -> bool {
    match ensure_font() {
        Ok(()) => true,
        Err(e) => {
            eprintln!("SKIPPED the drawing half of {test}: {e}");
            false
        }
    }
}

/// Every `<text>` element: (x, y, its text).
fn texts(svg: &str) -> Vec<(f64, f64, String)> {
    svg.split("<text ")
        .skip(1)
        .map(|t| {
            // The element's own attributes only (what follows may be other elements).
            let tag = format!(" {}", t.split('>').next().unwrap_or(""));
            let attr = |name: &str| {
                tag.split(&format!(" {name}=\""))
                    .nth(1)
                    .and_then(|r| r.split('"').next())
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(f64::NAN)
            };
            let body = t.split_once('>').map_or("", |x| x.1);
            let body = body.split("</text>").next().unwrap_or("").trim();
            (attr("x"), attr("y"), body.to_string())
        })
        .collect()
}

/// The points of every `<polyline>`.
fn polylines(svg: &str) -> Vec<Vec<(f64, f64)>> {
    svg.split("<polyline ")
        .skip(1)
        .filter_map(|t| t.split(" points=\"").nth(1))
        .map(|p| {
            p.split('"')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .filter_map(|xy| xy.split_once(','))
                .map(|(x, y)| (x.parse().unwrap(), y.parse().unwrap()))
                .collect()
        })
        .collect()
}

type Points = Vec<(f64, f64, f64, f64)>;

fn line(curves: Vec<(String, Points)>, non_negative: bool) -> LineChart {
    LineChart {
        title: "t".into(),
        x_label: "x".into(),
        y_label: "y (s)".into(),
        curves: curves
            .into_iter()
            .map(|(label, points)| Curve { label, points })
            .collect(),
        non_negative,
    }
}

fn flat(xy: &[(f64, f64)]) -> Points {
    xy.iter().map(|&(x, y)| (x, y, y, y)).collect()
}

#[test]
fn every_series_differs_in_colour_dash_and_marker() {
    // Issue 37: SCTP Figs 2/3 drew 10 curves in 6 recycled colours with no dashes.
    for i in 0..10 {
        for j in i + 1..10 {
            assert_ne!(
                SeriesStyle::of(i).colour,
                SeriesStyle::of(j).colour,
                "{i} {j}"
            );
        }
    }
    let key = |s: SeriesStyle| (s.colour, s.dash, s.marker);
    for i in 0..140 {
        for j in i + 1..140 {
            assert!(
                key(SeriesStyle::of(i)) != key(SeriesStyle::of(j)),
                "{i} {j}"
            );
        }
    }
    // Neighbours differ in all three at once.
    for i in 0..139 {
        let (a, b) = (SeriesStyle::of(i), SeriesStyle::of(i + 1));
        assert!(a.colour != b.colour && a.dash != b.dash && a.marker != b.marker);
    }
    if !drawn("every_series_differs_in_colour_dash_and_marker") {
        return;
    }
    let curves = (0..10)
        .map(|i| {
            let y = i as f64;
            (
                format!("curve {i}"),
                flat(&[(0.0, y), (1.0, y + 1.0), (2.0, y + 3.0)]),
            )
        })
        .collect();
    let svg = line(curves, true).to_svg();
    let strokes: HashSet<String> = svg
        .split("stroke=\"")
        .skip(1)
        .map(|r| r[..7].to_ascii_lowercase())
        .collect();
    for c in COLOURS {
        let hex = format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2);
        assert!(strokes.contains(&hex), "{hex} not drawn");
    }
    // Every curve has its legend entry, and a marker on each of its 3 points.
    for i in 0..10 {
        assert!(texts(&svg).iter().any(|t| t.2 == format!("curve {i}")));
    }
}

#[test]
fn the_legend_is_in_its_own_column_right_of_the_plot() {
    if !drawn("the_legend_is_in_its_own_column_right_of_the_plot") {
        return;
    }
    let long = "a rather long legend entry"; // 26 characters
    let c = line(
        vec![
            ("a".into(), flat(&[(0.0, 1.0), (10.0, 5.0)])),
            (long.into(), flat(&[(0.0, 4.0), (10.0, 2.0)])),
        ],
        true,
    );
    let svg = c.to_svg();
    // The figure is the plot and a column as wide as its longest entry.
    let width = PLOT_W + 56 + CHAR_W * 26;
    assert!(
        svg.contains(&format!("width=\"{width}\"")),
        "{}",
        &svg[..200]
    );
    let t = texts(&svg);
    for label in ["a", long] {
        let (x, _, _) = t.iter().find(|t| t.2 == label).expect(label);
        assert!(*x >= PLOT_W as f64, "{label} at x = {x}");
    }
    // The data stay left of the column.
    let solid = polylines(&svg);
    let data = solid
        .iter()
        .find(|p| p.len() == 2 && p[0].0 < PLOT_W as f64);
    assert!(data.is_some_and(|p| p.iter().all(|q| q.0 < PLOT_W as f64)));
}

#[test]
fn a_dense_series_is_binned_and_decimation_keeps_each_bins_extremes() {
    // Issue 37: the wireless yo-yo figure drew 100 s of per-packet queue length as solid
    // blocks. decimate (what `packetsim plot` draws): of 100,000 samples with one spike, at
    // most MAX_POINTS kept, in x order, the spike and each bin's lowest and highest.
    let p: Vec<(f64, f64)> = (0..100_000)
        .map(|i| {
            let y = if i == 54_321 { 99.0 } else { (i % 7) as f64 };
            (i as f64 * 1e-3, y)
        })
        .collect();
    let d = decimate(&p, MAX_POINTS);
    assert!(
        d.len() <= MAX_POINTS && d.len() >= MAX_POINTS - 2,
        "{}",
        d.len()
    );
    assert!(d.contains(&p[54_321]));
    assert!(d.windows(2).all(|w| w[0].0 < w[1].0));
    let lows = d.iter().filter(|q| q.1 == 0.0).count();
    assert!(lows >= MAX_POINTS / 2 - 1, "{lows}");
    assert_eq!(decimate(&p[..10], MAX_POINTS), p[..10].to_vec());
    if !drawn("a_dense_series_is_binned_and_decimation_keeps_each_bins_extremes") {
        return;
    }
    // Drawn, a curve that long is binned: its line is BINS bin means, and the legend column
    // says so.
    let svg = line(vec![("q".into(), flat(&p))], true).to_svg();
    let curve = polylines(&svg).into_iter().max_by_key(Vec::len).unwrap();
    assert_eq!(curve.len(), BINS);
    assert!(texts(&svg)
        .iter()
        .any(|t| t.2 == "line = mean, band = min to max"));
    assert!(svg.len() < 120_000, "{} bytes", svg.len());
    // A dense curve has a marker every few points (about 12), plus the legend's.
    let dots = svg.matches("<circle").count();
    assert!((2..=14).contains(&dots), "{dots}");
    // Two dense curves would cross: each gets its own panel (captioned with its label, the
    // x label under the last one only), same axes.
    let half: Vec<(f64, f64)> = p.iter().map(|q| (q.0, q.1 / 2.0)).collect();
    let svg = line(
        vec![("q".into(), flat(&p)), ("h".into(), flat(&half))],
        true,
    )
    .to_svg();
    let t = texts(&svg);
    for label in ["q", "h"] {
        assert_eq!(
            t.iter().filter(|x| x.2 == label).count(),
            2,
            "{label}: caption and legend"
        );
    }
    assert_eq!(t.iter().filter(|x| x.2 == "x").count(), 1);
    assert_eq!(t.iter().filter(|x| x.2 == "t").count(), 1, "one title");
    // A curve of BINS points is drawn as it is; one more is binned.
    let at = |n: usize| -> Points {
        (0..n)
            .map(|i| (i as f64, (i % 5) as f64, 0.0, 0.0))
            .collect()
    };
    let svg = line(vec![("b".into(), at(BINS))], true).to_svg();
    assert!(!svg.contains("line = mean, band = min to max"));
    let svg = line(vec![("b".into(), at(BINS + 1))], true).to_svg();
    assert!(svg.contains("line = mean, band = min to max"));
    // A sparse one on every point.
    let sparse: Vec<(f64, f64)> = (0..MARKERS_UP_TO).map(|i| (i as f64, i as f64)).collect();
    let svg = line(vec![("s".into(), flat(&sparse))], true).to_svg();
    assert_eq!(svg.matches("<circle").count(), MARKERS_UP_TO + 1);
}

#[test]
fn bins_hold_their_points_mean_lowest_and_highest() {
    // x 0..=9 in 2 bins of width 4.5: [0, 4.5) and [4.5, 9].
    let p: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, (i * i) as f64)).collect();
    let b = bin(&p, 2);
    assert_eq!(b.len(), 2);
    assert_eq!(b[0], (2.25, (0 + 1 + 4 + 9 + 16) as f64 / 5.0, 0.0, 16.0));
    assert_eq!(
        b[1],
        (6.75, (25 + 36 + 49 + 64 + 81) as f64 / 5.0, 25.0, 81.0)
    );
    // An empty bin is left out; no points, no bins.
    let gap = [(0.0, 1.0), (10.0, 3.0)];
    assert_eq!(
        bin(&gap, 4),
        vec![(1.25, 1.0, 1.0, 1.0), (8.75, 3.0, 3.0, 3.0)]
    );
    assert!(bin(&[], 4).is_empty());
}

#[test]
fn the_y_axis_leaves_zero_out_only_when_that_does_not_exaggerate() {
    // Issue 37: micromobility Fig 4a's axis ran 1,750-1,920 kb/s, so a 4% drop looked steep.
    // Data spanning 8% of their level are drawn from 0.
    assert!(!zoom(1760.0, 1910.0));
    assert_eq!(
        y_range(1760.0, 1910.0, YAxis::Auto, true),
        (0.0, 1910.0 * 1.05, false)
    );
    // Data far from 0 spanning 16% of their level: zoomed with a 5% margin each side.
    let (lo, hi, off) = y_range(38.0, 45.0, YAxis::Auto, true);
    assert!(off && (lo - 37.65).abs() < 1e-9 && (hi - 45.35).abs() < 1e-9);
    // Near 0 (the lowest under a third of the highest): from 0.
    assert!(!zoom(10.0, 45.0) && zoom(15.0, 45.0));
    assert!(zoom(-45.0, -15.0) && !zoom(-45.0, 0.0));
    // Asked for: always from 0, or always the data's span.
    assert_eq!(y_range(38.0, 45.0, YAxis::FromZero, true).0, 0.0);
    let (lo, _, off) = y_range(1760.0, 1910.0, YAxis::Data, false);
    assert!(off && lo > 1700.0);
    // Bars (no zoom by default) start at 0 whatever the data.
    assert_eq!(y_range(38.0, 45.0, YAxis::Auto, false).0, 0.0);
    if !drawn("the_y_axis_leaves_zero_out_only_when_that_does_not_exaggerate") {
        return;
    }
    let far: Vec<(f64, f64)> = (0..5)
        .map(|i| (i as f64, 38.0 + 7.0 * i as f64 / 4.0))
        .collect();
    let svg = line(vec![("a".into(), flat(&far))], true).to_svg();
    assert!(texts(&svg)
        .iter()
        .any(|t| t.2 == format!("y (s){NOT_FROM_ZERO}")));
    let fig4a = [(0.5, 1910.0), (1.0, 1850.0), (2.0, 1760.0)];
    let svg = line(vec![("a".into(), flat(&fig4a))], true).to_svg();
    assert!(texts(&svg).iter().any(|t| t.2 == "y (s)"));
}

#[test]
fn bands_and_whiskers_of_non_negative_quantities_stop_at_zero() {
    if !drawn("bands_and_whiskers_of_non_negative_quantities_stop_at_zero") {
        return;
    }
    let pts = vec![(0.0, 1.0, -1.5, 2.5), (1.0, 2.0, 1.0, 3.0)];
    let negative_tick = |svg: &str| texts(svg).iter().any(|t| t.2.starts_with('-'));
    assert!(!negative_tick(
        &line(vec![("a".into(), pts.clone())], true).to_svg()
    ));
    // A signed quantity keeps its band: the axis goes below 0.
    assert!(negative_tick(
        &line(vec![("a".into(), pts)], false).to_svg()
    ));
    let bar = |non_negative| BarChart {
        title: "t".into(),
        y_label: "y".into(),
        categories: vec!["A".into()],
        series: vec![("s".into(), vec![(1.0, 3.0)])],
        reference: None,
        non_negative,
        y_axis: YAxis::Auto,
    };
    assert!(!negative_tick(&bar(true).to_svg()));
    assert!(negative_tick(&bar(false).to_svg()));
}

#[test]
fn bars_start_at_zero_and_an_axis_over_the_data_draws_points() {
    // Issue 37: DiffServ's bars started at 0 and hid differences of a few kb/s.
    let chart = |y_axis| BarChart {
        title: "t".into(),
        y_label: "goodput (kb/s)".into(),
        categories: vec!["AF1".into(), "AF2".into()],
        series: vec![
            ("no ecn".into(), vec![(652.0, 3.0), (661.0, 2.0)]),
            ("ecn".into(), vec![(664.0, 3.0), (668.0, 2.0)]),
        ],
        reference: Some((666.7, "profile share".into())),
        non_negative: true,
        y_axis,
    };
    if !drawn("bars_start_at_zero_and_an_axis_over_the_data_draws_points") {
        return;
    }
    let bars = chart(YAxis::Auto).to_svg();
    let points = chart(YAxis::Data).to_svg();
    // Each bar is a filled rectangle and its outline, each legend swatch one more: the
    // points version has none of them, and says its axis leaves 0 out.
    let rects = |s: &str| s.matches("<rect").count();
    assert_eq!(rects(&bars) - rects(&points), 4 * 2 + 2);
    assert!(texts(&points)
        .iter()
        .any(|t| t.2 == format!("goodput (kb/s){NOT_FROM_ZERO}")));
    assert!(texts(&bars).iter().any(|t| t.2 == "goodput (kb/s)"));
    // Both mark every value with its series' marker (series 0: a dot) and the legend's.
    assert_eq!(points.matches("<circle").count(), 2 + 1);
    assert_eq!(bars.matches("<circle").count(), 2 + 1);
    // The reference's label is in the legend column.
    let t = texts(&points);
    let (x, _, _) = t.iter().find(|t| t.2 == "profile share").unwrap();
    assert!(*x >= PLOT_W as f64);
}

#[test]
fn long_category_labels_are_turned() {
    if !drawn("long_category_labels_are_turned") {
        return;
    }
    let bar = |cats: Vec<&str>| BarChart {
        title: "t".into(),
        y_label: "y".into(),
        categories: cats.into_iter().map(String::from).collect(),
        series: vec![("s".into(), vec![(1.0, 0.0); 16])],
        reference: None,
        non_negative: true,
        y_axis: YAxis::Auto,
    };
    // 16 groups of 45 px: "average" (7 × 7 = 49 px) would run into its neighbours. (The y
    // label is turned too: one more.)
    let mut cats = vec!["AF1"; 15];
    cats.push("average");
    assert_eq!(bar(cats).to_svg().matches("rotate(270").count(), 16 + 1);
    assert_eq!(
        bar(vec!["AF1"; 16]).to_svg().matches("rotate(270").count(),
        1
    );
}

#[test]
fn without_a_font_a_figure_says_why() {
    let s = not_drawn("Fig 1 <a> & \"b\"", "no TrueType font found");
    assert!(s.starts_with("<svg "));
    assert!(s.ends_with("</svg>\n"));
    assert!(s.contains(">Fig 1 &lt;a&gt; &amp; &quot;b&quot;</text>"));
    assert!(s.contains("figure not drawn: no TrueType font found"));
}

#[test]
fn a_chart_by_category_gives_each_category_its_own_axis() {
    // Issue 37 item 6: DiffServ's Figs 3/8 put AF (near 680 kb/s) and BE (near 500) on one
    // axis, so the scenarios' differences of a few kb/s within each were flat.
    let chart = BarChart {
        title: "t".into(),
        y_label: "goodput (kb/s)".into(),
        categories: vec!["AF".into(), "BE".into()],
        series: vec![
            ("no ecn".into(), vec![(680.0, 1.0), (500.0, 2.0)]),
            ("ecn to AF".into(), vec![(684.0, 1.0), (503.0, 2.0)]),
            ("ecn to AF, BE".into(), vec![(679.0, 1.0), (506.0, 2.0)]),
        ],
        reference: None,
        non_negative: true,
        y_axis: YAxis::FromZero,
    };
    if !drawn("a_chart_by_category_gives_each_category_its_own_axis") {
        return;
    }
    let svg = chart.to_svg_by_category();
    let t = texts(&svg);
    // Two panels, each captioned with its category and saying its axis leaves 0 out.
    let label = format!("goodput (kb/s){NOT_FROM_ZERO}");
    assert_eq!(t.iter().filter(|x| x.2 == label).count(), 2);
    for cat in ["AF", "BE"] {
        assert!(t.iter().any(|x| x.2 == cat), "{cat}");
    }
    // The AF panel's ticks lie around 680, the BE panel's around 500: no tick of one range
    // in the other panel, and none near 0.
    let ticks: Vec<f64> = t.iter().filter_map(|x| x.2.parse::<f64>().ok()).collect();
    assert!(ticks.iter().any(|&v| (670.0..=690.0).contains(&v)));
    assert!(ticks.iter().any(|&v| (495.0..=512.0).contains(&v)));
    assert!(ticks.iter().all(|&v| v > 400.0), "{ticks:?}");
    // Every value has its series' marker (dot, square, triangle) in both panels, one legend.
    assert_eq!(svg.matches("<circle").count(), 2 + 1);
    let legend: Vec<_> = t.iter().filter(|x| x.0 >= PLOT_W as f64).collect();
    assert_eq!(legend.len(), 3, "{legend:?}");
}

#[test]
fn panels_give_curves_far_above_the_rest_their_own_axis() {
    // Issue 37: in SCTP Fig 3 two curves near 600 s set the y scale and the other eight
    // bunched near the bottom. In panels, each panel's y axis spans its own curves; a curve
    // may be in several panels (same style), the legend lists each curve once.
    let xs = [0.0, 4.0, 8.0, 12.0, 16.0];
    let low = |k: f64| -> Points { flat(&xs.map(|x| (x, 17.0 + k * x))) };
    let chart = line(
        vec![
            ("a".into(), low(8.0)),
            ("b".into(), low(10.0)),
            ("far".into(), flat(&xs.map(|x| (x, 17.0 + 36.0 * x)))),
        ],
        true,
    );
    let panels = [
        Panel {
            caption: "near".into(),
            curves: vec![0, 1],
        },
        Panel {
            caption: "far apart".into(),
            curves: vec![0, 2],
        },
    ];
    // A panel naming a curve the chart does not have: a note, not a panic.
    let bad = [Panel {
        caption: "x".into(),
        curves: vec![3],
    }];
    assert!(chart
        .to_svg_in_panels(&bad)
        .contains("figure not drawn: panel curve 3 of a chart with 3 curves"));
    if !drawn("panels_give_curves_far_above_the_rest_their_own_axis") {
        return;
    }
    let svg = chart.to_svg_in_panels(&panels);
    let t = texts(&svg);
    for caption in ["near", "far apart"] {
        assert_eq!(t.iter().filter(|x| x.2 == caption).count(), 1, "{caption}");
    }
    assert_eq!(t.iter().filter(|x| x.2 == "t").count(), 1, "one title");
    assert_eq!(
        t.iter().filter(|x| x.2 == "y (s)").count(),
        2,
        "a y label per panel"
    );
    assert_eq!(
        t.iter().filter(|x| x.2 == "x").count(),
        1,
        "x label under the last"
    );
    // The upper panel's ticks stop near its curves' top (177 s), the lower one's reach 593 s.
    let caption_y = |c: &str| t.iter().find(|x| x.2 == c).unwrap().1;
    let split = caption_y("far apart");
    let ticks = |upper: bool| -> Vec<f64> {
        t.iter()
            .filter(|x| x.0 < PLOT_W as f64 && (x.1 < split) == upper)
            .filter_map(|x| x.2.parse::<f64>().ok())
            .collect()
    };
    let (up, down) = (ticks(true), ticks(false));
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert!((150.0..=200.0).contains(&max(&up)), "{up:?}");
    assert!(max(&down) >= 500.0, "{down:?}");
    // Curve a (dots) in both panels, every point, and once in the legend.
    assert_eq!(svg.matches("<circle").count(), 2 * xs.len() + 1);
    let legend: Vec<_> = t.iter().filter(|x| x.0 >= PLOT_W as f64).collect();
    assert_eq!(legend.len(), 3, "{legend:?}");
}
