#!/bin/bash
# OUT=... bash docs/results/timing_investigation/cscat/run.sh on the GPU machine: times
# cscat.cu (cscat.py) and dumps nvcc's sm_90 SASS of it
D=docs/results/timing_investigation/cscat
python3 $D/cscat.py > $OUT/cscat_h200.jsonl
(cd /tmp && nvcc -arch=sm_90 -cubin -o cscat.cubin $OLDPWD/$D/cscat.cu && cuobjdump -sass cscat.cubin | gzip > $OUT/cscat_sass.txt.gz) || echo "nvcc failed"
cat $OUT/cscat_h200.jsonl
