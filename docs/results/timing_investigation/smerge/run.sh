#!/bin/bash
# bash docs/results/timing_investigation/smerge/run.sh, from the repository root on the GPU
# machine with .whl carried: timings into $OUT/smerge_<gpu>.jsonl, Nsight Compute's L1/L2
# store counters for the cases and for three probes with back-to-back strided stores into
# $OUT/ncu_smerge_<gpu>.csv, the SASS into $OUT/smerge_sass.txt
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
D=docs/results/timing_investigation/smerge
timeout 200 python3 $D/smerge.py > $OUT/smerge_$G.jsonl 2> $OUT/smerge_$G.err; echo "smerge rc=$?"
M=gpu__time_duration.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__m_l1tex2xbar_req.sum,l1tex__m_l1tex2xbar_write_sectors.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors.sum,dram__bytes_write.sum,dram__bytes_read.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
timeout 200 ncu --metrics $M --csv python3 $D/smerge.py --once > $OUT/ncu_smerge_$G.csv 2>&1; echo "ncu rc=$?"
for id in fem-p1-element-quad7 lbm-d2q9-aos-bounceback j2-secular-aos nerf-posenc-rowmajor; do
  timeout 120 ncu --metrics $M --csv python3 docs/results/timing_investigation/run_entry.py probe/$id 0 > $OUT/ncu_$id.csv 2>&1; echo "ncu $id rc=$?"
done
python3 $D/smerge.py --src > /tmp/smerge.cu && (cd /tmp && nvcc -arch=sm_90 -cubin -o smerge.cubin smerge.cu && cuobjdump -sass smerge.cubin > $OUT/smerge_sass.txt) || echo "nvcc failed"
tail -3 $OUT/smerge_$G.err
