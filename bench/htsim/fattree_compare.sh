#!/usr/bin/env bash
# The fat-tree permutation in packetsim and in htsim (issue 36 item 4), alternating, and a table
# of what each simulated (flows completed, data packets delivered, FCTs) and how fast (data
# packets per wall-second, medians over the repeats; the ratio is taken pair by pair). Repeat r
# runs seed r + 1 in both (each draws its own permutation and paths with its own generator, so
# FCTs are compared as means over the repeats, not run by run).
#
#   bench/htsim/fattree_compare.sh [K_LIST] [REPEAT] [STEP] [SIZE]   defaults "4 8 16" 3 15 1MB
#
# packetsim runs scenarios/workloads/fat-tree-permutation.toml at topology.k = K with the RED
# step set to STEP packets, htsim's ECN queue marks above 15 packets (bench/README.md, "Fat-tree
# permutation against htsim", lists what else differs). Needs target/release/packetsim and
# bench/build/htsim/htsim-fattree (bench/htsim/build.sh; HTSIM_FATTREE overrides its path).
# Raw outputs go to OUT (default a temporary folder).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
KS="${1:-4 8 16}"
REPEAT="${2:-3}"
STEP="${3:-15}"
SIZE="${4:-1MB}"
SIZE_BYTES=$(python3 -c "import sys; s=sys.argv[1]; m={'kB':1e3,'MB':1e6,'GB':1e9}; print(int(float(s[:-2])*m[s[-2:]]) if s[-2:] in m else int(s))" "$SIZE")
PS="${PACKETSIM:-$ROOT/target/release/packetsim}"
HT="${HTSIM_FATTREE:-$ROOT/bench/build/htsim/htsim-fattree}"
OUT="${OUT:-$(mktemp -d)}"
for exe in "$PS" "$HT"; do
    [ -x "$exe" ] || { echo "fattree_compare.sh: $exe is missing (see the header)" >&2; exit 1; }
done
SCEN="$ROOT/scenarios/workloads/fat-tree-permutation.toml"
mkdir -p "$OUT"
: > "$OUT/runs.jsonl"
for k in $KS; do
    for ((r = 0; r < REPEAT; r++)); do
        # packetsim
        dir="$OUT/ps-k$k-$r"
        rm -rf "$dir"
        # GNU time's %e has 0.01 s resolution, too coarse for k = 8's runs of about 0.13 s
        # (the ratio came out in steps of 8%): the wall time is taken around it with
        # nanosecond timestamps, as bench/compare.sh does, alike for both simulators.
        t0="$(date +%s%N)"
        /usr/bin/time -f "%e %M" -o "$OUT/time" "$PS" run "$SCEN" --quiet --out "$dir" --seed $((r + 1)) \
            --set "topology.k=$k" --set "topology.host_link.queue.red.step=$STEP" \
            --set "workloads.perm.size=$SIZE_BYTES" > /dev/null
        t1="$(date +%s%N)"
        read -r _ rss < "$OUT/time"
        wall="$(python3 -c "print(f'{($t1 - $t0) / 1e9:.4f}')")"
        python3 - "$dir" "$k" "$wall" "$rss" >> "$OUT/runs.jsonl" <<'EOF'
import csv, json, sys
d, k, wall, rss = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
rows = list(csv.DictReader(open(f"{d}/flows.csv")))
fct = sorted(float(r["completion_time_s"]) for r in rows if r["completion_time_s"])
s = json.load(open(f"{d}/summary.json"))
pick = lambda p: fct[min(len(fct) - 1, int(p * (len(fct) - 1) + 0.5))] if fct else 0
print(json.dumps({"sim": "packetsim", "k": k, "flows": len(rows), "completed": len(fct),
    "data_packets_delivered": sum(int(r["data_packets_delivered"]) for r in rows),
    "fct_mean_s": sum(fct) / len(fct) if fct else 0, "fct_p50_s": pick(0.5),
    "fct_p99_s": pick(0.99), "fct_max_s": pick(1.0), "events": s["events"],
    "wall_s": wall, "rss_kib": rss}))
EOF
        # htsim
        t0="$(date +%s%N)"
        /usr/bin/time -f "%e %M" -o "$OUT/time" "$HT" "$k" 0.1 "$SIZE_BYTES" $((r + 1)) dctcp > "$OUT/ht.out"
        t1="$(date +%s%N)"
        grep '^{' "$OUT/ht.out" > "$OUT/ht.json"  # htsim's own set-up lines are printf
        read -r _ rss < "$OUT/time"
        wall="$(python3 -c "print(f'{($t1 - $t0) / 1e9:.4f}')")"
        python3 -c "
import json,sys
d=json.load(open('$OUT/ht.json')); d.update(wall_s=$wall, rss_kib=$rss); print(json.dumps(d))
" >> "$OUT/runs.jsonl"
    done
done
python3 - "$OUT/runs.jsonl" <<'EOF'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
print("| k | hosts | sim | completed / flows | data packets | FCT mean / p99 (ms), mean over runs | events | wall s (median) | peak RSS MiB | packets per wall-s | packetsim / htsim |")
print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for k in sorted({r["k"] for r in runs}):
    ps = [r for r in runs if r["k"] == k and r["sim"] == "packetsim"]
    ht = [r for r in runs if r["k"] == k and r["sim"] == "htsim"]
    rate = lambda r: r["data_packets_delivered"] / max(r["wall_s"], 1e-3)
    ratio = statistics.median(rate(a) / rate(b) for a, b in zip(ps, ht))
    for name, rs in (("packetsim", ps), ("htsim", ht)):
        mean = lambda key: statistics.mean(x[key] for x in rs)
        print(f"| {k} | {k**3 // 4} | {name} | {mean('completed'):g} / {rs[0]['flows']} | "
              f"{mean('data_packets_delivered'):,.0f} | {mean('fct_mean_s')*1e3:.3f} / {mean('fct_p99_s')*1e3:.3f} | "
              f"{mean('events'):,.0f} | {statistics.median(x['wall_s'] for x in rs):.3f} | "
              f"{statistics.median(x['rss_kib'] for x in rs) / 1024:.1f} | "
              f"{statistics.median(rate(x) for x in rs):,.0f} | "
              + (f"{ratio:.2f}x |" if name == "packetsim" else " |"))
EOF
echo "raw runs: $OUT/runs.jsonl" >&2
