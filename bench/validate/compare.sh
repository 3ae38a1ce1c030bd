#!/usr/bin/env bash
# Validation of packetsim against ns-2.35 on scenarios/sctp-tcp-path.toml (path0's TCP transfer).
#
#   bench/validate/compare.sh            # from anywhere inside the repository
#
# Environment: PACKETSIM (default: <repo>/target/release/packetsim), NS (default: ns),
# RUNS (default 20), JOBS (parallel ns-2 runs, default: number of cores),
# TABLE_ONLY=1 (re-make the table from bench/validate/data without running anything).
# Writes bench/validate/data/{ns2_runs.jsonl,packetsim/} and bench/validate/results.md, and
# prints the table.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PACKETSIM="${PACKETSIM:-$ROOT/target/release/packetsim}"
NS="${NS:-ns}"
RUNS="${RUNS:-20}"
JOBS="${JOBS:-$(nproc)}"
LOSSES=(0 0.005 0.01 0.02 0.05)
VARIANTS=(reno sack)
DATA="$HERE/data"

if [[ ! -x "$PACKETSIM" ]]; then
    echo "packetsim not found at $PACKETSIM: cargo build --release -p packetsim-cli, or set PACKETSIM" >&2
    exit 1
fi
command -v "$NS" >/dev/null || { echo "ns-2 ('$NS') not found" >&2; exit 1; }
mkdir -p "$DATA"

if [[ "${TABLE_ONLY:-0}" != 1 ]]; then
# ---- ns-2: one process per (variant, loss, seed); seeds 1..RUNS ----
echo "ns-2: ${#LOSSES[@]} losses x ${#VARIANTS[@]} variants x $RUNS seeds, $JOBS at a time" >&2
jobs_file="$(mktemp)"
trap 'rm -f "$jobs_file"' EXIT
for l in "${LOSSES[@]}"; do
    for v in "${VARIANTS[@]}"; do
        for s in $(seq 1 "$RUNS"); do echo "$v $l $s"; done
    done
done >"$jobs_file"
# shellcheck disable=SC2016
xargs -P "$JOBS" -L 1 sh -c '"$0" "$1" "$2" "$3" "$4"' "$NS" "$HERE/sctp_tcp_path.tcl" \
    <"$jobs_file" >"$DATA/ns2_runs.jsonl.tmp"
sort "$DATA/ns2_runs.jsonl.tmp" >"$DATA/ns2_runs.jsonl"
rm -f "$DATA/ns2_runs.jsonl.tmp"

# ---- packetsim: one sweep over the same grid ----
echo "packetsim: sweep" >&2
rm -rf "$DATA/packetsim"
loss_list="$(IFS=,; echo "${LOSSES[*]}")"
variant_list="$(printf '"%s",' "${VARIANTS[@]}")"
(cd "$ROOT" && "$PACKETSIM" sweep scenarios/sctp-tcp-path.toml \
    --param "links.path0_core.loss=$loss_list" \
    --param "tcp.variant=${variant_list%,}" \
    --runs "$RUNS" --out "$DATA/packetsim" >&2)
rm -f "$DATA/packetsim/results.sqlite"   # the resumable store: large, not part of the record
# Keep only the metrics this comparison uses (runs.csv has every metric of every run).
for f in runs.csv results.csv; do
    { head -1 "$DATA/packetsim/$f"
      grep -E ',flows\.file\.(completion_time_s|retransmits|timeouts|fast_retransmits),' "$DATA/packetsim/$f"
    } >"$DATA/packetsim/$f.tmp"
    mv "$DATA/packetsim/$f.tmp" "$DATA/packetsim/$f"
done
fi

# ---- table ----
python3 - "$DATA/ns2_runs.jsonl" "$DATA/packetsim/results.csv" "$HERE/results.md" \
    "$("$PACKETSIM" --version 2>/dev/null || echo packetsim)" "$(git -C "$ROOT" rev-parse --short HEAD)" <<'PY'
import csv, json, math, statistics, sys
from collections import defaultdict

ns_file, ps_file, out_file, ps_version, commit = sys.argv[1:6]
# Student t, two-sided 95%, by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
       9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
       16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 25: 2.060, 30: 2.042}

def t95(df):
    if df in T95:
        return T95[df]
    return 1.96 if df > 30 else T95[max(k for k in T95 if k <= df)]

def summary(xs):
    n = len(xs)
    m = statistics.fmean(xs)
    half = t95(n - 1) * statistics.stdev(xs) / math.sqrt(n) if n > 1 else float("nan")
    return m, half

ns = defaultdict(lambda: defaultdict(list))
ns_missing = defaultdict(int)
for line in open(ns_file):
    r = json.loads(line)
    key = (float(r["loss"]), r["variant"])
    if not r["completed"]:
        ns_missing[key] += 1
        continue
    ns[key]["t"].append(r["completion_time_s"])
    ns[key]["rtx"].append(r["retransmits"])
    ns[key]["to"].append(r["timeouts"])

ps = defaultdict(dict)
for r in csv.DictReader(open(ps_file)):
    key = (float(r["links.path0_core.loss"]), r["tcp.variant"].strip('"'))
    m = r["metric"]
    if m in ("flows.file.completion_time_s", "flows.file.retransmits", "flows.file.timeouts"):
        ps[key][m] = (float(r["mean"]), float(r["mean"]) - float(r["ci95_low"]),
                      int(r["n"]), int(r["missing"]))

keys = sorted(set(ns) | set(ps))
lines = []
lines.append("| loss | variant | ns-2.35 mean ± 95% CI (s) | packetsim mean ± 95% CI (s) | ratio packetsim/ns-2 | CIs overlap | within 5% |")
lines.append("|---:|---|---:|---:|---:|---|---|")
for k in keys:
    nm, nh = summary(ns[k]["t"])
    pm, ph, pn, pmiss = ps[k]["flows.file.completion_time_s"]
    overlap = "yes" if abs(pm - nm) <= nh + ph + 1e-9 else "no"
    close = "yes" if abs(pm / nm - 1) <= 0.05 else "no"
    nn = len(ns[k]["t"])
    lines.append(f"| {k[0]:g} | {k[1]} | {nm:.3f} ± {nh:.3f} (n={nn}) | {pm:.3f} ± {ph:.3f} (n={pn}) "
                 f"| {pm / nm:.3f} | {overlap} | {close} |")
lines.append("")
lines.append("Loss recovery per transfer (means over the runs):")
lines.append("")
lines.append("| loss | variant | ns-2 retransmitted pkts | packetsim retransmits | ns-2 RTO expiries | packetsim timeouts |")
lines.append("|---:|---|---:|---:|---:|---:|")
for k in keys:
    lines.append(f"| {k[0]:g} | {k[1]} | {statistics.fmean(ns[k]['rtx']):.1f} "
                 f"| {ps[k]['flows.file.retransmits'][0]:.1f} | {statistics.fmean(ns[k]['to']):.1f} "
                 f"| {ps[k]['flows.file.timeouts'][0]:.1f} |")
missing = sum(ns_missing.values())
table = "\n".join(lines)
print(table)
with open(out_file, "w") as f:
    f.write("# packetsim vs ns-2.35: 4 MiB TCP transfer on scenarios/sctp-tcp-path.toml (path0)\n\n")
    f.write(f"Generated by `bench/validate/compare.sh` ({ps_version}, commit {commit}). "
            f"Completion time in seconds from the start of the connection (SYN included in both), "
            f"{max(len(ns[k]['t']) for k in keys)} runs per cell; ns-2 seeds 1..N of its ErrorModel RNG, "
            f"packetsim seeds derived by `packetsim sweep` from the scenario's seed. "
            f"95% CI = Student t on the run means. ns-2 runs that missed the 3600 s cap: {missing}.\n\n")
    f.write(table + "\n")
PY
echo "wrote $HERE/results.md" >&2
