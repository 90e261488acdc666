"""probe-unseen186's kernels (kernels_cuda/probes188.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/rothermel-ros-const", "probe/fire-ca-alexandridis", "probe/levelset-godunov-smem",
       "probe/ember-spotting-atomic", "probe/fuel-moisture-timelag", "probe/fire-region-stats-smem"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen186"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes188.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    t = tp._p188_fuel_table()
    assert t.shape == (14, 5) and (t[0] == 0).all() and abs(t[1, 0] - 0.74 * 2000 / 43560) < 1e-7
    assert (t[1:, 1] >= 1500).all() and (t[1:, 3] >= 0.12).all() and (t[1:, 4] == 8000).all()
    fuel, moist, wind, slope, ros, n = tp._p188_rr_args(512, rng)
    assert fuel.dtype == np.uint8 and moist.dtype == wind.dtype == slope.dtype == np.float32 and n == 512 * 512
    share = np.bincount(fuel, minlength=14) / n
    assert np.abs(share - tp.P188_RR_FREQ).max() < 0.05 and fuel.max() == 13
    f = fuel.reshape(512, 512)
    assert (f[:, 1:] == f[:, :-1]).mean() > 0.9 and (f[1:] == f[:-1]).mean() > 0.9    # patches
    assert 0.02 <= moist.min() and moist.max() < 0.17 and 0.3 <= wind.min() and wind.max() <= 3.8
    assert 0 <= slope.min() and slope.max() <= 0.8 and np.corrcoef(moist[:-1], moist[1:])[0, 1] > 0.9
    st, nxt, veg, elev, r, nign, nx, ny, cell, *prm, wx, wy = tp._p188_ca_args(256, rng)
    assert st.dtype == np.int32 and veg.dtype == np.uint8 and elev.dtype == np.float32 and r.dtype == np.uint32
    assert nx == ny == 256 and cell == 30 and (r & 1).all() and abs(wx * wx + wy * wy - 1) < 1e-6
    assert ((st == 0) == (veg == 0)).all() and abs((veg == 0).mean() - 0.1) < 0.01
    assert abs(np.bincount(veg, minlength=4)[1:] / st.size - tp.P188_CA_VEG[1:]).max() < 0.01
    c = np.bincount(st, minlength=4) / st.size
    assert 0 < c[2] < 0.1 and 0 < c[3] < 0.3 and c[1] > 0.5
    assert 0 <= elev.min() and elev.max() <= 2300 and np.abs(np.diff(elev.reshape(256, 256), axis=1)).max() < 40
    phi, ros, phi2, nx, ny, h, dt, ux, uy, cw = tp._p188_ls_args(192, rng)
    assert phi.dtype == ros.dtype == np.float32 and nx == ny == 192 and (h, dt) == (30, 5)
    P = phi.reshape(192, 192)
    assert 1e-3 < (P < 0).mean() < 0.3 and np.abs(np.diff(P, axis=1)).max() < 1.6 * h      # distance-like
    assert abs((ros == 0).mean() - 0.1) < 0.04 and ros.max() < 1 and abs(np.median(ros[ros > 0]) - 0.05) < 0.01
    src, loft, vt, tb, land, cnt, nx, ny, *_, seed, n = tp._p188_em_args(1 << 16, rng, side=256)
    assert src.dtype == land.dtype == cnt.dtype == np.int32 and len(cnt) == 256 * 256 and n == 1 << 16
    runs = np.flatnonzero(np.diff(src)) + 1
    assert len(runs) + 1 <= 32 and len(np.unique(src)) >= 24                  # contiguous a source
    per = np.sort(np.bincount(np.unique(src, return_inverse=True)[1]))[::-1]
    assert per[0] > 3 * n / len(per)                                        # a few intense sources
    assert 1 <= loft.min() and loft.max() <= 2000 and 20 < np.median(loft) < 80       # intense sources loft higher
    assert 2.5 <= vt.min() and vt.max() <= 7 and abs(np.median(tb) - 25) < 1
    m1, m10, m100, mmin, elev, T, RH, rain, W, H, gw, gh, gs = tp._p188_fmo_args(1 << 14, rng, gs=16)
    assert (W, H, gw, gh, gs) == (128, 128, 10, 10, 16) and len(T) == len(RH) == len(rain) == 24 * gw * gh
    assert all(a.dtype == np.float32 for a in (m1, m10, m100, elev, T, RH, rain))
    assert 6 < m1.min() and m100.max() < 24 and (m10 > m1 - 1.5).all() and 0 <= elev.min() and elev.max() <= 2500
    T, RH, rain = (a.reshape(24, gh, gw) for a in (T, RH, rain))
    assert T[15].mean() - T[3].mean() > 15 and 6 <= RH.min() and RH.max() <= 100 and RH[15].mean() < 40
    assert (rain >= 0).all() and (rain[:13] == 0).all() and (rain[20:] == 0).all() and (rain > 0).any()
    region, I, b, s, c, n = tp._p188_rs_args(192 * 192, rng)
    assert region.dtype == np.uint16 and I.dtype == np.float32 and s.dtype == np.float64 and len(b) == 512
    assert (I == np.rint(I)).all() and I.min() == 0 and I[I > 0].min() >= 1 and 0.05 < (I > 0).mean() < 0.35
    R = region.reshape(192, 192)
    assert region.max() < 512 and (R[:, 1:] == R[:, :-1]).mean() > 0.9 and 20 < len(np.unique(region)) <= 144
    assert 0.02 < (I[I > 0] >= 4000).mean() < 0.15 and abs(np.median(I[I > 0]) - 900) < 150


# ---- rothermel-ros-const ----

def _rr_tol(fuel, moist, ref):
    """float32 against float64: exponent arguments up to ~10 (expf(-0.133 sigma^0.55), powf)
    scale float32's 6e-8 roundings to ~1e-6 of the rate; near the moisture of extinction the
    cubic moisture damping coefficient eta_M cancels (~1e-6 absolute error over eta_M)."""
    t = tp._p188_fuel_table()[fuel]
    rm = moist / np.where(t[:, 3] > 0, t[:, 3], 1)
    eta = np.maximum(1 - 2.59 * rm + 5.11 * rm ** 2 - 3.52 * rm ** 3, 1e-9)
    return ref * (1e-5 + 3e-6 / eta)


@pytest.mark.parametrize("n, seed, policy", [(48, 0, "lockstep"), (24, 2, "random")])
def test_rothermel_ros(n, seed, policy):
    host, out, *_ = launch("probe/rothermel-ros-const", n, seed=seed, policy=policy)
    ref, IR, U = tp._p188_rr_ref(*host[:4])
    assert ((out[4] == 0) == (ref == 0)).all() and (np.abs(out[4] - ref) <= _rr_tol(host[0], host[1], ref)).all()
    assert (ref > 0).mean() > 0.6 and (host[0] == 0).any()
    # hand-made cells of fuel model 1 (Mx 0.12): no fuel, at and just under the moisture of
    # extinction, no wind or slope, winds past the wind limit (equal rates), a steep slope
    h = list(host)
    m = 8
    h[0] = np.array([0, 1, 1, 1, 1, 1, 1, 1], np.uint8)
    h[1] = np.float32([0.05, 0.12, 0.1199, 0.06, 0.06, 0.06, 0.06, 0.06])
    h[2] = np.float32([3, 3, 3, 0, 20, 40, 1, 1])
    h[3] = np.float32([0.3, 0.3, 0.3, 0, 0, 0, 0, 1])
    h[4] = np.zeros(m, np.float32)
    h[5] = np.int32(m)
    r = run("probe/rothermel-ros-const", h, m, symbols=tp._p188_rr_syms(m, None))[4]
    ref, IR, U = tp._p188_rr_ref(*h[:4])
    assert r[0] == 0 and r[1] == 0 and 0 < r[2] < 0.01 * r[6] and r[4] == r[5] and (U[4:6] > 0.9 * IR[4:6]).all()
    assert (np.abs(r - ref) <= _rr_tol(h[0], h[1], ref)).all() and r[7] > 2 * r[6] > 2 * r[3] > 0


# ---- fire-ca-alexandridis ----

@pytest.mark.parametrize("n, seed, policy", [(40, 0, "lockstep"), (32, 3, "random")])
def test_ca_spread_step(n, seed, policy):
    # 40: 2 x 5 blocks of 32 x 8, partial in x
    host, out, *_ = launch("probe/fire-ca-alexandridis", n, seed=seed, policy=policy)
    nxt, r, nign, gap = tp._p188_ca_ref(host[0], host[2], host[3], host[4], *host[6:])
    # the ignition chances are float32 products of a few expf/atanf terms (~1e-6 relative): a
    # draw within 1e-5 of its cut could go either way (there are none here)
    assert gap.min() > 1e-5 and (out[1] == nxt).all() and (out[4] == r).all() and out[5][0] == nign
    assert nign > 0 and ((host[0] == 1) & (nxt == 1) & np.isfinite(gap)).any()    # some draws fail
    # one burning cell in a corner and one in the middle of flat shrubland, the wind along +x:
    # the corner's 3 neighbours and the middle's 8 draw, the rest keep their states and streams
    h = list(host)
    st = np.ones((n, n), np.int32)
    st[0, 0] = st[n // 2, n // 2] = 2
    h[0] = st.ravel()
    h[2] = np.full(n * n, 2, np.uint8)
    h[3] = np.zeros(n * n, np.float32)
    h[5] = np.zeros(1, np.int32)
    h[-2], h[-1] = np.float32(1), np.float32(0)
    o = run("probe/fire-ca-alexandridis", h, n, symbols=tp._p188_ca_syms(n, None))
    nxt, r, nign, gap = tp._p188_ca_ref(h[0], h[2], h[3], h[4], *h[6:])
    drew = np.flatnonzero(o[4] != h[4])
    c = n // 2 * n + n // 2
    ring = [c + dy * n + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dx or dy]
    assert sorted(drew) == sorted([1, n, n + 1] + ring)
    assert (o[1] == nxt).all() and o[1][0] == o[1][c] == 3 and o[1][c + 1] == 2 and o[5][0] == nign
    assert ((o[1] == 1) | (o[1] == 2))[drew].all() and (o[1][np.setdiff1d(np.arange(n * n), drew)] != 2).all()


# ---- levelset-godunov-smem ----

@pytest.mark.parametrize("n, seed, policy", [(40, 0, "lockstep"), (32, 1, "random")])
def test_levelset_step(n, seed, policy):
    # 40: 3 x 3 tiles, the last ones partial
    host, out, *_ = launch("probe/levelset-godunov-smem", n, seed=seed, policy=policy)
    ref, upd = tp._p188_ls_ref(host[0], host[1], *host[3:])
    # exact differences of nearby float32s, then ~10 roundings of the update: phi's own
    # rounding plus 1e-6 of the update
    tol = np.spacing(np.abs(ref).astype(np.float32)) + 1e-6 * upd
    assert (np.abs(out[2] - ref) <= tol).all() and (host[0] < 0).any() and (upd > 0).mean() > 0.5
    # a plane rising along x (phi = 30 x m): the front moves at ros (1 + cw ux) everywhere but
    # in the first column, whose clamped backward difference is 0
    h = list(host)
    h[0] = np.tile(np.arange(n, dtype=np.float32) * 30 - 300, n)
    h[1] = np.full(n * n, 0.5, np.float32)
    o = run("probe/levelset-godunov-smem", h, n)[2].reshape(n, n)
    P = h[0].reshape(n, n)
    F = 0.5 * (1 + 0.25 * 4 / (1 + 1e-6))
    assert (o[:, 0] == P[:, 0]).all() and np.abs(o[:, 1:] - (P[:, 1:] - 5 * F)).max() < 1e-4


# ---- ember-spotting-atomic ----

@pytest.mark.parametrize("n, side, seed, policy", [(3000, 64, 0, "lockstep"), (300, 48, 1, "random")])
def test_ember_transport(n, side, seed, policy):
    rng = np.random.default_rng(seed)
    h = tp._p188_em_args(n, rng, side=side)
    out = run("probe/ember-spotting-atomic", h, n, policy=policy)
    land, cnt, gap = tp._p188_em_ref(*h[:4], *h[6:15])
    # float32 positions after up to ~150 steps are within ~1e-4 m of float64's: brands landing
    # or touching down within 1e-3 m of a cell edge (or of z = 0) are left out of the exact check
    ok = gap > 1e-3
    assert ok.mean() > 0.99 and (out[4] == land)[ok].all()
    assert (out[5] == np.bincount(out[4][out[4] >= 0], minlength=side * side)).all()   # every landing counted
    assert (out[5] == cnt).all() == (out[4] == land).all() and (land == -1).any() and cnt.max() > 0.02 * n
    # hand-made brands from cell (3, 5): lofted under the roughness height (no wind: they land
    # in their own cell), burnt out in flight, and carried out of the raster (the same launch,
    # lockstep, for either raster: once; the 2000 m brand's fall is 800 steps)
    if policy != "lockstep":
        return
    m = 3
    g = list(h)
    g[0] = np.full(m, 5 * side + 3, np.int32)
    g[1] = np.float32([0.4, 50, 2000])
    g[2] = np.float32([3, 3, 2.5])
    g[3] = np.float32([10, 5, 1000])
    g[4] = np.zeros(m, np.int32)
    g[5] = np.zeros(side * side, np.int32)
    g[-1] = np.int32(m)
    o = run("probe/ember-spotting-atomic", g, m)
    assert list(o[4]) == [5 * side + 3, -1, -1] and o[5].sum() == 1 and o[5][5 * side + 3] == 1


# ---- fuel-moisture-timelag ----

@pytest.mark.parametrize("n, policy", [(1024, "lockstep"), (128, "random")])
def test_fuel_moisture_day(n, policy):
    rng = np.random.default_rng(0)
    h = tp._p188_fmo_args(n, rng, gs=8)
    out = run("probe/fuel-moisture-timelag", h, n, policy=policy)
    ref = tp._p188_fmo_ref(*h[:3], *h[4:])
    # float32 against float64: ~10 roundings an hour for 24 hours, relative 2e-6
    for o, r in zip((0, 1, 2, 3), ref):
        assert (np.abs(out[o] - r) <= 2e-6 * r).all()
    assert (np.abs(ref[0] - h[0]) > 1).any() and (ref[3] <= h[0]).all() and (ref[3] < ref[0] - 3).any()
    # a dry day of constant weather at sea level: each class relaxes to the drying EMC from
    # above, to the wetting EMC from below, and stays between them: m E + (m0 - E) e^(-24 / tau)
    W, H, gw, gh, gs = (int(v) for v in h[8:])
    g = list(h)
    t, rh = 25.0, 30.0
    g[4] = np.zeros(n, np.float32)
    g[5] = np.full(24 * gw * gh, t, np.float32)
    g[6] = np.full(24 * gw * gh, rh, np.float32)
    g[7] = np.zeros(24 * gw * gh, np.float32)
    m0 = np.float32(rng.uniform(2, 20, (3, n)))
    g[0], g[1], g[2] = m0[0].copy(), m0[1].copy(), m0[2].copy()
    o = run("probe/fuel-moisture-timelag", g, n)
    tt = 0.18 * (21.1 - t) * (1 - np.exp(-0.115 * rh))
    ed = 0.942 * rh ** 0.679 + 11 * np.exp((rh - 100) / 10) + tt
    ew = 0.618 * rh ** 0.753 + 10 * np.exp((rh - 100) / 10) + tt
    for k, tau in enumerate((1, 10, 100)):
        E = np.where(m0[k] > ed, ed, np.where(m0[k] < ew, ew, m0[k]))
        want = E + (m0[k] - E) * np.exp(-24 / tau)
        mid = (ew <= m0[k]) & (m0[k] <= ed)
        assert np.abs(o[k] - want).max() < 1e-4 and (o[k][mid] == m0[k][mid]).all() and mid.any()
    assert (o[3] == np.minimum(m0[0], o[0])).all()


# ---- fire-region-stats-smem ----

@pytest.mark.parametrize("n, seed, policy, grid", [(96 * 96, 0, "lockstep", None), (64 * 64 + 10, 1, "random", (3,))])
def test_region_fire_stats(n, seed, policy, grid):
    # 96^2: 36 blocks a cell a thread; 64^2 + 10 on 3 blocks: ~5.3 trips of the grid-stride loop
    rng = np.random.default_rng(seed)
    h = tp._p188_rs_args(n, rng)
    out = run("probe/fire-region-stats-smem", h, n, policy=policy, grid=grid)
    b, s, c = tp._p188_rs_ref(h[0], h[1])
    # whole-number intensities: the double sums are exact in any order
    assert (out[2] == b).all() and (out[3] == s).all() and (out[4] == c).all()
    assert (b > 0).sum() > 3 and c.sum() > 0 and b.sum() < n // 2
    # the crown-fire cut is inclusive; region ids at both ends of the range
    g = list(h)
    m = 600
    g[0] = np.repeat(np.uint16([0, 511, 7]), 200)
    g[1] = np.tile(np.float32([0, 3999, 4000, 1e6]), 150)
    for k, t in ((2, np.int32), (3, np.float64), (4, np.int32)):
        g[k] = np.zeros(512, t)
    g[5] = np.int32(m)
    o = run("probe/fire-region-stats-smem", g, m, grid=(1,))
    assert list(o[2][[0, 511, 7]]) == [150] * 3 and list(o[4][[0, 511, 7]]) == [100] * 3
    assert list(o[3][[0, 511, 7]]) == [50 * (3999 + 4000 + 1e6)] * 3 and o[2].sum() == 450
