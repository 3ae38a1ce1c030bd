#!/bin/sh
# The delay-line sweep of README.md ("A delay line fitted to the printed statistics?"): runs
# the YATS harness (build.sh) at each DELAY, both RTOmin values and each seed, one line a run:
#   D RTOmin_s seed B T WND load cells_lost idle_gaps median_gap rx_user1 goodput1_bps goodput2_bps timeouts1
# Usage: sweep.sh "DELAYS" "SEEDS" [B [T [WND]]]   e.g. sweep.sh "$(seq 700 10 900)" "$(seq 1 10)"
# YATS=path of the harness binary (default /tmp/yats-harness/b/yats).
YATS=${YATS:-/tmp/yats-harness/b/yats}
delays=$1; seeds=$2; B=${3:-1000}; T=${4:-600}; W=${5:-64000}
for d in $delays; do for r in 0.45 0.1; do for s in $seeds; do
  DELAY=$d "$YATS" "$r" "$s" "$B" "$T" "$W" 1000000 0 100 | awk -v d="$d" -v r="$r" -v s="$s" -v B="$B" -v T="$T" -v W="$W" '
    /^rtomin/ {load = $12; loss = $14; gaps = $18; med = $20}
    /conn 0:/ {thr0 = $16; rx0 = $14; to0 = $8}
    /conn 1:/ {thr1 = $16}
    END {print d, r, s, B, T, W, load, loss, gaps, med, rx0, thr0, thr1, to0}'
done; done; done
