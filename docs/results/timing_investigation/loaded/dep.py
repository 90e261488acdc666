"""Dependent DRAM loads under load (dep.cu) on the present GPU; one JSON line each.

python dep.py > dep_<gpu>.jsonl    (CuPy events, median of 7 after a warm-up)"""
import json
from pathlib import Path
import numpy as np
import cupy as cp

mod = cp.RawModule(code=(Path(__file__).parent / "dep.cu").read_text())
dev = cp.cuda.Device()
props = cp.cuda.runtime.getDeviceProperties(dev.id)
SMEM = props["sharedMemPerMultiprocessor"]
N = 1 << 24
B = 256


def timed(fn, reps=7):
    fn(); dev.synchronize()
    ts = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); fn(); b.record(); b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b))
    return float(np.median(ts))


def launch(name, args, bpsm, **tags):
    k = mod.get_function(name)
    shm = 0 if bpsm >= 2048 // B else max(0, min(SMEM // bpsm - 1024 - 1, 227 * 1024))
    if shm > 48 * 1024:
        k.max_dynamic_shared_size_bytes = shm
    grid = -(-N // B)
    ms = timed(lambda: k((grid,), (B,), args, shared_mem=shm))
    print(json.dumps({"k": name, "bpsm": bpsm, "n": N, "ms": round(ms, 5), **tags}), flush=True)


def main():
    print(json.dumps({"device": props["name"].decode(), "sms": props["multiProcessorCount"]}), flush=True)
    ident = cp.arange(N, dtype=cp.int32)
    a = cp.concatenate([ident] * 4)
    out = cp.zeros(N, cp.int32)
    v = cp.zeros(N + 1, cp.int32)
    rng = np.random.default_rng(4)
    t_rand = cp.asarray(rng.integers(0, 2, N).astype(np.int32))
    t_zero = cp.zeros(N, cp.int32)
    t_shift = ident + 1
    for bpsm in (8, 4, 2, 1):
        for d in (1, 2, 3, 4):
            launch(f"k_chain{d}", (a, out, np.int32(N)), bpsm, depth=d)
            launch(f"k_indep{d}", (a, out, np.int32(N)), bpsm, depth=d)
        for off in (0, 1):
            launch("k_rmw", (v, np.int32(N), np.int32(off)), bpsm, off=off)
            launch("k_ctl", (t_zero, v, np.int32(N), np.int32(off)), bpsm, off=off, t="zero")
            launch("k_ctl", (t_rand, v, np.int32(N), np.int32(off)), bpsm, off=off, t="rand")
        launch("k_dep", (ident, v, np.int32(N)), bpsm, off=0)
        launch("k_dep", (t_shift, v, np.int32(N)), bpsm, off=1)
        launch("k_case3", (t_rand, v, np.int32(N)), bpsm, t="rand")


if __name__ == "__main__":
    main()
