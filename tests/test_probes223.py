"""probe-unseen221's kernels (kernels_cuda/probes223.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/ot-sinkhorn-lse-rows-double-smem", "probe/ot-sinkhorn-ktu-half-atomic", "probe/kme-mmd-gauss-tiles-shfl",
       "probe/rff-cos-const-features", "probe/sw-bitonic-rgba-const", "probe/kern-laplace-graph-ballot"]

F32 = np.float32


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen221"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes223.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- references (float64, written apart from the generators) ----

def _lse_rows_ref(C, g, loga, eps):
    """f_i = eps (log a_i - log sum_j exp((g_j - C_ij) / eps)), float64 from the float32 data."""
    Z = (np.asarray(g, np.float64)[None, :] - np.asarray(C, np.float64)) / np.float64(F32(eps))
    mx = Z.max(axis=1)
    return np.float64(F32(eps)) * (np.asarray(loga, np.float64) - (mx + np.log(np.exp(Z - mx[:, None]).sum(axis=1))))


def _mmd_sums_ref(X, Y, inv2s2):
    """(sum_{i != j} k(x_i, x_j), the same over Y, sum_{i, j} k(x_i, y_j)), float64."""
    X = np.asarray(X, np.float64)
    Y = np.asarray(Y, np.float64)

    def gram(A, B):
        d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
        return np.exp(-d2 * np.float64(F32(inv2s2)))
    kxx, kyy = gram(X, X), gram(Y, Y)
    return (kxx.sum() - np.trace(kxx), kyy.sum() - np.trace(kyy), gram(X, Y).sum())


def _sw_ref(src, dst, dirs, npair, nslice):
    """The mean squared difference of the sorted projections (pixels / 255 on each direction),
    npair x nslice, float64."""
    def proj(img):
        rgb = np.stack([img["r"], img["g"], img["b"]], -1).astype(np.float64).reshape(npair, -1, 3) / 255
        return np.sort(np.einsum("pnc,lc->pln", rgb, np.asarray(dirs, np.float64).reshape(-1, 3)[:nslice]), axis=2)
    return ((proj(src) - proj(dst)) ** 2).mean(axis=2)


def _graph_ref(X, n, inv_sigma, cutoff):
    """Every pair i < j with exp(-|x_i - x_j|_1 inv_sigma) > cutoff, float64: (i, j, w) rows
    sorted, and the pairs within 1e-5 of the cutoff (either way is right in float32)."""
    X = np.asarray(X, np.float64).reshape(n, -1)
    d = np.abs(X[:, None, :] - X[None, :, :]).sum(-1)
    w = np.exp(-d * np.float64(F32(inv_sigma)))
    i, j = np.nonzero(np.triu(w > np.float64(F32(cutoff)), 1))
    bi, bj = np.nonzero(np.triu(np.abs(w / np.float64(F32(cutoff)) - 1) < 1e-5, 1))
    return i, j, w[i, j], set(zip(bi.tolist(), bj.tolist()))


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # Sinkhorn rows: costs normalised to max 1, the marginals' logs, g from one column update
    n = 512
    h = tp._p223_lse_args(n, rng)
    C = h[0].reshape(n, n // 2)
    assert C.dtype == F32 and C.min() >= 0 and C.max() == 1 and 0.03 < np.median(C) < 0.4
    loga = h[2].astype(np.float64)
    assert np.exp(loga).sum() == pytest.approx(1, rel=1e-5) and 0.4 < loga.std() < 0.6     # lognormal(0, 0.5)
    g = h[1].astype(np.float64)
    eps = float(h[6])
    P = np.exp((g[None, :] - C.astype(np.float64)) / eps)                # the plan with f = 0: b as column sums
    b = P.sum(0)
    assert b.sum() == pytest.approx(1, rel=1e-4) and 0.4 < np.log(b).std() < 0.6
    Z = (g[None, :] - C) / eps
    near = (Z > Z.max(1, keepdims=True) - 20).sum(1)                     # terms within e^-20 of the row's largest
    assert 5 < np.median(near) < n // 2 and near.min() >= 1
    # colour transfer: 8-bit colours, the kernel as float16 (zeros and subnormals), u = a / K 1
    x = tp._p223_colours(4000, tp.P223_PAL_SRC, rng)
    assert x.min() >= 0 and x.max() <= 1 and np.allclose(x * 255, np.rint(x * 255))
    assert 0.25 < x[:, 2].mean() < 0.55 and (x == 0).any() and (x == 1).any()           # clipped: saturated channels
    n = 1024
    K, u = tp._p223_ktu_problem(n, rng)
    assert K.dtype == np.float16 and K.shape == (n, n) and K.max() > 0.99
    Kf = K.astype(np.float64)
    assert 0.05 < (Kf == 0).mean() < 0.4 and 0.1 < ((Kf > 0) & (Kf < 2 ** -14)).mean() < 0.5
    assert u.min() > 0 and u.max() / u.min() > 1e3
    assert np.allclose(u * Kf.sum(1), 1 / n, rtol=0.02)                  # K's rounding: a small change of the sums
    # MMD: mixtures in 16-D, Y shifted; the median heuristic
    X, Y = tp._p223_mmd_samples(1500, rng)
    assert X.shape == Y.shape == (1500, 16) and X.dtype == F32
    med = tp._p223_median_sq(X, Y, rng)
    d2 = ((X[:500, None, :].astype(np.float64) - Y[None, :500, :]) ** 2).sum(-1)
    assert np.median(d2) == pytest.approx(med, rel=0.1)
    inv = 1 / (2 * med)
    sxx, syy, sxy = _mmd_sums_ref(X[:750], Y[:750], inv)
    mmd = sxx / (750 * 749) + syy / (750 * 749) - 2 * sxy / 750 ** 2
    sxx, syy2, sxy2 = _mmd_sums_ref(X[:750], X[750:], inv)                 # two halves of X: no difference
    null = sxx / (750 * 749) + syy2 / (750 * 749) - 2 * sxy2 / 750 ** 2
    assert mmd > 0.003 and abs(null) < 0.3 * mmd
    # random Fourier features: standardised heavy-tailed data; the features approximate the kernel
    X = tp._p223_rff_data(4000, rng).astype(np.float64)
    assert np.allclose(X.mean(0), 0, atol=1e-6) and np.allclose(X.std(0), 1, atol=1e-5)
    kurt = ((X - X.mean(0)) ** 4).mean(0) / X.var(0) ** 2
    assert np.median(kurt) > 4 and np.abs(X).max() > 10                  # heavier tails than a Gaussian (kurtosis 3)
    s = tp._p223_rff_symbols(4000, rng)
    W = s["c_w"].astype(np.float64).reshape(256, 16)
    assert W.std() * np.sqrt(32) == pytest.approx(1, rel=0.05) and s["c_b"].min() >= 0 and s["c_b"].max() < 2 * np.pi
    Zf = np.sqrt(2 / 256) * np.cos(X[:200] @ W.T + s["c_b"])
    sig2 = 2 * 16
    Kt = np.exp(-((X[:200, None] - X[None, :200]) ** 2).sum(-1) / (2 * sig2))
    assert np.abs(Zf @ Zf.T - Kt).mean() < 0.06
    # thumbnails: 8-bit RGBA, opaque, soft regions of a few colours, saturated pixels (ties)
    im = tp._p223_thumbs(64, rng)
    assert im.dtype == tp.P223_RGBA and im.shape == (64, 1024) and (im["a"] == 255).all()
    rgb = np.stack([im["r"], im["g"], im["b"]], -1).astype(int)
    assert 60 < rgb.mean() < 190 and ((rgb == 0).any() or (rgb == 255).any())
    coarse = (rgb // 64) @ np.array([16, 4, 1])                          # 64 coarse colours
    top5 = [np.sort(np.bincount(c, minlength=64))[-5:].sum() / 1024 for c in coarse]
    assert np.median(top5) > 0.6 and min(top5) > 0.4                     # a few colour regions an image
    nb = np.abs(np.diff(rgb.reshape(64, 32, 32, 3), axis=2)).mean()
    assert nb < 0.3 * np.abs(rgb[:, :, None] - rgb[:, None, :100]).mean()   # smooth: neighbours alike
    dr = tp._p223_sw_dirs(0, rng)["c_dir"].reshape(-1, 3)
    assert dr.shape == (1024, 3) and np.allclose(np.linalg.norm(dr, axis=1), 1, atol=1e-6)
    # the Laplacian-kernel graph: clustered, degrees skewed
    n = 2048
    X = tp._p223_graph_points(n, rng)
    assert np.allclose(X.mean(0), 0, atol=1e-5) and np.allclose(X.std(0), 1, atol=1e-5)
    sig = tp._p223_graph_sigma(X, rng)
    d10 = np.sort(np.abs(X[:300, None, :].astype(np.float64) - X[None]).sum(-1), axis=1)[:, 10]
    assert np.median(d10) == pytest.approx(sig, rel=0.15)               # the 10th neighbour's distance
    i, j, w, _ = _graph_ref(X, n, 1 / sig, tp.P223_G_CUTOFF)
    deg = np.bincount(np.concatenate([i, j]), minlength=n)
    assert 0.003 < len(i) / (n * (n - 1) / 2) < 0.03
    assert 0.05 < (deg == 0).mean() < 0.4 and 8 <= np.median(deg) <= 20 and deg.max() > 5 * np.median(deg)
    assert len(i) < tp.P223_G_DEGREE * n / 4


# ---- ot-sinkhorn-lse-rows-double-smem ----

def _check_lse(C, g, loga, eps, n, m, grid=None):
    h = [np.asarray(C, F32).ravel(), np.asarray(g, F32), np.asarray(loga, F32), np.zeros(n, F32), np.int32(n),
         np.int32(m), F32(eps)]
    out = run("probe/ot-sinkhorn-lse-rows-double-smem", h, n, grid=grid)
    ref = _lse_rows_ref(np.asarray(C, F32).reshape(n, m), h[1], h[2], eps)
    ulp = np.spacing(np.abs(ref).astype(F32)).astype(np.float64)
    assert (np.abs(out[3] - ref) <= ulp).all(), np.abs(out[3] - ref).max()
    return out[3]


def test_sinkhorn_lse_rows():
    rng = np.random.default_rng(1)
    n = 24
    h = tp._p223_lse_args(n, rng)                                        # m = 12: most threads without a column
    _check_lse(h[0], h[1], h[2], float(h[6]), n, 12)
    for m in (100, 700):                                                 # 0 or 1, 2 or 3 columns a thread
        C = rng.random((6, m)).astype(F32) ** 2
        g = rng.normal(0, 0.05, m).astype(F32)
        f = _check_lse(C, g, np.log(np.full(6, 1 / 6)), 0.01, 6, m)
        assert np.isfinite(f).all()


def test_sinkhorn_lse_rows_cases():
    # ties: all columns alike -> f = eps (log a - g + C - log m) exactly up to rounding
    m = 300
    C = np.full((3, m), 0.25, F32)
    C[1] = 0.0
    C[2, ::2] = 1.0                                                      # half the terms e^-100 below the rest
    g = np.zeros(m, F32)
    f = _check_lse(C, g, np.zeros(3), 0.01, 3, m, grid=(5, 1))          # a grid past n: the extra blocks return
    assert f[0] == pytest.approx(0.01 * (25 - np.log(m)), rel=1e-6)
    assert f[2] == pytest.approx(0.01 * (25 - np.log(m // 2)), rel=1e-6)
    # one column; a tiny eps (the sum's largest term far above the rest); one row of a block
    _check_lse(np.array([[0.7]], F32), np.array([0.2], F32), np.array([-1.0]), 0.05, 1, 1)
    C = np.linspace(0, 1, 257, dtype=F32)[None, :]
    f = _check_lse(C, np.zeros(257, F32), np.zeros(1), 1e-3, 1, 257)
    assert -3e-5 < f[0] < -1e-5                                          # the one term at C = 0 dominates: e^-3.9 next


# ---- ot-sinkhorn-ktu-half-atomic ----

def _check_ktu(K, u, n, m, grid=None):
    h = [np.asarray(K, np.float16).ravel(), np.asarray(u, F32), np.zeros(m, F32), np.int32(n), np.int32(m)]
    out = run("probe/ot-sinkhorn-ktu-half-atomic", h, n, grid=grid or (-(-m // 256), -(-n // 64)))
    Kf = np.asarray(K, np.float16).astype(np.float64).reshape(n, m)
    ref = Kf.T @ np.asarray(u, np.float64)
    bound = 1e-5 * (np.abs(Kf).T @ np.abs(np.asarray(u, np.float64))) + 1e-38
    assert (np.abs(out[2] - ref) <= bound).all(), np.abs(out[2] - ref).max()
    return out[2]


def test_sinkhorn_ktu():
    rng = np.random.default_rng(2)
    n = 300                                                              # 5 row chunks, the last part full; 2 column blocks
    K, u = tp._p223_ktu_problem(n, rng)
    got = _check_ktu(K, u, n, n)
    assert (got > 0).all()
    # a row chunk: the sum in float32 in order, one atomic a column: bit-exact
    K1, u1 = K[:64, :40], u[:64]
    got = _check_ktu(K1, u1, 64, 40)
    acc = np.zeros(40, F32)
    for i in range(64):
        acc = (K1[i].astype(np.float64) * np.float64(u1[i]) + acc.astype(np.float64)).astype(F32)   # fused multiply-add
    assert (got == acc).all()


def test_sinkhorn_ktu_cases():
    rng = np.random.default_rng(3)
    n, m = 70, 257                                                       # 2 chunks (64 + 6 rows), 2 column blocks
    K = rng.random((n, m)).astype(np.float16)
    K[:, 5] = 0                                                          # a column the source never reaches
    K[:, 6] = np.float16(2 ** -24)                                       # the smallest subnormal
    u = rng.lognormal(0, 3, n).astype(F32)
    u[3] = 0
    got = _check_ktu(K, u, n, m)
    assert got[5] == 0 and got[6] == pytest.approx(2 ** -24 * u.astype(np.float64).sum(), rel=1e-6)
    one = _check_ktu(np.ones((1, 1), np.float16), np.array([0.5], F32), 1, 1)   # a single entry
    assert one[0] == 0.5


# ---- kme-mmd-gauss-tiles-shfl ----

def _check_mmd(X, Y, inv2s2, grid=None):
    n, m = len(X), len(Y)
    h = [np.asarray(X, F32).ravel(), np.asarray(Y, F32).ravel(), np.int32(n), np.int32(m), F32(inv2s2),
         np.zeros(3, np.float64)]
    b = -(-max(n, m) // 16)
    out = run("probe/kme-mmd-gauss-tiles-shfl", h, max(n, m), grid=grid or (b, b, 3))
    ref = _mmd_sums_ref(X, Y, inv2s2)
    assert np.allclose(out[5], ref, rtol=1e-5, atol=1e-9), (out[5], ref)
    return out[5]


def test_mmd_gauss():
    rng = np.random.default_rng(4)
    X, Y = tp._p223_mmd_samples(90, rng)                                # 6 x 6 tiles, the last ones part full
    inv = 1 / (2 * tp._p223_median_sq(X, Y, rng))
    s = _check_mmd(X, Y, inv)
    mmd = s[0] / (90 * 89) + s[1] / (90 * 89) - 2 * s[2] / 90 ** 2
    assert mmd > 0
    _check_mmd(X[:40], Y[:70], inv)                                      # m > n: the XX tiles past n return


def test_mmd_gauss_cases():
    X = np.zeros((17, 16), F32)                                          # identical points: k = 1 everywhere
    s = _check_mmd(X, X, 0.1)
    assert list(s) == [17 * 16, 17 * 16, 17 * 17]                        # the diagonal left out of XX and YY only
    s = _check_mmd(X[:1], X[:1] + 1, 0.5, grid=(1, 1, 3))               # one point each: no off-diagonal pair
    assert s[0] == 0 and s[1] == 0 and s[2] == pytest.approx(np.exp(-8), rel=1e-6)
    far = np.full((16, 16), 100.0, F32)
    s = _check_mmd(np.zeros((16, 16), F32) + np.eye(16, dtype=F32), far, 1.0)   # the cross terms underflow to 0
    assert s[2] == 0 and s[0] == pytest.approx(16 * 15 * np.exp(-2), rel=1e-6)


# ---- rff-cos-const-features ----

def _check_rff(X, syms, grid=None):
    n = len(X)
    scale = F32(np.sqrt(2 / 256))
    h = [np.asarray(X, F32).ravel(), np.zeros(n * 256, F32), np.int32(n), scale]
    out = run("probe/rff-cos-const-features", h, n, symbols=syms, grid=grid)
    W = syms["c_w"].reshape(256, 16)
    X = np.asarray(X, F32)
    dot = np.broadcast_to(syms["c_b"], (n, 256)).astype(F32)
    for c in range(16):                                                  # the kernel's float32 fmas, in order
        dot = (W[None, :, c].astype(np.float64) * X[:, c:c + 1] + dot).astype(F32)
    ref = np.float64(scale) * np.cos(dot.astype(np.float64))
    assert np.abs(out[1].reshape(n, 256) - ref).max() < 2e-7
    return out[1].reshape(n, 256)


def test_rff_features():
    rng = np.random.default_rng(5)
    X = tp._p223_rff_data(12, rng)
    syms = tp._p223_rff_symbols(12, rng)
    Z = _check_rff(X, syms)
    K = np.exp(-((X[:, None].astype(np.float64) - X[None]) ** 2).sum(-1) / 64)
    assert np.abs(Z.astype(np.float64) @ Z.T - K).max() < 0.3


def test_rff_features_cases():
    rng = np.random.default_rng(6)
    syms = tp._p223_rff_symbols(1, rng)
    syms["c_w"][:16] = 0                                                 # feature 0: a constant cos(b_0)
    syms["c_b"][0] = np.pi
    syms["c_w"][16:32] = 0
    syms["c_b"][1] = 0
    X = np.zeros((3, 16), F32)
    X[1] = 40.0                                                          # far out: arguments ~100, cos still exact
    X[2] = rng.standard_t(1, 16).astype(F32)                             # Cauchy: huge coordinates
    Z = _check_rff(X, syms, grid=(4, 1))                                 # a grid past n: the extra threads return
    s = np.sqrt(2 / 256)
    assert np.allclose(Z[:, 0], -s, rtol=1e-6) and np.allclose(Z[:, 1], s, rtol=1e-6)
    assert np.allclose(Z[0], s * np.cos(syms["c_b"].astype(np.float64)), atol=1e-7)


# ---- sw-bitonic-rgba-const ----

def _check_sw(src, dst, dirs, npair, nslice):
    h = [src.ravel(), dst.ravel(), np.zeros(npair * nslice, F32), np.int32(nslice)]
    out = run("probe/sw-bitonic-rgba-const", h, npair, symbols={"c_dir": dirs}, grid=(nslice, npair))
    ref = _sw_ref(src, dst, dirs, npair, nslice)
    got = out[2].reshape(npair, nslice)
    assert np.allclose(got, ref, rtol=2e-5, atol=1e-7), np.abs(got - ref).max()
    return got


def test_sliced_w2():
    rng = np.random.default_rng(7)
    src, dst = tp._p223_thumbs(2, rng), tp._p223_thumbs(2, rng)
    dirs = tp._p223_sw_dirs(0, rng)["c_dir"]
    got = _check_sw(src, dst, dirs, 2, 3)
    assert (got > 1e-4).all()


def test_sliced_w2_cases():
    rng = np.random.default_rng(8)
    src = tp._p223_thumbs(2, rng)
    dirs = tp._p223_sw_dirs(0, rng)["c_dir"]
    dirs[:3] = [1, 0, 0]                                                 # the red channel alone
    # the same pixels in another order (ties included): distance 0 exactly on every direction
    perm = src.copy()
    perm[0] = src[0][rng.permutation(1024)]
    perm[1] = src[1][::-1]
    got = _check_sw(src, perm, dirs, 2, 2)
    assert (got == 0).all()
    # every red value 40 higher (none clipped): the red direction gives (40 / 255)^2
    a = np.zeros((1, 1024), tp.P223_RGBA)
    a["r"] = rng.integers(0, 200, 1024)
    a["g"], a["b"], a["a"] = 7, 250, 255
    b = a.copy()
    b["r"] += 40
    b[0] = b[0][rng.permutation(1024)]
    got = _check_sw(a, b, dirs, 1, 2)
    assert got[0, 0] == pytest.approx((40 / 255) ** 2, rel=1e-5)


# ---- kern-laplace-graph-ballot ----

def _check_graph(X, n, cap=None, grid=None, inv_sigma=0.3, cutoff=tp.P223_G_CUTOFF):
    cap = tp.P223_G_DEGREE * n if cap is None else cap
    h = [np.asarray(X, F32).ravel(), np.int32(n), np.int32(n.bit_length() - 1), F32(inv_sigma), F32(cutoff),
         np.zeros(max(cap, 1), tp.P223_EDGE), np.zeros(1, np.int32), np.int32(cap)]
    out = run("probe/kern-laplace-graph-ballot", h, n, grid=grid)
    i, j, w, border = _graph_ref(X, n, inv_sigma, cutoff)
    count = int(out[6][0])
    e = out[5][:min(count, cap)]
    got = set(zip(e["i"].tolist(), e["j"].tolist()))
    want = set(zip(i.tolist(), j.tolist()))
    assert len(got) == len(e)                                           # every slot filled once
    assert got - want <= border and len(want - got - border) <= max(0, count - cap) and \
        abs(count - len(want)) <= len(border)
    if count <= cap:
        assert want - border <= got
    ref_w = dict(zip(zip(i.tolist(), j.tolist()), w))
    for a, b, ww in zip(e["i"], e["j"], e["w"]):
        if (a, b) in ref_w:
            assert ww == pytest.approx(ref_w[(a, b)], rel=2e-6)
    return count, e


def test_laplace_graph():
    rng = np.random.default_rng(9)
    n = 256                                                              # 256 blocks of 256 pairs, one trip each
    X = tp._p223_graph_points(n, rng)
    inv = np.float32(1 / tp._p223_graph_sigma(X, rng))
    count, e = _check_graph(X, n, inv_sigma=inv)
    assert 300 < count < 16 * n
    count2, _ = _check_graph(X, n, grid=(16, 1), inv_sigma=inv)         # a grid-stride loop of 16 trips
    assert count2 == count


def test_laplace_graph_cases():
    rng = np.random.default_rng(10)
    n = 64
    X = tp._p223_graph_points(n, rng)
    X[10] = X[11]                                                        # a duplicate point: w = 1
    X[20] = 50.0                                                         # an outlier: no neighbour
    count, e = _check_graph(X, n, grid=(1, 1))                           # one block, 16 trips
    assert (10, 11) in set(zip(e["i"].tolist(), e["j"].tolist())) and not ((e["i"] == 20) | (e["j"] == 20)).any()
    assert e["w"][(e["i"] == 10) & (e["j"] == 11)][0] == 1.0
    cap = count // 3
    c2, e2 = _check_graph(X, n, cap=cap)                                 # overflow: counted, only cap stored
    assert c2 == count and len(e2) == cap
    c3, _ = _check_graph(X, n, cap=0)                                    # no room at all
    assert c3 == count
    c1, e1 = _check_graph(np.zeros((1, 8), F32), 1)                      # a single point: no pair
    assert c1 == 0
    same = np.zeros((32, 8), F32)                                        # 32 equal points: every pair, a full warp
    c4, e4 = _check_graph(same, 32)
    assert c4 == 32 * 31 // 2 and (e4["w"] == 1).all()
