#!/bin/bash
# session 16, call 1: hloop (shared ops in a load loop) and naive width sweep, one GPU
export PYTHONUNBUFFERED=1
pip install -q --no-index --no-deps --target /tmp/site wheels/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD
G=$1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
H=docs/results/timing_investigation/hloop
N=docs/results/timing_investigation/naive_u8
timeout 240 python $H/hloop_mb.py > $OUT/hloop_$G.jsonl 2>$OUT/hloop_$G.err; echo "hloop rc=$?"
timeout 120 python $N/width_mb.py > $OUT/width_$G.jsonl 2>$OUT/width_$G.err; echo "width rc=$?"
if [ "$NCU" = 1 ]; then
  python $H/hloop_mb.py --src > /tmp/hl.cu && nvcc -cubin -arch=sm_90 -o /tmp/hl.cubin /tmp/hl.cu && cuobjdump -sass /tmp/hl.cubin | grep -E "Function|^\s+/\*[0-9a-f]{4}\*/" > $OUT/hloop_sass.txt; echo "sass rc=$?"
  timeout 150 ncu --section WarpStateStats --section SchedulerStats --csv python $H/hloop_mb.py --once > $OUT/ncu_hloop_$G.csv 2>&1; echo "ncu hloop rc=$?"
  M=gpu__time_duration.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors.max,lts__cycles_active.max,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,dram__bytes_read.sum
  timeout 150 ncu --metrics $M --csv python $N/width_mb.py --once > $OUT/ncu_width_$G.csv 2>&1; echo "ncu width rc=$?"
fi
cat $OUT/hloop_$G.jsonl $OUT/width_$G.jsonl; tail -3 $OUT/*.err
