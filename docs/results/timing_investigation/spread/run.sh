#!/bin/bash
# bash docs/results/timing_investigation/spread/run.sh, from the repository root on a GPU
# machine: spread.py into $OUT/spread_<gpu>.jsonl
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
(cd docs/results/timing_investigation/spread && python3 spread.py > $OUT/spread_$G.jsonl)
cat $OUT/spread_$G.jsonl
