//! Where new data and retransmissions go (spec 3 §2.5 "Retransmission-destination policy",
//! RFC 2960 §6.4 and §6.4.1).
//!
//! - New data goes to the primary while it is active; otherwise to the first active
//!   destination after it in the peer's address list (failover, RFC 2960 §6.4.1); with no
//!   active destination at all, to the primary.
//! - `Alternate`: every retransmission goes to an active destination other than the one the
//!   chunk was last sent to (the next one in list order), or back to the same one when no
//!   other is active.
//! - `Same`: to the destination the chunk was last sent to unless it is inactive, then as
//!   `Alternate`.
//! - `AlternateTimeoutsOnly`: fast retransmissions as `Same`, timeout retransmissions as
//!   `Alternate`.

use super::path::Path;
use super::RtxPolicy;

/// What caused a retransmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtxCause {
    /// Fast retransmit (RFC 2960 §7.2.4).
    Fast,
    /// T3-rtx expiry (RFC 2960 §6.3.3).
    Timeout,
}

/// Destination index for new data.
pub fn data_dest(paths: &[Path], primary: usize) -> usize {
    if paths[primary].active {
        return primary;
    }
    next_active(paths, primary).unwrap_or(primary)
}

/// The first active destination after `from` in list order, other than `from`.
fn next_active(paths: &[Path], from: usize) -> Option<usize> {
    let n = paths.len();
    (1..n).map(|k| (from + k) % n).find(|&j| paths[j].active)
}

/// Destination index for retransmitting a chunk last sent to `last`.
pub fn rtx_dest(policy: RtxPolicy, cause: RtxCause, paths: &[Path], last: usize) -> usize {
    let alternate = || next_active(paths, last).unwrap_or(last);
    let same = || {
        if paths[last].active {
            last
        } else {
            alternate()
        }
    };
    match (policy, cause) {
        (RtxPolicy::Alternate, _) | (RtxPolicy::AlternateTimeoutsOnly, RtxCause::Timeout) => {
            alternate()
        }
        (RtxPolicy::Same, _) | (RtxPolicy::AlternateTimeoutsOnly, RtxCause::Fast) => same(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Addr;
    use crate::transport::sctp::SctpConfig;
    use packetsim_kernel::Time;

    fn paths(n: u32) -> Vec<Path> {
        (0..n)
            .map(|i| {
                Path::new(
                    &SctpConfig::default(),
                    Addr(10 + i),
                    Addr(i),
                    65_536,
                    Time::ZERO,
                )
            })
            .collect()
    }

    // Spec 3 §2.5: RTX_TO_ALT alternates path0 -> path1 -> path0; RTX_SAME stays unless the
    // destination is inactive; the timeouts-only variant splits by cause.
    #[test]
    fn policies_pick_destinations_as_specified() {
        let mut ps = paths(2);
        use RtxCause::*;
        assert_eq!(rtx_dest(RtxPolicy::Alternate, Fast, &ps, 0), 1);
        assert_eq!(rtx_dest(RtxPolicy::Alternate, Timeout, &ps, 1), 0);
        assert_eq!(rtx_dest(RtxPolicy::Same, Timeout, &ps, 0), 0);
        assert_eq!(rtx_dest(RtxPolicy::AlternateTimeoutsOnly, Fast, &ps, 0), 0);
        assert_eq!(
            rtx_dest(RtxPolicy::AlternateTimeoutsOnly, Timeout, &ps, 0),
            1
        );
        ps[0].active = false;
        assert_eq!(rtx_dest(RtxPolicy::Same, Fast, &ps, 0), 1);
        assert_eq!(data_dest(&ps, 0), 1, "failover to the active alternate");
        ps[1].active = false;
        assert_eq!(rtx_dest(RtxPolicy::Alternate, Fast, &ps, 1), 1);
        assert_eq!(data_dest(&ps, 0), 0);
        // Single-homed: everything stays on the one destination.
        let one = paths(1);
        assert_eq!(rtx_dest(RtxPolicy::Alternate, Fast, &one, 0), 0);
    }
}
