"""probe-unseen23's kernels (kernels_cuda/probes24.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes
from probe_launch import launch


def test_lut_gather():
    n = 256 * 8
    host, (x, lut, y, _), *_ = launch("probe/lut-gather16k", n)
    h = (x.astype(np.uint64) * 2654435761) & 0xFFFFFFFF
    assert y.tolist() == lut[(h >> 20).astype(np.int64)].tolist()


def test_gemv_colmajor():
    n = 256
    host, (A, x, y, _), *_ = launch("probe/gemv-colmajor", n)
    exp = A.reshape(n, n).astype(np.float64).T @ x.astype(np.float64)
    np.testing.assert_allclose(y, exp, rtol=1e-4, atol=1e-3)


def test_mip_z():
    n = 64
    host, (vol, out, *_), *_ = launch("probe/mip-z", n)
    assert out.tolist() == vol.reshape(timing_probes.MIP_NZ, n, n).max(axis=0).ravel().tolist()


def test_blur_cols():
    n = 64
    host, (a, out, *_), *_ = launch("probe/blur-cols", n)
    img = a.reshape(n, n).astype(np.float64)
    w = np.array([0.05, 0.09, 0.12, 0.15, 0.18, 0.15, 0.12, 0.09, 0.05], np.float32)
    rows = np.clip(np.arange(n)[:, None] + np.arange(-4, 5)[None, :], 0, n - 1)
    exp = (img[rows] * w[None, :, None].astype(np.float64)).sum(axis=1)
    np.testing.assert_allclose(out.reshape(n, n), exp, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_warp_bitonic32(policy):
    n = 256 * 3
    host, (a, out, _), *_ = launch("probe/warp-bitonic32", n, policy=policy)
    assert out.tolist() == np.sort(a.reshape(-1, 32), axis=1).ravel().tolist()


def test_axpy_float2():
    n = 256 * 4
    host, (a, x, y, _), *_ = launch("probe/axpy-float2", n)
    y0 = host[2]
    # a * u.x + v.x is one fused multiply-add: the exact product, one rounding
    exp = (0.75 * x.astype(np.float64) + y0.astype(np.float64)).astype(np.float32)
    assert y.tolist() == exp.tolist()


def test_seg_max():
    n = 256 * 16
    host, (seg, v, m, _), *_ = launch("probe/seg-max", n)
    exp = np.full(1024, np.iinfo(np.int32).min, np.int64)
    np.maximum.at(exp, seg, v)
    assert m.tolist() == exp.tolist()
