#!/usr/bin/env bash
# The long fuzz run of issues 16 and 38 (docs/reliability.md): seeded mutants of every scenario
# in scenarios/ and scenarios/workloads/ through load, budget check and build (what `check`
# does), some through a whole run (what `run` does). Mutations include the type-aware ones of
# issue 38: a value of the line's own type at and beyond the edges of its range (durations,
# rates, byte counts, counts up to 2^64, floats to 1e308), huge counts of the keys that size
# allocations, and special files (a FIFO, a folder, devices, paths out of the folder) as a
# scenario's data file.
#
#   bench/fuzz.sh [CASES] [RUNS] [SEED]     defaults 100000 10000 1
#
# Memory is bounded by ulimit -v (4 GiB: an allocation beyond the budget aborts the pass) and
# time by timeout (60 min) for the whole pass; the test fails on the first panic (printing the
# mutant), on any refusal without line and key, and on any accepted value outside the
# documented bounds and relations. Niced: the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-100000} runs=${2:-10000} seed=${3:-1}
cargo test --release -q -p packetsim --test integration --no-run
ulimit -v $((4 << 20))
PACKETSIM_FUZZ_CASES=$cases PACKETSIM_FUZZ_RUNS=$runs PACKETSIM_FUZZ_SEED=$seed \
  nice -n 10 timeout 3600 cargo test --release -q -p packetsim --test integration \
  fuzz::mutated_scenarios -- --nocapture
