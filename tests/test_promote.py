"""What nvcc compiles away (simt.promote, simt.issue.compile_time), 64-bit integer
operations and the math functions' costs: the timing model's view of SASS."""
from pathlib import Path

import numpy as np
import pytest

import simt
from simt import counters as C
from simt import machine
from simt.ir import Op
from simt.issue import compile_time, issue_weights
from simt.loops import constant_trips, loops
from simt.promote import register_locals

ROOT = Path(__file__).resolve().parents[1]


def _fn(src, name):
    return simt.Module.from_source(src, "t.cu").get_function(name)


def _local(ir):
    return [p for p, i in enumerate(ir.code) if i.op in (Op.LOAD, Op.STORE) and i.info.get("space") == "local"]


TILE = r"""
extern "C" __global__ void tile(const float *x, float *y, int n) {
    float acc[4][4];
    float a[4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) acc[i][j] = 0.0f;
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < 4; i++) a[i] = x[k * 4 + i];
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) acc[i][j] += a[i] * a[j];
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) y[(threadIdx.x * 4 + i) * 4 + j] = acc[i][j];
}
extern "C" __global__ void dyn(const int *idx, float *y) {
    float h[8];
    for (int i = 0; i < 8; i++) h[i] = 0.0f;
    h[idx[threadIdx.x] & 7] += 1.0f;
    for (int i = 0; i < 8; i++) y[threadIdx.x * 8 + i] = h[i];
}
"""


def test_arrays_indexed_by_unrolled_counters_are_registers():
    """acc[4][4] and a[4], every access indexed by counters of 4-trip loops: all of them
    register moves, with no issue slot; the loop over k (n trips) keeps its control."""
    k = _fn(TILE, "tile")
    ir = k.ir
    loc = _local(ir)
    assert loc and set(loc) == set(register_locals(ir))
    w = issue_weights(ir)
    assert all(w[p] == 0 for p in loc)
    fma = [p for p, i in enumerate(ir.code) if i.op == Op.FMA]
    assert fma and all(w[p] == 1 for p in fma)
    ct = compile_time(ir)
    tests = [p for p, i in enumerate(ir.code) if i.op == Op.LOOPTEST]
    assert len(tests) == 8 and sum(p in ct for p in tests) == 7        # all but k's


def test_an_array_with_one_run_time_index_stays_in_local_memory():
    """h[idx & 7]: nvcc keeps h in local memory, so every access to h stays a load or a
    store, the constant-indexed ones included."""
    ir = _fn(TILE, "dyn").ir
    assert _local(ir) and not register_locals(ir)


GIVENS = r"""
extern "C" __global__ void givens(const float *A, float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float R[4][5];
    for (int j = 0; j < 4; j++)
        for (int k = 0; k <= 4; k++) R[j][k] = 0.0f;
    for (int r = 0; r < 32; r++) {
        float row[5];
        for (int c = 0; c <= 4; c++) row[c] = A[(r * 5 + c) * n + i];
        for (int j = 0; j < 4; j++) {
            if (row[j] == 0.0f) continue;
            float h = sqrtf(R[j][j] * R[j][j] + row[j] * row[j]);
            float c = R[j][j] / h, s = row[j] / h;
            for (int k = j; k <= 4; k++) {
                float u = R[j][k], w = row[k];
                R[j][k] = c * u + s * w;
                row[k] = c * w - s * u;
            }
        }
    }
    float xs[4];
    for (int j = 3; j >= 0; j--) {
        float s = R[j][4];
        for (int k = j + 1; k < 4; k++) s -= R[j][k] * xs[k];
        xs[j] = s / R[j][j];
    }
    for (int j = 0; j < 4; j++) x[j * n + i] = xs[j] + R[j >> 1][(j * 3) >> 1];
}
"""


def test_loops_starting_at_an_outer_counter_index_registers_too():
    """A Givens least-squares solve (probes138.cu's givens_lsq): ``for (k = j; k <= 4;
    k++)`` starts at the counter of the unrolled loop around it, and the back substitution's
    ``k = j + 1`` too; nvcc unrolls both and keeps R, row and xs in registers (41 registers,
    stack 0), as it does an index like ``(j * 3) >> 1``.  Every local access is a register
    move, none an issue slot."""
    ir = _fn(GIVENS, "givens").ir
    loc = _local(ir)
    assert len(loc) > 12 and set(loc) == set(register_locals(ir))
    w = issue_weights(ir)
    assert all(w[p] == 0 for p in loc)


RK4 = r"""
__device__ void deriv(const double *s, double *ds) {
    double r = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    ds[0] = s[3]; ds[1] = s[4]; ds[2] = s[5];
    ds[3] = -s[0] / r; ds[4] = -s[1] / r; ds[5] = -s[2] / r;
}
extern "C" __global__ void rk2(double *x, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double s[6], k1[6], tmp[6];
    for (int d = 0; d < 6; d++) s[d] = x[6 * i + d];
    for (int t = 0; t < steps; t++) {
        deriv(s, k1);
        for (int d = 0; d < 6; d++) tmp[d] = s[d] + 0.5 * k1[d];
        deriv(tmp, k1);
        for (int d = 0; d < 6; d++) s[d] += 0.1 * k1[d];
    }
    for (int d = 0; d < 6; d++) x[6 * i + d] = s[d];
}
"""


def test_arrays_kept_in_registers_move_no_local_memory():
    """An RK step's state arrays, indexed by constants and unrolled counters and passed to
    an inlined device function (probes146.cu's rk4_twobody: 92 registers, stack 0): every
    local access is a register move, and none of them touches local memory in the
    counters (simt.localreuse's histograms priced 1.6 ms of local traffic for rk4_twobody,
    which the H200 runs in 0.29 ms)."""
    k = _fn(RK4, "rk2")
    assert set(_local(k.ir)) == set(register_locals(k.ir))
    x = np.random.default_rng(1).random(6 * 4096) + 1.0
    dev = simt.Device()
    res = k.launch(dev, simt.LaunchConfig.of(32, 128), [dev.to_device(x), np.int32(50)], sanitize=False)
    assert not any(v for name, v in res.metrics.items() if name.startswith("simt__local"))


ROW = r"""
extern "C" __global__ void row(const int *q, int *out, int rows) {
    int H[N];
    for (int k = 0; k < N; ++k) H[k] = 0;
    int best = 0;
    for (int r = 0; r < rows; ++r) {
        int prev = 0, c = q[r];
        for (int k = 0; k < N; ++k) {
            int h = max(H[k] - 2, prev) + ((c + k) & 3);
            BODY
            prev = H[k];
            H[k] = h;
            best = max(best, h);
        }
    }
    out[threadIdx.x] = best;
}
"""


@pytest.mark.parametrize("trips, extra, unrolled", [
    (48, 0, True), (180, 0, True), (512, 0, False), (128, 3, True), (180, 3, False),
    (48, 15, True), (64, 15, False), (32, 15, True)])
def test_a_loop_over_a_local_array_unrolls_past_32_trips_as_far_as_nvcc_does(trips, extra, unrolled):
    """nvcc (sm_90) unrolls an inner loop over a local int array fully up to a code size,
    and then keeps the array in registers (timing_investigation/unroll/, H[N] of a
    Smith-Waterman row: 180 trips unrolled and 512 kept; with 3 more operations a trip 128
    and 180, with 15 more 48 and 64); a loop of 32 trips or fewer is unrolled as before."""
    body = "".join(f"h = (h ^ {b + 3}) + {b + 1};" for b in range(extra))
    ir = _fn(ROW.replace("N]", f"{trips}]").replace("< N", f"< {trips}").replace("BODY", body), "row").ir
    assert _local(ir)
    assert bool(register_locals(ir)) == unrolled
    inner = max(loops(ir.code), key=lambda t: (constant_trips(ir.code, *t, limit=4096) or 0, t[0]))
    assert (constant_trips(ir.code, *inner) == trips) == unrolled


def test_a_struct_in_a_long_loop_does_not_unroll_it():
    """A local struct whose members the loop reads at fixed offsets (a curandState) is in
    registers unrolled or not: nvcc keeps xorwow_draws64's 64-trip loop (probes32.cu), and
    so does simt's count of it."""
    src = r"""
    struct S { unsigned a, b; };
    extern "C" __global__ void draws(unsigned *out) {
        S s = {threadIdx.x, 7u};
        unsigned acc = 0;
        for (int k = 0; k < 64; ++k) {
            s.a = s.a * 1664525u + s.b;
            acc += s.a >> 9;
        }
        out[threadIdx.x] = acc;
    }
    """
    ir = _fn(src, "draws").ir
    (top, back), = loops(ir.code)
    assert constant_trips(ir.code, top, back) is None
    assert constant_trips(ir.code, top, back, limit=64) == 64


def test_register_arrays_shorten_the_critical_path_not_the_results():
    """The same launch with the promotion on and off: identical outputs and instruction
    counts; the promoted one's block path is under a third as long (no local-load
    latency on every FMA's accumulator)."""
    k = _fn(TILE, "tile")
    x = np.random.default_rng(0).standard_normal(64 * 4).astype(np.float32)
    out = []
    for promote in (True, False):
        if not promote:
            k.ir._simt_register_locals = frozenset()
            k.ir._simt_compile_time = frozenset()
        dev = simt.Device()
        y = dev.zeros(32 * 16, np.float32)
        r = k.launch(dev, simt.LaunchConfig.of(1, 32), [dev.to_device(x), y, np.int32(64)], sanitize=False)
        out.append((y.get(), r.metrics[C.INST], r.metrics["simt__block_cycles.max"]))
    del k.ir._simt_register_locals, k.ir._simt_compile_time
    (y1, i1, c1), (y0, i0, c0) = out
    xs = x.reshape(64, 4).astype(np.float64)
    assert np.allclose(y1.reshape(32, 4, 4)[0], xs.T @ xs, rtol=1e-5)
    assert (y1 == y0).all() and i1 == i0
    assert c1 < c0 / 3


def test_addresses_in_unrolled_loops_fold_into_immediate_offsets():
    """probes19.cu's SGEMM: As[k][ty * 4 + i] in the unrolled k and i loops is one LDS
    with an immediate offset; in the k loop only the shared loads (4 trips each) and the FMA
    (16 trips) are left to issue, one slot a trip (sm_90 SASS: 2 LDS.128 and 16 FFMA)."""
    k = simt.Module.from_file(str(ROOT / "kernels_cuda/probes19.cu")).get_function("sgemm_reg4x4")
    ir = k.ir
    w = issue_weights(ir)
    code = ir.code
    kloop = [(i.target, j) for j, i in enumerate(code) if i.op == Op.JUMP and i.target is not None
             and i.target <= j and any(code[p].op == Op.FMA for p in range(i.target, j))
             and any(code[p].info.get("space") == "shared" for p in range(i.target, j))]
    top, back = min(kloop, key=lambda r: r[1] - r[0])         # the k loop: shared loads, FMAs
    left = [code[p].op for p in range(top, back + 1) if w[p]]
    assert left == [Op.LOAD, Op.LOAD, Op.FMA] and all(w[p] in (0, 1) for p in range(top, back + 1))


def test_64_bit_integer_operations_issue_two_instructions():
    """The Collatz step on unsigned long long: and, compare, multiply by a constant, add,
    shift, select and the loop compare are two SASS instructions each (16 a trip in
    sm_90 SASS), the 32-bit step counter one."""
    src = (ROOT / "kernels_cuda/probes19.cu").read_text()
    ir = simt.Module.from_source(src, "probes19.cu").get_function("collatz_steps").ir
    w = issue_weights(ir)
    wide = [p for p, i in enumerate(ir.code) if i.op in (Op.BIN, Op.SELECT) and w[p] == 2]
    assert len(wide) == 7
    narrow = [p for p, i in enumerate(ir.code) if i.op == Op.BIN and i.sub == "add"
              and i.dst.dtype.itemsize == 4 and w[p] == 1]
    assert narrow


def test_every_math_function_has_a_measured_cost():
    """Each transcendental simt accepts, in float and in double, is priced from a
    measurement (timing_investigation/math/, math2/): none is charged a single slot."""
    cheap = {"floor", "ceil", "round", "trunc", "rint", "nearbyint", "fabs", "fmin", "fmax",
             "copysign", "fdim", "fma", "remainder", "sqrt"}
    from simt.intrinsics import _MATH1, _MATH2
    missing = [f"m_{b}_f{s}" for b in _MATH1 + _MATH2 if b not in cheap for s in (4, 8)
               if f"m_{b}_f{s}" not in machine.OP_COST]
    assert missing == []


def test_softplus_in_double_is_priced_for_its_log1p():
    """log1p(exp(x)) in double: 43 + 115 issue cycles a warp beyond one slot each."""
    k = _fn("""extern "C" __global__ void sp(const double *x, double *y) {
        y[threadIdx.x] = log1p(exp(x[threadIdx.x])); }""", "sp")
    dev = simt.Device()
    r = k.launch(dev, simt.LaunchConfig.of(1, 32), [dev.to_device(np.zeros(32)), dev.zeros(32, np.float64)],
                 sanitize=False)
    assert r.metrics[C.ISSUE_EXTRA] == machine.OP_COST["m_exp_f8"][1] + machine.OP_COST["m_log1p_f8"][1]


UNROLLS = r"""
extern "C" __global__ void small(const float *x, float *out, int n) {
    float s = 0.0f;
    for (int j = threadIdx.x; j < n; j += 32) s += x[j];
    out[threadIdx.x] = s;
}
extern "C" __global__ void search(const float *grid, const float *q, int *out, int n) {
    float a = q[threadIdx.x];
    int lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (grid[mid] <= a) lo = mid; else hi = mid;
    }
    out[threadIdx.x] = lo;
}
extern "C" __global__ void medium(const float *h, float *out, int nt, int ns) {
    float c[8];
    for (int k = 0; k < 8; k++) c[k] = 0.0f;
    for (int t = 0; t < nt; t++) {
        float x = h[t * ns + threadIdx.x];
        for (int k = 0; k < 8; k++) c[k] += x * (k + 1);
    }
    for (int k = 0; k < 8; k++) out[k * ns + threadIdx.x] = c[k];
}
extern "C" __global__ void large(const float *h, float *out, int nt, int ns) {
    float a = 0.0f, b = 1.0f;
    for (int t = 0; t < nt; t++) {
        float x = h[t * ns + threadIdx.x];
        a += sinf(x) * cosf(a) + expf(-x * b);
        b = b * 0.5f + logf(1.0f + fabsf(a)) / (1.0f + x * x) + sqrtf(fabsf(b - x));
        a -= tanhf(b) * powf(fabsf(x) + 1.0f, 0.25f) + erff(a);
    }
    out[threadIdx.x] = a + b;
}
"""


@pytest.mark.parametrize("kernel, trips", [("small", 4), ("search", 1), ("medium", 4), ("large", 1)])
def test_a_run_time_loop_is_unrolled_as_far_as_its_body_allows(kernel, trips):
    """nvcc's unroll factor for a loop it keeps, from its SASS (timing_investigation/
    unroll2/, 291 probe loops): most bodies 4 times (a small one 16 in nvcc's SASS, but
    the timed cal_ilp keeps 4 trips in flight: loops.RUNTIME_UNROLL), a body of many math
    calls not at all, and a ``while`` whose trips depend on data (a binary search) not at
    all."""
    from simt.loops import runtime_unroll
    from simt.machine import _load_depths
    ir = _fn(UNROLLS, kernel).ir
    top, back = max(loops(ir.code), key=lambda t: t[1] - t[0])
    assert runtime_unroll(ir.code, top, back) == trips
    assert {d for p, d in _load_depths(ir).items() if top <= p <= back} == {min(8, trips)}
