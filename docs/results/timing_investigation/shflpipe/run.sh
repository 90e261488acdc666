# Emulate again (no GPU used) the rows of every id whose kernels call a __shfl*_sync, on
# the GPU machine's 16 CPUs, with the project's wheels carried in .whl/: their table rows,
# both GPUs, into $OUT/rows.jsonl (session 69: 173 (id, size) rows in 340 s).
T0=$(date +%s)
rm -f kernels_cuda/_draft_unseen*.py
pip install -q --target /tmp/site .whl/*.whl 2>&1 | grep -v WARN | tail -1
export PYTHONPATH=/tmp/site:$PWD
IDS=${IDS:-docs/results/timing_investigation/shflpipe/ids.txt}
timeout ${LIM:-560} python3 docs/results/timing_investigation/repredict/emulate_rows.py $OUT/rows.jsonl 16 $IDS 2> $OUT/emu.log; echo "rc=$? $(( $(date +%s) - T0 )) s"
wc -l $OUT/rows.jsonl; tail -3 $OUT/emu.log
