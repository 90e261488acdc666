#!/bin/bash
# one device call: SASS, microbenchmarks, ncu of the target kernels
pip install -q --no-index --no-deps --target /tmp/site wheels/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
S=.scratch_timing
W=/tmp/inv; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $W/gpu.txt 2>&1
timeout 120 python3 $S/micro.py > $W/micro.jsonl 2> $W/micro.err; echo "micro rc=$?"
cat $W/micro.jsonl
NCU="ncu --set full --csv --page raw"
run() {  # tag id n kernel count
  timeout 100 $NCU --kernel-name "regex:^$4\$" --launch-count $5 -o $W/$1 -f python3 $S/run_entry.py $2 $3 > $W/$1.log 2>&1
  echo "$1 rc=$?"; tail -2 $W/$1.log
  ncu --import $W/$1.ncu-rep --csv --page raw > $W/$1.raw.csv 2>/dev/null
  ncu --import $W/$1.ncu-rep --csv --page source --print-source sass > $W/$1.src.csv 2>/dev/null
}
run histreg histogram/register 16777216 histogram_register 1
run histopt histogram/optimized-fixed 16777216 histogram_optimized_fixed 1
run redint reduction/interleaved 16777216 reduceShared 1
run redcont reduction/contiguous 16777216 reduceSharedContiguous 1
run divloop probe/divergent-loop 16777216 divergent_loop 1
run csrvec spmv/csr-vector 150131 spmv_csr_vector 2
run csrscal spmv/csr-scalar 4096 multiplicar_csr_kernel 1
rm -f $W/*.ncu-rep
tar czf $OUT/inv.tar.gz -C /tmp inv
ls -la $OUT
