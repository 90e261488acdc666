"""__constant__ tables larger than the constant cache, read warp-uniformly in a loop.
probe/coulomb-grid-const (unseen69/: a thread a grid point, every atom of a 64,000-byte
__constant__ float4 table a trip, ULDC.64 in SASS) took 4.79 ms where simt, taking the
uniform loads for operands, gave 0.61.

Kernel: acc += a.x * a.y + a.z * a.w over a = c_tab[i], i = 0 .. m - 1, reps times
(m x reps = 16384 trips), each thread of 132 x 8 blocks of 256 (one wave).  m = 64 .. 4000
(1 KiB .. 62.5 KiB).  `step` 4: i stepping 4 entries (64 bytes) a trip.  `cscan` indexes (i * step) % m, which
nvcc reads with LDC.64 from a register index; `cscan_u` indexes i (i += step), which it
reads with LDC.64 too (its step is a run-time value); `cscan_c` is coulomb_grid's loop
(an atom a trip, rsqrtf) inside a loop over reps, which nvcc reads with LDC.64 as well;
`cscan_d` is coulomb_grid's loop alone (an early return, one pass over m atoms), which
nvcc reads with ULDC.64 through a uniform register, as coulomb_grid.
Median of 7 CUDA-event timings; cycles a warp-trip at 1.98 GHz.
python cbig.py > cbig_GPU.jsonl on the GPU; predict.py here gives simt's."""
import json

import numpy as np

SRC = r'''
__constant__ float4 c_tab[4000];
extern "C" __global__ void cscan(float *out, int m, int reps, int step) {
    float acc = 0.0f;
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < m; i++) {
            float4 a = c_tab[(i * step) % m];
            acc += a.x * a.y + a.z * a.w;
        }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
extern "C" __global__ void cscan_u(float *out, int m, int reps, int step) {
    float acc = 0.0f;
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < m; i += step) {
            float4 a = c_tab[i];
            acc += a.x * a.y + a.z * a.w;
        }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
extern "C" __global__ void cscan_c(float *out, int m, int reps, int step) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float gx = (t & 63) * 0.5f, gy = ((t >> 6) & 63) * 0.5f, gz = (t >> 12) * 0.5f;
    float v = 0.0f;
    for (int r = 0; r < reps; r++)
        for (int a = 0; a < m; a++) {
            float dx = gx - c_tab[a].x;
            float dy = gy - c_tab[a].y;
            float dz = gz - c_tab[a].z;
            v += c_tab[a].w * rsqrtf(dx * dx + dy * dy + dz * dz);
        }
    out[t] = v;
}
extern "C" __global__ void cscan_d(float *out, int m, int reps, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    float gx = (t & 63) * 0.5f, gy = ((t >> 6) & 63) * 0.5f, gz = (t >> 12) * 0.5f;
    float v = 0.0f;
    for (int a = 0; a < m; a++) {
        float dx = gx - c_tab[a].x;
        float dy = gy - c_tab[a].y;
        float dz = gz - c_tab[a].z;
        v += c_tab[a].w * rsqrtf(dx * dx + dy * dy + dz * dz);
    }
    out[t] = v;
}
'''
MS = (64, 128, 256, 512, 1024, 2048, 4000)
TRIPS = 16384
GRID, BLOCK = 132 * 8, 256


def cases():
    for kern in ("cscan", "cscan_u", "cscan_c"):
        for step in (1, 4):
            for m in MS:
                yield kern, m, step, TRIPS // (m // step)
    for m in MS:                        # cscan_d: one pass over m entries (reps 1)
        yield "cscan_d", m, 1, 1


def main():
    import cupy as cp
    mod = cp.RawModule(code=SRC)
    tab = mod.get_global("c_tab")
    cp.ndarray((4000, 4), cp.float32, memptr=tab).set(np.random.default_rng(0).random((4000, 4), np.float32))
    out = cp.zeros(GRID * BLOCK, cp.float32)
    s, e = cp.cuda.Event(), cp.cuda.Event()
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    for kern, m, step, reps in cases():
        f = mod.get_function(kern)
        args = (out, np.int32(m), np.int32(reps), np.int32(GRID * BLOCK if kern == "cscan_d" else step))
        for _ in range(2):
            f((GRID,), (BLOCK,), args)
        ts = []
        for _ in range(7):
            s.record(); f((GRID,), (BLOCK,), args); e.record(); e.synchronize()
            ts.append(cp.cuda.get_elapsed_time(s, e))
        ms = float(np.median(ts))
        trips = m // step * reps
        print(json.dumps({"kernel": kern, "m": m, "bytes": m * 16, "step": step, "reps": reps, "ms": ms,
                          "cycles_per_warp_trip_sm": ms * 1.98e6 / (trips * GRID * BLOCK / 32 / 132)}), flush=True)


if __name__ == "__main__":
    main()
