#!/usr/bin/env python3
"""packetsim's side of the handoff comparison: scenarios/wifi/handoff.toml (the layout of
handoff.tcl) at 10 and 20 m/s, seeds 1-SEEDS; one JSON line per run.

    PACKETSIM=target/release/packetsim SEEDS=10 python3 packetsim_handoff.py > data/packetsim_handoff.jsonl

Raw outputs go to $WIFI_RAW (default /tmp/packetsim/wifi), outside the repository.
"""
import json
import os
import subprocess

SEEDS = int(os.environ.get("SEEDS", "10"))
BIN = os.environ.get("PACKETSIM", "packetsim")
RAW = os.path.join(os.environ.get("WIFI_RAW", "/tmp/packetsim/wifi"), "handoff")
HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "..", "..", "scenarios", "wifi", "handoff.toml")
EXTRA = os.environ.get("EXTRA_SET", "")  # e.g. links.air.beacon_interval='"1s"'


def main():
    for speed, duration in [(10, 170), (20, 90)]:
        for seed in range(1, SEEDS + 1):
            d = os.path.join(RAW, f"v{speed}_s{seed}")
            os.makedirs(d, exist_ok=True)
            sets = [f"nodes.mh.motion.speed={speed}", f'simulation.duration="{duration}s"']
            if EXTRA:
                sets += EXTRA.split()
            cmd = [BIN, "run", SCENARIO, "--seed", str(seed), "--out", d]
            for s in sets:
                cmd += ["--set", s]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            s = json.load(open(os.path.join(d, "summary.json")))
            f = s["flows"]["ftp"]
            w = s["wifi"]
            print(json.dumps({
                "speed": speed, "seed": seed, "stop": duration,
                "goodput_bps": f["bytes_delivered"] * 8 / (duration - 2.0),
                "retransmits": f["retransmits"], "timeouts": f["timeouts"],
                "handoffs": w["handoffs"], "base_station_lost": w["base_station_lost"],
                "outages_s": w["handoff_outage_s"], "handoff_log": w["handoff_log"],
                "mac_retries": w["mac_retries"], "data_frames": w["data_frames"],
                "mac_drops_retry_limit": w["mac_drops_retry_limit"],
                "mac_drops_queue": w["mac_drops_queue"], "collisions": w["collisions"],
                "events": s["events"], "wall_time_s": s["wall_time_s"],
            }), flush=True)


if __name__ == "__main__":
    main()
