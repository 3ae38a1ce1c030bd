//! Criterion benchmarks of the `packetsim bench` workloads, shortened to 5 simulated seconds so
//! that a sample takes well under a second. `packetsim bench` runs the full 60 s versions and
//! reports events and packets per wall-second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use packetsim::bench::dumbbell_toml;
use packetsim::scenario;

fn dumbbell(c: &mut Criterion) {
    let mut g = c.benchmark_group("dumbbell_5s");
    g.sample_size(10);
    for n in [10u32, 100] {
        let sc =
            scenario::load_str(&dumbbell_toml(n, 5.0), "bench", &[]).expect("bench scenario loads");
        let delivered: u64 = scenario::run(&sc, 1)
            .expect("runs")
            .world
            .flows
            .iter()
            .map(|f| f.data_packets_delivered)
            .sum();
        g.throughput(Throughput::Elements(delivered));
        g.bench_function(format!("{n}_flows"), |b| {
            b.iter(|| scenario::run(&sc, 1).expect("runs").info.events)
        });
    }
    g.finish();
}

criterion_group!(benches, dumbbell);
criterion_main!(benches);
