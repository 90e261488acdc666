"""probe-unseen187's kernels (kernels_cuda/probes189.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/hill-muscle-bisect", "probe/gait-invdyn-7seg", "probe/marker-pose-horn-quat",
       "probe/forceplate-cop-shfl", "probe/qct-bmd-region-hist", "probe/tet-stiffness-csr-f64"]
U = 2.0 ** -24                                              # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen187"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes189.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # muscles: parameters in their ranges, activations low with bursts, lengths about slack + fiber
    mus, lmt, vmt, act, F, lf, T, n = tp._p189_hill_args(3000, rng, muscles=200)
    assert mus.dtype.itemsize == 20 and T == 3000 and n == 200 * 3000 and len(lmt) == len(act) == n
    assert 40 <= mus["fmax"].min() and mus["fmax"].max() <= 6000 and 300 < np.median(mus["fmax"]) < 800
    assert 0.15 < (mus["alpha0"] == 0).mean() < 0.45 and mus["alpha0"].max() <= 0.45
    r = mus["lslack"] / mus["lopt"]
    assert r.min() >= 0.1 * 0.999 and r.max() <= 12 * 1.001 and (r > 4).mean() > 0.1 and (r < 0.8).mean() > 0.1
    assert act.min() >= 0.01 and act.max() <= 1 and np.median(act) < 0.1 and act.mean() > 1.3 * np.median(act)
    assert 0.02 < (act > 0.3).mean() < 0.25
    A = act.reshape(200, T)
    assert (A.max(axis=1) > 5 * np.median(A, axis=1)).mean() > 0.8            # bursts, not noise
    L = lmt.reshape(200, T)
    ls, lo = mus["lslack"][:, None], mus["lopt"][:, None]
    assert ((L - ls) / lo).min() > 0.3 and ((L - ls) / lo).max() < 2.2
    assert np.abs(vmt).max() < 10 * mus["lopt"].max() and np.median(np.abs(vmt.reshape(200, T)) / lo) < 1.5
    # gait: 2 trials, stance 62% of each leg's cycle, double support, vertical GRF ~1 BW at its peaks
    kin, grf, subj, out, n = tp._p189_id_args(4500, rng)
    M, H, seg = tp._p189_id_subjects()
    assert seg.shape == (64, 7, 4) and 40 < M.min() and M.max() < 160 and 1.5 <= H.min() and H.max() <= 2.0
    assert abs(seg[:, :, 0].sum(axis=1) / M - 1.0) .max() < 0.01               # the segments weigh the body
    k, g = kin.reshape(n, 25), grf.reshape(n, 6)
    assert len(out) == 9 * n and (np.diff(subj) >= 0).all() and len(np.unique(subj)) <= 2
    st = g[:, [1, 4]] > 0
    assert np.abs(st.mean(axis=0) - 0.62).max() < 0.03 and abs(st.all(axis=1).mean() - 0.24) < 0.03
    bw = M[subj] * 9.81
    assert abs(np.percentile(g[:, 1] / bw, 99) - 1.0) < 0.06 and (g[~st[:, 0], :3] == 0).all()
    assert 0 < np.degrees(k[:, 5] - k[:, 6]).min() < 10 and 55 < np.degrees(k[:, 5] - k[:, 6]).max() < 75
    assert np.allclose(np.gradient(k[:3000, 5], 0.01)[1:-1], k[1:2999, 12], atol=1e-4)   # velocities
    ankle_x = k[:, 0] + seg[subj, 1, 1] * np.cos(k[:, 5]) + seg[subj, 2, 1] * np.cos(k[:, 6])
    d = g[st[:, 0], 2] - ankle_x[st[:, 0]]
    assert -0.051 < d.min() and d.max() < 0.171                                 # under the foot
    # markers: 6 a frame, rigid up to the noise, a few occluded
    mk, q, t, rms, n = tp._p189_horn_args(12000, rng)
    b = mk.reshape(n, 6, 3)
    vis = ~(b == 0).all(axis=2)
    miss = 1 - vis.mean(axis=0)
    assert 0.002 < miss[:4].mean() < 0.02 and 0.01 < miss[4:].mean() < 0.06 and (vis.sum(axis=1) < 3).mean() < 0.005
    ref = tp._p189_cluster()
    both = vis[:, 0] & vis[:, 4]
    d01 = np.linalg.norm(b[both, 0] - b[both, 4], axis=1)
    assert abs(np.median(d01) - np.linalg.norm(ref[0] - ref[4])) < 0.2 and d01.std() < 1
    x = b[vis[:, 0], 0, 0]
    assert x.min() < -3500 and x.max() > 3000                                    # along the walkway
    R, tr, e, ok, _ = tp._p189_horn_ref(mk, ref)
    ang = np.degrees(np.arccos(np.clip((np.einsum("fii->f", R[ok]) - 1) / 2, -1, 1)))
    # a rigid fit of 6 markers leaves 3 x 6 - 6 of the 18 noise terms: rms sqrt(2) sigma
    assert abs(np.median(e[ok]) / tp.P189_HORN_NOISE - np.sqrt(2)) < 0.1 and 10 < ang.max() < 60
    # force plate: 20 trials, ~13% loaded, Fz's peaks ~1 BW, the CoP on the plate
    N = 20 * 5000
    ch, fz, cx, cy, tz, a, b_, az0, n = tp._p189_fp_args(N, rng)
    assert len(ch) == 8 * N and (a, b_, az0) == tuple(np.float32(v) for v in tp.P189_FP_PLATE)
    Fz, X, Y, Tz, _, _ = tp._p189_fp_ref(ch, a, b_, az0, N)
    on = Fz >= 20
    assert 0.06 < on.mean() < 0.25 and np.percentile(np.abs(Fz[~on]), 90) < 3                # offsets, noise
    assert 500 < np.percentile(Fz, 99.5) < 1300 and np.abs(X[on]).max() < 0.2 and np.abs(Y[on]).max() < 0.3
    assert 0.5 < np.abs(Tz[on]).max() < 10
    # QCT: air, soft tissue, bone by region, the phantom's rods
    hu, lab, hist, sl, ic, n = tp._p189_qct_args(64 * 64 * 64, rng, side=64)
    assert hu.dtype == np.int16 and lab.dtype == np.uint8 and len(hist) == 8 * 256 and n == 64 ** 3
    assert (sl, ic) == tuple(np.float32(v) for v in tp.P189_QCT_CAL)
    assert 0.55 < (hu < -900).mean() < 0.8 and 0.015 < (lab > 0).mean() < 0.05 and set(np.unique(lab)) == set(range(9))
    assert abs(np.median(hu[lab == 4]) - 1450) < 30 and abs(np.median(hu[lab == 5]) + 30) < 10
    assert abs(np.median(hu[lab == 7]) - 200) < 30 and abs(np.median(hu[lab == 6]) - 1450) < 50
    assert 0.02 < (hu == -1024).mean() < 0.15                                   # air's noise clipped
    rod = sl * hu[lab == 8].astype(np.float64) + ic
    assert abs(np.sort(rod)[len(rod) // 10] - 0) < 40 and abs(np.sort(rod)[-len(rod) // 10] - 375) < 40
    # FE: a tube of Kuhn tetrahedra, positively oriented, 15 neighbours a node inside
    tet, xyz, rho, rowptr, col, val, nu, n = tp._p189_fe_args(120000, rng)
    T4 = tet.reshape(-1, 4)
    X = xyz.reshape(-1, 3)[T4]
    assert len(T4) == n == 120000 and (np.linalg.det(X[:, 1:] - X[:, :1]) > 0.05).all()
    deg = np.diff(rowptr)
    assert deg.max() == 15 and abs(np.median(deg) - 15) <= 1 and len(val) == 9 * len(col)
    assert all(i in col[rowptr[i]:rowptr[i + 1]] for i in range(0, len(deg), 97))
    assert (np.diff(col)[np.diff(np.repeat(np.arange(len(deg)), deg)) == 0] > 0).all()     # sorted rows
    r = np.hypot(X[:, :, 0], X[:, :, 1]).mean(axis=1)
    z = X[:, :, 2].mean(axis=1)
    assert z.max() > 30 and (r[z > 26] > 7.5).all()                             # the canal's empty
    assert abs(np.median(rho[(z < 24) & (r < 11)]) - 0.3) < 0.02 and abs(np.median(rho[z > 26]) - 1.75) < 0.01


# ---- hill-muscle-bisect ----

@pytest.mark.parametrize("T, policy", [(40, "lockstep"), (24, "random")])
def test_muscle_eq_force(T, policy):
    rng = np.random.default_rng(3)
    h = tp._p189_hill_args(T, rng, muscles=6)               # 6 muscles: warps straddle them
    mus = h[0]
    # a slack musculotendon (no force) and a stretched one (bracket's top) in muscle 0
    h[1][0] = 0.9 * mus["lslack"][0]
    h[1][1] = mus["lslack"][0] * 1.3 + 2 * mus["lopt"][0]
    out = run("probe/hill-muscle-bisect", h, T, policy=policy)
    lm, F, width = tp._p189_hill_ref(mus, h[1], h[2], h[3], T)
    # 20 halvings leave the root within width / 2^21 of the last midpoint; float32 moves it
    # by the rounding of g's terms (~1e-6 of Fmax) over g's slope: under 2e-6 of lopt here
    lopt = np.repeat(mus["lopt"], T)
    fmax = np.repeat(mus["fmax"], T)
    assert (np.abs(out[5] - lm) <= width * 2.0 ** -(tp.P189_HILL_ITERS + 1) + 2e-6 * lopt).all()
    # the force at the fiber length found: float32 tendon strain (an ulp of lmt over lslack,
    # times the tendon's stiffness 42.8) plus the fiber length's error times the same stiffness
    ls = np.repeat(mus["lslack"], T)
    tol = 42.8 * fmax * (np.abs(h[1]) * 4 * U + width * 2.0 ** -(tp.P189_HILL_ITERS + 1) + 2e-6 * lopt) / ls
    assert (np.abs(out[4] - F) <= tol).all() and (F > 0).mean() > 0.8
    assert out[4][0] == 0 and abs(out[5][1] - 1.8 * mus["lopt"][0]) < 1e-5 * mus["lopt"][0]


# ---- gait-invdyn-7seg ----

@pytest.mark.parametrize("n, policy", [(150, "lockstep"), (70, "random")])
def test_gait_inverse_dynamics(n, policy):
    rng = np.random.default_rng(1)
    h = tp._p189_id_args(3000, rng)
    w0 = 700                                                # a window with both single and double support
    k = h[0].reshape(-1, 25)[w0:w0 + n].ravel()
    g = h[1].reshape(-1, 6)[w0:w0 + n].ravel()
    s = h[2][w0:w0 + n].copy()
    s[n // 2:] = 37                                          # a second subject in mid-warp
    syms = tp._p189_id_syms(n, rng)
    out = run("probe/gait-invdyn-7seg", [k, g, s, np.zeros(9 * n, np.float32), np.int32(n)], n, policy=policy,
              symbols=syms)[3].reshape(n, 9)
    ref = tp._p189_id_ref(k, g, s, syms["c_seg"])
    gg = g.reshape(n, 6)
    assert (gg[:, 1] > 0).any() and (gg[:, 1] == 0).any() and ((gg[:, 1] > 0) & (gg[:, 4] > 0)).any()
    # float32: terms up to |r| |F| ~ 1 m x 800 N (N m) or 800 N, a few roundings of each: 2e-4
    assert np.abs(out - ref).max() < 2e-4 and np.abs(ref[:, :6]).max() > 50


def test_gait_standing_still():
    # standing upright and still, each foot flat with half the weight under its ankle
    n = 32
    M, H, seg = tp._p189_id_subjects()
    s = 5
    k = np.zeros((n, 25), np.float32)
    k[:, 1] = seg[s, 1, 1] + seg[s, 2, 1]
    k[:, 4:11] = [np.pi / 2, -np.pi / 2, -np.pi / 2, 0, -np.pi / 2, -np.pi / 2, 0]
    W = float(seg[s, :, 0].sum()) * 9.81
    g = np.zeros((n, 6), np.float32)
    g[:, [1, 4]] = W / 2
    out = run("probe/gait-invdyn-7seg", [k.ravel(), g.ravel(), np.full(n, s, np.int32), np.zeros(9 * n, np.float32),
                                        np.int32(n)], n, symbols=tp._p189_id_syms(n, None))[3].reshape(n, 9)
    ref = tp._p189_id_ref(k.ravel(), g.ravel(), np.full(n, s), seg)
    # the foot's own weight at its centre of mass, half its length ahead of the ankle, held
    # by every joint above it; the trunk's residual force 0, its moment both feet's
    foot = seg[s, 3, 0] * 9.81 * seg[s, 3, 1] * 0.5
    assert np.allclose(ref[0, :6], foot, rtol=1e-4) and abs(ref[0, 8] - 2 * foot) < 1e-4 * foot
    assert np.abs(ref[0, 6:8]).max() < 1e-4 and np.abs(out - ref).max() < 1e-4


# ---- marker-pose-horn-quat ----

@pytest.mark.parametrize("n, policy", [(100, "lockstep"), (40, "random")])
def test_marker_pose_horn(n, policy):
    rng = np.random.default_rng(2)
    h = tp._p189_horn_args(4000, rng)
    mk = h[0].reshape(-1, 6, 3)
    w0 = max(0, int(np.argmax((mk == 0).all(axis=2).any(axis=1))) - 5)      # some occlusions in the window
    mk = mk[w0:w0 + n].copy()
    mk[3, [1, 3, 5]] = 0                                    # 3 visible: still a pose
    mk[7, 1:] = 0                                           # 1 visible: none
    mk[8, [0, 2, 4, 5]] = 0                                 # 2 visible: none
    h = [mk.ravel(), np.zeros(4 * n, np.float32), np.zeros(3 * n, np.float32), np.zeros(n, np.float32),
         np.int32(n)]
    out = run("probe/marker-pose-horn-quat", h, n, policy=policy, symbols=tp._p189_horn_syms(n, None))
    R, t, rms, ok, conv = tp._p189_horn_ref(h[0], tp._p189_cluster())
    q = out[1].reshape(n, 4)
    assert (~ok).sum() >= 2 and (q[~ok] == 0).all() and (out[2].reshape(n, 3)[~ok] == 0).all()
    assert (out[3][~ok] == -1).all() and ((mk == 0).all(axis=2).sum(axis=1) > 0).sum() > 4
    # the power iteration's error shrinks by the ratio of Horn's 2 top (shifted) eigenvalues an
    # iteration: ~0.6 with all 6 markers (converged to float32 rounding after 32), ~0.9 with 3
    # (a flat triangle): rotation entries to 2e-6 plus 4 conv (the start (1, 0, 0, 0) is half
    # the rotation's angle, under 30 degrees, from the answer); the translation to 5e-3 mm plus
    # the rotation's error times the 0.6 m from the origin to the static cluster, the residual
    # plus it times the cluster's 60 mm radius
    tol = 2e-6 + 4 * conv[ok]
    assert (conv[ok] < 1e-6).mean() > 0.9 and conv[3] > 1e-3
    assert np.abs(np.linalg.norm(q[ok], axis=1) - 1).max() < 1e-6
    assert (np.abs(tp._p189_quat_to_rot(q[ok]) - R[ok]).max(axis=(1, 2)) < tol).all()
    assert (np.abs(out[2].reshape(n, 3)[ok] - t[ok]).max(axis=1) < 5e-3 + 600 * tol).all()
    assert (np.abs(out[3][ok] - rms[ok]) < 2e-3 + 60 * tol).all() and rms[ok].min() > 0.1


# ---- forceplate-cop-shfl ----

@pytest.mark.parametrize("n, policy", [(600, "lockstep"), (100, "random")])
def test_forceplate_cop(n, policy):
    rng = np.random.default_rng(4)
    N = 5000
    h = tp._p189_fp_args(N, rng)
    ch = h[0].reshape(8, N)
    fz0 = ch[4:].sum(axis=0)
    w0 = int(np.argmax(fz0 > 20)) - (n // 3 if n > 200 else 40)      # the window has the heel strike
    c = ch[:, w0:w0 + n].ravel().copy()
    a, b, az0 = h[5:8]
    z = lambda: np.zeros(n, np.float32)
    out = run("probe/forceplate-cop-shfl", [c, z(), z(), z(), z(), a, b, az0, np.int32(n)], n, policy=policy)
    Fz, X, Y, T, gap, scale = tp._p189_fp_ref(c, a, b, az0, n)
    on = Fz >= 20
    assert gap > 1e-3 and on.any() and (~on).any()
    # sums of 9 samples of 4 channels, divided: a few (8) roundings of the window's |channel|
    # sum; the moments carry arms of up to b + |az0| < 0.25 m, the centre of pressure / Fz
    assert (np.abs(out[1] - Fz) <= 8 * U * scale).all()
    tol = 8 * U * scale * 0.25 / np.maximum(Fz, 20)
    assert (np.abs(out[2] - X) <= tol).all() and (np.abs(out[3] - Y) <= tol).all()
    assert (np.abs(out[4] - T) <= 8 * U * scale * 0.25).all()
    assert (out[2][~on] == 0).all() and (out[4][~on] == 0).all()


def test_forceplate_constant_load():
    # a still 400 N load on the centre: the moments cancel exactly, the CoP 0; Fz 400 to the
    # rounding of the division by the window's count
    n = 100
    c = np.zeros((8, n), np.float32)
    c[4:] = 100
    z = lambda: np.zeros(n, np.float32)
    a, b, az0 = (np.float32(v) for v in tp.P189_FP_PLATE)
    out = run("probe/forceplate-cop-shfl", [c.ravel(), z(), z(), z(), z(), a, b, az0, np.int32(n)], n)
    assert np.abs(out[1] - 400).max() <= 400 * 2 * U
    assert (out[2] == 0).all() and (out[3] == 0).all() and (out[4] == 0).all()


# ---- qct-bmd-region-hist ----

@pytest.mark.parametrize("grid, step, policy", [((6,), 2, "lockstep"), ((2,), 4, "random")])
def test_qct_bmd_hist(grid, step, policy):
    rng = np.random.default_rng(5)
    h = tp._p189_qct_args(96 * 96 * 64, rng, side=96)
    hu, lab = h[0].reshape(64, 96, 96), h[1].reshape(64, 96, 96)
    # the hip's bones, and the phantom's rods
    crop = lambda v: np.concatenate([v[24::step, 38:58, 26:60].ravel(), v[::4 * step, 2:10, 30:70].ravel()])
    n = len(crop(hu))
    h = [crop(hu), crop(lab), *h[2:5], np.int32(n)]
    out = run("probe/qct-bmd-region-hist", h, n, policy=policy, grid=grid)
    ref = tp._p189_qct_ref(h[0], h[1], h[3], h[4])
    assert (out[2] == ref).all() and ref.sum() == (h[1] > 0).sum() and (ref.reshape(8, 256) > 0).any(axis=1).all()


def test_qct_calibration_edges():
    # every HU of the 12-bit range in region 3: bin edges exact (0.8125 HU - 2.5 is exact in
    # float32), densities below 0 and above 2048 clamped
    hu = np.arange(-1024, 3072, dtype=np.int16)
    lab = np.full(len(hu), 3, np.uint8)
    lab[::7] = 0
    sl, ic = (np.float32(v) for v in tp.P189_QCT_CAL)
    h = [hu, lab, np.zeros(8 * 256, np.uint32), sl, ic, np.int32(len(hu))]
    out = run("probe/qct-bmd-region-hist", h, len(hu), grid=(3,))[2].reshape(8, 256)
    ref = tp._p189_qct_ref(hu, lab, sl, ic).reshape(8, 256)
    assert (out == ref).all() and out[[0, 1, 3, 4, 5, 6, 7]].sum() == 0
    assert out[2, 0] > 800 and out[2, 255] > 300 and (out[2, 1:255] > 0).all()


# ---- tet-stiffness-csr-f64 ----

@pytest.mark.parametrize("n, policy", [(96, "lockstep"), (20, "random")])
def test_tet_stiffness_assemble(n, policy):
    host, out, *_ = launch("probe/tet-stiffness-csr-f64", n, policy=policy)
    ref, mag = tp._p189_fe_ref(*host[:5])
    # each element's V B^T D B sums cancelling terms: errors of a few ulps of its largest
    # entry, then the double atomics' in any order: under 1e-14 of those entries' sum
    assert (np.abs(out[5] - ref) <= 1e-14 * mag).all() and np.abs(ref).max() > 1e3
    # rigid translations are free: each row of blocks sums to 0 (to the rounding of its terms)
    rowptr = host[3]
    blk = out[5].reshape(-1, 3, 3)
    rows = np.add.reduceat(blk, rowptr[:-1], axis=0)
    scale = np.add.reduceat(np.abs(blk), rowptr[:-1], axis=0)
    assert (np.abs(rows) <= 1e-13 * scale.max(axis=(1, 2))[:, None, None]).all()


def test_tet_stiffness_unit_element():
    # one unit right tetrahedron of density 1 (E = 6850 MPa): node 1's diagonal block is
    # V diag(lam + 2 mu, mu, mu), V = 1/6, blocks 0-1 and 1-0 each other's transpose
    tet = np.array([0, 1, 2, 3], np.int32)
    xyz = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float64).ravel()
    rowptr, col = tp._p189_fe_csr(tet.reshape(1, 4), 4)
    h = [tet, xyz, np.ones(1, np.float32), rowptr, col, np.zeros(9 * 16), np.float64(0.3), np.int32(1)]
    v = run("probe/tet-stiffness-csr-f64", h, 1)[5].reshape(4, 4, 3, 3)
    E, nu = 6850.0, 0.3
    lam, mu = E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))
    assert np.allclose(v[1, 1], np.diag([lam + 2 * mu, mu, mu]) / 6, rtol=1e-14, atol=1e-12)
    assert np.allclose(v[0, 1], v[1, 0].T, rtol=1e-14, atol=1e-12) and np.abs(v.sum(axis=1)).max() < 1e-11
