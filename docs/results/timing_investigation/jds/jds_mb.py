"""Where spmv-jds's time goes (probe-unseen47, 0.43 on the H200): the probe's JDS SpMV
beside variants that each take one link out of its per-trip chain (diagonal bounds from
jd_ptr, then cols[k] and vals[k] from DRAM, then the gather x[cols[k]], then the FFMA).
Same matrix as the probe (kernels_cuda.timing_probes.jds_matrix, 2^21 rows of 1 +
Poisson(11) nonzeros near the diagonal, rows sorted by length), blocks of 256, a thread a
row.  Median of 20 launches after 3 warm-ups.  Run on the GPU, from the repository root:
python docs/results/timing_investigation/jds/jds_mb.py > jds_GPU.jsonl"""
import json
import sys
from pathlib import Path

try:
    import cupy as cp
except ImportError:          # predict.py reads SRC and CASES without a GPU
    cp = None
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from kernels_cuda.timing_probes import jds_matrix  # noqa: E402

# Every kernel: (jd_ptr, perm, cols, vals, x, y, rows, ndiag); BODY is the loop's update
SRC = r'''
#define JDS_KERNEL(NAME, BODY)                                                              \
__global__ void NAME(const int *jd_ptr, const int *perm, const int *cols, const float *vals, \
                     const float *x, float *y, int rows, int ndiag) {                       \
    int r = blockIdx.x * blockDim.x + threadIdx.x;                                          \
    if (r >= rows) return;                                                                  \
    float s = 0.0f;                                                                         \
    for (int d = 0; d < ndiag && jd_ptr[d + 1] - jd_ptr[d] > r; ++d) {                      \
        int k = jd_ptr[d] + r;                                                              \
        BODY;                                                                               \
    }                                                                                       \
    y[perm[r]] = s;                                                                         \
}
extern "C" {
// the probe's kernel
JDS_KERNEL(jds, s += vals[k] * x[cols[k]])
// no gather: the column index itself is the factor
JDS_KERNEL(jds_nogather, s += vals[k] * (float)cols[k])
// the gather kept dependent on cols[k] but inside the warp's own 128 bytes of x
JDS_KERNEL(jds_gather_line, s += vals[k] * x[(r & ~31) + (cols[k] & 31)])
// the gather kept random but over 4 KiB of x (L1 hits)
JDS_KERNEL(jds_gather_4k, s += vals[k] * x[cols[k] & 1023])
// cols and vals from the first diagonal every trip (L1 / L2 hits, no DRAM in the chain)
JDS_KERNEL(jds_nodram, s += vals[r] * x[cols[r]])
// the bounds from shared memory instead of jd_ptr in global
__global__ void jds_smem(const int *jd_ptr, const int *perm, const int *cols, const float *vals,
                         const float *x, float *y, int rows, int ndiag) {
    __shared__ int sp[72];
    for (int i = threadIdx.x; i <= ndiag && i < 72; i += blockDim.x) sp[i] = jd_ptr[i];
    __syncthreads();
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (int d = 0; d < ndiag && sp[d + 1] - sp[d] > r; ++d) {
        int k = sp[d] + r;
        s += vals[k] * x[cols[k]];
    }
    y[perm[r]] = s;
}
}
'''
ROWS = 1 << 21
KERNELS = ["jds", "jds_nogather", "jds_gather_line", "jds_gather_4k", "jds_nodram", "jds_smem"]
# (case, kernel, data): "poisson" is the probe's matrix, "const12" every row 12 long
CASES = [(k, k, "poisson") for k in KERNELS] + [("jds_const12", "jds", "const12")]


def host_args(data: str, rows: int, rng) -> list:
    """The kernels' arguments on the host: the probe's matrix, or one of 12 nonzeros a row."""
    if data == "const12":
        ndiag = 12
        jd_ptr = (np.arange(ndiag + 1) * rows).astype(np.int32)
        perm = rng.permutation(rows).astype(np.int32)
        r = np.tile(np.arange(rows), ndiag)
        cols = ((perm[r] + rng.integers(-4096, 4097, r.size)) % rows).astype(np.int32)
        vals = rng.standard_normal(r.size).astype(np.float32)
    else:
        jd_ptr, perm, cols, vals = jds_matrix(rows, rng)
    return [jd_ptr, perm, cols, vals, rng.standard_normal(rows).astype(np.float32), np.zeros(rows, np.float32),
            np.int32(rows), np.int32(jd_ptr.size - 1)]


def main():
    mod = cp.RawModule(code=SRC)
    dev = cp.cuda.Device()
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(dev.id)["name"].decode()}), flush=True)
    ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
    only = set(sys.argv[1:])
    for case, kern, data in CASES:
        if only and case not in only:
            continue
        host = host_args(data, ROWS, np.random.default_rng(0))
        args = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in host]
        k = mod.get_function(kern)
        run = lambda: k(((ROWS + 255) // 256,), (256,), tuple(args))
        for _ in range(3):
            run()
        t = []
        for _ in range(1 if only else 20):
            ev0.record()
            run()
            ev1.record()
            ev1.synchronize()
            t.append(cp.cuda.get_elapsed_time(ev0, ev1))
        print(json.dumps({"case": case, "kernel": kern, "data": data, "ms": round(float(np.median(t)), 5),
                          "nnz": int(host[0][-1])}), flush=True)


if __name__ == "__main__":
    main()
