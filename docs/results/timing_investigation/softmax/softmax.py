"""softmax.cu on the present GPU: 4096 rows of 4096 floats, 256 threads a row, as
probe/softmax-rows.  Per mode: the kernel's median time, tiles... blocks started per us
in the middle half, and thread 0's cycles to the end of each phase (pass 1's loads, the
max tree, pass 2 and its tree, pass 3).  From the repository root on the device:
python docs/results/timing_investigation/softmax/softmax.py > docs/results/timing_investigation/softmax/softmax_<gpu>.jsonl"""
import json
import statistics
from pathlib import Path
import numpy as np
import cupy as cp
from kernels_cuda import cupy_backend as cb

mod = cp.RawModule(code=(Path(__file__).parent / "softmax.cu").read_text(), options=("--std=c++17",))
f = mod.get_function("softmax_trace")
R = C = 4096
x = cp.asarray(np.random.default_rng(0).standard_normal(R * C).astype(np.float32))
y = cp.zeros_like(x)
tr = cp.zeros(R * 6, cp.int64)
clock = cp.cuda.runtime.getDeviceProperties(0)["clockRate"] / 1e3   # cycles per us
print(json.dumps({"device": cb.device_info().get("name"), "regs": f.num_regs}), flush=True)
for mode, what in ((0, "as the probe"), (1, "no pass 3"), (2, "pass 1 and its tree only"), (3, "x - m for expf")):
    def go():
        f((R,), (256,), (x, y, np.int32(C), tr, np.int32(mode)))
    ms = statistics.median(cb.time_gpu_samples(go, 3, 15))
    go(); cp.cuda.Device().synchronize()
    t = tr.get().reshape(R, 6).astype(np.float64)
    mid = slice(R // 4, 3 * R // 4)
    g0 = np.sort(t[mid, 0])
    med = lambda a: round(float(np.median(a)) / clock, 3)
    print(json.dumps({"mode": mode, "what": what, "ms": round(ms, 5),
                      "blocks_per_us": round((mid.stop - mid.start) / (np.ptp(g0) / 1e3), 1),
                      "us_to_pass1": med(t[mid, 1]), "us_to_max": med(t[mid, 2]),
                      "us_to_sum": med(t[mid, 3]), "us_to_end": med(t[mid, 4])}), flush=True)
