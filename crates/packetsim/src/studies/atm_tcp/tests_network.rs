//! Tests of the study's network on the world (`network.rs`).

use super::config::{AtmNetConfig, AtmRunResult, TracePoint};
use crate::atm::switch::SwitchStats;
use crate::atm::Discard;
use crate::studies::atm_tcp::run_on_world;
use packetsim_kernel::Dur;

/// Mean and standard error of the mean.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

/// Spec 1 §3.1's main experiment at RTOmin 450 and 100 ms (EPD, T = 600) over 200,000 slots,
/// switch load over seeds 1..=n on the world.
fn loads(ms: u64, n: u64) -> Vec<f64> {
    (1..=n)
        .map(|seed| {
            let mut c = AtmNetConfig::paper(Dur::from_millis(ms));
            c.slots = 200_000;
            c.seed = seed;
            c.trace_bin = 0;
            run_on_world(&c).unwrap().load()
        })
        .collect()
}

/// Welch's statistic for the difference of two means.
fn welch(a: &[f64], b: &[f64]) -> f64 {
    let ((ma, sa), (mb, sb)) = (mean_se(a), mean_se(b));
    (ma - mb) / (sa * sa + sb * sb).sqrt().max(1e-12)
}

/// Spec 1 §5.1 S7's direction on the world: RTOmin 100 ms gives a higher switch load than
/// 450 ms, by more than 3.5 standard errors over 20 seeds (Welch). (Until commit ff13d99
/// this test also compared the world with the study's former engine `atm/sim.rs` as
/// distributions over the same seeds; the numbers it then matched exactly are in
/// `run_on_world_gives_the_numbers_recorded_against_the_engine`.)
#[test]
fn rto_min_100_ms_raises_the_load_over_seeds() {
    let z = welch(&loads(100, 20), &loads(450, 20));
    assert!(z > 3.5, "RTOmin 100 ms vs 450 ms: z = {z:.2}");
}

/// `run_on_world` fills the study's statistics from the world: the cells sent by the switch
/// are the load's numerator, every connection ran, the counters are consistent (bytes
/// delivered at most bytes sent; cell-loss frames only if cells were dropped), and the
/// same configuration and seed give the same result.
#[test]
fn run_on_world_fills_the_studys_statistics() {
    let mut c = AtmNetConfig::paper(Dur::from_millis(100));
    c.slots = 100_000;
    let r = run_on_world(&c).unwrap();
    assert_eq!((r.slots, r.slot), (100_000, Dur::from_micros(20)));
    assert_eq!(r.conns.len(), 2);
    assert!(r.switch.sent > 0 && r.switch.sent <= r.slots);
    assert!(r.switch.dropped() > 0, "two senders overload the output");
    assert!(r.frames_lost > 0);
    for k in &r.conns {
        assert!(k.delivered > 0 && k.delivered <= k.bytes_sent, "{k:?}");
        assert!(k.timeouts > 0 && k.data_frames > 0, "{k:?}");
    }
    let again = run_on_world(&c).unwrap();
    assert_eq!((again.switch, again.conns), (r.switch, r.conns));
    c.warmup_slots = c.slots;
    assert!(run_on_world(&c).unwrap_err().contains("warm-up"));
}

/// The warm-up and the trace read the world part-way: a run is the same whatever its
/// length up to any instant (nothing in it depends on the end time), so bytes delivered
/// by the end of the warm-up are those of a run that ends there, and sender 1's bytes
/// sent by the end of the last trace bin are those of a run as long as the trace. The
/// trace's bins add up (`sent1_bin`), start on the bin grid, and the per-slot queue
/// mean never exceeds the largest queue of the run.
#[test]
fn run_on_world_warmup_and_trace_read_the_world_part_way() {
    let mut c = AtmNetConfig::paper(Dur::from_millis(100));
    c.slots = 100_000;
    c.trace_bin = 500;
    c.trace_slots = 60_000;
    c.warmup_slots = 40_000;
    let r = run_on_world(&c).unwrap();
    let mut head = c.clone();
    head.warmup_slots = 0;
    head.trace_bin = 0;
    head.slots = 40_000;
    let h = run_on_world(&head).unwrap();
    head.slots = 60_000;
    let h60 = run_on_world(&head).unwrap();
    for (k, (full, part)) in r.conns.iter().zip(&h.conns).enumerate() {
        assert!(part.delivered > 0, "conn {k}: {part:?}");
        assert_eq!(
            full.delivered_after_warmup,
            full.delivered - part.delivered,
            "conn {k}"
        );
    }
    assert_eq!(r.trace.len(), 120);
    assert!(r
        .trace
        .iter()
        .enumerate()
        .all(|(k, p)| p.slot == 500 * k as u64));
    let last = r.trace.last().unwrap();
    assert_eq!(last.sent1, h60.conns[0].bytes_sent);
    assert_eq!(r.trace.iter().map(|p| p.sent1_bin).sum::<u64>(), last.sent1);
    assert!(r.trace.iter().any(|p| p.q_mean > 0.0));
    assert!(r
        .trace
        .iter()
        .all(|p| p.q_mean <= p.q_max as f64 && p.q_max <= r.switch.max_queue));
}

/// One case of [`run_on_world_gives_the_numbers_recorded_against_the_engine`]: the switch's
/// counters; per connection delivered, delivered after the warm-up, bytes sent, retransmits,
/// timeouts, spurious segments, source pauses; the trace's sums of q_max and q_mean and its
/// last point; the idle gaps.
type Recorded = (
    SwitchStats,
    [[u64; 7]; 2],
    (u64, f64, TracePoint),
    &'static [u64],
);

fn stats(
    arrived: u64,
    sent: u64,
    drops: [u64; 3],
    useless: u64,
    damaged: u64,
    max_queue: u32,
) -> SwitchStats {
    SwitchStats {
        arrived,
        sent,
        overflow: drops[0],
        ppd_tail: drops[1],
        epd_refusal: drops[2],
        useless,
        frames_damaged: damaged,
        max_queue,
    }
}

fn point(q_max: u32, q_mean: f64, sent1: u64, sent1_bin: u64) -> TracePoint {
    TracePoint {
        slot: 99_500,
        q_max,
        q_mean,
        sent1,
        sent1_bin,
    }
}

/// Spec 1 §3.1's main experiment under EPD at both RTOmin values and under PPD at 100 ms
/// (200,000 slots, seed 1, warm-up 50,000 slots, trace of the first 100,000 in 500-slot
/// bins): the switch's counters, per connection the bytes delivered (also after the
/// warm-up), sent, retransmits, timeouts, spurious segments and source pauses, the trace and
/// the idle intervals are the numbers recorded at commit ff13d99, where this test compared
/// the world with the study's former cell-level engine (`atm/sim.rs` with the world's random
/// streams, `Draws::World`) and found them equal, statistic for statistic. The engine
/// followed spec 1 §2.1 slot by slot on its own; what the world's slotted time base does
/// alike is now checked by these numbers and by the scripted tests of `world::slotted`
/// (timers) and `atm::port` (cells, same-slot orders).
#[test]
fn run_on_world_gives_the_numbers_recorded_against_the_engine() {
    let epd450: Recorded = (
        stats(33_220, 29_572, [0, 0, 3_648], 0, 19, 737),
        [
            [675_472, 547_680, 785_008, 9, 7, 1, 54],
            [675_472, 547_680, 794_136, 9, 7, 1, 55],
        ],
        (16_741, 11780.364000000001, point(0, 0.0, 392_504, 0)),
        &[21763, 21379, 21378, 21375, 21369, 21354, 21242],
    );
    let epd100: Recorded = (
        stats(138_136, 123_348, [0, 0, 14_436], 0, 87, 769),
        [
            [2_834_280, 2_240_960, 3_290_992, 49, 23, 7, 250],
            [2_817_220, 2_242_156, 3_283_060, 50, 23, 7, 240],
        ],
        (56_696, 43807.598, point(710, 628.018, 1_530_460, 9128)),
        &[
            4263, 3879, 3878, 3875, 3869, 3854, 3742, 3964, 3730, 3542, 3815, 3629, 3836, 3648,
            3818, 3630, 3830, 3641, 3822, 3635,
        ],
    );
    let ppd100: Recorded = (
        stats(146_426, 138_233, [74, 7_309, 0], 5_990, 74, 1000),
        [
            [3_369_060, 2_681_340, 3_840_256, 46, 20, 9, 308],
            [2_734_392, 2_086_304, 3_108_744, 41, 21, 8, 239],
        ],
        (
            89_367,
            75960.25400000003,
            point(1000, 939.148, 1_697_156, 14_484),
        ),
        &[
            3042, 3616, 2848, 3427, 3425, 3430, 3234, 3119, 3631, 3426, 2895, 3383, 3550, 3844,
            3232, 4058, 3688, 3276,
        ],
    );
    let mut ppd = AtmNetConfig::paper(Dur::from_millis(100));
    ppd.switch.discard = Discard::Ppd { keep_eof: false };
    let cases = [
        (AtmNetConfig::paper(Dur::from_millis(450)), epd450),
        (AtmNetConfig::paper(Dur::from_millis(100)), epd100),
        (ppd, ppd100),
    ];
    for (mut c, (switch, conns, (qmax, qmean, last), gaps)) in cases {
        c.slots = 200_000;
        c.trace_slots = 100_000;
        c.warmup_slots = 50_000;
        let w = run_on_world(&c).unwrap();
        let what = format!("{:?}", c.switch.discard);
        assert_eq!(w.switch, switch, "{what}");
        let key = |r: &AtmRunResult| -> Vec<[u64; 7]> {
            r.conns
                .iter()
                .map(|k| {
                    [
                        k.delivered,
                        k.delivered_after_warmup,
                        k.bytes_sent,
                        k.retransmits,
                        k.timeouts,
                        k.spurious,
                        k.source_pauses,
                    ]
                })
                .collect()
        };
        assert_eq!(key(&w), conns.to_vec(), "{what}");
        assert_eq!(w.trace.len(), 200);
        let sum_max: u64 = w.trace.iter().map(|p| u64::from(p.q_max)).sum();
        let sum_mean: f64 = w.trace.iter().map(|p| p.q_mean).sum();
        assert_eq!((sum_max, sum_mean), (qmax, qmean), "{what}");
        assert_eq!(w.trace.last(), Some(&last), "{what}");
        assert_eq!(w.idle_gaps, gaps, "{what}");
    }
}

/// Spec 1 §3.1's network with `conns` connections under plain discard for `slots` slots.
fn short(slots: u64, conns: u16) -> AtmNetConfig {
    let mut c = AtmNetConfig::paper(Dur::from_millis(100));
    c.slots = slots;
    c.connections = conns;
    c.switch.vcs = conns;
    c.switch.discard = Discard::Plain;
    c.trace_bin = 0;
    c
}

/// Spec 1 §2.1-2.3 on the world (the former engine's own test, `atm/sim.rs`
/// `one_cell_per_slot_and_conservation`): at most one cell per access link and per switch
/// output per slot, cells conserved at the switch (arrived = sent + dropped + still queued),
/// and one uncongested connection loses nothing and keeps the output busy nearly all the
/// time once its window opens; two connections overload the output 2:1 and lose cells. A
/// run is a function of its seed (spec §Q8).
#[test]
fn one_cell_per_slot_and_conservation() {
    let r = run_on_world(&short(200_000, 1)).unwrap();
    let s = r.switch;
    assert!(s.arrived <= r.slots && s.sent <= r.slots);
    assert_eq!((s.dropped(), r.frames_lost), (0, 0));
    assert!(
        s.arrived - s.sent <= 1,
        "the queue holds at most the last slot's cell"
    );
    assert!(r.load() > 0.8, "load {}", r.load());
    let r2 = run_on_world(&short(200_000, 2)).unwrap();
    let s = r2.switch;
    assert!(s.arrived <= 2 * r2.slots && s.sent <= r2.slots);
    assert!(s.dropped() > 0, "two senders overload the output 2:1");
    assert!(s.sent + s.dropped() <= s.arrived && s.arrived - s.sent - s.dropped() <= 1000);
    assert!(s.max_queue <= 1000);
    let again = run_on_world(&short(200_000, 2)).unwrap();
    assert_eq!((again.switch, again.conns), (r2.switch, r2.conns));
}
