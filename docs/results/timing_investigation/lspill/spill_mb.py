"""lspill/: when do local arrays spill from L2 to DRAM?  A thread keeps an int array a[W]
in local memory (indexed by (k + off) & (W - 1), off a warp's run-time offset, so nvcc
cannot keep it in registers) and updates every element `reps` times; the blocks fill the
GPU (2 waves of `bps` 256-thread blocks an SM; dynamic shared memory caps the blocks an SM
holds).  The resident threads' frames are W x 4 x 132 x 256 x bps bytes.  Median of 5
CUDA-event timings; with case names, each once (for Nsight Compute, run.sh).
python docs/results/timing_investigation/lspill/spill_mb.py > spill_GPU.jsonl"""
import json
import sys

import numpy as np

WORDS = [16, 32, 64, 128, 256]
BPS = [8, 2]
UPDATES = 1 << 12          # element updates a thread (reps x W)

SRC = "".join(r'''
extern "C" __global__ void spill{W}(const int *offs, int *out, int reps) {{
    int a[{W}];
    int off = offs[(blockIdx.x * blockDim.x + threadIdx.x) >> 5] & ({W} - 1);
    for (int k = 0; k < {W}; k++) a[(k + off) & ({W} - 1)] = k + threadIdx.x;
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < {W}; k++) {{
            int j = (k + off) & ({W} - 1);
            a[j] = a[j] * 3 + r;
        }}
    int s = 0;
    for (int k = 0; k < {W}; k++) s += a[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}}
'''.format(W=w) for w in WORDS)

CASES = [f"w{w}_b{b}" for w in WORDS for b in BPS]


def main(want):
    import cupy as cp
    mod = cp.RawModule(code=SRC)
    for w in WORDS:
        f = mod.get_function(f"spill{w}")
        f.max_dynamic_shared_size_bytes = 200 * 1024
        for b in BPS:
            name = f"w{w}_b{b}"
            if want and name not in want:
                continue
            blocks = 132 * b * 2
            smem = 0 if b >= 8 else (228 * 1024) // b - 1024 - 64
            offs = cp.asarray(np.random.default_rng(w).integers(0, 1 << 20, blocks * 8).astype(np.int32))
            out = cp.zeros(blocks * 256, np.int32)
            args = (offs, out, np.int32(UPDATES // w))
            f((blocks,), (256,), args, shared_mem=smem)
            ts = []
            for _ in range(1 if want else 5):
                e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                e0.record()
                f((blocks,), (256,), args, shared_mem=smem)
                e1.record()
                e1.synchronize()
                ts.append(cp.cuda.get_elapsed_time(e0, e1))
            print(json.dumps({"case": name, "words": w, "blocks_per_sm": b, "blocks": blocks,
                              "resident_frames_mb": w * 4 * 132 * 256 * b / 1e6, "ms": float(np.median(ts))}),
                  flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
