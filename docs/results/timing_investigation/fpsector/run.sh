#!/bin/bash
# bash docs/results/timing_investigation/fpsector/run.sh on the GPU machine (CuPy only)
cd docs/results/timing_investigation/fpsector
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 micro.py ${1:-} > $OUT/micro_$G.jsonl
cat $OUT/micro_$G.jsonl
