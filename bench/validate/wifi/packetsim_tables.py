#!/usr/bin/env python3
"""packetsim's columns beside ns-2.35's and Bianchi's (results.md, "packetsim column").

    python3 packetsim_tables.py data/packetsim_saturation.jsonl data/ns2_saturation.jsonl \
        data/packetsim_handoff.jsonl > data/packetsim.md
"""
import json
import statistics
import sys
from collections import defaultdict

import bianchi
from ci import ci95


def ns2_rules_28(n, payload):
    """Bianchi with ns-2's rules (bianchi.ns2_rules) for the standard's 28-byte MAC header + FCS."""
    ts, _ = bianchi.frame_times(payload, 28)
    means = [(min(32 * 2 ** i - 1, 1023) - 1) / 2.0 for i in range(7)]
    tau, p = bianchi.solve(n, lambda q: bianchi.tau_renewal(q, means, 7))
    return bianchi.throughput(n, tau, payload, ts, ts + bianchi.DIFS)


def load(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def fmt(xs, d=3):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    return f"{statistics.mean(xs):.{d}f} ± {ci95(xs):.{d}f}"


def saturation(ps_path, ns_path):
    ps = defaultdict(list)
    for r in load(ps_path):
        ps[r["n"]].append(r["throughput_bps"] / 1e6)
    ns = defaultdict(list)
    for r in load(ns_path):
        ns[r["n"]].append(r["throughput_bps"] / 1e6)
    print("Aggregate payload goodput at the AP, Mb/s (1000-byte MSDUs, 20 s after a 5 s warm-up; "
          "mean ± 95% CI over seeds, Student t).\n")
    print("| n | packetsim | seeds | ns-2.35 | packetsim / ns-2 | Bianchi, ns-2 rules, 28-byte header | "
          "packetsim / that | Bianchi 2000 |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in sorted(ps):
        m = statistics.mean(ps[n])
        mn = statistics.mean(ns[n]) if ns.get(n) else float("nan")
        b28 = ns2_rules_28(n, 1000) / 1e6
        b0 = bianchi.bianchi_2000(n, 1000)[0] / 1e6
        print(f"| {n} | {fmt(ps[n])} | {len(ps[n])} | {fmt(ns[n])} | {m / mn:.3f} | {b28:.3f} | "
              f"{m / b28:.3f} | {b0:.3f} |")


def handoff(path):
    runs = defaultdict(list)
    for r in load(path):
        runs[r["speed"]].append(r)
    print("\nMobile host between two base stations (scenarios/wifi/handoff.toml), per run; outage = "
          "mean over seeds of each run's mean per-handoff outage; mean ± 95% CI over seeds.\n")
    print("| speed (m/s) | seeds | handoffs / run | base station lost / run | outage (s) | max outage "
          "in run (s) | MAC retries / data frame | packets lost by the MACs / run | TCP goodput "
          "(Mb/s) | TCP rexmits | TCP timeouts |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for v in sorted(runs):
        rs = runs[v]
        out = [statistics.mean(r["outages_s"]) if r["outages_s"] else None for r in rs]
        mx = [max(r["outages_s"]) if r["outages_s"] else None for r in rs]
        print(f"| {v} | {len(rs)} | {fmt([r['handoffs'] for r in rs], 2)} | "
              f"{fmt([r['base_station_lost'] for r in rs], 2)} | {fmt(out)} | {fmt(mx)} | "
              f"{fmt([r['mac_retries'] / r['data_frames'] for r in rs], 4)} | "
              f"{fmt([r.get('lost_retry_limit', r['mac_drops_retry_limit']) + r.get('lost_queue', r['mac_drops_queue']) for r in rs], 1)} | "
              f"{fmt([r['goodput_bps'] / 1e6 for r in rs])} | {fmt([r['retransmits'] for r in rs], 1)} | "
              f"{fmt([r['timeouts'] for r in rs], 1)} |")


def main():
    saturation(sys.argv[1], sys.argv[2])
    handoff(sys.argv[3])


if __name__ == "__main__":
    main()
