"""What a % by a run-time divisor costs once nvcc holds its reciprocal, in straight-line
code.  texture-bilinear-wrap (unseen95/) has sixteen % by two values, two MUFU.RCP in its
SASS and about eight instructions a remainder; simt prices each % after the first at
OP_COST["idiv_again_s"] = 18 issue cycles a warp (measured on the H100 in a loop of one
dependent chain a warp), and its issue slots come to 220 M against Nsight's 118 M.

    rem_K:  acc = sum over j < K of (x + 13 j) % w     (signed; urem_K unsigned)
with x = 37 i - 500 (signed) or 37 i (unsigned), K = 0, 4, 16, 32 unrolled, w a kernel
argument (7), 2^24 threads of 256.  The time above K = 0 over 2^19 warps x K remainders
gives SM-sub-partition cycles a remainder: (t_K - t_0) x SMs x 4 x clock / (warps x K).
Median of 9 CUDA-event timings after 3 warm-ups.  python micro.py > micro_GPU.jsonl;
nvcc -cubin ... then cuobjdump -sass for the instructions."""
import json

import numpy as np

KS = (0, 4, 16, 32)
SRC = "\n".join(
    f'''extern "C" __global__ void rem_{k}(int *out, int w, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
    int x = 37 * i - 500, acc = 0;
#pragma unroll
    for (int j = 0; j < {k}; j++) acc += (x + 13 * j) % w;
    out[i] = acc + x; }}
extern "C" __global__ void urem_{k}(unsigned *out, unsigned w, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
    unsigned x = 37u * i, acc = 0;
#pragma unroll
    for (int j = 0; j < {k}; j++) acc += (x + 13u * j) % w;
    out[i] = acc + x; }}''' for k in KS)


def main():
    import cupy as cp
    mod = cp.RawModule(code=SRC)
    props = cp.cuda.runtime.getDeviceProperties(0)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    print(json.dumps({"gpu": props["name"].decode(), "sms": props["multiProcessorCount"],
                      "clock_khz": props["clockRate"]}), flush=True)
    n = 1 << 24
    out = cp.zeros(n, cp.int32)
    for k in KS:
        for name in (f"rem_{k}", f"urem_{k}"):
            f = mod.get_function(name)
            args = (out, np.int32(7) if name.startswith("rem") else np.uint32(7), np.int32(n))
            for _ in range(3):
                f((n // 256,), (256,), args)
            ts = []
            for _ in range(9):
                start.record(); f((n // 256,), (256,), args); stop.record(); stop.synchronize()
                ts.append(cp.cuda.get_elapsed_time(start, stop))
            print(json.dumps({"kernel": name, "k": k, "n": n, "ms": float(np.median(ts))}), flush=True)


if __name__ == "__main__":
    main()
