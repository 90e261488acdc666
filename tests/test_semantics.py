"""Divergence, reconvergence, loops, early return, device functions: hand-computed lanes."""
import numpy as np

from kern import run

I32 = np.int32


def test_nested_branches_per_lane():
    src = r'''extern "C" __global__ void k(int *o) {
        int t = threadIdx.x, v = 0;
        if (t % 2 == 0) { if (t % 4 == 0) v = 1; else v = 2; }
        else if (t < 16) v = 3;
        else { v = 4; if (t > 28) v += 10; }
        o[t] = v;
    }'''
    (o,), r = run(src, "k", 1, 32, [np.zeros(32, I32)])
    t = np.arange(32)
    exp = np.where(t % 2 == 0, np.where(t % 4 == 0, 1, 2), np.where(t < 16, 3, np.where(t > 28, 14, 4)))
    assert o.tolist() == exp.tolist()
    # one warp, the store after the branches runs once with all 32 lanes (reconverged)
    store = r.per_line[6]
    assert store["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] == 1
    assert store["smsp__thread_inst_executed_per_inst_executed.ratio"] == 32.0
    # [times a warp reached the branch, times it split]: line 3 holds two ifs, both split
    assert r.divergence == {3: [2, 2], 4: [1, 1], 5: [1, 1]}


def test_loop_break_continue_early_return():
    src = r'''extern "C" __global__ void k(int *o, int n) {
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        if (t >= n) return;
        int s = 0;
        for (int i = 0; i < 100; i++) {
            if (i == t) break;
            if (i % 3 == 0) continue;
            s += i;
        }
        int j = 0;
        while (1) { j++; if (j > t / 4) break; }
        do { s += 1000; } while (0);
        o[t] = s * 100 + j;
    }'''
    n = 40
    (o, _), r = run(src, "k", 2, 32, [np.full(64, -1, I32), I32(n)])
    exp = []
    for t in range(64):
        if t >= n:
            exp.append(-1)
            continue
        s = sum(i for i in range(t) if i % 3)
        s += 1000
        exp.append(s * 100 + (t // 4 + 1))
    assert o.tolist() == exp


def test_device_function_inlined_with_early_return_and_pointer():
    src = r'''
    __device__ int clampadd(int *p, int a, int lim) {
        if (a > lim) return lim;
        *p += a;
        return a;
    }
    extern "C" __global__ void k(int *acc, int *o) {
        int t = threadIdx.x;
        o[t] = clampadd(&acc[t], t, 20);
    }'''
    (acc, o), _ = run(src, "k", 1, 32, [np.ones(32, I32), np.zeros(32, I32)])
    t = np.arange(32)
    assert o.tolist() == np.minimum(t, 20).tolist()
    assert acc.tolist() == np.where(t > 20, 1, 1 + t).tolist()


def test_ternary_with_loads_only_touches_its_lanes():
    # data has only 40 elements: the load in the true arm must not run for t >= 40
    src = r'''extern "C" __global__ void k(const unsigned char *d, unsigned char *o, int n) {
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        unsigned char v = (t < n) ? d[t] : 0xFF;
        o[t] = v;
        int ok = (t < n) && d[t] > 100;
        if (ok) o[t] = 7;
    }'''
    d = np.arange(40, dtype=np.uint8) * 5
    (_, o, _), _ = run(src, "k", 2, 32, [d, np.zeros(64, np.uint8), I32(40)])
    exp = np.full(64, 255)
    exp[:40] = np.where(d > 100, 7, d)
    assert o.tolist() == exp.tolist()


def test_integer_wrap_division_and_conversions():
    src = r'''extern "C" __global__ void k(int *o, unsigned *u, float *f) {
        int t = threadIdx.x - 16;
        o[threadIdx.x] = t / 3 * 1000 + t % 3;
        u[threadIdx.x] = (unsigned)t * 2654435761u;
        int big = 2147483647;
        if (threadIdx.x == 0) o[31] = big + 1;
        f[threadIdx.x] = (float)(t) / 3.0f + (int)(-2.7f);
    }'''
    (o, u, f), _ = run(src, "k", 1, 32, [np.zeros(32, I32), np.zeros(32, np.uint32), np.zeros(32, np.float32)])
    t = np.arange(32) - 16
    q = np.trunc(t / 3).astype(int)
    exp = q * 1000 + (t - q * 3)
    exp[31] = -2147483648
    assert o.tolist() == exp.tolist()
    assert u.tolist() == ((t.astype(np.int64) & 0xFFFFFFFF) * 2654435761 & 0xFFFFFFFF).tolist()
    assert np.array_equal(f, (t.astype(np.float32) / np.float32(3)) + np.float32(-2))


def test_2d_grid_and_block_indices():
    src = r'''extern "C" __global__ void k(int *o, int w) {
        int x = blockIdx.x * blockDim.x + threadIdx.x;
        int y = blockIdx.y * blockDim.y + threadIdx.y;
        o[y * w + x] = x * 100 + y + threadIdx.z * 0 + gridDim.y * 0 + blockDim.z - 1;
    }'''
    (o, _), _ = run(src, "k", (3, 2), (8, 4), [np.zeros(24 * 8, I32), I32(24)])
    y, x = np.mgrid[0:8, 0:24]
    assert o.reshape(8, 24).tolist() == (x * 100 + y).tolist()


def test_shared_2d_array_and_local_array():
    src = r'''extern "C" __global__ void k(int *o) {
        __shared__ int tile[4][33];
        int loc[4] = {1, 2};
        int t = threadIdx.x;
        tile[t % 4][t / 4] = t;
        __syncthreads();
        loc[3] = tile[(t + 1) % 4][t / 4];
        o[t] = loc[0] + loc[1] * 10 + loc[2] * 100 + loc[3] * 1000;
    }'''
    (o,), r = run(src, "k", 1, 128, [np.zeros(128, I32)])
    t = np.arange(128)
    other = (t // 4) * 4 + (t + 1) % 4
    assert o.tolist() == (1 + 20 + other * 1000).tolist()
    assert r.sanitizer == []


def test_step_mode_equals_group_mode():
    src = r'''extern "C" __global__ void k(const int *d, int *h, int n) {
        __shared__ int s[64];
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (threadIdx.x < 64) s[threadIdx.x] = 0;
        __syncthreads();
        if (i < n) { int b = d[i] % 64; if (b & 1) s[b]++; else atomicAdd(&s[b], 1); }
        __syncthreads();
        if (threadIdx.x < 64) atomicAdd(&h[threadIdx.x], s[threadIdx.x]);
    }'''
    import simt
    d = np.random.default_rng(3).integers(0, 1000, 700).astype(I32)
    outs = []
    for warp_steps in (False, True):
        mod = simt.Module.from_source(src, "t.cu")
        dev = simt.Device()
        dd, h = dev.to_device(d), dev.zeros(64, I32)
        ln = mod.get_function("k").prepare(dev, simt.LaunchConfig.of(3, 256), [dd, h, I32(700)])
        res = ln.run(warp_steps=warp_steps)
        outs.append((h.get(), res.metrics, res.per_line, [f.as_dict() for f in res.sanitizer]))
    assert np.array_equal(outs[0][0], outs[1][0])
    assert outs[0][1] == outs[1][1]
    assert outs[0][2] == outs[1][2]
    assert outs[0][3] == outs[1][3]


def test_deterministic_per_seed_random_policy():
    src = r'''extern "C" __global__ void k(int *a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i + 1 < n) a[i] = a[i + 1] + 1;
    }'''
    a = np.arange(256, dtype=I32)
    r1 = run(src, "k", 4, 64, [a, I32(256)], policy="random", seed=5)[0][0]
    r2 = run(src, "k", 4, 64, [a, I32(256)], policy="random", seed=5)[0][0]
    assert np.array_equal(r1, r2)


def test_scalar_shared_variable_last_block_pattern():
    src = r'''extern "C" __global__ void k(int *count, int *out) {
        __shared__ int amLast;
        __shared__ float partial;
        if (threadIdx.x == 0) { partial = 1.5f; amLast = (atomicAdd(count, 1) == gridDim.x - 1); }
        __syncthreads();
        if (amLast && threadIdx.x == 0) out[0] = blockIdx.x * 10 + (int)(partial * 2);
    }'''
    (count, out), r = run(src, "k", 5, 64, [np.zeros(1, I32), np.zeros(1, I32)])
    assert count[0] == 5 and out[0] == 43
    assert r.sanitizer == []
