"""Ids of the committed tables whose kernels have a global store in a loop nvcc unrolls
fully that also holds a global load or atomic: machine._unrolled_stores gives another set
with UNROLLED_STORES_NEED_NO_LOADS off (session 69: ids.txt).  From the repository root:
python docs/results/timing_investigation/storeload/ids.py > ids.txt"""
import json, sys
from pathlib import Path
from kernels_cuda import timing_check as t
from simt.module import Module
from simt import machine

R = Path("docs/results")


def stores(ir, need_no_loads: bool) -> frozenset:
    machine.UNROLLED_STORES_NEED_NO_LOADS = need_no_loads
    got = machine._unrolled_stores(ir)
    del ir._simt_unrolled_stores
    return got


out, seen = [], set()
for stem in ("timing_probes_h200", "timing_h200", "timing_probes_h100", "timing_h100"):
    for r in json.loads((R / f"{stem}.json").read_text())["rows"]:
        eid = r["id"]
        if eid in seen or "error" in r:
            continue
        seen.add(eid)
        e = t._entry(eid)
        names = [e.kernel] if isinstance(getattr(e, "kernel", None), str) else list(getattr(e, "kernels", []) or [])
        mod = Module.from_file(Path("kernels_cuda") / e.source)
        irs = []
        for k in names:
            try:
                irs.append(mod.get_function(k).ir)
            except Exception:               # a template kernel named by its instance elsewhere
                pass
        if any(stores(ir, False) != stores(ir, True) for ir in irs):
            out.append(eid)
machine.UNROLLED_STORES_NEED_NO_LOADS = True
print("\n".join(out))
print(len(out), "ids", file=sys.stderr)
