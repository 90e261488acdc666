"""Float and double adds on a few hot words: does the chain a float add holds belong to
the word or to its 32-byte sector?  probe/bicgstab-update-2dot (unseen90/: two double
atomicAdds a block on dots[0] and dots[1], 131,072 in all) took 0.27 ms where simt, pricing
each word's lanes at the one-word float rate and the two words apart, gave 0.17.
hotwords/ saw 16 consecutive hot floats behave like two words.

Every kernel is
    if (i < n) { g = i / per; if (all || i % per == 0) atomicAdd(&c[(g % K) * S], 1); }
for int, unsigned long long, float and double, with
  mode  lane0: one lane a warp (per = 32), block0: one lane a 256-thread block
        (per = 256), warp: every lane of a warp on the warp's word (per = 32, all);
  words one (K=1), sector2/sector4 (K=2/4 adjacent words, one sector), line2/line2b/line4
        (K=2/2/4, 32/64/32 bytes apart: sectors of one line), lines2/lines2b/lines4 (K=2/2/4
        lines 128/256/128 bytes apart), far2/far4 (K=2/4, 1 KiB apart).
And, every warp on the same few words, a warp's lanes spread over them (spread_*: lane l on
word (l % P) * Q): P = 2, 4, 8 adjacent words (Q = 1: one sector while P * size <= 32),
P = 2, 4 sectors of a line (Q = 32 bytes), P = 32 adjacent words.
131,072 groups (requests) a launch.  Median of 9 CUDA-event timings after 3 warm-ups.
python micro.py > micro_GPU.jsonl on the GPU."""
import json

import numpy as np

SRC = r'''
#define K(name, T) \
extern "C" __global__ void name(T *c, int n, int per, int all, int nw, int stride) { \
    int i = blockIdx.x * blockDim.x + threadIdx.x; \
    if (i < n) { int g = i / per; if (all || i % per == 0) atomicAdd(&c[(g % nw) * stride], (T)1); } }
K(add_i, int)
K(add_u64, unsigned long long)
K(add_f, float)
K(add_d, double)
#define S(name, T) \
extern "C" __global__ void name(T *c, int n, int spread, int sstride) { \
    int i = blockIdx.x * blockDim.x + threadIdx.x; \
    if (i < n) atomicAdd(&c[((i & 31) % spread) * sstride], (T)1); }
S(spread_i, int)
S(spread_u64, unsigned long long)
S(spread_f, float)
S(spread_d, double)
'''
REQUESTS = 1 << 17
TYPES = {"add_i": np.int32, "add_u64": np.uint64, "add_f": np.float32, "add_d": np.float64}
MODES = {"lane0": (32, 0), "block0": (256, 0), "warp": (32, 1)}
WORDS = {"one": (1, 0), "sector2": (2, 1), "sector4": (4, 1), "line2": (2, 32),
         "line2b": (2, 64), "line4": (4, 32), "lines2": (2, 128), "lines2b": (2, 256),
         "lines4": (4, 128), "far2": (2, 1024), "far4": (4, 1024)}   # (K, bytes apart; 1 = adjacent)
SPREADS = ((1, 1), (2, 1), (4, 1), (8, 1), (2, 32), (4, 32), (32, 1), (8, 32))   # (P, Q bytes; 1 = adjacent)


def main():
    import cupy as cp
    mod = cp.RawModule(code=SRC)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    for mode, (per, all_) in MODES.items():
        n = REQUESTS * per
        for words, (k, apart) in WORDS.items():
            for name, t in TYPES.items():
                size = np.dtype(t).itemsize
                stride = 1 if apart <= 1 else apart // size
                c = cp.zeros(4 * 1024, t)
                f = mod.get_function(name)
                args = (c, np.int32(n), np.int32(per), np.int32(all_), np.int32(k), np.int32(stride))
                grid = (n + 255) // 256
                for _ in range(3):
                    f((grid,), (256,), args)
                ts = []
                for _ in range(9):
                    start.record(); f((grid,), (256,), args); stop.record(); stop.synchronize()
                    ts.append(cp.cuda.get_elapsed_time(start, stop))
                print(json.dumps({"kernel": name, "mode": mode, "words": words, "n": n,
                                  "requests": REQUESTS, "ms": float(np.median(ts))}), flush=True)

    for p, apart in SPREADS:
        for name, t in TYPES.items():
            size = np.dtype(t).itemsize
            q = 1 if apart == 1 else apart // size
            c = cp.zeros(4 * 1024, t)
            f = mod.get_function(name.replace("add_", "spread_"))
            n = REQUESTS * 32
            args = (c, np.int32(n), np.int32(p), np.int32(q))
            for _ in range(3):
                f((n // 256,), (256,), args)
            ts = []
            for _ in range(9):
                start.record(); f((n // 256,), (256,), args); stop.record(); stop.synchronize()
                ts.append(cp.cuda.get_elapsed_time(start, stop))
            print(json.dumps({"kernel": name.replace("add_", "spread_"), "spread": p, "apart": apart,
                              "n": n, "requests": REQUESTS, "ms": float(np.median(ts))}), flush=True)


if __name__ == "__main__":
    main()
