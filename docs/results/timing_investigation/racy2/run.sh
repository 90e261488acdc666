#!/bin/bash
# bash docs/results/timing_investigation/racy2/run.sh GPU from the repository root on the GPU
# machine (.whl carried); NCU=1 adds Nsight Compute's L1/L2 counters for every case.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
G=$1; D=docs/results/timing_investigation/racy2
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 200 python3 $D/sweep2.py > $OUT/sweep2_$G.jsonl 2> $OUT/sweep2_$G.err; echo "sweep rc=$?"
if [ "$NCU" = 1 ]; then
  ncu --query-metrics --chip gh100 2>&1 | grep -E '^(l1tex__m_|lts__t_requests_srcunit_tex|lts__t_sectors_srcunit_tex|lts__d_|lts__xbar)' > $OUT/metrics_$G.txt
  IDS=$(python3 -c "
import sys; sys.path.insert(0,'$D'); import sweep2; print(' '.join(c[0] for c in sweep2.CASES))")
  M=gpu__time_duration.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors.max,lts__cycles_active.max,lts__t_requests_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  timeout 150 ncu --metrics $M --csv python3 $D/sweep2.py --once $IDS > $OUT/ncu_a_$G.csv 2>&1; echo "ncu a rc=$?"
  M2=l1tex__m_l1tex2xbar_write_sectors.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__m_l1tex2xbar_req.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum
  timeout 150 ncu --metrics $M2 --csv python3 $D/sweep2.py --once $IDS > $OUT/ncu_b_$G.csv 2>&1; echo "ncu b rc=$?"
  tail -3 $OUT/ncu_b_$G.csv
fi
cat $OUT/sweep2_$G.jsonl; tail -3 $OUT/sweep2_$G.err
