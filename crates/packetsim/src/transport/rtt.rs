//! Round-trip-time smoothing shared by TCP and SCTP: RFC 6298 §2.2-2.3 and RFC 4960 §6.3.1
//! C2-C3 give the same rules (alpha = 1/8, beta = 1/4). What each protocol builds on it (the
//! granularity term, clamping, backoff, which packets give samples) stays with the protocol.

use packetsim_kernel::Dur;

/// SRTT and RTTVAR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RttSmoother {
    srtt: Dur,
    rttvar: Dur,
    has_sample: bool,
}

impl RttSmoother {
    /// Takes a measurement `r`: the first sets SRTT = R and RTTVAR = R/2; later ones set
    /// RTTVAR = 3/4·RTTVAR + 1/4·|SRTT − R| and then SRTT = 7/8·SRTT + 1/8·R.
    pub fn sample(&mut self, r: Dur) {
        if !self.has_sample {
            self.srtt = r;
            self.rttvar = Dur(r.0 / 2);
            self.has_sample = true;
        } else {
            let diff = if self.srtt >= r {
                self.srtt - r
            } else {
                r - self.srtt
            };
            self.rttvar = Dur((3 * self.rttvar.0 + diff.0) / 4);
            self.srtt = Dur((7 * self.srtt.0 + r.0) / 8);
        }
    }

    /// SRTT, once a sample was taken.
    pub fn srtt(&self) -> Option<Dur> {
        self.has_sample.then_some(self.srtt)
    }

    /// SRTT + max(`g`, 4·RTTVAR), unclamped (RFC 6298 §2.3; RFC 4960 has `g` = 0).
    pub fn rto(&self, g: Dur) -> Dur {
        self.srtt + g.max(self.rttvar * 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sample_then_smoothing() {
        let mut s = RttSmoother::default();
        assert_eq!(s.srtt(), None);
        s.sample(Dur::from_millis(100));
        assert_eq!(s.srtt(), Some(Dur::from_millis(100)));
        assert_eq!(s.rto(Dur::ZERO), Dur::from_millis(300), "100 + 4 * 50");
        s.sample(Dur::from_millis(180));
        // RTTVAR = 3/4 * 50 + 1/4 * 80 = 57.5; SRTT = 7/8 * 100 + 1/8 * 180 = 110.
        assert_eq!(s.srtt(), Some(Dur::from_millis(110)));
        assert_eq!(s.rto(Dur::ZERO), Dur::from_millis(340));
        assert_eq!(
            s.rto(Dur::from_secs(1)),
            Dur::from_millis(1110),
            "G dominates"
        );
    }
}
