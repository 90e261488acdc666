#!/bin/bash
# bash docs/results/timing_investigation/urow/run.sh, from the repository root on the GPU
# machine with .whl carried: $OUT/urow_<gpu>.jsonl, $OUT/ncu_urow_<gpu>.csv, $OUT/urow_sass.txt
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
D=docs/results/timing_investigation/urow
timeout 200 python3 $D/urow.py > $OUT/urow_$G.jsonl 2> $OUT/urow_$G.err; echo "urow rc=$?"
M=gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__m_xbar2l1tex_read_sectors.sum,lts__t_sectors.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem,launch__registers_per_thread,sm__inst_executed.sum
timeout 250 ncu --metrics $M --csv python3 $D/urow.py --once > $OUT/ncu_urow_$G.csv 2>&1; echo "ncu rc=$?"
python3 $D/urow.py --src > /tmp/urow.cu && (cd /tmp && nvcc -arch=sm_90 -cubin -o urow.cubin urow.cu && cuobjdump -sass urow.cubin > $OUT/urow_sass.txt) || echo "nvcc failed"
tail -3 $OUT/urow_$G.err
