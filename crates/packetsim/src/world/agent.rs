//! The agent adapter: the only place where transport endpoints meet the world. It hands an
//! endpoint a packet or a timer, then sends what the endpoint put in its outbox and keeps one
//! timer event per endpoint at the endpoint's earliest deadline. Deadlines that move later (an
//! RTO restarted on every ACK) schedule nothing: the pending event fires, finds the endpoint
//! not yet due, and re-arms at the new deadline. So an ACK costs no timer event.

use super::{Event, World};
use crate::ids::{AgentId, FlowId, NodeId};
use crate::packet::IP_HEADER_BYTES;
use crate::transport::sctp::SctpEndpoint;
use crate::transport::tcp::{TcpReceiver, TcpSender};
use crate::transport::udp::{CbrSource, UdpSink};
use crate::transport::{Endpoint, Notice, Outbox};
use packetsim_kernel::Time;
use std::any::Any;

/// A transport endpoint of any kind (enum dispatch for the built-in kinds: no allocation,
/// inlinable; [`Agent::Custom`] for an endpoint of the researcher's own).
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
    /// Any other endpoint (a test's, a new protocol's before it earns a variant).
    Custom(Box<dyn CustomEndpoint>),
}

/// What the reports read of an endpoint, the same for every kind (zero where a kind has no
/// such counter).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EndpointMetrics {
    /// The congestion-control variant, for TCP senders.
    pub variant: Option<&'static str>,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    /// Data segments, chunks or datagrams sent.
    pub segments_sent: u64,
    /// Retransmitted segments or chunks.
    pub retransmits: u64,
    /// Retransmission timeouts (T3-rtx expiries for SCTP).
    pub timeouts: u64,
    /// Fast retransmissions.
    pub fast_retransmits: u64,
    /// Window reductions for ECN echoes.
    pub ecn_reductions: u64,
    /// Duplicate data segments received.
    pub duplicate_segments: u64,
    /// CE-marked segments received.
    pub ce_received: u64,
    /// TCP receivers: data segments that arrived in order with new bytes.
    pub in_order_segments: Option<u64>,
    /// When the handshake completed (the sending application could start).
    pub established_at: Option<Time>,
}

/// An endpoint that is not one of the built-in kinds: the [`Endpoint`] calls, plus what the
/// world needs to start and stop it and what the reports read.
pub trait CustomEndpoint: Endpoint + std::fmt::Debug {
    /// The flow's application starts (senders only).
    fn start(&mut self, _now: Time, _out: &mut Outbox) {}
    /// The flow's application stops offering data (senders only).
    fn stop(&mut self, _now: Time) {}
    /// Counters for the reports.
    fn metrics(&self) -> EndpointMetrics {
        EndpointMetrics::default()
    }
    /// For tests and reports: the concrete endpoint.
    fn as_any(&self) -> &dyn Any;
}

impl Agent {
    pub(super) fn endpoint(&mut self) -> &mut dyn Endpoint {
        match self {
            Agent::TcpSender(a) => a.as_mut(),
            Agent::TcpReceiver(a) => a.as_mut(),
            Agent::Sctp(a) => a.as_mut(),
            Agent::Cbr(a) => a,
            Agent::UdpSink(a) => a,
            Agent::Custom(a) => a.as_mut(),
        }
    }
    pub(super) fn next_timeout(&self) -> Option<Time> {
        match self {
            Agent::TcpSender(a) => a.next_timeout(),
            Agent::TcpReceiver(a) => a.next_timeout(),
            Agent::Sctp(a) => a.next_timeout(),
            Agent::Cbr(a) => a.next_timeout(),
            Agent::UdpSink(a) => a.next_timeout(),
            Agent::Custom(a) => a.next_timeout(),
        }
    }

    /// The endpoint's counters, the one place the reports read them.
    pub fn metrics(&self) -> EndpointMetrics {
        match self {
            Agent::TcpSender(t) => {
                let st = t.stats();
                EndpointMetrics {
                    variant: Some(t.variant().name()),
                    bytes_sent: st.bytes_sent,
                    segments_sent: st.segments_sent,
                    retransmits: st.retransmits,
                    timeouts: st.timeouts,
                    fast_retransmits: st.fast_retransmits,
                    ecn_reductions: st.ecn_reductions,
                    established_at: t.established_at(),
                    ..Default::default()
                }
            }
            Agent::TcpReceiver(r) => EndpointMetrics {
                duplicate_segments: r.stats().duplicate_segments,
                ce_received: r.stats().ce_received,
                in_order_segments: Some(r.stats().in_order_segments),
                ..Default::default()
            },
            Agent::Sctp(a) => {
                let st = a.stats();
                EndpointMetrics {
                    bytes_sent: st.bytes_sent,
                    segments_sent: st.data_chunks_sent,
                    retransmits: st.retransmissions,
                    timeouts: st.t3_expiries,
                    fast_retransmits: st.fast_retransmits,
                    established_at: a.established_at(),
                    ..Default::default()
                }
            }
            Agent::Cbr(c) => EndpointMetrics {
                bytes_sent: c.bytes_sent(),
                segments_sent: c.sent(),
                ..Default::default()
            },
            Agent::UdpSink(_) => EndpointMetrics::default(),
            Agent::Custom(a) => a.metrics(),
        }
    }

    /// The SCTP association, for SCTP's own diagnostics (per-destination RTO and counters).
    pub fn sctp(&self) -> Option<&SctpEndpoint> {
        match self {
            Agent::Sctp(a) => Some(a),
            _ => None,
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
    pub(super) armed: Option<Time>,
}

impl World {
    pub(super) fn add_agent(&mut self, agent: Agent, node: NodeId, flow: FlowId) -> AgentId {
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

    /// The agent adapter: runs `f` on the agent with the world's (drained) outbox, then
    /// accounts delivered bytes, sends the outbox's packets from the agent's node and re-arms
    /// its timer.
    pub(super) fn with_agent(
        &mut self,
        now: Time,
        id: AgentId,
        f: impl FnOnce(&mut Agent, &mut Outbox),
    ) {
        self.outbox.clear();
        f(&mut self.agents[id.idx()].agent, &mut self.outbox);
        self.after_agent_sends::<false>(now, id, None, false);
        self.retarget(now, id);
    }

    /// Hands packet `pkt` (in the arena) to endpoint `id`, then sends the endpoint's answer:
    /// [`World::with_agent`] for a delivery, without moving the packet out of the arena. The
    /// packet's slot goes to the first packet of the answer (or is freed if there is none).
    #[inline(never)]
    pub(super) fn deliver_to(&mut self, now: Time, id: AgentId, pkt: u32) {
        // `after_agent_sends` leaves the outbox drained: only the byte count is stale.
        debug_assert!(self.outbox.packets.is_empty(), "the outbox is left drained");
        let out = &mut self.outbox;
        out.delivered_bytes = 0;
        let p = self.packets.get(pkt);
        // The built-in TCP ends make every packet with `Packet::new`, which sizes it from
        // its body, and change no body after: their answers need no sizing again (about 28
        // instructions a data packet; test `tcp_packets_keep_the_size_of_their_body`).
        let sized = match &mut self.agents[id.idx()].agent {
            Agent::TcpSender(a) => {
                a.on_packet(now, p, out);
                true
            }
            Agent::TcpReceiver(a) => {
                a.on_packet(now, p, out);
                true
            }
            a => {
                a.endpoint().on_packet(now, p, out);
                false
            }
        };
        self.after_agent_sends::<true>(now, id, Some(pkt), sized);
        // Inlined here only: every delivery re-arms, and the other adapters stay small.
        self.retarget_inline(now, id);
    }

    /// The second half of the adapter, without the timer: delivered bytes, and the outbox's
    /// packets, each put in the arena as it is taken from the outbox (into slot `spent`, the
    /// delivered packet's, for the first), then sent by index. `spent`, if no packet takes
    /// it, is freed. `INLINE_SEND`: the sending inlined too (the delivery path only).
    /// `sized`: the packets' sizes are already those of their bodies (see `deliver_to`).
    #[inline(always)]
    fn after_agent_sends<const INLINE_SEND: bool>(
        &mut self,
        now: Time,
        id: AgentId,
        mut spent: Option<u32>,
        sized: bool,
    ) {
        let slot = &self.agents[id.idx()];
        let (node, flow, peer) = (slot.node, slot.flow, slot.peer);
        let fl = &mut self.flows[flow.idx()];
        let dscp = if fl.sender == id { fl.dscp } else { 0 };
        let delivered = self.outbox.delivered_bytes;
        if delivered > 0 {
            fl.delivered += delivered;
            if fl.completed_at.is_none() && fl.app_bytes.is_some_and(|n| fl.delivered >= n) {
                fl.completed_at = Some(now);
                self.transfer_finished(now);
            }
        }
        // Taken out of the outbox while they are sent: a delivery within `send_held` uses
        // the outbox again. Each packet is moved into the arena whole (one block copy) and
        // the adapter's fields are filled in there. The uid is the run's count when the
        // packet is sent, after the packets sent before it (a delivery within `send_held`
        // may create some). A freed slot would be the next one taken, so the first packet
        // goes straight into `spent` (`replace_mut`), which leaves the arena as freeing it
        // first would.
        let mut packets = std::mem::take(&mut self.outbox.packets);
        for p in packets.drain(..) {
            let (pkt, held) = match spent.take() {
                Some(i) => (i, self.packets.replace_mut(i, p)),
                None => self.packets.insert_mut(p),
            };
            held.flow = flow;
            held.to = peer;
            held.dscp = dscp;
            if sized {
                debug_assert_eq!(held.size, IP_HEADER_BYTES + held.body.transport_len());
            } else {
                held.size = IP_HEADER_BYTES + held.body.transport_len();
            }
            held.uid = self.books.created;
            self.books.created += 1;
            let dst = held.dst;
            if INLINE_SEND {
                self.send_held_inline(now, node, dst, pkt);
            } else {
                self.send_held(now, node, dst, pkt);
            }
        }
        if let Some(i) = spent {
            self.packets.discard(i);
        }
        let spare = std::mem::replace(&mut self.outbox.packets, packets);
        if spare.capacity() == 0 {
            // The placeholder `mem::take` left: no allocation and no packet, nothing to free
            // (a nested call's vector, which may hold an allocation, is dropped).
            std::mem::forget(spare);
        }
    }

    pub(super) fn retarget(&mut self, now: Time, id: AgentId) {
        self.retarget_inline(now, id);
    }

    /// [`World::retarget`], inlined.
    #[inline(always)]
    fn retarget_inline(&mut self, now: Time, id: AgentId) {
        let slot = &mut self.agents[id.idx()];
        if let Some(t) = slot.agent.next_timeout() {
            if slot.armed.is_none_or(|a| t < a) {
                let t = match self.grid {
                    None => t.max(now),
                    Some(g) => {
                        // A slotted world (slotted.rs): the event sits on the grid, and
                        // one already there for the same slot or earlier will do.
                        let e = super::slotted::timer_event(g, now, t);
                        if slot.armed.is_some_and(|a| e >= a) {
                            return;
                        }
                        e
                    }
                };
                slot.armed = Some(t);
                self.queue.schedule(t, Event::Timer { agent: id });
            }
        }
    }

    /// Tells every endpoint at `node` of `notice` (a link at the node changed state, the node
    /// attached or detached), in agent order.
    pub fn notify(&mut self, now: Time, node: NodeId, notice: Notice) {
        for i in 0..self.agents.len() {
            if self.agents[i].node == node {
                let id = AgentId(i as u32);
                self.with_agent(now, id, |a, out| a.endpoint().on_event(now, &notice, out));
            }
        }
    }

    /// An endpoint may be due: runs its timers, or re-arms at its deadline.
    pub(super) fn agent_timer(&mut self, now: Time, agent: AgentId) {
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
}
