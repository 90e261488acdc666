#!/bin/bash
# bash docs/results/timing_investigation/l1gather/run.sh, from the repository root on a GPU
# machine: l1gather.py [PATTERN ...] into $OUT/l1gather_<gpu>.jsonl
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
(cd docs/results/timing_investigation/l1gather && python3 l1gather.py "$@" > $OUT/l1gather_$G.jsonl)
cat $OUT/l1gather_$G.jsonl
