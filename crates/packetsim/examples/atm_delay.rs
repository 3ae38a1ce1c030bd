//! Study 1's main experiment (spec 1 §3.1, `AtmNetConfig::paper`) on the world, as `reproduce
//! atm-tcp` runs it (`studies::atm_tcp::run_on_world`), with a propagation delay of D slots on
//! the switch-to-receiver path and on each ACK path (the atm link's delay, both directions): the packetsim side of the
//! delay-line sweep in bench/validate/yats/README.md ("A delay line fitted to the printed
//! statistics?"), to compare with the YATS harness's `DELAY=D`.
//!
//!     cargo run --release -p packetsim --example atm_delay -- B T SEEDS D...
//!
//! One line per run, in the columns of bench/validate/yats/sweep.sh:
//! `D RTOmin_s seed B T WND load cells_lost idle_gaps median_gap 0 goodput1_bps goodput2_bps
//! timeouts1`
//! (idle gaps: runs of at least 1000 slots with no cell queued or arriving at the switch;
//! seeds are `reproduce atm-tcp`'s: seed k is its repetition k − 1).

use packetsim::atm::Discard;
use packetsim::studies::atm_tcp::{config::AtmNetConfig, run_on_world};
use packetsim_kernel::rng::mix_seed;
use packetsim_kernel::Dur;

/// `reproduce atm-tcp`'s base seed (studies/atm_tcp/mod.rs).
const BASE_SEED: u64 = 0x1A7;

fn arg<T: std::str::FromStr>(s: &str, what: &str) -> T {
    s.parse().unwrap_or_else(|_| {
        eprintln!("atm_delay: {what}: expected a whole number; got {s:?}");
        eprintln!("usage: atm_delay B T SEEDS D...");
        std::process::exit(2)
    })
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() < 4 {
        eprintln!("usage: atm_delay B T SEEDS D... (switch buffer, EPD threshold, seeds, delays in slots)");
        std::process::exit(2);
    }
    let b: u32 = arg(&a[0], "B");
    let t: u32 = arg(&a[1], "T");
    let seeds: u64 = arg(&a[2], "SEEDS");
    for d in a[3..].iter().map(|s| arg::<u64>(s, "D")) {
        for (rto, label) in [(450u64, "0.45"), (100, "0.1")] {
            for rep in 0..seeds {
                let mut c = AtmNetConfig::paper(Dur::from_millis(rto));
                c.seed = mix_seed(&[BASE_SEED, rep]);
                c.trace_bin = 0;
                c.switch.buffer = b;
                c.switch.discard = Discard::Epd {
                    threshold: t,
                    keep_eof: false,
                };
                c.prop = Dur(c.slot.0 * d);
                let r = run_on_world(&c).unwrap_or_else(|e| {
                    eprintln!("atm_delay: {e}");
                    std::process::exit(1)
                });
                let mut gaps = r.idle_gaps.clone();
                gaps.sort_unstable();
                let median = gaps.get(gaps.len() / 2).copied().unwrap_or(0);
                let secs = r.elapsed().0 as f64 * 1e-9;
                let goodput = |k: usize| r.conns[k].delivered as f64 * 8.0 / secs;
                println!(
                    "{d} {label} {} {b} {t} {} {:.6} {} {} {median} 0 {:.1} {:.1} {}",
                    rep + 1,
                    c.tcp.rcv_window,
                    r.load(),
                    r.switch.dropped(),
                    r.idle_gaps.len(),
                    goodput(0),
                    goodput(1),
                    r.conns[0].timeouts,
                );
            }
        }
    }
}
