#!/bin/bash
# NCU=1 bash docs/results/timing_investigation/wmerge3/run.sh, from the repository root on
# the GPU machine: timings into $OUT/wmerge_<gpu>.jsonl, Nsight Compute's L1/L2 store
# counters into $OUT/ncu_wmerge3_<gpu>.csv, the SASS into $OUT/wmerge3_sass.txt
export PYTHONUNBUFFERED=1
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
D=docs/results/timing_investigation/wmerge3
timeout 200 python3 $D/wmerge3.py > $OUT/wmerge3_$G.jsonl 2> $OUT/wmerge3_$G.err; echo "wmerge rc=$?"
if [ "$NCU" = 1 ]; then
  M=gpu__time_duration.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__m_l1tex2xbar_req.sum,l1tex__m_l1tex2xbar_write_sectors.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__cycles_active.max,dram__bytes_write.sum,dram__bytes_read.sum,lts__t_sectors.sum,lts__t_sectors_op_write.sum
  timeout 300 ncu --metrics $M --csv python3 $D/wmerge3.py --once > $OUT/ncu_wmerge3_$G.csv 2>&1; echo "ncu rc=$?"
  python3 $D/wmerge3.py --src > /tmp/wmerge3.cu && (cd /tmp && nvcc -arch=sm_90 -cubin -o wmerge3.cubin wmerge3.cu && cuobjdump -sass wmerge3.cubin > $OUT/wmerge3_sass.txt) || echo "nvcc failed"
fi
tail -3 $OUT/wmerge3_$G.err
