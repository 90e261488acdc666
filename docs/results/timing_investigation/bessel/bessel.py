"""Issue cost of double-precision j0/y0/j1/y1 by argument range on the present GPU
(session 73, for the MoM fill's miss, unseen244/notes.md): each lane calls the function
TRIPS times on arguments near x0 (a dependent chain: x += f(x) * 1e-30 keeps it live),
timed by CUDA events. One warp a sub-partition (SMs x 128 threads) gives a call's latency,
time x clock / TRIPS; sixteen a sub-partition (2 x SMs blocks of 1024) its issue cycles a
warp, time x clock / (TRIPS x 16).  From the repository root on a GPU machine:

    python3 docs/results/timing_investigation/bessel/bessel.py [--sweep] > bessel[_sweep]_<gpu>.txt"""
import sys

import cupy as cp

SRC = r"""
extern "C" __global__ void k(double *out, double x0, int trips) {
    double x = x0 + 1e-3 * (threadIdx.x & 31);
    double acc = 0.0;
    for (int i = 0; i < trips; i++) {
        double v = FN(x);
        acc += v;
        x += v * 1e-30;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
"""
TRIPS = 4096
dev = cp.cuda.Device()
clock_khz = cp.cuda.runtime.deviceGetAttribute(cp.cuda.runtime.cudaDevAttrClockRate, dev.id)
sms = dev.attributes["MultiProcessorCount"]
print(f"# {cp.cuda.runtime.getDeviceProperties(dev.id)['name'].decode()}, {sms} SMs, clock {clock_khz / 1e6:.3f} GHz (attribute)")
print("fn x0 latency_cycles issue_cycles_per_warp")
out = cp.zeros(sms * 2048, cp.float64)
for fn in ("j0", "y0", "j1", "y1"):
    k = cp.RawKernel(SRC.replace("FN", fn), "k")
    xs = (0.5, 2.0, 5.0, 7.5, 10.0, 30.0, 100.0, 1000.0)
    if "--sweep" in sys.argv:          # every 0.25 up to 40 (bessel_sweep_h200.txt)
        xs = [0.25 * i for i in range(1, 161)]
    for x0 in xs:
        row = []
        for grid, block, per in ((sms, 128, 1), (2 * sms, 1024, 16)):
            k((grid,), (block,), (out, cp.float64(x0), cp.int32(TRIPS)))
            ts = []
            for _ in range(5):
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record()
                k((grid,), (block,), (out, cp.float64(x0), cp.int32(TRIPS)))
                b.record(); b.synchronize()
                ts.append(cp.cuda.get_elapsed_time(a, b))
            ms = sorted(ts)[2]
            row.append(ms * 1e-3 * clock_khz * 1e3 / (TRIPS * per))
        print(fn, x0, f"{row[0]:.1f}", f"{row[1]:.1f}", flush=True)
