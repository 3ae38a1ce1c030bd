#!/usr/bin/env python3
"""Table of the ns-2.35 Mobile IP handoff runs (one JSON line per run from handoff.py).

    python3 handoff_table.py data/ns2_handoff.jsonl > data/handoff.md

Every per-handoff figure is first averaged within a run (one value per seed), then the mean
and 95% CI (Student t) are taken over seeds, by speed and by direction (HA -> FA: leaving
home for the foreign agent, the run's first handoff apart from the later ones; FA -> HA:
returning home). A burst of switches that ends on the base station it started from (the
mobile near home hearing both agents; deliveries alternate for a while and settle back on the
FA) is not a handoff: those are counted as "flap bursts" in the per-run table.
"""
import json
import statistics
import sys
from collections import defaultdict

from ci import ci95


def fmt(xs, digits=3):
    if not xs:
        return "–"
    return f"{statistics.mean(xs):.{digits}f} ± {ci95(xs):.{digits}f}"


def position(t, v):
    """The mobile's x (m) at time t: from x = 50 at t = 5 s to 450 and back (handoff.tcl)."""
    if t <= 5.0:
        return 50.0
    d = (t - 5.0) * v % 800.0
    return 50.0 + (d if d <= 400.0 else 800.0 - d)


def main():
    runs = defaultdict(list)
    for line in open(sys.argv[1]):
        r = json.loads(line)
        runs[r["speed"]].append(r)
    print("Per handoff: mean over seeds of each run's mean, ± 95% CI over seeds. "
          "HA = home agent (mac 0) at x = 100 m, FA = foreign agent (mac 1) at x = 400 m; both cells cover 150 <= x <= 350.\n")
    print("| speed (m/s) | direction | seeds | handoffs / run | outage (s) | max outage in run (s) "
          "| switches / handoff | TCP data lost / handoff | TCP ACKs lost / handoff "
          "| MAC retries / handoff | mobile's x at first delivery via the new BS (m) |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for v in sorted(runs):
        for name, pick in (("HA → FA, first", lambda i, h: i == 0 and h["from"] == 0),
                           ("HA → FA, later", lambda i, h: i > 0 and h["from"] == 0),
                           ("FA → HA", lambda i, h: h["from"] == 1),
                           ("all", lambda i, h: True)):
            per = defaultdict(list)
            for r in runs[v]:
                real = [h for h in r["handoffs"] if h["from"] != h["to"]]
                hs = [h for i, h in enumerate(real) if pick(i, h)]
                per["count"].append(len(hs))
                if not hs:
                    continue
                for k in ("outage_s", "switches", "lost_data", "lost_acks", "mac_retries"):
                    per[k].append(statistics.mean(h[k] for h in hs))
                per["max"].append(max(h["outage_s"] for h in hs))
                per["x"].append(statistics.mean(position(h["first_new"], v) for h in hs))
            print(f"| {v:g} | {name} | {len(runs[v])} | {fmt(per['count'], 2)} | {fmt(per['outage_s'])} "
                  f"| {fmt(per['max'])} | {fmt(per['switches'], 1)} | {fmt(per['lost_data'], 2)} "
                  f"| {fmt(per['lost_acks'], 2)} | {fmt(per['mac_retries'], 1)} | {fmt(per['x'], 0)} |")
    print()
    print("Per run: TCP goodput over [FTP start, end] (highest cumulative ACK x 1000 B), the "
          "sender's retransmitted packets and timeouts, MAC retransmissions over all TCP data "
          "and ACK frames, drops outside every handoff window.\n")
    print("| speed (m/s) | seeds | goodput (Mb/s) | TCP rexmits | TCP timeouts | MAC retries / frame "
          "| data lost outside handoffs | DSDV 'no route to base_stn' drops | flap bursts |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for v in sorted(runs):
        rs = runs[v]
        print(f"| {v:g} | {len(rs)} | {fmt([r['goodput_bps'] / 1e6 for r in rs])} "
              f"| {fmt([r['tcp_rexmit_pkts'] for r in rs], 1)} | {fmt([r['tcp_timeouts'] for r in rs], 1)} "
              f"| {fmt([r['mac_retries'] / r['mac_frames'] for r in rs], 4)} "
              f"| {fmt([r['other_lost_data'] for r in rs], 2)} "
              f"| {fmt([r.get('dsdv_no_route_to_bs', float('nan')) for r in rs], 1)} "
              f"| {fmt([sum(h['from'] == h['to'] for h in r['handoffs']) for r in rs], 1)} |")
    reasons = defaultdict(int)
    for rs in runs.values():
        for r in rs:
            for h in r["handoffs"]:
                for k, n in h["drop_reasons"].items():
                    reasons[k] += n
            for k, n in r["other_drop_reasons"].items():
                reasons[f"{k} (outside handoffs)"] += n
    print()
    print("Drop reasons over all runs (ns-2 trace codes: ARP = held by ARP and replaced, "
          "IFQ = interface queue full, RET = MAC retry limit, NRTE = no route, CBK = MAC "
          "callback after a failed transmission, queue = wired queue): "
          + (", ".join(f"{k} {n}" for k, n in sorted(reasons.items())) or "none") + ".")


if __name__ == "__main__":
    main()
