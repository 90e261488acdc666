#!/bin/bash
# bash docs/results/timing_investigation/fchain/run2.sh, from the repository root on the GPU
# machine (CuPy only): $OUT/fchain2_<gpu>.jsonl, $OUT/ncu_fchain2_<gpu>.csv (per-slice values)
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
D=docs/results/timing_investigation/fchain
timeout 200 python3 $D/fchain2.py > $OUT/fchain2_$G.jsonl 2> $OUT/fchain2_$G.err; echo "fchain2 rc=$?"
M=gpu__time_duration.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_red.max
timeout 250 ncu --metrics $M --print-metric-instances values --csv python3 $D/fchain2.py --once > $OUT/ncu_fchain2_$G.csv 2>&1; echo "ncu rc=$?"
tail -3 $OUT/fchain2_$G.err; cat $OUT/fchain2_$G.jsonl; ncu --version | tail -1
