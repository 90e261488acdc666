#!/bin/bash
# bash docs/results/timing_investigation/pstore/run.sh, from the repository root on the GPU
# machine: pstore.py's timings into $OUT/pstore_<gpu>.jsonl and Nsight Compute's L1/L2
# counters for ten of its launches into $OUT/ncu_pstore_<gpu>.csv.
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
cd docs/results/timing_investigation/pstore
python3 pstore.py > $OUT/pstore_$G.jsonl; cat $OUT/pstore_$G.jsonl
M=gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__m_l1tex2xbar_write_sectors.sum,lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum,lts__t_sectors.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__cycles_active.avg,lts__cycles_active.max
ncu --metrics $M --csv python3 pstore_ncu.py > $OUT/ncu_pstore_$G.csv 2>&1; echo "ncu rc=$?"
# pstore2.cu: the same partial-sector stores back to back (AoS records) and a trip apart
# (in session 31 this ran in a call of its own, after the lines above)
python3 pstore2.py > $OUT/pstore2_$G.jsonl; cat $OUT/pstore2_$G.jsonl
