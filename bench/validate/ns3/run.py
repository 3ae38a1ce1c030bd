#!/usr/bin/env python3
"""Issue 17 validation: packetsim against ns-3.37 on identical small dumbbells.

    bench/validate/ns3/run.py [--cases a,b] [--work DIR] [--table-only] [--reuse-ns3]
                              [--ns3-rate-fix]

Each case is one dumbbell (s_i -1 Gb/s, 1 ms- r0 -RATE, DELAY- r1 -1 Gb/s, 1 ms- d_i), N
long-lived flows started STAGGER apart, run in both simulators:
- ns-3: tcp_dumbbell.cc (built here with pkg-config against Debian's libns3-dev 3.37);
- packetsim: a scenario written from the same numbers (scenario() below), `packetsim run`.
Each case names the bottleneck queue (DropTail, RED step marking, CoDel, FQ-CoDel or PIE),
ns-3's SACK option and loss recovery (classic or PRR), and packetsim's extra `[tcp]` keys
(`CASES` below). Raw outputs (ns-3's CSVs and JSON line, packetsim's output folders) go to
--work (default /tmp/packetsim-ns3-validate), never into the repository; the figures
(figures/CASE-cwnd.svg, and for AQM and BBR cases CASE-queue.svg, for BBR CASE-rate.svg) are
written beside this script and the table to standard output (results.md quotes it). Nothing
is random but PIE's drop decisions (ns-3's default run 1, packetsim's seed 1), so each case
is one run. With --ns3-rate-fix, ns-3 runs with its delivery-rate sampler corrected
(tcp_dumbbell.cc --rate-fix=1, results.md's "corrected" columns); outputs then go to
WORK/ratefix and the figures are named CASE-ratefix-*.svg.

Install the peer with bench/setup.sh (Debian's ns3, libns3-dev, libgsl-dev among the peers).
PACKETSIM=path overrides the packetsim binary (default target/release/packetsim, built if
absent). Standard library only.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SRC = os.path.join(HERE, "tcp_dumbbell.cc")
NS3_LABEL = "ns-3.37"  # the ns-3 panels' label (--ns3-rate-fix adds "rate sampler corrected")
NS3_LIBS = ["ns3-core", "ns3-network", "ns3-internet", "ns3-point-to-point",
            "ns3-applications", "ns3-traffic-control"]


def case(variant, flows, rate, delay, queue, secs, stagger, aqm="droptail", k=None,
         sack=False, recovery="classic", tcp=None, qopts=None, ns3=None, ns3_of=None):
    """One case: the dumbbell's numbers, the bottleneck queue (`aqm`: droptail, step, codel,
    fq_codel, pie), ns-3's SACK option and recovery (`classic` or `prr`), packetsim's
    extra `[tcp]` keys (`tcp`, a dict of TOML values), extra keys of packetsim's AQM table
    (`qopts`, likewise) and extra arguments of the ns-3 program (`ns3`, a list). `ns3_of`
    names another case whose ns-3 run this one shares (the same ns-3 arguments): its outputs
    are read from (and, if absent, made in) that case's folder."""
    return dict(variant=variant, flows=flows, rate=rate, delay=delay, queue=queue, secs=secs,
                stagger=stagger, aqm=aqm, k=k, sack=sack, recovery=recovery, tcp=tcp or {},
                qopts=qopts or {}, ns3=ns3 or [], ns3_of=ns3_of)


SACK = {"loss_recovery": '"sack"'}
# ns-3.37's TCP rules where packetsim's defaults follow the RFCs (TcpSocketBase): the
# timeout's ssthresh from RFC 6675's pipe (ReTxTimeout), SACKed data kept across a timeout
# (SetSentListLost(false)), the retransmission timer in SACK recovery restarted by the first
# partial ACK only (ProcessAck), an RTT sample from every segment (EstimateRtt), and a
# retransmission kept in flight after it is SACKed (TcpTxBuffer::BytesInFlight).
PIPE = dict(SACK, rto_ssthresh='"pipe"')
NS3TCP = dict(PIPE, keep_sack_on_timeout="true", sack_partial_ack_timer='"impatient"',
              rtt_sampling='"every_segment"', sack_pipe='"ns3"')
KEEP = {"rto_ssthresh": '"recovery"'}
RESET_RENO_SACK = ["--reset-reno-sack=1"]
RFC_SS = ["--cubic-slow-start=rfc5681"]
RACK = {"lost_retransmit": '"rack"'}
NS3Q = {"bbr_send_quantum": '"segment"', "bbr_inflight_quanta": "true"}
CUBIC_NS3 = dict(NS3TCP, cubic_model='"ns3"')
# The same without SACK: of NS3TCP only the RTT rule applies (rto_ssthresh = "pipe" is
# "flight_size" without SACK; keep_sack_on_timeout and sack_partial_ack_timer act only with
# SACK; run.py already sets newreno_partial_ack_timer = "impatient", ns-3.37's rule).
CUBIC_NS3_NOSACK = {"cubic_model": '"ns3"', "rtt_sampling": '"every_segment"'}
CASES = {
    "newreno-1": case("newreno", 1, 100, 20, 100, 60, 0),
    "cubic-1": case("cubic", 1, 100, 20, 100, 60, 0),
    "cubic-2": case("cubic", 2, 100, 20, 100, 60, 10),
    # The same three against ns-3 with its leak of duplicate-ACK SACK guesses past fast
    # recovery corrected (tcp_dumbbell.cc --reset-reno-sack; results.md, "Why CUBIC without
    # SACK does not agree"); packetsim's side is the base case's.
    "newreno-1-fix": case("newreno", 1, 100, 20, 100, 60, 0, ns3=RESET_RENO_SACK),
    "cubic-1-fix": case("cubic", 1, 100, 20, 100, 60, 0, ns3=RESET_RENO_SACK),
    "cubic-2-fix": case("cubic", 2, 100, 20, 100, 60, 10, ns3=RESET_RENO_SACK),
    # The -fix cases with ns-3's TcpCubic adding one segment per ACK in slow start (RFC 5681,
    # as packetsim does) instead of every segment acknowledged (a what-if, not a correction).
    "cubic-1-fixss": case("cubic", 1, 100, 20, 100, 60, 0, ns3=RESET_RENO_SACK + RFC_SS),
    "cubic-2-fixss": case("cubic", 2, 100, 20, 100, 60, 10, ns3=RESET_RENO_SACK + RFC_SS),
    # The -fix cases with ns-3.37's TcpCubic in packetsim (`cubic_model = "ns3"`) and the
    # one of ns-3's TCP rules that applies without SACK (CUBIC_NS3_NOSACK); the ns-3 run is
    # the -fix case's.
    "cubic-1-fix-ns3": case("cubic", 1, 100, 20, 100, 60, 0, ns3=RESET_RENO_SACK,
                            tcp=CUBIC_NS3_NOSACK, ns3_of="cubic-1-fix"),
    "cubic-2-fix-ns3": case("cubic", 2, 100, 20, 100, 60, 10, ns3=RESET_RENO_SACK,
                            tcp=CUBIC_NS3_NOSACK, ns3_of="cubic-2-fix"),
    "dctcp-2": case("dctcp", 2, 100, 5, 200, 20, 2, aqm="step", k=20),
    # CUBIC with SACK: ns-3.37's default pairing (TcpCubic + SACK + TcpPrrRecovery), and
    # TcpClassicRecovery with SACK (cwnd = ssthresh during recovery, the RFC 6675 window).
    "cubic-sack-1": case("cubic", 1, 100, 20, 100, 60, 0, sack=True, recovery="prr", tcp=SACK),
    "cubic-sack-2": case("cubic", 2, 100, 20, 100, 60, 10, sack=True, recovery="prr",
                         tcp=SACK),
    "cubic-sack6675-1": case("cubic", 1, 100, 20, 100, 60, 0, sack=True, tcp=SACK),
    "cubic-sack6675-2": case("cubic", 2, 100, 20, 100, 60, 10, sack=True, tcp=SACK),
    # The same four against the same ns-3 runs, packetsim with ns-3.37's TcpCubic arithmetic
    # (`cubic_model = "ns3"`) and ns-3.37's TCP rules (NS3TCP, below).
    "cubic-sack-1-ns3": case("cubic", 1, 100, 20, 100, 60, 0, sack=True, recovery="prr",
                             tcp=CUBIC_NS3, ns3_of="cubic-sack-1"),
    "cubic-sack-2-ns3": case("cubic", 2, 100, 20, 100, 60, 10, sack=True, recovery="prr",
                             tcp=CUBIC_NS3, ns3_of="cubic-sack-2"),
    "cubic-sack6675-1-ns3": case("cubic", 1, 100, 20, 100, 60, 0, sack=True, tcp=CUBIC_NS3,
                                 ns3_of="cubic-sack6675-1"),
    "cubic-sack6675-2-ns3": case("cubic", 2, 100, 20, 100, 60, 10, sack=True, tcp=CUBIC_NS3,
                                 ns3_of="cubic-sack6675-2"),
    # Against ns-3's default pairing with PRR in packetsim too (`sack_recovery = "prr"`, RFC
    # 6937): with RFC 9438 CUBIC (-prr) and with ns-3's CUBIC and TCP rules (-ns3prr).
    "cubic-sack-1-prr": case("cubic", 1, 100, 20, 100, 60, 0, sack=True, recovery="prr",
                             tcp=dict(SACK, sack_recovery='"prr"'), ns3_of="cubic-sack-1"),
    "cubic-sack-2-prr": case("cubic", 2, 100, 20, 100, 60, 10, sack=True, recovery="prr",
                             tcp=dict(SACK, sack_recovery='"prr"'), ns3_of="cubic-sack-2"),
    "cubic-sack-1-ns3prr": case("cubic", 1, 100, 20, 100, 60, 0, sack=True, recovery="prr",
                                tcp=dict(CUBIC_NS3, sack_recovery='"prr"'),
                                ns3_of="cubic-sack-1"),
    "cubic-sack-2-ns3prr": case("cubic", 2, 100, 20, 100, 60, 10, sack=True, recovery="prr",
                                tcp=dict(CUBIC_NS3, sack_recovery='"prr"'),
                                ns3_of="cubic-sack-2"),
    # CUBIC without SACK as cubic-1/-2, packetsim keeping the recovery's ssthresh on a
    # timeout during recovery (rto_ssthresh = "recovery").
    "cubic-keep-1": case("cubic", 1, 100, 20, 100, 60, 0, tcp=KEEP),
    "cubic-keep-2": case("cubic", 2, 100, 20, 100, 60, 10, tcp=KEEP),
    # BBR v1: ns-3.37's TcpBbr (SACK on, its default PRR recovery; BBR sets cwnd itself).
    "bbr-1": case("bbr", 1, 100, 20, 100, 30, 0, sack=True, recovery="prr", tcp=SACK),
    "bbr-2": case("bbr", 2, 100, 20, 100, 30, 5, sack=True, recovery="prr", tcp=SACK),
    # Twins of bbr-1/-2 (the ns-3 side is the same run, copied from the base case when it
    # is there): packetsim detecting retransmissions lost again after a timeout (RACK,
    # `lost_retransmit = "rack"`; Linux does, ns-3.37 does not), and BBR with ns-3.37's send
    # quantum (one segment) and its BBRInflight phase checks (`-ns3q`).
    **{f"bbr-{n}-{tag}": case("bbr", n, 100, 20, 100, 30, 5 * (n - 1), sack=True,
                              recovery="prr", tcp=dict(SACK, **keys), ns3_of=f"bbr-{n}")
       for n in (1, 2)
       for tag, keys in [("rack", RACK), ("ns3q", NS3Q), ("ns3q-rack", dict(NS3Q, **RACK))]},
    # AQMs with 10 NewReno + SACK flows (RFC 6675 recovery in both), 1000-packet limit.
    "codel-10": case("newreno", 10, 100, 20, 1000, 30, 0.1, aqm="codel", sack=True,
                     tcp=SACK),
    "fq_codel-10": case("newreno", 10, 100, 20, 1000, 30, 0.1, aqm="fq_codel", sack=True,
                        tcp=SACK),
    # codel-10 and fq_codel-10 with packetsim's CoDel control law as ns-3.37's
    # (`control_law = "newton"`).
    "fq_codel-10-newton": case("newreno", 10, 100, 20, 1000, 30, 0.1, aqm="fq_codel",
                               sack=True, tcp=SACK, qopts={"control_law": '"newton"'}),
    "codel-10-newton": case("newreno", 10, 100, 20, 1000, 30, 0.1, aqm="codel", sack=True,
                            tcp=SACK, qopts={"control_law": '"newton"'}),
    # The -newton/-ns3burst cases with ns-3.37's TCP rules (NS3TCP), or only its timeout
    # ssthresh (PIPE); for FQ-CoDel also its overflow batch (drop_batch_size = 64).
    "codel-10-pipe": case("newreno", 10, 100, 20, 1000, 30, 0.1, aqm="codel", sack=True,
                          tcp=PIPE, qopts={"control_law": '"newton"'}),
    "codel-10-ns3": case("newreno", 10, 100, 20, 1000, 30, 0.1, aqm="codel", sack=True,
                         tcp=NS3TCP, qopts={"control_law": '"newton"'}),
    "fq_codel-10-pipe": case("newreno", 10, 100, 20, 1000, 30, 0.1, aqm="fq_codel",
                             sack=True, tcp=PIPE, qopts={"control_law": '"newton"'}),
    "fq_codel-10-ns3": case("newreno", 10, 100, 20, 1000, 30, 0.1, aqm="fq_codel", sack=True,
                            tcp=NS3TCP,
                            qopts={"control_law": '"newton"', "drop_batch_size": 64}),
    "pie-10-ns3": case("newreno", 10, 100, 20, 1000, 30, 0.1, aqm="pie", sack=True,
                       tcp=NS3TCP, qopts={"burst_mode": '"ns3"'}),
    "pie-10": case("newreno", 10, 100, 20, 1000, 30, 0.1, aqm="pie", sack=True, tcp=SACK),
    # pie-10 with packetsim's PIE following ns-3.37's burst handling (`burst_mode = "ns3"`).
    "pie-10-ns3burst": case("newreno", 10, 100, 20, 1000, 30, 0.1, aqm="pie", sack=True,
                            tcp=SACK, qopts={"burst_mode": '"ns3"'}),
    # Vegas with NewReno recovery, no SACK, in both (packetsim's variant pairing; ns-3's
    # TcpVegas with TcpClassicRecovery), alpha/beta/gamma 1/3/1 in both.
    "vegas-1": case("vegas", 1, 100, 20, 100, 30, 0),
    "vegas-2": case("vegas", 2, 100, 20, 100, 30, 5),
    # The same with ns-3's TcpVegas at its own defaults (alpha 2, beta 4, gamma 1), packetsim
    # unchanged: ns-3's Diff is cwnd - floor(cwnd BaseRTT/minRTT), one above packetsim's
    # rounded Diff for the same queue (results.md, Vegas).
    "vegas-1-a2b4": case("vegas", 1, 100, 20, 100, 30, 0, ns3=["--vegas-alpha=2",
                                                                "--vegas-beta=4"]),
    "vegas-2-a2b4": case("vegas", 2, 100, 20, 100, 30, 5, ns3=["--vegas-alpha=2",
                                                                "--vegas-beta=4"]),
}


def queue_toml(c):
    q, aqm = c["queue"], c["aqm"]
    q = "".join([str(q)] + [f", {k} = {v}" for k, v in c["qopts"].items()])
    if aqm == "droptail":
        return f'{{ kind = "droptail", limit = {q} }}'
    if aqm == "step":
        return f'{{ kind = "red", red = {{ step = {c["k"]}, ecn = "standard", limit = {q} }} }}'
    if aqm == "codel":
        return f'{{ kind = "codel", codel = {{ limit = {q} }} }}'
    if aqm == "fq_codel":
        # ns-3's quantum is the device MTU (1500); ECN off as in the ns-3 program.
        return (f'{{ kind = "fq_codel", fq_codel = {{ limit = {q}, quantum = 1500, '
                f'ecn = false }} }}')
    if aqm == "pie":
        return f'{{ kind = "pie", pie = {{ limit = {q} }} }}'
    raise ValueError(aqm)


def scenario(name, c, partial_ack_timer):
    variant, n = c["variant"], c["flows"]
    lines = [
        f"# bench/validate/ns3 case {name}: written by run.py, matched to tcp_dumbbell.cc",
        "# ns-3's TCP, not Linux's: the documented defaults whatever the variant (issue 33)",
        'profile = "standard"', "[simulation]", f'duration = "{c["secs"]}s"', "seed = 1", 'sample_interval = "100ms"',
        "", "[tcp]", f'variant = "{variant}"', "mss = 1460", "initial_cwnd = 2",
        'rcv_window = "16MiB"', 'rto_initial = "1s"', 'rto_min = "200ms"', 'granularity = "1ms"',
        f'newreno_partial_ack_timer = "{partial_ack_timer}"',
    ]
    if variant == "newreno" and c["tcp"].get("loss_recovery") == '"sack"':
        lines[lines.index('variant = "newreno"')] = 'variant = "sack"'
        lines += [f"{k} = {v}" for k, v in c["tcp"].items() if k != "loss_recovery"]
    else:
        lines += [f"{k} = {v}" for k, v in c["tcp"].items()]
    if variant == "dctcp":
        lines += ["ecn = true", 'ecn_echo = "per_segment"']
    if c["aqm"] not in ("droptail", "step"):
        # The bottleneck's drop times (events.csv), for the drop tables of the AQM cases.
        lines += ["", "[trace]", "events = true", 'links = ["bottleneck:a_to_b"]']
    lines += ["", "[nodes.r0]", "[nodes.r1]"]
    for i in range(n):
        lines += [f"[nodes.s{i}]", f"[nodes.d{i}]"]
    lines += ["", "[links.bottleneck]", 'a = "r0"', 'b = "r1"', f'rate = "{c["rate"]}Mbps"',
              f'delay = "{c["delay"]}ms"', f"queue = {queue_toml(c)}"]
    big = '{ kind = "droptail", limit = 10000 }'
    for i in range(n):
        lines += ["", f"[links.up{i}]", f'a = "s{i}"', 'b = "r0"', 'rate = "1Gbps"',
                  'delay = "1ms"', f"queue = {big}",
                  "", f"[links.down{i}]", 'a = "r1"', f'b = "d{i}"', 'rate = "1Gbps"',
                  'delay = "1ms"', f"queue = {big}"]
    for i in range(n):
        lines += ["", f"[flows.f{i}]", f'from = "s{i}"', f'to = "d{i}"', 'app = "bulk"',
                  f'start = "{round(i * c["stagger"], 6)}s"']
    return "\n".join(lines) + "\n"


def build_ns3(work, src=SRC, name="tcp-dumbbell"):
    """The ns-3 program `src` compiled as WORK/`name` (again only when the source is newer);
    workload.py builds tcp_workload.cc with it."""
    exe = os.path.join(work, name)
    if os.path.exists(exe) and os.path.getmtime(exe) > os.path.getmtime(src):
        return exe
    flags = subprocess.run(["pkg-config", "--cflags", "--libs"] + NS3_LIBS, check=True,
                           capture_output=True, text=True).stdout.split()
    subprocess.run(["g++", "-O2", "-std=c++17", src, "-o", exe] + flags, check=True)
    return exe


def packetsim_bin():
    b = os.environ.get("PACKETSIM")
    if b:
        return b
    b = os.path.join(ROOT, "target", "release", "packetsim")
    if not os.path.exists(b):
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "packetsim-cli"],
                       cwd=ROOT, check=True)
    return b


def ns3_args(ns3, c, csv, qcsv, rate_fix=False):
    args = [ns3, f"--variant={c['variant']}", f"--flows={c['flows']}", f"--rate={c['rate']}",
            f"--delay={c['delay']}", f"--queue={c['queue']}", f"--duration={c['secs']}",
            f"--stagger={c['stagger']}", f"--cwnd-csv={csv}", f"--queue-csv={qcsv}",
            f"--aqm={c['aqm']}",
            f"--sack={int(c['sack'])}", f"--recovery={c['recovery']}"]
    if rate_fix:
        args.append("--rate-fix=1")
    if c["k"]:
        args.append(f"--k={c['k']}")
    args += c["ns3"]
    if c["aqm"] not in ("droptail", "step"):
        args.append(f"--drop-csv={os.path.join(os.path.dirname(csv), 'ns3_drops.csv')}")
    return args


def ns3_dir(name, c, work):
    """The folder of a case's ns-3 outputs (its own, or the `ns3_of` case's)."""
    return os.path.join(work, c.get("ns3_of") or name)


def run_case(name, c, work, ns3, partial_ack_timer, reuse_ns3=False, rate_fix=False):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    nd = ns3_dir(name, c, work)
    os.makedirs(nd, exist_ok=True)
    args = ns3_args(ns3, c, os.path.join(nd, "ns3_cwnd.csv"), os.path.join(nd, "ns3_queue.csv"),
                    rate_fix)
    done = os.path.join(nd, "ns3.json")
    # A case sharing another's ns-3 run leaves an existing one alone (the other case owns it).
    shared = c.get("ns3_of") and os.path.exists(done)
    fresh = os.path.exists(done) and os.path.getmtime(done) > os.path.getmtime(ns3)
    if not (shared or (reuse_ns3 and fresh)):
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        with open(done, "w") as f:
            f.write(out.strip().splitlines()[-1] + "\n")
    toml = os.path.join(d, "scenario.toml")
    with open(toml, "w") as f:
        f.write(scenario(name, c, partial_ack_timer))
    subprocess.run([packetsim_bin(), "run", toml, "--quiet", "--out", os.path.join(d, "ps")],
                   check=True)


def read_series(path, flows, column):
    """{flow: [(time_s, value)]} of one column of a per-flow CSV."""
    series = {f"f{i}": [] for i in range(flows)}
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["flow"] in series:
                series[row["flow"]].append((float(row["time_s"]), float(row[column])))
    return series


def read_cwnd(path, flows):
    return read_series(path, flows, "cwnd_bytes")


def read_queue(path, name=None):
    """[(time_s, packets waiting)] from ns-3's queue CSV or packetsim's timeseries_queues.csv
    (the direction `name`)."""
    out = []
    with open(path) as f:
        for row in csv.DictReader(f):
            if name is None or row["queue"] == name:
                out.append((float(row["time_s"]), float(row["len_pkts"])))
    return out


def rates(delivered):
    """Delivery rate (bit/s) between consecutive samples of cumulative bytes delivered."""
    return {fl: [(t1, 8 * (b1 - b0) / (t1 - t0)) for (t0, b0), (t1, b1) in zip(p, p[1:])]
            for fl, p in delivered.items()}


def cuts(points):
    """Congestion events seen in a sampled cwnd series: samples where cwnd fell by a
    tenth or more since the previous sample."""
    return sum(1 for (_, a), (_, b) in zip(points, points[1:]) if b < 0.9 * a)


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def collect(name, c, work):
    n, secs = c["flows"], c["secs"]
    d = os.path.join(work, name)
    nd = ns3_dir(name, c, work)
    with open(os.path.join(nd, "ns3.json")) as f:
        ns3 = json.load(f)
    with open(os.path.join(d, "ps", "summary.json")) as f:
        ps = json.load(f)
    qname = "bottleneck:r0->r1"
    q = ps["queues"][qname]
    ns3_csv = os.path.join(nd, "ns3_cwnd.csv")
    ps_dir = os.path.join(d, "ps")
    res = {
        "ns3": {
            "goodput": [fl["goodput_bps"] for fl in ns3["flows"]],
            "drops": ns3["drops"], "marks": ns3["marks"], "queue": ns3["mean_queue_pkts"],
            "departures": ns3["departures"], "sojourn_ms": ns3["mean_sojourn_ms"],
            "cwnd": read_cwnd(ns3_csv, n),
            "rate": rates(read_series(ns3_csv, n, "delivered_bytes")),
            "pacing": read_series(ns3_csv, n, "pacing_bps"),
            "qlen": read_queue(os.path.join(nd, "ns3_queue.csv")),
        },
        "packetsim": {
            "goodput": [ps["flows"][f"f{i}"]["goodput_bps"] for i in range(n)],
            "drops": q["drops"], "marks": q["marks"], "queue": q["mean_len_pkts"],
            "departures": q["departures"], "sojourn_ms": None,
            "cwnd": read_cwnd(os.path.join(ps_dir, "timeseries_flows.csv"), n),
            "rate": read_series(os.path.join(ps_dir, "timeseries_delivered.csv"), n, "rate_bps"),
            "qlen": read_queue(os.path.join(ps_dir, "timeseries_queues.csv"), qname),
        },
    }
    for sim in res.values():
        # Little's law: mean wait = time-average packets waiting / departure rate.
        sim["little_ms"] = (1e3 * sim["queue"] * secs / sim["departures"]
                            if sim["departures"] else float("nan"))
    return res


def svg(title, panels, secs, ylabel):
    """Side-by-side panels (ns-3.37, packetsim) sharing a y axis: `panels` is
    {sim: {label: [(t, y)]}} with y already in the plotted unit."""
    w, h, pad = 420, 260, 48
    ymax = max([y for series in panels.values() for pts in series.values() for _, y in pts]
               + [1.0]) * 1.05
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
               "#bcbd22", "#17becf", "#ff7f0e"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * w}" height="{h}" '
             f'font-family="sans-serif" font-size="11">',
             '<rect width="100%" height="100%" fill="white"/>']
    for panel, sim in enumerate(["ns3", "packetsim"]):
        x0 = panel * w + pad
        pw, ph = w - pad - 12, h - 2 * pad + 10
        y0 = pad - 20
        name = NS3_LABEL if sim == "ns3" else "packetsim"
        parts.append(f'<text x="{x0 + pw / 2}" y="{y0 - 6}" text-anchor="middle">'
                     f'{name}: {title}</text>')
        parts.append(f'<rect x="{x0}" y="{y0}" width="{pw}" height="{ph}" fill="none" '
                     f'stroke="#444"/>')
        for t in range(0, int(secs) + 1, max(1, int(secs) // 6)):
            x = x0 + pw * t / secs
            parts.append(f'<text x="{x:.1f}" y="{y0 + ph + 14}" text-anchor="middle">{t}</text>')
        for j in range(5):
            v = ymax * j / 4
            y = y0 + ph - ph * j / 4
            parts.append(f'<text x="{x0 - 4}" y="{y + 4:.1f}" text-anchor="end">{v:.0f}</text>')
        parts.append(f'<text x="{x0 + pw / 2}" y="{y0 + ph + 30}" text-anchor="middle">'
                     f'time (s)</text>')
        if panel == 0:
            parts.append(f'<text x="12" y="{y0 + ph / 2}" transform="rotate(-90 12 '
                         f'{y0 + ph / 2})" text-anchor="middle">{ylabel}</text>')
        for k, (label, pts) in enumerate(sorted(panels[sim].items())):
            col = colours[k % len(colours)]
            coords = " ".join(f"{x0 + pw * t / secs:.1f},{y0 + ph - ph * y / ymax:.1f}"
                              for t, y in pts)
            parts.append(f'<polyline fill="none" stroke="{col}" stroke-width="1" '
                         f'points="{coords}"/>')
            if len(panels[sim]) <= 4:
                parts.append(f'<text x="{x0 + pw - 4}" y="{y0 + 14 + 13 * k}" '
                             f'text-anchor="end" fill="{col}">{label}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def figures(name, c, res):
    """{file name: svg}: cwnd of every flow (all cases), the bottleneck queue (AQM and BBR
    cases), and BBR's delivery rate (ns-3: also its pacing rate)."""
    secs = c["secs"]
    out = {f"{name}-cwnd.svg": svg(
        f"{name} cwnd", {s: {f: [(t, v / 1460) for t, v in p] for f, p in r["cwnd"].items()}
                         for s, r in res.items()}, secs, "cwnd (segments)")}
    if c["aqm"] not in ("droptail", "step") or c["variant"] == "bbr":
        out[f"{name}-queue.svg"] = svg(
            f"{name} queue", {s: {"queue": r["qlen"]} for s, r in res.items()}, secs,
            "packets waiting")
    if c["variant"] == "bbr":
        panels = {s: {f: [(t, v / 1e6) for t, v in p] for f, p in r["rate"].items()}
                  for s, r in res.items()}
        for f, p in res["ns3"]["pacing"].items():
            panels["ns3"][f"{f} pacing"] = [(t, v / 1e6) for t, v in p if v]
        out[f"{name}-rate.svg"] = svg(f"{name} rate", panels, secs, "Mb/s")
    return out


DROP_BINS = [(0, 1), (1, 2), (2, 3), (3, 5), (5, None)]


def drop_times(name, work):
    """{sim: {"early": [t], "overflow": [t]}}: the bottleneck's drop times in both simulators
    (ns-3: --drop-csv, a reason naming an overlimit or forced drop is overflow; packetsim:
    events.csv's drop rows on r0->r1), or None without both files."""
    d = os.path.join(work, name)
    ns3_path = os.path.join(ns3_dir(name, CASES[name], work), "ns3_drops.csv")
    ps_path = os.path.join(d, "ps", "trace", "events.csv")
    if not (os.path.exists(ns3_path) and os.path.exists(ps_path)):
        return None
    out = {"ns3": {"early": [], "overflow": []}, "packetsim": {"early": [], "overflow": []}}
    with open(ns3_path) as f:
        for row in csv.DictReader(f):
            if row["where"] in ("enqueue", "dequeue"):
                kind = ("overflow" if "Overlimit" in row["reason"] or "Forced" in row["reason"]
                        else "early")
                out["ns3"][kind].append(float(row["time_s"]))
    with open(ps_path) as f:
        for row in csv.DictReader(f):
            if row["event"] == "drop" and row["link"] == "bottleneck:r0->r1":
                kind = "overflow" if row["reason"] == "overflow" else "early"
                out["packetsim"][kind].append(float(row["time_s"]))
    return out


def drop_table(drops, secs):
    """Early (AQM) drops by interval of the run, the first one's time, overflow drops."""
    bins = [f"{a}–{b if b is not None else secs} s" for a, b in DROP_BINS]
    out = ["| case | simulator | first early drop (s) | " + " | ".join(bins)
           + " | early, total | overflow, total |",
           "|---|---|---:|" + "---:|" * (len(bins) + 2)]
    for name, d in drops.items():
        for sim in ("ns3", "packetsim"):
            e = d[sim]["early"]
            counts = [sum(1 for t in e if t >= a and (b is None or t < b)) for a, b in DROP_BINS]
            first = f"{min(e):.3f}" if e else "n/a"
            label = "ns-3.37" if sim == "ns3" else "packetsim"
            out.append(f"| {name} | {label} | {first} | " + " | ".join(map(str, counts))
                       + f" | {len(e)} | {len(d[sim]['overflow'])} |")
    return "\n".join(out) + "\n"


def pct(a, b):
    return f"{100.0 * (a - b) / b:+.1f}%" if b else "n/a"


def table(results):
    out = ["| case | metric | ns-3.37 | packetsim | packetsim vs ns-3 |", "|---|---|---:|---:|---:|"]
    for name, (c, res) in results.items():
        a, b = res["ns3"], res["packetsim"]
        n = c["flows"]
        rows = [("goodput, all flows (Mb/s)", sum(a["goodput"]) / 1e6, sum(b["goodput"]) / 1e6)]
        if n > 1 and c["stagger"] > 0:
            # Each flow's goodput is over its own active time (from its start), so their sum
            # can exceed the bottleneck; this row is all bytes delivered over the whole run.
            secs = c["secs"]
            act = [secs - i * c["stagger"] for i in range(n)]
            rows.append(("delivered, all flows, over the run (Mb/s)",
                         sum(g * t for g, t in zip(a["goodput"], act)) / secs / 1e6,
                         sum(g * t for g, t in zip(b["goodput"], act)) / secs / 1e6))
        if 1 < n <= 2:
            for i in range(n):
                rows.append((f"goodput f{i} (Mb/s)", a["goodput"][i] / 1e6, b["goodput"][i] / 1e6))
        elif n > 2:
            rows.append(("goodput, lowest flow (Mb/s)", min(a["goodput"]) / 1e6,
                         min(b["goodput"]) / 1e6))
            rows.append(("goodput, highest flow (Mb/s)", max(a["goodput"]) / 1e6,
                         max(b["goodput"]) / 1e6))
        rows += [
            ("bottleneck drops (packets)", a["drops"], b["drops"]),
            ("ECN marks (packets)", a["marks"], b["marks"]),
            ("mean queue (packets waiting)", a["queue"], b["queue"]),
        ]
        if c["aqm"] not in ("droptail", "step"):
            rows.append(("mean wait, Little's law (ms)", a["little_ms"], b["little_ms"]))
        if n <= 2:
            for i in range(n):
                ca = [v / 1460 for _, v in a["cwnd"][f"f{i}"]]
                cb = [v / 1460 for _, v in b["cwnd"][f"f{i}"]]
                rows.append((f"mean cwnd f{i} (segments)", mean(ca), mean(cb)))
                rows.append((f"cwnd cuts f{i} (samples falling >= 10%)",
                             cuts(a["cwnd"][f"f{i}"]), cuts(b["cwnd"][f"f{i}"])))
        else:
            ma = mean([mean([v / 1460 for _, v in p]) for p in a["cwnd"].values()])
            mb = mean([mean([v / 1460 for _, v in p]) for p in b["cwnd"].values()])
            rows.append(("mean cwnd, mean over flows (segments)", ma, mb))
            rows.append(("cwnd cuts, all flows", sum(cuts(p) for p in a["cwnd"].values()),
                         sum(cuts(p) for p in b["cwnd"].values())))
        for label, x, y in rows:
            fx = f"{x:.2f}" if isinstance(x, float) else str(x)
            fy = f"{y:.2f}" if isinstance(y, float) else str(y)
            out.append(f"| {name} | {label} | {fx} | {fy} | {pct(y, x)} |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--work", default="/tmp/packetsim-ns3-validate")
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument("--queue", type=int, help="bottleneck queue (packets) for every case")
    ap.add_argument("--partial-ack-timer", default="impatient",
                    choices=["impatient", "slow_but_steady"],
                    help="packetsim's newreno_partial_ack_timer (ns-3 restarts the timer on "
                         "every ACK of new data, TcpSocketBase::NewAck: slow_but_steady)")
    ap.add_argument("--reuse-ns3", action="store_true",
                    help="keep a case's ns-3 outputs from an earlier run with this ns-3 program "
                         "(ns3.json newer than it) and run only packetsim")
    ap.add_argument("--ns3-rate-fix", action="store_true",
                    help="run ns-3 with its delivery-rate sampler corrected (tcp_dumbbell.cc "
                         "--rate-fix=1); outputs under WORK/ratefix, figures CASE-ratefix-*")
    a = ap.parse_args()
    if a.ns3_rate_fix:
        global NS3_LABEL
        NS3_LABEL = "ns-3.37, rate sampler corrected"
        a.work = os.path.join(a.work, "ratefix")
    if a.queue:
        for c in CASES.values():
            c["queue"] = a.queue
    names = [c for c in a.cases.split(",") if c]
    for c in names:
        if c not in CASES:
            sys.exit(f"run.py: unknown case '{c}' (known: {', '.join(CASES)})")
    os.makedirs(a.work, exist_ok=True)
    if not a.table_only:
        ns3 = build_ns3(a.work)
        for c in names:
            print(f"run.py: {c}", file=sys.stderr)
            run_case(c, CASES[c], a.work, ns3, a.partial_ack_timer, a.reuse_ns3,
                     a.ns3_rate_fix)
    results, drops = {}, {}
    os.makedirs(os.path.join(HERE, "figures"), exist_ok=True)
    for c in names:
        res = collect(c, CASES[c], a.work)
        results[c] = (CASES[c], res)
        d = drop_times(c, a.work) if CASES[c]["aqm"] not in ("droptail", "step") else None
        if d:
            drops[c] = d
        for fname, text in figures(c, CASES[c], res).items():
            if a.ns3_rate_fix:
                fname = fname.replace(c, c + "-ratefix", 1)
            with open(os.path.join(HERE, "figures", fname), "w") as f:
                f.write(text)
    sys.stdout.write(table(results))
    if drops:
        secs = max(CASES[c]["secs"] for c in drops)
        sys.stdout.write("\n" + drop_table(drops, secs))


if __name__ == "__main__":
    main()
