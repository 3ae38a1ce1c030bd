#!/usr/bin/env bash
# Mobile IP handoff in ns-2.35: handoff.tcl at SPEEDS (m/s, default "10 20") x SEEDS seeds
# (default 10), LEGS legs of 400 m each (default 4, so 4 handoff episodes a run); handoff.py
# turns each trace into one JSON line (data/ns2_handoff.jsonl), handoff_table.py writes
# data/handoff.md. Traces (~2.5 MB per simulated second) go to $WIFI_RAW (default
# /tmp/ns2/wifi), outside the repository, and are deleted after parsing unless KEEP_TRACES=1.
# JOBS runs in parallel (default 1). About 20 s of CPU per run at 10 m/s.
set -euo pipefail
cd "$(dirname "$0")"
source ./ensure_ns2.sh
SEEDS=${SEEDS:-10}
JOBS=${JOBS:-1}
SPEEDS=${SPEEDS:-"10 20"}
LEGS=${LEGS:-4}
ROUTING=${ROUTING:-DSDV}
RAW=${WIFI_RAW:-/tmp/ns2/wifi}/handoff
mkdir -p "$RAW" data
here=$PWD
for v in $SPEEDS; do
  for s in $(seq 1 "$SEEDS"); do echo "$v $s"; done
done | xargs -P "$JOBS" -n 2 sh -c '
  raw=$1 here=$2 legs=$3 rp=$4 v=$5 s=$6
  b="$raw/v${v}_s${s}"
  (cd "$raw" && ns "$here/handoff.tcl" "$v" "$s" "$b.tr" "$legs" "$rp" > "$b.out" 2> "$b.err") &&
  python3 "$here/handoff.py" "$b.tr" "$b.out" "$b.err" > "$b.json" &&
  if [ "${KEEP_TRACES:-0}" != 1 ]; then rm -f "$b.tr"; fi' _ "$RAW" "$here" "$LEGS" "$ROUTING"
for v in $SPEEDS; do
  for s in $(seq 1 "$SEEDS"); do
    cat "$RAW/v${v}_s${s}.json" 2>/dev/null || { echo "wifi: handoff run v=$v seed=$s failed (see $RAW/v${v}_s${s}.err)" >&2; exit 1; }
  done
done > data/ns2_handoff.jsonl
python3 handoff_table.py data/ns2_handoff.jsonl > data/handoff.md
cat data/handoff.md
