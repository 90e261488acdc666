#!/bin/bash
pip install -q --no-index --no-deps --target /tmp/site wheels/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
S=.scratch_timing
W=/tmp/nv; mkdir -p $W
M=gpu__time_duration.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_op_write.max,lts__t_sectors_op_read.max,lts__t_sectors_op_red.max,lts__t_sectors.max,lts__t_sectors.avg,lts__t_requests.max,lts__t_requests.avg,lts__cycles_active.max,lts__cycles_active.avg,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum,lts__average_t_sector_hit_rate_srcunit_tex_op_read.pct
for spec in "naive histogram/naive histograma_ingenuo" "naiveu8 histogram/naive-u8 histogram_naive" "atom histogram/atomic histograma_atomico" "atomu8 histogram/atomic-u8 histogram_atomic"; do
  set -- $spec
  timeout 120 ncu --metrics $M --csv --page raw --kernel-name "regex:^$3\$" --launch-count 1 python3 $S/run_entry.py $2 16777216 > $W/$1.csv 2> $W/$1.err
  echo "$1 rc=$?"
done
# plain timing, 5 repeats each, with cupy events through the catalog's timed backend
timeout 200 python3 - <<'PY' > $W/times.txt 2>&1
from kernels_cuda import cupy_backend as cb
from kernels_cuda.timing_check import _entry
import statistics
for eid in ["histogram/naive", "histogram/naive-u8", "histogram/atomic", "histogram/atomic-u8"]:
    e = _entry(eid); inp = e.inputs(n=1 << 24, seed=0)
    ts = []
    for _ in range(7):
        be = cb.CupyBackend(timed=True); e.run(be, inp)
        ts.append(sum(l.ms for l in be.launches if l.ms is not None))
    print(eid, round(statistics.median(ts), 4), [round(t, 3) for t in ts])
PY
echo "times rc=$?"
timeout 120 python3 $S/offsets.py > $W/offsets.txt 2>&1; echo "offsets rc=$?"
cd $S && nvcc -cubin -arch=sm_90 -o /tmp/h.cubin ../kernels_cuda/histogram.cu 2>/dev/null && cuobjdump -sass /tmp/h.cubin | awk '/Function : histogram_naive$|Function : histograma_ingenuo$/{p=1} /Function : /{if(!/histogram_naive$|histograma_ingenuo$/)p=0} p' > $W/sass.txt; cd ..
tar czf $OUT/nv.tar.gz -C /tmp nv
