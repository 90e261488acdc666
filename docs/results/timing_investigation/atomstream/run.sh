#!/bin/bash
# bash docs/results/timing_investigation/atomstream/run.sh  (GPU machine, repository root)
python3 docs/results/timing_investigation/atomstream/atomstream.py > $OUT/atomstream_h200.jsonl
nvcc -arch=sm_90 -cubin -o /tmp/as.cubin docs/results/timing_investigation/atomstream/atomstream.cu && cuobjdump -sass /tmp/as.cubin | gzip > $OUT/atomstream_sass.txt.gz
cat $OUT/atomstream_h200.jsonl
