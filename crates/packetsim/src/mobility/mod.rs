//! Micro-mobility (spec 5): a mobile host moving between the base stations of one access
//! domain, and the protocols that keep its downlink route — Cellular IP (hard and semisoft
//! handoff, spec 5 §2.3) and HAWAII (MSF and UNF path setup, spec 5 §2.4) — as node elements.
//!
//! - [`HandoffSchedule`] (`schedule`): when the mobile leaves one base station and attaches to
//!   the next (spec 5 §2.2), the layer-2 gap, and what each base station's radio sees of it.
//! - [`DomainNode`] (`node`): the element at every node of the domain (gateway, routers, base
//!   stations). It holds the per-host soft state (a Cellular IP routing cache or a HAWAII
//!   forwarding entry), forwards downlink packets by it, answers the protocol's control
//!   messages, and at a base station is the radio link layer: a FIFO downlink queue per mobile
//!   that transmits only while the mobile hears the station, holds (or, `blind`, keeps
//!   transmitting) when it has left, and drops TCP packets at random on the uplink.
//! - [`MobileHost`] (`host`): the element at the mobile: which radio it hears, random loss of
//!   downlink TCP packets, its handoff actions (semisoft packet, route-update, registration),
//!   periodic route-updates, and the counts of duplicates, reordering and losses.
//! - `domain`: the canonical tree of spec 5 §3 built as a [`crate::world::World`], and the
//!   run's mobility metrics gathered from its elements.
//!
//! Cellular IP paging (spec 5 §2.3) is an option ([`MobilityConfig::paging`], off as in the
//! paper's runs, where the mobile is always active): nodes keep a paging cache beside the
//! routing cache, an idle mobile refreshes it with paging-updates, and a downlink packet that
//! meets no routing-cache mapping follows the paging cache, or where that has none every
//! downlink interface, until the mobile's route-update builds the routing caches.
//!
//! Mobile IP (RFC 5944), the macro-mobility baseline the paper sets beside them, runs on the
//! same elements: every base station is a foreign agent, a home agent (at the gateway, or at a
//! node of its own between the correspondent and the gateway, [`TreeParams::home_agent_delay`])
//! holds each mobile's binding and tunnels its downlink to the foreign agent of that binding.
//!
//! Control messages are real packets ([`crate::packet::Body::Control`]) of `control_bytes`
//! above IP, on the same links as data; they are never lost (spec 5 assumption 1: radio errors
//! apply to TCP packets only) and take no processing time. Every element counts the messages
//! it sends, by kind: the signalling-load metric.

mod domain;
mod host;
mod node;
pub mod radio;
mod schedule;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_paging;
#[cfg(test)]
mod tests_radio;
#[cfg(test)]
mod tests_tcp;

pub use domain::{
    add_radios, build_tree, install, Domain, Layout, MobilityReport, Parts, RadioParams, TreeParams,
};
pub use host::{HostStats, MobileHost};
pub use node::{DomainNode, NodeStats};
pub use schedule::{Handoff, HandoffSchedule, Listen, SharedSchedule};

use packetsim_kernel::Dur;

/// The control-message family of Cellular IP ([`crate::packet::ControlHeader::family`]).
pub const FAMILY_CIP: u16 = 0x5c1;
/// The control-message family of HAWAII.
pub const FAMILY_HAWAII: u16 = 0x5a1;
/// The control-message family of Mobile IP.
pub const FAMILY_MIP: u16 = 0x5e1;
/// The air's notices ([`radio`]), never leaving the instantaneous air links: to a base
/// station, the MAC is done with the packet it was handed for a mobile (sent or dropped,
/// [`AIR_MAC_DONE`]); to a mobile and to every base station, the mobile's schedule gained a
/// handoff decided on the beacons heard ([`AIR_HANDOFF`]; `args[0]`: the mobile's index).
pub const FAMILY_AIR: u16 = 0x5a2;
/// [`FAMILY_AIR`] kind: the MAC is done with the packet.
pub const AIR_MAC_DONE: u16 = 1;
/// [`FAMILY_AIR`] kind: a handoff was decided.
pub const AIR_HANDOFF: u16 = 2;

/// Control message kinds (within their family); `args[0]` is always the mobile's address.
pub mod kind {
    /// Cellular IP route-update (mobile → gateway, hop by hop).
    pub const ROUTE_UPDATE: u16 = 1;
    /// Cellular IP semisoft packet (mobile → gateway through the new base station).
    pub const SEMISOFT: u16 = 2;
    /// HAWAII registration request (mobile → new base station); `args[1]`: old base station
    /// index + 1 (0: none).
    pub const REGISTER: u16 = 1;
    /// HAWAII MSF path setup; `args[1]`: new base station index, `args[2]`: phase (1: on its
    /// way to the old base station, entries untouched; 2: old → new, entries re-pointed).
    pub const PATH_SETUP: u16 = 2;
    /// HAWAII UNF path setup (new → old base station, entries re-pointed on the way);
    /// `args[1]`: new base station index.
    pub const PATH_SETUP_UNF: u16 = 3;
    /// Cellular IP paging-update (idle mobile → gateway, hop by hop; refreshes paging caches
    /// only).
    pub const PAGING_UPDATE: u16 = 3;
    /// HAWAII refresh (serving base station → domain root, hop by hop).
    pub const REFRESH: u16 = 4;
    /// Mobile IP Registration Request (RFC 5944 §3.3; mobile → foreign agent, relayed to the
    /// home agent, §3.7.2); `args[1]`: the foreign agent's base-station index.
    pub const REG_REQUEST: u16 = 1;
    /// Mobile IP Registration Reply (RFC 5944 §3.4; home agent → foreign agent, relayed to the
    /// mobile, §3.7.3); `args[1]`: the foreign agent's base-station index.
    pub const REG_REPLY: u16 = 2;
    /// Number of kinds per family, for counters (kinds are 1-based).
    pub const COUNT: usize = 5;

    /// The name of kind `k` of `family` in reports.
    pub fn name(family: u16, k: u16) -> &'static str {
        match (family, k) {
            (super::FAMILY_CIP, ROUTE_UPDATE) => "route_update",
            (super::FAMILY_CIP, SEMISOFT) => "semisoft",
            (super::FAMILY_CIP, PAGING_UPDATE) => "paging_update",
            (super::FAMILY_HAWAII, REGISTER) => "register",
            (super::FAMILY_HAWAII, PATH_SETUP) => "path_setup",
            (super::FAMILY_HAWAII, PATH_SETUP_UNF) => "path_setup_unf",
            (super::FAMILY_HAWAII, REFRESH) => "refresh",
            (super::FAMILY_MIP, REG_REQUEST) => "reg_request",
            (super::FAMILY_MIP, REG_REPLY) => "reg_reply",
            _ => "other",
        }
    }
}

/// Cellular IP's handoff (spec 5 §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CipHandoff {
    /// Switch, then a route-update through the new base station.
    Hard,
    /// A semisoft packet `semisoft_delay` before the switch: the crossover bicasts.
    Semisoft,
}

/// HAWAII's path-setup scheme (spec 5 §2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HawaiiScheme {
    /// Multiple Stream Forwarding: the old base station forwards to the new one.
    Msf,
    /// Unicast Non-Forwarding: entries re-pointed from the new base station toward the old.
    Unf,
}

/// The micro-mobility protocol of a domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// Cellular IP with this handoff.
    Cip(CipHandoff),
    /// HAWAII with this path-setup scheme.
    Hawaii(HawaiiScheme),
    /// Mobile IP (RFC 5944): every base station a foreign agent, one home agent.
    MobileIp,
}

impl Protocol {
    /// Short name for reports: `cip_semisoft`, `cip_hard`, `hawaii_msf`, `hawaii_unf`.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Cip(CipHandoff::Semisoft) => "cip_semisoft",
            Protocol::Cip(CipHandoff::Hard) => "cip_hard",
            Protocol::Hawaii(HawaiiScheme::Msf) => "hawaii_msf",
            Protocol::Hawaii(HawaiiScheme::Unf) => "hawaii_unf",
            Protocol::MobileIp => "mobile_ip",
        }
    }

    /// The control family of this protocol.
    pub fn family(self) -> u16 {
        match self {
            Protocol::Cip(_) => FAMILY_CIP,
            Protocol::Hawaii(_) => FAMILY_HAWAII,
            Protocol::MobileIp => FAMILY_MIP,
        }
    }
}

/// What the old base station does with the mobile's packets once it has left (spec 5 §2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Departure {
    /// Stop transmitting; keep the queue for `hold_time`, then discard it (HAWAII MSF sends it
    /// on to the new base station instead).
    Hold,
    /// Keep transmitting into the air: everything sent is lost.
    Blind,
}

/// Protocol and radio settings shared by every element of a domain. Defaults: spec 5 §3.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MobilityConfig {
    /// The protocol.
    pub protocol: Protocol,
    /// Cellular IP: a mobile silent this long sends a route-update (1 s).
    pub route_update_time: Dur,
    /// Cellular IP: a routing-cache mapping lives this long after its last refresh (3 s).
    pub route_timeout: Dur,
    /// Cellular IP: the semisoft packet leaves this long before the switch (`S`, 100 ms).
    pub semisoft_delay: Dur,
    /// Cellular IP: the new base station holds bicast copies until the mobile attaches (the
    /// ideal delay device, true); false transmits them at once.
    pub delay_device: bool,
    /// Cellular IP semisoft: the delay device as the Cellular IP papers place it (Campbell et
    /// al., "Design, implementation, and evaluation of Cellular IP", IEEE Personal
    /// Communications 2000; CIMS): at the crossover node, while it bicasts, the copies sent
    /// on the new path (the mapping a semisoft packet made, not yet confirmed by the
    /// route-update or uplink data through it) wait this fixed delay before they leave, so
    /// that they reach the new base station about when the mobile tunes in. `None` (the
    /// default): no delay at the crossover. Set it with `delay_device = false` for the papers'
    /// device alone (the new base station then transmits at once); with `delay_device` the
    /// new base station also holds what arrives before the mobile attaches.
    pub crossover_delay: Option<Dur>,
    /// The radio is a shared 802.11 channel ([`radio`]'s air element): a base station hands
    /// the MAC one packet of a mobile's queue at a time and sends the next when the MAC's
    /// notice (a [`FAMILY_AIR`] message from the air) says it was sent or dropped, instead of
    /// pacing the queue at the radio rate (false).
    pub radio_mac: bool,
    /// HAWAII: refresh period `T_ref` (1 s); entries time out after `3·T_ref`.
    pub refresh: Dur,
    /// HAWAII UNF: the mobile still hears the old base station this long after switching
    /// (`S_unf`, 100 ms).
    pub unf_linger: Dur,
    /// Layer-2 gap `g` at each switch (0).
    pub gap: Dur,
    /// The old base station's behaviour on departure (hold).
    pub departure: Departure,
    /// How long a holding base station keeps a departed mobile's packets (1 s).
    pub hold_time: Dur,
    /// Probability that a TCP packet crossing a radio link is lost (`e`, 0).
    pub radio_loss: f64,
    /// Whether radio losses hit the uplink too (true; spec 5 Q7's option: downlink only).
    pub loss_uplink: bool,
    /// Bytes of every control message above the IP header (20).
    pub control_bytes: u32,
    /// The base station's downlink queue per mobile, packets (`B_bs`, 50).
    pub radio_queue: usize,
    /// Mobile IP: the registration lifetime the mobile asks for (RFC 5944 §3.3; 30 s); the
    /// home agent's binding and the foreign agent's visitor entry live this long after a
    /// registration, and the mobile registers again when half of it has passed.
    pub mip_lifetime: Dur,
    /// Mobile IP: bytes the home agent's tunnel adds to every downlink packet between it and
    /// the foreign agent (20: IP in IP, RFC 2003).
    pub tunnel_bytes: u32,
    /// Cellular IP paging (spec 5 §2.3; false: the mobile is always active, as in the
    /// paper's runs). On: a mobile that receives nothing for `active_timeout` turns idle, sends
    /// paging-updates instead of route-updates, and a downlink packet meeting no routing-cache
    /// mapping follows the paging cache (or, where that has none, every downlink interface).
    pub paging: bool,
    /// Cellular IP paging: an idle mobile that has sent nothing for this long sends a
    /// paging-update (3 s; INFERRED, see [`MobilityConfig::new`]).
    pub paging_update_time: Dur,
    /// Cellular IP paging: a paging-cache mapping lives this long after its last refresh (9 s).
    pub paging_timeout: Dur,
    /// Cellular IP paging: a mobile that has received no packet for this long turns idle (3 s).
    pub active_timeout: Dur,
}

impl MobilityConfig {
    /// Spec 5 §3's defaults with `protocol`.
    pub fn new(protocol: Protocol) -> MobilityConfig {
        MobilityConfig {
            protocol,
            route_update_time: Dur::from_secs(1),
            route_timeout: Dur::from_secs(3),
            semisoft_delay: Dur::from_millis(100),
            delay_device: true,
            crossover_delay: None,
            radio_mac: false,
            refresh: Dur::from_secs(1),
            unf_linger: Dur::from_millis(100),
            gap: Dur::ZERO,
            departure: Departure::Hold,
            hold_time: Dur::from_secs(1),
            radio_loss: 0.0,
            loss_uplink: true,
            control_bytes: 20,
            radio_queue: 50,
            mip_lifetime: Dur::from_secs(30),
            tunnel_bytes: 20,
            // Spec 5 gives no paging values, only that paging caches follow the movement time
            // scale and routing caches the packet time scale. INFERRED: paging-updates 3x as
            // far apart as route-updates, with the routing cache's 1:3 ratio of update period
            // to timeout; a mobile turns idle after one route timeout without data.
            paging: false,
            paging_update_time: Dur::from_secs(3),
            paging_timeout: Dur::from_secs(9),
            active_timeout: Dur::from_secs(3),
        }
    }

    /// HAWAII's entry lifetime, `3·T_ref`.
    pub fn entry_timeout(&self) -> Dur {
        Dur(self.refresh.0 * 3)
    }

    /// How long before a switch the new base station starts to receive the mobile's packets:
    /// Cellular IP semisoft's `S` (the semisoft packet's lead), 0 otherwise.
    pub fn lead(&self) -> Dur {
        match self.protocol {
            Protocol::Cip(CipHandoff::Semisoft) => self.semisoft_delay,
            _ => Dur::ZERO,
        }
    }

    /// How long the mobile hears the old base station after a switch under this protocol.
    pub fn linger(&self) -> Dur {
        match self.protocol {
            Protocol::Hawaii(HawaiiScheme::Unf) => self.unf_linger,
            _ => Dur::ZERO,
        }
    }
}

/// Why and where a data packet for a mobile was thrown away ([`Discard`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiscardReason {
    /// In the radio queue of a base station the mobile had left, past `hold_time`.
    Hold,
    /// At the full radio queue of a base station the mobile did not hear (held packets, bicast
    /// copies waiting for the mobile).
    RadioFull,
    /// At a node with no live soft state for the mobile.
    NoState,
    /// Sent over a radio the mobile did not hear (blind old base station, no delay device).
    Unheard,
    /// Cellular IP paging: a paged or flooded copy at a base station whose cell the mobile is
    /// not in.
    PageMiss,
}

impl DiscardReason {
    /// Every reason, in the order of [`DiscardReason::index`].
    pub const ALL: [DiscardReason; 5] = [
        DiscardReason::Hold,
        DiscardReason::RadioFull,
        DiscardReason::NoState,
        DiscardReason::Unheard,
        DiscardReason::PageMiss,
    ];

    /// Its index in [`DiscardReason::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            DiscardReason::Hold => "hold",
            DiscardReason::RadioFull => "radio_full",
            DiscardReason::NoState => "no_state",
            DiscardReason::Unheard => "unheard",
            DiscardReason::PageMiss => "page_miss",
        }
    }
}

/// One data packet the network threw away on the mobile's path (held too long, no route
/// state, sent to a mobile that could not hear it): its uid, the number of handoffs done
/// when it was discarded and why. It is a handoff loss only if no copy of it reached the
/// mobile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Discard {
    /// Which mobile it was for (index in the domain).
    pub mh: usize,
    /// The packet's uid (copies share it).
    pub uid: u64,
    /// Handoffs the mobile had made by then.
    pub handoff: usize,
    /// Why (and so where) it was discarded.
    pub reason: DiscardReason,
}
