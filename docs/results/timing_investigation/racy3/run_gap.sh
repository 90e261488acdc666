#!/bin/bash
# NCU=1 bash docs/results/timing_investigation/racy3/run_gap.sh: gap_mb.py's timings and
# (NCU=1) L1's store sectors against the sectors it sends toward L2, for each case.
export PYTHONUNBUFFERED=1
D=docs/results/timing_investigation/racy3
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 $D/gap_mb.py > $OUT/gap_$G.jsonl; echo "gap rc=$?"
[ -n "$NCU" ] || exit 0
M=gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__m_l1tex2xbar_write_sectors.sum,lts__t_sectors.max,lts__cycles_active.max
timeout 200 ncu --metrics $M --csv python3 $D/gap_mb.py $(python3 -c "import sys; sys.path.insert(0, '$D'); import gap_mb as m; print(' '.join(c[0] for c in m.CASES))") > $OUT/ncu_gap_$G.csv 2>&1; echo "ncu rc=$?"
