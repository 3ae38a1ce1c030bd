//! Lazy timer cancellation. A component that wants a wake-up keeps a [`TimerSlot`]: arming it
//! bumps a generation counter and returns the generation to put in the scheduled event; when
//! the event fires, the component asks the slot whether that generation is still current.
//! Cancelling or re-arming never searches the heap: stale events are simply ignored at pop.

use crate::time::Time;

/// The generation a scheduled wake-up was armed with.
pub type Generation = u32;

/// One re-armable wake-up of a component.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimerSlot {
    generation: Generation,
    deadline: Option<Time>,
}

impl TimerSlot {
    /// The deadline currently armed, if any.
    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    /// Arms the slot for `at`, invalidating any earlier arming. Returns the generation to carry
    /// in the scheduled event.
    pub fn arm(&mut self, at: Time) -> Generation {
        self.generation = self.generation.wrapping_add(1);
        self.deadline = Some(at);
        self.generation
    }

    /// Cancels the slot: any pending event for it becomes stale.
    pub fn cancel(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        self.deadline = None;
    }

    /// Called when an event armed with `generation` fires: true (and the slot disarms) if it is
    /// the current arming, false if it was cancelled or superseded.
    pub fn fire(&mut self, generation: Generation) -> bool {
        if self.deadline.is_some() && generation == self.generation {
            self.deadline = None;
            true
        } else {
            false
        }
    }

    /// Whether an event is needed to reach `want`: returns `Some(generation)` to schedule when
    /// `want` differs from the armed deadline, `None` when the armed event already covers it.
    /// `want = None` cancels.
    pub fn retarget(&mut self, want: Option<Time>) -> Option<Generation> {
        match want {
            None => {
                if self.deadline.is_some() {
                    self.cancel();
                }
                None
            }
            Some(t) if self.deadline == Some(t) => None,
            Some(t) => Some(self.arm(t)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rearming_makes_the_old_event_stale() {
        let mut s = TimerSlot::default();
        let g1 = s.arm(Time(10));
        let g2 = s.arm(Time(20));
        assert!(!s.fire(g1));
        assert!(s.fire(g2));
        assert!(!s.fire(g2), "a fired slot is disarmed");
    }

    #[test]
    fn retarget_schedules_only_on_change() {
        let mut s = TimerSlot::default();
        let g = s.retarget(Some(Time(5))).expect("first arming schedules");
        assert_eq!(s.retarget(Some(Time(5))), None);
        assert_eq!(s.retarget(None), None);
        assert!(!s.fire(g), "cancelled");
    }
}
