#!/usr/bin/env bash
# One-node Slurm check of `packetsim sweep --emit slurm` (issue 13), on a Debian machine as root:
# installs slurm-wlm (Debian's packages), starts munge, slurmctld and slurmd on localhost, submits
# a small sweep as an array job of 3 shards plus the dependent merge job, waits for them, and
# checks the merged results.csv byte for byte against the same sweep run locally. Stops the
# daemons it started. Result and timing: docs/cluster.md.
#
#   bench/cluster/slurm-check.sh            (uses target/release/packetsim; builds it if absent)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$PWD/target/release/packetsim
[ -x "$bin" ] || cargo build --release -q -p packetsim-cli
[ "$(id -u)" = 0 ] || { echo "slurm-check: run as root (it installs and starts Slurm)" >&2; exit 2; }

if ! command -v slurmctld > /dev/null; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm
fi

host=$(hostname -s)
cpus=$(nproc)
work=$(mktemp -d /tmp/packetsim-slurm.XXXXXX)
chmod 755 "$work"
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=packetsim-check
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

# munge: a key, then the daemon (unless one runs).
if [ ! -s /etc/munge/munge.key ]; then
  mkdir -p /etc/munge
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  chown munge:munge /etc/munge/munge.key 2>/dev/null || true
  chmod 400 /etc/munge/munge.key
fi
mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
started_munge=0
if ! pgrep -x munged > /dev/null; then
  if id munge > /dev/null 2>&1; then
    runuser -u munge -- /usr/sbin/munged
  else
    /usr/sbin/munged --force
  fi
  started_munge=1
fi

slurmctld
slurmd
ok=0
cleanup() {
  for p in "$work/slurmd.pid" "$work/slurmctld.pid"; do
    [ -s "$p" ] && kill "$(cat "$p")" 2>/dev/null || true
  done
  if [ "$started_munge" = 1 ] && [ -s /run/munge/munged.pid ]; then
    kill "$(cat /run/munge/munged.pid)" 2>/dev/null || true
  fi
  if [ "$ok" = 1 ]; then rm -rf "$work"; fi
}
trap cleanup EXIT

# Wait for the node to come up.
for _ in $(seq 60); do
  state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
  case "$state" in idle*|mix*|alloc*) break ;; esac
  sleep 1
done
sinfo

sweep=(sweep scenarios/dumbbell.toml --set simulation.duration=3s
       --param links.bottleneck.loss=0,0.01 --param tcp.variant=reno,sack --runs 3)
"$bin" "${sweep[@]}" --out "$work/cluster" --emit slurm --shards 3 --slurm-cpus 1 \
  --slurm-time 00:10:00 --slurm-job-name packetsim-check
start=$(date +%s)
bash "$work/cluster/slurm/submit.sh"
for _ in $(seq 600); do
  [ -z "$(squeue -h -o %i)" ] && break
  sleep 1
done
echo "slurm jobs finished in $(( $(date +%s) - start )) s"
"$bin" "${sweep[@]}" --out "$work/local" --jobs 2 > /dev/null
if cmp "$work/cluster/results.csv" "$work/local/results.csv"; then
  echo "slurm-check: OK: the merged results.csv of 3 array tasks equals the local sweep's, byte for byte"
  ok=1
else
  echo "slurm-check: FAILED; logs in $work (slurm/*.log, slurmctld.log, slurmd.log)" >&2
  exit 1
fi
