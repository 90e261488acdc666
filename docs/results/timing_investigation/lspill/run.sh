#!/bin/bash
# NCU=1 bash docs/results/timing_investigation/lspill/run.sh: spill_mb.py's timings and
# (NCU=1) Nsight Compute's DRAM, L2 and L1 counters for each case, and the kernels' SASS
# resources.
export PYTHONUNBUFFERED=1
D=docs/results/timing_investigation/lspill
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 $D/spill_mb.py > $OUT/spill_$G.jsonl; echo "spill rc=$?"
[ -n "$NCU" ] || exit 0
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem,smsp__inst_executed.sum
timeout 400 ncu --metrics $M --csv python3 $D/spill_mb.py $(python3 -c "import sys; sys.path.insert(0, '$D'); import spill_mb as m; print(' '.join(m.CASES))") > $OUT/ncu_spill_$G.csv 2>&1; echo "ncu rc=$?"
python3 -c "import sys; sys.path.insert(0, '$D'); import spill_mb as m; open('/tmp/spill.cu','w').write(m.SRC)" && nvcc -arch=sm_90 -cubin -o /tmp/spill.cubin /tmp/spill.cu && cuobjdump -res-usage /tmp/spill.cubin > $OUT/spill_res.txt 2>&1
