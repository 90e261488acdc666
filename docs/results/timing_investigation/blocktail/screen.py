"""The emulated blocks' lives (SM cycles, simt__block_cycles' per-block values) of the
sampled launches whose longest block is more than 1.5x their mean, for a rule that
extrapolates the grid's longest block from the sample's tail (README.md).  Each id is
emulated as its prediction is (timing_check.emulate); per launch, the sorted lives of the
emulated blocks, the grid's and the sample's block counts, and the launch's metrics:

    python docs/results/timing_investigation/blocktail/screen.py OUT.jsonl JOBS IDS.txt
"""
import json, multiprocessing, sys, time
from pathlib import Path

from kernels_cuda import timing_check as t
from simt import counters

_orig = counters.Counters.metrics


def metrics(self, scale: float = 1.0):
    out = _orig(self, scale)
    if self.finish.any():
        nb = max(1, self.run_blocks)
        blk = self.finish[: nb * self.wpb].reshape(nb, self.wpb).max(axis=1)
        out["_blk"] = sorted((round(float(b), 1) for b in blk), reverse=True)
    return out


counters.Counters.metrics = metrics


def work(eid):
    t0 = time.time()
    try:
        e = t._entry(eid)
        n = int(e.default_n)
        res = []
        for r in t.emulate(e, n):
            m = dict(r.metrics)
            blk = m.pop("_blk", [])
            res.append({"kernel": r.kernel, "grid_blocks": r.config.grid.size,
                        "threads_per_block": r.config.block.size,
                        "shared_bytes": getattr(r, "shared_bytes", r.config.shared_mem),
                        "sampled_blocks": getattr(r, "sampled_blocks", None), "blk": blk, "metrics": m})
        return eid, n, {"launches": res}, time.time() - t0
    except Exception as ex:
        return eid, None, {"error": repr(ex)[:300]}, time.time() - t0


if __name__ == "__main__":
    dest, jobs, ids = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]).read_text().split()
    with open(dest, "w") as fh, multiprocessing.get_context("fork").Pool(jobs) as pool:
        for eid, n, out, dt in pool.imap_unordered(work, ids):
            fh.write(json.dumps({"id": eid, "n": n, "s": round(dt, 1), **out}, default=float) + "\n")
            fh.flush()
