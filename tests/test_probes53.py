"""probe-unseen51's kernels (kernels_cuda/probes53.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch


def box27(u: np.ndarray) -> np.ndarray:
    """The 27-point box sum of a cube with zeros outside, divided by 27, in float64."""
    n = u.shape[0]
    P = np.pad(u.astype(np.float64), 1)
    out = np.zeros(u.shape)
    for dz in range(3):
        for dy in range(3):
            for dx in range(3):
                out += P[dz:dz + n, dy:dy + n, dx:dx + n]
    return out / 27


def test_box27_both_block_shapes():
    n = 21                                          # partial blocks in every dimension of both shapes
    host, (u, out, *_), *_ = launch("probe/box27-b32x4x4", n)
    _, (u2, out2, *_), *_ = launch("probe/box27-b4x4x32", n)
    assert np.array_equal(u, u2)                    # the same inputs
    exp = box27(u.reshape(n, n, n))                 # z, y, x: x fastest
    np.testing.assert_allclose(out.reshape(n, n, n), exp, rtol=0, atol=2e-6)
    assert np.array_equal(out, out2)                # the same sums in the same order


def test_groupby_aos_dyn():
    n = 50_000                                      # 67584 threads of 264 blocks: some with nothing
    host, (keys, vals, sums, counts, nkeys, nn), *_ = launch("probe/groupby-aos-dyn", n)
    exp_c = np.bincount(keys, minlength=tp.GB_KEYS)
    assert counts.dtype == np.uint64 and np.array_equal(counts.astype(np.int64), exp_c)
    exp_s = np.bincount(keys, weights=vals.astype(np.float64), minlength=tp.GB_KEYS)
    np.testing.assert_allclose(sums, exp_s, rtol=0, atol=1e-4)
    assert exp_c.min() > 0 and np.abs(exp_s).max() > 5


def l2norm(x: np.ndarray) -> np.ndarray:
    X = x.reshape(-1, tp.L2_COLS).astype(np.float64)
    return X / np.sqrt((X * X).sum(1, keepdims=True))


def test_l2norm_rows16_float():
    rows = 37                                       # 3 blocks of 16 rows, the last partial
    host, (x, y, *_), *_ = launch("probe/l2norm-rows16-float", rows)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.reshape(rows, -1), l2norm(x), rtol=1e-5, atol=1e-7)


def test_l2norm_rows16_double():
    rows = 37
    host, (x, y, *_), *_ = launch("probe/l2norm-rows16-double", rows)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.reshape(rows, -1), l2norm(x), rtol=1e-13, atol=1e-15)


def test_tanimoto_redux():
    nfp = 100                                       # 13 warps of 8 a block: the last block partial
    host, (db, q, sim, nn), *_ = launch("probe/tanimoto-redux", nfp)
    D = db.reshape(nfp, 32)
    pc = np.vectorize(lambda w: bin(int(w)).count("1"))
    both = pc(D & q[None, :]).sum(1)
    either = pc(D | q[None, :]).sum(1)
    exp = np.where(either > 0, both.astype(np.float32) / np.maximum(either, 1).astype(np.float32), 1).astype(np.float32)
    assert np.array_equal(sim, exp)
    assert 0.02 < exp.mean() < 0.2 and len(np.unique(exp)) > 20
