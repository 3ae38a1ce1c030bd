//! DiffServ edge functions: meters, markers and the per-flow classifier (spec/4-diffserv-ecn
//! §2.2, steps 1 and 2).
//!
//! - [`TokenBucket`]: the study's two-colour marker. Tokens (bytes) accrue continuously at the
//!   profile rate, capped at the depth; an arriving packet of `L` bytes is IN when at least `L`
//!   tokens are present, and then uses them; otherwise it is OUT and uses none.
//! - [`SrTcm`]: the Single Rate Three Color Marker (RFC 2697).
//! - [`TrTcm`]: the Two Rate Three Color Marker (RFC 2698).
//! - [`AnyMarker`]: enum dispatch over the three, built from a [`MarkerConfig`]; `mark` meters
//!   a packet and writes its AF drop precedence.
//! - [`Classifier`]: maps a flow to a [`Class`] (EF, AF, BE) and, for AF, to a marker.
//!
//! **Exact token arithmetic.** A bucket counts tokens in *nanobits* (10⁻⁹ bit): over `Δt` ns a
//! rate of `r` bit/s adds exactly `r·Δt` nanobits, and one byte is 8·10⁹ nanobits. Refill is
//! therefore exact over any interval, however short, and the result is the same whether time
//! advances in one step or in many: no rounding, no float drift, fully deterministic. Counts
//! are `u128`, so neither `r·Δt` nor a depth of any `u64` number of bytes can overflow.
//!
//! **Continuous refill.** RFC 2697/2698 add one token (byte) at a time, CIR times a second;
//! here tokens accrue continuously, which is the same process without its 1-byte granularity.
//! For the srTCM, tokens that would overflow C go to E (RFC 2697 §3), computed in one step.
//!
//! **Colour to code point** ([`AnyMarker::mark`], RFC 2597 §2 with RFC 2697/2698 §4): for an
//! AF packet (AFxy), green → AFx1, yellow → AFx2, red → AFx3; the class `x` is kept. The token
//! bucket has two outcomes: IN is [`Color::Green`] (AFx1), OUT is [`Color::Yellow`] (AFx2),
//! which is the study's two-level IN/OUT folding (spec §2.1, [`Precedence`]). Non-AF packets are
//! metered but their code point is left alone.
//!
//! **Colour-aware mode** (RFC 2697/2698 §3, optional, srTCM and trTCM only): the packet's
//! pre-colour is read from its code point (AFx1 green, AFx2 yellow, AFx3 red, anything else
//! green). Colour-blind metering is colour-aware metering of an all-green stream, so both
//! modes share one code path.
//!
//! Layering: uses the kernel, [`crate::ids`], [`crate::packet`] and [`crate::units`] only.
//! Nothing here allocates per packet.

use crate::ids::FlowId;
use crate::packet::{dscp, Packet, Precedence};
use crate::units;
use packetsim_kernel::{Rate, Time};
use serde::{Deserialize, Serialize};

/// Nanobits (10⁻⁹ bit) in one byte: the token unit of every bucket here.
const NANOBITS_PER_BYTE: u128 = 8 * 1_000_000_000;

/// The result of metering one packet (RFC 2697/2698 §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// Within the committed profile (the token bucket's IN).
    Green = 0,
    /// Beyond the committed profile but within the excess/peak one (the token bucket's OUT).
    Yellow = 1,
    /// Beyond every profile.
    Red = 2,
}

impl Color {
    /// The study's two-level drop precedence: green is IN, yellow and red are OUT.
    pub fn precedence(self) -> Precedence {
        match self {
            Color::Green => Precedence::In,
            Color::Yellow | Color::Red => Precedence::Out,
        }
    }

    /// The drop-precedence digit `y` of AFxy for this colour (green 1, yellow 2, red 3).
    pub fn af_drop(self) -> u8 {
        self as u8 + 1
    }

    /// The pre-colour of a packet with code point `d` for colour-aware metering: AFx1 green,
    /// AFx2 yellow, AFx3 red; any non-AF code point counts as green (uncoloured).
    pub fn of_dscp(d: u8) -> Color {
        if !dscp::is_af(d) {
            return Color::Green;
        }
        match (d >> 1) & 3 {
            1 => Color::Green,
            2 => Color::Yellow,
            _ => Color::Red,
        }
    }
}

/// Whether a meter trusts the colour a packet arrives with (RFC 2697/2698 §3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeterMode {
    /// The stream is uncoloured: every packet is metered as if green (default).
    #[default]
    ColorBlind,
    /// A packet is never recoloured to a better colour than it arrived with.
    ColorAware,
}

/// One bucket of tokens counted in nanobits, holding at most `depth`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bucket {
    /// Tokens now, in nanobits.
    tokens: u128,
    /// Capacity, in nanobits.
    depth: u128,
}

impl Bucket {
    /// A bucket of `depth` bytes, full.
    fn full(depth: u64) -> Bucket {
        let depth = depth as u128 * NANOBITS_PER_BYTE;
        Bucket {
            tokens: depth,
            depth,
        }
    }

    /// Adds `amount` nanobits up to the depth; returns what did not fit.
    fn fill(&mut self, amount: u128) -> u128 {
        let room = self.depth - self.tokens;
        if amount <= room {
            self.tokens += amount;
            0
        } else {
            self.tokens = self.depth;
            amount - room
        }
    }

    /// Whether at least `size` bytes of tokens are present.
    fn holds(&self, size: u32) -> bool {
        self.tokens >= size as u128 * NANOBITS_PER_BYTE
    }

    /// Removes `size` bytes of tokens; the caller has checked [`Bucket::holds`].
    fn take(&mut self, size: u32) {
        let need = size as u128 * NANOBITS_PER_BYTE;
        debug_assert!(self.tokens >= need, "token bucket would go negative");
        self.tokens -= need;
    }

    /// Whole bytes of tokens (rounded down).
    fn bytes(&self) -> u64 {
        (self.tokens / NANOBITS_PER_BYTE) as u64
    }
}

/// The time since the previous arrival, in ns, and the clock moved to `now`.
fn advance(last: &mut Time, now: Time) -> u64 {
    debug_assert!(now >= *last, "meter clock went backwards: {now} < {last}");
    let dt = now.saturating_since(*last).as_nanos();
    *last = (*last).max(now);
    dt
}

/// Nanobits that `rate` accrues over `dt` ns: exactly `r·Δt`.
fn accrued(rate: Rate, dt: u64) -> u128 {
    rate.as_bps() as u128 * dt as u128
}

/// Configuration of the study's token-bucket marker (spec/4 §2.2 step 2; profile in §3).
///
/// Both fields are required: a profile has no sensible default. The study uses a rate of
/// 500 kb/s or 250 kb/s and a depth of 2 packets (2,080 B).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenBucketConfig {
    /// Token rate r (the flow's profile rate), e.g. `"500kbps"`.
    #[serde(with = "units::rate")]
    pub rate: Rate,
    /// Bucket depth b in bytes (the largest burst marked IN), e.g. `2080`.
    #[serde(with = "units::bytes")]
    pub depth: u64,
}

impl TokenBucketConfig {
    /// Checks the values; the error names the offending key and says what was expected.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.rate.as_bps() == 0 {
            return Err(("rate", "a profile needs a positive token rate".into()));
        }
        if self.depth == 0 {
            return Err(("depth", "expected at least 1 byte".into()));
        }
        Ok(())
    }
}

/// The study's token-bucket marker: IN/OUT by a single bucket (spec/4 §2.2 step 2).
#[derive(Clone, Debug)]
pub struct TokenBucket {
    rate: Rate,
    bucket: Bucket,
    last: Time,
}

impl TokenBucket {
    /// A full bucket built from a validated config.
    pub fn new(cfg: &TokenBucketConfig) -> TokenBucket {
        debug_assert_eq!(cfg.validate(), Ok(()), "TokenBucket from an invalid config");
        TokenBucket {
            rate: cfg.rate,
            bucket: Bucket::full(cfg.depth),
            last: Time::ZERO,
        }
    }

    /// Meters a packet of `size` bytes arriving at `now`: `true` (IN) if the bucket holds at
    /// least `size` bytes of tokens, which it then uses; `false` (OUT), using none, otherwise.
    pub fn conform(&mut self, now: Time, size: u32) -> bool {
        // spec/4 §2.2 step 2: tokens accrue continuously at r, capped at b.
        let dt = advance(&mut self.last, now);
        self.bucket.fill(accrued(self.rate, dt));
        // spec/4 §2.2 step 2: IN if tokens >= L (uses L tokens), else OUT (uses none).
        if self.bucket.holds(size) {
            self.bucket.take(size);
            true
        } else {
            false
        }
    }

    /// Whole bytes of tokens as of the last arrival.
    pub fn tokens(&self) -> u64 {
        self.bucket.bytes()
    }
}

/// Configuration of a Single Rate Three Color Marker (RFC 2697 §2).
///
/// All three traffic parameters are required; `mode` defaults to colour-blind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SrTcmConfig {
    /// Committed Information Rate, e.g. `"500kbps"` (RFC 2697 counts IP bytes; so do we).
    #[serde(with = "units::rate")]
    pub cir: Rate,
    /// Committed Burst Size in bytes: the depth of bucket C.
    #[serde(with = "units::bytes")]
    pub cbs: u64,
    /// Excess Burst Size in bytes: the depth of bucket E.
    #[serde(with = "units::bytes")]
    pub ebs: u64,
    /// Colour-blind (default) or colour-aware metering.
    #[serde(default)]
    pub mode: MeterMode,
}

impl SrTcmConfig {
    /// Checks the values; the error names the offending key and says what was expected.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.cir.as_bps() == 0 {
            return Err(("cir", "a profile needs a positive committed rate".into()));
        }
        // RFC 2697 §2: at least one of CBS and EBS must be larger than 0.
        if self.cbs == 0 && self.ebs == 0 {
            return Err(("cbs", "expected cbs or ebs (or both) above 0 bytes".into()));
        }
        Ok(())
    }
}

/// A Single Rate Three Color Marker (RFC 2697): buckets C (depth CBS) and E (depth EBS), both
/// fed at CIR, E only with what overflows C.
#[derive(Clone, Debug)]
pub struct SrTcm {
    cir: Rate,
    mode: MeterMode,
    c: Bucket,
    e: Bucket,
    last: Time,
}

impl SrTcm {
    /// Both buckets full (RFC 2697 §3: Tc(0) = CBS, Te(0) = EBS), from a validated config.
    pub fn new(cfg: &SrTcmConfig) -> SrTcm {
        debug_assert_eq!(cfg.validate(), Ok(()), "SrTcm from an invalid config");
        SrTcm {
            cir: cfg.cir,
            mode: cfg.mode,
            c: Bucket::full(cfg.cbs),
            e: Bucket::full(cfg.ebs),
            last: Time::ZERO,
        }
    }

    /// Meters a packet of `size` bytes arriving at `now`, colour-blind (RFC 2697 §3).
    pub fn meter(&mut self, now: Time, size: u32) -> Color {
        self.meter_aware(now, size, Color::Green)
    }

    /// Meters a packet of `size` bytes that arrived coloured `pre` (RFC 2697 §3, colour-aware
    /// mode; with `pre` green this is the colour-blind rule).
    pub fn meter_aware(&mut self, now: Time, size: u32, pre: Color) -> Color {
        // RFC 2697 §3: tokens go to C while Tc < CBS, else to E while Te < EBS, else are lost.
        let dt = advance(&mut self.last, now);
        let spill = self.c.fill(accrued(self.cir, dt));
        self.e.fill(spill);
        // RFC 2697 §3: green if (pre-green and) Tc >= B, taking B from C; else yellow if (not
        // pre-red and) Te >= B, taking B from E; else red, taking nothing.
        match pre {
            Color::Green if self.c.holds(size) => {
                self.c.take(size);
                Color::Green
            }
            Color::Green | Color::Yellow if self.e.holds(size) => {
                self.e.take(size);
                Color::Yellow
            }
            _ => Color::Red,
        }
    }

    /// Whole bytes in buckets C and E as of the last arrival.
    pub fn tokens(&self) -> (u64, u64) {
        (self.c.bytes(), self.e.bytes())
    }
}

/// Configuration of a Two Rate Three Color Marker (RFC 2698 §2).
///
/// All four traffic parameters are required; `mode` defaults to colour-blind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrTcmConfig {
    /// Committed Information Rate, e.g. `"250kbps"`.
    #[serde(with = "units::rate")]
    pub cir: Rate,
    /// Committed Burst Size in bytes: the depth of bucket C.
    #[serde(with = "units::bytes")]
    pub cbs: u64,
    /// Peak Information Rate, at least the CIR.
    #[serde(with = "units::rate")]
    pub pir: Rate,
    /// Peak Burst Size in bytes: the depth of bucket P.
    #[serde(with = "units::bytes")]
    pub pbs: u64,
    /// Colour-blind (default) or colour-aware metering.
    #[serde(default)]
    pub mode: MeterMode,
}

impl TrTcmConfig {
    /// Checks the values; the error names the offending key and says what was expected.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.cir.as_bps() == 0 {
            return Err(("cir", "a profile needs a positive committed rate".into()));
        }
        // RFC 2698 §2: the PIR must be at least the CIR.
        if self.pir < self.cir {
            return Err((
                "pir",
                format!("expected pir >= cir ({}), got {}", self.cir, self.pir),
            ));
        }
        // RFC 2698 §2: CBS and PBS must both be above 0.
        if self.cbs == 0 {
            return Err(("cbs", "expected at least 1 byte".into()));
        }
        if self.pbs == 0 {
            return Err(("pbs", "expected at least 1 byte".into()));
        }
        Ok(())
    }
}

/// A Two Rate Three Color Marker (RFC 2698): bucket P (depth PBS) fed at PIR and bucket C
/// (depth CBS) fed at CIR.
#[derive(Clone, Debug)]
pub struct TrTcm {
    cir: Rate,
    pir: Rate,
    mode: MeterMode,
    c: Bucket,
    p: Bucket,
    last: Time,
}

impl TrTcm {
    /// Both buckets full (RFC 2698 §3: Tp(0) = PBS, Tc(0) = CBS), from a validated config.
    pub fn new(cfg: &TrTcmConfig) -> TrTcm {
        debug_assert_eq!(cfg.validate(), Ok(()), "TrTcm from an invalid config");
        TrTcm {
            cir: cfg.cir,
            pir: cfg.pir,
            mode: cfg.mode,
            c: Bucket::full(cfg.cbs),
            p: Bucket::full(cfg.pbs),
            last: Time::ZERO,
        }
    }

    /// Meters a packet of `size` bytes arriving at `now`, colour-blind (RFC 2698 §3).
    pub fn meter(&mut self, now: Time, size: u32) -> Color {
        self.meter_aware(now, size, Color::Green)
    }

    /// Meters a packet of `size` bytes that arrived coloured `pre` (RFC 2698 §3, colour-aware
    /// mode; with `pre` green this is the colour-blind rule).
    pub fn meter_aware(&mut self, now: Time, size: u32, pre: Color) -> Color {
        // RFC 2698 §3: Tp grows at PIR up to PBS, Tc at CIR up to CBS.
        let dt = advance(&mut self.last, now);
        self.p.fill(accrued(self.pir, dt));
        self.c.fill(accrued(self.cir, dt));
        // RFC 2698 §3: red if (pre-red or) Tp < B; else yellow if (pre-yellow or) Tc < B,
        // taking B from P; else green, taking B from both.
        if pre == Color::Red || !self.p.holds(size) {
            Color::Red
        } else if pre == Color::Yellow || !self.c.holds(size) {
            self.p.take(size);
            Color::Yellow
        } else {
            self.p.take(size);
            self.c.take(size);
            Color::Green
        }
    }

    /// Whole bytes in buckets P and C as of the last arrival.
    pub fn tokens(&self) -> (u64, u64) {
        (self.p.bytes(), self.c.bytes())
    }
}

/// A meter/marker as a scenario names it: a table tagged by `kind`.
///
/// ```toml
/// marker = { kind = "token_bucket", rate = "500kbps", depth = 2080 }
/// marker = { kind = "srtcm", cir = "500kbps", cbs = 2080, ebs = 10000 }
/// marker = { kind = "trtcm", cir = "250kbps", cbs = 2080, pir = "500kbps", pbs = 2080 }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum MarkerConfig {
    /// The study's two-colour token bucket.
    #[serde(rename = "token_bucket")]
    TokenBucket(TokenBucketConfig),
    /// RFC 2697 srTCM.
    #[serde(rename = "srtcm")]
    SrTcm(SrTcmConfig),
    /// RFC 2698 trTCM.
    #[serde(rename = "trtcm")]
    TrTcm(TrTcmConfig),
}

impl MarkerConfig {
    /// Checks the values; the error names the offending key and says what was expected.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        match self {
            MarkerConfig::TokenBucket(c) => c.validate(),
            MarkerConfig::SrTcm(c) => c.validate(),
            MarkerConfig::TrTcm(c) => c.validate(),
        }
    }
}

/// The markers a scenario can choose (enum dispatch, no allocation).
#[derive(Clone, Debug)]
pub enum AnyMarker {
    /// The study's two-colour token bucket.
    TokenBucket(TokenBucket),
    /// RFC 2697 srTCM.
    SrTcm(SrTcm),
    /// RFC 2698 trTCM.
    TrTcm(TrTcm),
}

impl AnyMarker {
    /// A marker with full buckets, from a validated config.
    pub fn new(cfg: &MarkerConfig) -> AnyMarker {
        match cfg {
            MarkerConfig::TokenBucket(c) => AnyMarker::TokenBucket(TokenBucket::new(c)),
            MarkerConfig::SrTcm(c) => AnyMarker::SrTcm(SrTcm::new(c)),
            MarkerConfig::TrTcm(c) => AnyMarker::TrTcm(TrTcm::new(c)),
        }
    }

    /// Meters a packet of `size` bytes arriving at `now` with code point `dscp`; the code
    /// point matters only to colour-aware meters. The token bucket answers green (IN) or
    /// yellow (OUT).
    #[inline]
    pub fn meter(&mut self, now: Time, size: u32, dscp: u8) -> Color {
        let pre = |mode| match mode {
            MeterMode::ColorBlind => Color::Green,
            MeterMode::ColorAware => Color::of_dscp(dscp),
        };
        match self {
            AnyMarker::TokenBucket(m) => {
                if m.conform(now, size) {
                    Color::Green
                } else {
                    Color::Yellow
                }
            }
            AnyMarker::SrTcm(m) => m.meter_aware(now, size, pre(m.mode)),
            AnyMarker::TrTcm(m) => m.meter_aware(now, size, pre(m.mode)),
        }
    }

    /// Meters `pkt` (its `size` in bytes, IP header included, as RFC 2697/2698 §2 count) and,
    /// if it carries an AF code point AFxy, rewrites it to AFx1 (green), AFx2 (yellow) or AFx3
    /// (red). Non-AF packets are metered but keep their code point.
    #[inline]
    pub fn mark(&mut self, now: Time, pkt: &mut Packet) -> Color {
        let color = self.meter(now, pkt.size, pkt.dscp);
        // RFC 2697/2698 §4 with RFC 2597 §2: the colour is coded as the AF drop precedence.
        if dscp::is_af(pkt.dscp) {
            pkt.dscp = (pkt.dscp & !0b110) | (color.af_drop() << 1);
        }
        color
    }
}

/// The forwarding class a flow belongs to (spec/4 §2.2 step 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Expedited Forwarding (RFC 3246): code point EF (46), never metered here.
    Ef,
    /// Assured Forwarding class 1 (RFC 2597): AF11/AF12/AF13 by the flow's marker.
    Af,
    /// Best effort, the default PHB: code point 0 (default).
    #[default]
    Be,
}

/// A flow's DiffServ treatment as a scenario states it, e.g.
///
/// ```toml
/// [flows.af1.diffserv]
/// class = "af"
/// marker = { kind = "token_bucket", rate = "500kbps", depth = 2080 }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowClassConfig {
    /// The flow's class (default `be`).
    #[serde(default)]
    pub class: Class,
    /// The flow's own meter/marker; only for class `af`. An AF flow without one is all AF11.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marker: Option<MarkerConfig>,
}

impl FlowClassConfig {
    /// Checks the values; the error names the offending key (a marker's own key, such as
    /// `rate`, when the marker is wrong) and says what was expected.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        match (self.class, &self.marker) {
            (_, None) => Ok(()),
            (Class::Af, Some(m)) => m.validate(),
            (c, Some(_)) => Err((
                "marker",
                format!("only an AF flow is metered; this flow's class is {c:?}"),
            )),
        }
    }
}

/// An index into a [`Classifier`]'s markers. Several flows may share one marker (an
/// aggregate profile).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MarkerIdx(pub u32);

/// Packets of one flow by the colour its marker gave them (indexed by [`Color`]).
pub type ColorCounts = [u64; 3];

/// One flow's class, marker and counts.
#[derive(Clone, Copy, Debug, Default)]
struct FlowRule {
    class: Class,
    marker: Option<MarkerIdx>,
    counts: ColorCounts,
}

/// The edge router's classifier and marker (spec/4 §2.2 steps 1 and 2): sets every packet's
/// code point from its flow. Flows never assigned are best effort.
#[derive(Clone, Debug, Default)]
pub struct Classifier {
    /// Indexed by flow id.
    flows: Vec<FlowRule>,
    markers: Vec<AnyMarker>,
}

impl Classifier {
    /// A classifier that treats every flow as best effort.
    pub fn new() -> Classifier {
        Classifier::default()
    }

    /// Adds a marker and returns its index for [`Classifier::assign`].
    pub fn add_marker(&mut self, m: AnyMarker) -> MarkerIdx {
        self.markers.push(m);
        MarkerIdx((self.markers.len() - 1) as u32)
    }

    /// Puts `flow` in `class`, metered by `marker` (meaningful for AF only). Build-time only.
    pub fn assign(&mut self, flow: FlowId, class: Class, marker: Option<MarkerIdx>) {
        if let Some(m) = marker {
            assert!(
                (m.0 as usize) < self.markers.len(),
                "{flow}: marker {} was never added",
                m.0
            );
        }
        if self.flows.len() <= flow.idx() {
            self.flows.resize(flow.idx() + 1, FlowRule::default());
        }
        self.flows[flow.idx()] = FlowRule {
            class,
            marker,
            counts: [0; 3],
        };
    }

    /// Puts `flow` in the class of a validated `cfg`, with a marker of its own if it has one.
    pub fn assign_config(&mut self, flow: FlowId, cfg: &FlowClassConfig) {
        debug_assert_eq!(cfg.validate(), Ok(()), "{flow}: invalid DiffServ config");
        let marker = cfg.marker.map(|m| self.add_marker(AnyMarker::new(&m)));
        self.assign(flow, cfg.class, marker);
    }

    /// The class of `flow`.
    pub fn class_of(&self, flow: FlowId) -> Class {
        self.flows.get(flow.idx()).map_or(Class::Be, |r| r.class)
    }

    /// Packets of `flow` marked green, yellow and red so far (an AF flow without a marker
    /// counts all green; EF and BE flows count nothing).
    pub fn counts(&self, flow: FlowId) -> ColorCounts {
        self.flows.get(flow.idx()).map_or([0; 3], |r| r.counts)
    }

    /// A marker, to inspect its buckets.
    pub fn marker(&self, m: MarkerIdx) -> &AnyMarker {
        &self.markers[m.0 as usize]
    }

    /// Sets the code point of `pkt` arriving at `now` from its flow's class: EF → 46, BE → 0,
    /// AF → AF11 then recoloured by the flow's marker, if any. Returns the class.
    pub fn classify(&mut self, now: Time, pkt: &mut Packet) -> Class {
        let Some(rule) = self.flows.get_mut(pkt.flow.idx()) else {
            pkt.dscp = dscp::BE;
            return Class::Be;
        };
        match rule.class {
            // spec/4 §2.2 step 2: EF packets are marked EF, not policed.
            Class::Ef => pkt.dscp = dscp::EF,
            // spec/4 §2.2 step 2: BE packets get the default code point.
            Class::Be => pkt.dscp = dscp::BE,
            Class::Af => {
                // Colour-blind meters ignore it; colour-aware ones see a green arrival.
                pkt.dscp = dscp::AF11;
                let color = match rule.marker {
                    Some(m) => self.markers[m.0 as usize].mark(now, pkt),
                    None => Color::Green,
                };
                rule.counts[color as usize] += 1;
            }
        }
        rule.class
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Addr;
    use crate::packet::Body;
    use packetsim_kernel::Dur;

    const MS: u64 = 1_000_000;
    const S: u64 = 1_000_000_000;

    fn t(ns: u64) -> Time {
        Time(ns)
    }

    /// 8 kb/s = 1000 B/s, the brief's example profile.
    fn tb(depth: u64) -> TokenBucket {
        TokenBucket::new(&TokenBucketConfig {
            rate: Rate::bps(8_000),
            depth,
        })
    }

    // spec/4 §2.2 step 2: IN iff tokens >= L, using L tokens; OUT uses none.
    #[test]
    fn token_bucket_burst_beyond_depth_is_out() {
        let mut m = tb(2_000);
        assert!(m.conform(t(0), 1_000), "full bucket: first packet IN");
        assert!(m.conform(t(0), 1_000), "second packet empties the bucket");
        assert!(
            !m.conform(t(0), 1_000),
            "third packet exceeds the depth: OUT"
        );
        assert_eq!(m.tokens(), 0, "an OUT packet uses no tokens");
        assert!(!m.conform(t(999 * MS), 1_000), "999 ms brings only 999 B");
        assert!(m.conform(t(S), 1_000), "after 1 s, 1000 B: one more IN");
        assert!(!m.conform(t(S), 1), "and nothing left");
    }

    // spec/4 §2.2 step 2: an OUT packet uses no tokens, so a smaller packet may still be IN.
    #[test]
    fn token_bucket_out_packet_leaves_tokens_for_a_smaller_one() {
        let mut m = tb(1_500);
        assert!(!m.conform(t(0), 1_501));
        assert!(m.conform(t(0), 1_500));
    }

    // spec/4 §2.2 step 2: tokens are capped at b, however long the idle period.
    #[test]
    fn token_bucket_long_idle_does_not_accumulate_beyond_depth() {
        let mut m = tb(2_000);
        assert!(m.conform(t(0), 2_000));
        let later = 3_600 * S;
        assert!(m.conform(t(later), 1_000));
        assert!(m.conform(t(later), 1_000));
        assert!(
            !m.conform(t(later), 1),
            "an hour idle still gives only b = 2000 B"
        );
        // Near-u64 times and a fast rate cannot overflow the counts.
        let mut f = TokenBucket::new(&TokenBucketConfig {
            rate: Rate(u64::MAX),
            depth: u64::MAX,
        });
        assert!(f.conform(t(u64::MAX), u32::MAX));
        assert_eq!(f.tokens(), u64::MAX - u32::MAX as u64);
    }

    // spec/4 §2.2 step 2: continuous accrual; exact integer refill, so arrivals paced at
    // exactly the token rate are all IN, however small the steps.
    #[test]
    fn token_bucket_arrivals_at_the_token_rate_are_all_in() {
        let mut m = tb(1);
        for k in 0..100_000u64 {
            assert!(
                m.conform(t(k * MS), 1),
                "1 B every 1 ms at 1000 B/s, arrival {k}"
            );
        }
        let mut m = tb(1_000);
        for k in 0..1_000u64 {
            assert!(m.conform(t(k * S), 1_000), "1000 B every 1 s, arrival {k}");
        }
    }

    // spec/4 §2.2 step 2: refill is exact, with no drift, at a rate whose per-packet interval
    // is not a whole number of ns: packet k is OUT 1 ns before the exact instant its tokens
    // are complete and IN at that instant, for ten thousand packets.
    #[test]
    fn token_bucket_refill_is_exact_without_drift() {
        let (rate, size) = (333_333u64, 1_040u32);
        let mut m = TokenBucket::new(&TokenBucketConfig {
            rate: Rate::bps(rate),
            depth: 2 * size as u64,
        });
        assert!(m.conform(t(0), size));
        assert!(m.conform(t(0), size), "bucket now empty");
        let per_pkt = size as u128 * NANOBITS_PER_BYTE; // nanobits per packet
        for k in 1..=10_000u128 {
            let due = (k * per_pkt).div_ceil(rate as u128) as u64;
            assert!(!m.conform(t(due - 1), size), "packet {k} 1 ns early is OUT");
            assert!(m.conform(t(due), size), "packet {k} exactly on time is IN");
        }
        let end = (10_000 * per_pkt).div_ceil(rate as u128);
        assert_eq!(
            m.bucket.tokens,
            end * rate as u128 - 10_000 * per_pkt,
            "exactly r·t minus what was used"
        );
    }

    // spec/4 §2.2 step 2: the same time in one step or in many irregular ones accrues exactly
    // the same tokens, r·t nanobits.
    #[test]
    fn token_bucket_refill_is_independent_of_step_size() {
        let cfg = TokenBucketConfig {
            rate: Rate::bps(333_333),
            depth: 1_000_000_000,
        };
        let (mut many, mut one) = (TokenBucket::new(&cfg), TokenBucket::new(&cfg));
        assert!(many.conform(t(0), 1_000_000_000));
        assert!(one.conform(t(0), 1_000_000_000));
        let mut now = 0;
        for k in 0..100_000u64 {
            now += 1 + (k * 7_919) % 12_345_679;
            many.conform(t(now), 0);
        }
        one.conform(t(now), 0);
        assert_eq!(many.bucket.tokens, one.bucket.tokens);
        assert_eq!(many.bucket.tokens, 333_333 * now as u128);
    }

    /// CIR 1000 B/s, CBS 2000 B, EBS 1000 B.
    fn srtcm(mode: MeterMode) -> SrTcm {
        SrTcm::new(&SrTcmConfig {
            cir: Rate::bps(8_000),
            cbs: 2_000,
            ebs: 1_000,
            mode,
        })
    }

    // RFC 2697 §3: both buckets start full; colour-blind: green if Tc >= B (Tc -= B), else
    // yellow if Te >= B (Te -= B), else red (nothing taken).
    #[test]
    fn srtcm_color_blind_burst_is_green_then_yellow_then_red() {
        let mut m = srtcm(MeterMode::ColorBlind);
        assert_eq!(m.tokens(), (2_000, 1_000));
        assert_eq!(m.meter(t(0), 1_000), Color::Green);
        assert_eq!(m.meter(t(0), 1_000), Color::Green);
        assert_eq!(m.meter(t(0), 600), Color::Yellow);
        assert_eq!(m.meter(t(0), 500), Color::Red, "Te = 400 < 500");
        assert_eq!(m.meter(t(0), 400), Color::Yellow, "red took nothing from E");
        assert_eq!(m.tokens(), (0, 0));
    }

    // RFC 2697 §3: tokens go to C while it is below CBS; only the overflow goes to E.
    #[test]
    fn srtcm_refill_fills_c_before_e() {
        let mut m = srtcm(MeterMode::ColorBlind);
        m.meter(t(0), 2_000);
        m.meter(t(0), 1_000);
        assert_eq!(m.tokens(), (0, 0));
        assert_eq!(m.meter(t(S), 1_001), Color::Red, "1 s: Tc = 1000, Te = 0");
        assert_eq!(m.tokens(), (1_000, 0));
        assert_eq!(m.meter(t(2_500 * MS), 0), Color::Green);
        assert_eq!(m.tokens(), (2_000, 500), "C filled, 500 B spilled into E");
        assert_eq!(m.meter(t(10 * S), 0), Color::Green);
        assert_eq!(m.tokens(), (2_000, 1_000), "both capped");
    }

    // RFC 2697 §3: each bucket is tested alone, so a packet larger than CBS and EBS is red
    // even when Tc + Te would cover it.
    #[test]
    fn srtcm_packet_larger_than_each_bucket_is_red() {
        let mut m = srtcm(MeterMode::ColorBlind);
        assert_eq!(m.meter(t(0), 2_500), Color::Red);
        assert_eq!(m.tokens(), (2_000, 1_000));
    }

    // RFC 2697 §3, colour-aware: a yellow arrival can only be yellow (from E) or red; a red
    // arrival stays red; a green arrival is metered as in colour-blind mode.
    #[test]
    fn srtcm_color_aware_never_improves_a_color() {
        let mut m = srtcm(MeterMode::ColorAware);
        assert_eq!(m.meter_aware(t(0), 500, Color::Yellow), Color::Yellow);
        assert_eq!(m.tokens(), (2_000, 500), "yellow took from E, not C");
        assert_eq!(m.meter_aware(t(0), 100, Color::Red), Color::Red);
        assert_eq!(
            m.meter_aware(t(0), 600, Color::Yellow),
            Color::Red,
            "Te = 500"
        );
        assert_eq!(m.meter_aware(t(0), 600, Color::Green), Color::Green);
        assert_eq!(m.tokens(), (1_400, 500));
    }

    /// CIR 1000 B/s, CBS 1000 B, PIR 2000 B/s, PBS 2000 B.
    fn trtcm(mode: MeterMode) -> TrTcm {
        TrTcm::new(&TrTcmConfig {
            cir: Rate::bps(8_000),
            cbs: 1_000,
            pir: Rate::bps(16_000),
            pbs: 2_000,
            mode,
        })
    }

    // RFC 2698 §3, colour-blind: red if Tp < B; else yellow if Tc < B (Tp -= B); else green
    // (Tp -= B, Tc -= B). Both buckets start full and refill at their own rates.
    #[test]
    fn trtcm_color_blind_sequence() {
        let mut m = trtcm(MeterMode::ColorBlind);
        assert_eq!(m.tokens(), (2_000, 1_000));
        assert_eq!(m.meter(t(0), 1_000), Color::Green);
        assert_eq!(m.meter(t(0), 1_000), Color::Yellow, "Tc = 0, Tp = 1000");
        assert_eq!(m.meter(t(0), 1), Color::Red, "Tp = 0");
        assert_eq!(m.tokens(), (0, 0));
        // 0.5 s: Tp += 1000 (PIR), Tc += 500 (CIR).
        assert_eq!(m.meter(t(500 * MS), 600), Color::Yellow, "Tc = 500 < 600");
        assert_eq!(m.tokens(), (400, 500), "yellow took from P only");
        assert_eq!(m.meter(t(500 * MS), 500), Color::Red, "Tp = 400 < 500");
        assert_eq!(m.tokens(), (400, 500), "red took nothing");
        assert_eq!(m.meter(t(500 * MS), 400), Color::Green);
        assert_eq!(m.tokens(), (0, 100));
        // A long idle period fills both to their depths and no further.
        m.meter(t(100 * S), 0);
        assert_eq!(m.tokens(), (2_000, 1_000));
    }

    // RFC 2698 §3: a packet within the committed burst but beyond the peak one is red.
    #[test]
    fn trtcm_packet_beyond_pbs_is_red_even_if_within_cbs() {
        let mut m = TrTcm::new(&TrTcmConfig {
            cir: Rate::bps(8_000),
            cbs: 1_500,
            pir: Rate::bps(8_000),
            pbs: 1_000,
            mode: MeterMode::ColorBlind,
        });
        assert_eq!(m.meter(t(0), 1_200), Color::Red);
    }

    // RFC 2698 §3, colour-aware: pre-red stays red (nothing taken); pre-yellow is yellow if
    // Tp >= B, taking from P only; pre-green as in colour-blind mode.
    #[test]
    fn trtcm_color_aware_never_improves_a_color() {
        let mut m = trtcm(MeterMode::ColorAware);
        assert_eq!(m.meter_aware(t(0), 100, Color::Red), Color::Red);
        assert_eq!(m.tokens(), (2_000, 1_000));
        assert_eq!(m.meter_aware(t(0), 500, Color::Yellow), Color::Yellow);
        assert_eq!(m.tokens(), (1_500, 1_000));
        assert_eq!(m.meter_aware(t(0), 500, Color::Green), Color::Green);
        assert_eq!(m.tokens(), (1_000, 500));
    }

    // Colour-aware AnyMarker reads the pre-colour from the AF drop precedence.
    #[test]
    fn any_marker_color_aware_reads_dscp() {
        let cfg = MarkerConfig::TrTcm(TrTcmConfig {
            cir: Rate::bps(8_000),
            cbs: 1_000,
            pir: Rate::bps(16_000),
            pbs: 2_000,
            mode: MeterMode::ColorAware,
        });
        let mut m = AnyMarker::new(&cfg);
        let mut p = pkt(0, 500);
        p.dscp = dscp::AF12;
        assert_eq!(m.mark(t(0), &mut p), Color::Yellow);
        assert_eq!(p.dscp, dscp::AF12);
        p.dscp = 30; // AF33
        assert_eq!(m.mark(t(0), &mut p), Color::Red);
        assert_eq!(p.dscp, 30);
        p.dscp = 26; // AF31
        assert_eq!(m.mark(t(0), &mut p), Color::Green);
        assert_eq!(p.dscp, 26, "AF class 3 kept");
    }

    // RFC 2697/2698 §4 with RFC 2597 §2: green AFx1, yellow AFx2, red AFx3, class kept;
    // non-AF code points are not rewritten.
    #[test]
    fn any_marker_writes_af_drop_precedence() {
        let cfg = MarkerConfig::SrTcm(SrTcmConfig {
            cir: Rate::bps(8_000),
            cbs: 1_000,
            ebs: 1_000,
            mode: MeterMode::ColorBlind,
        });
        let mut m = AnyMarker::new(&cfg);
        let mut p = pkt(0, 1_000);
        let mut seen = vec![];
        for _ in 0..3 {
            p.dscp = 18; // AF21
            let c = m.mark(t(0), &mut p);
            seen.push((c, p.dscp));
        }
        assert_eq!(
            seen,
            [(Color::Green, 18), (Color::Yellow, 20), (Color::Red, 22)]
        );
        p.dscp = dscp::EF;
        assert_eq!(m.mark(t(0), &mut p), Color::Red);
        assert_eq!(p.dscp, dscp::EF, "EF is metered but not rewritten");
    }

    // Validation: a profile with no rate, a zero depth, pir < cir (RFC 2698 §2), zero bursts
    // (RFC 2697 §2: at least one of CBS, EBS; RFC 2698 §2: both CBS and PBS).
    #[test]
    fn validate_rejects_bad_profiles_naming_the_key() {
        let ok = TokenBucketConfig {
            rate: Rate::bps(500_000),
            depth: 2_080,
        };
        assert_eq!(ok.validate(), Ok(()));
        let key = |r: Result<(), (&'static str, String)>| r.unwrap_err().0;
        let no_rate = TokenBucketConfig {
            rate: Rate(0),
            ..ok
        };
        assert_eq!(key(no_rate.validate()), "rate");
        assert_eq!(key(MarkerConfig::TokenBucket(no_rate).validate()), "rate");
        assert_eq!(
            key(TokenBucketConfig { depth: 0, ..ok }.validate()),
            "depth"
        );

        let sr = SrTcmConfig {
            cir: Rate::bps(500_000),
            cbs: 2_080,
            ebs: 0,
            mode: MeterMode::ColorBlind,
        };
        assert_eq!(sr.validate(), Ok(()), "EBS 0 alone is allowed");
        assert_eq!(key(SrTcmConfig { cir: Rate(0), ..sr }.validate()), "cir");
        assert_eq!(key(SrTcmConfig { cbs: 0, ..sr }.validate()), "cbs");

        let tr = TrTcmConfig {
            cir: Rate::bps(250_000),
            cbs: 2_080,
            pir: Rate::bps(500_000),
            pbs: 2_080,
            mode: MeterMode::ColorBlind,
        };
        assert_eq!(tr.validate(), Ok(()));
        let (k, msg) = TrTcmConfig {
            pir: Rate::bps(249_999),
            ..tr
        }
        .validate()
        .unwrap_err();
        assert_eq!(k, "pir");
        assert!(msg.contains("pir >= cir"), "{msg}");
        assert_eq!(key(TrTcmConfig { cir: Rate(0), ..tr }.validate()), "cir");
        assert_eq!(key(TrTcmConfig { cbs: 0, ..tr }.validate()), "cbs");
        assert_eq!(key(TrTcmConfig { pbs: 0, ..tr }.validate()), "pbs");

        let ef_metered = FlowClassConfig {
            class: Class::Ef,
            marker: Some(MarkerConfig::TokenBucket(ok)),
        };
        assert_eq!(key(ef_metered.validate()), "marker");
        let af_no_rate = FlowClassConfig {
            class: Class::Af,
            marker: Some(MarkerConfig::TokenBucket(no_rate)),
        };
        assert_eq!(key(af_no_rate.validate()), "rate");
    }

    // Scenario syntax: tagged by `kind`, units parsed, unknown keys and a missing rate refused.
    #[test]
    fn marker_config_reads_from_toml() {
        #[derive(Deserialize)]
        struct W {
            diffserv: FlowClassConfig,
        }
        let w: W = toml::from_str(
            r#"
            [diffserv]
            class = "af"
            marker = { kind = "token_bucket", rate = "500kbps", depth = 2080 }"#,
        )
        .unwrap();
        assert_eq!(
            w.diffserv.marker,
            Some(MarkerConfig::TokenBucket(TokenBucketConfig {
                rate: Rate::bps(500_000),
                depth: 2_080
            }))
        );
        let m: MarkerConfig = toml::from_str(
            r#"kind = "trtcm"
            cir = "250kbps"
            cbs = 2080
            pir = "500kbps"
            pbs = "10KB"
            mode = "color_aware""#,
        )
        .unwrap();
        assert_eq!(
            m,
            MarkerConfig::TrTcm(TrTcmConfig {
                cir: Rate::bps(250_000),
                cbs: 2_080,
                pir: Rate::bps(500_000),
                pbs: 10_000,
                mode: MeterMode::ColorAware,
            })
        );
        let m: MarkerConfig =
            toml::from_str("kind = \"srtcm\"\ncir = \"1Mbps\"\ncbs = 1500\nebs = 3000").unwrap();
        assert!(matches!(m, MarkerConfig::SrTcm(c) if c.mode == MeterMode::ColorBlind));

        let err = toml::from_str::<MarkerConfig>("kind = \"token_bucket\"\ndepth = 2080")
            .unwrap_err()
            .to_string();
        assert!(err.contains("rate"), "{err}");
        let err = toml::from_str::<MarkerConfig>(
            "kind = \"token_bucket\"\nrate = \"1Mbps\"\ndepth = 2080\nburst = 1",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("burst"), "{err}");
        let err = toml::from_str::<MarkerConfig>("kind = \"leaky\"\nrate = \"1Mbps\"")
            .unwrap_err()
            .to_string();
        assert!(err.contains("leaky"), "{err}");
    }

    fn pkt(flow: u32, size: u32) -> Packet {
        let mut p = Packet::new(Addr(0), Addr(1), Body::Udp { seq: 0, payload: 0 });
        p.flow = FlowId(flow);
        p.size = size;
        p
    }

    // spec/4 §2.2 steps 1-2: EF flows get EF, BE flows the default code point, AF flows AF11
    // while in profile and AF12 beyond it; unknown flows are BE.
    #[test]
    fn classifier_sets_ef_be_and_af_by_profile() {
        let mut c = Classifier::new();
        c.assign(FlowId(0), Class::Ef, None);
        let tbm = c.add_marker(AnyMarker::new(&MarkerConfig::TokenBucket(
            TokenBucketConfig {
                rate: Rate::bps(8_000),
                depth: 2_000,
            },
        )));
        c.assign(FlowId(1), Class::Af, Some(tbm));
        c.assign(FlowId(2), Class::Be, None);
        c.assign(FlowId(4), Class::Af, None);

        let mut p = pkt(0, 1_000);
        assert_eq!(c.classify(t(0), &mut p), Class::Ef);
        assert_eq!(p.dscp, dscp::EF);

        let mut p = pkt(2, 1_000);
        p.dscp = dscp::EF; // a source cannot promote itself
        assert_eq!(c.classify(t(0), &mut p), Class::Be);
        assert_eq!(p.dscp, dscp::BE);

        let marks: Vec<u8> = (0..3)
            .map(|_| {
                let mut p = pkt(1, 1_000);
                assert_eq!(c.classify(t(0), &mut p), Class::Af);
                p.dscp
            })
            .collect();
        assert_eq!(marks, [dscp::AF11, dscp::AF11, dscp::AF12]);
        let mut p = pkt(1, 1_000);
        c.classify(t(0) + Dur::from_secs(1), &mut p);
        assert_eq!(p.dscp, dscp::AF11, "1 s refilled one packet's worth");
        assert_eq!(c.counts(FlowId(1)), [3, 1, 0]);
        assert_eq!(p.precedence(), Precedence::In);

        let mut p = pkt(4, 1_000_000);
        c.classify(t(0), &mut p);
        assert_eq!(p.dscp, dscp::AF11, "AF without a marker is always AF11");

        for unknown in [3, 99] {
            let mut p = pkt(unknown, 100);
            p.dscp = dscp::AF11;
            assert_eq!(c.classify(t(0), &mut p), Class::Be);
            assert_eq!(p.dscp, dscp::BE);
        }
        assert_eq!(c.class_of(FlowId(99)), Class::Be);
    }

    // Flows sharing a marker share its profile (an aggregate); assign_config gives each flow
    // its own.
    #[test]
    fn classifier_shared_marker_is_an_aggregate_profile() {
        let mut c = Classifier::new();
        let m = c.add_marker(AnyMarker::new(&MarkerConfig::TokenBucket(
            TokenBucketConfig {
                rate: Rate::bps(8_000),
                depth: 1_000,
            },
        )));
        c.assign(FlowId(0), Class::Af, Some(m));
        c.assign(FlowId(1), Class::Af, Some(m));
        let mut a = pkt(0, 1_000);
        let mut b = pkt(1, 1_000);
        c.classify(t(0), &mut a);
        c.classify(t(0), &mut b);
        assert_eq!((a.dscp, b.dscp), (dscp::AF11, dscp::AF12));

        let own = FlowClassConfig {
            class: Class::Af,
            marker: Some(MarkerConfig::TokenBucket(TokenBucketConfig {
                rate: Rate::bps(8_000),
                depth: 1_000,
            })),
        };
        c.assign_config(FlowId(0), &own);
        c.assign_config(FlowId(1), &own);
        let mut a = pkt(0, 1_000);
        let mut b = pkt(1, 1_000);
        c.classify(t(0), &mut a);
        c.classify(t(0), &mut b);
        assert_eq!((a.dscp, b.dscp), (dscp::AF11, dscp::AF11));
        assert!(matches!(c.marker(MarkerIdx(2)), AnyMarker::TokenBucket(tb) if tb.tokens() == 0));
    }
}
