#!/bin/bash
# bash docs/results/timing_investigation/fchain/run4.sh, from the repository root on the GPU
# machine (CuPy only): $OUT/fchain4_<gpu>.jsonl
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
D=docs/results/timing_investigation/fchain
timeout 200 python3 $D/fchain4.py > $OUT/fchain4_$G.jsonl 2> $OUT/fchain4_$G.err; echo "fchain4 rc=$?"
tail -3 $OUT/fchain4_$G.err; cat $OUT/fchain4_$G.jsonl
