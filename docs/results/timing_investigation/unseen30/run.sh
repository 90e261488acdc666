#!/bin/bash
# bash docs/results/timing_investigation/unseen30/run.sh GPU, from the repository root on
# the GPU machine (a clean copy of the commit that holds predicted.json) with .whl
# (pycparser, pcpp) carried: times probe-unseen30 and probe-curand, runs the GPU tests of
# curand and default arguments; NCU=1 adds Nsight Compute counters and nvcc's SASS.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
G=$1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
git log -1 --format=%H 2>/dev/null
python3 -m kernels_cuda.timing_check measure --probes probe-unseen30 probe-curand --out $OUT/p_unseen30_$G.json 2>&1 | tail -14
python3 -m pytest -q -m gpu tests/test_curand.py tests/test_default_args.py 2>&1 | tail -4
if [ "$NCU" = 1 ]; then
  for f in probes31 probes32; do
    (cd /tmp && nvcc -arch=sm_90 -cubin -I/usr/local/cuda/include -o $f.cubin $OLDPWD/kernels_cuda/$f.cu && cuobjdump -sass $f.cubin | gzip > $OUT/${f}_sass.txt.gz; cuobjdump -res-usage $f.cubin > $OUT/${f}_res.txt 2>&1) || echo "nvcc $f failed"
  done
  M=gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sectors_op_red.max,lts__t_sectors_op_atom.max,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_shared_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio
  for id in sha256-msgs im2col3x3 triangle-count jacobi-residual spmm-csr-warp point-in-polygon curand-init-id curand-init-deep xorwow-draws64 philox-draws64 xorwow-normals32 mc-pi; do
    timeout 120 ncu --metrics $M --csv python3 docs/results/timing_investigation/run_entry.py probe/$id 0 > $OUT/ncu_$id.csv 2>&1; echo "ncu $id rc=$?"
  done
  (cd $OUT && tar czf ncu30.tgz ncu_*.csv && rm ncu_*.csv)
fi
ls $OUT
