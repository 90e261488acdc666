"""Time uldc3.cu's kernels on the GPU at 64 warps an SM (blocks of 256, 8 an SM), over
tables of 64 B, 1 KB and 4 KB and trips a warp of 32 to 8192, with as many waves of
blocks as keep the total work at 8192 trips a warp-slot (short warps: many waves).
Prints SM cycles a warp-trip.  python uldc3.py [KERNEL ...] > uldc3_GPU.jsonl"""
import json
import sys
from pathlib import Path

import numpy as np

SRC = (Path(__file__).resolve().parent / "uldc3.cu").read_text()
TOTAL = 8192


def main():
    import cupy as cp
    mod = cp.RawModule(code=SRC)
    rng = np.random.default_rng(0)
    cp.ndarray((4096,), cp.float32, memptr=mod.get_global("c_a")).set(rng.random(4096).astype(np.float32))
    dev = cp.cuda.runtime.getDeviceProperties(0)
    sms, clock = dev["multiProcessorCount"], 1.98e9
    print(json.dumps({"gpu": dev["name"].decode(), "sms": sms}), flush=True)
    s, e = cp.cuda.Event(), cp.cuda.Event()
    kernels = sys.argv[1:] or ("uldc3_w0", "uldc3_w4", "uldc3_w16", "uldc3_w0_spread", "uldc3_w16_spread",
                               "uldc3_w0_bspread", "uldc3_w4_bspread", "uldc3_w16_bspread")
    for kernel in kernels:
        f = mod.get_function(kernel)
        for words in (16, 256, 1024):
            for iters in (32, 128, 512, 2048, 8192):
                waves = TOTAL // iters
                grid, block = sms * 8 * waves, 256
                out = cp.zeros(grid * block, cp.float32)
                args = (out, np.int32(iters), np.int32(words - 1))
                for _ in range(2):
                    f((grid,), (block,), args)
                ts = []
                for _ in range(5):
                    s.record(); f((grid,), (block,), args); e.record(); e.synchronize()
                    ts.append(cp.cuda.get_elapsed_time(s, e))
                ms = float(np.median(ts))
                trips = grid * block // 32 * iters / sms       # warp-trips an SM
                print(json.dumps({"kernel": kernel, "table_bytes": words * 4, "iters": iters, "waves": waves,
                                  "ms": round(ms, 4), "cycles_per_warp_trip_sm": round(ms * 1e-3 * clock / trips, 2)}),
                      flush=True)


if __name__ == "__main__":
    main()
