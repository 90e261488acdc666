#!/bin/bash
# bash docs/results/timing_investigation/unseen38/run.sh, from the repository root on the
# GPU machine (a clean copy of the commit that holds predicted.json) with .whl (pycparser,
# pcpp) carried: times probe-unseen38 on whichever GPU this is (and, on an H200, the
# families no H200 has timed yet, and the microbenchmarks the H200 profile lacks); NCU=1 adds Nsight Compute counters and nvcc's SASS.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
echo "gpu $G"
FAM="probe-unseen38"
[ "$G" = h200 ] && FAM="$FAM probe-unseen30 probe-curand probe-unseen31 probe-unseen32 probe-unseen33 probe-unseen34 probe-unseen35 probe-unseen36 probe-unseen37"
python3 -m kernels_cuda.timing_check measure --probes $FAM --out $OUT/p_unseen38_$G.json 2>&1 | tail -30
[ "$G" = h200 ] && python3 -m kernels_cuda.calibrate --real --update simt/profiles/h200.json --out $OUT/h200.json >/dev/null
if [ "$NCU" = 1 ]; then
  (cd /tmp && nvcc -arch=sm_90 -cubin -I/usr/local/cuda/include -o p40.cubin $OLDPWD/kernels_cuda/probes40.cu && cuobjdump -sass p40.cubin | gzip > $OUT/probes40_sass.txt.gz; cuobjdump -res-usage p40.cubin > $OUT/probes40_res.txt 2>&1) || echo "nvcc failed"
  M=gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_shared_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,idc__requests.sum
  for id in bitmat-transpose gray-scott rgb-to-yuv420 trapz-integrate col-softmax; do
    timeout 120 ncu --metrics $M --csv python3 docs/results/timing_investigation/run_entry.py probe/$id 0 > $OUT/ncu_$id.csv 2>&1; echo "ncu $id rc=$?"
  done
  (cd $OUT && tar czf ncu38.tgz ncu_*.csv && rm ncu_*.csv)
fi
ls $OUT
# on an H200, the barrier microbenchmarks too (timing_investigation/barred/)
[ "$G" = h200 ] && (cd docs/results/timing_investigation/barred && python3 barred.py > $OUT/barred_h200.jsonl)
