//! Cellular IP (spec 5 §2.3), one row of `mobility_protocols!`: hop-by-hop routing caches
//! refreshed by every uplink packet and by route-updates, hard or semisoft handoff, and
//! paging ([`MobilityConfig::paging`]).
//!
//! - At a node: an uplink packet from a mobile (data or a route-update) refreshes the
//!   mobile's routing-cache mapping toward the interface it came from for `route_timeout`;
//!   a semisoft packet does too and marks the mapping as the new path, so the crossover
//!   bicasts until the old mapping lapses (the fixed delay device there,
//!   [`MobilityConfig::crossover_delay`], holds the new path's copies back). A downlink
//!   packet follows the live mappings (`DomainNode::downlink`); with paging, one that
//!   meets none follows the paging cache, or where that has none every downlink interface.
//! - At the mobile: semisoft sends the semisoft packet `semisoft_delay` before the switch;
//!   both handoffs send a route-update through the new base station at the attachment (an
//!   idle mobile a paging-update); a mobile silent for `route_update_time` sends a
//!   route-update (idle, for `paging_update_time`, a paging-update).

use super::node::DomainNode;
use super::schedule::Listen;
use super::{kind, DiscardReason, MobileHost, MobilityConfig, MobilityProtocol, FAMILY_CIP};
use crate::ids::EgressId;
use crate::net::{Disposition, ElementCtx, Next, NextHops};
use crate::packet::{ControlHeader, Packet};
use crate::queue::DropReason;
use packetsim_kernel::{Dur, Time};

/// Cellular IP's handoff (spec 5 §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CipHandoff {
    /// Switch, then a route-update through the new base station.
    Hard,
    /// A semisoft packet `semisoft_delay` before the switch: the crossover bicasts.
    Semisoft,
}

impl MobilityProtocol for CipHandoff {
    const FAMILY: u16 = FAMILY_CIP;

    fn kind_name(k: u16) -> Option<&'static str> {
        match k {
            kind::ROUTE_UPDATE => Some("route_update"),
            kind::SEMISOFT => Some("semisoft"),
            kind::PAGING_UPDATE => Some("paging_update"),
            _ => None,
        }
    }

    fn lead(self, cfg: &MobilityConfig) -> Option<Dur> {
        (self == CipHandoff::Semisoft).then_some(cfg.semisoft_delay)
    }

    fn pages(self) -> bool {
        true
    }

    fn bicasts(self) -> bool {
        self == CipHandoff::Semisoft
    }

    fn initial_path(self, cfg: &MobilityConfig) -> Option<Dur> {
        Some(cfg.route_timeout)
    }

    fn on_control(
        self,
        node: &mut DomainNode,
        now: Time,
        via: EgressId,
        pkt: &Packet,
        c: ControlHeader,
        _ctx: &mut ElementCtx,
    ) -> Disposition {
        let Some(j) = node.mobile_by_addr(crate::ids::Addr(c.args[0])) else {
            return Disposition::Pass;
        };
        let back = node.back[via.idx()];
        match c.kind {
            kind::ROUTE_UPDATE => node.cip_refresh(now, j, back),
            kind::SEMISOFT => node.semisoft_refresh(now, j, back),
            kind::PAGING_UPDATE if node.cfg.paging => node.pc_refresh(now, j, back),
            _ => {}
        }
        node.consume_if_mine(pkt)
    }

    fn on_data(
        self,
        node: &mut DomainNode,
        now: Time,
        via: EgressId,
        pkt: &mut Packet,
        ctx: &mut ElementCtx,
    ) -> Disposition {
        if let Some(j) = node.mobile_by_addr(pkt.src) {
            // Uplink data refreshes the cache (spec 5 §2.3).
            let back = node.back[via.idx()];
            node.cip_refresh(now, j, back);
            Disposition::Pass
        } else if let Some(j) = node.mobile_by_addr(pkt.dst) {
            node.downlink(now, j, pkt, ctx)
        } else {
            Disposition::Pass
        }
    }

    fn announce(self, host: &mut MobileHost, _now: Time, to: usize, ctx: &mut ElementCtx) {
        // An idle mobile has no route to hand over; it reports the new cell at the
        // attachment.
        if host.active {
            let args = [host.addr.0, 0, 0, 0];
            let gw = host.gateway;
            host.send_control(ctx, kind::SEMISOFT, gw, args, to);
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
        // An idle mobile's cell change is a paging-update (spec 5 §2.3).
        let k = if host.active {
            kind::ROUTE_UPDATE
        } else {
            kind::PAGING_UPDATE
        };
        let args = [host.addr.0, 0, 0, 0];
        let gw = host.gateway;
        host.send_control(ctx, k, gw, args, to);
        host.last_uplink = now;
    }

    fn on_delivered(self, host: &mut MobileHost, now: Time, pkt: &Packet, ctx: &mut ElementCtx) {
        if pkt.tcp().is_some() {
            // The receiver acknowledges it now: uplink data (see `host`'s module doc).
            host.last_uplink = now;
        }
        if paging(host) {
            // Any packet for its endpoints (a SYN too) makes it active.
            host.last_data = now;
            if !host.active {
                // Paged (spec 5 §2.3): active again, and a route-update builds the routing
                // caches from here to the gateway.
                host.active = true;
                let args = [host.addr.0, 0, 0, 0];
                let (gw, bs) = (host.gateway, host.attached);
                host.send_control(ctx, kind::ROUTE_UPDATE, gw, args, bs);
                host.last_uplink = now;
            }
        }
    }

    fn wake(self, host: &mut MobileHost, now: Time) {
        if paging(host) && host.active && now >= host.last_data + host.cfg.active_timeout {
            // No data for active_timeout: idle; paging-updates from now on.
            host.active = false;
        }
    }

    fn on_host_timer(self, host: &mut MobileHost, now: Time, ctx: &mut ElementCtx) {
        let (k, every) = if host.active {
            (kind::ROUTE_UPDATE, host.cfg.route_update_time)
        } else {
            (kind::PAGING_UPDATE, host.cfg.paging_update_time)
        };
        if now >= host.last_uplink + every {
            // Silent for route_update_time: a route-update (spec 5 §2.3); idle, silent for
            // paging_update_time: a paging-update. Inside a layer-2 gap it cannot send; it
            // will at the attachment.
            if host.schedule.read().serving(now).is_some() {
                let args = [host.addr.0, 0, 0, 0];
                let (gw, bs) = (host.gateway, host.attached);
                host.send_control(ctx, k, gw, args, bs);
            }
            host.last_uplink = now;
        }
    }

    fn next_update(self, host: &MobileHost) -> Option<Time> {
        let cfg = &host.cfg;
        Some(if !host.active {
            host.last_uplink + cfg.paging_update_time
        } else if paging(host) {
            (host.last_uplink + cfg.route_update_time).min(host.last_data + cfg.active_timeout)
        } else {
            host.last_uplink + cfg.route_update_time
        })
    }
}

/// Whether the mobile runs Cellular IP paging.
fn paging(host: &MobileHost) -> bool {
    host.cfg.paging
}

/// Soft state: drops the lapsed mappings, then `via`'s lives `life` from `now`.
fn refresh(map: &mut Vec<(EgressId, Time)>, now: Time, via: EgressId, life: Dur) {
    let until = now + life;
    map.retain(|r| r.1 > now);
    match map.iter_mut().find(|r| r.0 == via) {
        Some(r) => r.1 = until,
        None => map.push((via, until)),
    }
}

impl DomainNode {
    /// Cellular IP: a mapping for mobile `j` on `via` lives `route_timeout` from now (with
    /// paging, its paging-cache mapping `paging_timeout`: every uplink packet refreshes both,
    /// spec 5 §2.3).
    fn cip_refresh(&mut self, now: Time, j: usize, via: EgressId) {
        // Any uplink packet but a semisoft one confirms the path it came up (see
        // `semisoft_refresh`).
        self.mobiles[j].semisoft.retain(|&e| e != via);
        refresh(
            &mut self.mobiles[j].routes,
            now,
            via,
            self.cfg.route_timeout,
        );
        if self.cfg.paging {
            self.pc_refresh(now, j, via);
        }
    }

    /// Cellular IP: a semisoft packet came up from `via`: its mapping is refreshed and marked as
    /// the new path (spec 5 §2.3), whose copies the crossover's fixed delay device holds back.
    fn semisoft_refresh(&mut self, now: Time, j: usize, via: EgressId) {
        self.cip_refresh(now, j, via);
        self.mobiles[j].semisoft.push(via);
    }

    /// Cellular IP paging: mobile `j`'s paging-cache mapping on `via` lives `paging_timeout`
    /// from now.
    fn pc_refresh(&mut self, now: Time, j: usize, via: EgressId) {
        refresh(
            &mut self.mobiles[j].paging,
            now,
            via,
            self.cfg.paging_timeout,
        );
    }

    /// Cellular IP paging (spec 5 §2.3): a downlink packet (data, a SYN, an ACK) for mobile
    /// `j`, which has no routing-cache mapping here, follows the live paging-cache mappings,
    /// or where there are none every downlink interface. A base station broadcasts it in its
    /// cell: it reaches the mobile's radio queue if the mobile hears the cell and is lost
    /// otherwise.
    pub(super) fn page(
        &mut self,
        now: Time,
        j: usize,
        pkt: &Packet,
        ctx: &mut ElementCtx,
    ) -> Disposition {
        let m = &mut self.mobiles[j];
        m.paging.retain(|r| r.1 > now);
        if let Some(bs) = self.bs {
            if m.schedule.read().listen(now, bs) == Listen::Hears {
                if m.paging.is_empty() {
                    self.stats.flooded += 1;
                } else {
                    self.stats.paged += 1;
                }
                self.radio_enqueue(now, j, pkt.clone(), ctx);
                return Disposition::Consume;
            }
            self.discard(now, j, pkt, DiscardReason::PageMiss);
            return Disposition::Redirect(Next::Drop(DropReason::NoRoute));
        }
        let mut hops = [EgressId(0); NextHops::CAPACITY];
        let mut n = 0;
        let from: Vec<EgressId> = if m.paging.is_empty() {
            self.stats.flooded += 1;
            self.children.clone()
        } else {
            self.stats.paged += 1;
            m.paging.iter().map(|r| r.0).collect()
        };
        for e in from {
            if n < hops.len() && !hops[..n].contains(&e) {
                hops[n] = e;
                n += 1;
            }
        }
        match n {
            0 => {
                self.stats.no_state += super::node::is_data(pkt) as u64;
                self.discard(now, j, pkt, DiscardReason::NoState);
                Disposition::Redirect(Next::Drop(DropReason::NoRoute))
            }
            1 => Disposition::Redirect(Next::Egress(hops[0])),
            _ => Disposition::Redirect(Next::Many(
                NextHops::many(&hops[..n]).expect("at most CAPACITY hops"),
            )),
        }
    }
}
