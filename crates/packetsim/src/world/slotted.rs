//! The slotted time base (spec 1 §2.1, YATS): a property of the world, chosen once when it is
//! built (`[simulation] time_base = "slotted"`, the slot taken from the scenario's atm links;
//! [`World::set_slotted`]). The default, continuous, world keeps exact times and pays nothing
//! for this: the only test on its per-packet path sits where an endpoint's timer is scheduled
//! earlier than before, which few deliveries do.
//!
//! On the slot grid:
//! - **Timers**: an endpoint's deadline `x`, set at `now` in slot `t = floor(now / slot)`,
//!   falls due in slot `f = t + max(1, floor((x − now) / slot))` (YATS's conversion of a time
//!   to slots). The endpoint is driven in slot `f` with its clock at `x` when `x` lies inside
//!   that slot, else at the slot's start (then, if `x` is still ahead, its timer is put on
//!   the grid again from there), as the study's former engine `atm/sim.rs` (removed after ff13d99) did.
//! - **Processing ends** on slot boundaries ([`crate::net::processing::Processing::set_grid`]):
//!   `max(1, floor(d / slot))` slots after the slot processing starts in.
//! - **Same-slot arrivals** at a cell switch in an order drawn from the link's seeded stream
//!   (the cell port's `arrival_order = "random"`, its default).
//!
//! Within a slot, in this order (the order of the former engine, `atm/sim.rs`): at the slot's start, processing
//! servers release what they finished (a packet they hand to a cell link joins this slot);
//! 1 ns in, each cell link runs the slot (its cells are emitted, sent and queued), and the
//! packets whose last cell left reach the far end (an ACK reaching its sender); 2 ns in, the
//! endpoints' timers run. The nanoseconds are only an order: a processing server takes a
//! packet offered up to 2 ns into a slot as offered at its start
//! ([`crate::net::grid_instant`]), and a TCP clock read in whole milliseconds does not see
//! them.

use super::World;
use crate::net::processing::Processing;
use packetsim_kernel::{Dur, Time};

/// Cell links run each slot this far into it.
const CELL_PHASE: Dur = Dur(1);
/// Endpoint timers run this far into their slot (after the cells and what they delivered).
const TIMER_PHASE: Dur = Dur(2);

impl World {
    /// Puts the world on a slot grid of `slot` (see the module doc): every processing
    /// element's servers end on slot boundaries, every cell link runs its slots 1 ns in, and
    /// endpoint timers from now on fall due on the grid. Call once, after the flows are added
    /// and before the run.
    pub fn set_slotted(&mut self, slot: Dur) {
        assert!(
            slot > crate::net::GRID_PHASES,
            "a slot longer than the phases"
        );
        self.grid = Some(slot);
        for el in &mut self.elements {
            if let Some(p) = el
                .element
                .as_any_mut()
                .and_then(|a| a.downcast_mut::<Processing>())
            {
                p.set_grid(slot);
            }
        }
        for e in &mut self.net.egresses {
            if let Some(port) = e.cells_mut() {
                port.set_phase(CELL_PHASE);
            }
        }
    }

    /// The slot of a slotted world, `None` for a continuous one.
    pub fn slot_grid(&self) -> Option<Dur> {
        self.grid
    }
}

/// When an endpoint timer event for deadline `x`, set at `now`, runs in a world on a grid of
/// `slot` (the module doc's rule).
#[cold]
#[inline(never)]
pub(super) fn timer_event(slot: Dur, now: Time, x: Time) -> Time {
    let s = slot.as_nanos();
    let t = now.as_nanos() / s;
    let left = x.as_nanos().saturating_sub(now.as_nanos());
    let fire = (t + (left / s).max(1)) * s;
    let at = if x.as_nanos() > fire && x.as_nanos() < fire + s {
        x.as_nanos()
    } else {
        fire
    };
    Time::from_nanos(at.max(fire + TIMER_PHASE.as_nanos())).max(now)
}

#[cfg(test)]
mod tests {
    use super::timer_event;
    use packetsim_kernel::{Dur, Time};

    // spec 1 §2.1: a timer of t seconds is max(1, floor(t / slot)) slots; the endpoint runs in
    // that slot after its cells (2 ns in), at its exact deadline when that lies inside it.
    #[test]
    fn timers_fall_due_on_the_grid() {
        let slot = Dur::from_micros(20);
        let us = |u: u64| Time::from_nanos(u * 1000);
        let ns = |n: u64| Time::from_nanos(n);
        // On the grid: 450 ms = 22,500 slots, run 2 ns into the deadline's slot.
        assert_eq!(
            timer_event(slot, us(40), us(40) + Dur::from_millis(450)),
            us(450_040) + Dur(2)
        );
        // Set 1 ns into a slot (an ACK from a cell link): the same slot, clock at the deadline.
        let now = us(40) + Dur(1);
        assert_eq!(
            timer_event(slot, now, now + Dur::from_millis(100)),
            us(100_040) + Dur(2)
        );
        // 330 us from a slot start: floor(16.5) = 16 slots, the deadline inside slot 18.
        assert_eq!(timer_event(slot, us(40), us(370)), us(370));
        // 319 us: floor = 15 slots, ending at 340 us; the deadline 359 us is in that slot.
        assert_eq!(timer_event(slot, us(40), us(359)), us(359));
        // Less than a slot: the next slot (at least one).
        assert_eq!(timer_event(slot, us(40), us(50)), us(60) + Dur(2));
        assert_eq!(timer_event(slot, us(40), us(40)), us(60) + Dur(2));
        // Set off the grid (15 us into slot 2): floor((x - now) / slot) counted from slot 2's
        // start may fall a slot short of the deadline, which then lies a slot ahead: the
        // event is at that slot's start (2 ns in), where the timer is put on the grid again.
        // 105 us set at 55 us: 50 us = 2 slots from slot 2 is slot 4 (80 us), and 105 us lies
        // in slot 5.
        assert_eq!(timer_event(slot, us(55), us(105)), us(80) + Dur(2));
        assert_eq!(timer_event(slot, us(80) + Dur(2), us(105)), us(105));
        // 95 us set at 55 us lies inside slot 4: run at the deadline.
        assert_eq!(timer_event(slot, us(55), us(95)), us(95));
        // Never in the past.
        assert!(timer_event(slot, ns(7), ns(3)) >= ns(7));
    }
}
