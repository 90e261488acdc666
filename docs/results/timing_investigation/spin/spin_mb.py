"""What a float atomicAdd on shared memory costs, by how its 32 lanes spread over words and
banks (spin_cases.py: satom/'s patterns and a 16-bank one), in two launches:
- ``full``: 132 x 8 blocks of 256 threads (the SMs full: the passes' throughput);
- ``warp``: one warp a block, a block an SM (the passes' latency, one chain an SM);
REPS atomics a thread, the word from a shared table, median of 20 launches after 3
warm-ups.  Run on the GPU:
python docs/results/timing_investigation/spin/spin_mb.py > spin_GPU.jsonl
ncu -k spin --metrics smsp__inst_executed.sum,smsp__inst_executed_op_shared_atom.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum --csv \
    python docs/results/timing_investigation/spin/spin_mb.py --once > ncu_spin_GPU.csv"""
import json
import sys
from pathlib import Path

import cupy as cp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import spin_cases  # noqa: E402

SRC = r'''
extern "C" __global__ void spin(const int *idx, float *out, int reps) {
    __shared__ float s[1024];
    __shared__ int sidx[2048];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0.0f;
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) sidx[i] = idx[i];
    __syncthreads();
    int lane = threadIdx.x & 31;
    for (int r = 0; r < reps; r++) atomicAdd(&s[sidx[((r & 63) << 5) | lane]], 1.0f);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = s[0] + s[1023];
}
'''
REPS = 512
LAUNCHES = {"full": (8, 256), "warp": (1, 32)}      # blocks an SM, threads a block


def main():
    mod = cp.RawModule(code=SRC)
    k = mod.get_function("spin")
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    sms = props["multiProcessorCount"]
    once = sys.argv[1:2] == ["--once"]
    if not once:
        print(json.dumps({"gpu": props["name"].decode(), "sms": sms, "reps": REPS}), flush=True)
    out = cp.zeros(sms * 8, cp.float32)
    for name, tab in spin_cases.cases().items():
        idx = cp.asarray(tab)
        for launch, (bps, threads) in LAUNCHES.items():
            args = ((sms * bps,), (threads,), (idx, out, np.int32(REPS)))
            if once:
                k(*args)
                dev.synchronize()
                continue
            ms = timed(lambda: k(*args))
            print(json.dumps({"case": name, "launch": launch, "ms": round(ms, 5)}), flush=True)


def timed(fn, reps=20):
    s, e = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(3):
        fn()
    out = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        out.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(out))


if __name__ == "__main__":
    main()
