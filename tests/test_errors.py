"""Bad input ends in a clear SimtError naming file:line:col (or the argument)."""
import numpy as np
import pytest

import simt
from kern import compile_error, run

I32 = np.int32


@pytest.mark.parametrize("src,where,words", [
    ('__global__ void k(int *a) {\n  a[0] = ;\n}', "bad.cu:2:", "before ';'"),
    ('__global__ void k(int *a) {\n  a[0] = 1\n}', "bad.cu:3:1", "syntax error"),
    ('template <typename T>\nstruct S<T *> { T x; };', "bad.cu:1:1", "partial specializations"),
    ('__global__ void k(int &a) {}', "bad.cu:1:23", "references"),
    ('__global__ void k(float *a) {\n  a[0] = *dynamic_cast<float *>(a);\n}', "bad.cu:2:11", "dynamic_cast"),
    ('__global__ void k(int *a) {\n  a[0] = missing + 1;\n}', "bad.cu:2:10", 'identifier "missing" is undefined'),
    ('__global__ void k(int *a) {\n  a[0] = nofunc(1);\n}', "bad.cu:2:10", 'identifier "nofunc" is undefined'),
    ('__global__ void k(float *a) {\n  atomicCAS(a, 1, 2);\n}', "bad.cu:2:3",
     'no instance of overloaded function "atomicCAS"'),
    ('__global__ void k(float *a, int *b) {\n  b = a;\n}', "bad.cu:2:7", 'cannot be assigned'),
    ('__global__ void k(const int *a) {\n  a[0] = 1;\n}', "bad.cu:2:3", 'modifiable lvalue'),
    ('__global__ void k(int *a) {\n  goto end; end: a[0] = 1;\n}', "bad.cu:2:3", "goto"),
    ('__device__ int f(int x) { return f(x); }\n__global__ void k(int *a) { a[0] = f(1); }', "bad.cu:1:",
     "recursive"),
    ('__global__ void k(int *a) {\n  __shared__ float big[20000];\n  big[0] = 1; a[0] = big[0];\n}',
     "bad.cu:1:17", "48 KiB"),
    ('__global__ void k(int *a) {\n  int x; int *p = &x;\n  a[0] = p[1];\n}', "bad.cu:3:10",
     'the address of local variable "x" (taken at line 2) is used here as an address'),
])
def test_compile_errors_name_the_place(src, where, words):
    msg = compile_error(src)
    assert msg.startswith(where), msg
    assert words in msg, msg


def test_seed_004_float_atomic_mul_as_written_is_rejected():
    from kernels_cuda.backend import KERNEL_DIR
    path = KERNEL_DIR / "broken" / "atomic_mul_float_as_written.cu"
    m = simt.Module.from_file(path)
    with pytest.raises(simt.CompileError) as e:
        m.check_all()
    assert 'no instance of overloaded function "atomicCAS"' in str(e.value)
    assert "(float *, int, int)" in str(e.value)
    assert str(e.value).startswith(f"{path}:")


def test_out_of_bounds_names_thread_block_line_and_distance():
    src = '__global__ void k(int *a, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  a[i] = i;\n}'
    with pytest.raises(simt.LaunchError) as e:
        run(src, "k", 2, 64, [np.zeros(100, I32), I32(100)])
    msg = str(e.value)
    assert msg.startswith("t.cu:3:3:") and e.value.tool == "memcheck"
    assert "thread (36, 0, 0) in block (1, 0, 0)" in msg
    # compute-sanitizer's wording: the first byte past the end is "1 bytes after"
    assert "1 bytes after the end of" in msg and "400 bytes" in msg


def test_null_pointer_read_with_no_allocation_at_all_is_memcheck_not_a_crash():
    """A struct whose pointer member is left 0 (what ``--arg '{n=200}'`` gives), in a
    launch with no array argument: memcheck's report, not an IndexError."""
    src = ('struct P { int n; const float *x; float *y; };\n'
           '__global__ void k(P p) {\n  int i = threadIdx.x;\n  if (i < p.n) p.y[i] = p.x[i];\n}')
    with pytest.raises(simt.LaunchError) as e:
        run(src, "k", 1, 32, [(np.int32(8), 0, 0)])
    msg = str(e.value)
    assert msg.startswith("t.cu:4:25:") and e.value.tool == "memcheck", msg
    assert "address 0x0 is not inside any allocation" in msg


def test_shared_out_of_bounds():
    src = '__global__ void k(int *a) {\n  __shared__ int s[32];\n  s[threadIdx.x + 1] = 1;\n  a[0] = s[0];\n}'
    with pytest.raises(simt.LaunchError) as e:
        run(src, "k", 1, 32, [np.zeros(1, I32)])
    assert "t.cu:3:3" in str(e.value) and "__shared__ write" in str(e.value)
    assert "thread (31, 0, 0)" in str(e.value)


def test_misaligned_access():
    src = '__global__ void k(char *a) {\n  int *p = (int *)(a + 1);\n  p[threadIdx.x] = 1;\n}'
    with pytest.raises(simt.LaunchError) as e:
        run(src, "k", 1, 32, [np.zeros(256, np.int8)])
    assert "misaligned" in str(e.value) and "t.cu:3:3" in str(e.value)


def test_syncthreads_in_divergent_code_is_an_error_not_a_hang():
    src = ('__global__ void k(int *a) {\n  if (threadIdx.x % 2)\n    __syncthreads();\n'
           '  a[threadIdx.x] = 1;\n}')
    with pytest.raises(simt.LaunchError) as e:
        run(src, "k", 1, 64, [np.zeros(64, I32)])
    assert e.value.tool == "synccheck" and str(e.value).startswith("t.cu:3:5")
    src2 = ('__global__ void k(int *a) {\n  if (threadIdx.x < 64) {\n    __syncthreads();\n  }\n'
            '  a[threadIdx.x] = 1;\n}')
    with pytest.raises(simt.LaunchError) as e:
        run(src2, "k", 1, 256, [np.zeros(256, I32)])
    assert e.value.tool == "synccheck" and "t.cu:3:5" in str(e.value)
    assert "reached by only 2 of the 8 warps" in str(e.value)


def test_early_return_before_barrier_is_allowed():
    src = ('__global__ void k(int *a, int n) {\n  int i = threadIdx.x;\n  if (i >= n) return;\n'
           '  __syncthreads();\n  a[i] = 1;\n}')
    (a, _), _ = run(src, "k", 1, 64, [np.zeros(64, I32), I32(40)])
    assert a.sum() == 40


def test_infinite_loop_hits_step_budget_with_line():
    src = '__global__ void k(int *a) {\n  int i = 0;\n  while (a[0] == 0) {\n    i++;\n  }\n}'
    with pytest.raises(simt.LaunchError) as e:
        run(src, "k", 1, 32, [np.zeros(1, I32)], step_budget=2000)
    assert "step budget" in str(e.value) and "t.cu:" in str(e.value)


def test_launch_config_and_argument_errors():
    src = '__global__ void k(int *a, int n) { a[0] = n; }'
    with pytest.raises(simt.UsageError, match="1024"):
        run(src, "k", 1, 2048, [np.zeros(1, I32), I32(1)])
    with pytest.raises(simt.UsageError, match=r"takes 2 arguments, got 1"):
        run(src, "k", 1, 32, [np.zeros(1, I32)])
    with pytest.raises(simt.UsageError, match="no kernel named 'nope'"):
        simt.Module.from_source(src, "t.cu").get_function("nope")
    with pytest.raises(simt.UsageError, match="no such file"):
        simt.Module.from_file("/nonexistent/k.cu")


def test_global_races_within_a_block_are_reported_and_correct_kernels_are_clean():
    from kernels_cuda import catalog
    from kernels_cuda.backend import EmulatorBackend
    flagged = {}
    for i in ("histogram/naive", "races/case1-broken", "races/case3-broken", "races/case1-fixed",
              "races/case3-fixed", "histogram/atomic", "streams/invert", "reduction/best",
              "scan/decoupled-lookback"):
        e = catalog.get(i)
        be = EmulatorBackend(policy=e.policy)
        e.run(be, e.inputs(seed=0))
        flagged[i] = sorted({(f.tool, f.kind) for r in be.launches for f in r.sanitizer})
    assert flagged["histogram/naive"] == [("racecheck-global", "WAR hazard"), ("racecheck-global", "WAW hazard")]
    assert ("racecheck-global", "RAW hazard") in flagged["races/case1-broken"]
    assert ("racecheck-global", "WAW hazard") in flagged["races/case3-broken"]
    for clean in ("races/case1-fixed", "races/case3-fixed", "histogram/atomic", "streams/invert",
                  "reduction/best", "scan/decoupled-lookback"):
        assert flagged[clean] == [], clean


@pytest.mark.parametrize("sync,races", [("", True), ("__syncwarp();", False)])
def test_syncwarp_orders_a_warps_shared_accesses(sync, races):
    """The warp-synchronous tail of a reduction: without __syncwarp() between reading a
    neighbour's word and writing one's own, lanes of one warp race (racecheck says so on
    Volta and later); with it they do not.  Lanes of different warps still need a barrier."""
    src = f'''
    __global__ void k(float *out) {{
        __shared__ float s[64];
        unsigned t = threadIdx.x;
        s[t] = t; s[t + 32] = 1.0f;
        {sync}
        float v = s[t];
        for (int o = 16; o > 0; o >>= 1) {{ v += s[t + o]; {sync} s[t] = v; {sync} }}
        if (t == 0) out[0] = s[0];
    }}'''
    (out,), res = run(src, "k", 1, 32, [np.zeros(1, np.float32)])
    found = [f for f in res.sanitizer if f.tool == "racecheck"]
    assert bool(found) == races, found


@pytest.mark.parametrize("grid,block,words", [
    (0, 256, "gridDim.x = 0"),
    ((4, 0), 32, "gridDim.y = 0"),
    (4, (32, 0), "blockDim.y = 0"),
])
def test_a_launch_with_an_empty_dimension_is_refused(grid, block, words):
    """CUDA refuses a grid or block with a dimension of 0 (invalid configuration); the
    emulator says so, where it used to divide by the zero blocks it ran."""
    k = simt.Module.from_source('extern "C" __global__ void k(int *a) { a[threadIdx.x] = 1; }', "k.cu").get_function("k")
    dev = simt.Device()
    a = dev.zeros(64, np.int32)
    with pytest.raises(simt.UsageError, match=words):
        k.launch(dev, simt.LaunchConfig.of(grid, block), [a])
