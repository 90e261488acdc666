"""Do a block's warps that exit early free their warp slots (and registers) for new blocks
before the block's last warp exits?  simt schedules blocks in waves of its occupancy, a
block holding its slot until its longest warp ends; probe/rle-encode-runs (a few lanes of
a block scan far, the rest exit at once) runs in 0.43 ms on the H200 where those waves
take 0.83.

Every case: 132 x 64 blocks; warps 0 .. long-1 of each block spin `cycles` on clock64(),
the others exit at once.  Variants: 128 / 256 threads, the block's dynamic shared memory
(a block-wide resource), and a kernel that holds 120 loaded values across the spin (its
registers, from cupy's num_regs, limit the warps an SM holds).  Median of 7 CUDA-event
timings after a warm-up; `rounds` = ms / (one spin's time), the waves of long warps the
SMs ran one after another.
python docs/results/timing_investigation/warpslots/warpslots_mb.py > warpslots_GPU.jsonl"""
import json

import cupy as cp
import numpy as np

SRC = r'''
__device__ __forceinline__ long long now() {
    long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t;
}
extern "C" __global__ void spin(long long cycles, int nlong, int *out) {
    extern __shared__ int sm[];
    if ((threadIdx.x >> 5) >= nlong) return;
    long long t0 = now();
    while (now() - t0 < cycles) {}
    if (threadIdx.x == 0) { sm[0] = 1; out[blockIdx.x] = sm[0]; }
}
extern "C" __global__ void __launch_bounds__(256) spinreg(long long cycles, int nlong, const float *in, float *out) {
    if ((threadIdx.x >> 5) >= nlong) return;
    float r[120];
#pragma unroll
    for (int i = 0; i < 120; i++) r[i] = in[i * 256 + threadIdx.x];
    long long t0 = now();
    while (now() - t0 < cycles) {}
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < 120; i++) s += r[i] * r[(i * 7 + 3) % 120];
    if (s == 1234.5f) out[blockIdx.x] = s;
}
'''


def timed(fn, reps=7):
    s, e = cp.cuda.Event(), cp.cuda.Event()
    fn()
    out = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        out.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(out))


def main():
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    clock_khz = props.get("clockRate", 1980000)
    mod = cp.RawModule(code=SRC)
    spin, spinreg = mod.get_function("spin"), mod.get_function("spinreg")
    print(json.dumps({"gpu": props["name"].decode(), "sms": sms, "spin_regs": spin.num_regs,
                      "spinreg_regs": spinreg.num_regs, "clock_khz": clock_khz}), flush=True)
    grid = sms * 64
    out = cp.zeros(grid, cp.int32)
    fout = cp.zeros(grid, cp.float32)
    fin = cp.ones(120 * 256, cp.float32)
    cycles = 40000
    one = timed(lambda: spin((1,), (32,), (np.int64(cycles), np.int32(1), out), shared_mem=16))
    print(json.dumps({"case": "one_spin", "ms": one}), flush=True)
    cases = []
    for block in (256, 128):
        for nl in sorted({1, 2, block // 32}):
            cases.append(("spin", block, nl, 0))
    for nl in (1, 8):
        cases.append(("spin", 256, nl, 56 * 1024))
        cases.append(("spinreg", 256, nl, 0))
    for kern, block, nl, smem in cases:
        if kern == "spin":
            if smem:
                spin.max_dynamic_shared_size_bytes = smem
            fn = lambda: spin((grid,), (block,), (np.int64(cycles), np.int32(nl), out), shared_mem=max(smem, 16))
        else:
            fn = lambda: spinreg((grid,), (block,), (np.int64(cycles), np.int32(nl), fin, fout))
        ms = timed(fn)
        print(json.dumps({"case": f"{kern}_b{block}_long{nl}_smem{smem}", "kernel": kern, "block": block,
                          "long_warps": nl, "smem": smem, "blocks": grid, "ms": ms,
                          "rounds": round(ms / one, 2)}), flush=True)
    dev.synchronize()


if __name__ == "__main__":
    main()
