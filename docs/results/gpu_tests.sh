#!/bin/bash
# bash docs/results/gpu_tests.sh, from the repository root on a GPU machine with .whl
# (pycparser, pcpp, textual's wheels if the TUI test should run) carried: the GPU tests
# into $OUT/pytest_gpu_<gpu>.txt and, on an H200, the probe families no H200 has timed
# yet (the families docs/results/timing_probes_measured_h200.json lists as unmeasured)
# into $OUT/p_h200_new.json, the microbenchmarks the H200 profile lacks (cal_popc) into
# $OUT/h200.json, and the barrier loops of timing_investigation/barred/ into
# $OUT/barred_h200.jsonl.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$name" in *H200*) g=h200 ;; *H100*) g=h100 ;; *) g=gpu ;; esac
{ echo "# $name, bash docs/results/gpu_tests.sh: python -m pytest -q -m gpu -p no:cacheprovider"
  python3 -m pytest -q -m gpu -p no:cacheprovider 2>&1 | tail -25; } > $OUT/pytest_gpu_$g.txt
tail -4 $OUT/pytest_gpu_$g.txt
if [ "$g" = h200 ]; then
  FAM=$(python3 -c "import json; print(' '.join(json.load(open('docs/results/timing_probes_measured_h200.json')).get('unmeasured', {})))")
  python3 -m kernels_cuda.timing_check measure --probes $FAM --out $OUT/p_h200_new.json 2>&1 | tail -50
  python3 -m kernels_cuda.calibrate --real --update simt/profiles/h200.json --out $OUT/h200.json >/dev/null
  grep -n bit_ipc $OUT/h200.json
  (cd docs/results/timing_investigation/barred && python3 barred.py > $OUT/barred_h200.jsonl)
fi
