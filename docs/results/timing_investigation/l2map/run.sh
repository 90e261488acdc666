#!/bin/bash
# bash docs/results/timing_investigation/l2map/run.sh GPU from the repository root on the GPU machine
G=$1; D=docs/results/timing_investigation/l2map
nvidia-smi --query-gpu=name --format=csv,noheader
# windows of one buffer: its start (64 KiB), then 32 KiB at 2 MiB + 64 KiB and at 100 MiB + 8 KiB
timeout 540 python3 $D/map.py 512 0 > $OUT/map_$G.jsonl 2> $OUT/map_$G.err; echo "rc=$?"
timeout 300 python3 $D/map.py 256 2162688 104865792 >> $OUT/map_$G.jsonl 2>> $OUT/map_$G.err; echo "rc=$?"
python3 -c "
import json
for l in open('$OUT/map_$G.jsonl'):
    j = json.loads(l); print({k: v for k, v in j.items() if k not in ('slice', 'ratio')})
"; tail -3 $OUT/map_$G.err
