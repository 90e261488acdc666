"""Loop-invariant condition loads (simt.licm): a loop bound read from memory is loaded once
before the loop, as nvcc loads it, where nothing in the loop can write memory; the
results are the same either way."""
import numpy as np
import pytest

from kern import run
from simt.module import Module

I32 = np.int32
REQ_LD = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"


def csr(body: str, params: str = "const int *off, const int *v", extra=()):
    """One warp: lane t walks its segment off[t]..off[t+1] of v with ``body``; (out, metrics)."""
    src = f'''extern "C" __global__ void k({params}, int *out) {{
        int t = threadIdx.x, s = 0;
        {body}
        out[t] = s;
    }}'''
    lens = np.arange(32) % 5                        # 0..4 elements a lane: uneven trips
    off = np.concatenate([[0], np.cumsum(lens)]).astype(I32)
    v = np.arange(1, off[-1] + 1, dtype=I32)
    (*_, out), res = run(src, "k", 1, 32, [off, v, *extra, np.zeros(32, I32)])
    exp = np.array([v[off[t]:off[t + 1]].sum() for t in range(32)], I32)
    return out, exp, res.metrics


def test_a_loop_bound_in_memory_is_loaded_once():
    out, exp, m = csr("for (int j = off[t]; j < off[t + 1]; ++j) s += v[j];")
    np.testing.assert_array_equal(out, exp)
    assert m[REQ_LD] == 2 + 4            # off[t], off[t + 1], then v[j] on 4 trips (the longest lane's)


def test_a_while_loop_bound_is_loaded_once():
    out, exp, m = csr("int j = off[t]; while (j < off[t + 1]) { s += v[j]; ++j; }")
    np.testing.assert_array_equal(out, exp)
    assert m[REQ_LD] == 6


@pytest.mark.parametrize("body, loads", [
    # a store in the loop may change off[t + 1]: the bound is read on every test (5)
    ("for (int j = off[t]; j < off[t + 1]; ++j) { s += v[j]; out[t] = s; }", 1 + 5 + 4),
    # the bound's address is written in the loop (to the same value)
    ("int j = off[t], k = t; while (j < off[k + 1]) { s += v[j]; ++j; k = t + 0 * j; }", 1 + 5 + 4),
    # a do-while tests after the body
    ("int j = off[t]; if (j < off[t + 1]) do { s += v[j]; ++j; } while (j < off[t + 1]);", 1 + 1 + 4 + 4),
])
def test_what_may_change_or_comes_later_is_not_moved(body, loads):
    out, exp, m = csr(body, "int *off, const int *v")
    np.testing.assert_array_equal(out, exp)
    assert m[REQ_LD] == loads


def test_a_volatile_bound_is_read_every_test():
    out, exp, m = csr("for (int j = off[t]; j < off[t + 1]; ++j) s += v[j];",
                      "const volatile int *off, const int *v")
    np.testing.assert_array_equal(out, exp)
    assert m[REQ_LD] == 1 + 5 + 4


def test_the_moved_value_keeps_its_register_through_the_loop():
    """The bound is written before the loop and read on every test: no temporary of the
    body may take its slot (simt.regalloc), or the loop would stop early."""
    src = '''extern "C" __global__ void k(const int *off, const int *v, int *out) {
        int t = threadIdx.x; unsigned h = 7;
        for (int j = off[t]; j < off[t + 1]; ++j) h = (h ^ (unsigned)v[j]) * 16777619u + (unsigned)(j * 3 + 1);
        out[t] = (int)h;
    }'''
    code = Module.from_source(src).get_function("k").ir.code
    test = next(p for p, i in enumerate(code) if i.op.name == "LOOPTEST")
    back = next(p for p, i in enumerate(code) if i.op.name == "JUMP" and i.target < p)
    bound = [i for i in code[:test] if i.op.name == "LOAD"][-1]       # off[t + 1], before the loop
    assert code[test - 1].args[1] is bound.dst
    assert all(bound.dst.slot not in [r.slot for r in (i.dst if isinstance(i.dst, list) else [i.dst]) if r is not None]
               for i in code[test:back + 1])
    lens = np.arange(32) % 7
    off = np.concatenate([[0], np.cumsum(lens)]).astype(I32)
    v = (np.arange(off[-1]) * 2654435761 % 1000).astype(I32)
    (*_, out), _ = run(src, "k", 1, 32, [off, v, np.zeros(32, I32)])
    for t in range(32):
        h = 7
        for j in range(off[t], off[t + 1]):
            h = ((h ^ int(v[j])) * 16777619 + j * 3 + 1) & 0xFFFFFFFF
        assert out[t] == np.uint32(h).view(I32), t


def test_a_spin_on_a_plain_load_never_sees_the_write_as_on_the_gpu():
    """nvcc loads a non-volatile flag once before a spin loop, which then never ends; the
    emulator does the same and its step budget says so, where a volatile flag works
    (round-robin: the spinning warp loads the flag before the other block sets it)."""
    import simt
    src = '''extern "C" __global__ void k(FLAG *flag, int *out) {
        if (blockIdx.x == 1) { if (threadIdx.x == 0) { __threadfence(); atomicExch((int *)flag, 1); } return; }
        if (threadIdx.x == 0) { while (flag[0] == 0) { } out[0] = 7; }
    }'''
    args = [np.zeros(1, I32), np.zeros(1, I32)]
    (_, out), _ = run(src.replace("FLAG", "volatile int"), "k", 2, 32, args, step_budget=20000,
                     policy="round-robin")
    assert out[0] == 7
    with pytest.raises(simt.SimtError, match="step budget exceeded"):
        run(src.replace("FLAG", "int"), "k", 2, 32, args, step_budget=20000, policy="round-robin")


# a row of a dynamic-programming table against a fixed target: the inner loop is unrolled
# (8 trips) and reads t[j] at addresses the outer loop does not change
DP = '''extern "C" __global__ void k(const int *t, const int *q, int *out, int n) {{
    int p = threadIdx.x, s = 0;
    const int *tp = t + p * 8;
    for (int i = 0; i < n; i++) {{
        int qc = q[p * 64 + i];
        for (int j = 0; j < 8; j++) {{
            s += (qc == tp[{idx}]) ? 3 : -1;
            {extra}
        }}
    }}
    out[p] = s;
}}'''


def _dp(idx="j", extra="", n=16):
    rng = np.random.default_rng(3)
    t = rng.integers(0, 4, 32 * 64).astype(I32)
    q = rng.integers(0, 4, 32 * 64).astype(I32)
    (_, _, out, _), res = run(DP.format(idx=idx, extra=extra), "k", 1, 32, [t, q, np.zeros(32, I32), I32(n)])
    return out, res.metrics, t, q


def _dp_expected(t, q, n, idx=lambda i, j: j):
    return np.array([sum(3 if q[p * 64 + i] == t[p * 8 + idx(i, j)] else -1
                         for i in range(n) for j in range(8)) for p in range(32)], I32)


def test_loads_of_an_unrolled_loop_invariant_in_the_kept_loop_are_made_once():
    """t[p*8 + j], j = 0..7 in an unrolled loop inside a kept loop of 16 trips: nvcc loads
    the 8 words once, before the kept loop (probe/sw-affine-batch: the H200's 96 load
    requests a warp, where the source reads 2,352); q[...] is read on every trip."""
    out, m, t, q = _dp()
    np.testing.assert_array_equal(out, _dp_expected(t, q, 16))
    assert m[REQ_LD] == 8 + 16
    # the results and the count do not depend on how often the kept loop runs
    out, m, t, q = _dp(n=40)
    np.testing.assert_array_equal(out, _dp_expected(t, q, 40))
    assert m[REQ_LD] == 8 + 40


@pytest.mark.parametrize("idx, extra, loads", [
    # the address moves with the kept loop's counter: a new word every trip
    ("(i + j) & 7", "", 16 * 8 + 16),
    # a global store in the kept loop may change t: every trip reads it again
    ("j", "out[p] = s;", 16 * 8 + 16),
])
def test_what_the_kept_loop_may_change_is_read_on_every_trip(idx, extra, loads):
    out, m, t, q = _dp(idx, extra)
    exp = _dp_expected(t, q, 16, (lambda i, j: (i + j) & 7) if idx != "j" else (lambda i, j: j))
    np.testing.assert_array_equal(out, exp)
    assert m[REQ_LD] == loads


def test_more_hoisted_words_than_registers_allow_stay_in_the_loop():
    """80 words (an 80-trip unrolled loop) are more than ``licm.HOIST_WORDS``: nvcc would
    spill them; simt keeps the loads in the loop."""
    from simt.licm import HOIST_WORDS, hoisted_loads
    src = DP.format(idx="j", extra="").replace("j < 8", "j < 80").replace("p * 8", "p * 80")
    assert 80 > HOIST_WORDS
    assert not hoisted_loads(Module.from_source(src).get_function("k").ir)
    assert hoisted_loads(Module.from_source(DP.format(idx="j", extra="")).get_function("k").ir)


# each copy of the unrolled loop reads three neighbours: the copies' 12 loads read 6 words
STENCIL = '''extern "C" __global__ void k(const float *x, float *out) {{
    int t = threadIdx.x;
    float s = 0.0f;
    for (int j = 0; j < 4; j++) {{
        s += x[t + j] * 2.0f + x[t + j + 1] - x[t + j + 2] * 0.5f;
        {extra}
    }}
    out[t] = s;
}}'''


@pytest.mark.parametrize("extra, loads", [("", 6), ("out[t] = s;", 12)])
def test_an_unrolled_loop_loads_each_distinct_address_once(extra, loads):
    """nvcc loads x[t + 0] .. x[t + 5] once for the 4 copies (probe/harris-response: the
    SASS's 21 loads for its copies' 40, Nsight's 105 requests a warp a pixel where the
    source makes 200); with a global store in the loop, every copy loads again."""
    from simt.licm import repeated_loads
    x = np.random.default_rng(5).random(64).astype(np.float32)
    src = STENCIL.format(extra=extra)
    (_, out), res = run(src, "k", 1, 32, [x, np.zeros(32, np.float32)])
    exp = np.array([sum(np.float32(x[t + j] * 2.0 + x[t + j + 1] - x[t + j + 2] * 0.5) for j in range(4))
                    for t in range(32)], np.float32)
    np.testing.assert_allclose(out, exp, rtol=1e-6)
    assert res.metrics[REQ_LD] == loads
    assert bool(repeated_loads(Module.from_source(src).get_function("k").ir)) == (not extra)


def test_an_address_built_on_a_running_value_is_not_a_repeat():
    """``a[t + (s & 0)]`` reads one word, but through the running sum ``s``: each copy waits
    for the last (a chain), so its loads are not taken as one (tests/test_timing.py's
    chain of L1 hits relies on it)."""
    from simt.licm import repeated_loads
    src = '''extern "C" __global__ void again(const int *a, int *out) {
        int s = 0;
        for (int r = 0; r < 8; r++) s += a[threadIdx.x + (s & 0)];
        out[threadIdx.x] = s;
    }'''
    assert repeated_loads(Module.from_source(src).get_function("again").ir) == {}
    assert repeated_loads(Module.from_source(src.replace("(s & 0)", "(r - r)")).get_function("again").ir)


def test_a_vector_load_repeated_across_copies_reads_its_registers():
    """float2 loads of neighbouring pairs in an unrolled loop: the copies' 8 loads read 5
    pairs, and each lane still gets its sums."""
    src = '''extern "C" __global__ void k(const float2 *x, float *out) {
        int t = threadIdx.x;
        float s = 0.0f;
        for (int j = 0; j < 4; j++) { float2 a = x[t + j], b = x[t + j + 1]; s += a.x * b.y - a.y; }
        out[t] = s;
    }'''
    x = np.random.default_rng(2).random((40, 2)).astype(np.float32)
    (_, out), res = run(src, "k", 1, 32, [x, np.zeros(32, np.float32)])
    exp = np.array([sum(np.float32(x[t + j, 0] * x[t + j + 1, 1] - x[t + j, 1]) for j in range(4))
                    for t in range(32)], np.float32)
    np.testing.assert_allclose(out, exp, rtol=1e-5)
    assert res.metrics[REQ_LD] == 5
