"""Ids of the committed tables whose kernels call a __shfl*_sync in their IR (session 69:
ids.txt).  From the repository root:
PYTHONPATH=docs/results/timing_investigation/repredict python docs/results/timing_investigation/shflpipe/ids.py > ids.txt"""
import sys
from simt.ir import Op
from simt.issue import SHFL_CALLS
from table_kernels import kernel_irs

out = []
for r, irs in kernel_irs(("timing_probes_h200", "timing_h200")):
    n = sum(1 for ir in irs for ins in ir.code if ins.op == Op.CALL and ins.sub in SHFL_CALLS)
    if n:
        out.append((r.get("emulate_s", 0) or 0, r["id"], n))
out.sort(reverse=True)
print("\n".join(eid for _, eid, _ in out))
print(len(out), "ids", file=sys.stderr)
