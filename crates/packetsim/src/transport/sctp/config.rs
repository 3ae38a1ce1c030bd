//! SCTP configuration: one [`SctpConfig`] per association (both ends), read from the
//! scenario's `[sctp]` defaults table merged with the flow's own `sctp = { .. }` table. Defaults
//! are RFC 4960's protocol parameters (§15) except where spec 3 (the study) fixes another value:
//! the fast-retransmit threshold of 4 missing reports (RFC 2960 with the implementer's guide)
//! and RFC 2960's lack of a fast-recovery guard.

use crate::units;
use packetsim_kernel::Dur;
use serde::{Deserialize, Serialize};

/// Where retransmissions go (spec 3 §2.5, the variable of Figs 4-6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtxPolicy {
    /// Every retransmission, fast or on timeout, goes to an active destination other than the
    /// one the chunk was last sent to (RFC 2960 §6.4).
    #[default]
    Alternate,
    /// Retransmissions go to the destination the chunk was last sent to, unless it is inactive.
    Same,
    /// Fast retransmissions stay on the same destination; timeout retransmissions go to an
    /// alternate (an extension).
    AlternateTimeoutsOnly,
}

/// How the heartbeat period of an idle destination is drawn (spec 3 §2.5, Q2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeartbeatJitter {
    /// `HB.interval + RTO + U(-RTO/2, +RTO/2)` (RFC 2960 §8.3, ns-2).
    #[default]
    Rfc,
    /// `HB.interval + U(-HB.interval/2, +HB.interval/2)`, the paper's "30 s ± 0-15 s".
    Paper,
}

/// What "MTU" means in cwnd arithmetic (initial cwnd, slow-start increments, the ssthresh
/// floor, T3's 1-MTU cwnd, the idle decay's 4 MTU).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CwndUnit {
    /// The path MTU, IP header included (RFC 2960/4960 §7.2).
    #[default]
    Mtu,
    /// The MTU minus the IP and SCTP common headers (1468 B at MTU 1500: one full DATA
    /// chunk), ns-2.35's `uiMaxDataSize` (`SctpAgent::Reset`), which all of its cwnd
    /// arithmetic uses.
    MaxData,
}

/// Configuration of one SCTP association.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SctpConfig {
    /// Path MTU in bytes, IP header included (default 1500: one 1452-byte DATA chunk).
    pub mtu: u32,
    /// Largest user data per DATA chunk; absent means what fills one MTU
    /// (MTU - 20 - 12 - 16, i.e. 1452 for 1500).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_chunk_data: Option<u32>,
    /// Initial cwnd per destination, in MTUs (default 2; RFC 2960 §7.2.1).
    pub initial_cwnd_mtus: u32,
    /// Initial ssthresh per destination in bytes; absent means the peer's rwnd.
    #[serde(with = "units::bytes::opt", skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u64>,
    /// The receive buffer each end advertises (default 65,536 B, ns-2's).
    #[serde(with = "units::bytes")]
    pub rwnd: u64,
    /// Missing reports that trigger fast retransmit (default 4, RFC 2960 + implementer's guide;
    /// RFC 4960 uses 3).
    pub fast_rtx_threshold: u32,
    /// RFC 4960 §7.2.4 fast recovery: at most one cwnd cut per window (default off, RFC 2960).
    pub fast_recovery: bool,
    /// ssthresh floor on a cut, in MTUs: 2 (default, RFC 2960 §7.2.3) or 4 (RFC 4960 §7.2.3,
    /// ns-2.35 `SctpAgent::FastRtx` / `Timeout`).
    #[serde(skip_serializing_if = "is_two")]
    pub ssthresh_floor_mtus: u32,
    /// A T3 expiry cuts ssthresh only while cwnd > 1 MTU (ns-2.35 `SctpAgent::Timeout`;
    /// default false, RFC 2960: every expiry cuts).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub t3_cut_above_one_mtu: bool,
    /// Packets sent per send opportunity at most (default 4; 0 means unlimited).
    pub max_burst: u32,
    /// RTO.Initial (3 s).
    #[serde(with = "units::dur")]
    pub rto_initial: Dur,
    /// RTO.Min (1 s).
    #[serde(with = "units::dur")]
    pub rto_min: Dur,
    /// RTO.Max (60 s).
    #[serde(with = "units::dur")]
    pub rto_max: Dur,
    /// HB.interval (30 s).
    #[serde(with = "units::dur")]
    pub hb_interval: Dur,
    /// How the heartbeat period is jittered (default `rfc`).
    pub hb_jitter: HeartbeatJitter,
    /// Heartbeat each non-primary destination right after setup (default true, as ns-2).
    pub hb_on_setup: bool,
    /// Heartbeat a destination right after a retransmission timeout on it (ns-2's
    /// `HbAfterRto`; default false, an extension).
    pub hb_after_rto: bool,
    /// Path.Max.Retrans (5).
    pub path_max_retrans: u32,
    /// Association.Max.Retrans (10).
    pub assoc_max_retrans: u32,
    /// Abort the association when its error count exceeds Association.Max.Retrans (default
    /// false: the study logs the event and continues, spec 3 §2.5).
    pub abort_on_assoc_max: bool,
    /// Delayed SACK timeout; absent: SACK every packet (default 200 ms).
    #[serde(with = "units::dur::opt", skip_serializing_if = "Option::is_none")]
    pub sack_delay: Option<Dur>,
    /// Packets received before a delayed SACK is sent (default 2).
    pub sack_every: u32,
    /// Where retransmissions go (default `alternate`).
    pub rtx_policy: RtxPolicy,
    /// Streams opened (default 1).
    pub streams: u16,
    /// Send user data unordered (the U bit; default false).
    pub unordered: bool,
    /// RFC 4960 §7.2.1 initial cwnd: min(4·MTU, max(2·MTU, 4380 B)) in place of
    /// `initial_cwnd_mtus` (ns-2.35 `SctpAgent::Reset`, whatever `initialCwnd_` says). Default
    /// false (RFC 2960 §7.2.1: `initial_cwnd_mtus`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub initial_cwnd_rfc4960: bool,
    /// RFC 4960 §7.2.1 idle-destination decay: when nothing has been sent to a destination for
    /// one RTO, cwnd = max(cwnd/2, 4·MTU) if cwnd is above its initial value, again every RTO
    /// (ns-2.35 `SctpAgent::CwndDegradeTimerExpiration`; the timer restarts at each packet sent
    /// there and stops at a T3 expiry). Default false (RFC 2960).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub idle_cwnd_decay: bool,
    /// Path verification before the first DATA (RFC 4960 §5.4; ns-2.35 after COOKIE-ACK): the
    /// client sends a HEARTBEAT to every destination, resends it to an unconfirmed one when
    /// it goes unanswered for an RTO, and sends no DATA until every destination has answered.
    /// Default false: DATA right after COOKIE-ACK.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub path_verification: bool,
    /// What "MTU" means in cwnd arithmetic (default `mtu`; `max_data`: ns-2.35's
    /// `uiMaxDataSize`, the MTU minus the IP and SCTP common headers).
    #[serde(skip_serializing_if = "is_default")]
    pub cwnd_unit: CwndUnit,
    /// Restart a destination's T3-rtx when a retransmission carries the lowest-TSN chunk
    /// outstanding there (RFC 4960 §7.2.4 rule 5 / §6.3.2; ns-2.35 `SctpAgent::RtxMarkedChunks`):
    /// the chunk's old destination if it still has data outstanding, and the destination it
    /// goes to if nothing of a lower TSN is outstanding there. Default false: T3 only starts
    /// when not running (§6.3.2 R1) and restarts when the earliest outstanding chunk is acked (R3).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub t3_restart_on_rtx: bool,
    /// No new DATA while any chunk of the association waits for retransmission (ns-2.35
    /// `SctpAgent::recv`: `SendMuch` only when `eMarkedChunksPending` is false). Default false:
    /// the check is per destination (RFC 4960 §6.1 C), so new data may go to the primary while
    /// retransmissions wait for the alternate's cwnd.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub new_data_waits_for_rtx: bool,
    /// A fast retransmit and a T3 expiry send one packet of marked chunks and nothing else:
    /// the other marked chunks (and new data) wait for the next SACK (ns-2.35
    /// `RtxMarkedChunks(RTX_LIMIT_ONE_PACKET)` from `FastRtx` and `TimeoutRtx`; in
    /// `SctpAgent::ProcessSackChunk` the cwnd-limited `RTX_LIMIT_CWND` call is the `else` of
    /// `FastRtx`, and `SctpAgent::Timeout` sends nothing more). New data still follows a fast
    /// retransmit if nothing remains marked. Default false: after the first packet the marked
    /// chunks go out as cwnd allows (RFC 4960 §6.1 C).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rtx_one_packet: bool,
    /// Apply `max_burst` only to the send opportunity after a SACK that cumulatively acks a
    /// fast-retransmitted chunk, until a burst reaches the limit (ns-2.35 `eApplyMaxBurst`,
    /// set in `SendBufferDequeueUpTo`, cleared in `SendMuch` / `RtxMarkedChunks`); otherwise
    /// unlimited. Default false: every send opportunity is limited.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub max_burst_after_fast_rtx: bool,
    /// Count missing reports with the HTNA rule as ns-2.35 codes it
    /// (`SctpAgent::ProcessGapAckBlocks`): only TSNs below the highest TSN newly acknowledged
    /// (a value kept across SACKs, set by the cumulative ack and raised by gap blocks), or,
    /// when the cumulative ack advances and that TSN is not above the fast-recovery exit point,
    /// below the highest TSN SACKed (RFC 4960 §7.2.4's exception). Default false (RFC 2960
    /// §7.2.4): every TSN below the highest TSN a gap block covers.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub htna: bool,
    /// A fast-retransmit cwnd cut cancels the pending RTT measurement of the destination it
    /// cuts (ns-2.35 `SctpAgent::FastRtx`: `eRtoPending = FALSE`). Default false: a
    /// measurement ends only when its chunk is acked or marked for retransmission (Karn).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cancel_rtt_on_cut: bool,
    /// With `fast_recovery`: a fast retransmit cuts a destination's cwnd again, and moves the
    /// exit point to the highest TSN sent, when a chunk last sent there and marked for
    /// retransmission (fast or after a timeout) is above the exit point, even while the
    /// cumulative ack is still below it (ns-2.35 `SctpAgent::FastRtx`: the cut applies to
    /// marked chunks with TSN > `uiRecover`, and `uiRecover` is reset at each cut; cwnd grows
    /// only once the cumulative ack reaches it, `ProcessSackChunk`). Default false (RFC 4960
    /// §7.2.4): no further cut until the exit point is acked.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut_above_recover: bool,
    /// When the receiver SACKs at once (ns-2.35 `SctpAgent::ProcessChunk`): for the packet
    /// with the peer's first TSN (ns-2 cites RFC 4960 §5.1 and tests `uiTsn == 1`), and only
    /// when a gap remains after the packet's chunks are in; the packet that fills the last
    /// gap, and a duplicate while no gap is open, wait for the delayed SACK. Default false
    /// (RFC 4960 §6.7, spec 3 §2.5): every packet arriving while a gap is open, the one that
    /// fills it included, and every duplicate go at once; the first packet waits for a second.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sack_after_gap_only: bool,
    /// A preset written in a scenario (`rfc = 2960 | 4960`): the loader fills the keys of
    /// [`SctpConfig::rfc_preset`] that the same table does not set. Absent: no preset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rfc: Option<u32>,
}

impl Default for SctpConfig {
    fn default() -> Self {
        SctpConfig {
            mtu: 1500,
            max_chunk_data: None,
            initial_cwnd_mtus: 2,
            initial_ssthresh: None,
            rwnd: 65_536,
            fast_rtx_threshold: 4,
            fast_recovery: false,
            ssthresh_floor_mtus: 2,
            t3_cut_above_one_mtu: false,
            max_burst: 4,
            rto_initial: Dur::from_secs(3),
            rto_min: Dur::from_secs(1),
            rto_max: Dur::from_secs(60),
            hb_interval: Dur::from_secs(30),
            hb_jitter: HeartbeatJitter::Rfc,
            hb_on_setup: true,
            hb_after_rto: false,
            path_max_retrans: 5,
            assoc_max_retrans: 10,
            abort_on_assoc_max: false,
            sack_delay: Some(Dur::from_millis(200)),
            sack_every: 2,
            rtx_policy: RtxPolicy::Alternate,
            streams: 1,
            unordered: false,
            initial_cwnd_rfc4960: false,
            idle_cwnd_decay: false,
            path_verification: false,
            cwnd_unit: CwndUnit::Mtu,
            t3_restart_on_rtx: false,
            new_data_waits_for_rtx: false,
            rtx_one_packet: false,
            max_burst_after_fast_rtx: false,
            htna: false,
            cancel_rtt_on_cut: false,
            cut_above_recover: false,
            sack_after_gap_only: false,
            rfc: None,
        }
    }
}

impl SctpConfig {
    /// User data bytes per DATA chunk.
    pub fn chunk_data(&self) -> u32 {
        self.max_chunk_data.unwrap_or_else(|| {
            self.mtu
                .saturating_sub(crate::packet::IP_HEADER_BYTES)
                .saturating_sub(crate::packet::SCTP_COMMON_HEADER_BYTES)
                .saturating_sub(crate::packet::DATA_CHUNK_HEADER_BYTES)
        })
    }

    /// The keys an `rfc = N` preset sets, with their values: RFC 2960 (the study's SCTP, these
    /// options' defaults) or RFC 4960 (fast-recovery guard §7.2.4, 3 missing reports §7.2.4,
    /// ssthresh floor 4 MTU §7.2.3, initial cwnd §7.2.1, idle decay §7.2.1). ns-2.35-only
    /// rules (`t3_cut_above_one_mtu`, `path_verification`) are in neither; `profile = "ns2"`
    /// sets them. None for another number.
    pub fn rfc_preset(rfc: i64) -> Option<[(&'static str, toml::Value); 5]> {
        let on = match rfc {
            2960 => false,
            4960 => true,
            _ => return None,
        };
        Some([
            ("fast_recovery", toml::Value::Boolean(on)),
            (
                "fast_rtx_threshold",
                toml::Value::Integer(if on { 3 } else { 4 }),
            ),
            (
                "ssthresh_floor_mtus",
                toml::Value::Integer(if on { 4 } else { 2 }),
            ),
            ("initial_cwnd_rfc4960", toml::Value::Boolean(on)),
            ("idle_cwnd_decay", toml::Value::Boolean(on)),
        ])
    }

    /// Fills the keys of an `rfc` preset that `t` does not set itself (a scenario's `[sctp]`
    /// or a flow's `sctp` table). Err: the message for a value that is not 2960 or 4960.
    pub fn expand_rfc(t: &mut toml::Table) -> Result<(), String> {
        let Some(v) = t.get("rfc") else {
            return Ok(());
        };
        let preset = v
            .as_integer()
            .and_then(SctpConfig::rfc_preset)
            .ok_or_else(|| format!("expected 2960 or 4960, got {v}"))?;
        for (k, v) in preset {
            t.entry(k).or_insert(v);
        }
        Ok(())
    }

    /// The bytes of one "MTU" in cwnd arithmetic (`cwnd_unit`).
    pub fn cwnd_mtu(&self) -> u64 {
        match self.cwnd_unit {
            CwndUnit::Mtu => self.mtu as u64,
            CwndUnit::MaxData => {
                (self.mtu
                    - crate::packet::IP_HEADER_BYTES
                    - crate::packet::SCTP_COMMON_HEADER_BYTES) as u64
            }
        }
    }

    /// The initial cwnd of a destination, bytes: RFC 2960 `initial_cwnd_mtus`·MTU, or with
    /// `initial_cwnd_rfc4960` min(4·MTU, max(2·MTU, 4380)) (RFC 4960 §7.2.1); MTU per
    /// `cwnd_unit`.
    pub fn initial_cwnd(&self) -> u64 {
        let mtu = self.cwnd_mtu();
        if self.initial_cwnd_rfc4960 {
            (4 * mtu).min((2 * mtu).max(4380))
        } else {
            self.initial_cwnd_mtus as u64 * mtu
        }
    }

    /// Checks the values make sense; the error names the offending key (relative to the
    /// `sctp` table) and what was expected.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let bad = |k: &'static str, m: &str| Err((k, m.to_string()));
        let overhead = crate::packet::IP_HEADER_BYTES
            + crate::packet::SCTP_COMMON_HEADER_BYTES
            + crate::packet::DATA_CHUNK_HEADER_BYTES;
        if self.mtu <= overhead + 4 {
            return bad("mtu", &format!("expected more than {} bytes", overhead + 4));
        }
        if let Some(c) = self.max_chunk_data {
            if c == 0 || c > self.mtu - overhead {
                return bad(
                    "max_chunk_data",
                    &format!(
                        "expected 1 to {} bytes (MTU minus headers)",
                        self.mtu - overhead
                    ),
                );
            }
        }
        if self.initial_cwnd_mtus == 0 {
            return bad("initial_cwnd_mtus", "expected at least 1");
        }
        if self.rwnd < self.mtu as u64 {
            return bad("rwnd", "expected at least one MTU");
        }
        if self.fast_rtx_threshold == 0 {
            return bad("fast_rtx_threshold", "expected at least 1");
        }
        if !(1..=64).contains(&self.ssthresh_floor_mtus) {
            return bad(
                "ssthresh_floor_mtus",
                "expected 1 to 64 (RFC 2960: 2, RFC 4960: 4)",
            );
        }
        if self.rto_min == Dur::ZERO {
            return bad("rto_min", "expected a positive duration");
        }
        if self.rto_min > self.rto_max {
            return bad("rto_min", "expected at most rto_max");
        }
        if self.rto_initial < self.rto_min || self.rto_initial > self.rto_max {
            return bad(
                "rto_initial",
                "expected a value between rto_min and rto_max",
            );
        }
        if self.hb_interval == Dur::ZERO {
            return bad("hb_interval", "expected a positive duration");
        }
        if self.sack_every == 0 {
            return bad("sack_every", "expected at least 1");
        }
        if self.streams == 0 {
            return bad("streams", "expected at least 1");
        }
        if self.rfc.is_some_and(|r| r != 2960 && r != 4960) {
            return bad("rfc", "expected 2960 or 4960");
        }
        Ok(())
    }
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

fn is_two(n: &u32) -> bool {
    *n == 2
}
