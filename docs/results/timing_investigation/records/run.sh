#!/bin/bash
# bash docs/results/timing_investigation/records/run.sh GPU from the repository root on the
# GPU machine; NCU=1 adds Nsight Compute's L1/L2 store counters and the SASS of unroll.cu
export PYTHONUNBUFFERED=1
G=$1; D=docs/results/timing_investigation/records
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 200 python3 $D/records.py > $OUT/records_$G.jsonl 2> $OUT/records_$G.err; echo "records rc=$?"
if [ "$NCU" = 1 ]; then
  IDS=$(python3 -c "
import sys; sys.path.insert(0,'$D'); import records; print(' '.join(c[0] for c in records.CASES))")
  M=gpu__time_duration.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__m_l1tex2xbar_req.sum,l1tex__m_l1tex2xbar_write_sectors.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__data_pipe_lsu_wavefronts.sum,dram__bytes_write.sum,lts__t_sectors.max,lts__cycles_active.avg
  timeout 200 ncu --metrics $M --csv python3 $D/records.py --once $IDS > $OUT/ncu_records_$G.csv 2>&1; echo "ncu rc=$?"
  (cd /tmp && nvcc -arch=sm_90 -cubin -o unroll.cubin $OLDPWD/$D/unroll.cu && cuobjdump -sass unroll.cubin > $OUT/unroll_sass.txt) || echo "nvcc failed"
fi
cat $OUT/records_$G.jsonl; tail -3 $OUT/records_$G.err
