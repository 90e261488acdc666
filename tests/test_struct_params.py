"""Structs (and vectors) passed to a kernel by value: ``k(float *a, Params p)``.

Each leaf member is a launch uniform; the host value is a numpy structured scalar in C's
layout (``simt.byvalue``), built from a tuple, dict or numpy value in Python and from
``--arg '{0.5,1024}'`` / ``--arg '{alpha=0.5,n=1024}'`` on the command line."""
import json

import numpy as np
import pytest

import simt
from kern import gpu_or_skip, run
from simt import byvalue
from simt.errors import UsageError
from simt.ir import Uniform
from tui.cli import main

SRC = r'''
struct Params { float alpha; int n; };
struct Pad { char c; double d; int j; };           // 7 bytes after c, 4 at the end: sizeof 24
struct Inner { int a; short b; };                  // sizeof 8
struct Body { Inner in; float4 v; double w; };     // v 16-aligned at 16, w at 32: sizeof 48
struct Job { Body body; float *out; int n; };      // out at 48, n at 56: sizeof 64

extern "C" __global__ void saxpy(float *a, Params p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) a[i] = p.alpha * a[i] + p.n;
}

extern "C" __global__ void pad(double *o, Pad p, int *size) {
    int i = threadIdx.x;
    o[i] = p.c * i + p.d + p.j;
    size[0] = sizeof(Pad);
}

extern "C" __global__ void nested(float *out, Body b, int *size) {
    int i = threadIdx.x;
    out[i] = b.in.a + b.in.b + b.v.x + b.v.y + b.v.z * b.v.w + (float)(b.w * i);
    size[0] = sizeof(Body);
}

extern "C" __global__ void job(Job j) {
    int i = threadIdx.x;
    if (i < j.n) j.out[i] = j.body.v.w * i + j.body.in.b;
}

__device__ float twice(Params q, float x) {        // modifies its own copy only
    q.alpha *= 2.0f;
    q.n -= 1;
    return q.alpha * x + q.n;
}

__device__ void bump(Inner &in) { in.b += 100; }

extern "C" __global__ void modify(float *a, int *b, Params p, Body body) {
    int i = threadIdx.x;
    a[i] = twice(p, a[i]) + p.alpha;               // p as it came in
    p.n = i;                                       // the kernel's own copy changes
    p.alpha = -p.alpha;
    Params q = p;
    q.n += 1;
    bump(body.in);                                 // a member passed by reference
    b[i] = q.n * 10 + p.n + body.in.b + (int)q.alpha;
}

extern "C" __global__ void vec(float *out, float4 v) {
    out[threadIdx.x] = v.x + v.y * threadIdx.x + v.z * v.w;
}
'''


def fn(name):
    return simt.Module.from_source(SRC, "t.cu").get_function(name)


def params_value(alpha, n):
    rec = np.zeros((), fn("saxpy").params[1].dtype)
    rec["alpha"], rec["n"] = alpha, n
    return rec[()]


# ---- layout -----------------------------------------------------------------------

def test_layout_offsets_padding_and_sizeof_are_c():
    """The numpy dtype of each struct has C's offsets and size (nvcc's, checked by the
    kernels' sizeof on both backends), and packing writes each member at its offset."""
    pad = fn("pad").params[1].dtype
    assert [pad.fields[f][1] for f in ("c", "d", "j")] == [0, 8, 16] and pad.itemsize == 24
    body = fn("nested").params[1].dtype
    assert [body.fields[f][1] for f in ("in", "v", "w")] == [0, 16, 32] and body.itemsize == 48
    job = fn("job").params[0].dtype
    assert [job.fields[f][1] for f in ("body", "out", "n")] == [0, 48, 56] and job.itemsize == 64
    rec = byvalue.pack(fn("pad").params[1].ctype, (-3, 2.5, 7), "p")
    raw = rec.tobytes()
    assert raw[0:1] == np.int8(-3).tobytes() and raw[8:16] == np.float64(2.5).tobytes()
    assert raw[16:20] == np.int32(7).tobytes() and raw[1:8] == bytes(7) and len(raw) == 24
    assert byvalue.record_dtype(fn("vec").params[1].ctype).itemsize == 16


# ---- (a) float + int --------------------------------------------------------------

@pytest.mark.parametrize("value", [(0.5, 100), {"alpha": 0.5, "n": 100}, [0.5, 100],
                                   params_value(0.5, 100)], ids=["tuple", "dict", "list", "numpy"])
def test_float_and_int_members(value):
    a = np.arange(256, dtype=np.float32)
    (out, _), _ = run(SRC, "saxpy", 1, 256, [a.copy(), value])
    want = a.copy()
    want[:100] = np.float32(0.5) * a[:100] + np.float32(100)
    np.testing.assert_array_equal(out, want)


def test_members_are_uniforms_read_in_place():
    """An unmodified struct parameter costs no copy: its members are the launch's
    uniforms (``param:p.alpha``), read where they are used, as nvcc reads the parameter
    bank."""
    ir = fn("saxpy").ir
    assert {"param:p.alpha", "param:p.n"} <= set(ir.uniform_names)
    assert not any(i.op.name == "MOV" and any(isinstance(a, Uniform) for a in i.args) for i in ir.code)


# ---- (b) padding ------------------------------------------------------------------

def test_padded_struct():
    (o, _, size), _ = run(SRC, "pad", 1, 32, [np.zeros(32), (-3, 0.125, 1000), np.zeros(1, np.int32)])
    np.testing.assert_array_equal(o, -3.0 * np.arange(32) + 0.125 + 1000)
    assert size[0] == 24


# ---- (c) nested struct, float4 member, pointer member -----------------------------

def test_nested_struct_and_float4_member():
    body = {"in": (5, -2), "v": (1.0, 2.0, 3.0, 4.0), "w": 0.25}
    (out, _, size), _ = run(SRC, "nested", 1, 32, [np.zeros(32, np.float32), body, np.zeros(1, np.int32)])
    i = np.arange(32)
    np.testing.assert_array_equal(out, (5 - 2 + 1 + 2 + 3 * 4 + 0.25 * i).astype(np.float32))
    assert size[0] == 48


def test_nested_struct_from_a_numpy_value():
    rec = np.zeros((), fn("nested").params[1].dtype)
    rec["in"]["a"], rec["in"]["b"], rec["v"], rec["w"] = 5, -2, [1, 2, 3, 4], 0.25
    (out, _, _), _ = run(SRC, "nested", 1, 32, [np.zeros(32, np.float32), rec[()], np.zeros(1, np.int32)])
    np.testing.assert_array_equal(out, (18 + 0.25 * np.arange(32)).astype(np.float32))


def test_pointer_member_takes_a_device_array():
    dev = simt.Device()
    out = dev.zeros(32, np.float32)
    job = ({"in": (0, 7), "v": (0, 0, 0, 1.5)}, out, 20)
    fn("job").launch(dev, simt.LaunchConfig.of(1, 32), [job])
    want = np.zeros(32, np.float32)
    want[:20] = 1.5 * np.arange(20) + 7
    np.testing.assert_array_equal(out.get(), want)


def test_vector_parameter():
    (out, _), _ = run(SRC, "vec", 1, 8, [np.zeros(8, np.float32), (1.0, 2.0, 3.0, 0.5)])
    np.testing.assert_array_equal(out, (1 + 2 * np.arange(8) + 1.5).astype(np.float32))
    dev = simt.Device()                            # (kern.run would put an array on the device)
    out2 = dev.zeros(8, np.float32)
    fn("vec").launch(dev, simt.LaunchConfig.of(1, 8), [out2, np.array([1, 2, 3, 0.5], np.float32)])
    np.testing.assert_array_equal(out2.get(), out)


# ---- (d) passed on to a device function, modified locally -------------------------

def test_passed_to_device_function_and_modified_locally():
    a = np.arange(32, dtype=np.float32)
    body = {"in": (0, 3)}
    (outa, outb, _, _), _ = run(SRC, "modify", 1, 32, [a.copy(), np.zeros(32, np.int32), (1.5, 10), body])
    np.testing.assert_array_equal(outa, np.float32(3.0) * a + 9 + np.float32(1.5))
    i = np.arange(32)
    np.testing.assert_array_equal(outb, (i + 1) * 10 + i + 103 - 1)


# ---- Python API errors --------------------------------------------------------------

@pytest.mark.parametrize("value, msg", [
    ((0.5,), "struct Params has 2 members (alpha, n), got 1 value"),
    ((0.5, 1, 2), "got 3 values"),
    ({"alpha": 0.5, "beta": 1}, "struct Params has no member 'beta'"),
    ((0.5, 2.5), "member n (int) needs an integer, got 2.5"),
    ((0.5, 2**31), "member n (int) must be in [-2147483648, 2147483647]"),
    (("x", 1), "member alpha that is a number for float32, not 'x'"),
    ((None, object()), "member n (int) needs a number, got object"),
    (0.5, "a struct Params is passed by value: give a tuple of its members"),
])
def test_api_errors_name_the_argument(value, msg):
    dev = simt.Device()
    with pytest.raises(UsageError) as e:
        fn("saxpy").launch(dev, simt.LaunchConfig.of(1, 32), [dev.zeros(32, np.float32), value])
    assert "argument p (struct Params)" in str(e.value) and msg in str(e.value)


def test_api_struct_for_a_pointer_parameter():
    dev = simt.Device()
    with pytest.raises(UsageError, match=r"argument a \(float \*\) needs a device array, got tuple"):
        fn("saxpy").launch(dev, simt.LaunchConfig.of(1, 32), [(1, 2), (0.5, 1)])


def test_api_pointer_member_needs_an_array():
    dev = simt.Device()
    with pytest.raises(UsageError, match=r"member out \(float \*\) needs a device array, got ndarray"):
        fn("job").launch(dev, simt.LaunchConfig.of(1, 32), [({}, np.zeros(4, np.float32), 4)])


def test_member_errors_in_the_source_name_the_line():
    with pytest.raises(simt.CompileError) as e:
        simt.Module.from_source('struct P { float a; };\nextern "C" __global__ void k(float *o, P p) {\n'
                                "    o[0] = p.b;\n}\n", "bad.cu").get_function("k")
    assert str(e.value).startswith("bad.cu:3:") and 'has no member "b"' in str(e.value)


# ---- command line -------------------------------------------------------------------

@pytest.fixture
def cu(tmp_path):
    p = tmp_path / "t.cu"
    p.write_text(SRC)
    return p


def cli(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("spec", ["{0.5,100}", "{alpha=0.5,n=100}", "Params={0.5, 100}",
                                  "struct Params={n=100,alpha=0.5}"])
def test_cli_struct_spec(cu, capsys, spec):
    rc, out, err = cli(capsys, "run", cu, "--kernel", "saxpy", "--grid", 1, "--block", 256,
                       "--arg", "float32[256]=arange", "--arg", spec, "--json", "--no-sanitize")
    assert rc == 0, err
    a = json.loads(out)["arrays"][0]
    assert a["first"] == [100.0, 100.5, 101.0, 101.5, 102.0, 102.5, 103.0, 103.5]
    assert a["sum"] == sum(0.5 * i + 100 for i in range(100)) + sum(range(100, 256))


def test_cli_named_members_left_out_are_zero(cu, capsys):
    rc, out, err = cli(capsys, "run", cu, "--kernel", "saxpy", "--grid", 1, "--block", 32,
                       "--arg", "float32[32]=ones", "--arg", "{n=4}", "--json", "--no-sanitize")
    assert rc == 0, err
    assert json.loads(out)["arrays"][0]["first"] == [4.0] * 4 + [1.0] * 4


def test_cli_nested_braces_and_vectors(cu, capsys):
    for spec in ("{{5,-2},{1,2,3,4},0.25}", "{in={a=5,b=-2},v={1,2,3,4},w=0.25}"):
        rc, out, err = cli(capsys, "run", cu, "--kernel", "nested", "--grid", 1, "--block", 32,
                           "--arg", "float32[32]=zeros", "--arg", spec, "--arg", "int32[1]=zeros",
                           "--json", "--no-sanitize")
        assert rc == 0, err
        arrays = json.loads(out)["arrays"]
        assert arrays[0]["first"] == [18.0 + 0.25 * i for i in range(8)]
        assert arrays[1]["first"] == [48]
    rc, out, err = cli(capsys, "run", cu, "--kernel", "vec", "--grid", 1, "--block", 8,
                       "--arg", "float32[8]=zeros", "--arg", "float4={1,2,3,0.5}", "--json", "--no-sanitize")
    assert rc == 0, err
    assert json.loads(out)["arrays"][0]["first"] == [2.5 + 2 * i for i in range(8)]


def test_cli_struct_from_npy(cu, capsys, tmp_path):
    rec = np.zeros((), fn("pad").params[1].dtype)
    rec["c"], rec["d"], rec["j"] = 2, 0.5, 1
    np.save(tmp_path / "pad.npy", rec)
    rc, out, err = cli(capsys, "run", cu, "--kernel", "pad", "--grid", 1, "--block", 4,
                       "--arg", "float64[4]=zeros", "--arg", f"@{tmp_path / 'pad.npy'}",
                       "--arg", "int32[1]=zeros", "--json", "--no-sanitize")
    assert rc == 0, err
    assert json.loads(out)["arrays"][0]["first"] == [1.5, 3.5, 5.5, 7.5]


@pytest.mark.parametrize("kernel, specs, msg", [
    ("saxpy", ["float32[8]=ones", "{0.5}"],
     "argument 2 (struct Params p) of saxpy: struct Params has 2 members (alpha, n), got 1 value"),
    ("saxpy", ["float32[8]=ones", "{0.5,1,2}"], "struct Params has 2 members (alpha, n), got 3 values"),
    ("saxpy", ["float32[8]=ones", "{0.5,x}"],
     "argument 2 (struct Params p) of saxpy: bad argument spec '{0.5,x}': expected member n that is an "
     "integer for int32, not 'x'"),
    ("saxpy", ["float32[8]=ones", "{alpha=1,beta=2}"], "struct Params has no member 'beta'"),
    ("saxpy", ["float32[8]=ones", "{0.5,n=1}"], "not mixed"),
    ("saxpy", ["float32[8]=ones", "Other={0.5,1}"],
     "argument 2 (struct Params p) of saxpy is a struct Params, not Other"),
    ("saxpy", ["float32[8]=ones", "8"],
     "argument 2 (struct Params p) of saxpy is a struct Params passed by value: give its members in "
     "braces, e.g. {alpha=0,n=0}, not '8'"),
    ("saxpy", ["{1,2}", "{0.5,1}"],
     "argument 1 (float *a) of saxpy is not a struct passed by value; it is a pointer"),
    ("pad", ["float64[8]=zeros", "{1,2,3}", "{1}"],
     "argument 3 (int *size) of pad is not a struct passed by value"),
    ("vec", ["float32[8]=zeros", "{1,2,3}"], "float4 has 4 members (x, y, z, w), got 3 values"),
    ("job", ["{{},1,2}"], "member out (float *) is a pointer: give an array such as float32[1024]=zeros, "
                          "not '1'"),
    ("job", ["{out=int32[8]=zeros, n=8}"], "member out (float *) points to float32, but "
                                           "'int32[8]=zeros' gives int32 values"),
    ("job", ["{out=float32[8]=bogus, n=8}"], "argument 1 (struct Job j) of job, member out (float *): "
                                             "bad argument spec 'float32[8]=bogus'"),
])
def test_cli_errors(cu, capsys, kernel, specs, msg):
    argv = ["run", cu, "--kernel", kernel, "--grid", 1, "--block", 8]
    for s in specs:
        argv += ["--arg", s]
    rc, _, err = cli(capsys, *argv)
    assert rc == 2
    assert err.startswith("simt: error: ") and msg in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_cli_pointer_members_take_array_specs(cu, capsys, tmp_path):
    """``{..., out=float32[8]=zeros}``: the array is made, copied to the device and pointed
    at; the report lists it as ``j.out`` and --out saves it."""
    spec = "{body={in={a=1,b=2},v={0,0,0,3}}, out=float32[8]=full(-1), n=6}"
    rc, out, err = cli(capsys, "run", cu, "--kernel", "job", "--grid", 1, "--block", 8,
                       "--arg", spec, "--json", "--out", f"j.out={tmp_path / 'o.npy'}")
    assert rc == 0, err
    arrays = json.loads(out)["arrays"]
    assert [a["name"] for a in arrays] == ["j.out"]
    assert arrays[0]["first"] == [3.0 * i + 2 for i in range(6)] + [-1.0, -1.0]
    assert arrays[0]["changed"] and arrays[0]["spec"] == "float32[8]=full(-1)"
    assert np.load(tmp_path / "o.npy").tolist() == arrays[0]["first"]
    # a spec whose initializer has commas inside the braces
    rc, out, err = cli(capsys, "run", cu, "--kernel", "job", "--grid", 1, "--block", 8,
                       "--arg", "{{}, float32[8]=uniform(2,3), 0}", "--json")
    assert rc == 0, err
    a = json.loads(out)["arrays"][0]
    assert not a["changed"] and 2 <= a["min"] and a["max"] < 3


def test_tui_session_takes_pointer_members_too(cu):
    """The TUI's session builds the launch as ``run`` does: the member's array on the device."""
    from tui.session import Options, open_session
    s = open_session(str(cu), Options(kernel="job", grid="1", block="8",
                                      args=("{body={in={a=0,b=1},v={0,0,0,2}}, out=float32[8]=zeros, n=8}",)))
    assert s.error is None
    s.stepper.run_until(lambda e: False, max_steps=100_000)
    assert s.stepper.done and s.stepper.error is None
    assert s.spec.args[0]["out"].get().tolist() == [2.0 * i + 1 for i in range(8)]


def test_cli_scalar_parameter_given_a_struct(tmp_path, capsys):
    p = tmp_path / "s.cu"
    p.write_text('extern "C" __global__ void k(int *o, int v) { o[threadIdx.x] = v; }\n')
    rc, _, err = cli(capsys, "run", p, "--grid", 1, "--block", 4, "--arg", "int32[4]=zeros",
                     "--arg", "{1,2}")
    assert rc == 2 and "simt: error: argument 2 (int v) of k is not a struct passed by value; it is a " \
                       "scalar: give a value such as int32=1, not '{1,2}'" in err


def test_cli_source_error_names_file_line_col(tmp_path, capsys):
    p = tmp_path / "bad.cu"
    p.write_text('struct P { float a; };\nextern "C" __global__ void k(float *o, P p) {\n'
                 "    o[0] = p.b;\n}\n")
    rc, _, err = cli(capsys, "run", p, "--grid", 1, "--block", 1, "--arg", "float32[1]=zeros",
                     "--arg", "{1}")
    assert rc == 2 and err.startswith(f"simt: {p}:3:") and 'has no member "b"' in err


# ---- emulator versus GPU ------------------------------------------------------------

@pytest.mark.gpu
def test_struct_parameters_match_the_gpu(tmp_path):
    """The same struct values on both backends give the same bytes: ``--real``'s path
    (numpy structured scalars, crosscheck.real_launch) and a tuple with a CuPy array in a
    pointer member (CupyBackend packs it as the emulator does)."""
    gpu_or_skip()
    import cupy

    from kernels_cuda import crosscheck
    from kernels_cuda.cupy_backend import CupyBackend

    path = tmp_path / "t.cu"
    path.write_text(SRC)
    rng = np.random.default_rng(7)
    a = rng.random(1000).astype(np.float32)
    p = byvalue.pack(fn("saxpy").params[1].ctype, (np.float32(rng.random()), 900), "p")
    (emu, _), _ = run(SRC, "saxpy", 4, 256, [a.copy(), p])
    _, after, _ = crosscheck.real_launch(str(path), "saxpy", 4, 256, [a.copy(), p], repeat=1)
    assert after[0].tobytes() == emu.tobytes()

    pad = byvalue.pack(fn("pad").params[1].ctype, (-3, float(rng.random()), 5), "p")
    (emu, _, size), _ = run(SRC, "pad", 1, 32, [np.zeros(32), pad, np.zeros(1, np.int32)])
    _, after, _ = crosscheck.real_launch(str(path), "pad", 1, 32, [np.zeros(32), pad, np.zeros(1, np.int32)],
                                         repeat=1)
    assert after[0].tobytes() == emu.tobytes() and after[2][0] == size[0] == 24

    body = byvalue.pack(fn("nested").params[1].ctype,
                        ((9, -4), rng.random(4).astype(np.float32), float(rng.random())), "b")
    ins = [np.zeros(64, np.float32), body, np.zeros(1, np.int32)]
    (emu, _, size), _ = run(SRC, "nested", 1, 64, [x.copy() if isinstance(x, np.ndarray) else x for x in ins])
    _, after, _ = crosscheck.real_launch(str(path), "nested", 1, 64, ins, repeat=1)
    assert after[0].tobytes() == emu.tobytes() and after[2][0] == size[0] == 48

    dev = simt.Device()
    out = dev.zeros(64, np.float32)
    fn("job").launch(dev, simt.LaunchConfig.of(1, 64), [({"in": (0, 7), "v": (0, 0, 0, 1.25)}, out, 50)])
    be = CupyBackend()
    gout = cupy.zeros(64, np.float32)
    be.launch(str(path), "job", 1, 64, [({"in": (0, 7), "v": (0, 0, 0, 1.25)}, gout, 50)])
    assert cupy.asnumpy(gout).tobytes() == out.get().tobytes()

    # --real's path for a pointer member given an array on the command line
    o = dev.to_device(np.full(64, -1, np.float32))
    fn("job").launch(dev, simt.LaunchConfig.of(1, 64), [({"in": (3, 7), "v": (0, 0, 0, 0.75)}, o, 40)])
    job = ({"in": (3, 7), "v": (0, 0, 0, 0.75)}, np.full(64, -1, np.float32), 40)
    _, after, _ = crosscheck.real_launch(str(path), "job", 1, 64, [job], repeat=1,
                                         params=fn("job").params)
    assert after[0][0].tobytes() == o.get().tobytes()
