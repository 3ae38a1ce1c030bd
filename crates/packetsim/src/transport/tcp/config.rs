//! TCP configuration: one [`TcpConfig`] per flow, read from the scenario's `[tcp]` defaults
//! table merged with the flow's own `tcp = { .. }` table. Every field has a documented default;
//! [`TcpConfig::validate`] rejects nonsense before a run starts.
//!
//! Many keys are a dialect's rules rather than parameters (ns-2.35's, ns-3.37's, Linux's):
//! `dialect/mod.rs` sorts every key into dialect rules, parameters with a dialect's
//! default, the controller's own rules and user parameters, and the sender reads the rules
//! as one [`super::dialect::Dialect`] resolved when it is built. The keys stay here, one by
//! one, so a scenario overrides any rule of its profile.

use super::rtt::RttEstimatorKind;
use super::variant::Variant;
use crate::units;
use packetsim_kernel::Dur;
use serde::{Deserialize, Serialize};

/// Configuration of one TCP connection (both ends).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Congestion control and loss recovery pair: `tahoe`, `reno`, `newreno`, `sack`, `cubic`,
    /// `dctcp` or `bbr` (`loss_recovery` may replace the pair's recovery).
    pub variant: Variant,
    /// Maximum segment size: payload bytes per segment (default 1460, giving 1500-byte packets).
    pub mss: u32,
    /// Initial congestion window in segments (default 2; RFC 5681 §3.1 allows 2 to 4).
    pub initial_cwnd: u32,
    /// Initial slow-start threshold in bytes; absent means the receive window (RFC 5681 §3.1
    /// allows it to be arbitrarily high).
    #[serde(with = "units::bytes::opt", skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u64>,
    /// The receiver's fixed advertised window in bytes (default 64 KiB); with `bs_buffer` set
    /// the receiver advertises that policy's window instead (this still sets the default
    /// initial ssthresh).
    #[serde(with = "units::bytes")]
    pub rcv_window: u64,
    /// RTO before the first RTT sample (RFC 6298 §2.1: 1 s).
    #[serde(with = "units::dur")]
    pub rto_initial: Dur,
    /// Lower bound on the RTO (RFC 6298 §2.4: 1 s).
    #[serde(with = "units::dur")]
    pub rto_min: Dur,
    /// Upper bound on the RTO, including backoff (RFC 6298 §2.5: at least 60 s).
    #[serde(with = "units::dur")]
    pub rto_max: Dur,
    /// Clock granularity G in RTO = SRTT + max(G, 4·RTTVAR) (RFC 6298 §2.3; default 1 ms).
    #[serde(with = "units::dur")]
    pub granularity: Dur,
    /// Send and echo the timestamp option and take RTT samples from it (RFC 7323).
    pub timestamps: bool,
    /// Delayed ACK: when present, acknowledge every second full segment or after this long
    /// (RFC 5681 §4.2; 200 ms is customary). Absent (default): ACK every segment.
    #[serde(with = "units::dur::opt", skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<Dur>,
    /// When the receiver acknowledges in-order data: `standard` (default; every segment, or
    /// with `delayed_ack` every second segment or after that delay) or `linux` (Linux's
    /// quick-ACK mode and delayed-ACK timer, `net/ipv4/tcp_input.c` `tcp_event_data_recv`,
    /// `__tcp_ack_snd_check`, `tcp_send_delayed_ack`: an ACK per segment for the first
    /// min(16, window / 2 MSS) segments and after a duplicate segment, then an ACK once more
    /// than one full segment is unacknowledged or when the timer fires, the timer from the
    /// segment inter-arrival time bounded by 40 ms and the handshake RTT; see `receiver.rs`).
    /// `linux` replaces `delayed_ack`, which must then be absent. Out-of-order segments and a
    /// segment that fills a hole are acknowledged at once under both (RFC 5681 §4.2).
    #[serde(skip_serializing_if = "AckPolicy::is_default")]
    pub ack_policy: AckPolicy,
    /// D-SACK (RFC 2883; Linux `net.ipv4.tcp_dsack = 1`, `tcp_dsack_set`): the ACK of a
    /// duplicate segment reports the duplicate's range as its first SACK block, so a sender
    /// can tell a spurious retransmission. Needs a SACK loss recovery. Default false.
    #[serde(skip_serializing_if = "is_false")]
    pub dsack: bool,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681 §3.2: 3).
    pub dupack_threshold: u32,
    /// SACK blocks the receiver puts in each ACK (1 to 4; default 3).
    pub sack_blocks: u32,
    /// Offer (sender) or accept (receiver) ECN (RFC 3168 §6.1.1); used only when both ends
    /// have it. Default false.
    pub ecn: bool,
    /// NewReno: when a partial ACK restarts the retransmission timer (RFC 6582 §4):
    /// `impatient` (default, first partial ACK only) or `slow_but_steady` (every one).
    pub newreno_partial_ack_timer: PartialAckTimer,
    /// RFC 6675 SACK recovery: when a partial ACK restarts the retransmission timer:
    /// `slow_but_steady` (default, every partial ACK, as RFC 6298 §5.3 restarts it on every
    /// ACK of new data) or `impatient` (the first partial ACK of a recovery episode only, as
    /// ns-3.37's `TcpSocketBase::ProcessAck` does: `NewAck(ack, m_isFirstPartialAck)`).
    #[serde(skip_serializing_if = "PartialAckTimer::is_slow_but_steady")]
    pub sack_partial_ack_timer: PartialAckTimer,
    /// NewReno: cwnd on the full ACK that ends recovery (RFC 6582 §3.2 step 3 allows both):
    /// `ssthresh` (default; ns-2 and Linux) or `flight_size` (min(ssthresh, FlightSize + SMSS)).
    pub newreno_full_ack: FullAckCwnd,
    /// The receiver's window follows the base-station buffer (spec 2 §2.3): present, the
    /// receiver advertises `BsBufferWindow` instead of the fixed `rcv_window`. Absent
    /// (default): the fixed window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bs_buffer: Option<BsBufferConfig>,
    /// Triplicate Reconnection ACKs (spec 2 §2.4, Freeze-TCP): when a link at the receiver's
    /// node comes up, an established receiver sends this many identical ACKs of its
    /// cumulative point carrying its current window. 0 (default): none.
    #[serde(skip_serializing_if = "is_zero")]
    pub reconnection_acks: u32,
    /// The sender's guard against fast retransmit after a timeout (RFC 6582 §4.1; ns-2
    /// `bugFix_`): `after_timeout` (default, today's behaviour) or `none` (spec 2 §2.4: lets
    /// reconnection ACKs trigger a fast retransmit at once).
    #[serde(skip_serializing_if = "RecoverGuard::is_default")]
    pub recover_guard: RecoverGuard,
    /// Whether an ACK counts as a duplicate only if it carries the same window as the last one
    /// (RFC 5681 §2, condition (e)): true (default). False counts any ACK of `snd_una` without
    /// data while data is outstanding, as ns-2 does; study 2 needs it, because its receiver's
    /// window changes with nearly every segment (spec 2 §2.3, §2.4).
    #[serde(skip_serializing_if = "is_true")]
    pub dupack_same_window: bool,
    /// RTO estimator: `rfc6298` (default), `bsd` (fixed point in ticks, study 1 §2.5) or `ns2`
    /// (ns-2.35 `TcpAgent::rtt_update`/`rtt_timeout`/`rtt_backoff`, issue 14 item 4).
    #[serde(skip_serializing_if = "RttEstimatorKind::is_default")]
    pub rtt_estimator: RttEstimatorKind,
    /// Which segments give RTT samples when timestamps are off: `one_per_rtt` (default; one
    /// segment timed at a time, RFC 6298 §3) or `every_segment` (ns-3.37's
    /// `TcpSocketBase::EstimateRtt` with its send history: every new segment's send time is
    /// kept, an ACK covering the oldest kept segment samples it unless it was retransmitted,
    /// and a timeout forgets the history). Karn's rule holds in both.
    #[serde(skip_serializing_if = "RttSampling::is_default")]
    pub rtt_sampling: RttSampling,
    /// The TCP clock tick of the `bsd` and `ns2` estimators: RTT samples are whole ticks
    /// (default 1 ms, spec 1 §2.5 "TICK 1"; ns-2.35's `tcpTick_` is 10 ms).
    #[serde(with = "units::dur", skip_serializing_if = "is_one_ms")]
    pub tick: Dur,
    /// Adaptive RTO floor (study 1 X3): RTO >= k·SRTT once sampled. Absent (default): none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rto_min_srtt_factor: Option<f64>,
    /// Fast retransmit and recovery on duplicate ACKs (default true). False: duplicate ACKs
    /// are counted and otherwise ignored, only the timer recovers (spec 1 §2.5).
    #[serde(skip_serializing_if = "is_true")]
    pub fast_retransmit: bool,
    /// The sender's send buffer, bytes: unacknowledged data never exceeds it (spec 1 §2.5).
    /// Absent (default): unlimited (only cwnd and the peer's window limit the flight).
    #[serde(with = "units::bytes::opt", skip_serializing_if = "Option::is_none")]
    pub send_buffer: Option<u64>,
    /// Send a new segment shorter than MSS when it carries all the data a frame source has put
    /// in the send buffer and the usable window reaches its end (YATS `tcpipsend::calc_send`,
    /// RFC 1122 §4.2.3.4 condition (2) with Nagle off). Default false: such a tail waits for
    /// the source's next block (only full segments from a frame source).
    #[serde(skip_serializing_if = "is_false")]
    pub push_buffered: bool,
    /// With `delayed_ack`, also ACK at once when delivering a segment reopens the window by
    /// at least min(MSS, rcv_window/2) (RFC 1122 §4.2.3.3 window update; the application reads
    /// at once, so the window reopens by the bytes delivered). Default false (spec 1 §2.6).
    #[serde(skip_serializing_if = "is_false")]
    pub ack_window_update: bool,
    /// Abort the connection after this many consecutive timeouts without progress (spec 1
    /// §2.5: 12). Absent (default): never.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_timeouts: Option<u32>,
    /// Limited transmit (RFC 3042; ns-2 `singledup_`, on in ns-2.35): each of the first
    /// DupThresh - 1 duplicate ACKs sends one new segment if the peer's window allows and the
    /// flight stays within cwnd + (duplicate ACKs) SMSS. Default false.
    #[serde(skip_serializing_if = "is_false")]
    pub limited_transmit: bool,
    /// How ssthresh is computed on a loss (fast retransmit or timeout): `rfc5681` (default,
    /// FlightSize/2; a repeated timeout of one segment keeps it) or `ns2` (ns-2.35
    /// `TcpAgent::slowdown`: half of min(cwnd, peer window) in whole segments, at least 2,
    /// cut again on every timeout).
    #[serde(skip_serializing_if = "SsthreshRule::is_default")]
    pub ssthresh_rule: SsthreshRule,
    /// How the receiver echoes CE marks in ECE (with `ecn`): `rfc3168` (default; ECE on every
    /// ACK from a CE segment until a CWR segment, RFC 3168 §6.1.3) or `per_segment` (RFC 8257
    /// §3.2: ECE mirrors the CE mark of the segments an ACK covers; with delayed ACK a change
    /// of CE state first acknowledges the segments before it at once). `dctcp` needs
    /// `per_segment`.
    #[serde(skip_serializing_if = "EcnEcho::is_default")]
    pub ecn_echo: EcnEcho,
    /// DCTCP's estimation gain g in (0, 1] (RFC 8257 §3.3, §4.2: default 1/16).
    #[serde(skip_serializing_if = "is_dctcp_g_default")]
    pub dctcp_g: f64,
    /// The sending host's per-packet processing time (spec 1 §2.5: 0.3 ms, YATS `PROCTIM`):
    /// every packet the sender sends waits in a first-in-first-out server for this long (plus
    /// a draw of `sender_processing_jitter`) before it leaves the host. Absent (default): none.
    /// Not part of the endpoint: the world puts a processing element at the sender's node
    /// (`net::processing`).
    #[serde(with = "units::dur::opt", skip_serializing_if = "Option::is_none")]
    pub sender_processing: Option<Dur>,
    /// With `sender_processing`: each packet's time is drawn uniformly from `[p, p + this]`
    /// (spec 1 §2.5: 0.03 ms, "0.3-0.33 ms"), from the flow's own random stream. Default 0.
    #[serde(with = "units::dur", skip_serializing_if = "is_zero_dur")]
    pub sender_processing_jitter: Dur,
    /// The receiving host's per-packet processing time (spec 1 §2.6: 0.3 ms): every packet
    /// for the receiver waits in a first-in-first-out server for this long before the
    /// receiver sees it. Absent (default): none.
    #[serde(with = "units::dur::opt", skip_serializing_if = "Option::is_none")]
    pub receiver_processing: Option<Dur>,
    /// Loss recovery of the `sack` variant: `rfc6675` (default; scoreboard, IsLost, pipe in
    /// bytes), `prr` (RFC 6937 Proportional Rate Reduction over RFC 6675: cwnd = pipe +
    /// sndcnt on every ACK of the recovery, ns-3's and Linux's default; `recovery/prr.rs`) or
    /// `sack1` (ns-2.35 `Agent/TCP/Sack1`, `tcp/tcp-sack1.cc`: fast retransmit on
    /// the DupThresh-th duplicate ACK only, a pipe counter in packets, holes below the highest
    /// SACK before new data; see `recovery/sack1.rs`). It also picks the recovery of
    /// `loss_recovery = "sack"`; other variants without that key ignore it.
    #[serde(skip_serializing_if = "SackRecoveryKind::is_default")]
    pub sack_recovery: SackRecoveryKind,
    /// The loss recovery, overriding the variant's own (the variant table pairs CUBIC, DCTCP
    /// and BBR with NewReno): `tahoe`, `reno`, `newreno` or `sack` (the SACK recovery named
    /// by `sack_recovery`; both ends then offer SACK). Absent (default): the variant's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss_recovery: Option<LossRecoveryKind>,
    /// ssthresh when the retransmission timer expires during fast recovery: `flight_size`
    /// (default; RFC 5681 §3.1 eq. 4 on the FlightSize of that moment, which includes the new
    /// data recovery sent), `recovery` (keep the ssthresh set on entering recovery, as
    /// Linux's `tcp_enter_loss` does; RFC 5681 allows any value up to eq. 4's) or `pipe`
    /// (with SACK, every first timeout of a segment applies the rule to RFC 6675's pipe
    /// instead of the FlightSize, as ns-3.37's `TcpSocketBase::ReTxTimeout`).
    #[serde(skip_serializing_if = "RtoSsthresh::is_default")]
    pub rto_ssthresh: RtoSsthresh,
    /// With SACK, a retransmission timeout keeps the scoreboard (RFC 6675 §5.1 allows it when
    /// reneging is handled, [Errata 1610]; Linux `tcp_enter_loss` and ns-3.37
    /// `TcpTxBuffer::SetSentListLost(false)` keep SACKed data): go-back-N then skips the
    /// SACKed ranges and sends while the bytes it resent, SACKed ones left out, stay below
    /// cwnd. Default false: the scoreboard is cleared (spec 3 §2.3) and go-back-N resends
    /// everything from snd_una (BBR keeps it either way).
    #[serde(skip_serializing_if = "is_false")]
    pub keep_sack_on_timeout: bool,
    /// Whether a retransmission lost again is detected in the loss phase after a timeout
    /// (where the scoreboard is kept: BBR with SACK, or `keep_sack_on_timeout`). `off`
    /// (default): as RFC 6675 and ns-3.37 (`TcpTxBuffer` never clears a retransmitted
    /// segment's retransmitted flag before it is SACKed or acknowledged), a resent segment
    /// counts in flight until then or until the next timeout. `rack`: RFC 8985 §6.2 with the
    /// reordering window 0 (§6.2 step 4 in loss recovery, no reordering seen): when an ACK
    /// SACKs or acknowledges a resent segment at least the minimum RTT after it was resent
    /// (step 2: sooner, it is taken as the original's), every segment resent before it and
    /// still unSACKed is lost, leaves the flight and is resent again first (Linux
    /// `tcp_rack_mark_lost` in `TCP_CA_Loss`).
    #[serde(skip_serializing_if = "LostRetransmit::is_default")]
    pub lost_retransmit: LostRetransmit,
    /// BBR's send quantum (pacing bursts, and three quanta in the target window): `draft`
    /// (default; draft-cardwell-iccrg-bbr-congestion-control-00 §4.2.2: one segment below
    /// 1.2 Mb/s, two below 24 Mb/s, else 1 ms at the pacing rate up to 64 KB) or `segment`
    /// (always one segment, ns-3.37 `TcpBbr::SetSendQuantum`). Only with `variant = "bbr"`.
    #[serde(skip_serializing_if = "BbrSendQuantum::is_default")]
    pub bbr_send_quantum: BbrSendQuantum,
    /// BBR's ProbeBW phase checks (the 5/4 phase ends at BBRInflight(5/4), the 3/4 phase
    /// early at BBRInflight(1)) and Drain's exit (at BBRInflight(1)) use the target window's
    /// budget, gain × BDP + 3 send quanta (+ 2 segments in the 5/4 phase), as ns-3.37's
    /// `TcpBbr::InFlight` does (draft §4.2.3.2, §4.3.3, §4.3.4.3 without the 2 segments).
    /// Default false: they compare with gain × BDP alone. Only with `variant = "bbr"`.
    #[serde(skip_serializing_if = "is_false")]
    pub bbr_inflight_quanta: bool,
    /// What RFC 6675 recovery (and the flight after a timeout that keeps the scoreboard)
    /// counts in flight: `rfc6675` (default; SetPipe, RFC 6675 §4, over the octets not
    /// SACKed) or `ns3` (ns-3.37's `TcpTxBuffer::BytesInFlight`: a retransmitted segment that
    /// the receiver then SACKs stays in flight until the cumulative ACK passes it or a
    /// timeout clears the retransmission marks). No effect without SACK; ns-2 Sack1's packet
    /// counter (`sack_recovery = "sack1"`) is not this pipe.
    #[serde(skip_serializing_if = "SackPipe::is_default")]
    pub sack_pipe: SackPipe,
    /// A fast retransmit ends the RTT measurement in progress, so the segment being timed
    /// gives no sample when the ACK that follows the repair covers it (ns-2.35
    /// `RenoTcpAgent::dupack_action` and `Sack1TcpAgent::dupack_action` call
    /// `reset_rtx_timer(1, 0)`, which clears `rtt_active_`); the next new segment is timed.
    /// Default false: only a retransmitted segment loses its measurement (Karn, RFC 6298 §3).
    #[serde(skip_serializing_if = "is_false")]
    pub fast_retransmit_stops_timing: bool,
    /// With `sack_recovery = "sack1"`: the SACK scoreboard is kept as ns-2.35's Sack1 keeps
    /// it (`tcp/tcp-sack1.cc`, `ScoreBoard::ClearScoreBoard`). It is cleared at a timeout and
    /// by every ACK of new data outside fast recovery and by the ACK that ends it, whose SACK
    /// blocks are not recorded (`Sack1TcpAgent::recv`, `timeout`); duplicate ACKs between a
    /// timeout and the next ACK of new data are not recorded either (`timeout_`); and the
    /// go-back-N after a timeout does not skip SACKed data (`send_much` sends from
    /// `t_seqno_`), so it resends segments the receiver holds. Default false: the scoreboard
    /// keeps every SACK block above snd_una, and go-back-N skips SACKed ranges.
    #[serde(skip_serializing_if = "is_false")]
    pub sack1_clear_scoreboard: bool,
    /// With `ssthresh_rule = "ns2"`: the window a fast retransmit halves is not rounded to
    /// whole segments (ns-2.35 `TcpAgent::slowdown` with `precisionReduce_ true`, its default:
    /// halfwin = min(cwnd, peer window) / 2 as a real number, ssthresh = (int) halfwin,
    /// cwnd_ = halfwin). Reno's recovery then ends with cwnd = halfwin, not ssthresh
    /// (`RenoTcpAgent::dupack_action` cuts cwnd_ and inflates only `dupwnd_`); Sack1's
    /// recovery runs at cwnd = halfwin and sends while its pipe is below the whole part of
    /// cwnd in segments (`Sack1TcpAgent::send_much`: `pipe_ < int(cwnd_)`). Other recoveries
    /// ignore it. Default false: cwnd after a fast retransmit is whole segments (Sack1) or
    /// ssthresh (Reno).
    #[serde(skip_serializing_if = "is_false")]
    pub precision_reduce: bool,
    /// The ECN reduction as ns-2.35 makes it (`TcpAgent::ecn`, which calls
    /// `slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF)`, `tcp/tcp.cc`): the window halved is
    /// min(cwnd, peer window), not the data in flight; ssthresh = the half in whole segments
    /// (at least 2) and cwnd = the half (unrounded with `precision_reduce`, else in whole
    /// segments; at least one segment). Default false: RFC 3168 §6.1.2 as the Reno
    /// controller makes it, cwnd = ssthresh = max(min(cwnd, FlightSize)/2, 2 SMSS).
    #[serde(skip_serializing_if = "is_false")]
    pub ns2_ecn_cut: bool,
    /// Segment sizes as ns-2.35 counts them (both endpoints): a 40-byte TCP/IP header
    /// (`tcpip_base_hdr_size_`), 8 bytes per SACK block on an ACK with no option kind, length
    /// or padding (`tcp/tcp-sink.cc` `Sacker::append_ack`), no SACK-permitted option on the
    /// SYN (`TcpAgent::output` sends it as `tcpip_base_hdr_size_`), 10 bytes of timestamp on
    /// data segments only (`ts_option_size_`, `TcpAgent::headersize`; the sink's ACKs are
    /// `packetSize_ 40`). Default false: RFC 793 / RFC 2018 / RFC 7323 option layouts padded
    /// to 4 bytes (an ACK with one SACK block is 52 bytes, ns-2's 48; a SACK SYN 44, ns-2's 40).
    #[serde(skip_serializing_if = "is_false")]
    pub ns2_header_sizes: bool,
    /// ns-2's `overhead_` (`TcpAgent::send_much`, `timeout_nonrtx`): each time the sender
    /// could send as its window allows (on an ACK, a timeout, new application data) and
    /// would send something, it instead waits a delay drawn uniformly from [0, this) and then
    /// sends all the window allows; opportunities during the wait add nothing. The fast
    /// retransmission, limited transmit and partial-ACK retransmissions go at once, as ns-2's
    /// direct `output` calls do. A per-flow random stream (`flows.NAME.send_overhead`) gives
    /// the draws. It breaks the phase effects of deterministic timing (Floyd and Jacobson
    /// 1992). Default 0 (off), as in ns-2.35 (`Agent/TCP set overhead_ 0`).
    #[serde(with = "units::dur", skip_serializing_if = "is_zero_dur")]
    pub send_overhead: Dur,
    /// With `variant = "cubic"`: whose CUBIC arithmetic. `rfc9438` (default; `cc/cubic.rs`)
    /// or `ns3` (ns-3.37's `TcpCubic`, `cc/cubic_ns3.rs`: whole-segment target and fast
    /// convergence, no Reno-friendly region, target at t + min SRTT, ssthresh from cwnd, and
    /// growth on the ACK that ends fast recovery).
    #[serde(skip_serializing_if = "CubicModel::is_default")]
    pub cubic_model: CubicModel,
    /// What clears the RTO backoff: `sample` (default; a valid RTT sample, RFC 6298 §5.5 with
    /// Karn's rule, so a flow whose every acknowledged segment was retransmitted keeps
    /// backing off) or `new_ack` (every ACK of new data, as Linux in effect does: its
    /// `tcp_ack_update_rtt` clears `icsk_backoff` on the RTT sample that nearly every such
    /// ACK gives from a never-retransmitted segment's send time or the timestamp echo).
    #[serde(skip_serializing_if = "RtoBackoffReset::is_default")]
    pub rto_backoff_reset: RtoBackoffReset,
    /// How losses are detected outside the timer: `dupthresh` (default; RFC 5681 duplicate
    /// ACKs and RFC 6675 IsLost), `rack` (RFC 8985 RACK in every state: time-based marking
    /// with a reordering window, lost retransmissions found without the timer) or `rack_tlp`
    /// (RACK and the Tail Loss Probe, RFC 8985 §7). RACK needs a SACK loss recovery.
    #[serde(skip_serializing_if = "LossDetection::is_default")]
    pub loss_detection: LossDetection,
    /// How the initial slow start ends: `standard` (default; at ssthresh or the first loss)
    /// or `hystart_pp` (RFC 9406 HyStart++: Conservative Slow Start once the RTT grows,
    /// `cc/hystart.rs`). Any variant but `bbr`; RTT samples on every ACK need `timestamps`.
    #[serde(skip_serializing_if = "SlowStart::is_default")]
    pub slow_start: SlowStart,
    /// When the retransmission timer restarts: `new_ack` (default; RFC 6298 §5.3, an ACK of
    /// new data, and the fast retransmit) or `head_retransmit` (also every retransmission
    /// of the segment at snd_una, as Linux `tcp_xmit_retransmit_queue` re-arms it when it
    /// resends the head of the retransmission queue).
    #[serde(skip_serializing_if = "RtoRearm::is_default")]
    pub rto_rearm: RtoRearm,
    /// With `variant = "bbr"`: what a timeout does to Startup's full-pipe check. `round`
    /// (default): the timeout counts as a round without 25% growth. `reset`: the check
    /// starts over (the plateau reference and count cleared), as Linux `bbr_set_state`
    /// clears `full_bw` on entering `TCP_CA_Loss`.
    #[serde(skip_serializing_if = "BbrTimeoutFullBw::is_default")]
    pub bbr_timeout_full_bw: BbrTimeoutFullBw,
    /// With `variant = "bbr"` and SACK: how BBR's window follows loss recovery. `standard`
    /// (default): each entry into recovery starts a round of packet conservation, and the
    /// window saved by ProbeRTT comes back on the first ACK outside recovery. `linux`: BBR
    /// sees the recovery state once per ACK, after the ACK was processed (Linux `bbr_main` →
    /// `bbr_set_cwnd_to_recover_or_restore` compares `icsk_ca_state` with the previous
    /// ACK's), so a recovery that ends and starts again on the same ACK is one recovery (no
    /// second conservation round, no cut to the pipe); and leaving ProbeRTT restores the
    /// saved window at once, in recovery too (`bbr_check_probe_rtt_done`).
    #[serde(skip_serializing_if = "BbrRecovery::is_default")]
    pub bbr_recovery: BbrRecovery,
    /// With `loss_detection = "rack"` or `"rack_tlp"`: when an ACK outside fast recovery
    /// starts one. `new_loss` (default): when RACK marks a segment lost on it. `lost_out`:
    /// also while a segment marked lost earlier is still outstanding (its retransmission not
    /// yet delivered), as Linux `tcp_time_to_recover` ("the loss is proven": `lost_out`), so
    /// a recovery whose last ACK leaves a lost retransmission in flight goes on at once
    /// (`tcp_fastretrans_alert`: `tcp_try_undo_recovery` opens, then the same ACK re-enters
    /// recovery) instead of waiting in Disorder with the window counted as FlightSize;
    /// nothing is resent on that entry (`tcp_xmit_retransmit_queue` skips segments already
    /// retransmitted).
    #[serde(skip_serializing_if = "RecoveryEntry::is_default")]
    pub recovery_entry: RecoveryEntry,
}

/// When RACK starts fast recovery (the `[tcp]` key `recovery_entry`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryEntry {
    /// On a newly marked loss (the behaviour before this key existed).
    #[default]
    NewLoss,
    /// Also while a segment marked lost is outstanding (Linux `tcp_time_to_recover`).
    LostOut,
}

impl RecoveryEntry {
    fn is_default(&self) -> bool {
        *self == RecoveryEntry::default()
    }
}

/// How BBR's window follows loss recovery (the `[tcp]` key `bbr_recovery`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BbrRecovery {
    /// Per recovery event (the behaviour before this key existed).
    #[default]
    Standard,
    /// Per ACK, as Linux.
    Linux,
}

impl BbrRecovery {
    fn is_default(&self) -> bool {
        *self == BbrRecovery::default()
    }
}

/// When the retransmission timer restarts (the `[tcp]` key `rto_rearm`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoRearm {
    /// ACKs of new data and the fast retransmit (the behaviour before this key existed).
    #[default]
    NewAck,
    /// Also every retransmission of the segment at snd_una (Linux).
    HeadRetransmit,
}

impl RtoRearm {
    fn is_default(&self) -> bool {
        *self == RtoRearm::default()
    }
}

/// BBR's full-pipe check after a timeout (the `[tcp]` key `bbr_timeout_full_bw`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BbrTimeoutFullBw {
    /// A round without growth (the behaviour before this key existed).
    #[default]
    Round,
    /// The check starts over (Linux).
    Reset,
}

impl BbrTimeoutFullBw {
    fn is_default(&self) -> bool {
        *self == BbrTimeoutFullBw::default()
    }
}

/// When the receiver acknowledges (the `[tcp]` key `ack_policy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckPolicy {
    /// Every segment, or `delayed_ack`'s rule (the behaviour before this key existed).
    #[default]
    Standard,
    /// Linux's quick-ACK mode and delayed-ACK timer (`receiver.rs`).
    Linux,
}

impl AckPolicy {
    fn is_default(&self) -> bool {
        *self == AckPolicy::default()
    }
}

/// How the initial slow start ends (the `[tcp]` key `slow_start`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlowStart {
    /// RFC 5681 §3.1 (the behaviour before this key existed).
    #[default]
    Standard,
    /// RFC 9406 HyStart++.
    HystartPp,
}

impl SlowStart {
    fn is_default(&self) -> bool {
        *self == SlowStart::default()
    }
}

/// What clears the RTO backoff (the `[tcp]` key `rto_backoff_reset`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoBackoffReset {
    /// A valid RTT sample (the behaviour before this key existed).
    #[default]
    Sample,
    /// Every ACK of new data (Linux).
    NewAck,
}

impl RtoBackoffReset {
    fn is_default(&self) -> bool {
        *self == RtoBackoffReset::default()
    }
}

/// Loss detection outside the timer (the `[tcp]` key `loss_detection`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossDetection {
    /// Duplicate ACKs (RFC 5681) and RFC 6675 IsLost (the behaviour before this key existed).
    #[default]
    Dupthresh,
    /// RFC 8985 RACK (`rack.rs`).
    Rack,
    /// RFC 8985 RACK and the Tail Loss Probe.
    RackTlp,
}

impl LossDetection {
    fn is_default(&self) -> bool {
        *self == LossDetection::default()
    }

    /// Whether RACK marks losses.
    pub fn rack(&self) -> bool {
        *self != LossDetection::Dupthresh
    }
}

/// Whose CUBIC `variant = "cubic"` runs (the `[tcp]` key `cubic_model`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CubicModel {
    /// RFC 9438 (the behaviour before this key existed).
    #[default]
    Rfc9438,
    /// ns-3.37 `TcpCubic` (Linux 3.14 `tcp_cubic.c` without its TCP-friendliness).
    Ns3,
}

impl CubicModel {
    fn is_default(&self) -> bool {
        *self == CubicModel::default()
    }
}

/// A loss recovery named in a scenario (the `[tcp]` key `loss_recovery`), replacing the
/// recovery of the variant's (congestion control, recovery) pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LossRecoveryKind {
    /// No fast recovery: cwnd = 1 MSS and go-back-N (spec 5 §2.6).
    Tahoe,
    /// RFC 5681 §3.2 fast recovery.
    Reno,
    /// RFC 6582.
    NewReno,
    /// SACK-based recovery: RFC 6675, or ns-2's Sack1 under `sack_recovery = "sack1"`.
    Sack,
}

/// ssthresh on a timeout during fast recovery (the `[tcp]` key `rto_ssthresh`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoSsthresh {
    /// RFC 5681 §3.1 eq. 4 (or the controller's own rule) on the FlightSize at the timeout:
    /// the behaviour before this key existed.
    #[default]
    FlightSize,
    /// Keep the ssthresh set on entering fast recovery (Linux `tcp_enter_loss` skips
    /// `ssthresh()` in the Recovery state); cwnd still falls to the loss window.
    Recovery,
    /// With SACK, the controller's rule on RFC 6675's pipe just before the timeout instead of
    /// the FlightSize, on every timeout that is not a repeat of the same segment's (ns-3.37
    /// `TcpSocketBase::ReTxTimeout`: `GetSsThresh(m_tcb, BytesInFlight())`); without SACK
    /// as `FlightSize`.
    Pipe,
}

impl RtoSsthresh {
    fn is_default(&self) -> bool {
        *self == RtoSsthresh::default()
    }
}

/// BBR's send quantum (the `[tcp]` key `bbr_send_quantum`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BbrSendQuantum {
    /// Draft §4.2.2 (the behaviour before this key existed).
    #[default]
    Draft,
    /// One segment (ns-3.37 `TcpBbr::SetSendQuantum`).
    Segment,
}

impl BbrSendQuantum {
    fn is_default(&self) -> bool {
        *self == BbrSendQuantum::default()
    }
}

/// Detection of retransmissions lost again (the `[tcp]` key `lost_retransmit`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LostRetransmit {
    /// None: a retransmission stays in flight until SACKed, acknowledged or timed out (RFC
    /// 6675, ns-3.37; the behaviour before this key existed).
    #[default]
    Off,
    /// RACK's time order (RFC 8985 §6.2, reordering window 0) in the loss phase after a
    /// timeout.
    Rack,
}

impl LostRetransmit {
    fn is_default(&self) -> bool {
        *self == LostRetransmit::default()
    }
}

/// What the SACK sender counts in flight (the `[tcp]` key `sack_pipe`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SackPipe {
    /// RFC 6675 §4 SetPipe (the behaviour before this key existed).
    #[default]
    Rfc6675,
    /// ns-3.37 `TcpTxBuffer::BytesInFlight`: SetPipe plus the retransmitted bytes SACKed
    /// since (`Update` leaves an item's `m_retrans` set when it SACKs it).
    Ns3,
}

impl SackPipe {
    fn is_default(&self) -> bool {
        *self == SackPipe::default()
    }
}

/// The `sack` variant's loss recovery (the `[tcp]` key `sack_recovery`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SackRecoveryKind {
    /// RFC 6675 (the behaviour before this key existed).
    #[default]
    Rfc6675,
    /// ns-2.35 `Sack1TcpAgent::recv`, `dupack_action`, `send_much`.
    Sack1,
    /// RFC 6937 Proportional Rate Reduction (PRR-SSRB) over RFC 6675's scoreboard and
    /// NextSeg: cwnd = pipe + sndcnt on every ACK of the recovery (`recovery/prr.rs`).
    Prr,
}

impl SackRecoveryKind {
    fn is_default(&self) -> bool {
        *self == SackRecoveryKind::default()
    }
}

fn is_zero_dur(d: &Dur) -> bool {
    *d == Dur::ZERO
}

/// How a receiver echoes CE marks (the `[tcp]` key `ecn_echo`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnEcho {
    /// RFC 3168 §6.1.3: ECE from a CE segment until a segment with CWR arrives; a CE segment
    /// is acknowledged at once.
    #[default]
    Rfc3168,
    /// RFC 8257 §3.2: ECE set exactly when the last segment received was CE; CWR is ignored.
    /// With delayed ACK, a segment whose CE differs from the previous one's first makes the
    /// receiver acknowledge the segments before it at once, with the old ECE.
    PerSegment,
}

impl EcnEcho {
    fn is_default(&self) -> bool {
        *self == EcnEcho::default()
    }
}

fn is_dctcp_g_default(g: &f64) -> bool {
    *g == super::cc::dctcp::G_DEFAULT
}

/// How ssthresh is set on a loss (the `[tcp]` key `ssthresh_rule`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshRule {
    /// RFC 5681 §3.1 eq. 4: max(FlightSize/2, 2 SMSS); FlightSize excludes segments sent by
    /// limited transmit (§3.2 step 2); a segment that times out again keeps ssthresh.
    #[default]
    Rfc5681,
    /// ns-2.35 `TcpAgent::slowdown(CLOSE_SSTHRESH_HALF)`: max(floor(min(cwnd, peer
    /// window) / 2 SMSS), 2) segments, on every fast retransmit and every timeout.
    Ns2,
}

impl SsthreshRule {
    fn is_default(&self) -> bool {
        *self == SsthreshRule::default()
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_one_ms(d: &Dur) -> bool {
    *d == Dur::from_millis(1)
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Whether duplicate ACKs may trigger a fast retransmit while the sender is in its loss
/// phase (after a timeout, or after Tahoe's fast retransmit, until the cumulative ACK reaches
/// the `snd_max` of that moment).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoverGuard {
    /// No fast retransmit for duplicate ACKs during the loss phase (RFC 6582 §4.1; ns-2
    /// `bugFix_` on). The behaviour before this option existed.
    #[default]
    AfterTimeout,
    /// The DupThresh-th duplicate ACK triggers a fast retransmit in every phase but fast
    /// recovery (ns-2 `bugFix_` off; spec 2 §2.4).
    None,
    /// ns-2.35 `bugFix_` as `TcpAgent::dupack_action` and `RenoTcpAgent::dupack_action`
    /// apply it: every fast retransmit and every timeout sets recover = snd_max, and a fast
    /// retransmit needs the cumulative ACK beyond it (snd_una > recover), so Reno makes at
    /// most one fast retransmit per window of data.
    AfterLoss,
}

impl RecoverGuard {
    fn is_default(&self) -> bool {
        *self == RecoverGuard::default()
    }
}

/// Configuration of the base-station-buffer window (spec 2 §2.3), the `[tcp]` key
/// `bs_buffer = { .. }`; every key optional.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BsBufferConfig {
    /// W_max, the largest window advertised and the initial one, bytes (default 16 KiB,
    /// spec 2 §6 Q1).
    #[serde(with = "units::bytes")]
    pub w_max: u64,
    /// W_min, the smallest window advertised, bytes; absent (default) = one MSS (spec 2 §2.3).
    #[serde(with = "units::bytes::opt", skip_serializing_if = "Option::is_none")]
    pub w_min: Option<u64>,
    /// Filter weight a of the new target, in (0, 1] (default 0.5, the paper; 1 = no filter).
    pub alpha: f64,
    /// How the target is formed: `occupancy` (default) or `rate` (spec 2 §2.3, §6 Q2).
    pub mode: BsBufferMode,
    /// Rate mode: the measurement interval τ (default 100 ms, spec 2 §2.3).
    #[serde(with = "units::dur")]
    pub rate_interval: Dur,
}

impl Default for BsBufferConfig {
    fn default() -> Self {
        BsBufferConfig {
            w_max: 16 * 1024,
            w_min: None,
            alpha: 0.5,
            mode: BsBufferMode::Occupancy,
            rate_interval: Dur::from_millis(100),
        }
    }
}

/// How the base-station-buffer window forms its target (spec 2 §2.3, §6 Q2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BsBufferMode {
    /// target = clamp(W_max − Q, W_min, W_max), Q the base station's queue report.
    #[default]
    Occupancy,
    /// target = clamp(bytes received in the last interval τ + MSS, W_min, W_max).
    Rate,
}

/// What NewReno sets cwnd to on the full ACK that ends fast recovery (RFC 6582 §3.2 step 3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FullAckCwnd {
    /// cwnd = ssthresh (option 2; ns-2's and Linux's choice).
    #[default]
    Ssthresh,
    /// cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) (option 1), which avoids a burst when
    /// little is in flight but restarts from a small window when the receive window capped
    /// the new data sent during recovery.
    FlightSize,
}

/// When NewReno restarts the retransmission timer on partial ACKs (RFC 6582 §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartialAckTimer {
    /// Only on the first partial ACK of a recovery episode (RFC 6582 §3.2 step 5).
    #[default]
    Impatient,
    /// On every partial ACK (spec 5 §2.6, the paper's initial setting).
    SlowButSteady,
}

impl PartialAckTimer {
    /// Whether this is `slow_but_steady` (the default of `sack_partial_ack_timer`).
    pub fn is_slow_but_steady(&self) -> bool {
        *self == PartialAckTimer::SlowButSteady
    }
}

/// Which segments give RTT samples when timestamps are off (`rtt_sampling`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSampling {
    /// One segment timed at a time (RFC 6298 §3; the behaviour before the key).
    #[default]
    OnePerRtt,
    /// Every new segment (ns-3.37 `TcpSocketBase::UpdateRttHistory`, `EstimateRtt`).
    EverySegment,
}

impl RttSampling {
    /// Whether this is the default (for `skip_serializing_if`).
    pub fn is_default(&self) -> bool {
        *self == RttSampling::OnePerRtt
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            variant: Variant::NewReno,
            mss: 1460,
            initial_cwnd: 2,
            initial_ssthresh: None,
            rcv_window: 65_536,
            rto_initial: Dur::from_secs(1),
            rto_min: Dur::from_secs(1),
            rto_max: Dur::from_secs(60),
            granularity: Dur::from_millis(1),
            timestamps: false,
            delayed_ack: None,
            ack_policy: AckPolicy::Standard,
            dsack: false,
            dupack_threshold: 3,
            sack_blocks: 3,
            ecn: false,
            newreno_partial_ack_timer: PartialAckTimer::Impatient,
            sack_partial_ack_timer: PartialAckTimer::SlowButSteady,
            newreno_full_ack: FullAckCwnd::Ssthresh,
            bs_buffer: None,
            reconnection_acks: 0,
            recover_guard: RecoverGuard::AfterTimeout,
            dupack_same_window: true,
            rtt_estimator: RttEstimatorKind::Rfc6298,
            rtt_sampling: RttSampling::OnePerRtt,
            tick: Dur::from_millis(1),
            rto_min_srtt_factor: None,
            fast_retransmit: true,
            send_buffer: None,
            push_buffered: false,
            ack_window_update: false,
            max_timeouts: None,
            limited_transmit: false,
            ssthresh_rule: SsthreshRule::Rfc5681,
            ecn_echo: EcnEcho::Rfc3168,
            dctcp_g: super::cc::dctcp::G_DEFAULT,
            sender_processing: None,
            sender_processing_jitter: Dur::ZERO,
            receiver_processing: None,
            sack_recovery: SackRecoveryKind::Rfc6675,
            loss_recovery: None,
            rto_ssthresh: RtoSsthresh::FlightSize,
            fast_retransmit_stops_timing: false,
            keep_sack_on_timeout: false,
            lost_retransmit: LostRetransmit::Off,
            bbr_send_quantum: BbrSendQuantum::Draft,
            bbr_inflight_quanta: false,
            sack_pipe: SackPipe::Rfc6675,
            sack1_clear_scoreboard: false,
            precision_reduce: false,
            ns2_ecn_cut: false,
            ns2_header_sizes: false,
            send_overhead: Dur::ZERO,
            cubic_model: CubicModel::Rfc9438,
            rto_backoff_reset: RtoBackoffReset::Sample,
            loss_detection: LossDetection::Dupthresh,
            slow_start: SlowStart::Standard,
            rto_rearm: RtoRearm::NewAck,
            bbr_timeout_full_bw: BbrTimeoutFullBw::Round,
            bbr_recovery: BbrRecovery::Standard,
            recovery_entry: RecoveryEntry::NewLoss,
        }
    }
}

impl TcpConfig {
    /// Whether the loss recovery is SACK-based, so both ends offer SACK in the handshake
    /// (RFC 2018 §2): the `sack` variant without `loss_recovery`, or `loss_recovery = sack`.
    pub fn offers_sack(&self) -> bool {
        match self.loss_recovery {
            Some(r) => r == LossRecoveryKind::Sack,
            None => self.variant == Variant::Sack,
        }
    }

    /// Checks the values; the error names the offending key and says what was expected.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.mss == 0 || self.mss > 65_000 {
            return Err(("mss", format!("expected 1..=65000 bytes, got {}", self.mss)));
        }
        if self.initial_cwnd == 0 {
            return Err(("initial_cwnd", "expected at least 1 segment".into()));
        }
        if self.rcv_window < self.mss as u64 {
            return Err((
                "rcv_window",
                format!("expected at least one MSS ({} bytes)", self.mss),
            ));
        }
        if self.rcv_window > u32::MAX as u64 / 2 {
            return Err(("rcv_window", "expected less than 2 GiB".into()));
        }
        if self.rto_min > self.rto_max {
            return Err(("rto_min", "expected rto_min <= rto_max".into()));
        }
        if self.rto_initial == Dur::ZERO {
            return Err(("rto_initial", "expected a positive duration".into()));
        }
        // RFC 6298 (2.4): the RTO, the first one included, is kept within [min, max].
        if self.rto_initial < self.rto_min || self.rto_initial > self.rto_max {
            return Err((
                "rto_initial",
                format!(
                    "expected rto_min ({}) <= rto_initial <= rto_max ({}); got {}",
                    self.rto_min, self.rto_max, self.rto_initial
                ),
            ));
        }
        if self.dupack_threshold == 0 {
            return Err(("dupack_threshold", "expected at least 1".into()));
        }
        if !(1..=4).contains(&self.sack_blocks) {
            return Err((
                "sack_blocks",
                format!("expected 1 to 4, got {}", self.sack_blocks),
            ));
        }
        if let Some(s) = self.initial_ssthresh {
            if s < 2 * self.mss as u64 {
                return Err(("initial_ssthresh", "expected at least 2 MSS".into()));
            }
        }
        if let Some(b) = &self.bs_buffer {
            self.validate_bs_buffer(b)?;
        }
        if self.tick == Dur::ZERO {
            return Err(("tick", "expected a positive duration".into()));
        }
        if let Some(k) = self.rto_min_srtt_factor {
            if !(k.is_finite() && k > 0.0) {
                return Err((
                    "rto_min_srtt_factor",
                    format!("expected a positive factor, got {k}"),
                ));
            }
        }
        if let Some(b) = self.send_buffer {
            if b < self.mss as u64 {
                return Err((
                    "send_buffer",
                    format!("expected at least one MSS ({} bytes), got {b}", self.mss),
                ));
            }
        }
        if self.max_timeouts == Some(0) {
            return Err(("max_timeouts", "expected at least 1".into()));
        }
        if !(self.dctcp_g > 0.0 && self.dctcp_g <= 1.0) {
            return Err((
                "dctcp_g",
                format!("expected a gain in (0, 1], got {}", self.dctcp_g),
            ));
        }
        if self.cubic_model != CubicModel::Rfc9438 && self.variant != Variant::Cubic {
            return Err((
                "cubic_model",
                format!(
                    "only applies to variant = \"cubic\" (the variant is \"{}\")",
                    self.variant
                ),
            ));
        }
        if self.sack_recovery == SackRecoveryKind::Prr && self.variant == Variant::Bbr {
            return Err((
                "sack_recovery",
                "\"prr\" does not apply to variant = \"bbr\" (BBR sets its own recovery window; \
                 ns-3's TcpBbr skips the recovery algorithm too)"
                    .into(),
            ));
        }
        if self.variant == Variant::Dctcp {
            // RFC 8257 §3.1-3.2: DCTCP needs ECN, and the receiver's per-segment echo.
            if !self.ecn {
                return Err((
                    "ecn",
                    "expected ecn = true with variant = \"dctcp\" (RFC 8257 needs ECN)".into(),
                ));
            }
            if self.ecn_echo != EcnEcho::PerSegment {
                return Err((
                    "ecn_echo",
                    "expected ecn_echo = \"per_segment\" with variant = \"dctcp\" (RFC 8257 \
                     §3.2: the receiver echoes each segment's CE mark)"
                        .into(),
                ));
            }
        }
        // Processing times: below one second (spec 1's are 0.3 ms; a longer one is a typo).
        for (key, d) in [
            ("sender_processing", self.sender_processing),
            (
                "sender_processing_jitter",
                Some(self.sender_processing_jitter),
            ),
            ("receiver_processing", self.receiver_processing),
        ] {
            if d.is_some_and(|d| d >= Dur::from_secs(1)) {
                return Err((
                    key,
                    "expected a per-packet processing time below 1 s, e.g. \"0.3ms\"".into(),
                ));
            }
        }
        if self.send_overhead >= Dur::from_secs(1) {
            return Err((
                "send_overhead",
                format!(
                    "expected a duration below 1 s (ns-2 overhead_), got {}",
                    self.send_overhead
                ),
            ));
        }
        if self.sender_processing_jitter > Dur::ZERO && self.sender_processing.is_none() {
            return Err((
                "sender_processing_jitter",
                "only allowed with sender_processing (the jitter is added to it)".into(),
            ));
        }
        for (key, set) in [
            ("bbr_send_quantum", !self.bbr_send_quantum.is_default()),
            ("bbr_inflight_quanta", self.bbr_inflight_quanta),
            (
                "bbr_timeout_full_bw",
                !self.bbr_timeout_full_bw.is_default(),
            ),
            ("bbr_recovery", !self.bbr_recovery.is_default()),
        ] {
            if set && self.variant != Variant::Bbr {
                return Err((key, "only allowed with variant = \"bbr\"".into()));
            }
        }
        if self.lost_retransmit != LostRetransmit::Off && !self.offers_sack() {
            return Err((
                "lost_retransmit",
                "expected a SACK loss recovery (variant = \"sack\" or loss_recovery = \"sack\"): \
                 lost retransmissions are found from SACK blocks"
                    .into(),
            ));
        }
        if self.loss_detection.rack() && !self.offers_sack() {
            return Err((
                "loss_detection",
                "expected a SACK loss recovery (variant = \"sack\" or loss_recovery = \"sack\"): \
                 RACK (RFC 8985 §2) needs SACK"
                    .into(),
            ));
        }
        if self.recovery_entry != RecoveryEntry::NewLoss && !self.loss_detection.rack() {
            return Err((
                "recovery_entry",
                "\"lost_out\" needs loss_detection = \"rack\" or \"rack_tlp\" (the segments \
                 marked lost are RACK's)"
                    .into(),
            ));
        }
        if self.loss_detection.rack() && self.sack_recovery == SackRecoveryKind::Sack1 {
            return Err((
                "loss_detection",
                "\"rack\" does not apply to sack_recovery = \"sack1\" (ns-2's pipe counter)".into(),
            ));
        }
        if self.loss_detection.rack() && self.lost_retransmit != LostRetransmit::Off {
            return Err((
                "lost_retransmit",
                "not with loss_detection = \"rack\" (RACK finds lost retransmissions itself)"
                    .into(),
            ));
        }
        if self.slow_start == SlowStart::HystartPp && self.variant == Variant::Bbr {
            return Err((
                "slow_start",
                "\"hystart_pp\" does not apply to variant = \"bbr\" (BBR's Startup ends itself)"
                    .into(),
            ));
        }
        if self.ack_policy == AckPolicy::Linux && self.delayed_ack.is_some() {
            return Err((
                "ack_policy",
                "\"linux\" sets its own delayed-ACK timer (Linux's tcp_send_delayed_ack), so \
                 delayed_ack must be absent; remove delayed_ack, or set ack_policy = \
                 \"standard\" for a fixed delay"
                    .into(),
            ));
        }
        if self.dsack && !self.offers_sack() {
            return Err((
                "dsack",
                "expected a SACK loss recovery (variant = \"sack\" or loss_recovery = \"sack\"): \
                 D-SACK (RFC 2883) reports duplicates in SACK blocks"
                    .into(),
            ));
        }
        if self.reconnection_acks > 16 {
            return Err((
                "reconnection_acks",
                format!("expected 0 to 16, got {}", self.reconnection_acks),
            ));
        }
        Ok(())
    }

    /// The `bs_buffer` table; keys are reported as `bs_buffer.KEY`.
    fn validate_bs_buffer(&self, b: &BsBufferConfig) -> Result<(), (&'static str, String)> {
        let mss = self.mss as u64;
        if b.w_max < mss || b.w_max > u32::MAX as u64 / 2 {
            return Err((
                "bs_buffer.w_max",
                format!(
                    "expected one MSS ({mss} bytes) to 2 GiB, got {} bytes",
                    b.w_max
                ),
            ));
        }
        // The sender sends only full segments and has no persist timer: a window below one
        // MSS with nothing in flight would stall the connection for good.
        if let Some(w) = b.w_min {
            if w < mss || w > b.w_max {
                return Err((
                    "bs_buffer.w_min",
                    format!(
                        "expected one MSS ({mss} bytes) to w_max ({} bytes), got {w} bytes",
                        b.w_max
                    ),
                ));
            }
        }
        if !(b.alpha > 0.0 && b.alpha <= 1.0) {
            return Err((
                "bs_buffer.alpha",
                format!("expected a weight in (0, 1], got {}", b.alpha),
            ));
        }
        if b.rate_interval == Dur::ZERO {
            return Err((
                "bs_buffer.rate_interval",
                "expected a positive duration".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_ecn_validate_bad_sack_blocks_refused() {
        assert_eq!(TcpConfig::default().validate(), Ok(()));
        let c = TcpConfig {
            ecn: true,
            ..TcpConfig::default()
        };
        assert_eq!(c.validate(), Ok(()), "ECN is implemented (RFC 3168)");
        let c = TcpConfig {
            sack_blocks: 5,
            ..TcpConfig::default()
        };
        assert_eq!(c.validate().unwrap_err().0, "sack_blocks");
    }

    // spec 2 §2.3: W_min >= 1 MSS (the window never closes), W_min <= W_max, a in (0, 1].
    #[test]
    fn bs_buffer_out_of_range_refused_naming_the_key() {
        let with = |b: BsBufferConfig| TcpConfig {
            mss: 1000,
            bs_buffer: Some(b),
            ..TcpConfig::default()
        };
        assert_eq!(with(BsBufferConfig::default()).validate(), Ok(()));
        for (b, key) in [
            (
                BsBufferConfig {
                    w_max: 999,
                    ..Default::default()
                },
                "bs_buffer.w_max",
            ),
            (
                BsBufferConfig {
                    w_min: Some(500),
                    ..Default::default()
                },
                "bs_buffer.w_min",
            ),
            (
                BsBufferConfig {
                    w_min: Some(20_000),
                    ..Default::default()
                },
                "bs_buffer.w_min",
            ),
            (
                BsBufferConfig {
                    alpha: 0.0,
                    ..Default::default()
                },
                "bs_buffer.alpha",
            ),
            (
                BsBufferConfig {
                    alpha: 1.5,
                    ..Default::default()
                },
                "bs_buffer.alpha",
            ),
            (
                BsBufferConfig {
                    rate_interval: Dur::ZERO,
                    ..Default::default()
                },
                "bs_buffer.rate_interval",
            ),
        ] {
            assert_eq!(with(b).validate().unwrap_err().0, key);
        }
    }

    // Study 1 keys: defaults leave other studies as they were; values parse; bad ones are
    // refused naming the key.
    #[test]
    fn atm_keys_default_off_parse_and_validate() {
        let d = TcpConfig::default();
        assert_eq!(d.rtt_estimator, RttEstimatorKind::Rfc6298);
        assert_eq!(
            (d.fast_retransmit, d.send_buffer, d.ack_window_update),
            (true, None, false)
        );
        assert_eq!((d.max_timeouts, d.rto_min_srtt_factor), (None, None));
        assert!(!d.push_buffered);
        assert!(!toml::to_string(&d).unwrap().contains("push_buffered"));
        let p: TcpConfig = toml::from_str("push_buffered = true").unwrap();
        assert!(p.push_buffered);
        assert!(toml::from_str::<TcpConfig>("push_buffered = 1").is_err());
        assert!(!toml::to_string(&d).unwrap().contains("tick"));
        let c: TcpConfig = toml::from_str(
            "rtt_estimator = \"bsd\"\ntick = \"1ms\"\nfast_retransmit = false\nsend_buffer = 64000\nack_window_update = true\nmax_timeouts = 12",
        )
        .unwrap();
        assert_eq!(c.rtt_estimator, RttEstimatorKind::Bsd);
        assert_eq!((c.send_buffer, c.max_timeouts), (Some(64_000), Some(12)));
        assert_eq!(c.validate(), Ok(()));
        for (bad, key) in [
            (
                TcpConfig {
                    tick: Dur::ZERO,
                    ..d.clone()
                },
                "tick",
            ),
            (
                TcpConfig {
                    send_buffer: Some(10),
                    ..d.clone()
                },
                "send_buffer",
            ),
            (
                TcpConfig {
                    max_timeouts: Some(0),
                    ..d.clone()
                },
                "max_timeouts",
            ),
            (
                TcpConfig {
                    rto_min_srtt_factor: Some(-1.0),
                    ..d.clone()
                },
                "rto_min_srtt_factor",
            ),
        ] {
            assert_eq!(bad.validate().unwrap_err().0, key);
        }
        assert!(toml::from_str::<TcpConfig>("rtt_estimator = \"ns3\"").is_err());
    }

    // The new keys' defaults leave every existing configuration as it was.
    #[test]
    fn wireless_keys_default_off_and_parse() {
        let d = TcpConfig::default();
        assert_eq!(
            (
                d.bs_buffer.clone(),
                d.reconnection_acks,
                d.recover_guard,
                d.dupack_same_window
            ),
            (None, 0, RecoverGuard::AfterTimeout, true)
        );
        let c: TcpConfig = toml::from_str(
            "bs_buffer = { w_max = \"64KiB\", mode = \"rate\" }\nreconnection_acks = 3\nrecover_guard = \"none\"",
        )
        .unwrap();
        let b = c.bs_buffer.unwrap();
        assert_eq!((b.w_max, b.w_min, b.alpha), (65_536, None, 0.5));
        assert_eq!(b.mode, BsBufferMode::Rate);
        assert_eq!(c.reconnection_acks, 3);
        assert_eq!(c.recover_guard, RecoverGuard::None);
    }
}
