#!/bin/bash
# run from a clean copy of HEAD (the working tree may hold another engineer's edits)
R=$PWD; mkdir -p /tmp/head && tar xf .scratch_timing/head.tar -C /tmp/head && cp -r wheels .scratch_timing /tmp/head/ && cd /tmp/head
pip install -q --no-index --no-deps --target /tmp/site wheels/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
G=$1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
python -m kernels_cuda.timing_check measure --probes probe-unseen18 --out $OUT/p_unseen18_$G.json 2>&1 | tail -10
if [ "$NCU" = 1 ]; then
  (cd /tmp && nvcc -arch=sm_90 -cubin --pre-include cfloat -I/tmp/head -o p19.cubin /tmp/head/kernels_cuda/probes19.cu && cuobjdump -sass p19.cubin | gzip > $OUT/probes19_sass.txt.gz; cuobjdump -res-usage p19.cubin > $OUT/probes19_res.txt 2>&1) || echo "nvcc failed"
  M=gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sectors_op_red.max,lts__t_sectors_op_atom.max,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fp64.sum
  for id in sgemm-reg4x4 nchw-to-nhwc collatz hamming-u64 splitmix hist-double-direct count-newlines softplus-double; do
    timeout 120 ncu --metrics $M --csv python3 .scratch_timing/run_entry.py probe/$id 0 > $OUT/ncu_$id.csv 2>&1; echo "ncu $id rc=$?"
  done
  (cd $OUT && tar czf ncu18.tgz ncu_*.csv && rm ncu_*.csv)
fi
ls $OUT
