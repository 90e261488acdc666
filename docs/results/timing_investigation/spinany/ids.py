"""The table ids whose kernels hold two or more atomics nvcc makes a shared-memory CAS loop
(counters.spin_atomic: float adds, 64-bit integer adds; shared or global is known only when
the emulator runs, so global ones are listed too): the rows simt.machine.SPIN_DRIFT_ANY_ATOMIC
can move (ids.txt). From the repository root, NO_DRAFTS=1."""
import sys
sys.path.insert(0, "docs/results/timing_investigation/repredict")
from table_kernels import kernel_irs
from simt import counters as C
from simt.ir import Op
ids = []
for r, irs in kernel_irs(["timing_h200", "timing_h100", "timing_probes_h200", "timing_probes_h100"]):
    if max((sum(1 for ins in k.code if ins.op == Op.ATOM and C.spin_atomic(ins)) for k in irs), default=0) >= 2:
        ids.append(r["id"])
open("docs/results/timing_investigation/spinany/ids.txt", "w").write("\n".join(ids) + "\n")
print(len(ids))
