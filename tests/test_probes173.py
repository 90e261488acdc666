"""probe-unseen171's kernels (kernels_cuda/probes173.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/fmri-glm-ols-const", "probe/fc-seed-corr-warp", "probe/dti-wls-cholesky",
       "probe/tract-det-fibre-walk", "probe/smooth-gauss-y-tile", "probe/roi-parcel-sum-atomic"]
U = 2.0 ** -24                                              # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen171"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes173.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    tis, bias = tp._p173_brain(tp.P173_BOX, rng)
    c = np.bincount(tis.ravel(), minlength=4)
    share = c[1:] / c[1:].sum()
    assert tis.shape == tp.P173_BOX and tp.P173_FRAC < c[1:].sum() / tis.size < 0.3
    assert 0.08 < share[0] < 0.16 and 0.42 < share[1] < 0.54 and 0.34 < share[2] < 0.46      # CSF, GM, WM
    assert 0.85 <= bias.min() and bias.max() <= 1.15 and np.abs(np.diff(bias, axis=2)).max() < 0.3 / 20
    # glm: the design and its pseudo-inverse, the run's baseline, blobs and AR(1) noise
    n, T = 8192, tp.P173_GLM_T
    Y, beta, tst, T_, cvar, n_ = tp._p173_glm_args(n, rng)
    syms = tp._p173_glm_syms(n, rng)
    X = syms["c_X"].reshape(-1, 8).astype(np.float64)
    P = syms["c_pinv"].reshape(-1, 8).astype(np.float64)
    assert len(Y) == T * n and T_ == T and n_ == n and len(beta) == 8 * n and (X[T:] == 0).all()
    assert np.abs(P[:T].T @ X[:T] - np.eye(8)).max() < 1e-5 and list(syms["c_con"][:3]) == [0, 1, -1]
    assert abs(cvar - syms["c_con"] @ np.linalg.inv(X[:T].T @ X[:T]) @ syms["c_con"]) < 1e-6
    assert (X[:T, 0] == 1).all() and X[:T, 1].max() == 1 and (X[:T, 1] @ X[:T, 2]) < 0.1 * (X[:T, 1] @ X[:T, 1])
    b, rss, t = tp._p173_glm_ref(Y, X, P, syms["c_con"], T, cvar)
    assert 600 < np.median(b[0]) < 1100 and 0.006 < np.median(np.sqrt(rss / (T - 8)) / b[0]) < 0.015
    act = b[1] / b[0] > 0.004
    assert 0.02 < act.mean() < 0.08 and (act[1:] == act[:-1]).mean() > 0.85                    # blobs
    assert 0.02 < (np.abs(t) > 3.1).mean() < 0.12
    r = Y.reshape(T, n) - X[:T] @ b
    assert 0.2 < np.median((r[1:] * r[:-1]).sum(axis=0) / (r * r).sum(axis=0)) < 0.35           # AR(1)
    # seed corr: grand-mean scaled grayordinates, the seed demeaned and of norm 1, networks
    n = 2048
    Y, seed, *_, T, n_ = tp._p173_fc_args(n, rng)
    Y = Y.reshape(n, T)
    assert T == tp.P173_FC_T and abs(np.median(Y.mean(axis=1)) / 10000 - 1) < 0.05
    assert abs(np.linalg.norm(seed) - 1) < 1e-6 and abs(seed.sum()) < 1e-4
    r, z = tp._p173_fc_ref(Y, seed, T)
    assert 0.03 < (r > 0.4).mean() < 0.3 and np.median(np.abs(r)) < 0.2 and r.max() < 0.95
    f = np.fft.rfft(Y - Y.mean(axis=1, keepdims=True), axis=1)
    fr = np.fft.rfftfreq(T, tp.P173_FC_TR)
    assert (np.abs(f[:, (fr > 0.01) & (fr < 0.1)]) ** 2).mean() > 3 * (np.abs(f[:, fr > 0.2]) ** 2).mean()
    # dti: the gradient table, the integer signals, FA and MD by tissue
    bval, bvec = tp._p173_dt_table()
    dw = bval > 0
    assert list(np.flatnonzero(~dw)) == list(tp.P173_DT_B0) and len(bval) == tp.P173_DT_NG
    assert np.allclose(np.linalg.norm(bvec[dw], axis=1), 1, atol=1e-6) and (bvec[dw, 2] > 0).all()
    cosang = np.abs(bvec[dw] @ bvec[dw].T) - 2 * np.eye(dw.sum())
    assert cosang.max() < np.cos(np.radians(10))                               # spread over the sphere
    n = 8192
    S, *_, ng, n_ = tp._p173_dt_args(n, rng)
    assert (S == np.rint(S)).all() and S.min() >= 0 and ng == 70
    D, fa, md, cond = tp._p173_dt_ref(S, bval, bvec)
    assert cond.max() < 20 and 700 < np.median(S.reshape(ng, n)[0]) < 1100
    hi, lo = fa > 0.45, fa < 0.25
    assert 0.3 < hi.mean() < 0.5 and 0.5 < lo.mean() < 0.7                    # white matter, the rest
    assert 0.75e-3 < np.median(md[hi]) < 1.1e-3 and 0.08 < (md > 2e-3).mean() < 0.16       # CSF
    # tract: the field, the seeds in white matter, the streamlines' lengths and ends
    n = 4096
    F, seed, *_, nx, ny, nz, step, fa_min, cos_min, ms, n_ = tp._p173_tr_args(n, rng)
    F4 = F.reshape(-1, 4)
    seed = seed.reshape(n, 3)
    assert (nz, ny, nx) == tp.P173_BOX and ms == tp.P173_TR_STEPS and abs(cos_min - np.sqrt(0.5)) < 1e-7
    assert np.allclose(np.linalg.norm(F4[:, :3], axis=1), 1, atol=1e-5)
    assert 0.34 < (F4[:, 3] > 0.2).sum() / (F4[:, 3] > 0).sum() < 0.46                         # white matter
    iv = (np.floor(seed[:, 2]) * ny + np.floor(seed[:, 1])) * nx + np.floor(seed[:, 0])
    assert (F4[iv.astype(np.int64), 3] > tp.P173_TR_SEED_FA).all() and (np.diff(iv) >= 0).all()
    L, e0, e1, _ = tp._p173_tr_ref(F, seed, nx, ny, nz, step, fa_min, cos_min, ms)
    assert 20 < np.median(L) < 45 and np.percentile(L, 99) < 200 and L.min() >= 1
    ends = np.concatenate([e0, e1])
    assert (ends >= 0).all() and 0.6 < (F4[ends, 3] < fa_min).mean() < 0.85       # most stop in grey matter
    dv = F4[:, :3].reshape(nz, ny, nx, 3)
    assert np.median(np.abs((dv[:, :, 1:] * dv[:, :, :-1]).sum(axis=3))) > 0.9   # a smooth field
    # smooth: the weights, the run's background
    w = tp._p173_sm_weights()
    k = np.arange(-4, 5)
    assert (w == w[::-1]).all() and abs(w.sum() - 1) < 1e-6
    assert abs(np.sqrt(8 * np.log(2) * (w * k * k).sum()) - tp.P173_SM_FWHM) < 0.02
    x, out, nx, ny = tp._p173_sm_args(91, rng)
    assert len(x) == 91 * 109 * 91 and (nx, ny) == (91, 109) and x.min() >= 0
    assert 0.7 < (x < 100).mean() < 0.76 and abs(np.median(x[x < 100]) - 8 * 0.674) < 0.3       # |N(0, 8^2)|
    # roi: the parcels, integer values, sums exact in float32
    n, V = 8, 1 << 16
    Y, lab, sums, V_ = tp._p173_roi_args(n, rng, V=V)
    cnt = np.bincount(lab, minlength=401)
    assert V_ == V and lab.max() == 400 and (cnt[1:] > 0).all() and 0.4 < (lab > 0).mean() < 0.55
    assert np.median(cnt[1:]) > 30 and (lab[1:] == lab[:-1]).mean() > 0.7           # contiguous runs
    assert (Y == np.rint(Y)).all() and Y.min() > 300 and np.abs(tp._p173_roi_ref(Y, lab, n)).max() < 2 ** 24


# ---- fmri-glm-ols-const ----

def test_glm_ols():
    n, T = 160, 60                                          # 2 blocks, the second partial
    rng = np.random.default_rng(0)
    host = tp._p173_glm_args(n, rng, T=T)
    syms = tp._p173_glm_syms(n, rng, T=T)
    Y = host[0].reshape(T, n)
    Y[:, 3] = 0                                             # a voxel with no signal: betas 0, t 0
    out = run("probe/fmri-glm-ols-const", host, n, symbols=syms)
    beta, rss, t = tp._p173_glm_ref(Y, syms["c_X"], syms["c_pinv"], syms["c_con"], T, host[4])
    P = syms["c_pinv"].reshape(-1, 8)[:T].astype(np.float64)
    # a float32 sum of T products, one rounding each: |error| <= T u sum |pinv| |y|
    assert (np.abs(out[1].reshape(8, n) - beta) <= T * U * (np.abs(P.T) @ np.abs(Y))).all()
    # the residuals (~1% of the baseline) lose ~2 digits against the fit: rss good to ~1e-4, t to half that
    assert (np.abs(out[2] - t) <= 1e-3 * np.maximum(np.abs(t), 1)).all() and np.abs(t).max() > 1
    assert (out[1].reshape(8, n)[:, 3] == 0).all() and out[2][3] == 0 and (rss > 0).sum() == n - 1


# ---- fc-seed-corr-warp ----

@pytest.mark.parametrize("n, policy", [(40, "lockstep"), (12, "random")])
def test_seed_corr(n, policy):
    rng = np.random.default_rng(0)                          # 40: 5 blocks of 8 warps
    host = tp._p173_fc_args(n, rng)
    T = int(host[4])
    Y = host[0].reshape(n, T)
    s = host[1].astype(np.float64)
    u = rng.standard_normal(T)
    u -= u.mean()
    u -= (u @ s) * s
    u /= np.linalg.norm(u)
    Y[1] = 10000                                            # a flat series: r = 0 exactly
    Y[2] = 10000 + 100 * (0.6 * s + 0.8 * u)                # correlated 0.6 with the seed
    out = run("probe/fc-seed-corr-warp", host, n, policy=policy)
    r, z = tp._p173_fc_ref(Y, host[1], T)
    # float32 sums of ~38 products a lane, then 5 shuffle levels, of terms bounded by the norm: ~43 u,
    # plus the mean's rounding: 1e-5 on r; z's derivative is 1 / (1 - r^2)
    assert (np.abs(out[2] - r) <= 1e-5).all() and (np.abs(out[3] - z) <= 1e-5 / (1 - r * r)).all()
    assert out[2][1] == 0 and out[3][1] == 0 and abs(out[2][2] - 0.6) < 1e-4
    assert (r > 0.5).sum() > 2 and (np.abs(r) < 0.1).sum() > 2


# ---- dti-wls-cholesky ----

def test_dti_wls():
    n = 160                                                 # 2 blocks, the second partial
    rng = np.random.default_rng(0)
    host = tp._p173_dt_args(n, rng)
    syms = tp._p173_dt_syms(n, rng)
    bval, bvec = tp._p173_dt_table()
    S = host[0].reshape(len(bval), n)
    S[:, 0] = 0                                             # outside the brain: all 0
    Dt = np.array([1.2e-3, 0.5e-3, 0.4e-3, 0.2e-3, -0.1e-3, 0.05e-3])       # Dxx Dyy Dzz Dxy Dxz Dyz
    g = bvec.astype(np.float64)
    q = np.c_[g * g, 2 * g[:, 0] * g[:, 1], 2 * g[:, 0] * g[:, 2], 2 * g[:, 1] * g[:, 2]]
    S[:, 1] = 1000 * np.exp(-bval * (q @ Dt))               # noise-free
    # the fit (slow in the emulator) on the first warp and the second block's; the voxels
    # between outside the brain (all 0: the early return)
    keep = (np.arange(n) < 32) | (np.arange(n) >= 128)
    S[:, ~keep] = 0
    out = run("probe/dti-wls-cholesky", host, n, symbols=syms)
    D, fa, md, cond = tp._p173_dt_ref(S, bval, bvec)
    Dg = out[1].reshape(6, n).T
    # float32 normal equations (64 terms) solved by Cholesky: ~64 u cond(A) of |D|
    nrm = np.linalg.norm(D, axis=1)
    assert (np.linalg.norm(Dg - D, axis=1)[1:] <= 64 * U * cond[1:] * nrm[1:]).all()
    assert (np.abs(out[2] - fa) <= 1e-5).all() and (np.abs(out[3] - md) <= 1e-5 * np.abs(md)).all()
    assert (Dg[0] == 0).all() and out[2][0] == 0 and out[3][0] == 0
    assert np.linalg.norm(Dg[1] - Dt) < 1e-4 * np.linalg.norm(Dt) and abs(out[3][1] - 0.7e-3) < 1e-8
    assert fa[keep][1:].max() > 0.2 and fa[keep][1:].min() < 0.1 and (Dg[~keep] == 0).all()


# ---- tract-det-fibre-walk ----

@pytest.mark.parametrize("n, seed, policy", [(160, 1, "lockstep"), (64, 2, "random")])
def test_track_det(n, seed, policy):
    steps = 24                                              # 160: 2 blocks, the second partial
    rng = np.random.default_rng(seed)
    host = tp._p173_tr_args(n, rng, shape=(46, 55, 46), max_steps=steps)
    out = run("probe/tract-det-fibre-walk", host, n, policy=policy)
    L, e0, e1, margin = tp._p173_tr_ref(host[0], host[1], *host[5:12])
    # the steps 0.5 d are exact: float32 positions (< 64) drift at most half an ulp (2^-19) a step,
    # under 1e-4 after 24; nearer a voxel face or the angle limit float32 may decide otherwise
    ok = margin > 1e-4
    assert ok.mean() > 0.85 and L.max() > steps
    assert (out[2] == L)[ok].all() and (out[3] == e0)[ok].all() and (out[4] == e1)[ok].all()


def test_track_det_stops():
    # a 12 x 5 x 4 volume, a seed at (2.25, y + 0.5, 1.5) in each row y: row 0 along +x (the step limit
    # forward, out of the volume backward), row 1 FA 0.1 at x = 7, row 2 turning to +y at x = 9, row 3
    # along -x (the sign flipped: the forward walk goes to -x)
    nx, ny, nz, steps = 12, 5, 4, 16
    F = np.zeros((nz, ny, nx, 4), np.float32)
    F[..., 0] = 1
    F[..., 3] = 0.5
    F[:, 1, 7, 3] = 0.1
    F[:, 2, 9, :3] = (0, 1, 0)
    F[:, 3, :, 0] = -1
    seed = np.array([[2.25, y + 0.5, 1.5] for y in range(4)], np.float32)
    host = [F.ravel(), seed.ravel(), *(np.zeros(4, np.int32) for _ in range(3)), np.int32(nx), np.int32(ny),
            np.int32(nz), np.float32(0.5), np.float32(0.2), np.float32(np.sqrt(0.5)), np.int32(steps), np.int32(4)]
    out = run("probe/tract-det-fibre-walk", host, 4)
    vox = lambda x, y: (1 * ny + y) * nx + x
    assert list(out[2]) == [21, 15, 19, 21]
    assert list(out[3]) == [vox(10, 0), vox(7, 1), vox(9, 2), -1] and list(out[4]) == [-1, -1, -1, vox(10, 3)]
    ref = tp._p173_tr_ref(*host[:2], *host[5:12])
    assert all((a == b).all() for a, b in zip(out[2:5], ref[:3]))


# ---- smooth-gauss-y-tile ----

def test_smooth_y():
    rng = np.random.default_rng(0)
    h = tp._p173_sm_args(46, rng)                           # the lower half of a volume
    nx, ny = int(h[2]), int(h[3])
    m = nx * ny
    x = h[0][44 * m:46 * m].copy()                          # 2 slices through the brain
    w = tp._p173_sm_weights()
    out = run("probe/smooth-gauss-y-tile", [x, np.zeros(2 * m, np.float32), h[2], h[3]], 2, symbols={"c_gauss": w})
    ref = tp._p173_sm_ref(x, nx, ny, w)
    # 9 non-negative float32 products summed: relative error < 9 u
    assert (np.abs(out[1] - ref) <= 9 * U * ref).all() and ref.max() > 500
    # impulses next to the edges (the last blocks partial in x and y): the weights cut there, exactly
    x = np.zeros(2 * m, np.float32)
    x[1 * nx + 5] = 1
    x[m + (ny - 2) * nx + nx - 1] = 1
    out = run("probe/smooth-gauss-y-tile", [x, np.zeros(2 * m, np.float32), h[2], h[3]], 2,
              symbols={"c_gauss": w})[1].reshape(2, ny, nx)
    assert (out[0, :6, 5] == w[5::-1]).all() and (out[1, ny - 6:, nx - 1] == w[:6]).all()
    assert np.count_nonzero(out) == 12


# ---- roi-parcel-sum-atomic ----

@pytest.mark.parametrize("T, V, policy", [(3, 20000, "lockstep"), (1, 16500, "random")])
def test_roi_sums(T, V, policy):
    # 2 chunks of voxels, the second partial
    rng = np.random.default_rng(0)
    host = tp._p173_roi_args(T, rng, V=V)
    host[1][16352:16416] = 7                                # 2 warps on one parcel, across the chunks' edge
    host[1][V - 1] = 400
    out = run("probe/roi-parcel-sum-atomic", host, T, policy=policy)
    ref = tp._p173_roi_ref(host[0], host[1], T)
    # integer values and sums under 2^24: exact in any order
    assert ref.max() < 2 ** 24 and (out[2] == ref.ravel()).all()
    assert (ref[:, 6] > 64 * 300).all() and (ref[:, 399] > 0).all()
