"""spread.cu on the present GPU: the time of 2^24 atomicAdds over regions of 1 KiB to
64 MiB (median of 9 CUDA-event timings after a warm-up), per variant.

python spread.py > spread_<gpu>.jsonl"""
import json
from pathlib import Path
import numpy as np
import cupy as cp

mod = cp.RawModule(code=(Path(__file__).parent / "spread.cu").read_text())
props = cp.cuda.runtime.getDeviceProperties(0)
N = 1 << 24
SPANS = [1 << k for k in range(8, 25, 2)]          # words: 1 KiB .. 64 MiB


def main():
    print(json.dumps({"device": props["name"].decode(), "l2_bytes": props["l2CacheSize"], "n": N}), flush=True)
    for name in ("spread_rnd", "spread_line"):
        k = mod.get_function(name)
        for words in SPANS:
            bins = cp.zeros(words, cp.uint32)
            args = (bins, np.uint32(words - 1), np.int32(N))
            for _ in range(3):
                k((N // 256,), (256,), args)
            ms = []
            for _ in range(9):
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record(); k((N // 256,), (256,), args); b.record(); b.synchronize()
                ms.append(cp.cuda.get_elapsed_time(a, b))
            assert int(bins.sum()) == 12 * N
            print(json.dumps({"k": name, "words": words, "ms": float(np.median(ms))}), flush=True)
            del bins


if __name__ == "__main__":
    main()
