#!/bin/bash
# bash docs/results/timing_investigation/uldc/run.sh on the GPU machine: times uldc.cu
# (uldc.py) and dumps nvcc's sm_90 SASS of it
D=docs/results/timing_investigation/uldc
python3 $D/uldc.py > $OUT/uldc_h200.jsonl
(cd /tmp && nvcc -arch=sm_90 -cubin -o uldc.cubin $OLDPWD/$D/uldc.cu && cuobjdump -sass uldc.cubin | gzip > $OUT/uldc_sass.txt.gz) || echo "nvcc failed"
cat $OUT/uldc_h200.jsonl
