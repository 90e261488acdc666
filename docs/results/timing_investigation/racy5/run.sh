#!/bin/bash
# NCU=1 bash docs/results/timing_investigation/racy5/run.sh: unseen_mb.py's timings and
# (NCU=1) Nsight Compute's L1 / L2 counters for each case (one launch each).
export PYTHONUNBUFFERED=1
D=docs/results/timing_investigation/racy5
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 $D/unseen_mb.py > $OUT/unseen_$G.jsonl; echo "unseen rc=$?"
[ -n "$NCU" ] || exit 0
M=gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__m_l1tex2xbar_write_sectors.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors.max,dram__bytes_read.sum
timeout 300 ncu --metrics $M --csv python3 $D/unseen_mb.py $(python3 -c "import sys; sys.path.insert(0, '$D'); import unseen_mb as m; print(' '.join(c[0] for c in m.CASES))") > $OUT/ncu_unseen_$G.csv 2>&1; echo "ncu rc=$?"
