//! The registry of mobility protocols (`mobility_protocols!`): every row reads back from its
//! name, and each row's answers to the elements' questions are the ones its specification
//! gives (the scripted handoff tests in `tests.rs`, `tests_paging.rs` and `tests_tcp.rs` run
//! what each row does with its messages).

use super::*;
use packetsim_kernel::Dur;

/// Every protocol the registry lists is found again by its `protocol` value, names and
/// labels are distinct, and a name no row has is refused.
#[test]
fn every_registry_row_reads_back_from_its_name() {
    assert_eq!(Protocol::ALL.len(), Protocol::NAMES.len());
    for (i, &p) in Protocol::ALL.iter().enumerate() {
        assert_eq!(p.name(), Protocol::NAMES[i]);
        assert_eq!(Protocol::from_name(p.name()), Some(p), "{}", p.name());
        for &q in &Protocol::ALL[..i] {
            assert_ne!(p.name(), q.name());
            assert_ne!(p.label(), q.label());
        }
    }
    // The scenario values and the study's labels as they were before the registry (the
    // scenario's `protocol` key and its "expected one of" list read this order).
    assert_eq!(
        Protocol::NAMES,
        [
            "cip_semisoft",
            "cip_hard",
            "hawaii_msf",
            "hawaii_unf",
            "mobile_ip"
        ]
    );
    let labels: Vec<&str> = Protocol::ALL.iter().map(|p| p.label()).collect();
    assert_eq!(
        labels,
        [
            "CIP semisoft",
            "CIP hard",
            "HAWAII MSF",
            "HAWAII UNF",
            "Mobile IP"
        ]
    );
    assert_eq!(
        Protocol::from_name("cip_semisoft"),
        Some(Protocol::Cip(CipHandoff::Semisoft))
    );
    assert_eq!(Protocol::from_name("mobile_ip"), Some(Protocol::MobileIp));
    assert_eq!(Protocol::from_name("cellular"), None);
    assert_eq!(Protocol::from_name("CIP semisoft"), None);
}

/// Each row's control family and the names of its message kinds in reports (the signalling
/// load's columns): one family per protocol, and a kind of another family is "other".
#[test]
fn every_row_names_its_own_message_kinds() {
    let cip = Protocol::Cip(CipHandoff::Hard);
    let hawaii = Protocol::Hawaii(HawaiiScheme::Unf);
    assert_eq!(cip.family(), FAMILY_CIP);
    assert_eq!(Protocol::Cip(CipHandoff::Semisoft).family(), FAMILY_CIP);
    assert_eq!(hawaii.family(), FAMILY_HAWAII);
    assert_eq!(Protocol::MobileIp.family(), FAMILY_MIP);
    let names = [
        (FAMILY_CIP, kind::ROUTE_UPDATE, "route_update"),
        (FAMILY_CIP, kind::SEMISOFT, "semisoft"),
        (FAMILY_CIP, kind::PAGING_UPDATE, "paging_update"),
        (FAMILY_CIP, kind::REFRESH, "other"),
        (FAMILY_HAWAII, kind::REGISTER, "register"),
        (FAMILY_HAWAII, kind::PATH_SETUP, "path_setup"),
        (FAMILY_HAWAII, kind::PATH_SETUP_UNF, "path_setup_unf"),
        (FAMILY_HAWAII, kind::REFRESH, "refresh"),
        (FAMILY_MIP, kind::REG_REQUEST, "reg_request"),
        (FAMILY_MIP, kind::REG_REPLY, "reg_reply"),
        (FAMILY_MIP, 3, "other"),
        (FAMILY_AIR, AIR_MAC_DONE, "other"),
    ];
    for (family, k, name) in names {
        assert_eq!(kind::name(family, k), name, "family {family:#x} kind {k}");
    }
    for f in [FAMILY_CIP, FAMILY_HAWAII, FAMILY_MIP] {
        assert!(Protocol::is_family(f));
    }
    assert!(!Protocol::is_family(FAMILY_AIR));
}

/// What each row tells the elements, against its specification:
/// - Cellular IP semisoft sends the semisoft packet `S` before the switch (spec 5 §2.3), so
///   the new base station receives from then on and the crossover bicasts; hard handoff
///   announces nothing. Both page (spec 5 §2.3) and hold the time-0 path one
///   `route_timeout`.
/// - HAWAII UNF's mobile hears the old cell `S_unf` after switching, MSF's does not; an
///   entry lives `3·T_ref` and the base stations refresh every `T_ref` (spec 5 §2.4).
/// - Mobile IP has a home agent and no hop-by-hop state (RFC 5944 §3: the binding at the
///   home agent and the visitor entry at the foreign agent are the only state).
#[test]
fn every_row_answers_as_its_specification_says() {
    let mut cfg = MobilityConfig::new(Protocol::MobileIp);
    cfg.semisoft_delay = Dur::from_millis(70);
    cfg.unf_linger = Dur::from_millis(40);
    cfg.route_timeout = Dur::from_secs(4);
    cfg.refresh = Dur::from_secs(2);
    let ms = Dur::from_millis;
    let table = [
        // protocol, lead, linger, pages, bicasts, home agent, time-0 path, BS refresh
        (
            Protocol::Cip(CipHandoff::Semisoft),
            Some(ms(70)),
            ms(0),
            true,
            true,
            false,
            Some(ms(4000)),
            None,
        ),
        (
            Protocol::Cip(CipHandoff::Hard),
            None,
            ms(0),
            true,
            false,
            false,
            Some(ms(4000)),
            None,
        ),
        (
            Protocol::Hawaii(HawaiiScheme::Msf),
            None,
            ms(0),
            false,
            false,
            false,
            Some(ms(6000)),
            Some(ms(2000)),
        ),
        (
            Protocol::Hawaii(HawaiiScheme::Unf),
            None,
            ms(40),
            false,
            false,
            false,
            Some(ms(6000)),
            Some(ms(2000)),
        ),
        (
            Protocol::MobileIp,
            None,
            ms(0),
            false,
            false,
            true,
            None,
            None,
        ),
    ];
    assert_eq!(table.len(), Protocol::ALL.len());
    for (p, lead, linger, pages, bicasts, ha, path, refresh) in table {
        let c = MobilityConfig { protocol: p, ..cfg };
        let n = p.name();
        assert_eq!(p.lead(&c), lead, "{n}");
        assert_eq!(c.lead(), lead.unwrap_or(Dur::ZERO), "{n}");
        assert_eq!(p.linger(&c), linger, "{n}");
        assert_eq!(c.linger(), linger, "{n}");
        assert_eq!(p.pages(), pages, "{n}");
        assert_eq!(p.bicasts(), bicasts, "{n}");
        assert_eq!(p.home_agent(), ha, "{n}");
        assert_eq!(p.initial_path(&c), path, "{n}");
        assert_eq!(p.refresh_period(&c, Some(0)), refresh, "{n}");
        // Only base stations refresh.
        assert_eq!(p.refresh_period(&c, None), None, "{n}");
    }
}
