"""probe-unseen52's kernels (kernels_cuda/probes54.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch


def test_dequant_int4():
    nw = 1000                                       # 8 blocks of 128, the last partial; 125 scales
    host, (q, s, w, _), *_ = launch("probe/dequant-int4", nw)
    codes = (q[:, None] >> (4 * np.arange(8, dtype=np.uint32))) & 0xF     # nibble j is weight 8i + j
    exp = (codes.astype(np.float32).ravel() - 8) * np.repeat(s.astype(np.float32), tp.DQ_GROUP)
    assert w.dtype == np.float32 and np.array_equal(w, exp)
    assert len(np.unique(codes)) == 16


def test_eytzinger_layout_is_bfs_of_sorted():
    keys = np.arange(10, 17)                        # 7 keys: the perfect tree of height 3
    assert list(tp.eytzinger_layout(keys)[1:]) == [13, 11, 15, 10, 12, 14, 16]


def test_eytzinger_search():
    n = 1000                                        # 4 blocks of 256 threads, one query each, one partial
    host, (tree, x, idx, nt, _), *_ = launch("probe/eytzinger-search", n)
    assert nt == tp.eytzinger_size(n) == len(tree) - 1 == 16383
    keys = np.sort(tree[1:])
    lb = np.searchsorted(keys, x, "left")           # the rank of the smallest key >= x
    past = lb == nt
    assert np.array_equal(idx == 0, past) and 0 < past.sum() < n // 50
    assert np.array_equal(tree[idx[~past]], keys[lb[~past]])
    assert np.mean(tree[idx[~past]] == x[~past]) > 0.05     # exact hits among them


def test_eytzinger_grid_stride():
    n = 70_000                                      # more queries than the 67584 threads: some do two
    host, (tree, x, idx, nt, _), *_ = launch("probe/eytzinger-search", n)
    keys = np.sort(tree[1:])
    lb = np.searchsorted(keys, x, "left")
    exp = np.zeros(n, np.int64)
    inv = np.argsort(tree[1:]) + 1                  # sorted rank -> Eytzinger index
    exp[lb < nt] = inv[lb[lb < nt]]
    assert np.array_equal(idx, exp)


def test_gauss_sep_fused():
    n = 70                                          # 3 x 3 tiles of 32, the last ones partial
    host, (img, out, *_), syms, _ = launch("probe/gauss-sep-fused", n)
    g = syms["c_gauss"].astype(np.float64)[:9]
    assert abs(g.sum() - 1) < 1e-6 and g[4] == g.max()
    P = np.pad(img.reshape(n, n).astype(np.float64), 4, mode="edge")     # clamped at the edges
    rows = sum(g[k] * P[:, k:k + n] for k in range(9))
    exp = sum(g[k] * rows[k:k + n, :] for k in range(9))
    np.testing.assert_allclose(out.reshape(n, n), exp, rtol=0, atol=2e-6)


def test_coo_row_stats():
    nnz = 5000                                      # 20 blocks, the last partial; 312 rows
    host, (rows, vals, counts, rowmin, _), *_ = launch("probe/coo-row-stats", nnz)
    nrows = nnz // tp.COO_NNZ_PER_ROW
    assert np.all(np.diff(rows) >= 0) and rows.max() < nrows
    exp_c = np.bincount(rows, minlength=nrows)
    assert np.array_equal(counts, exp_c) and exp_c.max() > 24
    exp_m = np.full(nrows, np.inf, np.float32)
    np.minimum.at(exp_m, rows, vals)
    assert np.array_equal(rowmin, exp_m)            # bit-exact, +inf where a row is empty
    assert (exp_m > 0).any() and (exp_m < 0).any()


def test_haversine_nearest():
    n = 1000                                        # 6 blocks of 192, the last partial
    host, (pts, refs, nearest, dist, _), *_ = launch("probe/haversine-nearest", n)
    P = pts.reshape(n, 2).astype(np.float64)
    R = refs.reshape(tp.HV_NREF, 4).astype(np.float64)
    s1 = np.sin(0.5 * (P[:, :1] - R[None, :, 0]))
    s2 = np.sin(0.5 * (P[:, 1:] - R[None, :, 1]))
    a = np.minimum(s1 ** 2 + np.cos(P[:, :1]) * R[None, :, 2] * s2 ** 2, 1)
    D = 2 * 6371.0 * np.arcsin(np.sqrt(a))
    best = D.min(1)
    np.testing.assert_allclose(dist, best, rtol=1e-5, atol=1e-2)
    assert np.all(D[np.arange(n), nearest] <= best + 0.05)      # the nearest, or one within float error of it
    assert np.mean(nearest == D.argmin(1)) > 0.99 and len(np.unique(nearest)) > 40


def test_herm_transpose_z():
    n = 40                                          # 40 x 60 matrices: 2 x 2 tiles, partial both ways; 6 of them
    host, (a, out, rows, cols), *_ = launch("probe/herm-transpose-z", n)
    assert (rows, cols) == (40, 60)
    A = a.view(np.complex128).reshape(tp.HT_BATCH, rows, cols)
    exp = np.conj(A.transpose(0, 2, 1))
    assert np.array_equal(out.view(np.complex128).reshape(tp.HT_BATCH, cols, rows), exp)
