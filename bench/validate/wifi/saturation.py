#!/usr/bin/env python3
"""Table of ns-2.35 saturation throughput (mean, 95% CI) beside Bianchi's model.

    python3 saturation.py data/ns2_saturation.jsonl > data/saturation.md
"""
import json
import statistics
import sys
from collections import defaultdict

import bianchi
from ci import ci95


def main():
    runs = defaultdict(list)
    payload = None
    for line in open(sys.argv[1]):
        r = json.loads(line)
        runs[r["n"]].append(r["throughput_bps"] / 1e6)
        payload = r["payload"]
    print(f"Aggregate UDP payload goodput at the AP, Mb/s ({payload}-byte payloads, 20 s after a 5 s "
          "warm-up; 95% CI = Student t over seeds).\n")
    print("| n | ns-2.35 mean ± 95% CI | seeds | Bianchi 2000 | ns-2 / Bianchi | Bianchi, ns-2 rules | ns-2 / that |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in sorted(runs):
        xs = runs[n]
        m = statistics.mean(xs)
        b1 = bianchi.bianchi_2000(n, payload)[0] / 1e6
        b2 = bianchi.ns2_rules(n, payload)[0] / 1e6
        print(f"| {n} | {m:.3f} ± {ci95(xs):.3f} | {len(xs)} | {b1:.3f} | {m / b1:.3f} | {b2:.3f} | {m / b2:.3f} |")


if __name__ == "__main__":
    main()
