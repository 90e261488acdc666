"""python l1unif.py: times l1unif.cu's kernels on the present GPU (CUDA events, median of
9) and prints one JSON line each.  knn_top8 runs on three point sets: random points
(the probe's), points that after the first 8 are never nearer ('far': the branch is never
taken), and points each nearer than all before it ('closer': every trip walks all 7
steps of the insertion)."""
import json
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


def point_sets(m, rng):
    rnd = rng.random(2 * m, dtype=np.float32)
    far = np.full((m, 2), 1e6, np.float32)
    far[:8] = rng.random((8, 2), dtype=np.float32)
    closer = np.zeros((m, 2), np.float32)
    closer[:, 0] = 1e4 - np.arange(m, dtype=np.float32) * 4.0     # every point nearer than the last
    return {"random": rnd, "far": far.ravel(), "closer": closer.ravel()}


def main():
    rng = np.random.default_rng(0)
    out = []
    length = 2048
    perm = rng.permutation(length)
    nxt = np.empty(length, np.int32)
    nxt[perm] = np.roll(perm, -1)
    d, o = cp.asarray(nxt), cp.zeros(32, cp.int32)
    t = {s: timed(mod.get_function("uchase"), (1,), (32,), (d, o, np.int32(s))) for s in (4096, 16384)}
    out.append({"kernel": "uchase", "table_ints": length, "ms_4096": t[4096], "ms_16384": t[16384],
                "ns_per_step": (t[16384] - t[4096]) * 1e6 / 12288})
    m = 1024
    sets = point_sets(m, rng)
    for nq, block in ((1 << 14, 256), (64 * 32, 32)):
        qs = cp.asarray(rng.random(2 * nq, dtype=np.float32))
        f = cp.zeros(nq, cp.float32)
        idx = cp.zeros(nq * 8, cp.int32)
        grid = nq // block
        pts = cp.asarray(sets["random"])
        out.append({"kernel": "dep_loop", "m": m, "nq": nq, "grid": grid, "block": block,
                    "ms": timed(mod.get_function("dep_loop"), (grid,), (block,), (pts, qs, f, np.int32(m), np.int32(nq)))})
        for name, p in sets.items():
            pts = cp.asarray(p)
            ms = {}
            for mm in (256, 1024):
                ms[mm] = timed(mod.get_function("knn_top8"), (grid,), (block,), (pts, qs, idx, np.int32(mm), np.int32(nq)))
            out.append({"kernel": "knn_top8", "points": name, "nq": nq, "grid": grid, "block": block,
                        "ms_256": ms[256], "ms_1024": ms[1024],
                        "ns_per_trip": (ms[1024] - ms[256]) * 1e6 / 768})
    dev = cp.cuda.runtime.getDeviceProperties(0)
    for r in out:
        r["gpu"] = dev["name"].decode()
        print(json.dumps(r))


if __name__ == "__main__":
    main()
