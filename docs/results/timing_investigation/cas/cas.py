"""CAS microbenchmarks (cas.cu) on the present GPU; one JSON line per configuration.

python cas.py > cas_<gpu>.jsonl    (CuPy events, median of 5 after a warm-up)"""
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
LIMIT = float(sys.argv[1]) if len(sys.argv) > 1 else 400.0   # seconds for all configurations


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


def main():
    print(json.dumps({"device": props["name"].decode(), "sms": props["multiProcessorCount"], "smem": SMEM}), flush=True)
    # 1. uncontended lanes: CAS(old, old), ATOM and RED, packed and scattered, region sizes
    for nslots in (64, 256, 1024, 8192, 1 << 20):
        for packed in (1, 0):
            for kname in ("k_cas", "k_atom", "k_red"):
                run(kname, nslots, packed, 0, 1 << 24, 8)
    # 2. contended CAS-add: successes per word vs warps in flight (occupancy) and pattern
    for nslots in (64, 256, 1024, 4096):
        for packed in (1, 0):
            for bpsm in (8, 4, 2, 1):
                n = min(1 << 22, nslots * 2048)
                ms = run("k_cas_count", nslots, packed, 1, n, bpsm, reps=3)
                if ms is None:
                    break


if __name__ == "__main__":
    main()
