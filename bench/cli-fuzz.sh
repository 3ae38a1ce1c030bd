#!/usr/bin/env bash
# CLI flag fuzzing for issue 16 (docs/reliability.md): bad values for --seed, --max-memory,
# --jobs, --runs, --max-runs, --shard, bench --duration/--flows, reproduce --runs, and bad
# --set/--param PATH=VALUE pairs. Every outcome must be success (0) or a clean error (exit 1,
# or 2 for a flag clap refuses) with "error" on stderr: never a panic (101), an abort (134),
# a signal, or a hang (20 s timeout per call).
#
#   bench/cli-fuzz.sh
set -uo pipefail
cd "$(dirname "$0")/.."
P=${PACKETSIM:-target/release/packetsim}
[ -n "${PACKETSIM:-}" ] || cargo build --release -q -p packetsim-cli
P=$(realpath "$P")
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cd "$w"
cat > good.toml <<'EOF'
[simulation]
duration = "1s"

[nodes.a]
[nodes.b]

[links.ab]
a = "a"
b = "b"
rate = "10Mbps"
delay = "5ms"

[flows.f]
from = "a"
to = "b"
app = "file"
size = "100KB"
EOF
vals=( "" "-1" "0" "1e308" "nan" "inf" "-0" "18446744073709551616" "99999999999999999999999"
  "abc" "1,2,,3" "=" "==" "a=b=c" "x" "\"" "'" "[" "{" "1GiB" "-5s" "1e-30s" "1e99 Gbps"
  "$(printf '\xff\xfe')" "$(head -c 300 /dev/zero | tr '\0' 'a')" "0/0" "1/0" "5/3" "-1/2"
  "1/-2" "00" "+3" " 7" )
keys=( "simulation.duration" "links.ab.rate" "links.ab.loss" "flows.f.count" "flows.f.size"
  "nosuch.key" "links.ab" "simulation" "" "." ".." "flows.f.app" "tcp.variant" "links.ab.queue" )
n=0 bad=0
try() {
  n=$((n + 1))
  timeout 20 "$P" "$@" > out.txt 2> err.txt
  local rc=$?
  if [ $rc -gt 2 ]; then
    bad=$((bad + 1)); echo "exit $rc: $*"; head -3 err.txt
  elif [ $rc -ne 0 ] && ! grep -q error err.txt; then
    bad=$((bad + 1)); echo "exit $rc without an error message: $*"
  fi
}
for v in "${vals[@]}"; do
  try run good.toml --quiet --out o --seed "$v"
  try run good.toml --quiet --out o --max-memory "$v"
  try sweep good.toml --out s --runs 1 --jobs "$v" --param simulation.seed=1
  try sweep good.toml --out s --runs "$v" --param simulation.seed=1
  try sweep good.toml --out s --runs 1 --max-runs "$v" --param simulation.seed=1
  try sweep good.toml --out s --runs 1 --shard "$v" --param simulation.seed=1
  try bench --duration "$v" --workload dumbbell-1
  try bench --flows "$v" --duration 0.01
  try reproduce sctp-multihoming --quick --out r --runs "$v" --jobs 1
  for k in "${keys[@]}"; do
    try check good.toml --set "$k=$v"
    try sweep good.toml --out s --runs 1 --param "$k=$v"
  done
done
echo "cli fuzz: $n invocations, $bad not a success or a clean error"
[ "$bad" = 0 ]
