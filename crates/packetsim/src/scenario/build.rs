//! From a validated [`Scenario`] to a runnable [`World`]: nodes and links in file order, routes
//! (least cost, then static routes; a forwarding loop they make is an error naming the route),
//! then flows. Per-component random streams are derived from the run seed and the component's
//! scenario name, so adding a link or flow never changes another's random numbers.

use super::flow::FlowBuild;
use super::link::LinkBuild;
use super::{ErrorDirection, FlowSpec, LinkSpec, Location, QueueSpec, Scenario, SchedulerSpec};
use crate::ids::{Addr, LinkId, NodeId};
use crate::net::{DequeueHook, LinkChange, Net, OutagePolicy};
use crate::queue::{
    AnyAdmission, ClassQueue, Classful, Classifier, DropTail, QueueDisc, Scheduler, Wrr,
};
use crate::report::Summary;
use crate::wireless::TwoStateRate;
use crate::world::{FlowPlacement, RunInfo, World};
use packetsim_kernel::Rng;
use packetsim_kernel::Time;
use packetsim_kernel::{Dur, Rate};
use std::collections::HashMap;

/// A scenario that validates but cannot be assembled (for example, no route for a flow).
/// Like a [`super::ScenarioError`], it names the file, the line (or the `--set`) of the
/// offending item, its key and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {}: {}", super::files::cap_echo(.origin), super::files::cap_echo(&at.as_ref().map_or(String::new(), |l| format!(":{l}"))), super::files::cap_echo(.key), super::files::cap_echo(.msg))]
pub struct BuildError {
    /// The scenario file.
    pub origin: String,
    /// Where the offending item is written (filled in by [`build`] from [`Scenario::lines`]).
    pub at: Option<Location>,
    /// The key path of the offending item.
    pub key: String,
    /// What is wrong.
    pub msg: String,
}

/// The admission policy of a single (non-classful) queue on a link of `rate`.
fn admission(q: &QueueSpec, rate: Rate) -> AnyAdmission {
    match q {
        QueueSpec::DropTail {
            limit,
            ns2_limit: false,
        } => AnyAdmission::DropTail(DropTail::new(*limit)),
        QueueSpec::DropTail {
            limit,
            ns2_limit: true,
        } => AnyAdmission::DropTail(DropTail::ns2(*limit)),
        QueueSpec::Aqm(cfg) => cfg
            .admission(rate)
            .expect("the loader rejects dequeue-time queues in a class"),
        QueueSpec::Classful { .. } => {
            unreachable!("the loader rejects classful queues in a class")
        }
    }
}

/// A fresh queueing discipline for one link direction of `rate`.
pub(super) fn queue_disc(q: &QueueSpec, rate: Rate) -> QueueDisc {
    match q {
        QueueSpec::DropTail { .. } => QueueDisc::Fifo(admission(q, rate)),
        QueueSpec::Aqm(cfg) => cfg.build(rate),
        QueueSpec::Classful { scheduler, classes } => {
            let qs = classes
                .iter()
                .map(|c| ClassQueue::new(&c.name, c.dscps.clone(), admission(&c.queue, rate)))
                .collect();
            let sched = match scheduler {
                SchedulerSpec::Wrr => {
                    Scheduler::Wrr(Wrr::new(classes.iter().map(|c| c.weight).collect()))
                }
                SchedulerSpec::Priority => Scheduler::Priority,
            };
            QueueDisc::Classful(Box::new(Classful::new(qs, sched)))
        }
    }
}

/// The egresses of a link that `d` names.
fn directions(
    d: ErrorDirection,
    ab: crate::ids::EgressId,
    ba: crate::ids::EgressId,
) -> Vec<crate::ids::EgressId> {
    match d {
        ErrorDirection::AToB => vec![ab],
        ErrorDirection::BToA => vec![ba],
        ErrorDirection::Both => vec![ab, ba],
    }
}

/// Builds the world of `sc`, seeded with `seed`.
pub fn build(sc: &Scenario, seed: u64) -> Result<World, BuildError> {
    build_copies(sc, seed, u32::MAX)
}

/// Finds every error [`build`] would find, without making more than one copy of each flow
/// table: the copies of a table differ only in name and start, and what building can refuse
/// (a route, a flow's addresses) is the same for all of them. `check` of a table of a million
/// copies is as cheap as of one (issue 16).
pub fn check(sc: &Scenario) -> Result<(), BuildError> {
    build_copies(sc, sc.simulation.seed, 1).map(drop)
}

/// [`build`] for a caller that has no further use for the scenario: the same world, but the
/// link specs are freed once the links, addresses and static routes are made, before routing
/// and the flows' state, so that the two are not held together (`packetsim bench` on the
/// dumbbell: the specs are 1.47 KB a flow; routing's scratch, the agents, endpoints and flow
/// slots about 1.4 KB). A scenario with wifi links keeps them until the channels are placed.
pub fn build_owned(mut sc: Scenario, seed: u64) -> Result<World, BuildError> {
    let links = std::mem::take(&mut sc.links);
    build_unlocated(&sc, Some(links), seed, u32::MAX).map_err(|mut e| {
        e.at = sc.lines.locate(&e.key);
        e
    })
}

/// Builds with at most `copies` copies of each flow table.
fn build_copies(sc: &Scenario, seed: u64, copies: u32) -> Result<World, BuildError> {
    build_unlocated(sc, None, seed, copies).map_err(|mut e| {
        e.at = sc.lines.locate(&e.key);
        e
    })
}

/// Builds the world of `sc`, whose links are `owned` when given (then `sc.links` is empty) and
/// `sc.links` otherwise. The passes after routing read what they need of the links from
/// [`LinkLater`] and the lists made beside it, not from the specs: `owned` is dropped just
/// before routing (kept for `place_channels` when a link is wifi), and a pass added after
/// that point that reads `links` would see none in [`build_owned`].
///
/// The vectors whose final length is known before they are filled (nodes, addresses, links,
/// link directions, flows and their agents) are reserved at that length: grown by doubling,
/// they held up to twice their bytes at the end of the build, when memory peaks.
fn build_unlocated(
    sc: &Scenario,
    owned: Option<Vec<LinkSpec>>,
    seed: u64,
    copies: u32,
) -> Result<World, BuildError> {
    let links: &[LinkSpec] = owned.as_deref().unwrap_or(&sc.links);
    let err = |key: String, msg: String| BuildError {
        origin: sc.origin.clone(),
        at: None,
        key,
        msg,
    };
    let mut net = Net::default();
    let addresses = sc.nodes.len() + sc.addresses.len();
    net.nodes.reserve_exact(sc.nodes.len());
    net.addr_owner.reserve_exact(addresses);
    net.addr_link.reserve_exact(addresses);
    net.links.reserve_exact(links.len());
    net.egresses.reserve_exact(2 * links.len());
    let mut ids: HashMap<&str, NodeId> = HashMap::with_capacity(sc.nodes.len());
    let mut addrs: HashMap<&str, Addr> = HashMap::with_capacity(sc.addresses.len());
    for n in &sc.nodes {
        ids.insert(n.as_str(), net.add_node(n));
    }
    let node = |name: &str, key: String| {
        ids.get(name)
            .copied()
            .ok_or_else(|| err(key, format!("unknown node {name:?}")))
    };
    for l in links {
        let a = node(&l.a, format!("links.{}.a", l.name))?;
        let b = node(&l.b, format!("links.{}.b", l.name))?;
        let at = LinkBuild {
            spec: l,
            a,
            b,
            seed,
        };
        let id = (l.kind.row().add)(&mut net, &at);
        // Costs are common to every link kind.
        net.set_cost(id, l.cost);
        net.set_cost_ba(id, l.cost_ba);
    }
    // `[mobility]`: a radio from every mobile to every base station, after the file's links
    // (so that a link's id is its position in the file).
    let mobility = sc.mobility.as_ref().map(|m| {
        let bss: Vec<NodeId> = m.base_stations.iter().map(|b| ids[b.as_str()]).collect();
        let mhs: Vec<NodeId> = m.mobiles.iter().map(|x| ids[x.as_str()]).collect();
        // `radio = "wifi"`: the 802.11 air through a hub (`mobility::radio`), else a
        // point-to-point radio link per pair.
        let air = m
            .wifi
            .as_ref()
            .map(|_| crate::mobility::radio::add_air(&mut net, &bss, &mhs, seed));
        let radios = match &air {
            Some(links) => links.bs_side.clone(),
            None => {
                let radio = crate::mobility::RadioParams {
                    rate: m.radio_rate,
                    delay: m.radio_delay,
                };
                crate::mobility::add_radios(&mut net, &bss, &mhs, radio, &m.config, seed)
            }
        };
        let layout = crate::mobility::Layout {
            gw: ids[m.gateway.as_str()],
            bss,
            mhs,
            ha: m.home_agent.as_ref().map(|h| ids[h.as_str()]),
            radios,
        };
        (layout, air)
    });
    // `kind = "wifi"`: the stations' links to the channel's hub, after the file's links.
    super::link::wifi::add_station_links(&mut net, links, &|n: &str| ids[n], seed);
    for a in &sc.addresses {
        let owner = ids[a.node.as_str()];
        let link = a.link.as_ref().map(|l| {
            LinkId(
                links
                    .iter()
                    .position(|x| &x.name == l)
                    .expect("the loader checks links") as u32,
            )
        });
        addrs.insert(a.name.as_str(), net.add_address(owner, link));
    }
    // Several mobiles sharing a radio channel: the downlink's queue becomes one queue per
    // mobile, classified by every address the mobile owns (so after the named addresses).
    for (li, l) in links.iter().enumerate() {
        if let super::LinkKind::Radio(super::RadioSpec {
            shared: Some(sh),
            downlink,
            ..
        }) = &l.kind
        {
            let link = &net.links[li];
            let (e, q) = match downlink {
                ErrorDirection::BToA => (link.ba, l.queue_ba.as_ref().unwrap_or(&l.queue)),
                _ => (link.ab, &l.queue),
            };
            let rate = net.egresses[e.idx()].rate;
            let mobiles: Vec<NodeId> = sh.mobiles.iter().map(|m| ids[m.as_str()]).collect();
            let other = mobiles.len() as u8;
            let by_addr = net
                .addr_owner
                .iter()
                .map(|o| {
                    mobiles
                        .iter()
                        .position(|m| m == o)
                        .map_or(other, |i| i as u8)
                })
                .collect();
            let classes = sh
                .mobiles
                .iter()
                .map(String::as_str)
                .chain(["other"])
                .map(|name| ClassQueue::new(name, Vec::new(), admission(q, rate)))
                .collect();
            let sched = match sh.scheduler {
                SchedulerSpec::Wrr => {
                    Scheduler::Wrr(Wrr::new(sh.weights.iter().copied().chain([1]).collect()))
                }
                SchedulerSpec::Priority => Scheduler::Priority,
            };
            net.egresses[e.idx()].set_queue(QueueDisc::Classful(Box::new(
                Classful::per_destination(classes, sched, by_addr),
            )));
        }
    }
    // Static routes. A node named in `to` stands for its primary address and its named
    // addresses bound to no link, except those the same node routes by name; an address bound
    // to a link is reached over that link and is routed statically only by its own name.
    let mut route_keys: Vec<String> = Vec::new();
    for r in &sc.routes {
        let at = ids[r.node.as_str()];
        let via = LinkId(
            links
                .iter()
                .position(|x| x.name == r.via)
                .expect("the loader checks links") as u32,
        );
        let targets: Vec<Addr> = match ids.get(r.to.as_str()) {
            Some(&n) => std::iter::once(net.addr_of(n))
                .chain(
                    sc.addresses
                        .iter()
                        .filter(|a| a.node == r.to && a.link.is_none())
                        .filter(|a| !sc.routes.iter().any(|x| x.node == r.node && x.to == a.name))
                        .map(|a| addrs[a.name.as_str()]),
                )
                .collect(),
            None => vec![addrs[r.to.as_str()]],
        };
        for addr in targets {
            net.add_static_route(at, addr, via);
            route_keys.push(format!("nodes.{}.routes[{}]", r.node, r.index));
        }
    }
    // Directions whose rate or state will change run in pull mode from the start.
    let end = Time::ZERO + sc.simulation.duration;
    for (li, l) in links.iter().enumerate() {
        let link = &net.links[li];
        let (ab, ba) = (link.ab, link.ba);
        let mut declare =
            |e: crate::ids::EgressId| net.egresses[e.idx()].expect_changes(l.outage_policy);
        if l.outage_policy == OutagePolicy::Hold && !l.outages.is_empty() {
            declare(ab);
            declare(ba);
        }
        for step in &l.scheduled_rates(end) {
            for e in directions(step.direction, ab, ba) {
                declare(e);
            }
        }
        if let Some((_, dir)) = l.rate_process {
            for e in directions(dir, ab, ba) {
                declare(e);
            }
        }
        if let Some(q) = l.queue_report {
            for e in directions(q.direction, ab, ba) {
                net.egresses[e.idx()].add_dequeue_hook(DequeueHook::QueueReport {
                    wire_bytes: q.wire_bytes,
                });
            }
        }
    }
    // What the passes after routing need of the links, read now: the schedules, the DiffServ
    // edges and the slot of a slotted world. Then the owned link specs go (see the doc
    // above), unless a wifi channel, placed once the world is made, needs them.
    let later: Vec<LinkLater> = links
        .iter()
        .enumerate()
        .map(|(li, l)| LinkLater {
            li,
            outages: l.outages.clone(),
            steps: l.scheduled_rates(end),
            rate_process: l
                .rate_process
                .map(|(cfg, dir)| (cfg, dir, format!("links.{}.rate_process", l.name))),
        })
        .filter(|x| !x.outages.is_empty() || !x.steps.is_empty() || x.rate_process.is_some())
        .collect();
    let diffserv_edges: Vec<(usize, ErrorDirection)> = links
        .iter()
        .enumerate()
        .filter_map(|(li, l)| l.diffserv_edge.map(|dir| (li, dir)))
        .collect();
    // Checked at load: the atm links share one slot.
    let slot = match sc.simulation.time_base {
        super::TimeBase::Slotted => super::TimeBase::atm_slot(links).ok().flatten(),
        _ => None,
    };
    let wifi = links
        .iter()
        .any(|l| matches!(l.kind, super::LinkKind::Wifi(_)));
    let owns = owned.is_some();
    let (release, kept) = if wifi { (None, owned) } else { (owned, None) };
    drop(release);
    let links: &[LinkSpec] = match &kept {
        Some(v) => v,
        None if owns => &[],
        None => &sc.links,
    };
    net.compute_routes();
    if let Some(lp) = net.find_loop() {
        let owner = net.addr_owner[lp.addr.idx()];
        let dest = if net.addr_of(owner) == lp.addr {
            net.nodes[owner.idx()].name.as_str()
        } else {
            addrs
                .iter()
                .find(|(_, &a)| a == lp.addr)
                .map(|(name, _)| *name)
                .expect("every extra address is named")
        };
        let cycle: Vec<&str> = lp
            .cycle
            .iter()
            .chain(lp.cycle.first())
            .map(|n| net.nodes[n.idx()].name.as_str())
            .collect();
        return Err(err(
            route_keys[lp.route].clone(),
            format!(
                "this static route makes packets to `{dest}` loop: {} (a static route applies \
                 at its own node only; every other node keeps its least-cost route)",
                cycle.join(" -> ")
            ),
        ));
    }
    net.enable_ecmp(sc.ecmp, seed);
    let parts = match (&sc.mobility, mobility) {
        (Some(m), Some((layout, air))) => Some(
            mobility_parts(&mut net, m, layout, air, end, seed).map_err(|msg| {
                let key = if msg.starts_with("the home agent") {
                    "mobility.home_agent"
                } else {
                    "mobility.base_stations"
                };
                err(key.to_owned(), msg)
            })?,
        ),
        _ => None,
    };
    let mut world = World::new(net, Time::ZERO + sc.simulation.duration);
    if sc.simulation.tie_order == super::TieOrder::Random {
        world.shuffle_ties(Rng::for_component(seed, "simulation.tie_order"));
    }
    match parts {
        Some(MobilityParts::Links(parts)) => {
            parts.place(&mut world);
        }
        Some(MobilityParts::Air(installed)) => {
            installed.place(&mut world);
        }
        None => {}
    }
    super::link::wifi::place_channels(&mut world, links, seed);
    // Schedules as events: outages (both directions) and rate steps, in file order.
    for l in later {
        let li = l.li;
        let (ab, ba) = (world.net.links[li].ab, world.net.links[li].ba);
        for &(from, to) in &l.outages {
            for e in [ab, ba] {
                world.schedule_link_change(from, e, LinkChange::Down);
            }
            for e in [ab, ba] {
                world.schedule_link_change(to, e, LinkChange::Up);
            }
        }
        for step in &l.steps {
            for e in directions(step.direction, ab, ba) {
                world.schedule_link_change(step.at, e, LinkChange::Rate(step.rate));
            }
        }
        // A random rate process: an element at the link's `a` end with its own stream.
        if let Some((cfg, dir, stream)) = l.rate_process {
            let rng = Rng::for_component(seed, &stream);
            let process = TwoStateRate::new(cfg, directions(dir, ab, ba), rng);
            let at = world.net.links[li].a;
            world.add_element(at, Box::new(process), false);
        }
    }
    // Every copy of a table is a flow of two agents (a Poisson table adds one flow per
    // arrival, more than its count: those grow the vectors).
    let flows: usize = sc
        .flow_tables
        .iter()
        .map(|t| t.count.min(copies) as usize)
        .sum();
    world.flows.reserve_exact(flows);
    world.agents.reserve_exact(2 * flows);
    // The world's flow ids of each table's flows (a Poisson table adds one flow per arrival).
    let mut table_flows: Vec<std::ops::Range<u32>> = Vec::with_capacity(sc.flow_tables.len());
    for t in &sc.flow_tables {
        let first = world.flows.len() as u32;
        for f in t.copies().take(copies as usize) {
            add_flow(&mut world, sc, seed, &f, &node, &addrs, &err)?;
        }
        table_flows.push(first..world.flows.len() as u32);
    }
    // Generated workloads ([workloads.NAME]): their flows, for completion times.
    for w in &sc.workloads {
        if let (Some(a), Some(b)) = (
            table_flows.get(w.tables.start),
            table_flows.get(w.tables.end - 1),
        ) {
            world.add_workload(&w.name, a.start..b.end, w.mss);
        }
    }
    // DiffServ edges: each marked direction gets its own classifier (and token buckets).
    for &(li, dir) in &diffserv_edges {
        let link = &world.net.links[li];
        let egresses = match dir {
            ErrorDirection::AToB => vec![link.ab],
            ErrorDirection::BToA => vec![link.ba],
            ErrorDirection::Both => vec![link.ab, link.ba],
        };
        for e in egresses {
            let mut c = Classifier::new();
            for (t, fids) in sc.flow_tables.iter().zip(&table_flows) {
                if let Some(ds) = &t.first.diffserv {
                    for fi in fids.clone() {
                        c.assign_config(crate::ids::FlowId(fi), ds);
                    }
                }
            }
            world.net.egresses[e.idx()].set_classifier(c);
        }
    }
    if let Some(iv) = sc.simulation.sample_interval {
        world.enable_sampling(iv);
    }
    if let Some(slot) = slot {
        world.set_slotted(slot);
    }
    Ok(world)
}

/// What the passes after routing need of one link that has a schedule: its outages, its
/// scheduled rate steps and its random rate process with that process's stream name.
struct LinkLater {
    /// The link's index (its position in the file).
    li: usize,
    outages: Vec<(Time, Time)>,
    steps: Vec<super::RateStep>,
    rate_process: Option<(crate::wireless::TwoStateRateConfig, ErrorDirection, String)>,
}

/// The protocol's elements of `[mobility]`, on point-to-point radio links or on the air.
enum MobilityParts {
    Links(crate::mobility::Parts),
    Air(crate::mobility::radio::AirInstalled),
}

/// Installs the protocol of `m` on `layout`: on the air of `air` when `m` has `radio =
/// "wifi"` (its handoffs from the mobiles' motion and the beacons), else under its schedules.
fn mobility_parts(
    net: &mut Net,
    m: &super::MobilitySpec,
    layout: crate::mobility::Layout,
    air: Option<crate::mobility::radio::AirLinks>,
    end: Time,
    seed: u64,
) -> Result<MobilityParts, String> {
    use crate::mobility::radio::{air_schedules, bs_positions, install_air};
    match (&m.wifi, air) {
        (Some(w), Some(links)) => {
            let bss = bs_positions(layout.bss.len(), w.cells.spacing);
            let schedules = air_schedules(&w.cells, &bss, &w.paths, end, m.config.lead());
            install_air(
                net, layout, links, &m.config, &w.cells, bss, &w.paths, &schedules, seed,
            )
            .map(MobilityParts::Air)
        }
        _ => crate::mobility::install(net, layout, &m.config, &m.schedules, m.radio_rate, seed)
            .map(MobilityParts::Links),
    }
}

/// Adds flow `f` (one copy of a table) to the world.
fn add_flow(
    world: &mut World,
    sc: &Scenario,
    seed: u64,
    f: &FlowSpec,
    node: &impl Fn(&str, String) -> Result<NodeId, BuildError>,
    addrs: &HashMap<&str, Addr>,
    err: &impl Fn(String, String) -> BuildError,
) -> Result<(), BuildError> {
    let from = node(&f.from, format!("flows.{}.from", f.name))?;
    let to = node(&f.to, format!("flows.{}.to", f.name))?;
    // A mobile is reached by the protocol's soft state, not by routes.
    let mobile = |n: &str| {
        sc.mobility
            .as_ref()
            .is_some_and(|m| m.mobiles.iter().any(|x| x == n))
    };
    if !mobile(&f.from)
        && !mobile(&f.to)
        && (!world.net.reachable(from, world.net.addr_of(to))
            || !world.net.reachable(to, world.net.addr_of(from)))
    {
        return Err(err(
            format!("flows.{}", f.name),
            format!(
                "no route between {:?} ({}) and {:?} ({}): the links do not connect them",
                f.from,
                sc.lines.describe(&format!("nodes.{}", f.from)),
                f.to,
                sc.lines.describe(&format!("nodes.{}", f.to)),
            ),
        ));
    }
    // Start jitter: a delay of up to `start_jitter`, from the flow's own stream, so that
    // adding it to one flow changes no other random draw.
    let start = if f.start_jitter > Dur::ZERO {
        let mut rng = Rng::for_component(seed, &format!("flows.{}.start_jitter", f.name));
        f.start + Dur(rng.below(f.start_jitter.as_nanos() + 1))
    } else {
        f.start
    };
    let at = FlowPlacement {
        from,
        to,
        start,
        stop: f.stop,
        dscp: f.dscp,
    };
    let b = FlowBuild {
        spec: f,
        at,
        addrs,
        seed,
        until: Time::ZERO + sc.simulation.duration,
        origin: &sc.origin,
    };
    (f.kind.row().add)(world, &b)
}

/// Bytes of peak memory budgeted per time-series sample: the sample itself (40 bytes for a flow,
/// 24 for a queue, `world/sample.rs`), the slack of its growing `Vec`, and its row in the CSV
/// text built before writing. Measured: 59 bytes per sample of peak RSS (`packetsim run
/// scenarios/dumbbell.toml --set simulation.duration="5s" --set
/// simulation.sample_interval="10us"`: 5.0 M samples, 296 MB); longer names make longer rows.
pub const SERIES_SAMPLE_BYTES: u64 = 100;

/// Bytes of peak memory budgeted per flow of a run: its spec, agents, report row and JSON.
/// Measured: 2.8 KB per flow of peak RSS for `run` at 100,000 flows (`--set
/// flows.bulk.count=100000` on scenarios/dumbbell.toml, 0.5 s simulated) and 2.2 KB at
/// 1,000,000 (docs/reliability.md); `check` makes one copy per table.
pub const FLOW_BYTES: u64 = 4096;

/// The time-series samples a run of `sc` records at most: per flow a delivery sample and a
/// congestion sample per TCP flow or SCTP destination, and one per queue (two per link), at
/// every `simulation.sample_interval` from 0 to `simulation.duration`.
pub fn series_samples(sc: &Scenario) -> u128 {
    let Some(iv) = sc.simulation.sample_interval else {
        return 0;
    };
    if iv.as_nanos() == 0 {
        return 0; // sampling off
    }
    let instants = (sc.simulation.duration.as_nanos() / iv.as_nanos()) as u128 + 1;
    // Per flow: a delivery sample, plus a congestion sample per TCP flow or per SCTP
    // destination (an upper bound: flows are sampled only within their life).
    let per_instant: u128 = sc
        .flow_tables
        .iter()
        .map(|t| {
            t.count as u128
                * match &t.first.kind {
                    super::FlowKind::Tcp { .. } => 2,
                    super::FlowKind::Sctp { to_addresses, .. } => {
                        1 + to_addresses.len().max(1) as u128
                    }
                    super::FlowKind::Cbr { .. } => 1,
                }
        })
        .sum();
    instants * (per_instant + 2 * sc.links.len() as u128)
}

pub use super::cost::{check_budget, memory_estimate};

/// Refuses a scenario that makes no flow before it is run: it would send nothing, and is most
/// often a file cut short (issue 16: a truncated file was accepted as "0 nodes, 0 links, 0
/// flows"). The error is at the `[flows]` table if written, else at the file's last key.
/// `check`, `run` and `sweep` call it; the library's `build` does not (a network without
/// flows is a fine fixture for routing tests).
pub fn check_flows(sc: &Scenario) -> Result<(), BuildError> {
    if !sc.flow_tables.is_empty() {
        return Ok(());
    }
    let (at, hint) = match sc.lines.0.get("flows") {
        Some(at) => (Some(at.clone()), ""),
        None => (
            sc.lines.0.get(super::load::END_OF_FILE).cloned(),
            " (is the file cut short? its last key is on this line)",
        ),
    };
    Err(BuildError {
        origin: sc.origin.clone(),
        at,
        key: "flows".to_owned(),
        msg: format!(
            "expected at least one [flows.NAME] table: a scenario without flows sends nothing{hint}"
        ),
    })
}

/// A finished run: the world (for time series and further inspection), its run info and its
/// summary.
pub struct Outcome {
    /// The world after the run.
    pub world: World,
    /// Events and wall time.
    pub info: RunInfo,
    /// The summary that summary.json holds.
    pub summary: Summary,
}

/// Builds and runs `sc` with `seed`. A run whose flows are all finite transfers ends when
/// every flow has finished ([`World::stop_when_done`]).
pub fn run(sc: &Scenario, seed: u64) -> Result<Outcome, BuildError> {
    let mut world = build(sc, seed)?;
    if sc.simulation.flow_monitor {
        world.set_tracer(silent_tracer(&world));
    }
    world.stop_when_done(true);
    let info = world.run();
    let summary = Summary::new(&world, &info, &sc.origin, seed);
    Ok(Outcome {
        world,
        info,
        summary,
    })
}

/// A tracer that writes nothing and carries a flow monitor of `world`
/// (`simulation.flow_monitor`).
fn silent_tracer(world: &World) -> crate::trace::Tracer {
    let cfg = crate::trace::TraceConfig::default();
    let names: Vec<String> = world.net.egresses.iter().map(|e| e.name.clone()).collect();
    let flows: Vec<String> = world.flows.iter().map(|f| f.name.clone()).collect();
    // Without folders a tracer touches no file, so it cannot fail.
    let mut t = crate::trace::Tracer::new(&cfg, &names, &flows)
        .expect("a tracer without files cannot fail");
    t.set_monitor(world.new_flow_monitor());
    t
}

/// What `sc`'s `[trace]` table covers in `world` (built from `sc`), writing pcap files into
/// `pcap_dir` and the event trace into `events_dir` when given.
pub fn trace_config(
    sc: &Scenario,
    world: &World,
    pcap_dir: Option<&std::path::Path>,
    events_dir: Option<&std::path::Path>,
) -> crate::trace::TraceConfig {
    let t = &sc.trace;
    let egresses = (!t.links.is_empty()).then(|| {
        let mut v = Vec::new();
        for (name, dir) in &t.links {
            let li = sc
                .links
                .iter()
                .position(|l| &l.name == name)
                .expect("the loader checks trace links");
            let l = &world.net.links[li];
            v.extend(directions(*dir, l.ab, l.ba));
        }
        v
    });
    let flows = (!t.flows.is_empty()).then(|| {
        t.flows
            .iter()
            .map(|name| {
                let i = world
                    .flows
                    .iter()
                    .position(|f| &f.name == name)
                    .expect("the loader checks trace flows");
                crate::ids::FlowId(i as u32)
            })
            .collect()
    });
    crate::trace::TraceConfig {
        pcap_dir: pcap_dir.map(|p| p.to_owned()),
        events_dir: events_dir.map(|p| p.to_owned()),
        snaplen: t.snaplen,
        filter: crate::trace::TraceFilter {
            egresses,
            flows,
            from: t.from,
            to: t.to.unwrap_or(Time::MAX),
        },
    }
}

/// Builds and runs `sc` with `seed`, writing pcap files into `pcap_dir` and the event trace
/// into `events_dir` (each when given) as the scenario's `[trace]` table chooses; also
/// returns what the tracer wrote. Ends like [`run`].
pub fn run_traced(
    sc: &Scenario,
    seed: u64,
    pcap_dir: Option<&std::path::Path>,
    events_dir: Option<&std::path::Path>,
) -> Result<(Outcome, crate::trace::TraceSummary), String> {
    run_traced_with_progress(sc, seed, pcap_dir, events_dir, None)
}

/// How many slices [`run_traced_with_progress`] runs the simulated time in.
pub const PROGRESS_STEPS: u64 = 100;

/// [`run_traced`], calling `progress(simulated, end)` after each of [`PROGRESS_STEPS`] slices
/// of the simulated time when given (`packetsim run`'s progress bar). The slices are
/// [`World::run_until`] calls, which run the same events in the same order as one
/// [`World::run`]; the outputs are the same bytes (tested by the CLI's
/// `run_progress_leaves_every_output_file_as_it_was`).
pub fn run_traced_with_progress(
    sc: &Scenario,
    seed: u64,
    pcap_dir: Option<&std::path::Path>,
    events_dir: Option<&std::path::Path>,
    progress: Option<&mut dyn FnMut(Time, Time)>,
) -> Result<(Outcome, crate::trace::TraceSummary), String> {
    let mut world = build(sc, seed).map_err(|e| e.to_string())?;
    if pcap_dir.is_some() || events_dir.is_some() {
        let cfg = trace_config(sc, &world, pcap_dir, events_dir);
        let names: Vec<String> = world.net.egresses.iter().map(|e| e.name.clone()).collect();
        let flows: Vec<String> = world.flows.iter().map(|f| f.name.clone()).collect();
        let mut tracer =
            crate::trace::Tracer::new(&cfg, &names, &flows).map_err(|e| e.to_string())?;
        if sc.simulation.flow_monitor {
            tracer.set_monitor(world.new_flow_monitor());
        }
        world.set_tracer(tracer);
    } else if sc.simulation.flow_monitor {
        world.set_tracer(silent_tracer(&world));
    }
    world.stop_when_done(true);
    let info = match progress {
        None => world.run(),
        Some(report) => {
            let end = world.end();
            let mut wall = std::time::Duration::ZERO;
            let mut k = 0;
            loop {
                k += 1;
                let until = if k >= PROGRESS_STEPS {
                    end
                } else {
                    Time((end.0 as u128 * k as u128 / PROGRESS_STEPS as u128) as u64)
                };
                let info = world.run_until(until);
                wall += info.wall;
                let done = world.span() <= until || until >= end;
                report(if done { world.span() } else { until }, end);
                if done {
                    break RunInfo { wall, ..info };
                }
            }
        }
    };
    // Before the tracer is detached: the summary reads its flow monitor.
    let summary = Summary::new(&world, &info, &sc.origin, seed);
    let written = match world.take_tracer() {
        Some(t) => t.finish().map_err(|e| e.to_string())?,
        None => crate::trace::TraceSummary::default(),
    };
    Ok((
        Outcome {
            world,
            info,
            summary,
        },
        written,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{load_str, Override};

    /// Links whose schedules and markings are read after routing: an outage, rate steps, a
    /// random rate process, a DiffServ edge with a metered flow.
    const SCHEDULED: &str = r#"
[simulation]
duration = "3s"

[nodes.s]
[nodes.r]
[nodes.d]

[links.access]
a = "s"
b = "r"
rate = "10Mbps"
delay = "1ms"
outages = [ { from = "500ms", to = "800ms" } ]
diffserv_edge = "a_to_b"

[links.radio]
a = "r"
b = "d"
rate = "5Mbps"
delay = "10ms"
rate_process = { good_rate = "4Mbps", bad_rate = "500kbps", mean_good = "400ms", mean_bad = "200ms" }

[links.tail]
a = "s"
b = "d"
rate = "2Mbps"
delay = "30ms"
cost = 5
rate_steps = [ { at = "1s", rate = "1Mbps" }, { at = "2s", rate = "3Mbps" } ]

[flows.af]
from = "s"
to = "d"
dscp = 10
diffserv = { class = "af", marker = { kind = "token_bucket", rate = "500kbps", depth = 2080 } }
"#;

    /// What a run of `world` did: events, each flow's bytes and data packets delivered, and
    /// every link direction's packets sent and lost.
    fn outcome(mut world: World) -> (u64, Vec<(u64, u64)>, Vec<String>) {
        let info = world.run();
        let flows = world
            .flows
            .iter()
            .map(|f| (f.delivered, f.data_packets_delivered))
            .collect();
        let links = world
            .net
            .egresses
            .iter()
            .map(|e| format!("{}: {:?}", e.name, e.stats))
            .collect();
        (info.events, flows, links)
    }

    fn load(text: &str) -> Scenario {
        load_str(text, "t.toml", &[] as &[Override]).unwrap_or_else(|e| panic!("{e}"))
    }

    /// `build_owned` frees the link specs before routing; the passes after it (schedules,
    /// DiffServ edges, the slotted time base) must still see every link: the run is the one
    /// `build` gives, event for event.
    #[test]
    fn build_owned_runs_as_build_does() {
        let sc = load(SCHEDULED);
        let by_ref = outcome(build(&sc, 3).unwrap());
        let owned = outcome(build_owned(sc.clone(), 3).unwrap());
        assert_eq!(owned, by_ref);
        // The comparison sees the schedules: without them the run differs.
        let mut plain = sc.clone();
        for l in &mut plain.links {
            l.outages.clear();
            l.rate_process = None;
        }
        assert_ne!(outcome(build(&plain, 3).unwrap()), by_ref);
        // Study 1's slotted world (its slot read from the atm links before they are freed).
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/atm-two-senders.toml"
        );
        let mut sc = load(&std::fs::read_to_string(path).unwrap());
        sc.simulation.duration = Dur::from_millis(300);
        let by_ref = outcome(build(&sc, 1).unwrap());
        assert_eq!(outcome(build_owned(sc, 1).unwrap()), by_ref);
    }

    /// The vectors whose length is known before the build are made at that length.
    #[test]
    fn known_lengths_are_reserved_exactly() {
        let w = build_owned(load(SCHEDULED), 1).unwrap();
        assert_eq!(w.net.egresses.capacity(), 6);
        assert_eq!(w.net.links.capacity(), 3);
        assert_eq!(w.net.nodes.capacity(), 3);
        assert_eq!(w.flows.capacity(), 1);
        assert_eq!(w.agents.capacity(), 2);
    }
}
