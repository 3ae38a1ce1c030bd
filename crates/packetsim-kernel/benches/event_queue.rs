//! The event queue alone, on a hold model: N pending events; each step pops the earliest and
//! schedules one at its time plus a delay drawn from a dumbbell-like mix (zero delays and
//! delays on a coarse grid make many FIFO ties; a few long timers spread the times).
//!
//! Three queues, so that a change is judged in isolation and against what it replaced:
//!
//! - `radix`: [`packetsim_kernel::EventQueue`] (a monotone radix heap, the one in use);
//! - `binary_heap`: `std::collections::BinaryHeap` keyed on (time, seq), the queue before
//!   issue 15;
//! - `quad_heap`: a 4-ary heap keyed on (time, seq), the other candidate tried.
//!
//! A second group, `crowded`, holds all N pending events within a few microseconds (delays of
//! 1-3 us, as on a data-centre fat tree with many hosts): one slot of the radix heap then holds
//! thousands of events with many ties. The time per event must stay flat as N grows (an
//! earlier queue change was quadratic there and was reverted: 150578c in the log).
//!
//! `cargo bench -p packetsim-kernel --bench event_queue`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use packetsim_kernel::{EventQueue, Time};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;

/// An event of the simulator's size (12 bytes, `Copy`).
type Ev = [u32; 3];

/// Steps per measured iteration.
const STEPS: u64 = 10_000;

/// The queue operations the hold model needs.
trait Queue {
    fn new() -> Self;
    fn schedule(&mut self, t: u64, e: Ev);
    fn pop(&mut self) -> Option<(u64, Ev)>;
}

impl Queue for EventQueue<Ev> {
    fn new() -> Self {
        EventQueue::new()
    }
    #[inline]
    fn schedule(&mut self, t: u64, e: Ev) {
        EventQueue::schedule(self, Time(t), e)
    }
    #[inline]
    fn pop(&mut self) -> Option<(u64, Ev)> {
        EventQueue::pop(self).map(|(t, e)| (t.0, e))
    }
}

/// The queue before issue 15: a binary max-heap on reversed (time, seq).
struct StdHeap {
    heap: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    seq: u64,
}

impl Queue for StdHeap {
    fn new() -> Self {
        StdHeap {
            heap: BinaryHeap::with_capacity(1024),
            seq: 0,
        }
    }
    #[inline]
    fn schedule(&mut self, t: u64, e: Ev) {
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, e)));
    }
    #[inline]
    fn pop(&mut self) -> Option<(u64, Ev)> {
        self.heap.pop().map(|Reverse((t, _, e))| (t, e))
    }
}

/// A 4-ary min-heap on (time, seq), hole-based sift up and down.
struct QuadHeap {
    v: Vec<(u64, u64, Ev)>,
    seq: u64,
}

impl Queue for QuadHeap {
    fn new() -> Self {
        QuadHeap {
            v: Vec::with_capacity(1024),
            seq: 0,
        }
    }
    #[inline]
    fn schedule(&mut self, t: u64, e: Ev) {
        self.seq += 1;
        let item = (t, self.seq, e);
        let key = (t, self.seq);
        let mut i = self.v.len();
        self.v.push(item);
        while i > 0 {
            let p = (i - 1) / 4;
            if (self.v[p].0, self.v[p].1) <= key {
                break;
            }
            self.v[i] = self.v[p];
            i = p;
        }
        self.v[i] = item;
    }
    #[inline]
    fn pop(&mut self) -> Option<(u64, Ev)> {
        let last = self.v.pop()?;
        if self.v.is_empty() {
            return Some((last.0, last.2));
        }
        let top = self.v[0];
        let n = self.v.len();
        let key = (last.0, last.1);
        let mut i = 0;
        loop {
            let c = 4 * i + 1;
            if c >= n {
                break;
            }
            let mut m = c;
            let end = (c + 4).min(n);
            for j in c + 1..end {
                if (self.v[j].0, self.v[j].1) < (self.v[m].0, self.v[m].1) {
                    m = j;
                }
            }
            if (self.v[m].0, self.v[m].1) >= key {
                break;
            }
            self.v[i] = self.v[m];
            i = m;
        }
        self.v[i] = last;
        Some((top.0, top.2))
    }
}

/// xorshift64*: a fixed stream of delays, the same for every queue.
struct Delays(u64);

impl Delays {
    #[inline]
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A dumbbell-like delay in ns: zero (same instant), a serialization time at 1 Gb/s on a
    /// 12 µs grid, an access hop (1 ms + 12 µs), a bottleneck hop with queueing on a 120 µs
    /// grid, or a retransmission timer.
    #[inline]
    fn next(&mut self) -> u64 {
        let r = self.next_u64();
        let (a, b) = (r % 100, (r >> 32) % 1000);
        match a {
            0..=14 => 0,
            15..=54 => 12_000 * (1 + b % 8),
            55..=84 => 1_012_000,
            85..=96 => 10_120_000 + 120_000 * (b % 100),
            _ => 200_000_000 + 1_000_000 * b,
        }
    }

    /// A hop in a crowded data centre: 1-3 us in whole ns (many ties among N pending).
    #[inline]
    fn crowded(&mut self) -> u64 {
        1_000 + self.next_u64() % 2_000
    }
}

fn hold<Q: Queue>(q: &mut Q, d: &mut Delays, steps: u64, delay: fn(&mut Delays) -> u64) -> u64 {
    let mut acc = 0u64;
    for _ in 0..steps {
        let (t, e) = q.pop().expect("hold model never empties");
        acc = acc.wrapping_add(e[0] as u64);
        q.schedule(t + delay(d), [e[0].wrapping_add(1), e[1], e[2]]);
    }
    acc
}

fn filled<Q: Queue>(n: usize, delay: fn(&mut Delays) -> u64) -> (Q, Delays) {
    let mut q = Q::new();
    let mut d = Delays(0x9e37_79b9_7f4a_7c15);
    for i in 0..n {
        q.schedule(delay(&mut d), [i as u32, 0, 0]);
    }
    // Warm up to the steady state of the hold model.
    hold(&mut q, &mut d, 20 * n as u64, delay);
    (q, d)
}

fn bench_one<Q: Queue>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    n: usize,
    delay: fn(&mut Delays) -> u64,
) {
    let (mut q, mut d) = filled::<Q>(n, delay);
    g.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
        b.iter(|| black_box(hold(&mut q, &mut d, STEPS, delay)))
    });
}

fn event_queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("hold");
    g.throughput(Throughput::Elements(STEPS));
    for n in [300usize, 3_000, 100_000] {
        bench_one::<EventQueue<Ev>>(&mut g, "radix", n, Delays::next);
        bench_one::<StdHeap>(&mut g, "binary_heap", n, Delays::next);
        bench_one::<QuadHeap>(&mut g, "quad_heap", n, Delays::next);
    }
    g.finish();
    let mut g = c.benchmark_group("crowded");
    g.throughput(Throughput::Elements(STEPS));
    for n in [1_000usize, 10_000, 100_000] {
        bench_one::<EventQueue<Ev>>(&mut g, "radix", n, Delays::crowded);
        bench_one::<StdHeap>(&mut g, "binary_heap", n, Delays::crowded);
    }
    g.finish();
}

criterion_group!(benches, event_queue);
criterion_main!(benches);
