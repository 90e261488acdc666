"""probe-unseen123's kernels (kernels_cuda/probes125.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/swe-cgrid-landmask-step", "probe/drifters-rk2-randomwalk-beach", "probe/eos80-density-double",
       "probe/tidal-harmonics-smem-tables", "probe/vertical-mix-thomas-local", "probe/basin-heat-content-atomics"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen123"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes125.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # shallow water: a closed basin, no flow through a coast, CFL below 1
    n = 512
    eta, u, v, H, mask, *rest = tp._p125_swe_args(n, rng)
    assert all(a.dtype == np.float32 and len(a) == n * n for a in (eta, u, v, H)) and mask.dtype == np.uint8
    M = mask.reshape(n, n) != 0
    assert not M[0].any() and not M[-1].any() and not M[:, 0].any() and not M[:, -1].any()
    assert 0.2 < 1 - M.mean() < 0.35
    U, V = u.reshape(n, n), v.reshape(n, n)
    east, north = np.zeros_like(M), np.zeros_like(M)
    east[:, :-1], north[:-1] = M[:, :-1] & M[:, 1:], M[:-1] & M[1:]
    assert (U[~east] == 0).all() and (V[~north] == 0).all() and (eta[~M.ravel()] == 0).all()
    assert max(np.abs(U).max(), np.abs(V).max()) == np.float32(tp.P125_SWE_UMAX)
    assert (np.abs(U) > 0.01).mean() > 0.3
    h = H.reshape(n, n)[M]
    assert (H.reshape(n, n)[~M] == 0).all() and h.min() >= 50 and h.max() <= 5000 and (h > 3000).mean() > 0.3
    assert tp.P125_SWE_DT * np.sqrt(tp.P125_SWE_G * h.max()) / tp.P125_SWE_DX < 0.7
    w = mask.reshape(-1, 32)
    assert (w.min(axis=1) != w.max(axis=1)).mean() < 0.6                   # 512 wide; ~8% of the warps at 4096
    assert tp._p125_swe_grid(4096) == (128, 512) and tp._p125_swe_grid(72) == (3, 9)

    # drifters: released on ocean cells, steps shorter than half a cell, 5% beached before
    m = 4096
    x, y, b, U, V, mask, dt_dx, kick, seed, nx, ny, nn = tp._p125_pt_args(m, rng, grid=256)
    assert x.dtype == np.float32 and nx == ny == 256 and nn == m and len(U) == 256 * 256
    ci, cj = (x + np.float32(0.5)).astype(int), (y + np.float32(0.5)).astype(int)
    assert (mask[cj * 256 + ci] == 1).all() and (np.abs(x - ci) <= 0.45).all()
    assert (U[mask == 0] == 0).all() and (V[mask == 0] == 0).all() and 0.25 < 1 - mask.mean() < 0.4
    sp = np.sqrt(U.astype(np.float64) ** 2 + V ** 2)
    assert abs(sp.max() - tp.P125_PT_UMAX) < 1e-5 and dt_dx * sp.max() + kick < 0.4
    assert abs(kick - np.sqrt(6 * 100 * 1800) / 1e4) < 1e-6 and 0.03 < (b > 0).mean() < 0.07 and b.max() <= 64
    xr, yr, br, gap = tp._p125_pt_ref(x, y, b, U, V, mask, dt_dx, kick, seed, nx, ny)
    assert (br[b > 0] == b[b > 0]).all() and 0.05 < ((br > 0) & (b == 0)).mean() < 0.4   # some beach now
    moved = np.hypot(xr - x, yr - y)[br == 0]
    assert np.median(moved) > 2                                             # drifting, not just jittering

    # EOS-80: the UNESCO check values; level-major cells with fill on land and below the bottom
    assert abs(tp._p125_eos80(35, 25, 1000) - 1062.53817) < 1e-5
    assert abs(tp._p125_eos80(0, 5, 0) - 999.96675) < 1e-5 and abs(tp._p125_eos80(35, 5, 0) - 1027.67547) < 1e-5
    m = 64 * 4096
    T, S, z, rho, ncol, nn = tp._p125_eos_args(m, rng)
    assert T.dtype == S.dtype == z.dtype == np.float32 and ncol == 4096 and nn == m
    assert (np.diff(z) > 0).all() and 5 <= z[0] < 6 and 5000 < z[-1] < 5500
    wet = S >= 0
    assert (T[~wet] == -999).all() and (S[~wet] == -999).all() and 0.25 < 1 - wet.mean() < 0.5
    assert -3 < T[wet].min() and T[wet].max() < 31 and 33 < S[wet].min() and S[wet].max() < 38
    w = wet.reshape(64, ncol)
    assert w[0].mean() > 0.65 and w[-1].mean() < 0.8 * w[0].mean() and (w[1:] <= w[:-1]).all()   # bottoms
    r = tp._p125_eos_ref(T, S, z, ncol)[wet]
    assert 1020 < r.min() and r.max() < 1060

    # tides: the harmonic analysis recovers the drawn constituents within the surge noise
    m = 2048
    truth = tp._p125_th_truth(m, np.random.default_rng(3))
    h, amp, pha, mean, nt, nn = tp._p125_th_args(m, np.random.default_rng(3))
    assert h.dtype == np.float32 and len(h) == 720 * m and nt == 720 and len(amp) == 8 * m
    A, P, Z = tp._p125_th_ref(h, 720, m)
    err = np.abs(A - truth[0]).max(axis=1)                  # M2 leaks into N2, 0.54 deg/h (Rayleigh: 0.5) away
    assert err[2] < 0.2 and np.delete(err, 2).max() < 0.05 and np.median(np.abs(A - truth[0])) < 0.01
    assert np.abs(Z - truth[2]).max() < 0.015
    dp = np.abs((P - truth[1] + 180) % 360 - 180)
    assert dp[0][truth[0][0] > 0.1].max() < 5 and dp[3][truth[0][3] > 0.1].max() < 10        # M2, K1
    assert abs(2 * np.pi / tp._p125_th_omega()[0] - 12.4206012) < 1e-5     # M2's period (hours)

    # vertical mixing: land, shelves and open ocean; a few % of the interfaces unstable
    m = 1 << 14
    T, kmt, Q, dt, dz, kbg, kconv, nn = tp._p125_vm_args(m, rng)
    assert T.dtype == np.float32 and kmt.dtype == np.int32 and len(T) == 64 * m and nn == m
    assert 0.2 < (kmt == 0).mean() < 0.3 and set(np.unique(kmt)) >= {0, 5, 64} and kmt.max() == 64
    assert 0.05 < ((kmt > 0) & (kmt < 64)).mean() and (kmt[kmt > 0] >= 5).all()
    Tm = T.reshape(64, m)
    below = np.arange(64)[:, None] >= kmt[None, :]
    assert (Tm[below] == 0).all() and 3.5 < Tm[~below].min() and Tm[~below].max() < 28.1
    assert Q.min() >= -250 and Q.max() <= 150 and (Q < 0).mean() > 0.3 and (Q > 0).mean() > 0.05
    conv = tp._p125_vm_ref(T, kmt, Q)[1]
    assert 0.02 < conv < 0.2

    # heat content: a 1/4-degree grid at n = 1440; 7 basins; kmt 1 .. 50 in the ocean
    m = 256
    T, kmt, basin, heat, vol, lat0, dlat, nx, ny = tp._p125_hc_args(m, rng)
    assert nx == 256 and ny == 128 and dlat == np.float32(180 / 128) and len(T) == 50 * nx * ny
    assert heat.dtype == vol.dtype == np.float64 and len(heat) == 8 and not heat.any()
    assert ((kmt == 0) == (basin == 0)).all() and 0.28 < (kmt == 0).mean() < 0.42 and kmt.max() == 50
    assert set(np.unique(basin)) == set(range(8))
    dzs = tp._p125_hc_syms(m, rng)["c_hc_dz"]
    assert dzs.dtype == np.float32 and len(dzs) == 50 and 4500 < dzs.sum() < 5000
    Tm = T.reshape(50, -1)
    below = np.arange(50)[:, None] >= kmt[None, :]
    assert (Tm[below] == 0).all() and -2.1 < Tm[~below].min() and Tm[~below].max() < 30
    hh, vv = tp._p125_hc_ref(T, kmt, basin, nx, ny)
    assert 1 < (hh[1:] / vv[1:]).min() and (hh[1:] / vv[1:]).max() < 10           # basin mean T
    assert abs(vv.sum() / (4 * np.pi * 6371e3 ** 2 * (1 - (kmt == 0).mean())) - 3700) < 1200   # mean depth


# ---- swe-cgrid-landmask-step ----

@pytest.mark.parametrize("n", [64, 72])
def test_swe_step(n):
    host, (eta, u, v, H, mask, en, un, vn, *_), *_ = launch("probe/swe-cgrid-landmask-step", n)
    ref = tp._p125_swe_ref(*host[:5], n)
    for got, r in zip((en, un, vn), ref):
        np.testing.assert_allclose(got, r.ravel(), rtol=1e-5, atol=1e-6)
    land = mask == 0
    assert (en[land] == 0).all() and (un[land] == 0).all() and (vn[land] == 0).all()
    assert np.abs(en - eta)[~land].max() > 1e-3 and np.abs(un - u).max() > 1e-4


# ---- drifters-rk2-randomwalk-beach ----

def test_drifters():
    # (the drifters never meet: lockstep alone; the random schedule is slow on the loop)
    n = 300                                                 # 2 blocks, the last partial
    rng = np.random.default_rng(1)
    host = tp._p125_pt_args(n, rng, grid=128)
    out = run("probe/drifters-rk2-randomwalk-beach", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    x, y, b, gap = tp._p125_pt_ref(*host[:11])
    assert gap > 1e-3                                      # no beaching within rounding of a cell edge
    assert (out[2] == b).all()
    np.testing.assert_allclose(out[0], x, rtol=0, atol=5e-4)
    np.testing.assert_allclose(out[1], y, rtol=0, atol=5e-4)
    pre = host[2] > 0
    assert (out[0][pre] == host[0][pre]).all() and (out[1][pre] == host[1][pre]).all()
    new = (b > 0) & ~pre
    assert new.sum() > 10 and (b[new] < 64).any() and (b == 0).sum() > 100
    mk = host[5].reshape(128, 128)
    cj, ci = (y[new] + 0.5).astype(int), (x[new] + 0.5).astype(int)
    assert (mk[cj, ci] == 0).all()                         # beached on land (the wall is land too)


# ---- eos80-density-double ----

def test_eos80():
    n = 64 * 40 + 30                                        # ncol 40; 30 cells of fill after the 64 levels
    rng = np.random.default_rng(4)
    host = tp._p125_eos_args(n, rng)
    assert host[4] == 40 and (host[1][64 * 40:] == -999).all()
    # the UNESCO check values: level 3 moved to 10 km (p 1000 bar), level 5 to the surface
    host[2][3], host[2][5] = 10000.0, 0.0
    host[0][3 * 40], host[1][3 * 40] = 25.0, 35.0
    host[0][5 * 40 + 1], host[1][5 * 40 + 1] = 5.0, 0.0
    out = run("probe/eos80-density-double", host, n)
    r = tp._p125_eos_ref(host[0], host[1], host[2], 40)
    np.testing.assert_allclose(out[3], r, rtol=1.2e-7, atol=0)
    assert abs(out[3][3 * 40] - 1062.53817) < 1e-4 and abs(out[3][5 * 40 + 1] - 999.96675) < 1e-4
    assert (out[3][host[1] < 0] == -999).all() and (out[3][host[1] >= 0] > 999).all()


# ---- tidal-harmonics-smem-tables ----

@pytest.mark.parametrize("policy, ns, nt", [("lockstep", 260, 80), ("random", 40, 40)])
def test_tidal(policy, ns, nt):
    # fewer hours than the probe's 720 (the emulator is slow on the long loop), the last
    # chunk partial (one chunk of 40 hours under the random schedule); a partial block
    rng = np.random.default_rng(2)
    host = tp._p125_th_args(ns, rng, nt=nt)
    out = run("probe/tidal-harmonics-smem-tables", host, ns, policy=policy, symbols=tp._p125_th_syms(ns, rng))
    A, P, M = tp._p125_th_ref(host[0], nt, ns)
    np.testing.assert_allclose(out[1], A.ravel(), rtol=0, atol=2e-6)
    np.testing.assert_allclose(out[3], M, rtol=0, atol=1e-6)
    big = A.ravel() > 0.02
    dp = (out[2] - P.ravel() + 180) % 360 - 180
    assert np.abs(dp[big]).max() < 2e-3 and big.mean() > 0.5
    assert out[2].min() >= 0 and out[2].max() < 360


# ---- vertical-mix-thomas-local ----

def test_vertical_mix():
    n = 300
    host, (T, kmt, Q, *_), *_ = launch("probe/vertical-mix-thomas-local", n)
    r, conv = tp._p125_vm_ref(*host[:3])
    assert conv > 0.02
    np.testing.assert_allclose(T, r, rtol=0, atol=5e-5)
    below = (np.arange(64)[:, None] >= kmt[None, :]).ravel()
    assert (T[below] == host[0][below]).all()              # land and below the bottom untouched
    # the column's heat changes only by the surface flux (no flux through the bottom)
    d = (T.reshape(64, n).astype(np.float64) - host[0].reshape(64, n)).sum(axis=0) * tp.P125_VM_DZ
    q = Q * tp.P125_VM_DT / (tp.P125_RHO0 * tp.P125_CP)
    np.testing.assert_allclose(d[kmt > 0], q[kmt > 0], rtol=0, atol=2e-3)


def test_vertical_mix_convects():
    # an unstable column (warming downward) mixes towards uniform; a stable one barely moves
    n = 40
    rng = np.random.default_rng(5)
    host = tp._p125_vm_args(n, rng)
    T = host[0].reshape(64, n)
    host[1][:] = 64
    T[:, 0] = np.linspace(5, 15, 64)
    T[:, 1] = np.linspace(15, 5, 64)
    host[2][:2] = 0
    out = run("probe/vertical-mix-thomas-local", host, n)
    r = tp._p125_vm_ref(*host[:3])[0]
    np.testing.assert_allclose(out[0], r, rtol=0, atol=5e-5)
    o = out[0].reshape(64, n)
    assert abs(o[:, 0].mean() - 10) < 1e-4 and abs(o[:, 1].mean() - 10) < 1e-4      # no flux: heat kept
    assert 0.15 < o[0, 0] - 5 < 0.4 and 0.15 < 15 - o[-1, 0] < 0.4                    # ~3 levels' mixing
    assert np.abs(o[:, 1] - T[:, 1]).max() < 1e-3


# ---- basin-heat-content-atomics ----

@pytest.mark.parametrize("policy, n", [("lockstep", 64), ("random", 32)])
def test_heat_content(policy, n):
    # 64 x 32 columns: 8 blocks; 32 x 16: 2
    host, (T, kmt, basin, heat, vol, *_), *_ = launch("probe/basin-heat-content-atomics", n, policy=policy)
    h, v = tp._p125_hc_ref(T, kmt, basin, n, n // 2)
    assert heat[0] == 0 and vol[0] == 0 and (h[1:] > 0).all()
    np.testing.assert_allclose(heat, h, rtol=2e-6)
    np.testing.assert_allclose(vol, v, rtol=2e-6)


def test_heat_content_partial_block():
    # 30 x 15 columns: the last block partial; all columns one basin at 1 degree C and 100 m
    n = 30
    rng = np.random.default_rng(6)
    host = tp._p125_hc_args(n, rng)
    ncol = 30 * 15
    host[1][:] = 3
    host[2][:] = 4
    host[0][:] = 0
    host[0][:3 * ncol] = 1.0
    out = run("probe/basin-heat-content-atomics", host, n, symbols=tp._p125_hc_syms(n, rng))
    dz = tp._p125_hc_dz()[:3].astype(np.float64).sum()
    d = np.radians(12.0)
    area = 6371000.0 ** 2 * d * d * np.cos(np.radians(-90 + (np.arange(15) + 0.5) * 12)).sum() * 30
    assert out[3][4] == pytest.approx(dz * area, rel=1e-6) and out[4][4] == pytest.approx(dz * area, rel=1e-6)
    assert (np.delete(out[3], 4) == 0).all()
