"""pstore2.cu on the present GPU: 2^25 floats written as records of K fields, back to back
and a trip apart; median of 9 CUDA-event timings after a warm-up.

python pstore2.py > pstore2_<gpu>.jsonl"""
import json
from pathlib import Path
import numpy as np
import cupy as cp

mod = cp.RawModule(code=(Path(__file__).parent / "pstore2.cu").read_text(), options=("-std=c++17",))
props = cp.cuda.runtime.getDeviceProperties(0)
N = 1 << 25


def main():
    print(json.dumps({"device": props["name"].decode(), "n": N}), flush=True)
    warm = cp.zeros(1 << 28, cp.float32)
    for _ in range(200):
        warm += 1.0
    out = cp.zeros(N + 64, cp.float32)
    for k in (3, 6, 8, 16, 32):
        rec = N // k
        grid = -(-rec // 256)
        for kind in ("unrolled", "loop"):
            f = mod.get_function(f"aos_{kind}_{k}")
            ms = []
            for _ in range(9):
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record(); f((grid,), (256,), (out, np.int32(rec))); b.record(); b.synchronize()
                ms.append(cp.cuda.get_elapsed_time(a, b))
            print(json.dumps({"k": kind, "fields": k, "ms": float(np.median(ms))}), flush=True)


if __name__ == "__main__":
    main()
