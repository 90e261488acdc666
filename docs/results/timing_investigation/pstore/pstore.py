"""pstore.cu on the present GPU: n elements written per-elements-a-thread, lanes `per`
elements apart, for 1- and 4-byte elements; median of 9 CUDA-event timings after a
warm-up of the GPU's clock.

python pstore.py > pstore_<gpu>.jsonl"""
import json
from pathlib import Path
import numpy as np
import cupy as cp

mod = cp.RawModule(code=(Path(__file__).parent / "pstore.cu").read_text())
props = cp.cuda.runtime.getDeviceProperties(0)
N = 1 << 25


def timed(k, grid, args):
    ms = []
    for _ in range(9):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); k((grid,), (256,), args); b.record(); b.synchronize()
        ms.append(cp.cuda.get_elapsed_time(a, b))
    return float(np.median(ms))


def main():
    print(json.dumps({"device": props["name"].decode(), "n": N}), flush=True)
    warm = cp.zeros(1 << 28, cp.float32)
    for _ in range(200):
        warm += 1.0                                  # bring the clock up
    for name, dt in (("st_u8", cp.uint8), ("st_u32", cp.uint32)):
        out = cp.zeros(N, dt)
        k = mod.get_function(name)
        for per in (1, 2, 4, 8, 16, 32, 64, 128):
            threads = N // per
            grid = -(-threads // 256)
            ms = timed(k, grid, (out, np.int32(N), np.int32(per)))
            print(json.dumps({"k": name, "per": per, "ms": ms}), flush=True)


if __name__ == "__main__":
    main()
