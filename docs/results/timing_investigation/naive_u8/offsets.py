"""naive histogram (int and u8 data) with the bins at several offsets in one buffer: does
the time depend on where the 256 bins lie (L2 slice mapping) or on the data type?"""
import cupy as cp, numpy as np, statistics, json
from kernels_cuda.fam_histogram import histogram_data
src = open("kernels_cuda/histogram.cu").read()
mod = cp.RawModule(code=src, options=("-std=c++17",))
k_int = mod.get_function("histograma_ingenuo"); k_u8 = mod.get_function("histogram_naive")
k_aint = mod.get_function("histograma_atomico"); k_au8 = mod.get_function("histogram_atomic")
n = 1 << 24
rng = np.random.default_rng(0)
d8 = histogram_data(n, rng, "image", np.uint8)
dint = cp.asarray(d8.astype(np.int32)); du8 = cp.asarray(d8)
buf = cp.zeros(8 << 20, cp.int32)
s, e = cp.cuda.Event(), cp.cuda.Event()
def t(fn):
    ts = []
    for _ in range(7):
        buf.fill(0); cp.cuda.Device().synchronize()
        s.record(); fn(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return statistics.median(ts[2:])
g, b = (n // 256,), (256,)
out = []
for off_bytes in [0, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536, 1 << 20, 3 << 20]:
    h = buf[off_bytes // 4:]
    r = {"off": off_bytes, "ptr_mod_64k": int(h.data.ptr % 65536),
         "naive_int": t(lambda: k_int(g, b, (dint, h, np.int32(n), np.int32(256)))),
         "naive_u8": t(lambda: k_u8(g, b, (du8, h, np.int32(n)))),
         "atomic_int": t(lambda: k_aint(g, b, (dint, h, np.int32(n), np.int32(256)))),
         "atomic_u8": t(lambda: k_au8(g, b, (du8, h, np.int32(n))))}
    print(json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()}), flush=True)
