#!/usr/bin/env python3
"""Bianchi's saturation model (IEEE JSAC 18(3), 2000) for 802.11b DSSS basic access.

    python3 bianchi.py [payload_bytes]      # prints a table for n = 1, 2, 5, 10, 20, 50

Two columns:

* "Bianchi 2000": the paper's model as published: backoff window W = CWmin + 1 = 32 doubling
  m = 5 times (1024), infinite retries, collision time Tc = H + P + DIFS (eq. 12 of the paper,
  basic access), fixed point of tau(p) (eq. 7) and p = 1 - (1 - tau)^(n - 1) (eq. 9).
* "ns-2 rules": the same fixed point with the three rules ns-2.35's Mac/802_11 follows instead:
  the backoff is drawn from [0, cw - 1] (BackoffTimer::start uses Random::random() % cw, so the
  mean is (cw - 1)/2 with cw = 31, 63, ..., 1023), a frame is dropped at its 7th failed attempt
  (RetransmitDATA: ssrc_ incremented, dropped when >= ShortRetryLimit_ 7), and a collision
  costs Tc = Ts + DIFS: measured in ns-2's trace (n = 10, seed 1, 5 s: the next transmission
  starts at least 1308 us = Ts after a success and at least 1358 us after a collision); the
  extra 50 us is consistent with EIFS (= SIFS + ACK + DIFS) followed by DIFS again, where the
  standard's EIFS replaces DIFS; we did not follow the code path).

tau for a finite retry limit uses the renewal form: attempts per frame over slots per frame,
tau = sum_i p^i / sum_i p^i (1 + b_i), i = 0..L-1, b_i the mean backoff of stage i; with L -> oo
and b_i = (W 2^min(i,m) - 1)/2 it equals Bianchi's eq. 7 (checked in main()).

Frame timing is ns-2.35's (the same as the standard except the MAC header): PLCP preamble and
header 192 us at 1 Mb/s (long preamble), then the MAC frame at 11 Mb/s: 34 bytes of MAC header
and FCS in ns-2 (its hdr_mac802_11 plus FCS; the standard's is 28) plus the payload; the ACK is
192 us + 14 bytes at 1 Mb/s = 304 us. Slot 20 us, SIFS 10 us, DIFS 50 us. Propagation delay
10 m / c = 0.033 us.
"""
import sys

SLOT = 20e-6
SIFS = 10e-6
DIFS = SIFS + 2 * SLOT
PLCP = 192e-6
DATA_RATE = 11e6
BASIC_RATE = 1e6
MAC_OVERHEAD_NS2 = 34  # bytes: ns-2's DATA frame is payload + 58 bytes, 24 of them the PLCP
ACK_BYTES = 14
DELTA = 10.0 / 299792458.0


def frame_times(payload, mac_overhead=MAC_OVERHEAD_NS2, delta=DELTA):
    data = PLCP + (payload + mac_overhead) * 8 / DATA_RATE
    ack = PLCP + ACK_BYTES * 8 / BASIC_RATE
    ts = data + SIFS + delta + ack + DIFS + delta
    tc_bianchi = data + DIFS + delta
    return ts, tc_bianchi


def tau_renewal(p, means, limit):
    """Attempt probability per slot: attempts per frame / slots per frame (renewal reward)."""
    num = 0.0
    den = 0.0
    for i in range(limit):
        w = p ** i
        num += w
        den += w * (1.0 + means[min(i, len(means) - 1)])
    return num / den


def tau_bianchi_eq7(p, w=32, m=5):
    return 2 * (1 - 2 * p) / ((1 - 2 * p) * (w + 1) + p * w * (1 - (2 * p) ** m))


def solve(n, tau_of_p):
    """Fixed point of tau = tau_of_p(p), p = 1 - (1 - tau)^(n-1), by bisection on p."""
    if n == 1:
        return tau_of_p(0.0), 0.0
    lo, hi = 0.0, 1.0 - 1e-12
    for _ in range(200):
        p = 0.5 * (lo + hi)
        tau = tau_of_p(p)
        if 1.0 - (1.0 - tau) ** (n - 1) > p:
            lo = p
        else:
            hi = p
    p = 0.5 * (lo + hi)
    return tau_of_p(p), p


def throughput(n, tau, payload, ts, tc):
    ptr = 1.0 - (1.0 - tau) ** n
    ps = n * tau * (1.0 - tau) ** (n - 1) / ptr
    slot = (1.0 - ptr) * SLOT + ptr * ps * ts + ptr * (1.0 - ps) * tc
    return ps * ptr * payload * 8 / slot


def bianchi_2000(n, payload):
    ts, tc = frame_times(payload)
    means = [(32 * 2 ** i - 1) / 2.0 for i in range(6)]
    # 2000 stages stand for the paper's infinite retries (p^2000 is nothing at these p).
    tau, p = solve(n, lambda q: tau_renewal(q, means, 2000))
    return throughput(n, tau, payload, ts, tc), tau, p


def ns2_rules(n, payload):
    ts, _ = frame_times(payload)
    means = [(min(32 * 2 ** i - 1, 1023) - 1) / 2.0 for i in range(7)]
    tau, p = solve(n, lambda q: tau_renewal(q, means, 7))
    return throughput(n, tau, payload, ts, ts + DIFS), tau, p


def main():
    payload = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    # The renewal form with (practically) infinite retries is Bianchi's eq. 7.
    for q in (0.05, 0.2, 0.4, 0.53, 0.7):
        a = tau_renewal(q, [(32 * 2 ** i - 1) / 2.0 for i in range(6)], 2000)
        b = tau_bianchi_eq7(q)
        assert abs(a - b) < 1e-9 * b, (q, a, b)
    print("| n | Bianchi 2000 (Mb/s) | tau | p | ns-2 rules (Mb/s) | tau | p |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in (1, 2, 5, 10, 20, 50):
        s1, t1, p1 = bianchi_2000(n, payload)
        s2, t2, p2 = ns2_rules(n, payload)
        print(f"| {n} | {s1 / 1e6:.3f} | {t1:.4f} | {p1:.4f} | {s2 / 1e6:.3f} | {t2:.4f} | {p2:.4f} |")


if __name__ == "__main__":
    main()
