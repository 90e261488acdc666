#!/bin/bash
# NCU=1 bash docs/results/timing_investigation/atomret/run.sh, from the repository root on
# the GPU machine: timings into $OUT/atomret_<gpu>.jsonl, Nsight Compute's L2 atomic
# counters into $OUT/ncu_atomret_<gpu>.csv, the SASS's atomic instructions into $OUT/atomret_sass.txt
export PYTHONUNBUFFERED=1
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
D=docs/results/timing_investigation/atomret
timeout 200 python3 $D/atomret.py > $OUT/atomret_$G.jsonl 2> $OUT/atomret_$G.err; echo "atomret rc=$?"
cat $OUT/atomret_$G.jsonl
if [ "$NCU" = 1 ]; then
  M=gpu__time_duration.sum,lts__t_requests_op_atom.sum,lts__t_sectors_op_atom.sum,lts__t_requests_op_red.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.max,lts__t_sectors_op_red.max,lts__cycles_active.max,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
  timeout 200 ncu --metrics $M --csv python3 $D/atomret.py --once > $OUT/ncu_atomret_$G.csv 2>&1; echo "ncu rc=$?"
  python3 -c "import sys; sys.path.insert(0,'$D'); import atomret; print(atomret.SRC)" > /tmp/atomret.cu && (cd /tmp && nvcc -arch=sm_90 -cubin -o atomret.cubin atomret.cu && cuobjdump -sass atomret.cubin | grep -E "Function|ATOM|RED" > $OUT/atomret_sass.txt) || echo "nvcc failed"
fi
