#!/usr/bin/env python3
"""Issue 14: the same losses in both simulators, and where their senders first part.

    bench/validate/ns2profile/replay.py PROTO LOSS SEED [SEED...] [--show N]

PROTO is reno or sack; LOSS the drop probability of the list. For each seed a loss list is
drawn (Python's `random.Random(seed * 1000 + round(loss * 100))`, indices 0..11999, each kept
with probability LOSS), and both simulators lose exactly those packet indices on R0a -> R0b,
counted as they arrive at the loss model, before the queue:
- ns-2.35: ../sctp/sctp_path.tcl with NS2_STOCK=1, LOSSLIST (ErrorModel/List placed by
  `$ns lossmodel`) and EVLOG (every TCP packet S0 sends and every ACK it receives; the agent's
  cwnd_, ssthresh_, nrexmit_, rtt_, srtt_, rttvar_, backoff_ in EVLOG.vars);
- packetsim: scenarios/sctp-tcp-path.toml with profile = "ns2" (and rto_min 200 ms, rto_max
  60 s, as run.py), `links.path0_core.loss_packets` (before the queue under the profile's
  loss_position) and `--trace` of path0_in.
Prints per seed: time, retransmissions and timeouts of each, and the first packet at which the
two send sequences (segment numbers in send order) differ; --show N prints N events either side.
Raw files go to $NS2PROFILE_RAW/replay (default /tmp/ns2/ns2profile/replay), outside the
repository. PACKETSIM=path overrides the binary. Standard library only.
"""
import argparse
import csv
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
RAW = os.path.join(os.environ.get("NS2PROFILE_RAW", "/tmp/ns2/ns2profile"), "replay")
if os.path.abspath(RAW).startswith(ROOT + os.sep):
    sys.exit(f"NS2PROFILE_RAW={RAW} is inside the repository; raw runs stay outside it")
TCL = os.path.join(HERE, "..", "sctp", "sctp_path.tcl")
MSS = 1460


def loss_list(loss, seed):
    r = random.Random(seed * 1000 + round(loss * 100))
    return [i for i in range(12000) if r.random() < loss]


def run_ns2(proto, loss, seed, lst, base):
    path = base + ".losses"
    with open(path, "w") as f:
        f.write(" ".join(map(str, lst)))
    env = dict(os.environ, NS2_STOCK="1", LOSSLIST=path, EVLOG=base + ".ns2.ev")
    out = subprocess.run(["ns", TCL, proto, str(loss), "0.0", "1", str(seed)], env=env,
                         capture_output=True, text=True, timeout=3600, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    events = []
    for line in open(base + ".ns2.ev"):
        k, t, n = line.split()
        events.append((float(t), k, int(n)))
    return r["time_s"], r["rexmit_pkts"], r["timeouts"], events


def run_packetsim(proto, lst, base):
    binary = os.environ.get("PACKETSIM", os.path.join(ROOT, "target", "release", "packetsim"))
    out = base + ".packetsim"
    subprocess.run([binary, "run", os.path.join(ROOT, "scenarios", "sctp-tcp-path.toml"),
                    "--quiet", "--out", out, "--trace", os.path.join(out, "trace"),
                    "--set", f'tcp.variant="{proto}"', "--set", 'profile="ns2"',
                    "--set", 'tcp.rto_min="200ms"', "--set", 'tcp.rto_max="60s"',
                    "--set", "links.path0_core.loss=0.0",
                    "--set", f"links.path0_core.loss_packets={lst}",
                    "--set", 'trace.links=["path0_in"]'], check=True)
    f = json.load(open(os.path.join(out, "summary.json")))["flows"]["file"]
    events = []
    for r in csv.DictReader(open(os.path.join(out, "trace", "events.csv"))):
        if r["proto"] != "tcp":
            continue
        t = float(r["time_s"])
        # Segment numbers as ns-2 counts them: the SYN 0, data 1, 2, ...; ACKs: the highest
        # segment received in order.
        if r["event"] == "enqueue" and r["link"].endswith("S->R0a"):
            s = int(r["seq"])
            events.append((t, "S", 0 if s == 0 else (s - 1) // MSS + 1))
        elif r["event"] == "receive" and r["link"].endswith("R0a->S"):
            events.append((t, "A", max(0, (int(r["ack"]) - 1) // MSS)))
    events.sort(key=lambda e: e[0])
    return f["completion_time_s"], f["retransmits"], f["timeouts"], events


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("proto", choices=["reno", "sack"])
    ap.add_argument("loss", type=float)
    ap.add_argument("seeds", type=int, nargs="+")
    ap.add_argument("--show", type=int, default=0)
    a = ap.parse_args()
    os.makedirs(RAW, exist_ok=True)
    for seed in a.seeds:
        lst = loss_list(a.loss, seed)
        base = os.path.join(RAW, f"{a.proto}-{a.loss}-{seed}")
        nt, nr, nto, nev = run_ns2(a.proto, a.loss, seed, lst, base)
        pt, pr, pto, pev = run_packetsim(a.proto, lst, base)
        ns_s = [(t, n) for t, k, n in nev if k == "S"]
        ps_s = [(t, n) for t, k, n in pev if k == "S"]
        div = next((i for i, (x, y) in enumerate(zip(ns_s, ps_s)) if x[1] != y[1]), None)
        where = "identical send sequence" if div is None else \
            f"first difference at packet {div}: ns-2 {ns_s[div]}, packetsim {ps_s[div]}"
        print(f"{a.proto} {a.loss} seed {seed}: ns-2 {nt:.2f} s, {nr} rtx, {nto} timeouts | "
              f"packetsim {pt:.2f} s, {pr} rtx, {pto} timeouts | {where}")
        if div is not None and a.show:
            t0 = ns_s[max(0, div - a.show)][0]
            t1 = ns_s[min(len(ns_s) - 1, div + a.show)][0]
            for name, ev in (("ns-2", nev), ("packetsim", pev)):
                print(f"  {name}:", " ".join(f"{k}{n}@{t:.4f}" for t, k, n in ev if t0 <= t <= t1))


if __name__ == "__main__":
    main()
