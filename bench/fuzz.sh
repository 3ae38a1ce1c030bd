#!/usr/bin/env bash
# The long fuzz run of issue 16 (docs/reliability.md): seeded mutants of every scenario in
# scenarios/ through load, budget check and build, some through a whole run.
#
#   bench/fuzz.sh [CASES] [RUNS] [SEED]     defaults 100000 10000 1
#
# Memory is bounded by ulimit -v (4 GiB) and time by timeout (30 min) for the whole pass; the
# test fails on the first panic (printing the mutant), on any refusal without line and key, and
# on any accepted value outside the documented bounds and relations.
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-100000} runs=${2:-10000} seed=${3:-1}
cargo test --release -q -p packetsim --test integration --no-run
ulimit -v $((4 << 20))
PACKETSIM_FUZZ_CASES=$cases PACKETSIM_FUZZ_RUNS=$runs PACKETSIM_FUZZ_SEED=$seed \
  timeout 1800 cargo test --release -q -p packetsim --test integration \
  fuzz::mutated_scenarios -- --nocapture
