"""probe-unseen68's kernels (kernels_cuda/probes70.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/horn-slope-aspect", "probe/zonal-stats-atomic", "probe/idw-smem-stations", "probe/semilag-latlon",
       "probe/satadj-columns", "probe/viewshed-ballot"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen68"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes70.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    dem, sl, asp, cs, nx, ny = tp._u68_horn_args(512, rng)
    z = dem.reshape(512, 512)
    assert dem.dtype == np.float32 and (dem == np.rint(dem)).all() and dem.min() == 0 and nx == ny == 512
    assert 0.18 < (dem == 0).mean() < 0.22 and 100 < dem.max() < 2000 and cs == 30
    gy, gx = np.gradient(z.astype(np.float64), 30.0)
    slope = np.degrees(np.arctan(np.hypot(gx, gy)))[z > 0]
    assert 3 < np.median(slope) < 20 and np.percentile(slope, 99) < 60        # hills, not noise
    n = 40000
    val, zone, nodata, zs, zc, zmin, zmax, nn = tp._u68_zonal_args(n, rng)
    nz = tp._u68_zonal_nz(n)
    assert nz == 4 and len(val) == len(zone) == n == nn and nodata == -9999 and (val[val != nodata] >= 0).all()
    assert 0.15 < (val == nodata).mean() < 0.25 and (np.bincount(zone, minlength=nz) > 0).all() and zone.max() < nz
    big = tp._u68_zones(1 << 20, 64, rng).reshape(1024, 1024)
    assert len(np.unique(big)) == 64 and (big[:, 1:] == big[:, :-1]).mean() > 0.97      # contiguous regions
    assert (zs == 0).all() and (zc == 0).all() and (zmin.view(np.float32) == np.inf).all() and (zmax == 0).all()
    sx, sy, sv, k, out, nx, ny = tp._u68_idw_args(1024, rng)
    assert tp.get("probe/idw-smem-stations").block == (16, 16) and 16 * 16 == tp.U68_IDW_TILE
    assert k == len(sx) == len(sy) == len(sv) == 1024 and 0 <= sx.min() and sx.max() < 1024 and sy.max() < 1024
    assert 0 < sv.mean() < 20 and len(out) == 1024 * 1024 and nx == ny == 1024
    q, u, v, qn, dt, nlon, nlat = tp._u68_sl_args(256, rng)
    assert nlon == 512 and nlat == 256 and len(q) == len(u) == len(v) == 512 * 256 and dt == np.float32(4800)
    lat = -0.5 * np.pi + (np.arange(256) + 0.5) * np.pi / 256
    courant = (u.reshape(256, 512) * dt / (6.371e6 * np.cos(lat)[:, None] * 2 * np.pi / 512))
    assert 0.2 < q.min() and q.max() < 1.8 and 1 < np.abs(courant[128]).max() < 1.5 and np.abs(courant).max() < 2.5
    t, qv, qc, cond, nn = tp._u68_satadj_args(4000, rng)
    p, dpg = tp._u68_plev()
    t, qv, qc = (x.reshape(64, 4000) for x in (t, qv, qc))
    rh = qv / tp._u68_qsat(t.astype(np.float64), p[:, None])
    assert (np.diff(p) > 0).all() and p[0] < 2000 and 95000 < p[-1] < 100000 and abs(dpg.sum() * 9.80665 - 99500) < 1
    assert 195 < t.min() and t.max() < 320 and 0.1 < (rh > 1).mean() < 0.14 and rh.max() < 1.081
    assert (qc >= 0).all() and (qc[rh > 0.97] > 0).all() and 0.2 < (qc[rh <= 0.97] > 0).mean() < 0.3
    dem, vis, cnt, ox, oy, h, cs, nx, ny = tp._u68_vs_args(256, rng)
    z = dem.reshape(256, 256)
    assert 96 <= ox < 160 and 96 <= oy < 160 and z[oy, ox] == z[96:160, 96:160].max() > 0 and h == np.float32(16.618)
    assert (vis == 0).all() and cnt[0] == 0 and nx == ny == 256


# ---- horn-slope-aspect ----

def horn_ref(dem, nx, ny, cs=30.0):
    """(slope, aspect) in float64, the edges 0 and -1, the flat cells' aspect -1."""
    z = dem.reshape(ny, nx).astype(np.float64)
    a, b, c = z[:-2, :-2], z[:-2, 1:-1], z[:-2, 2:]
    d, f = z[1:-1, :-2], z[1:-1, 2:]
    g, h, k = z[2:, :-2], z[2:, 1:-1], z[2:, 2:]
    dzdx = ((c + 2 * f + k) - (a + 2 * d + g)) / (8 * cs)
    dzdy = ((g + 2 * h + k) - (a + 2 * b + c)) / (8 * cs)
    t = np.degrees(np.arctan2(dzdy, -dzdx))
    asp = np.where(t < 0, 90 - t, np.where(t > 90, 450 - t, 90 - t))
    slope, aspect = np.zeros((ny, nx)), np.full((ny, nx), -1.0)
    slope[1:-1, 1:-1] = np.degrees(np.arctan(np.hypot(dzdx, dzdy)))
    aspect[1:-1, 1:-1] = np.where((dzdx == 0) & (dzdy == 0), -1, asp)
    return slope.ravel(), aspect.ravel()


def horn_check(out, dem, nx, ny):
    rs, ra = horn_ref(dem, nx, ny)
    np.testing.assert_allclose(out[1], rs, rtol=0, atol=2e-4)
    flat = ra == -1
    assert (out[2][flat] == -1).all() and (out[2][~flat] >= 0).all() and (out[2][~flat] < 360.001).all()
    diff = np.abs(out[2][~flat] - ra[~flat])
    assert np.minimum(diff, 360 - diff).max() < 2e-3                        # north: 0 and 360 alike
    return flat


def test_horn_slope_aspect():
    n = 50                                                  # 2 x 7 blocks, the last ones partial
    host, after, *_ = launch("probe/horn-slope-aspect", n)
    flat = horn_check(after, host[0], n, n)
    assert 0.1 < flat.mean() < 0.5 and after[1].max() > 5


def test_horn_edge_cases():
    # a plane sloping to each compass direction (aspects 0, 90, 180, 270 and 45), nx != ny
    ny, nx = 20, 45
    yy, xx = np.mgrid[0:ny, 0:nx].astype(np.float32)
    for dz, want in [(yy, 0), (-xx, 90), (-yy, 180), (xx, 270), (yy - xx, 45)]:
        dem = (500 + 3 * dz).astype(np.float32).ravel()
        host = [dem, np.zeros(nx * ny, np.float32), np.full(nx * ny, 7, np.float32), np.float32(30), np.int32(nx),
                np.int32(ny)]
        out = run("probe/horn-slope-aspect", host, nx)
        horn_check(out, dem, nx, ny)
        d = np.abs(out[2].reshape(ny, nx)[1:-1, 1:-1] - want)
        assert np.minimum(d, 360 - d).max() < 1e-3


# ---- zonal-stats-atomic ----

def zonal_ref(val, zone, nodata, nz):
    ok = val != nodata
    v, z = val[ok].astype(np.float64), zone[ok]
    s = np.bincount(z, v, nz)
    c = np.bincount(z, minlength=nz)
    mn, mx = np.full(nz, np.inf), np.zeros(nz)
    np.minimum.at(mn, z, v)
    np.maximum.at(mx, z, v)
    return s, c, mn, mx


def zonal_check(out, host, nz):
    s, c, mn, mx = zonal_ref(host[0], host[1], host[2], nz)
    assert (out[3] == s).all() and (out[4] == c).all()                      # exact: whole metres
    assert (out[5].view(np.float32) == mn).all() and (out[6].view(np.float32) == mx).all()
    return c


@pytest.mark.parametrize("policy, n", [("lockstep", 5000), ("random", 3000)])   # 20 / 12 blocks, the last partial
def test_zonal_stats_atomic(policy, n):
    host, after, *_ = launch("probe/zonal-stats-atomic", n, policy=policy)
    c = zonal_check(after, host, 4)
    assert after[7] == n and (c > 0).all() and (host[0] == host[2]).sum() > n / 10


def test_zonal_edge_cases():
    # one zone for every cell (all lanes on one address), a zone with only nodata cells (its
    # min and max left as set), a zero value (not nodata: min 0), cells after n untouched
    rng = np.random.default_rng(5)
    n = 700
    val = rng.integers(0, 3000, n + 40).astype(np.float32)
    val[::9] = -9999
    val[5] = 0
    zone = np.zeros(n + 40, np.int32)
    zone[n:] = 2
    zone[600:n] = np.where(val[600:n] == -9999, 1, 0)
    for policy in ("lockstep", "random"):
        host = [val, zone, np.float32(-9999), np.zeros(3, np.float32), np.zeros(3, np.int32),
                np.full(3, 0x7F800000, np.int32), np.zeros(3, np.int32), np.int32(n)]
        out = run("probe/zonal-stats-atomic", host, n, policy=policy)
        zonal_check(out, [val[:n], zone[:n], np.float32(-9999)], 3)
        assert out[5].view(np.float32)[0] == 0 and out[4][1] == 0 and out[5][1] == 0x7F800000 and out[4][2] == 0


# ---- idw-smem-stations ----

def idw_ref(sx, sy, sv, nx, ny):
    px = np.arange(nx) + 0.5
    py = np.arange(ny) + 0.5
    dx = px[None, :, None] - sx.astype(np.float64)
    dy = py[:, None, None] - sy.astype(np.float64)
    d2 = dx * dx + dy * dy
    hit = d2 < 1e-6
    w = np.where(hit, 0, 1 / np.where(hit, 1, d2))
    out = (w * sv).sum(-1) / w.sum(-1)
    anyhit = hit.any(-1)
    out[anyhit] = sv[np.argmax(hit, -1)[anyhit]]
    return out.ravel(), anyhit.ravel()


def test_idw_smem_stations():
    n = 20                                                  # 2 x 2 blocks, partial; 4 tiles of stations
    host, after, *_ = launch("probe/idw-smem-stations", n)
    ref, hit = idw_ref(host[0], host[1], host[2], n, n)
    assert not hit.any() and host[3] == 1024
    np.testing.assert_allclose(after[4], ref, rtol=2e-5, atol=0)


def test_idw_edge_cases():
    # 300 (260) stations: a partial second tile, two of them on cell centres (exact values),
    # nx != ny, under both policies (the shared tile reused across barriers); a single
    # station (a constant grid)
    rng = np.random.default_rng(6)
    for nx, ny, k, policy in [(37, 18, 300, "lockstep"), (16, 8, 260, "random")]:
        sx = rng.uniform(0, nx, k).astype(np.float32)
        sy = rng.uniform(0, ny, k).astype(np.float32)
        sx[[17, 258]], sy[[17, 258]] = [3.5, nx - 1.5], [2.5, ny - 0.5]
        sv = rng.normal(10, 5, k).astype(np.float32)
        out = run("probe/idw-smem-stations", [sx, sy, sv, np.int32(k), np.zeros(nx * ny, np.float32),
                                              np.int32(nx), np.int32(ny)], nx, policy=policy)
        ref, hit = idw_ref(sx, sy, sv, nx, ny)
        assert hit.sum() == 2 and (out[4][hit] == sv[[17, 258]]).all()
        np.testing.assert_allclose(out[4], ref, rtol=2e-5, atol=0)
    out = run("probe/idw-smem-stations", [sx[:1], sy[:1], np.float32([4.25]), np.int32(1),
                                          np.zeros(nx * ny, np.float32), np.int32(nx), np.int32(ny)], nx)
    np.testing.assert_allclose(out[4], 4.25, rtol=1e-6)


# ---- semilag-latlon ----

def sl_ref(q, u, v, dt, nlon, nlat):
    q = q.reshape(nlat, nlon).astype(np.float64)
    jj, ii = np.mgrid[0:nlat, 0:nlon].astype(np.float64)
    lat = -0.5 * np.pi + (jj + 0.5) * np.pi / nlat
    xd = ii - u.reshape(nlat, nlon) * dt / (6371000.0 * np.cos(lat) * 2 * np.pi / nlon)
    yd = np.clip(jj - v.reshape(nlat, nlon) * dt / (6371000.0 * np.pi / nlat), 0, nlat - 1)
    j0 = np.minimum(np.floor(yd), nlat - 2).astype(int)
    fy = yd - j0
    i0 = np.floor(xd).astype(int) % nlon
    fx = xd - np.floor(xd)
    i1 = (i0 + 1) % nlon
    return ((1 - fy) * ((1 - fx) * q[j0, i0] + fx * q[j0, i1])
            + fy * ((1 - fx) * q[j0 + 1, i0] + fx * q[j0 + 1, i1])).ravel(), xd - ii, yd


def test_semilag_latlon():
    n = 20                                                  # 40 x 20: 2 x 3 blocks, partial
    host, after, *_ = launch("probe/semilag-latlon", n)
    ref, sx, yd = sl_ref(host[0], host[1], host[2], host[4], 2 * n, n)
    yd = yd.ravel()
    assert after[5] == 40 and after[6] == 20 and 1 < np.abs(sx).max() < 2.5 and (yd == 0).any()
    np.testing.assert_allclose(after[3], ref, rtol=0, atol=2e-5)


def test_semilag_edge_cases():
    # a long step: departure points many times round the globe (both ways) and clamped at
    # both poles; a tracer varying in longitude and latitude (no symmetry hiding the indexing)
    rng = np.random.default_rng(7)
    nlon, nlat = 48, 24
    q = rng.uniform(0, 1, nlon * nlat).astype(np.float32)
    u = rng.uniform(-60, 60, nlon * nlat).astype(np.float32)
    v = rng.uniform(-30, 30, nlon * nlat).astype(np.float32)
    dt = np.float32(3e6)
    out = run("probe/semilag-latlon", [q, u, v, np.zeros(nlon * nlat, np.float32), dt, np.int32(nlon),
                                       np.int32(nlat)], nlat, policy="random")
    ref, sx, yd = sl_ref(q, u, v, dt, nlon, nlat)
    assert sx.max() > 3 * nlon and sx.min() < -3 * nlon and (yd[1:] == 0).any() and (yd[:-1] == nlat - 1).any()
    # float32's departure points are off by a few ulps of xd (~1e3 cells near the poles)
    assert (np.abs(out[3] - ref) <= 2e-5 + 2e-6 * np.abs(sx).ravel()).all()


# ---- satadj-columns ----

def satadj_ref(t, qv, qc, ncol, p, dpg):
    """satadj_columns' scheme in float64: (T, qv, qc, cond, changed)."""
    t, q, c = (x.reshape(-1, ncol).astype(np.float64) for x in (t, qv, qc))
    p = p.astype(np.float64)[:, None]

    def dqs(qs, t):
        tc = t - 273.15
        return qs * 17.625 * 243.04 / (tc + 243.04) ** 2
    qs = tp._u68_qsat(t, p)
    sup = q > qs
    evap = ~sup & (c > 0)
    t2, q2, dq = t.copy(), q.copy(), np.zeros_like(t)
    for it in range(2):
        if it:
            qs = tp._u68_qsat(t2, p)
        d = (q2 - qs) / (1 + 2500.8 * dqs(qs, t2))
        t2, q2, dq = np.where(sup, t2 + 2500.8 * d, t2), np.where(sup, q2 - d, q2), np.where(sup, dq + d, dq)
    qs = tp._u68_qsat(t, p)
    d = np.minimum((qs - q) / (1 + 2500.8 * dqs(qs, t)), c)
    t2, q2, dq = np.where(evap, t - 2500.8 * d, t2), np.where(evap, q + d, q2), np.where(evap, -d, dq)
    cond = (dq * dpg.astype(np.float64)[:, None]).sum(0)
    return t2.ravel(), q2.ravel(), (c + dq).ravel(), cond, (sup | evap).ravel()


def satadj_check(out, host, ncol, syms):
    rt, rq, rc, rcond, changed = satadj_ref(host[0], host[1], host[2], ncol, syms["c_plev"], syms["c_dpg"])
    np.testing.assert_allclose(out[0], rt, rtol=0, atol=1e-3)
    np.testing.assert_allclose(out[1], rq, rtol=1e-4, atol=1e-8)
    np.testing.assert_allclose(out[2], rc, rtol=1e-4, atol=1e-8)
    np.testing.assert_allclose(out[3], rcond, rtol=0, atol=1e-5)        # 64 float32 terms, some cancelling
    for k in range(3):
        assert (out[k][~changed] == host[k][~changed]).all()                  # untouched: not even rewritten
    return changed


def test_satadj_columns():
    n = 300                                                 # 2 blocks, the last partial
    host, after, syms, _ = launch("probe/satadj-columns", n)
    p, dpg = tp._u68_plev()
    assert (syms["c_plev"] == p.astype(np.float32)).all() and (syms["c_dpg"] == dpg.astype(np.float32)).all()
    changed = satadj_check(after, host, n, syms)
    assert 0.25 < changed.mean() < 0.45 and (after[2] >= 0).all() and (after[3] > 0).any() and (after[3] < 0).any()
    assert after[4] == n


def test_satadj_edge_cases():
    # one column of 64 levels (a partial warp) on different pressure levels (c_plev set by
    # the host): a strongly supersaturated level, cloud water evaporating entirely (qc
    # exactly 0 after), cloud water partly evaporating, a dry level without cloud
    p = np.linspace(20000, 90000, 64).astype(np.float32)
    dpg = np.full(64, 10.0, np.float32)
    t = np.linspace(230, 290, 64).astype(np.float32)
    qs = tp._u68_qsat(t.astype(np.float64), p.astype(np.float64))
    qv = (qs * np.tile([1.3, 0.5, 0.999, 0.7], 16)).astype(np.float32)
    qc = np.tile(np.float32([0, 1e-6, 1e-2, 0]), 16)
    host = [t, qv, qc, np.full(1, 9, np.float32), np.int32(1)]
    syms = {"c_plev": p, "c_dpg": dpg}
    out = run("probe/satadj-columns", [x.copy() if isinstance(x, np.ndarray) else x for x in host], 1,
              policy="random", symbols=syms)
    changed = satadj_check(out, host, 1, syms)
    assert changed.tolist() == [True, True, True, False] * 16 and (out[2][1::4] == 0).all()
    assert (out[2][2::4] > 0).all() and (out[0][0::4] > t[0::4]).all()
    rh = out[1] / tp._u68_qsat(out[0].astype(np.float64), p.astype(np.float64))
    assert np.abs(rh[0::4] - 1).max() < 1e-4 and np.abs(rh[2::4] - 1).max() < 1e-4     # at saturation after


# ---- viewshed-ballot ----

def vs_ref(dem, ox, oy, h, cs, nx, ny):
    """(visible, margin): the target's elevation angle less the largest along its line of
    sight (float64 slopes, the sampled cells as the kernel picks them)."""
    z = dem.reshape(ny, nx).astype(np.float64)
    z0 = z[oy, ox] + float(h)
    yy, xx = np.mgrid[0:ny, 0:nx]
    dx, dy = xx - ox, yy - oy
    steps = np.maximum(np.abs(dx), np.abs(dy))
    st = np.maximum(steps, 1).astype(np.float32)
    tx, ty = dx.astype(np.float32) / st, dy.astype(np.float32) / st
    length = np.hypot(tx, ty) * float(cs)
    length = np.where(steps == 0, 1, length)                # the observer's own cell: visible
    best = np.full((ny, nx), -np.inf)
    for s in range(1, steps.max()):
        on = s < steps
        cx = ox + np.floor((s * tx.astype(np.float64) + 0.5).astype(np.float32)).astype(int)   # one fma
        cy = oy + np.floor((s * ty.astype(np.float64) + 0.5).astype(np.float32)).astype(int)
        sl = (z[np.where(on, cy, oy), np.where(on, cx, ox)] - z0) / (s * length)
        best = np.where(on, np.maximum(best, sl), best)
    target = (z - z0) / (np.maximum(steps, 1) * length)
    margin = np.where(steps == 0, np.inf, target - best)
    return (margin >= 0).ravel(), margin.ravel()


def vs_check(out, host):
    vis, margin = vs_ref(*[host[k] for k in (0, 3, 4, 5, 6, 7, 8)])
    finite = np.isfinite(margin)
    assert np.abs(margin[finite]).min() > 1e-6                   # no target within rounding of the horizon
    assert out[1].dtype == np.uint8 and (out[1] == vis).all() and out[2][0] == vis.sum()
    return vis


@pytest.mark.parametrize("policy, n", [("lockstep", 64), ("lockstep", 50), ("random", 32)])   # 2 x 7: partial
def test_viewshed_ballot(policy, n):
    host, after, *_ = launch("probe/viewshed-ballot", n, policy=policy)
    vis = vs_check(after, host)
    assert 0.1 < vis.mean() < 0.9


def test_viewshed_edge_cases():
    # a flat plain (everything visible), the observer at a corner behind a wall at x = 10
    # (only the cells up to it, and the wall's top, visible), nx != ny
    nx, ny = 45, 20
    wall = np.zeros((ny, nx), np.float32)
    wall[:, 10] = 100
    for dem, ox, oy in [(np.zeros(nx * ny, np.float32), 7, 13), (wall.ravel(), 0, 0)]:
        host = [dem, np.full(nx * ny, 9, np.uint8), np.full(1, 5, np.int32), np.int32(ox), np.int32(oy),
                np.float32(2), np.float32(30), np.int32(nx), np.int32(ny)]
        out = run("probe/viewshed-ballot", [x.copy() if isinstance(x, np.ndarray) else x for x in host], nx)
        vis = vs_ref(*[host[k] for k in (0, 3, 4, 5, 6, 7, 8)])[0]
        assert (out[1] == vis).all() and out[2][0] == 5 + vis.sum()
    assert vis.reshape(ny, nx)[:, :11].all() and not vis.reshape(ny, nx)[:, 11:].any()
