//! The event queue: earliest time first, events due at the same instant in the order they were
//! scheduled (FIFO ties). That, with seeded RNG streams, makes every run bit-reproducible.
//!
//! # Design: a monotone multi-level radix heap on the integer time
//!
//! Simulated time never goes backwards: every event is scheduled at or after the time of the
//! event last popped (`last`, which is also the clock). A radix heap uses that: no
//! comparison-and-swap walk per pop, as a binary heap has.
//!
//! Times are read as 12-bit digits (6 levels of 4,096 slots; level `l` is bits `12l..12l+12`).
//! An event due exactly at `last` goes to `due`; any other goes to level `l` = the highest
//! digit in which its time differs from `last`, slot = its own digit `l`. So level 0's slot `s`
//! holds only events due at `last` with its low digit replaced by `s`; a slot of a higher
//! level holds a range of times (level 1: 4.1 us, level 2: 16.8 ms). Each level has an
//! occupancy bitmap of 64 words and a summary word with a bit per non-empty word, so finding
//! the lowest occupied slot is three `trailing_zeros`.
//!
//! Events live in one pool of entries (time, event, index of the next entry); `due` and each
//! slot are a list of entries, first and last index (8 bytes a slot). Scheduling takes a free
//! entry (the one freed last: still in cache), files it with a few bit operations and links it
//! at the end of its list; popping unlinks it and frees it. Moving a slot's events to a lower
//! level relinks them; none is copied.
//!
//! Popping takes from the front of `due`. When `due` is empty, the lowest occupied slot of the
//! lowest occupied level holds the earliest events. If it holds one (most pops on a network),
//! that one is popped directly. Otherwise, on level 0 the slot's list becomes `due` (its events
//! share one time); on a higher level, the slot's earliest time becomes `last`, the events due
//! then move to `due` and the rest to lower levels (all of which are empty then). An event only
//! ever moves down, so at most 5 times, and emptying a slot is linear in its events however
//! crowded it is (a large fat tree puts thousands in one 4.1 us slot).
//!
//! Why 12 bits: each event of a crowded slot of level 1 or above is filed again when the slot is
//! reached, so a slot should rarely hold more than one. With ns times, events scheduled 0.5-1 ms
//! ahead (a WAN hop) differ from `last` in bits 19-20: with 6-bit digits (the first version,
//! one vector a slot) they landed in 262 us slots, about 11 together on dumbbell-10, and were
//! each filed 1.2 more times on average; in 4.1 us slots they are mostly alone. One vector per
//! slot with 4,096 slots a level was tried: fewer instructions on the dumbbell, but the slots'
//! scattered buffers made the fat tree at k = 16 12% slower in wall time (and 150 MB peak
//! against 62 MB until emptied vectors were freed); the pool keeps the queue's memory compact.
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
//! about 14 times on the dumbbell. Serving a crowded slot from one vector kept sorted by
//! insertion was tried and reverted (150578c): with many hosts a slot holds thousands of
//! events and each out-of-order insertion moves the rest (quadratic on the fat tree). The
//! binary heap keyed on (time, sequence) that this replaced is the reference in the kernel's
//! criterion bench (`benches/event_queue.rs`), with a 4-ary heap; the tests compare with a
//! plain sort.

use crate::rng::Rng;
use crate::time::Time;

/// Bits per digit.
const DIGIT: u32 = 12;
/// Slots per level.
const SLOTS: usize = 1 << DIGIT;
/// Words of a level's occupancy bitmap.
const WORDS: usize = SLOTS / 64;
/// Levels: enough digits for 64 bits.
const LEVELS: usize = 64usize.div_ceil(DIGIT as usize);
/// Room for levels in the bitmaps: a power of two above `LEVELS`, so that a level masked with
/// `ROOM - 1` needs no bounds check (the levels from `LEVELS` on stay empty).
const ROOM: usize = LEVELS.next_power_of_two();
/// No entry: the end of a list.
const NIL: u32 = u32::MAX;

/// The index in `lists` of (`level`, `slot`), in bounds by construction (`level` is below
/// `LEVELS` in every call; the `min` shows the compiler so).
#[inline(always)]
fn index(level: usize, slot: usize) -> usize {
    (level.min(LEVELS - 1) << DIGIT) | (slot & (SLOTS - 1))
}

/// A pending event in the pool, or a free entry.
#[derive(Clone, Copy)]
struct Entry<E> {
    time: Time,
    /// The next entry of the same list (a slot's, `due` or the free list), or `NIL`.
    next: u32,
    event: E,
}

/// A list of pool entries, first to last; `tail` is meaningless while `head` is `NIL`.
#[derive(Clone, Copy)]
struct List {
    head: u32,
    tail: u32,
}

const EMPTY: List = List {
    head: NIL,
    tail: NIL,
};

/// The state of [`EventQueue::shuffle_ties`].
struct Shuffle {
    rng: Rng,
    /// Scratch: the entries of the batch being shuffled.
    batch: Vec<u32>,
}

/// A priority queue of events of type `E`, earliest first, ties in scheduling order.
pub struct EventQueue<E> {
    /// Every entry, pending or free.
    pool: Vec<Entry<E>>,
    /// The free entries, the one freed last first.
    free: u32,
    /// Events due exactly at `last`, in scheduling order.
    due: List,
    /// `lists[index(level, slot)]`, each in scheduling order.
    lists: Box<[List; LEVELS * SLOTS]>,
    /// Per level, bit `s % 64` of word `s / 64` set when slot `s` is occupied.
    words: [[u64; WORDS]; ROOM],
    /// Per level, bit `w` set when word `w` of `words` is not zero.
    summary: [u64; ROOM],
    /// Bit `level` set when that level has an occupied slot.
    levels: u32,
    /// The reference time of the levels and the clock: the time of the event last popped
    /// (zero before the first). No pending event is earlier.
    last: Time,
    scheduled: u64,
    popped: u64,
    /// Draws the order of simultaneous events ([`EventQueue::shuffle_ties`]); None: FIFO.
    shuffle: Option<Box<Shuffle>>,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

/// The (level, slot) of `time` relative to `last`, for `time != last`.
#[inline(always)]
fn place(time: Time, last: Time) -> (usize, usize) {
    let bit = (63 - (time.0 ^ last.0).leading_zeros()) & 63;
    let level = bit / DIGIT;
    let slot = (time.0 >> (level * DIGIT)) as usize & (SLOTS - 1);
    (level as usize, slot)
}

/// Appends entry `i` to `list`.
#[inline(always)]
fn append<E>(pool: &mut [Entry<E>], list: &mut List, i: u32) {
    if list.head == NIL {
        list.head = i;
    } else {
        pool[list.tail as usize].next = i;
    }
    list.tail = i;
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        EventQueue {
            pool: Vec::with_capacity(64),
            free: NIL,
            due: EMPTY,
            lists: vec![EMPTY; LEVELS * SLOTS]
                .into_boxed_slice()
                .try_into()
                .unwrap_or_else(|_| unreachable!("LEVELS * SLOTS lists")),
            words: [[0; WORDS]; ROOM],
            summary: [0; ROOM],
            levels: 0,
            last: Time::ZERO,
            scheduled: 0,
            popped: 0,
            shuffle: None,
        }
    }

    /// From now on, the events pending for one instant run in an order drawn from `rng`, not
    /// in scheduling order; events scheduled during an instant for that instant run after
    /// those pending when it began, in scheduling order (see the module doc).
    pub fn shuffle_ties(&mut self, rng: Rng) {
        self.shuffle = Some(Box::new(Shuffle {
            rng,
            batch: Vec::new(),
        }));
    }

    /// The time of the event most recently popped (the simulation clock).
    pub fn now(&self) -> Time {
        self.last
    }

    /// Files entry `i`, due at `time` after `last`, at the end of its slot.
    #[inline(always)]
    fn file(&mut self, time: Time, i: u32) {
        let (level, slot) = place(time, self.last);
        let level = level & (ROOM - 1);
        self.words[level][(slot >> 6) & (WORDS - 1)] |= 1 << (slot & 63);
        self.summary[level] |= 1 << ((slot >> 6) & 63);
        self.levels |= 1 << level;
        append(&mut self.pool, &mut self.lists[index(level, slot)], i);
    }

    /// Empties (`level`, `slot`) and marks it so in the bitmaps.
    #[inline(always)]
    fn clear(&mut self, level: usize, slot: usize) {
        self.lists[index(level, slot)].head = NIL;
        let level = level & (ROOM - 1);
        let w = (slot >> 6) & (WORDS - 1);
        self.words[level][w] &= !(1 << (slot & 63));
        if self.words[level][w] == 0 {
            self.summary[level] &= !(1 << w);
            if self.summary[level] == 0 {
                self.levels &= !(1 << level);
            }
        }
    }

    /// Schedules `event` at `time`. Scheduling in the past is a bug in the caller.
    #[inline(always)]
    pub fn schedule(&mut self, time: Time, event: E) {
        debug_assert!(
            time >= self.last,
            "event scheduled in the past: {time} < {}",
            self.last
        );
        // A time before `last` would corrupt the levels, so clamp in release builds.
        let time = time.max(self.last);
        self.scheduled += 1;
        let entry = Entry {
            time,
            next: NIL,
            event,
        };
        let i = if self.free != NIL {
            let i = self.free;
            let slot = &mut self.pool[i as usize];
            self.free = slot.next;
            *slot = entry;
            i
        } else {
            self.pool.push(entry);
            // The new index is len - 1, below u32::MAX (NIL) exactly when len fits in a u32.
            u32::try_from(self.pool.len()).expect("fewer than 2^32 - 1 pending events") - 1
        };
        if time == self.last {
            append(&mut self.pool, &mut self.due, i);
        } else {
            self.file(time, i);
        }
    }

    /// The lowest occupied (level, slot), if any.
    #[inline(always)]
    fn lowest(&self) -> Option<(usize, usize)> {
        if self.levels == 0 {
            return None;
        }
        let level = self.levels.trailing_zeros() as usize & (ROOM - 1);
        let w = self.summary[level].trailing_zeros() as usize & (WORDS - 1);
        let slot = (w << 6) | self.words[level][w].trailing_zeros() as usize;
        Some((level, slot))
    }

    /// The earliest time in (`level`, `slot`), which is occupied.
    fn slot_min(&self, level: usize, slot: usize) -> Time {
        if level == 0 {
            return Time((self.last.0 & !(SLOTS as u64 - 1)) | slot as u64);
        }
        let mut min = Time::MAX;
        let mut i = self.lists[index(level, slot)].head;
        while i != NIL {
            let e = &self.pool[i as usize];
            min = min.min(e.time);
            i = e.next;
        }
        min
    }

    /// The time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Time> {
        if self.due.head != NIL {
            return Some(self.last);
        }
        let (level, slot) = self.lowest()?;
        Some(self.slot_min(level, slot))
    }

    /// Frees entry `i` (just unlinked) and returns its event.
    #[inline(always)]
    fn take(&mut self, i: u32) -> E {
        let e = &mut self.pool[i as usize];
        e.next = self.free;
        self.free = i;
        self.popped += 1;
        e.event
    }

    /// Refills `due`, which is empty, from (`level`, `slot`), the lowest occupied slot, if
    /// that slot's earliest time is no later than `until`. Returns whether it did.
    fn refill(&mut self, level: usize, slot: usize, until: Time) -> bool {
        let min = self.slot_min(level, slot);
        if min > until {
            return false;
        }
        let list = self.lists[index(level, slot)];
        self.clear(level, slot);
        self.last = min;
        if level == 0 {
            // All its events are due at `min`.
            self.due = list;
        } else {
            let mut i = list.head;
            while i != NIL {
                let e = &mut self.pool[i as usize];
                let (t, next) = (e.time, e.next);
                e.next = NIL;
                if t == min {
                    append(&mut self.pool, &mut self.due, i);
                } else {
                    // Into a lower level: all empty, so order is kept.
                    self.file(t, i);
                }
                i = next;
            }
        }
        if let Some(sh) = self.shuffle.as_deref_mut() {
            let batch = &mut sh.batch;
            batch.clear();
            let mut i = self.due.head;
            while i != NIL {
                batch.push(i);
                i = self.pool[i as usize].next;
            }
            for k in (1..batch.len()).rev() {
                batch.swap(k, sh.rng.below(k as u64 + 1) as usize);
            }
            self.due = EMPTY;
            for &i in batch.iter() {
                self.pool[i as usize].next = NIL;
                append(&mut self.pool, &mut self.due, i);
            }
        }
        true
    }

    /// Removes and returns the earliest event if it is due no later than `until`, advancing
    /// the clock to its time.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        if self.due.head == NIL {
            let (level, slot) = self.lowest()?;
            let list = self.lists[index(level, slot)];
            if list.head == list.tail {
                // The common case on a network: the earliest slot holds one event. Take it
                // directly (no other event is due at its time: it would be in the same slot).
                let i = list.head;
                let time = self.pool[i as usize].time;
                if time > until {
                    return None;
                }
                self.clear(level, slot);
                self.last = time;
                return Some((time, self.take(i)));
            }
            if !self.refill(level, slot, until) {
                return None;
            }
        } else if self.last > until {
            return None;
        }
        let i = self.due.head;
        self.due.head = self.pool[i as usize].next;
        Some((self.last, self.take(i)))
    }

    /// Removes and returns the earliest event, advancing the clock to its time.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time::MAX)
    }

    /// The number of pending events.
    pub fn len(&self) -> usize {
        (self.scheduled - self.popped) as usize
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.scheduled == self.popped
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

    /// Pops everything, checking each event against the reference order: time, then the
    /// order in which it was scheduled (`seq`, the event itself).
    fn drain_in_order(q: &mut EventQueue<u64>, mut pending: Vec<(u64, u64)>) {
        pending.sort();
        for (i, &want) in pending.iter().enumerate() {
            assert_eq!(
                q.peek_time().map(|t| t.0),
                Some(want.0),
                "peek before pop {i}"
            );
            assert_eq!(q.pop().map(|(t, s)| (t.0, s)), Some(want), "pop {i}");
            assert_eq!(q.now(), Time(want.0));
        }
        assert_eq!(q.pop(), None);
        assert!(q.is_empty());
    }

    /// Events filed on every level (times differing from the clock first in each digit, up
    /// to the top bits and `u64::MAX`), each time scheduled several times interleaved with
    /// the others: they come out in time order, ties in scheduling order, and `len` counts
    /// them.
    #[test]
    fn every_level_keeps_time_then_fifo_order() {
        let mut q = EventQueue::new();
        // Move the clock off zero so that every level's digit is in play.
        q.schedule(Time(0x0123_4567_89ab_cdef), u64::MAX);
        assert_eq!(q.pop().map(|(t, _)| t), Some(Time(0x0123_4567_89ab_cdef)));
        let now = q.now().0;
        let mut times = vec![
            now,
            now + 1,
            now + 4_095,
            now + 4_096,
            u64::MAX,
            u64::MAX - 1,
        ];
        for bit in 0..64 {
            times.push(now | (1 << bit));
            times.push((now | (1 << bit)) & !((1u64 << bit) - 1));
        }
        times.retain(|&t| t >= now);
        let mut pending = Vec::new();
        let mut seq = 0;
        for round in 0..3 {
            for &t in times.iter().rev() {
                q.schedule(Time(t), seq);
                pending.push((t, seq));
                seq += 1;
            }
            assert_eq!(q.len(), pending.len(), "after round {round}");
        }
        drain_in_order(&mut q, pending);
    }

    /// One 4.1 us slot of level 1 holding 20,000 events with many ties (as a fat tree with
    /// many hosts makes): served in time order, ties in scheduling order; events scheduled
    /// while it is being served, for the current instant or later inside the same window,
    /// take their places too.
    #[test]
    fn a_crowded_slot_keeps_time_then_fifo_order() {
        let mut q = EventQueue::new();
        let mut rng = crate::rng::Rng::from_seed(36);
        let base = 3 * 4_096;
        let mut pending: Vec<(u64, u64)> = Vec::new();
        let mut seq = 0;
        for _ in 0..20_000 {
            let t = base + rng.below(4_096 / 8) * 8;
            q.schedule(Time(t), seq);
            pending.push((t, seq));
            seq += 1;
        }
        pending.sort();
        let mut done = 0;
        while let Some((t, s)) = q.pop() {
            // The next pending event in (time, seq) order is the least of those left.
            let k = pending
                .iter()
                .position(|&p| p == (t.0, s))
                .expect("popped a pending event");
            assert_eq!(k, 0, "popped {:?}, expected {:?}", (t.0, s), pending[0]);
            pending.remove(0);
            done += 1;
            // Every 7th pop schedules one at the current instant and one a little later.
            if done % 7 == 0 {
                for d in [0, 1 + rng.below(64)] {
                    let at = t.0 + d;
                    q.schedule(Time(at), seq);
                    let pos = pending.partition_point(|&p| p < (at, seq));
                    pending.insert(pos, (at, seq));
                    seq += 1;
                }
            }
        }
        assert!(pending.is_empty());
        assert!(done > 20_000);
    }

    /// An event scheduled at the current instant while the instant's ties are being popped
    /// runs after them, whether the ties came from one slot of level 0 or from a slot of a
    /// higher level emptied down.
    #[test]
    fn scheduled_at_now_during_an_instant_runs_after_its_ties() {
        for t in [5u64, 70_000] {
            let mut q = EventQueue::new();
            q.schedule(Time(t), 'a');
            q.schedule(Time(t + 3), 'z');
            q.schedule(Time(t), 'b');
            q.schedule(Time(t), 'c');
            assert_eq!(q.pop(), Some((Time(t), 'a')));
            q.schedule(Time(t), 'n');
            let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
            assert_eq!(order, vec!['b', 'c', 'n', 'z'], "t = {t}");
        }
    }

    /// Freed entries are used again: the pool never holds more entries than were pending at
    /// once, however many events pass through.
    #[test]
    fn the_pool_holds_no_more_than_the_most_pending() {
        let mut q = EventQueue::new();
        let mut rng = crate::rng::Rng::from_seed(7);
        for i in 0..100 {
            q.schedule(Time(rng.below(1 << 30)), i);
        }
        for i in 0..100_000 {
            let (t, _) = q.pop().expect("100 pending");
            q.schedule(Time(t.0 + rng.below(1 << 30)), i);
        }
        assert_eq!(q.len(), 100);
        assert_eq!(q.pool.len(), 100);
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

        /// The same against the reference, with delays of every bit length (so every level
        /// of the queue, and times up to `u64::MAX`) and bursts of ties.
        #[test]
        fn pops_in_order_with_delays_of_every_size(
            ops in prop::collection::vec((0u32..=64, any::<u64>(), 0u8..4), 1..300)
        ) {
            let mut q = EventQueue::new();
            let mut reference: Vec<(u64, u64)> = Vec::new();
            let mut seq = 0u64;
            for (bits, r, what) in ops {
                let now = q.now().0;
                if what == 0 {
                    let want = reference.iter().copied().min();
                    if let Some(w) = want {
                        reference.retain(|&x| x != w);
                    }
                    prop_assert_eq!(q.pop().map(|(t, s)| (t.0, s)), want);
                } else {
                    let d = if bits == 0 { 0 } else { r >> (64 - bits) };
                    let t = now.saturating_add(d);
                    // A burst: the same time, `what` times.
                    for _ in 0..what {
                        q.schedule(Time(t), seq);
                        reference.push((t, seq));
                        seq += 1;
                    }
                }
                prop_assert_eq!(q.len(), reference.len());
                prop_assert_eq!(q.peek_time().map(|t| t.0), reference.iter().map(|x| x.0).min());
            }
            reference.sort();
            for want in reference {
                prop_assert_eq!(q.pop().map(|(t, s)| (t.0, s)), Some(want));
            }
            prop_assert_eq!(q.pop(), None);
        }
    }
}
