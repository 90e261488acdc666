"""How much of a block's gathers L1 keeps when the SM's other blocks gather too: each
block of B threads gathers T = 64 words a thread at random (a hash of thread and trip)
from a window of W KiB of its own (blocks' windows do not overlap), and adds them up.
B sets the blocks an SM holds (2048 threads: 16 blocks of 128 .. 2 of 1024), so the SM's
L1 (256 KiB less the shared carveout) is split among 16 .. 2 windows.  "sector": the
words are drawn from the first 32-byte sector of each line only, a quarter of the
window's bytes over all of its lines (a sectored L1 holds four times as many of them).
A grid of 8 waves.  Median of 20 launches after 3 warm-ups.  Run on the GPU from the
repository root: python docs/results/timing_investigation/jds/l1share_mb.py > l1share_GPU.jsonl
(with a case name: that case once, for Nsight Compute)."""
import json
import sys

try:
    import cupy as cp
except ImportError:          # predict_l1share.py reads SRC and CASES without a GPU
    cp = None
import numpy as np

SRC = r'''
extern "C" __global__ void l1win(const float *x, float *out, int trips, int win_words, int sector_only) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    const float *w = x + (size_t)blockIdx.x * win_words;
    unsigned h = 2654435761u * (unsigned)(t + 1);
    float s = 0.0f;
    for (int k = 0; k < trips; ++k) {
        h ^= h << 13; h ^= h >> 17; h ^= h << 5;
        unsigned j = h % (unsigned)win_words;
        if (sector_only) j = (j & ~31u) | (j & 7u);
        s += w[j];
    }
    out[t] = s;
}
'''
TRIPS, SMS, WAVES = 64, 132, 8
# (case, threads a block, window KiB, sector_only)
CASES = ([(f"b{b}_w{w}", b, w, 0) for b in (128, 256, 512, 1024) for w in (8, 16, 32, 64, 128)]
         + [(f"b256_w{w}_sec", 256, w, 1) for w in (16, 32, 64, 128)])


def grid(b: int) -> int:
    """8 waves of full SMs (2048 threads each)."""
    return SMS * (2048 // b) * WAVES


def main():
    mod = cp.RawModule(code=SRC)
    k = mod.get_function("l1win")
    dev = cp.cuda.Device()
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(dev.id)["name"].decode()}), flush=True)
    ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
    only = set(sys.argv[1:])
    for case, b, wk, sec in CASES:
        if only and case not in only:
            continue
        g, words = grid(b), wk * 256
        x = cp.ones(g * words, cp.float32)
        out = cp.zeros(g * b, cp.float32)
        run = lambda: k((g,), (b,), (x, out, np.int32(TRIPS), np.int32(words), np.int32(sec)))
        for _ in range(3):
            run()
        t = []
        for _ in range(1 if only else 20):
            ev0.record()
            run()
            ev1.record()
            ev1.synchronize()
            t.append(cp.cuda.get_elapsed_time(ev0, ev1))
        print(json.dumps({"case": case, "block": b, "window_kib": wk, "sector_only": sec,
                          "ms": round(float(np.median(t)), 5)}), flush=True)


if __name__ == "__main__":
    main()
