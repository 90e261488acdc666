"""Common loads (simt.cse): a repeated load in straight-line code is made once, as nvcc
makes it; anything that may change memory in between keeps both."""
import numpy as np
import pytest

from kern import run

I32 = np.int32
REQ_LD = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
SHARED_LD = "smsp__inst_executed_op_shared_ld.sum"


def loads(body: str, params: str = "const int *a", shared: str = "") -> tuple[np.ndarray, dict]:
    """One warp runs ``out[t] = <body>``; returns (out, metrics)."""
    src = f'''extern "C" __global__ void k({params}, int *out) {{
        {shared}
        int t = threadIdx.x;
        {body}
    }}'''
    a = np.arange(64, dtype=I32) + 1
    (_, out), res = run(src, "k", 1, 32, [a, np.zeros(32, I32)])
    return out, res.metrics


def test_a_repeated_load_is_made_once():
    out, m = loads("out[t] = a[t] * a[t];")
    np.testing.assert_array_equal(out, (np.arange(32) + 1) ** 2)
    assert m[REQ_LD] == 1


def test_the_same_address_reached_two_ways_is_one_load():
    out, m = loads("const int *p = a + t; out[t] = p[0] + a[t] + *(a + t);")
    np.testing.assert_array_equal(out, 3 * (np.arange(32) + 1))
    assert m[REQ_LD] == 1


def test_different_addresses_are_different_loads():
    _, m = loads("out[t] = a[t] + a[t + 1];")
    assert m[REQ_LD] == 2


@pytest.mark.parametrize("between", [
    "out[t] = 0;",                       # a store may alias a
    "atomicAdd(out, 1);",                # so may an atomic
    "__threadfence();",                  # a fence orders the two loads
    "__syncthreads();",                  # a barrier lets other threads write
    "if (t > 40) out[t] = 1;",           # a branch ends the straight-line run
])
def test_anything_that_may_change_memory_keeps_both(between):
    src_params = "int *a"
    out, m = loads(f"int x = a[t]; {between} out[t] = x + a[t];", src_params)
    assert m[REQ_LD] == 2
    assert out[5] == 12


def test_a_volatile_pointer_is_loaded_every_time():
    _, m = loads("out[t] = a[t] * a[t];", "const volatile int *a")
    assert m[REQ_LD] == 2
    _, m = loads("const volatile int *v = a; out[t] = v[t] * v[t];")
    assert m[REQ_LD] == 2


def test_volatile_shared_memory_is_loaded_every_time():
    body = "s[t] = a[t]; __syncthreads(); out[t] = s[t ^ 1] + s[t ^ 1];"
    out, m = loads(body, shared="__shared__ int s[32];")
    assert m[SHARED_LD] == 1
    np.testing.assert_array_equal(out, 2 * ((np.arange(32) ^ 1) + 1))
    _, m = loads(body, shared="__shared__ volatile int s[32];")
    assert m[SHARED_LD] == 2


def test_a_reassigned_index_is_a_new_address():
    out, m = loads("int i = t; int x = a[i]; i = i + 1; out[t] = x + a[i];")
    np.testing.assert_array_equal(out, 2 * np.arange(32) + 3)
    assert m[REQ_LD] == 2


def test_sobel_loads_each_neighbour_once():
    """probes7.cu's Sobel filter reads four of its eight neighbours twice; the GPU (ncu)
    makes 8 load requests a warp, one per neighbour."""
    from pathlib import Path
    src = (Path(__file__).parent.parent / "kernels_cuda" / "probes7.cu").read_text()
    w = h = 34
    img = (np.arange(w * h) * 37 % 251).astype(np.uint8)
    out = np.zeros(w * h, np.uint8)
    (_, got, _, _), res = run(src, "sobel_u8", (1, h), (32, 1), [img, out, I32(w), I32(h)])
    interior = h - 2                       # one interior warp per row; lanes 1..31 are inside
    assert res.metrics[REQ_LD] == 8 * interior
    x = img.reshape(h, w).astype(int)
    gx = -x[:-2, :-2] + x[:-2, 2:] - 2 * x[1:-1, :-2] + 2 * x[1:-1, 2:] - x[2:, :-2] + x[2:, 2:]
    gy = -x[:-2, :-2] - 2 * x[:-2, 1:-1] - x[:-2, 2:] + x[2:, :-2] + 2 * x[2:, 1:-1] + x[2:, 2:]
    want = np.minimum(np.abs(gx) + np.abs(gy), 255)
    np.testing.assert_array_equal(got.reshape(h, w)[1:-1, 1:32], want[:, :31])


REQ_ST = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
PARTICLE = "struct P { float x, y, vx, vy; };\n"


def _struct_run(body: str):
    src = PARTICLE + f'''extern "C" __global__ void k(P *p, float *out) {{
        int t = threadIdx.x;
        {body}
    }}'''
    dt = np.dtype({"names": ["x", "y", "vx", "vy"], "formats": ["<f4"] * 4})
    a = np.zeros(32, dt)
    for k, f in enumerate(dt.names):
        a[f] = np.arange(32) + 100 * k
    (p, out), res = run(src, "k", 1, 32, [a, np.zeros(32, np.float32)])
    return a, p, out, res.metrics


def test_a_struct_written_back_stores_only_the_members_that_changed():
    a, p, _, m = _struct_run("P q = p[t]; q.x += q.vx; p[t] = q;")
    np.testing.assert_array_equal(p["x"], a["x"] + a["vx"])
    np.testing.assert_array_equal(p["vy"], a["vy"])
    assert m[REQ_ST] == 1 and m[REQ_LD] == 4       # nvcc's SASS stores x alone


def test_a_store_to_another_member_keeps_a_load_of_this_one():
    _, p, out, m = _struct_run("float x = p[t].x; p[t].y = 2.0f; out[t] = x + p[t].x;")
    np.testing.assert_array_equal(out, 2 * np.arange(32))
    assert m[REQ_LD] == 1


def test_a_store_back_after_a_store_that_may_alias_is_kept():
    out, m = loads("int v = a[t]; out[t] = 7; a[t] = v; out[t] = a[t];", "int *a")
    assert m[REQ_ST] == 3
    out, m = loads("int v = a[t]; a[t] = v; out[t] = v;", "int *a")
    assert m[REQ_ST] == 1                          # a[t] = v is the value already there


@pytest.mark.parametrize("body, want, reqs", [
    # the if's body and its else reuse the load its condition made (each lane made it)
    ("int v = a[t]; if (v % 3 == 0) out[t] = a[t] * 2; else out[t] = a[t] + 100;",
     lambda x: np.where(x % 3 == 0, x * 2, x + 100), 1),
    # a store in the then-branch: the else's lanes did not make it, so they still reuse
    ("int *w = (int *)a; int v = w[t]; if (v % 2) w[t] = 7; else out[t] = w[t] + 1;",
     lambda x: np.where(x % 2, 0, x + 1), 1),
    # a store before the reuse in the same body: loaded again, and the stored value seen
    ("int *w = (int *)a; int v = w[t]; if (v > 4) { w[t] = v * 10; out[t] = w[t]; }",
     lambda x: np.where(x > 4, x * 10, 0), 2),
    # after the join, nothing is reused (one branch may have stored)
    ("int *w = (int *)a; int v = w[t]; if (v > 4) w[t] = 0; out[t] = w[t] + v;",
     lambda x: np.where(x > 4, 0, x) + x, 2),
])
def test_an_if_body_reuses_the_load_before_it(body, want, reqs):
    """A load in an ``if``'s body (or its ``else``) of what was loaded before the ``if``
    is made once, as nvcc's value numbering makes it (probe/plummer-direct-accpot's
    predicated ``phi -= sm[k] * rinv`` after ``sm[k] * rinv * rinv * rinv``); a store on
    the way, or a join, keeps both."""
    out, m = loads(body, params="const int *a")
    np.testing.assert_array_equal(out, want(np.arange(32) + 1))
    assert m[REQ_LD] == reqs


def test_a_load_on_the_right_of_a_short_circuit_is_not_reused_by_lanes_that_skipped_it():
    """``!high && a[t + 32] > 400`` loads ``a[t + 32]`` only in lanes where ``high`` is 0;
    the ``else if`` after it must load it again for the others (an if at the ``&&``'s
    join).  What was loaded before the ``&&`` is still reused there."""
    src = '''extern "C" __global__ void k(const int *a, int *out) {
        int t = threadIdx.x;
        int high = a[t] > 400;
        if (!high && a[t + 32] > 400) high = 1;
        else if (a[t + 32] < 200 || a[t] == 500) high = 2;
        out[t] = high;
    }'''
    a = np.tile(np.array([100, 300, 500], I32), 22)[:64].copy()
    (_, out), res = run(src, "k", 1, 32, [a, np.zeros(32, I32)])
    lo, hi = a[:32], a[32:]
    want = np.where(lo > 400, 1, 0)
    want = np.where((want == 0) & (hi > 400), 1, np.where((hi < 200) | (lo == 500), 2, want))
    np.testing.assert_array_equal(out, want)
    assert out[:3].tolist() == [1, 2, 2]
    # a[t] once, a[t + 32] in the && and again in the else if; a[t] == 500 reuses a[t]
    assert res.metrics[REQ_LD] == 3
