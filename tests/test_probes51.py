"""probe-unseen49's kernels (kernels_cuda/probes51.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch


def test_gemv_tile32():
    n = 300                                         # 3 blocks of 128 rows, the last partial
    host, (A, x, y, rows, cols), *_ = launch("probe/gemv-tile32", n)
    assert int(cols) == tp.GT_COLS
    exp = A.reshape(n, tp.GT_COLS).astype(np.float64) @ x.astype(np.float64)
    np.testing.assert_allclose(y, exp, rtol=1e-5, atol=5e-5)
    assert np.abs(exp).max() > 40


def _check_partition(pid, n):
    host, (keys, start, cursor, out, nn), *_ = launch(pid, n)
    b = keys & (tp.PT_BUCKETS - 1)
    counts = np.bincount(b, minlength=tp.PT_BUCKETS)
    cur = cursor.reshape(tp.PT_BUCKETS, tp.PT_STRIDE)
    assert np.array_equal(cur[:, 0], counts)        # every key took one slot of its bucket
    assert np.all(cur[:, 1:] == 0)
    for k in range(tp.PT_BUCKETS):
        got = out[start[k]:start[k] + counts[k]]
        assert np.array_equal(np.sort(got), np.sort(keys[b == k])), k


@pytest.mark.parametrize("pid", ["probe/partition8-atomic", "probe/partition8-match"])
def test_partition8(pid):
    _check_partition(pid, 5000)                     # 20 blocks, the last warp 8 lanes


def test_bin_max_cas():
    n = 20000                                       # 79 blocks, the last partial
    host, (v, bins, mx, nn), *_ = launch("probe/bin-max-cas", n)
    exp = np.full(tp.BM_BINS, -np.inf, np.float32)
    np.maximum.at(exp, bins, v)
    assert np.array_equal(mx, exp)
    assert 10 < np.isinf(exp).sum() < 100            # a few bins got nothing


def test_rows_sorted_and():
    rows = 40
    host, (a, flags, ln), *_ = launch("probe/rows-sorted-and", rows)
    A = a.reshape(rows, tp.RSA_LEN)
    exp = np.all(np.diff(A, axis=1) >= 0, axis=1).astype(np.int32)
    assert np.array_equal(flags, exp)
    assert 5 < exp.sum() < rows - 5


def test_recursive_gaussian(monkeypatch):
    # 128 rows (the probe's 1024: the emulation's time goes with the rows, the same code)
    monkeypatch.setattr(tp, "IIR_H", 128)
    w = 150                                         # 3 blocks of 64 columns, the last partial
    host, (img, out, ww, h, *c), *_ = launch("probe/recursive-gaussian", w)
    assert h == 128
    a0, a1, a2, a3, b1, b2, coefp, coefn = (float(v) for v in c)
    X = img.reshape(h, w).astype(np.float64)
    Y = np.zeros_like(X)
    xp = X[0].copy(); yb = coefp * xp; yp = yb.copy()
    for y in range(h):                              # causal pass, top to bottom
        xc = X[y]
        yc = a0 * xc + a1 * xp - b1 * yp - b2 * yb
        Y[y] = yc
        xp, yb, yp = xc, yp, yc
    xn = X[h - 1].copy(); xa = xn.copy(); yn = coefn * xn; ya = yn.copy()
    for y in range(h - 1, -1, -1):                  # anticausal pass, bottom to top
        xc = X[y]
        yc = a2 * xn + a3 * xa - b1 * yn - b2 * ya
        xa, xn, ya, yn = xn, xc, yn, yc
        Y[y] += yc
    np.testing.assert_allclose(out.reshape(h, w), Y, rtol=0, atol=2e-5)
    # a smoothing filter of unit gain: the output stays near the mean, far less spread
    assert abs(Y.mean() - X.mean()) < 0.01 and Y.std() < 0.5 * X.std()
