"""scan/decoupled-lookback at 2^24 floats with 128 to 1024 threads a tile (8192 to 1024
tiles, the same bytes): if the look-back's chain of tiles sets the time it falls with
the tiles; if DRAM does, it stays.  Also a plain copy of the same bytes for scale.

From the repository root on the device: python docs/results/timing_investigation/lookback/lookback.py"""
import json
import numpy as np
import cupy as cp
from kernels_cuda import catalog, fam_best
from kernels_cuda import cupy_backend as cb

N = 1 << 24
e = catalog.get("scan/decoupled-lookback")
inp = e.inputs(n=N, seed=0)
print(json.dumps({"device": cb.device_info().get("name")}), flush=True)
for block in (128, 256, 512, 1024):
    fam_best.SCAN_BLOCK = block
    be = cb.CupyBackend(timed=True, warmup=2, repeat=10)
    out = e.run(be, inp)
    err = float(np.max(np.abs(out["y"][-1000:] / np.cumsum(inp["x"], dtype=np.float64)[-1000:] - 1)))
    print(json.dumps({"block": block, "tiles": fam_best.scan_tiles(N, block),
                      "launches_ms": [round(l.ms, 5) for l in be.launches], "rel_err_tail": err}), flush=True)
a = cp.asarray(inp["x"]); b = cp.empty_like(a)
cp.copyto(b, a); cp.cuda.Device().synchronize()
ts = []
for _ in range(10):
    s, t = cp.cuda.Event(), cp.cuda.Event()
    s.record(); cp.copyto(b, a); t.record(); t.synchronize()
    ts.append(cp.cuda.get_elapsed_time(s, t))
print(json.dumps({"copy_64MiB_ms": round(float(np.median(ts)), 5)}), flush=True)
