"""sinseries.cu on the present GPU, 2^20 threads of 256 (as the probe), median of 15 runs,
with nvcc's register count.  From the repository root on the device:
python docs/results/timing_investigation/sinseries/sinseries.py > docs/results/timing_investigation/sinseries/sinseries_<gpu>.jsonl"""
import json
import statistics
from pathlib import Path
import numpy as np
import cupy as cp
from kernels_cuda import cupy_backend as cb

mod = cp.RawModule(code=(Path(__file__).parent / "sinseries.cu").read_text(), options=("--std=c++17",))
n = 1 << 20
x = cp.asarray(np.random.default_rng(0).uniform(-1, 1, n).astype(np.float32))
out = cp.zeros(n, cp.float32)
print(json.dumps({"device": cb.device_info().get("name")}), flush=True)
for name in ("as_written", "small_args", "no_sin", "fast_sin"):
    f = mod.get_function(name)
    ms = statistics.median(cb.time_gpu_samples(lambda: f((n // 256,), (256,), (x, out, np.int32(n))), 3, 15))
    print(json.dumps({"kernel": name, "regs": f.num_regs, "ms": round(ms, 5),
                      "smsp_cycles_per_warp_trip": round(ms * 1e-3 * 1.98e9 / (n / 32 * 64 / (132 * 4)), 2)}),
          flush=True)
