#!/usr/bin/env bash
# Runs wireless.tcl over the fixed-window grid (every radio rate of spec 2 §3 x 4, 8, 16, 64
# packets) and writes data/ns2.jsonl; then compare.py writes results.md. Needs ns-2.35 (`ns`;
# bench/setup.sh installs it). About a minute on one core.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > data/ns2.jsonl
for r in 100 200 400 600 800 1000 1200 1400 1600 1800 2000; do
  for w in 4 8 16 64; do
    (cd "$tmp" && ns "$OLDPWD/wireless.tcl" "$r" "$w") >> data/ns2.jsonl
  done
done
python3 compare.py > results.md
