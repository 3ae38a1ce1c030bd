//! Mobile IP (RFC 5944), one row of `mobility_protocols!`: the macro-mobility baseline the
//! paper sets beside the micro-mobility protocols. Every base station is a foreign agent; a
//! home agent (at the gateway, or at a node of its own, [`super::TreeParams::home_agent_delay`])
//! holds each mobile's binding and tunnels its downlink to the foreign agent of that binding.
//!
//! The nodes between the home agent and the foreign agents are plain routers: the home agent
//! rewrites a downlink packet's destination to the foreign agent (the outer header of the
//! tunnel, `tunnel_bytes` more on the wire) and the foreign agent restores it and puts the
//! packet in its radio queue. The inner header travels beside the packet in the domain's
//! `Tunnel` table keyed by the packet's uid. The mobile registers through the
//! new foreign agent at each attachment (§3.3) and again when half the lifetime has passed
//! (§3.6.1.2).

use super::node::{is_data, DomainNode};
use super::{kind, DiscardReason, MobileHost, MobilityConfig, MobilityProtocol, FAMILY_MIP};
use crate::ids::{Addr, EgressId};
use crate::net::{Disposition, ElementCtx, Next, Via};
use crate::packet::{ControlHeader, Packet};
use crate::queue::DropReason;
use packetsim_kernel::{Dur, Time};

/// Mobile IP's row (it has no variants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MobileIp;

impl MobilityProtocol for MobileIp {
    const FAMILY: u16 = FAMILY_MIP;

    fn kind_name(k: u16) -> Option<&'static str> {
        match k {
            kind::REG_REQUEST => Some("reg_request"),
            kind::REG_REPLY => Some("reg_reply"),
            _ => None,
        }
    }

    fn home_agent(self) -> bool {
        true
    }

    fn initial_path(self, _cfg: &MobilityConfig) -> Option<Dur> {
        None
    }

    /// Registration messages (RFC 5944 §3), at the agent they are addressed to.
    fn on_control(
        self,
        node: &mut DomainNode,
        now: Time,
        _via: EgressId,
        pkt: &Packet,
        c: ControlHeader,
        ctx: &mut ElementCtx,
    ) -> Disposition {
        if pkt.dst != node.addr {
            return Disposition::Pass;
        }
        let Some(j) = node.mobile_by_addr(Addr(c.args[0])) else {
            return Disposition::Consume;
        };
        let fa = c.args[1] as usize;
        let until = now + node.cfg.mip_lifetime;
        let args = [c.args[0], c.args[1], 0, 0];
        match c.kind {
            kind::REG_REQUEST if is_home_agent(node) => {
                // §3.8.3: the home agent accepts, records the care-of address (the foreign
                // agent) with the lifetime, and replies to the foreign agent.
                node.mobiles[j].binding = Some((fa, until));
                let dst = node.bs_addrs[fa];
                node.send_control(ctx, kind::REG_REPLY, dst, args, Via::Route);
            }
            kind::REG_REQUEST if node.bs.is_some() => {
                // §3.7.2: the foreign agent relays the request to the home agent.
                let ha = node.mip.as_ref().expect("a Mobile IP node").0;
                node.send_control(ctx, kind::REG_REQUEST, ha, args, Via::Route);
            }
            kind::REG_REPLY if node.bs.is_some() => {
                // §3.7.3: a successful reply makes the visitor-list entry (delivery over this
                // radio for the lifetime) and is relayed to the mobile.
                let radio = node.mobiles[j].radio.as_ref().expect("a base station").down;
                node.mobiles[j].routes = vec![(radio, until)];
                let mh = node.mobiles[j].addr;
                node.send_control(ctx, kind::REG_REPLY, mh, args, Via::Egress(radio));
            }
            _ => {}
        }
        Disposition::Consume
    }

    /// Data: the home agent tunnels what is addressed to a mobile, a foreign agent
    /// detunnels what is addressed to it; nothing else reaches a mobile. Uplink data passes.
    fn on_data(
        self,
        node: &mut DomainNode,
        now: Time,
        _via: EgressId,
        pkt: &mut Packet,
        ctx: &mut ElementCtx,
    ) -> Disposition {
        if node.mobile_by_addr(pkt.src).is_some() {
            return Disposition::Pass;
        }
        let (_, tunnel) = node.mip.as_ref().expect("a Mobile IP node");
        if pkt.dst == node.addr && node.bs.is_some() {
            let inner = tunnel.borrow_mut().remove(&pkt.uid);
            let Some(j) = inner else {
                return Disposition::Pass;
            };
            pkt.dst = node.mobiles[j].addr;
            pkt.size -= node.cfg.tunnel_bytes;
            let radio = node.mobiles[j].radio.as_ref().expect("a base station").down;
            if node.mobiles[j]
                .routes
                .iter()
                .any(|r| r.0 == radio && r.1 > now)
            {
                node.radio_enqueue(now, j, pkt.clone(), ctx);
                return Disposition::Consume;
            }
            node.stats.no_state += is_data(pkt) as u64;
            node.discard(now, j, pkt, DiscardReason::NoState);
            return Disposition::Redirect(Next::Drop(DropReason::NoRoute));
        }
        let Some(j) = node.mobile_by_addr(pkt.dst) else {
            return Disposition::Pass;
        };
        let binding = node.mobiles[j].binding.filter(|b| b.1 > now);
        match binding {
            Some((fa, _)) if is_home_agent(node) => {
                tunnel.borrow_mut().insert(pkt.uid, j);
                pkt.dst = node.bs_addrs[fa];
                pkt.size += node.cfg.tunnel_bytes;
                Disposition::Pass
            }
            _ => {
                node.stats.no_state += is_data(pkt) as u64;
                node.discard(now, j, pkt, DiscardReason::NoState);
                Disposition::Redirect(Next::Drop(DropReason::NoRoute))
            }
        }
    }

    fn on_attach(
        self,
        host: &mut MobileHost,
        now: Time,
        _from: usize,
        to: usize,
        ctx: &mut ElementCtx,
    ) {
        // The agent advertisement is taken as heard at attachment.
        let dst = host.bs_addrs[to];
        let args = [host.addr.0, to as u32, 0, 0];
        host.send_control(ctx, kind::REG_REQUEST, dst, args, to);
        host.last_registration = now;
    }

    fn on_host_timer(self, host: &mut MobileHost, now: Time, ctx: &mut ElementCtx) {
        if now >= reregistration(host) {
            // Half the lifetime gone: register again through the serving foreign agent (a
            // mobile inside a layer-2 gap registers at its attachment).
            if host.schedule.read().serving(now).is_some() {
                let bs = host.attached;
                let args = [host.addr.0, bs as u32, 0, 0];
                let dst = host.bs_addrs[bs];
                host.send_control(ctx, kind::REG_REQUEST, dst, args, bs);
            }
            host.last_registration = now;
        }
    }

    fn next_update(self, host: &MobileHost) -> Option<Time> {
        Some(reregistration(host))
    }
}

/// Whether `node` is the domain's home agent.
fn is_home_agent(node: &DomainNode) -> bool {
    node.mip.as_ref().is_some_and(|m| m.0 == node.addr)
}

/// When the mobile next registers without a handoff: half its lifetime after the last time.
fn reregistration(host: &MobileHost) -> Time {
    host.last_registration + Dur(host.cfg.mip_lifetime.0 / 2)
}
