"""python cas3.py > cas3_<gpu>.jsonl: cas3.cu's four patterns on 64 words, steady states."""
import json
from pathlib import Path
import numpy as np
import cupy as cp

mod = cp.RawModule(code=(Path(__file__).parent / "cas3.cu").read_text())
k = mod.get_function("k_cas_pat")
dev = cp.cuda.Device()
SMEM = cp.cuda.runtime.getDeviceProperties(dev.id)["sharedMemPerMultiprocessor"]
att = cp.zeros(1024, cp.uint64)
slots = cp.zeros(64, cp.int32)
n = 1 << 21
for mode in (0, 1, 2, 3):
    for bpsm in (8, 2):
        shm = 0 if bpsm == 8 else SMEM // bpsm - 1025
        if shm > 48 * 1024:
            k.max_dynamic_shared_size_bytes = shm
        def go():
            k((n // 256,), (256,), (slots, np.int32(mode), np.int32(n), att), shared_mem=shm)
        go(); dev.synchronize()
        ts = []
        for _ in range(3):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record(); go(); b.record(); b.synchronize()
            ts.append(cp.cuda.get_elapsed_time(a, b))
        att.fill(0); go(); dev.synchronize()
        print(json.dumps({"mode": mode, "bpsm": bpsm, "n": n, "ms": float(np.median(ts)),
                          "attempts": int(att.get().sum())}), flush=True)
