#!/bin/bash
# BBR loss curve with defaults (variant alone), 3 seeds; CUBIC at 0.1%; mixed FQ-CoDel.
B=${PACKETSIM:-target/release/packetsim}; S=scenarios/linux   # run from the repository root; outputs under o/ (delete after)
for p in 0.01 0.02 0.05 0.15; do for s in 1 2 3; do
  nice -n 5 $B run $S/bbr-random-loss.toml --seed $s --set links.bottleneck.loss=$p --out o/bbr-$p-$s --quiet
  echo "bbr $p $s $(python3 -c "import json;d=json.load(open('o/bbr-$p-$s/summary.json'));f=list(d['flows'].values())[0] if isinstance(d['flows'],dict) else d['flows'][0];print(f.get('goodput_bps'),f.get('timeouts'),f.get('duplicate_segments'))")"
done; done
for s in 1 2 3; do
  nice -n 5 $B run $S/bbr-random-loss.toml --seed $s --set links.bottleneck.loss=0.001 --set tcp.variant=cubic --out o/cubic-$s --quiet
  echo "cubic 0.001 $s $(python3 -c "import json;d=json.load(open('o/cubic-$s/summary.json'));f=list(d['flows'].values())[0] if isinstance(d['flows'],dict) else d['flows'][0];print(f.get('goodput_bps'),f.get('timeouts'),f.get('duplicate_segments'))")"
done
nice -n 5 $B run $S/mixed-fq-codel.toml --seed 1 --out o/mixed --quiet; echo mixed done
