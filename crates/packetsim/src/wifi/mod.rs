//! An 802.11 wireless channel (issue 34): the DCF MAC of ns-2.35's `Mac/802_11` on a shared
//! medium, the 802.11b DSSS PHY's timing, and the propagation model that decides who hears
//! whom.
//!
//! - `phy`: slot, SIFS, DIFS, EIFS, PLCP and the airtime of each frame at the basic and data
//!   rates (1, 2, 5.5, 11 Mb/s).
//! - `dcf`: one station's MAC as a sans-IO state machine (`Dcf`): the interface queue, the
//!   backoff with freezing, MAC ACKs and timeouts, retry limits, RTS/CTS and the NAV, EIFS.
//!   Its module doc lists each rule with where it comes from: ns-2.35's `mac-802_11.cc` where
//!   it is followed, the standard (IEEE 802.11-1999 §9.2) where we follow it instead.
//! - `channel`: the stations on one medium, run on their own event queue: carrier sense,
//!   collisions (no capture), half duplex, a seeded per-frame error model.
//! - `propagation`: ns-2's FreeSpace and TwoRayGround models with the receive threshold (the
//!   default 250 m range at 914 MHz).
//! - `motion`: a mobile moving along waypoints at a speed (once or back and forth), the base
//!   stations' beacon times, and the mobile's beacon-driven handoff rule (sans-IO).
//! - `element`: the channel in a world, as a node element at a hub node that the stations'
//!   nodes are linked to (`docs/extending.md`'s element seam; no change to the transmitter or
//!   the world's dispatch).
//!
//! - `air`: positions, motion, beacons and the handoff rule inside a world (the element's
//!   [`element::ChannelElement::with_air`]); `report`: the `wifi` section of summary.json.
//! - `stations`: a station set on one channel in a world, the one packet-to-frame mapping
//!   shared by the `wifi` link kind's element and study 5's air (`mobility::radio`).
//!
//! Scenario keys: `kind = "wifi"` (`scenario/link/wifi.rs`, docs/scenario-format.md).
//! The Cellular IP / HAWAII handoff driven by the monitor's decisions is `mobility::radio`
//! (study 5's radio); on a scenario's wifi link the element's `follow_attachment` is an ideal
//! route update instead. MAC drops are world drops (`mac_retry_limit`, `mac_queue`) and
//! handoff decisions are rows of events.csv (`event = handoff`).
//!
//! Layering: the MAC, PHY, channel, propagation and motion use the kernel only (time, event
//! queue, random streams); the element also uses ids, packet and net. Nothing here is on the
//! world's hot path: a wired-only scenario never reaches this module.

pub mod air;
pub mod channel;
pub mod dcf;
pub mod element;
pub mod motion;
pub mod phy;
pub mod propagation;
pub mod report;
pub mod stations;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_world;

pub use channel::{Channel, ChannelConfig, ChannelStats, Logged};
pub use dcf::{
    BackoffDraw, Dcf, DcfConfig, Frame, FrameKind, MacDrop, MacOut, MacStats, Msdu, Sta,
};
pub use phy::PhyConfig;
