#!/bin/bash
# bash docs/results/timing_investigation/walk/run_cg.sh, from the repository root on the GPU
# machine: the merge with its stores by __stcg (L2 only) beside the plain one, one launch a
# case (the ms printed) and Nsight Compute's L1 / L2 hit rates and DRAM bytes.
export PYTHONUNBUFFERED=1
W=docs/results/timing_investigation/walk
python3 $W/walk_mb.py merge_r64_k2 > /dev/null
M=gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum
for c in mergecg_r64_k2 mergecg_r64_k4 mergecg_r64_k6 mergecg_r64_k8 merge_r64_k4; do
  echo "== $c"; python3 $W/walk_mb.py $c | tail -1
  timeout 60 ncu --metrics $M --csv python3 $W/walk_mb.py $c 2>&1 | grep -E '"(gpu__|l1tex__t_sector_hit|lts__t_sector_hit|dram__)' | awk -F'","' '{print $(NF-2), $NF}'
done
