#!/usr/bin/env python3
"""Runs study 4's scenario grid in ns-2.35 (diffserv_ecn.tcl) and summarises it like
`packetsim reproduce diffserv-ecn`: per (sim, scenario, depth) the mean over seeds of AF/BE goodput
statistics and the AF queue's ratios, then the spec's shape checks S1-S10 on ns-2's numbers.

    bench/validate/diffserv/compare.py [--runs N] [--jobs J] [--table-only]

Writes data/ns2_runs.jsonl (one line per run) and prints the summary (results.md is written from
it by hand, with packetsim's numbers beside it).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "ns2_runs.jsonl")
SCEN = ["none", "af", "afbe"]
LABEL = {"none": "no ecn", "af": "ecn to AF", "afbe": "ecn to AF, BE"}
DEPTHS = [2080, 10000]
# The no-ECN Sim 1 bucket-depth sweep (--depth-sweep), written to its own file.
SWEEP_DEPTHS = [1040, 2080, 5000, 10000, 20000, 50000]
SWEEP_DATA = os.path.join(HERE, "data", "ns2_depth_sweep.jsonl")


def run_one(args):
    sim, ecn, depth, seed = args
    out = subprocess.run(
        ["ns", os.path.join(HERE, "diffserv_ecn.tcl"), str(sim), ecn, str(depth), str(seed)],
        capture_output=True, text=True, check=True,
    ).stdout.strip().splitlines()[-1]
    r = json.loads(out)
    r.update(sim=sim, ecn=ecn, depth=depth, seed=seed)
    return r


def metrics(r):
    n_af = 3 if r["sim"] == 1 else 6
    share = 2000 / n_af
    af = [r[f"af{i}_kbps"] for i in range(1, n_af + 1)]
    be = [r[f"be{i}_kbps"] for i in range(1, 6)]
    pin, pout = r["cp10_pkts"], r["cp11_pkts"]
    return {
        "af_mean": statistics.mean(af), "af_std": statistics.pstdev(af),
        "af_min": min(af), "af_max": max(af),
        "af_below": sum(1 for g in af if g < share),
        "be_mean": statistics.mean(be), "be_std": statistics.pstdev(be),
        "out_in": 100 * pout / pin,
        "out_early": 100 * r["cp11_edrops"] / pout,
        "out_drops": 100 * r["cp11_drops"] / pout,
        "in_drops": 100 * r["cp10_drops"] / pin,
        "in_early": 100 * r["cp10_edrops"] / pin,
        # ns-2 does not count marks per code point: CE marks on AF packets / OUT arrivals
        "ce_af": 100 * r["ce_af"] / pout,
        "af_rexmit": sum(r.get(f"af{i}_rexmit", 0) for i in range(1, n_af + 1)),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument("--depth-sweep", action="store_true",
                    help="run (or with --table-only re-print) the Sim 1 no-ECN depth sweep")
    a = ap.parse_args()
    if a.depth_sweep:
        return depth_sweep(a)
    if not a.table_only:
        grid = [(s, e, d, seed) for s in (1, 2) for e in SCEN for d in DEPTHS
                for seed in range(1, a.runs + 1)]
        with ThreadPoolExecutor(a.jobs) as ex:
            rows = list(ex.map(run_one, grid))
        os.makedirs(os.path.dirname(DATA), exist_ok=True)
        with open(DATA, "w") as f:
            for r in rows:
                f.write(json.dumps(r, sort_keys=True) + "\n")
    rows = [json.loads(l) for l in open(DATA)]
    agg = {}
    for r in rows:
        agg.setdefault((r["sim"], r["ecn"], r["depth"]), []).append(metrics(r))
    M = {k: {m: statistics.mean(x[m] for x in v) for m in v[0]} for k, v in agg.items()}
    for depth in DEPTHS:
        print(f"\n## ns-2.35, bucket depth {depth} B ({len(agg[(1, 'none', depth)])} seeds)\n")
        print("| sim | scenario | AF mean | AF std | AF min | AF max | below share | BE mean | BE std "
              "| OUT/IN % | OUT early % | OUT drops % | IN drops % | AF CE / OUT % | AF rexmit |")
        print("|" + "---|" * 15)
        for sim in (1, 2):
            for e in SCEN:
                m = M[(sim, e, depth)]
                print(f"| {sim} | {LABEL[e]} | {m['af_mean']:.1f} | {m['af_std']:.1f} | {m['af_min']:.1f} "
                      f"| {m['af_max']:.1f} | {m['af_below']:.2f} | {m['be_mean']:.1f} | {m['be_std']:.1f} "
                      f"| {m['out_in']:.1f} | {m['out_early']:.2f} | {m['out_drops']:.3f} | {m['in_drops']:.3f} "
                      f"| {m['ce_af']:.2f} | {m['af_rexmit']:.0f} |")
        g = lambda s, e, k: M[(s, e, depth)][k]
        checks = {
            "S1": g(1, "af", "af_mean") > g(1, "none", "af_mean"),
            "S2": g(1, "af", "af_std") < g(1, "none", "af_std") and g(1, "af", "af_min") > g(1, "none", "af_min")
            and g(1, "af", "af_max") < g(1, "none", "af_max"),
            "S3": g(1, "none", "af_min") < 2000 / 3 < g(1, "af", "af_min"),
            "S4": g(1, "afbe", "be_std") < g(1, "af", "be_std") and g(1, "afbe", "be_mean") > g(1, "af", "be_mean")
            and g(1, "afbe", "af_std") > g(1, "af", "af_std"),
            "S5": g(1, "none", "out_in") > max(g(1, "af", "out_in"), g(1, "afbe", "out_in")),
            "S7": g(2, "none", "af_below") >= 2 and g(2, "af", "af_below") <= 1,
            "S8": g(2, "af", "af_mean") > g(2, "none", "af_mean"),
            "S9": g(2, "afbe", "be_std") < g(2, "af", "be_std") and g(2, "afbe", "be_mean") > g(2, "af", "be_mean")
            and (g(2, "afbe", "af_std") - g(2, "af", "af_std")) < (g(1, "afbe", "af_std") - g(1, "af", "af_std")),
            "S10": all(g(2, e, "in_drops") > 0 and g(2, e, "out_in") > g(1, e, "out_in") for e in SCEN),
        }
        print("\norderings of ns-2's means in the spec's shape checks (not verdicts: no CIs or effect "
              "sizes; the study's verdicts follow crates/packetsim/src/studies/checks.rs. S6 omitted: "
              "stock ns-2 ECN never force-drops ECT packets and does not count marks per precedence):")
        print(", ".join(f"{k} {'as claimed' if v else 'not as claimed'}" for k, v in checks.items()))


def depth_sweep(a):
    """Sim 1, no ecn, at each of SWEEP_DEPTHS: OUT/IN and the OUT early-drop ratio, mean over
    seeds 1..runs (the line results.md quotes)."""
    if not a.table_only:
        grid = [(1, "none", d, seed) for d in SWEEP_DEPTHS for seed in range(1, a.runs + 1)]
        with ThreadPoolExecutor(a.jobs) as ex:
            rows = list(ex.map(run_one, grid))
        os.makedirs(os.path.dirname(SWEEP_DATA), exist_ok=True)
        with open(SWEEP_DATA, "w") as f:
            for r in rows:
                f.write(json.dumps(r, sort_keys=True) + "\n")
    rows = [json.loads(l) for l in open(SWEEP_DATA)]
    by = {}
    for r in rows:
        by.setdefault(r["depth"], []).append(metrics(r))
    n = len(by[SWEEP_DEPTHS[0]])
    print(f"No-ECN OUT/IN against bucket depth, Sim 1, {n} seeds each (data/ns2_depth_sweep.jsonl):")
    print("; ".join(f"{d:,} B {statistics.mean(m['out_in'] for m in by[d]):.1f}%" for d in SWEEP_DEPTHS)
          + " (paper 31.93%).")
    print("OUT early-drop ratio at those depths: "
          + ", ".join(f"{statistics.mean(m['out_early'] for m in by[d]):.2f}" for d in SWEEP_DEPTHS)
          + "% (paper 2.92%).")


if __name__ == "__main__":
    sys.exit(main())
