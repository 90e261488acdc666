#!/bin/bash
# bash docs/results/timing_investigation/csrlat/run.sh GPU on the GPU machine
# (PYTHONPATH must hold the repository root and the wheels' site)
cd docs/results/timing_investigation/csrlat
export PYTHONPATH=$PYTHONPATH:$PWD
python3 sweep.py > $OUT/sweep_$1.jsonl 2> $OUT/sweep_$1.err
if [ "$NCU" = 1 ]; then
  for c in base r132 seq x64; do
    ncu --set full --import-source yes -o /tmp/csr_$c -f python3 sweep.py --once $c > /dev/null 2>&1
    ncu --import /tmp/csr_$c.ncu-rep --csv --page raw > $OUT/ncu_$c.csv 2>/dev/null
    ncu --import /tmp/csr_$c.ncu-rep --csv --page source --print-source sass > $OUT/src_$c.csv 2>/dev/null
  done
fi
cat $OUT/sweep_$1.jsonl | cut -c1-160
