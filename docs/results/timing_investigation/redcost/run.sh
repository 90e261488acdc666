#!/bin/bash
# from the repository root: bash docs/results/timing_investigation/redcost/run.sh GPU (NCU=1 for counters)
pip install -q --no-index --no-deps --target /tmp/site wheels/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
G=$1; D=docs/results/timing_investigation/redcost
timeout 200 python $D/redcost_mb.py > $OUT/redcost_$G.jsonl 2>&1; echo "mb rc=$?"
if [ "$NCU" = 1 ]; then
  M=gpu__time_duration.sum,lts__t_sectors_op_red.sum,lts__t_requests_op_red.sum,lts__t_sectors_op_red.max,lts__cycles_active.max,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum
  timeout 200 ncu --metrics $M --csv python $D/redcost_mb.py --once > $OUT/ncu_redcost_$G.csv 2>&1; echo "ncu rc=$?"
fi
cat $OUT/redcost_$G.jsonl
