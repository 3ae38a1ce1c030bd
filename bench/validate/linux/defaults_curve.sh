#!/bin/bash
# BBR loss curve with defaults (variant alone), 3 seeds; CUBIC at 0.1%; mixed FQ-CoDel.
B=${PACKETSIM:-target/release/packetsim}; S=scenarios/linux ; O=${OUT:-/tmp/packetsim-curve}   # run from the repository root
for p in 0.01 0.02 0.05 0.15; do for s in 1 2 3; do
  nice -n 5 $B run $S/bbr-random-loss.toml --seed $s --set links.bottleneck.loss=$p --out $O/bbr-$p-$s --quiet
  echo "bbr $p $s $(python3 -c "import json;d=json.load(open('$O/bbr-$p-$s/summary.json'));f=list(d['flows'].values())[0] if isinstance(d['flows'],dict) else d['flows'][0];print(f.get('goodput_bps'),round(f.get('goodput_bps')/(1-$p)/1e8,3),f.get('timeouts'),f.get('duplicate_segments'))")"
done; done
for s in 1 2 3; do
  nice -n 5 $B run $S/bbr-random-loss.toml --seed $s --set links.bottleneck.loss=0.001 --set tcp.variant=cubic --out $O/cubic-$s --quiet
  echo "cubic 0.001 $s $(python3 -c "import json;d=json.load(open('$O/cubic-$s/summary.json'));f=list(d['flows'].values())[0] if isinstance(d['flows'],dict) else d['flows'][0];print(f.get('goodput_bps'),f.get('timeouts'),f.get('duplicate_segments'))")"
done
nice -n 5 $B run $S/mixed-fq-codel.toml --seed 1 --out $O/mixed --quiet
python3 -c "
import csv
for r in csv.DictReader(open('$O/mixed/flows.csv')):
    print('mixed', r['flow'], round(float(r['goodput_bps'])/12.5e6, 3), 'of fair share;', r['duplicate_segments'], '/', r['segments_sent'], 'duplicates;', r['timeouts'], 'timeouts')
"
