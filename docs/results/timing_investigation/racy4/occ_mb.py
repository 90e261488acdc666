"""racy4's second call: where the warps of a one-read-modify-write-a-thread racy histogram
wait, and how its time and merging follow the warps an SM holds.

``once`` of partial_mb.py over the same four bin patterns, at 1, 2, 4 and 8 blocks of 256
threads an SM (dynamic shared memory limits the blocks an SM holds; 8 is the kernel's own
occupancy).  Nsight Compute's warp-state counters (run_occ.sh) say whether warps wait on
the bin load (long scoreboard), on the store path (lg throttle) or at EXIT for their stores
to drain (drain).

python docs/results/timing_investigation/racy4/occ_mb.py > occ_GPU.jsonl"""
import json
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import partial_mb as P  # noqa: E402

SHARED_PER_SM = 228 * 1024
OCC = [8, 4, 2, 1]
CASES = [f"{k}_b{b}" for k in P.ONCE for b in OCC]


def smem_for(b):
    """Dynamic shared bytes that leave room for b blocks an SM (1 KiB reserved a block)."""
    return 0 if b >= 8 else min(200 * 1024, SHARED_PER_SM // b - 1024 - 64)


def main(want):
    import cupy as cp
    f = cp.RawModule(code=P.SRC).get_function("once")
    f.max_dynamic_shared_size_bytes = 200 * 1024
    hist = cp.zeros(64 * 32, np.int32)
    for kind in P.ONCE:
        bins = None
        for b in OCC:
            name = f"{kind}_b{b}"
            if want and name not in want:
                continue
            if bins is None:
                bins = cp.asarray(P.bins_for(kind))
            s = smem_for(b)
            ms = P.timed(f, ((P.N + 255) // 256,), (256,), (bins, hist, np.int32(P.N)), 1 if want else 7, s)
            print(json.dumps({"case": name, "bins": kind, "blocks_per_sm": b, "smem": s, "ms": ms}),
                  flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
