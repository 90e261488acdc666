"""CAS microbenchmarks (cas.cu) on the present GPU; one JSON line per configuration.

python cas2.py > cas2_<gpu>.jsonl: steady states on 64 and 256 words, small grids (CuPy events)"""
import json, sys, time
from pathlib import Path
import numpy as np
import cupy as cp

mod = cp.RawModule(code=(Path(__file__).parent / "cas.cu").read_text())
dev = cp.cuda.Device()
props = cp.cuda.runtime.getDeviceProperties(dev.id)
SMEM = props["sharedMemPerMultiprocessor"]
sink = cp.zeros(1, cp.int32)
att = cp.zeros(1024, cp.uint64)
t_start = time.time()
LIMIT = float(sys.argv[1]) if len(sys.argv) > 1 else 400.0


def timed(fn, reps=5):
    fn(); dev.synchronize()
    ts = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); fn(); b.record(); b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b))
    return float(np.median(ts))


def run(kname, nslots, packed, val, n, bpsm, block=256, reps=5):
    if time.time() - t_start > LIMIT:
        return None
    k = mod.get_function(kname)
    slots = cp.zeros(nslots, cp.int32)
    # occupancy lever: dynamic shared memory so that only bpsm blocks fit an SM
    shm = 0 if bpsm >= 2048 // block else (SMEM // bpsm) - 1024 * 1 - 1
    shm = max(0, min(shm, 227 * 1024))
    if shm > 48 * 1024:
        k.max_dynamic_shared_size_bytes = shm
    grid = -(-n // block)
    last = kname == "k_cas_count"
    extra = att if last else sink
    def go():
        k((grid,), (block,), (slots, np.uint32(nslots - 1), np.int32(packed), np.int32(val),
                              np.int32(n), extra), shared_mem=shm)
    ms = timed(go, reps)
    rec = {"k": kname, "slots": nslots, "packed": packed, "val": val, "n": n, "bpsm": bpsm,
           "block": block, "shm": shm, "ms": round(ms, 5)}
    if last:
        att.fill(0); slots.fill(0); go(); dev.synchronize()
        rec["attempts"] = int(att.get().sum())
    print(json.dumps(rec), flush=True)
    return ms


print(json.dumps({"device": props["name"].decode(), "sms": props["multiProcessorCount"], "smem": SMEM}), flush=True)
# 3. steady state on 64 words (grids of many waves), 4 occupancies
for packed in (1, 0):
    for bpsm in (8, 4, 2, 1):
        run("k_cas_count", 64, packed, 1, 1 << 21, bpsm, reps=3)
# 4. small grids that fit the GPU at once (256 hashed words)
for n in (4096, 16384, 65536, 262144):
    run("k_cas_count", 256, 0, 1, n, 8, reps=5)
# 5. steady state on 256 hashed words, 4 occupancies
for bpsm in (8, 4, 2, 1):
    run("k_cas_count", 256, 0, 1, 1 << 22, bpsm, reps=3)
