#!/bin/bash
export PYTHONUNBUFFERED=1
pip install -q --no-index --no-deps --target /tmp/site wheels/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD
G=$1
nvidia-smi --query-gpu=name --format=csv,noheader
H=docs/results/timing_investigation/hloop
timeout 250 python $H/hloop_mb.py > $OUT/hloop_$G.jsonl 2>$OUT/hloop_$G.err; echo "hloop rc=$?"
timeout 200 python $H/hconv_mb.py > $OUT/hconv_$G.jsonl 2>$OUT/hconv_$G.err; echo "hconv rc=$?"
cat $OUT/*.jsonl | cut -c1-150; tail -n 3 $OUT/*.err
