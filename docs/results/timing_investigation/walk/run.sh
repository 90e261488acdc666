#!/bin/bash
# NCU=1 bash docs/results/timing_investigation/walk/run.sh, from the repository root on the GPU
# machine: walk_mb.py's and ../bfsq/bfsq_mb.py's timings, and (NCU=1) Nsight Compute's L1 and
# L2 hit rates, DRAM bytes and atomic counts for each case (one launch each).
export PYTHONUNBUFFERED=1
W=docs/results/timing_investigation/walk
B=docs/results/timing_investigation/bfsq
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 $W/walk_mb.py > $OUT/walk_$G.jsonl; echo "walk rc=$?"
python3 $B/bfsq_mb.py > $OUT/bfsq_$G.jsonl; echo "bfsq rc=$?"
[ -n "$NCU" ] || exit 0
M=gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sector_hit_rate.pct,lts__t_sectors.sum,lts__t_sectors.max,lts__t_requests_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,lts__t_requests_op_atom.sum,lts__t_requests_op_red.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,lts__cycles_active.max
for c in $(python3 -c "import sys; sys.path.insert(0, '$W'); import walk_mb as m; print(' '.join(c[0] for c in m.CASES))"); do
  timeout 60 ncu --metrics $M --csv python3 $W/walk_mb.py $c > $OUT/ncu_walk_$c.csv 2>&1 || echo "ncu $c failed"
done
for c in full hoist red cas_only lane_add load_only; do
  timeout 90 ncu -k regex:$c --metrics $M --csv python3 $B/bfsq_mb.py $c > $OUT/ncu_bfsq_$c.csv 2>&1 || echo "ncu $c failed"
done
(cd $OUT && tar czf ncu_walk_$G.tgz ncu_walk_*.csv ncu_bfsq_*.csv && rm ncu_*.csv)
python3 -c "import sys; sys.path.insert(0, '$W'); import walk_mb as m; open('/tmp/walk.cu','w').write(m.SRC)"
nvcc -cubin -arch=sm_90 -O3 -o /tmp/walk.cubin /tmp/walk.cu && cuobjdump -sass /tmp/walk.cubin | grep -E "Function|LDG|STG|BRA|ISETP" > $OUT/walk_sass.txt
