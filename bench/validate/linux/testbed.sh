#!/usr/bin/env bash
# One run of the real-stack testbed (issue 33 item 5): Linux TCP through a rate limit, a fixed
# packet queue and a user-space propagation delay, all inside network namespaces this script
# creates and always removes (trap on EXIT, INT, TERM).
#
#   sender ns                router ns                              receiver ns
#   snd0 ------ r0 --(policy route: iif r0|r1)--> TUN dly --> delay-relay (fixed delay,
#                                                              seeded loss towards rcv)
#              r1 <-- routed on from the TUN --- ; r1 egress: tbf rate R + pfifo limit N --> rcv0
#
# Every packet crossing the router in either direction goes through the relay once, so the base
# RTT is 2 x (one-way delay) plus serialisation; the bottleneck queue is r1's egress (data
# direction). TSO, GSO and GRO are switched off on every veth (ethtool -K), so segments are
# MTU-sized on the wire and in the queue, as in packetsim.
#
# Usage (as root):
#   testbed.sh --cc cubic --flows 2 --rate-mbit 20 --rtt-ms 40 --loss 0.01 --limit 67 \
#              --duration 20 --seed 1 --out /work/scratch/linuxbed33/run1
# Writes to --out: client.json (iperf3 -J of the sender), server.json, qdisc_samples.tsv
# (t, sent bytes, sent packets, backlog bytes, backlog packets every 100 ms), qdisc_final.txt (tc -s), ss_samples.txt
# (ss -tin every second), relay.json (the relay's counts and delay error), ping.txt (base RTT
# before the run), offloads.txt, meta.env (the parameters), sender_netstat.txt (the sender
# namespace's /proc/net/netstat and snmp after the run: TCPTimeouts, TCPLossProbes, ...).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cc=cubic flows=1 rate_mbit=10 rtt_ms=20 loss=0 limit=100 duration=20 seed=1 out= fifo_prio=10
relay_bin=${RELAY:-}

die() { echo "testbed.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --cc) cc=$2; shift 2 ;;
    --flows) flows=$2; shift 2 ;;
    --rate-mbit) rate_mbit=$2; shift 2 ;;
    --rtt-ms) rtt_ms=$2; shift 2 ;;
    --loss) loss=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --fifo-priority) fifo_prio=$2; shift 2 ;;
    --relay) relay_bin=$2; shift 2 ;;
    *) die "unknown argument '$1' (see the header of $0)" ;;
  esac
done
[ "$(id -u)" = 0 ] || die "needs root (network namespaces, tc, TUN)"
[ -n "$out" ] || die "--out DIR is required"
case $cc in reno|cubic|bbr) ;; *) die "--cc: expected reno, cubic or bbr, got '$cc'" ;; esac
grep -qw "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control \
  || die "--cc $cc: not in net.ipv4.tcp_available_congestion_control"
[[ $flows =~ ^[1-8]$ ]] || die "--flows: expected 1..8, got '$flows'"
[[ $rate_mbit =~ ^[0-9]+$ ]] && [ "$rate_mbit" -ge 1 ] && [ "$rate_mbit" -le 1000 ] \
  || die "--rate-mbit: expected an integer 1..1000, got '$rate_mbit'"
[[ $rtt_ms =~ ^[0-9]+$ ]] && [ "$rtt_ms" -ge 2 ] && [ "$rtt_ms" -le 1000 ] \
  || die "--rtt-ms: expected an integer 2..1000, got '$rtt_ms'"
[[ $limit =~ ^[0-9]+$ ]] && [ "$limit" -ge 1 ] || die "--limit: expected packets >= 1, got '$limit'"
[[ $duration =~ ^[0-9]+$ ]] && [ "$duration" -ge 1 ] && [ "$duration" -le 600 ] \
  || die "--duration: expected seconds 1..600, got '$duration'"
python3 -c "import sys; p=float(sys.argv[1]); assert 0 <= p <= 1" "$loss" 2>/dev/null \
  || die "--loss: expected a probability in [0, 1], got '$loss'"

for tool in ip tc ss ethtool iperf3 ping python3 timeout; do
  if ! command -v "$tool" >/dev/null; then
    case $tool in
      iperf3|ethtool|ping)
        pkg=$tool; [ "$tool" = ping ] && pkg=iputils-ping
        echo "testbed.sh: installing $pkg" >&2
        apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null \
          || die "could not install $tool" ;;
      *) die "missing $tool" ;;
    esac
  fi
done
if [ -z "$relay_bin" ]; then
  relay_bin=${RELAY_TARGET:-/work/scratch/linuxbed33/relay-target}/release/delay-relay
  if [ ! -x "$relay_bin" ]; then
    CARGO_TARGET_DIR=$(dirname "$(dirname "$relay_bin")") CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} \
      cargo build --release --locked --manifest-path "$here/relay/Cargo.toml" >&2 \
      || die "could not build the relay"
  fi
fi
[ -x "$relay_bin" ] || die "relay binary $relay_bin not found"

mkdir -p "$out"
tag=lb$$
S=$tag-snd R=$tag-rtr D=$tag-rcv
pids=()
cleanup() {
  local rc=$?
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  for ns in "$S" "$R" "$D"; do ip netns del "$ns" 2>/dev/null || true; done
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$S"; ip netns add "$R"; ip netns add "$D"
ip link add name snd0 type veth peer name r0 netns "$R"
ip link set snd0 netns "$S"
ip link add name rcv0 type veth peer name r1 netns "$R"
ip link set rcv0 netns "$D"
xS() { ip netns exec "$S" "$@"; }
xR() { ip netns exec "$R" "$@"; }
xD() { ip netns exec "$D" "$@"; }
for n in "$S" "$R" "$D"; do ip -n "$n" link set lo up; done
xS ip addr add 10.201.1.1/24 dev snd0; xS ip link set snd0 up
xR ip addr add 10.201.1.2/24 dev r0; xR ip link set r0 up
xR ip addr add 10.201.2.1/24 dev r1; xR ip link set r1 up
xD ip addr add 10.201.2.2/24 dev rcv0; xD ip link set rcv0 up
xS ip route add default via 10.201.1.2
xD ip route add default via 10.201.2.1
xR sysctl -qw net.ipv4.ip_forward=1
for k in all default r0 r1; do
  xR sysctl -qw net.ipv4.conf.$k.rp_filter=0 net.ipv4.conf.$k.send_redirects=0
done
# Offloads off: no TSO/GSO super-packets from the senders, no GRO merging at the router.
{
  for pair in "$S:snd0" "$R:r0" "$R:r1" "$D:rcv0"; do
    ns=${pair%%:*} dev=${pair#*:}
    ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off tx-checksumming off 2>&1 || true
    echo "== $dev"; ip netns exec "$ns" ethtool -k "$dev" | grep -E '^(tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload):'
  done
} > "$out/offloads.txt"

# The delay: every packet forwarded by the router goes into the TUN device, the relay holds it,
# writes it back, and the main table routes it on.
xR ip tuntap add dev dly mode tun
xR sysctl -qw net.ipv4.conf.dly.rp_filter=0 net.ipv4.conf.dly.send_redirects=0
xR ip link set dly mtu 1500 up
xR ip route add default dev dly table 100
xR ip rule add iif r0 lookup 100 pref 100
xR ip rule add iif r1 lookup 100 pref 101

# The bottleneck: tbf at the data rate, a pfifo of --limit packets inside it. tbf counts the
# 14-byte Ethernet header, packetsim does not: scale the rate by 1514/1500 so a full-sized IP
# packet (1500 bytes) takes the same time as in packetsim.
tbf_bit=$(( rate_mbit * 1000000 * 1514 / 1500 ))
# Burst: 2 ms of tokens (at least 2 frames). With only 2 frames (240 us at 100 Mb/s) every late
# tbf watchdog wakeup on this shared 2-core machine loses tokens and the rate falls short.
burst=$(( tbf_bit / 8 / 500 )); [ "$burst" -ge 3028 ] || burst=3028
xR tc qdisc add dev r1 root handle 1: tbf rate "${tbf_bit}bit" burst "$burst" limit "$(( limit * 1514 ))"
xR tc qdisc add dev r1 parent 1:1 handle 10: pfifo limit "$limit"

half_us=$(( rtt_ms * 1000 / 2 ))
cat > "$out/meta.env" <<EOF
cc=$cc
flows=$flows
rate_mbit=$rate_mbit
rtt_ms=$rtt_ms
loss=$loss
limit=$limit
duration=$duration
seed=$seed
tbf_bit=$tbf_bit
tbf_burst=$burst
relay_one_way_us=$half_us
kernel=$(uname -r)
iperf3=$(iperf3 --version | head -1)
loadavg_start="$(cat /proc/loadavg)"
EOF

ip netns exec "$R" "$relay_bin" --dev dly --delay "${half_us}us" --loss "$loss" --loss-dst 10.201.2.0/24 \
   --seed "$seed" --duration "$(( duration + 25 ))s" --stats "$out/relay.json" \
   --fifo-priority "$fifo_prio" &
relay_pid=$!; pids+=("$relay_pid")
sleep 0.3
kill -0 "$relay_pid" 2>/dev/null || die "the relay did not start"
# Base RTT through the relay (a lossy run may lose some of these).
xS ping -c 5 -i 0.2 -W 2 10.201.2.2 > "$out/ping.txt" 2>&1 || true

ip netns exec "$D" timeout $(( duration + 20 )) iperf3 -s -1 -J > "$out/server.json" 2>"$out/server.err" &
srv_pid=$!; pids+=("$srv_pid")
sleep 0.5

# Queue samples every 100 ms (sent bytes, sent packets, backlog bytes, backlog packets of the pfifo) and ss every second, for the run's length.
ip netns exec "$R" python3 -c '
import re, subprocess, sys, time
end = time.time() + float(sys.argv[1])
while time.time() < end:
    t = time.time()
    q = subprocess.run(["tc", "-s", "qdisc", "show", "dev", "r1", "parent", "1:1"],
                       capture_output=True, text=True).stdout
    m = re.search(r"Sent (\d+) bytes (\d+) pkt.*?backlog (\d+)b (\d+)p", q, re.S)
    print("%.6f\t%s\t%s\t%s\t%s" % ((t,) + m.groups()) if m else "%.6f\tNA\tNA\tNA\tNA" % t, flush=True)
    time.sleep(max(0.0, 0.1 - (time.time() - t)))
' "$(( duration + 3 ))" > "$out/qdisc_samples.tsv" 2>/dev/null &
pids+=("$!")
(
  end=$(( $(date +%s) + duration + 2 ))
  while [ "$(date +%s)" -lt "$end" ]; do
    echo "# $(date +%s.%N)"; xS ss -tin dst 10.201.2.2 2>/dev/null; sleep 1
  done
) > "$out/ss_samples.txt" &
pids+=("$!")

rc=0
xS timeout $(( duration + 15 )) iperf3 -c 10.201.2.2 -t "$duration" -P "$flows" -C "$cc" -J -i 1 \
   > "$out/client.json" 2>"$out/client.err" || rc=$?
xR tc -s qdisc show dev r1 > "$out/qdisc_final.txt"
# The sender namespace's own TCP counters (timeouts, loss probes, recoveries, undos).
xS cat /proc/net/netstat /proc/net/snmp > "$out/sender_netstat.txt"
echo "loadavg_end=\"$(cat /proc/loadavg)\"" >> "$out/meta.env"
wait "$srv_pid" 2>/dev/null || true
# Let the relay write its statistics now rather than at its deadline.
kill -TERM "$relay_pid" 2>/dev/null || true
wait "$relay_pid" 2>/dev/null || true
[ "$rc" = 0 ] || die "iperf3 client failed (rc $rc), see $out/client.err"
echo "testbed.sh: done, results in $out" >&2
