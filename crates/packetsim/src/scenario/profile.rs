//! Scenario profiles (the top-level key `profile`, issue 14 item 8): one key that sets a group
//! of options at once. `"standard"` (the default) sets nothing. `"ns2"` gives every option
//! that has an ns-2.35 setting the value ns-2.35's stock defaults have (`tcl/lib/ns-default.tcl`
//! and the C++ source named in [`NS2_OPTIONS`]), so a user porting an ns-2 script gets ns-2's
//! mechanisms by one key.
//!
//! The profile's values sit under the file's own: `[tcp]`, `[sctp]` and a flow's `tcp` /
//! `sctp` tables override them key by key, and a link's own `loss_position` overrides the
//! profile's. Sizes that every ns-2 script chooses for itself (`mss` / `packetSize_`,
//! `rcv_window` / `window_`, `initial_cwnd` / `windowInit_`) are not set by the profile.
//!
//! `"linux"` (issue 33) gives the `[tcp]` options whose Linux setting is the same whatever the
//! congestion control ([`LINUX_OPTIONS`], each with the sysctl default or kernel constant and
//! the function that implements it): timestamps, IW 10, Linux's RTO bounds, SACK with RACK-TLP,
//! the backoff cleared by each ACK of new data, the ssthresh kept by a timeout in recovery,
//! Linux's ACK policy (quick-ACK mode and delayed-ACK timer) and D-SACK; and, for the variant
//! the TCP table names, what Linux ties to that congestion control
//! ([`linux_variant_options`]): CUBIC HyStart++ and PRR, DCTCP ECN with the per-segment echo
//! and PRR; BBR nothing more (it paces itself and skips PRR).
//!
//! When the file sets no `profile`, a TCP table resolves under the profile its variant implies
//! ([`TcpProfile::resolve`], issue 33 item 3): `cubic`, `bbr` and `dctcp` are what a user
//! means by Linux, so they get `linux`; the classic variants get `standard`. Each flow's table
//! ([tcp] merged with the flow's `tcp`) is resolved on its own, so a BBR flow in a file whose
//! `[tcp]` is CUBIC gets BBR's Linux defaults, not CUBIC's. `profile = "standard"` asks for
//! the documented defaults whatever the variant (the behaviour before issue 33). A key the
//! file writes always wins; a contradiction between a written key and an implied one is an
//! error at the variant that implied it ([`TcpProfile::check`]).

use crate::transport::tcp::{TcpConfig, Variant};
use serde::Deserialize;

/// The top-level key `profile`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// Nothing changed: every option keeps its documented default.
    #[default]
    Standard,
    /// ns-2.35's stock mechanisms (see [`NS2_OPTIONS`]).
    Ns2,
    /// Linux's TCP settings common to every congestion control (see [`LINUX_OPTIONS`]).
    Linux,
}

/// Which table an option of a profile belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// `[tcp]`.
    Tcp,
    /// `[sctp]`.
    Sctp,
    /// Every `[links.NAME]` that does not set the key.
    Link,
}

/// One option of the `ns2` profile: table, key, value (TOML), the ns-2.35 setting it follows
/// and where ns-2.35 implements it.
pub struct ProfileOption {
    /// Where the key goes.
    pub table: Table,
    /// The key.
    pub key: &'static str,
    /// Its value, as TOML.
    pub value: &'static str,
    /// The reference stack's variable or rule (ns-2.35's, or Linux's sysctl or constant).
    pub ns2: &'static str,
    /// The reference source file (and function) that implements it.
    pub source: &'static str,
}

/// Every option `profile = "ns2"` sets (also the table in docs/scenario-format.md).
pub const NS2_OPTIONS: &[ProfileOption] = &[
    ProfileOption {
        table: Table::Tcp,
        key: "limited_transmit",
        value: "true",
        ns2: "singledup_ 1",
        source: "tcp/tcp.cc TcpAgent::recv, TcpAgent::send_one",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "recover_guard",
        value: "\"after_loss\"",
        ns2: "bugFix_ true",
        source: "tcp/tcp-reno.cc RenoTcpAgent::dupack_action",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "ssthresh_rule",
        value: "\"ns2\"",
        ns2: "slowdown(CLOSE_SSTHRESH_HALF), floor 2 packets",
        source: "tcp/tcp.cc TcpAgent::slowdown",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "dupack_same_window",
        value: "false",
        ns2: "a duplicate ACK is any ACK equal to the last (no window test)",
        source: "tcp/tcp-reno.cc RenoTcpAgent::recv",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "rtt_estimator",
        value: "\"ns2\"",
        ns2: "T_SRTT_BITS 3, T_RTTVAR_BITS 2, rttvar_exp_ 2, rfc2988_ true",
        source: "tcp/tcp.cc TcpAgent::rtt_update, rtt_timeout, rtt_backoff",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "tick",
        value: "\"10ms\"",
        ns2: "tcpTick_ 0.01",
        source: "tcp/tcp.cc TcpAgent::rtt_update",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "rto_min",
        value: "\"200ms\"",
        ns2: "minrto_ 0.2",
        source: "tcp/tcp.cc TcpAgent::rtt_timeout",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "rto_max",
        value: "\"60s\"",
        ns2: "maxrto_ 60",
        source: "tcp/tcp.cc TcpAgent::rtt_timeout",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "rto_initial",
        value: "\"3s\"",
        ns2: "rtxcur_init_ 3.0",
        source: "tcp/tcp.cc TcpAgent::rtt_init",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "fast_retransmit_stops_timing",
        value: "true",
        ns2: "reset_rtx_timer(1, 0) clears rtt_active_ on a fast retransmit",
        source:
            "tcp/tcp.cc TcpAgent::reset_rtx_timer; tcp/tcp-reno.cc, tcp/tcp-sack1.cc dupack_action",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "sack_recovery",
        value: "\"sack1\"",
        ns2: "Agent/TCP/Sack1 (the SACK agent of ns-2 scripts)",
        source: "tcp/tcp-sack1.cc Sack1TcpAgent::recv, dupack_action, send_much",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "sack1_clear_scoreboard",
        value: "true",
        ns2: "ClearScoreBoard() at a timeout and on each new ACK outside fast recovery",
        source: "tcp/tcp-sack1.cc Sack1TcpAgent::recv, timeout; tcp/scoreboard.cc",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "precision_reduce",
        value: "true",
        ns2: "precisionReduce_ true (cwnd_ = windowd()/2 unrounded at a fast retransmit)",
        source: "tcp/tcp.cc TcpAgent::slowdown; tcp/tcp-reno.cc, tcp/tcp-sack1.cc",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "ns2_ecn_cut",
        value: "true",
        ns2: "an ECE calls slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF): half of min(cwnd, wnd)",
        source: "tcp/tcp.cc TcpAgent::ecn, TcpAgent::slowdown",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "ns2_header_sizes",
        value: "true",
        ns2: "tcpip_base_hdr_size_ 40, 8 bytes per SACK block, SYN of 40 bytes",
        source: "tcp/tcp-sink.cc Sacker::append_ack; tcp/tcp.cc TcpAgent::output, headersize",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "fast_recovery",
        value: "true",
        ns2: "RFC 4960 §7.2.4 fast recovery (always on)",
        source: "sctp/sctp.cc SctpAgent::FastRtx (uiRecover)",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "ssthresh_floor_mtus",
        value: "4",
        ns2: "MAX(iCwnd/2, 4 * uiMaxDataSize) (RFC 4960 §7.2.3)",
        source: "sctp/sctp.cc SctpAgent::FastRtx, SctpAgent::Timeout",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "t3_cut_above_one_mtu",
        value: "true",
        ns2: "if (iCwnd > 1 * uiMaxDataSize) before the T3 cut",
        source: "sctp/sctp.cc SctpAgent::Timeout",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "initial_cwnd_rfc4960",
        value: "true",
        ns2: "MIN(4 * uiMaxDataSize, MAX(4380, 2 * uiMaxDataSize)) (RFC 4960 §7.2.1)",
        source: "sctp/sctp.cc SctpAgent::Reset",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "idle_cwnd_decay",
        value: "true",
        ns2: "opCwndDegradeTimer, MAX(iCwnd/2, 4 * uiMaxDataSize)",
        source: "sctp/sctp.cc CwndDegradeTimerExpiration",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "path_verification",
        value: "true",
        ns2: "SCTP_DEST_STATUS_UNCONFIRMED until a HEARTBEAT-ACK",
        source: "sctp/sctp.cc ProcessChunk (COOKIE-ACK, HB-ACK)",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "fast_rtx_threshold",
        value: "3",
        ns2: "fastRtxTrigger_ 3",
        source: "sctp/sctp.cc SctpAgent::ProcessGapAckBlocks",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "cwnd_unit",
        value: "\"max_data\"",
        ns2: "uiMaxDataSize (MTU - IP header - SCTP common header) in every cwnd rule",
        source: "sctp/sctp.cc SctpAgent::Reset, AdjustCwnd, FastRtx, Timeout",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "t3_restart_on_rtx",
        value: "true",
        ns2: "StartT3RtxTimer when the first outstanding chunk is retransmitted (RFC 4960 §7.2.4)",
        source: "sctp/sctp.cc SctpAgent::RtxMarkedChunks",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "new_data_waits_for_rtx",
        value: "true",
        ns2: "SendMuch only while eMarkedChunksPending is FALSE",
        source: "sctp/sctp.cc SctpAgent::recv",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "max_burst_after_fast_rtx",
        value: "true",
        ns2: "eApplyMaxBurst, set when a fast-retransmitted chunk is acked",
        source: "sctp/sctp.cc SctpAgent::SendBufferDequeueUpTo, SendMuch",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "htna",
        value: "true",
        ns2: "uiHighestTsnNewlyAcked (HTNA, kept across SACKs)",
        source: "sctp/sctp.cc SctpAgent::ProcessGapAckBlocks",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "cancel_rtt_on_cut",
        value: "true",
        ns2: "eRtoPending = FALSE on the fast-retransmit cwnd cut",
        source: "sctp/sctp.cc SctpAgent::FastRtx",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "cut_above_recover",
        value: "true",
        ns2: "cut for any marked chunk with TSN > uiRecover, uiRecover reset at each cut",
        source: "sctp/sctp.cc SctpAgent::FastRtx, ProcessSackChunk",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "sack_after_gap_only",
        value: "true",
        ns2: "SACK at once for TSN 1 and while sRecvTsnBlockList is not empty after the packet",
        source: "sctp/sctp.cc SctpAgent::ProcessChunk",
    },
    ProfileOption {
        table: Table::Sctp,
        key: "rtx_one_packet",
        value: "true",
        ns2: "FastRtx and TimeoutRtx send RTX_LIMIT_ONE_PACKET; the rest waits for a SACK",
        source: "sctp/sctp.cc SctpAgent::ProcessSackChunk, FastRtx, Timeout, TimeoutRtx",
    },
    ProfileOption {
        table: Table::Link,
        key: "loss_position",
        value: "\"before_queue\"",
        ns2: "$ns lossmodel puts the ErrorModel at the link's head",
        source: "tcl/lib/ns-lib.tcl Simulator::lossmodel, ns-link.tcl SimpleLink::errormodule",
    },
];

/// Every option `profile = "linux"` sets (also the table in docs/scenario-format.md); Linux
/// 6.x defaults.
pub const LINUX_OPTIONS: &[ProfileOption] = &[
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
const LINUX_PRR: ProfileOption = ProfileOption {
    table: Table::Tcp,
    key: "sack_recovery",
    value: "\"prr\"",
    ns2: "PRR for every controller without cong_control (RFC 6937)",
    source: "net/ipv4/tcp_input.c tcp_cwnd_reduction, tcp_init_cwnd_reduction",
};

/// What `profile = "linux"` adds for `variant = "cubic"`: what Linux ties to CUBIC.
pub const LINUX_CUBIC_OPTIONS: &[ProfileOption] = &[
    ProfileOption {
        table: Table::Tcp,
        key: "slow_start",
        value: "\"hystart_pp\"",
        ns2: "hystart = 1 (tcp_cubic module parameter; Linux runs HyStart, RFC 9406 is its successor)",
        source: "net/ipv4/tcp_cubic.c hystart_update, bictcp_acked",
    },
    LINUX_PRR,
];

/// What `profile = "linux"` adds for `variant = "dctcp"`: what Linux ties to DCTCP.
pub const LINUX_DCTCP_OPTIONS: &[ProfileOption] = &[
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
    LINUX_PRR,
];

/// What `profile = "linux"` adds for `variant = "bbr"`: the timer and BBR rules of Linux that
/// packetsim's BBR needs to keep Linux's goodput under random loss (issue 33's loss curve,
/// bench/validate/linux/published.md). The RTO estimator and its re-arming are Linux's for every
/// controller, but are given to BBR only for now: with CUBIC under FQ-CoDel they uncover a
/// CUBIC/PRR/RACK problem that timeouts had hidden (the queue's mean grew 7x), still open.
pub const LINUX_BBR_OPTIONS: &[ProfileOption] = &[
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

/// What `profile = "linux"` adds for `variant`: [`LINUX_CUBIC_OPTIONS`],
/// [`LINUX_DCTCP_OPTIONS`], [`LINUX_BBR_OPTIONS`] (no PRR for BBR: its pacing is its own,
/// `tcp_bbr.c` `bbr_init` asks for it; it sets cwnd itself in `bbr_main`, the `cong_control`
/// hook, so `tcp_cong_control` skips PRR; SACK is in [`LINUX_OPTIONS`]) and nothing for the
/// classic variants.
pub fn linux_variant_options(variant: Variant) -> &'static [ProfileOption] {
    match variant {
        Variant::Cubic => LINUX_CUBIC_OPTIONS,
        Variant::Dctcp => LINUX_DCTCP_OPTIONS,
        Variant::Bbr => LINUX_BBR_OPTIONS,
        Variant::Tahoe | Variant::Reno | Variant::NewReno | Variant::Sack | Variant::Vegas => &[],
    }
}

/// Whether a file without `profile` gets `profile = "linux"` for this variant: the modern
/// congestion controls, which users run on Linux.
pub fn implies_linux(variant: Variant) -> bool {
    matches!(variant, Variant::Cubic | Variant::Bbr | Variant::Dctcp)
}

/// The profile one TCP table resolves under (the file's `[tcp]`, or `[tcp]` merged with a
/// flow's `tcp`): the file's `profile`, or the one its variant implies (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpProfile {
    /// The profile whose options sit under the table.
    pub profile: Profile,
    /// The variant the table names (or the default).
    pub variant: Variant,
    /// Whether the profile comes from the variant (the file sets no `profile`).
    pub implied: bool,
}

impl TcpProfile {
    /// Resolves a TCP table as written (`written`: [tcp] with the flow's own keys over it)
    /// under the file's `profile` key, if any.
    pub fn resolve(file: Option<Profile>, written: &toml::Table) -> TcpProfile {
        let variant = written
            .get("variant")
            .and_then(|v| v.clone().try_into::<Variant>().ok())
            .unwrap_or(TcpConfig::default().variant);
        match file {
            Some(profile) => TcpProfile {
                profile,
                variant,
                implied: false,
            },
            None if implies_linux(variant) => TcpProfile {
                profile: Profile::Linux,
                variant,
                implied: true,
            },
            None => TcpProfile {
                profile: Profile::Standard,
                variant,
                implied: false,
            },
        }
    }

    /// The options under the table: the profile's `[tcp]` options, then (linux) the variant's.
    pub fn options(&self) -> impl Iterator<Item = &'static ProfileOption> {
        let extra = if self.profile == Profile::Linux {
            linux_variant_options(self.variant)
        } else {
            &[]
        };
        self.profile
            .options()
            .iter()
            .filter(|o| o.table == Table::Tcp)
            .chain(extra)
    }

    /// [`TcpProfile::options`] as a TOML table (a later option replaces an earlier one).
    pub fn table(&self) -> toml::Table {
        let mut t = toml::Table::new();
        for o in self.options() {
            let v: toml::Table =
                toml::from_str(&format!("v = {}", o.value)).expect("profile values are valid TOML");
            t.insert(o.key.to_owned(), v["v"].clone());
        }
        t
    }

    /// `cfg.validate()`, with the origin of a refused value the file did not write
    /// (`written`): a key set by an explicit profile keeps its name and gains the note
    /// "(`KEY` set by profile = "P")"; a key the variant implied is reported at `variant`,
    /// naming the key, its value and the ways out.
    pub fn check(
        &self,
        cfg: &TcpConfig,
        written: &toml::Table,
    ) -> Result<(), (&'static str, String)> {
        let Err((key, msg)) = cfg.validate() else {
            return Ok(());
        };
        let top = key.split('.').next().unwrap_or(key);
        if written.contains_key(top) {
            return Err((key, msg));
        }
        let Some(value) = self
            .options()
            .filter(|o| o.key == top)
            .last()
            .map(|o| o.value)
        else {
            return Err((key, msg));
        };
        if self.implied {
            Err((
                "variant",
                format!(
                    "`{top} = {value}` comes from the Linux defaults that variant = \"{}\" \
                     implies, and was refused: {msg}; set `{top}` yourself, or profile = \
                     \"standard\" for the classic defaults (docs/scenario-format.md, Profiles)",
                    self.variant
                ),
            ))
        } else {
            Err((
                key,
                format!(
                    "{msg} (`{top}` set by profile = \"{}\")",
                    self.profile.name()
                ),
            ))
        }
    }
}

impl Profile {
    /// The options of this profile (empty for `standard`).
    pub fn options(self) -> &'static [ProfileOption] {
        match self {
            Profile::Standard => &[],
            Profile::Ns2 => NS2_OPTIONS,
            Profile::Linux => LINUX_OPTIONS,
        }
    }

    /// The profile's options for `table`, as a TOML table (empty for `standard`).
    pub fn table(self, table: Table) -> toml::Table {
        let mut t = toml::Table::new();
        {
            for o in self.options().iter().filter(|o| o.table == table) {
                let v: toml::Table = toml::from_str(&format!("v = {}", o.value))
                    .expect("profile values are valid TOML");
                t.insert(o.key.to_owned(), v["v"].clone());
            }
        }
        t
    }

    /// `cfg` with the profile's `[tcp]` options under the keys named in `own`, which keep
    /// `cfg`'s values: what a scenario file whose `[tcp]` table sets exactly `own` gets with
    /// this profile. For a study that builds its TCP in code (micromobility) and wants its
    /// "as ns-2.35 would" runs. `standard` returns `cfg` unchanged.
    pub fn apply_tcp(self, cfg: &TcpConfig, own: &[&str]) -> TcpConfig {
        let mut t = match toml::Value::try_from(cfg) {
            Ok(toml::Value::Table(t)) => t,
            _ => unreachable!("a TcpConfig serialises to a table"),
        };
        for (k, v) in self.table(Table::Tcp) {
            if !own.contains(&k.as_str()) {
                t.insert(k, v);
            }
        }
        toml::Value::Table(t)
            .try_into()
            .expect("the profile's values are valid TCP options")
    }

    /// The name the scenario file uses.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Standard => "standard",
            Profile::Ns2 => "ns2",
            Profile::Linux => "linux",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::LossPosition;
    use crate::transport::sctp::{CwndUnit, SctpConfig};
    use crate::transport::tcp::{RecoverGuard, Variant};
    use packetsim_kernel::Dur;

    // Every value of the ns2 profile deserialises into its table's type, and each differs from
    // the standard default except rto_max (60 s in both, listed so the table is complete).
    #[test]
    fn ns2_values_parse_and_differ_from_the_defaults() {
        let tcp: TcpConfig = toml::Value::Table(Profile::Ns2.table(Table::Tcp))
            .try_into()
            .unwrap();
        let d = TcpConfig::default();
        assert!(tcp.limited_transmit && !d.limited_transmit);
        assert_ne!(tcp.recover_guard, d.recover_guard);
        assert_ne!(tcp.ssthresh_rule, d.ssthresh_rule);
        assert!(!tcp.dupack_same_window && d.dupack_same_window);
        assert_ne!(tcp.rtt_estimator, d.rtt_estimator);
        assert_ne!(tcp.tick, d.tick);
        assert_ne!(tcp.rto_min, d.rto_min);
        assert_ne!(tcp.rto_initial, d.rto_initial);
        assert_ne!(tcp.sack_recovery, d.sack_recovery);
        assert!(tcp.fast_retransmit_stops_timing && !d.fast_retransmit_stops_timing);
        assert!(tcp.sack1_clear_scoreboard && !d.sack1_clear_scoreboard);
        assert!(tcp.precision_reduce && !d.precision_reduce);
        assert!(tcp.ns2_ecn_cut && !d.ns2_ecn_cut);
        assert!(tcp.ns2_header_sizes && !d.ns2_header_sizes);
        let zero = packetsim_kernel::Dur::ZERO;
        assert_eq!((tcp.send_overhead, d.send_overhead), (zero, zero));
        assert_eq!(tcp.validate(), Ok(()));
        let sctp: SctpConfig = toml::Value::Table(Profile::Ns2.table(Table::Sctp))
            .try_into()
            .unwrap();
        let d = SctpConfig::default();
        assert!(sctp.fast_recovery && !d.fast_recovery);
        assert_eq!((sctp.fast_rtx_threshold, d.fast_rtx_threshold), (3, 4));
        assert_eq!((sctp.ssthresh_floor_mtus, d.ssthresh_floor_mtus), (4, 2));
        assert!(sctp.t3_cut_above_one_mtu && !d.t3_cut_above_one_mtu);
        assert!(sctp.initial_cwnd_rfc4960 && !d.initial_cwnd_rfc4960);
        assert!(sctp.idle_cwnd_decay && !d.idle_cwnd_decay);
        assert!(sctp.path_verification && !d.path_verification);
        assert_eq!(
            (sctp.cwnd_unit, d.cwnd_unit),
            (CwndUnit::MaxData, CwndUnit::Mtu)
        );
        assert!(sctp.t3_restart_on_rtx && !d.t3_restart_on_rtx);
        assert!(sctp.new_data_waits_for_rtx && !d.new_data_waits_for_rtx);
        assert!(sctp.max_burst_after_fast_rtx && !d.max_burst_after_fast_rtx);
        assert!(sctp.htna && !d.htna);
        assert!(sctp.cancel_rtt_on_cut && !d.cancel_rtt_on_cut);
        assert!(sctp.cut_above_recover && !d.cut_above_recover);
        assert!(sctp.sack_after_gap_only && !d.sack_after_gap_only);
        assert!(sctp.rtx_one_packet && !d.rtx_one_packet);
        assert_eq!(sctp.validate(), Ok(()));
        let link = Profile::Ns2.table(Table::Link);
        let pos: LossPosition = link["loss_position"].clone().try_into().unwrap();
        assert_eq!(pos, LossPosition::BeforeQueue);
        for t in [Table::Tcp, Table::Sctp, Table::Link] {
            assert!(Profile::Standard.table(t).is_empty());
        }
    }

    // The linux profile's values parse, differ from the defaults (rto_initial aside, not
    // listed) and validate with every modern variant, so `variant` alone completes it.
    #[test]
    fn linux_values_parse_and_validate_with_cubic_bbr_dctcp() {
        use crate::transport::tcp::{LossDetection, RtoBackoffReset, RtoSsthresh};
        let t = Profile::Linux.table(Table::Tcp);
        let tcp: TcpConfig = toml::Value::Table(t.clone()).try_into().unwrap();
        let d = TcpConfig::default();
        assert!(tcp.timestamps && !d.timestamps);
        assert_eq!((tcp.initial_cwnd, d.initial_cwnd), (10, 2));
        assert_eq!(tcp.rto_min, Dur::from_millis(200));
        assert_eq!(tcp.rto_max, Dur::from_secs(120));
        assert!(tcp.offers_sack() && !d.offers_sack());
        assert_eq!(tcp.loss_detection, LossDetection::RackTlp);
        assert_eq!(tcp.rto_backoff_reset, RtoBackoffReset::NewAck);
        assert_eq!(tcp.rto_ssthresh, RtoSsthresh::Recovery);
        assert_eq!(
            (tcp.ack_policy, d.ack_policy),
            (crate::transport::tcp::AckPolicy::Linux, Default::default())
        );
        assert!(tcp.dsack && !d.dsack);
        for v in ["cubic", "bbr", "newreno", "reno", "sack"] {
            let c: TcpConfig = toml::from_str(&format!("variant = \"{v}\"\n{t}")).unwrap();
            assert_eq!(c.validate(), Ok(()), "{v}");
        }
        let c: TcpConfig = toml::from_str(&format!(
            "variant = \"dctcp\"\necn = true\necn_echo = \"per_segment\"\n{t}"
        ))
        .unwrap();
        assert_eq!(c.validate(), Ok(()));
        assert!(Profile::Linux.table(Table::Sctp).is_empty());
        assert!(Profile::Linux.table(Table::Link).is_empty());
    }

    // docs/scenario-format.md's "Profiles" table lists every option with its value, its
    // ns-2.35 setting's variable and its source file, so the two cannot drift apart.
    #[test]
    fn the_docs_table_lists_every_option() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scenario-format.md");
        let md = std::fs::read_to_string(path).unwrap();
        for o in NS2_OPTIONS
            .iter()
            .chain(LINUX_OPTIONS)
            .chain(LINUX_CUBIC_OPTIONS)
            .chain(LINUX_DCTCP_OPTIONS)
            .chain(LINUX_BBR_OPTIONS)
        {
            // The same key = value may be in both tables (`rto_min = "200ms"`): the row is the
            // one citing this option's source file.
            let file = o.source.split(' ').next().unwrap();
            let var = o.ns2.split([' ', ',', '(']).next().unwrap();
            let row = md
                .lines()
                .find(|l| {
                    l.starts_with('|')
                        && l.contains(&format!("`{} = {}`", o.key, o.value))
                        && l.contains(file)
                })
                .unwrap_or_else(|| panic!("no docs row for {} = {} citing {file}", o.key, o.value));
            assert!(row.contains(file), "{row} lacks {file}");
            assert!(row.contains(var), "{row} lacks {var}");
        }
    }

    // apply_tcp: the caller's own keys keep their values, every other profile key takes the
    // profile's, and the keys the profile does not name keep the caller's (a Reno config with
    // its own rto_max 64 s and 100 ms tick, as the micromobility study builds it).
    #[test]
    fn apply_tcp_puts_the_profile_under_the_callers_own_keys() {
        let own = TcpConfig {
            variant: Variant::Reno,
            mss: 1000,
            initial_cwnd: 1,
            rto_max: Dur::from_secs(64),
            tick: Dur::from_millis(100),
            recover_guard: RecoverGuard::None,
            ..TcpConfig::default()
        };
        let keys = [
            "variant",
            "mss",
            "initial_cwnd",
            "rto_max",
            "tick",
            "recover_guard",
        ];
        assert_eq!(Profile::Standard.apply_tcp(&own, &keys), own);
        let ns2 = Profile::Ns2.apply_tcp(&own, &keys);
        // Own keys: kept, though the profile names rto_max (60 s), tick (10 ms) and
        // recover_guard ("after_loss").
        assert_eq!(ns2.rto_max, Dur::from_secs(64));
        assert_eq!(ns2.tick, Dur::from_millis(100));
        assert_eq!(ns2.recover_guard, RecoverGuard::None);
        assert_eq!(
            (ns2.variant, ns2.mss, ns2.initial_cwnd),
            (Variant::Reno, 1000, 1)
        );
        // The profile's other keys: ns-2.35's values.
        let p: TcpConfig = toml::Value::Table(Profile::Ns2.table(Table::Tcp))
            .try_into()
            .unwrap();
        assert!(ns2.limited_transmit);
        assert_eq!(ns2.rtt_estimator, p.rtt_estimator);
        assert_eq!(ns2.ssthresh_rule, p.ssthresh_rule);
        assert_eq!(ns2.sack_recovery, p.sack_recovery);
        assert_eq!(ns2.rto_min, Dur::from_millis(200));
        assert_eq!(ns2.rto_initial, Dur::from_secs(3));
        assert!(!ns2.dupack_same_window);
        assert!(ns2.fast_retransmit_stops_timing);
        assert!(ns2.sack1_clear_scoreboard);
        assert!(ns2.precision_reduce);
        assert!(ns2.ns2_ecn_cut);
        assert!(ns2.ns2_header_sizes);
        // Everything the profile does not name is the caller's.
        assert_eq!(
            TcpConfig {
                limited_transmit: own.limited_transmit,
                rtt_estimator: own.rtt_estimator,
                ssthresh_rule: own.ssthresh_rule,
                sack_recovery: own.sack_recovery,
                rto_min: own.rto_min,
                rto_initial: own.rto_initial,
                dupack_same_window: own.dupack_same_window,
                fast_retransmit_stops_timing: own.fast_retransmit_stops_timing,
                sack1_clear_scoreboard: own.sack1_clear_scoreboard,
                precision_reduce: own.precision_reduce,
                ns2_ecn_cut: own.ns2_ecn_cut,
                ns2_header_sizes: own.ns2_header_sizes,
                ..ns2
            },
            own
        );
    }
}
