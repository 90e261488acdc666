"""__constant__ loads nvcc pairs (simt.issue.const_pair_pcs, machine._const_counters): in a
loop it unrolls fully, two consecutive 8-byte-aligned words of a load whose address
differs by lane are one LDC.64, so the constant cache's passes for the pair are those of
one load (probe/dct8x8's SASS and ncu's idc__requests, timing_investigation/unseen32/)."""
import numpy as np

import simt
from simt import counters as C

SRC = """
__constant__ float c[256];
extern "C" __global__ void k(float *o) {
    int t = threadIdx.x & 7;
    float s = 0.0f;
    for (int x = 0; x < 8; ++x) s += c[STRIDE * t + STEP * x + OFF];
    o[threadIdx.x] = s;
}"""


def _run(stride, step, off, loop="for (int x = 0; x < 8; ++x)"):
    src = SRC.replace("STRIDE", str(stride)).replace("STEP", str(step)).replace("OFF", str(off))
    src = src.replace("for (int x = 0; x < 8; ++x)", loop)
    mod = simt.Module.from_source(src, "t.cu")
    dev = simt.Device()
    mod.get_global(dev, "c").set(np.arange(256, dtype=np.float32))
    o = dev.to_device(np.zeros(64, np.float32))
    res = mod.get_function("k").launch(dev, simt.LaunchConfig.of(1, 64, 0), [o])
    t = np.arange(64) & 7
    exp = sum(np.float32(stride * t + step * x + off) for x in range(8))
    assert np.array_equal(o.get(), exp.astype(np.float32))
    return res.metrics[C.CONST_PASSES] / 2                   # per warp (2 warps)


def test_consecutive_aligned_words_are_read_in_pairs():
    assert _run(8, 1, 0) == 8 * 8 / 2          # 8 distinct words a load, 4 LDC.64


def test_words_apart_are_not_paired():
    assert _run(1, 8, 0) == 8 * 8               # c[t + 8x]: 8 LDC, each 8 words


def test_a_misaligned_start_pairs_what_it_can():
    assert _run(8, 1, 1) == 8 * 5               # (1, 2), (3, 4), (5, 6) pair; 0 and 7 alone


def test_a_loop_nvcc_does_not_unroll_fully_is_not_paired():
    n = _run(8, 1, 0, loop="for (int x = 0; x < 8; x += (threadIdx.x >> 9) + 1)")
    assert n == 8 * 8
