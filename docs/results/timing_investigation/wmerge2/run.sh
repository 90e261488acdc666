#!/bin/bash
# NCU=1 bash docs/results/timing_investigation/wmerge2/run.sh, from the repository root on
# the GPU machine: timings into $OUT/wmerge_<gpu>.jsonl, Nsight Compute's L1/L2 store
# counters into $OUT/ncu_wmerge2_<gpu>.csv, the SASS into $OUT/wmerge2_sass.txt
export PYTHONUNBUFFERED=1
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
D=docs/results/timing_investigation/wmerge2
timeout 200 python3 $D/wmerge2.py > $OUT/wmerge2_$G.jsonl 2> $OUT/wmerge2_$G.err; echo "wmerge rc=$?"
if [ "$NCU" = 1 ]; then
  M=gpu__time_duration.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__m_l1tex2xbar_req.sum,l1tex__m_l1tex2xbar_write_sectors.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__cycles_active.max,dram__bytes_write.sum,dram__bytes_read.sum,lts__t_sectors.sum,lts__t_sectors_op_write.sum
  timeout 300 ncu --metrics $M --csv python3 $D/wmerge2.py --once > $OUT/ncu_wmerge2_$G.csv 2>&1; echo "ncu rc=$?"
  python3 $D/wmerge2.py --src > /tmp/wmerge2.cu && (cd /tmp && nvcc -arch=sm_90 -cubin -o wmerge2.cubin wmerge2.cu && cuobjdump -sass wmerge2.cubin > $OUT/wmerge2_sass.txt) || echo "nvcc failed"
fi
tail -3 $OUT/wmerge2_$G.err
# the two probes that motivated this, with the same store counters (needs .whl carried)
if [ "$NCU" = 1 ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
  for id in fem-p1-element-quad7 lbm-d2q9-aos-bounceback; do
    PYTHONPATH=/tmp/site:$PWD timeout 120 ncu --metrics $M --csv python3 docs/results/timing_investigation/run_entry.py probe/$id 0 > $OUT/ncu_probe_$id.csv 2>&1; echo "ncu $id rc=$?"
  done
fi
