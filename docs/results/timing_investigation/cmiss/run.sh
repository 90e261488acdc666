#!/bin/bash
# bash docs/results/timing_investigation/cmiss/run.sh on the GPU machine: times cmiss.py's
# kernels and dumps the SASS of
# K = 7 in both layouts
D=docs/results/timing_investigation/cmiss
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 $D/cmiss.py > $OUT/cmiss_$G.jsonl 2> $OUT/cmiss_$G.err; echo "cmiss rc=$?"
python3 $D/cmiss.py --warps > $OUT/cmiss_warps_$G.jsonl 2>> $OUT/cmiss_$G.err; echo "cmiss --warps rc=$?"
for lay in sep rec; do
  python3 $D/cmiss.py --src 7 $lay > /tmp/cmiss7_$lay.cu
  (cd /tmp && nvcc -arch=sm_90 -cubin -o cmiss7_$lay.cubin cmiss7_$lay.cu && cuobjdump -sass cmiss7_$lay.cubin > $OUT/cmiss7_${lay}_sass.txt) || echo "nvcc failed"
done
tail -3 $OUT/cmiss_$G.err
