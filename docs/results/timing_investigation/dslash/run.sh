#!/bin/bash
# NCU=1 (or NCU2=1) bash docs/results/timing_investigation/dslash/run.sh, from the repository root on the
# GPU machine: dslash_mb.py's timings and (NCU=1) Nsight Compute's DRAM bytes, L1 and L2 hit
# rates and sector counts for each case (one launch each), and nvcc's SASS loads; NCU2=1: L1 wavefronts,
# throughputs and stall reasons for five cases.
export PYTHONUNBUFFERED=1
D=docs/results/timing_investigation/dslash
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 $D/dslash_mb.py > $OUT/dslash_$G.jsonl; echo "dslash rc=$?"
M2=l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,lts__t_sectors_srcunit_tex_lookup_miss.sum
if [ -n "$NCU" ]; then
for c in $(python3 -c "import sys; sys.path.insert(0, '$D'); import dslash_mb as m; print(' '.join(c[0] for c in m.CASES))"); do
  timeout 90 ncu --metrics $M --csv python3 $D/dslash_mb.py $c > $OUT/ncu_dslash_$c.csv 2>&1 || echo "ncu $c failed"
done
(cd $OUT && tar czf ncu_dslash_$G.tgz ncu_dslash_*.csv && rm ncu_dslash_*.csv)
python3 -c "import sys; sys.path.insert(0, '$D'); import dslash_mb as m; open('/tmp/dslash.cu','w').write(m.SRC)"
nvcc -cubin -arch=sm_90 -O3 -o /tmp/dslash.cubin /tmp/dslash.cu && cuobjdump -sass /tmp/dslash.cubin | grep -E "Function|LDG|STG" > $OUT/dslash_sass.txt
fi
# second call (session 38): the L1's wavefronts and throughputs, the stall reasons
if [ -n "$NCU2" ]; then
  for c in full fwd bwd stream mu3; do
    timeout 90 ncu --metrics $M2 --csv python3 $D/dslash_mb.py $c > $OUT/ncu2_dslash_$c.csv 2>&1 || echo "ncu2 $c failed"
  done
  (cd $OUT && tar czf ncu2_dslash_$G.tgz ncu2_dslash_*.csv && rm ncu2_dslash_*.csv)
fi
# third call (session 38): the probe's work at 1-3 blocks an SM
if [ -n "$NCU3" ]; then
  python3 $D/dslash_mb.py --all > $OUT/dslash3_$G.jsonl
  for c in full_b1 full_b2 full_b3; do
    timeout 90 ncu --metrics $M,l1tex__m_xbar2l1tex_read_sectors.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed --csv python3 $D/dslash_mb.py $c > $OUT/ncu3_dslash_$c.csv 2>&1 || echo "ncu3 $c failed"
  done
  (cd $OUT && tar czf ncu3_dslash_$G.tgz ncu3_dslash_*.csv && rm ncu3_dslash_*.csv)
fi
