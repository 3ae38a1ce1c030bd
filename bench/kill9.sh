#!/usr/bin/env bash
# The kill -9 campaign of issue 16 (docs/reliability.md): `run`, `sweep` and `reproduce` are
# killed with SIGKILL at random points, over and over, in the same output folder. After each
# kill the folder must be either complete (`packetsim verify` passes) and identical to an
# uninterrupted run's, or incomplete (`verify` fails); never a manifest over mixed files.
# A command that finished before its kill starts a new cycle in an emptied folder. After the
# kills each command is run to the end (a sweep or reproduction resumes from its
# store) and its files must equal the uninterrupted run's: no result lost or duplicated.
#
#   bench/kill9.sh [KILLS_PER_COMMAND] [SEED]     defaults 20 1 (60 kills in all)
#
# Compared: every file but the lock, manifest, pending record, temporaries and SQLite stores;
# summary.json without its wall-clock line.
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${1:-20} seed=${2:-1}
bin=${PACKETSIM:-target/release/packetsim}
[ -n "${PACKETSIM:-}" ] || cargo build --release -q -p packetsim-cli
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
RANDOM=$seed

snap() { # dir -> one line per file: sha256 and path
  (cd "$1" && find . -type f ! -name '.*' ! -name manifest.txt ! -name '*sqlite*' \
    | LC_ALL=C sort | while read -r f; do
      if [ "${f##*/}" = summary.json ]; then sed '/"wall_time_s"/d' "$f" | sha256sum | sed "s|-|$f|"
      else sha256sum "$f"; fi
    done)
}

# campaign NAME VERIFY_SUBDIR COMMAND... (COMMAND's output folder is $out)
total_kills=0 total_complete=0 total_incomplete=0 total_finished=0
campaign() {
  local name=$1 sub=$2; shift 2
  local ref=$work/$name-ref out=$work/$name
  local t0; t0=$(date +%s%N)
  "$bin" "${@//@OUT@/$ref}" > /dev/null 2>&1
  # Kill delays are drawn from 0 to the uninterrupted command's own wall time.
  local max_ms=$(( ($(date +%s%N) - t0) / 1000000 + 1 ))
  "$bin" verify "$ref/$sub" > /dev/null
  local want; want=$(snap "$ref")
  local complete=0 incomplete=0 finished=0
  for ((i = 0; i < kills; i++)); do
    local ms=$(( (RANDOM * 32768 + RANDOM) % max_ms ))
    "$bin" "${@//@OUT@/$out}" > /dev/null 2>&1 &
    local pid=$!
    sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
    local was_done=0
    if kill -0 "$pid" 2> /dev/null; then kill -9 "$pid" 2> /dev/null || true; else was_done=1; fi
    wait "$pid" 2> /dev/null || true
    if "$bin" verify "$out/$sub" > /dev/null 2>&1; then
      complete=$((complete + 1))
      if [ "$(snap "$out")" != "$want" ]; then
        echo "FAIL $name kill $i at ${ms} ms: verify passes but the files differ from an uninterrupted run" >&2
        diff <(snap "$out") <(printf '%s\n' "$want") >&2 || true
        exit 1
      fi
    else
      incomplete=$((incomplete + 1))
    fi
    # A sweep or reproduction resumed often enough finishes before the next kill; then the
    # folder is cleared so that the next kills land mid-work again (a new cycle).
    if [ "$was_done" = 1 ]; then finished=$((finished + 1)); rm -rf "$out"; fi
  done
  "$bin" "${@//@OUT@/$out}" > /dev/null 2>&1
  "$bin" verify "$out/$sub" > /dev/null
  if [ "$(snap "$out")" != "$want" ]; then
    echo "FAIL $name: after the kills, the finished folder differs from an uninterrupted run" >&2
    diff <(snap "$out") <(printf '%s\n' "$want") >&2 || true
    exit 1
  fi
  echo "$name: $kills kills (delays 0-${max_ms} ms): $complete complete and identical, $incomplete incomplete, $finished had finished (new cycle); resumed to the end: identical"
  total_kills=$((total_kills + kills)) total_complete=$((total_complete + complete))
  total_incomplete=$((total_incomplete + incomplete)) total_finished=$((total_finished + finished))
}

sc=scenarios/dumbbell.toml
# The reference and the killed runs use the same seed; `run` alternates nothing, so a folder
# found complete must equal the reference byte for byte.
campaign run . run "$sc" --quiet --seed 3 --set 'simulation.duration="20s"' \
  --set links.bottleneck.loss=0.01 --pcap @OUT@/pcap --out @OUT@
campaign sweep . sweep "$sc" --param tcp.variant=reno,sack,newreno,tahoe --runs 5 \
  --jobs 2 --set 'simulation.duration="10s"' --set links.bottleneck.loss=0.01 --out @OUT@
campaign reproduce diffserv-ecn reproduce diffserv-ecn --quick --jobs 2 --out @OUT@
echo "kill -9: $total_kills kills, $total_complete complete and identical, $total_incomplete incomplete (no manifest), $total_finished had finished before the kill; 0 mixed; every command resumed to results identical to an uninterrupted run"
