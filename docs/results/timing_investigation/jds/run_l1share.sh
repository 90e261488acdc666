#!/bin/bash
# bash docs/results/timing_investigation/jds/run_l1share.sh, from the repository root on the
# GPU machine: l1share_mb.py's timings, and Nsight Compute's L1 hit rate and L2 read
# requests for each case (one launch each).
export PYTHONUNBUFFERED=1
D=docs/results/timing_investigation/jds
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 $D/l1share_mb.py > $OUT/l1share_$G.jsonl; echo "l1share rc=$?"
M=gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
for c in $(python3 -c "import sys; sys.path.insert(0, '$D'); import l1share_mb as m; print(' '.join(c[0] for c in m.CASES))"); do
  timeout 60 ncu --metrics $M --csv python3 $D/l1share_mb.py $c > $OUT/ncu_l1share_$c.csv 2>&1 || echo "ncu $c failed"
done
(cd $OUT && tar czf ncu_l1share_$G.tgz ncu_l1share_*.csv && rm ncu_l1share_*.csv)
