#!/usr/bin/env bash
# The long fuzz campaign of issues 16 and 38 (docs/reliability.md, "Fuzzing"): seeded mutants
# of every scenario in scenarios/ and scenarios/workloads/ (type-aware: values of the line's
# own type at and beyond the edges of their range, huge counts of the keys that size
# allocations, special files and paths out of the folder; and the issue-16 mutations) through
# the `packetsim` command's `check`, and those accepted and simulating at most 60 s through
# `packetsim run --quiet` up to a cap. The test is packetsim-cli/tests/issue38.rs
# `mutants_through_check_and_run_never_panic_abort_or_hang`: it feeds the mutants to
# `packetsim batch` processes (the command line's own parser, dispatch and error text, many
# commands per process, so a case costs no process start) under `ulimit -v 4 GiB` and nice;
# a command that panics, aborts (the process dies; a new one takes the next mutant), gives no
# answer within the time limit, or refuses without file, line and key fails the chunk.
#
#   bench/fuzz.sh [CASES] [RUNS] [SEED] [CHUNK]     defaults 100000 10000 1 5000
#
# (A command with no answer in 10 minutes is a hang; one over 60 s is counted as slow.)
#
# The campaign runs in chunks of CHUNK mutants (chunk c uses seed SEED*1000+c and a run cap
# of RUNS/chunks); each chunk's result line is appended to the log as soon as the chunk ends
# (PACKETSIM_FUZZ_LOG, default target/fuzz/seed-SEED.log), and a rerun skips the chunks the
# log already has, so an interrupted campaign loses no finished chunk. Failing mutants are
# copied to target/fuzz/failures/. The last line sums the log.
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-100000} runs=${2:-10000} seed=${3:-1} chunk=${4:-5000}
target=${CARGO_TARGET_DIR:-target}
log=${PACKETSIM_FUZZ_LOG:-$target/fuzz/seed-$seed.log}
keep=$(dirname "$log")/failures
mkdir -p "$(dirname "$log")" "$keep"
touch "$log"
chunks=$(( (cases + chunk - 1) / chunk ))
run_cap=$(( (runs + chunks - 1) / chunks ))
# Mutants are written where writing is cheapest (the run's output sets are synced).
dir=${PACKETSIM_FUZZ_DIR:-$( [ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}" )}
# The test and the command are copied, so that a rebuild during the campaign changes nothing.
bin=$(dirname "$log")/bin
mkdir -p "$bin"
exe=$(nice -n 10 cargo test --release -q -p packetsim-cli --test issue38 --no-run \
        --message-format=json | sed -n 's/.*"executable":"\([^"]*issue38[^"]*\)".*/\1/p' | tail -1)
cp "$exe" "$bin/issue38"
cp "$target/release/packetsim" "$bin/packetsim"
for ((c = 0; c < chunks; c++)); do
  if grep -q "^chunk $c/$chunks " "$log"; then continue; fi
  n=$(( c == chunks - 1 ? cases - c * chunk : chunk ))
  start=$(date +%s)
  set +e
  out=$(PACKETSIM_FUZZ_CASES=$n PACKETSIM_FUZZ_RUNS=$run_cap PACKETSIM_FUZZ_SEED=$((seed * 1000 + c)) \
        PACKETSIM_FUZZ_DIR=$dir PACKETSIM_FUZZ_KEEP=$keep \
        PACKETSIM_FUZZ_BIN=$bin/packetsim \
        nice -n 10 "$bin/issue38" mutants_through_check_and_run --nocapture 2>&1)
  status=$?
  set -e
  line=$(grep -m1 '^cli fuzz:' <<< "$out" || echo "cli fuzz: no summary (status $status)")
  echo "chunk $c/$chunks status $status wall $(( $(date +%s) - start )) s: $line" | tee -a "$log"
  if [ "$status" != 0 ]; then
    grep -E '^(panic|abort|hang|unlocated|out of range|run error|differs): ' <<< "$out" \
      | sed "s/^/  chunk $c: /" | tee -a "$log" || true
  fi
done
# Totals over the chunks logged (this CASES/CHUNK split only).
grep "^chunk [0-9]*/$chunks " "$log" | awk '
  { for (i = 1; i <= NF; i++) {
      if ($i == "mutants") m += $(i-1)
      if ($i == "accepted") a += $(i-1)
      if ($i == "run),") r += substr($(i-1), 2)
      if ($i == "refused") f += $(i-1)
      if ($i == "failures;" || $i == "failures:") x += $(i-1)
      if ($i == "wall") w += $(i+1)
      if ($i == "slow") s += $(i-1)
      if ($i == "peak" && $(i+1) > p) p = $(i+1)
    } n++ }
  END { printf "fuzz campaign: %d chunks, %d mutants through check: %d accepted (%d run), %d refused with file, line and key; %d failures; %d commands slower than 60 s; %d s wall in all; peak %d KiB\n", n, m, a, r, f, x, s, w, p }'
