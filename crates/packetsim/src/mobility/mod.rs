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
//! Each protocol is one file and one row of `mobility_protocols!` (below): `cip.rs`,
//! `hawaii.rs`, `mobile_ip.rs`, each implementing [`MobilityProtocol`], what the protocol
//! does at a node and at the mobile. The elements keep the state the protocols share and
//! call the protocol of their [`MobilityConfig`] through [`Protocol`], the enum generated
//! from the rows (enum dispatch), which also gives every protocol's scenario name and
//! label.
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
mod tests_registry;
#[cfg(test)]
mod tests_tcp;

pub use domain::{
    add_radios, build_tree, install, Domain, Layout, MobilityReport, Parts, RadioParams, TreeParams,
};
pub use host::{HostStats, MobileHost};
pub use node::{DomainNode, NodeStats};
pub use schedule::{Handoff, HandoffSchedule, Listen, SharedSchedule};

use crate::ids::EgressId;
use crate::net::{Disposition, ElementCtx};
use crate::packet::{ControlHeader, Packet};
use packetsim_kernel::{Dur, Time};

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

    /// The name of kind `k` of `family` in reports (from the rows of
    /// `mobility_protocols!`: [`super::MobilityProtocol::kind_name`]).
    pub fn name(family: u16, k: u16) -> &'static str {
        super::Protocol::kind_name(family, k)
    }
}

/// The mobility protocols, one row each (issue 35 item 3): a protocol is one file in
/// `mobility/` holding the type of its row, which implements [`MobilityProtocol`], and one
/// row here. A row with variants (a handoff or path-setup scheme) names the enum of its file
/// and each variant's `protocol` value (the scenario key, the reports' name) and label (the
/// study's figures and tables); a row without is a unit struct. From the rows come
/// [`Protocol`] (enum dispatch: no allocation, no trait object), its names, labels and
/// parsing ([`Protocol::from_name`], [`Protocol::NAMES`]) and the names of the control
/// messages ([`kind::name`]). docs/extending.md, "How to add a mobility protocol".
macro_rules! mobility_protocols {
    ($then:ident) => {
        $then! {
            with_variants {
                /// Cellular IP with this handoff (spec 5 §2.3; `cip.rs`).
                Cip cip: CipHandoff {
                    Semisoft "cip_semisoft" "CIP semisoft",
                    Hard "cip_hard" "CIP hard",
                }
                /// HAWAII with this path-setup scheme (spec 5 §2.4; `hawaii.rs`).
                Hawaii hawaii: HawaiiScheme {
                    Msf "hawaii_msf" "HAWAII MSF",
                    Unf "hawaii_unf" "HAWAII UNF",
                }
            }
            single {
                /// Mobile IP (RFC 5944; `mobile_ip.rs`): every base station a foreign agent,
                /// one home agent.
                MobileIp mobile_ip: MobileIp "mobile_ip" "Mobile IP",
            }
        }
    };
}

/// What one mobility protocol does, implemented by the type of its row of
/// `mobility_protocols!` (the protocol's own file). The elements keep what every protocol
/// shares — at a node ([`DomainNode`]) each mobile's downlink soft state (`routes`, followed
/// by `downlink`), its radio queue and the counters; at the mobile ([`MobileHost`]) its
/// schedule, uplink routes and what arrives — and call these at the protocol's decision
/// points: its control messages and data at a node, the periodic refresh of a base station,
/// and at the mobile the announcement before a switch, the attachment after it, the packets
/// it receives and its own timers.
pub trait MobilityProtocol: Copy {
    /// Its control-message family ([`crate::packet::ControlHeader::family`]).
    const FAMILY: u16;

    /// The name of its message kind `k` in reports (None: not one of its kinds).
    fn kind_name(k: u16) -> Option<&'static str>;

    /// How long before each switch the mobile announces the new cell through it (Cellular IP
    /// semisoft's semisoft packet, `S`); the new base station receives the mobile's packets
    /// from then on. None: no announcement.
    fn lead(self, _cfg: &MobilityConfig) -> Option<Dur> {
        None
    }

    /// How long the mobile still hears the old base station after a switch (0).
    fn linger(self, _cfg: &MobilityConfig) -> Dur {
        Dur::ZERO
    }

    /// Whether it has paging ([`MobilityConfig::paging`] allowed; false).
    fn pages(self) -> bool {
        false
    }

    /// Whether the crossover bicasts during a handoff, so that a fixed delay device there
    /// ([`MobilityConfig::crossover_delay`]) applies (false).
    fn bicasts(self) -> bool {
        false
    }

    /// Whether the mobile's downlink goes through a home agent (set up at build, with every
    /// node told of it; false).
    fn home_agent(self) -> bool {
        false
    }

    /// The life of the hop-by-hop downlink state the domain holds at time 0 from the first
    /// base station up to the gateway (spec 5 §2.4: power-up is out of scope). None: no such
    /// state (a home agent's binding instead).
    fn initial_path(self, cfg: &MobilityConfig) -> Option<Dur>;

    /// Base station `bs`'s (or, `None`, another node's) refresh period: its
    /// [`MobilityProtocol::on_refresh`] runs every period from time 0 + period (none).
    fn refresh_period(self, _cfg: &MobilityConfig, _bs: Option<usize>) -> Option<Dur> {
        None
    }

    /// A control message of a mobility family at `node`, arrived over `via`.
    fn on_control(
        self,
        node: &mut DomainNode,
        now: Time,
        via: EgressId,
        pkt: &Packet,
        c: ControlHeader,
        ctx: &mut ElementCtx,
    ) -> Disposition;

    /// Any other packet at `node`, arrived over `via` (uplink data from a mobile, downlink
    /// data for one, anything else).
    fn on_data(
        self,
        node: &mut DomainNode,
        now: Time,
        via: EgressId,
        pkt: &mut Packet,
        ctx: &mut ElementCtx,
    ) -> Disposition;

    /// `node`'s periodic refresh ([`MobilityProtocol::refresh_period`]).
    fn on_refresh(self, _node: &mut DomainNode, _now: Time, _ctx: &mut ElementCtx) {}

    /// At the mobile, [`MobilityProtocol::lead`] before the switch to base station `to`.
    fn announce(self, _host: &mut MobileHost, _now: Time, _to: usize, _ctx: &mut ElementCtx) {}

    /// The mobile attached to base station `to`, leaving `from` (its uplink routes already
    /// point at `to`).
    fn on_attach(
        self,
        host: &mut MobileHost,
        now: Time,
        from: usize,
        to: usize,
        ctx: &mut ElementCtx,
    );

    /// A packet the mobile heard and handed to its endpoints (counted already).
    fn on_delivered(
        self,
        _host: &mut MobileHost,
        _now: Time,
        _pkt: &Packet,
        _ctx: &mut ElementCtx,
    ) {
    }

    /// The mobile's timer fired at `now`, before the due handoff actions run.
    fn wake(self, _host: &mut MobileHost, _now: Time) {}

    /// The mobile's timer fired at `now`, after the due handoff actions ran.
    fn on_host_timer(self, _host: &mut MobileHost, _now: Time, _ctx: &mut ElementCtx) {}

    /// When the mobile's [`MobilityProtocol::on_host_timer`] next has something to do.
    fn next_update(self, _host: &MobileHost) -> Option<Time> {
        None
    }
}

/// `match` over the rows of [`Protocol`] (listed by the generated code), binding `$p` to the
/// row's value (a unit row's struct for a variant without data).
macro_rules! each_row {
    ($self:expr, [$($TV:ident)*], [$($UV:ident $UT:ident)*], $p:ident => $e:expr) => {
        match $self {
            $( Protocol::$TV($p) => $e, )*
            $( Protocol::$UV => {
                let $p = $UT;
                $e
            } )*
        }
    };
}

/// Generates [`Protocol`], its module declarations and its dispatch from the rows of
/// `mobility_protocols!`.
macro_rules! protocol_enum {
    (
        with_variants { $(
            $(#[$tm:meta])* $TV:ident $tf:ident: $TT:ident {
                $( $S:ident $sname:literal $slabel:literal, )+
            }
        )* }
        single { $(
            $(#[$um:meta])* $UV:ident $uf:ident: $UT:ident $uname:literal $ulabel:literal,
        )* }
    ) => {
        $( mod $tf; pub use $tf::$TT; )*
        $( mod $uf; pub use $uf::$UT; )*

        /// The mobility protocol of a domain: a row of `mobility_protocols!`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Protocol {
            $( $(#[$tm])* $TV($TT), )*
            $( $(#[$um])* $UV, )*
        }

        impl Protocol {
            /// Every protocol and variant, in registry order.
            pub const ALL: &'static [Protocol] = &[
                $( $( Protocol::$TV($TT::$S), )+ )*
                $( Protocol::$UV, )*
            ];

            /// Their `protocol` values, in the order of [`Protocol::ALL`].
            pub const NAMES: &'static [&'static str] = &[
                $( $( $sname, )+ )*
                $( $uname, )*
            ];

            /// Short name for scenarios and reports: `cip_semisoft`, `cip_hard`,
            /// `hawaii_msf`, `hawaii_unf`, `mobile_ip`.
            pub fn name(self) -> &'static str {
                match self {
                    $( $( Protocol::$TV($TT::$S) => $sname, )+ )*
                    $( Protocol::$UV => $uname, )*
                }
            }

            /// Its label in the study's figures and tables (`CIP semisoft`, ...).
            pub fn label(self) -> &'static str {
                match self {
                    $( $( Protocol::$TV($TT::$S) => $slabel, )+ )*
                    $( Protocol::$UV => $ulabel, )*
                }
            }

            /// The protocol whose [`Protocol::name`] is `name`.
            pub fn from_name(name: &str) -> Option<Protocol> {
                Self::NAMES
                    .iter()
                    .position(|n| *n == name)
                    .map(|i| Self::ALL[i])
            }

            /// The control family of this protocol.
            pub fn family(self) -> u16 {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => family_of(p))
            }

            /// Whether `family` is a row's control family.
            pub fn is_family(family: u16) -> bool {
                $( family == <$TT as MobilityProtocol>::FAMILY || )*
                $( family == <$UT as MobilityProtocol>::FAMILY || )*
                false
            }

            /// The name of kind `k` of control family `family` in reports ("other" if no
            /// row has it).
            pub fn kind_name(family: u16, k: u16) -> &'static str {
                $( if family == <$TT as MobilityProtocol>::FAMILY {
                    return <$TT as MobilityProtocol>::kind_name(k).unwrap_or("other");
                } )*
                $( if family == <$UT as MobilityProtocol>::FAMILY {
                    return <$UT as MobilityProtocol>::kind_name(k).unwrap_or("other");
                } )*
                "other"
            }

            /// [`MobilityProtocol::lead`].
            pub fn lead(self, cfg: &MobilityConfig) -> Option<Dur> {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => p.lead(cfg))
            }

            /// [`MobilityProtocol::linger`].
            pub fn linger(self, cfg: &MobilityConfig) -> Dur {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => p.linger(cfg))
            }

            /// [`MobilityProtocol::pages`].
            pub fn pages(self) -> bool {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => p.pages())
            }

            /// [`MobilityProtocol::bicasts`].
            pub fn bicasts(self) -> bool {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => p.bicasts())
            }

            /// [`MobilityProtocol::home_agent`].
            pub fn home_agent(self) -> bool {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => p.home_agent())
            }

            /// [`MobilityProtocol::initial_path`].
            pub fn initial_path(self, cfg: &MobilityConfig) -> Option<Dur> {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => p.initial_path(cfg))
            }

            /// [`MobilityProtocol::refresh_period`].
            pub fn refresh_period(self, cfg: &MobilityConfig, bs: Option<usize>) -> Option<Dur> {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => p.refresh_period(cfg, bs))
            }

            /// [`MobilityProtocol::on_control`].
            pub(crate) fn on_control(
                self,
                node: &mut DomainNode,
                now: Time,
                via: EgressId,
                pkt: &Packet,
                c: ControlHeader,
                ctx: &mut ElementCtx,
            ) -> Disposition {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => {
                    p.on_control(node, now, via, pkt, c, ctx)
                })
            }

            /// [`MobilityProtocol::on_data`].
            pub(crate) fn on_data(
                self,
                node: &mut DomainNode,
                now: Time,
                via: EgressId,
                pkt: &mut Packet,
                ctx: &mut ElementCtx,
            ) -> Disposition {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => p.on_data(node, now, via, pkt, ctx))
            }

            /// [`MobilityProtocol::on_refresh`].
            pub(crate) fn on_refresh(self, node: &mut DomainNode, now: Time, ctx: &mut ElementCtx) {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => p.on_refresh(node, now, ctx))
            }

            /// [`MobilityProtocol::announce`].
            pub(crate) fn announce(
                self,
                host: &mut MobileHost,
                now: Time,
                to: usize,
                ctx: &mut ElementCtx,
            ) {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => p.announce(host, now, to, ctx))
            }

            /// [`MobilityProtocol::on_attach`].
            pub(crate) fn on_attach(
                self,
                host: &mut MobileHost,
                now: Time,
                from: usize,
                to: usize,
                ctx: &mut ElementCtx,
            ) {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => {
                    p.on_attach(host, now, from, to, ctx)
                })
            }

            /// [`MobilityProtocol::on_delivered`].
            pub(crate) fn on_delivered(
                self,
                host: &mut MobileHost,
                now: Time,
                pkt: &Packet,
                ctx: &mut ElementCtx,
            ) {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => p.on_delivered(host, now, pkt, ctx))
            }

            /// [`MobilityProtocol::wake`].
            pub(crate) fn wake(self, host: &mut MobileHost, now: Time) {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => p.wake(host, now))
            }

            /// [`MobilityProtocol::on_host_timer`].
            pub(crate) fn on_host_timer(
                self,
                host: &mut MobileHost,
                now: Time,
                ctx: &mut ElementCtx,
            ) {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => p.on_host_timer(host, now, ctx))
            }

            /// [`MobilityProtocol::next_update`].
            pub(crate) fn next_update(self, host: &MobileHost) -> Option<Time> {
                each_row!(self, [$($TV)*], [$($UV $UT)*], p => p.next_update(host))
            }
        }
    };
}

/// The family of a row's value.
fn family_of<P: MobilityProtocol>(_: P) -> u16 {
    P::FAMILY
}

mobility_protocols!(protocol_enum);

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
        self.protocol.lead(self).unwrap_or(Dur::ZERO)
    }

    /// How long the mobile hears the old base station after a switch under this protocol.
    pub fn linger(&self) -> Dur {
        self.protocol.linger(self)
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
