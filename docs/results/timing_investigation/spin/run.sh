#!/bin/bash
# bash docs/results/timing_investigation/spin/run.sh, from the repository root on the GPU
# machine with .whl (pycparser, pcpp) carried: the shared-memory float atomicAdd sweep
# (spin_mb.py) with Nsight Compute's counts, and cal_dfma (the FP64 pipe's rate) measured
# into this GPU's profile by `simt calibrate --real --update`.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
D=docs/results/timing_investigation/spin
python3 -m kernels_cuda.calibrate --real --update simt/profiles/$G.json --only dfma --out $OUT/$G.json > /dev/null; echo "calibrate rc=$?"
python3 $D/spin_mb.py > $OUT/spin_$G.jsonl; echo "spin rc=$?"
ncu -k spin --metrics smsp__inst_executed.sum,smsp__inst_executed_op_shared_atom.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,gpu__time_duration.sum --csv \
    python3 $D/spin_mb.py --once > $OUT/ncu_spin_$G.csv 2>&1; echo "ncu rc=$?"
ls $OUT
