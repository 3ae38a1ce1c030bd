#!/usr/bin/env python3
"""Issue 14 validation: the study-3 path (4 MiB, TCP Reno, TCP SACK, SCTP single- and
multihomed) at 0, 1, 4, 8 and 16% loss, ns-2.35 with its stock TCP mechanisms against packetsim
with and without `profile = "ns2"`.

    bench/validate/ns2profile/run.py [--runs N] [--jobs J] [--protos reno,sack,...]
                                     [--ns2-only|--packetsim-only|--table-only]

--protos limits the runs to some protocols; the table then keeps, for the others, the rows
and summary lines already in table.md / summary.jsonl (so TCP and SCTP can be re-run apart).

ns-2: ../sctp/sctp_path.tcl with NS2_STOCK=1 (singledup_ 1, minrto_ 0.2, maxrto_ 60; the
scenario's sizes kept), seeds 1..N, into RAW/ns2_stock.jsonl.
packetsim: `packetsim sweep` of scenarios/sctp-tcp-path.toml (TCP) and
scenarios/sctp-multihoming.toml (SCTP), N runs per point, once as the scenarios are
("standard") and once with `profile = "ns2"` plus the ns-2.35 timer values the scenario file
would otherwise override (rto_min 200 ms, rto_max 60 s), into RAW/packetsim/.
RAW (raw runs and sweep folders) is $NS2PROFILE_RAW, by default /tmp/ns2/ns2profile: OUTSIDE
the repository (a submission with raw run folders is refused for size). Only the summaries are
written here: table.md (the tables) and summary.jsonl (one line per protocol and loss with the
means, CIs and counts). Standard library only. PACKETSIM=path overrides the binary.
"""
import argparse
import csv
import glob
import json
import math
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
RAW = os.environ.get("NS2PROFILE_RAW", "/tmp/ns2/ns2profile")
if os.path.abspath(RAW).startswith(ROOT + os.sep):
    sys.exit(f"NS2PROFILE_RAW={RAW} is inside the repository; raw runs stay outside it")
NS2_RAW = os.path.join(RAW, "ns2_stock.jsonl")
PS_DIR = os.path.join(RAW, "packetsim")
TCL = os.path.join(HERE, "..", "sctp", "sctp_path.tcl")
PROTOS = ["reno", "sack", "sctp1", "sctp2"]
LOSSES = [0.0, 0.01, 0.04, 0.08, 0.16]
T95 = {29: 2.045, 49: 2.010, 99: 1.984}


def t95(n):
    return T95.get(n - 1, 1.96 if n > 60 else 2.045)


def ns2_runs(runs, jobs, protos):
    done = set()
    if os.path.exists(NS2_RAW):
        for line in open(NS2_RAW):
            r = json.loads(line)
            done.add((r["proto"], r["loss0"], r["seed"]))
    todo = [(p, l, s) for p in protos for l in LOSSES for s in range(1, runs + 1)
            if (p, l, s) not in done]
    env = dict(os.environ, NS2_STOCK="1")

    def one(k):
        p, l, s = k
        out = subprocess.run(["ns", TCL, p, str(l), "0.0", "1", str(s)], env=env,
                             capture_output=True, text=True, timeout=3600)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        r["loss0"] = l
        r["stock"] = True
        return r

    with ThreadPoolExecutor(jobs) as ex, open(NS2_RAW, "a") as f:
        for r in ex.map(one, todo):
            f.write(json.dumps(r, sort_keys=True) + "\n")
            f.flush()


# (proto) -> scenario and extra --set arguments for packetsim.
SINGLE = ["--set", 'flows.file.from_addresses=["S0"]', "--set", 'flows.file.to_addresses=["D0"]']
PS_POINTS = {
    "reno": ("scenarios/sctp-tcp-path.toml", ["--set", 'tcp.variant="reno"']),
    "sack": ("scenarios/sctp-tcp-path.toml", ["--set", 'tcp.variant="sack"']),
    "sctp1": ("scenarios/sctp-multihoming.toml", SINGLE),
    "sctp2": ("scenarios/sctp-multihoming.toml", []),
}
PROFILE = ["--set", 'profile="ns2"']
# The TCP scenario file sets these itself (the study's values), so they would win over the
# profile; ns-2.35's stock values are given explicitly.
PROFILE_TCP = ["--set", 'tcp.rto_min="200ms"', "--set", 'tcp.rto_max="60s"']

# The SCTP scenario sets fast_recovery = false (spec 3: RFC 2960); ns-2.35's SCTP always has
# RFC 4960's one-cut-per-window guard. The trigger stays 4 in both (the ns-2 runs use 4).
PROFILE_SCTP = ["--set", "sctp.fast_recovery=true"]


def ps_runs(runs, binary, modes, protos):
    for mode in modes:
        for p in protos:
            for l in LOSSES:
                out = os.path.join(PS_DIR, f"{mode}-{p}-{l}")
                if os.path.exists(os.path.join(out, "runs.csv")):
                    continue
                scen, extra = PS_POINTS[p]
                args = [binary, "sweep", os.path.join(ROOT, scen), "--runs", str(runs),
                        "--out", out, "--jobs", "1",
                        "--set", f"links.path0_core.loss={l}"] + extra
                if mode == "ns2":
                    args += PROFILE + (PROFILE_TCP if p in ("reno", "sack") else PROFILE_SCTP)
                subprocess.run(args, check=True)


def mean_ci(xs):
    m = statistics.fmean(xs)
    ci = t95(len(xs)) * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0
    return m, ci


NAMES = {"reno": "TCP Reno", "sack": "TCP SACK", "sctp1": "SCTP single-homed",
         "sctp2": "SCTP multihomed"}


def ps_metric(mode, p, l, names):
    """(mean, ci half-width, n) of the first metric in `names` in the sweep's results.csv."""
    f = os.path.join(PS_DIR, f"{mode}-{p}-{l}", "results.csv")
    if not os.path.exists(f):
        return None
    rows = {r["metric"]: r for r in csv.DictReader(open(f))}
    for n in names:
        if n in rows:
            r = rows[n]
            return float(r["mean"]), (float(r["ci95_high"]) - float(r["ci95_low"])) / 2, int(r["n"])
    return None


# TCP: from t = 0, SYN included (as ns-2's time_s); SCTP: from the first DATA, the handshake
# excluded (the study's metric, as ns-2's time_s).
TIME = ["flows.file.completion_time_s"]
STIME = ["flows.file.transfer_time_s"]
RTX = ["flows.file.retransmits"]


def kept_rows():
    """Rows of the current table.md and summary.jsonl by protocol name and loss, in order."""
    rows, lines = {}, {}
    path = os.path.join(HERE, "table.md")
    if os.path.exists(path):
        for line in open(path):
            cells = [c.strip() for c in line.split("|")]
            if len(cells) > 3 and cells[1] in NAMES.values():
                rows.setdefault((cells[1], cells[2]), []).append(line.rstrip("\n"))
    path = os.path.join(HERE, "summary.jsonl")
    if os.path.exists(path):
        for line in open(path):
            r = json.loads(line)
            lines[(r["proto"], r["loss"])] = line.rstrip("\n")
    return rows, lines


def table(runs):
    old_rows, old_lines = kept_rows()

    def keep(p, l, out):
        """Appends the old row of (p, l) for the next table when it has no ns-2 runs now."""
        old = old_rows.get((NAMES[p], f"{l:.0%}"), [])
        if old:
            out.append(old.pop(0))

    ns = {}
    for line in open(NS2_RAW):
        r = json.loads(line)
        k = (r["proto"], r["loss0"])
        ns.setdefault(k, {"t": [], "rtx": [], "to": []})
        if r["completed"]:
            ns[k]["t"].append(r["time_s"])
            # TCP: nrexmitpack_; SCTP: DATA packets sent beyond the file's chunks.
            ns[k]["rtx"].append(r["rexmit_pkts"] if "rexmit_pkts" in r else
                                r["sent_path0"] + r["sent_path1"] - r["units"])
            ns[k]["to"].append(r["timeouts"])
    out = []
    out.append("| protocol | loss | ns-2.35 stock, mean ± 95% CI (s) | packetsim standard (s) | "
               "vs ns-2 | packetsim `profile = \"ns2\"` (s) | vs ns-2 |")
    out.append("|---|---:|---:|---:|---:|---:|---:|")
    for p in PROTOS:
        for l in LOSSES:
            if (p, l) not in ns:
                keep(p, l, out)
                continue
            m, ci = mean_ci(ns[(p, l)]["t"])
            cells = [f"{NAMES[p]}", f"{l:.0%}", f"{m:.2f} ± {ci:.2f} (n={len(ns[(p, l)]['t'])})"]
            for mode in ("standard", "ns2"):
                r = ps_metric(mode, p, l, TIME if p in ("reno", "sack") else STIME)
                if r is None:
                    cells += ["–", "–"]
                else:
                    cells += [f"{r[0]:.2f} ± {r[1]:.2f} (n={r[2]})", f"{(r[0] / m - 1) * 100:+.1f}%"]
            out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out.append("Retransmissions per transfer (means; ns-2 `nrexmitpack_` for TCP, retransmitted "
               "chunks for SCTP):")
    out.append("")
    out.append("| protocol | loss | ns-2.35 stock | packetsim standard | vs ns-2 | packetsim ns2 | vs ns-2 |")
    out.append("|---|---:|---:|---:|---:|---:|---:|")
    for p in PROTOS:
        for l in LOSSES:
            if (p, l) not in ns:
                keep(p, l, out)
                continue
            m = statistics.fmean(ns[(p, l)]["rtx"])
            cells = [NAMES[p], f"{l:.0%}", f"{m:.1f}"]
            for mode in ("standard", "ns2"):
                r = ps_metric(mode, p, l, RTX)
                if r is None:
                    cells += ["–", "–"]
                else:
                    cells += [f"{r[0]:.1f}", f"{(r[0] / m - 1) * 100:+.1f}%" if m else "–"]
            out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out.append("Retransmission timeouts per transfer (means; ns-2 `nrexmit_` for TCP, "
               "`timeoutCount_` for SCTP, which also counts its setup timers):")
    out.append("")
    out.append("| protocol | loss | ns-2.35 stock | packetsim standard | packetsim ns2 |")
    out.append("|---|---:|---:|---:|---:|")
    for p in PROTOS:
        for l in LOSSES:
            if (p, l) not in ns:
                keep(p, l, out)
                continue
            cells = [NAMES[p], f"{l:.0%}", f"{statistics.fmean(ns[(p, l)]['to']):.1f}"]
            for mode in ("standard", "ns2"):
                r = ps_metric(mode, p, l, ["flows.file.timeouts"])
                cells.append("–" if r is None else f"{r[0]:.1f}")
            out.append("| " + " | ".join(cells) + " |")
    text = "\n".join(out) + "\n"
    with open(os.path.join(HERE, "table.md"), "w") as f:
        f.write(text)
    with open(os.path.join(HERE, "summary.jsonl"), "w") as f:
        for p in PROTOS:
            for l in LOSSES:
                if (p, l) not in ns:
                    if (p, l) in old_lines:
                        f.write(old_lines[(p, l)] + "\n")
                    continue
                t = ns[(p, l)]["t"]
                m, ci = mean_ci(t)
                row = {"proto": p, "loss": l, "ns235_time_s": round(m, 3),
                       "ns235_ci95": round(ci, 3), "ns235_n": len(t),
                       "ns235_rtx": round(statistics.fmean(ns[(p, l)]["rtx"]), 2),
                       "ns235_timeouts": round(statistics.fmean(ns[(p, l)]["to"]), 2)}
                for mode in ("standard", "ns2"):
                    for key, names in (("time_s", TIME if p in ("reno", "sack") else STIME),
                                       ("rtx", RTX), ("timeouts", ["flows.file.timeouts"])):
                        r = ps_metric(mode, p, l, names)
                        if r is not None:
                            row[f"ps_{mode}_{key}"] = round(r[0], 3)
                            if key == "time_s":
                                row[f"ps_{mode}_ci95"] = round(r[1], 3)
                                row[f"ps_{mode}_n"] = r[2]
                f.write(json.dumps(row, sort_keys=True) + "\n")
    print(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--ns2-only", action="store_true")
    ap.add_argument("--packetsim-only", action="store_true")
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument("--protos", default=",".join(PROTOS))
    a = ap.parse_args()
    protos = a.protos.split(",")
    if not set(protos) <= set(PROTOS):
        sys.exit(f"--protos: expected some of {','.join(PROTOS)}, got {a.protos}")
    os.makedirs(PS_DIR, exist_ok=True)
    os.makedirs(RAW, exist_ok=True)
    binary = os.environ.get("PACKETSIM", os.path.join(ROOT, "target", "release", "packetsim"))
    if not (a.table_only or a.packetsim_only):
        ns2_runs(a.runs, a.jobs, protos)
    if not (a.table_only or a.ns2_only):
        ps_runs(a.runs, binary, os.environ.get("MODES", "standard,ns2").split(","), protos)
    if not a.ns2_only:
        table(a.runs)


if __name__ == "__main__":
    main()
