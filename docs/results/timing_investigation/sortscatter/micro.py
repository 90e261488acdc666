"""Where probe/pic-sort-scatter-cells' time goes (unseen100/: 0.221 ms on the H200, simt
0.073).  The kernel: per particle p (2^22, nearly sorted by cell, 256 x 256 cells),
    cell = cell of (x[p], y[p]);  slot = cell_start[cell] + atomicAdd(&cell_fill[cell], 1);
    xs[slot] = x; ys[slot] = y; vxs[slot] = vx[p]; vys[slot] = vy[p]; vzs[slot] = vz[p];
    id_sorted[slot] = p;
Variants on the probe's own inputs (timing_probes._p102_sort_args, seed 0):
    orig        the kernel as it is
    atom_only   the atomic, then id_sorted[p] = slot (one coalesced store)
    atom_coal   the atomic, then all six stores at p instead of slot (coalesced)
    red_coal    atomicAdd without its value (RED), the six stores at p
    scatter     no atomic: slot read from slots[p] (what orig's atomics gave), six stores at slot
    scatter_ord the same with the slots sorted within each warp (lane order = slot order)
Median of 9 CUDA-event timings after 3 warm-ups, cell_fill zeroed before each run.
python micro.py > micro_GPU.jsonl on the GPU (with the repository on PYTHONPATH)."""
import json

import numpy as np

SRC = r'''
#define HEAD int p = blockIdx.x * blockDim.x + threadIdx.x; if (p >= np) return; \
    float px = x[p], py = y[p]; int cell = (int)(py * inv_dy) * nx + (int)(px * inv_dx);
#define ARGS const float *x, const float *y, const float *vx, const float *vy, const float *vz, \
    const int *cell_start, int *cell_fill, float *xs, float *ys, float *vxs, float *vys, float *vzs, \
    int *id_sorted, const int *slots, float inv_dx, float inv_dy, int nx, int np
#define STORES(s) xs[s] = px; ys[s] = py; vxs[s] = vx[p]; vys[s] = vy[p]; vzs[s] = vz[p];
extern "C" {
__global__ void orig(ARGS) { HEAD int slot = cell_start[cell] + atomicAdd(&cell_fill[cell], 1);
    STORES(slot) id_sorted[slot] = p; }
__global__ void atom_only(ARGS) { HEAD int slot = cell_start[cell] + atomicAdd(&cell_fill[cell], 1);
    id_sorted[p] = slot; }
__global__ void atom_coal(ARGS) { HEAD int slot = cell_start[cell] + atomicAdd(&cell_fill[cell], 1);
    STORES(p) id_sorted[p] = slot; }
__global__ void red_coal(ARGS) { HEAD atomicAdd(&cell_fill[cell], 1); STORES(p) id_sorted[p] = cell_start[cell]; }
__global__ void scatter(ARGS) { HEAD int slot = slots[p]; STORES(slot) id_sorted[slot] = p; }
}
'''
VARIANTS = ("orig", "atom_only", "atom_coal", "red_coal", "scatter", "scatter_ord")


def main():
    import cupy as cp
    from kernels_cuda import timing_probes as tp
    args = tp._p102_sort_args(1 << 22, np.random.default_rng(0))
    n = int(args[-1])
    dev = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    fill = dev[6]
    mod = cp.RawModule(code=SRC)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    slots = cp.zeros(n, cp.int32)
    grid = (n + 255) // 256
    # the slots orig's atomics give (id_sorted[slot] = p, inverted)
    fill.fill(0)
    mod.get_function("orig")((grid,), (256,), (*dev[:13], slots, *dev[13:]))
    inv = cp.empty(n, cp.int32)
    inv[dev[12]] = cp.arange(n, dtype=cp.int32)
    ordered = cp.sort(inv.reshape(-1, 32), axis=1).ravel()
    for v in VARIANTS:
        f = mod.get_function("scatter" if v.startswith("scatter") else v)
        a = (*dev[:13], ordered if v == "scatter_ord" else inv, *dev[13:])
        ts = []
        for k in range(12):
            fill.fill(0)
            start.record(); f((grid,), (256,), a); stop.record(); stop.synchronize()
            if k >= 3:
                ts.append(cp.cuda.get_elapsed_time(start, stop))
        print(json.dumps({"variant": v, "n": n, "ms": float(np.median(ts))}), flush=True)


if __name__ == "__main__":
    main()
