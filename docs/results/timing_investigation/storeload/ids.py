"""Ids of the committed tables whose kernels have a global store in a loop nvcc unrolls
fully that also holds a global load or atomic: machine._unrolled_stores gives another set
with UNROLLED_STORES_NEED_NO_LOADS off (session 69: ids.txt).  From the repository root:
PYTHONPATH=docs/results/timing_investigation/repredict python docs/results/timing_investigation/storeload/ids.py > ids.txt"""
import sys
from simt import machine
from table_kernels import kernel_irs


def stores(ir, need_no_loads: bool) -> frozenset:
    machine.UNROLLED_STORES_NEED_NO_LOADS = need_no_loads
    got = machine._unrolled_stores(ir)
    del ir._simt_unrolled_stores
    return got


out = [r["id"] for r, irs in kernel_irs(("timing_probes_h200", "timing_h200", "timing_probes_h100", "timing_h100"))
       if any(stores(ir, False) != stores(ir, True) for ir in irs)]
machine.UNROLLED_STORES_NEED_NO_LOADS = True
print("\n".join(out))
print(len(out), "ids", file=sys.stderr)
