"""hot2.cu on CuPy: 2^22 threads in blocks of 256, medians of 9 CUDA-event timings
(counters zeroed before each), and simt's prediction of the same launch.  Prints JSON
lines.  Run from the repository root: python docs/results/timing_investigation/hot2/hot2.py"""
import json
import sys
from pathlib import Path
import numpy as np

HERE = Path(__file__).parent
N = 1 << 22
CASES = [("one", 0, 0), ("both_near", 256, 1), ("both_far", 1 << 23, 1), ("split_near", 256, 2),
         ("split_far", 1 << 23, 2), ("both_far_ret", 1 << 23, 3), ("both_sector", 1, 1)]


def gpu():
    import cupy as cp
    k = cp.RawModule(code=(HERE / "hot2.cu").read_text()).get_function("hot2")
    c = cp.zeros((1 << 23) + 64, cp.int32)
    out = cp.zeros(N, cp.int32)
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    for name, off, mode in CASES:
        ts = []
        for _ in range(10):
            c.fill(0)
            e0.record()
            k((N // 256,), (256,), (c, out, np.int32(off), np.int32(mode), np.int32(N)))
            e1.record(); e1.synchronize()
            ts.append(cp.cuda.get_elapsed_time(e0, e1))
        got = int(c[0].get()), int(c[off].get()) if off else 0
        print(json.dumps({"case": name, "off": off, "mode": mode, "ms": float(np.median(ts[1:])), "counts": got}),
              flush=True)


def emulated():
    import simt
    from simt import timing
    mod = simt.Module.from_file(str(HERE / "hot2.cu"))
    for name, off, mode in CASES:
        dev = simt.Device()
        c = dev.zeros((1 << 23) + 64, np.int32)
        out = dev.zeros(N, np.int32)
        res = mod.get_function("hot2").launch(dev, simt.LaunchConfig.of(N // 256, 256),
                                              [c, out, np.int32(off), np.int32(mode), np.int32(N)],
                                              sanitize=False, sample_blocks=512)
        p = timing.predict_result(res, timing.load_profile("h200"))
        print(json.dumps({"case": name, "predicted_ms": round(p.ms, 4), "bound": p.bound,
                          "hot_lanes": res.metrics.get("simt__global_atomic_hot_address_lanes.max")}), flush=True)


if __name__ == "__main__":
    emulated() if "--emulate" in sys.argv else gpu()
