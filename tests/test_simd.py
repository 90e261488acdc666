"""CUDA's SIMD intrinsics (simt.simd): every __v...2 / __v...4 against a per-part Python
reference written from the CUDA Math API's descriptions, on random words and the parts'
edges (0, 1, 0x7f, 0x80, 0xff and their half-word counterparts); and on the GPU."""
import numpy as np
import pytest

from kern import compile_error, gpu_or_skip, run, same_bytes_on_gpu
from simt.simd import SIMD_ARITY

U32 = np.uint32


def _split(x, n, signed):
    w = 32 // n
    out = []
    for k in range(n):
        p = (x >> (w * k)) & ((1 << w) - 1)
        if signed and p >= 1 << (w - 1):
            p -= 1 << w
        out.append(p)
    return out


def _join(parts, n):
    w = 32 // n
    return sum((p % (1 << w)) << (w * k) for k, p in enumerate(parts))


def _clamp(v, w, signed):
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed else (0, (1 << w) - 1)
    return max(lo, min(hi, v))


def reference(name, a, b, n):
    """What CUDA's Math API says __v<op><n>(a, b) returns, one part at a time."""
    op = name[3:-1]
    w = 32 // n
    signed = op in ("abs", "absss", "neg", "negss", "addss", "subss", "absdiffs", "avgs", "maxs",
                    "mins", "sads") or (op[:3] in ("cmp", "set") and op.endswith("s"))
    pa, pb = _split(a, n, signed), _split(b, n, signed)
    cmp = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "ge": lambda x, y: x >= y,
           "gt": lambda x, y: x > y, "le": lambda x, y: x <= y, "lt": lambda x, y: x < y}
    if op in ("sads", "sadu"):
        return sum(abs(x - y) for x, y in zip(pa, pb))
    out = []
    for x, y in zip(pa, pb):
        if op == "abs":
            v = abs(x)
        elif op == "absss":
            v = _clamp(abs(x), w, True)
        elif op == "neg":
            v = -x
        elif op == "negss":
            v = _clamp(-x, w, True)
        elif op in ("add", "sub"):
            v = x + y if op == "add" else x - y
        elif op in ("addss", "addus", "subss", "subus"):
            v = _clamp(x + y if op.startswith("add") else x - y, w, op.endswith("ss"))
        elif op.startswith("absdiff"):
            v = abs(x - y)
        elif op == "avgs":        # signed rounded average: (a + b) / 2 rounded up (CUDA: the rounded average)
            s = x + y
            v = (s + 1) // 2 if s >= 0 else s // 2
        elif op == "avgu":
            v = (x + y + 1) // 2
        elif op == "haddu":
            v = (x + y) // 2
        elif op in ("maxs", "maxu"):
            v = max(x, y)
        elif op in ("mins", "minu"):
            v = min(x, y)
        else:
            kind, rel = op[:3], op[3:5]
            hold = cmp[rel](x, y)
            v = ((1 << w) - 1 if hold else 0) if kind == "cmp" else int(hold)
        out.append(v)
    return _join(out, n)


def _words():
    rng = np.random.default_rng(11)
    edges = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x80808080, 0x7F7F7F7F, 0xFFFFFFFF,
             0x01FF80FF, 0x80007FFF, 0xFF01FE02]
    a = np.array(edges * len(edges) + rng.integers(0, 2**32, 160, dtype=np.uint64).tolist(), np.uint64)
    b = np.array([e for e in edges for _ in edges] + rng.integers(0, 2**32, 160, dtype=np.uint64).tolist(),
                 np.uint64)
    return a.astype(U32), b.astype(U32)


NAMES = sorted(SIMD_ARITY)


def _source(names):
    lines = [f"    o[{k} * n + t] = {nm}(a{', b' if SIMD_ARITY[nm] == 2 else ''});"
             for k, nm in enumerate(names)]
    return ('extern "C" __global__ void simd(const unsigned *x, const unsigned *y, unsigned *o, int n) {\n'
            "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    if (t >= n) return;\n"
            "    unsigned a = x[t], b = y[t];\n" + "\n".join(lines) + "\n}\n")


def test_there_are_all_of_cudas_simd_functions():
    assert len(NAMES) == 2 * 41
    for nm in ("__vabsdiffu4", "__vsadu4", "__vcmpgeu2", "__vsetlts4", "__vavgs2", "__vhaddu4",
               "__vnegss2", "__vsubus4", "__vmaxs2"):
        assert nm in NAMES


def test_each_simd_function_against_its_per_part_reference():
    a, b = _words()
    n = len(a)
    (_, _, o, _), res = run(_source(NAMES), "simd", (n + 63) // 64, 64,
                            [a, b, np.zeros(len(NAMES) * n, U32), n])
    o = o.reshape(len(NAMES), n)
    for k, nm in enumerate(NAMES):
        parts = 2 if nm.endswith("2") else 4
        want = [reference(nm, int(x), int(y), parts) for x, y in zip(a, b)]
        assert o[k].tolist() == want, nm


def test_a_simd_function_takes_its_operand_count():
    msg = compile_error('__global__ void k(unsigned *o) { o[0] = __vadd4(o[1]); }')
    assert 'wrong number of arguments in call to "__vadd4" (expected 2, got 1)' in msg


def test_a_simd_function_costs_nvccs_instructions():
    """__vavgs4 is 12 SASS instructions on sm_90, __vsadu4 one (VABSDIFF4.U8.ACC):
    timing_investigation/simd/sass_h200.json."""
    import simt
    from simt.issue import issue_weights
    src = ('extern "C" __global__ void k(const unsigned *x, unsigned *o) {\n'
           '    int t = threadIdx.x; o[t] = __vavgs4(x[t], 7u) + __vsadu4(x[t], 9u);\n}\n')
    ir = simt.Module.from_source(src, "s.cu").get_function("k").ir
    w = issue_weights(ir)
    calls = {ins.sub: w[p] for p, ins in enumerate(ir.code) if ins.sub in SIMD_ARITY}
    assert calls == {"__vavgs4": 12.0, "__vsadu4": 1.0}


@pytest.mark.gpu
def test_simd_functions_match_the_gpu_bit_for_bit(tmp_path):
    gpu_or_skip()
    a, b = _words()
    n = len(a)
    same_bytes_on_gpu(_source(NAMES), tmp_path / "simd.cu", "simd", (n + 63) // 64, 64,
                      [a, b, np.zeros(len(NAMES) * n, U32), n])
