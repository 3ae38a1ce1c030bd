//! End-to-end properties of an SCTP association through the multihomed test harness
//! (`testkit.rs`): issue 3, "for any seed and loss rates up to 20% on either path, every byte
//! of every stream is delivered exactly once and in order per stream".
//!
//! The client is end A (addresses `addr_a(0..2)`, primary destination `addr_b(0)`), the server
//! end B. Path 0 is the primary path, path 1 the alternate; both have the given loss in both
//! directions, so DATA, SACKs, heartbeats and the handshake are all lost at that rate.
//!
//! Needs `SctpEndpoint` (association.rs); enabled by `mod proptests;` in `mod.rs`.

use super::testkit::{addr_a, addr_b, secs, Harness, PathSpec, A, B};
use super::{Delivery, SctpConfig, SctpEndpoint};
use crate::transport::tcp::AppData;
use packetsim_kernel::{Dur, Rate, Rng};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// Checks that `ds` delivers `bytes` user bytes, each TSN once, and every stream's SSNs in
/// order 0, 1, 2, .. (ordered delivery, RFC 4960 §6.5).
fn assert_exactly_once_in_order(ds: &[Delivery], bytes: u64) -> Result<(), TestCaseError> {
    let total: u64 = ds.iter().map(|d| d.len as u64).sum();
    prop_assert_eq!(total, bytes, "bytes delivered");
    let tsns: BTreeSet<u32> = ds.iter().map(|d| d.tsn.0).collect();
    prop_assert_eq!(tsns.len(), ds.len(), "a TSN delivered twice");
    let mut next: BTreeMap<u16, u16> = BTreeMap::new();
    for d in ds {
        let n = next.entry(d.stream).or_insert(0);
        prop_assert_eq!(d.ssn, *n, "stream {} out of order", d.stream);
        *n = n.wrapping_add(1);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    // Issue 3 (properties), RFC 4960 §6.2-§6.5: reliable, ordered-per-stream delivery under
    // random loss on either or both paths, with either retransmission policy.
    #[test]
    fn any_seed_and_loss_every_byte_delivered_once_in_order(
        seed in any::<u64>(),
        loss0 in 0.0f64..0.2,
        loss1 in 0.0f64..0.2,
        streams in 1u16..4,
        same_policy in any::<bool>(),
        size in 1u64..200_000,
    ) {
        let cfg = SctpConfig {
            streams,
            rtx_policy: if same_policy {
                super::RtxPolicy::Same
            } else {
                super::RtxPolicy::Alternate
            },
            ..SctpConfig::default()
        };
        let paths = vec![
            PathSpec::new(Dur::from_millis(35), Rate::mbps(10)).with_loss(loss0, loss0),
            PathSpec::new(Dur::from_millis(35), Rate::mbps(10)).with_loss(loss1, loss1),
        ];
        let client = SctpEndpoint::client(
            &cfg,
            vec![addr_a(0), addr_a(1)],
            vec![addr_b(0), addr_b(1)],
            0,
            AppData::Bytes(size),
            Rng::for_component(seed, "client"),
        );
        let server = SctpEndpoint::server(
            &cfg,
            vec![addr_b(0), addr_b(1)],
            Rng::for_component(seed, "server"),
        );
        let mut h = Harness::new(client, server, paths, seed);
        h.record = false;
        h.with_a(|c, now, out| c.open(now, out));
        h.run_until(secs(20_000), |h| h.delivered[B] >= size);
        prop_assert_eq!(h.delivered[B], size, "bytes delivered to the server's application");
        prop_assert_eq!(h.delivered[A], 0);
        assert_exactly_once_in_order(h.b.deliveries(), size)?;
        // Let the last SACKs settle: nothing more may be delivered.
        h.run_until(h.now + Dur::from_secs(120), |_| false);
        prop_assert_eq!(h.delivered[B], size, "late duplicate delivery");
        assert_exactly_once_in_order(h.b.deliveries(), size)?;
    }
}
