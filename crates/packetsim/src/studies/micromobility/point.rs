//! A point of the study's grid, typed: protocol, TCP variant, radio loss, handoffs, connections
//! and the options of the extensions and sensitivities, with its grid id.

use super::*;

/// One configuration of the study (a grid point).
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Protocol and handoff mode.
    pub protocol: Protocol,
    /// TCP variant.
    pub variant: Variant,
    /// Radio loss rate.
    pub e: f64,
    /// Handoffs in 30 s.
    pub h: u32,
    /// Connections.
    pub n: u32,
    /// Payload bytes per segment.
    pub size: u32,
    /// CN–GW delay, ms.
    pub d_ms: u64,
    /// Old base station on departure.
    pub departure: Departure,
    /// MM-X5: one mobile per connection, out of phase.
    pub spread: bool,
    /// Cellular IP semisoft: the new base station's delay device (spec 5 §2.3; true). False
    /// sends the bicast copies at once (the spec's option; MM-X3).
    pub delay_device: bool,
    /// On the radio: Cellular IP semisoft's delay device is the spec's ideal device at the new
    /// base station, as under Q2's simplification, instead of the Cellular IP papers' fixed
    /// delay on the new path at the crossover (false; MM-X3's comparison of the two).
    pub ideal_device: bool,
    /// A home-agent node this far (ms) beyond GW on the correspondent's side (MM-X6; none).
    pub ha_ms: Option<u64>,
    /// TCP as ns-2.35 would run it: [`tcp_config`] under `profile = "ns2"` (issue 14's "as
    /// ns-2.35 would" column; false).
    pub ns2: bool,
    /// Spec 5 Q2's simplification: contention-free point-to-point radio links and scheduled,
    /// instantaneous handoffs (the first reproduction's model; false: the 802.11 channel with
    /// motion and beacon handoff, `mobility::radio`).
    pub q2: bool,
    /// Layer-2 gap `g` at each switch, ms (0; sensitivity 50).
    pub gap_ms: u64,
    /// Radio loss on the downlink only (spec 5 Q7's option; false: both directions).
    pub down_only: bool,
    /// Spec 5 Q9's TCP sensitivity: IW 2, 10 ms tick, RTO min 1 s (false).
    pub q9: bool,
    /// On the radio: metres between neighbouring base stations (200: cells of 250 m range
    /// overlap by 300 m; 500: they touch; more: a coverage gap between them).
    pub spacing_m: u32,
    /// On the radio: the beacon interval, ms (100).
    pub beacon_ms: u32,
}

/// The radio's default cell layout ([`Cells::default`]): spacing (m) and beacon interval (ms).
pub(super) const SPACING_M: u32 = 200;
pub(super) const BEACON_MS: u32 = 100;

impl Point {
    /// The paper's default point of `protocol` and `variant` (H = 3, N = 1, e = 0, on the radio).
    pub fn base(protocol: Protocol, variant: Variant) -> Point {
        Point {
            protocol,
            variant,
            e: 0.0,
            h: 3,
            n: 1,
            size: 1000,
            d_ms: 2,
            departure: Departure::Hold,
            spread: false,
            delay_device: true,
            ideal_device: false,
            ha_ms: None,
            ns2: false,
            q2: false,
            gap_ms: 0,
            down_only: false,
            q9: false,
            spacing_m: SPACING_M,
            beacon_ms: BEACON_MS,
        }
    }

    /// Whether it is one of the sensitivity runs (reported beside its default point, not as
    /// an extension).
    pub(super) fn sensitivity(&self) -> bool {
        self.gap_ms > 0
            || self.down_only
            || self.q9
            || self.spacing_m != SPACING_M
            || self.beacon_ms != BEACON_MS
    }

    /// The grid value naming it (the options off by default are written only when on, so
    /// that the paper's points keep their names).
    pub fn id(&self) -> String {
        let mut extra = String::new();
        if !self.delay_device {
            extra.push_str("|nodd");
        }
        if self.ideal_device {
            extra.push_str("|ideal");
        }
        if let Some(ms) = self.ha_ms {
            let _ = write!(extra, "|ha{ms}");
        }
        if self.ns2 {
            extra.push_str("|ns2");
        }
        if self.q2 {
            extra.push_str("|q2");
        }
        if self.gap_ms > 0 {
            let _ = write!(extra, "|g{}", self.gap_ms);
        }
        if self.down_only {
            extra.push_str("|down");
        }
        if self.q9 {
            extra.push_str("|q9");
        }
        if self.spacing_m != SPACING_M {
            let _ = write!(extra, "|sp{}", self.spacing_m);
        }
        if self.beacon_ms != BEACON_MS {
            let _ = write!(extra, "|bi{}", self.beacon_ms);
        }
        format!(
            "{}|{}|e{}|h{}|n{}|s{}|d{}|{}|{}{extra}",
            self.protocol.name(),
            self.variant.name(),
            self.e,
            self.h,
            self.n,
            self.size,
            self.d_ms,
            match self.departure {
                Departure::Hold => "hold",
                Departure::Blind => "blind",
            },
            if self.spread { "spread" } else { "one" }
        )
    }

    pub(super) fn parse(id: &str) -> Option<Point> {
        let f: Vec<&str> = id.split('|').collect();
        if f.len() < 9 {
            return None;
        }
        let (mut delay_device, mut ideal_device) = (true, false);
        let mut ha_ms = None;
        let mut ns2 = false;
        let (mut q2, mut gap_ms, mut down_only, mut q9) = (false, 0, false, false);
        let (mut spacing_m, mut beacon_ms) = (SPACING_M, BEACON_MS);
        for x in &f[9..] {
            match *x {
                _ if x.starts_with("sp") => spacing_m = x[2..].parse().ok()?,
                _ if x.starts_with("bi") => beacon_ms = x[2..].parse().ok()?,
                "nodd" => delay_device = false,
                "ideal" => ideal_device = true,
                "ns2" => ns2 = true,
                "q2" => q2 = true,
                "down" => down_only = true,
                "q9" => q9 = true,
                _ if x.starts_with('g') => gap_ms = x[1..].parse().ok()?,
                _ => ha_ms = Some(x.strip_prefix("ha")?.parse().ok()?),
            }
        }
        let protocol = Protocol::from_name(f[0])?;
        let variant = Variant::ALL.into_iter().find(|v| v.name() == f[1])?;
        let num = |s: &str, p: &str| s.strip_prefix(p)?.parse::<f64>().ok();
        Some(Point {
            protocol,
            variant,
            e: num(f[2], "e")?,
            h: num(f[3], "h")? as u32,
            n: num(f[4], "n")? as u32,
            size: num(f[5], "s")? as u32,
            d_ms: num(f[6], "d")? as u64,
            departure: if f[7] == "blind" {
                Departure::Blind
            } else {
                Departure::Hold
            },
            spread: f[8] == "spread",
            delay_device,
            ideal_device,
            ha_ms,
            ns2,
            q2,
            gap_ms,
            down_only,
            q9,
            spacing_m,
            beacon_ms,
        })
    }
}

pub(super) const CIP: Protocol = Protocol::Cip(CipHandoff::Semisoft);
pub(super) const HAW: Protocol = Protocol::Hawaii(HawaiiScheme::Msf);

/// The protocol's label in tables and figures (its registry row's, e.g. "CIP semisoft").
pub(super) fn pname(p: Protocol) -> &'static str {
    p.label()
}

/// The protocol with its options, for tables.
pub(super) fn plabel(p: &Point) -> String {
    let mut s = pname(p.protocol).to_string();
    if !p.delay_device {
        s.push_str(", no delay device");
    }
    if p.ideal_device {
        s.push_str(", ideal delay device at the new BS");
    }
    if let Some(ms) = p.ha_ms {
        let _ = write!(s, ", home node {ms} ms beyond GW");
    }
    s
}

pub(super) fn vname(v: Variant) -> &'static str {
    match v {
        Variant::Tahoe => "Tahoe",
        Variant::Reno => "Reno",
        Variant::NewReno => "NewReno",
        Variant::Sack => "SACK",
        Variant::Cubic => "CUBIC",
        Variant::Dctcp => "DCTCP",
        Variant::Bbr => "BBR",
        Variant::Vegas => "Vegas",
        // A variant added to the registry later is labelled by its scenario spelling.
        other => other.name(),
    }
}
