#!/bin/bash
# bash docs/results/timing_investigation/jds/run.sh, from the repository root on the GPU
# machine with .whl (pycparser, pcpp) carried: jds_mb.py's timings, and with NCU=1 Nsight
# Compute's counters for each case (one launch each).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
D=docs/results/timing_investigation/jds
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 $D/jds_mb.py > $OUT/jds_$G.jsonl; echo "jds rc=$?"
cat $OUT/jds_$G.jsonl
if [ "$NCU" = 1 ]; then
  M=gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__warps_issue_stalled_long_scoreboard.avg,smsp__warps_active.avg,dram__bytes_read.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__lsu_writeback_active.avg.pct_of_peak_sustained_active,l1tex__f_wavefronts.sum,lts__cycles_active.avg,lts__t_requests_srcunit_tex_op_read.sum
  for c in jds jds_nogather jds_gather_line jds_gather_4k jds_nodram jds_smem jds_const12; do
    timeout 120 ncu --metrics $M --csv python3 $D/jds_mb.py $c > $OUT/ncu_$c.csv 2>&1; echo "ncu $c rc=$?"
  done
  (cd $OUT && tar czf ncu_jds_$G.tgz ncu_*.csv && rm ncu_*.csv)
fi
ls $OUT
