"""python l1lat.py: times l1lat.cu's kernels on the present GPU (CUDA events, median of 9)
and prints one JSON line each."""
import json
import sys
import cupy as cp
import numpy as np

mod = cp.RawModule(code=open(__file__.replace(".py", ".cu")).read(), options=("-std=c++17",))


def timed(k, grid, block, args, reps=9):
    k(grid, block, args)
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); k(grid, block, args); b.record(); b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b))
    return float(np.median(ts))


def main():
    rng = np.random.default_rng(0)
    out = []
    for length in (2048, 1 << 20):
        perm = rng.permutation(length)
        nxt = np.empty(length, np.int32)
        nxt[perm] = np.roll(perm, -1)
        d, o = cp.asarray(nxt), cp.zeros(32, cp.int32)
        for name in ("chase", "chase_cg"):
            t = {s: timed(mod.get_function(name), (1,), (32,), (d, o, np.int32(s))) for s in (4096, 16384)}
            out.append({"kernel": name, "table_ints": length, "ms_4096": t[4096], "ms_16384": t[16384],
                        "ns_per_step": (t[16384] - t[4096]) * 1e6 / 12288})
    for m in (256, 1024):
        pts = cp.asarray(rng.random(2 * m, dtype=np.float32))
        nq = 1 << 14
        qs = cp.asarray(rng.random(2 * nq, dtype=np.float32))
        idx = cp.zeros(nq * 8, cp.int32)
        f = cp.zeros(nq, cp.float32)
        for name, args in (("nn1", (pts, qs, idx, np.int32(m), np.int32(nq))),
                           ("near_sum", (pts, qs, f, np.int32(m), np.int32(nq), np.float32(0.01)))):
            out.append({"kernel": name, "m": m, "nq": nq, "grid": nq // 256, "block": 256,
                        "ms": timed(mod.get_function(name), (nq // 256,), (256,), args)})
    dev = cp.cuda.runtime.getDeviceProperties(0)
    for r in out:
        r["gpu"] = dev["name"].decode()
        print(json.dumps(r))


if __name__ == "__main__":
    main()
