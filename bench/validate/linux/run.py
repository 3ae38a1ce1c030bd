#!/usr/bin/env python3
"""Issue 33 item 5: Linux TCP (real stack, testbed.sh) against packetsim on matched scenarios.

    run.py scenarios            # (re)write scenarios/*.toml from the grid below
    run.py linux  [POINT ...]   # run the testbed (root; about 40 s a run)
    run.py packetsim [POINT ...]
    run.py table                # the comparison table (markdown) from both sides' outputs
    run.py published            # the 100 Mb/s, 100 ms loss curve against the published ones
    run.py slowstart            # the first ssthresh (slow-start exit) of single loss-free flows

Raw outputs go to $LINUX_VALIDATE_RAW (default /work/scratch/linuxbed33/raw), outside the
repository. POINT is a grid point's name (e.g. cubic-1x10M-20ms-0); none = all. The packetsim
binary is $PACKETSIM, else target/release/packetsim of this checkout (built if missing).
"""
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
RAW = os.environ.get("LINUX_VALIDATE_RAW", "/work/scratch/linuxbed33/raw")
SECS = int(os.environ.get("LINUX_VALIDATE_SECS", "30"))
PS_SEEDS = [1, 2, 3]
# LINUX_VALIDATE_REP=N (default 1): which repetition of the Linux runs to make; repetition N
# uses relay seed N and writes to raw/linux (N = 1) or raw/linux-repN. The table shows
# repetition 1 and, where it exists, the spread over all repetitions.
REP = int(os.environ.get("LINUX_VALIDATE_REP", "1"))


def linux_dir(rep):
    return os.path.join(RAW, "linux" if rep == 1 else f"linux-rep{rep}")
MSS = 1448          # Linux's payload with timestamps on a 1500-byte MTU (1460 - 12)
PKT = 1500          # IP bytes of a full segment

# (flows, Mb/s, base RTT ms, random loss on the data direction); the queue is one BDP of
# 1500-byte packets (at least 10).
GRID = [
    (1, 10, 20, 0.0),
    (1, 50, 50, 0.0),
    (2, 20, 40, 0.0),
    (4, 100, 100, 0.0),
    (1, 20, 40, 0.01),
    (2, 50, 20, 0.001),
    (1, 100, 100, 0.01),
    (1, 100, 100, 0.05),
    # with the two above, the loss curve of Cardwell et al. 2016 (100 Mb/s, 100 ms, 1 BDP)
    (1, 100, 100, 0.001),
    (1, 100, 100, 0.02),
    (1, 100, 100, 0.15),
]
CCS = ["reno", "cubic", "bbr"]


def bdp_pkts(mbit, rtt_ms):
    return max(10, round(mbit * 1e6 * rtt_ms / 1e3 / 8 / PKT))


def points():
    for cc in CCS:
        for flows, mbit, rtt, loss in GRID:
            name = f"{cc}-{flows}x{mbit}M-{rtt}ms-{loss:g}"
            yield name, dict(cc=cc, flows=flows, mbit=mbit, rtt=rtt, loss=loss,
                             limit=bdp_pkts(mbit, rtt))


# packetsim's keys for each Linux congestion control. The loss recovery is the same for all:
# Linux always runs SACK with RACK-TLP and PRR (tcp_sack=1, tcp_recovery=1).
VARIANT = {"reno": "reno", "cubic": "cubic", "bbr": "bbr"}

TEMPLATE = """\
# Issue 33 item 5: matched to bench/validate/linux/testbed.sh run as
#   testbed.sh --cc {cc} --flows {flows} --rate-mbit {mbit} --rtt-ms {rtt} --loss {loss:g} --limit {limit} --duration {secs}
# Written by run.py (`run.py scenarios`); every TCP key is stated, with the Linux setting it
# stands for. Linux: kernel 6.18, iperf3 3.12, sysctls at their defaults.
profile = "standard"

[simulation]
duration = "{secs}s"
seed = 1
sample_interval = "1s"        # iperf3 -i 1 reads tcpi_rtt once a second: srtt sampled the same way

[tcp]
variant = "{variant}"
loss_recovery = "sack"        # net.ipv4.tcp_sack = 1
{sack_recovery}loss_detection = "rack_tlp"   # net.ipv4.tcp_recovery = 1 (RACK) with tail loss probes (tcp_early_retrans = 3)
rto_backoff_reset = "new_ack" # tcp_ack: an ACK of new data clears icsk_backoff
{slow_start}keep_sack_on_timeout = true   # tcp_enter_loss keeps SACKed marks unless the receiver reneged
limited_transmit = true       # Linux sends new data on dupACKs by its pipe (tcp_packets_in_flight)
mss = {mss}                    # 1500 MTU - 40 (IP+TCP) - 12 (timestamp option)
initial_cwnd = 10             # TCP_INIT_CWND
rcv_window = "3MiB"           # Linux autotunes it (tcp_rmem max 32 MiB here); 3 MiB > BDP + queue at every point
rto_initial = "1s"            # TCP_TIMEOUT_INIT
rto_min = "200ms"             # TCP_RTO_MIN
rto_max = "120s"              # TCP_RTO_MAX
granularity = "1ms"           # RTT in microseconds, RTO in jiffies
timestamps = true             # net.ipv4.tcp_timestamps = 1
rtt_sampling = "every_segment" # tcp_ack_update_rtt: a sample from every ACK (timestamps or rate samples)
delayed_ack = "40ms"          # TCP_DELACK_MIN; an ACK at least every second full segment (__tcp_ack_snd_check)
dupack_threshold = 3          # net.ipv4.tcp_reordering = 3
sack_blocks = 3               # with timestamps 3 SACK blocks fit the 40 option bytes
ecn = false                   # net.ipv4.tcp_ecn = 2: ECN only when the peer asks; iperf3 does not
rto_ssthresh = "recovery"     # tcp_enter_loss: a timeout in recovery keeps recovery's ssthresh
rtt_estimator = "rfc6298"     # tcp_rtt_estimator (Jacobson/Karels with mdev)

[nodes.snd]
[nodes.rtr]
[nodes.rcv]

# The sender's veth: no rate limit and no delay worth modelling in the testbed.
[links.access]
a = "snd"
b = "rtr"
rate = "10Gbps"
delay = "0ms"
queue = {{ kind = "droptail", limit = 10000 }}

# The router's egress towards the receiver: tbf at {mbit} Mb/s (IP bytes) with pfifo limit {limit};
# the relay's one-way delay ({half} ms each way) and its loss (before the queue).
[links.bottleneck]
a = "rtr"
b = "rcv"
rate = "{mbit}Mbps"
delay = "{half}ms"
queue = {{ kind = "droptail", limit = {limit} }}
queue_ba = {{ kind = "droptail", limit = 10000 }}
loss = {loss}
errors = "a_to_b"
loss_position = "before_queue"

[flows.f]
from = "snd"
to = "rcv"
app = "bulk"
start = "0s"
count = {flows}
"""


def scenario_path(name):
    return os.path.join(HERE, "scenarios", name + ".toml")


def write_scenarios():
    os.makedirs(os.path.join(HERE, "scenarios"), exist_ok=True)
    for name, p in points():
        with open(scenario_path(name), "w") as f:
            prr = ('sack_recovery = "prr"         # tcp_cwnd_reduction (RFC 6937), Linux >= 3.2\n'
                   if p["cc"] != "bbr" else
                   '# sack_recovery: not set; BBR sets its own recovery window (bbr_set_cwnd_to_recover_or_restore),\n'
                   '# Linux skips PRR for a congestion control with cong_control (tcp_cong_control)\n')
            ss = ('slow_start = "hystart_pp"     # tcp_cubic.c runs HyStart (delay + ACK train); '
                  'packetsim has RFC 9406 HyStart++ only\n' if p["cc"] == "cubic" else "")
            f.write(TEMPLATE.format(secs=SECS, variant=VARIANT[p["cc"]], mss=MSS, sack_recovery=prr,
                                    slow_start=ss,
                                    half=f"{p['rtt'] / 2:g}", **p).replace("count = 1\n", ""))
    print(f"wrote {len(list(points()))} scenarios to {os.path.join(HERE, 'scenarios')}")


def packetsim_bin():
    b = os.environ.get("PACKETSIM")
    if b:
        return b
    tgt = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    b = os.path.join(tgt, "release", "packetsim")
    if not os.path.exists(b):
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "packetsim-cli"], cwd=ROOT,
                       check=True)
    return b


def selected(args):
    pts = list(points())
    if not args:
        return pts
    names = {n for n, _ in pts}
    bad = [a for a in args if a not in names]
    if bad:
        sys.exit(f"run.py: unknown point(s) {bad}; known: {sorted(names)}")
    return [(n, p) for n, p in pts if n in args]


def run_linux(args):
    for name, p in selected(args):
        out = os.path.join(linux_dir(REP), name)
        cmd = [os.path.join(HERE, "testbed.sh"), "--cc", p["cc"], "--flows", str(p["flows"]),
               "--rate-mbit", str(p["mbit"]), "--rtt-ms", str(p["rtt"]), "--loss", f"{p['loss']:g}",
               "--limit", str(p["limit"]), "--duration", str(SECS), "--seed", str(REP), "--out", out]
        print("+", " ".join(cmd), flush=True)
        r = subprocess.run(cmd)
        if r.returncode != 0:
            print(f"run.py: testbed failed for {name} (rc {r.returncode})", file=sys.stderr)


def run_packetsim(args):
    exe = packetsim_bin()
    for name, p in selected(args):
        seeds = PS_SEEDS if p["loss"] > 0 else PS_SEEDS[:1]  # no loss: nothing is drawn
        for seed in seeds:
            out = os.path.join(RAW, "packetsim", name, f"seed{seed}")
            cmd = [exe, "run", scenario_path(name), "--quiet", "--seed", str(seed), "--out", out]
            subprocess.run(cmd, check=True)


# ---------------------------------------------------------------------------------------------


def linux_metrics(name, p, rep=1):
    d = os.path.join(linux_dir(rep), name)
    try:
        with open(os.path.join(d, "client.json")) as f:
            cl = json.load(f)
        with open(os.path.join(d, "server.json")) as f:
            sv = json.load(f)
    except (OSError, ValueError):
        return None
    end = cl["end"]
    goodput = [s["receiver"]["bits_per_second"] for s in sv["end"]["streams"]]
    retrans = sum(s["sender"]["retransmits"] for s in end["streams"])
    seg_sent = None
    rtts = [iv_s["rtt"] / 1e3 for iv in cl["intervals"] for iv_s in iv["streams"] if iv_s.get("rtt")]
    samples = []  # (t, sent bytes, sent packets, backlog bytes, backlog packets)
    with open(os.path.join(d, "qdisc_samples.tsv")) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 5 and "NA" not in parts:
                samples.append((float(parts[0]),) + tuple(int(x) for x in parts[1:]))
    # The queue while the transfer ran: from the first sample with bytes sent after the
    # handshake to the last one at which the count still grew.
    moving = [i for i in range(1, len(samples)) if samples[i][2] - samples[i - 1][2] > 10]
    run = samples[moving[0]:moving[-1] + 1] if moving else samples
    q = [s[4] for s in run]
    # The tbf's achieved rate while it was busy (backlog at both ends of a sample interval),
    # in IP bits per second (frames less their 14-byte Ethernet header).
    busy = [(b[1] - a[1] - 14 * (b[2] - a[2])) * 8 / (b[0] - a[0])
            for a, b in zip(samples, samples[1:]) if a[4] > 0 and b[4] > 0 and b[0] > a[0]]
    final = open(os.path.join(d, "qdisc_final.txt")).read()
    m = re.search(r"qdisc pfifo 10:.*?Sent (\d+) bytes (\d+) pkt \(dropped (\d+)", final, re.S)
    sent_bytes, sent_pkts, drops = (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else (0, 0, 0)
    with open(os.path.join(d, "relay.json")) as f:
        relay = json.load(f)
    return dict(goodput=goodput, retrans=retrans, rtt=statistics.mean(rtts) if rtts else float("nan"),
                queue=statistics.mean(q) if q else 0.0,
                busy_rate=statistics.mean(busy) if len(busy) >= 5 else None,
                ping=ping_rtt(d), netstat=netstat(d), load=load(d), drops=drops, relay=relay,
                sent_pkts=sent_pkts, sent_bytes=sent_bytes,
                dur=end["sum_received"]["seconds"], seg_sent=seg_sent)


def netstat(d):
    """The sender namespace's counters: {"TcpExt.TCPTimeouts": n, "Tcp.RetransSegs": n, ...}."""
    try:
        lines = open(os.path.join(d, "sender_netstat.txt")).read().splitlines()
    except OSError:
        return None
    out = {}
    # Each group is a line of names and a line of values under the same "Prefix:".
    for names, values in zip(lines, lines[1:]):
        n, v = names.split(), values.split()
        if len(n) > 1 and n[0] == v[0] and not n[1].isdigit() and v[1].lstrip("-").isdigit():
            out.update({f"{n[0][:-1]}.{k}": int(x) for k, x in zip(n[1:], v[1:])})
    return out


def ping_rtt(d):
    try:
        m = re.search(r"rtt min/avg/max/mdev = ([\d.]+)/([\d.]+)/", open(os.path.join(d, "ping.txt")).read())
    except OSError:
        return None
    return float(m.group(1)) if m else None


def packetsim_metrics(name, p):
    base = os.path.join(RAW, "packetsim", name)
    if not os.path.isdir(base):
        return None
    runs = []
    for seed_dir in sorted(os.listdir(base)):
        d = os.path.join(base, seed_dir)
        try:
            with open(os.path.join(d, "summary.json")) as f:
                s = json.load(f)
        except (OSError, ValueError):
            continue
        flows = [s["flows"][k] for k in sorted(s["flows"])]
        q = s["queues"]["bottleneck:rtr->rcv"]
        srtt = []
        with open(os.path.join(d, "timeseries_flows.csv")) as f:
            hdr = f.readline().strip().split(",")
            i = hdr.index("srtt_s")
            for line in f:
                v = line.strip().split(",")[i]
                if v:
                    srtt.append(float(v) * 1e3)
        runs.append(dict(goodput=[fl["goodput_bps"] for fl in flows],
                         retrans=sum(fl["retransmits"] for fl in flows),
                         timeouts=sum(fl["timeouts"] for fl in flows),
                         rtt=statistics.mean(srtt) if srtt else float("nan"),
                         queue=q["mean_len_pkts"], drops=q["drops"]))
    if not runs:
        return None
    agg = lambda k: statistics.mean(r[k] for r in runs)
    return dict(goodput_sum=statistics.mean(sum(r["goodput"]) for r in runs),
                goodput_min=statistics.mean(min(r["goodput"]) for r in runs),
                goodput_max=statistics.mean(max(r["goodput"]) for r in runs),
                retrans=agg("retrans"), timeouts=agg("timeouts"), rtt=agg("rtt"),
                queue=agg("queue"), drops=agg("drops"), n=len(runs))


def cpu(relay):
    if "cpu_user_s" not in relay:
        return "n/a"
    return f"{100 * (relay['cpu_user_s'] + relay['cpu_sys_s']) / relay['elapsed_s']:.1f}"


def load(d):
    """1-minute load average at the start and end of a run (meta.env)."""
    try:
        meta = open(os.path.join(d, "meta.env")).read()
    except OSError:
        return "n/a"
    vals = re.findall(r'loadavg_(?:start|end)="?([\d.]+)', meta)
    return ", ".join(vals) if vals else "n/a"


def rto_cell(lx):
    ns = lx and lx["netstat"]
    if not ns:
        return "n/a"
    return f"{ns.get('TcpExt.TCPTimeouts', 0)} ({ns.get('TcpExt.TCPLossProbes', 0)})"


def table():
    rows = ["| point (cc-flows x rate-RTT-loss) | buf pkts | goodput Mb/s Linux / ps | "
            "flow min/max Mb/s Linux / ps | retrans Linux / ps | RTOs Linux (TLPs) / ps | mean RTT ms Linux / ps | "
            "mean queue pkts Linux / ps | queue drops Linux / ps | Linux rep 2: goodput, retrans |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    acc = ["| point | ping min RTT ms (set) | tbf busy rate Mb/s (set) | relay late p50 / p99 / p99.9 / max us | "
           "relay pkts | relay CPU % | load avg start, end |",
           "|---|---|---|---|---|---|---|"]
    for name, p in points():
        lx = linux_metrics(name, p)
        ps = packetsim_metrics(name, p)
        if lx is None and ps is None:
            continue
        f = lambda v, k=1: "n/a" if v is None else f"{v:.{k}f}"
        lg = lx and sum(lx["goodput"]) / 1e6
        rows.append(
            f"| {name} | {p['limit']} | {f(lg)} / {f(ps and ps['goodput_sum'] / 1e6)} | "
            f"{f(lx and min(lx['goodput']) / 1e6)}-{f(lx and max(lx['goodput']) / 1e6)} / "
            f"{f(ps and ps['goodput_min'] / 1e6)}-{f(ps and ps['goodput_max'] / 1e6)} | "
            f"{f(lx and lx['retrans'], 0)} / {f(ps and ps['retrans'], 0)} | "
            f"{rto_cell(lx)} / {f(ps and ps['timeouts'], 1)} | "
            f"{f(lx and lx['rtt'])} / {f(ps and ps['rtt'])} | "
            f"{f(lx and lx['queue'])} / {f(ps and ps['queue'])} | "
            f"{f(lx and lx['drops'], 0)} / {f(ps and ps['drops'], 0)} | "
            + (f"{sum(l2['goodput']) / 1e6:.1f}, {l2['retrans']} |" if (l2 := linux_metrics(name, p, 2)) else "n/a |"))
        if lx:
            r = lx["relay"]
            acc.append(f"| {name} | {f(lx['ping'], 2)} ({p['rtt']}) | "
                       f"{f(lx['busy_rate'] and lx['busy_rate'] / 1e6, 2)} ({p['mbit']}) | "
                       f"{r['late_p50_us']} / {r['late_p99_us']} / {r['late_p999_us']} / {r['late_max_us']:.0f} | "
                       f"{r['forwarded']} | {cpu(r)} | {lx['load']} |")
    print("\n".join(rows))
    print()
    print("\n".join(acc))


def rfc9438_rate(p, rtt_s, mss=MSS):
    """RFC 9438 section 5: CUBIC's average window (segments) against random loss p, the larger
    of the cubic region, (C (3 + beta) / (4 (1 - beta)))^(1/4) RTT^(3/4) / p^(3/4), and the
    Reno-friendly region, sqrt(3 / (2 p)) (AIMD with alpha = 3 (1 - beta) / (1 + beta)), with
    C = 0.4, beta = 0.7; as a rate, window x MSS / RTT (base RTT: no queue at these losses)."""
    c, beta = 0.4, 0.7
    w_cubic = (c * (3 + beta) / (4 * (1 - beta))) ** 0.25 * rtt_s ** 0.75 / p ** 0.75
    w_reno = (3 / (2 * p)) ** 0.5
    return max(w_cubic, w_reno) * mss * 8 / rtt_s


def published():
    """The 1 flow, 100 Mb/s, 100 ms, 1 BDP points against the published curves. Linux cells:
    repetition 1; repetition 2, each as Mb/s (fraction of (1 - p) x limit); packetsim: the mean
    of seeds 1-3."""
    limit = 100e6 * MSS / PKT  # goodput of a saturated link, payload bits/s
    rows = ["| loss p | (1-p) x limit Mb/s | BBR Linux | BBR packetsim | CUBIC RFC 9438 model | "
            "CUBIC Linux | CUBIC packetsim | Reno Linux | Reno packetsim |",
            "|---|---|---|---|---|---|---|---|---|"]
    losses = sorted({loss for fl, mb, rtt, loss in GRID if (fl, mb, rtt) == (1, 100, 100)})
    for loss in losses:
        def cell(cc):
            name = f"{cc}-1x100M-100ms-{loss:g}"
            pt = dict(points())[name]
            ps = packetsim_metrics(name, pt)
            ref = (1 - loss) * limit
            fmt = lambda g: "n/a" if g is None else f"{g / 1e6:.2f} ({g / ref:.2f})"
            lx = [linux_metrics(name, pt, rep) for rep in (1, 2)]
            linux = "; ".join(fmt(sum(m["goodput"])) for m in lx if m) or "n/a"
            return (linux, fmt(ps and ps["goodput_sum"]))
        b, c, r = cell("bbr"), cell("cubic"), cell("reno")
        model = min(rfc9438_rate(loss, 0.1), limit) if loss > 0 else limit
        rows.append(f"| {loss:g} | {(1 - loss) * limit / 1e6:.2f} | {b[0]} | {b[1]} | "
                    f"{model / 1e6:.2f} | {c[0]} | {c[1]} | {r[0]} | {r[1]} |")
    print("\n".join(rows))


def linux_first_ssthresh(d):
    """(seconds after the first sample, segments) of the first ssthresh `ss -tin` shows for a
    data connection (the control connection carries a few hundred bytes and is skipped)."""
    t0, t, cur = None, None, None
    try:
        lines = open(os.path.join(d, "ss_samples.txt")).read().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("# "):
            t = float(line[2:])
            t0 = t if t0 is None else t0
            continue
        m = re.search(r"bytes_acked:(\d+)", line)
        if m and int(m.group(1)) > 100000:
            th = re.search(r" ssthresh:(\d+)", line)
            if th:
                return (t - t0, int(th.group(1)))
    return None


def ps_first_ssthresh(name):
    d = os.path.join(RAW, "packetsim", name, "seed1")
    try:
        f = open(os.path.join(d, "timeseries_flows.csv"))
    except OSError:
        return None
    hdr = f.readline().strip().split(",")
    it, iss = hdr.index("time_s"), hdr.index("ssthresh_bytes")
    first = None
    for line in f:
        v = line.strip().split(",")
        if v[iss] and float(v[iss]) < 3 * 1024 * 1024:
            first = (float(v[it]), float(v[iss]) / MSS)
            break
    return first


def slow_start():
    """First ssthresh (the slow-start exit) of the single-flow loss-free points."""
    rows = ["| point | BDP + queue (pkts) | Linux: first ssthresh seen (segments, at s) | "
            "packetsim: first ssthresh (segments, at s) |", "|---|---|---|---|"]
    for name, p in points():
        if p["flows"] != 1 or p["loss"] > 0 or p["cc"] == "bbr":  # BBR v1 ignores ssthresh
            continue
        lx = [linux_first_ssthresh(os.path.join(linux_dir(r), name)) for r in (1, 2)]
        ps = ps_first_ssthresh(name)
        fmt = lambda x: "none" if x is None else f"{x[1]:.0f} ({x[0]:.0f} s)"
        rows.append(f"| {name} | {2 * p['limit']} | {fmt(lx[0])}; rep 2: {fmt(lx[1])} | {fmt(ps)} |")
    print("\n".join(rows))


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("scenarios", "linux", "packetsim", "table", "published", "slowstart"):
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    {"scenarios": lambda: write_scenarios(), "linux": lambda: run_linux(args),
     "packetsim": lambda: run_packetsim(args), "table": lambda: table(),
     "published": lambda: published(), "slowstart": lambda: slow_start()}[cmd]()


if __name__ == "__main__":
    main()
