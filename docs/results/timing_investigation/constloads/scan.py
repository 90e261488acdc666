"""Which kernels of kernels_cuda/*.cu session 64's change touches: those whose
simt.issue.compile_time set differs with simt.issue.HOIST_CONST_LOADS on and off (the
``__constant__`` words at a loop-invariant address, and their address arithmetic, made
before the loop), and those with a ``__constant__`` load in compile_time already (whose
register's ready time machine._compiled now sets).  From the repository root, no GPU:

    python docs/results/timing_investigation/constloads/scan.py scan.json

(scan.json: kernel -> the pcs it adds, the constant loads in compile_time before and
after; ids.txt: the measured probes that run them, emulated whole in rows.jsonl.)"""
import glob, sys, json
import simt
from simt import issue
from simt.ir import Op
from simt.module import read_source

res = {}
for path in sorted(glob.glob("kernels_cuda/*.cu")):
    try:
        mods = {f: simt.Module.from_source(read_source(path), path) for f in (False, True)}
    except Exception as ex:
        print("skip", path, ex, file=sys.stderr)
        continue
    for name in mods[True].kernel_names:
        out = {}
        for flag in (False, True):
            issue.HOIST_CONST_LOADS = flag
            try:
                ir = mods[flag].get_function(name).ir
            except Exception:
                out = None
                break
            ct = issue.compile_time(ir)
            out[flag] = (ct, sorted(p for p in ct if ir.code[p].op == Op.LOAD
                                    and ir.code[p].info.get("space") == "const"))
        if out is None:
            continue
        new = sorted(out[True][0] - out[False][0])
        if new or out[False][1]:
            res[f"{path}:{name}"] = {"new": new, "old_loads": out[False][1], "new_loads": out[True][1]}
json.dump(res, open(sys.argv[1], "w"), indent=1)
print(len(res), "kernels")
