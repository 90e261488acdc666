"""div64.cu on CuPy: per-step latency (one warp, a dependent chain) and SMSP issue cycles
per warp-step (132 x 4 blocks of 256, four chains a thread), as micro.py does for the
32-bit operations.  Prints JSON lines."""
import json
from pathlib import Path
import numpy as np
import cupy as cp

SMS = cp.cuda.Device().attributes["MultiProcessorCount"]
mod = cp.RawModule(code=(Path(__file__).parent / "div64.cu").read_text(), options=("--std=c++17",))
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


CH = [("d_add", np.uint64, 0x5a5a), ("d_umod", np.uint64, 0x10000001f), ("d_udiv", np.uint64, 7),
      ("d_umodd", np.uint64, 0xfffffffffffff), ("d_smod", np.int64, 0x10000001f),
      ("d_umods", np.uint64, 1000), ("d_mulmod", np.uint64, 4294967291), ("d_udiv10", np.uint64, 0),
      ("d_umod10", np.uint64, 0)]
BPS = 4
for name, dt, y in CH:
    f = mod.get_function(name)
    out = cp.zeros(SMS * BPS, dt)
    cyc = cp.zeros(SMS * BPS, cp.int64)
    it = 2048
    ms1 = timed(lambda: f((1,), (32,), (out, cyc, np.int32(it), dt(y))))
    lat = float(cyc[0].get()) / it
    itt = 256
    mst = timed(lambda: f((SMS * BPS,), (256,), (out, cyc, np.int32(itt), dt(y))))
    c = cyc.get().astype(float)
    cost = c.mean() * 4 / (BPS * 8 * 4 * itt)
    print(json.dumps({"bench": name, "latency_cycles_per_step": round(lat, 2), "one_warp_ms": ms1,
                      "throughput_ms": mst, "smsp_cycles_per_warp_step": round(cost, 3)}), flush=True)
