"""probe-unseen149's kernels (kernels_cuda/probes151.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import dataclasses

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/slab-history-2group", "probe/mesh-tally-collision-atomic", "probe/xs-lookup-nuclide-bsearch",
       "probe/fission-bank-scan-smem", "probe/keff-stats-shfl-double", "probe/doppler-sigma1-erf"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen149"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes151.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 14
    # slab: sources in the fuel zones, cosine-shaped about the centre; two-group data
    sy = tp._p151_sl_syms(n, rng)
    x0, seed, *_, nn = tp._p151_sl_args(n, rng)
    B = np.array(tp.P151_SL_BOUND)
    reg = np.searchsorted(B, x0, side="right") - 1
    assert nn == n and x0.dtype == np.float32 and seed.dtype == np.uint64 and len(np.unique(seed)) == n
    assert np.isin(reg, tp.P151_SL_FUEL).all()
    mid = ((x0 >= 45) & (x0 < 70)).mean() * 3                   # the middle zone's density against the mean
    assert 1.15 < mid < 1.3 and abs(x0.mean() - 57.5) < 1.0
    assert sy["c_sl_sigt"][2 * 3 + 1] == np.float32(0.833) and sy["c_sl_nusigf"][::2][[0, 2, 4, 6]].max() == 0
    assert (sy["c_sl_siga"] < sy["c_sl_sigt"]).all() and (sy["c_sl_siga"] + np.repeat(sy["c_sl_sig12"], 2) <
                                                          sy["c_sl_sigt"]).all()
    fate, coll, xe, yl = tp._p151_sl_ref(x0[:2048], seed[:2048], sy)
    assert (fate == 2).mean() > 0.95 and (fate < 2).any() and (fate != 3).all()
    assert 15 < coll.mean() < 40 and coll.max() > 150
    assert (coll.reshape(-1, 32).max(axis=1) > 3 * coll.mean()).mean() > .5         # a warp's longest history
    assert (xe[fate == 0] == 0).all() and (xe[fate == 1] == 115).all()
    assert abs(yl[fate == 2].mean() - 1.2) < 0.3                     # fission neutrons an absorption, ~k
    # core collision sites: histories of ~16 collisions ~1 cm apart, fast then thermal
    x, y, z, g, mat, w = tp._p151_core_sites(n, rng)
    r = np.hypot(x, y)
    core = (r < tp.P151_CORE_R) & (z > 0) & (z < tp.P151_CORE_H)
    assert (mat[core] < 3).all() and (mat[~core] == 3).all() and 0.8 < core.mean() < 0.92
    assert abs((mat[core] == 0).mean() - 0.35) < 0.02 and abs((w == 1).mean() - 0.65) < 0.02 and w.min() >= 0.25
    d = np.sqrt(np.diff(x) ** 2 + np.diff(y) ** 2 + np.diff(z) ** 2)
    assert 0.6 < np.median(d) < 1.2 and (d > 20).mean() > 1 / 40            # restarts between histories
    assert (np.diff(g)[d[:] < 5] >= 0).mean() > 0.99 and 0.6 < g.mean() < 0.8
    inner, outer = (r < 60).sum() / 60 ** 2, ((r > 120) & (r < 170)).sum() / (170 ** 2 - 120 ** 2)
    assert inner > 2 * outer                                              # J0: peaked at the centre
    s, flux, cnt, *_, nn = tp._p151_mt_args(n, rng)
    assert s.dtype.itemsize == 24 and len(flux) == 2 * 64 ** 3 and nn == n
    fl, c = tp._p151_mt_ref(s, tp._p151_mt_syms(n, rng)["c_mt_sigt"])
    assert 0.97 < c.sum() / n <= 1 and c.max() > 20                         # few sites off the mesh; clustered
    # xs: XSBench small's materials, sorted grids with exact ends, a reactor spectrum
    grid, num, mats, concs, e, m, out, ngp, mx, nn = tp._p151_xs_args(n, rng)
    G = grid.reshape(tp.P151_XS_NUCS, ngp)
    assert ngp == 11303 and mx == 34 and (np.diff(G["energy"], axis=1) > 0).all()
    assert (G["energy"][:, 0] == 1e-5).all() and (G["energy"][:, -1] == 2e7).all()
    assert (G["total"] == G["elastic"] + G["absorption"]).all() and (G["fission"][3:] == 0).all()
    M = mats.reshape(12, 34)
    assert all(len(set(M[k, :num[k]])) == num[k] and (k == 0 or M[k, :num[k]].min() >= 34) for k in range(12))
    assert abs((m == 2).mean() - 0.275) < 0.02 and (e > 1e-5).all() and (e < 2e7).all()
    assert 0.28 < (e < 0.5).mean() < 0.34 and 0.29 < (e > 1e5).mean() < 0.35        # Watt + 1/E above 0.1 MeV
    ref = tp._p151_xs_ref(grid, num, mats, concs, e[:500], m[:500], ngp)
    assert (ref[:, 0] > 0).all() and (ref[m[:500] == 0, 4] > 0).all()
    # fission bank: only fuel makes neutrons, ~0.1 a site, a few 2s
    x, y, z, w, r, keff, sd, *_, cap, nn = tp._p151_fb_args(n, rng)
    k = tp._p151_fb_ref(w, r, keff, sd)
    assert cap == n // 2 and (r[k > 0] > 0).all() and 0.05 < k.mean() < 0.15 and k.max() >= 2
    # keff: ~12% zeros, mean ~1, kc and kt correlated
    kc, kt, acc, nn = tp._p151_kr_args(1 << 16, rng)
    assert kc.dtype == np.float32 and abs((kc == 0).mean() - .12) < 0.01 and abs(kc.mean() - 1) < 0.02
    assert np.corrcoef(kc, kt)[0, 1] > 0.9 and ((kt > 0) & (kc == 0)).mean() > 0.02
    # doppler: U-238-like resonances; grid increasing, dense at the peaks
    E, sig, sT, alpha, nn = tp._p151_db_args(n, rng)
    assert len(E) == nn == n and (np.diff(E) > 0).all() and E[0] == tp.P151_DB_EMIN
    assert alpha == pytest.approx(236.006 / (8.617333e-5 * 900)) and sig.min() > 9 and sig.max() > 1e4
    er, gt, s0 = tp._p151_db_res(1024, np.random.default_rng(1))
    assert er[0] == 6.67 and abs(np.diff(er).mean() - 20) < 1.5 and 15e3 < er[-1] < 25e3
    assert 2e4 < s0[0] < 4e5 and (gt >= 0.023).all()
    lo = np.array([tp._p151_db_window(E, alpha, i)[0] for i in range(0, n, 97)])
    hi = np.array([tp._p151_db_window(E, alpha, i)[1] for i in range(0, n, 97)])
    assert (hi > lo).all() and (hi - lo).max() > 100 and (hi - lo).min() < 10


# ---- slab-history-2group ----

def test_slab_history():
    n = 96                                                  # 2 blocks of 64, the last partial
    host, (x0, sd, fate, coll, xe, yl, nn), syms, _ = launch("probe/slab-history-2group", n)
    rf, rc, rx, ry = tp._p151_sl_ref(host[0], host[1], syms)
    assert (fate == rf).all() and (coll == rc).all() and (yl == ry).all()
    # the positions: float32 sums of up to a few hundred flights (fma and logf's last bit)
    assert np.abs(xe - rx).max() < 2e-3 and (rf == 2).sum() > 80 and rc.max() > 60


def test_slab_history_vacuum():
    # a near-vacuum slab: no collisions, every neutron leaks the way its first direction points
    n = 64
    rng = np.random.default_rng(5)
    host = tp._p151_sl_args(n, rng)
    syms = tp._p151_sl_syms(n, rng)
    syms["c_sl_sigt"] = np.full(14, 1e-7, np.float32)
    out = run("probe/slab-history-2group", host, n, symbols=syms)
    s = host[1] * np.uint64(2862933555777941757) + np.uint64(3037000493)
    right = (s >> np.uint64(40)) >= np.uint64(1 << 23)                # mu = 2 u - 1 > 0
    assert (out[3] == 0).all() and (out[2] == right).all() and (out[4] == np.where(right, 115, 0)).all()
    assert 10 < right.sum() < 54


# ---- mesh-tally-collision-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_mesh_tally(policy):
    n = 1500
    rng = np.random.default_rng(0)
    host = tp._p151_mt_args(n, rng)
    syms = tp._p151_mt_syms(n, rng)
    s = host[0]
    # sites on the mesh's faces: the low faces count, the high ones are off the mesh
    s["x"][:4] = (-192.0, 191.99, 192.0, -192.01)
    s["y"][:4] = 0.0
    s["z"][:4] = (-24.0, 391.99, 10.0, 10.0)
    out = run("probe/mesh-tally-collision-atomic", host, n, policy=policy, symbols=syms)
    fl, cnt = tp._p151_mt_ref(s, syms["c_mt_sigt"])
    assert (out[2] == cnt).all() and cnt.sum() < n and cnt.max() > 10
    # float atomics in any order: each cell's < 50 positive scores round to within ~50 ulps
    assert np.allclose(out[1], fl, rtol=1e-5, atol=0) and fl.max() > 20
    assert cnt[(0 * 64 + 32) * 64 + 0] >= 1 and cnt[(63 * 64 + 32) * 64 + 63] >= 1


# ---- xs-lookup-nuclide-bsearch ----

def test_xs_lookup():                                       # no thread reads another's results
    n, ngp = 150, 600                                       # small grids: the emulator copies them all
    rng = np.random.default_rng(2)
    host = tp._p151_xs_args(n, rng, ngp=ngp)
    G = host[0].reshape(-1, ngp)
    host[4][:3] = (1e-5, 2e7, G["energy"][0, 300])           # the grids' ends and a grid point exactly
    host[5][:3] = 0                                         # in fuel
    out = run("probe/xs-lookup-nuclide-bsearch", host, n)
    ref = tp._p151_xs_ref(*host[:6], ngp)
    # double interpolation (XSBench's form against np.interp's) and sums: last-bit differences
    assert np.allclose(out[6].reshape(-1, 5), ref, rtol=1e-12, atol=0) and (ref[:, 3] > 0).sum() > 10
    # every grid shares the ends: there the fuel's cross sections are the densities times the ends'
    c = host[3][:34]
    for q, k in enumerate(("total", "elastic", "absorption", "fission", "nu_fission")):
        assert out[6][q] == pytest.approx((c * G[:34][k][:, 0]).sum(), rel=1e-13)
        assert out[6][5 + q] == pytest.approx((c * G[:34][k][:, -1]).sum(), rel=1e-13)


# ---- fission-bank-scan-smem ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_fission_bank(policy):
    n = 3 * 512 + 100                                       # 4 blocks, the last partial
    rng = np.random.default_rng(4)
    host = tp._p151_fb_args(n, rng)
    host[4][[7, 600, 1601]] = (2.5, 3.9, 2.1)               # sites making 2-4 neutrons
    host[3][[7, 600, 1601]] = 1.0
    out = run("probe/fission-bank-scan-smem", host, n, policy=policy)
    k = tp._p151_fb_ref(host[3], host[4], host[5], host[6])
    tot = int(k.sum())
    assert out[11][0] == tot and k[[7, 600, 1601]].min() >= 2 and 100 < tot < n // 2
    par = out[10][:tot]
    assert (np.sort(par) == np.repeat(np.arange(n), k)).all() and (out[10][tot:] == 0).all()
    for a, b in ((7, 0), (8, 1), (9, 2)):
        assert (out[a][:tot] == host[b][par]).all()
    # a block's neutrons contiguous and in site order
    blk = par // 512
    assert (np.diff(np.flatnonzero(np.diff(blk) != 0)) > 0).all() and len(np.unique(blk)) == 4
    for b in range(4):
        assert (np.diff(np.flatnonzero(blk == b)) == 1).all() and (np.diff(par[blk == b]) >= 0).all()


def test_fission_bank_overflow():
    n = 2 * 512
    rng = np.random.default_rng(6)
    host = tp._p151_fb_args(n, rng)
    cap = 40
    host[7:11] = [a[:cap].copy() for a in host[7:11]]
    host[12] = np.int32(cap)
    out = run("probe/fission-bank-scan-smem", host, n, policy="random")
    k = tp._p151_fb_ref(host[3], host[4], host[5], host[6])
    assert out[11][0] == k.sum() > cap                      # counted all, stored the first cap
    par = out[10]
    assert (np.bincount(par, minlength=n) <= k).all() and (out[7] == host[0][par]).all()


# ---- keff-stats-shfl-double ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_keff_stats(policy, monkeypatch):
    pid = "probe/keff-stats-shfl-double"
    monkeypatch.setitem(tp._BY_ID, pid, dataclasses.replace(tp.get(pid), grid=lambda n: 3))    # not 1024 blocks
    n = 3000                                                # 768 threads, 3-4 trips each
    host, (kc, kt, acc, nn), *_ = launch(pid, n, policy=policy)
    # double sums of 3000 float terms, atomically in any order: a few ulps of the totals
    assert np.allclose(acc, tp._p151_kr_ref(kc, kt), rtol=1e-13, atol=0) and acc[0] > 2000
    # dyadic estimates (multiples of 1/256): every sum exact whatever the order
    rng = np.random.default_rng(8)
    a = (rng.integers(0, 1024, 2000) / 256).astype(np.float32)
    b = (rng.integers(0, 1024, 2000) / 256).astype(np.float32)
    out = run(pid, [a, b, np.zeros(5), np.int32(2000)], 2000, policy=policy)
    assert (out[2] == tp._p151_kr_ref(a, b)).all()


# ---- doppler-sigma1-erf ----

def test_doppler_broaden():
    n = 160
    host, (E, sig, sT, alpha, nn), *_ = launch("probe/doppler-sigma1-erf", n, seed=2)   # a 15 kb resonance
    ref = tp._p151_db_ref(E, sig, alpha, range(n))
    # exact per segment against 8-point Gauss-Legendre on pieces <= 0.25 wide (error ~1e-15):
    # what is left is the a + b x^2 form's cancellation, observed ~1e-13
    assert np.allclose(sT, ref, rtol=1e-10, atol=0)
    assert sig.max() > 1e3 and sT.max() < 0.5 * sig.max() and (sT > 0).all()   # the peak broadened down


def test_doppler_broaden_analytic():
    # sig = 5 + 0.01 E is broadened exactly to 5 (1 + 1 / (2 y^2)) + 0.01 / alpha (y^2 + 3 + 3 / (4 y^2))
    # where the window lies inside the grid (the truncation at 4 widths: erfc(4) / 2 ~ 8e-9)
    n = 100
    E = np.geomspace(1.0, 100.0, n)
    alpha = tp._p151_db_alpha()
    out = run("probe/doppler-sigma1-erf", [E, 5 + 0.01 * E, np.zeros(n), np.float64(alpha), np.int32(n)], n)
    y2 = alpha * E
    exact = 5 * (1 + 0.5 / y2) + 0.01 / alpha * (y2 + 3 + 0.75 / y2)
    y = np.sqrt(y2)
    inside = (y - 4 > y[0]) & (y + 4 < y[-1])
    assert inside.sum() > 80 and np.allclose(out[2][inside], exact[inside], rtol=1e-7, atol=0)
    assert (out[2][~inside] < exact[~inside]).all()         # cut off at the grid's ends
