"""Registers per thread (and local memory) nvcc gives every kernel of kernels_cuda/*.cu,
compiled as the --real backend compiles them (CupyBackend.module).  From the repository
root on the device: python docs/results/timing_investigation/regs/regs.py > docs/results/timing_investigation/regs/regs_<gpu>.json"""
import json
import re
from pathlib import Path
from kernels_cuda import cupy_backend as cb

root = Path(cb.__file__).parent
be = cb.CupyBackend()
out = {}
for cu in sorted(root.glob("*.cu")) + [Path("docs/results/timing_investigation/dram_size/size.cu")]:
    text = cu.read_text()
    mod, _ = be.module(str(cu.resolve()))
    for name in re.findall(r"__global__\s+void\s+(\w+)\s*\(", text):
        try:
            fn = mod.get_function(name)
        except Exception as ex:       # not extern "C"
            out[f"{cu.name}:{name}"] = {"error": str(ex)[:80]}
            continue
        out[f"{cu.name}:{name}"] = {"regs": fn.num_regs, "local_bytes": fn.local_size_bytes,
                                   "max_threads": fn.max_threads_per_block}
print(json.dumps({"device": cb.device_info().get("name"), "kernels": out}, indent=1))
