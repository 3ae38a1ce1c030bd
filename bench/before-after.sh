#!/usr/bin/env bash
# Speed of two packetsim binaries on the same workloads, measured alternating in one run
# (before, after, before, after, ...), reported as medians and the after/before ratio of data
# packets per wall-second. For a refactor's "speed held" check.
#
#   bench/before-after.sh BEFORE_BIN AFTER_BIN [--repeat 7] [--duration 60] [--workloads dumbbell-10,dumbbell-100]
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,6p' "$0"; exit 2; }
before=$1 after=$2; shift 2
repeat=7 duration=60 workloads=dumbbell-10,dumbbell-100
while [ $# -gt 0 ]; do
  case "$1" in
    --repeat) repeat=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --workloads) workloads=$2; shift 2 ;;
    *) echo "before-after: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for w in ${workloads//,/ }; do
  for i in $(seq "$repeat"); do
    for which in before after; do
      bin=$before; [ "$which" = after ] && bin=$after
      printf '%s %s ' "$which" "$w" >> "$out"
      "$bin" bench --workload "$w" --duration "$duration" --json >> "$out"
    done
  done
done
python3 - "$out" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    which, w, js = line.split(' ', 2)
    r = json.loads(js)
    rows.setdefault((w, which), []).append(r)
print(f"{'workload':<14} {'before pkts/s':>14} {'after pkts/s':>14} {'ratio':>7}  {'delivered before/after':>24}")
for w in dict.fromkeys(k[0] for k in rows):
    b = [r['data_packets_per_s'] for r in rows[(w, 'before')]]
    a = [r['data_packets_per_s'] for r in rows[(w, 'after')]]
    db = {r['data_packets_delivered'] for r in rows[(w, 'before')]}
    da = {r['data_packets_delivered'] for r in rows[(w, 'after')]}
    mb, ma = statistics.median(b), statistics.median(a)
    print(f"{w:<14} {mb:>14,.0f} {ma:>14,.0f} {ma/mb:>7.3f}  {str(sorted(db)):>11} / {str(sorted(da))}")
PY
