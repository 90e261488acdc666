"""probe-unseen153's kernels (kernels_cuda/probes155.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/mttkrp-coo-atomic16", "probe/mttkrp-csf-warp-slice", "probe/khatri-rao-divmod",
       "probe/gram-ata-smem-f64", "probe/ttv-mode3-warp-shfl", "probe/gcp-logit-sampled-loss"]
U = 2.0 ** -24                                              # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen153"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes155.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 14
    i, j, k, v, (I, J, K) = tp._p155_sptensor(n, rng)
    lin = (i.astype(np.int64) * J + j) * K + k
    assert (I, J, K) == (512, 256, 64) and len(i) == n and i.dtype == np.int32 and (np.diff(lin) > 0).all()
    assert i.max() < I and j.max() < J and k.max() < K and min(i.min(), j.min(), k.min()) >= 0
    assert (v == np.round(v)).all() and v.min() == 1 and abs(v.mean() - 1 / tp.P155_VAL_P) < 0.05
    c = np.bincount(i, minlength=I)
    assert c.mean() == 32 and c.max() > 6 * 32 and (c == 0).mean() < 0.15         # skewed users
    assert np.bincount(k).max() > 0.05 * n                   # a Zipf(1) word ("the") in many reviews
    sp, fj, fp = tp._p155_csf(i, j, I)
    assert len(sp) == I + 1 and sp[0] == 0 and sp[-1] == len(fj) and (np.diff(sp) >= 0).all()
    assert fp[0] == 0 and fp[-1] == n and (np.diff(fp) > 0).all() and 2.5 < n / len(fj) < 4.5
    ci, cj = tp._p155_csf_coo(sp, fj, fp)
    assert (ci == i).all() and (cj == j).all()
    a = tp._p155_coo_args(n, np.random.default_rng(5))
    b = tp._p155_csf_args(n, np.random.default_rng(5))      # the same tensor, in CSF
    assert (b[3] == a[2]).all() and (b[4] == a[3]).all() and (tp._p155_csf_coo(*b[:3])[0] == a[0]).all()
    assert len(a[4]) == J * 16 and len(a[5]) == K * 16 and len(a[6]) == I * 16 and 0 <= a[4].min() and a[4].max() < 1
    assert len(b[5]) == J * 32 and len(b[6]) == K * 32 and len(b[7]) == I * 32 and b[8] == I
    A, B, Kz, I2, J2, R = tp._p155_kr_args(1 << 14, rng)
    assert I2 == J2 == 32 and R == 16 and I2 * J2 * R <= 1 << 14 and len(Kz) == I2 * J2 * R
    assert np.allclose(np.linalg.norm(A.reshape(-1, R), axis=0), 1, atol=1e-6) and A.min() >= 0
    A, G, nn = tp._p155_gr_args(5000, rng)
    A = A.reshape(-1, 32)
    corr = np.corrcoef(A.T)[np.triu_indices(32, 1)]
    assert A.min() >= 0 and G.dtype == np.float64 and len(G) == 1024 and nn == 5000
    sd = A.std(axis=0)
    assert corr.min() > 0.05 and corr.mean() > 0.2 and sd.max() / sd.min() > 5       # correlated, scaled columns
    X, vv, Y, ij, KK = tp._p155_ttv_args(256 * 1000, rng)
    X = X.reshape(-1, KK)
    assert ij == 1000 and KK == 256 and X.min() >= 0 and 0.1 < X.mean() < 1 and vv.argmax() == round(0.6 * 256)
    assert np.abs(np.diff(X.mean(axis=0))).max() < 0.05      # smooth mean spectrum
    s, A, B, C, Yg, loss, nn = tp._p155_gcp_args(1 << 14, rng)
    assert s.dtype.itemsize == 16 and nn == 1 << 14 and (s["x"] == 1).mean() == tp.P155_GCP_ONES
    assert s["i"].max() < 256 and s["k"].max() < 32 and len(A) == 256 * 16 and len(C) == 32 * 16
    ones = s[s["x"] == 1]
    assert np.bincount(ones["i"]).max() > 5 * np.bincount(s[s["x"] == 0]["i"]).max()      # skewed ones
    assert (np.diff(np.flatnonzero(s["x"] == 1)) > 1).any()  # shuffled
    lam = tp._p155_gcp_syms(n, rng)["c_gcp_lambda"]
    m, _ = tp._p155_gcp_model(s, A, B, C, lam)
    assert 0.5 < m.std() < 2 and lam.min() >= 0.5 and lam.max() <= 2


# ---- mttkrp-coo-atomic16 ----

def test_mttkrp_coo():
    n = 1024                                                # 4 blocks
    host, out, *_ = launch("probe/mttkrp-coo-atomic16", n)
    dims = tp._p155_dims(n)
    ref = tp._p155_mttkrp_ref(tp._p155_dense(*host[:4], dims), host[4].reshape(-1, 16), host[5].reshape(-1, 16))
    # positive terms, each rounded twice, summed in some order: |err| <= (nnz(i) + 2) u M
    nnz_i = np.bincount(host[0], minlength=dims[0])[:, None]
    assert (np.abs(out[6].reshape(-1, 16) - ref) <= (nnz_i + 2) * U * ref).all() and ref.max() > 50
    # integer-valued factors: every sum exact whatever the atomics' order (warps interleaved
    # at random); then every nonzero in one slice (repeated coordinates add up)
    rng = np.random.default_rng(1)
    h = list(host)
    h[4] = rng.integers(0, 4, len(h[4])).astype(np.float32)
    h[5] = rng.integers(0, 4, len(h[5])).astype(np.float32)
    for ii, policy in ((host[0], "random"), (np.zeros(n, np.int32), "lockstep")):
        h[0] = ii
        h[6] = np.zeros_like(host[6])
        out = run("probe/mttkrp-coo-atomic16", h, n, policy=policy)
        ref = tp._p155_mttkrp_ref(tp._p155_dense(*h[:4], dims), h[4].reshape(-1, 16), h[5].reshape(-1, 16))
        assert (out[6].reshape(-1, 16) == ref).all()
    assert (ref[1:] == 0).all() and ref[0].min() > 1000


# ---- mttkrp-csf-warp-slice ----

def test_mttkrp_csf():
    n = 1024                                                # 32 slices, 16 blocks of 2 warps
    host, out, *_ = launch("probe/mttkrp-csf-warp-slice", n)
    dims = tp._p155_dims(n)
    ci, cj = tp._p155_csf_coo(*host[:3])
    B, C = host[5].reshape(-1, 32), host[6].reshape(-1, 32)
    ref = tp._p155_mttkrp_ref(tp._p155_dense(ci, cj, host[3], host[4], dims), B, C)
    # positive terms: a fiber's sum then the slice's, each term rounded 3 times
    nnz_i = np.bincount(ci, minlength=dims[0])[:, None]
    M = out[7].reshape(-1, 32)
    assert (np.abs(M - ref) <= (nnz_i + 4) * U * ref).all() and (nnz_i == 0).any()
    assert (M[nnz_i[:, 0] == 0] == 0).all()                 # empty slices store zeros
    # hand-made: slice 0 one long fiber, slice 1 empty, slice 2 fibers of one nonzero, the
    # last slice a mix; integer-valued factors, so exact
    I, J, K = 4, 8, 64
    ii = np.r_[np.zeros(40), np.full(5, 2), np.full(7, 3)].astype(np.int32)
    jj = np.r_[np.full(40, 3), [0, 2, 4, 6, 7], [1, 1, 1, 5, 5, 6, 7]].astype(np.int32)
    kk = np.r_[np.arange(40), [9, 9, 9, 9, 9], [0, 3, 63, 2, 8, 1, 1]].astype(np.int32)
    vals = np.arange(1, 53).astype(np.float32)
    rng = np.random.default_rng(2)
    B = rng.integers(0, 4, (J, 32)).astype(np.float32)
    C = rng.integers(0, 4, (K, 32)).astype(np.float32)
    sp, fj, fp = tp._p155_csf(ii, jj, I)
    assert list(sp) == [0, 1, 1, 6, 10]
    h = [sp, fj, fp, kk, vals, B.ravel(), C.ravel(), np.full(I * 32, 7, np.float32), np.int32(I)]
    out = run("probe/mttkrp-csf-warp-slice", h, 32 * I, policy="random")
    ref = tp._p155_mttkrp_ref(tp._p155_dense(ii, jj, kk, vals, (I, J, K)), B, C)
    assert (out[7].reshape(-1, 32) == ref).all() and (ref[1] == 0).all()


# ---- khatri-rao-divmod ----

def test_khatri_rao():
    n = 16 * 20 * 20 + 100                                  # I = J = 20, 13 blocks, the last partial
    host, out, *_ = launch("probe/khatri-rao-divmod", n)
    assert host[3] == host[4] == 20
    assert (out[2].reshape(-1, 16) == tp._p155_kr_ref(host[0], host[1], 16)).all()
    rng = np.random.default_rng(3)                          # I != J, R != 16
    A, B = rng.random((5, 3), dtype=np.float32), rng.random((7, 3), dtype=np.float32)
    h = [A.ravel(), B.ravel(), np.full(5 * 7 * 3, -1, np.float32), np.int32(5), np.int32(7), np.int32(3)]
    K = run("probe/khatri-rao-divmod", h, 105)[2].reshape(35, 3)
    assert (K == tp._p155_kr_ref(A, B, 3)).all()
    assert (K[7 * 2 + 4] == A[2] * B[4]).all()             # row i J + j


# ---- gram-ata-smem-f64 ----

def test_gram_ata():
    n = 600                                                 # 2 blocks, the second 88 rows (a partial tile)
    host, out, *_ = launch("probe/gram-ata-smem-f64", n)
    A = host[0].reshape(-1, 32).astype(np.float64)
    ref = A.T @ A
    # float products exact in double; <= n positive double terms: |err| <= n 2^-53 G
    assert np.allclose(out[1].reshape(32, 32), ref, rtol=n * 2.0 ** -53, atol=0)


# ---- ttv-mode3-warp-shfl ----

def test_ttv_mode3():
    n = 256 * 40                                            # 40 fibers: 2 blocks, the second 8 warps live
    host, out, *_ = launch("probe/ttv-mode3-warp-shfl", n)
    X = host[0].reshape(-1, 256).astype(np.float64)
    ref = X @ host[1].astype(np.float64)
    # nonnegative terms, each rounded once, 8 per lane then 5 shuffle levels: <= 14 u Y
    assert (np.abs(out[2] - ref) <= 14 * U * ref).all() and ref.min() > 1
    rng = np.random.default_rng(4)                          # K not a multiple of 32, fewer fibers than n says
    X = rng.random((5, 70), dtype=np.float32)
    v = rng.random(70, dtype=np.float32)
    h = [X.ravel(), v, np.full(9, -1, np.float32), np.int32(5), np.int32(70)]
    Y = run("probe/ttv-mode3-warp-shfl", h, 256 * 9, policy="random")[2]
    ref = X.astype(np.float64) @ v
    assert (np.abs(Y[:5] - ref) <= 8 * U * ref).all() and (Y[5:] == -1).all()


# ---- gcp-logit-sampled-loss ----

def _gcp_check(s, A, B, C, lam, Y, loss):
    """Y and the loss against the float64 reference, to float32's error bound: the model's
    16 four-factor terms cost <= (16 + 3) u sum|t| in m; sigmoid' <= 1/4 and the loss's
    slope in m <= 2, plus a few rounding units of each result."""
    Yr, Lr = tp._p155_gcp_ref(s, A, B, C, lam)
    m, absterm = tp._p155_gcp_model(s, A, B, C, lam)
    dm = 19 * U * absterm
    assert (np.abs(Y - Yr) <= dm / 4 + 4 * U).all()
    li = np.logaddexp(0.0, m) - s["x"] * m
    assert abs(float(loss[0]) - Lr) <= (2 * dm + 4 * U * (np.abs(li) + np.abs(m) + 1)).sum()


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_gcp_logit_loss(policy):
    n = 600                                                 # 5 blocks, the last 88 samples
    host, out, syms, _ = launch("probe/gcp-logit-sampled-loss", n, policy=policy)
    lam = syms["c_gcp_lambda"]
    _gcp_check(host[0], *host[1:4], lam, out[4], out[5])
    assert out[5][0] > 0.3 * n
    # a large model: |m| in the hundreds, where log(1 + e^m) taken directly would overflow
    big = np.full(16, 400.0, np.float32)
    h = [host[0], *host[1:4], np.zeros(n, np.float32), np.zeros(1, np.float64), np.int32(n)]
    out = run("probe/gcp-logit-sampled-loss", h, n, symbols={"c_gcp_lambda": big})
    m, _ = tp._p155_gcp_model(host[0], *host[1:4], big)
    assert np.isfinite(out[5][0]) and np.abs(m).max() > 300
    _gcp_check(host[0], *host[1:4], big, out[4], out[5])
