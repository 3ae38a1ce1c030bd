//! What a run's summary.json says of its 802.11 channels (`wifi` section; absent in a run
//! without a channel element, so wired-only summaries are unchanged).

use super::dcf::Sta;
use super::element::ChannelElement;
use crate::world::World;
use serde::Serialize;

/// The channels of a run, added up.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct WifiSummary {
    /// Frames put on the air (data, control, beacons).
    pub frames: u64,
    /// Frame receptions destroyed by an overlapping frame.
    pub collisions: u64,
    /// Data frames lost to the per-frame error model.
    pub frame_errors: u64,
    /// Data-frame transmissions (first attempts and retries, beacons included).
    pub data_frames: u64,
    /// Data-frame retransmissions (MAC retries).
    pub mac_retries: u64,
    /// MSDUs dropped at the retry limit (by the senders' MACs; a packet whose receiver got
    /// it but whose ACKs were all lost is counted here too).
    pub mac_drops_retry_limit: u64,
    /// MSDUs dropped by a full interface queue.
    pub mac_drops_queue: u64,
    /// Packets lost by the MACs (never delivered): at the retry limit.
    pub lost_retry_limit: u64,
    /// Packets lost by the MACs: at a full interface queue.
    pub lost_queue: u64,
    /// Mobiles' first attachments to a base station.
    pub attaches: u64,
    /// Handoffs made: a mobile joined a base station after its first (from another, or
    /// after losing one), all mobiles.
    pub handoffs: u64,
    /// Times a mobile counted its base station as lost.
    pub base_station_lost: u64,
    /// Each handoff's outage, s, in time order (those with an exchange after the handoff;
    /// `wifi::air`'s module doc defines it).
    pub handoff_outage_s: Vec<f64>,
    /// Each handoff: time s, mobile node, base station node left ("" if detached) and joined.
    pub handoff_log: Vec<(f64, String, String, String)>,
}

impl WifiSummary {
    /// The summary of every channel element of `world`, or `None` if it has none.
    pub fn of_world(world: &World) -> Option<WifiSummary> {
        let mut out: Option<WifiSummary> = None;
        for slot in &world.elements {
            let Some(el) = slot.element.as_any().downcast_ref::<ChannelElement>() else {
                continue;
            };
            let s = out.get_or_insert_with(WifiSummary::default);
            let ch = el.channel();
            let st = ch.stats();
            s.frames += st.frames;
            s.collisions += st.collided;
            s.frame_errors += st.errored;
            let (r, q) = el.mac_losses();
            s.lost_retry_limit += r;
            s.lost_queue += q;
            for i in 0..el.ports().len() {
                let m = ch.mac(Sta(i as u16)).stats();
                s.data_frames += m.data_tx;
                s.mac_retries += m.retries;
                s.mac_drops_retry_limit += m.retry_drops;
                s.mac_drops_queue += m.ifq_drops;
            }
            let name = |x: Option<Sta>| {
                x.map_or(String::new(), |x| {
                    world.net.nodes[el.ports()[x.0 as usize].node.idx()]
                        .name
                        .clone()
                })
            };
            let mut attached = std::collections::HashSet::new();
            for h in el.handoffs() {
                match h.to {
                    Some(_) if attached.insert(h.mobile) => s.attaches += 1,
                    Some(_) => s.handoffs += 1,
                    None => s.base_station_lost += 1,
                }
                if let Some(o) = h.outage {
                    s.handoff_outage_s.push(o.as_secs_f64());
                }
                if h.to.is_some() {
                    s.handoff_log.push((
                        h.at.as_secs_f64(),
                        name(Some(h.mobile)),
                        name(h.from),
                        name(h.to),
                    ));
                }
            }
        }
        out
    }
}

/// The world's drop reason for a MAC drop.
pub fn drop_reason(r: super::dcf::MacDrop) -> crate::queue::DropReason {
    match r {
        super::dcf::MacDrop::IfqFull => crate::queue::DropReason::MacQueue,
        _ => crate::queue::DropReason::MacRetryLimit,
    }
}
