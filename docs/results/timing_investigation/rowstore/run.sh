#!/bin/bash
# NCU=1 bash docs/results/timing_investigation/rowstore/run.sh, from the repository root on
# the GPU machine: rowstore_mb.py's timings and (NCU=1) Nsight Compute's DRAM bytes, L2
# sectors and hit rates for each case (one launch each), and the kernels' SASS.
export PYTHONUNBUFFERED=1
W=docs/results/timing_investigation/rowstore
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 $W/rowstore_mb.py > $OUT/rowstore_$G.jsonl; echo "rowstore rc=$?"
[ -n "$NCU" ] || exit 0
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sectors_op_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,lts__cycles_active.max,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_drain.ratio
for c in $(python3 -c "import sys; sys.path.insert(0, '$W'); import rowstore_mb as m; print(' '.join(c[0] for c in m.CASES))"); do
  timeout 60 ncu --metrics $M --csv python3 $W/rowstore_mb.py $c > $OUT/ncu_rowstore_$c.csv 2>&1 || echo "ncu $c failed"
done
(cd $OUT && tar czf ncu_rowstore_$G.tgz ncu_rowstore_*.csv && rm ncu_rowstore_*.csv)
python3 -c "import sys; sys.path.insert(0, '$W'); import rowstore_mb as m; open('/tmp/rs.cu','w').write(m.SRC)"
nvcc -cubin -arch=sm_90 -O3 -o /tmp/rs.cubin /tmp/rs.cu && cuobjdump -sass /tmp/rs.cubin | grep -E "Function|STG|BRA|MUFU" > $OUT/rowstore_sass.txt
