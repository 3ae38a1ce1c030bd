#!/usr/bin/env bash
# Fig 8 (S4) in ns-2.35: outage.tcl for the fixed 16 KB window and the proposal emulation, at
# every outage length of spec 2 §3, 30 outage starts t0 in [20, 30) s (a golden-ratio
# sequence, so t0 takes every phase of the window's oscillation); writes data/ns2-outage.jsonl,
# then outage.py writes outage.md. Needs ns-2.35 (`ns`). About two minutes on one core.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > data/ns2-outage.jsonl
for d in 0.5 1 2 3 4 5 6 8 10; do
  for mode in fixed proposal; do
    for i in $(seq 1 30); do
      t0=$(python3 -c "print(f'{20 + 10 * (($i * 0.6180339887498949) % 1):.4f}')")
      (cd "$tmp" && ns "$OLDPWD/outage.tcl" "$mode" "$t0" "$d") >> data/ns2-outage.jsonl
    done
  done
done
python3 outage.py > outage.md
