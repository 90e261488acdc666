"""User-defined structs: C layout, arrays of structs in global and shared memory, struct
locals and by-value device-function arguments, ``.`` and ``->``, and the CLI's arrays of
structs (``--arg '[N]={member=INIT, ...}'``)."""
import json

import numpy as np
import pytest

import simt
from kern import gpu_or_skip, run
from tui.cli import main

SRC = r'''
struct Particle { float x, y; float vx, vy; int alive; };
typedef struct { char c; double d; short s; } Mixed;

__device__ Particle step(Particle p, float dt) {
    p.x += p.vx * dt;
    p.y += p.vy * dt;
    return p;
}

extern "C" __global__ void aos(Particle *ps, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Particle p = ps[i];
    if (p.alive) p = step(p, dt);
    ps[i] = p;
    ps[i].alive = p.alive + 1;
}

extern "C" __global__ void reverse_shared(const Particle *in, float *out) {
    __shared__ Particle s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    const Particle *q = &s[63 - t];
    out[blockIdx.x * 64 + t] = q->x + q->vy;
}

extern "C" __global__ void mixed(Mixed *m, int *size) {
    Mixed v = {1, 2.5, 3};
    m[threadIdx.x] = v;
    m[threadIdx.x].d += threadIdx.x;
    size[0] = sizeof(Mixed);
}
'''


def particle_dtype():
    return simt.Module.from_source(SRC, "s.cu").get_function("aos").params[0].dtype


def random_particles(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = np.zeros(n, particle_dtype())
    for f in ("x", "y", "vx", "vy"):
        a[f] = rng.random(n)
    a["alive"] = rng.integers(0, 2, n)
    return a


def test_layout_is_c_layout():
    dt = particle_dtype()
    assert dt.names == ("x", "y", "vx", "vy", "alive") and dt.itemsize == 20
    mod = simt.Module.from_source(SRC, "s.cu")
    mixed = mod.get_function("mixed").params[0].dtype
    want = np.dtype([("c", np.int8), ("d", np.float64), ("s", np.int16)], align=True)
    assert [mixed.fields[f][1] for f in mixed.names] == [want.fields[f][1] for f in want.names]
    assert mixed.itemsize == want.itemsize == 24


def test_array_of_structs_update_with_by_value_device_function():
    a = random_particles(100, seed=0)
    (b, _, _), res = run(SRC, "aos", 1, 128, [a.copy(), np.float32(0.5), np.int32(100)])
    live = a["alive"] != 0
    np.testing.assert_array_equal(b["x"], np.where(live, a["x"] + a["vx"] * np.float32(0.5), a["x"]))
    np.testing.assert_array_equal(b["y"], np.where(live, a["y"] + a["vy"] * np.float32(0.5), a["y"]))
    np.testing.assert_array_equal(b["alive"], a["alive"] + 1)
    # member by member: 5 loads a warp, each 20 bytes apart (an AoS access pattern)
    assert res.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 4 * 5


def test_structs_in_shared_memory_and_arrow():
    a = np.zeros(128, particle_dtype())
    a["x"] = np.arange(128)
    a["vy"] = 1000
    (_, out), _ = run(SRC, "reverse_shared", 2, 64, [a, np.zeros(128, np.float32)])
    want = np.concatenate([np.arange(63, -1, -1), np.arange(127, 63, -1)]) + 1000
    np.testing.assert_array_equal(out, want)


def test_struct_initializer_padding_and_sizeof():
    mod = simt.Module.from_source(SRC, "s.cu")
    dt = mod.get_function("mixed").params[0].dtype
    (m, size), _ = run(SRC, "mixed", 1, 4, [np.zeros(4, dt), np.zeros(1, np.int32)])
    assert size[0] == 24
    assert m["c"].tolist() == [1] * 4 and m["s"].tolist() == [3] * 4
    assert m["d"].tolist() == [2.5, 3.5, 4.5, 5.5]


@pytest.mark.parametrize("src, msg", [
    ("struct A { int n; float v[]; };\n__global__ void k(struct A *a) {}", "flexible array members"),
    ("struct A { int b : 3; };\n__global__ void k(struct A *a) {}", "bit-fields"),
    ("union U { int i; float f; };\nunion U { int i; };\n__global__ void k(union U *u) {}",
     'union "U" is defined twice'),
    ("struct A { int x; };\n__global__ void k(A a) { a.y = 1; }", 'no member "y"'),
    ("struct A { int x; };\n__global__ void k(A *a) { a->y = 1; }", 'no member "y"'),
    ("__global__ void k(struct B *b) {}", 'incomplete type "struct B"'),
    ("struct A { int x; int x; };\n__global__ void k(A *a) {}", 'two members named "x"'),
])
def test_struct_errors_name_the_line(src, msg):
    with pytest.raises(simt.CompileError) as e:
        simt.Module.from_source(src, "b.cu").check_all()
    assert str(e.value).startswith("b.cu:") and msg in str(e.value)


def test_cli_array_of_structs_per_member_init(tmp_path, capsys):
    path = tmp_path / "aos.cu"
    path.write_text(SRC)
    rc = main(["run", str(path), "--kernel", "aos", "--grid", "4", "--block", "256", "--arg",
               "[1000]={x=uniform,vx=ones,alive=full(1)}", "--arg", "0.5", "--arg", "1000",
               "--json", "--no-sanitize"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    ps = json.loads(out)["arrays"][0]
    assert ps["dtype"] == "struct" and ps["shape"] == [1000]
    assert ps["sum"]["alive"] == 2000 and ps["sum"]["vx"] == 1000 and ps["sum"]["y"] == 0
    assert ps["min"]["x"] >= 0.5          # every x moved by vx * dt
    rc = main(["run", str(path), "--kernel", "aos", "--grid", "4", "--block", "256", "--arg",
               "[1000]=uniform", "--arg", "0.5", "--arg", "1000"])
    _, err = capsys.readouterr()
    assert rc == 2 and "member alive (int32)" in err and "{member=INIT" in err


@pytest.mark.gpu
def test_array_of_structs_matches_the_gpu(tmp_path):
    gpu_or_skip()
    from kernels_cuda import crosscheck
    path = tmp_path / "aos.cu"
    path.write_text('extern "C" {\n' + SRC + '\n}\n')
    a = random_particles(1000, seed=1)
    (emu, _, _), _ = run(SRC, "aos", 4, 256, [a.copy(), np.float32(0.5), np.int32(1000)])
    _, after, _ = crosscheck.real_launch(str(path), "aos", 4, 256,
                                         [a.copy(), np.float32(0.5), np.int32(1000)], repeat=3)
    assert after[0].tobytes() == emu.tobytes()


NESTED = r'''
struct Vec { float x, y; };
struct Body { float3 pos; float3 vel; Vec f; float m; };
__device__ Vec add(Vec a, Vec b) { Vec r = {a.x + b.x, a.y + b.y}; return r; }

extern "C" __global__ void nested(Body *b, float dt, float *e, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Body x = b[i];                                   // nested members loaded leaf by leaf
    x.pos.x += x.vel.x * dt;
    x.pos.y += x.vel.y * dt;
    x.pos.z += x.vel.z * dt;
    Vec g = {0.5f, -1.0f};
    x.f = add(x.f, g);                               // a struct member assigned whole
    float3 v = x.vel;                                // a vector member copied out
    b[i] = x;
    b[i].vel.z = v.x + x.f.y;                        // a leaf stored through memory
    Body z = {{1.0f, 2.0f, 3.0f}, make_float3(4.0f, 5.0f, 6.0f), {7.0f}, 8.0f};
    e[i] = 0.5f * x.m * (v.x * v.x + v.y * v.y + v.z * v.z) + z.pos.z + z.vel.y + z.f.x + z.f.y + z.m;
}
'''


def _nested_inputs(n=64):
    mod = simt.Module.from_source(NESTED, "nested.cu")
    dt = mod.get_function("nested").params[0].dtype
    rng = np.random.default_rng(3)
    b = np.zeros(n, dt)
    b["pos"], b["vel"] = rng.random((n, 3)), rng.random((n, 3))
    b["f"]["x"], b["f"]["y"], b["m"] = rng.random(n), rng.random(n), rng.random(n)
    return [b, np.float32(0.1), np.zeros(n, np.float32), np.int32(n)]


def _nested_expected(b):
    want = b.copy()
    want["pos"] = b["pos"] + b["vel"] * np.float32(0.1)
    want["f"]["x"] += np.float32(0.5)
    want["f"]["y"] += np.float32(-1.0)
    want["vel"][:, 2] = b["vel"][:, 0] + want["f"]["y"]
    e = 0.5 * b["m"] * (b["vel"] ** 2).sum(1) + 3 + 5 + 7 + 0 + 8
    return want, e


def test_struct_members_that_are_vectors_and_structs():
    """float3 and struct members: C's layout (36 bytes, as nvcc's), member access to any
    depth in registers and in memory, whole-member assignment, nested brace initializers
    (missing members zero)."""
    ins = _nested_inputs()
    assert ins[0].dtype.itemsize == 36
    want, e = _nested_expected(ins[0])
    (b, _, out, _), _ = run(NESTED, "nested", 2, 32, [a.copy() if isinstance(a, np.ndarray) else a for a in ins])
    for f in ("pos", "vel", "m"):
        np.testing.assert_allclose(b[f], want[f], rtol=1e-6)
    np.testing.assert_allclose(b["f"]["x"], want["f"]["x"], rtol=1e-6)
    np.testing.assert_allclose(b["f"]["y"], want["f"]["y"], rtol=1e-6)
    np.testing.assert_allclose(out, e, rtol=1e-5)


def test_cli_fills_nested_members(tmp_path, capsys):
    path = tmp_path / "nested.cu"
    path.write_text(NESTED)
    rc = main(["run", str(path), "--kernel", "nested", "--grid", "1", "--block", "32", "--arg",
               "[32]={pos=uniform,vel=ones,f=ones,m=full(2)}", "--arg", "0.1", "--arg", "[32]=zeros",
               "--arg", "32", "--json", "--no-sanitize"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    arrays = json.loads(out)["arrays"]
    assert arrays[1]["first"][:2] == [26.0, 26.0]        # 0.5 x 2 x (1 + 1 + 1) + 23
    assert arrays[0]["sum"]["f"] == {"x": 32 * 1.5, "y": 0.0}


@pytest.mark.gpu
def test_nested_struct_members_match_the_gpu(tmp_path):
    gpu_or_skip()
    from kernels_cuda import crosscheck
    path = tmp_path / "nested.cu"
    path.write_text(NESTED)
    ins = _nested_inputs()
    (emu, _, out, _), _ = run(NESTED, "nested", 2, 32, [a.copy() if isinstance(a, np.ndarray) else a for a in ins])
    _, after, _ = crosscheck.real_launch(str(path), "nested", 2, 32, ins, repeat=1)
    assert after[0].tobytes() == emu.tobytes()
    np.testing.assert_allclose(after[2], out, rtol=1e-6)


def test_a_float3_is_three_word_accesses_aligned_to_four_bytes():
    """float3 is 12 bytes aligned to 4 (nvcc: three LDG.E / STG.E): an array of them is
    read and written element by element with no misaligned access, and each whole-vector
    load or store is three word accesses (float2 and float4 stay one access)."""
    from simt.ir import Op
    src = r'''
    extern "C" __global__ void k(float3 *v, float2 *w, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) {
            float3 a = v[i];
            v[i] = make_float3(a.z, a.x, a.y);
            float2 b = w[i];
            w[i] = make_float2(b.y, b.x);
        }
    }
    '''
    k = simt.Module.from_source(src, "k.cu").get_function("k")
    sizes = [(i.op, i.ctype.size) for i in k.ir.code if i.op in (Op.LOAD, Op.STORE)]
    assert sizes == [(Op.LOAD, 4)] * 3 + [(Op.STORE, 4)] * 3 + [(Op.LOAD, 8), (Op.STORE, 8)]
    dev = simt.Device()
    a = np.arange(3 * 40, dtype=np.float32)
    b = np.arange(2 * 40, dtype=np.float32)
    v, w = dev.to_device(a), dev.to_device(b)
    k.launch(dev, simt.LaunchConfig.of(2, 32), [v, w, np.int32(40)])
    assert v.get().reshape(40, 3).tolist() == a.reshape(40, 3)[:, [2, 0, 1]].tolist()
    assert w.get().reshape(40, 2).tolist() == b.reshape(40, 2)[:, [1, 0]].tolist()
