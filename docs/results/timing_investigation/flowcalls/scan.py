"""Static candidates for session 62's rules: FLOW_CALLS on load-derived operands; shared atomics
without a result (or CAS-loop shared atomics)."""
import sys, collections, json
from pathlib import Path
from simt.module import Module
from simt.ir import Op, Reg, Const
from simt.uniformity import Uniform
from simt.spaces import SHARED_BASE, LOCAL_BASE
from simt import issue
from simt.machine import FLOW_CALLS
from simt.counters import spin_atomic
root = Path("kernels_cuda")
out = {}
for f in sorted(root.glob("*.cu")):
    try:
        mod = Module.from_file(f); names = mod.kernel_names
    except Exception as e:
        print("ERR", f, e, file=sys.stderr); continue
    for k in names:
        try:
            ir = mod.get_function(k).ir
        except Exception as e:
            print("ERR", f, k, e, file=sys.stderr); continue
        comp = issue.compile_time(ir)
        loaded, shared = set(), set()
        def sh(o):
            if isinstance(o, Const):
                try: v = int(o.value)
                except Exception: return False
                return SHARED_BASE <= v < LOCAL_BASE
            if isinstance(o, Uniform): return o.name == "dynshared"
            return type(o) is Reg and o.slot in shared
        for _ in range(3):
            for ins in ir.code:
                ds = ins.dst if isinstance(ins.dst, list) else ([ins.dst] if ins.dst is not None else [])
                if not ds: continue
                if ins.op in (Op.LOAD, Op.ATOM) or any(type(a) is Reg and a.slot in loaded for a in ins.args):
                    loaded.update(d.slot for d in ds)
                if ins.op in (Op.BIN, Op.MOV, Op.CAST) and any(sh(a) for a in ins.args):
                    shared.update(d.slot for d in ds)
        why = set()
        for pc, ins in enumerate(ir.code):
            if pc in comp: continue
            if ins.op == Op.CALL and ins.sub in FLOW_CALLS and any(type(a) is Reg and a.slot in loaded for a in ins.args):
                why.add("call")
            if ins.op == Op.ATOM and sh(ins.args[0]) and (ins.dst is None or spin_atomic(ins)):
                why.add("atom")
        if why:
            out[f"{f.name}:{k}"] = sorted(why)
json.dump(out, open("/tmp/h62/scan2.json", "w"))
c = collections.Counter(tuple(v) for v in out.values()); print(len(out), c)
