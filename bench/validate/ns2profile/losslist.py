#!/usr/bin/env python3
"""Issue 14: single-homed SCTP on the study-3 path with the SAME losses in both simulators.

    bench/validate/ns2profile/losslist.py [--loss 0.16] [--seeds 1-10] [--set KEY=VALUE]...

For each seed a loss list is drawn (Python's random.Random(seed): each packet index 4..29999
lost with probability --loss; indices 0-3, the handshake and the path-verification
HEARTBEAT, are kept) and given to ns-2.35 (../sctp/sctp_path.tcl with NS2_STOCK=1 and
NS2_DROPLIST, an ErrorModel/List at R0a -> R0b placed by `$ns lossmodel`) and to packetsim
(scenarios/sctp-multihoming.toml single-homed, `profile = "ns2"`, fast_recovery = true,
`links.path0_core.loss_packets` with the same indices; the profile puts the list before the
queue, as ns-2's lossmodel). Both count the packets their error model sees from 0, so each
run drops the same packets as long as both send the same packet sequence; where they part,
the mechanism can be read from the two runs' traces. Prints one line per seed (transfer time,
T3 expiries, retransmitted chunks) and the means. Raw files go to $LOSSLIST_RAW (default
/tmp/ns2/losslist), outside the repository. PACKETSIM=path overrides the binary; extra
--set arguments go to packetsim.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
RAW = os.environ.get("LOSSLIST_RAW", "/tmp/ns2/losslist")
if os.path.abspath(RAW).startswith(ROOT + os.sep):
    sys.exit(f"LOSSLIST_RAW={RAW} is inside the repository; raw runs stay outside it")
TCL = os.path.join(HERE, "..", "sctp", "sctp_path.tcl")


def seeds(spec):
    a, _, b = spec.partition("-")
    return range(int(a), int(b or a) + 1)


def one(seed, loss, binary, extra):
    r = random.Random(seed)
    idx = [i for i in range(4, 30000) if r.random() < loss]
    lst = os.path.join(RAW, f"list-{loss}-{seed}.txt")
    with open(lst, "w") as f:
        f.write(" ".join(map(str, idx)) + "\n")
    env = dict(os.environ, NS2_STOCK="1", NS2_DROPLIST=lst)
    out = subprocess.run(["ns", TCL, "sctp1", "0.0", "0.0", "1", str(seed)], env=env,
                         capture_output=True, text=True, check=True)
    ns = json.loads(out.stdout.strip().splitlines()[-1])
    d = os.path.join(RAW, f"ps-{loss}-{seed}")
    subprocess.run([binary, "run", os.path.join(ROOT, "scenarios", "sctp-multihoming.toml"),
                    "--out", d,
                    "--set", 'flows.file.from_addresses=["S0"]',
                    "--set", 'flows.file.to_addresses=["D0"]',
                    "--set", 'profile="ns2"', "--set", "sctp.fast_recovery=true",
                    "--set", "links.path0_core.loss=0.0",
                    "--set", "links.path0_core.loss_packets=[" + ",".join(map(str, idx)) + "]",
                    "--set", f"simulation.seed={seed}"] + extra,
                   check=True, capture_output=True)
    f = json.load(open(os.path.join(d, "summary.json")))["flows"]["file"]
    return (ns["time_s"], ns["timeouts"], ns["sent_path0"] - ns["units"],
            f["transfer_time_s"], f["timeouts"], f["retransmits"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loss", type=float, default=0.16)
    ap.add_argument("--seeds", default="1-10")
    ap.add_argument("--set", action="append", default=[])
    a = ap.parse_args()
    os.makedirs(RAW, exist_ok=True)
    binary = os.environ.get("PACKETSIM", os.path.join(ROOT, "target", "release", "packetsim"))
    extra = [x for s in a.set for x in ("--set", s)]
    rows = []
    print("seed  ns-2 time  T3  rtx | packetsim time  T3  rtx | time vs ns-2")
    for s in seeds(a.seeds):
        r = one(s, a.loss, binary, extra)
        rows.append(r)
        print(f"{s:4d} {r[0]:10.2f} {r[1]:3d} {r[2]:4d} | {r[3]:14.2f} {r[4]:3d} {r[5]:4d} | "
              f"{(r[3] / r[0] - 1) * 100:+6.1f}%")
    m = [statistics.fmean(c) for c in zip(*rows)]
    print(f"mean {m[0]:10.2f} {m[1]:5.1f} {m[2]:6.1f} | {m[3]:12.2f} {m[4]:5.1f} {m[5]:6.1f} | "
          f"{(m[3] / m[0] - 1) * 100:+6.1f}%")


if __name__ == "__main__":
    main()
