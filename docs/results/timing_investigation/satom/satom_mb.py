"""What a shared-memory atomicAdd instruction costs, by how its 32 lanes spread over words
and banks: every lane its own word in its own bank; k lanes in one bank on k different
words (k = 2..32); every lane on one word; pairs of lanes on one word; 32 lanes on 256
bins at random (a histogram's).  132 x 8 blocks of 256 threads, 2048 atomics a thread
(the word from a shared table, so no two trips are alike), median of 20 launches after 3
warm-ups.  Run on the GPU:
python docs/results/timing_investigation/satom/satom_mb.py > satom_GPU.jsonl
ncu -k satom --metrics smsp__inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum --csv \
    python docs/results/timing_investigation/satom/satom_mb.py --once > ncu_satom_GPU.csv"""
import json
import sys
from pathlib import Path

import cupy as cp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import satom_cases  # noqa: E402

SRC = r'''
extern "C" __global__ void satom(const int *idx, int *out, int reps) {
    __shared__ int s[1024];
    __shared__ int sidx[2048];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0;
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) sidx[i] = idx[i];
    __syncthreads();
    int lane = threadIdx.x & 31;
    for (int r = 0; r < reps; r++) atomicAdd(&s[sidx[((r & 63) << 5) | lane]], 1);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = s[0] + s[1023];
}
'''
mod = cp.RawModule(code=SRC)
k = mod.get_function("satom")
dev = cp.cuda.Device()
props = cp.cuda.runtime.getDeviceProperties(dev.id)
sms = props["multiProcessorCount"]
CASES = satom_cases.cases()


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


once = sys.argv[1:2] == ["--once"]
if not once:
    print(json.dumps({"gpu": props["name"].decode(), "sms": sms}), flush=True)
out = cp.zeros(sms * 8, cp.int32)
REPS = 2048
for name, tab in CASES.items():
    idx = cp.asarray(tab)
    if once:
        k((sms * 8,), (256,), (idx, out, np.int32(REPS)))
        dev.synchronize()
        continue
    ms = timed(lambda: k((sms * 8,), (256,), (idx, out, np.int32(REPS))))
    inst = sms * 8 * 8 * REPS           # warp atomic instructions
    print(json.dumps({"case": name, "ms": round(ms, 5),
                      "sm_cycles_per_inst": round(ms * 1e-3 * 1.98e9 / (inst / sms), 3)}), flush=True)
