"""l1.cu on the present GPU: 132 x 8 blocks of 256 threads, 4096 trips each, per spread
(lines a request touches).  python l1.py > l1_<gpu>.jsonl"""
import json
from pathlib import Path
import numpy as np
import cupy as cp

mod = cp.RawModule(code=(Path(__file__).parent / "l1.cu").read_text())
props = cp.cuda.runtime.getDeviceProperties(0)
SMS = props["multiProcessorCount"]
k = mod.get_function("l1_lines")
table = cp.ones(4096, cp.float32)
out = cp.zeros(SMS * 8, cp.float32)
REPS = 4096
print(json.dumps({"device": props["name"].decode(), "sms": SMS}), flush=True)
for spread in (1, 2, 4, 8, 16, 32):
    def go():
        k((SMS * 8,), (256,), (table, out, np.int32(REPS), np.int32(spread)))
    go(); cp.cuda.Device().synchronize()
    ts = []
    for _ in range(7):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); go(); b.record(); b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b))
    ms = float(np.median(ts))
    lines = min(32, spread)
    req = SMS * 8 * 8 * REPS
    print(json.dumps({"spread": spread, "lines_per_request": lines, "ms": round(ms, 5),
                      "requests_per_cycle_sm": round(req / SMS / (ms * 1.98e6), 4),
                      "lines_per_cycle_sm": round(req * lines / SMS / (ms * 1.98e6), 4)}), flush=True)
