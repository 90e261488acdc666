#!/bin/bash
# bash docs/results/timing_investigation/unroll3/variants.sh, from the repository root on
# a machine with nvcc (the device machine): sm_90 SASS of variants.cu into $OUT.
set -e
D=$(dirname "$0")
nvcc --version | tail -2
(cd /tmp && nvcc -arch=sm_90 -cubin -o v.cubin "$OLDPWD/$D/variants.cu" && cuobjdump -sass v.cubin | gzip > "$OUT/variants_sass.txt.gz"; cuobjdump -res-usage v.cubin > "$OUT/variants_res.txt" 2>&1)
ls -l "$OUT"
