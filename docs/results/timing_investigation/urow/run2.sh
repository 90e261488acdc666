#!/bin/bash
# bash docs/results/timing_investigation/urow/run2.sh, from the repository root on the GPU
# machine: $OUT/urow2_<gpu>.jsonl, $OUT/ncu_urow2_<gpu>.csv, $OUT/urow2_sass.txt
export PYTHONUNBUFFERED=1
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
D=docs/results/timing_investigation/urow
timeout 120 python3 $D/urow2.py > $OUT/urow2_$G.jsonl 2> $OUT/urow2_$G.err; echo "urow2 rc=$?"
M=gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__m_xbar2l1tex_read_sectors.sum,lts__t_sectors.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem,launch__registers_per_thread,sm__inst_executed.sum
timeout 150 ncu --metrics $M --csv python3 $D/urow2.py --once > $OUT/ncu_urow2_$G.csv 2>&1; echo "ncu rc=$?"
python3 $D/urow2.py --src > /tmp/urow2.cu && (cd /tmp && nvcc -arch=sm_90 -cubin -o urow2.cubin urow2.cu && cuobjdump -sass urow2.cubin > $OUT/urow2_sass.txt) || echo "nvcc failed"
tail -3 $OUT/urow2_$G.err
