"""divconst.cu on CuPy: per-step latency (one warp, a dependent chain) and SMSP issue
cycles per warp-step (SMs x 4 blocks of 256, four chains a thread), as div64.py.  Prints
JSON lines; the steps' baseline (c_add64 / c_add32: an xor and an add) is in the rows."""
import json
from pathlib import Path
import numpy as np
import cupy as cp

SMS = cp.cuda.Device().attributes["MultiProcessorCount"]
mod = cp.RawModule(code=(Path(__file__).parent / "divconst.cu").read_text(), options=("--std=c++17",))
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


CH = [(n, np.uint64, 0x5a5a) for n in ("c_add64", "c_mod10", "c_div10", "c_mod7", "c_div7", "c_modm31",
                                         "c_divm31", "c_modp9", "c_modm61")] + \
     [(n, np.uint32, 0x5a5a) for n in ("c_add32", "c_umod7", "c_udiv7", "c_umod10", "c_udiv10", "c_umodp9")] + \
     [("c_smod7", np.int32, 0x5a5a)]
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
