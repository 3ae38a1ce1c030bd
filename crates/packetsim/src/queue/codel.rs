//! CoDel, Controlled Delay (RFC 8289), as a queue discipline that decides at dequeue.
//!
//! Each packet is stamped with its arrival time. At dequeue, its sojourn time (now − arrival)
//! is compared with `target`. The RFC's pseudocode (`dodequeue()`, `dequeue()`,
//! `control_law()`) is followed:
//!
//! - While sojourn times stay at or above `target` (and more than one MTU is queued) for a
//!   whole `interval`, the queue becomes *ok to drop*: the first packet found so after the
//!   interval is dropped and CoDel enters the dropping state with `count = 1` and
//!   `drop_next = now + interval`.
//! - In the dropping state, each dequeue at or after `drop_next` drops the head packet,
//!   increments `count` and sets `drop_next = control_law(drop_next, count) = drop_next +
//!   interval/√count` (rounded down to the nanosecond): drops are spaced by interval/√count.
//! - A sojourn below `target` (or at most one MTU left queued) leaves the dropping state.
//!   Re-entering within 16 intervals of the last `drop_next` resumes from the count reached
//!   since the previous entry (`count = count − lastcount` when that is more than 1).
//! - `control_law = "newton"` (not the default) spaces drops as Linux's and ns-3.37's CoDel
//!   do: 1/√count is not computed but kept as a 16-bit fixed-point value that one Newton step
//!   (`y ← y (3 − count·y²) / 2`) updates at each change of count, from 1.0 on entry with
//!   count 1 (ns-3 `CoDelQueueDisc::NewtonStep`, `ControlLaw`; Linux `codel_Newton_step`).
//!   The step undershoots at small counts (count 2 gives 0.5, not 0.707: the second interval
//!   is 50 ms instead of 70.7) and converges within a few drops.
//! - With `ecn`, an ECN-capable packet (ECT or already CE, RFC 3168 §5) that CoDel would drop
//!   is marked CE and sent instead, and the dequeue ends there (as Linux's `codel_dequeue`).
//! - An arrival to a queue holding `limit` packets is dropped (reason `overflow`); control-law
//!   drops have reason `early`.
//!
//! The sub-queue state ([`CoDelState`] on a [`HeldFifo`]) is shared with FQ-CoDel, which runs
//! one CoDel per flow queue.

use super::{DropReason, QueueLen, QueueLimit};
use crate::packet::{Ecn, Packet};
use crate::units;
use packetsim_kernel::{Dur, Slab, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Configuration of a CoDel queue (`queue = { kind = "codel", .. }`). Defaults are RFC
/// 8289's: target 5 ms, interval 100 ms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CoDelConfig {
    /// Acceptable standing queue delay (RFC 8289 `TARGET`, default 5 ms).
    #[serde(with = "units::dur")]
    pub target: Dur,
    /// Window over which the delay must stay above target before dropping (RFC 8289
    /// `INTERVAL`, default 100 ms).
    #[serde(with = "units::dur")]
    pub interval: Dur,
    /// Mark ECN-capable packets CE instead of dropping them (default false).
    pub ecn: bool,
    /// Physical limit: an integer is packets, a byte count with a unit bytes (default 1000
    /// packets, Linux's).
    pub limit: QueueLimit,
    /// `maxpacket` of the pseudocode: no drop while at most this many bytes are queued
    /// behind the packet (default 1500).
    #[serde(with = "units::bytes")]
    pub mtu: u64,
    /// How interval/√count is computed: exactly (RFC 8289, default) or by Linux's and
    /// ns-3's Newton step.
    pub control_law: CoDelLaw,
}

/// How the control law computes interval/√count (`control_law`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoDelLaw {
    /// RFC 8289's `control_law()`: `interval / sqrt(count)`, in floating point.
    #[default]
    Rfc8289,
    /// Linux's and ns-3.37's: a 16-bit fixed-point 1/√count, one Newton step per change of
    /// count.
    Newton,
}

impl Default for CoDelConfig {
    fn default() -> Self {
        CoDelConfig {
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
            ecn: false,
            limit: QueueLimit::Packets(1000),
            mtu: 1500,
            control_law: CoDelLaw::Rfc8289,
        }
    }
}

impl CoDelConfig {
    /// Checks the values; the error names the offending key.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        codel_params_valid(self.target, self.interval, self.mtu)?;
        limit_valid(self.limit)
    }

    /// The control-law parameters.
    pub fn params(&self) -> CoDelParams {
        CoDelParams {
            target: self.target,
            interval: self.interval,
            ecn: self.ecn,
            mtu: self.mtu,
            law: self.control_law,
        }
    }
}

/// Checks target, interval and MTU (shared with FQ-CoDel).
pub(crate) fn codel_params_valid(
    target: Dur,
    interval: Dur,
    mtu: u64,
) -> Result<(), (&'static str, String)> {
    if interval == Dur::ZERO {
        return Err(("interval", "expected a positive interval".into()));
    }
    if target == Dur::ZERO || target >= interval {
        return Err((
            "target",
            format!("expected a positive target below interval ({interval}), got {target}"),
        ));
    }
    if mtu == 0 || mtu > 65_535 {
        return Err(("mtu", format!("expected 1 to 65535 bytes, got {mtu}")));
    }
    Ok(())
}

/// Checks a queue limit is positive.
pub(crate) fn limit_valid(limit: QueueLimit) -> Result<(), (&'static str, String)> {
    match limit {
        QueueLimit::Packets(0) | QueueLimit::Bytes(0) => {
            Err(("limit", "expected a positive queue limit".into()))
        }
        _ => Ok(()),
    }
}

/// The parameters CoDel's control law uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoDelParams {
    /// `TARGET`.
    pub target: Dur,
    /// `INTERVAL`.
    pub interval: Dur,
    /// Mark instead of drop.
    pub ecn: bool,
    /// `maxpacket`, bytes.
    pub mtu: u64,
    /// How interval/√count is computed.
    pub law: CoDelLaw,
}

/// A packet held by a dequeue-time discipline: arena id, size, arrival time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    /// Arena id.
    pub id: u32,
    /// Bytes.
    pub size: u32,
    /// When it joined the queue.
    pub at: Time,
}

/// A FIFO of held packets with its byte count.
#[derive(Clone, Debug, Default)]
pub struct HeldFifo {
    q: VecDeque<Held>,
    bytes: u64,
}

impl HeldFifo {
    /// Appends a packet.
    #[inline]
    pub fn push(&mut self, h: Held) {
        self.bytes += h.size as u64;
        self.q.push_back(h);
    }

    /// Removes the head packet.
    #[inline]
    pub fn pop(&mut self) -> Option<Held> {
        let h = self.q.pop_front()?;
        self.bytes -= h.size as u64;
        Some(h)
    }

    /// The head packet.
    pub fn front(&self) -> Option<&Held> {
        self.q.front()
    }

    /// Packets and bytes held.
    #[inline]
    pub fn len(&self) -> QueueLen {
        QueueLen {
            packets: self.q.len() as u32,
            bytes: self.bytes,
        }
    }

    /// Whether nothing is held.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

/// What a dequeue-time discipline did at one dequeue: packets it dropped (in order) and marks.
#[derive(Debug, Default)]
pub struct DequeueEffects {
    /// Packets dropped at this dequeue, with the reason (the caller frees them).
    pub dropped: Vec<(u32, DropReason)>,
    /// Packets marked CE at this dequeue.
    pub marks: u64,
}

/// The control-law state of one CoDel queue (RFC 8289 per-queue state).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoDelState {
    /// When the sojourn time first went (and stayed) above target, plus interval.
    first_above: Option<Time>,
    /// When the next drop is due in the dropping state.
    drop_next: Time,
    /// Drops (and marks) since entering the dropping state.
    count: u32,
    /// `count` when the dropping state was last entered.
    lastcount: u32,
    /// Whether in the dropping state.
    dropping: bool,
    /// `control_law = "newton"` only: 1/√count in Q0.16 (ns-3's `m_recInvSqrt`).
    rec_inv_sqrt: u16,
}

/// 1.0 in the Q0.16 `rec_inv_sqrt` (ns-3: `~0U >> REC_INV_SQRT_SHIFT`).
const REC_INV_SQRT_ONE: u16 = u16::MAX;

/// One Newton step of 1/√count in Q0.16 (ns-3.37 `CoDelQueueDisc::NewtonStep`, Linux
/// `codel_Newton_step`): `y (3 − count·y²) / 2` in 32-bit fixed point, with C's wrapping
/// unsigned arithmetic.
pub fn newton_step(rec_inv_sqrt: u16, count: u32) -> u16 {
    let invsqrt = (rec_inv_sqrt as u32) << 16;
    let invsqrt2 = ((invsqrt as u64 * invsqrt as u64) >> 32) as u32;
    let mut val = (3u64 << 32).wrapping_sub(count as u64 * invsqrt2 as u64);
    val >>= 2;
    val = val.wrapping_mul(invsqrt as u64) >> (32 - 2 + 1);
    (val >> 16) as u16
}

/// Whether a router may mark `p` instead of dropping it (RFC 3168 §5: ECT, or CE already).
#[inline]
fn capable(p: &Packet) -> bool {
    p.ecn.is_ect() || p.ecn == Ecn::Ce
}

impl CoDelState {
    /// Whether in the dropping state.
    pub fn dropping(&self) -> bool {
        self.dropping
    }

    /// Drops (and marks) since the dropping state was entered.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// RFC 8289 `control_law(t, count)`: `t + interval/√count`, rounded down to the ns.
    pub fn control_law(p: &CoDelParams, t: Time, count: u32) -> Time {
        let step = p.interval.as_nanos() as f64 / (count.max(1) as f64).sqrt();
        t + Dur::from_nanos(step as u64)
    }

    /// The next drop time from `t` under the configured law (with `"newton"`, ns-3's
    /// `ControlLaw`: interval × rec_inv_sqrt, a Q0.32 multiply, in ns).
    fn next_drop(&self, p: &CoDelParams, t: Time) -> Time {
        match p.law {
            CoDelLaw::Rfc8289 => Self::control_law(p, t, self.count),
            CoDelLaw::Newton => {
                let r = (self.rec_inv_sqrt as u64) << 16;
                t + Dur::from_nanos(((p.interval.as_nanos() as u128 * r as u128) >> 32) as u64)
            }
        }
    }

    /// `count += 1`, with the Newton step that follows it.
    fn count_up(&mut self, p: &CoDelParams) {
        self.count += 1;
        if p.law == CoDelLaw::Newton {
            self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
        }
    }

    /// RFC 8289 `dodequeue()`: the head packet and whether it is ok to drop.
    fn do_dequeue(&mut self, p: &CoDelParams, now: Time, q: &mut HeldFifo) -> (Option<Held>, bool) {
        let Some(h) = q.pop() else {
            self.first_above = None;
            return (None, false);
        };
        let sojourn = now.saturating_since(h.at);
        if sojourn < p.target || q.len().bytes <= p.mtu {
            self.first_above = None;
            return (Some(h), false);
        }
        match self.first_above {
            None => {
                self.first_above = Some(now + p.interval);
                (Some(h), false)
            }
            Some(t) => (Some(h), now >= t),
        }
    }

    /// RFC 8289 `dequeue()` on the sub-queue `q`: the packet to send, if any. Drops go to
    /// `fx.dropped`; a CE mark is set in `packets` and counted in `fx.marks`.
    pub fn dequeue(
        &mut self,
        p: &CoDelParams,
        now: Time,
        q: &mut HeldFifo,
        packets: &mut Slab<Packet>,
        fx: &mut DequeueEffects,
    ) -> Option<Held> {
        let (mut r, ok) = self.do_dequeue(p, now, q);
        let Some(mut h) = r else {
            self.dropping = false;
            return None;
        };
        // Marks instead of drops when it may; whether it did.
        let mut mark = |h: &Held, fx: &mut DequeueEffects| -> bool {
            let pkt = packets.get_mut(h.id);
            if p.ecn && capable(pkt) {
                pkt.ecn = Ecn::Ce;
                fx.marks += 1;
                true
            } else {
                false
            }
        };
        if self.dropping {
            if !ok {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count_up(p);
                if mark(&h, fx) {
                    self.drop_next = self.next_drop(p, self.drop_next);
                    return Some(h);
                }
                fx.dropped.push((h.id, DropReason::Early));
                let (next, ok) = self.do_dequeue(p, now, q);
                r = next;
                let Some(n) = r else {
                    self.dropping = false;
                    return None;
                };
                h = n;
                if ok {
                    self.drop_next = self.next_drop(p, self.drop_next);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok {
            if !mark(&h, fx) {
                fx.dropped.push((h.id, DropReason::Early));
                let (next, _) = self.do_dequeue(p, now, q);
                r = next;
            }
            self.dropping = true;
            let delta = self.count.saturating_sub(self.lastcount);
            if delta > 1 && now < self.drop_next + p.interval * 16 {
                self.count = delta;
                // ns-3 and Linux: one step from the value the last episode reached.
                self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, delta);
            } else {
                self.count = 1;
                self.rec_inv_sqrt = REC_INV_SQRT_ONE;
            }
            self.drop_next = self.next_drop(p, now);
            self.lastcount = self.count;
            return r;
        }
        Some(h)
    }
}

/// A CoDel queue: one FIFO under the control law.
#[derive(Clone, Debug)]
pub struct CoDel {
    params: CoDelParams,
    limit: QueueLimit,
    fifo: HeldFifo,
    state: CoDelState,
}

impl CoDel {
    /// A CoDel queue from a validated config.
    pub fn new(cfg: &CoDelConfig) -> CoDel {
        debug_assert!(
            cfg.validate().is_ok(),
            "CoDel config not validated: {cfg:?}"
        );
        CoDel {
            params: cfg.params(),
            limit: cfg.limit,
            fifo: HeldFifo::default(),
            state: CoDelState::default(),
        }
    }

    /// Offers packet `id` (contents `pkt`) at `now`: queued, or dropped for overflow.
    pub fn enqueue(&mut self, now: Time, id: u32, pkt: &Packet) -> Result<(), DropReason> {
        if super::DropTail::full(self.limit, self.fifo.len(), pkt.size) {
            return Err(DropReason::Overflow);
        }
        self.fifo.push(Held {
            id,
            size: pkt.size,
            at: now,
        });
        Ok(())
    }

    /// The packet to send at `now`, after the control law's drops and marks.
    pub fn dequeue(
        &mut self,
        now: Time,
        packets: &mut Slab<Packet>,
        fx: &mut DequeueEffects,
    ) -> Option<Held> {
        self.state
            .dequeue(&self.params, now, &mut self.fifo, packets, fx)
    }

    /// Packets and bytes waiting.
    pub fn len(&self) -> QueueLen {
        self.fifo.len()
    }

    /// The control-law state.
    pub fn state(&self) -> &CoDelState {
        &self.state
    }
}


impl super::QueueConfig for CoDelConfig {
    type Disc = CoDel;
    fn validate(&self) -> Result<(), (&'static str, String)> {
        CoDelConfig::validate(self)
    }
    fn build(&self, _rate: packetsim_kernel::Rate) -> CoDel {
        CoDel::new(self)
    }
}

impl super::DequeueDisc for CoDel {
    #[inline]
    fn enqueue(
        &mut self,
        now: Time,
        id: u32,
        pkt: &mut Packet,
        _rng: &mut packetsim_kernel::Rng,
        _fx: &mut DequeueEffects,
    ) -> super::Verdict {
        match CoDel::enqueue(self, now, id, pkt) {
            Ok(()) => super::Verdict::Queued,
            Err(r) => super::Verdict::Dropped(r),
        }
    }
    #[inline]
    fn dequeue(
        &mut self,
        now: Time,
        packets: &mut Slab<Packet>,
        fx: &mut DequeueEffects,
    ) -> Option<Held> {
        CoDel::dequeue(self, now, packets, fx)
    }
    fn len(&self) -> QueueLen {
        CoDel::len(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Addr;
    use crate::packet::Body;
    use crate::queue::test_packet;

    const MS: u64 = 1_000_000;

    fn cfg(ecn: bool) -> CoDelConfig {
        CoDelConfig {
            ecn,
            ..CoDelConfig::default()
        }
    }

    /// `n` packets of 1000 B (ECT(0) when `ect`) all arriving at t = 0, in a fresh arena.
    fn backlog(c: &mut CoDel, n: u32, ect: bool) -> Slab<Packet> {
        let mut slab = Slab::with_capacity(n as usize);
        for _ in 0..n {
            let p = test_packet(ect);
            let id = slab.insert(p.clone());
            c.enqueue(Time::ZERO, id, &p).unwrap();
        }
        slab
    }

    /// The re-entry script of `reentering_soon_resumes_from_the_count_reached`: serve
    /// everything left at once at 341 ms (the last packets see no bytes behind them, which
    /// leaves the dropping state), then a standing queue of 500 packets at 400 ms served one
    /// per millisecond to 570 ms; the drop times (ms).
    fn drain_then_backlog_at_400(c: &mut CoDel, slab: &mut Slab<Packet>) -> Vec<u64> {
        let mut fx = DequeueEffects::default();
        while c.dequeue(Time::from_millis(341), slab, &mut fx).is_some() {}
        assert!(!c.state().dropping());
        for _ in 0..500 {
            let p = test_packet(false);
            let id = slab.insert(p.clone());
            c.enqueue(Time::from_millis(400), id, &p).unwrap();
        }
        let mut drops = Vec::new();
        for t in 400..=570u64 {
            fx.dropped.clear();
            c.dequeue(Time::from_millis(t), slab, &mut fx);
            drops.extend(fx.dropped.iter().map(|_| t));
        }
        drops
    }

    /// Dequeues once per ms from t = 0 to `until_ms`: the times (ns) of drops and of marks.
    fn serve(c: &mut CoDel, slab: &mut Slab<Packet>, until_ms: u64) -> (Vec<u64>, Vec<u64>) {
        let (mut drops, mut marks) = (Vec::new(), Vec::new());
        for t in 0..=until_ms {
            let now = Time::from_millis(t);
            let mut fx = DequeueEffects::default();
            let sent = c.dequeue(now, slab, &mut fx);
            drops.extend(fx.dropped.iter().map(|_| now.as_nanos()));
            if let Some(h) = sent {
                if slab.get(h.id).ecn == Ecn::Ce {
                    marks.push(now.as_nanos());
                }
            }
        }
        (drops, marks)
    }

    /// The first 1-ms tick at or after each `drop_next` of the control law from `start`:
    /// drop_next_1 = start, drop_next_{k+1} = drop_next_k + interval/√k (RFC 8289
    /// `control_law()`), up to `until` ms.
    fn schedule(start_ms: u64, until_ms: u64) -> Vec<u64> {
        let mut out = Vec::new();
        let mut next = start_ms * MS;
        let mut count = 1u32;
        while next <= until_ms * MS {
            out.push(next.div_ceil(MS) * MS);
            count += 1;
            next += (100.0 * MS as f64 / ((count - 1) as f64).sqrt()) as u64;
        }
        out
    }

    // RFC 8289 `dodequeue()`/`dequeue()`: 1000 packets queued at t = 0 and served one per ms,
    // so the packet dequeued at t has waited t. Its sojourn first reaches target (5 ms) at
    // t = 5 ms, so `first_above_time` = 105 ms: the first drop is at 105 ms (entering the
    // dropping state, count 1, drop_next = 205 ms), then at 205, 276 (205 + 100/√2 =
    // 275.71), 334 (+ 100/√3), ... each at the first dequeue at or after drop_next.
    #[test]
    fn enters_dropping_after_an_interval_above_target_and_spaces_drops_by_interval_over_sqrt_count()
    {
        let mut c = CoDel::new(&cfg(false));
        let mut slab = backlog(&mut c, 1000, false);
        let (drops, marks) = serve(&mut c, &mut slab, 700);
        assert!(marks.is_empty());
        let want = schedule(105, 700);
        assert_eq!(&want[..4], &[105 * MS, 205 * MS, 276 * MS, 334 * MS]);
        assert_eq!(drops, want);
        assert!(c.state().dropping());
        assert_eq!(c.state().count() as usize, want.len());
        // The books: 701 sent, the drops, the rest still queued.
        assert_eq!(c.len().packets as usize, 1000 - 701 - drops.len());
    }

    // RFC 8289: below target, or with at most `maxpacket` bytes behind the packet, nothing is
    // ever dropped however long it lasts.
    #[test]
    fn never_drops_below_target_or_with_one_mtu_queued() {
        let mut c = CoDel::new(&cfg(false));
        let mut slab = Slab::with_capacity(4);
        // One packet per ms, each served 4 ms after arrival: sojourn 4 ms < 5 ms.
        let mut dropped = 0;
        for t in 0..2000u64 {
            let p = test_packet(false);
            let id = slab.insert(p.clone());
            c.enqueue(Time::from_millis(t), id, &p).unwrap();
            if t >= 4 {
                let mut fx = DequeueEffects::default();
                let h = c.dequeue(Time::from_millis(t), &mut slab, &mut fx).unwrap();
                slab.remove(h.id);
                dropped += fx.dropped.len();
            }
        }
        assert_eq!(dropped, 0);
        // Two packets waiting 1 s each: the one behind the head is within one MTU.
        let mut c = CoDel::new(&cfg(false));
        let mut slab = backlog(&mut c, 2, false);
        let mut fx = DequeueEffects::default();
        assert!(c
            .dequeue(Time::from_secs_f64(1.0), &mut slab, &mut fx)
            .is_some());
        assert!(c
            .dequeue(Time::from_secs_f64(2.0), &mut slab, &mut fx)
            .is_some());
        assert!(fx.dropped.is_empty());
    }

    // RFC 8289 with ECN (as Linux's codel_dequeue): an ECT packet CoDel would drop is marked
    // CE and sent, and the schedule of the control law is the same (a mark counts like a
    // drop): marks at 105, 205, 276, 334 ms, ..., no drop at all.
    #[test]
    fn with_ecn_marks_ect_packets_on_the_same_schedule_and_drops_none() {
        let mut c = CoDel::new(&cfg(true));
        let mut slab = backlog(&mut c, 1000, true);
        let (drops, marks) = serve(&mut c, &mut slab, 700);
        assert!(drops.is_empty(), "{drops:?}");
        assert_eq!(marks, schedule(105, 700));
        // Not ECN-capable: dropped even with ecn on.
        let mut c = CoDel::new(&cfg(true));
        let mut slab = backlog(&mut c, 1000, false);
        let (drops, marks) = serve(&mut c, &mut slab, 300);
        assert!(marks.is_empty());
        assert_eq!(drops, schedule(105, 300));
    }

    // RFC 8289 `dequeue()`: leaving the dropping state when the sojourn falls below target,
    // and re-entering within 16 intervals resumes at count − lastcount.
    #[test]
    fn reentering_soon_resumes_from_the_count_reached() {
        let mut c = CoDel::new(&cfg(false));
        let mut slab = backlog(&mut c, 400, false);
        // Drops at 105, 205, 276, 334 (count 4, lastcount 1).
        let (drops, _) = serve(&mut c, &mut slab, 340);
        assert_eq!(drops.len(), 4);
        // A new standing queue at 400 ms: above target from 405, drop at 505 with
        // count = 4 - 1 = 3, then drop_next = 505 + 100/√3 = 562.735 -> a drop at 563.
        assert_eq!(drain_then_backlog_at_400(&mut c, &mut slab), vec![505, 563]);
        assert_eq!(c.state().count(), 4);
    }

    // Linux's and ns-3.37's control law (`control_law = "newton"`, ns-3
    // `CoDelQueueDisc::NewtonStep`/`ControlLaw`): 1/√count in Q0.16, one Newton step
    // y(3 − count·y²)/2 per count: 65535 (count 1), 32769 (2: 0.50002, not 0.7071), 36864
    // (3: 0.5625), 31968 (4: 0.4878). On the backlog of the first test the drops are at 105,
    // 205 (+ 100 ms × 65535/65536), 255 (+ 50.0), 312 (+ 56.25), 361 (+ 48.8), ... as in
    // ns-3's codel-10 run (0.5084, 0.6085, 0.6585, 0.7147, 0.7635 s); RFC 8289: 276, 334.
    // Re-entering with count 4 − 1 = 3 takes one step from 31968: 36542, so the second drop
    // comes 55.76 ms after the first (RFC: 57.74).
    #[test]
    fn newton_control_law_spaces_drops_as_linux_and_ns3() {
        assert_eq!(newton_step(REC_INV_SQRT_ONE, 2), 32769);
        assert_eq!(newton_step(32769, 3), 36864);
        assert_eq!(newton_step(36864, 4), 31968);
        assert_eq!(newton_step(31968, 3), 36542);
        let newton = CoDelConfig {
            control_law: CoDelLaw::Newton,
            ..CoDelConfig::default()
        };
        let mut c = CoDel::new(&newton);
        let mut slab = backlog(&mut c, 1000, false);
        let (drops, _) = serve(&mut c, &mut slab, 700);
        let want = [
            105, 205, 255, 312, 361, 405, 445, 483, 518, 551, 582, 613, 641, 669, 696,
        ];
        assert_eq!(drops, want.map(|ms| ms * MS));
        // Re-entry, as in `reentering_soon_resumes_from_the_count_reached`.
        let mut c = CoDel::new(&newton);
        let mut slab = backlog(&mut c, 400, false);
        let (drops, _) = serve(&mut c, &mut slab, 340);
        assert_eq!(drops, [105, 205, 255, 312].map(|ms| ms * MS));
        assert_eq!(drain_then_backlog_at_400(&mut c, &mut slab), vec![505, 561]);
        assert_eq!(c.state().count(), 4);
    }

    #[test]
    fn overflow_and_validation_name_the_key() {
        let mut c = CoDel::new(&CoDelConfig {
            limit: QueueLimit::Packets(2),
            ..CoDelConfig::default()
        });
        let _ = backlog(&mut c, 2, false);
        let p = Packet::new(Addr(0), Addr(1), Body::Udp { seq: 0, payload: 0 });
        assert_eq!(c.enqueue(Time::ZERO, 9, &p), Err(DropReason::Overflow));
        let bad = |c: CoDelConfig| c.validate().unwrap_err().0;
        let t = |ms| Dur::from_millis(ms);
        assert_eq!(
            bad(CoDelConfig {
                target: t(0),
                ..Default::default()
            }),
            "target"
        );
        assert_eq!(
            bad(CoDelConfig {
                target: t(100),
                ..Default::default()
            }),
            "target"
        );
        assert_eq!(
            bad(CoDelConfig {
                interval: t(0),
                ..Default::default()
            }),
            "interval"
        );
        assert_eq!(
            bad(CoDelConfig {
                mtu: 0,
                ..Default::default()
            }),
            "mtu"
        );
        let c: CoDelConfig =
            toml::from_str("target = \"2ms\"\ninterval = \"50ms\"\necn = true").unwrap();
        assert_eq!((c.target, c.interval, c.ecn), (t(2), t(50), true));
        assert!(toml::from_str::<CoDelConfig>("targt = \"2ms\"").is_err());
        let c: CoDelConfig = toml::from_str("control_law = \"newton\"").unwrap();
        assert_eq!(c.control_law, CoDelLaw::Newton);
        assert!(toml::from_str::<CoDelConfig>("control_law = \"sqrt\"").is_err());
    }
}
