#!/bin/bash
# bash docs/results/timing_investigation/fatom/run.sh GPU on the GPU machine (CuPy only)
cd docs/results/timing_investigation/fatom
python3 micro.py > $OUT/micro_$1.jsonl
if [ "$NCU" = 1 ]; then
  ncu --metrics gpu__time_duration.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_red.max,lts__t_sectors_op_atom.max,l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum --csv python3 micro.py --once > $OUT/ncu_micro_$1.csv 2>&1
fi
cat $OUT/micro_$1.jsonl
