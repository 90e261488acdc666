"""Rows a ``return`` can move (session 63's fix to ``machine._kill``): every measured probe
and catalog entry that launches a kernel whose IR has a ``return`` out of the kernel
(``Op.KILL`` to level 0) that is not the kernel's last statement at depth 0.  Writes the
ids, one a line, to the file named (``ids.txt`` here).

    python docs/results/timing_investigation/killfinish/scan.py IDS.txt
"""
import json, sys
from pathlib import Path
from simt.module import Module
from simt.ir import Op
from kernels_cuda import timing_check as t

kills: dict[tuple[str, str], bool] = {}
mods: dict[str, Module] = {}


def returns(src: str, kernel: str) -> bool:
    key = (src, kernel)
    if key not in kills:
        mod = mods.get(src) or mods.setdefault(src, Module.from_file(Path("kernels_cuda") / src))
        ir = mod.get_function(kernel).ir
        kills[key] = any(ins.op is Op.KILL and ins.level == 0 and ins.depth > 0 for ins in ir.code)
    return kills[key]


ids = []
measured = set(json.load(open("docs/results/timing_probes_measured_h200.json"))["entries"])
for probes in (False, True):
    for e in t._entries(probes):
        if probes and e.id not in measured:
            continue
        try:
            if any(returns(e.source, k) for k in getattr(e, "kernels", None) or (e.kernel,)):
                ids.append(e.id)
        except Exception as ex:                  # a kernel the module cannot name: screen it
            print("ERR", e.id, ex, file=sys.stderr)
            ids.append(e.id)
Path(sys.argv[1]).write_text("\n".join(ids) + "\n")
print(len(ids), "ids;", sum(kills.values()), "of", len(kills), "kernels return from a branch")
