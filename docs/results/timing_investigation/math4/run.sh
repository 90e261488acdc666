#!/bin/bash
# on the device, from the repository root: OUT=... bash docs/results/timing_investigation/math4/run.sh GPU
python3 docs/results/timing_investigation/math4/math4.py > $OUT/math4_$1.jsonl && tail -3 $OUT/math4_$1.jsonl
