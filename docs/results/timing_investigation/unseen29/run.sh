#!/bin/bash
# bash docs/results/timing_investigation/unseen29/run.sh GPU, from the repository root on
# the GPU machine, with .carry/head.tar (git archive of the commit that holds
# predicted.json) and .whl (pycparser, pcpp) carried; NCU=1 adds ncu counters and SASS.
R=$PWD; rm -rf /tmp/head && mkdir -p /tmp/head && tar xf .carry/head.tar -C /tmp/head && cd /tmp/head
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $R/.whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
G=$1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
python3 -m kernels_cuda.timing_check measure --probes probe-unseen29 --out $OUT/p_unseen29_$G.json 2>&1 | tail -10
if [ "$NCU" = 1 ]; then
  (cd /tmp && nvcc -arch=sm_90 -cubin -o p30.cubin /tmp/head/kernels_cuda/probes30.cu && cuobjdump -sass p30.cubin | gzip > $OUT/probes30_sass.txt.gz; cuobjdump -res-usage p30.cubin > $OUT/probes30_res.txt 2>&1) || echo "nvcc failed"
  M=gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sectors_op_red.max,lts__t_sectors_op_atom.max,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
  for id in morton3d persistent-chunks cic-deposit pcr-tridiag trilinear3d to-bf16-rne; do
    timeout 120 ncu --metrics $M --csv python3 docs/results/timing_investigation/run_entry.py probe/$id 0 > $OUT/ncu_$id.csv 2>&1; echo "ncu $id rc=$?"
  done
  (cd $OUT && tar czf ncu29.tgz ncu_*.csv && rm ncu_*.csv)
fi
ls $OUT
