#!/usr/bin/env python3
"""Issue 17 validation of the workloads: packetsim's Poisson web-search flows and on-off source
against ns-3.37 on the dumbbell of scenarios/workloads/websearch-dumbbell.toml.

    bench/validate/ns3/workload.py [--configs a,b] [--seeds 1,2,3,4,5] [--onoff]
                                   [--work DIR] [--table-only]

Poisson (default): for each configuration (CONFIGS: NewReno/DropTail, DCTCP/step marking,
CUBIC/FQ-CoDel) and seed, three runs:
- packetsim: the scenario written by `scenario()` (Poisson arrivals at ARRIVAL_RATE over
  0–ARRIVALS_UNTIL s, web-search sizes, run to DURATION s so that nearly every flow ends);
- ns-3 (own draws): tcp_workload.cc with the same rate and CDF, ns-3's run number = the seed;
- ns-3 (packetsim's draws): tcp_workload.cc replaying packetsim's arrivals and sizes of the
  same seed (fct.csv's start_s and bytes), a paired comparison.
Each flow's FCT is the same in all three: from the SYN (arrival) to the last byte delivered to
the receiving application. Slowdown = FCT / packetsim's ideal FCT (docs/outputs.md), computed
here from the size for every run. The table gives, per size bucket (packetsim's), the mean FCT
over seeds with its 95% interval (Student t over the per-seed means), the median and 99th
percentile over all seeds' flows pooled, and the mean slowdown likewise.

--onoff: one on-off flow (exponential on 100 ms / off 400 ms, 30 s), packetsim's `onoff`
against ns-3's OnOffApplication over TCP at two DataRates; delivered bytes sampled every 10 ms.

Raw outputs go to --work (default /tmp/packetsim-ns3-workload). PACKETSIM=path overrides the
packetsim binary. Standard library only.
"""
import argparse
import csv
import json
import math
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (the sibling harness: ns-3 build, packetsim binary)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SRC = os.path.join(HERE, "tcp_workload.cc")
CDF = os.path.join(ROOT, "scenarios", "workloads", "websearch.cdf")

RATE_MBPS, DELAY_MS = 100, 1        # the bottleneck (access links 1 Gb/s, 10 us)
ARRIVAL_RATE = 3.6                  # flows/s: 3.6 x 1.71 MB x 8 = 49 Mb/s, ~50% load
ARRIVALS_UNTIL, DURATION = 25, 35   # arrivals over 0-25 s, run to 35 s
IW, MIN_RTO_MS = 10, 10
# ns-3.37 takes an RTT sample from every acknowledged segment (TcpSocketBase::EstimateRtt);
# packetsim by default times one segment per round trip (RFC 6298 with Karn).
NS3RTT = {"rtt_sampling": '"every_segment"'}
CONFIGS = {
    "newreno-droptail": dict(variant="newreno", aqm="droptail", queue=100),
    "dctcp-step": dict(variant="dctcp", aqm="step", queue=100, k=20),
    "cubic-fqcodel": dict(variant="cubic", aqm="fq_codel", queue=1000),
    # The same with packetsim sampling RTT as ns-3 does; ns-3's runs are the base's (the
    # ns-3 side and packetsim's draws are the same).
    "newreno-droptail-rtt": dict(variant="newreno", aqm="droptail", queue=100, tcp=NS3RTT,
                                 twin_of="newreno-droptail"),
    "dctcp-step-rtt": dict(variant="dctcp", aqm="step", queue=100, k=20, tcp=NS3RTT,
                           twin_of="dctcp-step"),
    "cubic-fqcodel-rtt": dict(variant="cubic", aqm="fq_codel", queue=1000, tcp=NS3RTT,
                              twin_of="cubic-fqcodel"),
    # DCTCP with the step queue letting non-ECT packets (SYNs, retransmissions) in unmarked
    # instead of dropping them above K (ns-3's DCTCP sends them ECT-capable, so its RED
    # marks them).
    "dctcp-step-pass": dict(variant="dctcp", aqm="step", queue=100, k=20, tcp=NS3RTT,
                            qopts={"step_non_ect": '"pass"'}, twin_of="dctcp-step"),
    # FQ-CoDel as ns-3.37's: a batch of 64 dropped from the fattest flow on overflow, the
    # Newton-step control law (run.py's fq_codel-10-ns3).
    "cubic-fqcodel-ns3": dict(variant="cubic", aqm="fq_codel", queue=1000, tcp=NS3RTT,
                              qopts={"drop_batch_size": 64, "control_law": '"newton"'},
                              twin_of="cubic-fqcodel"),
    # cubic-fqcodel-ns3 with ns-3.37's TcpCubic in packetsim (`cubic_model = "ns3"`: its
    # whole-segment growth, and slow start adding every segment an ACK covers).
    "cubic-fqcodel-ns3cubic": dict(variant="cubic", aqm="fq_codel", queue=1000,
                                   tcp=dict(NS3RTT, cubic_model='"ns3"'),
                                   qopts={"drop_batch_size": 64, "control_law": '"newton"'},
                                   twin_of="cubic-fqcodel"),
    # ... and with the rest of ns-3.37's TCP rules (run.py's NS3TCP: the timeout's ssthresh
    # from RFC 6675's pipe, SACKed data kept across a timeout, the SACK recovery's timer
    # restarted by the first partial ACK only).
    "cubic-fqcodel-ns3all": dict(variant="cubic", aqm="fq_codel", queue=1000,
                                 tcp=dict(NS3RTT, cubic_model='"ns3"', rto_ssthresh='"pipe"',
                                          keep_sack_on_timeout="true",
                                          sack_partial_ack_timer='"impatient"'),
                                 qopts={"drop_batch_size": 64, "control_law": '"newton"'},
                                 twin_of="cubic-fqcodel"),
}
BUCKETS = ["under_10KB", "10KB_100KB", "100KB_1MB", "1MB_10MB", "10MB_plus"]
# Student t, 97.5% quantile, by degrees of freedom.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262}


def bucket_of(b):
    """packetsim's report/fct.rs bucket_of."""
    return BUCKETS[0 if b < 10_000 else 1 if b < 100_000 else 2 if b < 1_000_000
                   else 3 if b < 10_000_000 else 4]


def ideal_fct(b):
    """packetsim's ideal FCT on this dumbbell (docs/outputs.md, fct.csv `ideal_fct_s`)."""
    d = 10e-6 + DELAY_MS / 1e3 + 10e-6
    wire = b + 40 * math.ceil(b / 1460)
    return 3 * d + wire * 8 / (RATE_MBPS * 1e6)


def queue_toml(c):
    extra = "".join(f", {k} = {v}" for k, v in c.get("qopts", {}).items())
    if c["aqm"] == "droptail":
        return f'{{ kind = "droptail", limit = {c["queue"]} }}'
    if c["aqm"] == "step":
        return (f'{{ kind = "red", red = {{ step = {c["k"]}, ecn = "standard", '
                f'limit = {c["queue"]}{extra} }} }}')
    return (f'{{ kind = "fq_codel", fq_codel = {{ limit = {c["queue"]}, quantum = 1500, '
            f'ecn = false{extra} }} }}')


def scenario(name, c, seed, onoff=None):
    """packetsim's side, matched to tcp_workload.cc."""
    variant = "sack" if c["variant"] == "newreno" else c["variant"]
    lines = [f"# bench/validate/ns3 workload {name}: written by workload.py",
             "# ns-3's TCP, not Linux's: the documented defaults whatever the variant (issue 33)",
             'profile = "standard"', "[simulation]", f'duration = "{onoff["secs"] if onoff else DURATION}s"',
             f"seed = {seed}"]
    if onoff:
        lines.append(f'sample_interval = "{onoff["sample_ms"]}ms"')
    lines += ["", "[tcp]", f'variant = "{variant}"', "mss = 1460", f"initial_cwnd = {IW}",
              'rcv_window = "4MiB"', 'rto_initial = "1s"', f'rto_min = "{MIN_RTO_MS}ms"',
              'granularity = "1ms"']
    if variant != "sack":
        lines.append('loss_recovery = "sack"')
    if variant == "dctcp":
        lines += ["ecn = true", 'ecn_echo = "per_segment"']
    lines += [f"{k} = {v}" for k, v in c.get("tcp", {}).items()]
    lines += ["", "[nodes.s1]", "[nodes.r1]", "[nodes.r2]", "[nodes.d1]", ""]
    big = '{ kind = "droptail", limit = 1000 }'
    for link, a, b, rate, delay, q in [
            ("access", "s1", "r1", "1Gbps", "10us", big),
            ("bottleneck", "r1", "r2", f"{RATE_MBPS}Mbps", f"{DELAY_MS}ms", queue_toml(c)),
            ("egress", "r2", "d1", "1Gbps", "10us", big)]:
        lines += [f"[links.{link}]", f'a = "{a}"', f'b = "{b}"', f'rate = "{rate}"',
                  f'delay = "{delay}"', f"queue = {q}", ""]
    lines += ["[flows.web]", 'from = "s1"', 'to = "d1"']
    if onoff:
        lines += ['app = "onoff"', f'on_time = "{onoff["on_ms"]}ms"',
                  f'off_time = "{onoff["off_ms"]}ms"']
    else:
        lines += ['app = "poisson"', f"arrival_rate = {ARRIVAL_RATE}",
                  'size_cdf = "websearch.cdf"', f'stop = "{ARRIVALS_UNTIL}s"']
    return "\n".join(lines) + "\n"


def build_ns3(work):
    return run.build_ns3(work, SRC, "tcp-workload")


def ns3_common(ns3, c, seed):
    args = [ns3, f"--variant={c['variant']}", f"--aqm={c['aqm']}", f"--queue={c['queue']}",
            f"--rate={RATE_MBPS}", f"--delay={DELAY_MS}", f"--seed={seed}", f"--iw={IW}",
            f"--min-rto-ms={MIN_RTO_MS}"]
    if c.get("k"):
        args.append(f"--k={c['k']}")
    return args


def run_poisson(name, c, seed, work, ns3):
    d = os.path.join(work, name, f"seed{seed}")
    os.makedirs(d, exist_ok=True)
    shutil.copy(CDF, os.path.join(d, "websearch.cdf"))
    toml = os.path.join(d, "scenario.toml")
    with open(toml, "w") as f:
        f.write(scenario(name, c, seed))
    subprocess.run([run.packetsim_bin(), "run", toml, "--quiet", "--out", os.path.join(d, "ps")],
                   check=True)
    sched = os.path.join(d, "ps_schedule.txt")
    with open(os.path.join(d, "ps", "fct.csv")) as f, open(sched, "w") as out:
        for row in csv.DictReader(f):
            out.write(f"{row['start_s']} {row['bytes']}\n")
    if c.get("twin_of"):
        src = os.path.join(work, c["twin_of"], f"seed{seed}")
        if not os.path.exists(os.path.join(src, "ns3paired_fct.csv")):
            sys.exit(f"workload.py: {name} reuses {c['twin_of']}'s ns-3 runs: run that "
                     f"configuration first (seed {seed}, --work {work})")
        for f in ("ns3.json", "ns3_fct.csv", "ns3paired.json", "ns3paired_fct.csv"):
            shutil.copy(os.path.join(src, f), os.path.join(d, f))
        return
    base = ns3_common(ns3, c, seed) + [f"--duration={DURATION}"]
    for tag, extra in [("ns3", [f"--cdf={CDF}", f"--arrival-rate={ARRIVAL_RATE}",
                                f"--arrivals-until={ARRIVALS_UNTIL}"]),
                       ("ns3paired", [f"--schedule={sched}"])]:
        out = subprocess.run(base + extra + [f"--fct-csv={os.path.join(d, tag + '_fct.csv')}"],
                             check=True, capture_output=True, text=True).stdout
        with open(os.path.join(d, tag + ".json"), "w") as f:
            f.write(out.strip().splitlines()[-1] + "\n")


def read_flows(path, key):
    """[(bytes, start_s, fct_s or None)] from packetsim's fct.csv or ns-3's --fct-csv."""
    out = []
    with open(path) as f:
        for row in csv.DictReader(f):
            fct = row[key]
            out.append((int(row["bytes"]), float(row["start_s"]), float(fct) if fct else None))
    return out


def pctl(xs, p):
    """Nearest rank, the ceil(p n)-th smallest (packetsim's percentile)."""
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[max(1, math.ceil(p * len(s))) - 1]


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def ci95(xs):
    """Half-width of the 95% interval of the mean of xs (Student t)."""
    n = len(xs)
    if n < 2:
        return float("nan")
    m = mean(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return T975.get(n - 1, 1.96) * sd / math.sqrt(n)


def stats(runs):
    """runs: {seed: [(bytes, start, fct)]} -> {bucket: dict} (and "all")."""
    out = {}
    for bk in BUCKETS + ["all"]:
        per_seed, pooled, sd_pooled, sd_seed, n, done = [], [], [], [], 0, 0
        for flows in runs.values():
            sel = [(b, f) for b, _, f in flows if bk == "all" or bucket_of(b) == bk]
            n += len(sel)
            fin = [(b, f) for b, f in sel if f is not None]
            done += len(fin)
            if fin:
                per_seed.append(mean([f for _, f in fin]))
                sd_seed.append(mean([f / ideal_fct(b) for b, f in fin]))
            pooled += [f for _, f in fin]
            sd_pooled += [f / ideal_fct(b) for b, f in fin]
        out[bk] = dict(flows=n, completed=done, mean=mean(per_seed), ci=ci95(per_seed),
                       p50=pctl(pooled, 0.5), p99=pctl(pooled, 0.99),
                       sd_mean=mean(sd_seed), sd_ci=ci95(sd_seed), sd_p50=pctl(sd_pooled, 0.5),
                       sd_p99=pctl(sd_pooled, 0.99))
    return out


def verdict(a, b):
    """'agrees' when the means are within 10% or each one's 95% interval overlaps the
    other's; else 'differs'."""
    if not (a["completed"] and b["completed"]):
        return "n/a"
    if abs(b["mean"] - a["mean"]) <= 0.1 * a["mean"]:
        return "within 10%"
    lo_a, hi_a = a["mean"] - a["ci"], a["mean"] + a["ci"]
    lo_b, hi_b = b["mean"] - b["ci"], b["mean"] + b["ci"]
    return "CIs overlap" if lo_a <= hi_b and lo_b <= hi_a else "differs"


def ms(x):
    return "–" if x != x else f"{1e3 * x:.1f}"


def poisson_table(name, res):
    ns3, ps, pair = res["ns3"], res["packetsim"], res["ns3paired"]
    out = [f"**{name}** (FCT in ms; mean ± 95% CI over seeds; p50/p99 over all flows pooled)",
           "",
           "| bucket | flows ns-3 / ps | mean FCT ns-3 | mean FCT packetsim | ps vs ns-3 | "
           "verdict | p50 ns-3 / ps | p99 ns-3 / ps | mean slowdown ns-3 / ps | "
           "ns-3 on ps's draws: mean FCT (ps vs it) |",
           "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"]
    for bk in BUCKETS + ["all"]:
        a, b, p = ns3[bk], ps[bk], pair[bk]
        rel = f"{100 * (b['mean'] - a['mean']) / a['mean']:+.1f}%" if a["completed"] else "–"
        prel = (f"{ms(p['mean'])} ({100 * (b['mean'] - p['mean']) / p['mean']:+.1f}%)"
                if p["completed"] else "–")
        out.append(
            f"| {bk} | {a['completed']}/{a['flows']} · {b['completed']}/{b['flows']} | "
            f"{ms(a['mean'])} ± {ms(a['ci'])} | {ms(b['mean'])} ± {ms(b['ci'])} | {rel} | "
            f"{verdict(a, b)} | {ms(a['p50'])} / {ms(b['p50'])} | {ms(a['p99'])} / "
            f"{ms(b['p99'])} | {a['sd_mean']:.2f} / {b['sd_mean']:.2f} | {prel} |")
    return "\n".join(out) + "\n"


def paired_table(name, work, seeds):
    """Per-flow ratio packetsim/ns-3 on the same arrivals and sizes, by bucket."""
    ratios = {bk: [] for bk in BUCKETS}
    for s in seeds:
        d = os.path.join(work, name, f"seed{s}")
        ps = read_flows(os.path.join(d, "ps", "fct.csv"), "fct_s")
        n3 = read_flows(os.path.join(d, "ns3paired_fct.csv"), "fct_s")
        for (b, _, f1), (b2, _, f2) in zip(ps, n3):
            assert b == b2
            if f1 is not None and f2 is not None:
                ratios[bucket_of(b)].append(f1 / f2)
    out = [f"**{name}**, same flows in both: packetsim FCT / ns-3 FCT per flow", "",
           "| bucket | flows | median | 10th pct | 90th pct | within ±10% |",
           "|---|---:|---:|---:|---:|---:|"]
    for bk in BUCKETS:
        r = ratios[bk]
        if r:
            w = sum(1 for x in r if abs(x - 1) <= 0.1) / len(r)
            out.append(f"| {bk} | {len(r)} | {pctl(r, .5):.3f} | {pctl(r, .1):.3f} | "
                       f"{pctl(r, .9):.3f} | {100 * w:.0f}% |")
    return "\n".join(out) + "\n"


def queue_line(name, work, seeds):
    rows = {}
    for tag in ("ns3", "ns3paired"):
        js = [json.load(open(os.path.join(work, name, f"seed{s}", tag + ".json")))
              for s in seeds]
        rows[tag] = (mean([j["mean_queue_pkts"] for j in js]), mean([j["drops"] for j in js]),
                     mean([j["marks"] for j in js]))
    ps = []
    for s in seeds:
        with open(os.path.join(work, name, f"seed{s}", "ps", "summary.json")) as f:
            j = json.load(f)
        q = j["queues"]["bottleneck:r1->r2"]
        # packetsim's run ends when the last flow ends (span_s) and averages over [0, span_s);
        # ns-3's over [0, DURATION): the same time base for both (no packet waits after).
        ps.append((q["mean_len_pkts"] * j["span_s"] / DURATION, q["drops"], q["marks"]))
    rows["packetsim"] = tuple(mean([p[i] for p in ps]) for i in range(3))
    out = [f"| {name} | " + " | ".join(f"{rows[t][0]:.2f} / {rows[t][1]:.0f} / {rows[t][2]:.0f}"
                                        for t in ("ns3", "ns3paired", "packetsim")) + " |"]
    return out[0]


def onoff_runs(work, ns3, seeds, table_only):
    """packetsim onoff vs ns-3 OnOffApplication (TCP): metrics per seed from 10 ms samples."""
    c = CONFIGS["newreno-droptail"]
    spec = dict(secs=30, on_ms=100, off_ms=400, sample_ms=10)
    variants = {
        "packetsim onoff (greedy while on)": None,
        "ns-3 OnOff 1 Gb/s, 128 KiB send buffer": (1000, 131072),
        "ns-3 OnOff 100 Mb/s, 4 MiB send buffer": (100, 4 * 1024 * 1024),
    }
    res = {}
    for label, v in variants.items():
        per = []
        for s in seeds:
            d = os.path.join(work, "onoff", f"seed{s}")
            os.makedirs(d, exist_ok=True)
            if v is None:
                path = os.path.join(d, "ps", "timeseries_delivered.csv")
                if not table_only:
                    toml = os.path.join(d, "scenario.toml")
                    with open(toml, "w") as f:
                        f.write(scenario("onoff", c, s, onoff=spec))
                    subprocess.run([run.packetsim_bin(), "run", toml, "--quiet", "--out",
                                    os.path.join(d, "ps")], check=True)
                pts = []
                with open(path) as f:
                    for row in csv.DictReader(f):
                        pts.append((float(row["time_s"]), int(row["delivered_bytes"])))
            else:
                path = os.path.join(d, f"ns3_{v[0]}_{v[1]}.csv")
                if not table_only:
                    subprocess.run(ns3_common(ns3, c, s) + [
                        "--app=onoff", f"--duration={spec['secs']}", f"--on-ms={spec['on_ms']}",
                        f"--off-ms={spec['off_ms']}", f"--onoff-rate={v[0]}",
                        f"--sndbuf={v[1]}", f"--sample-ms={spec['sample_ms']}",
                        f"--sample-csv={path}"], check=True, capture_output=True)
                pts = []
                with open(path) as f:
                    for row in csv.DictReader(f):
                        pts.append((float(row["time_s"]), int(row["delivered_bytes"])))
            per.append(onoff_metrics(pts, spec))
        res[label] = per
    out = ["| source | throughput (Mb/s) | active 10 ms bins | rate in active bins (Mb/s) | "
           "bursts (idle → active) |", "|---|---:|---:|---:|---:|"]
    for label, per in res.items():
        cols = []
        for i, fmt in enumerate(["{:.2f}", "{:.3f}", "{:.1f}", "{:.1f}"]):
            xs = [p[i] for p in per]
            cols.append(f"{fmt.format(mean(xs))} ± {fmt.format(ci95(xs))}")
        out.append(f"| {label} | " + " | ".join(cols) + " |")
    out.append("")
    out.append("per seed, throughput (Mb/s): " + "; ".join(
        f"{label.split(' (')[0].split(',')[0]}: " + ", ".join(f"{p[0]:.2f}" for p in per)
        for label, per in res.items()))
    return "\n".join(out) + "\n"


def onoff_metrics(pts, spec):
    """(throughput Mb/s, fraction of bins with bytes, mean rate in those, bursts)."""
    pts = sorted(pts)
    step = spec["sample_ms"] / 1e3
    incs = [b1 - b0 for (_, b0), (_, b1) in zip(pts, pts[1:])]
    active = [x for x in incs if x > 0]
    bursts = sum(1 for a, b in zip([0] + incs, incs) if a == 0 and b > 0)
    return (8 * pts[-1][1] / spec["secs"] / 1e6, len(active) / len(incs),
            mean([8 * x / step / 1e6 for x in active]), bursts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--onoff", action="store_true", help="the on-off comparison instead")
    ap.add_argument("--work", default="/tmp/packetsim-ns3-workload")
    ap.add_argument("--table-only", action="store_true")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",") if s]
    os.makedirs(a.work, exist_ok=True)
    ns3 = None if a.table_only else build_ns3(a.work)
    if a.onoff:
        sys.stdout.write(onoff_runs(a.work, ns3, seeds, a.table_only))
        return
    names = [c for c in a.configs.split(",") if c]
    for c in names:
        if c not in CONFIGS:
            sys.exit(f"workload.py: unknown config '{c}' (known: {', '.join(CONFIGS)})")
    if not a.table_only:
        for c in names:
            for s in seeds:
                print(f"workload.py: {c} seed {s}", file=sys.stderr)
                run_poisson(c, CONFIGS[c], s, a.work, ns3)
    qrows = ["| config | ns-3 own draws | ns-3 on packetsim's draws | packetsim |",
             "|---|---:|---:|---:|"]
    for c in names:
        res = {}
        for tag, path, key in [("packetsim", ("ps", "fct.csv"), "fct_s"),
                               ("ns3", ("ns3_fct.csv",), "fct_s"),
                               ("ns3paired", ("ns3paired_fct.csv",), "fct_s")]:
            runs = {s: read_flows(os.path.join(a.work, c, f"seed{s}", *path), key)
                    for s in seeds}
            res[tag] = stats(runs)
        sys.stdout.write(poisson_table(c, res) + "\n")
        sys.stdout.write(paired_table(c, a.work, seeds) + "\n")
        qrows.append(queue_line(c, a.work, seeds))
    sys.stdout.write("Bottleneck, mean over seeds: mean queue (packets) / drops / CE marks\n\n"
                     + "\n".join(qrows) + "\n")


if __name__ == "__main__":
    main()
