#!/usr/bin/env python3
"""Issue 14: where do the RED/ECN dumbbell's CE marks differ between ns-2.35 and packetsim?

    bench/validate/ns2profile/red_trace.py [SEED ...]     (default seeds 1-6)

Runs the RED case of run_dumbbell.py (same Tcl script, scenario and RED options) with the
bottleneck's packet trace kept: ns-2's queue trace (`+`, `-`, `d`; CE is the `E` flag on
dequeue) and packetsim's events.csv (`enqueue`, `drop`, `mark`, `dequeue`). From each trace
it rebuilds, for every arrival at r0 -> r1, the number of packets waiting and RED's average
with that simulator's own rule (ns-2.35 `REDQueue::enque`/`estimator`: int(idle/s) + 1 decays
after an idle period; packetsim: (1 - w)^(idle/s), or ns-2's rule when the RED case sets
`ns2_idle_decay`), and then
counts the arrivals RED may act on (average >= min_th and more than one packet waiting), the
sum of p_b over them, the marks, and marks per avg bin. If both simulators mark the same
fraction of sum(p_b), their RED rules agree and a gap in marks comes from the averages the
traffic produces, not from RED.

Traces go to $NS2PROFILE_RAW/redtrace (default /tmp/ns2/ns2profile/redtrace). PACKETSIM=path.
"""
import csv
import json
import os
import subprocess
import sys

import run_dumbbell as rd

RAW = os.path.join(os.path.dirname(rd.RAW), "redtrace")
W, MIN_TH, MAX_TH, MAX_P = 0.002, 5.0, 15.0, 0.1
RATE = 10e6
S = 1500 * 8 / RATE  # typical transmission time (mean_pkt_size 1500 B)
LINK = "bottleneck:r0->r1"


def p_b(avg):
    if avg < MIN_TH:
        return None
    if avg < MAX_TH:
        return MAX_P * (avg - MIN_TH) / (MAX_TH - MIN_TH)
    if avg < 2 * MAX_TH:  # gentle
        return MAX_P + (1 - MAX_P) * (avg - MAX_TH) / MAX_TH
    return None


def ns2_events(path):
    """(time, kind, uid, size, ce) of r0 (node 0) -> r1 (node 1) from ns-2's queue trace."""
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[2] != "0" or w[3] != "1":
                continue
            t, size, uid = float(w[1]), int(w[5]), int(w[11])
            if w[0] == "+":
                yield t, "arrive", uid, size, False
            elif w[0] == "-":
                yield t, "dequeue", uid, size, w[6][4] == "E"
            elif w[0] == "d":
                yield t, "drop_queued", uid, size, False


def ps_events(path):
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["link"] != LINK:
                continue
            t, uid, size, e = float(r["time_s"]), int(r["uid"]), int(r["size_bytes"]), r["event"]
            if e == "enqueue":
                yield t, "arrive", uid, size, False
            elif e == "drop":
                yield t, "arrive_dropped", uid, size, False
            elif e == "mark":
                yield t, "mark", uid, size, False
            elif e == "dequeue":
                yield t, "dequeue", uid, size, False


def analyse(events, ns2_idle, end=rd.END):
    waiting, busy_until, avg, last_t, area = 0, 0.0, 0.0, 0.0, 0.0
    seen, marks = {}, set()
    for t, kind, uid, size, ce in events:
        if kind in ("arrive", "arrive_dropped"):
            area += avg * (t - last_t)
            last_t = t
            if waiting == 0 and t >= busy_until - 1e-12:
                m = (t - busy_until) / S
                avg *= (1 - W) ** (int(m) + 1 if ns2_idle else m)
            else:
                avg = (1 - W) * avg + W * waiting
            seen[uid] = (avg, p_b(avg) if waiting > 1 else None)
            if kind == "arrive":
                waiting += 1
        elif kind == "drop_queued":  # ns-2 logs '+' then 'd' for a dropped arrival
            waiting -= 1
        elif kind == "dequeue":
            waiting -= 1
            busy_until = t + size * 8 / RATE
            if ce:
                marks.add(uid)
        elif kind == "mark":
            marks.add(uid)
    area += avg * (end - last_t)
    region = [v for v in seen.values() if v[1] is not None]
    bins = {}
    for a, _ in region:
        bins.setdefault(int(a), [0, 0])[0] += 1
    for u in marks:
        bins.setdefault(int(seen[u][0]), [0, 0])[1] += 1
    return {"arrivals": len(seen), "region": len(region), "marks": len(marks),
            "sum_pb": sum(p for _, p in region),
            "mean_avg_region": sum(a for a, _ in region) / len(region),
            "mean_avg_time": area / end, "bins": bins}


def run(seed, binary):
    os.makedirs(RAW, exist_ok=True)
    tr = os.path.join(RAW, f"ns2-{seed}.tr")
    if not os.path.exists(tr):
        subprocess.run(["ns", rd.TCL, "red", str(seed), tr, "0"], check=True,
                       capture_output=True)
    out = os.path.join(RAW, f"ps-{seed}")
    subprocess.run([binary, "run", rd.TOML, "--out", out, "--seed", str(seed), "--set",
                    'profile="ns2"', "--set", rd.RED, "--set", "tcp.ecn=true",
                    "--set", "tcp.ns2_ecn_cut=true", "--set",
                    'trace={links=["bottleneck"]}', "--trace", os.path.join(out, "trace")],
                   check=True, capture_output=True)
    ps_idle = "ns2_idle_decay = true" in rd.RED
    return (analyse(ns2_events(tr), True),
            analyse(ps_events(os.path.join(out, "trace", "events.csv")), ps_idle))


def main():
    seeds = [int(s) for s in sys.argv[1:]] or list(range(1, 7))
    binary = os.environ.get("PACKETSIM", os.path.join(rd.ROOT, "target/release/packetsim"))
    tot = {"ns-2.35": {}, "packetsim": {}}
    for seed in seeds:
        for name, r in zip(tot, run(seed, binary)):
            print(f"seed {seed} {name}: " + json.dumps(
                {k: round(v, 3) for k, v in r.items() if k != "bins"}))
            t = tot[name]
            for k in ("arrivals", "region", "marks", "sum_pb", "mean_avg_region",
                      "mean_avg_time"):
                t[k] = t.get(k, 0) + r[k]
            for b, (c, m) in r["bins"].items():
                tb = t.setdefault("bins", {}).setdefault(b, [0, 0])
                tb[0] += c
                tb[1] += m
    n = len(seeds)
    print(f"\n| over {n} seeds | ns-2.35 | packetsim | vs ns-2 |\n|---|---:|---:|---:|")
    a, b = tot["ns-2.35"], tot["packetsim"]
    rows = [("arrivals per run", a["arrivals"] / n, b["arrivals"] / n),
            ("arrivals RED may act on per run", a["region"] / n, b["region"] / n),
            ("mean avg at those arrivals", a["mean_avg_region"] / n, b["mean_avg_region"] / n),
            ("time-weighted mean avg", a["mean_avg_time"] / n, b["mean_avg_time"] / n),
            ("sum of p_b per run", a["sum_pb"] / n, b["sum_pb"] / n),
            ("CE marks per run", a["marks"] / n, b["marks"] / n),
            ("marks / sum of p_b", a["marks"] / a["sum_pb"], b["marks"] / b["sum_pb"])]
    for label, x, y in rows:
        print(f"| {label} | {x:.4g} | {y:.4g} | {100 * (y / x - 1):+.1f}% |")
    print("\n| avg bin | ns-2 arrivals | ns-2 marks | per 1000 | packetsim arrivals | "
          "packetsim marks | per 1000 |\n|---|---:|---:|---:|---:|---:|---:|")
    for k in sorted(set(a["bins"]) | set(b["bins"])):
        ca, ma = a["bins"].get(k, [0, 0])
        cb, mb = b["bins"].get(k, [0, 0])
        print(f"| [{k}, {k + 1}) | {ca} | {ma} | {1000 * ma / max(ca, 1):.1f} | {cb} | {mb} | "
              f"{1000 * mb / max(cb, 1):.1f} |")


if __name__ == "__main__":
    main()
