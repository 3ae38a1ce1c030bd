#!/usr/bin/env bash
# Bianchi-style saturation in ns-2.35: N in {1,2,5,10,20,50} stations x SEEDS seeds of
# saturation.tcl (20 s measured after 5 s warm-up, 1000-byte UDP payloads), one JSON line per
# run into data/ns2_saturation.jsonl; then saturation.py writes the table (with bianchi.py's
# model beside it) to data/saturation.md. Raw stdout/stderr of each run go to
# $WIFI_RAW (default /tmp/ns2/wifi), outside the repository. JOBS runs in parallel (default 2).
# About 2 minutes of CPU at 10 seeds (N = 50 is 5 s a run).
set -euo pipefail
cd "$(dirname "$0")"
source ./ensure_ns2.sh
SEEDS=${SEEDS:-10}
JOBS=${JOBS:-2}
NS_LIST=${NS_LIST:-"1 2 5 10 20 50"}
RAW=${WIFI_RAW:-/tmp/ns2/wifi}/saturation
mkdir -p "$RAW" data
here=$PWD
for n in $NS_LIST; do
  for s in $(seq 1 "$SEEDS"); do echo "$n $s"; done
done | xargs -P "$JOBS" -n 2 sh -c \
  'cd "$1" && ns "$2/saturation.tcl" "$3" "$4" > "n$3_s$4.out" 2> "n$3_s$4.err"' _ "$RAW" "$here"
for n in $NS_LIST; do
  for s in $(seq 1 "$SEEDS"); do
    grep -h '^{' "$RAW/n${n}_s${s}.out" || { echo "wifi: run n=$n seed=$s printed no result (see $RAW/n${n}_s${s}.err)" >&2; exit 1; }
  done
done > data/ns2_saturation.jsonl
python3 saturation.py data/ns2_saturation.jsonl > data/saturation.md
cat data/saturation.md
