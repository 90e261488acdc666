#!/bin/bash
# bash docs/results/timing_investigation/racy/run.sh GPU from the repository root on the GPU
# machine (.whl carried); NCU=1 adds Nsight Compute's L1/L2 counters for every case.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
G=$1; D=docs/results/timing_investigation/racy
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 300 python3 $D/sweep.py > $OUT/sweep_$G.jsonl 2> $OUT/sweep_$G.err; echo "sweep rc=$?"
if [ "$NCU" = 1 ]; then
  M=gpu__time_duration.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors.max,lts__cycles_active.max,lts__t_sectors_op_write.max,lts__t_sectors_op_read.max,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,dram__bytes_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active
  timeout 280 ncu --metrics $M --csv python3 $D/sweep.py --once $(python3 -c "
import sys; sys.path.insert(0,'$D'); import sweep; print(' '.join(c[0] for c in sweep.CASES))") > $OUT/ncu_sweep_$G.csv 2>&1; echo "ncu rc=$?"
fi
cat $OUT/sweep_$G.jsonl; tail -3 $OUT/sweep_$G.err
