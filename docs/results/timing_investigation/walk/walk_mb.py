"""Lanes that walk their own rows: how much of a lane's line L1 and L2 still hold at its
next step, against the lines the SM's lanes hold at once and how fast a lane steps.

- ``dep``: lane t walks row t (R ints, rows back to back, so lanes R x 4 bytes apart),
  its next index depending on the value it loaded (one load latency a step, as
  probe/merge-pass-w32's merge);
- ``ind``: the same walk with the index a plain counter (loads independent of each other);
- ``merge``: probes56.cu's merge_pass, runs of R / 2;
- ``mergecg`` (session 37, second run): the same with its stores by ``__stcg`` (cached in L2
  only), to see whether the output lines take L1's room.

A grid of 132 x k blocks of 256 threads (one wave, k blocks an SM), so the SM's lanes hold
k x 256 x R x 4 / 128 input lines, and the GPU's k x 132 x 256 x R x 4 bytes.  Median of
15 launches after 3 warm-ups.  From the repository root on the GPU machine:
python docs/results/timing_investigation/walk/walk_mb.py > walk_GPU.jsonl (with a case name:
that case once, for Nsight Compute)."""
import json
import sys

try:
    import cupy as cp
except ImportError:          # a predictor reads SRC and CASES without a GPU
    cp = None
import numpy as np

SRC = r'''
extern "C" __global__ void walk_dep(const int *x, int *out, int r) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int *row = x + (size_t)t * r;
    int s = 0, i = 0;
    while (i < r) {
        int v = row[i];
        s += v;
        i += 1 + (v >> 30);          // the data are below 2^30: always 1, known only at run time
    }
    out[t] = s;
}
extern "C" __global__ void walk_ind(const int *x, int *out, int r) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int *row = x + (size_t)t * r;
    int s = 0;
    for (int i = 0; i < r; ++i) s += row[i];
    out[t] = s;
}
extern "C" __global__ void merge_pass(const int *in, int *out, int n, int width) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    long long lo = (long long)g * 2 * width;
    if (lo >= n) return;
    int i = (int)lo, mid = (int)min(lo + width, (long long)n), hi = (int)min(lo + 2 * width, (long long)n);
    int j = mid, k = (int)lo;
    while (i < mid && j < hi) {
        if (in[i] <= in[j]) out[k++] = in[i++];
        else out[k++] = in[j++];
    }
    while (i < mid) out[k++] = in[i++];
    while (j < hi) out[k++] = in[j++];
}
extern "C" __global__ void merge_pass_cg(const int *in, int *out, int n, int width) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    long long lo = (long long)g * 2 * width;
    if (lo >= n) return;
    int i = (int)lo, mid = (int)min(lo + width, (long long)n), hi = (int)min(lo + 2 * width, (long long)n);
    int j = mid, k = (int)lo;
    while (i < mid && j < hi) {
        if (in[i] <= in[j]) __stcg(&out[k++], in[i++]);
        else __stcg(&out[k++], in[j++]);
    }
    while (i < mid) __stcg(&out[k++], in[i++]);
    while (j < hi) __stcg(&out[k++], in[j++]);
}
'''
SMS, BLOCK = 132, 256
# (case, kernel, R ints a lane, k blocks an SM)
CASES = ([(f"{kind}_r{r}_k{k}", f"walk_{kind}", r, k) for kind in ("dep", "ind") for r in (32, 64)
          for k in (1, 2, 4, 6, 8)]
         + [(f"merge_r64_k{k}", "merge_pass", 64, k) for k in (1, 2, 4, 6, 8)]
         + [(f"mergecg_r64_k{k}", "merge_pass_cg", 64, k) for k in (2, 4, 6, 8)])


def data(r: int, k: int, rng) -> np.ndarray:
    """The rows: each lane's R ints, sorted in halves (merge's two runs), below 2^20."""
    lanes = SMS * k * BLOCK
    a = rng.integers(0, 1 << 20, (lanes * 2, r // 2), dtype=np.int32)
    return np.sort(a, axis=1).ravel()


def main():
    mod = cp.RawModule(code=SRC)
    dev = cp.cuda.Device()
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(dev.id)["name"].decode()}), flush=True)
    ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
    only = set(sys.argv[1:])
    for case, kern, r, k in CASES:
        if only and case not in only:
            continue
        f = mod.get_function(kern)
        g = SMS * k
        x = cp.asarray(data(r, k, np.random.default_rng(r * 10 + k)))
        n = int(x.size)
        out = cp.zeros(n, cp.int32)
        if kern.startswith("merge_pass"):
            run = lambda: f((g,), (BLOCK,), (x, out, np.int32(n), np.int32(r // 2)))
        else:
            run = lambda: f((g,), (BLOCK,), (x, out, np.int32(r)))
        for _ in range(3):
            run()
        t = []
        for _ in range(1 if only else 15):
            ev0.record()
            run()
            ev1.record()
            ev1.synchronize()
            t.append(cp.cuda.get_elapsed_time(ev0, ev1))
        print(json.dumps({"case": case, "kernel": kern, "r": r, "k": k, "bytes": n * 4,
                          "ms": round(float(np.median(t)), 5)}), flush=True)


if __name__ == "__main__":
    main()
