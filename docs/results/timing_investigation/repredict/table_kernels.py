"""The kernels behind the committed tables' rows, for screens that pick ids by their IR
(shflpipe/ids.py, storeload/ids.py): each distinct id's first row and the IR of the
kernels its entry launches (a template kernel named by its instance elsewhere is left
out).  From the repository root."""
import json
from pathlib import Path
from kernels_cuda import timing_check
from simt.module import Module

R = Path("docs/results")


def kernel_irs(stems):
    """(row, [KernelIR, ...]) for each id of the tables ``stems`` (timing_probes_h200, ...),
    once, in the tables' order."""
    seen = set()
    for stem in stems:
        for r in json.loads((R / f"{stem}.json").read_text())["rows"]:
            if r["id"] in seen or "error" in r:
                continue
            seen.add(r["id"])
            e = timing_check._entry(r["id"])
            names = [e.kernel] if isinstance(getattr(e, "kernel", None), str) else list(getattr(e, "kernels", []) or [])
            mod = Module.from_file(Path("kernels_cuda") / e.source)
            irs = []
            for k in names:
                try:
                    irs.append(mod.get_function(k).ir)
                except Exception:
                    pass
            yield r, irs
