#!/bin/bash
# OUT=... bash docs/results/timing_investigation/uldc3/run.sh [KERNEL ...] on the GPU
# machine: times uldc3.cu (uldc3.py; all its kernels by default) and dumps nvcc's sm_90
# SASS of it.  uldc3_h200.jsonl: the first five kernels; uldc3b_h200.jsonl: the _bspread ones
D=docs/results/timing_investigation/uldc3
python3 $D/uldc3.py "$@" > $OUT/uldc3_h200.jsonl
(cd /tmp && nvcc -arch=sm_90 -cubin -o uldc3.cubin $OLDPWD/$D/uldc3.cu && cuobjdump -sass uldc3.cubin | gzip > $OUT/uldc3_sass.txt.gz) || echo "nvcc failed"
cat $OUT/uldc3_h200.jsonl
