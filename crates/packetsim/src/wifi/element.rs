//! The 802.11 channel in a world: a node element at a hub node standing for the air
//! (`docs/extending.md`, "How to add a node element"), so that nothing in the world's hot path
//! or in `net::transmitter` changes.
//!
//! Each station is a node joined to the hub by an ordinary link (give it an unbounded rate and
//! no delay: the channel does the timing). A packet arriving at the hub over station i's link
//! is taken by the element ([`Disposition::Consume`]) and handed to station i's MAC, addressed
//! to the station whose node owns the packet's destination address, or to the `gateway`
//! station (the access point) for any other destination. When the receiving MAC delivers it,
//! the element sends the same packet on down the receiver's link from the hub
//! ([`Via::Egress`]). The element's timer is the channel's next event.
//!
//! Packet books: a packet the MAC drops (full interface queue, retry limit) stays counted as
//! consumed by the element, and is counted in [`ChannelElement::mac_drops`]; the world's
//! `DropReason` list is not extended here (it lives in `queue`, outside this task's files).

use super::channel::{Channel, ChannelConfig};
use super::dcf::{MacOut, Msdu, Sta};
use crate::ids::{EgressId, NodeId};
use crate::net::{Disposition, Element, ElementCtx, Net, Via};
use crate::packet::Packet;
use packetsim_kernel::Time;
use std::any::Any;
use std::collections::HashMap;

/// One station's attachment to the hub.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WifiPort {
    /// The station's node.
    pub node: NodeId,
    /// The direction station → hub (packets the station sends).
    pub inbound: EgressId,
    /// The direction hub → station (packets the station receives).
    pub outbound: EgressId,
}

/// A shared 802.11 channel as a node element at the hub.
pub struct ChannelElement {
    ch: Channel,
    ports: Vec<WifiPort>,
    /// Station of each address (indexed by `Addr`), for the MAC destination.
    station_of_addr: Vec<Option<u16>>,
    gateway: u16,
    held: HashMap<u64, Packet>,
    next_id: u64,
    mac_drops: u64,
}

impl std::fmt::Debug for ChannelElement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChannelElement")
            .field("ports", &self.ports)
            .field("held", &self.held.len())
            .finish()
    }
}

impl ChannelElement {
    /// A channel whose station i is `ports[i]`; packets to no station's node go to station
    /// `gateway`. Every station hears every other (use [`ChannelElement::channel_mut`] to
    /// change that).
    pub fn new(
        net: &Net,
        ports: Vec<WifiPort>,
        gateway: usize,
        cfg: ChannelConfig,
        seed: u64,
    ) -> ChannelElement {
        assert!(
            gateway < ports.len(),
            "the gateway must be one of the stations"
        );
        assert!(ports.len() < u16::MAX as usize, "too many stations");
        let mut station_of_addr = vec![None; net.addr_owner.len()];
        for (a, owner) in net.addr_owner.iter().enumerate() {
            station_of_addr[a] = ports
                .iter()
                .position(|p| p.node == *owner)
                .map(|i| i as u16);
        }
        let mut ch = Channel::new(ports.len() as u16, cfg, seed);
        ch.keep_log(true);
        ChannelElement {
            ch,
            ports,
            station_of_addr,
            gateway: gateway as u16,
            held: HashMap::new(),
            next_id: 0,
            mac_drops: 0,
        }
    }

    /// The channel (MAC counters, who hears whom).
    pub fn channel(&self) -> &Channel {
        &self.ch
    }

    /// The channel, to change who hears whom.
    pub fn channel_mut(&mut self) -> &mut Channel {
        &mut self.ch
    }

    /// Packets the MACs dropped.
    pub fn mac_drops(&self) -> u64 {
        self.mac_drops
    }

    /// Carries out the channel's outputs: deliveries go down the receiver's link.
    fn flush(&mut self, ctx: &mut ElementCtx) {
        for l in self.ch.take_log() {
            match l.out {
                MacOut::Deliver { msdu, .. } => {
                    if let Some(pkt) = self.held.remove(&msdu.id) {
                        let port = self.ports[l.sta.0 as usize];
                        ctx.resend(pkt, Via::Egress(port.outbound));
                    }
                }
                MacOut::Dropped { msdu, .. } => {
                    if self.held.remove(&msdu.id).is_some() {
                        self.mac_drops += 1;
                    }
                }
                MacOut::Sent { .. } | MacOut::Transmit(_) => {}
            }
        }
    }
}

impl Element for ChannelElement {
    fn on_packet(
        &mut self,
        now: Time,
        via: Option<EgressId>,
        pkt: &mut Packet,
        ctx: &mut ElementCtx,
    ) -> Disposition {
        let Some(from) = via.and_then(|v| self.ports.iter().position(|p| p.inbound == v)) else {
            return Disposition::Pass;
        };
        self.ch.run_until(now);
        self.flush(ctx);
        let dst = self
            .station_of_addr
            .get(pkt.dst.0 as usize)
            .copied()
            .flatten()
            .unwrap_or(self.gateway);
        if dst as usize == from {
            // Nowhere to send it over the air (a packet for beyond the gateway that came from
            // the gateway): ordinary forwarding decides.
            return Disposition::Pass;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.held.insert(id, pkt.clone());
        self.ch.enqueue(
            Sta(from as u16),
            Msdu {
                id,
                dst: Sta(dst),
                bytes: pkt.size,
            },
        );
        self.flush(ctx);
        Disposition::Consume
    }

    fn on_timer(&mut self, now: Time, ctx: &mut ElementCtx) {
        self.ch.run_until(now);
        self.flush(ctx);
    }

    fn next_timeout(&self) -> Option<Time> {
        self.ch.next_event()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn Any> {
        Some(self)
    }
}
