#!/bin/bash
# bash docs/results/timing_investigation/unseen244/run.sh, from the repository root on the
# GPU machine (a clean copy of the commit that holds predicted.json) with .whl (pycparser,
# pcpp) carried: times probe-unseen244 on whichever GPU this is; NCU=1 adds Nsight Compute
# counters and nvcc's SASS.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
echo "gpu $G"
python3 -m kernels_cuda.timing_check measure --probes probe-unseen244 --out $OUT/p_unseen244_$G.json 2>&1 | tail -30
if [ "$NCU" = 1 ]; then
  (cd /tmp && nvcc -arch=sm_90 -cubin -include cfloat -include climits -I/usr/local/cuda/include -o p246.cubin $OLDPWD/kernels_cuda/probes246.cu && cuobjdump -sass p246.cubin | gzip > $OUT/probes246_sass.txt.gz; cuobjdump -res-usage p246.cubin > $OUT/probes246_res.txt 2>&1) || echo "nvcc failed"
  M=gpu__time_duration.sum,smsp__inst_executed_pipe_fp64.sum,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_shared_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,idc__requests.sum,smsp__average_warp_latency_issue_stalled_barrier.ratio
  for id in cem-fdtd3d-h-cpml-smem-zmarch cem-huygens-dft-faces-gather cem-ntff-pattern-smem-struct cem-array-thinning-psll-warp cem-mom-tm-hankel-fill-transpose cem-ray-launch-coverage-atomics; do
    timeout 120 ncu --metrics $M --csv python3 docs/results/timing_investigation/run_entry.py probe/$id 0 > $OUT/ncu_$id.csv 2>&1; echo "ncu $id rc=$?"
  done
  (cd $OUT && tar czf ncu244.tgz ncu_*.csv && rm ncu_*.csv)
fi
ls $OUT
