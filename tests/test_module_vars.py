"""File-scope ``__constant__`` and ``__device__`` variables (module memory), file-scope
``const`` scalars, the constant cache's counters, and ``--symbol`` on the command line."""
import json

import numpy as np
import pytest

import simt
from simt import counters as C
from simt.issue import issue_weights
from tui.cli import main

from kern import gpu_or_skip, run

CONV = """
#define R 2
__constant__ int w[2 * R + 1] = {1, 2, 4, 2, 1};
__device__ unsigned int big;
extern "C" __global__ void conv(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int s = 0;
    for (int k = -R; k <= R; k++)
        s += w[k + R] * in[min(max(i + k, 0), n - 1)];
    out[i] = s;
    if (s > 40) atomicAdd(&big, 1u);
}
"""


def conv_ref(x, w=(1, 2, 4, 2, 1)):
    n = len(x)
    return sum(wk * x[np.clip(np.arange(n) + k - 2, 0, n - 1)] for k, wk in enumerate(w))


def launch_conv(mod, dev, x):
    a, o = dev.to_device(x), dev.zeros(len(x), np.int32)
    res = mod.get_function("conv").launch(dev, simt.LaunchConfig.of(-(-len(x) // 128), 128),
                                          [a, o, len(x)])
    return o.get(), res


def test_constant_initializer_and_device_counter():
    x = np.random.default_rng(1).integers(0, 10, 1000).astype(np.int32)
    mod = simt.Module.from_source(CONV, "conv.cu")
    dev = simt.Device()
    out, _ = launch_conv(mod, dev, x)
    ref = conv_ref(x)
    np.testing.assert_array_equal(out, ref)
    assert mod.get_global(dev, "big").get().item() == int((ref > 40).sum())
    # a module's __device__ variables live as long as the device: a second launch adds
    launch_conv(mod, dev, x)
    assert mod.get_global(dev, "big").get().item() == 2 * int((ref > 40).sum())
    # ... and a fresh device starts from the initializer (zero)
    assert mod.get_global(simt.Device(), "big").get().item() == 0


def test_get_global_set_is_memcpy_to_symbol():
    x = np.arange(300, dtype=np.int32) % 7
    mod = simt.Module.from_source(CONV, "conv.cu")
    dev = simt.Device()
    mod.get_global(dev, "w").set(np.array([0, 0, 1, 0, 0], np.int32))
    out, _ = launch_conv(mod, dev, x)
    np.testing.assert_array_equal(out, x)
    with pytest.raises(simt.UsageError, match="no __constant__ or __device__ variable named 'v'"):
        mod.get_global(dev, "v")


def test_initializers_nested_elided_partial_and_scalars():
    src = """
    __constant__ int a[2][3] = {{1, 2, 3}, {4}};
    __constant__ int b[2][2] = {5, 6, 7};
    __constant__ float c[] = {0.5f, -1.25f};
    __device__ double d = 1.0 / 4;
    __device__ int z[3];
    const int N = 3;
    const float HALF = 0.5f;
    extern "C" __global__ void k(float *o) {
        int t = threadIdx.x;
        float loc[N];
        loc[0] = HALF;
        if (t < 6) o[t] = a[t / 3][t % 3];
        else if (t < 10) o[t] = b[(t - 6) / 2][t % 2];
        else if (t < 12) o[t] = c[t - 10];
        else if (t == 12) o[t] = (float)d + loc[0] * N;
        else if (t < 16) o[t] = z[t - 13];
    }
    """
    (o,), _ = run(src, "k", 1, 32, [np.full(32, -9, np.float32)])
    np.testing.assert_array_equal(o[:16], [1, 2, 3, 4, 0, 0, 5, 6, 7, 0, 0.5, -1.25, 1.75, 0, 0, 0])
    mod = simt.Module.from_source(src, "t.cu")
    assert mod.globals["c"].shape == (2,) and mod.globals["a"].space == "constant"
    assert mod.globals["z"].space == "global"


def _const_counts(index_expr):
    src = f"""
    __constant__ float tab[64];
    extern "C" __global__ void k(float *o) {{
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        o[t] = tab[{index_expr}];
    }}
    """
    mod = simt.Module.from_source(src, "t.cu")
    dev = simt.Device()
    mod.get_global(dev, "tab").set(np.arange(64, dtype=np.float32))
    o = dev.zeros(256, np.float32)
    fn = mod.get_function("k")
    res = fn.launch(dev, simt.LaunchConfig.of(2, 128), [o])
    return o.get(), res.metrics, fn


def test_uniform_constant_load_is_one_pass_and_no_global_traffic():
    o, m, fn = _const_counts("blockIdx.x")
    np.testing.assert_array_equal(o, np.repeat([0, 1], 128))
    assert m[C.CONST_LD] == 8 and m.get(C.CONST_REPLAYS, 0) == 0
    assert m[C.REQ_LD] == 0 and m[C.SECT_LD] == 0         # not a global load
    ld = [i.pc for i in fn.ir.code if i.op == simt.ir.Op.LOAD]
    assert [issue_weights(fn.ir)[p] for p in ld] == [0.0]  # a constant-bank operand


def test_divergent_constant_load_replays_per_distinct_word():
    o, m, fn = _const_counts("threadIdx.x % 8")
    np.testing.assert_array_equal(o, np.arange(256) % 8)
    assert m[C.CONST_LD] == 8 and m[C.CONST_REPLAYS] == 8 * 7
    ld = [i.pc for i in fn.ir.code if i.op == simt.ir.Op.LOAD]
    assert [issue_weights(fn.ir)[p] for p in ld] == [1.0]


def test_constant_loads_in_a_loop_under_a_varying_guard_are_operands():
    """k-means assignment (probes21.cu): the loop counter is declared inside `if (i < n)`,
    so it is the same in every lane that runs the loop, and nvcc reads c_cx[k] from the
    constant bank (ULDC / an FADD operand, no LDC): no pass of the constant cache.  The
    if-converted `best = d; arg = k` are two selects (FSEL, SEL), an issue slot each."""
    src = """
    __constant__ float c_cx[8];
    extern "C" __global__ void k(const float *px, int *label, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) {
            float x = px[i], best = 3.4e38f;
            int arg = 0;
            for (int k = 0; k < 8; k++) {
                float dx = x - c_cx[k], d = dx * dx;
                if (d < best) { best = d; arg = k; }
            }
            label[i] = arg;
        }
    }
    """
    mod = simt.Module.from_source(src, "t.cu")
    dev = simt.Device()
    cx = np.linspace(-1, 1, 8).astype(np.float32)
    mod.get_global(dev, "c_cx").set(cx)
    px = np.random.default_rng(0).uniform(-1, 1, 100).astype(np.float32)
    label = dev.zeros(100, np.int32)
    fn = mod.get_function("k")
    res = fn.launch(dev, simt.LaunchConfig.of(1, 128), [dev.to_device(px), label, np.int32(100)])
    np.testing.assert_array_equal(label.get(), np.abs(px[:, None] - cx[None]).argmin(1))
    assert res.metrics[C.CONST_LD] == 4 * 8 and res.metrics.get(C.CONST_PASSES, 0) == 0
    w = issue_weights(fn.ir)
    assert [w[i.pc] for i in fn.ir.code if i.op == simt.ir.Op.LOAD and i.info.get("space") == "const"] == [0.0]
    sel = [i for i in fn.ir.code if i.info.get("select")]
    assert [i.dst.name for i in sel] == ["best", "arg"] and all(w[i.pc] == 1.0 for i in sel)


@pytest.mark.parametrize("src, where, msg", [
    ("__constant__ float c[4];\n__global__ void k(float *o) { c[threadIdx.x] = 1.0f; }",
     "t.cu:2:", '__constant__ variable "c" cannot be written in device code'),
    ("int n_host = 3;\n__global__ void k(int *o) { o[0] = n_host; }",
     "t.cu:2:", 'identifier "n_host" is undefined in device code'),
    ("__shared__ int s[4];\n__global__ void k(int *o) { o[0] = s[0]; }",
     "t.cu:1:", '__shared__ variable "s" at file scope'),
    ("__device__ int t[2] = {1, 2, 3};\n__global__ void k(int *o) { o[0] = t[0]; }",
     "t.cu:1:", "too many initializer values"),
    ("__device__ int q = 1;\n__constant__ int z[1] = {q};\n__global__ void k(int *o) { o[0] = z[0]; }",
     "t.cu:2:", "must be a constant expression"),
    ("extern __constant__ float c[4];\n__global__ void k(float *o) { o[0] = c[0]; }",
     "t.cu:1:", 'extern variable "c"'),
])
def test_module_variable_errors_name_file_line_col(src, where, msg):
    with pytest.raises(simt.CompileError) as e:
        simt.Module.from_source(src, "t.cu").check_all()
    assert str(e.value).startswith(where) and msg in str(e.value)


@pytest.fixture
def conv_cu(tmp_path):
    p = tmp_path / "conv.cu"
    p.write_text(CONV)
    return p


def _cli_json(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if rc == 0 else None), err


def test_cli_symbol_sets_and_reports_module_variables(conv_cu, tmp_path, capsys):
    base = ["run", conv_cu, "--grid", 2, "--block", 128, "--arg", "int32[256]=arange",
            "--arg", "int32[256]=zeros", "--arg", 256, "--json", "--no-sanitize"]
    rc, d, _ = _cli_json(capsys, *base, "--symbol", "w=[0,1,0,0,0]", "--symbol", "big=7",
                         "--out", f"big={tmp_path / 'big.npy'}")
    assert rc == 0
    arrays = {a["name"]: a for a in d["arrays"]}
    x = np.arange(256)
    want = x[np.clip(x - 1, 0, 255)]
    assert arrays["out"]["sum"] == int(want.sum())
    assert arrays["w"]["symbol"] == "constant" and arrays["w"]["first"][:5] == [0, 1, 0, 0, 0]
    assert arrays["big"]["symbol"] == "device"
    assert arrays["big"]["sum"] == 7 + int((want > 40).sum())
    assert np.load(tmp_path / "big.npy").tolist() == [7 + int((want > 40).sum())]
    assert d["metrics"][C.CONST_LD] == 8 * 5         # 8 warps, 5 taps


@pytest.mark.parametrize("sym, msg", [
    ("nope=1", "has no __constant__ or __device__ variable 'nope' (its variables: w, big)"),
    ("w=[1,2]", "bad --symbol 'w=[1,2]' for __constant__ int w[5]"),
    ("big=-1", "bad --symbol 'big=-1' for __device__ unsigned int big"),
    ("w", "expected NAME=VALUE"),
    ("w=float64[5]=uniform", "do not fit it exactly"),
])
def test_cli_bad_symbol_is_a_usage_error(conv_cu, capsys, sym, msg):
    rc = main(["run", str(conv_cu), "--grid", "2", "--block", "128", "--arg", "int32[256]=arange",
               "--arg", "int32[256]=zeros", "--arg", "256", "--symbol", sym])
    out, err = capsys.readouterr()
    assert rc == 2 and msg in err and "Traceback" not in err


VEC = """
struct Lm { float x, y; int id; };
__constant__ float2 c_g[4];
__constant__ float2 c_init[2] = {{1.f, 2.f}, {3.f, 4.f}};
__constant__ Lm c_lm[3] = {{1.f, 2.f, 7}, {3.f, 4.f, 8}};
__constant__ int2 c_e[2];
extern "C" __global__ void k(float *out, int *ids, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    float2 g = c_g[t & 3];
    out[t] = g.x * 10.f + g.y + c_init[t & 1].x + c_lm[t % 3].y;
    ids[t] = c_lm[t % 3].id + c_e[t & 1].y;
}
"""


def _vec_want(g, e, t):
    return (g[t & 3, 0] * 10 + g[t & 3, 1] + np.array([1, 3])[t & 1] + np.array([2, 4, 0])[t % 3],
            np.array([7, 8, 0])[t % 3] + e[t & 1, 1])


def test_constant_arrays_of_vectors_and_structs():
    """__constant__ float2 / int2 / struct arrays: braces per element initialize them (the
    rest zero), the host sets them from their bytes or a structured array, and a kernel
    reads their members."""
    mod = simt.Module.from_source(VEC, "vec.cu")
    dev = simt.Device()
    g = np.arange(8, dtype=np.float32).reshape(4, 2)
    e = np.array([[1, 2], [3, 4]], np.int32)
    mod.get_global(dev, "c_g").set(g)                               # a float array's bytes
    ce = mod.get_global(dev, "c_e")
    ce.set(np.rec.fromarrays([e[:, 0], e[:, 1]], dtype=ce.dtype))   # or its structured array
    lm = mod.get_global(dev, "c_lm").get()
    assert lm["id"].tolist() == [7, 8, 0] and lm["y"].tolist() == [2, 4, 0]
    out, ids = dev.zeros(40, np.float32), dev.zeros(40, np.int32)
    mod.get_function("k").launch(dev, simt.LaunchConfig.of(2, 32), [out, ids, np.int32(40)])
    want_out, want_ids = _vec_want(g, e, np.arange(40))
    assert (out.get() == want_out).all() and (ids.get() == want_ids).all()
    with pytest.raises(simt.UsageError, match="cannot copy 12 bytes"):
        mod.get_global(dev, "c_g").set(np.zeros(3, np.float32))


def test_cli_symbol_sets_vector_members(tmp_path, capsys):
    path = tmp_path / "vec.cu"
    path.write_text(VEC)
    rc, d, err = _cli_json(capsys, "run", path, "--grid", 1, "--block", 32, "--arg", "float32[32]=zeros",
                           "--arg", "int32[32]=zeros", "--arg", 32, "--json",
                           "--symbol", "c_g={x=arange,y=full(2)}", "--symbol", "c_e={y=[5,6]}")
    assert rc == 0, err
    arrays = {a["name"]: a for a in d["arrays"]}
    g = np.stack([np.arange(4), np.full(4, 2)], 1).astype(np.float32)
    want_out, want_ids = _vec_want(g, np.array([[0, 5], [0, 6]]), np.arange(32))
    assert arrays["out"]["sum"] == pytest.approx(float(want_out.sum()))
    assert arrays["ids"]["sum"] == int(want_ids.sum())
    rc = main(["run", str(path), "--grid", "1", "--block", "32", "--arg", "float32[32]=zeros",
               "--arg", "int32[32]=zeros", "--arg", "32", "--symbol", "c_g={z=ones}"])
    _, err = capsys.readouterr()
    assert rc == 2 and "bad member initializer 'z=ones'" in err and "Traceback" not in err


@pytest.mark.gpu
def test_real_matches_emulator_with_vector_and_struct_constants(tmp_path, capsys):
    """--real sets and reads the same bytes of float2 / struct __constant__ arrays."""
    gpu_or_skip()
    path = tmp_path / "vec.cu"
    path.write_text(VEC)
    base = ["run", path, "--grid", 2, "--block", 32, "--arg", "float32[40]=zeros", "--arg", "int32[40]=zeros",
            "--arg", 40, "--symbol", "c_g={x=arange,y=full(2)}", "--symbol", "c_e={y=[5,6]}", "--json"]
    rc, emu, _ = _cli_json(capsys, *base, "--no-sanitize")
    assert rc == 0
    rc, real, err = _cli_json(capsys, *base, "--real", "--repeat", 3)
    assert rc == 0, err
    pick = {a["name"]: (a["sum"], a["first"]) for a in emu["arrays"]}
    assert {a["name"]: (a["sum"], a["first"]) for a in real["arrays"]} == pick


@pytest.mark.gpu
def test_real_matches_emulator_with_module_variables(conv_cu, capsys):
    """`simt run FILE.cu --real` sets the same __constant__/__device__ variables on the GPU
    (RawModule.get_global) and reads them back: the arrays agree with the emulator's."""
    gpu_or_skip()
    base = ["run", conv_cu, "--grid", 4, "--block", 256, "--arg", "int32[1000]=randint(0,20)",
            "--arg", "int32[1000]=zeros", "--arg", 1000, "--symbol", "w=[1,3,5,3,1]",
            "--symbol", "big=5", "--json"]
    rc, emu, _ = _cli_json(capsys, *base, "--no-sanitize")
    assert rc == 0
    rc, real, err = _cli_json(capsys, *base, "--real", "--repeat", 5)
    assert rc == 0, err
    pick = {a["name"]: (a["sum"], a["first"]) for a in emu["arrays"]}
    assert {a["name"]: (a["sum"], a["first"]) for a in real["arrays"]} == pick
    assert pick["big"][0] > 5          # the counter moved, once (timed repeats restore it)


def test_file_scope_enums_typedefs_and_constexpr_are_constants():
    src = """
    enum { B = 4, C, D = B * 3 };
    typedef enum { RED, GREEN = 5, BLUE } Colour;
    typedef float real;
    typedef unsigned int u32;
    constexpr int N = 2;
    extern "C" __global__ void k(real *o, Colour c) {
        u32 t = threadIdx.x;
        Colour z = BLUE;
        o[t] = B + C + D + N + (c == GREEN ? 100 : 0) + z;
    }
    """
    (o, _), _ = run(src, "k", 1, 4, [np.zeros(4, np.float32), np.int32(5)])
    assert (o == 4 + 5 + 12 + 2 + 100 + 6).all()
    (o, _), _ = run(src, "k", 1, 4, [np.zeros(4, np.float32), np.int32(0)])
    assert (o == 4 + 5 + 12 + 2 + 6).all()


@pytest.mark.parametrize("src, msg", [
    ('struct S { int t; union { float x; int i; }; };\nextern "C" __global__ void k(S *p) {}',
     "b.cu:1:25: error: anonymous unions as members are outside simt's subset"),
    ('enum { A, A };\nextern "C" __global__ void k(int *p) {}', 'b.cu:1:11: error: "A" has already been declared'),
])
def test_file_scope_declaration_errors(src, msg):
    with pytest.raises(simt.CompileError) as e:
        simt.Module.from_source(src, "b.cu").check_all()
    assert str(e.value).startswith(msg)
