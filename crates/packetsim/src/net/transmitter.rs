//! The transmitter of one link direction ([`Egress`]): queue discipline, transmission at a
//! rate that may change, propagation delay, error model, link state with an outage policy, and
//! hooks on arrival and on dequeue.
//!
//! # Modes ([`TransmitterMode`]), picked by the transmitter
//!
//! A direction is in exactly one mode, kept in [`Egress::mode`]; the setters below move it
//! between them, and a mode added later (a data-centre link's pause, issue 36) is one more
//! variant with its rule here.
//!
//! - **Lazy FIFO** ([`TransmitterMode::Lazy`], and [`TransmitterMode::Plain`] for its
//!   fastest case: DropTail, no arrival hook, no error model; one event per hop). The
//!   transmitter's free time is known,
//!   so an admitted packet's start of transmission, its end and its arrival at the far end are
//!   all computed on enqueue ([`Egress::send`]). Waiting packets are remembered only by their
//!   start times and popped as the clock passes them ([`Egress::drain`]), which gives exact
//!   queue lengths and time averages. Plain and Lazy follow the queue, hooks and error model
//!   ([`Egress::set_queue`], [`Egress::add_arrival_hook`], [`Egress::set_errors`]).
//! - **Pull** ([`TransmitterMode::Pull`], a TxDone event per packet). Packets wait in the arena, held by id
//!   ([`Egress::enqueue_held`]); when the transmitter frees, the world asks for the next one
//!   ([`Egress::start_next`]). Used whenever the lazy FIFO cannot know a departure on enqueue:
//!   a classful discipline (WRR, priority), a discipline that decides at dequeue (CoDel:
//!   [`QueueDisc::Aqm`]; packets it drops there are handed to the world by
//!   [`Egress::queue_drops`]), a dequeue hook (the packet is tagged with the queue
//!   as it is when it leaves), a rate that will change, or a `hold` outage policy. The builder
//!   declares these before the run ([`Egress::expect_changes`], [`Egress::add_dequeue_hook`]),
//!   so a scheduled rate change finds the direction already in pull mode and retimes every
//!   queued packet.
//!
//! - **Slotted** ([`TransmitterMode::Slotted`]): a port that sends on a slot grid (an ATM
//!   cell switch output, study 1) behind the [`SlottedPort`] trait; it takes every packet
//!   and the world drives it with one TxDone per busy slot ([`Egress::set_cells`]). The queue
//!   discipline, rate changes, outages and hooks do not apply to it.
//!
//! Pull and Slotted are final: nothing moves a direction back to a lazy mode. A change that
//! arrives at run time on a lazy direction nobody declared switches it to pull
//! mode at once: packets it had already admitted keep the times computed for them (they are
//! committed to the wire), and packets admitted from then on wait for the pull transmitter,
//! which starts when the last committed one has left.
//!
//! # Rates, outages and losses
//!
//! - A rate change applies to every packet whose transmission starts after it; the packet in
//!   transmission finishes at the rate it started with (ns-2's `bandwidth_` semantics).
//! - Link state is up or down. With [`OutagePolicy::Blind`] (the default) the transmitter keeps
//!   sending while the link is down and every packet whose transmission or propagation overlaps
//!   a down interval is lost (reason `link_down`). Scheduled outages are known intervals
//!   ([`ErrorModel::outages`]), so a lazy packet admitted before an outage but sent into it is
//!   lost exactly; the builder also schedules the outage's down and up changes, so that the
//!   endpoints at both ends hear of them. An outage nobody scheduled (an element taking a link
//!   down) switches the direction to pull mode and loses every packet that starts while it
//!   lasts; on a lazy FIFO, packets admitted before it keep the fate decided at admission. With
//!   [`OutagePolicy::Hold`] the transmitter starts nothing while the link is down and keeps its
//!   queue; a packet already in transmission when the link goes down finishes and is delivered
//!   (the link layer completes the frame it started). Nothing is lost to a `hold` outage.
//! - Error model decisions (uniform loss, bit errors) are drawn when a packet starts, in
//!   transmission order, from this direction's own RNG stream. A lost packet still occupies the
//!   transmitter (it is corrupted on the wire). With [`ErrorModel::before_queue`] they are
//!   drawn instead as each packet arrives, before the arrival hooks and the queue (ns-2.35's
//!   `$ns lossmodel`, which puts the error module at the head of the link): a lost packet
//!   takes no queue slot and no transmitter time, and is counted in both `lost_error` and
//!   `lost_before_queue`, not in `transmitted` nor in the queue's arrivals.
//!
//! # Hooks
//!
//! Values in two lists, run in order: [`ArrivalHook`]s see each packet before the queue (a
//! DiffServ edge classifies and marks data packets), [`DequeueHook`]s see each packet as it
//! leaves the queue, before its transmission time is computed (a base station writes its queue
//! report into [`Meta`](crate::packet::Meta)).

use super::slotted::SlottedPort;
use super::DirectionParams;
use crate::ids::{LinkId, NodeId};
use crate::packet::{Ecn, Packet, Precedence};
use crate::queue::{
    Admission, AnyAdmission, Classifier, DequeueEffects, DropReason, DropTail, QueueDisc, QueueLen,
    QueueLimit, QueueStats, QueueView, Verdict,
};
use packetsim_kernel::stats::TimeAverage;
use packetsim_kernel::{Dur, Rate, Rng, Slab, Time};
use std::collections::VecDeque;

/// Random and scheduled losses on one link direction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ErrorModel {
    /// Probability that a packet is lost, independently of all others (Bernoulli).
    pub loss: f64,
    /// Probability that a bit is corrupted; a packet of n bits survives with (1 - ber)^n.
    pub ber: f64,
    /// Intervals `[from, to)` during which the link is down and packets sent into it are lost
    /// (the `blind` policy's scheduled outages), sorted and disjoint.
    pub outages: Vec<(Time, Time)>,
    /// `loss`, `ber` and `drop_list` apply as packets arrive, before the queue (ns-2
    /// `lossmodel`), rather than as they start on the wire (false, the default). Outages stay
    /// on the wire.
    pub before_queue: bool,
    /// Indices of the packets lost for certain, strictly increasing: the direction counts the
    /// packets its error model sees from 0 (arrivals before the queue, transmissions on the
    /// wire) and loses exactly the listed ones, on top of `loss` and `ber` (ns-2.35
    /// `ErrorModel/List` with `unit pkt`, errmodel.cc `ListErrorModel::corrupt`).
    pub drop_list: Vec<u64>,
}

/// The error model of a direction that has none ([`Egress::errors`] when nothing was set).
static NO_ERRORS: ErrorModel = ErrorModel {
    loss: 0.0,
    ber: 0.0,
    outages: Vec::new(),
    before_queue: false,
    drop_list: Vec::new(),
};

/// A direction's error model with its random stream and its position in the drop list:
/// boxed in [`Egress`], which holds one only once an error model was set (most directions
/// have none).
#[derive(Debug)]
struct Lossy {
    errors: ErrorModel,
    /// The error model's random stream (`Rng::from_seed(Egress::seed)` when made).
    rng: Rng,
    /// [`ErrorModel::drop_list`]: packets its error model has seen, and the next list entry.
    list_pos: (u64, usize),
}

impl Lossy {
    /// Whether the error model loses the next packet it sees, of `size` bytes: the random
    /// draw (made whether or not the packet is listed, so the list leaves the random fates
    /// as they were), or the packet's index in [`ErrorModel::drop_list`].
    #[inline]
    fn errs(&mut self, size: u32) -> bool {
        let random = self.errors.corrupts(&mut self.rng, size);
        if self.errors.drop_list.is_empty() {
            return random;
        }
        let (seen, next) = &mut self.list_pos;
        let listed = self.errors.drop_list.get(*next) == Some(seen);
        *next += listed as usize;
        *seen += 1;
        random || listed
    }

    /// Whether a packet on the wire from `from` until it arrives at `to` meets a scheduled
    /// outage.
    #[inline]
    fn down_during(&self, from: Time, to: Time) -> bool {
        !self.errors.outages.is_empty() && self.errors.down_during(from, to)
    }
}

/// The hooks of a direction that has any (boxed in [`Egress`]).
#[derive(Debug, Default)]
struct Hooks {
    arrival: Vec<ArrivalHook>,
    dequeue: Vec<DequeueHook>,
}

/// The admission policy's random stream of the direction whose error stream is
/// `Rng::from_seed(seed)` (RED's drop decisions).
fn queue_stream(seed: u64) -> Rng {
    Rng::from_seed(Rng::from_seed(seed).next_u64() ^ 0x5157_5545_5545_0000)
}

/// `slot`'s admission stream, made the first time a discipline asks for it.
#[inline]
fn queue_rng(slot: &mut Option<Box<Rng>>, seed: u64) -> &mut Rng {
    slot.get_or_insert_with(|| Box::new(queue_stream(seed)))
}

impl ErrorModel {
    /// No random loss, no bit errors, no scheduled outage.
    #[inline]
    fn is_none(&self) -> bool {
        self.loss == 0.0
            && self.ber == 0.0
            && self.outages.is_empty()
            && !self.before_queue
            && self.drop_list.is_empty()
    }

    fn down_during(&self, from: Time, to: Time) -> bool {
        self.outages.iter().any(|&(a, b)| from < b && a <= to)
    }

    fn corrupts(&self, rng: &mut Rng, size: u32) -> bool {
        let mut p = self.loss;
        if self.ber > 0.0 {
            let survive = (1.0 - self.ber).powf(size as f64 * 8.0);
            p = 1.0 - (1.0 - p) * survive;
        }
        p > 0.0 && rng.bernoulli(p)
    }
}

/// Where a link direction's random losses (`loss`, `ber`) act: the link key
/// `loss_position = "wire" | "before_queue"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossPosition {
    /// As a packet starts on the wire: a lost packet still takes transmitter time (default).
    #[default]
    Wire,
    /// As a packet arrives, before the queue (ns-2.35 `$ns lossmodel`): a lost packet takes
    /// no queue slot and no transmitter time.
    BeforeQueue,
}

/// What a transmitter does while its link is down (spec 2 §2.5, spec 5 §2.2). Written in
/// scenarios as `outage_policy = "blind" | "hold"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutagePolicy {
    /// The link layer does not know: it keeps transmitting, and every packet sent into the
    /// outage is lost.
    #[default]
    Blind,
    /// The link layer knows: it starts nothing while down and keeps its queue.
    Hold,
}

/// A change to one link direction at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkChange {
    /// The transmission rate becomes this.
    Rate(Rate),
    /// The link goes down.
    Down,
    /// The link comes back up.
    Up,
}

/// A hook run on each packet arriving at a direction, before the queue sees it.
#[derive(Debug)]
pub enum ArrivalHook {
    /// A DiffServ edge: classifies and meters data packets, setting DSCP and precedence.
    /// Packets without payload (ACKs, SYNs) pass unchanged.
    DiffServEdge(Box<Classifier>),
}

/// A hook run on each packet as it leaves the queue (pull mode only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DequeueHook {
    /// Writes the bytes still queued behind the packet into `meta.queue_report` (spec 2 §2.2:
    /// the base station's report of the mobile's queue). Only data packets are tagged. With
    /// classes per destination (several mobiles sharing one transmitter), the bytes are those
    /// of the packet's own class: its mobile's queue, not the others'.
    /// `wire_bytes` is added to the packet's size (0: the report is free, a side field).
    QueueReport {
        /// Bytes the report costs on the wire.
        wire_bytes: u32,
    },
}

/// Counters of one link direction.
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// Packets that entered the transmitter.
    pub transmitted: u64,
    /// Bytes that entered the transmitter.
    pub transmitted_bytes: u64,
    /// Packets lost to the error model.
    pub lost_error: u64,
    /// Of `lost_error`, those lost before the queue ([`ErrorModel::before_queue`]): they never
    /// entered the transmitter.
    pub lost_before_queue: u64,
    /// Packets lost to outages.
    pub lost_down: u64,
    /// Packets that reached the far end.
    pub delivered: u64,
    /// Total transmission time (for utilisation).
    pub busy: Dur,
}

/// What [`Egress::start_next`] started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Started {
    /// The packet's arena id.
    pub pkt: u32,
    /// When it reaches the far end, or why it is lost on the wire.
    pub fate: Result<Time, DropReason>,
    /// When the transmitter frees again.
    pub free_at: Time,
}

/// How a direction's transmitter serves its packets (the module doc, "Modes"). Ordered:
/// every mode from [`TransmitterMode::Pull`] on holds its packets in the arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TransmitterMode {
    /// Lazy FIFO whose discipline is DropTail, with no arrival hook and no error model:
    /// [`Egress::send`]'s fast path.
    Plain,
    /// Lazy FIFO: each packet timed on enqueue ([`Egress::send`]).
    Lazy,
    /// Packets held in the arena, one TxDone per packet ([`Egress::start_next`]).
    Pull,
    /// A port sending on a slot grid, one TxDone per busy slot ([`Egress::set_cells`]).
    Slotted,
}

impl TransmitterMode {
    /// Whether packets wait in the arena rather than being timed on enqueue.
    #[inline]
    pub fn is_pull(self) -> bool {
        self >= TransmitterMode::Pull
    }
}

/// One direction of a link: its transmitter.
#[derive(Debug)]
pub struct Egress {
    /// `<link>:<from>-><to>`, used in reports.
    pub name: String,
    /// The link this direction belongs to.
    pub link: LinkId,
    /// The sending end.
    pub from: NodeId,
    /// The receiving end.
    pub to: NodeId,
    /// Transmission rate (see [`Egress::change`] to change it at run time).
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Dur,
    /// Random and scheduled losses with their random stream ([`Egress::errors`],
    /// [`Egress::set_errors`]); none until an error model is set.
    lossy: Option<Box<Lossy>>,
    /// What the transmitter does while the link is down.
    pub policy: OutagePolicy,
    /// Queue counters.
    pub queue: QueueStats,
    /// Link counters.
    pub stats: LinkStats,
    disc: QueueDisc,
    /// The transmitter's mode (see the module doc), kept up to date by every setter; Plain
    /// makes [`Egress::send`]'s fast path a test of one byte instead of four fields.
    mode: TransmitterMode,
    /// The port of a [`TransmitterMode::Slotted`] direction (boxed twice: a thin pointer
    /// keeps the direction as small as when it had none).
    port: Option<Box<Box<dyn SlottedPort>>>,
    /// Whether the link is down now.
    down: bool,
    /// Lazy mode: start-of-transmission time, size and IN-ness of each packet still waiting.
    waiting: Line<(Time, u32, bool)>,
    /// Pull mode, FIFO discipline: arena id, size and IN-ness of each packet waiting.
    held: VecDeque<(u32, u32, bool)>,
    /// Packets and bytes waiting in `waiting` and `held`.
    len: QueueLen,
    in_packets: u32,
    busy_until: Time,
    /// The seed of this direction's random streams: the error model's is
    /// `Rng::from_seed(seed)`, the admission policy's [`queue_stream`] of it. Each stream is
    /// made when first needed, in the state it would have had if made with the direction
    /// (nothing draws from either before), so fixed-seed outputs do not depend on when.
    seed: u64,
    /// The admission policy's random stream (RED's drop decisions), made at its first use.
    queue_rng: Option<Box<Rng>>,
    /// Arrival and dequeue hooks, if any was added.
    hooks: Option<Box<Hooks>>,
    /// The last transmission time computed: (rate, size, time). A direction carries mostly
    /// one packet size (data one way, ACKs the other), and the exact time needs a 128-bit
    /// division.
    tx_memo: (Rate, u32, Dur),
    /// Packets a dequeue-time discipline dropped, for the world to free ([`Egress::queue_drops`]);
    /// made at the first dequeue-time discipline's use.
    fx: Option<Box<DequeueEffects>>,
}

impl Egress {
    pub(super) fn new(
        name: String,
        link: LinkId,
        from: NodeId,
        to: NodeId,
        p: DirectionParams,
        seed: u64,
    ) -> Egress {
        let mode = if matches!(p.queue, QueueDisc::Classful(_) | QueueDisc::Aqm(_)) {
            TransmitterMode::Pull
        } else {
            TransmitterMode::Lazy
        };
        let mut e = Egress {
            name,
            link,
            from,
            to,
            rate: p.rate,
            delay: p.delay,
            lossy: None,
            policy: OutagePolicy::Blind,
            queue: QueueStats {
                len: TimeAverage::new(Time::ZERO),
                ..Default::default()
            },
            stats: LinkStats::default(),
            disc: p.queue,
            mode,
            port: None,
            down: false,
            waiting: Line::default(),
            held: VecDeque::new(),
            len: QueueLen::default(),
            in_packets: 0,
            busy_until: Time::ZERO,
            seed,
            queue_rng: None,
            hooks: None,
            // Rate 0 takes forever whatever the size: a correct entry.
            tx_memo: (Rate(0), 0, Dur::MAX),
            fx: None,
        };
        e.set_errors(p.errors);
        e
    }

    /// Moves a lazy direction between Plain and Lazy after a change of the queue, the hooks
    /// or the errors.
    fn refresh_plain(&mut self) {
        if self.mode.is_pull() {
            return;
        }
        let plain = matches!(self.disc, QueueDisc::Fifo(AnyAdmission::DropTail(_)))
            && self.hooks.as_ref().is_none_or(|h| h.arrival.is_empty())
            && self.lossy.as_ref().is_none_or(|l| l.errors.is_none());
        self.mode = if plain {
            TransmitterMode::Plain
        } else {
            TransmitterMode::Lazy
        };
    }

    /// Moves a lazy direction to pull mode (a slotted one stays slotted).
    fn to_pull(&mut self) {
        if !self.mode.is_pull() {
            self.mode = TransmitterMode::Pull;
        }
    }

    /// The transmitter's mode.
    pub fn mode(&self) -> TransmitterMode {
        self.mode
    }

    /// Random and scheduled losses.
    pub fn errors(&self) -> &ErrorModel {
        self.lossy.as_ref().map_or(&NO_ERRORS, |l| &l.errors)
    }

    /// Replaces the random and scheduled losses (before the run, or between packets). The
    /// random stream goes on where it was.
    pub fn set_errors(&mut self, errors: ErrorModel) {
        match self.lossy.as_deref_mut() {
            Some(l) => {
                l.errors = errors;
                l.list_pos = (0, 0);
            }
            // No error model ever drew from the stream: it starts from its seed.
            None if !errors.is_none() => {
                self.lossy = Some(Box::new(Lossy {
                    errors,
                    rng: Rng::from_seed(self.seed),
                    list_pos: (0, 0),
                }))
            }
            None => {}
        }
        self.refresh_plain();
    }

    /// Makes this direction a slotted link ([`TransmitterMode::Slotted`]; study 1's cell
    /// links, `kind = "atm"` in scenarios, whose packets become AAL5 frames whose cells go
    /// through the port's switch one per slot: `atm::port`). The world drives the port with
    /// one TxDone per busy slot; the queue discipline, rate changes, outages and hooks do not
    /// apply to it. Call before the run.
    pub fn set_cells(&mut self, port: impl SlottedPort + 'static) {
        debug_assert_eq!(self.stats.transmitted, 0, "{}: before the run", self.name);
        self.mode = TransmitterMode::Slotted;
        self.port = Some(Box::new(Box::new(port)));
    }

    /// The slotted port, if this direction is a slotted link.
    pub fn cells(&self) -> Option<&dyn SlottedPort> {
        self.port.as_deref().map(|p| p.as_ref())
    }

    /// The slotted port, mutably (the world drives it).
    pub fn cells_mut(&mut self) -> Option<&mut (dyn SlottedPort + 'static)> {
        self.port.as_deref_mut().map(|p| p.as_mut())
    }

    /// Whether this direction is a slotted link.
    #[inline]
    pub fn is_cells(&self) -> bool {
        self.mode == TransmitterMode::Slotted
    }

    /// Declares, before the run, that this direction's rate or state will change (a schedule,
    /// a radio model, a handoff), or sets its outage policy: it then runs in pull mode, so that
    /// a change retimes every queued packet.
    pub fn expect_changes(&mut self, policy: OutagePolicy) {
        debug_assert_eq!(
            self.stats.transmitted, 0,
            "{}: declare before the run",
            self.name
        );
        self.policy = policy;
        self.to_pull();
    }

    /// Replaces the queueing discipline before the run (a base station's per-mobile queues,
    /// which need every address of the network to classify). A classful one runs in pull mode.
    pub fn set_queue(&mut self, disc: QueueDisc) {
        debug_assert_eq!(
            self.queue.arrivals, 0,
            "{}: set the queue before the run",
            self.name
        );
        if matches!(disc, QueueDisc::Classful(_) | QueueDisc::Aqm(_)) {
            self.to_pull();
        }
        self.disc = disc;
        self.refresh_plain();
    }

    /// Adds a hook run on each arriving packet, before the queue.
    pub fn add_arrival_hook(&mut self, h: ArrivalHook) {
        self.hooks
            .get_or_insert_with(Default::default)
            .arrival
            .push(h);
        self.refresh_plain();
    }

    /// Adds a hook run on each packet leaving the queue; the direction runs in pull mode.
    pub fn add_dequeue_hook(&mut self, h: DequeueHook) {
        debug_assert_eq!(
            self.stats.transmitted, 0,
            "{}: add hooks before the run",
            self.name
        );
        self.hooks
            .get_or_insert_with(Default::default)
            .dequeue
            .push(h);
        self.to_pull();
    }

    /// Makes this direction a DiffServ edge: `c` classifies and marks data packets on arrival,
    /// before the queue sees them (an [`ArrivalHook::DiffServEdge`]).
    pub fn set_classifier(&mut self, c: Classifier) {
        self.add_arrival_hook(ArrivalHook::DiffServEdge(Box::new(c)));
    }

    /// The edge classifier, if this direction is a DiffServ edge.
    // `find_map` stays right when `ArrivalHook` gains variants that are not classifiers.
    #[allow(clippy::unnecessary_find_map)]
    pub fn classifier(&self) -> Option<&Classifier> {
        let hooks = self.hooks.as_deref()?;
        hooks.arrival.iter().find_map(|h| match h {
            ArrivalHook::DiffServEdge(c) => Some(c.as_ref()),
        })
    }

    /// Whether packets wait in the arena for [`Egress::start_next`] (pull mode) rather than
    /// being timed on enqueue by [`Egress::send`] (lazy FIFO).
    #[inline]
    pub fn is_pull(&self) -> bool {
        self.mode.is_pull()
    }

    /// When the transmitter frees: on a lazy FIFO, the end of the last admitted packet's
    /// transmission (a tracer reads its start from it).
    pub fn busy_until(&self) -> Time {
        self.busy_until
    }

    /// Whether this direction schedules class queues.
    pub fn is_classful(&self) -> bool {
        matches!(self.disc, QueueDisc::Classful(_))
    }

    /// Whether the link is up.
    pub fn is_up(&self) -> bool {
        !self.down
    }

    /// The RED admission of a FIFO direction, if it has one.
    pub fn red(&self) -> Option<&crate::queue::Red> {
        match &self.disc {
            QueueDisc::Fifo(AnyAdmission::Red(r)) => Some(&**r),
            _ => None,
        }
    }

    /// The class queues, for a classful egress.
    pub fn classes(&self) -> Option<&crate::queue::Classful> {
        match &self.disc {
            QueueDisc::Classful(c) => Some(c),
            QueueDisc::Fifo(_) | QueueDisc::Aqm(_) => None,
        }
    }

    /// Applies a run-time change at `now`. Returns when the world should next ask
    /// [`Egress::start_next`] (a TxDone), if the change may let the transmitter start.
    pub fn change(&mut self, now: Time, c: LinkChange) -> Option<Time> {
        // A rate change, an outage the link layer holds for, or a blind outage that is not
        // one of the known intervals needs the pull model (which checks the state as each
        // packet starts). On a lazy FIFO nobody declared, what it admitted stays committed;
        // from now on the pull transmitter serves, starting when the committed packets have
        // left. A scheduled blind outage needs no switch: its interval decides losses.
        let needs_pull = match c {
            LinkChange::Rate(r) => {
                self.rate = r;
                true
            }
            LinkChange::Down => {
                self.down = true;
                let known = self
                    .errors()
                    .outages
                    .iter()
                    .any(|&(a, b)| a <= now && now < b);
                self.policy == OutagePolicy::Hold || !known
            }
            LinkChange::Up => {
                self.down = false;
                false
            }
        };
        if needs_pull {
            self.to_pull();
        }
        self.is_pull().then_some(now.max(self.busy_until))
    }

    /// [`ErrorModel::before_queue`]: whether the arriving `pkt` is lost before the queue.
    #[inline]
    fn lost_on_arrival(&mut self, pkt: &Packet) -> bool {
        let Some(l) = self.lossy.as_deref_mut() else {
            return false;
        };
        if l.errors.before_queue && l.errs(pkt.size) {
            self.stats.lost_error += 1;
            self.stats.lost_before_queue += 1;
            return true;
        }
        false
    }

    #[inline]
    fn condition(&mut self, now: Time, pkt: &mut Packet) {
        let Some(hooks) = self.hooks.as_deref_mut() else {
            return;
        };
        for h in &mut hooks.arrival {
            match h {
                ArrivalHook::DiffServEdge(c) => {
                    if pkt.payload() > 0 {
                        c.classify(now, pkt);
                    }
                }
            }
        }
    }

    /// Moves every packet whose transmission has started by `now` out of the lazy queue.
    #[inline(always)]
    pub fn drain(&mut self, now: Time) {
        while let Some(&(start, size, is_in)) = self.waiting.front() {
            if start > now {
                break;
            }
            self.waiting.pop_front();
            self.len.packets -= 1;
            self.len.bytes -= size as u64;
            self.in_packets -= is_in as u32;
            self.queue.departures += 1;
            self.queue.len.set(start, self.len.packets as f64);
        }
    }

    /// Packets and bytes waiting at `now` (call [`Egress::drain`] first).
    pub fn len(&self) -> QueueLen {
        match &self.disc {
            QueueDisc::Fifo(_) => self.len,
            QueueDisc::Classful(c) => c.len(),
            QueueDisc::Aqm(a) => a.len(),
        }
    }

    /// Packets and bytes held by this direction for the time series: [`Egress::len`], or
    /// on a cell link the packets offered whose frames are not settled yet.
    pub fn waiting(&self) -> QueueLen {
        match self.cells() {
            Some(c) => QueueLen {
                packets: c.pending() as u32,
                bytes: c.pending_bytes(),
            },
            None => self.len(),
        }
    }

    /// Packets waiting in the arena, held by this direction (pull mode).
    pub fn held_packets(&self) -> u64 {
        match &self.disc {
            QueueDisc::Fifo(_) => self.held.len() as u64 + self.cells().map_or(0, |c| c.pending()),
            QueueDisc::Classful(c) => c.len().packets as u64,
            QueueDisc::Aqm(a) => a.len().packets as u64,
        }
    }

    /// Packets the queue discipline dropped from among those it held (at dequeue, or to make
    /// room for an arrival), with the reasons, since the last call: the caller frees them.
    /// They are already counted in [`Egress::queue`].
    #[inline]
    pub fn queue_drops(&mut self) -> impl Iterator<Item = (u32, DropReason)> + '_ {
        self.fx.iter_mut().flat_map(|fx| fx.dropped.drain(..))
    }

    /// Whether [`Egress::queue_drops`] has any.
    #[inline]
    pub fn has_queue_drops(&self) -> bool {
        self.fx.as_ref().is_some_and(|fx| !fx.dropped.is_empty())
    }

    /// Counts the drops and marks a dequeue-time discipline reported since `from`.
    fn count_effects(queue: &mut QueueStats, fx: &mut DequeueEffects, from: usize) {
        for &(_, r) in &fx.dropped[from..] {
            queue.drops[r as usize] += 1;
        }
        queue.marks += std::mem::take(&mut fx.marks);
    }

    /// Pull model: offers packet `id` (held by the caller; `pkt` is its contents) to the queue
    /// at `now`. On `Err` the caller drops it.
    pub fn enqueue_held(&mut self, now: Time, id: u32, pkt: &mut Packet) -> Result<(), DropReason> {
        debug_assert!(
            self.is_pull(),
            "{}: enqueue_held() on a lazy FIFO",
            self.name
        );
        if let Some(port) = self.port.as_deref_mut() {
            // A cell link takes every packet; its switch decides cell by cell.
            port.advance(now);
            port.offer(now, id, pkt.flow, pkt.size);
            // The direction's queue length in packets: frames offered and not yet settled.
            self.queue.len.set(now, port.pending() as f64);
            self.queue.arrivals += 1;
            self.queue.arrival_bytes += pkt.size as u64;
            return Ok(());
        }
        self.drain(now);
        if self.lost_on_arrival(pkt) {
            return Err(DropReason::Error);
        }
        let link_idle = self.busy_until <= now;
        self.condition(now, pkt);
        let arrived_as = pkt.precedence();
        self.queue.arrivals += 1;
        self.queue.arrival_bytes += pkt.size as u64;
        let (verdict, total) = match &mut self.disc {
            QueueDisc::Classful(c) => {
                let rng = queue_rng(&mut self.queue_rng, self.seed);
                let v = c.enqueue(now, id, pkt, link_idle, rng);
                (v, c.len().packets)
            }
            QueueDisc::Fifo(admission) => {
                let view = QueueView {
                    len: self.len,
                    in_packets: self.in_packets,
                    idle_since: (self.len.packets == 0 && link_idle).then_some(self.busy_until),
                };
                let rng = queue_rng(&mut self.queue_rng, self.seed);
                let v = admission.admit(now, &view, pkt, rng);
                if !matches!(v, Verdict::Dropped(_)) {
                    let is_in = pkt.precedence() == Precedence::In;
                    self.held.push_back((id, pkt.size, is_in));
                    self.len.packets += 1;
                    self.len.bytes += pkt.size as u64;
                    self.in_packets += is_in as u32;
                }
                (v, self.len.packets)
            }
            QueueDisc::Aqm(a) => {
                let fx = self.fx.get_or_insert_with(Default::default);
                let from = fx.dropped.len();
                let rng = queue_rng(&mut self.queue_rng, self.seed);
                let v = a.enqueue(now, id, pkt, rng, fx);
                let total = a.len().packets;
                Self::count_effects(&mut self.queue, fx, from);
                (v, total)
            }
        };
        self.queue.count_verdict(arrived_as, verdict);
        match verdict {
            Verdict::Dropped(r) => {
                self.queue.drop(r);
                Err(r)
            }
            Verdict::Queued | Verdict::Marked => {
                if verdict == Verdict::Marked {
                    pkt.ecn = Ecn::Ce;
                    self.queue.marks += 1;
                }
                self.queue.len.set(now, total as f64);
                Ok(())
            }
        }
    }

    /// Pull model: if the transmitter is idle at `now`, the link may send and a packet waits,
    /// starts sending the one the discipline picks (running the dequeue hooks on it, in
    /// `packets`).
    pub fn start_next(&mut self, now: Time, packets: &mut Slab<Packet>) -> Option<Started> {
        if self.busy_until > now || (self.down && self.policy == OutagePolicy::Hold) {
            return None;
        }
        self.drain(now);
        // `own`: the bytes still queued for the packet's own destination, when classes are
        // per destination (a base station's per-mobile queues); else the whole queue.
        let (id, mut size, total, own) = match &mut self.disc {
            QueueDisc::Classful(c) => {
                let (id, size, class) = c.dequeue(now)?;
                let own = c.is_per_destination().then(|| c.classes[class].len().bytes);
                (id, size, c.len().packets, own)
            }
            QueueDisc::Fifo(_) => {
                let (id, size, is_in) = self.held.pop_front()?;
                self.len.packets -= 1;
                self.len.bytes -= size as u64;
                self.in_packets -= is_in as u32;
                (id, size, self.len.packets, None)
            }
            QueueDisc::Aqm(a) => {
                let fx = self.fx.get_or_insert_with(Default::default);
                let from = fx.dropped.len();
                let h = a.dequeue(now, packets, fx);
                let total = a.len().packets;
                Self::count_effects(&mut self.queue, fx, from);
                let Some(h) = h else {
                    self.queue.len.set(now, total as f64);
                    return None;
                };
                (h.id, h.size, total, None)
            }
        };
        self.queue.departures += 1;
        self.queue.len.set(now, total as f64);
        if let Some(hooks) = self.hooks.as_deref().filter(|h| !h.dequeue.is_empty()) {
            let queued = own.unwrap_or_else(|| self.len().bytes);
            let pkt = packets.get_mut(id);
            for h in &hooks.dequeue {
                match *h {
                    DequeueHook::QueueReport { wire_bytes } => {
                        if pkt.payload() > 0 {
                            pkt.meta.queue_report = Some(queued.min(u32::MAX as u64) as u32);
                            pkt.size += wire_bytes;
                        }
                    }
                }
            }
            size = pkt.size;
        }
        let tx = self.tx_time(size);
        self.busy_until = now + tx;
        self.stats.transmitted += 1;
        self.stats.transmitted_bytes += size as u64;
        self.stats.busy += tx;
        let arrival = self.busy_until + self.delay;
        let lossy = self.lossy.as_deref_mut();
        let fate = if self.down || lossy.as_ref().is_some_and(|l| l.down_during(now, arrival)) {
            self.stats.lost_down += 1;
            Err(DropReason::LinkDown)
        } else if lossy.is_some_and(|l| !l.errors.before_queue && l.errs(size)) {
            self.stats.lost_error += 1;
            Err(DropReason::Error)
        } else {
            Ok(arrival)
        };
        Some(Started {
            pkt: id,
            fate,
            free_at: self.busy_until,
        })
    }

    /// Lazy FIFO: offers `pkt` to this direction at `now`. Returns when it arrives at the far
    /// end, or why it was dropped (at the queue or on the wire). May set the packet's CE mark.
    #[inline(always)]
    pub fn send(&mut self, now: Time, pkt: &mut Packet) -> Result<Time, DropReason> {
        debug_assert!(
            !self.is_pull(),
            "{}: send() in pull mode; use enqueue_held()",
            self.name
        );
        if self.mode == TransmitterMode::Plain {
            if let QueueDisc::Fifo(AnyAdmission::DropTail(d)) = &self.disc {
                let limit = d.limit();
                return self.send_plain(now, pkt, limit);
            }
        }
        self.send_general(now, pkt)
    }

    /// [`Egress::send`] for the most common direction: DropTail, no arrival hook, no error
    /// model. It does exactly what the general path does for such a direction (same counters,
    /// same verdicts, same times), without the steps that cannot apply.
    #[inline(always)]
    fn send_plain(
        &mut self,
        now: Time,
        pkt: &mut Packet,
        limit: QueueLimit,
    ) -> Result<Time, DropReason> {
        self.drain(now);
        self.queue.arrivals += 1;
        self.queue.arrival_bytes += pkt.size as u64;
        let prec = pkt.precedence();
        self.queue.by_precedence[prec as usize].arrivals += 1;
        if DropTail::full(limit, self.len, pkt.size) {
            self.queue.by_precedence[prec as usize].overflow += 1;
            self.queue.drop(DropReason::Overflow);
            return Err(DropReason::Overflow);
        }
        self.commit(now, pkt.size, prec == Precedence::In);
        Ok(self.busy_until + self.delay)
    }

    /// Puts an admitted packet of `size` bytes in line behind the transmitter at `now` (lazy
    /// FIFO): its start and end of transmission, the queue's length and counters. Returns its
    /// start of transmission.
    #[inline(always)]
    fn commit(&mut self, now: Time, size: u32, is_in: bool) -> Time {
        let start = now.max(self.busy_until);
        let tx = self.tx_time(size);
        self.busy_until = start + tx;
        if start > now {
            self.waiting.push_back((start, size, is_in));
            self.len.packets += 1;
            self.len.bytes += size as u64;
            self.in_packets += is_in as u32;
            self.queue.len.set(now, self.len.packets as f64);
        } else {
            self.queue.departures += 1;
        }
        self.stats.transmitted += 1;
        self.stats.transmitted_bytes += size as u64;
        self.stats.busy += tx;
        start
    }

    #[inline(never)]
    fn send_general(&mut self, now: Time, pkt: &mut Packet) -> Result<Time, DropReason> {
        self.drain(now);
        if self.lost_on_arrival(pkt) {
            return Err(DropReason::Error);
        }
        self.queue.arrivals += 1;
        self.queue.arrival_bytes += pkt.size as u64;
        self.condition(now, pkt);
        let view = QueueView {
            len: self.len,
            in_packets: self.in_packets,
            idle_since: (self.len.packets == 0 && self.busy_until <= now)
                .then_some(self.busy_until),
        };
        let arrived_as = pkt.precedence();
        let QueueDisc::Fifo(admission) = &mut self.disc else {
            unreachable!("{}: a classful egress is always in pull mode", self.name)
        };
        let rng = queue_rng(&mut self.queue_rng, self.seed);
        let verdict = admission.admit(now, &view, pkt, rng);
        self.queue.count_verdict(arrived_as, verdict);
        match verdict {
            Verdict::Queued => {}
            Verdict::Marked => {
                debug_assert!(
                    pkt.ecn.is_ect() || pkt.ecn == Ecn::Ce,
                    "marking a packet that is not ECN-capable"
                );
                pkt.ecn = Ecn::Ce;
                self.queue.marks += 1;
            }
            Verdict::Dropped(r) => {
                self.queue.drop(r);
                return Err(r);
            }
        }
        let start = self.commit(now, pkt.size, pkt.precedence() == Precedence::In);
        let arrival = self.busy_until + self.delay;
        // Scheduled outages are known intervals, exact for packets admitted before them; a
        // lazy FIFO is never down otherwise (`change` switches it to pull first).
        let Some(l) = self.lossy.as_deref_mut() else {
            return Ok(arrival);
        };
        if l.down_during(start, arrival) {
            self.stats.lost_down += 1;
            return Err(DropReason::LinkDown);
        }
        if !l.errors.before_queue && l.errs(pkt.size) {
            self.stats.lost_error += 1;
            return Err(DropReason::Error);
        }
        Ok(arrival)
    }

    /// `self.rate.tx_time(size)`, remembered for the last (rate, size).
    #[inline(always)]
    fn tx_time(&mut self, size: u32) -> Dur {
        let (rate, last, tx) = self.tx_memo;
        if rate == self.rate && last == size {
            return tx;
        }
        let tx = self.rate.tx_time(size);
        self.tx_memo = (self.rate, size, tx);
        tx
    }

    /// Fraction of `[0, end)` the transmitter was busy.
    pub fn utilisation(&self, end: Time) -> f64 {
        if end == Time::ZERO {
            return 0.0;
        }
        if let Some(c) = self.cells() {
            // A cell link's output is busy in the slots it sends a cell, whether or not the
            // cell's frame survives (spec 1 §4's load).
            return c.load(end);
        }
        let overrun = self.busy_until.saturating_since(end);
        (self.stats.busy - overrun).as_nanos() as f64 / end.as_nanos() as f64
    }

    /// Packets in the transmitter or on the wire: transmitted, not yet delivered, not lost.
    pub fn in_flight(&self) -> u64 {
        self.stats.transmitted - self.stats.delivered - self.wire_losses()
    }

    /// Packets lost after entering the transmitter (error model on the wire, outages).
    fn wire_losses(&self) -> u64 {
        self.stats.lost_error - self.stats.lost_before_queue + self.stats.lost_down
    }

    /// Checks the bookkeeping identities (debug builds and tests).
    pub fn check_conservation(&self) -> Result<(), String> {
        let q = &self.queue;
        let waiting = match &self.disc {
            QueueDisc::Fifo(_) => {
                (self.waiting.len() + self.held.len()) as u64
                    + self.cells().map_or(0, |c| c.pending())
            }
            QueueDisc::Classful(c) => {
                c.check_conservation(&self.name)?;
                c.len().packets as u64
            }
            QueueDisc::Aqm(a) => a.len().packets as u64,
        };
        if q.arrivals != q.total_drops() + q.departures + waiting {
            return Err(format!(
                "{}: queue arrivals {} != drops {} + departures {} + waiting {}",
                self.name,
                q.arrivals,
                q.total_drops(),
                q.departures,
                waiting
            ));
        }
        let entered = self.stats.transmitted;
        let out = self.stats.delivered + self.wire_losses();
        if out > entered {
            return Err(format!(
                "{}: {} packets left the link but only {} entered",
                self.name, out, entered
            ));
        }
        Ok(())
    }
}

/// A FIFO read from `head` of a vector: emptied whenever it has all been read, compacted
/// when it is full and the read part is at least a quarter of it (so it grows only when more
/// than three quarters of it are waiting, and its allocation stays within 8/3 of the longest
/// line; each compaction moves at most three entries per push since the last one). A lazy
/// FIFO pushes, looks at and removes an entry for most packets; with a `VecDeque` (a
/// wrapping index, an out-of-line push) that cost about 30 instructions more.
#[derive(Debug)]
struct Line<T> {
    items: Vec<T>,
    head: usize,
}

impl<T> Default for Line<T> {
    fn default() -> Self {
        Line {
            items: Vec::new(),
            head: 0,
        }
    }
}

impl<T> Line<T> {
    /// The oldest entry.
    #[inline(always)]
    fn front(&self) -> Option<&T> {
        self.items.get(self.head)
    }
    /// Removes the oldest entry (if any).
    #[inline(always)]
    fn pop_front(&mut self) {
        if self.head < self.items.len() {
            self.head += 1;
            if self.head == self.items.len() {
                self.items.clear();
                self.head = 0;
            }
        }
    }
    /// Adds `x` as the newest entry.
    #[inline(always)]
    fn push_back(&mut self, x: T) {
        if self.items.len() == self.items.capacity() && self.head * 4 >= self.items.len() {
            self.items.drain(..self.head);
            self.head = 0;
        }
        self.items.push(x);
    }
    /// The entries not yet removed.
    fn len(&self) -> usize {
        self.items.len() - self.head
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Line` gives what a `VecDeque` gives, through runs of pushes and removals that empty
    /// it, keep it long and make it compact the part already read, and its allocation stays
    /// within three times its longest length.
    #[test]
    fn line_is_a_fifo() {
        let mut line = super::Line::default();
        let mut reference = std::collections::VecDeque::new();
        let mut next = 0u32;
        let mut rng = packetsim_kernel::Rng::from_seed(5);
        let mut longest = 0;
        let mut compacted = false;
        for step in 0..20_000 {
            // Phases: mostly pushing, balanced, mostly removing.
            let push_p = [0.7, 0.5, 0.3][(step / 1000) % 3];
            if rng.uniform() < push_p {
                let before = line.items.len();
                line.push_back(next);
                compacted |= line.items.len() <= before;
                reference.push_back(next);
                next += 1;
            } else {
                line.pop_front();
                reference.pop_front();
            }
            assert_eq!(line.front(), reference.front(), "step {step}");
            assert_eq!(line.len(), reference.len(), "step {step}");
            longest = longest.max(reference.len());
            assert!(line.items.capacity() <= 3 * longest.max(4), "step {step}");
        }
        assert!(compacted, "the compaction path ran");
    }

    // Issue 36 (memory per flow): every link direction has an `Egress`, 4 per flow on a
    // dumbbell. RED's and RIO's state is boxed (`AnyAdmission`), so a DropTail direction does
    // not carry it: 880 -> 720 B. The error model with its stream and list position, the
    // admission stream, the hooks and the dequeue effects are boxed and made when first
    // needed: 720 -> 528 B.
    #[test]
    fn egress_stays_compact() {
        let e = std::mem::size_of::<Egress>();
        let disc = std::mem::size_of::<QueueDisc>();
        eprintln!("Egress {e} B, QueueDisc {disc} B");
        assert!(e <= 528 && disc <= 16, "Egress {e} B, QueueDisc {disc} B");
        let fresh = egress(10, ErrorModel::default());
        assert!(fresh.lossy.is_none() && fresh.queue_rng.is_none());
        assert!(fresh.hooks.is_none() && fresh.fx.is_none());
    }
    use crate::ids::Addr;
    use crate::packet::Body;
    use crate::queue::{AnyAdmission, DropTail, QueueLimit};

    fn egress(limit: u32, errors: ErrorModel) -> Egress {
        let p = DirectionParams {
            rate: Rate::mbps(8), // 1500 B take 1.5 ms
            delay: Dur::from_millis(10),
            queue: QueueDisc::Fifo(AnyAdmission::DropTail(DropTail::new(QueueLimit::Packets(
                limit,
            )))),
            errors,
        };
        Egress::new("l:a->b".into(), LinkId(0), NodeId(0), NodeId(1), p, 1)
    }

    fn pkt() -> Packet {
        let mut p = Packet::new(
            Addr(0),
            Addr(1),
            Body::Udp {
                seq: 0,
                payload: 1472,
            },
        );
        p.size = 1500;
        p
    }

    fn plain(e: &Egress) -> bool {
        e.mode() == TransmitterMode::Plain
    }

    /// A slotted port that sends nothing (the mode's rules only).
    #[derive(Debug)]
    struct IdlePort;

    impl SlottedPort for IdlePort {
        fn slot(&self) -> Dur {
            Dur::from_micros(3)
        }
        fn offer(&mut self, _: Time, _: u32, _: crate::ids::FlowId, _: u32) {}
        fn advance(&mut self, _: Time) {}
        fn next_tick(&mut self) -> Option<Time> {
            None
        }
        fn take_settled(&mut self, _: &mut Vec<crate::net::Settled>) {}
        fn pending(&self) -> u64 {
            0
        }
        fn pending_bytes(&self) -> u64 {
            0
        }
        fn load(&self, _: Time) -> f64 {
            0.0
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    }

    /// The module doc's mode rules: Plain and Lazy follow the queue, hooks and errors; a
    /// declared change, a dequeue hook or a pull discipline moves a lazy direction to Pull,
    /// and nothing moves it back; a slotted direction stays slotted whatever is set on it.
    #[test]
    fn transmitter_modes_follow_the_module_rules() {
        let mut e = egress(10, ErrorModel::default());
        assert!(plain(&e) && !e.is_pull());
        e.set_errors(ErrorModel {
            loss: 0.1,
            ..ErrorModel::default()
        });
        assert!(e.mode() == TransmitterMode::Lazy);
        e.expect_changes(OutagePolicy::Hold);
        assert!(e.mode() == TransmitterMode::Pull && e.is_pull());
        e.set_errors(ErrorModel::default());
        assert!(e.mode() == TransmitterMode::Pull, "pull is final");
        let mut e = egress(10, ErrorModel::default());
        e.add_dequeue_hook(DequeueHook::QueueReport { wire_bytes: 0 });
        assert!(e.mode() == TransmitterMode::Pull);
        let mut e = egress(10, ErrorModel::default());
        let now = Time::ZERO + Dur::from_secs(1);
        assert_eq!(e.change(now, LinkChange::Up), None, "no change of mode");
        assert!(plain(&e));
        assert_eq!(e.change(now, LinkChange::Rate(Rate::mbps(5))), Some(now));
        assert!(e.mode() == TransmitterMode::Pull, "a rate change pulls");
        let mut e = egress(10, ErrorModel::default());
        e.set_cells(IdlePort);
        assert!(e.is_cells() && e.is_pull());
        e.expect_changes(OutagePolicy::Blind);
        e.set_errors(ErrorModel::default());
        assert!(e.is_cells(), "slotted is final");
        assert_eq!(e.cells().map(|c| c.slot()), Some(Dur::from_micros(3)));
    }

    /// The fast-path flag follows every setter of the queue, the hooks and the errors, so a
    /// direction given losses, a hook or another discipline after construction leaves the
    /// fast path (a stale flag would skip its losses or its classifier).
    #[test]
    fn fast_path_flag_follows_the_queue_hooks_and_errors() {
        let mut e = egress(10, ErrorModel::default());
        assert!(plain(&e), "DropTail, no hook, no errors");
        let lossy = ErrorModel {
            loss: 0.1,
            ..ErrorModel::default()
        };
        assert!(!plain(&egress(10, lossy.clone())), "built with losses");
        e.set_errors(lossy);
        assert!(!plain(&e), "losses set");
        e.set_errors(ErrorModel {
            outages: vec![(Time::ZERO, Time::ZERO + Dur::from_millis(1))],
            ..ErrorModel::default()
        });
        assert!(!plain(&e), "an outage set");
        e.set_errors(ErrorModel {
            before_queue: true,
            ..ErrorModel::default()
        });
        assert!(!plain(&e), "before_queue set");
        e.set_errors(ErrorModel::default());
        assert!(plain(&e), "errors removed");
        e.set_queue(QueueDisc::Fifo(AnyAdmission::Red(Box::new(
            crate::queue::Red::new(&crate::queue::RedConfig::default(), Rate::mbps(8)),
        ))));
        assert!(!plain(&e), "RED");
        let mut e = egress(10, ErrorModel::default());
        e.set_classifier(Classifier::default());
        assert!(!plain(&e), "an arrival hook");
    }

    /// The DropTail fast path of `send` (no hook, no error model) must do exactly what the
    /// general path does: same verdicts and arrival times, same queue and link counters, for
    /// packet and byte limits, mixed sizes, AF drop precedences and overflows.
    #[test]
    fn droptail_fast_path_matches_the_general_path() {
        for limit in [QueueLimit::Packets(3), QueueLimit::Bytes(4000)] {
            let make = || {
                let mut e = egress(1, ErrorModel::default());
                e.disc = QueueDisc::Fifo(AnyAdmission::DropTail(DropTail::new(limit)));
                e
            };
            let (mut fast, mut general) = (make(), make());
            let mut rng = Rng::from_seed(7);
            let mut now = Time::ZERO;
            let mut drops = 0;
            for i in 0..2000u64 {
                now += Dur::from_micros(rng.next_u64() % 1000);
                let mut a = pkt();
                a.size = [40, 576, 1500][(i % 3) as usize];
                // AF11 (IN), AF12 (OUT) and best effort.
                a.dscp = [10, 12, 0][(i % 7 % 3) as usize];
                let mut b = a.clone();
                let ra = fast.send(now, &mut a);
                let rb = general.send_general(now, &mut b);
                assert_eq!(ra, rb, "packet {i}");
                drops += ra.is_err() as u32;
            }
            assert!(
                drops > 50,
                "{limit:?}: the sequence must overflow the queue ({drops})"
            );
            assert_eq!(format!("{:?}", fast.queue), format!("{:?}", general.queue));
            assert_eq!(format!("{:?}", fast.stats), format!("{:?}", general.stats));
            assert_eq!(
                (fast.len, fast.in_packets),
                (general.len, general.in_packets)
            );
            fast.check_conservation().unwrap();
        }
    }

    #[test]
    fn back_to_back_packets_queue_behind_the_transmitter() {
        let mut e = egress(10, ErrorModel::default());
        let t0 = Time::ZERO;
        assert_eq!(e.send(t0, &mut pkt()), Ok(Time::from_micros(11_500)));
        assert_eq!(e.send(t0, &mut pkt()), Ok(Time::from_micros(13_000)));
        assert_eq!(
            e.len().packets,
            1,
            "the first is in transmission, the second waits"
        );
        e.drain(Time::from_micros(1_500));
        assert_eq!(e.len().packets, 0);
        // Waited 1.5 ms out of 3 ms: mean length 0.5.
        assert!((e.queue.len.mean(Time::from_micros(3_000)) - 0.5).abs() < 1e-9);
        assert_eq!(e.utilisation(Time::from_micros(3_000)), 1.0);
    }

    #[test]
    fn overflow_drops_and_keeps_the_books_balanced() {
        let mut e = egress(2, ErrorModel::default());
        let verdicts: Vec<_> = (0..5)
            .map(|_| e.send(Time::ZERO, &mut pkt()).is_ok())
            .collect();
        // One in transmission, two waiting, two dropped.
        assert_eq!(verdicts, vec![true, true, true, false, false]);
        assert_eq!(e.queue.drops_for(DropReason::Overflow), 2);
        e.check_conservation().unwrap();
    }

    #[test]
    fn outage_loses_packets_that_overlap_it() {
        let errors = ErrorModel {
            outages: vec![(Time::from_millis(100), Time::from_millis(200))],
            ..Default::default()
        };
        let mut e = egress(10, errors);
        assert!(e.send(Time::from_millis(50), &mut pkt()).is_ok());
        assert_eq!(
            e.send(Time::from_millis(95), &mut pkt()),
            Err(DropReason::LinkDown),
            "arrives during the outage"
        );
        assert_eq!(
            e.send(Time::from_millis(150), &mut pkt()),
            Err(DropReason::LinkDown)
        );
        assert!(e.send(Time::from_millis(200), &mut pkt()).is_ok());
        assert_eq!(e.stats.lost_down, 2);
    }

    #[test]
    fn uniform_loss_rate_is_close_to_p() {
        let mut e = egress(
            u32::MAX,
            ErrorModel {
                loss: 0.1,
                ..Default::default()
            },
        );
        let mut lost = 0;
        for i in 0..20_000u64 {
            if e.send(Time::from_millis(i * 2), &mut pkt()).is_err() {
                lost += 1;
            }
        }
        assert!((1_800..2_200).contains(&lost), "{lost}");
    }

    /// Arrival times (µs) of the survivors of 8 packets offered at once, and the link stats.
    fn burst(before_queue: bool) -> (Vec<u64>, Egress) {
        let mut e = egress(
            100,
            ErrorModel {
                loss: 0.5,
                before_queue,
                ..Default::default()
            },
        );
        let arrivals = (0..8)
            .filter_map(|_| e.send(Time::ZERO, &mut pkt()).ok())
            .map(|t| t.as_nanos() / 1000)
            .collect();
        (arrivals, e)
    }

    // ns-2 `$ns lossmodel` (`SimpleLink::errormodule` puts the error module at the head of
    // the link): a packet lost before the queue takes neither a queue slot nor transmitter
    // time, so the survivors of a burst leave back to back (1.5 ms apart). On the wire (the
    // default) a lost packet still occupies the transmitter. The same seed draws the same
    // fates, in the same (arrival = transmission) order.
    #[test]
    fn loss_before_the_queue_uses_no_transmitter_time() {
        let (wire, ew) = burst(false);
        let (early, ee) = burst(true);
        assert_eq!(wire.len(), early.len(), "same draws");
        assert!(!early.is_empty() && early.len() < 8);
        let back_to_back: Vec<u64> = (1..=early.len() as u64)
            .map(|k| 10_000 + 1_500 * k)
            .collect();
        assert_eq!(early, back_to_back);
        assert_ne!(wire, back_to_back, "on the wire, losses leave gaps");
        let lost = 8 - early.len() as u64;
        assert_eq!(
            (ee.stats.transmitted, ee.stats.lost_error),
            (8 - lost, lost)
        );
        assert_eq!(ee.stats.lost_before_queue, lost);
        assert_eq!(ee.queue.arrivals, 8 - lost, "the queue never sees them");
        assert_eq!((ew.stats.transmitted, ew.stats.lost_before_queue), (8, 0));
        ee.check_conservation().unwrap();
        assert_eq!(ee.in_flight(), 8 - lost);
    }

    /// Which of `n` packets offered 2 ms apart (no queueing) a direction loses.
    fn lost_of(n: u64, errors: ErrorModel) -> Vec<u64> {
        let mut e = egress(100, errors);
        (0..n)
            .filter(|&i| e.send(Time::from_millis(i * 2), &mut pkt()).is_err())
            .collect()
    }

    // The error stream is made when an error model is first set (issue 36: a direction
    // without one carries no stream), from the seed the direction was built with and in the
    // state it would have had from the start: a direction given its loss after being built
    // loses exactly the packets one built with it does, and replacing the model keeps the
    // stream where it was (it is not restarted).
    #[test]
    fn error_stream_made_late_draws_as_one_made_with_the_direction() {
        let lossy = ErrorModel {
            loss: 0.3,
            ..Default::default()
        };
        let built_with = lost_of(200, lossy.clone());
        assert!((30..90).contains(&built_with.len()), "{built_with:?}");
        let mut e = egress(100, ErrorModel::default());
        assert!(e.lossy.is_none(), "no model, no stream");
        e.set_errors(lossy.clone());
        let set_late: Vec<u64> = (0..200)
            .filter(|&i| e.send(Time::from_millis(i * 2), &mut pkt()).is_err())
            .collect();
        assert_eq!(set_late, built_with);
        // Replaced by the same model after 100 packets: the next 100 fates are the stream's
        // next draws, as if nothing had been replaced.
        let mut e = egress(100, lossy.clone());
        let first: Vec<u64> = (0..100)
            .filter(|&i| e.send(Time::from_millis(i * 2), &mut pkt()).is_err())
            .collect();
        e.set_errors(lossy);
        let rest: Vec<u64> = (100..200)
            .filter(|&i| e.send(Time::from_millis(i * 2), &mut pkt()).is_err())
            .collect();
        assert_eq!([first, rest].concat(), built_with);
    }

    // The loss list (ns-2.35 `ErrorModel/List` with `unit pkt`, errmodel.cc
    // `ListErrorModel::corrupt`): it counts the packets it sees from 0 and drops exactly those
    // whose index is listed, at either position.
    #[test]
    fn loss_list_drops_exactly_the_listed_indices() {
        for before_queue in [false, true] {
            let errors = ErrorModel {
                drop_list: vec![0, 3, 4, 9],
                before_queue,
                ..Default::default()
            };
            assert_eq!(lost_of(12, errors), vec![0, 3, 4, 9], "{before_queue}");
        }
        let mut e = egress(
            100,
            ErrorModel {
                drop_list: vec![1],
                ..Default::default()
            },
        );
        assert!(!plain(&e), "a loss list is an error model");
        assert!(e.send(Time::ZERO, &mut pkt()).is_ok());
        assert_eq!(
            e.send(Time::from_millis(2), &mut pkt()),
            Err(DropReason::Error)
        );
        assert_eq!(e.stats.lost_error, 1);
    }

    // Before the queue the list counts arrivals, so a packet the queue then drops still has an
    // index; on the wire it counts transmissions, so an overflow drop has none.
    #[test]
    fn loss_list_counts_arrivals_before_the_queue_and_transmissions_on_the_wire() {
        // Limit 2 (one sending, two waiting): of 5 packets at once, the last two overflow,
        // unless one before them is lost before the queue.
        let fates = |before_queue| {
            let mut e = egress(
                2,
                ErrorModel {
                    drop_list: vec![3],
                    before_queue,
                    ..Default::default()
                },
            );
            let mut v: Vec<_> = (0..5).map(|_| e.send(Time::ZERO, &mut pkt())).collect();
            v.push(e.send(Time::from_millis(100), &mut pkt()));
            v.into_iter().map(|f| f.err()).collect::<Vec<_>>()
        };
        let of = Some(DropReason::Overflow);
        let er = Some(DropReason::Error);
        assert_eq!(fates(true), vec![None, None, None, er, of, None]);
        assert_eq!(fates(false), vec![None, None, None, of, of, er]);
    }

    // The list adds losses on top of `loss`: the random draws, and so the packets the random
    // model loses, are those of the same seed without the list.
    #[test]
    fn loss_list_leaves_the_random_losses_unchanged() {
        let random = ErrorModel {
            loss: 0.3,
            ..Default::default()
        };
        let alone = lost_of(40, random.clone());
        let listed = lost_of(
            40,
            ErrorModel {
                drop_list: vec![5, 6, 39],
                ..random
            },
        );
        let mut want = alone.clone();
        want.extend([5, 6, 39]);
        want.sort_unstable();
        want.dedup();
        assert!(!alone.is_empty());
        assert_eq!(listed, want);
    }

    #[test]
    fn bit_errors_hit_long_packets_more() {
        let m = ErrorModel {
            ber: 1e-5,
            ..Default::default()
        };
        let mut rng = Rng::from_seed(3);
        let long = (0..20_000).filter(|_| m.corrupts(&mut rng, 1500)).count();
        let short = (0..20_000).filter(|_| m.corrupts(&mut rng, 40)).count();
        // 1 - (1 - 1e-5)^12000 = 0.113; 1 - (1 - 1e-5)^320 = 0.0032
        assert!((2_000..2_500).contains(&long), "{long}");
        assert!(short < 150, "{short}");
    }

    // spec 2 §2.1-§2.2 and the extension "several mobiles sharing one radio channel": one
    // transmitter, one queue per mobile (classes by destination), round robin. Three packets
    // for ms1 then two for ms2, all at t = 0: the transmitter alternates ms1, ms2, ms1, ms2,
    // ms1, one packet time (1 ms) apart, and each packet's report is the bytes still queued
    // for its own mobile at its dequeue, never the other mobile's (whole queue: 4000, 3000,
    // 2000, 1000, 0).
    #[test]
    fn shared_transmitter_round_robin_reports_each_mobiles_own_queue() {
        use crate::queue::{ClassQueue, Classful, Scheduler, Wrr};
        let mut e = egress(10, ErrorModel::default());
        let class = |n: &str| {
            ClassQueue::new(
                n,
                vec![],
                AnyAdmission::DropTail(DropTail::new(QueueLimit::Packets(10))),
            )
        };
        e.set_queue(QueueDisc::Classful(Box::new(Classful::per_destination(
            vec![class("ms1"), class("ms2"), class("other")],
            Scheduler::Wrr(Wrr::new(vec![1, 1, 1])),
            vec![2, 0, 1],
        ))));
        e.add_dequeue_hook(DequeueHook::QueueReport { wire_bytes: 0 });
        assert!(e.is_pull());
        let mut slab: Slab<Packet> = Slab::with_capacity(8);
        for dst in [1, 1, 1, 2, 2] {
            let mut p = Packet::new(
                Addr(0),
                Addr(dst),
                Body::Udp {
                    seq: 0,
                    payload: 972,
                },
            );
            p.size = 1000;
            let id = slab.insert(p.clone());
            e.enqueue_held(Time::ZERO, id, &mut p).unwrap();
        }
        let mut now = Time::ZERO;
        let mut got = Vec::new();
        while let Some(s) = e.start_next(now, &mut slab) {
            let p = slab.get(s.pkt);
            got.push((p.dst.0, p.meta.queue_report, now.as_nanos() / 1_000));
            now = s.free_at;
        }
        assert_eq!(
            got,
            vec![
                (1, Some(2000), 0),
                (2, Some(1000), 1_000),
                (1, Some(1000), 2_000),
                (2, Some(0), 3_000),
                (1, Some(0), 4_000),
            ]
        );
        let c = e.classes().unwrap();
        assert_eq!(
            c.classes
                .iter()
                .map(|q| q.stats.departures)
                .collect::<Vec<_>>(),
            vec![3, 2, 0]
        );
        e.check_conservation().unwrap();
    }
}
