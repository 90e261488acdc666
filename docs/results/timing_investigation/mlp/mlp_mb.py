"""Streaming reads from few SMs: a grid-stride sum of S independent streams a thread (S
loads a trip, nvcc unrolls the signed-stride loop by 4: 4 S loads in flight a warp), 2^25
floats (128 MiB) split into S streams, grids of 33 to 264 blocks of 256 threads (a block an
SM up to 132).  What an SM's loads in flight buy when DRAM is not the limit.  Median of 20
launches after 3 warm-ups.  Run on the GPU:
python docs/results/timing_investigation/mlp/mlp_mb.py > mlp_GPU.jsonl"""
import json

try:
    import cupy as cp
except ImportError:          # predict.py reads SRC and CASES here without a GPU
    cp = None
import numpy as np

SRC = r'''
template <int S>
__global__ void streams(const float *__restrict__ x, float *__restrict__ out, int q) {
    int T = gridDim.x * blockDim.x, g = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[S];
#pragma unroll
    for (int s = 0; s < S; ++s) acc[s] = 0.0f;
    for (int i = g; i < q; i += T) {
#pragma unroll
        for (int s = 0; s < S; ++s) acc[s] += x[(size_t)s * q + i];
    }
    float t = 0.0f;
#pragma unroll
    for (int s = 0; s < S; ++s) t += acc[s];
    out[g] = t;
}
template __global__ void streams<1>(const float *__restrict__, float *__restrict__, int);
template __global__ void streams<2>(const float *__restrict__, float *__restrict__, int);
template __global__ void streams<4>(const float *__restrict__, float *__restrict__, int);
template __global__ void streams<8>(const float *__restrict__, float *__restrict__, int);
'''
N = 1 << 25
CASES = [(s, b) for s in (1, 2, 4, 8) for b in (33, 66, 132, 264)]


def main():
    names = [f"streams<{s}>" for s in (1, 2, 4, 8)]
    mod = cp.RawModule(code=SRC, options=("-std=c++17",), name_expressions=names)
    dev = cp.cuda.Device()
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(dev.id)["name"].decode()}), flush=True)
    x = cp.ones(N, cp.float32)
    out = cp.zeros(264 * 256, cp.float32)
    ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
    for s, b in CASES:
        k = mod.get_function(f"streams<{s}>")
        run = lambda: k((b,), (256,), (x, out, np.int32(N // s)))
        for _ in range(3):
            run()
        t = []
        for _ in range(20):
            ev0.record()
            run()
            ev1.record()
            ev1.synchronize()
            t.append(cp.cuda.get_elapsed_time(ev0, ev1))
        ms = float(np.median(t))
        print(json.dumps({"streams": s, "blocks": b, "ms": round(ms, 5), "tb_s": round(N * 4 / ms / 1e9, 3)}), flush=True)


if __name__ == "__main__":
    main()
