"""Ids of the committed tables whose kernels call a __shfl*_sync in their IR (session 69: ids.txt)."""
import json, sys
from pathlib import Path
from kernels_cuda import timing_check as t
from simt.module import Module
from simt.ir import Op
R = Path("docs/results")
SH = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync"}
out = []
for stem in ("timing_probes_h200", "timing_h200"):
    tab = json.loads((R / f"{stem}.json").read_text())
    seen = set()
    for r in tab["rows"]:
        eid = r["id"]
        if eid in seen or "error" in r: continue
        seen.add(eid)
        e = t._entry(eid)
        names = [e.kernel] if hasattr(e, "kernel") and isinstance(getattr(e, "kernel"), str) else list(getattr(e, "kernels", []) or [])
        try:
            mod = Module.from_file(Path("kernels_cuda") / e.source)
            n = 0
            for k in names:
                try:
                    ir = mod.get_function(k).ir
                except Exception:
                    continue
                n += sum(1 for ins in ir.code if ins.op == Op.CALL and ins.sub in SH)
        except Exception as ex:
            print("ERR", eid, ex, file=sys.stderr); continue
        if n:
            out.append((r.get("emulate_s", 0) or 0, eid, n))
out.sort(reverse=True)
for s, eid, n in out:
    print(eid)
print(len(out), "ids", file=sys.stderr)
