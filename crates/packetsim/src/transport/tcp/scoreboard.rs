//! The SACK sender's scoreboard (RFC 6675 §3-§4): which bytes above snd_una the receiver has
//! SACKed, kept as a [`RangeSet`], plus HighRxt. From it: IsLost, pipe and NextSeg.
//!
//! IsLost(s) (RFC 6675 §4) is monotone in `s`: the SACKed bytes above `s` only decrease as `s`
//! grows. So there is one *lost boundary* `L`: every unSACKed byte below `L` is lost, none
//! above. [`Scoreboard::lost_boundary`] finds it by walking the ranges from the top and stops
//! as soon as the criterion holds, so it is O(ranges above L), not O(window).
//!
//! pipe (RFC 6675 §4 SetPipe), per byte in [snd_una, snd_max): +1 if neither SACKed nor lost,
//! +1 if retransmitted. Retransmissions go out in sequence order (NextSeg), so "retransmitted"
//! is "unSACKed and below HighRxt", and pipe = outstanding − SACKed − lost + retransmitted,
//! each term from a prefix sum over the ranges.

use super::ranges::RangeSet;
use crate::packet::Seq;

/// SACK scoreboard.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// SACKed bytes above snd_una.
    pub sacked: RangeSet,
    /// End of the highest byte retransmitted in this recovery episode (HighRxt, exclusive).
    pub high_rxt: Seq,
    /// The highest lost boundary seen in this recovery episode (see
    /// [`Scoreboard::newly_lost`]; only BBR's recovery window uses it).
    pub lost_mark: Seq,
}

impl Scoreboard {
    /// Records SACK blocks, clipped to (snd_una, snd_max]; returns bytes newly SACKed.
    pub fn update(&mut self, blocks: &[(Seq, Seq)], snd_una: Seq, snd_max: Seq) -> u32 {
        let mut n = 0;
        for &(l, r) in blocks {
            // Ignore blocks wholly outside (snd_una, snd_max) (stale); clip the rest.
            if r <= snd_una || l >= snd_max || l >= r {
                continue;
            }
            n += self.sacked.insert(l.max(snd_una), r.min(snd_max));
        }
        n
    }

    /// As [`Scoreboard::update`], and calls `f(l, r)` for each range `[l, r)` that the
    /// blocks newly SACK (a delivery-rate estimator counts bytes when they are SACKed: BBR).
    pub fn update_each(
        &mut self,
        blocks: &[(Seq, Seq)],
        snd_una: Seq,
        snd_max: Seq,
        mut f: impl FnMut(Seq, Seq),
    ) -> u32 {
        let mut n = 0;
        for &(l, r) in blocks {
            if r <= snd_una || l >= snd_max || l >= r {
                continue;
            }
            let (l, r) = (l.max(snd_una), r.min(snd_max));
            self.for_each_unsacked(l, r, &mut f);
            n += self.sacked.insert(l, r);
        }
        n
    }

    /// Calls `f(l, r)` for each maximal range of `[from, to)` not SACKed, lowest first.
    pub fn for_each_unsacked(&self, from: Seq, to: Seq, mut f: impl FnMut(Seq, Seq)) {
        let mut s = from;
        while s < to {
            if let Some((_, r)) = self.sacked.containing(s) {
                s = r;
                continue;
            }
            let e = self.sacked.next_after(s).map_or(to, |(l, _)| l.min(to));
            f(s, e);
            s = e;
        }
    }

    /// Bytes newly marked lost since the last call (or since `lost_mark` was set): the
    /// unSACKed bytes between the previous lost boundary (at least `una`) and `lost`
    /// (Linux `rs->losses`, ns-3 `TcpRateSample::m_bytesLoss`).
    pub fn newly_lost(&mut self, una: Seq, lost: Seq) -> u32 {
        let from = self.lost_mark.max(una);
        if lost <= from {
            return 0;
        }
        self.lost_mark = lost;
        let sacked = self.sacked.covered_below(lost) - self.sacked.covered_below(from);
        (lost - from) - sacked
    }

    /// The cumulative ACK advanced to `una`.
    #[inline]
    pub fn advance(&mut self, una: Seq) {
        // Inline and tested first: every ACK of new data comes here, and without SACK (or
        // outside recovery) the set is empty.
        if !self.sacked.is_empty() {
            self.sacked.remove_below(una);
        }
        self.high_rxt = self.high_rxt.max(una);
    }

    /// Forgets all SACK information (spec 3 §2.3: on timeout); HighRxt = `una`.
    pub fn clear(&mut self, una: Seq) {
        self.sacked.clear();
        self.high_rxt = una;
    }

    /// The lost boundary `L` and the SACKed bytes below it: every unSACKed byte below `L` is
    /// lost by RFC 6675 IsLost (at least `dupthresh` SACKed ranges, or more than
    /// (dupthresh − 1)·SMSS SACKed bytes, above it). `L = una` when nothing is lost.
    pub fn lost_boundary(&self, una: Seq, dupthresh: u32, mss: u32) -> (Seq, u32) {
        let byte_limit = (dupthresh.saturating_sub(1)) * mss;
        let mut above = 0u32;
        for (k, (l, r)) in self.sacked.iter().rev().enumerate() {
            above += r - l;
            if k as u32 + 1 >= dupthresh || above > byte_limit {
                return (l, self.sacked.total() - above);
            }
        }
        (una, 0)
    }

    /// RFC 6675 SetPipe, bytes, given the lost boundary.
    pub fn pipe(&self, una: Seq, snd_max: Seq, lost: (Seq, u32)) -> u32 {
        let (l_edge, sacked_below_l) = lost;
        let outstanding = snd_max - una;
        let lost_bytes = (l_edge - una) - sacked_below_l;
        let hr = self.high_rxt.max(una).min(snd_max);
        let rexmit = (hr - una) - self.sacked.covered_below(hr);
        outstanding - self.sacked.total() - lost_bytes + rexmit
    }

    /// The first unSACKed segment starting at or after HighRxt and below `limit`:
    /// `(seq, len)` with `len <= mss`, not crossing a SACKed range or `snd_max`.
    pub fn next_hole(&self, limit: Seq, snd_max: Seq, mss: u32) -> Option<(Seq, u32)> {
        let mut s = self.high_rxt;
        if let Some((_, r)) = self.sacked.containing(s) {
            s = r;
        }
        if s >= limit || s >= snd_max {
            return None;
        }
        let end = match self.sacked.next_after(s) {
            Some((l, _)) => l.min(snd_max),
            None => snd_max,
        };
        Some((s, (end - s).min(mss)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 6675 §4 IsLost and SetPipe on a window of ten 1000-byte segments starting at 1,
    // segments 2, 5 and 7 missing, the rest SACKed.
    #[test]
    fn recovery_three_holes_lost_boundary_and_pipe() {
        let una = Seq(2001);
        let max = Seq(10_001);
        let mut sb = Scoreboard {
            high_rxt: una,
            ..Default::default()
        };
        sb.update(
            &[
                (Seq(3001), Seq(5001)),
                (Seq(6001), Seq(7001)),
                (Seq(8001), Seq(10_001)),
            ],
            una,
            max,
        );
        // The hole at 7001 has 2000 bytes SACKed above it in one range: not lost (needs more
        // than 2 SMSS or 3 ranges). The holes at 2001 and 5001 have 3000+ bytes above: lost.
        let lost = sb.lost_boundary(una, 3, 1000);
        assert_eq!(lost, (Seq(6001), 2000));
        // outstanding 8000, sacked 5000, lost 2000 (2001 and 5001), rexmit 0 -> pipe 1000.
        assert_eq!(sb.pipe(una, max, lost), 1000);
        assert_eq!(sb.next_hole(lost.0, max, 1000), Some((Seq(2001), 1000)));
        sb.high_rxt = Seq(3001);
        assert_eq!(sb.pipe(una, max, lost), 2000);
        assert_eq!(sb.next_hole(lost.0, max, 1000), Some((Seq(5001), 1000)));
        sb.high_rxt = Seq(6001);
        assert_eq!(sb.next_hole(lost.0, max, 1000), None);
        assert_eq!(sb.next_hole(Seq(8001), max, 1000), Some((Seq(7001), 1000)));
    }
}
