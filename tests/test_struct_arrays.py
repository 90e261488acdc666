"""Struct members that are fixed-size arrays: ``struct Acc { float v[4]; int n; }``.

C's layout (an array member aligned as its element, ``sizeof`` as nvcc's), local structs
(in the thread's local frame, as local arrays) indexed by constants and by values, 2-D
members, nested structs and arrays of structs, whole-struct copies and brace
initializers (braces elided or not); arrays of them in global and shared memory, through
``.`` and ``->``; by-value kernel parameters (read in place, or copied when the kernel
writes or takes the address of a member); the sanitizer and the global counters on
member accesses; the same kernels on the GPU, bit for bit."""
import json

import numpy as np
import pytest

import simt
from kern import gpu_or_skip, run
from simt import byvalue
from tui.cli import main

F32, I32 = np.float32, np.int32

SRC = r'''
struct Acc { float v[4]; int n; };
struct Particle { float pos[3]; float vel[3]; };
struct Mat { float m[2][3]; };
struct Cell { int id; Acc acc[2]; short tag[3]; };      // acc at 4, tag at 44: sizeof 52
struct Pad { char c[3]; double d; short s[2]; };        // d at 8, s at 16: sizeof 24

__device__ Acc make_acc(float s) { Acc r = {{s, 2.0f * s, 3.0f * s, 4.0f * s}, 4}; return r; }
__device__ float acc_sum(Acc a) { float t = 0.0f; for (int j = 0; j < 4; ++j) t += a.v[j]; return t; }
__device__ void acc_add(Acc &a, int j, float x) { a.v[j] += x; a.n++; }

extern "C" __global__ void k1(const float *x, float *y, int n) {
    Acc acc;
    for (int j = 0; j < 4; ++j) acc.v[j] = 0.0f;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { acc.v[i & 3] += x[i]; }
    if (i < n) y[i] = acc.v[0] + acc.v[1] + acc.v[2] + acc.v[3];
}

extern "C" __global__ void locals(const float *x, float *o, int *sizes, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i];
    float *r = o + 18 * i;
    Mat t = {{{1, 2, 3}, {4, 5, 6}}};
    t.m[i & 1][i % 3] = a;                                 // a run-time 2-D index
    r[0] = t.m[0][0];
    r[1] = t.m[i & 1][i % 3];
    r[2] = t.m[1][2];
    Acc b = {1, 2, 3, 4, 5};                               // braces elided
    Acc c = b;                                             // a whole copy
    c.v[i & 3] = a;
    r[3] = c.v[0];
    r[4] = c.v[3];
    r[5] = c.n;
    acc_add(b, i & 3, a);                                  // by reference
    r[6] = b.v[i & 3];
    r[7] = b.n;
    Cell cells[2] = {{7, {{{1, 1, 1, 1}, 1}, {{2, 2, 2, 2}, 2}}, {1, 2, 3}}};   // cells[1]: zero
    r[8] = cells[1].acc[1].v[2] + cells[1].tag[2];
    cells[1] = cells[0];                                   // assigned whole
    cells[1].acc[i & 1].v[(i >> 1) & 3] += a;
    r[9] = cells[1].id;
    r[10] = cells[1].acc[i & 1].v[(i >> 1) & 3];
    r[11] = cells[1].tag[2] + cells[0].acc[1].v[3];
    Acc d = make_acc(a);
    r[12] = d.v[i & 3];
    r[13] = acc_sum(d);
    r[14] = make_acc(a).v[i & 3];                          // a value in registers, indexed
    Acc two[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};           // two elements, braces elided
    r[15] = two[1].v[i & 3] + sizeof(two) / sizeof(two[0]);
    Acc e = a > 0.5f ? b : c;                              // ?: on such structs
    r[16] = e.v[i & 3];
    float *p = c.v;                                        // the member decays to a pointer
    r[17] = p[(i + 1) & 3] + sizeof(c.v);
    if (i == 0) {
        sizes[0] = sizeof(Acc); sizes[1] = sizeof(Particle); sizes[2] = sizeof(Mat);
        sizes[3] = sizeof(Cell); sizes[4] = sizeof(Pad); sizes[5] = sizeof(t.m[1]);
    }
}

extern "C" __global__ void particles(Particle *p, float *o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int k = 0; k < 3; ++k) p[i].pos[k] += p[i].vel[k];
    Particle *me = p + i;
    me->vel[i % 3] = -me->vel[i % 3];
    o[i] = (me->pos)[1] + p[i].vel[2];
    Particle q = p[i];                                     // loaded member by member
    q.pos[0] = (float)i;
    p[i] = q;
}

extern "C" __global__ void shared_reverse(const Particle *in, Particle *out, float *o) {
    __shared__ Particle s[64];
    int t = threadIdx.x, g = blockIdx.x * 64 + t;
    s[t] = in[g];                                          // a whole struct
    __syncthreads();
    out[g] = s[63 - t];
    o[g] = s[t ^ 1].vel[t % 3] + s[(t + 5) & 63].pos[2];
}

extern "C" __global__ void shared_members(const float *x, float *o) {
    __shared__ Particle s[32];
    int t = threadIdx.x;
    for (int k = 0; k < 3; ++k) {                          // every member written
        s[t].pos[k] = x[3 * t + k];
        s[t].vel[k] = -x[3 * t + k];
    }
    __syncthreads();
    o[t] = s[31 - t].pos[t % 3] + s[(t + 1) & 31].vel[2];
}

extern "C" __global__ void by_value(float *o, Acc a, Mat m, Acc w) {
    int i = threadIdx.x;
    o[4 * i] = a.v[i & 3] + a.v[1] * a.n;                  // read in place
    o[4 * i + 1] = m.m[i & 1][i % 3];
    w.v[i & 3] += 100.0f;                                  // this kernel's own copy
    o[4 * i + 2] = w.v[i & 3] + w.v[(i + 1) & 3];
    const float *p = a.v;                                  // decays: a is copied too
    o[4 * i + 3] = p[3 - (i & 3)];
}

extern "C" __global__ void gather(const Particle *p, float *y, int k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = p[i].pos[k];
}

extern "C" __global__ void gather_flat(const float *p, float *y, int k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = p[6 * i + k];
}
'''


def fn(name, src=SRC):
    return simt.Module.from_source(src, "sa.cu").get_function(name)


def particle_dtype():
    return fn("particles").params[0].dtype


def random_particles(n, seed):
    rng = np.random.default_rng(seed)
    p = np.zeros(n, particle_dtype())
    p["pos"] = rng.random((n, 3), F32)
    p["vel"] = rng.random((n, 3), F32) - F32(0.5)
    return p


# ---- layout -------------------------------------------------------------------------

def test_layout_is_c_layout():
    """Array members are subarrays of the numpy dtype, aligned as their element, and
    ``sizeof`` is C's on the device (the GPU test checks it against nvcc's)."""
    mod = simt.Module.from_source(SRC, "sa.cu")
    structs = mod.lowerer.structs
    assert structs["Acc"].dtype == np.dtype({"names": ["v", "n"], "formats": [(F32, (4,)), I32],
                                             "offsets": [0, 16], "itemsize": 20})
    assert [o for _, _, o in structs["Cell"].members] == [0, 4, 44] and structs["Cell"].size == 52
    assert [o for _, _, o in structs["Pad"].members] == [0, 8, 16] and structs["Pad"].size == 24
    assert structs["Mat"].dtype["m"].shape == (2, 3)
    assert structs["Cell"].dtype["acc"].shape == (2,) and structs["Cell"].dtype["acc"].base.names == ("v", "n")
    assert particle_dtype() == np.dtype([("pos", F32, (3,)), ("vel", F32, (3,))])


# ---- 1. local structs ------------------------------------------------------------------

def test_the_briefs_kernel():
    x = np.random.default_rng(0).random(1000, F32)
    (_, y, _), res = run(SRC, "k1", 4, 256, [x, np.zeros(1000, F32), I32(1000)])
    np.testing.assert_array_equal(y, x)        # three zeros and x[i], in either order
    assert res.sanitizer == []


def expected_locals(x):
    n = len(x)
    i = np.arange(n)
    r = np.zeros((n, 18), F32)
    t = np.tile(np.array([[1, 2, 3], [4, 5, 6]], F32), (n, 1, 1))
    t[i, i & 1, i % 3] = x
    r[:, 0], r[:, 1], r[:, 2] = t[:, 0, 0], x, t[:, 1, 2]
    c = np.tile(np.array([1, 2, 3, 4], F32), (n, 1))
    c[i, i & 3] = x
    r[:, 3], r[:, 4], r[:, 5] = c[:, 0], c[:, 3], 5
    b = np.tile(np.array([1, 2, 3, 4], F32), (n, 1))
    b[i, i & 3] += x
    r[:, 6], r[:, 7] = b[i, i & 3], 6
    r[:, 8] = 0
    base = np.where(i & 1, F32(2), F32(1))
    r[:, 9], r[:, 10], r[:, 11] = 7, base + x, 3 + 2
    d = np.stack([x, F32(2) * x, F32(3) * x, F32(4) * x], axis=1)
    r[:, 12] = d[i, i & 3]
    r[:, 13] = ((d[:, 0] + d[:, 1]) + d[:, 2]) + d[:, 3]
    r[:, 14] = d[i, i & 3]
    r[:, 15] = (6 + (i & 3)) + 2
    r[:, 16] = np.where(x > F32(0.5), b[i, i & 3], c[i, i & 3])
    r[:, 17] = c[i, (i + 1) & 3] + 16
    return r.reshape(-1)


def test_local_structs_with_array_members():
    """Constant and run-time indices, a 2-D member, nested structs and arrays of them,
    whole copies and assignment, brace initializers (nested, elided, partial: the rest
    zero), a device function's by-value and reference parameters, a struct returned in
    registers and indexed there, ``?:``, a member decaying to a pointer, ``sizeof``."""
    n = 200
    x = np.random.default_rng(1).random(n, F32)
    (_, o, sizes, _), res = run(SRC, "locals", 2, 128, [x, np.zeros(18 * n, F32), np.zeros(6, I32), I32(n)])
    np.testing.assert_array_equal(o, expected_locals(x))
    assert sizes.tolist() == [20, 24, 24, 52, 24, 12]
    assert res.sanitizer == []


def test_local_struct_lives_in_the_local_frame():
    """A struct with an array member is a local-memory variable, as a local array is (its
    run-time index keeps it there): its constant-index stores write one line a warp each,
    the run-time index one per distinct word."""
    ir = fn("k1").ir
    assert ir.local_frame == 32                  # 20 bytes of Acc, rounded to 16
    x = np.ones(64, F32)
    (_, _, _), res = run(SRC, "k1", 1, 64, [x, np.zeros(64, F32), I32(64)])
    # 4 lines a warp for acc.v[i & 3] += x[i] (4 distinct words) and 4 for the loop's stores
    # with their uniform index
    assert res.metrics["simt__local_store_lines.sum"] == 2 * (4 + 4)


# ---- 2. global and shared memory --------------------------------------------------------

def test_particles_in_global_memory():
    p = random_particles(300, seed=2)
    (q, o, _), res = run(SRC, "particles", 3, 128, [p.copy(), np.zeros(300, F32), I32(300)])
    i = np.arange(300)
    want = p.copy()
    want["pos"] = p["pos"] + p["vel"]
    want["vel"][i, i % 3] = -p["vel"][i, i % 3]
    np.testing.assert_array_equal(o, want["pos"][:, 1] + want["vel"][:, 2])
    want["pos"][:, 0] = i
    assert q.tobytes() == want.tobytes()
    assert res.sanitizer == []


def test_particles_in_shared_memory():
    p = random_particles(128, seed=3)
    (_, out, o), res = run(SRC, "shared_reverse", 2, 64, [p, np.zeros(128, particle_dtype()), np.zeros(128, F32)])
    t = np.arange(128) % 64
    blk = np.arange(128) // 64 * 64
    assert out.tobytes() == p[blk + 63 - t].tobytes()
    np.testing.assert_array_equal(o, p["vel"][blk + (t ^ 1), t % 3] + p["pos"][blk + ((t + 5) & 63), 2])
    assert res.sanitizer == []                   # written whole before the barrier: no race


def test_shared_members_written_one_by_one_pass_initcheck():
    x = np.random.default_rng(4).random(96, F32)
    (_, o), res = run(SRC, "shared_members", 1, 32, [x, np.zeros(32, F32)])
    t = np.arange(32)
    xs = x.reshape(32, 3)
    np.testing.assert_array_equal(o, xs[31 - t, t % 3] + -xs[(t + 1) & 31, 2])
    assert res.sanitizer == []


def test_sanitizer_sees_member_accesses():
    """initcheck: a member never written is read (vel[2]); racecheck: a member read
    without the barrier; memcheck: an index into an array member that leaves the
    allocation."""
    unwritten = SRC.replace("s[t].vel[k] = -x[3 * t + k];", "if (k < 2) s[t].vel[k] = -x[3 * t + k];")
    (_, _), res = run(unwritten, "shared_members", 1, 32, [np.ones(96, F32), np.zeros(32, F32)])
    assert [(f.tool, f.kind) for f in res.sanitizer] == [("initcheck", "uninitialized read")]

    racy = SRC.replace("    __syncthreads();\n    out[g] = s[63 - t];", "    out[g] = s[63 - t];")
    p = random_particles(64, seed=5)
    (_, _, _), res = run(racy, "shared_reverse", 1, 64, [p, np.zeros(64, particle_dtype()), np.zeros(64, F32)],
                         policy="random")
    assert {f.tool for f in res.sanitizer} == {"racecheck"}

    oob = SRC.replace("y[i] = p[i].pos[k];", "y[i] = p[i].pos[k + 3 * (i == n - 1)];")
    run(oob, "gather", 1, 32, [random_particles(32, 6), np.zeros(32, F32), I32(1), I32(32)])  # vel[1]: inside
    with pytest.raises(simt.LaunchError) as e:
        run(oob, "gather", 1, 32, [random_particles(32, 6), np.zeros(32, F32), I32(4), I32(32)])
    msg = str(e.value)
    assert e.value.tool == "memcheck" and "thread (31, 0, 0)" in msg and "5 bytes after the end of" in msg
    assert msg.startswith("t.cu:")


def test_cli_fills_array_members(tmp_path, capsys):
    """``--arg '[N]={pos=uniform,...}'``: an array member takes one more dimension (two
    for a 2-D member), a struct array member its members' values."""
    path = tmp_path / "sa.cu"
    path.write_text(SRC)
    rc = main(["run", str(path), "--kernel", "particles", "--grid", "1", "--block", "64",
               "--arg", "[64]={pos=arange,vel=ones}", "--arg", "float32[64]=zeros", "--arg", "64",
               "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    arrays = json.loads(out)["arrays"]
    assert arrays[0]["first"][0] == {"pos": [0.0, 2.0, 3.0], "vel": [-1.0, 1.0, 1.0]}
    assert arrays[1]["first"][:2] == [3.0, 6.0]        # pos[1] + 1 + vel[2]
    assert json.loads(out)["sanitizer"] == []


# ---- 3. by-value kernel parameters --------------------------------------------------------

def test_by_value_parameters_with_array_members():
    """Read in place (a run-time index selects among the launch's uniforms), copied when
    the kernel writes a member or lets one decay to a pointer; from Python (tuples,
    nested lists, numpy values) and from the command line (nested braces)."""
    f = fn("by_value")
    a_t, m_t, w_t = (p.ctype for p in f.params[1:])
    a = (np.array([1.5, 2.5, 3.5, 4.5], F32), 3)
    m = ([[1, 2, 3], [4, 5, 6]],)
    w = byvalue.pack(w_t, ([10, 20, 30, 40], 0), "w")
    (o, _, _, _), res = run(SRC, "by_value", 1, 32, [np.zeros(128, F32), a, m, w])
    i = np.arange(32)
    av, mm, wv = a[0], np.array(m[0], F32), np.array([10, 20, 30, 40], F32)
    o = o.reshape(32, 4)
    np.testing.assert_array_equal(o[:, 0], av[i & 3] + av[1] * F32(3))
    np.testing.assert_array_equal(o[:, 1], mm[i & 1, i % 3])
    w2 = np.tile(wv, (32, 1))
    w2[i, i & 3] += 100
    np.testing.assert_array_equal(o[:, 2], w2[i, i & 3] + w2[i, (i + 1) & 3])
    np.testing.assert_array_equal(o[:, 3], av[3 - (i & 3)])
    assert res.sanitizer == []
    ir = f.ir
    assert "param:a.v[2]" in ir.uniform_names and "param:m.m[1][0]" in ir.uniform_names
    assert byvalue.example(a_t) == "{v={0,0,0,0},n=0}" and byvalue.example(m_t) == "{m={{0,0,0},{0,0,0}}}"


def test_cli_by_value_array_members(tmp_path, capsys):
    path = tmp_path / "sa.cu"
    path.write_text(SRC)
    base = ["run", str(path), "--kernel", "by_value", "--grid", "1", "--block", "4",
            "--arg", "float32[16]=zeros"]
    rc = main(base + ["--arg", "{{1,2,3,4},3}", "--arg", "{m={{1,2,3},{4,5,6}}}", "--arg", "{v={1,1,1,1}}",
                      "--json", "--no-sanitize"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert json.loads(out)["arrays"][0]["first"] == [7.0, 1.0, 102.0, 4.0, 8.0, 5.0, 102.0, 3.0]
    rc = main(base + ["--arg", "{{1,2,3},3}", "--arg", "{}", "--arg", "{}"])
    _, err = capsys.readouterr()
    assert rc == 2 and "member v (float[4]) has 4 elements, got 3 values" in err
    rc = main(base + ["--arg", "{v=1,n=3}", "--arg", "{}", "--arg", "{}"])
    _, err = capsys.readouterr()
    assert rc == 2 and "member v (float[4]) is an array: give its 4 elements in braces, e.g. {0,0,0,0}" in err


# ---- counters ------------------------------------------------------------------------------

def test_member_loads_count_the_sectors_of_their_addresses():
    """``p[i].pos[k]`` is one load per warp at 24 * i + 4 * k bytes: the sectors a warp
    touches are those of its lanes' addresses, as for the same address arithmetic on a
    float pointer (``p[6 * i + k]``)."""
    n, k = 200, 2
    p = random_particles(n, seed=7)
    (_, y, _, _), res = run(SRC, "gather", 2, 128, [p, np.zeros(n, F32), I32(k), I32(n)])
    np.testing.assert_array_equal(y, p["pos"][:, k])
    # by hand: the allocation is 256-byte aligned; warp w's active lanes i = 32w .. min(32w + 31, n - 1)
    sectors = sum(len({(24 * i + 4 * k) // 32 for i in range(w * 32, min(w * 32 + 32, n))})
                  for w in range((n + 31) // 32))
    assert sectors == 6 * 24 + 6            # 24 sectors a full warp (768 bytes), 6 for the 8-lane one
    m = res.metrics
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == sectors
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == (n + 31) // 32
    flat = p.view(F32).copy()
    (_, y2, _, _), res2 = run(SRC, "gather_flat", 2, 128, [flat, np.zeros(n, F32), I32(k), I32(n)])
    np.testing.assert_array_equal(y2, y)
    for key in ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"):
        assert res2.metrics[key] == m[key], key


# ---- what is left out ----------------------------------------------------------------------

@pytest.mark.parametrize("src, at, msg", [
    ("struct A { int n; float v[]; };\n", "1:25", "flexible array members are outside simt's subset"),
    ("struct A { char s[8]; };\n__global__ void k(int *o) {\n    A a = {\"abc\"};\n}\n", "3:12",
     "initializing a char array from a string literal is outside simt's subset"),
    ("struct A { float v[4]; };\n__global__ void k(float *o, A a) {\n    o[0] = a.v[4];\n}\n", "3:16",
     "array index 4 is outside the array (type float[4])"),
    ("struct A { float v[4]; };\n__global__ void k(float *o) {\n    A a, b;\n    a.v = b.v;\n}\n", "4:5",
     "arrays are not assignable"),
    ("struct A { float v[4]; };\n__global__ void k(float *o) {\n    A a = {1, 2, 3, 4, 5};\n}\n", "3:24",
     "too many initializer values"),
    ("struct A { float v[4]; };\n__device__ A f() { A r = {}; return r; }\n"
     "__global__ void k(float *o) {\n    float *p = f().v;\n}\n", "4:16", 'invalid type conversion from "float[4]"'),
    ("struct A { float *p; };\n__constant__ A c[2];\n", "2:16",
     "a struct with pointer members is outside simt's subset here"),
])
def test_unsupported_forms_name_the_place(src, at, msg):
    with pytest.raises(simt.CompileError) as e:
        simt.Module.from_source(src, "b.cu").check_all()
    assert str(e.value).startswith(f"b.cu:{at}:") and msg in str(e.value), str(e.value)


def test_unsupported_forms_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "b.cu"
    path.write_text("struct A { int n; float v[]; };\n__global__ void k(A *a) {}\n")
    rc = main(["run", str(path), "--grid", "1", "--block", "1", "--arg", "[1]=zeros"])
    _, err = capsys.readouterr()
    assert rc == 2 and err.startswith(f"simt: {path}:1:") and "flexible array members" in err
    assert "Traceback" not in err


# ---- emulator versus GPU -------------------------------------------------------------------

@pytest.mark.gpu
def test_struct_array_members_match_the_gpu(tmp_path):
    """Every kernel above on both backends with the same inputs: the same bytes (nvcc's
    layout and sizeof included)."""
    gpu_or_skip()
    from kernels_cuda import crosscheck
    path = tmp_path / "sa.cu"
    path.write_text(SRC)

    def both(kernel, grid, block, args):
        (emu, _) = run(SRC, kernel, grid, block, [a.copy() if isinstance(a, np.ndarray) else a for a in args])
        _, after, _ = crosscheck.real_launch(str(path), kernel, grid, block, args, repeat=1)
        for k, (a, e) in enumerate(zip(after, emu)):
            if a is not None:
                assert a.tobytes() == np.asarray(e).tobytes(), f"{kernel}: argument {k + 1}"

    rng = np.random.default_rng(8)
    x = rng.random(1000, F32)
    both("k1", 4, 256, [x, np.zeros(1000, F32), I32(1000)])
    both("locals", 2, 128, [x[:200].copy(), np.zeros(18 * 200, F32), np.zeros(6, I32), I32(200)])
    both("particles", 3, 128, [random_particles(300, 9), np.zeros(300, F32), I32(300)])
    both("shared_reverse", 2, 64, [random_particles(128, 10), np.zeros(128, particle_dtype()),
                                   np.zeros(128, F32)])
    both("shared_members", 1, 32, [x[:96].copy(), np.zeros(32, F32)])
    f = fn("by_value")
    vals = [byvalue.pack(p.ctype, v, p.name) for p, v in zip(
        f.params[1:], [(rng.random(4, F32), 3), (rng.random((2, 3), F32),), ([10, 20, 30, 40], 0)])]
    both("by_value", 1, 32, [np.zeros(128, F32)] + vals)
    both("gather", 2, 128, [random_particles(200, 11), np.zeros(200, F32), I32(2), I32(200)])
