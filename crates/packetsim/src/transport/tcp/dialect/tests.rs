//! Each dialect file's constant is what its keys resolve to: the profile rows (or, for
//! ns-3.37, the rows `bench/validate/ns3` writes) through `TcpConfig` and [`Dialect::of`].
//! A row added to a profile without the dialect's rule, or the reverse, fails here.

use super::{linux, ns2, ns3, standard, Dialect, ProfileOption, Table};
use crate::scenario::{Profile, TcpProfile};
use crate::transport::tcp::{TcpConfig, Variant};

/// A `[tcp]` table of `variant` with `rows` (a later row replaces an earlier one).
fn config(variant: Variant, rows: impl IntoIterator<Item = &'static ProfileOption>) -> TcpConfig {
    let mut t =
        crate::scenario::profile_rows_table(rows.into_iter().filter(|o| o.table == Table::Tcp));
    t.insert("variant".into(), toml::Value::try_from(variant).unwrap());
    let c: TcpConfig = toml::Value::Table(t).try_into().unwrap();
    assert_eq!(c.validate(), Ok(()), "{variant}");
    c
}

const CLASSIC: [Variant; 4] = [
    Variant::Reno,
    Variant::NewReno,
    Variant::Sack,
    Variant::Tahoe,
];

#[test]
fn standard_is_the_default_configuration() {
    assert_eq!(Dialect::of(&TcpConfig::default()), standard::STANDARD);
    for v in CLASSIC {
        assert_eq!(Dialect::of(&config(v, [])), standard::STANDARD, "{v}");
    }
}

// `profile = "ns2"`: ns2::OPTIONS's [tcp] rows give ns2::NS2 whatever the variant.
#[test]
fn ns2_profile_resolves_to_the_ns2_dialect() {
    for v in CLASSIC {
        let p = TcpProfile {
            profile: Profile::Ns2,
            variant: v,
            implied: false,
        };
        assert_eq!(Dialect::of(&config(v, p.options())), ns2::NS2, "{v}");
    }
    assert_eq!(Dialect::of(&config(Variant::Sack, ns2::OPTIONS)), ns2::NS2);
}

// `profile = "linux"` (and a modern variant alone): LINUX for the classic variants, and
// what Linux ties to CUBIC, DCTCP and BBR.
#[test]
fn linux_profile_resolves_to_the_linux_dialect_of_each_variant() {
    for v in [
        Variant::Cubic,
        Variant::Dctcp,
        Variant::Bbr,
        Variant::NewReno,
        Variant::Reno,
        Variant::Sack,
    ] {
        let p = TcpProfile {
            profile: Profile::Linux,
            variant: v,
            implied: false,
        };
        assert_eq!(
            Dialect::of(&config(v, p.options())),
            linux::for_variant(v),
            "{v}"
        );
    }
    assert_eq!(linux::for_variant(Variant::NewReno), linux::LINUX);
    assert_ne!(linux::for_variant(Variant::Cubic), linux::LINUX);
}

#[test]
fn ns3_keys_resolve_to_the_ns3_dialect() {
    assert_eq!(Dialect::of(&config(Variant::Sack, ns3::OPTIONS)), ns3::NS3);
}

// The standard dialect takes the sender's default ACK path (no per-ACK rule to test); each
// of the others has a rule with per-ACK work: ns-2's Sack1 scoreboard, ns-3's RTT history
// and pipe, Linux's RACK.
#[test]
fn only_the_standard_dialect_has_no_per_ack_rules() {
    assert!(!standard::STANDARD.has_per_ack_rules());
    for d in [
        ns2::NS2,
        ns3::NS3,
        linux::LINUX,
        linux::for_variant(Variant::Bbr),
    ] {
        assert!(d.has_per_ack_rules(), "{d:?}");
    }
}
