"""From the repository root: python docs/results/timing_investigation/regs/partial_promote_scan.py OUT.json

Local arrays simt leaves in the local frame because some accesses are at run-time
indices, though every store to them is at an index known once constant-trip loops are
unrolled and only one or two load pcs are at run-time indices (session 65's lead from
pgm-stereo-census-smem-popcll, where nvcc keeps the 128 costs in registers and a local copy
for two reads; census stereo itself is not listed as a candidate, its stores being in a
loop loops.full_unrolls does not unroll: README.md).  Static: no emulation."""
import glob, sys, json
import simt
from simt import promote
from simt.ir import Op
from simt.module import read_source

res = {}
for path in sorted(glob.glob("kernels_cuda/*.cu")):
    try:
        mod = simt.Module.from_source(read_source(path), path)
    except Exception as ex:
        print("skip", path, ex, file=sys.stderr); continue
    for name in mod.kernel_names:
        try:
            ir = mod.get_function(name).ir
        except Exception:
            continue
        arrays, dyn, _ = promote.local_accesses(ir)
        code = ir.code
        for s, dp in dyn.items():
            st = arrays.get(s, [])
            dyn_st = [p for p in dp if code[p].op == Op.STORE]
            dyn_ld = [p for p in dp if code[p].op == Op.LOAD]
            st_st = [p for p in st if code[p].op == Op.STORE]
            st_ld = [p for p in st if code[p].op == Op.LOAD]
            words = next((-(-(hi - lo) // 4) for lo, hi in ir.local_slots if lo == s), None)
            cand = bool(st_st) and not dyn_st and 1 <= len(dyn_ld) <= 2
            res.setdefault(f"{path}:{name}", []).append({"slot": hex(s), "words": words, "static_loads": len(st_ld),
                "static_stores": len(st_st), "dyn_loads": len(dyn_ld), "dyn_stores": len(dyn_st), "candidate": cand})
json.dump(res, open(sys.argv[1], "w"), indent=1)
c = {k: v for k, v in res.items() if any(a["candidate"] for a in v)}
print(len(res), "kernels with a local array left in the frame;", len(c), "with a candidate array")
for k, v in c.items():
    print(k, [a for a in v if a["candidate"]])
