#!/bin/bash
# bash docs/results/timing_investigation/fchain/run3.sh, from the repository root on the GPU
# machine (CuPy only): $OUT/fchain3_<gpu>.jsonl, $OUT/ncu_fchain3_<gpu>.csv
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
D=docs/results/timing_investigation/fchain
timeout 200 python3 $D/fchain3.py > $OUT/fchain3_$G.jsonl 2> $OUT/fchain3_$G.err; echo "fchain3 rc=$?"
M=gpu__time_duration.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_red.max
timeout 250 ncu --metrics $M --csv python3 $D/fchain3.py --once > $OUT/ncu_fchain3_$G.csv 2>&1; echo "ncu rc=$?"
tail -3 $OUT/fchain3_$G.err; cat $OUT/fchain3_$G.jsonl
