"""Each warp intrinsic, bit intrinsic and atomic against lanes computed by hand."""
import numpy as np
import pytest

from kern import compile_error, run

I32, U32 = np.int32, np.uint32
LANE = np.arange(32)


def one_warp(body: str, out_type="int", n_out=32, extra_params="", args=()):
    src = f'''extern "C" __global__ void k({out_type} *o{extra_params}) {{
        int t = threadIdx.x; unsigned lane = t % 32;
        {body}
    }}'''
    dt = {"int": I32, "unsigned": U32, "float": np.float32}[out_type]
    (o, *_), res = run(src, "k", 1, 32, [np.zeros(n_out, dt), *args])
    return o, res


def test_shuffles():
    o, _ = one_warp("o[t] = __shfl_sync(0xffffffff, t * 10, 5);")
    assert o.tolist() == [50] * 32
    o, _ = one_warp("o[t] = __shfl_up_sync(0xffffffff, t * 10, 3);")
    assert o.tolist() == [t * 10 if t < 3 else (t - 3) * 10 for t in range(32)]
    o, _ = one_warp("o[t] = __shfl_down_sync(0xffffffff, t * 10, 4);")
    assert o.tolist() == [(t + 4) * 10 if t + 4 < 32 else t * 10 for t in range(32)]
    o, _ = one_warp("o[t] = __shfl_xor_sync(0xffffffff, t, 1);")
    assert o.tolist() == [t ^ 1 for t in range(32)]
    # width 8: segments of 8 lanes
    o, _ = one_warp("o[t] = __shfl_sync(0xffffffff, t, 2, 8);")
    assert o.tolist() == [(t // 8) * 8 + 2 for t in range(32)]
    o, _ = one_warp("o[t] = __shfl_down_sync(0xffffffff, t, 4, 8);")
    assert o.tolist() == [t + 4 if t % 8 + 4 < 8 else t for t in range(32)]


def test_warp_reduction_with_shuffles_float():
    o, _ = one_warp('''float v = t * 0.5f;
        for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
        o[t] = v;''', out_type="float")
    v = (LANE * np.float32(0.5)).astype(np.float32)
    for off in (16, 8, 4, 2, 1):
        v = v + np.where(LANE + off < 32, np.roll(v, -off), v)
    assert o[0] == v[0] == np.float32(248.0)


def test_votes_and_activemask():
    o, _ = one_warp("o[t] = __ballot_sync(0xffffffff, t % 3 == 0);", "unsigned")
    exp = sum(1 << t for t in range(32) if t % 3 == 0)
    assert o.tolist() == [exp] * 32
    o, _ = one_warp("if (t < 10) o[t] = __activemask(); else o[t] = __activemask() ^ 1u;", "unsigned")
    assert o.tolist() == [0x3FF] * 10 + [(0xFFFFFFFF ^ 0x3FF) ^ 1] * 22
    o, _ = one_warp("o[t] = __any_sync(0xffffffff, t == 31) * 10 + __all_sync(0xffffffff, t < 31);")
    assert o.tolist() == [10] * 32
    o, _ = one_warp("if (t % 2) o[t] = __all_sync(__activemask(), t % 2 == 1); else o[t] = 5;")
    assert o.tolist() == [5 if t % 2 == 0 else 1 for t in range(32)]


def test_match_any_seed_example():
    # seed 002: lanes 0..7 hold [5,3,5,5,2,3,5,2] -> masks 0b01001101, 0b00100010, 0b10010000
    o, _ = one_warp('''int vals[8] = {5, 3, 5, 5, 2, 3, 5, 2};
        if (t < 8) o[t] = __match_any_sync(__activemask(), vals[t]);''', "unsigned")
    assert o[:8].tolist() == [0b01001101, 0b00100010, 0b01001101, 0b01001101,
                              0b10010000, 0b00100010, 0b01001101, 0b10010000]


def test_match_any_many_warps_against_lanes():
    """Every lane of 64 warps gets the lanes of its warp that hold its value, among those
    that take part (a divergent branch leaves some out; a mask names all but lane 0)."""
    rng = np.random.default_rng(7)
    v = rng.integers(0, 6, 2048).astype(np.int32)
    v[:32] = 4                                   # one warp all equal
    src = '''extern "C" __global__ void k(const int *v, unsigned *o, unsigned *p) {
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        if (v[t] != 5) o[t] = __match_any_sync(__activemask(), v[t]);
        if (threadIdx.x % 32) p[t] = __match_any_sync(0xfffffffeu, v[t] & 1);
    }'''
    (_, o, p), _ = run(src, "k", 8, 256, [v, np.zeros(2048, U32), np.zeros(2048, U32)])
    for w in range(64):
        vals = v[32 * w: 32 * w + 32]
        for lane in range(32):
            if vals[lane] != 5:
                want = sum(1 << j for j in range(32) if vals[j] == vals[lane])
                assert o[32 * w + lane] == want, (w, lane)
            if lane:
                want = sum(1 << j for j in range(1, 32) if vals[j] & 1 == vals[lane] & 1)
                assert p[32 * w + lane] == want, (w, lane)


def test_bit_intrinsics():
    o, _ = one_warp('''unsigned x = 0x80000000u >> t;
        o[t] = __popc(x | 5u) * 1000000 + __ffs((int)(x)) * 1000 + __clz((int)x);''')
    exp = []
    for t in range(32):
        x = 0x80000000 >> t
        exp.append(bin(x | 5).count("1") * 1000000 + (32 - t) * 1000 + t)
    assert o.tolist() == exp
    o, _ = one_warp("o[t] = __brev(1u << t);", "unsigned")
    assert o.tolist() == [1 << (31 - t) for t in range(32)]
    o, _ = one_warp("o[t] = __ffs(0) + __clz(0) + __popc(0);")
    assert o.tolist() == [32] * 32
    o, _ = one_warp("o[t] = __float_as_int(1.0f) + __float_as_int(__int_as_float(t)) - t;")
    assert o.tolist() == [0x3F800000] * 32


def test_min_max_abs_math():
    o, _ = one_warp("o[t] = min(t, 10) * 100 + max(t - 20, 0) + abs(t - 16) * 10000;")
    assert o.tolist() == [min(t, 10) * 100 + max(t - 20, 0) + abs(t - 16) * 10000 for t in range(32)]
    o, _ = one_warp("o[t] = sqrtf((float)t) + floorf(2.5f) + fmaxf(1.0f, 0.5f);", "float")
    assert np.array_equal(o, np.sqrt(LANE.astype(np.float32)) + np.float32(3))


@pytest.mark.parametrize("ctype,dt", [("int", I32), ("unsigned", U32), ("float", np.float32),
                                      ("double", np.float64), ("unsigned long long", np.uint64)])
def test_atomic_add_returns_old_in_lane_order(ctype, dt):
    src = f'''extern "C" __global__ void k({ctype} *acc, {ctype} *old) {{
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        old[t] = atomicAdd(&acc[t % 2], ({ctype})(t + 1));
    }}'''
    (acc, old), _ = run(src, "k", 2, 32, [np.zeros(2, dt), np.zeros(64, dt)])
    t = np.arange(64)
    assert acc.tolist() == [sum(range(1, 65, 2)), sum(range(2, 65, 2))]
    # lanes hitting one address are applied in lane order, warp by warp
    exp = [sum(s + 1 for s in range(tt % 2, tt, 2)) for tt in t]
    assert old.tolist() == exp


def test_vector_atomic_add_adds_each_element_and_returns_the_old_vector():
    """sm_90's atomicAdd(float2 *, float2) and float4: each element atomically, in lane
    order as the scalar form; the old vector comes back."""
    src = r'''extern "C" __global__ void k(float2 *g, float4 *h, float2 *old, float s) {
        int t = threadIdx.x;
        old[t] = atomicAdd(&g[t % 3], make_float2(1.0f, s * t));
        atomicAdd(h, make_float4(1.0f, 2.0f, (float)t, -s));
    }'''
    g = np.zeros(6, np.float32)
    (g, h, old, _), res = run(src, "k", 1, 32, [g, np.zeros(4, np.float32), np.zeros(64, np.float32),
                                                np.float32(0.5)])
    t = np.arange(32)
    assert g.reshape(3, 2).tolist() == [[np.sum(t % 3 == j), 0.5 * t[t % 3 == j].sum()] for j in range(3)]
    assert h.tolist() == [32.0, 64.0, float(t.sum()), -16.0]
    old = old.reshape(32, 2)
    assert old[:, 0].tolist() == [float(np.sum(t[:i] % 3 == i % 3)) for i in t]
    assert old[:, 1].tolist() == [0.5 * t[:i][t[:i] % 3 == i % 3].sum() for i in t]
    assert res.sanitizer == []


@pytest.mark.parametrize("call", ["atomicAdd(g, 1.0f)", "atomicAdd((const float2 *)g, make_float2(1, 2))",
                                  "atomicSub(g, make_float2(1, 2))"])
def test_vector_atomic_add_overloads_are_float2_and_float4_only(call):
    msg = compile_error(f'''extern "C" __global__ void k(float2 *g) {{\n  {call};\n}}''')
    assert msg.startswith("bad.cu:2:3") and 'no instance of overloaded function "atomic' in msg


def test_atomics_min_max_exch_cas_inc_dec_bitwise():
    src = r'''extern "C" __global__ void k(int *a, unsigned *u, int *r) {
        int t = threadIdx.x;
        atomicMin(&a[0], 100 - t);
        atomicMax(&a[1], t * 3);
        r[t] = atomicExch(&a[2], t);
        atomicSub(&a[3], 2);
        atomicAnd(&a[4], ~(1 << t));
        atomicOr(&a[5], 1 << (t % 8));
        atomicXor(&a[6], t);
        atomicInc(&u[0], 9u);
        atomicDec(&u[1], 100u);
        int old = atomicCAS(&a[7], t - 1, t);
        r[32 + t] = old;
    }'''
    a = np.array([1000, 0, -1, 0, -1, 0, 0, 0], I32)
    (a, u, r), _ = run(src, "k", 1, 32, [a, np.array([0, 5], U32), np.zeros(64, I32)])
    assert a[0] == 69 and a[1] == 93 and a[2] == 31 and a[3] == -64
    assert a[4] == 0 and a[5] == 0xFF and a[6] == np.bitwise_xor.reduce(np.arange(32))
    assert r[:32].tolist() == [-1] + list(range(31))
    # atomicInc wraps to 0 after 9: 32 increments from 0 -> 32 % 10 = 2
    assert u[0] == 2
    # atomicDec from 5 wraps to 100 at 0: 5,4,3,2,1,0 -> 100, ... 32 decrements
    v = 5
    for _ in range(32):
        v = 100 if v == 0 or v > 100 else v - 1
    assert u[1] == v
    # CAS chain from 0: lane 0 (expects -1) fails; lane t>0 expects t-1, finds it, succeeds
    assert a[7] == 31 and r[32:].tolist() == [0] + list(range(31))


def test_cas_loop_atomic_mul_int():
    src = r'''__device__ int atomicMul(int* address, int val){
        int old = *address, assumed;
        do { assumed = old; old = atomicCAS(address, assumed, val*assumed); } while(assumed != old);
        return old;
    }
    extern "C" __global__ void k(int *p) { atomicMul(p, (threadIdx.x % 3 == 0) ? 2 : 1); }'''
    (p,), res = run(src, "k", 2, 64, [np.array([1], I32)])
    # 44 doublings wrap int32 to 0 exactly as on the GPU; check a size that fits too
    assert p[0] == 0
    (p,), res = run(src, "k", 1, 40, [np.array([3], I32)])
    assert p[0] == 3 * 2 ** sum(1 for t in range(40) if t % 3 == 0)
    assert res.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"] > 4


def test_atomic_serialization_counts():
    src = r'''extern "C" __global__ void k(int *h) { atomicAdd(&h[threadIdx.x % 4], 1); }'''
    (h,), res = run(src, "k", 1, 64, [np.zeros(4, I32)])
    assert h.tolist() == [16] * 4
    m = res.metrics
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"] == 2
    assert m["simt__atomic_serialized_steps.sum"] == 16     # 8 lanes per address, 2 warps
    assert m["simt__atomic_addresses.sum"] == 8
    assert res.atomics[0]["lanes"][0] == [0, 4, 8, 12, 16, 20, 24, 28]


def test_printf_per_lane():
    src = r'''extern "C" __global__ void k(int n) { if (threadIdx.x < n) printf("t=%d x=%.1f\n", threadIdx.x, 0.5f * threadIdx.x); }'''
    _, res = run(src, "k", 1, 32, [I32(3)])
    assert res.stdout == ["t=0 x=0.0\n", "t=1 x=0.5\n", "t=2 x=1.0\n"]


def test_uniform_address_atomic_is_warp_aggregated_like_nvcc():
    # nvcc reduces a warp-uniform-address integer atomic with an unused result to one lane:
    # Nsight sees one request and one sector per warp (probe atomic_uniform on an H200)
    src = r'''extern "C" __global__ void k(int *c, int *h) {
        atomicAdd(c, 1);
        for (int b = 0; b < 4; b++) atomicAdd(&h[b], threadIdx.x);
        atomicAdd(&h[threadIdx.x % 4], 1);
    }'''
    (c, h), res = run(src, "k", 2, 64, [np.zeros(1, I32), np.zeros(4, I32)])
    assert c[0] == 128 and h.tolist() == [2 * sum(range(64)) + 32] * 4
    per_line = res.per_line
    assert per_line[2]["l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"] == 4        # 4 warps
    assert per_line[3]["l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"] == 16       # 4 warps x 4 bins
    assert per_line[4]["l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"] == 4 * 8    # varying: 8 lanes/word


REDUX = r'''
extern "C" __global__ void redux(const int *v, int *o, unsigned int *u) {
    int t = threadIdx.x;
    int x = v[t];
    if (t & 1) {                                  // odd lanes only: the mask's even lanes are absent
        o[4 * t + 0] = __reduce_add_sync(0xaaaaaaaau, x);
        o[4 * t + 1] = __reduce_min_sync(0xaaaaaaaau, x);
        o[4 * t + 2] = __reduce_max_sync(0xaaaaaaaau, x);
    } else {
        o[4 * t + 3] = __reduce_add_sync(0x55555555u, x);
    }
    u[3 * t + 0] = __reduce_and_sync(0xffffffffu, (unsigned)x | 0x100u);
    u[3 * t + 1] = __reduce_or_sync(0xffffffffu, (unsigned)x);
    u[3 * t + 2] = __reduce_xor_sync(0xffffffffu, (unsigned)x);
}
'''


def test_reduce_sync_intrinsics_reduce_over_the_masks_lanes():
    rng = np.random.default_rng(3)
    v = rng.integers(-1000, 1000, 64).astype(np.int32)
    v[5] = 2**31 - 1                     # add wraps like the hardware
    v[7] = 1000
    (_, o, u), _ = run(REDUX, "redux", 1, 64, [v, np.zeros(256, np.int32), np.zeros(192, np.uint32)])
    o = o.reshape(64, 4)
    u = u.reshape(64, 3)
    for w in range(2):
        lanes = v[32 * w:32 * w + 32]
        odd, even = lanes[1::2], lanes[0::2]
        for t in range(32 * w, 32 * w + 32):
            if t & 1:
                assert o[t, 0] == (odd.astype(np.int64).sum() + 2**31) % 2**32 - 2**31
                assert o[t, 1] == odd.min() and o[t, 2] == odd.max()
            else:
                assert o[t, 3] == even.sum()
        uu = lanes.view(np.uint32)
        assert (u[32 * w:32 * w + 32, 0] == np.bitwise_and.reduce(uu | 0x100)).all()
        assert (u[32 * w:32 * w + 32, 1] == np.bitwise_or.reduce(uu)).all()
        assert (u[32 * w:32 * w + 32, 2] == np.bitwise_xor.reduce(uu)).all()


# ---------------------------------------------- dp4a, funnel shifts, byte_perm, bar.red
def _bytes(v, signed):
    b = [(int(v) >> (8 * k)) & 0xFF for k in range(4)]
    return [x - 256 if signed and x >= 128 else x for x in b]


INT3_SRC = '''extern "C" __global__ void k(const unsigned *a, const unsigned *b, const unsigned *s,
                                    int *dots, unsigned *udots, int *dp2, unsigned *sh) {
    int t = threadIdx.x;
    unsigned x = a[t], y = b[t], z = s[t];
    dots[t] = __dp4a((int)x, (int)y, -7 * t);
    udots[t] = __dp4a(x, y, 3u * t);
    dp2[2 * t] = __dp2a_lo((int)x, (int)y, t);
    dp2[2 * t + 1] = __dp2a_hi((int)x, (int)y, -t);
    sh[6 * t] = __funnelshift_l(x, y, z);
    sh[6 * t + 1] = __funnelshift_lc(x, y, z);
    sh[6 * t + 2] = __funnelshift_r(x, y, z);
    sh[6 * t + 3] = __funnelshift_rc(x, y, z);
    sh[6 * t + 4] = __byte_perm(x, y, z);
    sh[6 * t + 5] = __byte_perm(x, y, 0x0123);   // byte swap of x
}'''


def _int3_args(n=64, seed=3):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(U32)
    b = rng.integers(0, 2**32, n, dtype=np.uint64).astype(U32)
    s = rng.integers(0, 2**32, n, dtype=np.uint64).astype(U32)
    s[:8] = [0, 1, 31, 32, 33, 40, 0x7654, 0xFFFF]       # edges: 0, 31/32/33 (mod 32, clamp)
    return [a, b, s, np.zeros(n, I32), np.zeros(n, U32), np.zeros(2 * n, I32), np.zeros(6 * n, U32)]


def _wrap(v, signed):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if signed and v >= 1 << 31 else v


def test_dp4a_dp2a_funnelshift_byte_perm_by_hand():
    args = _int3_args()
    (a, b, s, dots, udots, dp2, sh), _ = run(INT3_SRC, "k", 1, 64, args)
    for t in range(64):
        x, y, z = int(a[t]), int(b[t]), int(s[t])
        sa, sb = _bytes(x, True), _bytes(y, True)
        assert dots[t] == _wrap(sum(p * q for p, q in zip(sa, sb)) - 7 * t, True)
        ua, ub = _bytes(x, False), _bytes(y, False)
        assert udots[t] == _wrap(sum(p * q for p, q in zip(ua, ub)) + 3 * t, False)
        halves = [(x >> 16 * k) & 0xFFFF for k in range(2)]
        halves = [h - 65536 if h >= 32768 else h for h in halves]
        assert dp2[2 * t] == _wrap(halves[0] * sb[0] + halves[1] * sb[1] + t, True)
        assert dp2[2 * t + 1] == _wrap(halves[0] * sb[2] + halves[1] * sb[3] - t, True)
        w = (y << 32) | x
        assert sh[6 * t] == ((w << (z & 31)) >> 32) & 0xFFFFFFFF
        assert sh[6 * t + 1] == ((w << min(z, 32)) >> 32) & 0xFFFFFFFF
        assert sh[6 * t + 2] == (w >> (z & 31)) & 0xFFFFFFFF
        assert sh[6 * t + 3] == (w >> min(z, 32)) & 0xFFFFFFFF
        src = [(w >> 8 * k) & 0xFF for k in range(8)]
        assert sh[6 * t + 4] == sum(src[(z >> 4 * n) & 7] << 8 * n for n in range(4))
        assert sh[6 * t + 5] == int.from_bytes(x.to_bytes(4, "little"), "big")
    # the rotations SHA-256 writes with them
    assert sh[6 * 2 + 2] == (int(a[2]) >> 31 | (int(b[2]) << 1)) & 0xFFFFFFFF


def test_dp4a_overloads_follow_cpp():
    from kern import compile_error
    msg = compile_error('''extern "C" __global__ void k(unsigned *o, unsigned u, unsigned v) {
        o[0] = __dp4a(u, v, 0);
    }''')
    assert "bad.cu:2:16" in msg and "more than one instance" in msg
    o, _ = one_warp("o[t] = __dp4a(0x01020304, 0x01010101 * (t + 1), 0);")
    assert o.tolist() == [10 * (t + 1) for t in range(32)]      # 1+2+3+4 times t+1


BAR_SRC = '''extern "C" __global__ void k(const int *a, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x >= 100 + blockIdx.x) return;       // exited threads do not vote
    int v = i < n ? a[i] : 0;
    int c = __syncthreads_count(v > 0);
    int all = __syncthreads_and(v > -5);
    int any = __syncthreads_or(v > 90);
    if (threadIdx.x == 3) { out[3 * blockIdx.x] = c; out[3 * blockIdx.x + 1] = all; out[3 * blockIdx.x + 2] = any; }
}'''


def _bar_args(nb=8, block=128, seed=5):
    rng = np.random.default_rng(seed)
    n = nb * block - 50
    a = rng.integers(-6, 95, n).astype(I32)
    a[: 2 * block] = np.abs(a[: 2 * block])             # blocks 0 and 1: every v > -5
    return [a, np.zeros(3 * nb, I32), n], nb, block


def _bar_expect(a, n, nb, block):
    out = []
    for blk in range(nb):
        idx = [blk * block + t for t in range(min(block, 100 + blk))]
        v = [a[i] if i < n else 0 for i in idx]
        out += [sum(x > 0 for x in v), int(all(x > -5 for x in v)), int(any(x > 90 for x in v))]
    return out


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_syncthreads_count_and_or(policy):
    args, nb, block = _bar_args()
    (a, out, n), res = run(BAR_SRC, "k", nb, block, args, policy=policy, seed=1)
    exp = _bar_expect(a, n, nb, block)
    assert out.tolist() == exp
    assert exp[1] == 1 and exp[4] == 1 and 0 in exp[1::3]      # both answers of _and occur
    assert res.metrics["simt__barriers.max"] == 3                # three votes, each a barrier


def test_syncthreads_count_in_divergent_code_is_named():
    src = BAR_SRC.replace("int c = __syncthreads_count(v > 0);",
                          "int c = threadIdx.x < 40 ? __syncthreads_count(v > 0) : 0;")
    with pytest.raises(Exception) as e:
        run(src, "k", 2, 128, _bar_args(nb=2)[0])
    assert "t.cu:5:" in str(e.value) and "__syncthreads_count() reached by only 8 of the 32" in str(e.value)


@pytest.mark.gpu
def test_int3_and_block_votes_match_the_gpu(tmp_path):
    from kern import gpu_or_skip, same_bytes_on_gpu
    gpu_or_skip()
    same_bytes_on_gpu(INT3_SRC, tmp_path / "int3.cu", "k", 1, 64, _int3_args(256, seed=9)[:7])
    args, nb, block = _bar_args(nb=16)
    same_bytes_on_gpu(BAR_SRC, tmp_path / "bar.cu", "k", nb, block, args)


@pytest.mark.gpu
def test_vector_atomic_add_matches_the_gpu(tmp_path):
    """The float2/float4 atomicAdd sums (exact in any order: halves and small integers)
    are the GPU's, byte for byte."""
    from kern import gpu_or_skip, same_bytes_on_gpu
    gpu_or_skip()
    src = r'''extern "C" __global__ void k(float2 *g, float4 *h, float s) {
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        atomicAdd(&g[t % 5], make_float2(1.0f, s * (t % 7)));
        atomicAdd(&h[t % 2], make_float4(1.0f, -2.0f, (float)(t % 3), s));
    }'''
    same_bytes_on_gpu(src, tmp_path / "vatom.cu", "k", 4, 64,
                      [np.zeros(10, np.float32), np.zeros(8, np.float32), np.float32(0.5)])


def test_mul64hi_is_the_high_word_of_the_128_bit_product():
    """__umul64hi / __mul64hi against Python's integers, on the words' edges and random ones
    (the emulator computes them from four 32 x 32-bit products)."""
    edges = [0, 1, 2, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, (1 << 32) - 1, 1 << 32, 0xDEADBEEFCAFEBABE]
    rng = np.random.default_rng(5)
    a = np.array(edges * len(edges) + rng.integers(0, 2**64, 119, dtype=np.uint64).tolist(), np.uint64)
    b = np.array([e for e in edges for _ in edges] + rng.integers(0, 2**64, 119, dtype=np.uint64).tolist(),
                 np.uint64)
    src = '''extern "C" __global__ void k(const unsigned long long *a, const unsigned long long *b,
                                     unsigned long long *u, long long *s) {
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        u[t] = __umul64hi(a[t], b[t]);
        s[t] = __mul64hi((long long)a[t], (long long)b[t]);
    }'''
    (_, _, u, s), _ = run(src, "k", 5, 40, [a, b, np.zeros(200, np.uint64), np.zeros(200, np.int64)])
    sa, sb = a.view(np.int64), b.view(np.int64)
    assert [int(x) for x in u] == [(int(p) * int(q)) >> 64 for p, q in zip(a, b)]
    assert [int(x) for x in s] == [(int(p) * int(q)) >> 64 for p, q in zip(sa, sb)]
