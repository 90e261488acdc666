"""Round 2 (micro2.cu): match_any vs distinct values; local loads/stores alone, by grid size."""
import json
from pathlib import Path
import numpy as np
import cupy as cp

SMS = cp.cuda.Device().attributes["MultiProcessorCount"]
mod = cp.RawModule(code=(Path(__file__).parent / "micro2.cu").read_text(), options=("--std=c++17",))
ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()


def timed(fn, reps=5):
    fn(); cp.cuda.Device().synchronize()
    best = None
    for _ in range(reps):
        ev0.record(); fn(); ev1.record(); ev1.synchronize()
        ms = cp.cuda.get_elapsed_time(ev0, ev1)
        best = ms if best is None else min(best, ms)
    return best


fm = mod.get_function("m_matchk")
for k in (1, 2, 4, 8, 16, 32):
    for mode, g, b, it in (("1warp", 1, 32, 4096), ("full", SMS * 4, 256, 256), ("1perSM", SMS, 256, 256)):
        out = cp.zeros(g, cp.int32); cyc = cp.zeros(g, cp.int64)
        ms = timed(lambda: fm((g,), (b,), (out, cyc, np.int32(it), np.int32(k), np.uint32(0))))
        c = cyc.get().astype(float)
        chains = 1 if mode == "1warp" else 4
        warps_sm = g * b // 32 / min(g, SMS)
        print(json.dumps({"bench": "m_matchk", "k": k, "mode": mode, "ms": ms,
                          "cycles_per_step_mean": round(c.mean() / it, 2), "cycles_per_step_max": round(c.max() / it, 2),
                          # SMSP cycles per warp-level match, from the event time at 1.98 GHz
                          "smsp_cycles_per_match": round((ms - 0.004) * 1.98e6 * 4 / (warps_sm * chains * it), 2)}),
              flush=True)

tbls = {"same": np.full(64, 3, np.int32), "rot8": (np.arange(64) & 7).astype(np.int32)}
for kern in ("m_local_ld", "m_local_st", "m_local_rmw"):
    f = mod.get_function(kern)
    for tname, lanemul in (("same", 0), ("rot8", 1)):
        t = cp.asarray(tbls[tname])
        for mode, g, b, it in (("1warp", 1, 32, 4096), ("full", SMS * 4, 256, 1024), ("1perSM", SMS, 256, 1024),
                               ("33blocks", 33, 256, 1024)):
            out = cp.zeros(g * b, cp.int32); cyc = cp.zeros(g, cp.int64)
            ms = timed(lambda: f((g,), (b,), (t, out, cyc, np.int32(it), np.int32(lanemul))))
            c = cyc.get().astype(float)
            warps_sm = g * b // 32 / min(g, SMS)
            lines = 1 if lanemul == 0 else 8
            print(json.dumps({"bench": kern, "tbl": tname, "lanemul": lanemul, "mode": mode, "ms": ms,
                              "cycles_per_trip_mean": round(c.mean() / it, 2), "cycles_per_trip_max": round(c.max() / it, 2),
                              "sm_cycles_per_warp_trip": round((ms - 0.004) * 1.98e6 / (warps_sm * it), 3),
                              "lines_per_request": lines}), flush=True)
