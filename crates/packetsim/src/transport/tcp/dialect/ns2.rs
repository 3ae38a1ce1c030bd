//! ns-2.35's TCP (`Agent/TCP`, `Agent/TCP/Reno`, `Agent/TCP/Newreno`, `Agent/TCP/Sack1` and
//! `Agent/TCPSink`), as ns-2.35's stock defaults (`tcl/lib/ns-default.tcl`) run it:
//! `profile = "ns2"`. What it does differently from the RFCs, and where ns-2.35 says so:
//!
//! - Loss detection: a duplicate ACK is any ACK equal to the last, whatever its window
//!   (`tcp/tcp-reno.cc` `RenoTcpAgent::recv`); limited transmit is on (`singledup_ 1`,
//!   `tcp/tcp.cc` `TcpAgent::send_one`); `bugFix_` makes every fast retransmit and timeout
//!   set `recover_`, and a fast retransmit needs the cumulative ACK beyond it
//!   (`tcp/tcp-reno.cc` `RenoTcpAgent::dupack_action`).
//! - Recovery and the window cut: ssthresh is half of min(cwnd, peer window) in whole
//!   packets, at least 2, on every fast retransmit and timeout (`tcp/tcp.cc`
//!   `TcpAgent::slowdown`), the halved window unrounded (`precisionReduce_`); an ECE halves
//!   min(cwnd, peer window) too (`TcpAgent::ecn`); the SACK agent is Sack1
//!   (`tcp/tcp-sack1.cc` `Sack1TcpAgent::recv`, `dupack_action`, `send_much`), whose
//!   scoreboard is cleared at a timeout and by each new ACK outside fast recovery
//!   (`tcp/scoreboard.cc` `ClearScoreBoard`).
//! - RTO and timing: the estimator in ticks of 10 ms with 3 and 2 fraction bits
//!   (`TcpAgent::rtt_update`, `rtt_timeout`, `rtt_backoff`), RTO 3 s before a sample
//!   (`rtxcur_init_`), bounds 200 ms and 60 s (`minrto_`, `maxrto_`); a fast retransmit
//!   ends the RTT measurement (`reset_rtx_timer(1, 0)` clears `rtt_active_`).
//! - Header accounting: 40 bytes of TCP/IP header and 8 bytes per SACK block, with no
//!   option kind, length or padding (`tcp/tcp-sink.cc` `Sacker::append_ack`;
//!   `TcpAgent::headersize`).
//! - Slow start and the ACK policy are the RFCs' (the sink ACKs every segment).
//!
//! [`OPTIONS`] is the profile (also the table in docs/scenario-format.md): its `[tcp]` rows
//! resolve to [`NS2`] (`dialect::tests`), and, because `profile = "ns2"` is one key for the
//! whole file, it also carries ns-2.35's SCTP agent (`sctp/sctp.cc`) and where `$ns
//! lossmodel` puts a link's error model. The sizes every ns-2 script sets for itself
//! (`packetSize_`, `window_`, `windowInit_`) are not in it.

use super::standard::STANDARD;
use super::{
    Dialect, DupAck, EcnCut, FastRetransmitTiming, Halving, HeaderAccounting, LimitedTransmit,
    ProfileOption, Sack1Scoreboard, Table,
};
use crate::transport::tcp::rtt::RttEstimatorKind;
use crate::transport::tcp::{RecoverGuard, SackRecoveryKind, SsthreshRule};

/// The ns-2.35 dialect: the rules [`OPTIONS`] sets, over the standard ones.
pub const NS2: Dialect = {
    let mut d = STANDARD;
    // tcp-reno.cc RenoTcpAgent::recv: no window test for a duplicate ACK.
    d.loss.dupack = DupAck::AnyWindow;
    // tcp.cc TcpAgent::send_one (singledup_ 1).
    d.loss.limited_transmit = LimitedTransmit::Rfc3042;
    // tcp-reno.cc RenoTcpAgent::dupack_action (bugFix_ true).
    d.loss.recover_guard = RecoverGuard::AfterLoss;
    // tcp.cc TcpAgent::slowdown(CLOSE_SSTHRESH_HALF), precisionReduce_, TcpAgent::ecn.
    d.recovery.ssthresh = SsthreshRule::Ns2;
    d.recovery.halving = Halving::Precise;
    d.recovery.ecn_cut = EcnCut::Ns2;
    // tcp-sack1.cc Sack1TcpAgent::recv, dupack_action, send_much; scoreboard.cc.
    d.recovery.sack = SackRecoveryKind::Sack1;
    d.recovery.sack1_scoreboard = Sack1Scoreboard::Ns2Cleared;
    // tcp.cc rtt_update, rtt_timeout, rtt_backoff; reset_rtx_timer(1, 0).
    d.rto.estimator = RttEstimatorKind::Ns2;
    d.rto.fast_retransmit_timing = FastRetransmitTiming::Stops;
    // tcp-sink.cc Sacker::append_ack; tcp.cc TcpAgent::headersize.
    d.headers = HeaderAccounting::Ns2;
    d
};

/// Every option `profile = "ns2"` sets (also the table in docs/scenario-format.md).
pub const OPTIONS: &[ProfileOption] = &[
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
