"""Time spmv_csr_vector over cases.CASES on the GPU: python sweep.py > sweep_GPU.jsonl
(median of 9 CUDA-event timings after 3 warm-ups, as --real).  --once: plain launches
(4 of each case: under ncu, profile the last with --launch-skip 3).  --big: allocate
1 GiB through CuPy's pool and free it first (the catalog's measurement runs after entries
with 2^24-element buffers; the pool then carves these small arrays from a large block)."""
import json
import sys

import cupy as cp

from kernels_cuda import cupy_backend as cb
from cases import CASES, run

once = "--once" in sys.argv
only = [a for a in sys.argv[1:] if not a.startswith("--")]
if "--big" in sys.argv:
    a = cp.zeros(1 << 28, cp.float32)
    a += 1
    cp.cuda.Device().synchronize()
    del a
    if "--free" in sys.argv:
        cp.get_default_memory_pool().free_all_blocks()
for name, R, L, X, g in CASES:
    if only and name not in only:
        continue
    be = cb.CupyBackend(timed=not once, warmup=3, repeat=9)
    for _ in range(4 if once else 1):
        grid, blk = run(be, name, R, L, X, g)
    t = be.launches[0]
    print(json.dumps({"case": name, "R": R, "L": L, "X": X, "group": g, "grid": grid,
                      "block": blk, "big": "--big" in sys.argv, "free": "--free" in sys.argv, "ms": t.ms, "samples_ms": t.samples}), flush=True)
