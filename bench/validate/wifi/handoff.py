#!/usr/bin/env python3
"""Per-handoff metrics from one ns-2.35 trace of handoff.tcl.

    python3 handoff.py <trace_file> <result_json_line_file> [ns_stderr_file]   # one JSON line

Definitions (all from the trace; wireless lines are ns-2's old CMU format, wired lines the
classic `+ - r d` format):

* delivery sequence: every TCP data frame the mobile host's MAC receives and passes up
  (`r ... _MH_ MAC ... tcp`), tagged with the base station that sent it (the MAC source in the
  `[duration dst src type]` field).
* switch: a change of that base station between consecutive deliveries. Switches less than
  FLAP s apart form one handoff (when the mobile returns home, packets still queued at the
  foreign agent arrive interleaved with the home agent's for a few ms). outage = the longest
  gap between consecutive deliveries from the last delivery via the old base station before
  the first switch to the first delivery via the new one after the last switch; `switches`
  says how many switches the handoff had.
* losses: TCP data packets (distinct uid) dropped anywhere (`d`/`D` lines, wired or wireless:
  IFQ overflow, MAC retry limit RET and its callback CBK, no route NRTE, ARP, ...; not the
  receiver-side COL, DUP, ERR lines, whose frame the sender retransmits), each assigned to the
  handoff whose window [last_old - 10 s, first_new + 2 s] holds it (the mobile starts losing
  its ACKs when it switches base station, seconds before the data stops); the rest are
  "other".
  TCP ACKs dropped are counted the same way, separately. Both include packets lost without a
  trace line ("untraced": handed to a wireless node's routing layer, never sent by its MAC,
  never dropped; see parse()).
* MAC retries: for every (node, uid) of a TCP data or ACK frame the number of MAC transmissions
  (`s ... MAC` lines) minus one; totals over the run and inside the handoff windows.
* goodput: highest cumulative ACK at the source (ack_ x 1000 bytes) over [ftp start, stop].
"""
import json
import sys
from collections import defaultdict

# Drop reasons a receiver writes for a frame its sender will retransmit (collision, duplicate
# of a frame already passed up, bit errors): not packet losses.
NOT_LOST = {"COL", "DUP", "ERR"}
BEFORE = 10.0
AFTER = 2.0
FLAP = 1.0


def parse(trace, mh_node, stop):
    deliveries = []  # (time, bs_mac)
    drops = []  # (time, kind, uid, reason, where)
    mac_tx = defaultdict(lambda: [0, 0.0])  # (node, uid) -> [count, time of first tx]
    # (node, uid) -> (time, type) of packets a wireless node's routing layer took on: the
    # mobile's own TCP ACKs (`s AGT`) and every packet forwarded (`f RTR`).
    handed = {}
    mh = f"_{mh_node}_"
    with open(trace) as f:
        for line in f:
            p = line.split()
            if len(p) < 8:
                continue
            ev = p[0]
            if p[2].startswith("_"):  # wireless: ev t _n_ layer reason uid type size [mac] ...
                t = float(p[1])
                layer, reason, uid, typ = p[3], p[4], p[5], p[6]
                if typ not in ("tcp", "ack"):
                    continue
                if ev == "r" and layer == "MAC" and p[2] == mh and typ == "tcp":
                    deliveries.append((t, int(p[10], 16) if p[10].startswith("0x") else int(p[10])))
                elif (ev == "s" and layer == "AGT" and p[2] == mh) or (ev == "f" and layer == "RTR"):
                    handed.setdefault((p[2], uid), (t, typ))
                elif ev == "s" and layer == "MAC":
                    e = mac_tx[(p[2], uid)]
                    if e[0] == 0:
                        e[1] = t
                    e[0] += 1
                elif ev in ("d", "D") and reason not in NOT_LOST:  # the CMU trace writes "D"
                    drops.append((t, typ, uid, reason, f"{p[2]}{layer}"))
            elif ev == "d":  # wired: d t from to type size flags fid src dst seq uid
                typ = p[4]
                if typ in ("tcp", "ack"):
                    drops.append((float(p[1]), typ, p[11], "queue", f"link {p[2]}->{p[3]}"))
    # A packet a wireless node's routing layer took on that never reached that node's MAC and
    # has no drop line was lost without a trace: at the mobile, ns-2's DSDV frees it with the
    # message "Route to base_stn not known: dropping pkt" when the mobile has switched base
    # station before DSDV has a route to the new one; at a base station it waits in ARP's
    # one-packet hold for a reply that never comes (ns-2's ARP has no timeout). Packets handed
    # on in the last second may still be queued when the run stops and are not counted.
    dropped = {(typ, uid) for _, typ, uid, _, _ in drops}
    for (node, uid), (t, typ) in handed.items():
        if t < stop - 1.0 and (node, uid) not in mac_tx and (typ, uid) not in dropped:
            drops.append((t, typ, uid, "untraced", f"{node}RTR"))
    return deliveries, drops, mac_tx


def main():
    trace, res_file = sys.argv[1], sys.argv[2]
    res = json.loads(next(l for l in open(res_file) if l.startswith("{")))
    deliveries, drops, mac_tx = parse(trace, res["node_mh"], res["stop"])
    switches = [i for i in range(1, len(deliveries)) if deliveries[i][1] != deliveries[i - 1][1]]
    groups = []
    for i in switches:
        if groups and deliveries[i][0] - deliveries[groups[-1][-1]][0] < FLAP:
            groups[-1].append(i)
        else:
            groups.append([i])
    handoffs = []
    for g in groups:
        a, b = g[0] - 1, g[-1]
        gap = max(deliveries[j][0] - deliveries[j - 1][0] for j in range(a + 1, b + 1))
        handoffs.append({"last_old": deliveries[a][0], "first_new": deliveries[b][0],
                         "outage_s": gap, "span_s": deliveries[b][0] - deliveries[a][0],
                         "switches": len(g), "from": deliveries[a][1], "to": deliveries[b][1],
                         "lost_data": 0, "lost_acks": 0, "mac_retries": 0,
                         "drop_reasons": defaultdict(int)})
    # First drop of each uid only (a packet is lost once).
    seen = set()
    other = {"lost_data": 0, "lost_acks": 0, "drop_reasons": defaultdict(int)}
    for t, typ, uid, reason, where in sorted(drops):
        if (typ, uid) in seen:
            continue
        seen.add((typ, uid))
        tgt = other
        for h in handoffs:
            if h["last_old"] - BEFORE <= t <= h["first_new"] + AFTER:
                tgt = h
                break
        tgt["lost_data" if typ == "tcp" else "lost_acks"] += 1
        tgt["drop_reasons"][f"{typ}:{reason}"] += 1
    total_retries = 0
    frames = 0
    for (node, uid), (count, t) in mac_tx.items():
        frames += 1
        total_retries += count - 1
        for h in handoffs:
            if h["last_old"] - BEFORE <= t <= h["first_new"] + AFTER:
                h["mac_retries"] += count - 1
                break
    dur = res["stop"] - res["ftp_start"]
    out = {
        "speed": res["speed"], "seed": res["seed"], "legs": res["legs"],
        "routing": res["routing"],
        "goodput_bps": res["ack"] * res["packet_size"] * 8 / dur,
        "tcp_rexmit_pkts": res["nrexmitpack"], "tcp_timeouts": res["nrexmit"],
        "mac_frames": frames, "mac_retries": total_retries,
        "handoffs": [{k: (dict(v) if isinstance(v, defaultdict) else v) for k, v in h.items()}
                     for h in handoffs],
        "other_lost_data": other["lost_data"], "other_lost_acks": other["lost_acks"],
        "other_drop_reasons": dict(other["drop_reasons"]),
    }
    if len(sys.argv) > 3:
        # Every packet (TCP ACKs and Mobile IP registrations alike) DSDV freed untraced.
        out["dsdv_no_route_to_bs"] = sum("Route to base_stn not known" in l for l in open(sys.argv[3]))
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
