#!/bin/bash
# bash docs/results/timing_investigation/fchain/run.sh, from the repository root on the GPU
# machine (CuPy only): $OUT/fchain_<gpu>.jsonl and $OUT/ncu_fchain_<gpu>.csv
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
D=docs/results/timing_investigation/fchain
timeout 200 python3 $D/fchain.py > $OUT/fchain_$G.jsonl 2> $OUT/fchain_$G.err; echo "fchain rc=$?"
M=gpu__time_duration.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_red.max,lts__t_requests_op_red.sum,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,lts__t_sectors_srcunit_tex_op_red_lookup_hit.sum
timeout 250 ncu --metrics $M --csv python3 $D/fchain.py --once > $OUT/ncu_fchain_$G.csv 2>&1; echo "ncu rc=$?"
tail -3 $OUT/fchain_$G.err; cat $OUT/fchain_$G.jsonl
