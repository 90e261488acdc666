#!/bin/bash
# bash docs/results/timing_investigation/cbig/run.sh on the GPU machine (CuPy only)
cd docs/results/timing_investigation/cbig
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 cbig.py > $OUT/cbig_$G.jsonl
nvcc -arch=sm_90 -cubin -o /tmp/cbig.cubin -x cu <(python3 -c "import cbig; print(cbig.SRC)") && cuobjdump -sass /tmp/cbig.cubin | grep -E "LDC|BRA" | head -20 > $OUT/cbig_sass.txt
cat $OUT/cbig_$G.jsonl
