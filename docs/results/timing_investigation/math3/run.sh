#!/bin/bash
# on the device, from a clean copy of HEAD: bash docs/results/timing_investigation/math3/run.sh GPU
mkdir -p /tmp/head && tar xf .scratch_timing/head.tar -C /tmp/head && cd /tmp/head
python docs/results/timing_investigation/math3/math3.py > $OUT/math3_$1.jsonl && tail -3 $OUT/math3_$1.jsonl
