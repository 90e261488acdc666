"""Time cscat.cu on the GPU: a __constant__ table of S bytes read at G distinct words a
warp request (hashed), 512 trips a warp, at 64 or 16 warps an SM (blocks of 256, 8 or 2 an
SM, one wave).  Prints SM cycles a pass (one distinct address of a request).  From the
repository root: python docs/results/timing_investigation/cscat/cscat.py > cscat_GPU.jsonl"""
import json
from pathlib import Path

import numpy as np

SRC = (Path(__file__).resolve().parent / "cscat.cu").read_text()
ITERS = 512


def main():
    import cupy as cp
    mod = cp.RawModule(code=SRC)
    rng = np.random.default_rng(0)
    cp.ndarray((16384,), cp.float32, memptr=mod.get_global("c_t")).set(rng.random(16384).astype(np.float32))
    dev = cp.cuda.runtime.getDeviceProperties(0)
    sms, clock = dev["multiProcessorCount"], 1.98e9
    print(json.dumps({"gpu": dev["name"].decode(), "sms": sms}), flush=True)
    s, e = cp.cuda.Event(), cp.cuda.Event()
    f = mod.get_function("cscat")
    for per_sm in (8, 2):
        for shift, G in ((0, 32), (2, 8), (4, 2), (5, 1)):
            for nbytes in (128, 512, 1024, 2048, 4096, 8192, 16384, 65536):
                grid, block = sms * per_sm, 256
                out = cp.zeros(grid * block, cp.float32)
                args = (out, np.int32(ITERS), np.int32(nbytes // 4 - 1), np.int32(shift))
                for _ in range(2):
                    f((grid,), (block,), args)
                ts = []
                for _ in range(5):
                    s.record(); f((grid,), (block,), args); e.record(); e.synchronize()
                    ts.append(cp.cuda.get_elapsed_time(s, e))
                ms = float(np.median(ts))
                passes = per_sm * 8 * ITERS * G                 # an SM's passes (distinct words a request)
                print(json.dumps({"warps_sm": per_sm * 8, "distinct": G, "table_bytes": nbytes, "ms": round(ms, 4),
                                  "cycles_per_pass_sm": round(ms * 1e-3 * clock / passes, 2)}), flush=True)


if __name__ == "__main__":
    main()
