#!/bin/bash
# bash docs/results/timing_investigation/mlp/run.sh, from the repository root on the GPU
# machine: the few-SM streaming sweep (mlp/) and the grouped-reduction sweep (redgroups/).
D=docs/results/timing_investigation
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 $D/mlp/mlp_mb.py > $OUT/mlp_$G.jsonl; echo "mlp rc=$?"
python3 $D/redgroups/redgroups_mb.py > $OUT/redgroups_$G.jsonl; echo "redgroups rc=$?"
cat $OUT/*.jsonl
