"""barred.cu on the present GPU: cycles a trip (clock64 around the loop, median over
blocks) alone (1 block) and at full occupancy (SMs x 2048 / block threads blocks), and
the whole launch's time by CUDA events (median of 5), for 64 to 1024 threads a block.

python barred.py > barred_<gpu>.jsonl"""
import json
from pathlib import Path
import numpy as np
import cupy as cp

mod = cp.RawModule(code=(Path(__file__).parent / "barred.cu").read_text())
props = cp.cuda.runtime.getDeviceProperties(0)
SMS = props["multiProcessorCount"]
TRIPS = 1000


def main():
    print(json.dumps({"device": props["name"].decode(), "sms": SMS, "trips": TRIPS}), flush=True)
    for block in (64, 256, 1024):
        for full in (False, True):
            grid = SMS * (2048 // block) if full else 1
            n = grid * block
            out = cp.zeros(grid, cp.int32)
            cyc = cp.zeros(grid, cp.int64)
            rhs = cp.full(n, 1e-3, cp.float32)
            x = cp.zeros(n, cp.float32)
            for name, args, shm in (("k_bar", (out, cyc, np.int32(TRIPS)), 0),
                                    ("k_count", (out, cyc, np.int32(TRIPS)), 0),
                                    ("k_or", (out, cyc, np.int32(TRIPS)), 0),
                                    ("k_count_exit", (out, cyc, np.int32(TRIPS)), 0),
                                    ("k_jac", (rhs, x, cyc, np.int32(TRIPS)), (block + 2) * 4),
                                    ("k_jac_bar", (rhs, x, cyc, np.int32(TRIPS)), (block + 2) * 4)):
                k = mod.get_function(name)
                k((grid,), (block,), args, shared_mem=shm)
                ms = []
                for _ in range(5):
                    a, b = cp.cuda.Event(), cp.cuda.Event()
                    a.record(); k((grid,), (block,), args, shared_mem=shm); b.record(); b.synchronize()
                    ms.append(cp.cuda.get_elapsed_time(a, b))
                c = cyc.get()
                print(json.dumps({"k": name, "block": block, "grid": grid,
                                  "cycles_per_trip": float(np.median(c)) / TRIPS,
                                  "ms": float(np.median(ms))}), flush=True)


if __name__ == "__main__":
    main()
