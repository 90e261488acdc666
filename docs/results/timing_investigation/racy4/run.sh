#!/bin/bash
# NCU=1 bash docs/results/timing_investigation/racy4/run.sh: partial_mb.py's timings and
# (NCU=1) Nsight Compute's L1 / L2 counters for each case.
export PYTHONUNBUFFERED=1
D=docs/results/timing_investigation/racy4
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 $D/partial_mb.py > $OUT/partial_$G.jsonl; echo "partial rc=$?"
[ -n "$NCU" ] || exit 0
M=gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__m_l1tex2xbar_write_sectors.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors.max,lts__cycles_active.max
timeout 400 ncu --metrics $M --csv python3 $D/partial_mb.py $(python3 -c "import sys; sys.path.insert(0, '$D'); import partial_mb as m; print(' '.join(m.CASES))") > $OUT/ncu_partial_$G.csv 2>&1; echo "ncu rc=$?"
