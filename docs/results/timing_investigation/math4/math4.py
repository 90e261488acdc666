"""math4.cu (session 58: erfinv, erfcinv, normcdf, normcdfinv; erff as a check on math.cu) on the present GPU: per function, the latency of one step of a dependent chain
(one warp) and the sub-partition cycles a warp-step takes at full occupancy of independent
chains; the baseline m_fma (x * y + c, one FFMA) is subtracted to give what the function
costs beyond one instruction.  The emulator's own count of each step is printed beside it
by model.py.  From the repository root on the device:
python docs/results/timing_investigation/math4/math4.py > docs/results/timing_investigation/math4/math4_<gpu>.jsonl"""
import json
from pathlib import Path
import numpy as np
import cupy as cp

SMS = cp.cuda.Device().attributes["MultiProcessorCount"]
mod = cp.RawModule(code=(Path(__file__).parent / "math4.cu").read_text(), options=("--std=c++17",))
ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()


def timed(fn, reps=5):
    fn()
    cp.cuda.Device().synchronize()
    best = None
    for _ in range(reps):
        ev0.record(); fn(); ev1.record(); ev1.synchronize()
        ms = cp.cuda.get_elapsed_time(ev0, ev1)
        best = ms if best is None else min(best, ms)
    return best


F, D = np.float32, np.float64
CH = [("m_fma", F, 0.999), ("m_erfinvf", F, 0), ("m_erfcinvf", F, 0), ("m_normcdff", F, 0), ("m_normcdfinvf", F, 0), ("m_erff", F, 0), ("m_dfma", D, 0.999), ("m_erfinv", D, 0), ("m_erfcinv", D, 0), ("m_normcdf", D, 0), ("m_normcdfinv", D, 0)]
BPS = 4          # blocks of 256 per SM in the throughput runs (32 warps per SM)
base = {}
print(json.dumps({"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
for name, dt, y in CH:
    f = mod.get_function(name)
    out = cp.zeros(SMS * BPS, dt)
    cyc = cp.zeros(SMS * BPS, cp.int64)
    it = 4096
    timed(lambda: f((1,), (32,), (out, cyc, np.int32(it), dt(y))))
    lat = float(cyc[0].get()) / it
    itt = 1024
    mst = timed(lambda: f((SMS * BPS,), (256,), (out, cyc, np.int32(itt), dt(y))))
    c = cyc.get().astype(float)
    cost = c.mean() * 4 / (BPS * 8 * 4 * itt)
    if name in ("m_fma", "m_dfma"):
        base[dt] = (lat, cost)
    print(json.dumps({"bench": name, "regs": f.num_regs, "latency_cycles_per_step": round(lat, 2),
                      "smsp_cycles_per_warp_step": round(cost, 3),
                      "beyond_fma_latency": round(lat - base[F][0], 2),
                      "beyond_fma_issue": round(cost - base[F][1], 3), "throughput_ms": round(mst, 4)}),
          flush=True)
