"""Which 128-byte lines of a buffer share an L2 slice, found by timing (no profiler).

Every warp of a 264 x 256-thread grid adds 1 to the 32 words of a line, 8 times
(reductions).  All on line A, one slice does all the work: time T1.  Half the warps on A and
half on B: T1 when A and B share a slice, T1 / 2 when they do not.  Each line is tried
against one line of every slice found so far (the first pairing over 0.75 T1 joins it);
a line that shares with none starts a new slice.  Prints one JSON line a window:
{"base": bytes into the buffer, "lines": N, "slice": [slice label of each line], "ratio": [...]}.

    python map.py LINES BASE [BASE...]
"""
import json
import sys

import cupy as cp
import numpy as np

SRC = r'''
extern "C" __global__ void pair(int *p, long long a, long long b, int iters) {
    long long w = ((threadIdx.x >> 5) & 1) ? b : a;
    for (int k = 0; k < iters; ++k) atomicAdd(p + w + (threadIdx.x & 31), 1);
}
'''


def main():
    lines = int(sys.argv[1])
    bases = [int(b) for b in sys.argv[2:]] or [0]
    buf = cp.zeros(256 << 18, cp.int32)   # 256 MiB
    k = cp.RawKernel(SRC, "pair")
    s, e = cp.cuda.Event(), cp.cuda.Event()

    def t(a, b, reps=2):
        best = 1e9
        for _ in range(reps):
            s.record()
            k((264,), (256,), (buf, np.int64(a // 4), np.int64(b // 4), np.int32(8)))
            e.record()
            e.synchronize()
            best = min(best, cp.cuda.get_elapsed_time(s, e))
        return best

    for _ in range(20):
        t(0, 0)
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                      "ptr": hex(buf.data.ptr)}), flush=True)
    for base in bases:
        t1 = float(np.median([t(base, base) for _ in range(9)]))
        reps, label, ratio = [], [], []
        for ln in range(lines):
            a = base + 128 * ln
            got, r = -1, 0.0
            for j, rep in enumerate(reps):
                r = t(a, rep) / t1
                if r > 0.75:
                    got = j
                    break
            if got < 0:
                reps.append(a)
                got = len(reps) - 1
            label.append(got)
            ratio.append(round(r, 3))
        print(json.dumps({"base": base, "lines": lines, "t1_ms": round(t1, 4), "slices": len(reps),
                          "slice": label, "ratio": ratio}), flush=True)


if __name__ == "__main__":
    main()
