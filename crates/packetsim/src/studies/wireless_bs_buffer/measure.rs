//! What the study measures in a run (spec §2.7): two watching elements ([`Probe`]) at the
//! base station and the mobile that the driver puts there ([`super::Wireless`]'s `watch`), the
//! downlink queue's exact time-weighted length, and the flows' delivered bytes, each taken at
//! the end of the warm-up and at the end of the run.

use super::*;
use crate::ids::EgressId;
use crate::net::{Disposition, ElementCtx};
use crate::packet::{Body, Packet};
use crate::studies::shape::Watched;
use crate::world::World;
use std::any::Any;
use std::collections::{BTreeMap, HashMap};

/// One TCP packet seen by a probe.
#[derive(Clone, Copy, Debug)]
pub(super) struct Rec {
    pub(super) t: f64,
    pub(super) uid: u64,
    /// Sequence number relative to the first data byte seen.
    pub(super) seq: u32,
    pub(super) len: u32,
    /// The base station's queue report carried (data at the mobile).
    pub(super) q: Option<u32>,
    /// Advertised window (ACKs at the base station).
    pub(super) wnd: u32,
    pub(super) size: u32,
}

/// A watching element that logs the TCP packets arriving at its node: data segments and, at
/// the base station, the mobile's ACKs (their window). Lets every packet pass.
#[derive(Clone, Debug, Default)]
pub(super) struct Probe {
    pub(super) base: Option<u32>,
    pub(super) data: Vec<Rec>,
    pub(super) acks: Vec<Rec>,
}

impl Element for Probe {
    fn on_packet(
        &mut self,
        now: Time,
        _via: Option<EgressId>,
        pkt: &mut Packet,
        _ctx: &mut ElementCtx,
    ) -> Disposition {
        if let Body::Tcp(h) = &pkt.body {
            let mut r = Rec {
                t: now.as_secs_f64(),
                uid: pkt.uid,
                seq: 0,
                len: h.payload,
                q: pkt.meta.queue_report,
                wnd: h.wnd,
                size: pkt.size,
            };
            if h.payload > 0 {
                let base = *self.base.get_or_insert(h.seq.0);
                r.seq = h.seq.0.wrapping_sub(base);
                self.data.push(r);
            } else {
                self.acks.push(r);
            }
        }
        Disposition::Pass
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The in-order point of a receiver fed segments `[seq, seq + len)`.
#[derive(Default)]
pub(super) struct InOrder {
    pub(super) next: u64,
    pub(super) above: BTreeMap<u64, u64>,
}

impl InOrder {
    /// Adds a segment; returns whether every byte of it had been received before.
    pub(super) fn add(&mut self, seq: u64, len: u64) -> bool {
        let end = seq + len;
        let old = end <= self.next
            || self
                .above
                .range(..=seq)
                .next_back()
                .is_some_and(|(_, &e)| e >= end);
        if !old && end > self.next {
            self.above
                .insert(seq, end.max(*self.above.get(&seq).unwrap_or(&0)));
            while let Some((&s, &e)) = self.above.iter().next() {
                if s > self.next {
                    break;
                }
                self.next = self.next.max(e);
                self.above.remove(&s);
            }
        }
        old
    }
}

/// What one run recorded, before metrics.
pub(super) struct Trace {
    pub(super) bs: Probe,
    pub(super) ms: Probe,
    /// Downlink occupancy, bytes, time-averaged over [warm-up, end].
    pub(super) occ_bytes: f64,
    pub(super) delivered_window: f64,
    pub(super) window_s: f64,
    pub(super) timeouts: u64,
    pub(super) retransmits: u64,
    pub(super) outage: Option<(f64, f64)>,
    pub(super) end_s: f64,
}

/// The warm-up's time.
pub(super) fn warm() -> Time {
    Time::ZERO + packetsim_kernel::Dur::from_secs_f64(WARMUP_S)
}

/// The link direction named `name` (the study's scenarios have it).
fn egress<'w>(w: &'w World, name: &str) -> &'w crate::net::Egress {
    w.net
        .egresses
        .iter()
        .find(|e| e.name == name)
        .expect("the downlink")
}

/// The time integral of the length (packets) of the egress named `name` up to `t`.
pub(super) fn integral(w: &World, name: &str, t: Time) -> f64 {
    egress(w, name).queue.len.mean(t) * t.as_secs_f64()
}

/// What the study notes at the end of the warm-up of a single-mobile run: the downlink
/// queue's integral and the flow's delivered bytes.
pub(super) fn at_warmup(world: &World, info: &RunInfo) -> Metrics {
    let s0 = Summary::new(world, info, "", 0);
    vec![
        (
            "occ_int".into(),
            Some(integral(world, "radio:bs->ms", warm())),
        ),
        (
            "ftp_bytes".into(),
            Some(s0.flows["ftp"].bytes_delivered as f64),
        ),
    ]
}

/// The trace of the single-mobile run `run` of `c`.
pub(super) fn trace(c: &Cfg, run: &Watched) -> Trace {
    let world = &run.out.world;
    let (_, outage, end_s) = draws(c, run.seed);
    let end = world.end();
    let i1 = integral(world, "radio:bs->ms", end);
    let window_s = end.as_secs_f64() - WARMUP_S;
    let f1 = &run.out.summary.flows["ftp"];
    let bsp: &Probe = run.probe(0);
    let msp: &Probe = run.probe(1);
    // Every downlink packet is a data packet of one size (the report costs 0 bytes).
    let size = msp.data.first().map_or(WIRE, |r| r.size as f64);
    Trace {
        bs: bsp.clone(),
        ms: msp.clone(),
        occ_bytes: (i1 - run.warm("occ_int")) / window_s * size,
        delivered_window: (f1.bytes_delivered - run.warm("ftp_bytes") as u64) as f64,
        window_s,
        timeouts: f1.timeouts,
        retransmits: f1.retransmits,
        outage: outage.map(|(t0, d)| (t0, t0 + d)),
        end_s,
    }
}

pub(super) fn std_dev(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    if n < 2.0 {
        return f64::NAN;
    }
    let m = xs.iter().sum::<f64>() / n;
    (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0)).sqrt()
}

/// spec §2.7's metrics of one run.
pub(super) fn metrics(c: &Cfg, tr: &Trace) -> Vec<(String, Option<f64>)> {
    let mut m: Vec<(String, Option<f64>)> = Vec::new();
    let thr = tr.delivered_window * 8.0 / tr.window_s / 1000.0;
    // One-way delay server → mobile, from the start of the packet's transmission at the server.
    let sent: HashMap<u64, f64> = tr.bs.data.iter().map(|r| (r.uid, r.t - WIRED_S)).collect();
    let mut delays: Vec<f64> = tr
        .ms
        .data
        .iter()
        .filter(|r| r.t >= WARMUP_S)
        .filter_map(|r| sent.get(&r.uid).map(|s| (r.t - s) * 1000.0))
        .collect();
    delays.sort_by(f64::total_cmp);
    let mean_delay = delays.iter().sum::<f64>() / delays.len().max(1) as f64;
    let p95 = delays
        .get(((delays.len() as f64 * 0.95).ceil() as usize).saturating_sub(1))
        .copied();
    let qs: Vec<f64> = tr
        .ms
        .data
        .iter()
        .filter(|r| r.t >= WARMUP_S)
        .filter_map(|r| r.q.map(|q| q as f64 / 1024.0))
        .collect();
    let rw: Vec<f64> = tr
        .bs
        .acks
        .iter()
        .filter(|r| r.t >= WARMUP_S)
        .map(|r| r.wnd as f64 / 1024.0)
        .collect();
    m.extend([
        ("occ_kb".to_string(), Some((tr.occ_bytes / 1024.0).max(0.0))),
        ("thr_kbps".into(), Some(thr)),
        (
            "frac".into(),
            Some(thr * WIRE / PAYLOAD / c.rate_kbps as f64),
        ),
        (
            "delay_ms".into(),
            (!delays.is_empty()).then_some(mean_delay),
        ),
        ("delay_p95_ms".into(), p95),
        ("timeouts".into(), Some(tr.timeouts as f64)),
        ("retransmits".into(), Some(tr.retransmits as f64)),
        (
            "q_std_kb".into(),
            Some(std_dev(&qs)).filter(|x| x.is_finite()),
        ),
        (
            "rwnd_std_kb".into(),
            Some(std_dev(&rw)).filter(|x| x.is_finite()),
        ),
        (
            "rwnd_mean_kb".into(),
            (!rw.is_empty()).then(|| rw.iter().sum::<f64>() / rw.len() as f64),
        ),
    ]);
    if let Some((t0, t_up)) = tr.outage {
        let (lost, queued, dup, rec) = outage_waste(tr, t0, t_up);
        m.extend([
            ("lost".to_string(), Some(lost as f64)),
            ("lost_queued".into(), Some(queued as f64)),
            ("dup".into(), Some(dup as f64)),
            ("waste".into(), Some((lost + dup) as f64)),
            ("recovery_s".into(), Some(rec - t_up)),
        ]);
    }
    m
}

/// spec §2.7 (Fig 8): data packets lost and duplicated because of the outage [t0, t_up),
/// counted from t0 until the sender has recovered (everything it sent before t_up has
/// reached the mobile in order, which is when the mobile acknowledges it) or 30 s after
/// t_up, whichever is first. Returns (lost, duplicate, end of the count).
pub(super) fn outage_waste(tr: &Trace, t0: f64, t_up: f64) -> (u64, u64, u64, f64) {
    // Highest byte the server had sent before t_up.
    let snd_max = tr
        .bs
        .data
        .iter()
        .filter(|r| r.t - WIRED_S < t_up)
        .map(|r| r.seq as u64 + r.len as u64)
        .max()
        .unwrap_or(0);
    let mut order = InOrder::default();
    let mut end = t_up + 30.0;
    let mut dup = 0;
    for r in &tr.ms.data {
        if r.t > end {
            break;
        }
        let old = order.add(r.seq as u64, r.len as u64);
        if old && r.t >= t0 {
            dup += 1;
        }
        if r.t >= t_up && order.next >= snd_max {
            end = r.t;
            break;
        }
    }
    let arrived: std::collections::HashSet<u64> = tr.ms.data.iter().map(|r| r.uid).collect();
    // Packets that reached the base station before the end of the count and never reached
    // the mobile (sent into the outage, or dropped at the base station). The run goes on
    // for at least 10 s after `end`, so none of them is still on its way.
    let lost: Vec<&Rec> = tr
        .bs
        .data
        .iter()
        .filter(|r| r.t < end && !arrived.contains(&r.uid))
        .collect();
    // Of those, the ones already at the base station when the outage began.
    let queued = lost.iter().filter(|r| r.t < t0).count() as u64;
    (lost.len() as u64, queued, dup, end.min(tr.end_s))
}

/// Jain's fairness index of `xs`: 1 when all are equal, 1/n when one takes everything.
pub(super) fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let q: f64 = xs.iter().map(|x| x * x).sum();
    if q == 0.0 {
        f64::NAN
    } else {
        s * s / (xs.len() as f64 * q)
    }
}

/// What one shared-channel run measured over [warm-up, end]: per mobile, its queue's time
/// average (KB), drops and packets sent, its goodput (kb/s) and the mean report it received
/// (KB); and the data packets' one-way delays (ms).
pub(super) struct SharedRun {
    pub(super) occ_kb: Vec<f64>,
    pub(super) drops: Vec<u64>,
    pub(super) sent: Vec<u64>,
    pub(super) thr_kbps: Vec<f64>,
    pub(super) report_kb: Vec<f64>,
    /// Data arrival times at each mobile (s), whole run.
    pub(super) arrivals: Vec<Vec<f64>>,
    pub(super) delays: Vec<f64>,
    pub(super) timeouts: u64,
}

/// The egress of the shared channel's downlink.
const SHARED_DOWN: &str = "radio:bs->air";

/// Per mobile queue of the shared channel: (time integral of its length in packets, drops,
/// departures) at `t`.
fn books(w: &World, n: usize, t: Time) -> Vec<(f64, u64, u64)> {
    let c = egress(w, SHARED_DOWN).classes().expect("per-mobile queues");
    c.classes[..n]
        .iter()
        .map(|q| {
            (
                q.stats.len.mean(t) * t.as_secs_f64(),
                q.stats.total_drops(),
                q.stats.departures,
            )
        })
        .collect()
}

/// What the study notes at the end of the warm-up of a run with `n` mobiles: each mobile
/// queue's books and each flow's delivered bytes.
pub(super) fn shared_at_warmup(n: usize, world: &World, info: &RunInfo) -> Metrics {
    let s0 = Summary::new(world, info, "", 0);
    let mut m = Metrics::new();
    for (i, (int, drops, sent)) in books(world, n, warm()).into_iter().enumerate() {
        let k = i + 1;
        m.extend([
            (format!("q{k}_int"), Some(int)),
            (format!("q{k}_drops"), Some(drops as f64)),
            (format!("q{k}_sent"), Some(sent as f64)),
            (
                format!("f{k}_bytes"),
                Some(s0.flows[&format!("f{k}")].bytes_delivered as f64),
            ),
        ]);
    }
    m
}

/// What the shared-channel run `run` with `n` mobiles measured over [warm-up, end]. Probe 0
/// watches the base station, probe k mobile k.
pub(super) fn shared_run(n: usize, run: &Watched) -> SharedRun {
    let world = &run.out.world;
    let end = world.end();
    let b1 = books(world, n, end);
    let s1 = &run.out.summary;
    let window_s = end.as_secs_f64() - WARMUP_S;
    let sent_at: HashMap<u64, f64> = run
        .probe::<Probe>(0)
        .data
        .iter()
        .map(|r| (r.uid, r.t - WIRED_S))
        .collect();
    let mut r = SharedRun {
        occ_kb: Vec::new(),
        drops: Vec::new(),
        sent: Vec::new(),
        thr_kbps: Vec::new(),
        report_kb: Vec::new(),
        arrivals: Vec::new(),
        delays: Vec::new(),
        timeouts: 0,
    };
    for i in 0..n {
        let k = i + 1;
        let f1 = &s1.flows[&format!("f{k}")];
        let f0_bytes = run.warm(&format!("f{k}_bytes")) as u64;
        r.thr_kbps
            .push((f1.bytes_delivered - f0_bytes) as f64 * 8.0 / window_s / 1000.0);
        r.timeouts += f1.timeouts;
        // Every downlink packet is a data packet of 1040 B (the report costs 0 bytes).
        r.occ_kb
            .push(((b1[i].0 - run.warm(&format!("q{k}_int"))) / window_s * WIRE / 1024.0).max(0.0));
        r.drops
            .push(b1[i].1 - run.warm(&format!("q{k}_drops")) as u64);
        r.sent
            .push(b1[i].2 - run.warm(&format!("q{k}_sent")) as u64);
        let data = &run.probe::<Probe>(k).data;
        let reports: Vec<f64> = data
            .iter()
            .filter(|d| d.t >= WARMUP_S)
            .filter_map(|d| d.q.map(|q| q as f64 / 1024.0))
            .collect();
        r.report_kb
            .push(reports.iter().sum::<f64>() / reports.len().max(1) as f64);
        r.arrivals.push(data.iter().map(|d| d.t).collect());
        r.delays.extend(
            data.iter()
                .filter(|d| d.t >= WARMUP_S)
                .filter_map(|d| sent_at.get(&d.uid).map(|s| (d.t - s) * 1000.0)),
        );
    }
    r
}

/// The extension's metrics of one run: aggregate goodput and its fraction of the channel,
/// Jain's index over the mobiles' goodputs, the base station's total and largest per-mobile
/// queue, drops, delay; and per mobile `mK_*` (its queue's report).
pub(super) fn shared_metrics(n: usize, r: &SharedRun) -> Metrics {
    let mut d = r.delays.clone();
    d.sort_by(f64::total_cmp);
    let agg: f64 = r.thr_kbps.iter().sum();
    let fold = |xs: &[f64], f: fn(f64, f64) -> f64| xs.iter().copied().reduce(f);
    let mut m: Metrics = vec![
        ("agg_kbps".into(), Some(agg)),
        (
            "frac".into(),
            Some(agg * WIRE / PAYLOAD / SHARED_KBPS as f64),
        ),
        (
            "jain".into(),
            Some(jain(&r.thr_kbps)).filter(|x| x.is_finite()),
        ),
        ("min_kbps".into(), fold(&r.thr_kbps, f64::min)),
        ("max_kbps".into(), fold(&r.thr_kbps, f64::max)),
        ("occ_kb".into(), Some(r.occ_kb.iter().sum())),
        ("occ_max_kb".into(), fold(&r.occ_kb, f64::max)),
        ("drops".into(), Some(r.drops.iter().sum::<u64>() as f64)),
        (
            "delay_ms".into(),
            (!d.is_empty()).then(|| d.iter().sum::<f64>() / d.len() as f64),
        ),
        (
            "delay_p95_ms".into(),
            d.get(((d.len() as f64 * 0.95).ceil() as usize).saturating_sub(1))
                .copied(),
        ),
        ("timeouts".into(), Some(r.timeouts as f64)),
    ];
    for i in 0..n {
        let k = i + 1;
        m.extend([
            (format!("m{k}_occ_kb"), Some(r.occ_kb[i])),
            (format!("m{k}_drops"), Some(r.drops[i] as f64)),
            (format!("m{k}_sent"), Some(r.sent[i] as f64)),
            (format!("m{k}_kbps"), Some(r.thr_kbps[i])),
            (format!("m{k}_report_kb"), Some(r.report_kb[i])),
        ]);
    }
    m
}
