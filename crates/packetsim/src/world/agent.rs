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
use crate::transport::{Endpoint, Outbox};
use packetsim_kernel::Time;

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
    pub(super) fn endpoint(&mut self) -> &mut dyn Endpoint {
        match self {
            Agent::TcpSender(a) => a.as_mut(),
            Agent::TcpReceiver(a) => a.as_mut(),
            Agent::Sctp(a) => a.as_mut(),
            Agent::Cbr(a) => a,
            Agent::UdpSink(a) => a,
        }
    }
    pub(super) fn next_timeout(&self) -> Option<Time> {
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

    /// The agent adapter: runs `f` on the agent with a fresh outbox, then accounts delivered
    /// bytes, sends the outbox's packets from the agent's node and re-arms its timer.
    pub(super) fn with_agent(
        &mut self,
        now: Time,
        id: AgentId,
        f: impl FnOnce(&mut Agent, &mut Outbox),
    ) {
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

    pub(super) fn retarget(&mut self, now: Time, id: AgentId) {
        let slot = &mut self.agents[id.idx()];
        if let Some(t) = slot.agent.next_timeout() {
            if slot.armed.is_none_or(|a| t < a) {
                let t = t.max(now);
                slot.armed = Some(t);
                self.queue.schedule(t, Event::Timer { agent: id });
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
