#!/bin/bash
# bash docs/results/timing_investigation/votes/run.sh, from the repository root on the GPU
# machine with .whl (pycparser, pcpp) carried: Nsight Compute's pipe and stall counters
# (sections ComputeWorkloadAnalysis, InstructionStats, WarpStateStats, raw page) for the
# probes whose warps vote most, into $OUT/votes_<gpu>.tgz: which pipe takes VOTE, and what
# holds probe/bitmat-transpose's warps back.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
mkdir -p /tmp/votes
for id in bitmat-transpose compact-ballot warp-radix-sort32 warp-hash-probe count-votes rule110-bits; do
  timeout 150 ncu --section ComputeWorkloadAnalysis --section InstructionStats --section WarpStateStats \
    --page raw --csv python3 docs/results/timing_investigation/run_entry.py probe/$id 0 > /tmp/votes/pipes_$id.csv 2>&1
  echo "ncu $id rc=$?"
done
(cd /tmp/votes && tar czf $OUT/votes_$G.tgz pipes_*.csv)
