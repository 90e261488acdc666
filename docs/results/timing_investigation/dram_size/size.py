"""DRAM streaming rate against a launch's size, on the present GPU.  Copies of 1 MiB to
512 MiB per buffer in four shapes (size.cu), scan/decoupled-lookback's driver and
cupy.copyto at the same sizes.  Each kernel is timed twice: as the catalog's tables time it
(CupyBackend: the written buffer put back before every run) and back to back (nothing in
between, so a run finds the previous run's output dirty in L2).

From the repository root on the device:
python docs/results/timing_investigation/dram_size/size.py > docs/results/timing_investigation/dram_size/size_<gpu>.jsonl"""
import json
import statistics
from pathlib import Path
import numpy as np
import cupy as cp
from kernels_cuda import catalog
from kernels_cuda import cupy_backend as cb

SRC = str(Path(__file__).parent / "size.cu")
SMS = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
print(json.dumps({"device": cb.device_info().get("name"), "sms": SMS}), flush=True)


def shapes(n):
    n4 = n // 4
    return {
        "grid_copy": ((SMS * 32,), (256,), lambda a, b, t: [a, b, np.int32(n4)]),
        "elem_copy": ((n // 256,), (256,), lambda a, b, t: [a, b, np.int32(n)]),
        "tile_copy": ((n // 4096,), (256,), lambda a, b, t: [a, b, np.int32(n4)]),
        "ticket_copy": ((n // 4096,), (256,), lambda a, b, t: [a, b, t, np.int32(n4)]),
    }


def emit(**kw):
    print(json.dumps(kw), flush=True)


lookback = catalog.get("scan/decoupled-lookback")
for mib in (1, 2, 4, 8, 16, 32, 48, 64, 96, 128, 256, 512):
    n = mib << 18
    be = cb.CupyBackend(timed=True, warmup=3, repeat=15)
    a = be.to_device(np.ones(n, np.float32))
    b = be.zeros(n, np.float32)
    t = be.zeros(1, np.int32)
    for name, (grid, block, args) in shapes(n).items():
        be.launch(SRC, name, grid, block, args(a, b, t))
        emit(kernel=name, mib=mib, harness="restore", ms=round(be.launches[-1].ms, 5))
        mod, _ = be.module(SRC)
        fn = mod.get_function(name)
        kargs = args(a, b, t)
        ms = statistics.median(cb.time_gpu_samples(lambda: fn(grid, block, kargs), 3, 15))
        emit(kernel=name, mib=mib, harness="plain", ms=round(ms, 5))
    ms = statistics.median(cb.time_gpu_samples(lambda: cp.copyto(b, a), 3, 15))
    emit(kernel="copyto", mib=mib, harness="plain", ms=round(ms, 5))
    del a, b
    be2 = cb.CupyBackend(timed=True, warmup=3, repeat=15)
    lookback.run(be2, lookback.inputs(n=n, seed=0))
    emit(kernel="lookback", mib=mib, harness="restore", ms=round(sum(l.ms for l in be2.launches), 5),
         launches_ms=[round(l.ms, 5) for l in be2.launches])
    cp.get_default_memory_pool().free_all_blocks()
