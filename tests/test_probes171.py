"""probe-unseen169's kernels (kernels_cuda/probes171.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/gnss-brdc-orbit-dp", "probe/spp-lsq-smem-chol", "probe/ionex-tec-const-bilin",
       "probe/cycle-slip-mw-gf-arc", "probe/ambig-box-search-shfl", "probe/gim-vtec-bin-atomic"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen169"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes171.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    eph, nblk, nsat, t0, dt, pos, it, n = tp._p171_bo_args(120 * 12000, rng)      # 3.3 h
    E = eph.reshape(nsat, nblk)
    assert eph.dtype.itemsize == 160 and nsat == 120 and nblk == 3 and n == 1440000 and len(pos) == 4 * n
    assert (np.diff(E["toe"], axis=1) == 7200).all() and E["toe"][0, 0] <= t0 < E["toe"][0, 0] + 3600
    A = E["sqrtA"][:, 0] ** 2
    assert ((A > 26.5e6) & (A < 26.6e6)).sum() == 32 and ((A > 42.1e6) & (A < 42.2e6)).sum() == 27
    e = E["e"][:, 0]
    assert (e > 0.15).sum() == 2 and ((e > 0.07) & (e < 0.08)).sum() == 4 and np.median(e) < 0.005
    assert np.abs(E["M0"]).max() <= np.pi and np.abs(E["af0"]).max() < 2e-3 and np.abs(E["crs"]).max() < 1000
    S, nobs, prn, pr, *_ = tp._p171_spp_args(4096, rng)
    S = S.reshape(32, 4)
    r = np.linalg.norm(S[:, :3], axis=1)
    assert (r == 0).sum() == 1 and np.abs(r[r > 0] / 26560e3 - 1).max() < 0.03
    assert nobs.max() <= 14 and 6 <= np.median(nobs) <= 8 and 0.005 < (nobs < 4).mean() < 0.05
    P = prn.reshape(-1, 16)
    used = np.arange(16) < nobs[:, None]
    assert ((P >= 0) == used).all() and ((np.diff(P, axis=1) > 0) | ~used[:, 1:]).all()      # PRN order
    assert (r[P[used]] > 0).all() and 19e6 < pr.reshape(-1, 16)[used].min() and pr.max() < 26e6 + 4e5
    rlat, rlon, rx, az, el, t, _, dtmap, n = tp._p171_ix_args(1 << 16, rng)
    cnt = np.bincount(rx)
    assert n == len(az) == len(rx) and (np.diff(rx) >= 0).all() and abs(cnt[:-1].mean() - 12 * 25) < 10
    assert np.abs(rlat).max() <= np.radians(72) + 1e-6 and np.degrees(el.min()) >= 4.99 and el.max() <= np.pi / 2
    assert abs(np.median(np.degrees(el)) - 30) < 3 and set(np.unique(t)) == set(np.arange(12) * 300.0 + 150)
    maps = tp._p171_ix_maps(rng).reshape(2, 71, 73)
    assert (maps[:, :, 0] == maps[:, :, 72]).all() and maps.min() >= 0.5 and 40 < maps.max() < 90
    assert (maps[:, 25, 39] > 3 * maps[:, 25, 3]).all()                        # 15 N: 15 E by day, 165 W at night
    h, slip = tp._p171_cs_draw(4096, rng, 240)
    L1 = h[0].reshape(240, 4096)
    seen = L1 != 0
    assert 0.4 < seen.mean() < 0.65 and 0.7 < seen.any(axis=0).mean() < 0.95 and 300 < slip.sum() < 1200
    assert (seen | ~slip).all() and ((h[2].reshape(240, 4096) != 0) == seen).all()
    flag, nslip, _, _ = tp._p171_cs_ref(*h[:4], 32, 240, 4096)
    assert (flag[slip] == 3).mean() > 0.85 and ((flag == 3) & ~slip).sum() < 0.5 * slip.sum()   # the detector works
    a, Qi, dim, *_ = tp._p171_as_args(2000, rng)
    assert abs((dim == 7).mean() - 0.3) < 0.04 and dim.min() == 5 and dim.max() == 9
    inside = np.arange(9)[None, :] < dim[:, None]
    Qi = Qi.reshape(-1, 9, 9).astype(np.float64)
    assert (a.reshape(-1, 9)[~inside] == 0).all() and (Qi[~(inside[:, :, None] & inside[:, None, :])] == 0).all()
    Q = np.linalg.inv(Qi + np.eye(9) * ~inside[:, None, :])
    v = np.diagonal(Q, axis1=1, axis2=2)[inside]
    assert np.abs(a).max() < 200010 and np.median(v) < 0.1 and v.max() > 0.3
    fx, q1, q2, best, _ = tp._p171_as_ref(a[:300 * 9], Qi.ravel()[:300 * 81], dim[:300])
    assert 0.3 < (q2 / q1 > 3).mean() < 0.9 and (best == (3 ** dim[:300] - 1) // 2).mean() > 0.5   # rounding wins
    plat, plon, el, stec, rx, sv, drx, dsv, s, c, *grid, elmin, n = tp._p171_gb_args(1 << 16, rng)
    node = tp._p171_gb_nodes(plat, plon, el, *grid, elmin)
    assert abs((node < 0).mean() - 0.09) < 0.02 and (plon >= -180).all() and (plon < 180).all()
    k = np.sort(np.bincount(node[node >= 0], minlength=71 * 72))[::-1]
    assert k[:100].sum() > 0.5 * k.sum() and (k == 0).mean() > 0.4                 # dense networks
    assert abs(np.std(dsv) - 15) < 4 and (np.diff(rx) >= 0).all() and sv.max() < 120


# ---- gnss-brdc-orbit-dp ----

@pytest.mark.parametrize("n, policy", [(120 * 9, "lockstep"), (500, "random")])
def test_brdc_orbit(n, policy):
    rng = np.random.default_rng(1)
    h = tp._p171_bo_args(n, rng, dt=1350.0)                 # 9 epochs over 3 h: 3 ephemerides a satellite
    # satellite 0: a circular, unperturbed orbit; epoch 1 (t0 + 1350) exactly half-way to the next toe
    nblk = int(h[1])
    E = h[0].reshape(120, nblk)
    for f in ("e", "cuc", "cus", "crc", "crs", "cic", "cis", "idot", "af2"):
        E[f][0] = 0.0
    E["toe"] += (h[3] + 1350.0) - (E["toe"][0, 0] + 3600.0)
    E["toc"] = E["toe"]
    out = run("probe/gnss-brdc-orbit-dp", h, n, policy=policy)
    pos, clk, it, margin = tp._p171_bo_ref(*h[:5], n)
    P = out[5].reshape(n, 4)
    # double against double (rotation matrices, the same Newton steps): ~1e-15 of 4e7 m
    assert margin > 1e-3 and (out[6] == it).all() and np.abs(P[:, :3] - pos).max() < 1e-6
    assert np.abs(P[:, 3] - clk).max() < 1e-15
    assert it.max() >= 4 and (it[np.arange(n) % 120 == 0] == 1).all()        # eccentric orbits need more
    c = P[np.arange(n) % 120 == 0]
    A = E["sqrtA"][0] ** 2
    b = np.floor((h[3] + 1350.0 * np.arange(len(c)) - E["toe"][0, 0]) / 7200 + 0.5).astype(int)
    assert b[1] == 1 and (np.abs(np.linalg.norm(c[:, :3], axis=1) / A[np.clip(b, 0, nblk - 1)] - 1) < 1e-14).all()
    tc = h[3] + 1350.0 * np.arange(len(c)) - E["toc"][0, np.clip(b, 0, nblk - 1)]
    assert np.allclose(c[:, 3], E["af0"][0, np.clip(b, 0, nblk - 1)] + E["af1"][0, 0] * tc, rtol=0, atol=1e-18)


# ---- spp-lsq-smem-chol ----

def test_spp_solve():
    n = 72                                                  # 2 blocks of 64, the second partial
    rng = np.random.default_rng(2)
    h = tp._p171_spp_args(n, rng)
    S = h[0].reshape(32, 4)
    # receiver 0: noise-free pseudoranges of every satellite above ~12 degrees; 1: 3 of them
    # (not solved); 2: exactly 4 (an exact fit); 3: 6 of them and the table's first and last
    # PRNs (below the horizon or not, the fit does not care); 4: one satellite 4 times (a
    # singular normal matrix: given up at once)
    truth = tp._p171_ecef(np.radians(45.0), np.radians(10.0), 120.0)
    clk = 1234.5
    d = S[:, :3] - truth
    geo = np.linalg.norm(d, axis=1)
    vis = np.flatnonzero(d @ (truth / np.linalg.norm(truth)) / geo > 0.2)
    exact = geo + tp.P171_OMGE * (S[:, 0] * truth[1] - S[:, 1] * truth[0]) / tp.P171_C + clk - tp.P171_C * S[:, 3]
    live = np.flatnonzero(np.linalg.norm(S[:, :3], axis=1) > 0)
    nobs, prn, pr = h[1], h[2].reshape(n, 16), h[3].reshape(n, 16)
    for r, js in ((0, vis), (1, vis[:3]), (2, vis[:4]), (3, np.unique(np.r_[live[0], vis[:6], live[-1]])),
                  (4, vis[[0, 0, 0, 0]])):
        nobs[r] = len(js)
        prn[r] = -1
        pr[r] = 0
        prn[r, :len(js)] = js
        pr[r, :len(js)] = exact[js]
    out = run("probe/spp-lsq-smem-chol", h, n)
    x, it, margin = tp._p171_spp_ref(*h[:4])
    sol = out[4].reshape(n, 4)
    # double against double (Cholesky against LU, the same model): converged to < 1e-4 m
    # steps, they agree to ~1e-8 m
    assert margin > 1e-3 and (out[5] == it).all() and np.abs(sol - x).max() < 1e-6
    assert it[1] == 0 and (sol[1] == 0).all() and (it[nobs < 4] == 0).all() and it[4] == -1 and (sol[4] == 0).all()
    assert 4 <= np.delete(it, 4)[np.delete(nobs, 4) >= 4].min()
    assert it.max() <= 10 and len(vis) >= 6 and prn[3, 0] == live[0] and prn[3, nobs[3] - 1] == live[-1]
    for r in (0, 2, 3):
        assert np.abs(sol[r, :3] - truth).max() < 1e-6 and abs(sol[r, 3] - clk) < 1e-6


# ---- ionex-tec-const-bilin ----

@pytest.mark.parametrize("n, policy", [(3000, "lockstep"), (700, "random")])
def test_ionex_delay(n, policy):
    host, out, syms, _ = launch("probe/ionex-tec-const-bilin", n, policy=policy)
    ref = tp._p171_ix_ref(*host[:6], syms["c_tec"])
    # float32 trigonometry on the pierce point (longitudes ~180 degrees to 1.5e-5, worse near
    # the poles where the longitude's asin divides by cos(lat)) against float64
    assert (np.abs(out[6] - ref) <= 3e-5 * ref).all() and ref.min() > 0.1 and ref.max() > 3
    # by hand: a receiver at 179.9 E looking east (the pierce point across the date line), one
    # at the zenith, one due north at 72 N (the pierce point past 87.5 N: clamped), at the
    # first map's time and the second's
    f = np.float32
    h = [np.radians(f([0.5, -33.0, 72.0])).astype(f), np.radians(f([179.9, -70.0, 20.0])).astype(f),
         np.int32([0, 1, 2, 0]), np.radians(f([90.0, 0.0, 0.0, 270.0])).astype(f),
         np.radians(f([20.0, 90.0, 5.0, 40.0])).astype(f), f([0.0, 3600.0, 1800.0, 0.0]), np.zeros(4, f),
         f(3600.0), np.int32(4)]
    out = run("probe/ionex-tec-const-bilin", h, 4, symbols=syms)
    ref = tp._p171_ix_ref(*h[:6], syms["c_tec"])
    lp, lo, _ = tp._p171_ipp(*(np.asarray(v, np.float64) for v in (h[0][h[2]], h[1][h[2]], h[3], h[4])))
    assert np.degrees(lo[0]) > 180 and np.degrees(lp[2]) > 87.5 and (np.abs(out[6] - ref) <= 3e-5 * ref).all()
    g = syms["c_tec"].reshape(2, 71, 73)
    # the zenith at -33 (row 48.2), -70 (column 22) at the second map's time: that map alone
    assert abs(out[6][1] / (0.162372 * (0.8 * g[1, 48, 22] + 0.2 * g[1, 49, 22])) - 1) < 1e-5


# ---- cycle-slip-mw-gf-arc ----

@pytest.mark.parametrize("n, nep, policy, nslips", [(256, 120, "lockstep", 10), (64, 60, "random", 0)])
def test_slip_detect(n, nep, policy, nslips):
    rng = np.random.default_rng(3)
    h, slip = tp._p171_cs_draw(n, rng, nep)
    out = run("probe/cycle-slip-mw-gf-arc", h, n, policy=policy)
    flag, nslip, sat, margin = tp._p171_cs_ref(*h[:4], 32, nep, n)
    # the kernel's Welford statistics against sums about an anchor: ~1e-12 apart, the tests
    # are decided the same way unless a statistic is that close to its threshold
    assert margin > 1e-9 and (out[4] == flag.ravel()).all() and (out[5] == nslip).all() and (out[6] == sat).all()
    assert (flag[slip] == 3).sum() >= nslips and (flag == 2).sum() > n // 2


def test_slip_detect_by_hand():
    # arc 0 (the others clean throughout): a slip of 1 cycle on both L1 and L2 at epoch 10
    # (only GF sees it: -5.4 cm), (18, 14) at 20 (only MW: 4 cycles; GF 6 mm), 9 epochs
    # missing from 26 (the arc goes on), L1 alone at 40 and (1, 1) at 41 (GF not tested on the
    # epoch after a slip, but its line through 40 and 41 then flags 42), 10 missing from 50 (a
    # new arc at 60)
    nep, n = 80, 32
    c, f1, f2 = tp.P171_C, tp.P171_CS_F1, tp.P171_CS_F2
    rho = 21_000_000.0 + 3.0 * np.arange(nep)[:, None] + np.zeros((1, n))
    N1 = np.zeros((nep, n))
    N2 = np.zeros((nep, n))
    for k, a, b in ((10, 1, 1), (20, 18, 14), (40, 3, 0), (41, 1, 1)):
        N1[k:, 0] += a
        N2[k:, 0] += b
    L1 = rho / (c / f1) + N1 + 1e6
    L2 = rho / (c / f2) + N2 - 2e6
    P1, P2 = rho.copy(), rho.copy()
    miss = np.zeros(nep, bool)
    miss[26:35] = True
    miss[50:60] = True
    for v in (L1, L2, P1, P2):
        v[miss, 0] = 0
    h = [L1.ravel(), L2.ravel(), P1.ravel(), P2.ravel(), np.zeros(nep * n, np.uint8), np.zeros(n, np.int32),
         np.zeros(32, np.int32), np.int32(32), np.int32(nep), np.int32(n)]
    out = run("probe/cycle-slip-mw-gf-arc", h, n)
    fl = out[4].reshape(nep, n)
    assert (out[4] == tp._p171_cs_ref(*h[:4], 32, nep, n)[0].ravel()).all()
    assert list(np.flatnonzero(fl[:, 0] == 3)) == [10, 20, 40, 42] and list(np.flatnonzero(fl[:, 0] == 2)) == [0, 60]
    assert (fl[miss, 0] == 0).all() and (fl[~miss, 0] > 0).all()
    assert (fl[0, 1:] == 2).all() and (fl[1:, 1:] == 1).all()
    assert list(out[5]) == [4] + [0] * 31 and list(out[6]) == [4] + [0] * 31


# ---- ambig-box-search-shfl ----

@pytest.mark.parametrize("dims, policy", [((4, 6, 5, 2, 4, 6), "lockstep"), ((5, 3, 4), "random")])
def test_ambig_search(dims, policy):
    n = len(dims)
    rng = np.random.default_rng(4)
    h = tp._p171_as_args(n, rng, dims=dims)
    a = h[0].reshape(n, 9)
    a[0, :dims[0]] = np.rint(a[0, :dims[0]])                # an integer vector: its form 0, the ratio over 1e-6
    a[1, :3] = np.floor(a[1, :3]) + 0.5                     # halves: rint to even, as numpy (with 3
    out = run("probe/ambig-box-search-shfl", h, n, policy=policy)     # ambiguities, d and -d tie exactly)
    fx, q1, q2, best, tol = tp._p171_as_ref(*h[:3])
    # float32 forms against float64: within 4e-6 of the sum of the terms' magnitudes (up to 18
    # roundings of terms no larger than it, the fractions rounded to float32); the best vector
    # the same where the second best is further than that, or tied exactly (the lower code)
    tie = q2 == q1
    assert ((q2 - q1 > 2 * tol) | tie).all() and (out[3] == fx.ravel()).all() and (out[5][tie] == 1).all()
    assert tie[1] == (dims[1] == 3)
    assert (np.abs(out[4] - q1) <= tol).all() and out[4][0] == 0 and abs(out[5][0] - q2[0] / 1e-6) <= 1e6 * tol[0]
    r = q2[1:] / q1[1:]
    assert (np.abs(out[5][1:] - r) <= r * (tol[1:] / q1[1:] + tol[1:] / q2[1:]) + 1e-6).all()
    assert (fx[0, :dims[0]] == a[0, :dims[0]]).all() and (np.abs(fx - np.rint(a)) <= 1).all()
    assert (fx[np.arange(9)[None, :] >= np.array(dims)[:, None]] == 0).all()


# ---- gim-vtec-bin-atomic ----

@pytest.mark.parametrize("n, policy", [(4096, "lockstep"), (1500, "random")])
def test_vtec_bin(n, policy):
    rng = np.random.default_rng(5)
    h = tp._p171_gb_args(n, rng)
    # by hand: on the mask (kept) and just under it, on 177.5 E (rounds to 180: the -180
    # column), south of the last row (clamped), on a node's edge (rounds up)
    f = np.float32
    h[2][:2] = [h[16], np.nextafter(h[16], f(0))]
    h[0][2:5] = f([10.0, -89.9, 1.25])
    h[1][2:5] = f([177.5, 3.0, 2.5])
    h[2][2:5] = f(0.5)
    out = run("probe/gim-vtec-bin-atomic", h, n, policy=policy)
    s, c, sa = tp._p171_gb_ref(*h[:8], *h[10:17])
    node = tp._p171_gb_nodes(*h[:3], *h[10:17])
    assert node[0] >= 0 and node[1] == -1 and list(node[2:5]) == [39 * 72, 37, 36 * 72 + 37]
    # float32 values (a few ulps each) summed by atomics in any order: within 2^-22 of the
    # magnitudes' sum a term
    assert (out[9] == c).all() and (np.abs(out[8] - s) <= c * 2.0 ** -22 * sa + 1e-6).all()
    assert c.max() > 50 and (c == 0).sum() > 0.5 * len(c)
