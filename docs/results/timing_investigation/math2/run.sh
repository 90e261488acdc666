#!/bin/bash
# on the device, from a clean copy of HEAD: bash docs/results/timing_investigation/math2/run.sh GPU
mkdir -p /tmp/head && tar xf .scratch_timing/head.tar -C /tmp/head && cd /tmp/head
python docs/results/timing_investigation/math2/math2.py > $OUT/math2_$1.jsonl && tail -3 $OUT/math2_$1.jsonl
