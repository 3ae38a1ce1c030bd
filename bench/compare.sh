#!/usr/bin/env bash
# Runs the dumbbell benchmark in packetsim, ns-2.35, ns-3.37 and htsim on this machine and prints
# a comparison table (also written to bench/results/latest.md).
#
#   bench/compare.sh [--flows 10,100] [--repeat 3] [--sims packetsim,ns-2,ns-3,htsim]
#                    [--duration 60] [--htsim-src DIR]
#
# Each repeat runs every simulator once, one after the other (alternating), so a change in the
# machine's load hits all of them alike. --duration (simulated seconds) other than 60 runs only
# packetsim and htsim (the ns-2/ns-3 programs are fixed at 60 s). htsim is built from the
# source directory given by --htsim-src (or HTSIM_SRC) with bench/htsim/build.sh, once; without
# one, an already built bench/build/htsim/htsim-dumbbell is used, else htsim is left out.
#
# Environment:
#   PACKETSIM_CMD  command that runs packetsim's bench for a workload name given as its last
#                  argument (default: target/release/packetsim bench --json --workload);
#                  setting it skips the cargo build. --duration always reaches it: a
#                  --duration already in it is replaced, and "--duration D" goes in before a
#                  trailing --workload (else just before the workload name).
#   NS3_BUILD_DIR  where the ns-3 program is built (default: bench/build).
#   HTSIM_SRC      htsim's source directory (as --htsim-src).
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
RESULTS="$BENCH_DIR/results"
NS3_BUILD_DIR="${NS3_BUILD_DIR:-$BENCH_DIR/build}"
NS3_MODULES="ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control"

FLOWS="10,100"
REPEAT=3
SIMS="packetsim,ns-2,ns-3,htsim"
DURATION=60
HTSIM_SRC="${HTSIM_SRC:-}"
while [ $# -gt 0 ]; do
    case "$1" in
        --flows) FLOWS="$2"; shift 2 ;;
        --flows=*) FLOWS="${1#*=}"; shift ;;
        --repeat) REPEAT="$2"; shift 2 ;;
        --repeat=*) REPEAT="${1#*=}"; shift ;;
        --sims) SIMS="$2"; shift 2 ;;
        --sims=*) SIMS="${1#*=}"; shift ;;
        --duration) DURATION="$2"; shift 2 ;;
        --duration=*) DURATION="${1#*=}"; shift ;;
        --htsim-src) HTSIM_SRC="$2"; shift 2 ;;
        --htsim-src=*) HTSIM_SRC="${1#*=}"; shift ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "compare: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
if ! [[ "$REPEAT" =~ ^[1-9][0-9]*$ ]]; then echo "compare: --repeat wants a positive integer" >&2; exit 2; fi
if ! [[ "$FLOWS" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]]; then echo "compare: --flows wants e.g. 10,100" >&2; exit 2; fi
if ! [[ "$DURATION" =~ ^[1-9][0-9]*$ ]]; then echo "compare: --duration wants whole simulated seconds, e.g. 60" >&2; exit 2; fi
want() { [[ ",$SIMS," == *",$1,"* ]]; }
if [ "$DURATION" != 60 ]; then
    for peer in ns-2 ns-3; do
        if want "$peer"; then echo "compare: $peer runs 60 s only; left out at --duration $DURATION" >&2; fi
    done
    SIMS="$(echo ",$SIMS," | sed -e 's/,ns-2,/,/g' -e 's/,ns-3,/,/g' -e 's/^,//' -e 's/,$//')"
fi

mkdir -p "$RESULTS"
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
RUNS="$RESULTS/runs-$STAMP.jsonl"
: > "$RUNS"

# ---- peers ----
if want ns-2 || want ns-3; then
    if ! command -v ns > /dev/null || ! pkg-config --exists $NS3_MODULES 2> /dev/null || [ ! -x /usr/bin/time ]; then
        echo "compare: peers missing, running bench/setup.sh" >&2
        "$BENCH_DIR/setup.sh"
    fi
fi
if [ ! -x /usr/bin/time ]; then echo "compare: /usr/bin/time is needed (Debian package 'time')" >&2; exit 1; fi

# ---- packetsim ----
HAVE_PACKETSIM=0
if want packetsim; then
    if [ -n "${PACKETSIM_CMD:-}" ]; then
        HAVE_PACKETSIM=1
    else
        echo "compare: building packetsim (release)" >&2
        if (cd "$ROOT" && cargo build --release -p packetsim-cli >&2) \
            && [ -x "$ROOT/target/release/packetsim" ] \
            && "$ROOT/target/release/packetsim" bench --help 2>&1 | grep -q -- "workload"; then
            PACKETSIM_CMD="$ROOT/target/release/packetsim bench --json --workload"
            HAVE_PACKETSIM=1
        fi
    fi
    if [ "$HAVE_PACKETSIM" = 0 ]; then echo "packetsim: not built" >&2; fi
fi

# The packetsim command as words, with this run's --duration in it (a given PACKETSIM_CMD once
# ran 60 s at --duration 600: the duration was only in the default command).
PS_ARGV=()
if [ "$HAVE_PACKETSIM" = 1 ]; then
    read -r -a ps_words <<< "$PACKETSIM_CMD"
    skip=0
    for w in "${ps_words[@]}"; do
        if [ "$skip" = 1 ]; then skip=0; continue; fi
        case "$w" in
            --duration) skip=1; continue ;;
            --duration=*) continue ;;
        esac
        PS_ARGV+=("$w")
    done
    last=$((${#PS_ARGV[@]} - 1))
    if [ "$last" -ge 0 ] && [ "${PS_ARGV[$last]}" = "--workload" ]; then
        PS_ARGV=("${PS_ARGV[@]:0:$last}" --duration "$DURATION" --workload)
    else
        PS_ARGV+=(--duration "$DURATION")
    fi
fi

# ---- ns-3 program ----
NS3_BIN="$NS3_BUILD_DIR/ns3-dumbbell"
if want ns-3; then
    mkdir -p "$NS3_BUILD_DIR"
    if [ ! -x "$NS3_BIN" ] || [ "$BENCH_DIR/ns3/dumbbell.cc" -nt "$NS3_BIN" ]; then
        echo "compare: building $NS3_BIN" >&2
        # shellcheck disable=SC2046
        g++ -O2 -std=c++17 "$BENCH_DIR/ns3/dumbbell.cc" $(pkg-config --cflags --libs $NS3_MODULES) -o "$NS3_BIN"
    fi
fi

# ---- htsim program ----
HTSIM_BIN="$BENCH_DIR/build/htsim/htsim-dumbbell"
HAVE_HTSIM=0
if want htsim; then
    if [ -n "$HTSIM_SRC" ] && { [ ! -x "$HTSIM_BIN" ] || [ "$BENCH_DIR/htsim/dumbbell.cc" -nt "$HTSIM_BIN" ]; }; then
        "$BENCH_DIR/htsim/build.sh" "$HTSIM_SRC" "$BENCH_DIR/build/htsim" > /dev/null
    fi
    if [ -x "$HTSIM_BIN" ]; then
        HAVE_HTSIM=1
    else
        echo "htsim: not built (give its source directory with --htsim-src DIR)" >&2
    fi
fi

# ---- runs ----
# run_one SIM N CMD...: runs CMD under GNU time, appends one record to $RUNS.
run_one() {
    local sim="$1" n="$2"; shift 2
    local out tfile rc=0
    out="$(mktemp)"; tfile="$(mktemp)"
    echo "compare: $sim N=$n: $*" >&2
    local t0 t1
    t0="$(date +%s%N)"
    /usr/bin/time -f '%e %M' -o "$tfile" "$@" > "$out" || rc=$?
    t1="$(date +%s%N)"
    local line wall rss
    line="$(grep -m1 '^{' "$out" || true)"
    read -r _ rss < <(tail -n1 "$tfile")
    # GNU time's %e has 0.01 s resolution, too coarse for runs of a tenth of a second: the wall
    # time is taken around it with nanosecond timestamps (GNU time's own fork is included,
    # alike for every simulator).
    wall="$(python3 -c "print(f'{($t1 - $t0) / 1e9:.4f}')")"
    if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
        echo "compare: $sim N=$n failed (exit $rc); output:" >&2
        cat "$out" "$tfile" >&2
        rm -f "$out" "$tfile"
        return 0
    fi
    python3 - "$sim" "$n" "$wall" "$rss" "$line" >> "$RUNS" <<'PY'
import json, sys
sim, n, wall, rss, line = sys.argv[1:]
rec = json.loads(line)
print(json.dumps({"sim": sim, "flows": int(n), "wall_s": float(wall),
                  "peak_rss_kib": int(rss), "out": rec}))
PY
    echo "compare:   wall ${wall} s, peak RSS ${rss} KiB: $line" >&2
    rm -f "$out" "$tfile"
}

IFS=',' read -r -a NS <<< "$FLOWS"
for n in "${NS[@]}"; do
    for ((r = 1; r <= REPEAT; r++)); do
        if want packetsim && [ "$HAVE_PACKETSIM" = 1 ]; then
            run_one packetsim "$n" "${PS_ARGV[@]}" "dumbbell-$n"
        fi
        if want ns-2; then
            run_one ns-2.35 "$n" ns "$BENCH_DIR/ns2/dumbbell.tcl" "$n"
        fi
        if want ns-3; then
            run_one ns-3.37 "$n" "$NS3_BIN" "$n"
        fi
        if want htsim && [ "$HAVE_HTSIM" = 1 ]; then
            run_one htsim "$n" "$HTSIM_BIN" "$n" "$DURATION"
        fi
    done
done

# ---- table ----
python3 - "$RUNS" "$REPEAT" "$HAVE_PACKETSIM" "$(want packetsim && echo 1 || echo 0)" "$DURATION" > "$RESULTS/latest.md" <<'PY'
import json, statistics, sys, platform, os, datetime
runs_path, repeat, have_ps, want_ps = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4] == "1"
duration = int(sys.argv[5])
runs = [json.loads(l) for l in open(runs_path) if l.strip()]
order = {"packetsim": 0, "ns-2.35": 1, "ns-3.37": 2, "htsim": 3}
groups = {}
for r in runs:
    groups.setdefault((r["flows"], r["sim"]), []).append(r)

rows = {}
for (n, sim), rs in groups.items():
    walls = sorted(r["wall_s"] for r in rs)
    med = statistics.median(walls)
    # Counters of the run whose wall time is closest to the median (they do not vary between
    # repeats of a deterministic simulator anyway).
    mid = min(rs, key=lambda r: abs(r["wall_s"] - med))
    pkts = int(mid["out"]["data_packets_delivered"])
    rows[(n, sim)] = {
        "wall": med, "walls": walls, "pkts": pkts,
        "pps": pkts / med if med > 0 else float("inf"),
        "goodput": float(mid["out"]["goodput_bps"]) / 1e6,
        "rss": max(r["peak_rss_kib"] for r in rs) / 1024.0,
        "events": mid["out"].get("events"),
    }

cpu = "?"
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip(); break
except OSError:
    pass
out = []
out.append(f"# packetsim and its peers: dumbbell, N long-lived TCP NewReno flows, {duration} s simulated")
out.append("")
out.append(f"Run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC} on {platform.node()}, "
           f"{os.cpu_count()} CPUs ({cpu}); {repeat} repeat(s) per cell; raw runs: `{os.path.basename(runs_path)}`.")
load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else ["?"] * 3
out.append("")
out.append(f"Load average when the table was written (1/5/15 min): {' '.join(load)} -- other work on the "
           "machine inflates wall times; runs are sequential, one simulator at a time.")
out.append("")
out.append("| simulator | N | wall s (median) | data pkts delivered | pkts / wall-s | goodput Mb/s | peak RSS MiB |")
out.append("|---|---:|---:|---:|---:|---:|---:|")
for (n, sim) in sorted(rows, key=lambda k: (k[0], order.get(k[1], 9))):
    r = rows[(n, sim)]
    out.append(f"| {sim} | {n} | {r['wall']:.2f} | {r['pkts']:,} | {r['pps']:,.0f} | {r['goodput']:.2f} | {r['rss']:.1f} |")
if want_ps and not any(sim == "packetsim" for (_, sim) in rows):
    out.append("")
    out.append("packetsim: not built (no `packetsim bench` command yet); its column is skipped.")
ratio_lines = []
for n in sorted({k[0] for k in rows}):
    ps = rows.get((n, "packetsim"))
    if not ps:
        continue
    for peer in ("ns-2.35", "ns-3.37", "htsim"):
        p = rows.get((n, peer))
        if not p:
            continue
        ratio_lines.append(f"| N={n} | packetsim/{peer} | {ps['pps'] / p['pps']:.2f}x | "
                           f"{ps['goodput'] / p['goodput']:.3f} | {ps['rss'] / p['rss']:.2f}x |")
if ratio_lines:
    out.append("")
    out.append("| N | ratio | pkts / wall-s | goodput | peak RSS |")
    out.append("|---|---|---:|---:|---:|")
    out.extend(ratio_lines)
out.append("")
out.append("wall s: median of the repeats' elapsed times (nanosecond timestamps around the run); all repeats: " +
           "; ".join(f"{sim} N={n}: {', '.join(f'{w:.2f}' for w in rows[(n, sim)]['walls'])}"
                     for (n, sim) in sorted(rows, key=lambda k: (k[0], order.get(k[1], 9)))) + ".")
out.append("peak RSS: largest maximum resident set size over the repeats (GNU time %M).")
print("\n".join(out))
PY
cat "$RESULTS/latest.md"
