"""simt's predictions for micro.py's variants beside what the H200 measured
(micro_h200.jsonl): python docs/results/timing_investigation/sortscatter/predict.py [VARIANT ...]"""
import json
import os
import sys
import tempfile

import numpy as np

from kernels_cuda import timing_check
from kernels_cuda import timing_probes as tp
from simt import timing

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import micro  # noqa: E402

N = 1 << 22


def _slots(args, ordered):
    """The slots orig's atomics give in lane order (each cell's fill in particle order)."""
    x, y, start, n = args[0], args[1], args[5], int(args[-1])
    ng = int(args[-2])
    cell = (y * args[14]).astype(np.int32) * ng + (x * args[13]).astype(np.int32)
    order = np.argsort(cell, kind="stable")
    slot = np.empty(n, np.int32)
    slot[order] = np.arange(n, dtype=np.int32)      # = start[cell] + rank within the cell
    assert (slot >= start[cell]).all()
    return np.sort(slot.reshape(-1, 32), axis=1).ravel() if ordered else slot


def main(variants):
    src = os.path.join(tempfile.mkdtemp(), "scatter.cu")
    with open(src, "w") as f:
        f.write(micro.SRC)
    meas = {}
    for line in open(os.path.join(HERE, "micro_h200.jsonl")):
        d = json.loads(line)
        if "ms" in d:
            meas[d["variant"]] = d["ms"]
    prof = timing.load_profile("h200")
    for v in variants or micro.VARIANTS:
        def args(n, rng, v=v):
            a = tp._p102_sort_args(n, rng)
            return [*a[:13], _slots(a, v == "scatter_ord"), *a[13:]]
        k = "scatter" if v.startswith("scatter") else v
        e = tp.TimingProbe(f"scatter/{v}", "scatter", k, N, 256, lambda n: -(-n // 256), args, source=src)
        (r,) = timing_check.emulate(e, N)
        p = timing.predict_result(r, prof)
        top = sorted(p.components_us.items(), key=lambda kv: -kv[1])[:4]
        print(f"{v:12s} measured {meas[v]:.4f} predicted {p.ms:.4f} ratio {p.ms / meas[v]:.2f} {p.bound} "
              f"{[(a, round(b, 1)) for a, b in top]}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
