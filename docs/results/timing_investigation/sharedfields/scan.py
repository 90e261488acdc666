"""Rows session 63's joined struct fields (simt.sharedfields) can move: every measured
probe and catalog entry that launches a kernel with a shared access joined to the one
before it.  Writes the ids, one a line, to the file named.

    python docs/results/timing_investigation/sharedfields/scan.py IDS.txt
"""
import json, sys
from pathlib import Path
from simt.module import Module
from simt.sharedfields import shared_field_groups
from kernels_cuda import timing_check as t

mods, found = {}, {}


def joined(src: str, kernel: str) -> int:
    if (src, kernel) not in found:
        mod = mods.get(src) or mods.setdefault(src, Module.from_file(Path("kernels_cuda") / src))
        found[(src, kernel)] = len(shared_field_groups(mod.get_function(kernel).ir))
    return found[(src, kernel)]


measured = set(json.load(open("docs/results/timing_probes_measured_h200.json"))["entries"])
ids = []
for probes in (False, True):
    for e in t._entries(probes):
        if probes and e.id not in measured:
            continue
        try:
            if any(joined(e.source, k) for k in getattr(e, "kernels", None) or (e.kernel,)):
                ids.append(e.id)
        except Exception as ex:
            print("ERR", e.id, ex, file=sys.stderr)
            ids.append(e.id)
Path(sys.argv[1]).write_text("\n".join(ids) + "\n")
print(len(ids), "ids;", sum(1 for v in found.values() if v), "of", len(found), "kernels join shared fields")
