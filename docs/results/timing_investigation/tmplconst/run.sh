#!/bin/bash
# bash docs/results/timing_investigation/tmplconst/run.sh on the GPU machine, with .whl and .carry
# carried; .carry/cupy_backend_old.py was `git show 25e329d:kernels_cuda/cupy_backend.py`, the
# backend before the fix, and .carry/whl2 the TUI's wheels (as unseen234/'s calls)
# the template-table fix: the new GPU test on the old backend (expected to fail) and the new one; re-time the four template probes with __constant__ tables; ncu two of them
T0=$(date +%s)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl .carry/whl2/*.whl >/dev/null 2>&1 || { echo pipfail; exit 1; }
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
R=/tmp/r; mkdir -p $R
cp kernels_cuda/cupy_backend.py /tmp/new_backend.py && cp .carry/cupy_backend_old.py kernels_cuda/cupy_backend.py
{ echo "# the old cupy_backend.py (25e329d):"; timeout 60 python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py -k template 2>&1 | tail -4
  cp /tmp/new_backend.py kernels_cuda/cupy_backend.py
  echo "# the fixed one:"; timeout 60 python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py -k template 2>&1 | tail -2; } > $R/template_test.txt
cat $R/template_test.txt; echo "t=$(( $(date +%s) - T0 ))"
python3 -m kernels_cuda.timing_check measure --probes probe/gauss-sep-fused probe/sonar-fdbf-towed-array-btr probe/volc-tephra2-fallout-const-unroll probe/drive-foc-pmsm-montecarlo-euler --out $R/p_template_h200.json 2>&1 | grep "ms  ("
echo "t=$(( $(date +%s) - T0 ))"; (cd $R && tar czf $OUT/r.tgz .)
M_=$(grep -o 'M=gpu[^ ]*' docs/results/timing_investigation/unseen234/run.sh | head -1 | cut -c3-)
for id in volc-tephra2-fallout-const-unroll drive-foc-pmsm-montecarlo-euler sonar-fdbf-towed-array-btr; do
  left=$(( 280 - ($(date +%s) - T0) )); [ $left -lt 25 ] && break
  timeout $(( left < 60 ? left - 5 : 60 )) ncu --metrics $M_ --csv python3 docs/results/timing_investigation/run_entry.py probe/$id 0 > $R/ncu_$id.csv 2>&1; echo "ncu $id rc=$?"
  (cd $R && tar czf $OUT/r.tgz .)
done
echo "t=$(( $(date +%s) - T0 ))"
