#!/bin/bash
# bash docs/results/timing_investigation/unroll/run.sh on the GPU machine (nvcc only):
# compiles gen.py's sweep.cu for sm_90 and dumps its SASS.
D=docs/results/timing_investigation/unroll
cd $D && python3 gen.py && nvcc --version | tail -2 && nvcc -arch=sm_90 -cubin -o /tmp/sweep.cubin sweep.cu && cuobjdump -sass /tmp/sweep.cubin | gzip > $OUT/sweep_sass.txt.gz && cuobjdump -res-usage /tmp/sweep.cubin > $OUT/sweep_res.txt; echo rc=$?; python3 table.py $OUT/sweep_sass.txt.gz > $OUT/table.md
