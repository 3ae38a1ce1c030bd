//! HAWAII (spec 5 §2.4), one row of `mobility_protocols!`: one forwarding entry per mobile
//! at every node on its path, set by path-setup messages at a handoff and kept alive by the
//! serving base station's periodic refresh toward the domain root (entries live
//! `3·T_ref`).
//!
//! - At the mobile: at the attachment, a registration to the new base station naming the
//!   old one.
//! - At the new base station: the entry points at its radio and the path setup leaves for the
//!   old base station: MSF's (Multiple Stream Forwarding) passes the nodes untouched, the
//!   old base station points at the new one, sends it on and forwards its held packets
//!   behind it, and every node from there to the new base station is re-pointed; UNF's
//!   (Unicast Non-Forwarding) re-points every node on its way, the old base station keeps
//!   its entry, and the mobile hears the old cell `unf_linger` after the switch.
//! - Uplink data passes; downlink data follows the entry (`DomainNode::downlink`).

use super::node::DomainNode;
use super::{kind, MobileHost, MobilityConfig, MobilityProtocol, FAMILY_HAWAII};
use crate::ids::{Addr, EgressId};
use crate::net::{Disposition, ElementCtx, Via};
use crate::packet::{ControlHeader, Packet};
use packetsim_kernel::{Dur, Time};

/// HAWAII's path-setup scheme (spec 5 §2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HawaiiScheme {
    /// Multiple Stream Forwarding: the old base station forwards to the new one.
    Msf,
    /// Unicast Non-Forwarding: entries re-pointed from the new base station toward the old.
    Unf,
}

impl MobilityProtocol for HawaiiScheme {
    const FAMILY: u16 = FAMILY_HAWAII;

    fn kind_name(k: u16) -> Option<&'static str> {
        match k {
            kind::REGISTER => Some("register"),
            kind::PATH_SETUP => Some("path_setup"),
            kind::PATH_SETUP_UNF => Some("path_setup_unf"),
            kind::REFRESH => Some("refresh"),
            _ => None,
        }
    }

    fn linger(self, cfg: &MobilityConfig) -> Dur {
        match self {
            HawaiiScheme::Unf => cfg.unf_linger,
            HawaiiScheme::Msf => Dur::ZERO,
        }
    }

    fn initial_path(self, cfg: &MobilityConfig) -> Option<Dur> {
        Some(cfg.entry_timeout())
    }

    fn refresh_period(self, cfg: &MobilityConfig, bs: Option<usize>) -> Option<Dur> {
        bs.map(|_| cfg.refresh)
    }

    fn on_control(
        self,
        node: &mut DomainNode,
        now: Time,
        via: EgressId,
        pkt: &Packet,
        c: ControlHeader,
        ctx: &mut ElementCtx,
    ) -> Disposition {
        let mine = pkt.dst == node.addr;
        let Some(j) = node.mobile_by_addr(Addr(c.args[0])) else {
            return Disposition::Pass;
        };
        let back = node.back[via.idx()];
        match c.kind {
            kind::REGISTER if mine => {
                // The new base station: its entry points at the radio; the path setup leaves
                // for the old base station (spec 5 §2.4, MSF step 2 / UNF).
                let radio = node.mobiles[j].radio.as_ref().expect("a base station").down;
                node.hawaii_set(now, j, radio);
                let me = node.bs.expect("registration at a base station") as u32;
                if c.args[1] > 0 {
                    let old = node.bs_addrs[c.args[1] as usize - 1];
                    let k = match self {
                        HawaiiScheme::Msf => kind::PATH_SETUP,
                        HawaiiScheme::Unf => kind::PATH_SETUP_UNF,
                    };
                    node.send_control(ctx, k, old, [c.args[0], me, 1, 0], Via::Route);
                }
            }
            kind::PATH_SETUP => {
                let new = c.args[1] as usize;
                if c.args[2] == 1 {
                    if mine {
                        // MSF step 3: the old base station points at the new one, sends the
                        // path setup on, then its held packets behind it (the message goes
                        // first so that each router is re-pointed before they reach it).
                        let up = node.toward[new].expect("a route to the new base station");
                        node.hawaii_set(now, j, up);
                        let dst = node.bs_addrs[new];
                        node.send_control(
                            ctx,
                            kind::PATH_SETUP,
                            dst,
                            [c.args[0], c.args[1], 2, 0],
                            Via::Egress(up),
                        );
                        node.forward_held(j, up, ctx);
                    }
                    // On its way to the old base station: entries untouched (MSF step 2).
                } else if !mine {
                    // MSF step 4: every node from the old base station to the new one.
                    let e = node.toward[new].expect("a route to the new base station");
                    node.hawaii_set(now, j, e);
                }
            }
            kind::PATH_SETUP_UNF if !mine => {
                // UNF: every node on the way, crossover included, points back toward the new
                // base station; the old base station keeps its entry (what is below the
                // crossover reaches the mobile only if it still hears the old cell).
                node.hawaii_set(now, j, back);
            }
            kind::REFRESH => node.hawaii_set(now, j, back),
            _ => {}
        }
        node.consume_if_mine(pkt)
    }

    fn on_data(
        self,
        node: &mut DomainNode,
        now: Time,
        _via: EgressId,
        pkt: &mut Packet,
        ctx: &mut ElementCtx,
    ) -> Disposition {
        if node.mobile_by_addr(pkt.src).is_some() {
            Disposition::Pass
        } else if let Some(j) = node.mobile_by_addr(pkt.dst) {
            node.downlink(now, j, pkt, ctx)
        } else {
            Disposition::Pass
        }
    }

    fn on_refresh(self, node: &mut DomainNode, now: Time, ctx: &mut ElementCtx) {
        let bs = node.bs.expect("refreshes at base stations");
        for j in 0..node.mobiles.len() {
            let radio = node.mobiles[j].radio.as_ref().expect("a radio").down;
            let registered = node.mobiles[j]
                .routes
                .iter()
                .any(|r| r.0 == radio && r.1 > now);
            if registered && node.mobiles[j].schedule.read().serving(now) == Some(bs) {
                // HAWAII soft state: the base station serving a registered mobile refreshes
                // its own entry and sends a refresh toward the domain root.
                node.hawaii_set(now, j, radio);
                let args = [node.mobiles[j].addr.0, 0, 0, 0];
                let gw = node.gateway;
                node.send_control(ctx, kind::REFRESH, gw, args, Via::Route);
            }
        }
    }

    fn on_attach(
        self,
        host: &mut MobileHost,
        _now: Time,
        from: usize,
        to: usize,
        ctx: &mut ElementCtx,
    ) {
        let dst = host.bs_addrs[to];
        let args = [host.addr.0, from as u32 + 1, 0, 0];
        host.send_control(ctx, kind::REGISTER, dst, args, to);
    }
}

impl DomainNode {
    /// HAWAII: mobile `j`'s single entry points at `via` for `3·T_ref` from now.
    fn hawaii_set(&mut self, now: Time, j: usize, via: EgressId) {
        let until = now + self.cfg.entry_timeout();
        self.mobiles[j].routes = vec![(via, until)];
    }
}
