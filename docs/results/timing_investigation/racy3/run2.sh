#!/bin/bash
# NCU=1 bash docs/results/timing_investigation/racy3/run2.sh: merge2_mb.py's timings and
# (NCU=1) the same Nsight Compute counters as run.sh.
export PYTHONUNBUFFERED=1
D=docs/results/timing_investigation/racy3
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 $D/merge2_mb.py > $OUT/merge2_$G.jsonl; echo "merge2 rc=$?"
[ -n "$NCU" ] || exit 0
M=gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__m_l1tex2xbar_write_sectors.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors.max,lts__cycles_active.max
timeout 300 ncu --metrics $M --csv python3 $D/merge2_mb.py $(python3 -c "import sys; sys.path.insert(0, '$D'); import merge2_mb as m; print(' '.join(c[0] for c in m.CASES))") > $OUT/ncu_merge2_$G.csv 2>&1; echo "ncu rc=$?"
