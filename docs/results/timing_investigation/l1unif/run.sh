#!/bin/bash
# bash docs/results/timing_investigation/l1unif/run.sh GPU, from the repository root on the
# GPU machine, with .carry/head.tar (git archive of the commit) and .whl carried
R=$PWD; rm -rf /tmp/head && mkdir -p /tmp/head && tar xf .carry/head.tar -C /tmp/head && cd /tmp/head
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $R/.whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
G=$1; D=docs/results/timing_investigation/l1unif
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
(cd /tmp && nvcc -arch=sm_90 -cubin -o l1u.cubin /tmp/head/$D/l1unif.cu && cuobjdump -sass l1u.cubin | gzip > $OUT/l1unif_sass.txt.gz) || echo "nvcc failed"
python3 $D/l1unif.py > $OUT/l1unif_$G.jsonl; cat $OUT/l1unif_$G.jsonl
if [ "$NCU" = 1 ]; then
  ncu --set full --import-source yes -k knn_top8 -o /tmp/knn -f python3 docs/results/timing_investigation/run_entry.py probe/knn-top8 0 > /dev/null 2>&1; echo "ncu rc=$?"
  ncu --import /tmp/knn.ncu-rep --csv --page raw > $OUT/ncu_knn_raw.csv 2>/dev/null
  ncu --import /tmp/knn.ncu-rep --csv --page source --print-source sass > $OUT/ncu_knn_src.csv 2>/dev/null
  gzip $OUT/ncu_knn_*.csv
fi
ls -la $OUT
