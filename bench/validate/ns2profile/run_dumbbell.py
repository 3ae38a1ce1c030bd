#!/usr/bin/env python3
"""Issue 14 validation: a 4-flow dumbbell (dumbbell_aqm.tcl / dumbbell_aqm.toml), DropTail and
RED/ECN bottlenecks, ns-2.35 with its stock TCP (Agent/TCP/Sack1) against packetsim with
`profile = "ns2"`. Per queue type and simulator: total goodput, per-flow goodput, Jain's index,
bottleneck drops and CE marks, retransmitted packets, time-average queue; means over seeds.

    bench/validate/ns2profile/run_dumbbell.py [--runs N] [--jobs J]

Five bottleneck cases. Every DropTail case gives packetsim the queue key `ns2_limit = true`
(ns-2.35's `DropTail::enque` drops when `length() + 1 >= qlim_`: 49 waiting packets at most).
- `droptail`: ns-2.35's defaults (no send overhead); packetsim with the default
  `tie_order = "fifo"`.
- `droptail_random`: the same ns-2 runs; packetsim with `simulation.tie_order = "random"`.
  Flows 0 and 2 (round trips 18 ms = 15 packet times apart) reach the bottleneck at the same
  nanosecond thousands of times a run: FIFO resolves every tie the same way, ns-2's
  floating-point times a rounding error apart, either way.
- `droptail_shift`: flow 2's access delay 100 ns longer in both (ns-2 SHIFT 1e-7, packetsim
  `links.in2.delay`), so that flow 0 wins every such tie in both simulators.
- `red` (RED/ECN; packetsim with `ns2_backlog_test`, ns-2's `qlen > 1` test,
  `ns2_region_count`, ns-2's count of 1 on entering the region, `ns2_mark_p`, ns-2's
  `use_mark_p_`/`mark_p_ 0.1`, and `ns2_idle_decay`, which the profile does not reach).
- `droptail_oh`: DropTail with every sender's send overhead 0.5 ms in both (ns-2
  `overhead_ 0.0005`, packetsim `tcp.send_overhead`), which breaks the phase effect of exact
  timing; ns-2.35's default has no overhead.

Raw runs (ns-2 traces, packetsim run folders) go to $NS2PROFILE_RAW/dumbbell (default
/tmp/ns2/ns2profile/dumbbell), outside the repository; the trace is deleted once counted.
Writes dumbbell.md and dumbbell.jsonl (per-seed metrics, small) here. PACKETSIM=path is the binary.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
RAW = os.path.join(os.environ.get("NS2PROFILE_RAW", "/tmp/ns2/ns2profile"), "dumbbell")
if os.path.abspath(RAW).startswith(ROOT + os.sep):
    sys.exit("raw runs stay outside the repository")
TCL = os.path.join(HERE, "dumbbell_aqm.tcl")
TOML = os.path.join(HERE, "dumbbell_aqm.toml")
RED = ('links.bottleneck.queue={ kind = "red", red = { weight = 0.002, min_th = 5, max_th = 15, '
       'max_p = 0.1, limit = 50, mean_pkt_size = 1500, gentle = true, wait = true, '
       'ecn = "standard", ns2_backlog_test = true, ns2_region_count = true, ns2_mark_p = 0.1, '
       'ns2_idle_decay = true } }')
DROPTAIL = 'links.bottleneck.queue={ kind = "droptail", limit = 50, ns2_limit = true }'
END = 60.0
OVERHEAD = 0.0005
SHIFT = 1e-7
CASES = ("droptail", "droptail_random", "droptail_shift", "red", "droptail_oh")
LABEL = {"droptail": "DropTail 50", "droptail_random": "DropTail 50, ps tie_order random",
         "droptail_shift": "DropTail 50, flow 2 +100 ns", "red": "RED/ECN",
         "droptail_oh": "DropTail 50, overhead 0.5 ms"}
# The ns-2 runs a case compares with (droptail_random changes packetsim only).
NS2_CASE = {"droptail_random": "droptail"}


def jain(xs):
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def ns2_one(case, seed):
    """One ns-2 run's metrics; cached in RAW as ns2-CASE-SEED.json (ns-2 runs are
    deterministic and do not change with packetsim)."""
    if case in NS2_CASE:
        return dict(ns2_one(NS2_CASE[case], seed), queue=case)
    cache = os.path.join(RAW, f"ns2-{case}-{seed}.json")
    if os.path.exists(cache):
        return json.load(open(cache))
    r = ns2_measure(case, seed)
    with open(cache, "w") as f:
        json.dump(r, f)
    return r


def ns2_measure(case, seed):
    q = "red" if case == "red" else "droptail"
    oh = str(OVERHEAD) if case == "droptail_oh" else "0"
    shift = [str(SHIFT)] if case == "droptail_shift" else []
    tr = os.path.join(RAW, f"ns2-{case}-{seed}.tr")
    out = subprocess.run(["ns", TCL, q, str(seed), tr, oh] + shift, capture_output=True,
                         text=True, check=True).stdout.strip().splitlines()[-1]
    r = json.loads(out)
    marks = drops = 0
    with open(tr) as f:
        for line in f:
            w = line.split()
            if w[0] == "-" and w[4] == "tcp" and w[6][4] == "E":
                marks += 1
            elif w[0] == "d":
                drops += 1
    os.remove(tr)
    # TCPSink's bytes_ counts whole packets (1500 B with headers; 40 B for the SYN): payload
    # bytes are the full packets times 1460, as packetsim's bytes_delivered.
    g = [(b * END / 8.0 // 1500) * 1460 * 8.0 / END for b in r["goodput_bps"]]
    return {"sim": "ns-2.35", "queue": case, "seed": seed, "goodput_bps": sum(g), "flows_bps": g,
            "jain": jain(g), "drops": drops, "marks": marks, "rexmit_pkts": sum(r["rexmit_pkts"]),
            "timeouts": sum(r["timeouts"]), "mean_queue_pkts": r["mean_queue_pkts"]}


def ps_one(binary, case, seed):
    out = os.path.join(RAW, f"ps-{case}-{seed}")
    args = [binary, "run", TOML, "--out", out, "--seed", str(seed), "--set", 'profile="ns2"']
    if case == "red":
        args += ["--set", RED, "--set", "tcp.ecn=true"]
    else:
        args += ["--set", DROPTAIL]
    if case == "droptail_random":
        args += ["--set", 'simulation.tie_order="random"']
    if case == "droptail_shift":
        args += ["--set", f'links.in2.delay="{round((0.010 + SHIFT) * 1e9)}ns"']
    if case == "droptail_oh":
        args += ["--set", f'tcp.send_overhead="{OVERHEAD * 1000}ms"']
    subprocess.run(args, check=True, capture_output=True)
    s = json.load(open(os.path.join(out, "summary.json")))
    fl = [s["flows"][f"f{i}"] for i in range(4)]
    g = [f["bytes_delivered"] * 8.0 / END for f in fl]
    bq = s["queues"]["bottleneck:r0->r1"]
    return {"sim": "packetsim", "queue": case, "seed": seed, "goodput_bps": sum(g), "flows_bps": g,
            "jain": jain(g), "drops": bq["drops"], "marks": bq["marks"],
            "rexmit_pkts": sum(f["retransmits"] for f in fl),
            "timeouts": sum(f["timeouts"] for f in fl), "mean_queue_pkts": bq["mean_len_pkts"]}


KEYS = [("goodput_bps", "goodput (payload Mb/s)", 1e-6, 3), ("jain", "Jain index", 1, 4),
        ("drops", "drops", 1, 1), ("marks", "CE marks", 1, 1),
        ("rexmit_pkts", "retransmitted packets", 1, 1), ("timeouts", "timeouts", 1, 1),
        ("mean_queue_pkts", "mean queue (packets)", 1, 2)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--table-only", action="store_true")
    a = ap.parse_args()
    os.makedirs(RAW, exist_ok=True)
    store = os.path.join(HERE, "dumbbell.jsonl")
    if not a.table_only:
        binary = os.environ.get("PACKETSIM", os.path.join(ROOT, "target", "release", "packetsim"))
        todo = [(sim, q, seed) for q in CASES for seed in range(1, a.runs + 1)
                for sim in ("ns2", "ps")]

        def one(k):
            sim, q, seed = k
            return ns2_one(q, seed) if sim == "ns2" else ps_one(binary, q, seed)

        with ThreadPoolExecutor(a.jobs) as ex:
            rows = list(ex.map(one, todo))
        with open(store, "w") as f:
            for r in rows:
                f.write(json.dumps(r, sort_keys=True) + "\n")
    rows = [json.loads(l) for l in open(store)]
    out = ["| queue | metric | ns-2.35 (mean over seeds) | packetsim `profile = \"ns2\"` | vs ns-2 |",
           "|---|---|---:|---:|---:|"]
    for q in CASES:
        if not any(r["queue"] == q for r in rows):
            continue
        for k, name, scale, nd in KEYS:
            v = {}
            for sim in ("ns-2.35", "packetsim"):
                xs = [r[k] for r in rows if r["queue"] == q and r["sim"] == sim]
                v[sim] = statistics.fmean(xs) * scale
            n = len([r for r in rows if r["queue"] == q and r["sim"] == "ns-2.35"])
            d = f"{(v['packetsim'] / v['ns-2.35'] - 1) * 100:+.1f}%" if v["ns-2.35"] else "–"
            out.append(f"| {LABEL[q]} (n={n}) | {name} | {v['ns-2.35']:.{nd}f} | "
                       f"{v['packetsim']:.{nd}f} | {d} |")
    for q in CASES:
        for sim in ("ns-2.35", "packetsim"):
            fl = [r["flows_bps"] for r in rows if r["queue"] == q and r["sim"] == sim]
            if not fl:
                continue
            per = [statistics.fmean(x[i] for x in fl) / 1e6 for i in range(4)]
            out.append("")
            out.append(f"{q} {sim} per-flow goodput (payload Mb/s, access delay 1/5/10/20 ms): "
                       + ", ".join(f"{x:.3f}" for x in per))
    text = "\n".join(out) + "\n"
    open(os.path.join(HERE, "dumbbell.md"), "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
