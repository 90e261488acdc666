"""tree.cu on the present GPU: cycles per block (clock64, median over blocks) alone on the
GPU (1 block) and at full occupancy (132 x 2048 / block threads blocks), 64 to 1024
threads a block.

python tree.py > tree_<gpu>.jsonl"""
import json
from pathlib import Path
import numpy as np
import cupy as cp

mod = cp.RawModule(code=(Path(__file__).parent / "tree.cu").read_text())
props = cp.cuda.runtime.getDeviceProperties(0)
SMS = props["multiProcessorCount"]


def main():
    print(json.dumps({"device": props["name"].decode(), "sms": SMS}), flush=True)
    for block in (64, 128, 256, 512, 1024):
        for full in (False, True):
            grid = SMS * (2048 // block) if full else 1
            n = grid * block
            ins = cp.ones(n, cp.int32)
            fin = cp.ones(n, cp.float32)
            out = cp.zeros(grid, cp.int32)
            fout = cp.zeros(grid, cp.float32)
            cyc = cp.zeros(grid, cp.int64)
            for name, args, shm in (("k_tree", (ins, out, cyc), block * 4),
                                    ("k_bar", (out, cyc), 0),
                                    ("k_sts_bar_lds", (out, cyc), block * 4),
                                    ("k_shfl", (fin, fout, cyc), 0)):
                k = mod.get_function(name)
                for _ in range(3):
                    k((grid,), (block,), args, shared_mem=shm)
                cp.cuda.Device().synchronize()
                c = cyc.get()
                print(json.dumps({"k": name, "block": block, "grid": grid,
                                  "cycles_median": float(np.median(c)), "cycles_max": int(c.max())}), flush=True)


if __name__ == "__main__":
    main()
