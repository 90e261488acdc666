#!/bin/bash
# on the device, from the repository root: OUT=... bash docs/results/timing_investigation/math5/run.sh GPU
python3 docs/results/timing_investigation/math5/math5.py > $OUT/math5_$1.jsonl && tail -3 $OUT/math5_$1.jsonl
