//! The assembled simulation: the network, the endpoints ("agents"), node elements and flows,
//! the packet arena and the event queue, with the single dispatch `match` over [`Event`].
//!
//! One file per job:
//!
//! - `mod.rs`: [`World`], its events and the dispatch, the run loop, packet books;
//! - `agent.rs`: the agent adapter (endpoints meet the world only there);
//! - `element.rs`: the element adapter (node elements, their timers and requests);
//! - `forward.rs`: packets at nodes and on links (forwarding, transmitters, link changes);
//! - `flow.rs`: flows and their applications' start and stop;
//! - `sample.rs`: time series.
//!
//! Events per hop: one on a lazy FIFO direction (a packet's arrival at the next node is
//! scheduled when it is admitted), two on a pull direction (a TxDone as well).

mod agent;
mod element;
mod flow;
mod forward;
mod sample;
mod slotted;

pub use agent::{Agent, AgentSlot, CustomEndpoint, EndpointMetrics};
pub use element::ElementSlot;
pub use flow::{Flow, FlowKind, FlowPlacement, WorkloadFlows};
pub use sample::{DeliverySample, FlowSample, PathSample, QueueSample, Series};

use crate::ids::{Addr, AgentId, EgressId, ElementId, FlowId};
use crate::net::{ElementCtx, LinkChange, Net};
use crate::packet::Packet;
use crate::queue::DropReason;
use crate::transport::Outbox;
use packetsim_kernel::{EventQueue, Slab, Time};

/// What can happen. Small and `Copy`: packets travel by slab index.
#[derive(Clone, Copy, Debug)]
enum Event {
    /// A packet reaches the far end of an egress; `dst` is the packet's destination (what
    /// forwarding it needs, carried here so that the arrival does not wait for its slot).
    Arrive { pkt: u32, via: EgressId, dst: Addr },
    /// A pull-mode transmitter may be free: it may start the next packet.
    TxDone { egress: EgressId },
    /// An endpoint may be due for `on_timer`.
    Timer { agent: AgentId },
    /// An element may be due for `on_timer`.
    ElementTimer { element: ElementId },
    /// A scheduled link change (index into `World::changes`).
    LinkChange { change: u32 },
    /// A flow's application starts.
    Start { flow: FlowId },
    /// A flow's application stops offering data.
    Stop { flow: FlowId },
    /// Record the time series.
    Sample,
}

/// What a finished run reports about itself.
#[derive(Clone, Copy, Debug)]
pub struct RunInfo {
    /// Events processed.
    pub events: u64,
    /// Wall-clock time the event loop took.
    pub wall: std::time::Duration,
    /// Most packets alive at once.
    pub peak_packets: usize,
}

/// Packet counts of the whole run, for the conservation check:
/// `created + copied = delivered + consumed + dropped + in flight`.
#[derive(Clone, Debug, Default)]
pub struct PacketBooks {
    /// Packets endpoints and elements sent.
    pub created: u64,
    /// Copies made to send one packet down several egresses.
    pub copied: u64,
    /// Packets handed to endpoints.
    pub delivered: u64,
    /// Packets node elements took.
    pub consumed: u64,
    /// Packets dropped anywhere, by reason (indexed like [`DropReason::ALL`]).
    pub dropped: [u64; DropReason::ALL.len()],
}

/// The simulation.
pub struct World {
    /// Nodes, links and routes.
    pub net: Net,
    /// Endpoints, indexed by [`AgentId`].
    pub agents: Vec<AgentSlot>,
    /// Node elements, indexed by [`ElementId`].
    pub elements: Vec<ElementSlot>,
    /// Flows, indexed by [`FlowId`].
    pub flows: Vec<Flow>,
    /// Workloads (Poisson arrivals of finite transfers), each a range of `flows`.
    pub workloads: Vec<WorkloadFlows>,
    /// Time series, when sampling is on.
    pub series: Option<Series>,
    /// Run-wide packet counts.
    pub books: PacketBooks,
    /// The packet tracer, when one is attached ([`World::set_tracer`]).
    tracer: Option<Box<crate::trace::Tracer>>,
    packets: Slab<Packet>,
    queue: EventQueue<Event>,
    outbox: Outbox,
    ectx: ElementCtx,
    /// Scheduled link changes, by the index their event carries.
    changes: Vec<(EgressId, LinkChange)>,
    /// Scratch for [`World::cell_tick`] (cell links settle packets in batches).
    cell_settled: Vec<crate::net::Settled>,
    end: Time,
    /// The last instant an event may run at: the end (or `run_until`'s bound) less 1 ns, or
    /// earlier once every flow has finished ([`World::stop_when_done`]). Read by the event
    /// loop on every event, so that a completion inside an event ends the loop.
    last: Time,
    /// Whether the run ends when every flow has finished ([`World::stop_when_done`]).
    stop_when_done: bool,
    /// With `stop_when_done` and every flow a finite transfer: the transfers not finished.
    unfinished: Option<u32>,
    /// When the last finite transfer finished and so ended the run.
    finished_at: Option<Time>,
    /// The slot of a slotted world (`slotted.rs`); `None`: continuous time.
    grid: Option<packetsim_kernel::Dur>,
}

/// Why a run whose flows are all finite transfers ended ([`World::ended_by`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndedBy {
    /// Every flow finished: the run ended at the last one's last byte.
    FlowsFinished,
    /// The run reached its duration (the cap) with a transfer unfinished.
    Duration,
}

impl EndedBy {
    /// The word summary.json writes.
    pub fn word(self) -> &'static str {
        match self {
            EndedBy::FlowsFinished => "flows_finished",
            EndedBy::Duration => "duration",
        }
    }
}

impl World {
    /// A world over `net` (routes must already be computed) that runs until `end`.
    pub fn new(net: Net, end: Time) -> World {
        World {
            net,
            agents: Vec::new(),
            elements: Vec::new(),
            flows: Vec::new(),
            workloads: Vec::new(),
            series: None,
            books: PacketBooks::default(),
            tracer: None,
            packets: Slab::with_capacity(4096),
            queue: EventQueue::new(),
            outbox: Outbox::default(),
            ectx: ElementCtx::default(),
            changes: Vec::new(),
            cell_settled: Vec::new(),
            end,
            last: Time::ZERO,
            stop_when_done: false,
            unfinished: None,
            finished_at: None,
            grid: None,
        }
    }

    /// When the run stops: the duration given to [`World::new`] (the cap).
    pub fn end(&self) -> Time {
        self.end
    }

    /// Ends the run when every flow has finished, if every flow is a finite transfer (a file
    /// of known size); a run with any unlimited flow (bulk, CBR, frames) still goes to the
    /// end. Off by default; scenario runs ([`crate::scenario::run`]) turn it on.
    pub fn stop_when_done(&mut self, on: bool) {
        self.stop_when_done = on;
    }

    /// Whether every flow is a finite transfer and the run ends when they have finished.
    pub fn ends_when_done(&self) -> bool {
        self.stop_when_done
            && !self.flows.is_empty()
            && self.flows.iter().all(|f| f.app_bytes.is_some())
    }

    /// The span the run covered: up to the last transfer's last byte when that ended it
    /// ([`World::stop_when_done`]), else the end.
    pub fn span(&self) -> Time {
        self.finished_at.unwrap_or(self.end)
    }

    /// For a run that ends when its finite transfers have finished
    /// ([`World::ends_when_done`]): why it ended. `None` for other runs.
    pub fn ended_by(&self) -> Option<EndedBy> {
        if !self.ends_when_done() {
            return None;
        }
        Some(match self.finished_at {
            Some(_) => EndedBy::FlowsFinished,
            None => EndedBy::Duration,
        })
    }

    /// Attaches a tracer: from now on it sees every packet event it covers.
    pub fn set_tracer(&mut self, t: crate::trace::Tracer) {
        self.tracer = Some(Box::new(t));
    }

    /// The flow monitor (`simulation.flow_monitor`), when one is attached.
    pub fn flow_monitor(&self) -> Option<&crate::trace::FlowMonitor> {
        self.tracer.as_deref().and_then(|t| t.monitor())
    }

    /// A flow monitor for this world's flows and link directions, in a tracer that writes
    /// nothing (attach it with [`World::set_tracer`], or give its monitor to another tracer).
    pub fn new_flow_monitor(&self) -> crate::trace::FlowMonitor {
        crate::trace::FlowMonitor::new(
            self.flows.iter().map(|f| f.receiver).collect(),
            self.flows
                .iter()
                .map(|f| self.agents[f.sender.idx()].node)
                .collect(),
            self.net.egresses.iter().map(|e| e.from).collect(),
        )
    }

    /// Detaches the tracer (to finish its files).
    pub fn take_tracer(&mut self) -> Option<crate::trace::Tracer> {
        self.tracer.take().map(|b| *b)
    }

    /// Events due at the same instant run in an order drawn from `rng` from now on
    /// ([`EventQueue::shuffle_ties`]; scenario key `simulation.tie_order = "random"`).
    pub fn shuffle_ties(&mut self, rng: packetsim_kernel::Rng) {
        self.queue.shuffle_ties(rng);
    }

    /// The current simulated time.
    pub fn now(&self) -> Time {
        self.queue.now()
    }

    /// Runs over `[0, end)`: events due at the end time itself do not run. Stops early when
    /// nothing is left to do.
    pub fn run(&mut self) -> RunInfo {
        self.run_until(self.end)
    }

    /// Runs the events due before `until` (at most the end time), then returns; call again to
    /// go on. Tests use it to look at the world between two instants.
    pub fn run_until(&mut self, until: Time) -> RunInfo {
        let t0 = std::time::Instant::now();
        let mut at = until.min(self.end);
        self.unfinished = self.ends_when_done().then(|| {
            self.flows
                .iter()
                .filter(|f| f.completed_at.is_none())
                .count() as u32
        });
        if self.unfinished == Some(0) {
            at = at.min(self.span());
        }
        self.last = Time(at.0.saturating_sub(1));
        while let Some((now, ev)) = self.queue.pop_until(self.last) {
            self.handle(now, ev);
        }
        if let Some(t) = self.finished_at {
            at = at.min(t);
        }
        for e in &mut self.net.egresses {
            e.drain(at);
        }
        debug_assert_eq!(self.check_conservation(), Ok(()));
        RunInfo {
            events: self.queue.popped(),
            wall: t0.elapsed(),
            peak_packets: self.packets.high_water(),
        }
    }

    /// The loop's body: one event. Always inlined (it was left out of line once when the
    /// arrival's code grew, and the call cost 5 M instructions on dumbbell-10).
    #[inline(always)]
    fn handle(&mut self, now: Time, ev: Event) {
        match ev {
            Event::Arrive { pkt, via, dst } => self.arrive(now, pkt, via, dst),
            Event::TxDone { egress } => self.start_tx(now, egress),
            Event::Timer { agent } => self.agent_timer(now, agent),
            Event::ElementTimer { element } => self.element_timer(now, element),
            Event::LinkChange { change } => {
                let (egress, c) = self.changes[change as usize];
                self.change_link(now, egress, c);
            }
            Event::Start { flow } => self.start_flow(now, flow),
            Event::Stop { flow } => self.stop_flow(now, flow),
            Event::Sample => self.sample(now),
        }
    }

    /// A finite transfer has finished at `now`: with [`World::stop_when_done`], the last one
    /// ends the run (no event at or after `now` runs).
    pub(super) fn transfer_finished(&mut self, now: Time) {
        if let Some(n) = self.unfinished.as_mut() {
            *n -= 1;
            if *n == 0 {
                self.finished_at = Some(now);
                self.last = Time(now.0.saturating_sub(1));
            }
        }
    }

    /// Packets alive in the network now (queued, in transmission or propagating).
    pub fn packets_in_flight(&self) -> u64 {
        self.packets.len() as u64
    }

    /// The packets alive in the network now (queued at a link, in transmission or
    /// propagating), in no particular order. Packets an element has taken in (a base station's
    /// radio queue, say) are the element's and not here.
    pub fn packets_alive(&self) -> impl Iterator<Item = &Packet> {
        self.packets.iter()
    }

    /// Checks that packets are conserved: at every queue and link, and over the whole run
    /// (created + copied = delivered + consumed + dropped + in flight).
    pub fn check_conservation(&self) -> Result<(), String> {
        for e in &self.net.egresses {
            e.check_conservation()?;
        }
        let b = &self.books;
        let dropped: u64 = b.dropped.iter().sum();
        if b.created + b.copied != b.delivered + b.consumed + dropped + self.packets_in_flight() {
            return Err(format!(
                "packets created {} + copied {} != delivered {} + consumed {} + dropped {} + \
                 in flight {}",
                b.created,
                b.copied,
                b.delivered,
                b.consumed,
                dropped,
                self.packets_in_flight()
            ));
        }
        // Alive = on a wire (or in a transmitter) + held in pull-mode queues.
        let in_links: u64 = self
            .net
            .egresses
            .iter()
            .map(|e| e.in_flight() + e.held_packets())
            .sum();
        if in_links != self.packets_in_flight() {
            return Err(format!(
                "{} packets on links but {} alive",
                in_links,
                self.packets_in_flight()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    // Issue 36 (speed per packet): an arrival carries its packet's destination, so that
    // forwarding does not wait for the packet's arena slot; the event stays 16 bytes (a
    // queue entry with its time 24), as it was without it.
    #[test]
    fn events_stay_small() {
        let e = std::mem::size_of::<super::Event>();
        assert!(e <= 16, "Event {e} B");
        let entry = std::mem::size_of::<(packetsim_kernel::Time, super::Event)>();
        assert!(entry <= 24, "queue entry {entry} B");
    }
}
