//! The assembled simulation: the network, the endpoints ("agents") and flows, the packet arena
//! and the event queue, with the single dispatch `match` over [`Event`].
//!
//! The agent adapter ([`World::with_agent`]) is the only place where endpoints meet the world:
//! it hands an endpoint a packet or a timer, then sends what the endpoint put in its outbox and
//! keeps one timer event per endpoint at the endpoint's earliest deadline. Deadlines that move
//! later (an RTO restarted on every ACK) schedule nothing: the pending event fires, finds the
//! endpoint not yet due, and re-arms at the new deadline. So an ACK costs no timer event.
//!
//! Events per hop: one. A packet's arrival at the next node is scheduled when it is admitted
//! to a FIFO egress (see `net::link`).

use crate::ids::Addr;
use crate::ids::{AgentId, EgressId, FlowId, NodeId};
use crate::net::Net;
use crate::packet::{Packet, IP_HEADER_BYTES};
use crate::queue::DropReason;
use crate::transport::sctp::{SctpConfig, SctpEndpoint};
use crate::transport::tcp::{AppData, TcpConfig, TcpReceiver, TcpSender};
use crate::transport::udp::{CbrSource, UdpSink};
use crate::transport::{Endpoint, Outbox};
use packetsim_kernel::{Dur, EventQueue, Rate, Rng, Slab, Time};

/// What can happen. Small and `Copy`: packets travel by slab index.
#[derive(Clone, Copy, Debug)]
enum Event {
    /// A packet reaches the far end of an egress.
    Arrive { pkt: u32, via: EgressId },
    /// A classful egress's transmitter frees: it may start the next packet.
    TxDone { egress: EgressId },
    /// An endpoint may be due for `on_timer`.
    Timer { agent: AgentId },
    /// A flow's application starts.
    Start { flow: FlowId },
    /// A flow's application stops offering data.
    Stop { flow: FlowId },
    /// Record the time series.
    Sample,
}

/// A transport endpoint of any kind (enum dispatch: no allocation, inlinable).
#[allow(clippy::large_enum_variant)]
pub enum Agent {
    /// The sending end of a TCP connection.
    TcpSender(Box<TcpSender>),
    /// The receiving end of a TCP connection.
    TcpReceiver(Box<TcpReceiver>),
    /// One end of an SCTP association (the client sends, the server receives).
    Sctp(Box<SctpEndpoint>),
    /// A constant-bit-rate UDP source.
    Cbr(CbrSource),
    /// A UDP sink.
    UdpSink(UdpSink),
}

impl Agent {
    fn endpoint(&mut self) -> &mut dyn Endpoint {
        match self {
            Agent::TcpSender(a) => a.as_mut(),
            Agent::TcpReceiver(a) => a.as_mut(),
            Agent::Sctp(a) => a.as_mut(),
            Agent::Cbr(a) => a,
            Agent::UdpSink(a) => a,
        }
    }
    fn next_timeout(&self) -> Option<Time> {
        match self {
            Agent::TcpSender(a) => a.next_timeout(),
            Agent::TcpReceiver(a) => a.next_timeout(),
            Agent::Sctp(a) => a.next_timeout(),
            Agent::Cbr(a) => a.next_timeout(),
            Agent::UdpSink(a) => a.next_timeout(),
        }
    }
}

/// An agent and where it sits.
pub struct AgentSlot {
    /// The endpoint.
    pub agent: Agent,
    /// The node it is attached to.
    pub node: NodeId,
    /// The flow it belongs to.
    pub flow: FlowId,
    /// The endpoint at the other end.
    pub peer: AgentId,
    /// The earliest pending timer event for it, if any.
    armed: Option<Time>,
}

/// Where and when a flow runs.
#[derive(Clone, Copy, Debug)]
pub struct FlowPlacement {
    /// The sending node.
    pub from: NodeId,
    /// The receiving node.
    pub to: NodeId,
    /// When the application starts.
    pub start: Time,
    /// When the application stops offering data, if ever.
    pub stop: Option<Time>,
    /// DiffServ code point of the sender's packets.
    pub dscp: u8,
}

/// What kind of traffic a flow carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowKind {
    /// A TCP connection.
    Tcp,
    /// An SCTP association.
    Sctp,
    /// Constant-bit-rate UDP.
    Cbr,
}

/// A flow: one sender, one receiver, and what was delivered.
#[derive(Debug)]
pub struct Flow {
    /// The scenario's name for it.
    pub name: String,
    /// TCP or CBR.
    pub kind: FlowKind,
    /// The sending endpoint.
    pub sender: AgentId,
    /// The receiving endpoint.
    pub receiver: AgentId,
    /// When the application starts.
    pub start: Time,
    /// When the application stops offering data, if ever.
    pub stop: Option<Time>,
    /// The file size, for finite transfers.
    pub app_bytes: Option<u64>,
    /// Bytes delivered in order to the receiving application.
    pub delivered: u64,
    /// When the last byte of a finite transfer reached the receiving application.
    pub completed_at: Option<Time>,
    /// Data-carrying packets that reached the receiving endpoint (duplicates included).
    pub data_packets_delivered: u64,
    /// DiffServ code point of the sender's packets.
    pub dscp: u8,
}

/// One sample of a TCP flow's congestion state.
#[derive(Clone, Copy, Debug)]
pub struct FlowSample {
    /// When.
    pub time: Time,
    /// Which flow.
    pub flow: FlowId,
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes.
    pub ssthresh: u64,
    /// Retransmission timeout.
    pub rto: Dur,
}

/// One sample of a queue's length.
#[derive(Clone, Copy, Debug)]
pub struct QueueSample {
    /// When.
    pub time: Time,
    /// Which queue.
    pub egress: EgressId,
    /// Packets waiting.
    pub packets: u32,
    /// Bytes waiting.
    pub bytes: u64,
}

/// Time series recorded at a fixed interval.
#[derive(Debug, Default)]
pub struct Series {
    /// Sampling interval.
    pub interval: Dur,
    /// cwnd/ssthresh samples of every TCP flow.
    pub flows: Vec<FlowSample>,
    /// Length samples of every queue.
    pub queues: Vec<QueueSample>,
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

/// Packet counts of the whole run, for the conservation check.
#[derive(Clone, Debug, Default)]
pub struct PacketBooks {
    /// Packets endpoints sent.
    pub created: u64,
    /// Packets handed to endpoints.
    pub delivered: u64,
    /// Packets dropped anywhere, by reason (indexed like [`DropReason::ALL`]).
    pub dropped: [u64; DropReason::ALL.len()],
}

/// The simulation.
pub struct World {
    /// Nodes, links and routes.
    pub net: Net,
    /// Endpoints, indexed by [`AgentId`].
    pub agents: Vec<AgentSlot>,
    /// Flows, indexed by [`FlowId`].
    pub flows: Vec<Flow>,
    /// Time series, when sampling is on.
    pub series: Option<Series>,
    /// Run-wide packet counts.
    pub books: PacketBooks,
    packets: Slab<Packet>,
    queue: EventQueue<Event>,
    outbox: Outbox,
    end: Time,
}

impl World {
    /// A world over `net` (routes must already be computed) that runs until `end`.
    pub fn new(net: Net, end: Time) -> World {
        World {
            net,
            agents: Vec::new(),
            flows: Vec::new(),
            series: None,
            books: PacketBooks::default(),
            packets: Slab::with_capacity(4096),
            queue: EventQueue::new(),
            outbox: Outbox::default(),
            end,
        }
    }

    /// When the run stops.
    pub fn end(&self) -> Time {
        self.end
    }

    /// The current simulated time.
    pub fn now(&self) -> Time {
        self.queue.now()
    }

    fn add_agent(&mut self, agent: Agent, node: NodeId, flow: FlowId) -> AgentId {
        let id = AgentId(self.agents.len() as u32);
        self.agents.push(AgentSlot {
            agent,
            node,
            flow,
            peer: AgentId(0),
            armed: None,
        });
        id
    }

    fn add_flow(
        &mut self,
        name: &str,
        kind: FlowKind,
        snd: Agent,
        rcv: Agent,
        at: FlowPlacement,
        app_bytes: Option<u64>,
    ) -> FlowId {
        let fid = FlowId(self.flows.len() as u32);
        let s = self.add_agent(snd, at.from, fid);
        let r = self.add_agent(rcv, at.to, fid);
        self.agents[s.idx()].peer = r;
        self.agents[r.idx()].peer = s;
        self.flows.push(Flow {
            name: name.to_string(),
            kind,
            sender: s,
            receiver: r,
            start: at.start,
            stop: at.stop,
            app_bytes,
            delivered: 0,
            completed_at: None,
            data_packets_delivered: 0,
            dscp: at.dscp,
        });
        self.queue.schedule(at.start, Event::Start { flow: fid });
        if let Some(t) = at.stop {
            self.queue.schedule(t, Event::Stop { flow: fid });
        }
        fid
    }

    /// Adds a TCP connection placed at `at` whose application offers `app`.
    pub fn add_tcp_flow(
        &mut self,
        name: &str,
        at: FlowPlacement,
        cfg: &TcpConfig,
        app: AppData,
    ) -> FlowId {
        let (la, ra) = (self.net.addr_of(at.from), self.net.addr_of(at.to));
        let snd = Agent::TcpSender(Box::new(TcpSender::new(cfg, la, ra, app)));
        let rcv = Agent::TcpReceiver(Box::new(TcpReceiver::new(cfg, ra, la)));
        let bytes = match app {
            AppData::Bytes(n) => Some(n),
            AppData::Unlimited => None,
        };
        self.add_flow(name, FlowKind::Tcp, snd, rcv, at, bytes)
    }

    /// Adds an SCTP association placed at `at` whose client (at `at.from`) sends `app` to the
    /// server (at `at.to`). `local` and `peer` are the client's and the server's addresses
    /// (empty: the node's primary address); `local[i]` is the source used toward `peer[i]`,
    /// and `peer[primary]` is the primary destination. Each end draws its random numbers (the
    /// heartbeat jitter) from its own stream, `flows.<name>.client` / `.server` under `seed`.
    /// The association ignores `at.stop` (the scenario loader rejects it).
    #[allow(clippy::too_many_arguments)]
    pub fn add_sctp_flow(
        &mut self,
        name: &str,
        at: FlowPlacement,
        cfg: &SctpConfig,
        local: Vec<Addr>,
        peer: Vec<Addr>,
        primary: usize,
        app: AppData,
        seed: u64,
    ) -> FlowId {
        let local = if local.is_empty() {
            vec![self.net.addr_of(at.from)]
        } else {
            local
        };
        let peer = if peer.is_empty() {
            vec![self.net.addr_of(at.to)]
        } else {
            peer
        };
        let client = SctpEndpoint::client(
            cfg,
            local,
            peer.clone(),
            primary,
            app,
            Rng::for_component(seed, &format!("flows.{name}.client")),
        );
        let server = SctpEndpoint::server(
            cfg,
            peer,
            Rng::for_component(seed, &format!("flows.{name}.server")),
        );
        let bytes = match app {
            AppData::Bytes(n) => Some(n),
            AppData::Unlimited => None,
        };
        self.add_flow(
            name,
            FlowKind::Sctp,
            Agent::Sctp(Box::new(client)),
            Agent::Sctp(Box::new(server)),
            at,
            bytes,
        )
    }

    /// When the sending application of `flow` could start sending: the handshake's end (TCP:
    /// SYN-ACK received; SCTP: COOKIE-ACK received). `None` before that, and for CBR.
    pub fn established_at(&self, flow: FlowId) -> Option<Time> {
        match &self.agents[self.flows[flow.idx()].sender.idx()].agent {
            Agent::TcpSender(s) => s.established_at(),
            Agent::Sctp(s) => s.established_at(),
            Agent::TcpReceiver(_) | Agent::Cbr(_) | Agent::UdpSink(_) => None,
        }
    }

    /// Adds a constant-bit-rate UDP flow of `payload`-byte datagrams placed at `at`.
    pub fn add_cbr_flow(
        &mut self,
        name: &str,
        at: FlowPlacement,
        rate: Rate,
        payload: u32,
    ) -> FlowId {
        let (la, ra) = (self.net.addr_of(at.from), self.net.addr_of(at.to));
        let snd = Agent::Cbr(CbrSource::new(la, ra, rate, payload));
        self.add_flow(
            name,
            FlowKind::Cbr,
            snd,
            Agent::UdpSink(UdpSink::default()),
            at,
            None,
        )
    }

    /// Records cwnd/ssthresh of every TCP flow and the length of every queue every `interval`.
    pub fn enable_sampling(&mut self, interval: Dur) {
        if interval == Dur::ZERO {
            return;
        }
        self.series = Some(Series {
            interval,
            ..Default::default()
        });
        self.queue.schedule(Time::ZERO, Event::Sample);
    }

    /// Runs over `[0, end)`: events due at the end time itself do not run. Stops early when
    /// nothing is left to do.
    pub fn run(&mut self) -> RunInfo {
        let t0 = std::time::Instant::now();
        let last = Time(self.end.0.saturating_sub(1));
        while let Some((now, ev)) = self.queue.pop_until(last) {
            self.handle(now, ev);
        }
        let end = self.end;
        for e in &mut self.net.egresses {
            e.drain(end);
        }
        debug_assert_eq!(self.check_conservation(), Ok(()));
        RunInfo {
            events: self.queue.popped(),
            wall: t0.elapsed(),
            peak_packets: self.packets.high_water(),
        }
    }

    fn handle(&mut self, now: Time, ev: Event) {
        match ev {
            Event::Arrive { pkt, via } => self.arrive(now, pkt, via),
            Event::TxDone { egress } => self.start_tx(now, egress),
            Event::Timer { agent } => {
                let slot = &mut self.agents[agent.idx()];
                if slot.armed == Some(now) {
                    slot.armed = None;
                }
                if slot.agent.next_timeout().is_some_and(|t| t <= now) {
                    self.with_agent(now, agent, |a, out| a.endpoint().on_timer(now, out));
                } else {
                    self.retarget(now, agent);
                }
            }
            Event::Start { flow } => {
                let agent = self.flows[flow.idx()].sender;
                self.with_agent(now, agent, |a, out| match a {
                    Agent::TcpSender(s) => s.open(now, out),
                    Agent::Sctp(s) => s.open(now, out),
                    Agent::Cbr(s) => s.start(now, out),
                    Agent::TcpReceiver(_) | Agent::UdpSink(_) => {
                        unreachable!("a flow's sender is a source")
                    }
                });
            }
            Event::Stop { flow } => {
                let agent = self.flows[flow.idx()].sender;
                self.with_agent(now, agent, |a, _out| match a {
                    Agent::TcpSender(s) => s.stop_app(now),
                    Agent::Cbr(s) => s.stop_at(now),
                    // Not offered: see `add_sctp_flow`.
                    Agent::Sctp(_) => {}
                    Agent::TcpReceiver(_) | Agent::UdpSink(_) => {
                        unreachable!("a flow's sender is a source")
                    }
                });
            }
            Event::Sample => self.sample(now),
        }
    }

    fn arrive(&mut self, now: Time, pkt: u32, via: EgressId) {
        let egress = &mut self.net.egresses[via.idx()];
        egress.stats.delivered += 1;
        let node = egress.to;
        let dst = self.packets.get(pkt).dst;
        if self.net.addr_owner[dst.0 as usize] == node {
            let p = self.packets.remove(pkt);
            self.books.delivered += 1;
            if p.payload() > 0 {
                self.flows[p.flow.idx()].data_packets_delivered += 1;
            }
            let to = p.to;
            self.with_agent(now, to, |a, out| a.endpoint().on_packet(now, &p, out));
        } else {
            match self.net.nodes[node.idx()].routes[dst.0 as usize] {
                Some(e) if self.net.egresses[e.idx()].is_classful() => {
                    self.enqueue_held(now, e, pkt)
                }
                Some(e) => {
                    let p = self.packets.get_mut(pkt);
                    match self.net.egresses[e.idx()].send(now, p) {
                        Ok(at) => self.queue.schedule(at, Event::Arrive { pkt, via: e }),
                        Err(r) => {
                            self.packets.remove(pkt);
                            self.books.dropped[r as usize] += 1;
                        }
                    }
                }
                None => {
                    self.packets.remove(pkt);
                    self.books.dropped[DropReason::NoRoute as usize] += 1;
                }
            }
        }
    }

    /// The agent adapter: runs `f` on the agent with a fresh outbox, then accounts delivered
    /// bytes, sends the outbox's packets from the agent's node and re-arms its timer.
    fn with_agent(&mut self, now: Time, id: AgentId, f: impl FnOnce(&mut Agent, &mut Outbox)) {
        let mut out = std::mem::take(&mut self.outbox);
        out.clear();
        f(&mut self.agents[id.idx()].agent, &mut out);
        let slot = &self.agents[id.idx()];
        let (node, flow, peer) = (slot.node, slot.flow, slot.peer);
        let dscp = if self.flows[flow.idx()].sender == id {
            self.flows[flow.idx()].dscp
        } else {
            0
        };
        if out.delivered_bytes > 0 {
            let fl = &mut self.flows[flow.idx()];
            fl.delivered += out.delivered_bytes;
            if fl.completed_at.is_none() && fl.app_bytes.is_some_and(|n| fl.delivered >= n) {
                fl.completed_at = Some(now);
            }
        }
        for mut p in out.packets.drain(..) {
            p.flow = flow;
            p.to = peer;
            p.dscp = dscp;
            p.uid = self.books.created;
            p.size = IP_HEADER_BYTES + p.body.transport_len();
            self.books.created += 1;
            self.send_from(now, node, p);
        }
        self.outbox = out;
        self.retarget(now, id);
    }

    fn send_from(&mut self, now: Time, node: NodeId, mut p: Packet) {
        let Some(e) = self.net.nodes[node.idx()].routes[p.dst.0 as usize] else {
            self.books.dropped[DropReason::NoRoute as usize] += 1;
            return;
        };
        if self.net.egresses[e.idx()].is_classful() {
            let pkt = self.packets.insert(p);
            self.enqueue_held(now, e, pkt);
            return;
        }
        match self.net.egresses[e.idx()].send(now, &mut p) {
            Ok(at) => {
                let pkt = self.packets.insert(p);
                self.queue.schedule(at, Event::Arrive { pkt, via: e });
            }
            Err(r) => self.books.dropped[r as usize] += 1,
        }
    }

    /// Offers a packet held in the arena to a classful egress, and starts the transmitter if
    /// it is idle.
    fn enqueue_held(&mut self, now: Time, e: EgressId, pkt: u32) {
        let p = self.packets.get_mut(pkt);
        match self.net.egresses[e.idx()].enqueue_held(now, pkt, p) {
            Ok(()) => self.start_tx(now, e),
            Err(r) => {
                self.packets.remove(pkt);
                self.books.dropped[r as usize] += 1;
            }
        }
    }

    /// Starts a classful egress's next transmission if its transmitter is idle.
    fn start_tx(&mut self, now: Time, e: EgressId) {
        if let Some((pkt, fate, free_at)) = self.net.egresses[e.idx()].start_next(now) {
            self.queue.schedule(free_at, Event::TxDone { egress: e });
            match fate {
                Ok(at) => self.queue.schedule(at, Event::Arrive { pkt, via: e }),
                Err(r) => {
                    self.packets.remove(pkt);
                    self.books.dropped[r as usize] += 1;
                }
            }
        }
    }

    fn retarget(&mut self, now: Time, id: AgentId) {
        let slot = &mut self.agents[id.idx()];
        if let Some(t) = slot.agent.next_timeout() {
            if slot.armed.is_none_or(|a| t < a) {
                let t = t.max(now);
                slot.armed = Some(t);
                self.queue.schedule(t, Event::Timer { agent: id });
            }
        }
    }

    fn sample(&mut self, now: Time) {
        let Some(series) = self.series.as_mut() else {
            return;
        };
        for (i, f) in self.flows.iter().enumerate() {
            if let Agent::TcpSender(s) = &self.agents[f.sender.idx()].agent {
                let m = s.cc_metrics();
                series.flows.push(FlowSample {
                    time: now,
                    flow: FlowId(i as u32),
                    cwnd: m.cwnd,
                    ssthresh: m.ssthresh,
                    rto: m.rto,
                });
            }
        }
        for (i, e) in self.net.egresses.iter_mut().enumerate() {
            e.drain(now);
            let len = e.len();
            series.queues.push(QueueSample {
                time: now,
                egress: EgressId(i as u32),
                packets: len.packets,
                bytes: len.bytes,
            });
        }
        let next = now + series.interval;
        if next <= self.end {
            self.queue.schedule(next, Event::Sample);
        }
    }

    /// Packets alive in the network now (queued, in transmission or propagating).
    pub fn packets_in_flight(&self) -> u64 {
        self.packets.len() as u64
    }

    /// Checks that packets are conserved: at every queue and link, and over the whole run
    /// (created = delivered + dropped + in flight).
    pub fn check_conservation(&self) -> Result<(), String> {
        for e in &self.net.egresses {
            e.check_conservation()?;
        }
        let b = &self.books;
        let dropped: u64 = b.dropped.iter().sum();
        if b.created != b.delivered + dropped + self.packets_in_flight() {
            return Err(format!(
                "packets created {} != delivered {} + dropped {} + in flight {}",
                b.created,
                b.delivered,
                dropped,
                self.packets_in_flight()
            ));
        }
        // Alive = on a wire (or in a transmitter) + held in class queues.
        let in_links: u64 = self
            .net
            .egresses
            .iter()
            .map(|e| {
                e.in_flight()
                    + if e.is_classful() {
                        e.len().packets as u64
                    } else {
                        0
                    }
            })
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
