#!/bin/bash
# run from a clean copy of HEAD (the working tree may hold another engineer's edits)
R=$PWD; mkdir -p /tmp/head && tar xf .scratch_timing/head.tar -C /tmp/head && cp -r wheels .scratch_timing /tmp/head/ && cd /tmp/head
pip install -q --no-index --no-deps --target /tmp/site wheels/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
G=$1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
python -m kernels_cuda.timing_check measure --probes probe-unseen17 --out $OUT/p_unseen17_$G.json 2>&1 | tail -8
if [ "$NCU" = 1 ]; then
  (cd /tmp && nvcc -arch=sm_90 -cubin --pre-include cfloat -I/tmp/head -o p18.cubin /tmp/head/kernels_cuda/probes18.cu && cuobjdump -sass p18.cubin | gzip > $OUT/probes18_sass.txt.gz; cuobjdump -res-usage p18.cubin > $OUT/probes18_res.txt 2>&1) || echo "nvcc failed"
  M=gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,sm__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
  for e in hist64-u8:16777216 hist1024-i32:16777216 hist128-weighted:16777216 count-above:16777216 dot-warp-atomic:16777216 minmax-block:16777216 quarter-sums:16777216; do
    id=probe/${e%%:*}; n=${e##*:}
    timeout 90 ncu --metrics $M --csv python3 .scratch_timing/run_entry.py $id $n > $OUT/ncu_${e%%:*}.csv 2>&1; echo "ncu $id rc=$?"
  done
  (cd $OUT && tar czf ncu17.tgz ncu_*.csv && rm ncu_*.csv)
fi
python -m pytest -q -m gpu -p no:cacheprovider tests/test_struct_arrays.py > $OUT/pytest_struct_arrays_$G.txt 2>&1; echo "struct-array gpu tests rc=$?"; tail -3 $OUT/pytest_struct_arrays_$G.txt
ls $OUT
