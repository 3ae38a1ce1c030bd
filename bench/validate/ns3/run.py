#!/usr/bin/env python3
"""Issue 17 validation: packetsim against ns-3.37 on identical small dumbbells.

    bench/validate/ns3/run.py [--cases a,b] [--work DIR] [--table-only]

Each case is one dumbbell (s_i -1 Gb/s, 1 ms- r0 -RATE, DELAY- r1 -1 Gb/s, 1 ms- d_i), N
long-lived flows started STAGGER apart, run in both simulators:
- ns-3: tcp_dumbbell.cc (built here with pkg-config against Debian's libns3-dev 3.37);
- packetsim: a scenario written from the same numbers (scenario() below), `packetsim run`.
Raw outputs (ns-3's cwnd CSV and JSON line, packetsim's output folders) go to --work
(default /tmp/packetsim-ns3-validate), never into the repository; results.md and the
cwnd figures (figures/*.svg) are written beside this script. Both simulators are
deterministic here (no random loss, no jitter), so each case is one run.

Install the peer with bench/setup.sh (Debian's ns3, libns3-dev, libgsl-dev among the peers).
PACKETSIM=path overrides the packetsim binary (default target/release/packetsim, built if
absent). Standard library only.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SRC = os.path.join(HERE, "tcp_dumbbell.cc")
NS3_LIBS = ["ns3-core", "ns3-network", "ns3-internet", "ns3-point-to-point",
            "ns3-applications", "ns3-traffic-control"]

# name: (variant, flows, rate Mb/s, one-way bottleneck delay ms, queue packets, seconds,
#        stagger s, step K or None)
CASES = {
    "newreno-1": ("newreno", 1, 100, 20, 100, 60, 0, None),
    "cubic-1": ("cubic", 1, 100, 20, 100, 60, 0, None),
    "cubic-2": ("cubic", 2, 100, 20, 100, 60, 10, None),
    "dctcp-2": ("dctcp", 2, 100, 5, 200, 20, 2, 20),
}


def scenario(name, case, partial_ack_timer):
    variant, n, rate, delay, queue, secs, stagger, k = case
    lines = [
        f"# bench/validate/ns3 case {name}: written by run.py, matched to tcp_dumbbell.cc",
        "[simulation]", f'duration = "{secs}s"', "seed = 1", 'sample_interval = "100ms"', "",
        "[tcp]", f'variant = "{variant}"', "mss = 1460", "initial_cwnd = 2",
        'rcv_window = "16MiB"', 'rto_initial = "1s"', 'rto_min = "200ms"', 'granularity = "1ms"',
        f'newreno_partial_ack_timer = "{partial_ack_timer}"',
    ]
    if variant == "dctcp":
        lines += ["ecn = true", 'ecn_echo = "per_segment"']
    lines += ["", "[nodes.r0]", "[nodes.r1]"]
    for i in range(n):
        lines += [f"[nodes.s{i}]", f"[nodes.d{i}]"]
    if k is None:
        q = f'{{ kind = "droptail", limit = {queue} }}'
    else:
        q = f'{{ kind = "red", red = {{ step = {k}, ecn = "standard", limit = {queue} }} }}'
    lines += ["", "[links.bottleneck]", 'a = "r0"', 'b = "r1"', f'rate = "{rate}Mbps"',
              f'delay = "{delay}ms"', f"queue = {q}"]
    big = '{ kind = "droptail", limit = 10000 }'
    for i in range(n):
        lines += ["", f"[links.up{i}]", f'a = "s{i}"', 'b = "r0"', 'rate = "1Gbps"',
                  'delay = "1ms"', f"queue = {big}",
                  "", f"[links.down{i}]", 'a = "r1"', f'b = "d{i}"', 'rate = "1Gbps"',
                  'delay = "1ms"', f"queue = {big}"]
    for i in range(n):
        lines += ["", f"[flows.f{i}]", f'from = "s{i}"', f'to = "d{i}"', 'app = "bulk"',
                  f'start = "{i * stagger}s"']
    return "\n".join(lines) + "\n"


def build_ns3(work):
    exe = os.path.join(work, "tcp-dumbbell")
    if os.path.exists(exe) and os.path.getmtime(exe) > os.path.getmtime(SRC):
        return exe
    flags = subprocess.run(["pkg-config", "--cflags", "--libs"] + NS3_LIBS, check=True,
                           capture_output=True, text=True).stdout.split()
    subprocess.run(["g++", "-O2", "-std=c++17", SRC, "-o", exe] + flags, check=True)
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


def run_case(name, case, work, ns3, partial_ack_timer):
    variant, n, rate, delay, queue, secs, stagger, k = case
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    args = [ns3, variant, str(n), str(rate), str(delay), str(queue), str(secs), str(stagger),
            os.path.join(d, "ns3_cwnd.csv")] + ([str(k)] if k else [])
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    with open(os.path.join(d, "ns3.json"), "w") as f:
        f.write(out.strip().splitlines()[-1] + "\n")
    toml = os.path.join(d, "scenario.toml")
    with open(toml, "w") as f:
        f.write(scenario(name, case, partial_ack_timer))
    subprocess.run([packetsim_bin(), "run", toml, "--quiet", "--out", os.path.join(d, "ps")],
                   check=True)


def read_cwnd(path, flows):
    series = {f"f{i}": [] for i in range(flows)}
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["flow"] in series:
                series[row["flow"]].append((float(row["time_s"]), int(row["cwnd_bytes"])))
    return series


def cuts(points):
    """Congestion events seen in a sampled cwnd series: samples where cwnd fell by a
    tenth or more since the previous sample."""
    return sum(1 for (_, a), (_, b) in zip(points, points[1:]) if b < 0.9 * a)


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def collect(name, case, work):
    variant, n = case[0], case[1]
    d = os.path.join(work, name)
    with open(os.path.join(d, "ns3.json")) as f:
        ns3 = json.load(f)
    with open(os.path.join(d, "ps", "summary.json")) as f:
        ps = json.load(f)
    q = ps["queues"]["bottleneck:r0->r1"]
    res = {
        "ns3": {
            "goodput": [fl["goodput_bps"] for fl in ns3["flows"]],
            "drops": ns3["drops"], "marks": ns3["marks"], "queue": ns3["mean_queue_pkts"],
            "cwnd": read_cwnd(os.path.join(d, "ns3_cwnd.csv"), n),
        },
        "packetsim": {
            "goodput": [ps["flows"][f"f{i}"]["goodput_bps"] for i in range(n)],
            "drops": q["drops"], "marks": q["marks"], "queue": q["mean_len_pkts"],
            "cwnd": read_cwnd(os.path.join(d, "ps", "timeseries_flows.csv"), n),
        },
    }
    return res


def svg(name, res, secs):
    """cwnd of every flow in both simulators, side by side (two panels, shared y)."""
    w, h, pad = 420, 260, 48
    ymax = max(c for sim in res.values() for s in sim["cwnd"].values() for _, c in s) / 1460
    ymax = max(1.0, ymax * 1.05)
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * w}" height="{h}" '
             f'font-family="sans-serif" font-size="11">',
             '<rect width="100%" height="100%" fill="white"/>']
    for panel, sim in enumerate(["ns3", "packetsim"]):
        x0 = panel * w + pad
        pw, ph = w - pad - 12, h - 2 * pad + 10
        y0 = pad - 20
        title = "ns-3.37" if sim == "ns3" else "packetsim"
        parts.append(f'<text x="{x0 + pw / 2}" y="{y0 - 6}" text-anchor="middle">'
                     f'{title}: {name}</text>')
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
                         f'{y0 + ph / 2})" text-anchor="middle">cwnd (segments)</text>')
        for k, (flow, pts) in enumerate(sorted(res[sim]["cwnd"].items())):
            coords = " ".join(f"{x0 + pw * t / secs:.1f},{y0 + ph - ph * c / 1460 / ymax:.1f}"
                              for t, c in pts)
            parts.append(f'<polyline fill="none" stroke="{colours[k % 4]}" stroke-width="1" '
                         f'points="{coords}"/>')
            parts.append(f'<text x="{x0 + pw - 4}" y="{y0 + 14 + 13 * k}" text-anchor="end" '
                         f'fill="{colours[k % 4]}">{flow}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def pct(a, b):
    return f"{100.0 * (a - b) / b:+.1f}%" if b else "n/a"


def table(results):
    out = ["| case | metric | ns-3.37 | packetsim | packetsim vs ns-3 |", "|---|---|---:|---:|---:|"]
    for name, (case, res) in results.items():
        a, b = res["ns3"], res["packetsim"]
        n = case[1]
        rows = [("goodput, all flows (Mb/s)", sum(a["goodput"]) / 1e6, sum(b["goodput"]) / 1e6)]
        if n > 1:
            for i in range(n):
                rows.append((f"goodput f{i} (Mb/s)", a["goodput"][i] / 1e6, b["goodput"][i] / 1e6))
        rows += [
            ("bottleneck drops (packets)", a["drops"], b["drops"]),
            ("ECN marks (packets)", a["marks"], b["marks"]),
            ("mean queue (packets waiting)", a["queue"], b["queue"]),
        ]
        for i in range(n):
            ca = [c / 1460 for _, c in a["cwnd"][f"f{i}"]]
            cb = [c / 1460 for _, c in b["cwnd"][f"f{i}"]]
            rows.append((f"mean cwnd f{i} (segments)", mean(ca), mean(cb)))
            rows.append((f"cwnd cuts f{i} (samples falling >= 10%)",
                         cuts(a["cwnd"][f"f{i}"]), cuts(b["cwnd"][f"f{i}"])))
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
    a = ap.parse_args()
    if a.queue:
        for c, v in CASES.items():
            CASES[c] = v[:4] + (a.queue,) + v[5:]
    names = [c for c in a.cases.split(",") if c]
    for c in names:
        if c not in CASES:
            sys.exit(f"run.py: unknown case '{c}' (known: {', '.join(CASES)})")
    os.makedirs(a.work, exist_ok=True)
    if not a.table_only:
        ns3 = build_ns3(a.work)
        for c in names:
            print(f"run.py: {c}", file=sys.stderr)
            run_case(c, CASES[c], a.work, ns3, a.partial_ack_timer)
    results = {}
    os.makedirs(os.path.join(HERE, "figures"), exist_ok=True)
    for c in names:
        res = collect(c, CASES[c], a.work)
        results[c] = (CASES[c], res)
        with open(os.path.join(HERE, "figures", f"{c}-cwnd.svg"), "w") as f:
            f.write(svg(c, res, CASES[c][5]))
    sys.stdout.write(table(results))


if __name__ == "__main__":
    main()
