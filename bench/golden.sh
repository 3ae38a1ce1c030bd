#!/usr/bin/env bash
# Fixed-seed outputs, before and after a change: the expected data is stored in the
# repository (bench/golden/data/, plain CSV/JSON), so a difference shows as a diff.
#
#   bench/golden.sh            runs the fixed set below and compares with bench/golden/data/
#   bench/golden.sh --record   runs it and rewrites bench/golden/data/
#   bench/golden.sh --full     instead the full (non-quick) `reproduce all` (about 3 minutes),
#                              compared with bench/golden/data-full/ (--record rewrites it)
#
# The set: every scenario in scenarios/ at seeds 1 and 7, a few overrides that reach the
# other code paths (SACK, loss, outages, ECN/RED, multihomed loss), and `reproduce all --quick`.
# ./test.sh runs it (about 30 s on 2 cores).
#
# What is stored, per output file (report prose is not compared):
# - every CSV and JSON as written, except:
# - summary.json without its wall-clock line;
# - checks.csv: only the data columns (id, kind, verdict, measured, and ns2_verdict, ns2_measured
#   when present); the claim, tolerance, statistic and note columns are prose;
# - a sweep's results.csv (columns ...,metric,n,missing,mean,std_dev,...): the key columns
#   and n, missing, mean, min, max, for the study's own metrics (names without a dot) and
#   `events` (the run's event count, which moves when anything in the run moves); the
#   scenario-summary metrics (flows.*, queues.*, ...) are left out for size;
# - a sweep's runs.csv in long form (...,replication,seed,metric,value): left out, its
#   per-point means, minima and maxima are in results.csv.
# report.md, index.html and the SVG figures are not compared.
# A difference is printed as a unified diff (stored, then now); explain each one in the
# commit or fix it.
set -euo pipefail
cd "$(dirname "$0")/.."
record=0 full=0
for a in "$@"; do
  case "$a" in
    --record) record=1 ;;
    --full) full=1 ;;
    *) echo "usage: bench/golden.sh [--record] [--full]" >&2; exit 2 ;;
  esac
done
bin=${PACKETSIM:-${CARGO_TARGET_DIR:-target}/release/packetsim}
[ -n "${PACKETSIM:-}" ] || cargo build --release -q -p packetsim-cli
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() { # name file args...
  local name=$1 file=$2; shift 2
  "$bin" run "$file" --quiet --out "$out/raw/run/$name" "$@"
}
if [ "$full" = 0 ]; then
  for s in scenarios/*.toml; do
    n=$(basename "$s" .toml)
    run "$n-seed1" "$s" --seed 1
    run "$n-seed7" "$s" --seed 7
  done
  run dumbbell-sack-loss scenarios/dumbbell.toml --seed 3 --set tcp.variant=sack \
    --set links.bottleneck.loss=0.01
  run dumbbell-tahoe-outage scenarios/dumbbell.toml --seed 3 --set tcp.variant=tahoe \
    --set 'links.bottleneck.outages=[{from="5s",to="6.5s"}]'
  run dumbbell-reno-red-ecn scenarios/dumbbell.toml --seed 5 --set tcp.variant=reno \
    --set tcp.ecn=true --set 'links.bottleneck.queue={kind="red",red={min_th=5,max_th=15,max_p=0.1,limit=50,ecn="standard"}}'
  run sctp-lossy scenarios/sctp-multihoming.toml --seed 2 --set links.path0_core.loss=0.04 \
    --set links.path1_core.loss=0.02
  "$bin" reproduce all --quick --out "$out/raw/reproduce-quick" > /dev/null
  want=bench/golden/data
else
  "$bin" reproduce all --out "$out/raw/reproduce" > /dev/null
  want=bench/golden/data-full
fi

# The stored form of one output file (see the header).
trim() { # src dst
  local src=$1 dst=$2 header
  mkdir -p "$(dirname "$dst")"
  header=$(head -n 1 "$src")
  case "$(basename "$src")" in
    summary.json) sed '/"wall_time_s"/d' "$src" > "$dst"; return ;;
    checks.csv) python3 - "$src" "$dst" <<'PY'; return ;;
import csv, sys
with open(sys.argv[1], newline="") as f:
    rows = list(csv.reader(f))
keep = [i for i, h in enumerate(rows[0])
        if h in ("id", "kind", "verdict", "measured", "ns2_verdict", "ns2_measured")]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    for r in rows:
        w.writerow([r[i] for i in keep])
PY
  esac
  if [[ ",$header," == *",metric,n,missing,mean,std_dev,"* ]]; then
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; m = col["metric"] }
      { line = ""; for (i = 1; i <= m; i++) line = line $i ",";
        v = $m; if (NR > 1 && v ~ /\./ && v != "events") next;
        print line $(col["n"]) "," $(col["missing"]) "," $(col["mean"]) "," $(col["min"]) "," $(col["max"]) }' \
      "$src" > "$dst"
  elif [[ ",$header," == *",replication,seed,metric,value,"* ]]; then
    return
  else
    cp "$src" "$dst"
  fi
}
mkdir -p "$out/now"
(cd "$out/raw" && find . -type f \( -name '*.csv' -o -name '*.json' \) | LC_ALL=C sort) |
  while read -r f; do trim "$out/raw/$f" "$out/now/$f"; done
n=$(find "$out/now" -type f | wc -l)
if [ "$record" = 1 ]; then
  rm -rf "$want"
  mkdir -p "$(dirname "$want")"
  cp -r "$out/now" "$want"
  echo "recorded $n files ($(du -sh "$want" | cut -f1)) in $want"
  exit 0
fi
if [ ! -d "$want" ]; then
  echo "golden: no stored data in $want: record it with --record" >&2
  exit 1
fi
if diff -r -u "$want" "$out/now" > "$out/diff"; then
  echo "golden: $n files identical to $want"
else
  echo "golden: outputs differ from $want (--- stored, +++ now):"
  cat "$out/diff"
  exit 1
fi
