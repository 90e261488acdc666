"""A struct's adjacent fields moved to or from shared memory one after the other are one
wider access in nvcc's SASS (``LDS.64``/``STS.64``, ``LDS.128``): simt.sharedfields finds
them, and the machine counts them as the wider access where the lanes' addresses show
it.  probe/wres-bitonic-topk-smem moved each ``Cand {float key; int idx;}`` with two
4-byte accesses: twice Nsight's shared wavefronts, 1.85 times its H200 time; 0.98 since
(docs/results/timing_investigation/unseen201/notes.md, sharedfields/)."""
import numpy as np

from kern import run
from simt.ir import Op
from simt.module import Module
from simt.sharedfields import shared_field_groups

FIELDS = r"""
struct P { float x; float y; };
struct Q { float a, b, c, d; };
extern "C" __global__ void k(float *o, const float *in) {
    __shared__ P s[256];
    __shared__ Q q[64];
    __shared__ float f[520];
    extern __shared__ float d[];
    int t = threadIdx.x;
    s[t].x = in[t]; s[t].y = in[t + 1];                          // line 11: a pair
    q[t % 64].a = 1; q[t % 64].b = 2; q[t % 64].c = 3; q[t % 64].d = 4;   // four
    f[2 * t] = 1.0f; f[2 * t + 1] = 2.0f;                          // a pair (8t: aligned)
    d[2 * t] = 1.0f; d[2 * t + 1] = 2.0f;                          // a pair (dynamic base)
    f[t] = 3.0f; f[t + 1] = 4.0f;                                  // t: not known aligned
    __syncthreads();
    P v = s[(t * 7) % 256];                                        // line 17: a pair
    Q w = q[t % 64];                                               // four
    o[t] = v.x + v.y + w.a + w.b + w.c + w.d;
}
"""


def test_which_accesses_join():
    ir = Module.from_source(FIELDS).get_function("k").ir
    g = shared_field_groups(ir)
    by_line: dict[int, list] = {}
    for p, ins in enumerate(ir.code):
        if ins.op in (Op.LOAD, Op.STORE) and ins.info.get("space") == "shared":
            by_line.setdefault(ins.coord.line, []).append(g.get(p, p))
    # each line's accesses as groups: how many accesses each group's first one heads
    groups = {ln: sorted(np.unique(v, return_counts=True)[1].tolist()) for ln, v in by_line.items()}
    assert groups == {10: [2], 11: [4], 12: [2], 13: [2], 14: [1, 1], 16: [2], 17: [4]}


SORT = r"""
struct Cand { float key; int idx; };
extern "C" __global__ void sort(const float *w, Cand *out) {
    __shared__ Cand s[512];
    for (int k = threadIdx.x; k < 512; k += blockDim.x) { Cand c; c.key = w[blockIdx.x * 512 + k]; c.idx = k; s[k] = c; }
    __syncthreads();
    for (int size = 2; size <= 512; size <<= 1)
        for (int stride = size / 2; stride > 0; stride >>= 1) {
            for (int k = threadIdx.x; k < 256; k += blockDim.x) {
                int lo = 2 * k - (k & (stride - 1)), hi = lo + stride;
                Cand a = s[lo], b = s[hi];
                bool down = (lo & size) == 0;
                if (down ? (b.key > a.key) : (a.key > b.key)) { s[lo] = b; s[hi] = a; }
            }
            __syncthreads();
        }
    for (int k = threadIdx.x; k < 512; k += blockDim.x) out[blockIdx.x * 512 + k] = s[k];
}
"""
# the same sort on 8-byte words: (key bits << 32) | idx, which the SASS of the struct's is
WORDS = SORT.replace("__shared__ Cand s[512];", "__shared__ unsigned long long s[512];") \
    .replace("Cand c; c.key = w[blockIdx.x * 512 + k]; c.idx = k; s[k] = c;",
             "s[k] = ((unsigned long long)__float_as_uint(w[blockIdx.x * 512 + k]) << 32) | (unsigned)k;") \
    .replace("Cand a = s[lo], b = s[hi];", "unsigned long long a = s[lo], b = s[hi];") \
    .replace("(b.key > a.key) : (a.key > b.key)",
             "(__uint_as_float(b >> 32) > __uint_as_float(a >> 32)) : (__uint_as_float(a >> 32) > __uint_as_float(b >> 32))") \
    .replace("out[blockIdx.x * 512 + k] = s[k];",
             "{ Cand c; c.key = __uint_as_float(s[k] >> 32); c.idx = (int)(s[k] & 0xffffffffu); out[blockIdx.x * 512 + k] = c; }")

KEYS = ("smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")


def test_a_struct_moved_whole_counts_as_one_8_byte_access():
    w = np.random.default_rng(5).permutation(1024).astype(np.float32)
    got = {}
    for name, src in (("struct", SORT), ("words", WORDS)):
        (_, out), res = run(src, "sort", 2, 128, [w, np.zeros(2 * 1024, np.int32).view(np.uint64)])
        pairs = out.view(np.float32).reshape(-1, 2)
        for b in range(2):
            keys = pairs[b * 512:(b + 1) * 512, 0]
            idx = pairs[b * 512:(b + 1) * 512, 1].view(np.int32)
            assert np.array_equal(keys, np.sort(w[b * 512:(b + 1) * 512])[::-1])   # descending
            assert np.array_equal(w[b * 512 + idx], keys)
        got[name] = [res.metrics[k] for k in KEYS]
    # the struct's copies take the 8-byte words' instructions and wavefronts
    assert got["struct"] == got["words"]
