#!/bin/bash
# bash docs/results/timing_investigation/sortscatter/run.sh on the GPU machine, .whl carried
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 docs/results/timing_investigation/sortscatter/micro.py > $OUT/micro_$G.jsonl
cat $OUT/micro_$G.jsonl
