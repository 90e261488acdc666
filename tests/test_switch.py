"""``switch``: case labels, fallthrough, ``default`` anywhere, ``break`` out of nested
blocks and ``continue`` to the enclosing loop, per lane (divergent selectors)."""
import numpy as np
import pytest

import simt
from kern import gpu_or_skip, run

SRC = r'''
extern "C" __global__ void k(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int r = 0;
    for (int t = 0; t < 3; t++) {
        switch (in[i] + t) {
        case 0: r += 1;
        case 1: r += 10; break;
        case 2: { if (t == 1) break; r += 100; }
        case 5: r += 1000; continue;
        default: r += 5;
        case 7: r += 70000;
        }
        r += 100000;
    }
    out[i] = r;
}
'''


def reference(x: int) -> int:
    r = 0
    for t in range(3):
        v = x + t
        if v == 0:
            r += 1 + 10 + 100000
        elif v == 1:
            r += 10 + 100000
        elif v == 2 and t == 1:
            r += 100000
        elif v == 2:
            r += 100 + 1000
        elif v == 5:
            r += 1000
        elif v == 7:
            r += 70000 + 100000
        else:
            r += 5 + 70000 + 100000
    return r


def test_switch_fallthrough_break_continue_default_per_lane():
    x = np.arange(-2, 10, dtype=np.int32).repeat(3)
    (_, out, _), res = run(SRC, "k", 1, 64, [x, np.zeros_like(x), len(x)])
    np.testing.assert_array_equal(out, [reference(int(v)) for v in x])
    assert res.metrics["smsp__thread_inst_executed_per_inst_executed.ratio"] < 20   # divergent


def test_switch_on_a_uniform_value_and_unsigned_char():
    src = r'''
    extern "C" __global__ void k(unsigned char c, int *out) {
        switch (c) {
        case 255: out[threadIdx.x] = 1; break;
        case 'a': out[threadIdx.x] = 2; break;
        default: out[threadIdx.x] = 3;
        }
    }
    '''
    for c, want in ((255, 1), (97, 2), (0, 3)):
        (_, out), _ = run(src, "k", 1, 32, [np.uint8(c), np.zeros(32, np.int32)])
        assert (out == want).all()


@pytest.mark.parametrize("body, msg", [
    ("switch (1.5f) { case 1: break; }", "cannot be a switch condition"),
    ("switch (i) { case 1: case 1: break; }", "duplicate case value 1"),
    ("switch (i) { default: break; default: break; }", "only one default label"),
    ("switch (i) { i++; case 1: break; }", "never executed"),
    ("switch (i) { case 1: continue; }", "continue statement may only be used within a loop"),
    ("switch (i) { case i: break; }", "constant integer value"),
    ("switch (i) { case 1: { case 2: break; } }", "directly in a switch's body"),
])
def test_switch_errors_name_the_line(body, msg):
    src = 'extern "C" __global__ void k(int *o) {\n int i = threadIdx.x;\n ' + body + '\n o[i] = i; }'
    with pytest.raises(simt.CompileError) as e:
        simt.Module.from_source(src, "b.cu").check_all()
    assert str(e.value).startswith("b.cu:3:") and msg in str(e.value)


@pytest.mark.gpu
def test_switch_matches_the_gpu(tmp_path):
    gpu_or_skip()
    from kernels_cuda import crosscheck
    path = tmp_path / "sw.cu"
    path.write_text(SRC)
    x = np.arange(-2, 10, dtype=np.int32).repeat(3)
    _, after, _ = crosscheck.real_launch(str(path), "k", 1, 64, [x, np.zeros_like(x), np.int32(len(x))],
                                         repeat=3)
    np.testing.assert_array_equal(after[1], [reference(int(v)) for v in x])
