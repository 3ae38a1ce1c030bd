//! The output-buffered cell switch of spec §2.3: N inputs feed one FIFO output queue of B
//! cells that sends one cell per slot; the discard policy decides which arriving cells are
//! admitted. The switch sees frame boundaries as a real one does, from the end-of-frame bit
//! of each VC's cells: the cell after an end-of-frame cell (or a VC's first cell) starts a
//! frame.
//!
//! Policies ([`Discard`]):
//! - `Plain`: a cell is dropped only when the queue holds B cells (cause `Overflow`); later
//!   cells of the same frame are admitted as room appears.
//! - `Ppd` (partial packet discard): as plain until a cell of a frame is dropped; every later
//!   cell of that frame on that VC is then dropped (cause `PpdTail`) even if there is room.
//!   The end-of-frame cell is dropped too unless `keep_eof` (spec §6 Q6: YATS drops it, the
//!   ATM Forum keeps it so the receiver can delimit frames; a kept end-of-frame cell still
//!   needs room, and is an overflow drop without it). The next frame is judged afresh.
//! - `Epd` (early packet discard, Romanow & Floyd): at the first cell of a frame, if the queue
//!   holds Q >= T cells, the whole frame is refused (cause `EpdRefusal`, end-of-frame cell
//!   included); otherwise it is admitted and an overflow later in it is handled as PPD.
//!
//! Counters ([`SwitchStats`]) split drops by cause and count "useless" cells: cells admitted
//! to the output that belong to frames that lost a cell here, which the receiver will throw
//! away. Identity (debug-asserted after every call): arrived = sent + dropped (all causes) +
//! queued.

use super::cell::Cell;

/// The discard policy of the switch output (spec §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discard {
    /// Per-cell tail drop.
    Plain,
    /// Partial packet discard.
    Ppd {
        /// Admit the end-of-frame cell of a damaged frame (ATM Forum) instead of dropping it
        /// (YATS, the default in spec §6 Q6).
        keep_eof: bool,
    },
    /// Early packet discard with threshold `threshold` cells, PPD after an overflow.
    Epd {
        /// T: a frame whose first cell finds Q >= T is refused.
        threshold: u32,
        /// As in `Ppd`, for frames damaged after admission.
        keep_eof: bool,
    },
    /// A packet switch emulated on the cell grid (study 1's Fig. 1 reference, spec §2.7):
    /// whole packets are admitted or dropped. At a frame's first cell the switch reserves
    /// room for all of its cells (it knows the packet's length at its head, as a
    /// store-and-forward router does); a frame that does not fit in B − Q − reserved is
    /// dropped whole (cause `Overflow`). No frame is ever damaged by a partial drop.
    Packet,
}

impl Discard {
    /// The policy's name as scenarios and reports write it.
    pub fn name(&self) -> &'static str {
        match self {
            Discard::Plain => "plain",
            Discard::Ppd { .. } => "ppd",
            Discard::Epd { .. } => "epd",
            Discard::Packet => "packet",
        }
    }
}

/// Configuration of a switch output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwitchConfig {
    /// B, the output queue's capacity in cells.
    pub buffer: u32,
    /// The discard policy.
    pub discard: Discard,
    /// Number of VCs (their VCIs are 0..vcs).
    pub vcs: u16,
}

impl SwitchConfig {
    /// Checks the values; the error names the key and says what was expected.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.buffer == 0 {
            return Err(("buffer", "expected at least 1 cell".into()));
        }
        if let Discard::Epd { threshold, .. } = self.discard {
            if threshold == 0 || threshold >= self.buffer {
                return Err((
                    "epd_threshold",
                    format!(
                        "expected 1 <= T < B = {} cells, got {threshold}",
                        self.buffer
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Why a cell was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// The queue was full.
    Overflow,
    /// The rest of a frame that lost a cell (PPD).
    PpdTail,
    /// A whole frame refused at its first cell (EPD).
    EpdRefusal,
}

/// What became of an arriving cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Admitted to the output queue.
    Queued,
    /// Dropped.
    Dropped(DropCause),
}

/// Counters of a switch output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SwitchStats {
    /// Cells that arrived.
    pub arrived: u64,
    /// Cells sent on the output.
    pub sent: u64,
    /// Cells dropped because the queue was full.
    pub overflow: u64,
    /// Cells dropped as the tail of a damaged frame (PPD).
    pub ppd_tail: u64,
    /// Cells dropped with a frame refused at its first cell (EPD).
    pub epd_refusal: u64,
    /// Cells admitted that belong to frames that lost a cell here.
    pub useless: u64,
    /// Frames that lost at least one cell here (EPD refusals included).
    pub frames_damaged: u64,
    /// Largest queue length seen, cells.
    pub max_queue: u32,
}

impl SwitchStats {
    /// Cells dropped, all causes.
    pub fn dropped(&self) -> u64 {
        self.overflow + self.ppd_tail + self.epd_refusal
    }
}

/// What the switch does with the rest of a VC's current frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FrameFate {
    /// Admit cells while there is room.
    Admit,
    /// Drop the rest (PPD after a drop).
    PpdTail,
    /// Drop the rest (EPD refused the frame).
    Refused,
    /// Drop the rest (a packet switch found no room for the whole packet).
    NoRoom,
}

/// Per-VC frame state.
#[derive(Clone, Copy, Debug)]
struct VcState {
    /// The next cell of this VC starts a frame.
    at_frame_start: bool,
    fate: FrameFate,
    /// The current frame lost a cell.
    damaged: bool,
    /// Cells of the current frame admitted so far.
    admitted: u32,
}

impl VcState {
    const FRESH: VcState = VcState {
        at_frame_start: true,
        fate: FrameFate::Admit,
        damaged: false,
        admitted: 0,
    };
}

/// An output-buffered cell switch with one output.
#[derive(Clone, Debug)]
pub struct CellSwitch {
    cfg: SwitchConfig,
    /// The FIFO: a ring of capacity B.
    ring: Vec<Cell>,
    head: usize,
    len: usize,
    vcs: Vec<VcState>,
    /// Cells reserved for admitted frames not yet complete (`Discard::Packet`).
    reserved: u32,
    stats: SwitchStats,
}

impl CellSwitch {
    /// An empty switch (the one allocation: the ring of B cells and the VC table).
    pub fn new(cfg: SwitchConfig) -> CellSwitch {
        debug_assert!(cfg.validate().is_ok(), "{:?}", cfg.validate());
        let filler = Cell {
            vci: super::Vci(0),
            frame: 0,
            eof: false,
            cells: 0,
        };
        CellSwitch {
            ring: vec![filler; cfg.buffer as usize],
            head: 0,
            len: 0,
            vcs: vec![VcState::FRESH; cfg.vcs as usize],
            reserved: 0,
            cfg,
            stats: SwitchStats::default(),
        }
    }

    /// Opens one more VC (the next VCI, judged afresh at its first cell); a cell link
    /// (`atm::port`) opens one per flow as flows appear.
    pub fn add_vc(&mut self) -> super::Vci {
        let v = u16::try_from(self.vcs.len()).expect("at most 65,536 VCs");
        self.vcs.push(VcState::FRESH);
        self.cfg.vcs = self.cfg.vcs.max(v + 1);
        super::Vci(v)
    }

    /// Cells queued.
    #[inline]
    pub fn len(&self) -> u32 {
        self.len as u32
    }

    /// Whether the queue is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Counters.
    pub fn stats(&self) -> &SwitchStats {
        &self.stats
    }

    /// The configuration.
    pub fn config(&self) -> &SwitchConfig {
        &self.cfg
    }

    /// A cell arrives at the output: the policy admits or drops it.
    #[inline]
    pub fn arrive(&mut self, c: Cell) -> Verdict {
        self.stats.arrived += 1;
        let q = self.len as u32;
        let full = q >= self.cfg.buffer;
        let discard = self.cfg.discard;
        let vc = &mut self.vcs[c.vci.0 as usize];
        if vc.at_frame_start {
            vc.at_frame_start = false;
            vc.damaged = false;
            vc.admitted = 0;
            // spec §2.3 (EPD): the decision is taken on a frame's first cell from Q.
            vc.fate = match discard {
                Discard::Epd { threshold, .. } if q >= threshold => FrameFate::Refused,
                Discard::Packet => {
                    if q + self.reserved + c.cells as u32 > self.cfg.buffer {
                        FrameFate::NoRoom
                    } else {
                        self.reserved += c.cells as u32;
                        FrameFate::Admit
                    }
                }
                _ => FrameFate::Admit,
            };
        }
        let keep_eof = match discard {
            Discard::Plain | Discard::Packet => false,
            Discard::Ppd { keep_eof } | Discard::Epd { keep_eof, .. } => keep_eof,
        };
        let verdict = match vc.fate {
            FrameFate::Refused => Verdict::Dropped(DropCause::EpdRefusal),
            FrameFate::NoRoom => Verdict::Dropped(DropCause::Overflow),
            FrameFate::PpdTail if !(c.eof && keep_eof) => Verdict::Dropped(DropCause::PpdTail),
            FrameFate::Admit | FrameFate::PpdTail => {
                if full {
                    debug_assert!(discard != Discard::Packet, "room was reserved");
                    if !matches!(discard, Discard::Plain) {
                        vc.fate = FrameFate::PpdTail;
                    }
                    Verdict::Dropped(DropCause::Overflow)
                } else {
                    Verdict::Queued
                }
            }
        };
        match verdict {
            Verdict::Queued => {
                vc.admitted += 1;
                if discard == Discard::Packet {
                    self.reserved -= 1;
                }
                if vc.damaged {
                    self.stats.useless += 1;
                }
                let cap = self.ring.len();
                let mut i = self.head + self.len;
                if i >= cap {
                    i -= cap;
                }
                self.ring[i] = c;
                self.len += 1;
                self.stats.max_queue = self.stats.max_queue.max(self.len as u32);
            }
            Verdict::Dropped(cause) => {
                if !vc.damaged {
                    vc.damaged = true;
                    self.stats.frames_damaged += 1;
                    // Cells of this frame already admitted are now useless.
                    self.stats.useless += vc.admitted as u64;
                }
                match cause {
                    DropCause::Overflow => self.stats.overflow += 1,
                    DropCause::PpdTail => self.stats.ppd_tail += 1,
                    DropCause::EpdRefusal => self.stats.epd_refusal += 1,
                }
            }
        }
        if c.eof {
            vc.at_frame_start = true;
        }
        self.check_conservation();
        verdict
    }

    /// The output sends its head cell, if any.
    #[inline]
    pub fn depart(&mut self) -> Option<Cell> {
        if self.len == 0 {
            return None;
        }
        let c = self.ring[self.head];
        self.head += 1;
        if self.head == self.ring.len() {
            self.head = 0;
        }
        self.len -= 1;
        self.stats.sent += 1;
        self.check_conservation();
        Some(c)
    }

    #[inline]
    fn check_conservation(&self) {
        debug_assert_eq!(
            self.stats.arrived,
            self.stats.sent + self.stats.dropped() + self.len as u64,
            "cell conservation"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::aal5::segment;
    use super::super::cell::Vci;
    use super::*;

    fn sw(buffer: u32, discard: Discard) -> CellSwitch {
        CellSwitch::new(SwitchConfig {
            buffer,
            discard,
            vcs: 4,
        })
    }

    fn frame(vci: u16, f: u32, cells: u32) -> Vec<Cell> {
        // A frame of exactly `cells` cells: payload 48·cells − 8.
        segment(Vci(vci), f, cells * 48 - 8).collect()
    }

    /// Fills the queue with `n` cells of VC 3 (single-cell frames).
    fn fill(s: &mut CellSwitch, n: u32) {
        for i in 0..n {
            assert_eq!(s.arrive(frame(3, i, 1)[0]), Verdict::Queued);
        }
    }

    // spec §2.3 (plain): only cells meeting a full queue are dropped; later cells of the same
    // damaged frame are admitted, and all its admitted cells count as useless.
    #[test]
    fn plain_drops_only_at_full_queue() {
        let mut s = sw(4, Discard::Plain);
        fill(&mut s, 3);
        let f = frame(0, 0, 4);
        let v: Vec<_> = [f[0], f[1]].iter().map(|&c| s.arrive(c)).collect();
        assert_eq!(v, [Verdict::Queued, Verdict::Dropped(DropCause::Overflow)]);
        s.depart();
        s.depart();
        assert_eq!(s.arrive(f[2]), Verdict::Queued);
        assert_eq!(s.arrive(f[3]), Verdict::Queued);
        let st = *s.stats();
        assert_eq!((st.overflow, st.ppd_tail, st.useless), (1, 0, 3));
    }

    // spec §2.3 (PPD): after a drop, exactly the rest of that frame on that VC is dropped
    // (the end-of-frame cell too by default), even with room; another VC and the next frame
    // of this VC are judged afresh.
    #[test]
    fn ppd_drops_rest_of_frame_then_judges_next_afresh() {
        let mut s = sw(4, Discard::Ppd { keep_eof: false });
        fill(&mut s, 3);
        let f = frame(0, 0, 5);
        assert_eq!(s.arrive(f[0]), Verdict::Queued);
        assert_eq!(s.arrive(f[1]), Verdict::Dropped(DropCause::Overflow));
        while s.depart().is_some() {}
        // Other VC unaffected.
        assert_eq!(s.arrive(frame(1, 0, 1)[0]), Verdict::Queued);
        for &c in &f[2..] {
            assert_eq!(s.arrive(c), Verdict::Dropped(DropCause::PpdTail));
        }
        // Next frame on VC 0: admitted whole.
        for c in frame(0, 1, 3) {
            assert_eq!(s.arrive(c), Verdict::Queued);
        }
        let st = *s.stats();
        assert_eq!((st.overflow, st.ppd_tail, st.epd_refusal), (1, 3, 0));
        assert_eq!((st.useless, st.frames_damaged), (1, 1));
    }

    // spec §6 Q6: with keep_eof the end-of-frame cell of a damaged frame is admitted (ATM
    // Forum PPD) when there is room; it is useless.
    #[test]
    fn ppd_keep_eof_admits_end_of_frame() {
        let mut s = sw(4, Discard::Ppd { keep_eof: true });
        fill(&mut s, 4);
        let f = frame(0, 0, 3);
        assert_eq!(s.arrive(f[0]), Verdict::Dropped(DropCause::Overflow));
        s.depart();
        assert_eq!(s.arrive(f[1]), Verdict::Dropped(DropCause::PpdTail));
        assert_eq!(s.arrive(f[2]), Verdict::Queued, "end-of-frame kept");
        assert_eq!(s.stats().useless, 1);
        s.depart();
        assert_eq!(
            s.arrive(frame(0, 1, 1)[0]),
            Verdict::Queued,
            "next frame afresh"
        );
    }

    // spec §2.3 (EPD): a frame whose first cell finds Q >= T is refused whole, even if room
    // appears; with Q < T it is admitted, and never partially dropped below overflow.
    #[test]
    fn epd_refuses_whole_frame_at_threshold_admits_below() {
        let mut s = sw(
            10,
            Discard::Epd {
                threshold: 3,
                keep_eof: false,
            },
        );
        fill(&mut s, 3);
        let f = frame(0, 0, 4);
        assert_eq!(s.arrive(f[0]), Verdict::Dropped(DropCause::EpdRefusal));
        while s.depart().is_some() {}
        for &c in &f[1..] {
            assert_eq!(s.arrive(c), Verdict::Dropped(DropCause::EpdRefusal));
        }
        // Q = 0 < T: the next frame is admitted whole though it takes Q past T (up to 6 < B).
        fill(&mut s, 2);
        for c in frame(0, 1, 4) {
            assert_eq!(s.arrive(c), Verdict::Queued);
        }
        let st = *s.stats();
        assert_eq!((st.epd_refusal, st.overflow, st.ppd_tail), (4, 0, 0));
        assert_eq!((st.useless, st.frames_damaged), (0, 1));
    }

    // spec §2.3 (EPD): an admitted frame that meets a full buffer loses the rest by PPD.
    #[test]
    fn epd_admitted_frame_overflows_then_ppd() {
        let mut s = sw(
            4,
            Discard::Epd {
                threshold: 2,
                keep_eof: false,
            },
        );
        fill(&mut s, 1);
        let f = frame(0, 0, 5);
        let v: Vec<_> = f.iter().map(|&c| s.arrive(c)).collect();
        use DropCause::*;
        assert_eq!(
            v,
            [
                Verdict::Queued,
                Verdict::Queued,
                Verdict::Queued,
                Verdict::Dropped(Overflow),
                Verdict::Dropped(PpdTail)
            ]
        );
        assert_eq!(s.stats().useless, 3);
    }

    // spec §2.7 (packet-switch reference): a packet is admitted whole when all of its cells
    // fit beside the queue and the room reserved for other packets in progress, else dropped
    // whole; interleaved packets never lose part of themselves.
    #[test]
    fn packet_mode_whole_packets_only() {
        let mut s = sw(10, Discard::Packet);
        let (a, b) = (frame(0, 0, 6), frame(1, 0, 5));
        assert_eq!(s.arrive(a[0]), Verdict::Queued, "6 reserved");
        assert_eq!(
            s.arrive(b[0]),
            Verdict::Dropped(DropCause::Overflow),
            "1 + 5 + 5 > 10"
        );
        for &c in &a[1..] {
            assert_eq!(s.arrive(c), Verdict::Queued);
        }
        for &c in &b[1..] {
            assert_eq!(s.arrive(c), Verdict::Dropped(DropCause::Overflow));
        }
        let b2 = frame(1, 1, 4);
        for &c in &b2 {
            assert_eq!(s.arrive(c), Verdict::Queued, "6 + 4 = 10 fits");
        }
        assert_eq!((s.stats().useless, s.stats().overflow), (0, 5));
    }

    // spec §2.3 counters: arrived = sent + dropped by cause + queued, under random traffic of
    // every policy (the identity is also debug-asserted inside the switch on every call).
    #[test]
    fn cell_conservation_random_traffic() {
        use packetsim_kernel::rng::Rng;
        for discard in [
            Discard::Plain,
            Discard::Ppd { keep_eof: false },
            Discard::Ppd { keep_eof: true },
            Discard::Epd {
                threshold: 20,
                keep_eof: false,
            },
        ] {
            let mut s = sw(40, discard);
            let mut rng = Rng::from_seed(7);
            let mut next: [(u32, u32, u32); 4] = [(0, 0, 0); 4]; // (frame, index, len)
            for _ in 0..20_000 {
                for (v, st) in next.iter_mut().enumerate() {
                    if rng.bernoulli(0.4) {
                        if st.2 == 0 {
                            st.2 = 1 + rng.below(30) as u32;
                        }
                        let c = Cell {
                            vci: Vci(v as u16),
                            frame: st.0,
                            eof: st.1 + 1 == st.2,
                            cells: st.2 as u16,
                        };
                        s.arrive(c);
                        st.1 += 1;
                        if c.eof {
                            *st = (st.0 + 1, 0, 0);
                        }
                    }
                }
                s.depart();
            }
            let st = *s.stats();
            assert!(st.dropped() > 0, "{discard:?}: congested");
            assert_eq!(st.arrived, st.sent + st.dropped() + s.len() as u64);
            assert!(st.max_queue <= 40);
        }
    }
}
