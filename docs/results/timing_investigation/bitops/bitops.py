"""Throughput of the bit-counting intrinsics on the GPU: each thread runs REPS trips of
four independent (x ^ r) -> OP -> add chains, 2112 blocks of 256 threads (16 warps a
sub-partition, latency hidden).  Prints the median of 9 CUDA-event timings per OP and the
cycles a warp-instruction of OP keeps a sub-partition (from the difference with the
plain-ALU kernel, at the clock nvidia-smi reports under load).
Run on the GPU machine: python3 docs/results/timing_investigation/bitops/bitops.py"""
import json
import subprocess

import cupy as cp
import numpy as np

OPS = {"alu": "((v) >> 3)", "popc": "__popc(v)", "clz": "__clz(v)", "brev": "__brev(v)",
       "ffs": "__ffs(v)", "popcll": "__popcll((unsigned long long)(v) * 0x9E3779B97F4A7C15ull)",
       "alu64": "(unsigned)(((unsigned long long)(v) * 0x9E3779B97F4A7C15ull) >> 7)"}
SRC = r'''
extern "C" __global__ void k_NAME(const unsigned *in, unsigned *out, int reps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = in[i], a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int r = 0; r < reps; ++r) {
        unsigned v;
        v = x ^ (r * 4u);      a0 += OP;
        v = x ^ (r * 4u + 1u); a1 += OP;
        v = x ^ (r * 4u + 2u); a2 += OP;
        v = x ^ (r * 4u + 3u); a3 += OP;
    }
    out[i] = a0 + a1 + a2 + a3;
}
'''
BLOCKS, THREADS, REPS = 132 * 8, 256, 2048


def main():
    src = "".join(SRC.replace("NAME", n).replace("OP", op) for n, op in OPS.items())
    mod = cp.RawModule(code=src)
    n = BLOCKS * THREADS
    x = cp.asarray(np.random.default_rng(0).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32))
    o = cp.zeros(n, cp.uint32)
    res = {}
    for name in OPS:
        f = mod.get_function(f"k_{name}")
        args = (x, o, np.int32(REPS))
        f((BLOCKS,), (THREADS,), args)
        ts = []
        for _ in range(9):
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record()
            f((BLOCKS,), (THREADS,), args)
            e.record()
            e.synchronize()
            ts.append(cp.cuda.get_elapsed_time(s, e))
        res[name] = float(np.median(ts))
    clk = subprocess.run(["nvidia-smi", "--query-gpu=clocks.max.sm", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True).stdout.split()[0]
    warp_ops = BLOCKS * THREADS // 32 * REPS * 4 / 528           # per sub-partition
    out = {k: {"ms": v, "ns_per_warp_op_per_smsp": v * 1e6 / warp_ops,
               "extra_cycles_vs_alu": (v - res["alu"]) * 1e6 / warp_ops * float(clk) / 1e3}
           for k, v in res.items()}
    print(json.dumps({"max_sm_clock_mhz": clk, "ops": out}, indent=1))


if __name__ == "__main__":
    main()
