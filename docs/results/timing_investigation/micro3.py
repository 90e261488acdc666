import json
from pathlib import Path
import numpy as np
import cupy as cp
mod = cp.RawModule(code=(Path(__file__).parent / "micro3.cu").read_text(), options=("--std=c++17",))
rng = np.random.default_rng(0)
fc = mod.get_function("m_chase")
for name, n in (("L1 1KiB", 256), ("L1 16KiB", 4096), ("L2 8MiB", 1 << 21), ("DRAM 512MiB", 1 << 27)):
    perm = rng.permutation(n).astype(np.int32)
    nxt = np.empty(n, np.int32); nxt[perm] = np.roll(perm, -1)
    d = cp.asarray(nxt); out = cp.zeros(1, cp.int32); cyc = cp.zeros(1, cp.int64)
    steps = 4096
    for _ in range(2):
        fc((1,), (1,), (d, out, cyc, np.int32(steps)))
    cp.cuda.Device().synchronize()
    print(json.dumps({"bench": "m_chase", "where": name, "cycles_per_load": round(float(cyc.get()[0]) / steps, 1)}), flush=True)
fw = mod.get_function("m_walk")
a = cp.asarray(rng.integers(0, 100, 1 << 22).astype(np.int32))
for len_ in (32, 96):
    for blocks in (1, 32):
        starts = cp.asarray((rng.integers(0, (1 << 22) - 200, blocks * 32)).astype(np.int32))
        out = cp.zeros(blocks * 32, cp.int32); cyc = cp.zeros(blocks, cp.int64)
        fw((blocks,), (32,), (a, starts, out, cyc, np.int32(len_), np.int32(0)))
        cp.cuda.Device().synchronize()
        fw((blocks,), (32,), (a, starts, out, cyc, np.int32(len_), np.int32(0)))   # second run: lines in L2
        cp.cuda.Device().synchronize()
        c = cyc.get().astype(float)
        print(json.dumps({"bench": "m_walk", "len": len_, "blocks": blocks, "cycles_per_step": round(c.mean() / len_, 1)}), flush=True)
