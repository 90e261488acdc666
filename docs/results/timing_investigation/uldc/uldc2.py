"""uldc.cu again, for where the cost starts and how it scales with the warps: table
footprints of 16 to 256 floats (64 B to 1 KB) with 64 warps an SM, and 1 KB with 1, 2, 4,
8, 16, 32 and 64 warps an SM (blocks of 32 to 256, one or more an SM).  python uldc2.py > uldc2_GPU.jsonl"""
import json
from pathlib import Path

import numpy as np

SRC = (Path(__file__).resolve().parent / "uldc.cu").read_text()
ITERS = 16384


def main():
    import cupy as cp
    mod = cp.RawModule(code=SRC)
    rng = np.random.default_rng(0)
    for name, n in (("c_a", 8192), ("c_b", 4096)):
        cp.ndarray((n,), cp.float32, memptr=mod.get_global(name)).set(rng.random(n).astype(np.float32))
    dev = cp.cuda.runtime.getDeviceProperties(0)
    sms, clock = dev["multiProcessorCount"], 1.98e9
    print(json.dumps({"gpu": dev["name"].decode(), "sms": sms}), flush=True)
    s, e = cp.cuda.Event(), cp.cuda.Event()

    def run(kernel, words, grid, block, warps_sm):
        f = mod.get_function(kernel)
        out = cp.zeros(grid * block, cp.float32)
        args = (out, np.int32(ITERS), np.int32(words - 1))
        for _ in range(2):
            f((grid,), (block,), args)
        ts = []
        for _ in range(5):
            s.record(); f((grid,), (block,), args); e.record(); e.synchronize()
            ts.append(cp.cuda.get_elapsed_time(s, e))
        ms = float(np.median(ts))
        print(json.dumps({"kernel": kernel, "table_bytes": words * 4, "warps_per_sm": warps_sm, "ms": round(ms, 4),
                          "cycles_per_warp_trip_sm": round(ms * 1e-3 * clock / (warps_sm * ITERS), 2)}), flush=True)

    for kernel in ("uldc_one", "uldc_two"):
        for words in (16, 32, 64, 128, 256):        # the index is a & (words - 1)
            run(kernel, words, sms * 8, 256, 64)
    for kernel in ("uldc_one", "uldc_two"):
        for warps in (1, 2, 4, 8, 16, 32, 64):
            blocks, block = (sms * (warps // 8), 256) if warps >= 8 else (sms, 32 * warps)
            run(kernel, 256, blocks, block, warps)


if __name__ == "__main__":
    main()
