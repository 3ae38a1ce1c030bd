//! The event queue: earliest time first, events due at the same instant in the order they were
//! scheduled (FIFO ties). That, with seeded RNG streams, makes every run bit-reproducible.
//!
//! # Design: a monotone multi-level radix heap on the integer time
//!
//! Simulated time never goes backwards: every event is scheduled at or after the time of the
//! event last popped (`last`). A radix heap uses that: no comparison-and-swap walk per pop,
//! as a binary heap has.
//!
//! Times are read as 6-bit digits (11 levels of 64 slots; level `l` is bits `6l..6l+6`). An
//! event due exactly at `last` goes to `due`; any other goes to level `l` = the highest digit
//! in which its time differs from `last`, slot = its own digit `l`. So level 0's slot `s`
//! holds only events due at `last` with its low digit replaced by `s`; a slot of a higher
//! level holds a range of times. Scheduling is a few bit operations and a push.
//!
//! Popping takes from the front of `due`. When `due` is empty, the lowest occupied slot of the
//! lowest occupied level (two `trailing_zeros`) holds the earliest events. If it holds one
//! (most pops on a network), that one is popped directly. Otherwise, on level 0 they all move
//! to `due`; on a higher level, the slot's earliest time becomes `last`, the events due then
//! move to `due` and the rest to lower levels (all of which are empty then). An event only
//! ever moves down, so at most 11 times; on the dumbbell most are filed once.
//!
//! FIFO ties need no sequence number: `due` and every slot list their events in scheduling
//! order. A schedule appends the newest event; emptying a slot moves its events, in order,
//! into `due` (empty then) or into lower slots (all empty then).
//!
//! With [`EventQueue::shuffle_ties`] (off by default), the events pending for one instant when
//! the clock reaches it run in an order drawn from a seeded stream instead (a Fisher-Yates
//! shuffle of the batch moved into `due`; all of them are in that batch, since the events due
//! at one time always share one slot). Events scheduled during that instant for that same
//! instant still run after the batch, in order. It stands in for a simulator with
//! floating-point time (ns-2), where two events that are simultaneous in exact arithmetic
//! come out a rounding error apart, in an order no model decides.
//!
//! `pop_until` with a horizon before the next event moves nothing, so events may still be
//! scheduled at any time from `now()` on afterwards.
//!
//! A plain radix heap (one bucket per bit: 65 buckets) was tried first: it moved each event
//! about 14 times on the dumbbell. The binary heap keyed on (time, sequence) that this
//! replaced is the reference in the kernel's criterion bench (`benches/event_queue.rs`), with
//! a 4-ary heap; the tests compare with a plain sort.

use crate::rng::Rng;
use crate::time::Time;
use std::collections::VecDeque;

/// Bits per digit.
const DIGIT: u32 = 6;
/// Slots per level.
const SLOTS: usize = 1 << DIGIT;
/// Levels: enough digits for 64 bits.
const LEVELS: usize = 64usize.div_ceil(DIGIT as usize);
/// Room for levels in the masks and slots: a power of two above `LEVELS`, so that an index
/// masked with `ROOM - 1` needs no bounds check (the levels from `LEVELS` on stay empty).
const ROOM: usize = LEVELS.next_power_of_two();
/// The level of each differing bit (`bit / DIGIT`), looked up instead of divided.
const LEVEL_OF_BIT: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut b = 0;
    while b < 64 {
        t[b] = (b / DIGIT as usize) as u8;
        b += 1;
    }
    t
};

/// The index in `slots` of (`level`, `slot`), in bounds by construction.
#[inline(always)]
fn index(level: usize, slot: usize) -> usize {
    ((level & (ROOM - 1)) << DIGIT) | (slot & (SLOTS - 1))
}

/// A priority queue of events of type `E`, earliest first, ties in scheduling order.
pub struct EventQueue<E> {
    /// Events due exactly at `last`, in scheduling order.
    due: VecDeque<E>,
    /// `slots[index(level, slot)]`, each in scheduling order.
    slots: Box<[Vec<(Time, E)>; ROOM * SLOTS]>,
    /// Per level, bit `slot` set when that slot is occupied.
    masks: [u64; ROOM],
    /// Bit `level` set when that level has an occupied slot.
    levels: u32,
    /// The reference time of the levels: no pending event is earlier.
    last: Time,
    len: usize,
    now: Time,
    popped: u64,
    /// Draws the order of simultaneous events ([`EventQueue::shuffle_ties`]); None: FIFO.
    shuffle: Option<Box<Rng>>,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

/// The (level, slot) of `time` relative to `last`, for `time != last`.
#[inline(always)]
fn place(time: Time, last: Time) -> (usize, usize) {
    let bit = 63 - (time.0 ^ last.0).leading_zeros();
    let level = LEVEL_OF_BIT[bit as usize & 63] as u32;
    let slot = (time.0 >> (level * DIGIT)) as usize & (SLOTS - 1);
    (level as usize, slot)
}

impl<E> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        EventQueue {
            due: VecDeque::with_capacity(64),
            slots: (0..ROOM * SLOTS)
                .map(|_| Vec::new())
                .collect::<Vec<_>>()
                .into_boxed_slice()
                .try_into()
                .unwrap_or_else(|_| unreachable!("ROOM * SLOTS slots")),
            masks: [0; ROOM],
            levels: 0,
            last: Time::ZERO,
            len: 0,
            now: Time::ZERO,
            popped: 0,
            shuffle: None,
        }
    }

    /// From now on, the events pending for one instant run in an order drawn from `rng`, not
    /// in scheduling order; events scheduled during an instant for that instant run after
    /// those pending when it began, in scheduling order (see the module doc).
    pub fn shuffle_ties(&mut self, rng: Rng) {
        self.shuffle = Some(Box::new(rng));
    }

    /// The time of the event most recently popped (the simulation clock).
    pub fn now(&self) -> Time {
        self.now
    }

    /// Files an event due after `last` into its slot.
    #[inline(always)]
    fn file(&mut self, time: Time, event: E) {
        let (level, slot) = place(time, self.last);
        self.masks[level & (ROOM - 1)] |= 1 << slot;
        self.levels |= 1 << level;
        self.slots[index(level, slot)].push((time, event));
    }

    /// Schedules `event` at `time`. Scheduling in the past is a bug in the caller.
    #[inline(always)]
    pub fn schedule(&mut self, time: Time, event: E) {
        debug_assert!(
            time >= self.now,
            "event scheduled in the past: {time} < {}",
            self.now
        );
        // `last` equals `now` between pops; a time before it would corrupt the levels, so
        // clamp in release builds.
        let time = time.max(self.last);
        self.len += 1;
        if time == self.last {
            self.due.push_back(event);
        } else {
            self.file(time, event);
        }
    }

    /// The lowest occupied (level, slot), if any.
    #[inline(always)]
    fn lowest(&self) -> Option<(usize, usize)> {
        if self.levels == 0 {
            return None;
        }
        let level = self.levels.trailing_zeros() as usize & (ROOM - 1);
        Some((level, self.masks[level].trailing_zeros() as usize))
    }

    /// The earliest time in a slot of level 1 or above.
    fn slot_min(&self, level: usize, slot: usize) -> Time {
        self.slots[index(level, slot)]
            .iter()
            .map(|&(t, _)| t)
            .min()
            .expect("an occupied slot is not empty")
    }

    /// The time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Time> {
        if !self.due.is_empty() {
            return Some(self.last);
        }
        let (level, slot) = self.lowest()?;
        Some(if level == 0 {
            Time((self.last.0 & !(SLOTS as u64 - 1)) | slot as u64)
        } else {
            self.slot_min(level, slot)
        })
    }

    /// Refills `due` from the lowest occupied slot if `due` is empty and that slot's earliest
    /// time is no later than `until`. Returns whether `due` is non-empty after.
    #[inline]
    fn refill(&mut self, until: Time) -> bool {
        if !self.due.is_empty() {
            return self.last <= until;
        }
        let Some((level, slot)) = self.lowest() else {
            return false;
        };
        let idx = index(level, slot);
        let min = if level == 0 {
            Time((self.last.0 & !(SLOTS as u64 - 1)) | slot as u64)
        } else {
            self.slot_min(level, slot)
        };
        if min > until {
            return false;
        }
        self.masks[level] &= !(1 << slot);
        if self.masks[level] == 0 {
            self.levels &= !(1 << level);
        }
        self.last = min;
        let mut events = std::mem::take(&mut self.slots[idx]);
        if level == 0 {
            self.due.extend(events.drain(..).map(|(_, e)| e));
        } else {
            for (t, e) in events.drain(..) {
                if t == min {
                    self.due.push_back(e);
                } else {
                    // Into a lower level: all empty, so order is kept.
                    self.file(t, e);
                }
            }
        }
        // Keep the emptied vector's allocation for the slot's next events.
        self.slots[idx] = events;
        if let Some(rng) = self.shuffle.as_deref_mut() {
            let batch = self.due.make_contiguous();
            for i in (1..batch.len()).rev() {
                batch.swap(i, rng.below(i as u64 + 1) as usize);
            }
        }
        true
    }

    /// Removes and returns the earliest event if it is due no later than `until`, advancing
    /// the clock to its time.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        if self.due.is_empty() {
            // The common case on a network: the earliest slot holds one event. Take it
            // directly (no other event is due at its time: it would be in the same slot).
            let (level, slot) = self.lowest()?;
            let events = &mut self.slots[index(level, slot)];
            if events.len() == 1 {
                let time = events[0].0;
                if time > until {
                    return None;
                }
                let (_, e) = events.pop().expect("one event");
                self.masks[level] &= !(1 << slot);
                if self.masks[level] == 0 {
                    self.levels &= !(1 << level);
                }
                self.last = time;
                self.len -= 1;
                self.now = time;
                self.popped += 1;
                return Some((time, e));
            }
        }
        if !self.refill(until) {
            return None;
        }
        let e = self.due.pop_front()?;
        self.len -= 1;
        self.now = self.last;
        self.popped += 1;
        Some((self.last, e))
    }

    /// Removes and returns the earliest event, advancing the clock to its time.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time::MAX)
    }

    /// The number of pending events.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of events popped so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ties_run_in_scheduling_order() {
        let mut q = EventQueue::new();
        q.schedule(Time(5), 'b');
        q.schedule(Time(1), 'a');
        q.schedule(Time(5), 'c');
        q.schedule(Time(5), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
        assert_eq!(q.now(), Time(5));
        assert_eq!(q.popped(), 4);
    }

    /// With `shuffle_ties`, simultaneous events come out in every order over seeds (each of
    /// the 6 orders of 3 events within 5% of 1/6 over 6000 seeds), time order is kept, and an
    /// event scheduled during the instant for the same instant runs after the others.
    #[test]
    fn shuffled_ties_take_every_order_and_keep_time_order() {
        let mut counts = std::collections::HashMap::new();
        for seed in 0..6000u64 {
            let mut q = EventQueue::new();
            q.shuffle_ties(crate::rng::Rng::from_seed(seed));
            q.schedule(Time(1), 'z');
            for e in ['a', 'b', 'c'] {
                q.schedule(Time(70), e);
            }
            q.schedule(Time(90), 'y');
            assert_eq!(q.pop(), Some((Time(1), 'z')));
            let mut order = String::new();
            for i in 0..3 {
                let (t, e) = q.pop().unwrap();
                assert_eq!(t, Time(70));
                order.push(e);
                if i == 0 {
                    q.schedule(Time(70), 'n');
                }
            }
            assert_eq!(
                q.pop(),
                Some((Time(70), 'n')),
                "scheduled during the instant: last"
            );
            assert_eq!(q.pop(), Some((Time(90), 'y')));
            *counts.entry(order).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), 6, "{counts:?}");
        for (o, n) in &counts {
            assert!((950..=1050).contains(n), "{o}: {n} of 6000");
        }
    }

    #[test]
    fn pop_until_stops_at_the_horizon() {
        let mut q = EventQueue::new();
        q.schedule(Time(10), 1);
        q.schedule(Time(20), 2);
        assert_eq!(q.pop_until(Time(15)), Some((Time(10), 1)));
        assert_eq!(q.pop_until(Time(15)), None);
        assert_eq!(q.len(), 1);
        // Still open for events between now and the next one.
        q.schedule(Time(12), 3);
        assert_eq!(q.peek_time(), Some(Time(12)));
        assert_eq!(q.pop(), Some((Time(12), 3)));
        assert_eq!(q.pop(), Some((Time(20), 2)));
        assert_eq!(q.pop(), None);
        assert!(q.is_empty());
    }

    #[test]
    fn extreme_times() {
        let mut q = EventQueue::new();
        q.schedule(Time::MAX, 2);
        q.schedule(Time(0), 0);
        q.schedule(Time(1 << 63), 1);
        q.schedule(Time::MAX, 3);
        let order: Vec<(Time, i32)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (Time(0), 0),
                (Time(1 << 63), 1),
                (Time::MAX, 2),
                (Time::MAX, 3)
            ]
        );
    }

    /// One step of a random schedule: schedule at now + delay, pop, or pop up to now + h.
    #[derive(Clone, Debug)]
    enum Op {
        Schedule(u64),
        Pop,
        PopUntil(u64),
    }

    fn op() -> impl Strategy<Value = Op> {
        // Small delays on a coarse grid give many ties; a few large ones spread the buckets.
        let delay = prop_oneof![
            4 => Just(0u64),
            6 => (0u64..8).prop_map(|k| k * 1000),
            3 => 0u64..5000,
            1 => 0u64..(1 << 40),
        ];
        prop_oneof![
            6 => delay.prop_map(Op::Schedule),
            4 => Just(Op::Pop),
            1 => (0u64..10_000).prop_map(Op::PopUntil),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        /// The queue pops in exactly the order of a reference sorted by (time, scheduling
        /// sequence), for random schedules interleaved with pops and horizons.
        #[test]
        fn pops_in_time_then_scheduling_order(ops in prop::collection::vec(op(), 1..400)) {
            let mut q = EventQueue::new();
            // Reference: pending (time, seq) pairs; the minimum is the next event.
            let mut reference: Vec<(u64, u64)> = Vec::new();
            let mut seq = 0u64;
            let check_pop = |q: &mut EventQueue<u64>, reference: &mut Vec<(u64, u64)>, until: u64| {
                let want = reference.iter().copied().min().filter(|&(t, _)| t <= until);
                if let Some(w) = want {
                    reference.retain(|&x| x != w);
                }
                let got = q.pop_until(Time(until)).map(|(t, s)| (t.0, s));
                prop_assert_eq!(got, want);
                prop_assert_eq!(q.len(), reference.len());
                prop_assert_eq!(q.peek_time().map(|t| t.0), reference.iter().map(|x| x.0).min());
                Ok(())
            };
            for op in ops {
                let now = q.now().0;
                match op {
                    Op::Schedule(d) => {
                        let t = now.saturating_add(d);
                        q.schedule(Time(t), seq);
                        reference.push((t, seq));
                        seq += 1;
                    }
                    Op::Pop => check_pop(&mut q, &mut reference, u64::MAX)?,
                    Op::PopUntil(h) => check_pop(&mut q, &mut reference, now + h)?,
                }
            }
            while !reference.is_empty() {
                check_pop(&mut q, &mut reference, u64::MAX)?;
            }
            prop_assert_eq!(q.pop(), None);
        }
    }
}
