#!/bin/bash
# bash docs/results/timing_investigation/fchk/run.sh on the GPU machine: times each class
# (fchk_GPU.txt) and counts its SASS instructions under Nsight Compute (ncu_GPU.txt).
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 docs/results/timing_investigation/fchk/fchk.py > $OUT/fchk_$G.txt 2>&1
for c in normal zero_num negzero_num denorm_num tiny_quot huge_quot huge_den small_num inf_num zero_den big_num half_range; do
  echo "== $c"; ncu --metrics sm__inst_executed.sum,smsp__inst_executed_op_branch.sum --csv python3 docs/results/timing_investigation/fchk/fchk.py --one $c 2>&1 | grep -E 'div_class|mul_class' | grep inst_executed
done > $OUT/ncu_$G.txt 2>&1
tail -3 $OUT/fchk_$G.txt | head -2; cat $OUT/ncu_$G.txt | cut -c1-300 | head -40
