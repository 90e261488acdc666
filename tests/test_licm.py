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
