//! A slab arena. Packets live in a [`Slab`] and move by index; freed slots are reused, so the
//! steady state allocates nothing. (The simulator's typed ids, `node#3` and friends, are
//! network-specific and live in the simulator crate.)

/// An arena of `T` with a free list; [`Slab::insert`] reuses freed slots first.
pub struct Slab<T> {
    slots: Vec<Option<T>>,
    free: Vec<u32>,
    live: usize,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab {
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
        }
    }
}

impl<T> Slab<T> {
    /// An empty slab with room for `n` values before it grows.
    pub fn with_capacity(n: usize) -> Self {
        Slab {
            slots: Vec::with_capacity(n),
            free: Vec::new(),
            live: 0,
        }
    }
    /// Stores `v` and returns its index.
    #[inline(always)]
    pub fn insert(&mut self, v: T) -> u32 {
        self.insert_mut(v).0
    }
    /// Stores `v` and returns its index and the stored value (to finish it in place).
    #[inline(always)]
    pub fn insert_mut(&mut self, v: T) -> (u32, &mut T) {
        self.live += 1;
        let i = if let Some(i) = self.free.pop() {
            debug_assert!(self.slots[i as usize].is_none());
            self.slots[i as usize] = Some(v);
            i
        } else {
            self.slots.push(Some(v));
            (self.slots.len() - 1) as u32
        };
        let held = self.slots[i as usize]
            .as_mut()
            .unwrap_or_else(|| unreachable!("just stored"));
        (i, held)
    }
    /// Puts `v` in slot `i` in place of the value there, which is dropped, and returns the
    /// stored value: what [`Slab::discard`] then [`Slab::insert_mut`] do when no slot is
    /// freed in between (the insert takes the slot just freed), without the free list.
    /// Replacing in an empty slot is a bug.
    #[inline(always)]
    pub fn replace_mut(&mut self, i: u32, v: T) -> &mut T {
        let slot = &mut self.slots[i as usize];
        debug_assert!(slot.is_some(), "slab: replacing in an empty slot");
        slot.insert(v)
    }
    /// Removes and returns the value at `i`. Removing an empty slot is a bug.
    #[inline(always)]
    pub fn remove(&mut self, i: u32) -> T {
        let v = self.slots[i as usize]
            .take()
            .expect("slab: removing an empty slot");
        self.free.push(i);
        self.live -= 1;
        v
    }
    /// Drops the value at `i` where it lies (no move out) and frees its slot. Discarding an
    /// empty slot is a bug.
    #[inline(always)]
    pub fn discard(&mut self, i: u32) {
        let slot = &mut self.slots[i as usize];
        debug_assert!(slot.is_some(), "slab: discarding an empty slot");
        *slot = None;
        self.free.push(i);
        self.live -= 1;
    }
    /// The value at `i`. Reading an empty slot is a bug.
    #[inline(always)]
    pub fn get(&self, i: u32) -> &T {
        self.slots[i as usize]
            .as_ref()
            .expect("slab: reading an empty slot")
    }
    /// The value at `i`, mutably.
    #[inline(always)]
    pub fn get_mut(&mut self, i: u32) -> &mut T {
        self.slots[i as usize]
            .as_mut()
            .expect("slab: reading an empty slot")
    }
    /// How many values are stored.
    pub fn len(&self) -> usize {
        self.live
    }
    /// Whether the slab holds nothing.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }
    /// The most slots ever in use at once.
    pub fn high_water(&self) -> usize {
        self.slots.len()
    }
    /// The stored values, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.slots.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_slots_are_reused() {
        let mut s = Slab::default();
        let a = s.insert(1);
        let b = s.insert(2);
        assert_eq!(s.remove(a), 1);
        let c = s.insert(3);
        assert_eq!(c, a);
        assert_eq!(*s.get(b), 2);
        assert_eq!(s.len(), 2);
        assert_eq!(s.high_water(), 2);
        s.discard(b);
        assert_eq!(s.len(), 1);
        assert_eq!(s.insert(4), b, "a discarded slot is reused");
        let (d, held) = s.insert_mut(7);
        *held += 1;
        assert_eq!(
            (d, *s.get(d), s.len()),
            (2, 8, 3),
            "a new slot, finished in place"
        );
    }

    /// `replace_mut` leaves the slab as `discard` then `insert_mut` do: the same slot, the
    /// same count, the same free slots taken next.
    #[test]
    fn replace_is_discard_then_insert() {
        let mut s = Slab::default();
        let mut t = Slab::default();
        for v in 0..5 {
            s.insert(v);
            t.insert(v);
        }
        for i in [3, 1] {
            s.discard(i);
            t.discard(i);
        }
        t.discard(2);
        let (j, held) = t.insert_mut(20);
        *held += 1;
        let held = s.replace_mut(2, 20);
        *held += 1;
        assert_eq!(j, 2);
        assert_eq!(*s.get(2), 21);
        assert_eq!((s.len(), s.high_water()), (t.len(), t.high_water()));
        let next: Vec<u32> = (0..3).map(|v| s.insert(v)).collect();
        assert_eq!(next, (0..3).map(|v| t.insert(v)).collect::<Vec<_>>());
        assert_eq!(
            next,
            vec![1, 3, 5],
            "the free list untouched: last freed first"
        );
        assert_eq!(
            s.iter().copied().collect::<Vec<_>>(),
            t.iter().copied().collect::<Vec<_>>()
        );
    }

    #[test]
    fn iter_yields_the_live_values_in_slot_order() {
        let mut s = Slab::default();
        let a = s.insert(1);
        s.insert(2);
        let c = s.insert(3);
        s.remove(a);
        s.discard(c);
        assert_eq!(s.iter().copied().collect::<Vec<_>>(), vec![2]);
        assert_eq!(s.insert(5), c, "the last freed slot first");
        assert_eq!(s.iter().copied().collect::<Vec<_>>(), vec![2, 5]);
    }
}
