"""Where scan_lookback's time goes on the GPU: the catalog's kernel (kernels_cuda/best.cu)
with timestamps inserted (this script edits a copy of the source; the catalog's file is
unchanged).  Per tile: %globaltimer when the tile's ticket is known (t0), clock64 deltas
from there to the aggregate's publication (loads and the tile's own scan done), to the end
of the look-back (inclusive prefix published) and to the stores' issue; and how many
32-tile windows warp 0 read and how often lane 0 re-read a status word still 0.

From the repository root on the device:
python docs/results/timing_investigation/lookback/trace.py > docs/results/timing_investigation/lookback/trace_<gpu>.jsonl"""
import json
import re
from pathlib import Path
import numpy as np
import cupy as cp
from kernels_cuda import cupy_backend as cb

src = (Path(cb.__file__).parent / "best.cu").read_text()
start = src.index("__global__ void scan_init")
end = src.index("// =====", src.index("__global__ void scan_lookback"))
body = src[start:end]


def sub(old, new, count=1):
    global body
    assert body.count(old) >= 1, old
    body = body.replace(old, new, count)


sub("unsigned long long* status, int* tile_counter, int n)",
    "unsigned long long* status, int* tile_counter, int n, long long* trace)")
sub("    int tile = tile_sh[0];\n",
    "    int tile = tile_sh[0];\n    long long c0 = clock64(); unsigned long long g0;\n"
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(g0));\n    int windows = 0, spins = 0;\n")
sub("                vstatus[tile] = SCAN_STATUS(1, agg);   // publish the aggregate early\n",
    "                vstatus[tile] = SCAN_STATUS(1, agg);   // publish the aggregate early\n"
    "            if (lane == 0) trace[tile * 6 + 1] = clock64() - c0;\n")
sub("                        st = vstatus[idx];\n", "                        st = vstatus[idx]; spins++;\n")
sub("                look -= 32;\n", "                look -= 32; windows++;\n")
sub("                vstatus[tile] = SCAN_STATUS(2, excl + agg);\n",
    "                vstatus[tile] = SCAN_STATUS(2, excl + agg);\n"
    "            if (lane == 0) { trace[tile * 6 + 2] = clock64() - c0; trace[tile * 6 + 4] = windows + 1;"
    " trace[tile * 6 + 5] = spins; }\n")
sub("    SCAN_STORE(v3, base + 96)\n",
    "    SCAN_STORE(v3, base + 96)\n    if (tid == 0) { trace[tile * 6 + 0] = (long long)g0;"
    " trace[tile * 6 + 3] = clock64() - c0; }\n")
head = src[:start]
mod = cp.RawModule(code=head + body + "\n}  // extern \"C\"\n", options=("--std=c++17",))
init, look = mod.get_function("scan_init"), mod.get_function("scan_lookback")
props = cp.cuda.runtime.getDeviceProperties(0)
clock_ghz = props["clockRate"] / 1e6
print(json.dumps({"device": props["name"].decode(), "clock_ghz": clock_ghz}), flush=True)
for mib, block in ((64, 128), (64, 256), (64, 1024), (256, 256), (16, 256)):
    n = mib << 18
    tiles = -(-n // (block * 16))
    x = cp.random.random(n, dtype=cp.float32)
    y = cp.empty_like(x)
    status = cp.empty(tiles, cp.uint64)
    counter = cp.empty(1, cp.int32)
    trace = cp.zeros(tiles * 6, cp.int64)

    def go():
        init((-(-tiles // 256),), (256,), (status, counter, np.int32(tiles)))
        look((tiles,), (block,), (x, y, status, counter, np.int32(n), trace))
    ms = cb.time_gpu(go, 3, 10)
    go(); cp.cuda.Device().synchronize()
    ok = bool(abs(float(y[-1]) / float(cp.sum(x.astype(cp.float64))) - 1) < 1e-3)
    t = trace.get().reshape(tiles, 6).astype(np.float64)
    g0 = t[:, 0] - t[:, 0].min()
    us = lambda c: c / (clock_ghz * 1e3)
    q = lambda a: [round(float(np.percentile(a, p)), 3) for p in (10, 50, 90)]
    steady = slice(tiles // 4, 3 * tiles // 4)
    print(json.dumps({
        "mib": mib, "block": block, "tiles": tiles, "ms_incl_init": round(ms, 5), "result_ok": ok,
        "start_span_us": round(float(g0.max()) / 1e3, 2),
        "tiles_per_us_steady": round((steady.stop - steady.start) / max(1e-9, float(np.ptp(g0[steady])) / 1e3), 1),
        "to_aggregate_us_p10_50_90": q(us(t[steady, 1])),
        "lookback_us_p10_50_90": q(us(t[steady, 2] - t[steady, 1])),
        "to_stores_us_p10_50_90": q(us(t[steady, 3] - t[steady, 2])),
        "life_us_p10_50_90": q(us(t[steady, 3])),
        "windows_p10_50_90": q(t[steady, 4]), "windows_max": int(t[:, 4].max()),
        "lane0_spins_p10_50_90": q(t[steady, 5])}), flush=True)
