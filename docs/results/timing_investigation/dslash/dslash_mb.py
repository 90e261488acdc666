"""probe/staggered-dslash taken apart: where the GPU's extra DRAM reads come from.

The probe (probes58.cu) reads, per site and direction mu, the forward link U_mu(x) and the
backward link U_mu(x - mu) (72-byte float2 matrices, site-major: 288 bytes a site), and the
neighbours' colour vectors.  The H200 read 524 MB from DRAM for 312 MiB of data.  The same
kernel here with masks choosing which directions' forward and backward links it reads:

- ``full``: the probe's work (fmask = bmask = 15);
- ``fwd`` / ``bwd``: forward links only / backward links only;
- ``mu012``: directions 0-2 only (no link 32768 sites away); ``mu3``: direction 3 only;
- ``stream``: a thread a site sums its 288 bytes of links as float2, in order (a plain
  stream of the same array: what one read of each link costs);
- ``L24`` / ``L16``: the probe at 24^4 (96 MiB of links) and 16^4 (18 MiB: fits L2).

Median of 15 launches after 3 warm-ups, 256 threads a block.  From the repository root on
the GPU machine: python docs/results/timing_investigation/dslash/dslash_mb.py >
dslash_GPU.jsonl (with a case name: that case once, for Nsight Compute)."""
import json
import sys

try:
    import cupy as cp
except ImportError:          # a predictor reads SRC and CASES without a GPU
    cp = None
import numpy as np

SRC = r'''
__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ float2 cmulc(float2 a, float2 b) {
    return make_float2(a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x);
}
extern "C" __global__ void dslash_masked(const float2 *U, const float2 *chi, float2 *out, int L,
                                         int fmask, int bmask) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int vol = L * L * L * L;
    if (x >= vol) return;
    float2 acc0 = make_float2(0.0f, 0.0f), acc1 = acc0, acc2 = acc0;
    int rest = x, stride = 1, parity = 0;
    for (int mu = 0; mu < 4; ++mu) {
        int c = rest % L;
        rest /= L;
        float eta = (parity & 1) ? -1.0f : 1.0f;
        int fwd = c + 1 == L ? x - (L - 1) * stride : x + stride;
        int bwd = c == 0 ? x + (L - 1) * stride : x - stride;
        bool f = (fmask >> mu) & 1, b = (bmask >> mu) & 1;
        const float2 *Uf = U + (4 * x + mu) * 9;
        const float2 *Ub = U + (4 * bwd + mu) * 9;
        float2 z = make_float2(0.0f, 0.0f);
        float2 f0 = f ? chi[3 * fwd] : z, f1 = f ? chi[3 * fwd + 1] : z, f2 = f ? chi[3 * fwd + 2] : z;
        float2 b0 = b ? chi[3 * bwd] : z, b1 = b ? chi[3 * bwd + 1] : z, b2 = b ? chi[3 * bwd + 2] : z;
        float2 r[3];
        for (int a = 0; a < 3; ++a) {
            float2 p0 = z, p1 = z, p2 = z, q0 = z, q1 = z, q2 = z;
            if (f) { p0 = cmul(Uf[3 * a], f0); p1 = cmul(Uf[3 * a + 1], f1); p2 = cmul(Uf[3 * a + 2], f2); }
            if (b) { q0 = cmulc(Ub[a], b0); q1 = cmulc(Ub[3 + a], b1); q2 = cmulc(Ub[6 + a], b2); }
            r[a] = make_float2(eta * ((p0.x + p1.x + p2.x) - (q0.x + q1.x + q2.x)),
                               eta * ((p0.y + p1.y + p2.y) - (q0.y + q1.y + q2.y)));
        }
        acc0.x += r[0].x; acc0.y += r[0].y;
        acc1.x += r[1].x; acc1.y += r[1].y;
        acc2.x += r[2].x; acc2.y += r[2].y;
        parity += c;
        stride *= L;
    }
    out[3 * x] = make_float2(0.5f * acc0.x, 0.5f * acc0.y);
    out[3 * x + 1] = make_float2(0.5f * acc1.x, 0.5f * acc1.y);
    out[3 * x + 2] = make_float2(0.5f * acc2.x, 0.5f * acc2.y);
}
extern "C" __global__ void links_stream(const float2 *U, float2 *out, int L) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int vol = L * L * L * L;
    if (x >= vol) return;
    float2 s = make_float2(0.0f, 0.0f);
    for (int k = 0; k < 36; ++k) { float2 u = U[36 * x + k]; s.x += u.x; s.y += u.y; }
    out[3 * x] = s;
}
'''

# name -> (kernel, L, fmask, bmask)
CASES = [
    ("full", "dslash_masked", 32, 15, 15),
    ("fwd", "dslash_masked", 32, 15, 0),
    ("bwd", "dslash_masked", 32, 0, 15),
    ("mu012", "dslash_masked", 32, 7, 7),
    ("mu3", "dslash_masked", 32, 8, 8),
    ("stream", "links_stream", 32, 0, 0),
    ("L24", "dslash_masked", 24, 15, 15),
    ("L16", "dslash_masked", 16, 15, 15),
]
# (second call) the probe's work at 1, 2 and 3 blocks an SM (dynamic shared memory the
# kernel does not use holds the others off): how L1's hits follow the lines the SM's lanes
# hold at once
SMEM = {"full_b1": 160 << 10, "full_b2": 100 << 10, "full_b3": 70 << 10}
CASES2 = [(k, "dslash_masked", 32, 15, 15) for k in SMEM]


def run(case, reps=15, warm=3):
    name, kern, L, fm, bm = case
    vol = L ** 4
    rng = np.random.default_rng(7)
    U = cp.asarray(rng.standard_normal(4 * vol * 9 * 2, dtype=np.float32))
    chi = cp.asarray(rng.standard_normal(vol * 3 * 2, dtype=np.float32))
    out = cp.zeros(vol * 3 * 2, np.float32)
    f = cp.RawModule(code=SRC, options=("-std=c++17",)).get_function(kern)
    smem = SMEM.get(name, 0)
    if smem:
        f.max_dynamic_shared_size_bytes = smem
    grid, block = ((vol + 255) // 256,), (256,)
    args = (U, chi, out, np.int32(L), np.int32(fm), np.int32(bm)) if kern == "dslash_masked" else (U, out, np.int32(L))
    times = []
    for i in range(warm + reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        f(grid, block, args, shared_mem=smem)
        b.record()
        b.synchronize()
        if i >= warm:
            times.append(cp.cuda.get_elapsed_time(a, b))
    return {"case": name, "kernel": kern, "L": L, "fmask": fm, "bmask": bm, "smem": smem, "ms": float(np.median(times)),
            "link_bytes": 4 * vol * 72}


if __name__ == "__main__":
    want = [a for a in sys.argv[1:] if a != "--all"]
    for c in CASES + CASES2:
        if want and c[0] not in want or not want and c in CASES2 and "--all" not in sys.argv:
            continue
        print(json.dumps(run(c, *((1, 0) if want else ()))), flush=True)
