//! Radio propagation: who hears whom, from positions.
//!
//! ns-2's two models (`mobile/propagation.cc`, `tworayground.cc`), with ns-2's default
//! parameters (`tcl/lib/ns-default.tcl`: `Phy/WirelessPhy` Pt_ 0.28183815 W, RXThresh_
//! 3.652e-10 W, freq_ 914 MHz, L_ 1; `Antenna/OmniAntenna` Gt_ = Gr_ = 1, Z_ 1.5 m):
//!
//! - Free space (Friis): Pr = Pt Gt Gr lambda^2 / ((4 pi d)^2 L).
//! - Two-ray ground: Pr = Pt Gt Gr ht^2 hr^2 / (d^4 L) beyond the crossover distance
//!   dc = 4 pi ht hr / lambda (86.14 m at the defaults), free space nearer (ns-2.35
//!   `TwoRayGround::Pr` switches at the crossover).
//!
//! A frame is received when Pr >= `rx_threshold`; with the defaults that is 250 m (two-ray).

/// The speed of light in m/s as ns-2 rounds it (its `SPEED_OF_LIGHT`, 300000000).
const SPEED_OF_LIGHT: f64 = 3e8;

/// A point in the plane, metres.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Pos {
    /// x, metres.
    pub x: f64,
    /// y, metres.
    pub y: f64,
}

impl Pos {
    /// The distance to `o` in metres.
    pub fn dist(self, o: Pos) -> f64 {
        (self.x - o.x).hypot(self.y - o.y)
    }
}

/// Which propagation model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Model {
    /// Friis free space at every distance.
    FreeSpace,
    /// Free space to the crossover distance, two-ray ground beyond (ns-2's default choice
    /// for its wireless examples).
    #[default]
    TwoRayGround,
}

/// A propagation model's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Propagation {
    /// The model.
    pub model: Model,
    /// Transmit power, watts.
    pub pt: f64,
    /// Carrier frequency, hertz.
    pub freq: f64,
    /// Antenna height of both ends, metres.
    pub height: f64,
    /// Antenna gains (transmit and receive), linear.
    pub gain: f64,
    /// System loss, linear (1: none).
    pub loss: f64,
    /// Receive threshold, watts.
    pub rx_threshold: f64,
}

impl Default for Propagation {
    fn default() -> Self {
        Propagation {
            model: Model::TwoRayGround,
            pt: 0.281_838_15,
            freq: 914e6,
            height: 1.5,
            gain: 1.0,
            loss: 1.0,
            rx_threshold: 3.652e-10,
        }
    }
}

impl Propagation {
    /// Wavelength, metres.
    pub fn lambda(&self) -> f64 {
        SPEED_OF_LIGHT / self.freq
    }

    /// The two-ray crossover distance, metres.
    pub fn crossover(&self) -> f64 {
        4.0 * std::f64::consts::PI * self.height * self.height / self.lambda()
    }

    /// Received power at distance `d` metres, watts.
    pub fn received_power(&self, d: f64) -> f64 {
        let d = d.max(1e-3);
        let friis = || {
            let l = self.lambda();
            let m = 4.0 * std::f64::consts::PI * d;
            self.pt * self.gain * self.gain * l * l / (m * m * self.loss)
        };
        match self.model {
            Model::FreeSpace => friis(),
            Model::TwoRayGround if d < self.crossover() => friis(),
            Model::TwoRayGround => {
                let h2 = self.height * self.height;
                self.pt * self.gain * self.gain * h2 * h2 / (d * d * d * d * self.loss)
            }
        }
    }

    /// Whether a frame sent from `a` is received at `b`.
    pub fn hears(&self, a: Pos, b: Pos) -> bool {
        self.received_power(a.dist(b)) >= self.rx_threshold
    }

    /// The range, metres: the largest distance at which frames are received (bisection on
    /// the monotone received power).
    pub fn range(&self) -> f64 {
        let (mut lo, mut hi) = (0.0f64, 1e7f64);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if self.received_power(mid) >= self.rx_threshold {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ns-2's defaults give a 250 m range with TwoRayGround (ns-2 manual §16.3, "the
    // default RXThresh_ ... 250 m"); the crossover is 4 pi ht hr / lambda = 86.14 m.
    #[test]
    fn ns2_defaults_two_ray_range_is_250_m() {
        let p = Propagation::default();
        assert!((p.crossover() - 86.14).abs() < 0.01, "{}", p.crossover());
        assert!((p.range() - 250.0).abs() < 0.05, "{}", p.range());
        let o = Pos::default();
        assert!(p.hears(o, Pos { x: 249.9, y: 0.0 }));
        assert!(p.hears(o, Pos { x: 150.0, y: 200.0 })); // 250.0 m: at the edge, still in
        assert!(!p.hears(o, Pos { x: 250.1, y: 0.0 }));
        // Both formulas agree at the crossover (continuity of ns-2's switch).
        let dc = p.crossover();
        let h2 = p.height * p.height;
        let two_ray = p.pt * h2 * h2 / dc.powi(4);
        assert!((p.received_power(dc) / two_ray - 1.0).abs() < 1e-3);
    }

    // Friis alone reaches farther than two-ray beyond the crossover (d^-2 against d^-4).
    #[test]
    fn free_space_range_exceeds_two_ray() {
        let p = Propagation {
            model: Model::FreeSpace,
            ..Propagation::default()
        };
        let r = p.range();
        // Pr = Pt lambda^2 / (4 pi d)^2 = RXThresh at d = lambda/(4 pi) sqrt(Pt / RXThresh).
        let want = p.lambda() / (4.0 * std::f64::consts::PI) * (p.pt / p.rx_threshold).sqrt();
        assert!((r - want).abs() / want < 1e-6);
        assert!(r > 250.0);
    }
}
