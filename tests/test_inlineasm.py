"""Inline PTX asm (simt.inlineasm): each form against what the instruction computes, errors
naming file:line:col, lines kept; and __managed__ variables read as __device__ ones."""
import numpy as np
import pytest

import simt
from kern import compile_error, gpu_or_skip, run, same_bytes_on_gpu

U32, U64 = np.uint32, np.uint64

ASM_SRC = r'''
extern "C" __global__ void regs(unsigned *o, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane, lt, eq, tx, cx, ntx, wid;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
    asm("mov.u32 %0, %%tid.x;" : "=r"(tx));
    asm("mov.u32 %0, %%ctaid.x;" : "=r"(cx));
    asm("mov.u32 %0, %%ntid.x;" : "=r"(ntx));
    asm("mov.u32 %0, %%warpid;" : "=r"(wid));
    if (t < n) {
        o[7 * t] = lane; o[7 * t + 1] = lt; o[7 * t + 2] = eq; o[7 * t + 3] = tx;
        o[7 * t + 4] = cx; o[7 * t + 5] = ntx; o[7 * t + 6] = wid;
    }
}

extern "C" __global__ void alu(const unsigned *x, const float *f, unsigned *o,
                               unsigned long long *w, float *g, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned a, b, hi, rev, pc, lz, perm, shl, shr;
    unsigned long long wide;
    float v;
    asm("ld.global.nc.u32 %0, [%1];" : "=r"(a) : "l"(x + t));
    asm("ld.global.u32 %0, [%1];" : "=r"(b) : "l"(x + (t + 1) % n));
    asm("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(f + t));
    asm("mul.hi.u32 %0, %1, %2;" : "=r"(hi) : "r"(a), "r"(b));
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(wide) : "r"(a), "r"(b));
    asm("brev.b32 %0, %1;" : "=r"(rev) : "r"(a));
    asm("popc.b32 %0, %1;" : "=r"(pc) : "r"(a));
    asm("clz.b32 %0, %1;" : "=r"(lz) : "r"(a));
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(perm) : "r"(a), "r"(b), "r"(0x5140u));
    asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(shl) : "r"(a), "r"(b), "r"(b & 63u));
    asm("shf.r.clamp.b32 %0, %1, %2, %3;"
        : "=r"(shr)
        : "r"(a), "r"(b), "r"(b & 63u));
    asm volatile("membar.gl;" ::: "memory");
    asm volatile("" ::: "memory");
    asm("prefetch.global.L2 [%0];" :: "l"(x + t));
    unsigned r[8] = {hi, rev, pc, lz, perm, shl, shr, a ^ b};
    for (int k = 0; k < 8; ++k) o[8 * t + k] = r[k];
    w[t] = wide;
    asm("st.global.cs.f32 [%0], %1;" :: "l"(g + t), "f"(v * 2.0f));
}
'''


def _funnel(lo, hi, s, left, clamp):
    s = min(s, 32) if clamp else s & 31
    v = (int(hi) << 32) | int(lo)
    return ((v << s) >> 32) & 0xFFFFFFFF if left else (v >> s) & 0xFFFFFFFF


def _prmt(a, b, s):
    by = list(int(a).to_bytes(4, "little") + int(b).to_bytes(4, "little"))
    return sum(by[(s >> (4 * k)) & 7] << (8 * k) for k in range(4))


def test_special_registers_are_the_threads_own():
    n = 80
    (o, _), _ = run(ASM_SRC, "regs", 2, 48, [np.zeros(7 * n, U32), n])
    o = o.reshape(n, 7)
    t = np.arange(n)
    tx, cx = t % 48, t // 48
    lane = tx % 32
    assert o[:, 0].tolist() == lane.tolist()
    assert o[:, 1].tolist() == ((1 << lane) - 1).tolist()
    assert o[:, 2].tolist() == (1 << lane).tolist()
    assert o[:, 3].tolist() == tx.tolist()
    assert o[:, 4].tolist() == cx.tolist()
    assert o[:, 5].tolist() == [48] * n
    assert o[:, 6].tolist() == (tx // 32).tolist()


def test_loads_alu_and_stores_compute_what_the_instructions_do():
    n = 96
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(U32)
    x[:4] = [0, 1, 0xFFFFFFFF, 0x80000000]
    f = rng.normal(size=n).astype(np.float32)
    (_, _, o, w, g, _), res = run(ASM_SRC, "alu", 3, 32,
                                  [x, f, np.zeros(8 * n, U32), np.zeros(n, U64), np.zeros(n, np.float32), n])
    o = o.reshape(n, 8)
    for t in range(n):
        a, b = int(x[t]), int(x[(t + 1) % n])
        assert o[t, 0] == (a * b) >> 32
        assert o[t, 1] == int(f"{a:032b}"[::-1], 2)
        assert o[t, 2] == bin(a).count("1")
        assert o[t, 3] == 32 - a.bit_length()
        assert o[t, 4] == _prmt(a, b, 0x5140)
        assert o[t, 5] == _funnel(a, b, b & 63, True, False)
        assert o[t, 6] == _funnel(a, b, b & 63, False, True)
        assert o[t, 7] == a ^ b
        assert w[t] == a * b
    assert np.array_equal(g, f * np.float32(2))
    # the loads are loads and the store a store: the counters see them
    m = res.metrics
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 3 * 3     # 3 warps, 3 loads
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] == 3 * (8 + 1 + 1)


def test_mov_between_float_and_integer_registers_copies_the_bits():
    src = r'''extern "C" __global__ void k(const float *x, unsigned *u, float *f, unsigned long long *l) {
        int t = threadIdx.x;
        unsigned b; float back; unsigned long long db; unsigned n;
        asm("mov.b32 %0, %1;" : "=r"(b) : "f"(x[t]));
        asm("mov.b32 %0, %1;" : "=f"(back) : "r"(b ^ 0x80000000u));
        asm("mov.b64 %0, %1;" : "=l"(db) : "d"((double)x[t]));
        asm("mov.u32 %0, %1;" : "=r"(n) : "r"(b >> 23));
        u[2 * t] = b; u[2 * t + 1] = n; f[t] = back; l[t] = db;
    }'''
    x = np.array([1.5, -2.0, 0.0, 3.1415927], np.float32)
    (_, u, f, l), _ = run(src, "k", 1, 4, [x, np.zeros(8, U32), np.zeros(4, np.float32), np.zeros(4, U64)])
    bits = x.view(U32)
    assert u[0::2].tolist() == bits.tolist()
    assert u[1::2].tolist() == (bits >> 23).tolist()
    assert f.tolist() == (-x).tolist()
    assert l.tolist() == x.astype(np.float64).view(U64).tolist()


def test_an_asm_statement_over_lines_keeps_later_errors_on_their_lines():
    src = ('extern "C" __global__ void k(unsigned *o) {\n'
           '    unsigned l;\n'
           '    asm volatile(\n'
           '        "mov.u32 %0, %%laneid;"\n'
           '        : "=r"(l));\n'
           '    o[threadIdx.x] = l + undefined_name;\n'
           '}\n')
    msg = compile_error(src)
    assert msg.startswith("bad.cu:6:")
    assert "undefined_name" in msg


@pytest.mark.parametrize("stmt, what", [
    ('asm("add.cc.u32 %0, %1, %2;" : "=r"(a) : "r"(a), "r"(b));', "add.cc"),
    ('asm("mov.u32 %0, %%smid;" : "=r"(a));', "%%smid"),
    ('asm("{ .reg .u32 t; mov.u32 t, %1; mov.u32 %0, t; }" : "=r"(a) : "r"(b));', "more than one"),
    ('asm("mov.u32 %0, %1; mov.u32 %0, %1;" : "=r"(a) : "r"(b));', "more than one instruction"),
    ('asm("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(f), "=f"(f), "=f"(f), "=f"(f) : "l"(o));',
     "ld.global.nc.v4"),
])
def test_forms_outside_the_subset_are_errors_naming_the_statement(stmt, what):
    src = ('extern "C" __global__ void k(unsigned *o) {\n'
           '    unsigned a = 1, b = 2; float f;\n'
           f'    {stmt}\n'
           '    o[0] = a;\n'
           '}\n')
    msg = compile_error(src)
    assert msg.startswith("bad.cu:3:5: error: inline PTX asm is outside simt's subset")
    assert what in msg


def test_the_cli_reports_an_unsupported_asm_with_file_line_col(tmp_path, capsys):
    from tui.cli import main
    p = tmp_path / "k.cu"
    p.write_text('__global__ void k(int *o) {\n  asm("trap;");\n}\n')
    rc = main(["run", str(p), "--grid", "1", "--block", "32", "--arg", "int32[32]=zeros"])
    err = capsys.readouterr().err
    assert rc == 2
    assert f"{p}:2:3: error: inline PTX asm is outside simt's subset (trap)" in err
    assert "Traceback" not in err


MANAGED_SRC = r'''
__device__ __managed__ int hits;
__managed__ unsigned long long total = 0;
__managed__ float scale[2] = {0.5f, 2.0f};
extern "C" __global__ void k(const int *x, float *y, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    if (x[t] % 3 == 0) atomicAdd(&hits, 1);
    atomicAdd(&total, (unsigned long long)x[t]);
    y[t] = x[t] * scale[t & 1];
}
'''


def test_managed_variables_are_device_variables_the_launch_reads_and_writes():
    x = np.arange(1, 201, dtype=np.int32)
    mod = simt.Module.from_source(MANAGED_SRC, "m.cu")
    dev = simt.Device()
    mod.get_global(dev, "hits").set(np.array([5], np.int32))
    dx, dy = dev.to_device(x), dev.to_device(np.zeros(200, np.float32))
    mod.get_function("k").launch(dev, simt.LaunchConfig.of(4, 64), [dx, dy, 200])
    assert mod.get_global(dev, "hits").get().item() == 5 + int((x % 3 == 0).sum())
    assert mod.get_global(dev, "total").get().item() == int(x.sum())
    assert np.array_equal(dy.get(), x * np.where(np.arange(200) & 1, 2.0, 0.5).astype(np.float32))


@pytest.mark.gpu
def test_inline_asm_matches_the_gpu_bit_for_bit(tmp_path):
    """But %%warpid: on the GPU the warp's slot on its SM (simt gives its index in the block;
    the slot is below the SM's 64)."""
    from kernels_cuda import crosscheck
    gpu_or_skip()
    n = 96
    rng = np.random.default_rng(4)
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(U32)
    f = rng.normal(size=n).astype(np.float32)
    same_bytes_on_gpu(ASM_SRC, tmp_path / "b.cu", "alu", 3, 32,
                      [x, f, np.zeros(8 * n, U32), np.zeros(n, U64), np.zeros(n, np.float32), n])
    (emu, _), _ = run(ASM_SRC, "regs", 2, 48, [np.zeros(7 * 80, U32), 80])
    (tmp_path / "a.cu").write_text(ASM_SRC)
    _, after, _ = crosscheck.real_launch(str(tmp_path / "a.cu"), "regs", 2, 48, [np.zeros(7 * 80, U32), 80],
                                         repeat=1)
    gpu = after[0].reshape(80, 7)
    assert gpu[:, :6].tolist() == emu.reshape(80, 7)[:, :6].tolist()
    assert (gpu[:, 6] < 64).all()


@pytest.mark.gpu
def test_managed_variables_match_the_gpu(tmp_path, capsys):
    """`--real` sets and reads a __managed__ variable as it does a __device__ one."""
    import json
    from tui.cli import main
    gpu_or_skip()
    p = tmp_path / "m.cu"
    p.write_text(MANAGED_SRC)
    base = ["run", str(p), "--grid", "4", "--block", "64", "--arg", "int32[200]=arange",
            "--arg", "float32[200]=zeros", "--arg", "200", "--symbol", "hits=5", "--json"]
    assert main(base + ["--no-sanitize"]) == 0
    emu = json.loads(capsys.readouterr().out)
    assert main(base + ["--real", "--repeat", "3"]) == 0
    real = json.loads(capsys.readouterr().out)
    pick = {a["name"]: (a["sum"], a["first"]) for a in emu["arrays"]}
    assert {a["name"]: (a["sum"], a["first"]) for a in real["arrays"]} == pick
    assert pick["hits"][0] == 5 + 67          # 0, 3, ..., 198
