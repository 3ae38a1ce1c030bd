//! The canonical access domain of spec 5 §3 as a [`World`], and the run's mobility metrics
//! gathered from its elements (spec 5 §2.7).
//!
//! ```text
//! CN ---(wired, cn_delay)--- GW
//!                           /  \
//!                         R1    R2          every intra-domain link: wired rate, domain_delay
//!                        /  \  /  \
//!                      BS1 BS2 BS3 BS4      one radio link per (base station, mobile)
//! ```
//!
//! Every mobile has a radio link to every base station (rate `radio_rate`, delay
//! `radio_delay`); which one carries traffic is the mobile's schedule. Radio links cost 1000
//! in least-cost routing so that no wired route crosses a mobile. The domain's nodes forget
//! their static routes to the mobiles: only the protocol's soft state leads to them. The path
//! from the first base station to the gateway exists at time 0 (spec 5 §2.4: power-up is out
//! of scope), live for one route timeout (Cellular IP) or one entry timeout (HAWAII).
//!
//! With [`TreeParams::home_agent_delay`] set, a node `HA` sits between CN and GW (CN–HA: the
//! CN delay, HA–GW: this delay): the home network of a mobile roaming in this domain. Under
//! Mobile IP it is the home agent (otherwise GW is); under the micro-mobility protocols it is
//! a plain router, so that every protocol sees the same paths. At time 0 the home agent's
//! binding and the first base station's visitor entry exist for one registration lifetime.

use super::host::MobileHost;
use super::node::{DomainNode, Radio, Tunnel};
use super::schedule::{HandoffSchedule, SharedSchedule};
use super::{kind, DiscardReason, MobilityConfig};
use crate::ids::{Addr, EgressId, ElementId, NodeId};
use crate::net::{DirectionParams, ErrorModel, Net};
use crate::queue::{AnyAdmission, DropTail, QueueDisc, QueueLimit};
use crate::world::World;
use packetsim_kernel::{Dur, Rate, Rng, Time};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

/// The wired and radio parameters of the tree (spec 5 §3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreeParams {
    /// Every wired link's rate (10 Mb/s).
    pub wired_rate: Rate,
    /// Every intra-domain link's delay (2 ms).
    pub domain_delay: Dur,
    /// The CN–GW link's delay `D` (2 ms; MM-X2 sweeps it).
    pub cn_delay: Dur,
    /// Wired queues, packets (DropTail 50).
    pub wired_queue: u32,
    /// Radio rate `R_w` (2 Mb/s).
    pub radio_rate: Rate,
    /// Radio delay `d_w` (1 ms).
    pub radio_delay: Dur,
    /// Run length (30 s).
    pub duration: Dur,
    /// A home-agent node between CN and GW, this far from GW (none).
    pub home_agent_delay: Option<Dur>,
}

impl Default for TreeParams {
    fn default() -> TreeParams {
        TreeParams {
            wired_rate: Rate::mbps(10),
            domain_delay: Dur::from_millis(2),
            cn_delay: Dur::from_millis(2),
            wired_queue: 50,
            radio_rate: Rate::mbps(2),
            radio_delay: Dur::from_millis(1),
            duration: Dur::from_secs(30),
            home_agent_delay: None,
        }
    }
}

/// Where things are in a built domain.
#[derive(Clone, Debug)]
pub struct Domain {
    /// The correspondent node.
    pub cn: NodeId,
    /// The gateway (domain root).
    pub gw: NodeId,
    /// The routers between the base stations and the gateway, by node id (R1, R2 in the tree).
    pub routers: Vec<NodeId>,
    /// BS1..BS4.
    pub bss: Vec<NodeId>,
    /// The mobiles.
    pub mhs: Vec<NodeId>,
    /// Elements at GW, the routers, the base stations (in that order: GW, R1, R2, BS1..BS4 in
    /// the tree).
    pub nodes: Vec<ElementId>,
    /// Elements at the mobiles.
    pub hosts: Vec<ElementId>,
    /// Per mobile, per base station: the radio link's (BS → MH, MH → BS) egresses.
    pub radios: Vec<Vec<(EgressId, EgressId)>>,
    /// The home-agent node, if the tree has one.
    pub ha: Option<NodeId>,
    /// The element at the home-agent node (Mobile IP only).
    pub ha_element: Option<ElementId>,
    /// Each mobile's schedule, shared with its elements (on the radio with beacons on the
    /// air, the handoffs decided so far).
    pub schedules: Vec<SharedSchedule>,
}

/// The mobility metrics of a run (spec 5 §2.7), over all mobiles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MobilityReport {
    /// Data packets the network discarded (held too long, no state, unheard) of which no copy
    /// reached the mobile (nor its radio, to be lost there to radio error) and none is still
    /// on its way to it when the report is made (on a link, or in a base station's radio
    /// queue), by the number of handoffs done when discarded (index 0: before the first
    /// handoff).
    pub handoff_loss: Vec<u64>,
    /// Discarded data packets of which a copy did reach the mobile, or its radio and was lost
    /// there to radio error, or is still on its way to it when the report is made (bicast
    /// waste; the radio loss is counted in `radio_lost`).
    pub wasted_copies: u64,
    /// Duplicate data packets at the mobiles.
    pub duplicates: u64,
    /// Out-of-order data arrivals at the mobiles.
    pub out_of_order: u64,
    /// TCP packets lost on radio links (both directions).
    pub radio_lost: u64,
    /// Downlink packets dropped at full radio queues.
    pub radio_overflow: u64,
    /// Held packets an old base station sent on (HAWAII MSF).
    pub forwarded: u64,
    /// Control messages sent, by kind (the family is the protocol's).
    pub control_sent: [u64; kind::COUNT],
    /// The protocol's control family ([`kind::name`] names the kinds).
    pub family: u16,
    /// Handoffs made by now, all mobiles.
    pub handoffs: u64,
    /// The handoff losses by why they were discarded (index: [`DiscardReason::index`]; a packet
    /// discarded at several places counts at the first node in domain order, gateway first,
    /// then at the mobile).
    pub loss_by_reason: [u64; DiscardReason::ALL.len()],
    /// Data packets old base stations held past `hold_time` and discarded, copies included.
    pub hold_discards: u64,
    /// Cellular IP paging: downlink packets routed by a paging cache, at every node.
    pub paged: u64,
    /// Cellular IP paging: downlink packets flooded for want of a paging-cache mapping, at
    /// every node.
    pub flooded: u64,
    /// Per handoff made (all mobiles, mobile by mobile), the data outage the mobile saw
    /// ([`MobileHost::outages`]).
    pub outages: Vec<Dur>,
}

impl MobilityReport {
    /// Handoff losses in all.
    pub fn handoff_losses(&self) -> u64 {
        self.handoff_loss.iter().sum()
    }

    /// Control messages in all.
    pub fn control_messages(&self) -> u64 {
        self.control_sent.iter().sum()
    }
}

fn direction(rate: Rate, delay: Dur, limit: u32) -> DirectionParams {
    DirectionParams {
        rate,
        delay,
        queue: QueueDisc::Fifo(AnyAdmission::DropTail(DropTail::new(QueueLimit::Packets(
            limit,
        )))),
        errors: ErrorModel::default(),
    }
}

/// Builds the tree with one mobile per schedule (their gap and linger are set from `cfg`),
/// every element placed and the time-0 path installed; flows are the caller's to add.
pub fn build_tree(
    p: &TreeParams,
    cfg: &MobilityConfig,
    schedules: &[HandoffSchedule],
    seed: u64,
) -> (World, Domain) {
    let mut net = Net::default();
    let Wired {
        cn,
        ha,
        gw,
        bss,
        mhs,
    } = add_wired(&mut net, p, schedules.len(), seed);
    let radio = RadioParams {
        rate: p.radio_rate,
        delay: p.radio_delay,
    };
    let radios = add_radios(&mut net, &bss, &mhs, radio, cfg, seed);
    net.compute_routes();
    let layout = Layout {
        gw,
        bss,
        mhs,
        ha,
        radios,
    };
    let parts = install(&mut net, layout, cfg, schedules, radio.rate, seed)
        .expect("the canonical tree is a valid domain");
    let mut world = World::new(net, Time::ZERO + p.duration);
    let mut domain = parts.place(&mut world);
    domain.cn = cn;
    (world, domain)
}

/// The wired part of the tree, as [`add_wired`] made it.
pub(super) struct Wired {
    pub cn: NodeId,
    pub ha: Option<NodeId>,
    pub gw: NodeId,
    pub bss: Vec<NodeId>,
    pub mhs: Vec<NodeId>,
}

/// The tree's nodes (CN, HA if any, GW, R1, R2, BS1..BS4, then `mobiles` mobiles, in that
/// order) and its wired links.
pub(super) fn add_wired(net: &mut Net, p: &TreeParams, mobiles: usize, seed: u64) -> Wired {
    let cn = net.add_node("CN");
    let ha = p.home_agent_delay.map(|_| net.add_node("HA"));
    let gw = net.add_node("GW");
    let routers = [net.add_node("R1"), net.add_node("R2")];
    let bss: Vec<NodeId> = (1..=4).map(|i| net.add_node(&format!("BS{i}"))).collect();
    let mhs: Vec<NodeId> = (1..=mobiles)
        .map(|j| net.add_node(&format!("MH{j}")))
        .collect();
    let wired = |delay| direction(p.wired_rate, delay, p.wired_queue);
    match (ha, p.home_agent_delay) {
        (Some(ha), Some(d)) => {
            net.add_link("cn_ha", cn, ha, wired(p.cn_delay), wired(p.cn_delay), seed);
            net.add_link("ha_gw", ha, gw, wired(d), wired(d), seed);
        }
        _ => {
            net.add_link("cn_gw", cn, gw, wired(p.cn_delay), wired(p.cn_delay), seed);
        }
    }
    for (i, &r) in routers.iter().enumerate() {
        let d = p.domain_delay;
        net.add_link(&format!("gw_r{}", i + 1), gw, r, wired(d), wired(d), seed);
    }
    for (i, &b) in bss.iter().enumerate() {
        let d = p.domain_delay;
        let r = routers[i / 2];
        net.add_link(
            &format!("r{}_bs{}", i / 2 + 1, i + 1),
            r,
            b,
            wired(d),
            wired(d),
            seed,
        );
    }
    Wired {
        cn,
        ha,
        gw,
        bss,
        mhs,
    }
}

/// The radio links' rate and delay.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RadioParams {
    /// Radio rate `R_w`.
    pub rate: Rate,
    /// Radio delay `d_w`.
    pub delay: Dur,
}

/// Adds a radio link between every mobile and every base station (named
/// `radio_<mobile>_<base station>`, cost 1000 so that no wired route crosses a mobile) and
/// returns, per mobile, per base station, its (BS → MH, MH → BS) egresses. Call before
/// [`Net::compute_routes`].
pub fn add_radios(
    net: &mut Net,
    bss: &[NodeId],
    mhs: &[NodeId],
    radio: RadioParams,
    cfg: &MobilityConfig,
    seed: u64,
) -> Vec<Vec<(EgressId, EgressId)>> {
    let mut radios = Vec::new();
    for &m in mhs {
        let mut per = Vec::new();
        for &b in bss {
            // The base station paces its own queue onto the link (see `node`): the link's
            // downlink queue never fills.
            let down = direction(radio.rate, radio.delay, 10_000);
            let up = direction(radio.rate, radio.delay, cfg.radio_queue as u32);
            let name = format!(
                "radio_{}_{}",
                net.nodes[m.idx()].name.to_lowercase(),
                net.nodes[b.idx()].name.to_lowercase()
            );
            let l = net.add_link(&name, b, m, down, up, seed);
            net.set_cost(l, 1000);
            per.push((net.links[l.idx()].ab, net.links[l.idx()].ba));
        }
        radios.push(per);
    }
    radios
}

/// Where a domain's parts are in a network whose links (radios included, [`add_radios`]) exist
/// and whose routes are computed.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The gateway (domain root): every downlink packet enters the domain here.
    pub gw: NodeId,
    /// The base stations.
    pub bss: Vec<NodeId>,
    /// The mobiles.
    pub mhs: Vec<NodeId>,
    /// Mobile IP: the home agent's node when it is not the gateway (outside the domain, on
    /// the path from the correspondents to the gateway).
    pub ha: Option<NodeId>,
    /// Per mobile, per base station: the radio link's (BS → MH, MH → BS) egresses.
    pub radios: Vec<Vec<(EgressId, EgressId)>>,
}

/// A domain's elements, made by [`install`], to be placed in the world built on its network.
pub struct Parts {
    layout: Layout,
    /// Gateway, routers (by node id), base stations.
    domain_nodes: Vec<NodeId>,
    elements: Vec<DomainNode>,
    hosts: Vec<MobileHost>,
    ha_element: Option<DomainNode>,
    schedules: Vec<SharedSchedule>,
}

/// Makes the elements of a domain laid out as `layout` in `net` (routes computed): a
/// [`DomainNode`] at the gateway, at every node on a base station's route to it (the domain's
/// routers) and at the base stations, a [`MobileHost`] per mobile moving by its schedule (gap
/// and linger set from `cfg`), and under Mobile IP the home agent. The domain's nodes forget
/// their static routes to the mobiles; the path from each mobile's first base station to the
/// gateway (Mobile IP: the binding and visitor entry) exists at time 0. Errors: a base station
/// with no route to the gateway, a home agent inside the domain.
pub fn install(
    net: &mut Net,
    layout: Layout,
    cfg: &MobilityConfig,
    schedules: &[HandoffSchedule],
    radio_rate: Rate,
    seed: u64,
) -> Result<Parts, String> {
    install_with(net, layout, None, cfg, schedules, radio_rate, seed)
}

/// [`install`], with the mobiles' own ends of the radios when they are not the base stations'
/// links' other ends (`mh_radios`: per mobile, per base station, (arrives at the mobile,
/// leaves the mobile); the 802.11 air of `radio`, where both cross a hub).
pub(super) fn install_with(
    net: &mut Net,
    layout: Layout,
    mh_radios: Option<Vec<Vec<(EgressId, EgressId)>>>,
    cfg: &MobilityConfig,
    schedules: &[HandoffSchedule],
    radio_rate: Rate,
    seed: u64,
) -> Result<Parts, String> {
    let Layout {
        gw,
        ref bss,
        ref mhs,
        ha,
        ref radios,
    } = layout;
    let gw_addr = net.addr_of(gw);
    // The domain's routers: every node on a base station's route up to the gateway.
    let mut routers: Vec<NodeId> = Vec::new();
    for &b in bss {
        let mut at = b;
        let mut hops = 0;
        while at != gw {
            let Some(up) = net.nodes[at.idx()].routes.get(gw_addr) else {
                return Err(format!(
                    "base station `{}` has no route to the gateway `{}`",
                    net.nodes[b.idx()].name,
                    net.nodes[gw.idx()].name
                ));
            };
            at = net.egresses[up.idx()].to;
            hops += 1;
            if hops > net.nodes.len() || mhs.contains(&at) {
                return Err(format!(
                    "base station `{}` reaches the gateway only through a mobile",
                    net.nodes[b.idx()].name
                ));
            }
            if at != gw && !bss.contains(&at) && !routers.contains(&at) {
                routers.push(at);
            }
        }
    }
    routers.sort();
    if let Some(h) = ha {
        if routers.contains(&h) || bss.contains(&h) {
            return Err(format!(
                "the home agent `{}` is inside the domain (on a base station's path to the \
                 gateway); it belongs on the correspondents' side of the gateway",
                net.nodes[h.idx()].name
            ));
        }
    }
    let mh_addrs: Vec<Addr> = mhs.iter().map(|&m| net.addr_of(m)).collect();
    let domain_nodes: Vec<NodeId> = std::iter::once(gw)
        .chain(routers.iter().copied())
        .chain(bss.iter().copied())
        .collect();
    for &n in &domain_nodes {
        for &a in &mh_addrs {
            net.clear_static_route(n, a);
        }
    }
    let back: Arc<Vec<EgressId>> = Arc::new(
        (0..net.egresses.len())
            .map(|e| {
                let l = &net.links[net.egresses[e].link.idx()];
                if l.ab.idx() == e {
                    l.ba
                } else {
                    l.ab
                }
            })
            .collect(),
    );
    let bs_addrs: Arc<Vec<Addr>> = Arc::new(bss.iter().map(|&b| net.addr_of(b)).collect());
    let schedules: Vec<SharedSchedule> = schedules
        .iter()
        .map(|s| {
            let mut s = s.clone();
            s.gap = cfg.gap;
            s.linger = cfg.linger();
            s.lead = cfg.lead();
            SharedSchedule::new(s)
        })
        .collect();
    let mut elements: Vec<DomainNode> = domain_nodes
        .iter()
        .map(|&n| {
            let bs = bss.iter().position(|&b| b == n);
            let toward: Vec<Option<EgressId>> = bs_addrs
                .iter()
                .map(|a| net.nodes[n.idx()].routes.get(*a))
                .collect();
            // Its downlink interfaces: toward a base station, not up toward the gateway.
            let up = net.nodes[n.idx()].routes.get(gw_addr);
            let mut children: Vec<EgressId> = Vec::new();
            if bs.is_none() {
                for e in toward.iter().flatten() {
                    if Some(*e) != up && !children.contains(e) {
                        children.push(*e);
                    }
                }
            }
            let rng = Rng::for_component(seed, &format!("mobility.{}", net.nodes[n.idx()].name));
            let mut el = DomainNode::new(
                net.addr_of(n),
                *cfg,
                bs,
                gw_addr,
                back.clone(),
                bs_addrs.clone(),
                toward,
                rng,
            );
            for (j, s) in schedules.iter().enumerate() {
                let radio = bs.map(|i| Radio::new(radios[j][i].0, radios[j][i].1, radio_rate));
                el.add_mobile(mh_addrs[j], s.clone(), radio);
            }
            el.set_children(children);
            el
        })
        .collect();
    let bs_element = |i: usize| 1 + routers.len() + i;
    let mip = cfg.protocol.home_agent();
    let ha_addr = ha.map_or(gw_addr, |h| net.addr_of(h));
    let tunnel: Tunnel = Rc::new(RefCell::new(HashMap::new()));
    let mut ha_element = None;
    if mip {
        for el in &mut elements {
            el.set_mobile_ip(ha_addr, tunnel.clone());
        }
        let until = Time::ZERO + cfg.mip_lifetime;
        let mut home = match ha {
            Some(h) => {
                let toward = bs_addrs
                    .iter()
                    .map(|a| net.nodes[h.idx()].routes.get(*a))
                    .collect();
                let rng = Rng::for_component(seed, "mobility.HA");
                let mut el = DomainNode::new(
                    ha_addr,
                    *cfg,
                    None,
                    gw_addr,
                    back.clone(),
                    bs_addrs.clone(),
                    toward,
                    rng,
                );
                for (j, s) in schedules.iter().enumerate() {
                    el.add_mobile(mh_addrs[j], s.clone(), None);
                }
                el.set_mobile_ip(ha_addr, tunnel.clone());
                Some(el)
            }
            None => None,
        };
        for (j, s) in schedules.iter().enumerate() {
            let s = s.snapshot();
            elements[bs_element(s.first)].preinstall(j, radios[j][s.first].0, until);
            match home.as_mut() {
                Some(el) => el.preinstall_binding(j, s.first, until),
                None => elements[0].preinstall_binding(j, s.first, until),
            }
        }
        ha_element = home;
    }
    // The time-0 path: first base station up to the gateway, for a protocol with hop-by-hop
    // state.
    let life = cfg.protocol.initial_path(cfg);
    let until = Time::ZERO + life.unwrap_or(Dur::ZERO);
    for (j, s) in schedules.iter().enumerate().filter(|_| life.is_some()) {
        let s = s.snapshot();
        let mut at = bss[s.first];
        let mut via = radios[j][s.first].0;
        loop {
            let k = domain_nodes
                .iter()
                .position(|&n| n == at)
                .expect("a domain node");
            elements[k].preinstall(j, via, until);
            if cfg.paging {
                elements[k].preinstall_paging(j, via, Time::ZERO + cfg.paging_timeout);
            }
            if at == gw {
                break;
            }
            let up = net.nodes[at.idx()]
                .routes
                .get(gw_addr)
                .expect("a route to the gateway");
            at = net.egresses[up.idx()].to;
            via = back[up.idx()];
        }
    }
    let peers: Vec<Addr> = (0..net.addr_owner.len() as u32)
        .map(Addr)
        .filter(|a| !mh_addrs.contains(a))
        .collect();
    let hosts: Vec<MobileHost> = schedules
        .iter()
        .enumerate()
        .map(|(j, s)| {
            let rng = Rng::for_component(seed, &format!("mobility.MH{}", j + 1));
            MobileHost::new(
                j,
                mhs[j],
                mh_addrs[j],
                *cfg,
                s.clone(),
                gw_addr,
                bs_addrs.clone(),
                match &mh_radios {
                    Some(m) => m[j].iter().map(|&(down, up)| (up, down)).collect(),
                    None => radios[j].iter().map(|&(down, up)| (up, down)).collect(),
                },
                peers.clone(),
                rng,
            )
        })
        .collect();
    for (j, h) in hosts.iter().enumerate() {
        for r in h.uplink_routes(schedules[j].read().first) {
            net.install_route(mhs[j], r);
        }
    }
    Ok(Parts {
        layout,
        domain_nodes,
        elements,
        hosts,
        ha_element,
        schedules,
    })
}

impl Parts {
    /// Places the elements in `world` (built on the network given to [`install`]); the
    /// returned [`Domain`]'s `cn` is the gateway's until the caller sets it.
    pub fn place(self, world: &mut World) -> Domain {
        let Parts {
            layout,
            domain_nodes,
            elements,
            hosts,
            ha_element,
            schedules,
        } = self;
        let nodes = domain_nodes
            .iter()
            .zip(elements)
            .map(|(&n, el)| world.add_element(n, Box::new(el), true))
            .collect();
        let hosts = layout
            .mhs
            .iter()
            .zip(hosts)
            .map(|(&n, h)| world.add_element(n, Box::new(h), true))
            .collect();
        let ha_element = match (layout.ha, ha_element) {
            (Some(h), Some(el)) => Some(world.add_element(h, Box::new(el), true)),
            _ => None,
        };
        let n_routers = domain_nodes.len() - 1 - layout.bss.len();
        Domain {
            cn: layout.gw,
            gw: layout.gw,
            routers: domain_nodes[1..1 + n_routers].to_vec(),
            bss: layout.bss,
            mhs: layout.mhs,
            nodes,
            hosts,
            radios: layout.radios,
            ha: layout.ha,
            ha_element,
            schedules,
        }
    }

    /// Each mobile's schedule, as its elements share it (the air grows them on the radio).
    pub fn schedules(&self) -> &[SharedSchedule] {
        &self.schedules
    }
}

impl Domain {
    /// The element at domain node `k` (0 GW, 1 R1, 2 R2, 3.. BS1..).
    pub fn node<'w>(&self, world: &'w World, k: usize) -> &'w DomainNode {
        world.elements[self.nodes[k].idx()]
            .element
            .as_any()
            .downcast_ref()
            .expect("a domain node")
    }

    /// The home agent's element (Mobile IP): at the home-agent node, or GW's.
    pub fn home_agent<'w>(&self, world: &'w World) -> &'w DomainNode {
        let el = self.ha_element.unwrap_or(self.nodes[0]);
        world.elements[el.idx()]
            .element
            .as_any()
            .downcast_ref()
            .expect("a domain node")
    }

    /// The element at mobile `j`.
    pub fn host<'w>(&self, world: &'w World, j: usize) -> &'w MobileHost {
        world.elements[self.hosts[j].idx()]
            .element
            .as_any()
            .downcast_ref()
            .expect("a mobile host")
    }

    /// The run's mobility metrics so far.
    pub fn report(&self, world: &World) -> MobilityReport {
        let ha = self.ha_element.map(|_| self.home_agent(world));
        let nodes = (0..self.nodes.len()).map(|k| self.node(world, k)).chain(ha);
        let hosts = (0..self.hosts.len()).map(|j| self.host(world, j));
        MobilityReport::gather(nodes, hosts, world)
    }
}

impl MobilityReport {
    /// The mobility metrics of every domain element and mobile host in `world`, if it has any
    /// (a scenario's `[mobility]` table).
    pub fn of_world(world: &World) -> Option<MobilityReport> {
        let hosts: Vec<&MobileHost> = world
            .elements
            .iter()
            .filter_map(|s| s.element.as_any().downcast_ref())
            .collect();
        if hosts.is_empty() {
            return None;
        }
        let nodes = world
            .elements
            .iter()
            .filter_map(|s| s.element.as_any().downcast_ref::<DomainNode>());
        Some(MobilityReport::gather(nodes, hosts.into_iter(), world))
    }

    /// The metrics of these nodes and hosts (hosts in mobile order) in `world`.
    fn gather<'w>(
        nodes: impl Iterator<Item = &'w DomainNode>,
        hosts: impl Iterator<Item = &'w MobileHost> + Clone,
        world: &World,
    ) -> MobilityReport {
        let mut r = MobilityReport::default();
        let nodes: Vec<&DomainNode> = nodes.collect();
        // A copy that reached the mobile, or reached its radio and was lost to radio error.
        let stats: Vec<&super::HostStats> = hosts.clone().map(|h| &h.stats).collect();
        let reached = |j: usize, uid: &u64| {
            stats[j].received.contains(uid) || stats[j].radio_lost_uids.contains(uid)
        };
        // A copy still on its way: on a link (queued, in transmission, propagating) or in a
        // base station's radio queue (waiting, or held: a held copy is not yet discarded). A
        // discarded copy whose twin is still on its way when the run ends is bicast waste, not
        // a loss (uids are unique within a run and copies share theirs).
        let mut on_its_way: HashSet<u64> = world.packets_alive().map(|p| p.uid).collect();
        for el in &nodes {
            on_its_way.extend(el.radio_queue_uids());
        }
        let mut discards = Vec::new();
        for el in nodes {
            let s = &el.stats;
            discards.extend_from_slice(&s.discards);
            r.radio_lost += s.uplink_radio_lost;
            r.radio_overflow += s.radio_overflow;
            r.forwarded += s.forwarded;
            r.hold_discards += s.hold_discards;
            r.paged += s.paged;
            r.flooded += s.flooded;
            for (c, n) in r.control_sent.iter_mut().zip(s.control_sent) {
                *c += n;
            }
        }
        for h in hosts {
            r.family = h.protocol().family();
            r.handoffs += h.handoffs_done() as u64;
            r.outages.extend(h.outages());
            let s = &h.stats;
            discards.extend_from_slice(&s.discards);
            r.duplicates += s.duplicates;
            r.out_of_order += s.out_of_order;
            r.radio_lost += s.radio_lost;
            for (c, n) in r.control_sent.iter_mut().zip(s.control_sent) {
                *c += n;
            }
        }
        let mut counted: HashSet<(usize, u64)> = HashSet::new();
        for d in discards {
            if !counted.insert((d.mh, d.uid)) {
                continue;
            }
            if reached(d.mh, &d.uid) || on_its_way.contains(&d.uid) {
                r.wasted_copies += 1;
            } else {
                if r.handoff_loss.len() <= d.handoff {
                    r.handoff_loss.resize(d.handoff + 1, 0);
                }
                r.handoff_loss[d.handoff] += 1;
                r.loss_by_reason[d.reason.index()] += 1;
            }
        }
        r
    }
}
