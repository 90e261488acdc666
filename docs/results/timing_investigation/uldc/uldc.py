"""Time uldc.cu's kernels on the GPU: SM cycles a warp-trip, with one warp on one SM
(1 block of 32) and with 64 warps on every SM (8 blocks of 256 an SM), over table
footprints of 64 to 4096 floats (256 B to 16 KB a table; 32 KB for uldc_one).  python uldc.py > uldc_GPU.jsonl"""
import json
from pathlib import Path

import numpy as np

SRC = (Path(__file__).resolve().parent / "uldc.cu").read_text()
ITERS = 16384


def setup():
    """The module with its tables filled, and run(kernel, words, grid, block, warps_sm),
    which times a launch (median of 5 after 2 warm-ups) and prints its JSON line."""
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
    return sms, run


def main():
    sms, run = setup()
    for kernel in ("uldc_one", "uldc_two", "ldc_two"):
        for words in (64, 256, 512, 1024, 2048, 4096) + ((8192,) if kernel == "uldc_one" else ()):
            for grid, block in ((1, 32), (sms * 8, 256)):
                run(kernel, words, grid, block, 1 if grid == 1 else grid * block // 32 // sms)


if __name__ == "__main__":
    main()
