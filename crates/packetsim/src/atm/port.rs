//! A slotted cell link direction as a transmitter mode of the packet world (spec 1 §2.1-2.3;
//! DESIGN.md "Network": slotted cell links are a transmitter kind). Scenarios select it with
//! a link of `kind = "atm"` (`scenario/link/atm.rs`); the world drives it through
//! [`crate::net::Egress::set_cells`].
//!
//! One direction is an output port of a cell switch together with the AAL5 adapters that feed
//! it. A packet offered to the direction becomes an AAL5 frame of `cells_for(size)` cells on
//! its virtual circuit (one VC per flow, numbered in order of first appearance); each VC's
//! adapter puts one cell per slot into the switch, frames of one VC back to back, so cells of
//! different VCs interleave as in YATS. The switch ([`CellSwitch`]) holds B cells and
//! applies the discard policy; its output sends one cell per slot. A packet reaches the far
//! end at (slot its end-of-frame cell leaves) × slot + propagation delay if none of its cells
//! was dropped, and is lost (`DropReason::CellLoss`) otherwise: when its end-of-frame cell
//! leaves (a damaged frame whose last cell was kept, PPD's end-of-frame option) or when its
//! end-of-frame cell is dropped.
//!
//! Timing, slot by slot (spec 1 §2.1's order): in slot `s`, (1) each adapter emits
//! its next cell, (2) the switch output sends its head cell (queued in an earlier slot), (3)
//! the cells emitted in this slot are enqueued (or dropped), in an order drawn from the
//! direction's seeded stream ([`ArrivalOrder::Random`], YATS) or in VC order
//! ([`ArrivalOrder::Port`]). A packet offered at time `x` has its first cell in slot
//! `floor(x / slot) + 1` (or later, behind its VC's earlier frames). Endpoint times stay
//! exact (the world is continuous): this is the continuous time base of study 1's former engine (`atm/sim.rs`, removed after commit ff13d99) for the
//! endpoints, with the cell path on the slot grid.
//!
//! The world calls [`CellPort::advance`] at the start of every slot in which the port has
//! work (a TxDone event per busy slot, [`CellPort::next_tick`]); idle slots cost nothing.

use super::aal5::cells_for;
use super::cell::{Cell, Vci};
use super::switch::{CellSwitch, SwitchConfig, SwitchStats, Verdict};
use crate::ids::FlowId;
use crate::net::{Egress, SlottedPort};
use packetsim_kernel::{Dur, Rng, Time};
use std::collections::{HashMap, VecDeque};

/// How the cells emitted in one slot are ordered at the switch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArrivalOrder {
    /// A random order from the direction's seeded stream (YATS, spec §2.1; the default).
    #[default]
    Random,
    /// VC order (the order in which the flows first used the direction).
    Port,
}

/// Where the VCs' cells go after their adapters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Output {
    /// One shared switch output: buffer, discard policy, one cell per slot (spec 1 §2.3).
    #[default]
    Switch,
    /// Each VC its own path of one cell per slot (spec 1 §3.1's ACK path, "separate,
    /// uncongested"): a cell emitted in slot `s` leaves in slot `s + 1`, as through an empty
    /// switch; nothing queues behind another VC and nothing is dropped.
    PerVc,
}

/// Settings of one cell link direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellLinkConfig {
    /// The slot: one 53-byte cell at the link rate.
    pub slot: Dur,
    /// The switch output (B, discard policy; `vcs` is a starting size, the table grows).
    pub switch: SwitchConfig,
    /// Order of same-slot arrivals.
    pub order: ArrivalOrder,
    /// A shared switch output (default) or a path per VC.
    pub output: Output,
}

/// What became of a packet (its frame) in the port: `net`'s [`Settled`], which the port
/// reports through [`SlottedPort`].
pub use crate::net::Settled;

#[derive(Clone, Copy, Debug)]
struct Frame {
    pkt: u32,
    bytes: u32,
    cells: u16,
    lost: bool,
}

#[derive(Clone, Debug, Default)]
struct Adapter {
    /// Frames waiting or being segmented, front first: the frame's number and its cells
    /// (kept here so that emitting a cell needs no look-up of the frame).
    frames: VecDeque<(u32, u16)>,
    /// Cells of the front frame already emitted.
    next_cell: u16,
}

/// One cell link direction: the VCs' adapters and the switch output.
#[derive(Clone, Debug)]
pub struct CellPort {
    cfg: CellLinkConfig,
    sw: CellSwitch,
    vc_of: HashMap<FlowId, u16>,
    adapters: Vec<Adapter>,
    /// Adapters with a frame to send.
    active: u32,
    /// Frames offered and not yet settled, by port-wide frame number.
    frames: HashMap<u32, Frame>,
    next_frame: u32,
    /// The first slot not processed yet.
    next_slot: u64,
    /// The slot a tick is scheduled for, if any.
    tick_at: Option<u64>,
    arrivals: Vec<Cell>,
    rng: Rng,
    settled: Vec<Settled>,
    /// Bytes of the packets offered and not yet settled.
    pending_bytes: u64,
    /// Sum over the processed slots of the switch queue after the slot's arrivals (idle
    /// slots add 0): the numerator of the per-slot mean queue length.
    queue_sum: u64,
    /// [`Output::PerVc`]: the cells emitted in the last slot, leaving in this one.
    through: Vec<Cell>,
    /// [`Output::PerVc`]: the counters (cells arrived and sent; nothing is dropped).
    direct: SwitchStats,
    /// When in its slot the port runs the slot: slot `s` at `s × slot + phase` (0 by default;
    /// [`CellPort::set_phase`]).
    phase: Dur,
    /// Statistics kept on request ([`CellPort::keep_statistics`]).
    extra: Option<Box<Extra>>,
}

/// The switch statistics the study reads beyond the counters: idle intervals and the largest
/// queue per trace bin (the study's `idle_gaps` and trace `q_max`).
#[derive(Clone, Debug, Default)]
struct Extra {
    /// Idle intervals of at least this many slots are recorded.
    gap_min: u64,
    /// The last slot with a cell arriving or queued after the slot's arrivals.
    last_busy: Option<u64>,
    gaps: Vec<u64>,
    /// Bin width, slots (0: no peaks), and the slots covered.
    bin: u64,
    bin_slots: u64,
    peaks: Vec<u32>,
}

impl CellPort {
    /// An idle port; `rng` orders same-slot arrivals.
    pub fn new(cfg: CellLinkConfig, rng: Rng) -> CellPort {
        CellPort {
            sw: CellSwitch::new(cfg.switch),
            cfg,
            vc_of: HashMap::new(),
            adapters: Vec::new(),
            active: 0,
            frames: HashMap::new(),
            next_frame: 0,
            next_slot: 0,
            tick_at: None,
            arrivals: Vec::new(),
            rng,
            settled: Vec::new(),
            pending_bytes: 0,
            queue_sum: 0,
            through: Vec::new(),
            direct: SwitchStats::default(),
            phase: Dur::ZERO,
            extra: None,
        }
    }

    /// Keeps, from now on, the lengths of the switch's idle intervals (no cell arriving or
    /// queued after a slot's arrivals) of at least `gap_min` slots (0: none), an interval
    /// being recorded when the slot that ends it comes (as the study's former engine did), and the largest
    /// queue (after each slot's arrivals) in each bin of `bin` slots over the first
    /// `bin_slots` slots (`bin` = 0: none).
    pub fn keep_statistics(&mut self, gap_min: u64, bin: u64, bin_slots: u64) {
        self.extra = Some(Box::new(Extra {
            gap_min,
            bin,
            bin_slots,
            peaks: if bin > 0 {
                vec![0; bin_slots.div_ceil(bin) as usize]
            } else {
                Vec::new()
            },
            ..Extra::default()
        }));
    }

    /// The idle intervals recorded ([`CellPort::keep_statistics`]), in order.
    pub fn idle_gaps(&self) -> &[u64] {
        self.extra.as_ref().map_or(&[], |e| &e.gaps)
    }

    /// The largest queue per bin ([`CellPort::keep_statistics`]).
    pub fn bin_peaks(&self) -> &[u32] {
        self.extra.as_ref().map_or(&[], |e| &e.peaks)
    }

    /// Runs slot `s` at `s × slot + phase` instead of at the slot's start. With a phase, a
    /// packet offered exactly at a slot's start has its first cell in that slot (the slot has
    /// not run yet), and what the slot settles reaches the far end `phase` after the slot's
    /// start: the world's slotted time base (`world/slotted.rs`) runs every port 1 ns into the
    /// slot, after the endpoints and processing servers that act at the slot's start, as in
    /// spec 1 §2.1 (endpoints, then cells). Set before the first offer.
    pub fn set_phase(&mut self, phase: Dur) {
        debug_assert!(phase < self.cfg.slot, "the phase lies inside the slot");
        self.phase = phase;
    }

    /// The port's phase ([`CellPort::set_phase`]).
    pub fn phase(&self) -> Dur {
        self.phase
    }

    /// The configuration.
    pub fn config(&self) -> &CellLinkConfig {
        &self.cfg
    }

    /// The switch counters (cells by drop cause, useless cells, largest queue).
    pub fn switch_stats(&self) -> &SwitchStats {
        match self.cfg.output {
            Output::Switch => self.sw.stats(),
            Output::PerVc => &self.direct,
        }
    }

    /// Cells in the switch now (per VC: the cells leaving in the next slot).
    pub fn queued_cells(&self) -> u32 {
        self.sw.len() + self.through.len() as u32
    }

    /// VCs opened so far (one per flow that used the direction).
    pub fn vcs(&self) -> usize {
        self.adapters.len()
    }

    /// Packets offered and not yet settled.
    pub fn pending(&self) -> u64 {
        self.frames.len() as u64
    }

    /// Bytes of the packets offered and not yet settled.
    pub fn pending_bytes(&self) -> u64 {
        self.pending_bytes
    }

    /// The switch queue length summed over every slot processed so far, read after each
    /// slot's arrivals (spec 1 §2.3's per-slot queue length; idle slots count 0).
    pub fn queue_sum(&self) -> u64 {
        self.queue_sum
    }

    /// Slots in `[0, end)`: the denominator of per-slot means over a run that ends at `end`.
    pub fn slots_until(&self, end: Time) -> u64 {
        end.as_nanos() / self.cfg.slot.as_nanos()
    }

    /// The mean switch queue per slot over `[0, end)`, cells.
    pub fn mean_queue(&self, end: Time) -> f64 {
        let slots = self.slots_until(end);
        if slots == 0 {
            0.0
        } else {
            self.queue_sum as f64 / slots as f64
        }
    }

    /// Cells sent by the switch output per slot over `[0, end)` (spec 1 §4's load).
    pub fn load(&self, end: Time) -> f64 {
        let slots = self.slots_until(end);
        if slots == 0 {
            0.0
        } else {
            self.switch_stats().sent as f64 / slots as f64
        }
    }

    fn busy(&self) -> bool {
        self.active > 0 || !self.sw.is_empty() || !self.through.is_empty()
    }

    /// How many slots have run by `t`: those whose instant `s × slot + phase` is at or
    /// before `t`.
    fn slots_due(&self, t: Time) -> u64 {
        match t.as_nanos().checked_sub(self.run_offset().as_nanos()) {
            Some(x) => x / self.cfg.slot.as_nanos() + 1,
            None => 0,
        }
    }

    /// The instant slot `s` runs at.
    fn slot_instant(&self, s: u64) -> Time {
        Time::from_nanos(s * self.cfg.slot.as_nanos() + self.run_offset().as_nanos())
    }

    /// How far into its slot the port runs the slot: the phase; with a phase, a path per VC
    /// runs at the slot's last nanosecond instead (nothing contends there, so everything
    /// handed to it during the slot joins the slot, and each frame is settled a slot ahead,
    /// when its last cell is emitted: [`CellPort::process_per_vc`]).
    fn run_offset(&self) -> Dur {
        if self.phase > Dur::ZERO && self.cfg.output == Output::PerVc {
            Dur(self.cfg.slot.as_nanos() - 1)
        } else {
            self.phase
        }
    }

    /// The start of slot `s`.
    pub fn slot_start(&self, s: u64) -> Time {
        Time::from_nanos(s * self.cfg.slot.as_nanos())
    }

    /// Offers packet `pkt` (arena id) of `size` bytes of flow `flow` at `now`: its frame joins
    /// its VC's adapter. Call [`CellPort::advance`] with `now` first.
    pub fn offer(&mut self, now: Time, pkt: u32, flow: FlowId, size: u32) {
        debug_assert!(self.next_slot >= self.slots_due(now) || !self.busy());
        if !self.busy() {
            // Idle slots need no processing: the frame's first cell is in the first slot
            // that has not run (with no phase, the slot after the one `now` lies in).
            self.next_slot = self.next_slot.max(self.slots_due(now));
        }
        let vci = match self.vc_of.get(&flow) {
            Some(&v) => v,
            None => {
                let v = u16::try_from(self.adapters.len()).expect("at most 65,536 VCs");
                while self.sw.config().vcs <= v {
                    self.sw.add_vc();
                }
                self.vc_of.insert(flow, v);
                self.adapters.push(Adapter::default());
                v
            }
        };
        let cells = u16::try_from(cells_for(size)).expect("a frame fits in 65,535 cells");
        let f = self.next_frame;
        self.next_frame = self.next_frame.wrapping_add(1);
        self.frames.insert(
            f,
            Frame {
                pkt,
                bytes: size,
                cells,
                lost: false,
            },
        );
        self.pending_bytes += size as u64;
        let a = &mut self.adapters[vci as usize];
        if a.frames.is_empty() {
            self.active += 1;
        }
        a.frames.push_back((f, cells));
    }

    /// Processes every slot whose instant (its start, plus the phase) is at or before `now`
    /// (only busy ones do anything).
    pub fn advance(&mut self, now: Time) {
        let due = self.slots_due(now);
        while self.next_slot < due {
            if !self.busy() {
                self.next_slot = due;
                break;
            }
            let s = self.next_slot;
            self.process(s);
            self.next_slot = s + 1;
        }
    }

    /// When the world should call [`CellPort::advance`] next (the start of the next busy
    /// slot), if it has not been asked already.
    pub fn next_tick(&mut self) -> Option<Time> {
        if !self.busy() || self.tick_at == Some(self.next_slot) {
            return None;
        }
        self.tick_at = Some(self.next_slot);
        Some(self.slot_instant(self.next_slot))
    }

    /// The start of the next slot with work, whether or not a tick was asked for it.
    pub fn next_busy_slot(&self) -> Option<Time> {
        self.busy().then(|| self.slot_instant(self.next_slot))
    }

    /// Takes what was settled since the last call (in slot order).
    pub fn take_settled(&mut self, into: &mut Vec<Settled>) {
        into.append(&mut self.settled);
    }

    fn process(&mut self, s: u64) {
        // (1) The adapters emit.
        self.arrivals.clear();
        for (v, a) in self.adapters.iter_mut().enumerate() {
            let Some(&(f, cells)) = a.frames.front() else {
                continue;
            };
            let eof = a.next_cell + 1 == cells;
            self.arrivals.push(Cell {
                vci: Vci(v as u16),
                frame: f,
                eof,
                cells,
            });
            a.next_cell += 1;
            if eof {
                a.next_cell = 0;
                a.frames.pop_front();
                if a.frames.is_empty() {
                    self.active -= 1;
                }
            }
        }
        if self.cfg.output == Output::PerVc {
            return self.process_per_vc(s);
        }
        // (2) The output sends its head cell.
        if let Some(c) = self.sw.depart() {
            if c.eof {
                let fr = self
                    .frames
                    .remove(&c.frame)
                    .expect("a queued frame is pending");
                self.pending_bytes -= fr.bytes as u64;
                self.settled.push(if fr.lost {
                    Settled::Lost { pkt: fr.pkt }
                } else {
                    Settled::Sent {
                        pkt: fr.pkt,
                        slot: s,
                        cells: fr.cells as u32,
                    }
                });
            }
        }
        // (3) This slot's cells reach the queue.
        if self.cfg.order == ArrivalOrder::Random && self.arrivals.len() > 1 {
            shuffle(&mut self.arrivals, &mut self.rng);
        }
        for k in 0..self.arrivals.len() {
            let c = self.arrivals[k];
            if let Verdict::Dropped(_) = self.sw.arrive(c) {
                let fr = self
                    .frames
                    .get_mut(&c.frame)
                    .expect("an arriving frame is pending");
                fr.lost = true;
                if c.eof {
                    let fr = self.frames.remove(&c.frame).expect("pending");
                    self.pending_bytes -= fr.bytes as u64;
                    self.settled.push(Settled::Lost { pkt: fr.pkt });
                }
            }
        }
        self.queue_sum += self.sw.len() as u64;
        if let Some(x) = self.extra.as_deref_mut() {
            let q = self.sw.len();
            if !self.arrivals.is_empty() || q > 0 {
                let from = x.last_busy.map_or(0, |b| b + 1);
                if x.gap_min > 0 && s - from >= x.gap_min {
                    x.gaps.push(s - from);
                }
                x.last_busy = Some(s);
            }
            if x.bin > 0 && s < x.bin_slots {
                let p = &mut x.peaks[(s / x.bin) as usize];
                *p = (*p).max(q);
            }
        }
    }

    /// Steps (2) and (3) of [`CellPort::process`] with a path per VC: last slot's cells leave
    /// (a frame whose end-of-frame cell leaves is sent), this slot's cells take their place.
    fn process_per_vc(&mut self, s: u64) {
        // With a phase the port runs at the slot's end and settles a frame when its last cell
        // is emitted, with the slot that cell leaves in (`run_offset`).
        let early = self.phase > Dur::ZERO;
        for c in self.through.drain(..) {
            self.direct.sent += 1;
            if c.eof && !early {
                let fr = self
                    .frames
                    .remove(&c.frame)
                    .expect("a frame in transit is pending");
                self.pending_bytes -= fr.bytes as u64;
                self.settled.push(Settled::Sent {
                    pkt: fr.pkt,
                    slot: s,
                    cells: fr.cells as u32,
                });
            }
        }
        self.direct.arrived += self.arrivals.len() as u64;
        if early {
            for c in &self.arrivals {
                if c.eof {
                    let fr = self
                        .frames
                        .remove(&c.frame)
                        .expect("an emitted frame is pending");
                    self.pending_bytes -= fr.bytes as u64;
                    self.settled.push(Settled::Sent {
                        pkt: fr.pkt,
                        slot: s + 1,
                        cells: fr.cells as u32,
                    });
                }
            }
        }
        self.through.extend_from_slice(&self.arrivals);
        let n = self.through.len() as u32;
        self.direct.max_queue = self.direct.max_queue.max(n);
        self.queue_sum += n as u64;
    }
}

/// The port as `net` drives it: a direction in `TransmitterMode::Slotted` (net's
/// [`SlottedPort`] seam, so that `net` does not depend on `atm`).
impl SlottedPort for CellPort {
    fn slot(&self) -> Dur {
        self.config().slot
    }
    fn offer(&mut self, now: Time, pkt: u32, flow: FlowId, size: u32) {
        CellPort::offer(self, now, pkt, flow, size)
    }
    fn advance(&mut self, now: Time) {
        CellPort::advance(self, now)
    }
    fn next_tick(&mut self) -> Option<Time> {
        CellPort::next_tick(self)
    }
    fn take_settled(&mut self, into: &mut Vec<Settled>) {
        CellPort::take_settled(self, into)
    }
    fn pending(&self) -> u64 {
        CellPort::pending(self)
    }
    fn pending_bytes(&self) -> u64 {
        CellPort::pending_bytes(self)
    }
    fn load(&self, end: Time) -> f64 {
        CellPort::load(self, end)
    }
    fn set_phase(&mut self, phase: Dur) {
        CellPort::set_phase(self, phase)
    }
    fn phase(&self) -> Dur {
        CellPort::phase(self)
    }
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl CellPort {
    /// The cell port of direction `e`, if it is a cell link.
    pub fn of(e: &Egress) -> Option<&CellPort> {
        e.cells().and_then(|p| p.as_any().downcast_ref())
    }
}

/// Shuffles one slot's arrivals with the port's stream (Fisher-Yates, from the last cell
/// down; spec 1 §2.1's same-slot order, as YATS draws it).
fn shuffle(cells: &mut [Cell], rng: &mut Rng) {
    for k in (1..cells.len()).rev() {
        let j = rng.below(k as u64 + 1) as usize;
        cells.swap(k, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atm::switch::Discard;

    fn port(buffer: u32, discard: Discard, order: ArrivalOrder) -> CellPort {
        CellPort::new(
            CellLinkConfig {
                slot: Dur::from_micros(20),
                switch: SwitchConfig {
                    buffer,
                    discard,
                    vcs: 1,
                },
                order,
                output: Output::Switch,
            },
            Rng::from_seed(7),
        )
    }

    fn run_to(p: &mut CellPort, until: Time) -> Vec<Settled> {
        let mut out = Vec::new();
        while let Some(t) = p.next_busy_slot() {
            if t > until {
                break;
            }
            p.advance(t);
        }
        p.take_settled(&mut out);
        out
    }

    /// One frame of 3 cells (100 B + 8 B trailer) offered mid-slot 0: cells enter in slots
    /// 1, 2, 3 and leave one slot later; the end-of-frame cell leaves in slot 4.
    #[test]
    fn one_frame_leaves_when_its_last_cell_does() {
        let mut p = port(10, Discard::Plain, ArrivalOrder::Port);
        p.advance(Time::from_micros(5));
        p.offer(Time::from_micros(5), 42, FlowId(0), 100);
        assert_eq!(p.next_tick(), Some(Time::from_micros(20)));
        let out = run_to(&mut p, Time::from_millis(1000));
        assert_eq!(
            out,
            vec![Settled::Sent {
                pkt: 42,
                slot: 4,
                cells: 3
            }]
        );
        assert_eq!(p.pending(), 0);
        assert_eq!(p.switch_stats().sent, 3);
        assert_eq!(p.next_tick(), None, "idle: no more ticks");
    }

    /// Spec 1 §2.1: the cells reaching the switch in one slot are queued in an order drawn from
    /// the port's seeded stream (`ArrivalOrder::Random`), in VC order with `Port`. Three
    /// one-cell frames (40 B + 8 B trailer) on three VCs offered at 0 enter together in slot 1
    /// and leave one per slot in slots 2-4 in the drawn order: over 600 seeds every one of the
    /// 3! orders occurs, each VC first about a third of the time; the same seed gives the same
    /// order; port order is always VC order. (Until commit ff13d99 the study's former engine
    /// `atm/sim.rs` had this test for its own shuffle.)
    #[test]
    fn same_slot_arrivals_in_a_seeded_random_order() {
        let order = |seed: u64, order: ArrivalOrder| -> Vec<u32> {
            let mut p = port(10, Discard::Plain, order);
            p.rng = Rng::from_seed(seed);
            for pkt in 0..3 {
                p.offer(Time::ZERO, pkt, FlowId(pkt), 40);
            }
            let mut out = run_to(&mut p, Time::from_millis(1));
            out.sort_by_key(|s| match s {
                Settled::Sent { slot, .. } => *slot,
                Settled::Lost { .. } => u64::MAX,
            });
            out.iter()
                .map(|s| match s {
                    Settled::Sent { pkt, slot, cells } => {
                        assert_eq!(*cells, 1);
                        assert!((2..=4).contains(slot), "slot {slot}");
                        *pkt
                    }
                    Settled::Lost { .. } => panic!("nothing is lost"),
                })
                .collect()
        };
        let orders: Vec<Vec<u32>> = (0..600).map(|s| order(s, ArrivalOrder::Random)).collect();
        assert_eq!(orders[5], order(5, ArrivalOrder::Random), "seeded");
        let mut distinct = orders.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 6, "all 3! orders occur");
        let first0 = orders.iter().filter(|o| o[0] == 0).count();
        assert!((150..250).contains(&first0), "about a third: {first0}");
        assert!((0..20).all(|s| order(s, ArrivalOrder::Port) == vec![0, 1, 2]));
    }

    /// spec 1 §3.1's ACK path, "separate, uncongested, 1 cell/slot" ([`Output::PerVc`]): the
    /// case above that loses VC 1's frame on a shared output of B = 1 loses nothing per VC.
    /// Two 3-cell frames on VC 0 and one on VC 1, all offered at 0: each VC emits one cell per
    /// slot (VC 0 in slots 1-6, VC 1 in slots 1-3) and every cell leaves the next slot, so VC
    /// 1's frame and VC 0's first leave in slot 4, VC 0's second in slot 7; 9 cells arrive
    /// and leave, none dropped; cells in transit after each slot: 2, 2, 2, 1, 1, 1.
    #[test]
    fn per_vc_paths_carry_every_cell_one_slot_later() {
        let mut p = port(1, Discard::Plain, ArrivalOrder::Random);
        p.cfg.output = Output::PerVc;
        p.offer(Time::ZERO, 1, FlowId(0), 100);
        p.offer(Time::ZERO, 2, FlowId(1), 100);
        p.offer(Time::ZERO, 3, FlowId(0), 100);
        let out = run_to(&mut p, Time::from_millis(1000));
        let sent = |pkt, slot| Settled::Sent {
            pkt,
            slot,
            cells: 3,
        };
        assert_eq!(out, vec![sent(1, 4), sent(2, 4), sent(3, 7)]);
        let st = *p.switch_stats();
        assert_eq!((st.arrived, st.sent, st.dropped()), (9, 9, 0));
        assert_eq!((st.max_queue, p.queue_sum()), (2, 9));
        assert_eq!(p.load(Time::from_micros(20 * 8)), 9.0 / 8.0);
        assert_eq!(
            (p.pending(), p.pending_bytes(), p.next_tick()),
            (0, 0, None)
        );
    }

    /// Two VCs interleave cell by cell; with B = 1 and plain discard, port order, the second
    /// VC's cells find the queue full in every slot (the first VC's cell arrived first), so
    /// its frame is lost while the first one goes through.
    #[test]
    fn interleaved_vcs_share_the_buffer_and_a_damaged_frame_is_lost() {
        let mut p = port(1, Discard::Plain, ArrivalOrder::Port);
        p.offer(Time::ZERO, 1, FlowId(0), 100);
        p.offer(Time::ZERO, 2, FlowId(1), 100);
        assert_eq!((p.pending(), p.pending_bytes()), (2, 200));
        let out = run_to(&mut p, Time::from_millis(1000));
        // Queue after each slot's arrivals: 1, 1, 1 (slots 1-3), then 0 (slot 4).
        assert_eq!(p.queue_sum(), 3);
        assert_eq!(p.mean_queue(Time::from_micros(100)), 3.0 / 5.0);
        assert_eq!(p.load(Time::from_micros(100)), 3.0 / 5.0);
        assert_eq!(p.pending_bytes(), 0);
        assert!(out.contains(&Settled::Lost { pkt: 2 }));
        assert!(out.contains(&Settled::Sent {
            pkt: 1,
            slot: 4,
            cells: 3
        }));
        let st = p.switch_stats();
        assert_eq!((st.arrived, st.sent, st.overflow), (6, 3, 3));
        assert_eq!(p.pending(), 0);
    }

    /// EPD refuses a whole frame whose first cell finds Q >= T; the refused frame is settled
    /// as lost when its end-of-frame cell is refused, and never puts a cell in the queue.
    #[test]
    fn epd_refusal_settles_the_frame_as_lost() {
        let mut p = port(
            8,
            Discard::Epd {
                threshold: 1,
                keep_eof: false,
            },
            ArrivalOrder::Port,
        );
        // VC 0 sends 4 cells (150 B + 8 → 4 cells) from slot 1; VC 1's frame starts in slot 2
        // when VC 0's first cell is queued (Q = 1 >= T = 1 at its first cell).
        p.offer(Time::ZERO, 1, FlowId(0), 150);
        p.advance(Time::from_micros(20));
        p.offer(Time::from_micros(20), 2, FlowId(1), 40);
        let out = run_to(&mut p, Time::from_millis(1000));
        assert_eq!(out[0], Settled::Lost { pkt: 2 });
        assert!(out.contains(&Settled::Sent {
            pkt: 1,
            slot: 5,
            cells: 4
        }));
        assert_eq!(p.switch_stats().epd_refusal, 1);
    }

    /// Frames of one VC leave the adapter back to back.
    #[test]
    fn frames_of_one_vc_are_back_to_back() {
        let mut p = port(100, Discard::Plain, ArrivalOrder::Random);
        p.offer(Time::ZERO, 1, FlowId(3), 40); // 1 cell: slot 1, leaves in slot 2
        p.offer(Time::ZERO, 2, FlowId(3), 100); // 3 cells: slots 2-4, last leaves in slot 5
        let out = run_to(&mut p, Time::from_millis(1000));
        assert_eq!(
            out,
            vec![
                Settled::Sent {
                    pkt: 1,
                    slot: 2,
                    cells: 1
                },
                Settled::Sent {
                    pkt: 2,
                    slot: 5,
                    cells: 3
                }
            ]
        );
        assert_eq!(p.vcs(), 1);
    }

    /// Spec §2.1: at most one cell per link per slot. Three VCs offer frames of random sizes
    /// at random times into a small EPD switch; slot by slot, each VC's adapter puts at most
    /// one cell into the switch, the output sends at most one, a queued cell leaves no earlier
    /// than the slot after it arrived (the output is busy in every slot while cells are
    /// queued), and every offered packet is settled exactly once, cells conserved.
    #[test]
    fn at_most_one_cell_per_link_per_slot_and_every_packet_settles_once() {
        let mut p = port(
            60,
            Discard::Epd {
                threshold: 30,
                keep_eof: false,
            },
            ArrivalOrder::Random,
        );
        let mut rng = Rng::from_seed(11);
        let mut offered = 0u32;
        let mut settled = Vec::new();
        let (mut prev_arrived, mut prev_sent, mut prev_queued) = (0u64, 0u64, 0u32);
        for s in 0..20_000u64 {
            let now = p.slot_start(s);
            p.advance(now);
            let st = *p.switch_stats();
            let arrived = st.arrived - prev_arrived;
            let sent = st.sent - prev_sent;
            assert!(arrived <= 3, "slot {s}: {arrived} cells from 3 adapters");
            assert!(sent <= 1, "slot {s}: {sent} cells out");
            // Cells queued at the end of the previous slot: the output sends one now.
            assert_eq!(
                sent,
                u64::from(prev_queued > 0),
                "slot {s}: queued {prev_queued}"
            );
            assert_eq!(st.arrived, st.sent + st.dropped() + p.queued_cells() as u64);
            (prev_arrived, prev_sent) = (st.arrived, st.sent);
            prev_queued = p.queued_cells();
            if s < 15_000 && rng.below(40) == 0 {
                let at = now + Dur::from_micros(rng.below(20));
                p.advance(at);
                p.offer(
                    at,
                    offered,
                    FlowId(rng.below(3) as u32),
                    40 + rng.below(2000) as u32,
                );
                offered += 1;
            }
            p.take_settled(&mut settled);
        }
        assert!(p.switch_stats().dropped() > 0, "the run must overflow");
        let mut ids: Vec<u32> = settled
            .iter()
            .map(|s| match s {
                Settled::Sent { pkt, .. } | Settled::Lost { pkt } => *pkt,
            })
            .collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..offered).collect::<Vec<_>>());
        assert_eq!(p.pending(), 0);
    }
}
