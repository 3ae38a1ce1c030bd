#!/usr/bin/env python3
"""Runs spec 3's Fig 2/3/4 points in ns-2.35 (sctp_path.tcl) and summarises them beside packetsim.

    bench/validate/sctp/run.py [--runs N] [--jobs J] [--table-only]

One ns process per (protocol, loss0, loss1, rtxToAlt, rwnd, fastRtxTrigger, seed), seeds 1..N.
Raw results: data/ns2_runs.jsonl (one JSON line per run, sorted). Summary: data/summary.md
(results.md is written from it by hand). Standard library only.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
RAW = os.path.join(DATA, "ns2_runs.jsonl")
PROTOS = ["reno", "sack", "sctp1", "sctp2"]

# packetsim, 100 runs per point (mean s), from the study's outputs.
PS = {
    ("reno", 0.0, 0.0, 1): 17.50, ("sack", 0.0, 0.0, 1): 17.50,
    ("sctp1", 0.0, 0.0, 1): 17.58, ("sctp2", 0.0, 0.0, 1): 17.58,
    ("reno", 0.005, 0.0, 1): 20.20, ("sack", 0.005, 0.0, 1): 19.83,
    ("sctp1", 0.005, 0.0, 1): 19.06, ("sctp2", 0.005, 0.0, 1): 18.69,
    ("reno", 0.01, 0.0, 1): 24.27, ("sack", 0.01, 0.0, 1): 23.31,
    ("sctp1", 0.01, 0.0, 1): 22.46, ("sctp2", 0.01, 0.0, 1): 22.07,
    ("sctp1", 0.1, 0.0, 1): 86.7, ("sctp2", 0.1, 0.0, 1): 70.4,
    ("sctp2", 0.04, 0.0, 1): 42.2, ("sctp2", 0.04, 0.02, 1): 46.3, ("sctp2", 0.04, 0.05, 1): 85.3,
    ("sctp2", 0.04, 0.0, 0): 44.4, ("sctp2", 0.04, 0.02, 0): 43.8, ("sctp2", 0.04, 0.05, 0): 44.6,
    ("sctp2", 0.02, 0.0, 1): 29.5, ("sctp2", 0.02, 0.02, 1): 30.6, ("sctp2", 0.02, 0.05, 1): 41.8,
    ("sctp2", 0.02, 0.0, 0): 30.1, ("sctp2", 0.02, 0.02, 0): 29.6, ("sctp2", 0.02, 0.05, 0): 29.9,
}

T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
       9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120,
       17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 25: 2.060, 29: 2.045, 30: 2.042, 40: 2.021,
       49: 2.010, 60: 2.000}


def t95(df):
    if df in T95:
        return T95[df]
    if df > 60:
        return 1.98
    return T95[max(k for k in T95 if k <= df)]


def grid():
    """(proto, loss0, loss1, rtx_to_alt, rwnd, frtx, delayed_sack) points."""
    pts = []
    for l0 in (0.0, 0.005, 0.01, 0.04, 0.1):          # Fig 2 (0-1%) and Fig 3 (4, 10%)
        for p in PROTOS:
            pts.append((p, l0, 0.0, 1, 65536, 4, 1))
    for l0 in (0.02, 0.04):                            # Fig 4
        for l1 in (0.0, 0.005, 0.01, 0.02, 0.03, 0.05):
            for alt in (0, 1):
                pts.append(("sctp2", l0, l1, alt, 65536, 4, 1))
    # extensions: 20-packet receive window; ns-2's own fast-retransmit trigger (3rd report)
    for l0 in (0.005, 0.01, 0.04):
        pts.append(("sctp1", l0, 0.0, 1, 29040, 4, 1))   # 20 x 1452 B of user data
        pts.append(("sctp1", l0, 0.0, 1, 29360, 4, 1))   # 20 x 1468 B chunks (20 packets, as TCP)
        pts.append(("sctp1", l0, 0.0, 1, 65536, 3, 1))
        pts.append(("sctp2", l0, 0.0, 1, 65536, 3, 1))
        # SACK every packet (no delayed SACK), as TCPSink acks every segment
        pts.append(("sctp1", l0, 0.0, 1, 29360, 4, 0))
        pts.append(("sctp1", l0, 0.0, 1, 65536, 4, 0))
    return list(dict.fromkeys(pts))


def key(r):
    return (r["proto"], float(r["loss0"]), float(r["loss1"]), int(r["rtx_to_alt"]),
            int(r["rwnd"]), int(r["frtx_trigger"]), int(r.get("delayed_sack", 1)))


def run_one(args):
    (proto, l0, l1, alt, rwnd, frtx, dsack), seed = args
    cmd = ["ns", os.path.join(HERE, "sctp_path.tcl"), proto, repr(l0), repr(l1), str(alt),
           str(seed), str(rwnd), str(frtx), str(dsack)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def stats(xs):
    m = statistics.mean(xs)
    h = t95(len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return m, h


def summarise(rows):
    by = {}
    for r in rows:
        by.setdefault(key(r), []).append(r)
    out = []

    def cell(k):
        rs = by.get(k, [])
        ts = [r["time_s"] for r in rs if r["completed"]]
        if not ts:
            return "-", None
        m, h = stats(ts)
        miss = len(rs) - len(ts)
        return f"{m:.2f} ± {h:.2f}" + (f" ({miss} unfinished)" if miss else ""), m

    n = max((len(v) for v in by.values()), default=0)
    out.append(f"runs per point: {n}\n")
    out.append("## Figs 2-3: path0 loss, path1 perfect, rtxToAlt 1 (ns-2 mean ± 95% CI; packetsim mean)\n")
    out.append("| path0 loss | Reno | SACK | SCTP single | SCTP multi | ns-2 ordering (fastest first) |")
    out.append("|---:|---:|---:|---:|---:|---|")
    for l0 in (0.0, 0.005, 0.01, 0.04, 0.1):
        cells, means = [], {}
        for p in PROTOS:
            c, m = cell((p, l0, 0.0, 1, 65536, 4, 1))
            ps = PS.get((p, l0, 0.0, 1))
            cells.append(c + (f" [ps {ps}]" if ps else ""))
            if m is not None:
                means[p] = m
        order = " < ".join(sorted(means, key=means.get))
        out.append(f"| {l0*100:g}% | " + " | ".join(cells) + f" | {order} |")
    out.append("\n## Fig 4: multihomed, primary (path0) x alternate (path1) loss\n")
    out.append("| primary | alternate | RTX_TO_ALT | RTX_SAME | ALT-SAME | packetsim ALT / SAME |")
    out.append("|---:|---:|---:|---:|---:|---|")
    for l0 in (0.02, 0.04):
        for l1 in (0.0, 0.005, 0.01, 0.02, 0.03, 0.05):
            ca, ma = cell(("sctp2", l0, l1, 1, 65536, 4, 1))
            cs, msm = cell(("sctp2", l0, l1, 0, 65536, 4, 1))
            d = f"{ma - msm:+.2f}" if ma is not None and msm is not None else "-"
            pa, pss = PS.get(("sctp2", l0, l1, 1)), PS.get(("sctp2", l0, l1, 0))
            psc = f"{pa} / {pss}" if pa else ""
            out.append(f"| {l0*100:g}% | {l1*100:g}% | {ca} | {cs} | {d} | {psc} |")
    out.append("\n## Extensions (path1 perfect, rtxToAlt 1)\n")
    out.append("| path0 loss | SACK | SCTP single rwnd 65536 | SCTP single rwnd 29040 | SCTP single rwnd 29360 | SCTP single trigger 3 | SCTP multi trigger 3 | single rwnd 29360 no delayed SACK | single rwnd 65536 no delayed SACK |")
    out.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for l0 in (0.005, 0.01, 0.04):
        cs = [cell(k)[0] for k in (("sack", l0, 0.0, 1, 65536, 4, 1), ("sctp1", l0, 0.0, 1, 65536, 4, 1),
                                   ("sctp1", l0, 0.0, 1, 29040, 4, 1), ("sctp1", l0, 0.0, 1, 29360, 4, 1),
                                   ("sctp1", l0, 0.0, 1, 65536, 3, 1),
                                   ("sctp2", l0, 0.0, 1, 65536, 3, 1),
                                   ("sctp1", l0, 0.0, 1, 29360, 4, 0), ("sctp1", l0, 0.0, 1, 65536, 4, 0))]
        out.append(f"| {l0*100:g}% | " + " | ".join(cs) + " |")
    out.append("\n## Loss recovery per transfer (means)\n")
    out.append("| point | fast rtx (SCTP frCount_ / -) | timeouts (SCTP timeoutCount_, TCP nrexmit_) | pkts on path1 |")
    out.append("|---|---:|---:|---:|")
    for k in sorted(by):
        rs = by[k]
        fr = statistics.mean(r.get("fast_rtx", 0) for r in rs)
        to = statistics.mean(r["timeouts"] for r in rs)
        p1 = statistics.mean(r["sent_path1"] for r in rs)
        out.append(f"| {k[0]} l0={k[1]} l1={k[2]} alt={k[3]} rwnd={k[4]} trig={k[5]} dsack={k[6]} | {fr:.1f} | {to:.1f} | {p1:.1f} |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument("--only-missing", action="store_true",
                    help="keep data/ns2_runs.jsonl and run only the (point, seed) pairs not in it")
    a = ap.parse_args()
    os.makedirs(DATA, exist_ok=True)
    if not a.table_only:
        tasks = [(pt, s) for pt in grid() for s in range(1, a.runs + 1)]
        rows = []
        if a.only_missing and os.path.exists(RAW):
            rows = [json.loads(l) for l in open(RAW)]
            have = {(key(r), r["seed"]) for r in rows}
            tasks = [t for t in tasks if (t[0], t[1]) not in have]
        print(f"{len(tasks)} ns-2 runs, {a.jobs} at a time", file=sys.stderr)
        with ThreadPoolExecutor(a.jobs) as ex:
            for i, r in enumerate(ex.map(run_one, tasks), 1):
                rows.append(r)
                if i % 100 == 0:
                    print(f"  {i}/{len(tasks)}", file=sys.stderr)
        for r in rows:  # runs made before the delayedSack argument existed used delayed SACKs
            r.setdefault("delayed_sack", 1)
        rows.sort(key=lambda r: (key(r), r["seed"]))
        with open(RAW, "w") as f:
            for r in rows:
                f.write(json.dumps(r, sort_keys=True) + "\n")
    rows = [json.loads(l) for l in open(RAW)]
    s = summarise(rows)
    with open(os.path.join(DATA, "summary.md"), "w") as f:
        f.write(s)
    print(s)


if __name__ == "__main__":
    main()
