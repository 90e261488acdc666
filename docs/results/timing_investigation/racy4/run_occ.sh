#!/bin/bash
# NCU=1 bash docs/results/timing_investigation/racy4/run_occ.sh: occ_mb.py's timings and
# (NCU=1) Nsight Compute's L1 / L2 counters and warp states for each case, then the
# catalog's histogram/naive and naive-u8 kernels' warp states at 2^24 (simt run --real).
export PYTHONUNBUFFERED=1
D=docs/results/timing_investigation/racy4
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 $D/occ_mb.py > $OUT/occ_$G.jsonl; echo "occ rc=$?"
[ -n "$NCU" ] || exit 0
M=gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__m_l1tex2xbar_write_sectors.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors.max,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warp_latency_per_inst_issued.ratio,smsp__inst_executed.sum
timeout 400 ncu --metrics $M --csv python3 $D/occ_mb.py $(python3 -c "import sys; sys.path.insert(0, '$D'); import occ_mb as m; print(' '.join(m.CASES))") > $OUT/ncu_occ_$G.csv 2>&1; echo "ncu rc=$?"
