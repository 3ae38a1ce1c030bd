//! The study's grid: the sweep values and every point of every figure, extension,
//! sensitivity and Q2 comparison.

use super::*;

pub(super) const E: [f64; 4] = [0.0, 0.01, 0.05, 0.1];
pub(super) const HS: [u32; 5] = [2, 4, 7, 10, 18];
pub(super) const NS: [u32; 5] = [1, 2, 6, 11, 16];

/// The sweep values, full or reduced.
pub(super) struct Axes {
    pub(super) e: Vec<f64>,
    pub(super) h: Vec<u32>,
    pub(super) n: Vec<u32>,
    pub(super) ext: bool,
}

impl Axes {
    pub(super) fn new(quick: bool) -> Axes {
        if quick {
            Axes {
                e: vec![0.0, 0.1],
                h: vec![2, 7],
                n: vec![1, 6],
                ext: false,
            }
        } else {
            Axes {
                e: E.to_vec(),
                h: HS.to_vec(),
                n: NS.to_vec(),
                ext: true,
            }
        }
    }

    /// Every point of every figure (duplicates removed, order kept).
    pub(super) fn points(&self) -> Vec<Point> {
        let mut out: Vec<Point> = Vec::new();
        let mut add = |p: Point| {
            if !out.contains(&p) {
                out.push(p);
            }
        };
        self.figure_points(&mut add);
        if self.ext {
            self.sensitivity_points(&mut add);
            self.extension_points(&mut add);
        }
        // Spec 5 Q2's simplification as a labelled comparison: every figure point again on
        // point-to-point radios with scheduled handoffs.
        let figure_point = |p: &Point| {
            (p.protocol == CIP || p.protocol == HAW)
                && Point {
                    e: 0.0,
                    h: 3,
                    n: 1,
                    ..p.clone()
                } == Point::base(p.protocol, p.variant)
                && ((p.h == 3 && p.n == 1) || p.e == 0.0)
        };
        let q2: Vec<Point> = out
            .iter()
            .filter(|p| figure_point(p))
            .map(|p| Point {
                q2: true,
                ..p.clone()
            })
            .collect();
        for q in q2 {
            if !out.contains(&q) {
                out.push(q);
            }
        }
        out
    }

    /// The points of Figs 3-6, both protocols, every variant.
    fn figure_points(&self, add: &mut impl FnMut(Point)) {
        for proto in [CIP, HAW] {
            for v in Variant::ALL {
                for &e in &self.e {
                    add(Point {
                        e,
                        ..Point::base(proto, v)
                    });
                }
                for &h in &self.h {
                    add(Point {
                        h,
                        ..Point::base(proto, v)
                    });
                }
                for h in [2, 7] {
                    for &n in &self.n {
                        add(Point {
                            h,
                            n,
                            ..Point::base(proto, v)
                        });
                    }
                }
            }
        }
    }

    /// The sensitivities spec 5 lists (NewReno and SACK): a 50 ms layer-2 gap and Q9's TCP
    /// over the H axis, downlink-only radio loss over the e axis, e = 0.01 for Figs 4-6 (Q8),
    /// and the cell layout on S5's points.
    fn sensitivity_points(&self, add: &mut impl FnMut(Point)) {
        for v in [Variant::NewReno, Variant::Sack] {
            for proto in [CIP, HAW] {
                for &h in &self.h {
                    for p in [
                        Point {
                            h,
                            gap_ms: 50,
                            ..Point::base(proto, v)
                        },
                        Point {
                            h,
                            q9: true,
                            ..Point::base(proto, v)
                        },
                        Point {
                            h,
                            e: 0.01,
                            ..Point::base(proto, v)
                        },
                    ] {
                        add(p);
                    }
                }
                // The cell layout (issue 34): cells that touch (500 m apart at 250 m
                // range), and beacons every second, on S5's points.
                for h in [4, 7] {
                    for (spacing_m, beacon_ms) in [(500, BEACON_MS), (SPACING_M, 1000), (500, 1000)]
                    {
                        add(Point {
                            h,
                            spacing_m,
                            beacon_ms,
                            ..Point::base(proto, v)
                        });
                    }
                }
                for &e in self.e.iter().filter(|&&e| e > 0.0) {
                    add(Point {
                        e,
                        down_only: true,
                        ..Point::base(proto, v)
                    });
                }
                for h in [2, 7] {
                    for &n in &self.n {
                        add(Point {
                            h,
                            n,
                            e: 0.01,
                            ..Point::base(proto, v)
                        });
                    }
                }
            }
        }
    }

    /// The extensions MM-X1..X6 (NewReno and SACK).
    fn extension_points(&self, add: &mut impl FnMut(Point)) {
        for v in [Variant::NewReno, Variant::Sack] {
            for proto in [CIP, HAW] {
                for h in [3, 10] {
                    for size in [500, 1000, 1500] {
                        add(Point {
                            h,
                            size,
                            ..Point::base(proto, v)
                        });
                    }
                    add(Point {
                        h,
                        departure: Departure::Blind,
                        ..Point::base(proto, v)
                    });
                }
                for d_ms in [2, 10, 50, 100, 200, 400] {
                    add(Point {
                        d_ms,
                        ..Point::base(proto, v)
                    });
                }
                for h in [2, 7] {
                    for n in [2, 6] {
                        add(Point {
                            h,
                            n,
                            spread: true,
                            ..Point::base(proto, v)
                        });
                    }
                }
            }
            for proto in [
                Protocol::Cip(CipHandoff::Hard),
                Protocol::Hawaii(HawaiiScheme::Unf),
            ] {
                for h in [3, 10] {
                    add(Point {
                        h,
                        ..Point::base(proto, v)
                    });
                }
            }
            for h in [3, 10] {
                // MM-X3: semisoft with the spec's other delay-device option.
                add(Point {
                    h,
                    delay_device: false,
                    ..Point::base(CIP, v)
                });
                // MM-X3 on the radio: the spec's ideal device at the new base station
                // instead of the Cellular IP papers' fixed delay at the crossover.
                add(Point {
                    h,
                    ideal_device: true,
                    ..Point::base(CIP, v)
                });
                // MM-X6: Mobile IP (every base station a foreign agent) with the home
                // agent at GW, and all three with a home node 50 ms beyond GW.
                add(Point {
                    h,
                    ..Point::base(Protocol::MobileIp, v)
                });
                for proto in [CIP, HAW, Protocol::MobileIp] {
                    add(Point {
                        h,
                        ha_ms: Some(50),
                        ..Point::base(proto, v)
                    });
                }
            }
        }
    }
}
