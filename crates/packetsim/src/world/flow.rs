//! Flows: one sending and one receiving endpoint placed at two nodes, started and stopped by
//! events, with what was delivered to the receiving application.

use super::{Agent, CustomEndpoint, Event, World};
use crate::app::AppSource;
use crate::ids::{Addr, AgentId, FlowId, NodeId};
use crate::transport::sctp::{SctpConfig, SctpEndpoint};
use crate::transport::tcp::{AppData, TcpConfig, TcpReceiver, TcpSender};
use crate::transport::udp::{CbrSource, UdpSink};
use packetsim_kernel::{Rate, Rng, Time};

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
    /// Endpoints of the caller's own ([`World::add_custom_flow`]).
    Custom,
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

/// The flows of one workload table (`app = "poisson"`): one finite transfer per arrival.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkloadFlows {
    /// The flow table's name.
    pub name: String,
    /// Its flows' ids (indices into `World::flows`).
    pub flows: std::ops::Range<u32>,
    /// The flows' TCP maximum segment size, bytes (for the ideal completion time).
    pub mss: u32,
}

impl World {
    /// Records `flows` as the workload `name` (for flow completion times by size).
    pub fn add_workload(&mut self, name: &str, flows: std::ops::Range<u32>, mss: u32) {
        self.workloads.push(WorkloadFlows {
            name: name.to_string(),
            flows,
            mss,
        });
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

    /// Gives the TCP sender of `flow` its own stream for `send_overhead` delays,
    /// `flows.NAME.send_overhead` under `seed`. Does nothing for another kind of flow.
    pub fn seed_tcp_send_overhead(&mut self, flow: FlowId, seed: u64) {
        let f = &self.flows[flow.idx()];
        let rng = Rng::for_component(seed, &format!("flows.{}.send_overhead", f.name));
        if let Agent::TcpSender(s) = &mut self.agents[f.sender.idx()].agent {
            s.set_overhead_rng(rng);
        }
    }

    /// Adds a TCP connection whose sender is fed by `app`, any application source (study 1's
    /// frame source, [`AppSource::frames`]); the flow has no fixed size unless `app` is a
    /// file.
    pub fn add_tcp_flow_with_app(
        &mut self,
        name: &str,
        at: FlowPlacement,
        cfg: &TcpConfig,
        app: AppSource,
    ) -> FlowId {
        let bytes = match &app {
            AppSource::File(f) => Some(f.available_from(0)),
            _ => None,
        };
        let (la, ra) = (self.net.addr_of(at.from), self.net.addr_of(at.to));
        let snd = Agent::TcpSender(Box::new(TcpSender::with_app(cfg, la, ra, app)));
        let rcv = Agent::TcpReceiver(Box::new(TcpReceiver::new(cfg, ra, la)));
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
        self.agents[self.flows[flow.idx()].sender.idx()]
            .agent
            .metrics()
            .established_at
    }

    /// Adds a flow between two endpoints of the caller's own ([`CustomEndpoint`]), placed at
    /// `at`; `app_bytes` is the transfer's size when finite (for completion times).
    pub fn add_custom_flow(
        &mut self,
        name: &str,
        at: FlowPlacement,
        sender: Box<dyn CustomEndpoint>,
        receiver: Box<dyn CustomEndpoint>,
        app_bytes: Option<u64>,
    ) -> FlowId {
        self.add_flow(
            name,
            FlowKind::Custom,
            Agent::Custom(sender),
            Agent::Custom(receiver),
            at,
            app_bytes,
        )
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

    /// A flow's application starts.
    pub(super) fn start_flow(&mut self, now: Time, flow: FlowId) {
        let agent = self.flows[flow.idx()].sender;
        self.with_agent(now, agent, |a, out| match a {
            Agent::TcpSender(s) => s.open(now, out),
            Agent::Sctp(s) => s.open(now, out),
            Agent::Cbr(s) => s.start(now, out),
            Agent::Custom(s) => s.start(now, out),
            Agent::TcpReceiver(_) | Agent::UdpSink(_) => {
                unreachable!("a flow's sender is a source")
            }
        });
    }

    /// A flow's application stops offering data.
    pub(super) fn stop_flow(&mut self, now: Time, flow: FlowId) {
        let agent = self.flows[flow.idx()].sender;
        self.with_agent(now, agent, |a, _out| match a {
            Agent::TcpSender(s) => s.stop_app(now),
            Agent::Cbr(s) => s.stop_at(now),
            Agent::Custom(s) => s.stop(now),
            // Not offered: see `add_sctp_flow`.
            Agent::Sctp(_) => {}
            Agent::TcpReceiver(_) | Agent::UdpSink(_) => {
                unreachable!("a flow's sender is a source")
            }
        });
    }
}
