"""racy4: do an SM's own partial-sector stores make its later loads of the sector miss L1?

racy3's read-modify-write loops (lane l loads then stores word l, whole sectors) hit L1 on
every load, even under a saturated slice; the catalog's racy histogram (one word here and
there in each sector) misses 0.2-2.8 sectors a warp.  Two kernels:

- ``loop``: long-lived warps, each ``reps`` times loads word l of line (r + w) mod L, adds 1,
  and stores it back only from lanes with (l mod 8) < k (k words of each 8-word sector);
  inline PTX keeps every access.  Cases vary k, the warps and the SMs.
- ``once``: the catalog's shape, ``hist[bin[i]]++`` one element a thread, 2^24 threads in
  256-thread blocks, unsigned char bins.  The bins set which words a warp stores:
  ``fullline`` (lane l of warp w to word l of line w mod 8: whole sectors),
  ``spread`` (lane l to word 8*(l mod 32)... one word in each of the 32 sectors),
  ``quarter`` (2 words of 16 sectors), and ``random`` (uniform over 256 bins).

Median of 7 CUDA-event timings; with case names, each once (for Nsight Compute).
python docs/results/timing_investigation/racy4/partial_mb.py > partial_GPU.jsonl"""
import json
import sys

import numpy as np

SRC = r'''
extern "C" __global__ void loop(int *hist, int reps, int L, int k) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int r = 0; r < reps; ++r) {
        int *p = hist + ((r + warp) % L) * 32 + lane;
        int v;
        asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
        v += 1;
        if ((lane & 7) < k) asm volatile("st.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
    }
}
extern "C" __global__ void once(const unsigned char *bins, int *hist, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) hist[bins[i]]++;
}
'''

N = 1 << 24
TOTAL = 20000
# loop cases: (name, blocks, warps a block, lines, k)
LOOP = [
    ("solo_k8", 1, 1, 1, 8),
    ("solo_k4", 1, 1, 1, 4),
    ("solo_k1", 1, 1, 1, 1),
    ("sm1_w8_L8_k8", 1, 8, 8, 8),
    ("sm1_w8_L8_k1", 1, 8, 8, 1),
    ("sm16_w8_L8_k1", 16, 8, 8, 1),
    ("sm132_w8_L8_k8", 132, 8, 8, 8),
    ("sm132_w8_L8_k4", 132, 8, 8, 4),
    ("sm132_w8_L8_k1", 132, 8, 8, 1),
]
ONCE = ["fullline", "spread", "quarter", "random"]


def bins_for(kind):
    i = np.arange(N, dtype=np.int64)
    lane, warp = i % 32, i // 32
    if kind == "fullline":
        b = (warp % 8) * 32 + lane
    elif kind == "spread":          # sector s = lane, word (warp mod 8) of it
        b = lane * 8 + warp % 8
    elif kind == "quarter":         # 16 sectors, 2 words each
        b = (lane % 16) * 8 + (lane // 16) * 4 + warp % 4 + 128 * (warp % 2)
        b %= 256
    else:
        b = np.random.default_rng(1).integers(0, 256, N)
    return b.astype(np.uint8)


def timed(f, grid, block, args, reps, shared_mem=0):
    """The median of ``reps`` CUDA-event timings of a launch, after one to warm up."""
    import cupy as cp
    f(grid, block, args, shared_mem=shared_mem)
    times = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        f(grid, block, args, shared_mem=shared_mem)
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b))
    return float(np.median(times))


def main(want):
    import cupy as cp
    mod = cp.RawModule(code=SRC)
    hist = cp.zeros(64 * 32, np.int32)
    for name, blocks, warps, L, k in LOOP:
        if want and name not in want:
            continue
        n = TOTAL // warps
        ms = timed(mod.get_function("loop"), (blocks,), (32 * warps,),
                   (hist, np.int32(n), np.int32(L), np.int32(k)), 1 if want else 7)
        print(json.dumps({"case": name, "kernel": "loop", "blocks": blocks, "warps": warps, "lines": L,
                          "k": k, "reps": n, "ms": ms}), flush=True)
    for kind in ONCE:
        name = "once_" + kind
        if want and name not in want:
            continue
        bins = cp.asarray(bins_for(kind))
        ms = timed(mod.get_function("once"), ((N + 255) // 256,), (256,), (bins, hist, np.int32(N)),
                   1 if want else 7)
        print(json.dumps({"case": name, "kernel": "once", "n": N, "ms": ms}), flush=True)


CASES = [c[0] for c in LOOP] + ["once_" + k for k in ONCE]

if __name__ == "__main__":
    main(sys.argv[1:])
