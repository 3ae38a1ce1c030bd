//! Queue disciplines, drop reasons and queue statistics.
//!
//! A FIFO egress decides at enqueue time whether a packet is admitted; once admitted, its place
//! in line (and so its departure time, on a fixed-rate link) is fixed. That lets the link
//! schedule the packet's arrival at the next hop at once, with no transmission-complete event
//! (DESIGN.md, Performance). Admission policies therefore implement [`Admission`]: given the
//! queue's current state they return a [`Verdict`]. DropTail, RED and RIO are such policies:
//! they decide on arrival and serve in FIFO order. Schedulers that reorder packets (WRR,
//! priority, [`Classful`]) keep the pull model with a TxDone event: a second egress kind
//! ([`QueueDisc::Classful`]) whose class queues each have an admission policy of their own.
//! Meters and markers (token bucket, srTCM, trTCM) and the DSCP classifier are in `marker`.
//!
//! AQMs that decide at dequeue (CoDel, RFC 8289) cannot be admission policies: a third egress
//! kind ([`QueueDisc::Aqm`]) holds their packets by arena id with their arrival times and
//! runs in the pull model. Packets such a discipline drops at dequeue are handed back to the
//! caller ([`DequeueEffects`]) to free and count.
//!
//! The disciplines with keys of their own (RED, RIO, CoDel, FQ-CoDel, PIE, head-drop) are a
//! registry: one file here and one row in `queue_disciplines!` each, from which the enums
//! above and the scenario's queue keys are generated (`docs/extending.md`, "How to add a
//! queue discipline").
//!
//! Bookkeeping identity, checked in debug builds and by tests:
//! `arrivals = drops (all reasons) + departures + waiting`.

mod classful;
mod droptail;
mod marker;

/// A 1000-byte UDP packet (972 payload bytes) from address 0 to 1, ECT(0) when `ect`: the unit
/// the AQM tests (CoDel, PIE) queue.
#[cfg(test)]
pub(crate) fn test_packet(ect: bool) -> crate::packet::Packet {
    use crate::packet::{Body, Ecn, Packet};
    let mut p = Packet::new(
        crate::ids::Addr(0),
        crate::ids::Addr(1),
        Body::Udp {
            seq: 0,
            payload: 972,
        },
    );
    p.size = 1000;
    if ect {
        p.ecn = Ecn::Ect0;
    }
    p
}

pub use classful::{ClassQueue, Classful, Scheduler, Wrr};
pub use codel::{
    CoDel, CoDelConfig, CoDelLaw, CoDelParams, CoDelState, DequeueEffects, Held, HeldFifo,
};
pub use droptail::DropTail;
pub use fq_codel::{FqCoDel, FqCoDelConfig};
pub use marker::{
    AnyMarker, Class, Classifier, Color, ColorCounts, FlowClassConfig, MarkerConfig, MarkerIdx,
    MeterMode, SrTcm, SrTcmConfig, TokenBucket, TokenBucketConfig, TrTcm, TrTcmConfig,
};
pub use pie::{Pie, PieBurstMode, PieConfig};
pub use red::{
    EcnAction, EcnMode, Red, RedConfig, RedCore, RedDecision, RedOptions, RedParams, RedState,
    StepNonEct,
};
pub use rio::{Rio, RioConfig, RioState};

use crate::packet::{Packet, Precedence};
use packetsim_kernel::stats::TimeAverage;
use packetsim_kernel::{Rate, Rng, Slab, Time};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a packet was dropped. Every drop in the simulator carries one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DropReason {
    /// The queue was full.
    Overflow,
    /// An active queue management policy dropped it early: RED/RIO between the thresholds
    /// or above a step, CoDel's control law at dequeue.
    Early,
    /// The average queue was above the maximum threshold (RED/RIO).
    Forced,
    /// The link's error model corrupted it (uniform loss or bit errors).
    Error,
    /// The link was down (scheduled outage).
    LinkDown,
    /// No route to the destination.
    NoRoute,
    /// A control message reached its destination node and no element there took it.
    Unclaimed,
    /// A cell link (`atm::port`) dropped one of the packet's cells, so the receiver's AAL5
    /// discarded the frame (the switch counts the cells by cause).
    CellLoss,
    /// An 802.11 MAC gave the frame up at its retry limit (`wifi`).
    MacRetryLimit,
    /// An 802.11 MAC's interface queue was full (`wifi`).
    MacQueue,
}

impl DropReason {
    /// Every reason, in report order.
    pub const ALL: [DropReason; 10] = [
        DropReason::Overflow,
        DropReason::Early,
        DropReason::Forced,
        DropReason::Error,
        DropReason::LinkDown,
        DropReason::NoRoute,
        DropReason::Unclaimed,
        DropReason::CellLoss,
        DropReason::MacRetryLimit,
        DropReason::MacQueue,
    ];

    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::Early => "early",
            DropReason::Forced => "forced",
            DropReason::Error => "error",
            DropReason::LinkDown => "link_down",
            DropReason::NoRoute => "no_route",
            DropReason::Unclaimed => "unclaimed",
            DropReason::CellLoss => "cell_loss",
            DropReason::MacRetryLimit => "mac_retry_limit",
            DropReason::MacQueue => "mac_queue",
        }
    }
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What an admission policy decided for an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Queue it unchanged.
    Queued,
    /// Queue it with the ECN CE mark set.
    Marked,
    /// Drop it, for this reason.
    Dropped(DropReason),
}

/// What an admission policy sees of the queue when a packet arrives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueView {
    /// Packets and bytes waiting (not counting the one being transmitted).
    pub len: QueueLen,
    /// Waiting packets of IN precedence (RIO's q_in).
    pub in_packets: u32,
    /// When the link went idle (queue empty and nothing in transmission), if it is idle now:
    /// RED's idle-time correction of the average.
    pub idle_since: Option<Time>,
}

/// The queue's length that an admission policy may look at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueLen {
    /// Packets waiting (not counting the one being transmitted).
    pub packets: u32,
    /// Bytes waiting.
    pub bytes: u64,
}

/// A FIFO admission policy: decides on arrival, never reorders.
///
/// A policy may change the packet it admits: set CE (returning [`Verdict::Marked`]) and, for
/// the study's ECN scheme, lower its drop precedence. Statistics by precedence are counted by
/// the caller on the packet as it arrived.
pub trait Admission {
    /// Decides for `pkt` arriving at `now` to a queue in state `q`; `rng` is the queue's own
    /// random stream.
    fn admit(&mut self, now: Time, q: &QueueView, pkt: &mut Packet, rng: &mut Rng) -> Verdict;
}

/// The queue disciplines with keys of their own: the registry. One row each, in the order
/// scenarios list them; `fifo` rows decide on arrival (an [`Admission`] policy, kept on the
/// lazy FIFO, boxed in [`AnyAdmission`]), `dequeue` rows decide at dequeue (a
/// [`DequeueDisc`], run in the pull model inside [`AnyAqm`]). A row reads `Variant key:
/// Config`: the enum variant, the `kind = "key"` that selects it (also the name of the
/// sub-table that holds its keys, `queue = { kind = "key", key = { .. } }`, and the name of
/// its file, `queue/key.rs`, which the row declares as a module) and its [`QueueConfig`]
/// type in that file, which says everything else (keys, defaults, validation, construction).
///
/// The table is a macro that hands the rows to another macro (`$then`), so that each layer
/// generates its own closed enum from the one list: [`AnyAdmission`], [`AnyAqm`] and
/// [`AqmConfig`] here, the scenario file's `RawQueue` in `scenario/schema.rs`. The enums
/// keep enum dispatch on the packet path (no `Box<dyn>`, no allocation per packet); the
/// list of disciplines is written once. DropTail (the keys `limit` and `ns2_limit` on the
/// queue table itself) and the classful schedulers (`wrr`, `priority`) are not rows: the
/// transmitter's fast path and the class queues know them by name.
macro_rules! queue_disciplines {
    ($then:ident) => {
        $then! {
            fifo {
                /// Random Early Detection (spec 4 §2.3; `red.rs`). Boxed, as is RIO: their
                /// state (about 170 bytes) would otherwise sit in every link direction's
                /// `Egress`, DropTail ones included (issue 36: memory per flow).
                Red red: RedConfig,
                /// RED with IN and OUT, coupled (spec 4 §2.4; `rio.rs`).
                Rio rio: RioConfig,
            }
            dequeue {
                /// CoDel (RFC 8289; `codel.rs`).
                CoDel codel: CoDelConfig,
                /// FQ-CoDel (RFC 8290; `fq_codel.rs`).
                FqCoDel fq_codel: FqCoDelConfig,
                /// PIE (RFC 8033; `pie.rs`).
                Pie pie: PieConfig,
                /// A FIFO that drops the oldest packet to admit a new one when full (Linux
                /// `pfifo_head_drop`; `drophead.rs`).
                DropHead drophead: DropHeadConfig,
            }
        }
    };
}
pub(crate) use queue_disciplines;

/// A queue discipline's configuration, one per file in `queue/`: its keys are the fields of
/// the type (a serde struct with `deny_unknown_fields` and documented defaults, read from
/// the queue's sub-table of the same name as the kind), checked by [`QueueConfig::validate`]
/// and turned into the runtime discipline by [`QueueConfig::build`]. Registered by one row
/// of `queue_disciplines!`.
pub trait QueueConfig: Clone + Default + fmt::Debug + PartialEq {
    /// The runtime discipline: an [`Admission`] policy for a `fifo` row, a [`DequeueDisc`]
    /// for a `dequeue` row.
    type Disc;
    /// Checks the values; the error names the offending key inside the sub-table (dotted
    /// for a nested one: `in.min_th`) and says what was expected.
    fn validate(&self) -> Result<(), (&'static str, String)>;
    /// The discipline of one link direction of `rate`, from a validated config.
    fn build(&self, rate: Rate) -> Self::Disc;
}

/// A discipline that decides at dequeue (or drops other packets than the arrival): it
/// holds its packets by arena id and runs in the pull model ([`QueueDisc::Aqm`]).
pub trait DequeueDisc {
    /// Offers packet `id` (contents `pkt`) at `now`; `rng` is the queue's own random stream.
    /// Packets it drops other than the arrival go to `fx.dropped`.
    fn enqueue(
        &mut self,
        now: Time,
        id: u32,
        pkt: &mut Packet,
        rng: &mut Rng,
        fx: &mut DequeueEffects,
    ) -> Verdict;
    /// The packet to send at `now` (id and size), after the discipline's drops and marks
    /// (in `fx`; marks are set in `packets`).
    fn dequeue(
        &mut self,
        now: Time,
        packets: &mut Slab<Packet>,
        fx: &mut DequeueEffects,
    ) -> Option<Held>;
    /// Packets and bytes waiting.
    fn len(&self) -> QueueLen;
}

/// Generates the queue layer's enums from the rows of `queue_disciplines!`.
macro_rules! queue_enums {
    (
        fifo { $( $(#[$fm:meta])* $F:ident $fk:ident: $FC:ident, )* }
        dequeue { $( $(#[$dm:meta])* $D:ident $dk:ident: $DC:ident, )* }
    ) => {
        $( pub mod $fk; )*
        $( pub mod $dk; )*

        /// The admission policies a scenario can choose (enum dispatch, no allocation):
        /// DropTail and the `fifo` rows of `queue_disciplines!`.
        #[derive(Clone, Debug)]
        pub enum AnyAdmission {
            /// Drop arrivals when the queue is full.
            DropTail(DropTail),
            $( $(#[$fm])* $F(Box<<$fk::$FC as QueueConfig>::Disc>), )*
        }

        impl Admission for AnyAdmission {
            #[inline(always)]
            fn admit(&mut self, now: Time, q: &QueueView, pkt: &mut Packet, rng: &mut Rng) -> Verdict {
                match self {
                    AnyAdmission::DropTail(d) => d.admit(now, q, pkt, rng),
                    $( AnyAdmission::$F(r) => r.admit(now, q, pkt, rng), )*
                }
            }
        }

        /// The dequeue-time disciplines a scenario can choose (enum dispatch): the `dequeue`
        /// rows of `queue_disciplines!`.
        #[derive(Clone, Debug)]
        pub enum AnyAqm {
            $( $(#[$dm])* $D(<$dk::$DC as QueueConfig>::Disc), )*
        }

        impl AnyAqm {
            /// Offers packet `id` (contents `pkt`) at `now`. Packets it drops other than the
            /// arrival go to `fx.dropped`.
            #[inline]
            pub fn enqueue(
                &mut self,
                now: Time,
                id: u32,
                pkt: &mut Packet,
                rng: &mut Rng,
                fx: &mut DequeueEffects,
            ) -> Verdict {
                match self {
                    $( AnyAqm::$D(d) => DequeueDisc::enqueue(d, now, id, pkt, rng, fx), )*
                }
            }

            /// The packet to send at `now` (id and size), after the discipline's drops and
            /// marks (in `fx`; marks are set in `packets`).
            #[inline]
            pub fn dequeue(
                &mut self,
                now: Time,
                packets: &mut Slab<Packet>,
                fx: &mut DequeueEffects,
            ) -> Option<Held> {
                match self {
                    $( AnyAqm::$D(d) => DequeueDisc::dequeue(d, now, packets, fx), )*
                }
            }

            /// Packets and bytes waiting.
            pub fn len(&self) -> QueueLen {
                match self {
                    $( AnyAqm::$D(d) => DequeueDisc::len(d), )*
                }
            }
        }

        /// The validated configuration of a registered discipline (a row of
        /// `queue_disciplines!`), from which each link direction's discipline is built.
        #[derive(Clone, Debug, PartialEq)]
        pub enum AqmConfig {
            $( $(#[$fm])* $F($fk::$FC), )*
            $( $(#[$dm])* $D($dk::$DC), )*
        }

        impl AqmConfig {
            /// The `kind` values of the `fifo` rows, in registry order.
            pub const FIFO: &'static [&'static str] = &[$(stringify!($fk)),*];
            /// The `kind` values of the `dequeue` rows, in registry order.
            pub const DEQUEUE: &'static [&'static str] = &[$(stringify!($dk)),*];

            /// Its `kind` value (and sub-table name).
            pub fn name(&self) -> &'static str {
                match self {
                    $( AqmConfig::$F(_) => stringify!($fk), )*
                    $( AqmConfig::$D(_) => stringify!($dk), )*
                }
            }

            /// Whether it decides at dequeue (a link direction's whole queue: not a class's,
            /// not a radio link's per-mobile queue).
            pub fn decides_at_dequeue(&self) -> bool {
                Self::DEQUEUE.contains(&self.name())
            }

            /// Checks the values ([`QueueConfig::validate`]).
            pub fn validate(&self) -> Result<(), (&'static str, String)> {
                match self {
                    $( AqmConfig::$F(c) => QueueConfig::validate(c), )*
                    $( AqmConfig::$D(c) => QueueConfig::validate(c), )*
                }
            }

            /// The admission policy of a `fifo` row on a link of `rate` (None for a
            /// `dequeue` row).
            pub fn admission(&self, rate: Rate) -> Option<AnyAdmission> {
                let _ = rate;
                match self {
                    $( AqmConfig::$F(c) => Some(AnyAdmission::$F(Box::new(c.build(rate)))), )*
                    _ => None,
                }
            }

            /// A fresh discipline for one link direction of `rate`.
            pub fn build(&self, rate: Rate) -> QueueDisc {
                let _ = rate;
                match self {
                    $( AqmConfig::$F(c) => QueueDisc::Fifo(AnyAdmission::$F(Box::new(c.build(rate)))), )*
                    $( AqmConfig::$D(c) => QueueDisc::Aqm(Box::new(AnyAqm::$D(c.build(rate)))), )*
                }
            }
        }
    };
}

queue_disciplines!(queue_enums);

/// The queueing discipline of one link direction.
#[derive(Debug)]
pub enum QueueDisc {
    /// One FIFO whose admission policy decides on arrival (lazy: one event per hop).
    Fifo(AnyAdmission),
    /// Class queues under a scheduler (pull model: a TxDone event per packet).
    Classful(Box<Classful>),
    /// A discipline that decides at dequeue (pull model: a TxDone event per packet).
    Aqm(Box<AnyAqm>),
}

/// A queue limit, in packets or in bytes (one unit, never both). Written in scenarios as an
/// integer (packets) or a byte count with a unit (`"64KiB"`); both must be positive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    /// At most this many packets waiting.
    Packets(u32),
    /// At most this many bytes waiting.
    Bytes(u64),
}

impl Serialize for QueueLimit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            QueueLimit::Packets(n) => s.serialize_u32(*n),
            QueueLimit::Bytes(b) => s.serialize_str(&format!("{b}B")),
        }
    }
}

impl<'de> Deserialize<'de> for QueueLimit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{self, Visitor};
        struct V;
        const WHAT: &str = "a queue limit: an integer number of packets (e.g. 50) or a byte count with a unit (e.g. \"64KiB\")";
        impl Visitor<'_> for V {
            type Value = QueueLimit;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(WHAT)
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<QueueLimit, E> {
                match u32::try_from(n) {
                    Ok(p) if p > 0 => Ok(QueueLimit::Packets(p)),
                    _ => Err(E::custom(format!(
                        "expected a queue limit of 1 to {} packets; got {n}",
                        u32::MAX
                    ))),
                }
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<QueueLimit, E> {
                self.visit_i64(i64::try_from(n).unwrap_or(-1))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<QueueLimit, E> {
                if s.trim().bytes().all(|b| b.is_ascii_digit()) {
                    return Err(E::custom(format!(
                        "expected {WHAT}; got the string {s:?} without a unit (write {} for packets or \"{}B\" for bytes)",
                        s.trim(),
                        s.trim()
                    )));
                }
                match crate::units::parse_bytes(s) {
                    Ok(0) => Err(E::custom(format!(
                        "expected a positive queue limit; got {s:?}"
                    ))),
                    Ok(b) => Ok(QueueLimit::Bytes(b)),
                    Err(e) => Err(E::custom(e)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// Counters of one drop precedence at a queue, counted on the packet as it arrived.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PrecedenceStats {
    /// Packets of this precedence offered.
    pub arrivals: u64,
    /// Dropped early (RED/RIO, between the thresholds).
    pub early: u64,
    /// Dropped because the average was above the maximum threshold.
    pub forced: u64,
    /// Dropped because the queue was full.
    pub overflow: u64,
    /// Given the ECN action (CE set) instead of an early drop.
    pub marks: u64,
}

/// Counters of one queue.
#[derive(Clone, Debug, Default)]
pub struct QueueStats {
    /// Per drop precedence, indexed by [`Precedence`] (IN, OUT).
    pub by_precedence: [PrecedenceStats; 2],
    /// Packets offered to the queue.
    pub arrivals: u64,
    /// Packets that left the queue for the transmitter.
    pub departures: u64,
    /// Packets dropped at the queue, by reason (indexed like [`DropReason::ALL`]).
    pub drops: [u64; DropReason::ALL.len()],
    /// Packets ECN-marked at the queue.
    pub marks: u64,
    /// Bytes offered.
    pub arrival_bytes: u64,
    /// Time-weighted length in packets (waiting, not counting the one in transmission).
    pub len: TimeAverage,
}

impl QueueStats {
    /// Counts an arrival of precedence `p` and what became of it.
    pub fn count_verdict(&mut self, p: Precedence, v: Verdict) {
        let s = &mut self.by_precedence[p as usize];
        s.arrivals += 1;
        match v {
            Verdict::Queued => {}
            Verdict::Marked => s.marks += 1,
            Verdict::Dropped(DropReason::Early) => s.early += 1,
            Verdict::Dropped(DropReason::Forced) => s.forced += 1,
            Verdict::Dropped(DropReason::Overflow) => s.overflow += 1,
            Verdict::Dropped(_) => {}
        }
    }

    /// Counts a drop.
    pub fn drop(&mut self, r: DropReason) {
        self.drops[r as usize] += 1;
    }
    /// Drops for one reason.
    pub fn drops_for(&self, r: DropReason) -> u64 {
        self.drops[r as usize]
    }
    /// Drops for every reason.
    pub fn total_drops(&self) -> u64 {
        self.drops.iter().sum()
    }
}
