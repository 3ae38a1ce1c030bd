#!/usr/bin/env python3
"""Per-flow waiting time in one link direction's queue, from a packetsim event trace.

    sojourn.py OUT/trace/events.csv [LINK]

Pairs each data packet's `enqueue` with its `dequeue` on the direction LINK (default: the
first direction named `bottleneck:...`) by `uid`, and prints per flow: packets, sojourn
median / p90 / max (ms), drops by reason, and the duplicate segments among the enqueued
ones (a sequence number enqueued again). Issue 33 item 4 (fq_codel_bbr.md).
"""
import csv
import statistics
import sys
from collections import defaultdict


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: sojourn.py EVENTS_CSV [LINK]")
    want = sys.argv[2] if len(sys.argv) == 3 else None
    enq = {}
    soj = defaultdict(list)
    drops = defaultdict(lambda: defaultdict(int))
    seen = defaultdict(set)
    dups = defaultdict(int)
    with open(sys.argv[1], newline="") as f:
        for r in csv.DictReader(f):
            if want is None and r["link"].startswith("bottleneck:"):
                want = r["link"]
            if r["link"] != want or r["proto"] != "tcp" or not r["flow"]:
                continue
            fl, t = r["flow"], float(r["time_s"])
            if r["event"] == "enqueue":
                if int(r["size_bytes"]) > 100:
                    if r["seq"] in seen[fl]:
                        dups[fl] += 1
                    seen[fl].add(r["seq"])
                enq[r["uid"]] = t
            elif r["event"] == "dequeue" and r["uid"] in enq:
                soj[fl].append((t - enq.pop(r["uid"])) * 1e3)
            elif r["event"] == "drop":
                drops[fl][r["reason"]] += 1
                enq.pop(r["uid"], None)
    print(f"direction {want}")
    print("flow,packets,median_ms,p90_ms,max_ms,drops,duplicate_segments")
    for fl in sorted(soj):
        xs = soj[fl]
        d = " ".join(f"{k}:{v}" for k, v in sorted(drops[fl].items())) or "0"
        print(f"{fl},{len(xs)},{statistics.median(xs):.2f},{pct(xs, 0.9):.2f},{max(xs):.2f},"
              f"{d},{dups[fl]}")


if __name__ == "__main__":
    main()
