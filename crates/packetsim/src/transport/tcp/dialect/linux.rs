//! Linux's TCP (6.x, `net/ipv4/tcp_*.c` with the default sysctls): `profile = "linux"`, and
//! what `variant = "cubic" | "bbr" | "dctcp"` alone implies (`scenario/profile.rs`). What it
//! does differently from the RFCs' defaults, and where Linux says so:
//!
//! - Loss detection: SACK (`net.ipv4.tcp_sack = 1`) with RACK-TLP in every state
//!   (`net.ipv4.tcp_recovery = 1`, `tcp_early_retrans = 3`; `tcp_recovery.c`
//!   `tcp_rack_mark_lost`, `tcp_output.c` `tcp_schedule_loss_probe`).
//! - Recovery: PRR for every controller without its own `cong_control` (`tcp_input.c`
//!   `tcp_cwnd_reduction`): CUBIC and DCTCP, not BBR.
//! - RTO: bounds 200 ms and 120 s (`TCP_RTO_MIN`, `TCP_RTO_MAX`); the backoff cleared by the
//!   RTT sample of each ACK of new data (`tcp_ack_update_rtt`); a timeout in recovery keeps
//!   the recovery's ssthresh (`tcp_enter_loss`); for BBR also Linux's estimator
//!   (`tcp_rtt_estimator`, `tcp_set_rto`) and the timer re-armed when the head is resent
//!   (`tcp_output.c` `tcp_xmit_retransmit_queue`).
//! - Slow start: initial window 10 (`TCP_INIT_CWND`); CUBIC leaves slow start by HyStart
//!   (`tcp_cubic.c` `hystart_update`; packetsim runs its successor, RFC 9406 HyStart++).
//! - ACK policy: quick-ACK mode and the delayed-ACK timer (`tcp_input.c`
//!   `tcp_event_data_recv`, `__tcp_ack_snd_check`, `tcp_send_delayed_ack`), D-SACK
//!   (`tcp_dsack_set`), timestamps (`net.ipv4.tcp_timestamps = 1`); DCTCP's per-segment
//!   ECE (`tcp_dctcp.h` `dctcp_ece_ack_update`).
//! - Header accounting: the RFCs' option layouts (packetsim's default).
//!
//! [`OPTIONS`] holds the rows common to every controller, [`variant_options`] what Linux ties
//! to one; together they resolve to [`for_variant`] (`dialect::tests`).

use super::standard::STANDARD;
use super::{Dialect, ProfileOption, Table};
use crate::transport::tcp::rtt::RttEstimatorKind;
use crate::transport::tcp::{
    AckPolicy, EcnEcho, LossDetection, RecoveryEntry, RtoBackoffReset, RtoRearm, RtoSsthresh,
    SackRecoveryKind, SlowStart, Variant,
};

/// The Linux dialect common to every controller (what [`OPTIONS`] sets; the classic
/// variants under `profile = "linux"` get exactly this).
pub const LINUX: Dialect = {
    let mut d = STANDARD;
    // tcp_recovery.c tcp_rack_mark_lost; tcp_output.c tcp_schedule_loss_probe.
    d.loss.detection = LossDetection::RackTlp;
    // tcp_input.c tcp_ack_update_rtt, tcp_enter_loss.
    d.rto.backoff_reset = RtoBackoffReset::NewAck;
    d.rto.ssthresh = RtoSsthresh::Recovery;
    // tcp_input.c __tcp_ack_snd_check, tcp_send_delayed_ack, tcp_dsack_set.
    d.ack.policy = AckPolicy::Linux;
    d.ack.dsack = true;
    d
};

/// The Linux dialect for `variant`: [`LINUX`] with what [`variant_options`] adds.
pub const fn for_variant(variant: Variant) -> Dialect {
    let mut d = LINUX;
    match variant {
        Variant::Cubic => {
            d.slow_start.exit = SlowStart::HystartPp;
            d.recovery.sack = SackRecoveryKind::Prr;
        }
        Variant::Dctcp => {
            d.recovery.sack = SackRecoveryKind::Prr;
            d.ack.ecn_echo = EcnEcho::PerSegment;
        }
        Variant::Bbr => {
            d.rto.estimator = RttEstimatorKind::Linux;
            d.rto.rearm = RtoRearm::HeadRetransmit;
            d.recovery.entry = RecoveryEntry::LostOut;
        }
        // The classic variants, Vegas and every other row: Linux's rules as they are.
        _ => {}
    }
    d
}

/// Every option `profile = "linux"` sets (also the table in docs/scenario-format.md); Linux
/// 6.x defaults.
pub const OPTIONS: &[ProfileOption] = &[
    ProfileOption {
        table: Table::Tcp,
        key: "timestamps",
        value: "true",
        ns2: "net.ipv4.tcp_timestamps = 1",
        source: "net/ipv4/tcp_output.c tcp_syn_options; tcp_input.c tcp_ack_update_rtt",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "initial_cwnd",
        value: "10",
        ns2: "TCP_INIT_CWND 10",
        source: "include/net/tcp.h TCP_INIT_CWND; net/ipv4/tcp_input.c tcp_init_cwnd",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "rto_min",
        value: "\"200ms\"",
        ns2: "TCP_RTO_MIN (HZ / 5)",
        source: "include/net/tcp.h TCP_RTO_MIN; net/ipv4/tcp_input.c tcp_set_rto",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "rto_max",
        value: "\"120s\"",
        ns2: "TCP_RTO_MAX (120 * HZ)",
        source: "include/net/tcp.h TCP_RTO_MAX; net/ipv4/tcp_timer.c tcp_retransmit_timer",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "loss_recovery",
        value: "\"sack\"",
        ns2: "net.ipv4.tcp_sack = 1",
        source: "net/ipv4/tcp_input.c tcp_sacktag_write_queue",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "loss_detection",
        value: "\"rack_tlp\"",
        ns2: "net.ipv4.tcp_recovery = 1 (RACK), tcp_early_retrans = 3 (TLP)",
        source: "net/ipv4/tcp_recovery.c tcp_rack_mark_lost; tcp_output.c tcp_schedule_loss_probe",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "rto_backoff_reset",
        value: "\"new_ack\"",
        ns2: "icsk_backoff = 0 on the RTT sample of an ACK of new data",
        source: "net/ipv4/tcp_input.c tcp_ack_update_rtt",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "rto_ssthresh",
        value: "\"recovery\"",
        ns2: "ssthresh not recomputed by a timeout in CA_Recovery",
        source: "net/ipv4/tcp_input.c tcp_enter_loss",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "ack_policy",
        value: "\"linux\"",
        ns2: "TCP_ATO_MIN 40 ms, TCP_DELACK_MAX 200 ms, TCP_MAX_QUICKACKS 16",
        source:
            "net/ipv4/tcp_input.c tcp_event_data_recv, __tcp_ack_snd_check, tcp_send_delayed_ack",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "dsack",
        value: "true",
        ns2: "net.ipv4.tcp_dsack = 1",
        source: "net/ipv4/tcp_input.c tcp_dsack_set; tcp_output.c tcp_options_write",
    },
];

/// PRR (RFC 6937), which Linux runs for every controller without its own `cong_control`
/// (CUBIC and DCTCP here; not BBR).
const PRR: ProfileOption = ProfileOption {
    table: Table::Tcp,
    key: "sack_recovery",
    value: "\"prr\"",
    ns2: "PRR for every controller without cong_control (RFC 6937)",
    source: "net/ipv4/tcp_input.c tcp_cwnd_reduction, tcp_init_cwnd_reduction",
};

/// What `profile = "linux"` adds for `variant = "cubic"`: what Linux ties to CUBIC.
pub const CUBIC_OPTIONS: &[ProfileOption] = &[
    ProfileOption {
        table: Table::Tcp,
        key: "slow_start",
        value: "\"hystart_pp\"",
        ns2: "hystart = 1 (tcp_cubic module parameter; Linux runs HyStart, RFC 9406 is its successor)",
        source: "net/ipv4/tcp_cubic.c hystart_update, bictcp_acked",
    },
    PRR,
];

/// What `profile = "linux"` adds for `variant = "dctcp"`: what Linux ties to DCTCP.
pub const DCTCP_OPTIONS: &[ProfileOption] = &[
    ProfileOption {
        table: Table::Tcp,
        key: "ecn",
        value: "true",
        ns2: "TCP_CONG_NEEDS_ECN (ECN whatever net.ipv4.tcp_ecn says)",
        source: "net/ipv4/tcp_dctcp.c dctcp_init; include/net/tcp.h tcp_ca_needs_ecn",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "ecn_echo",
        value: "\"per_segment\"",
        ns2: "DCTCP.CE state machine (RFC 8257 §3.2)",
        source: "net/ipv4/tcp_dctcp.h dctcp_ece_ack_update",
    },
    PRR,
];

/// What `profile = "linux"` adds for `variant = "bbr"`: the timer and BBR rules of Linux that
/// packetsim's BBR needs to keep Linux's goodput under random loss (issue 33's loss curve,
/// bench/validate/linux/published.md). The RTO estimator and its re-arming are Linux's for every
/// controller, but are given to BBR only for now: with CUBIC under FQ-CoDel they uncover a
/// CUBIC/PRR/RACK problem that timeouts had hidden (the queue's mean grew 7x), still open.
pub const BBR_OPTIONS: &[ProfileOption] = &[
    ProfileOption {
        table: Table::Tcp,
        key: "rtt_estimator",
        value: "\"linux\"",
        ns2: "RTO = srtt + max(rttvar terms, TCP_RTO_MIN) (mdev_max never below rto_min)",
        source: "net/ipv4/tcp_input.c tcp_rtt_estimator, tcp_set_rto",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "rto_rearm",
        value: "\"head_retransmit\"",
        ns2: "the RTO restarts when the head of the retransmission queue is resent",
        source: "net/ipv4/tcp_output.c tcp_xmit_retransmit_queue",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "bbr_timeout_full_bw",
        value: "\"reset\"",
        ns2: "full_bw = 0, full_bw_cnt = 0 when a timeout enters TCP_CA_Loss",
        source: "net/ipv4/tcp_bbr.c bbr_set_state",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "bbr_recovery",
        value: "\"linux\"",
        ns2: "the CA state read once per ACK; entering recovery starts a round; ProbeRTT's exit restores cwnd in any state",
        source: "net/ipv4/tcp_bbr.c bbr_set_cwnd_to_recover_or_restore, bbr_check_probe_rtt_done",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "recovery_entry",
        value: "\"lost_out\"",
        ns2: "recovery starts (again) while a segment marked lost is outstanding",
        source: "net/ipv4/tcp_input.c tcp_time_to_recover, tcp_fastretrans_alert",
    },
];

/// What `profile = "linux"` adds for `variant`: [`CUBIC_OPTIONS`],
/// [`DCTCP_OPTIONS`], [`BBR_OPTIONS`] (no PRR for BBR: its pacing is its own,
/// `tcp_bbr.c` `bbr_init` asks for it; it sets cwnd itself in `bbr_main`, the `cong_control`
/// hook, so `tcp_cong_control` skips PRR; SACK is in [`OPTIONS`]) and nothing for the
/// classic variants.
pub fn variant_options(variant: Variant) -> &'static [ProfileOption] {
    match variant {
        Variant::Cubic => CUBIC_OPTIONS,
        Variant::Dctcp => DCTCP_OPTIONS,
        Variant::Bbr => BBR_OPTIONS,
        _ => &[],
    }
}
