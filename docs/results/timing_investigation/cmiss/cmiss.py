"""What an LDC costs when a loop reads a word from each of K __constant__ tables a trip
(probe/acl-first-match-const: seven 4 KB tables 4 KB apart, about 17 SM cycles a request,
docs/results/timing_investigation/unseen85/).  Each kernel walks its tables by a
warp-uniform index that nvcc keeps in a vector register (it carries threadIdx.x >> 10,
always 0), so every read is an LDC and one pass of the constant cache:
- `sep`: K tables of 1024 words (4 KB), declared one after another: a trip's K words lie
  4 KB apart (as the ACL's);
- `rec`: one table of K-word records: a trip's K words are adjacent.
The index runs over the first `words` words of each table (64, 512, 1024: 256 B to 4 KB a
table), with 64 warps on every SM and with one warp alone.

python cmiss.py > cmiss_GPU.jsonl          (a module per kernel: 64 KB of __constant__ at most)
python cmiss.py --warps > cmiss_warps_GPU.jsonl   K = 2 .. 8 separate tables of 1024 words
                                           walked whole, at 4 to 64 warps an SM
python cmiss.py --src K LAYOUT             the CUDA source of one (for nvcc / cuobjdump)"""
import json
import sys

import numpy as np

KS = (1, 2, 3, 4, 5, 6, 7, 8)
WORDS = (64, 512, 1024)
ITERS = 4096


def src(k: int, layout: str) -> str:
    if layout == "sep":
        decl = "\n".join(f"__constant__ unsigned int c_t{t}[1024];" for t in range(k))
        reads = " ^ ".join(f"c_t{t}[j]" for t in range(k))
    else:
        decl = f"__constant__ unsigned int c_rec[{1024 * k}];"
        reads = " ^ ".join(f"c_rec[j * {k} + {t}]" for t in range(k))
    return f'''{decl}
extern "C" __global__ void walk(unsigned int *out, int iters, int mask) {{
    unsigned int s = threadIdx.x;
    int z = threadIdx.x >> 10;
    for (int a = 0; a < iters; a++) {{
        int j = (a + z) & mask;
        s = s * 3u + ({reads});
    }}
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}}
'''


def main():
    if sys.argv[1:2] == ["--src"]:
        print(src(int(sys.argv[2]), sys.argv[3]))
        return
    import cupy as cp
    dev = cp.cuda.runtime.getDeviceProperties(0)
    sms, clock = dev["multiProcessorCount"], 1.98e9
    print(json.dumps({"gpu": dev["name"].decode(), "sms": sms}), flush=True)
    s, e = cp.cuda.Event(), cp.cuda.Event()
    rng = np.random.default_rng(0)
    warps = sys.argv[1:2] == ["--warps"]
    for layout in (("sep",) if warps else ("sep", "rec")):
        for k in ((2, 3, 4, 7, 8) if warps else KS):
            mod = cp.RawModule(code=src(k, layout))
            names = [f"c_t{t}" for t in range(k)] if layout == "sep" else ["c_rec"]
            for name in names:
                g = mod.get_global(name)
                n = g.mem.size // 4
                cp.ndarray((n,), cp.uint32, memptr=g).set(rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32))
            f = mod.get_function("walk")
            for words in ((1024,) if warps else WORDS):
                shapes = [(sms, 128), (sms, 256), (sms * 2, 256), (sms * 4, 256), (sms * 8, 256)] if warps \
                    else [(1, 32), (sms * 8, 256)]
                for grid, block in shapes:
                    warps_sm = 1 if grid == 1 else grid * block // 32 // sms
                    out = cp.zeros(grid * block, cp.uint32)
                    args = (out, np.int32(ITERS), np.int32(words - 1))
                    for _ in range(2):
                        f((grid,), (block,), args)
                    ts = []
                    for _ in range(5):
                        s.record(); f((grid,), (block,), args); e.record(); e.synchronize()
                        ts.append(cp.cuda.get_elapsed_time(s, e))
                    ms = float(np.median(ts))
                    cyc = ms * 1e-3 * clock / (warps_sm * ITERS)
                    print(json.dumps({"layout": layout, "k": k, "words": words, "warps_per_sm": warps_sm,
                                      "ms": round(ms, 4), "cycles_per_warp_trip_sm": round(cyc, 2),
                                      "cycles_per_ldc_sm": round(cyc / k, 2)}), flush=True)


if __name__ == "__main__":
    main()
