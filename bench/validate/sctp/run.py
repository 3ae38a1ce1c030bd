#!/usr/bin/env python3
"""Runs spec 3's Fig 2/3/4 points in ns-2.35 (sctp_path.tcl) and summarises them beside packetsim.

    bench/validate/sctp/run.py [--runs N] [--jobs J] [--table-only]

One ns process per (protocol, loss0, loss1, rtxToAlt, rwnd, fastRtxTrigger, seed), seeds 1..N.
Raw results: data/ns2_runs.jsonl (one JSON line per run, sorted). packetsim's means at the same
points: data/packetsim_points.csv (`--packetsim DIR` extracts it from a full reproduction).
Summary: data/summary.md; results.md embeds its tables (a Rust test regenerates them from the
two data files and compares). Standard library only.
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

# packetsim's means at the same points: data/packetsim_points.csv, extracted from the
# figure.csv files of a full `packetsim reproduce sctp-multihoming` by `--packetsim DIR`.
PS_FILE = os.path.join(DATA, "packetsim_points.csv")
# (figure, curve) of the study -> (proto, rtx_to_alt); loss0/loss1 come from the figure's axis.
PS_CURVES = {("fig2", "tcp_reno"): ("reno", 1), ("fig2", "tcp_sack"): ("sack", 1),
             ("fig2", "sctp_single"): ("sctp1", 1), ("fig2", "sctp_multi"): ("sctp2", 1),
             ("fig3", "tcp_reno"): ("reno", 1), ("fig3", "tcp_sack"): ("sack", 1),
             ("fig3", "sctp_single"): ("sctp1", 1), ("fig3", "sctp_multi"): ("sctp2", 1)}


def extract_packetsim(study_dir):
    """Writes PS_FILE from a full reproduction's fig2/fig3/fig4 figure.csv: one row per
    (proto, loss0, loss1, rtx_to_alt) point that the ns-2 grid also has."""
    import csv
    want = {(p[0], p[1], p[2], p[3]) for p in grid()}
    rows = []
    # Figure 4 first: where it shares a point with Figure 3 (primary 4%, perfect alternate),
    # its value is used, so that ALT and SAME at each point come from one paired sweep.
    for fig in ("fig4", "fig2", "fig3"):
        for r in csv.DictReader(open(os.path.join(study_dir, fig, "figure.csv"))):
            x = float(r["x"]) / 100
            if fig == "fig4":
                pol, prim = r["curve"].split("_")
                k = ("sctp2", float(prim) / 100, x, 1 if pol == "alt" else 0)
            elif (fig, r["curve"]) in PS_CURVES:
                proto, alt = PS_CURVES[(fig, r["curve"])]
                k = (proto, x, 0.0, alt)
            else:
                continue
            if k in want and k not in {row[0] for row in rows}:
                rows.append((k, int(r["n"]), float(r["mean_s"]), r["paths.0.t3_expiries"],
                             r["paths.1.t3_expiries"]))
    rows.sort()
    with open(PS_FILE, "w") as f:
        f.write("proto,loss0,loss1,rtx_to_alt,n,mean_s,t3_expiries_path0,t3_expiries_path1\n")
        for (proto, l0, l1, alt), n, m, t0, t1 in rows:
            f.write(f"{proto},{l0!r},{l1!r},{alt},{n},{m!r},{t0},{t1}\n")


def load_packetsim():
    ps = {}
    if os.path.exists(PS_FILE):
        import csv
        for r in csv.DictReader(open(PS_FILE)):
            ps[(r["proto"], float(r["loss0"]), float(r["loss1"]), int(r["rtx_to_alt"]))] = \
                float(r["mean_s"])
    return ps


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


def paired(alt_rows, same_rows):
    """ALT − SAME over the seeds both finished (the paths' loss streams are seeded alike)."""
    same = {r["seed"]: r["time_s"] for r in same_rows if r["completed"]}
    d = [r["time_s"] - same[r["seed"]] for r in alt_rows if r["completed"] and r["seed"] in same]
    if len(d) < 2:
        return "-"
    m, h = stats(d)
    return f"{m:+.2f} ± {h:.2f}"


def summarise(rows):
    PS = load_packetsim()
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
            cells.append(c + (f" [ps {ps:.2f}]" if ps is not None else ""))
            if m is not None:
                means[p] = m
        order = " < ".join(sorted(means, key=means.get))
        out.append(f"| {l0*100:g}% | " + " | ".join(cells) + f" | {order} |")
    out.append("\n## Fig 4: multihomed, primary (path0) x alternate (path1) loss\n")
    out.append("| primary | alternate | RTX_TO_ALT | RTX_SAME | ALT − SAME (paired by seed) | packetsim ALT / SAME |")
    out.append("|---:|---:|---:|---:|---:|---|")
    for l0 in (0.02, 0.04):
        for l1 in (0.0, 0.005, 0.01, 0.02, 0.03, 0.05):
            ca, ma = cell(("sctp2", l0, l1, 1, 65536, 4, 1))
            cs, msm = cell(("sctp2", l0, l1, 0, 65536, 4, 1))
            d = paired(by.get(("sctp2", l0, l1, 1, 65536, 4, 1), []),
                       by.get(("sctp2", l0, l1, 0, 65536, 4, 1), []))
            pa, pss = PS.get(("sctp2", l0, l1, 1)), PS.get(("sctp2", l0, l1, 0))
            psc = f"{pa:.2f} / {pss:.2f}" if pa is not None and pss is not None else ""
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
    ap.add_argument("--packetsim", metavar="DIR",
                    help="first extract data/packetsim_points.csv from DIR (a full reproduction's "
                         "sctp-multihoming folder)")
    ap.add_argument("--only-missing", action="store_true",
                    help="keep data/ns2_runs.jsonl and run only the (point, seed) pairs not in it")
    a = ap.parse_args()
    os.makedirs(DATA, exist_ok=True)
    if a.packetsim:
        extract_packetsim(a.packetsim)
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
