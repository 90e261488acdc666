"""Microbenchmarks of micro.cu on CuPy: per-op latency (one warp, a dependent chain) and
issue cost (a full GPU of independent chains), plus local-memory store->load and the
histogram_register loop.  Prints JSON lines."""
import json, sys
from pathlib import Path
import numpy as np
import cupy as cp

SMS = cp.cuda.Device().attributes["MultiProcessorCount"]
src = (Path(__file__).parent / "micro.cu").read_text()
mod = cp.RawModule(code=src, options=("--std=c++17",))
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


CH = [("m_add", np.int32, 0x5a5a), ("m_smod", np.int32, 1000), ("m_umod", np.uint32, 1000),
      ("m_sdiv", np.int32, 1000), ("m_smodd", np.int32, 0x7fffffff), ("m_umodd", np.uint32, 0xffffffff),
      ("m_udivd", np.uint32, 0xffffffff), ("m_smod7", np.int32, 7), ("m_fma", np.float32, 0.999),
      ("m_fdiv", np.float32, 1.0001), ("m_fdivd", np.float32, 3.0), ("m_sqrt", np.float32, 0),
      ("m_expf", np.float32, 0), ("m_match", np.int32, 0), ("m_shfl", np.int32, 0), ("m_ballot", np.int32, 0)]
BPS = 4          # blocks of 256 per SM in the throughput runs (32 warps per SM)
for name, dt, y in CH:
    f = mod.get_function(name)
    out = cp.zeros(SMS * BPS, dt)
    cyc = cp.zeros(SMS * BPS, cp.int64)
    it = 4096
    ms1 = timed(lambda: f((1,), (32,), (out, cyc, np.int32(it), dt(y))))
    lat = float(cyc[0].get()) / it
    itt = 1024
    mst = timed(lambda: f((SMS * BPS,), (256,), (out, cyc, np.int32(itt), dt(y))))
    c = cyc.get().astype(float)
    warps_sm = BPS * 8
    # SMSP issue cycles per warp-step: 4 sub-partitions, warps_sm warps x 4 chains x itt steps
    cost = c.mean() * 4 / (warps_sm * 4 * itt)
    print(json.dumps({"bench": name, "latency_cycles_per_step": round(lat, 2), "one_warp_ms": ms1,
                      "throughput_ms": mst, "block_cycles_mean": c.mean(), "block_cycles_max": c.max(),
                      "smsp_cycles_per_warp_step": round(cost, 3),
                      "clock_ghz_est": round(c.max() / (mst * 1e6), 3)}), flush=True)

# local memory
fl, fb = mod.get_function("m_local"), mod.get_function("m_local_base")
for tname, tbl in (("same", np.full(64, 3, np.int32)), ("rot8", (np.arange(64) & 7).astype(np.int32))):
    t = cp.asarray(tbl)
    for lanemul in (0, 1):
        for mode, g, b, it in (("1warp", 1, 32, 4096), ("full", SMS * BPS, 256, 1024)):
            out = cp.zeros(g * b, cp.int32); cyc = cp.zeros(g, cp.int64)
            ms = timed(lambda: fl((g,), (b,), (t, out, cyc, np.int32(it), np.int32(lanemul))))
            c = cyc.get().astype(float)
            ms0 = timed(lambda: fb((g,), (b,), (t, out, cyc, np.int32(it))))
            c0 = cyc.get().astype(float)
            print(json.dumps({"bench": "m_local", "tbl": tname, "lanemul": lanemul, "mode": mode,
                              "cycles_per_trip": round(c.mean() / it, 2), "base_cycles_per_trip": round(c0.mean() / it, 2),
                              "ms": ms, "base_ms": ms0}), flush=True)

# histogram_register's loop
fh = mod.get_function("m_histreg")
rng = np.random.default_rng(0)
data = cp.asarray(rng.integers(0, 256, 1 << 24, dtype=np.uint8))
hist = cp.zeros(8, cp.int32)
for mode, g, b, n in (("1warp", 1, 32, 32 * 256), ("1block", 1, 256, 256 * 256), ("catalog", 256, 256, 1 << 24)):
    cyc = cp.zeros(g, cp.int64)
    ms = timed(lambda: fh((g,), (b,), (data, hist, cyc, np.int32(n))))
    c = cyc.get().astype(float)
    trips = n // (g * b)
    print(json.dumps({"bench": "m_histreg", "mode": mode, "grid": g, "block": b, "n": n, "trips": trips, "ms": ms,
                      "cycles_per_trip_mean": round(c.mean() / trips, 2), "cycles_per_trip_max": round(c.max() / trips, 2)}),
          flush=True)
