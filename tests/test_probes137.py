"""probe-unseen135's kernels (kernels_cuda/probes137.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/gis-hillshade-horn-u8", "probe/gis-focal-tpi5-smem", "probe/gis-idw-power2-stations",
       "probe/gis-viewshed-r3-los", "probe/gis-pip-parcels-bbox-csr", "probe/gis-reclass-crosstab-atomics"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen135"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes137.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # terrain: float32 metres around the base, smooth (neighbours within a few metres)
    dem = tp._p137_terrain(256, 256, rng)
    assert dem.dtype == np.float32 and 100 < dem.min() and dem.max() < 2400 and abs(dem.mean() - 1200) < 200
    assert 2 < np.abs(np.diff(dem, axis=1)).mean() < 15
    # hillshade: sun at 45 deg altitude, NW (math angle 135 deg); shades spread over 0 .. 255
    a = tp._p137_hs_args(256, rng)
    assert a[0].dtype == np.float32 and a[1].dtype == np.uint8 and not a[1].any()
    assert np.isclose(a[6], np.pi / 4) and np.isclose(a[7], 3 * np.pi / 4)
    hs = tp._p137_hs_ref(a[0], 256)[0][1:-1, 1:-1]
    assert 100 < hs.mean() < 220 and hs.min() < 60 and hs.max() > 240
    # focal TPI: zero-mean, relief of the order of metres to tens of metres
    a = tp._p137_ft_args(64, rng)
    tpi, rel = tp._p137_ft_ref(a[0], 64)
    assert abs(tpi.mean()) < 1 and 1 < rel.mean() < 100 and (rel >= 0).all()
    # IDW: stations inside the grid, values ~50 +- 20
    px, py, pv, k, out, *rest = tp._p137_idw_args(64, rng)
    assert k == tp.P137_IDW_PTS == len(px) and px.max() < 64 and py.min() >= 0 and not out.any()
    assert 25 < pv.min() and pv.max() < 75 and rest == [64, 64, 0.0, 0.0, 1.0]
    # viewshed: the observer on the central square's peak, part of the DEM visible, warps of
    # uneven trips
    a = tp._p137_vs_args(256, rng)
    Z = a[0].reshape(256, 256)
    ox, oy = int(a[4]), int(a[5])
    assert Z[oy, ox] == Z[64:192, 64:192].max() and a[6] == np.float32(20) and a[7] == np.float32(2)
    vis, trips = tp._p137_vs_ref(a[0], 256, ox, oy)
    assert 0.1 < vis.mean() < 0.7 and trips.max() < 192 and 30 < trips.mean() < 150
    assert trips.reshape(-1, 32).max(axis=1).mean() > 1.1 * trips.mean()
    # parcels: 256 star polygons of 6-20 vertices, each inside its own unit cell
    bbox, voff, vx, vy = tp._p137_parcels(rng)
    B = bbox.reshape(-1, 4)
    assert len(B) == 256 and voff[0] == 0 and len(vx) == voff[-1]
    nv = np.diff(voff)
    assert nv.min() >= 6 and nv.max() <= 20
    cx, cy = np.arange(256) % 16, np.arange(256) // 16
    assert (B[:, 0] > cx).all() and (B[:, 2] < cx + 1).all() and (B[:, 1] > cy).all() and (B[:, 3] < cy + 1).all()
    a = tp._p137_pip_args(4096, rng)
    owner, tested = tp._p137_pip_ref(*a[:6])
    assert a[6] == 256 and (a[7] == -2).all() and 0.3 < (owner >= 0).mean() < 0.5
    inside = owner >= 0
    assert (owner[inside] == (a[1][inside].astype(int) * 16 + a[0][inside].astype(int))).all()   # its own cell's
    assert (tested[~inside] == 256).all() and (tested[inside] == owner[inside] + 1).all()
    # reclass: 2% no data, ascending breaks, every band and the skewed classes present
    n = 1 << 16
    dem, lc, cls, hist, nn = tp._p137_rc_args(n, rng)
    assert nn == n and cls.dtype == np.uint8 and hist.dtype == np.uint32 and len(hist) == 128
    nod = dem == np.float32(-9999)
    assert abs(nod.mean() - 0.02) < 0.005 and (np.diff(tp.P137_RC_BREAKS) > 0).all()
    band = np.bincount(np.searchsorted(tp.P137_RC_BREAKS, dem[~nod], side="right"), minlength=8)
    assert (band > 0.01 * n).all()
    assert lc.max() < 16 and (lc.reshape(-1, 16) == lc[::16, None]).all()
    share = np.bincount(lc, minlength=16) / n
    assert 0.25 < share[0] < 0.4 and share[0] > 5 * share[15] > 0
    assert (tp._p137_rc_syms(n, rng)["c_breaks"] == tp.P137_RC_BREAKS).all()


# ---- gis-hillshade-horn-u8 ----

def test_hillshade():
    n = 48                                                  # blocks of 32 x 8: a partial column of blocks
    host, (dem, shade, nx, ny, cell, zf, zen, az), *_ = launch("probe/gis-hillshade-horn-u8", n)
    assert nx == ny == n and cell == np.float32(30)
    hs, hb = tp._p137_hs_ref(host[0], n, zen=zen, az=az)
    d = shade.reshape(n, n).astype(int) - hb.astype(int)
    near = np.abs(hs - np.round(hs)) < 1e-3                 # float32 vs float64 at a byte's edge
    assert (np.abs(d) <= 1).all() and (d[~near] == 0).mean() > 0.995
    S = shade.reshape(n, n)
    assert not S[0].any() and not S[-1].any() and not S[:, 0].any() and not S[:, -1].any()
    assert S[1:-1, 1:-1].min() > 0 and (dem == host[0]).all()


# ---- gis-focal-tpi5-smem ----

def test_focal_tpi5():
    n = 40                                                  # tiles of 16: the last ones partial
    host, (dem, tpi, rel, *_), *_ = launch("probe/gis-focal-tpi5-smem", n)
    t, r = tp._p137_ft_ref(host[0], n)
    assert (tpi == t).all() and (rel == r).all()
    # a single spike: its TPI its height less nothing, each neighbour's TPI -h / 24
    h = [np.zeros(n * n, np.float32), np.zeros(n * n, np.float32), np.zeros(n * n, np.float32), np.int32(n),
         np.int32(n)]
    h[0][17 * n + 16] = 48.0                                # on a tile's edge
    _, tpi, rel, *_ = run("probe/gis-focal-tpi5-smem", h, n)
    T = tpi.reshape(n, n)
    assert T[17, 16] == 48 and T[15, 14] == -2 and T[19, 18] == -2 and T[17, 19] == 0
    assert rel.reshape(n, n)[15:20, 14:19].min() == 48 and rel.sum() == 48 * 25


# ---- gis-idw-power2-stations ----

def test_idw():
    rng = np.random.default_rng(3)
    n = 24                                                  # blocks of 16 x 16: partial ones
    host = tp._p137_idw_args(n, rng)
    k = 96                                                  # fewer stations: the emulator's loop is slow
    host[3] = np.int32(k)
    host[0][5], host[1][5] = np.float32(3.5), np.float32(7.5)    # a station on cell (3, 7)'s centre
    out = run("probe/gis-idw-power2-stations", host, n)[4]
    ref = tp._p137_idw_ref(host[0][:k], host[1][:k], host[2][:k], n)
    np.testing.assert_allclose(out, ref, rtol=2e-5)
    assert out[7 * n + 3] == host[2][5]
    assert host[2][:k].min() <= out.min() and out.max() <= host[2][:k].max()


# ---- gis-viewshed-r3-los ----

def test_viewshed():
    n = 48
    host, (dem, vis, *_), *_ = launch("probe/gis-viewshed-r3-los", n)
    v, trips = tp._p137_vs_ref(host[0], n, int(host[4]), int(host[5]))
    assert (vis == v).all() and 0.2 < v.mean() < 0.95 and trips.max() > 20
    # off-centre (the warps in random order: slow), and a corner observer (lines in every
    # direction from the raster's edge)
    for ox, oy, policy in ((5, 40, "random"), (0, 0, "lockstep")):
        h = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
        h[4], h[5] = np.int32(ox), np.int32(oy)
        vis = run("probe/gis-viewshed-r3-los", h, n, policy=policy)[1]
        v, _ = tp._p137_vs_ref(host[0], n, ox, oy)
        assert (vis == v).all() and vis.reshape(n, n)[oy, ox] == 1
    # flat ground: everything visible
    h = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
    h[0][:] = 100.0
    assert run("probe/gis-viewshed-r3-los", h, n)[1].all()


# ---- gis-pip-parcels-bbox-csr ----

@pytest.mark.parametrize("policy, n", [("lockstep", 300), ("random", 100)])
def test_pip_parcels(policy, n):
    # the first 32 parcels (two rows of cells) and points over them: the emulator is slow
    # on 256 boxes a point
    rng = np.random.default_rng(4)
    host = tp._p137_pip_args(n, rng)
    host[1] = (host[1] * (2.0 / 16)).astype(np.float32)
    host[6] = np.int32(32)
    host[0][:3], host[1][:3] = host[4][:3], host[5][:3]     # parcel 0's vertices: on its boundary
    owner = run("probe/gis-pip-parcels-bbox-csr", host, n, policy=policy)[7]
    ref, tested = tp._p137_pip_ref(host[0], host[1], host[2][:4 * 32], host[3][:33], host[4], host[5])
    assert (owner == ref).all() and 0.25 < (ref >= 0).mean() < 0.55 and (owner >= -1).all()
    assert set(np.unique(ref[ref >= 0])) <= set(range(32)) and len(np.unique(ref)) > n // 15


# ---- gis-reclass-crosstab-atomics ----

@pytest.mark.parametrize("policy, n", [("lockstep", 5000), ("random", 3000), ("lockstep", (1 << 18) + 777)])
def test_reclass_crosstab(policy, n):
    # the last size: 1024 blocks, the grid-stride loop's second trip partial
    host, (dem, lc, cls, hist, nn), *_ = launch("probe/gis-reclass-crosstab-atomics", n, policy=policy)
    c, h = tp._p137_rc_ref(host[0], host[1])
    assert (cls == c).all() and (hist == h).all()
    assert hist.sum() == (host[0] != np.float32(-9999)).sum() and (cls == 255).any()
