#!/bin/bash
# bash docs/results/timing_investigation/walk/run_moved.sh, from the repository root on the GPU
# machine with .whl carried: Nsight Compute's DRAM bytes and L1 / L2 hit rates for the probes
# session 37's L1 and L2 changes moved most, one launch each (dram_moved_GPU.txt), to set
# beside simt's DRAM reads (dram_moved.py).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct
for id in search-sorted spmv-csr-scalar pagerank-pull integral-rows cumsum-rows-thread spmv-random-cols merge-pass-w32 key16-search eytzinger-search spmv-jds; do
  n=$(python3 -c "from kernels_cuda import timing_probes as t; print(t.get('probe/$id').n)")
  echo "== probe/$id $n"
  timeout 120 ncu --metrics $M --csv python3 docs/results/timing_investigation/run_entry.py probe/$id $n 2>&1 | grep -E '"(gpu__|l1tex__t_sector_hit|lts__t_sector_hit|dram__)' | awk -F'","' '{print $(NF-10), $(NF-2), $NF}'
done > $OUT/dram_moved_$G.txt
cat $OUT/dram_moved_$G.txt | head -80
