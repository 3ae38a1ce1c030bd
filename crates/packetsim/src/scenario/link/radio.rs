//! `kind = "radio"`: a base station's radio link to a mobile (spec 2 §2.1, §2.5), the common
//! link keys plus the radio's own settings in one table. Both directions are transmitters as
//! in `point_to_point`; what the kind adds is folded into the common settings when the
//! scenario is loaded (so the builder treats it like any link):
//!
//! - `downlink` (`"a_to_b"`, default, or `"b_to_a"`): the base station's direction.
//! - `report` (default true) and `report_bytes` (0 to 64, default 0): the base station writes
//!   the mobile's queue occupancy into each downlink data packet (spec 2 §2.3 step 1: a
//!   zero-byte side field; the spec's option charges 4 bytes). The common `queue_report` key
//!   says the same thing for any link and cannot be combined with these two.
//! - `rate_cycle = { rates = ["400kbps", "1.6Mbps"], every = "20s" }`: the rate steps through
//!   `rates` in turn every `every`, from time 0 to the end of the run, on both directions
//!   (spec 2 BS-E5: 0.4 → 1.6 → 0.4 Mb/s every 20 s). Not combined with `rate_steps` or
//!   `rate_process` (one schedule per link).
//! - `radio_loss`: a uniform per-packet loss probability on both directions, drawn from the
//!   link's seeded stream (spec 2 §4 extension: 1% and 5%); not combined with `loss`.
//!
//! - `shared_channel = { mobiles = ["ms1", "ms2"], scheduler = "round_robin", weights = [1, 1] }`
//!   (spec 2 §4's extension "several mobiles sharing one radio channel"): the downlink's one
//!   transmitter holds one queue per listed mobile (each with the link's downlink `queue`
//!   settings and limit), classified by the packet's destination node, plus a last queue
//!   `other` for packets to any other node; `scheduler` picks which queue sends next:
//!   `round_robin` (default; one packet per backlogged mobile in turn, or `weights` packets
//!   each) or `priority` (the first backlogged mobile in list order). The report, if on, is
//!   the packet's own mobile's queue. The mobiles sit behind the link's far end (a node
//!   standing for the air, joined to each mobile by a link of its own).
//!
//! Outages and their policy are the common `outages` and `outage_policy` keys (`blind`, the
//! spec's default, or `hold`).

use super::{LinkBuild, LinkInput, LinkKindRow};
use crate::ids::LinkId;
use crate::net::Net;
use crate::scenario::kinds::fields_of;
use crate::scenario::MAX_QUEUE_REPORT_BYTES;
use crate::scenario::{
    ErrorDirection, LinkKind, RadioSpec, RateCycle, ScenarioError, SchedulerSpec, SharedChannel,
};
use crate::units;
use packetsim_kernel::{Dur, Rate};
use serde::Deserialize;

/// The registry row.
pub(super) const KIND: LinkKindRow = LinkKindRow {
    name: "radio",
    keys: fields_of::<Keys>,
    load,
    add,
};

/// A radio link's own keys.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    #[serde(default)]
    downlink: Option<ErrorDirection>,
    #[serde(default)]
    report: Option<bool>,
    #[serde(default)]
    report_bytes: Option<u32>,
    #[serde(default)]
    rate_cycle: Option<RawRateCycle>,
    #[serde(default)]
    radio_loss: Option<f64>,
    #[serde(default)]
    shared_channel: Option<RawShared>,
}

/// `shared_channel = { mobiles, scheduler, weights }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawShared {
    mobiles: Vec<String>,
    #[serde(default)]
    scheduler: Option<RawSharedScheduler>,
    #[serde(default)]
    weights: Option<Vec<i64>>,
}

#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum RawSharedScheduler {
    RoundRobin,
    Priority,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRateCycle {
    rates: Vec<RateValue>,
    #[serde(with = "units::dur")]
    every: Dur,
}

#[derive(Debug, Deserialize)]
#[serde(transparent)]
struct RateValue(#[serde(with = "units::rate")] Rate);

fn load(l: &LinkInput) -> Result<LinkKind, ScenarioError> {
    let k: Keys = l.keys()?;
    let downlink = match k.downlink.unwrap_or(ErrorDirection::AToB) {
        ErrorDirection::Both => {
            return Err(l.err(
                "downlink",
                "expected the base station's direction, \"a_to_b\" or \"b_to_a\"; got \"both\"",
            ))
        }
        d => d,
    };
    let report_on = k.report.unwrap_or(true);
    if l.common.queue_report.is_some() {
        for key in ["report", "report_bytes"] {
            let set = match key {
                "report" => k.report.is_some(),
                _ => k.report_bytes.is_some(),
            };
            if set {
                return Err(l.err(
                    key,
                    "not allowed together with `queue_report` on the same link: a radio link's \
                     report is `report`/`report_bytes`, or `queue_report` alone",
                ));
            }
        }
    }
    let report = match (report_on, k.report_bytes) {
        (false, Some(_)) => {
            return Err(l.err(
                "report_bytes",
                "not allowed with report = false: there is no report to charge for",
            ))
        }
        (false, None) => None,
        (true, Some(b)) if b > MAX_QUEUE_REPORT_BYTES => {
            return Err(l.err(
                "report_bytes",
                format!(
                    "expected at most {MAX_QUEUE_REPORT_BYTES} bytes for the report on the wire \
                     (spec 2's option is 4); got {b}"
                ),
            ))
        }
        (true, b) => Some(b.unwrap_or(0)),
    };
    let rate_cycle = match k.rate_cycle {
        None => None,
        Some(c) => {
            if !l.common.rate_steps.is_empty() {
                return Err(l.err(
                    "rate_cycle",
                    "not allowed together with `rate_steps` on the same link: one rate \
                     schedule per link",
                ));
            }
            if l.common.rate_process.is_some() {
                return Err(l.err(
                    "rate_cycle",
                    "not allowed together with `rate_process` on the same link: one rate \
                     schedule per link",
                ));
            }
            if c.rates.is_empty() {
                return Err(l.err(
                    "rate_cycle",
                    "expected `rates` to list at least one rate, e.g. [\"400kbps\", \"1.6Mbps\"]",
                ));
            }
            if c.rates.iter().any(|r| r.0.as_bps() == 0) {
                return Err(l.err(
                    "rate_cycle",
                    "expected positive rates in `rates`; got a rate of 0",
                ));
            }
            if c.every == Dur::ZERO {
                return Err(l.err(
                    "rate_cycle",
                    "expected a positive period `every`, e.g. \"20s\"; got 0",
                ));
            }
            Some(RateCycle {
                rates: c.rates.into_iter().map(|r| r.0).collect(),
                every: c.every,
            })
        }
    };
    let loss = match k.radio_loss {
        None => 0.0,
        Some(_) if l.common.loss.is_some() => {
            return Err(l.err(
                "radio_loss",
                "not allowed together with `loss` on the same link: `radio_loss` is the \
                 radio's loss on both directions",
            ))
        }
        Some(p) if (0.0..=1.0).contains(&p) => p,
        Some(p) => {
            return Err(l.err(
                "radio_loss",
                format!("expected a probability in [0, 1]; got {p}"),
            ))
        }
    };
    let shared = match k.shared_channel {
        None => None,
        Some(sh) => Some(shared_channel(l, sh, downlink)?),
    };
    Ok(LinkKind::Radio(RadioSpec {
        downlink,
        report,
        rate_cycle,
        loss,
        shared,
    }))
}

/// Validates `shared_channel` (the node names are checked by the loader, which knows them).
fn shared_channel(
    l: &LinkInput,
    sh: RawShared,
    downlink: ErrorDirection,
) -> Result<SharedChannel, ScenarioError> {
    let key = "shared_channel";
    let at = |sub: &str| l.path.key(key).key(sub);
    if sh.mobiles.is_empty() {
        return Err(l.cx.err(
            &at("mobiles"),
            "expected at least one mobile, e.g. mobiles = [\"ms1\", \"ms2\"]",
        ));
    }
    if sh.mobiles.len() >= u8::MAX as usize {
        return Err(l.cx.err(
            &at("mobiles"),
            format!(
                "expected at most {} mobiles on one channel; got {}",
                u8::MAX - 1,
                sh.mobiles.len()
            ),
        ));
    }
    for (i, m) in sh.mobiles.iter().enumerate() {
        if sh.mobiles[..i].contains(m) {
            return Err(l.cx.err(
                &at("mobiles").index(i),
                format!("`{m}` is listed twice: one queue per mobile"),
            ));
        }
        if m == "other" {
            return Err(l.cx.err(
                &at("mobiles").index(i),
                "`other` names the queue of packets to no listed mobile; rename the node",
            ));
        }
    }
    // The downlink's queue settings are each mobile's queue: a single queue, not classes.
    let (qkey, q) = match downlink {
        ErrorDirection::BToA if l.common.queue_ba.is_some() => ("queue_ba", &l.common.queue_ba),
        _ => ("queue", &l.common.queue),
    };
    if let Some(q) = q {
        if q.classes.is_some() || q.kind.is_classful() || q.kind.decides_at_dequeue() {
            let fifo: Vec<&str> = ["droptail"]
                .into_iter()
                .chain(crate::queue::AqmConfig::FIFO.iter().copied())
                .collect();
            return Err(l.err(
                qkey,
                format!(
                    "expected a single queue ({}) with `shared_channel`: it is each mobile's \
                     queue, and the channel's scheduler serves the mobiles",
                    crate::scenario::suggest::listed(&fifo, "or")
                ),
            ));
        }
    }
    let scheduler = match sh.scheduler.unwrap_or(RawSharedScheduler::RoundRobin) {
        RawSharedScheduler::RoundRobin => SchedulerSpec::Wrr,
        RawSharedScheduler::Priority => SchedulerSpec::Priority,
    };
    let weights = match sh.weights {
        None => vec![1; sh.mobiles.len()],
        Some(_) if scheduler == SchedulerSpec::Priority => {
            return Err(l.cx.err(
                &at("weights"),
                "not allowed with scheduler = \"priority\": mobiles are served in list order",
            ))
        }
        Some(w) if w.len() != sh.mobiles.len() => {
            return Err(l.cx.err(
                &at("weights"),
                format!(
                    "expected one weight per mobile ({}); got {}",
                    sh.mobiles.len(),
                    w.len()
                ),
            ))
        }
        Some(w) => {
            let mut out = Vec::with_capacity(w.len());
            for (i, x) in w.into_iter().enumerate() {
                if !(1..=u32::MAX as i64).contains(&x) {
                    return Err(l.cx.err(
                        &at("weights").index(i),
                        format!("expected a positive weight in packets per round; got {x}"),
                    ));
                }
                out.push(x as u32);
            }
            out
        }
    };
    Ok(SharedChannel {
        mobiles: sh.mobiles,
        scheduler,
        weights,
    })
}

/// The transmitters are those of a point-to-point link: the radio's settings were folded into
/// the common ones at load (`LinkSpec::fold_kind`), and its rate cycle is scheduled by the
/// builder (`LinkSpec::scheduled_rates`).
fn add(net: &mut Net, b: &LinkBuild) -> LinkId {
    (super::point_to_point::KIND.add)(net, b)
}
