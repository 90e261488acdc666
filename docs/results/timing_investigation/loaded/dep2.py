"""Block size and store traffic (dep.cu) on the present GPU: chains of 1 and 2 dependent
loads, with and without their store, at 64 to 1024 threads a block and full occupancy.

python dep2.py > dep2_<gpu>.jsonl    (CuPy events, median of 7 after a warm-up)"""
import json
import numpy as np
import cupy as cp
from dep import mod, props, timed, N


def main():
    print(json.dumps({"device": props["name"].decode(), "sms": props["multiProcessorCount"]}), flush=True)
    ident = cp.arange(N, dtype=cp.int32)
    a = cp.concatenate([ident] * 2)
    out = cp.zeros(N, cp.int32)
    for block in (64, 128, 256, 512, 1024):
        for name in ("k_chain1", "k_chain2", "k_chainload1", "k_chainload2"):
            k = mod.get_function(name)
            grid = N // block
            ms = timed(lambda: k((grid,), (block,), (a, out, np.int32(N))))
            print(json.dumps({"k": name, "block": block, "n": N, "ms": round(ms, 5)}), flush=True)


if __name__ == "__main__":
    main()
