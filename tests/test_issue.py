"""Issue slots (simt.issue): the SASS instructions an IR instruction stands for."""
from pathlib import Path

import numpy as np
import pytest

import simt
from simt import counters as C
from simt.ir import Op
from simt.issue import issue_weights

ROOT = Path(__file__).resolve().parents[1]


def _kernel(name, path="kernels_cuda/calibrate.cu"):
    return simt.Module.from_file(str(ROOT / path)).get_function(name)


def _loop(code):
    back = next(j for j, i in enumerate(code) if i.op == Op.JUMP and i.target is not None and i.target <= j)
    return code[back].target, back


def test_unrolled_fma_loop_costs_what_its_sass_issues():
    """cal_alu's trip: 4 FMA, and its counter, compare and branch once per 4 unrolled
    trips (sm_90 SASS: 16 FFMA, IADD, ISETP, BRA per 4 trips); copies are free."""
    k = _kernel("cal_alu")
    w = issue_weights(k.ir)
    top, back = _loop(k.ir.code)
    assert w[top:back + 1].sum() == 4.75
    assert all(w[p] == 0 for p, i in enumerate(k.ir.code) if i.op == Op.MOV)


def test_a_loop_whose_exit_depends_on_data_is_not_unrolled():
    """Mandelbrot's trip: 19 IR instructions, 12 slots (its SASS: 11), control included."""
    k = _kernel("mandelbrot", "kernels_cuda/probes6.cu")
    w = issue_weights(k.ir)
    top, back = _loop(k.ir.code)
    assert back - top + 1 == 19 and w[top:back + 1].sum() == 12
    assert w[next(p for p in range(top, back) if k.ir.code[p].op == Op.LOOPTEST)] == 1


def test_a_loop_of_no_trips_beside_an_unrolled_one_runs():
    """`for (s = 0; s < 0; ++s)`, as a benchmark's sweep writes it at its first setting
    (timing_investigation/wmerge3/), has no copies to unroll: nvcc drops it.  It used to
    stop issue_weights with an IndexError; now the kernel runs and stores what C says."""
    src = """extern "C" __global__ void k(float *out, int n) {
        int c = blockIdx.x * blockDim.x + threadIdx.x;
        if (c >= n) return;
        float x = c * 0.5f;
        for (int s = 0; s < 0; ++s) x = fmaf(sinf(x), 0.5f, x);
    #pragma unroll
        for (int f = 0; f < 3; ++f) out[c * 3 + f] = x + f;
    }"""
    k = simt.Module.from_source(src, "k.cu").get_function("k")
    dev = simt.Device()
    out = dev.zeros(3 * 40, np.float32)
    k.launch(dev, simt.LaunchConfig.of(2, 32), [out, np.int32(40)])
    want = np.arange(40, dtype=np.float32)[:, None] * 0.5 + np.arange(3, dtype=np.float32)
    assert np.array_equal(out.get(), want.ravel())


@pytest.mark.parametrize("test", ["j < s", "s > j"])
def test_a_loop_bounded_by_an_unrolled_counter_unrolls_too(test):
    """A triangular nest (``for (s = 1; s < 6; s++) for (j = 0; j < s; j++)``, a
    Runge-Kutta tableau's rows, probes74.cu's dopri_vdp) has an inner loop of constant
    trips in each copy of the outer one, and nvcc unrolls both: 15 copies, the counters'
    values in each, and the local array they index kept in registers."""
    from simt.loops import full_unrolls, loops
    from simt.promote import register_locals
    src = """extern "C" __global__ void k(float *out, const float *a) {
        int i = threadIdx.x;
        float kk[6];
        kk[0] = a[i];
        for (int s = 1; s < 6; s++) {
            float sum = 0.0f;
            for (int j = 0; TEST; j++) sum += a[s * 8 + j] * kk[j];
            kk[s] = sum + 1.0f;
        }
        out[i] = kk[5];
    }""".replace("TEST", test)
    f = simt.Module.from_source(src, "k.cu").get_function("k")
    code = f.ir.code
    outer, inner = sorted(loops(code), key=lambda r: r[0])
    found = full_unrolls(code)
    root, copies = found[inner]
    assert root == outer and len(copies) == 15
    assert sorted(tuple(sorted(c.values())) for c in copies) == sorted(
        tuple(sorted((s, j))) for s in range(1, 6) for j in range(s))
    assert register_locals(f.ir)
    a = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    dev = simt.Device()
    out, da = dev.zeros(32, np.float32), dev.to_device(a)
    f.launch(dev, simt.LaunchConfig.of(1, 32), [out, da])
    kk = [a[:32].astype(np.float32)]
    for s in range(1, 6):
        acc = np.zeros(32, np.float32)
        for j in range(s):
            acc = (acc + np.float32(a[s * 8 + j]) * kk[j]).astype(np.float32)
        kk.append((acc + np.float32(1.0)).astype(np.float32))
    np.testing.assert_allclose(out.get(), kk[5], rtol=1e-5)


def test_index_arithmetic_of_an_access_is_one_slot():
    """in[i]: widen i, scale by 4, add the base: three IR instructions, one IMAD.WIDE."""
    k = _kernel("saxpy", "kernels_cuda/probes2.cu")
    code, w = k.ir.code, issue_weights(k.ir)
    ld = next(p for p, i in enumerate(code) if i.op == Op.LOAD)
    chain = [p for p in range(ld - 3, ld)]
    assert [code[p].op for p in chain] == [Op.CAST, Op.BIN, Op.BIN]
    assert np.isclose(w[chain].sum(), 1.0)


def test_issue_slots_counter_counts_executed_slots():
    """cal_alu, one warp, 7 trips: prologue 4 slots (3 adds, a cast), 8 loop tests of 0.5,
    7 trips of 4.25, epilogue 6 (3 adds, compare, branch, exit)."""
    k = _kernel("cal_alu")
    dev = simt.Device()
    r = k.launch(dev, simt.LaunchConfig.of(1, 32), [dev.zeros(1, np.float32), np.int32(7)],
                 sanitize=False)
    assert r.metrics[C.ISSUE_SLOTS] == round(4 + 8 * 0.5 + 7 * 4.25 + 6)
    assert r.metrics[C.INST] > 2 * r.metrics[C.ISSUE_SLOTS]


def test_unrolled_loops_overlap_their_math_and_shared_loads():
    """n-body's inner loop (128 trips, constant step): its rsqrtf and tile loads overlap
    the other unrolled trips (sm_90 SASS unrolls it by 8); Mandelbrot's loop exits on its
    data and has nothing to overlap."""
    from simt.issue import overlapped_pcs
    k = _kernel("nbody_accel", "kernels_cuda/probes6.cu")
    code = k.ir.code
    ov = overlapped_pcs(k.ir)
    calls = [p for p, i in enumerate(code) if i.op == Op.CALL]
    shared = [p for p, i in enumerate(code) if i.op == Op.LOAD and i.info.get("space") == "shared"]
    assert calls and shared and set(calls) | set(shared) <= ov
    assert not overlapped_pcs(_kernel("mandelbrot", "kernels_cuda/probes6.cu").ir)


def test_overlap_shortens_a_low_occupancy_unrolled_loop():
    """64 blocks of 4 warps: the warp's wait at each rsqrtf is all the latency there is;
    with the unrolled trips overlapping it the block's path is under two thirds as long."""
    k = _kernel("nbody_accel", "kernels_cuda/probes6.cu")
    n = 512
    paths = []
    for ov in (True, False):
        if not ov:
            k.ir._simt_overlapped = frozenset()
        dev = simt.Device()
        pos = dev.to_device(np.random.default_rng(0).standard_normal(4 * n).astype(np.float32))
        r = k.launch(dev, simt.LaunchConfig.of(n // 128, 128), [pos, dev.zeros(4 * n, np.float32),
                                                                np.int32(n)], sanitize=False)
        paths.append(r.metrics["simt__block_cycles.max"])
    del k.ir._simt_overlapped
    assert paths[0] < 0.67 * paths[1]


def test_alu_pipe_slots_of_shift_xor_chains():
    """cal_lop's trip: four shifts right and four xors (sm_90 SASS: SHF and LOP3 only),
    8 ALU-pipe slots, and the loop's compare once per 4 unrolled trips."""
    from simt.issue import alu_pipe_weights
    k = _kernel("cal_lop")
    a, w = alu_pipe_weights(k.ir), issue_weights(k.ir)
    top, back = _loop(k.ir.code)
    assert a[top:back + 1].sum() == 8.25 and w[top:back + 1].sum() == 8.75


def test_alu_pipe_slots_follow_sass_pipes():
    """xorshift32 as Monte Carlo pi draws it: its constant left shifts are IMAD.SHL (FMA
    pipe), its right shifts, xors, masks, int-to-float conversions and compares are ALU
    ones: 13 of each trip's slots (the sm_90 SASS of the trip has 13: 8 LOP3, 2 SHF,
    2 I2FP, 1 FSETP; docs/results/timing_investigation/unseen6/probes7_sass.txt)."""
    from simt.issue import alu_pipe_weights
    k = _kernel("monte_carlo_pi", "kernels_cuda/probes7.cu")
    code, a = k.ir.code, alu_pipe_weights(k.ir)
    top, back = _loop(code)
    shl = [p for p in range(top, back) if code[p].op == Op.BIN and code[p].sub == "shl"]
    assert len(shl) == 4 and not a[shl].any()
    loop_ctl = [p for p in range(top, back + 1) if 0 < a[p] < 1]
    assert a[top:back + 1].sum() - a[loop_ctl].sum() == 13


def _pipe_bound(name):
    """calibrate.cu's kernel ``name`` on 264 blocks of 256 threads, 64 trips: its result
    and the H100 profile."""
    from simt import timing
    k = _kernel(name)
    dev = simt.Device()
    r = k.launch(dev, simt.LaunchConfig.of(264, 256), [dev.zeros(264, np.uint32), np.int32(64)],
                 sanitize=False)
    return r, timing.load_profile("h100")


def test_an_alu_bound_kernel_is_predicted_at_the_alu_pipe_rate():
    """Where ALU-pipe slots over alu_ipc exceed all slots over issue_ipc, they set the
    issue component; a profile without alu_ipc ignores them."""
    import dataclasses
    from simt import timing
    r, prof = _pipe_bound("cal_lop")
    m = r.metrics
    assert m[C.ALU_SLOTS] / prof.alu_ipc > m[C.ISSUE_SLOTS] / prof.issue_ipc
    with_alu = timing.predict_result(r, prof).components_us["issue"]
    without = timing.predict_result(r, dataclasses.replace(prof, alu_ipc=0.0)).components_us["issue"]
    assert np.isclose(with_alu / without, (m[C.ALU_SLOTS] / prof.alu_ipc) / (m[C.ISSUE_SLOTS] / prof.issue_ipc),
                      rtol=0.05)


def test_bit_pipe_slots_of_the_bit_counting_intrinsics():
    """cal_popc's trip: four __popc (SASS: four POPC); __ffs is BREV then FLO (two), the
    64-bit forms two; nothing else goes to that pipe."""
    from simt.issue import BIT_PIPE, bit_pipe_weights
    k = _kernel("cal_popc")
    b = bit_pipe_weights(k.ir)
    top, back = _loop(k.ir.code)
    assert b[top:back + 1].sum() == 4.0 and b.sum() == 4.0
    assert BIT_PIPE["__ffs"] == 2.0 and BIT_PIPE["__popcll"] == 2.0 and BIT_PIPE["__clz"] == 1.0


def test_a_popc_bound_kernel_is_predicted_at_the_bit_pipe_rate():
    """Where bit-pipe slots over bit_ipc exceed the other two rates, they set the issue
    component (probe/warp-radix-sort32: 0.67 -> 0.98 of its H100 time); cal_popc gives
    both GPUs the same rate (0.4738 and 0.4735 a cycle an SM: one SM design)."""
    import dataclasses
    from simt import timing
    r, prof = _pipe_bound("cal_popc")
    m = r.metrics
    assert m[C.BIT_SLOTS] == 264 * 8 * 64 * 4
    h200 = timing.load_profile("h200").bit_ipc
    assert 0.45 < prof.bit_ipc < 0.5 and h200 == pytest.approx(prof.bit_ipc, rel=0.01)
    assert m[C.BIT_SLOTS] / prof.bit_ipc > max(m[C.ISSUE_SLOTS] / prof.issue_ipc, m[C.ALU_SLOTS] / prof.alu_ipc)
    with_bit = timing.predict_result(r, prof).components_us["issue"]
    without = timing.predict_result(r, dataclasses.replace(prof, bit_ipc=0.0)).components_us["issue"]
    assert with_bit > 1.5 * without


FP64_KERNELS = r'''
__global__ void dmix(double *x, const float *f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double a = x[i];
    float g = f[i];
    double b = fma(a, a, 1.5);         // DFMA
    double c = b - a;                  // DADD
    if (c < a) c = c * 0.5;            // DSETP, DMUL
    float h = g * g + 1.5f;            // FFMA: not the FP64 pipe
    int k = i * 3 + 1;                 // integer: not the FP64 pipe
    x[i] = c + h + k;
}
'''


def test_fp64_pipe_slots_of_double_arithmetic():
    """cal_dfma's trip: four DFMA (SASS), all on the FP64 pipe; in a mixed kernel the
    double FMA, add, comparison and multiply go there, float and integer work does not."""
    from simt.issue import fp64_pipe_weights
    k = _kernel("cal_dfma")
    f = fp64_pipe_weights(k.ir)
    top, back = _loop(k.ir.code)
    assert f[top:back + 1].sum() == 4.0 and f.sum() == 4.0 + 4.0 + 4.0     # and the set-up, the test
    k = simt.Module.from_source(FP64_KERNELS, "d.cu").get_function("dmix")
    by_line = {}
    for p, ins in enumerate(k.ir.code):
        by_line[ins.coord.line] = by_line.get(ins.coord.line, 0.0) + fp64_pipe_weights(k.ir)[p]
    assert by_line[7] == 1.0 and by_line[8] == 1.0 and by_line[9] == 2.0
    assert by_line[10] == 0.0 and by_line[11] == 0.0
    assert by_line[12] == 2.0          # (c + h) + k: two DADD after the conversions


def test_a_dfma_bound_kernel_is_predicted_at_the_fp64_pipe_rate():
    """cal_dfma (four DFMA chains) issues at the FP64 pipe's rate, half the FP32 pipes':
    fp64_ipc 1.958 on the H200 against issue_ipc 4.33 (simt calibrate --real --update
    --only dfma, session 35).  The H100's profile has no measurement yet (0: ignored)."""
    import dataclasses
    from simt import timing
    k = _kernel("cal_dfma")
    dev = simt.Device()
    r = k.launch(dev, simt.LaunchConfig.of(264, 256), [dev.zeros(264, np.float64), np.int32(64)],
                 sanitize=False)
    prof = timing.load_profile("h200")
    m = r.metrics
    assert m[C.FP64_SLOTS] == 264 * 8 * (64 * 4 + 4 + 4)
    assert 1.9 < prof.fp64_ipc < 2.05 and prof.issue_ipc > 2 * prof.fp64_ipc
    assert timing.load_profile("h100").fp64_ipc == 0.0
    with_fp64 = timing.predict_result(r, prof).components_us["issue"]
    without = timing.predict_result(r, dataclasses.replace(prof, fp64_ipc=0.0)).components_us["issue"]
    assert with_fp64 / without == pytest.approx(
        (m[C.FP64_SLOTS] / prof.fp64_ipc) / (m[C.ISSUE_SLOTS] / prof.issue_ipc), rel=2e-3)
    assert with_fp64 > 1.8 * without


PRODUCT_KERNELS = r'''
__global__ void products(unsigned long long *x, const int *r, unsigned long long c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long v = x[i];
    unsigned long long a = v * c;                       // two 64-bit values
    unsigned long long b = v * 1000003ull;              // by a 32-bit constant
    size_t k = (size_t)r[i] * n;                        // two widened ints: IMAD.WIDE
    unsigned long long h = __umul64hi(v, c);            // four IMAD.WIDE.U32 and carries
    unsigned long long s = v * 8ull;                    // a shift
    x[i] = a + b + k + h + s;
}
'''


def test_64bit_products_take_the_fma_pipes_heavy_half_by_their_sass():
    """A 64-bit product's SASS (issue slots) and its turns on the FMA pipe's heavy half
    (issue.imad_pipe_weights): IMAD.WIDE.U32 and two IMADs (3, 4 turns), one IMAD fewer by
    a 32-bit value (2, 3), one IMAD.WIDE for two widened ints (1, 2), __umul64hi 7 and 9;
    a power of two is shifts (no turns).  cal_imad's trip: four products, 16 turns."""
    from simt.issue import imad_pipe_weights
    k = simt.Module.from_source(PRODUCT_KERNELS, "p.cu").get_function("products")
    w, t = issue_weights(k.ir), imad_pipe_weights(k.ir)
    line = lambda ln, a: sum(a[p] for p, ins in enumerate(k.ir.code)
                             if ins.coord.line == ln and ins.info.get("product64"))
    assert [line(ln, w) for ln in (5, 6, 7, 8)] == [3.0, 2.0, 1.0, 7.0]
    assert [line(ln, t) for ln in (5, 6, 7, 8, 9)] == [4.0, 3.0, 2.0, 9.0, 0.0]
    k = _kernel("cal_imad")
    top, back = _loop(k.ir.code)
    assert imad_pipe_weights(k.ir)[top:back + 1].sum() == 16.0 == imad_pipe_weights(k.ir).sum()


def test_dependent_64bit_products_wait_what_the_gpu_measured():
    """One warp's dependent chains (timing_investigation/mont64/, H200, clock64): a step
    of v = v * c + d took 17.9 cycles, of __umul64hi(v, c) ^ d 39.7; simt's warp clock
    over 256 steps, less a launch of none."""
    mod = simt.Module.from_file(str(ROOT / "docs/results/timing_investigation/mont64/mont64.cu"))

    def per_step(kernel):
        got = []
        for steps in (0, 256):
            dev = simt.Device()
            r = mod.get_function(kernel).launch(
                dev, simt.LaunchConfig.of(1, 32), [dev.to_device(np.arange(1, 33, dtype=np.uint64)),
                                                   np.uint64(0x9E3779B97F4A7C15), np.uint64(12345),
                                                   np.int32(steps), dev.zeros(1, np.int64)], sanitize=False)
            got.append(r.metrics["simt__warp_cycles.mean"])
        return (got[1] - got[0]) / 256

    assert per_step("chain_mul64") == pytest.approx(17.9, rel=0.05)
    assert per_step("chain_mulhi64") == pytest.approx(39.7, rel=0.05)


def test_a_kernel_of_64bit_products_is_predicted_at_the_imad_rate():
    """cal_imad (four chains of 64-bit multiply-adds) issues at the rate of the FMA pipe's
    heavy half: imad_ipc 1.93 turns a cycle an SM on the H200 (simt calibrate --real
    --update --only imad, session 44), not at issue_ipc's 4.33 slots.  The H100's profile
    has no measurement yet (0: ignored)."""
    import dataclasses
    from simt import timing
    k = _kernel("cal_imad")
    dev = simt.Device()
    r = k.launch(dev, simt.LaunchConfig.of(264, 256),
                 [dev.zeros(264, np.uint64), np.uint64(3), np.uint64(1), np.int32(64)], sanitize=False)
    prof = timing.load_profile("h200")
    m = r.metrics
    assert m[C.IMAD_SLOTS] == 264 * 8 * 64 * 16
    assert 1.7 < prof.imad_ipc < 2.0 and timing.load_profile("h100").imad_ipc == 0.0
    with_imad = timing.predict_result(r, prof).components_us["issue"]
    without = timing.predict_result(r, dataclasses.replace(prof, imad_ipc=0.0)).components_us["issue"]
    assert with_imad / without == pytest.approx(
        (m[C.IMAD_SLOTS] / prof.imad_ipc) / (m[C.ISSUE_SLOTS] / prof.issue_ipc), rel=2e-3)
    assert with_imad > 1.3 * without


def _weights_by_line(k):
    """source line -> the issue slots its IR instructions stand for."""
    out = {}
    for p, ins in enumerate(k.ir.code):
        out[ins.coord.line] = out.get(ins.coord.line, 0.0) + issue_weights(k.ir)[p]
    return out


def test_a_nest_of_shift_stepped_loops_unrolls_fully():
    """warp_bitonic32 (probes24.cu): ``for (size = 2; size <= 32; size <<= 1) for (stride
    = size >> 1; stride > 0; stride >>= 1)`` is 15 copies of the compare and exchange in
    nvcc's sm_90 SASS, with no loop control left: 15 SHFL, 30 VIMNMX (a min and a
    predicated max), the lane tests once per distinct size and stride (5 LOP3 and the
    rest folded into 12 PLOP3 / ISETP).  simt: 1 + 2/3 + 2/3 + 1 + 2 slots a copy."""
    from simt.loops import full_unrolls
    from simt.issue import compile_time
    k = _kernel("warp_bitonic32", "kernels_cuda/probes24.cu")
    code = k.ir.code
    full = full_unrolls(code)
    assert sorted(len(c) for _, c in full.values()) == [5, 15]
    ct = compile_time(k.ir)
    assert all(p in ct for p, i in enumerate(code)
               if i.op in (Op.LOOPTEST, Op.LOOPINIT, Op.BODYINIT, Op.JUMP))
    line = _weights_by_line(k)
    assert line[66] == line[67] == 0.0                     # the two for statements
    assert line[68] == 1.0                                 # the shuffle
    assert np.isclose(line[69], 2 / 3) and np.isclose(line[70], 2 / 3)   # 5 of 15 copies
    assert line[71] == 1.0                                 # up == low: one PLOP3
    assert line[72] == 2.0                                 # VIMNMX and @P VIMNMX
    dev = simt.Device()
    src, dst = dev.to_device(np.arange(64, 0, -1, dtype=np.int32)), dev.zeros(64, np.int32)
    r = k.launch(dev, simt.LaunchConfig.of(1, 64), [src, dst, np.int32(64)], sanitize=False)
    assert np.array_equal(dst.get(), np.r_[np.arange(33, 65), np.arange(1, 33)])
    rest = sum(issue_weights(k.ir)[p] for p, i in enumerate(code) if not 66 <= i.coord.line <= 74)
    assert np.isclose(r.metrics[C.ISSUE_SLOTS] / 2, 15 * (1 + 2 / 3 + 2 / 3 + 1 + 2) + rest)


def test_a_nest_unrolls_as_far_as_nvcc_does():
    """bitonic_sort_1024 (probes20.cu): sizes 2 ... 1024 and strides down from each, 55
    copies of the barrier in nvcc's SASS (56 BAR.SYNC with the one after the nest)."""
    from simt.loops import full_unrolls
    k = _kernel("bitonic_sort_1024", "kernels_cuda/probes20.cu")
    assert sorted(len(c) for _, c in full_unrolls(k.ir.code).values()) == [10, 55]


def test_a_bool_held_as_an_int_stays_a_predicate():
    """``int keep = (a < b) == (c < d); y = keep ? a : b``: the casts of the bools to int
    and the compare of ``keep`` with zero are predicate operands in SASS; the compare of
    the two bools is one PLOP3.  A bool stored as an int is a SEL: it stays."""
    src = """
    __global__ void k(const int *a, const int *b, int *y, int *z) {
        int i = threadIdx.x;
        int p = a[i], q = b[i];
        int keep = (p < q) == (q < 7);
        y[i] = keep ? p : q;
        z[i] = (p < 3);
    }
    """
    k = simt.Module.from_source(src, "k.cu").get_function("k")
    code, w = k.ir.code, issue_weights(k.ir)
    casts = [p for p, i in enumerate(code) if i.op == Op.CAST and i.args[0].dtype.kind == "b"]
    assert [w[p] for p in casts] == [0.0, 0.0, 0.0, 1.0]   # keep's three; z's stays
    assert _weights_by_line(k)[5] == 3.0                   # two ISETP, one PLOP3


def test_a_min_max_select_is_two_instructions():
    """``c ? min(a, b) : max(a, b)``: a min and a predicated max into one register; a
    select of anything else stays a SEL."""
    src = """
    __global__ void k(const int *a, int *y, int *z) {
        int i = threadIdx.x;
        int p = a[i], q = a[i + 32];
        y[i] = (i & 1) ? min(p, q) : max(p, q);
        z[i] = (i & 1) ? min(p, q) : p + q;
    }
    """
    k = simt.Module.from_source(src, "k.cu").get_function("k")
    sel = [issue_weights(k.ir)[p] for p, i in enumerate(k.ir.code) if i.op == Op.SELECT]
    assert sel == [0.0, 1.0]
    from simt.issue import alu_pipe_weights
    mm = [p for p, i in enumerate(k.ir.code) if i.op == Op.CALL and i.sub in ("m_min", "m_max")]
    assert all(alu_pipe_weights(k.ir)[p] == 1.0 for p in mm)      # IMNMX: the ALU pipe


def test_a_byte_median_network_is_one_minmax_an_exchange():
    """median3x3_u8's 19 exchanges of unsigned chars: C widens each byte to int for min and
    max and narrows the result back, three casts an exchange in the IR; sm_90 SASS has one
    VIMNMX.U32 for each min and max and nothing else (unseen27/probes28_sass.txt.gz)."""
    k = _kernel("median3x3_u8", "kernels_cuda/probes28.cu")
    by_line = _weights_by_line(k)
    network = [ln for ln in by_line if 29 <= ln <= 35]
    assert sum(by_line[ln] for ln in network) == 2 * 19
    casts = [p for p, i in enumerate(k.ir.code) if i.op == Op.CAST and 29 <= i.line <= 35]
    assert casts and all(issue_weights(k.ir)[p] == 0 for p in casts)


def test_integer_casts_cost_what_sass_issues_for_them():
    """A register holds an 8-, 16- or 32-bit integer widened to 32 bits: widening and sign
    changes are free, and so is a narrowing to bytes that only goes to a byte store; a
    narrowing whose value is used again (``(unsigned char)(p + q) * 3``) is one LOP3, and a
    signed widening to 64 bits one SHF for the high word."""
    src = """
    __global__ void k(const unsigned char *a, unsigned char *y, int *z, long long *w) {
        int i = threadIdx.x;
        unsigned u = (unsigned)i + 1u;
        int p = a[i], q = a[i + 32];
        y[i] = p + q;
        unsigned char s = p + q;
        z[i] = s * 3;
        w[i] = (long long)(p - q) + (long long)u;
    }
    """
    k = simt.Module.from_source(src, "k.cu").get_function("k")
    code, w = k.ir.code, issue_weights(k.ir)
    by_line = {}
    for p, i in enumerate(code):
        if i.op == Op.CAST and i.args[0].dtype.kind in "iu" and i.dst.dtype.kind in "iu" and w[p] != 1 / 3:
            by_line.setdefault(i.line, []).append(float(w[p]))
    assert by_line[3] == [0.0]                # threadIdx.x, an unsigned, into an int
    assert by_line[4] == [0.0]                # (unsigned)i
    assert by_line[5] == [0.0, 0.0]           # the loaded bytes, widened
    assert by_line[6] == [0.0]                # p + q narrowed into a byte store
    assert by_line[7] == [1.0]                # s = p + q: a truncation that s * 3 needs
    assert by_line[8] == [0.0]                # s widened again
    assert by_line[9] == [1.0, 0.0]           # p - q: SHF for the high word; u: RZ


def test_rotations_logic_trees_and_add_chains_fuse_as_nvcc_fuses_them():
    """nvcc writes a rotation as one SHF, any & | ^ ~ tree over three inputs as one LOP3
    and an add chain over three as one IADD3; an inner result used twice stays, and a
    fourth input needs a second instruction (sm_90 SASS of SHA-256, probes31.cu)."""
    src = """
    __global__ void k(unsigned *o, const unsigned *a, int n) {
        unsigned x = a[0], y = a[1], z = a[2], v = a[3];
        o[0] = (x >> 7) | (x << 25);
        o[1] = (x & y) ^ (~x & z);
        o[2] = (x & y) ^ (x & z) ^ (y & z);
        o[3] = x + y + z;
        o[4] = x + y + z + v;
        o[5] = (x ^ y ^ z) & v;
        unsigned t = x & y; o[6] = t ^ z; o[7] = t | v;
        o[8] = (x << n) | (x >> (32 - n));
        o[9] = (x >> 7) | (y << 25);
    }
    """
    k = simt.Module.from_source(src, "k.cu").get_function("k")
    code, w = k.ir.code, issue_weights(k.ir)
    by_line = {}
    for p, i in enumerate(code):
        if i.op in (Op.BIN, Op.UN) and w[p] != 1 / 3:
            by_line[i.coord.line] = by_line.get(i.coord.line, 0.0) + float(w[p])
    assert by_line[4] == 1.0                  # SHF.R.W
    assert by_line[5] == 1.0 and by_line[6] == 1.0     # LOP3 each
    assert by_line[7] == 1.0 and by_line[8] == 2.0     # IADD3; IADD3 + IADD
    assert by_line[9] == 2.0                  # four inputs: two LOP3
    assert by_line[10] == 3.0                 # t, t ^ z, t | v
    assert by_line[11] == 2.0                 # a rotation by n: 32 - n and one SHF
    assert by_line[12] == 3.0                 # two registers: no rotation


def test_pragma_unroll_unrolls_a_long_constant_loop_fully():
    """SHA-256's 48- and 64-trip loops carry '#pragma unroll': nvcc unrolls them and keeps
    W[64] in registers (probes31.cu's SASS: no local memory); without the pragma a loop
    of more than 32 trips keeps its control, and 'unroll 1' keeps any loop."""
    k = _kernel("sha256_msgs", "kernels_cuda/probes31.cu")
    code = k.ir.code
    tests = [p for p, i in enumerate(code) if i.op == Op.LOOPTEST]
    assert [code[p].info.get("unroll") for p in tests] == [0, 0, 0]
    w = issue_weights(k.ir)
    assert all(w[p] == 0 for p, i in enumerate(code) if i.op in (Op.LOAD, Op.STORE)
               and i.info.get("space") == "local")
    src = """
    __global__ void k(float *o) {
        float acc = 0.f;
        #pragma unroll 1
        for (int t = 0; t < 8; ++t) acc += o[t];
        for (int t = 0; t < 64; ++t) acc += o[t];
        #pragma unroll
        for (int t = 0; t < 64; ++t) acc += o[t];
        o[0] = acc;
    }
    """
    k = simt.Module.from_source(src, "k.cu").get_function("k")
    code, w = k.ir.code, issue_weights(k.ir)
    tests = [p for p, i in enumerate(code) if i.op == Op.LOOPTEST]
    assert [code[p].info.get("unroll") for p in tests] == [1, None, 0]
    assert [float(w[p]) for p in tests] == [1.0, 0.25, 0.0]


def test_votes_nvcc_cannot_prove_converged_carry_its_divergence_test():
    """Before a ballot in a loop that breaks on the data, nvcc tests whether the warp is
    still converged (UMOV + BRA.DIV: probe/warp-hash-probe's sm_90 SASS, unseen36/); a
    warp reduction's fully unrolled shuffles have no test.  With the test counted, simt's
    issue slots for the probe come within 15% of Nsight's 44.3 M instructions (33.0 M
    without)."""
    from simt import Module
    from simt.ir import Op
    from simt.issue import DIVERGENCE_CHECK, _divergence_checked, issue_weights
    from kernels_cuda import timing_check, timing_probes
    from kernels_cuda.backend import source_path
    mod = Module.from_file(source_path("probes38.cu"))
    probe = mod.get_function("warp_hash_probe").ir
    checked = _divergence_checked(probe)
    assert [probe.code[p].sub for p in checked] == ["__shfl_sync", "__ballot_sync", "__ballot_sync"]
    assert all(issue_weights(probe)[p] >= 1 + DIVERGENCE_CHECK for p in checked)
    scan = mod.get_function("warp_scan_u64").ir
    assert not _divergence_checked(scan)
    assert any(i.op == Op.CALL and i.sub == "__shfl_up_sync" for i in scan.code)
    p = timing_probes.get("probe/warp-hash-probe")
    slots = timing_check.emulate(p, p.n)[0].metrics["simt__issue_slots.sum"]
    assert 0.85 <= slots / 44_262_401 <= 1.0


def test_a_merged_loads_address_arithmetic_is_dead_code():
    """``t[k] ^ rot(t[k])`` loads t[k] once (simt.cse, as nvcc does) and the second
    ``k * 4 + t`` feeds nothing: nvcc drops it, so it costs no slot.  The two spellings
    of one computation cost the same, and AES's T-table rounds (probe/aes128-ttable,
    unseen39/) come within 10% of the 24.5 M instructions Nsight counts (46.4 M before)."""
    from simt.issue import dead_code
    from kernels_cuda import timing_check, timing_probes
    twice = """
    __global__ void k(const unsigned *t, const unsigned *s, unsigned *o) {
        unsigned x = s[threadIdx.x];
        o[threadIdx.x] = t[(x >> 8) & 255] ^ __funnelshift_r(t[(x >> 8) & 255], t[(x >> 8) & 255], 8);
    }
    """
    once = """
    __global__ void k(const unsigned *t, const unsigned *s, unsigned *o) {
        unsigned x = s[threadIdx.x];
        unsigned v = t[(x >> 8) & 255];
        o[threadIdx.x] = v ^ __funnelshift_r(v, v, 8);
    }
    """
    a = simt.Module.from_source(twice, "k.cu").get_function("k").ir
    b = simt.Module.from_source(once, "k.cu").get_function("k").ir
    assert len(dead_code(a.code)) >= 8 and not dead_code(b.code)
    assert issue_weights(a).sum() == issue_weights(b).sum()
    p = timing_probes.get("probe/aes128-ttable")
    slots = timing_check.emulate(p, p.n)[0].metrics["simt__issue_slots.sum"]
    assert 0.9 <= slots / 24_510_464 <= 1.15


def test_warp_votes_go_to_the_integer_alu_pipe():
    """probe/bitmat-transpose's loop is shift, LOP3, ISETP, VOTE and a select, 32 times
    a warp: ncu (timing_investigation/votes/) finds the ALU pipe 89% busy and the warps
    stalled on math-pipe throttle, so VOTE is an ALU-pipe instruction.  Counted there,
    the kernel is bound by the ALU pipe's half rate, not by issue."""
    from simt import timing
    from simt.issue import alu_pipe_weights
    from kernels_cuda import timing_check, timing_probes
    from kernels_cuda.backend import source_path
    ir = simt.Module.from_file(source_path("probes40.cu")).get_function("bitmat_transpose").ir
    alu = alu_pipe_weights(ir)
    votes = [p for p, i in enumerate(ir.code) if i.op == Op.CALL and i.sub == "__ballot_sync"]
    assert votes and all(alu[p] == issue_weights(ir)[p] > 0 for p in votes)
    p = timing_probes.get("probe/bitmat-transpose")
    r = timing_check.emulate(p, p.n)[0]
    prof = timing.load_profile("h100")
    m = r.metrics
    assert m[C.ALU_SLOTS] / prof.alu_ipc > m[C.ISSUE_SLOTS] / prof.issue_ipc
    assert 0.75 <= timing.predict_result(r, prof).ms / 0.2037 <= 1.25        # 0.665 before


def test_arithmetic_on_a_vector_load_in_an_unrolled_nest_is_issued_every_trip():
    """sph_forces (probes59.cu): a loop over a bucket's particles inside the 27 cells'
    nest nvcc unrolls fully; ``pos[j]`` is a float4 load, whose four registers are written
    in the nest, so the distance arithmetic on them is issued on every trip of the inner
    loop (its sm_90 SASS: 3 FADD, FMUL, 2 FFMA, 2 FSETP a trip), not once for the 27
    copies as an operand written nowhere would be."""
    k = _kernel("sph_forces", "kernels_cuda/probes59.cu")
    w = issue_weights(k.ir)
    code = k.ir.code
    loads = [p for p, i in enumerate(code) if i.op == Op.LOAD and isinstance(i.dst, list)]
    ld = next(p for p in loads if code[p].depth > 0)       # pos[j]: the first one in the nest
    after = [p for p in range(ld + 1, ld + 18) if code[p].op in (Op.BIN, Op.FMA)]
    assert len(after) >= 6 and all(w[p] == 1.0 for p in after)


_INVARIANT = r"""
extern "C" __global__ void inv_src(float *v, float dt, int n) {
    float x = v[threadIdx.x];
    for (int s = 0; s < n; s++)
        x += dt / 6.0f * x;
    v[threadIdx.x] = x;
}
extern "C" __global__ void inv_hand(float *v, float dt, int n) {
    float x = v[threadIdx.x];
    float h = dt / 6.0f;
    for (int s = 0; s < n; s++)
        x += h * x;
    v[threadIdx.x] = x;
}
extern "C" __global__ void inv_mixed(float *v, const float *t, float dt, int n, int d) {
    float x = v[threadIdx.x], h = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        x += h * 2.0f;
        h = dt * 3.0f;
        x += t[0] * 5.0f;
        x += (float)(n / d);
        for (int j = 0; j < n; j++)
            x += i * 0.5f;
    }
    v[threadIdx.x] = x;
}
"""


def test_loop_invariant_arithmetic_is_computed_once_before_the_loop():
    """nvcc moves ``dt / 6.0f`` (a division, with its slow-path check) out of the loop:
    the loop as written costs what it costs with the quotient hoisted by hand, in slots
    and in the warp's cycles."""
    from simt.issue import loop_invariant_pcs
    mod = simt.Module.from_source(_INVARIANT)
    got = {}
    for name in ("inv_src", "inv_hand"):
        k = mod.get_function(name)
        code = k.ir.code
        top, back = _loop(code)
        got[name] = issue_weights(k.ir)[top:back + 1].sum()
        dev = simt.Device()
        v = dev.to_device(np.full(32, 1.0, np.float32))
        r = k.launch(dev, simt.LaunchConfig.of(1, 32), [v, np.float32(0.01), np.int32(100)], sanitize=False)
        got[name + "_cycles"] = r.metrics["simt__warp_cycles.mean"]
        assert np.allclose(v.get(), (1 + np.float32(0.01) / np.float32(6.0)) ** 100, rtol=1e-4)
        if name == "inv_src":
            div = [p for p in range(top, back) if code[p].op == Op.BIN and code[p].sub == "div"]
            assert div and set(div) <= loop_invariant_pcs(k.ir)
    assert got["inv_src"] == got["inv_hand"] == 1.75     # the FFMA; counter, compare, branch a 4-trip unroll
    assert got["inv_src_cycles"] == pytest.approx(got["inv_hand_cycles"], rel=0.02)


def test_only_what_is_the_same_on_every_trip_leaves_the_loop():
    """Moved: ``dt * 3.0f`` and the grid stride ``blockDim.x * gridDim.x``.  Kept: ``h``'s
    use (0 on the first trip), a load's result, an integer division by a variable (it may
    trap), and arithmetic of the outer counter in the inner loop."""
    from simt.issue import loop_invariant_pcs
    k = simt.Module.from_source(_INVARIANT).get_function("inv_mixed")
    code = k.ir.code
    moved = sorted((code[p].sub, tuple(str(a) for a in code[p].args)) for p in loop_invariant_pcs(k.ir))
    assert moved == [("mul", ("$dt", "3.0")), ("mul", ("$ntid.x", "$nctaid.x"))]


_CONST_STEP = """
__constant__ double c_b[4];
extern "C" __global__ void const_src(double *y, double L, int steps) {
    double v = y[threadIdx.x];
    for (int s = 0; s < steps; ++s) {
        #pragma unroll
        for (int g = 0; g < 4; ++g) v = v * 0.5 + c_b[g] / L;
    }
    y[threadIdx.x] = v;
}
extern "C" __global__ void const_hand(double *y, double L, int steps) {
    double v = y[threadIdx.x];
    double q[4];
    #pragma unroll
    for (int g = 0; g < 4; ++g) q[g] = c_b[g] / L;
    for (int s = 0; s < steps; ++s) {
        #pragma unroll
        for (int g = 0; g < 4; ++g) v = v * 0.5 + q[g];
    }
    y[threadIdx.x] = v;
}"""


def test_constant_words_over_an_unrolled_counter_are_divided_once_before_the_loop():
    """``c_b[g] / L`` in a step loop, g the counter of a loop nvcc unrolls fully: the four
    quotients are the same every step (a kernel cannot write ``__constant__`` memory), and
    nvcc computes them once (probe/point-kinetics-rk4-double's SASS, docs/results/
    timing_investigation/unseen195/).  The loop as written costs the warp what it costs
    with the quotients computed before it by hand."""
    from simt.issue import loop_invariant_pcs
    mod = simt.Module.from_source(_CONST_STEP)
    mod_b = np.array([0.5, 1.0, 1.5, 2.0])
    cycles = {}
    for name in ("const_src", "const_hand"):
        k = mod.get_function(name)
        dev = simt.Device()
        mod.get_global(dev, "c_b").set(mod_b)
        y = dev.to_device(np.ones(32))
        r = k.launch(dev, simt.LaunchConfig.of(1, 32), [y, np.float64(3.0), np.int32(50)], sanitize=False)
        want = 1.0
        for _ in range(50):
            for b in mod_b:
                want = want * 0.5 + b / 3.0
        assert np.allclose(y.get(), want, rtol=1e-12)
        cycles[name] = r.metrics["simt__warp_cycles.mean"]
        if name == "const_src":
            code = k.ir.code
            div = [p for p, ins in enumerate(code) if ins.op == Op.BIN and ins.sub == "div"]
            assert div and set(div) <= loop_invariant_pcs(k.ir)
    assert cycles["const_src"] == pytest.approx(cycles["const_hand"], rel=0.05)


_CONST_BAND = """
__constant__ float c_k[4 * 8];
extern "C" __global__ void band_src(float *y, int steps) {
    int b = blockIdx.x;
    float v = y[b * 32 + threadIdx.x], w = 0.0f;
    for (int s = 0; s < steps; ++s) {
        #pragma unroll
        for (int k = 0; k < 4; ++k) v = v * c_k[b * 4 + k] + w;
        if ((s & 15) == 15) w = sqrtf(fabsf(v)) * 1e-3f;
    }
    y[b * 32 + threadIdx.x] = v;
}
extern "C" __global__ void band_hand(float *y, int steps) {
    int b = blockIdx.x;
    float c0 = c_k[b * 4], c1 = c_k[b * 4 + 1], c2 = c_k[b * 4 + 2], c3 = c_k[b * 4 + 3];
    float v = y[b * 32 + threadIdx.x], w = 0.0f;
    for (int s = 0; s < steps; ++s) {
        v = v * c0 + w; v = v * c1 + w; v = v * c2 + w; v = v * c3 + w;
        if ((s & 15) == 15) w = sqrtf(fabsf(v)) * 1e-3f;
    }
    y[b * 32 + threadIdx.x] = v;
}"""


def test_constant_words_at_an_address_the_loop_does_not_change_are_read_before_it():
    """``c_k[b * 4 + k]`` in a step loop, b the block and k the counter of a loop nvcc
    unrolls fully: the same four words every step, which nvcc reads once before the loop
    (``ULDC.64 c[0x3][UR4+...]`` in probe/synth-resonator-bank-double-const's SASS,
    docs/results/timing_investigation/unseen206/).  The loop's arithmetic waits in order
    (``sqrtf``'s slow path), so a load in it would cost each step the constant cache's
    latency; as written it costs the warp what it costs with the words read by hand
    before the loop (3.4 times as much before session 64)."""
    from simt.issue import loop_invariant_pcs
    mod = simt.Module.from_source(_CONST_BAND, "band.cu")
    ck = np.linspace(0.9, 1.05, 32).astype(np.float32)
    cycles = {}
    for name in ("band_src", "band_hand"):
        k = mod.get_function(name)
        dev = simt.Device()
        mod.get_global(dev, "c_k").set(ck)
        y = dev.to_device(np.ones(64, np.float32))
        r = k.launch(dev, simt.LaunchConfig.of(2, 32), [y, np.int32(64)], sanitize=False)
        for b in range(2):
            v, w = np.float32(1.0), np.float32(0.0)
            for s in range(64):
                for c in ck[4 * b:4 * b + 4]:
                    v = np.float32(v * c + w)
                if s % 16 == 15:
                    w = np.float32(np.sqrt(abs(v)) * np.float32(1e-3))
            assert np.allclose(y.get()[32 * b:32 * b + 32], v, rtol=1e-5)
        cycles[name] = r.metrics["simt__warp_cycles.mean"]
        if name == "band_src":
            code = k.ir.code
            loads = [p for p, ins in enumerate(code) if ins.op == Op.LOAD and ins.info.get("space") == "const"]
            assert len(loads) == 1 and set(loads) <= loop_invariant_pcs(k.ir)
    assert cycles["band_src"] == pytest.approx(cycles["band_hand"], rel=0.05)


def test_inlined_returns_shift_amounts_and_wide_logic_cost_what_sass_issues():
    """A device function's closing ``return`` is no instruction once nvcc inlines it (an
    early one is a branch); a shift's amount converted to the shifted value's 64-bit type
    is read from its 32-bit register; and a 64-bit ``&`` ``|`` tree over three inputs is
    one LOP3 a half (probe/othello-mobility-bitboard's flood: two SHF and four LOP3 a
    step in unseen116/'s sm_90 SASS)."""
    src = """
    __device__ unsigned long long step(unsigned long long x, unsigned long long m, int s) {
        return x | ((x << s) & m);
    }
    __device__ int clampi(int v) {
        if (v < 0) return 0;
        return v;
    }
    __global__ void k(unsigned long long *o, const unsigned long long *a, int *c, int s) {
        int i = threadIdx.x;
        o[i] = step(a[i], a[i + 32], s);
        c[i] = clampi(c[i]);
    }
    """
    k = simt.Module.from_source(src, "k.cu").get_function("k")
    code, w = k.ir.code, issue_weights(k.ir)
    rets = [(i.line, float(w[p])) for p, i in enumerate(code) if i.op == Op.KILL and i.sub == "return"]
    assert rets == [(3, 0.0), (6, 1.0), (7, 0.0)]
    line3 = {(i.op, i.sub): float(w[p]) for p, i in enumerate(code) if i.line == 3 and i.op in (Op.BIN, Op.CAST)}
    assert line3[(Op.CAST, None)] == 0.0      # s, widened for the shift: SHF reads R(s)
    assert line3[(Op.BIN, "shl")] == 2.0      # SHF.L.U64.HI and SHF.L.U32
    assert line3[(Op.BIN, "and")] + line3[(Op.BIN, "or")] == 2.0     # one LOP3 a half


def test_unrolled_trips_behind_a_continue_do_not_overlap_their_waits():
    """nvcc puts each unrolled trip of a loop holding a ``continue`` (or ``break``) in its
    own BSSY/BSYNC region: the trips' shared loads and math calls do not overlap
    (issue.overlapped_pcs; dipolar-nbody-smem-rsqrt, unseen191/notes.md)."""
    from simt.issue import overlapped_pcs
    src = '''extern "C" __global__ void k(float *out, int skip) {
        __shared__ float s[128];
        s[threadIdx.x] = threadIdx.x;
        __syncthreads();
        float acc = 0.0f;
        for (int j = 0; j < 128; j++) {
            SKIP
            acc += rsqrtf(s[j] + 1.0f);
        }
        out[threadIdx.x] = acc;
    }'''
    plain = simt.Module.from_source(src.replace("SKIP", ""), "a.cu").get_function("k").ir
    skips = simt.Module.from_source(src.replace("SKIP", "if (j == skip) continue;"), "b.cu").get_function("k").ir
    assert len(overlapped_pcs(plain)) == 2          # the shared load and the rsqrtf
    assert overlapped_pcs(skips) == frozenset()


SHFL_KERNEL = r'''
__global__ void shuffles(const float *x, const double *d, const int *t, float *y, double *z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    double w = d[i];
    for (int o = 16; o > 0; o >>= 1) {
        v += __shfl_down_sync(0xffffffffu, v, o);      // one SHFL a trip
        w += __shfl_xor_sync(0xffffffffu, w, o);       // a double: two
    }
    if (t[i & ~31] > n)                                // a branch whole warps take or not
        v += __shfl_sync(0xffffffffu, v, 0);
    y[i] = v;
    z[i] = w;
}
'''


def test_shuffles_are_l1_data_pipe_wavefronts_one_per_32_bits(monkeypatch):
    """A warp's __shfl*_sync is one SHFL per 32 bits of its value (a double two), and each
    passes L1's data pipe beside the shared accesses (timing_investigation/shflpipe/): the
    count is per warp that executes it, so a branch only warp 2 takes adds one wavefront;
    the prediction's shared component is those wavefronts at the pipe's rate."""
    from simt import timing
    from simt.issue import shfl_pipe_weights
    k = simt.Module.from_source(SHFL_KERNEL, "s.cu").get_function("shuffles")
    by_line = {}
    for p, ins in enumerate(k.ir.code):
        by_line[ins.coord.line] = by_line.get(ins.coord.line, 0.0) + shfl_pipe_weights(k.ir)[p]
    assert (by_line[7], by_line[8], by_line[11]) == (1.0, 2.0, 1.0) and sum(by_line.values()) == 4.0
    dev = simt.Device()
    blocks, threads = 6, 128
    t = np.zeros(blocks * threads, np.int32)
    t[2 * 32] = 9                                      # only warp 2 of block 0 takes the branch
    r = k.launch(dev, simt.LaunchConfig.of(blocks, threads),
                 [dev.to_device(np.ones(blocks * threads, np.float32)), dev.to_device(np.ones(blocks * threads)),
                  dev.to_device(t), dev.zeros(blocks * threads, np.float32), dev.zeros(blocks * threads, np.float64),
                  np.int32(1)], sanitize=False)
    warps = blocks * threads // 32
    m = r.metrics
    assert m[C.SHFL_WAVES] == warps * 5 * 3 + 1
    prof = timing.load_profile("h200")
    pipe = lambda: max(timing.predict_result(r, prof).components_us[c] for c in ("shared", "l1"))  # both
    with_shfl = pipe()
    monkeypatch.setattr(timing, "SHFL_WAVE_SHARE", 0.0)
    assert with_shfl - pipe() == pytest.approx(m[C.SHFL_WAVES] / (blocks * prof.shared_waves_per_us_sm), abs=2e-3)


def test_a_kernel_without_shuffles_has_no_shuffle_counter():
    """The counter appears only where a kernel shuffles, so other kernels' counters stay as
    they were."""
    k = _kernel("cal_imad")
    dev = simt.Device()
    r = k.launch(dev, simt.LaunchConfig.of(2, 64),
                 [dev.zeros(2, np.uint64), np.uint64(3), np.uint64(1), np.int32(2)], sanitize=False)
    assert C.SHFL_WAVES not in r.metrics and r.metrics[C.IMAD_SLOTS] > 0


PAIR_KERNEL = r'''
__global__ void pairs(float *y, int heavy, int light) {
    int w = threadIdx.x >> 5;
    float a = threadIdx.x;
    int trips = (w % 2 == 0) ? heavy : light;          // warp 0 of a 2-warp block does more
    for (int i = 0; i < trips; ++i)
        a = a * 0.999f + 0.001f;
    y[blockIdx.x * blockDim.x + threadIdx.x] = a;
}
'''


def test_two_warp_blocks_issue_at_their_busier_warps_share():
    """An SM gives a two-warp block's warp 0 an even slot, so every warp 0 runs on two of
    the four sub-partitions (timing_investigation/subpart/: 64-thread blocks whose warp 0
    alone works take 1.90x as long as one-warp blocks).  simt__warp_pair_share is the
    busier warp's share of the instructions, and the issue component is scaled by twice
    it: as it was for even warps, doubled where warp 0 does all the work.  Other block
    sizes have no such counter."""
    from simt import timing
    k = simt.Module.from_source(PAIR_KERNEL, "p.cu").get_function("pairs")
    prof = timing.load_profile("h200")

    def launch(threads, heavy, light):
        dev = simt.Device()
        blocks = 132 * 64 // threads
        return k.launch(dev, simt.LaunchConfig.of(blocks, threads),
                        [dev.zeros(blocks * threads, np.float32), np.int32(heavy), np.int32(light)], sanitize=False)

    even = launch(64, 800, 800)
    skew = launch(64, 1520, 80)
    inst = skew.per_warp["inst"]
    want = max(inst[0::2].sum(), inst[1::2].sum()) / inst.sum()
    assert skew.metrics[C.PAIR_SHARE] == pytest.approx(want, abs=1e-4) and want > 0.85
    assert even.metrics[C.PAIR_SHARE] == 0.5
    assert skew.metrics[C.ISSUE_SLOTS] == pytest.approx(even.metrics[C.ISSUE_SLOTS], rel=0.02)
    issue = lambda r: timing.predict_result(r, prof).components_us["issue"]
    assert issue(skew) / issue(even) == pytest.approx(2 * want * skew.metrics[C.ISSUE_SLOTS]
                                                      / even.metrics[C.ISSUE_SLOTS], rel=1e-3)
    assert C.PAIR_SHARE not in launch(128, 76, 4).metrics and C.PAIR_SHARE not in launch(32, 76, 4).metrics
