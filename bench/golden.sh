#!/usr/bin/env bash
# Byte-identical outputs at fixed seeds, before and after a refactor.
#
#   bench/golden.sh            runs the fixed set below and compares with bench/golden/outputs.sha256
#   bench/golden.sh --record   runs it and rewrites bench/golden/outputs.sha256
#   bench/golden.sh --full     also the full (non-quick) `reproduce all` (about 3 minutes)
#
# The set: every scenario in scenarios/ at seeds 1 and 7, a few overrides that reach the
# other code paths (SACK, loss, outages, ECN/RED, multihomed loss), and `reproduce all --quick`.
# Hashed: every CSV and report.md, and summary.json without its wall-clock field.
# A difference is printed file by file; explain each one in the issue note or fix it.
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
bin=${PACKETSIM:-target/release/packetsim}
[ -n "${PACKETSIM:-}" ] || cargo build --release -q -p packetsim-cli
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() { # name file args...
  local name=$1 file=$2; shift 2
  "$bin" run "$file" --quiet --out "$out/run/$name" "$@"
}
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
"$bin" reproduce all --quick --out "$out/reproduce-quick" > /dev/null
if [ "$full" = 1 ]; then
  "$bin" reproduce all --out "$out/reproduce" > /dev/null
fi

# summary.json: drop the wall-clock line; everything else as written.
find "$out" -name summary.json -exec sed -i '/"wall_time_s"/d' {} +
sums=$(cd "$out" && find . -type f \( -name '*.csv' -o -name '*.md' -o -name '*.json' \) \
  | LC_ALL=C sort | xargs sha256sum)
want=bench/golden/outputs.sha256
[ "$full" = 0 ] || want=bench/golden/outputs-full.sha256
if [ "$record" = 1 ]; then
  printf '%s\n' "$sums" > "$want"
  echo "recorded $(printf '%s\n' "$sums" | wc -l) files in $want"
  exit 0
fi
if diff <(printf '%s\n' "$sums") "$want" > "$out/diff"; then
  echo "golden: $(printf '%s\n' "$sums" | wc -l) files byte-identical to $want"
else
  echo "golden: outputs differ from $want (< now, > recorded):"
  cat "$out/diff"
  exit 1
fi
