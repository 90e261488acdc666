"""probe-unseen226's kernels (kernels_cuda/probes228.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/flood-swe-hll-hydrostatic-manning", "probe/flood-swe-cfl-dt-floatbits-shfl",
       "probe/flood-dem-fill-planchon-smem-tile", "probe/flood-radar-scs-runoff-u8-powf",
       "probe/flood-d8-accum-wave-ffs-atomics", "probe/flood-inundation-hazard-zones-u16-struct"]

F32 = np.float32
G = 9.81
HDRY = F32(1e-3)
FMAX = F32(np.finfo(np.float32).max)
DX = np.array([1, 1, 0, -1, -1, -1, 0, 1])          # ESRI order E, SE, S, SW, W, NW, N, NE (y down)
DY = np.array([0, 1, 1, 1, 0, -1, -1, -1])


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen226"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes228.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _fma32(a, b, c):
    """float a * b + c rounded once (the emulator contracts as nvcc does)."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(F32)


# ---- references ----

def _hll(hL, uL, vL, hR, uR, vR):
    """HLL fluxes (float64, 3 arrays) with Toro's dry-bed wave speeds; both dry: 0."""
    cL, cR = np.sqrt(G * hL), np.sqrt(G * hR)
    dL, dR = hL <= HDRY, hR <= HDRY
    sL = np.where(dL, uR - 2 * cR, np.where(dR, uL - cL, np.minimum(uL - cL, uR - cR)))
    sR = np.where(dL, uR + cR, np.where(dR, uL + 2 * cL, np.maximum(uL + cL, uR + cR)))
    UL = [hL, hL * uL, hL * vL]
    UR = [hR, hR * uR, hR * vR]
    FL = [hL * uL, hL * uL * uL + 0.5 * G * hL * hL, hL * uL * vL]
    FR = [hR * uR, hR * uR * uR + 0.5 * G * hR * hR, hR * uR * vR]
    out = []
    with np.errstate(divide="ignore", invalid="ignore"):
        for k in range(3):
            mid = (sR * FL[k] - sL * FR[k] + sL * sR * (UR[k] - UL[k])) / (sR - sL)
            f = np.where(sL >= 0, FL[k], np.where(sR <= 0, FR[k], mid))
            out.append(np.where(dL & dR, 0.0, f))
    return out


def _swe_ref(h, hu, hv, z, lc, nx, ny, dx, dt, manning=tp.P228_SW_MANNING):
    """swe_hll_step in float64: (h1, hu1, hv1), (ny, nx)."""
    h32 = np.asarray(h, F32).reshape(ny, nx)
    wet = h32 > HDRY
    h0 = h32.astype(np.float64)
    z0 = np.asarray(z, F32).reshape(ny, nx).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        u0 = np.where(wet, np.asarray(hu, F32).reshape(ny, nx) / h32, 0).astype(np.float64)
        v0 = np.where(wet, np.asarray(hv, F32).reshape(ny, nx) / h32, 0).astype(np.float64)
    jj, ii = np.mgrid[0:ny, 0:nx]
    dh = np.zeros((ny, nx))
    dhu = np.zeros((ny, nx))
    dhv = np.zeros((ny, nx))
    for fx, fy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        ni, nj = ii + fx, jj + fy
        wall = (ni < 0) | (ni >= nx) | (nj < 0) | (nj >= ny)
        ni, nj = np.clip(ni, 0, nx - 1), np.clip(nj, 0, ny - 1)
        hn = np.where(wall, h0, h0[nj, ni])
        zn = np.where(wall, z0, z0[nj, ni])
        un = np.where(wall, -u0 if fx else u0, u0[nj, ni])
        vn = np.where(wall, -v0 if fy else v0, v0[nj, ni])
        zf = np.maximum(z0, zn)
        hs = np.maximum(0, h0 + z0 - zf)
        hns = np.maximum(0, hn + zn - zf)
        f0, f1, f2 = _hll(hs, u0 * fx + v0 * fy, -u0 * fy + v0 * fx, hns, un * fx + vn * fy, -un * fy + vn * fx)
        fn = f1 + 0.5 * G * (h0 * h0 - hs * hs)
        dh += f0
        dhu += fn * fx - f2 * fy
        dhv += fn * fy + f2 * fx
    r = dt / dx
    hn1 = h0 - r * dh
    hu1 = h0 * u0 - r * dhu
    hv1 = h0 * v0 - r * dhv
    n = manning[np.asarray(lc).reshape(ny, nx)].astype(np.float64)
    ok = hn1 > HDRY
    with np.errstate(divide="ignore", invalid="ignore"):
        den = 1 + dt * G * n * n * np.sqrt(hu1 ** 2 + hv1 ** 2) / (hn1 * hn1 ** np.float64(F32(4 / 3)))
    return (np.where(ok, hn1, np.maximum(hn1, 0)), np.where(ok, hu1 / den, 0), np.where(ok, hv1 / den, 0))


def _cfl_ref(h, hu, hv, dx, cfl):
    """swe_cfl_reduce in float32: (dt, hmax, nwet, volume)."""
    h = np.asarray(h, F32)
    w = h > HDRY
    d = h[w]
    s = np.maximum(np.abs(hu[w] / d), np.abs(hv[w] / d)) + np.sqrt(F32(G) * d)
    dt = (F32(cfl) * F32(dx)) / s
    return (dt.min() if len(d) else None, d.max() if len(d) else F32(0), int(w.sum()),
            d.astype(np.float64).sum() * float(F32(dx)) ** 2)


def _pd_ref(z, w, eps, T=tp.P228_PD_T, maxit=tp.P228_PD_MAXIT):
    """pd_fill_tile: each tile's Jacobi sweeps with its halo fixed, float32: (w_out, cells
    changed, sweeps a tile)."""
    z = np.asarray(z, F32)
    ny, nx = z.shape
    ty, tx = -(-ny // T), -(-nx // T)
    Wp = np.full((ty * T + 2, tx * T + 2), FMAX, F32)
    Wp[1:ny + 1, 1:nx + 1] = w
    S = np.lib.stride_tricks.sliding_window_view(Wp, (T + 2, T + 2))[::T, ::T].copy()
    Zp = np.zeros((ty * T, tx * T), F32)
    Zp[:ny, :nx] = z
    A = np.zeros((ty * T, tx * T), bool)
    A[1:ny - 1, 1:nx - 1] = True
    Zt = Zp.reshape(ty, T, tx, T).transpose(0, 2, 1, 3)
    At = A.reshape(ty, T, tx, T).transpose(0, 2, 1, 3)
    w0 = S[:, :, 1:-1, 1:-1].copy()
    sweeps = np.zeros((ty, tx), np.int64)
    live = np.ones((ty, tx), bool)
    eps = F32(eps)
    for _ in range(maxit):
        wc = S[:, :, 1:-1, 1:-1]
        wn = wc.copy()
        cand = At & (wc > Zt)
        settled = np.zeros_like(cand)
        for dx, dy in zip(DX, DY):
            wk = S[:, :, 1 + dy:1 + dy + T, 1 + dx:1 + dx + T] + eps
            brk = cand & ~settled & (Zt >= wk)
            wn[brk] = Zt[brk]
            settled |= brk
            low = cand & ~settled & (wn > wk)
            wn[low] = wk[low]
        ch = (wn != wc) & live[:, :, None, None]
        sweeps[live] += 1
        S[:, :, 1:-1, 1:-1] = np.where(ch, wn, wc)
        live &= ch.any(axis=(2, 3))
        if not live.any():
            break

    def untile(a):
        return a.transpose(0, 2, 1, 3).reshape(ty * T, tx * T)[:ny, :nx]
    out = untile(S[:, :, 1:-1, 1:-1])
    return out, int((out != untile(w0)).sum()), sweeps


def _rr_ref(codes, nf, rnx, rny, ratio, lu, hsg, nx, ny, frame_h, cn=tp.P228_RR_CN):
    """radar_scs_runoff in float32: (runoff, peak, t_start) flat."""
    R = np.asarray(codes).reshape(nf, rny, rnx)
    ri = np.minimum(np.floor((np.arange(nx).astype(F32) + F32(0.5)) * F32(ratio)).astype(np.int64), rnx - 1)
    rj = np.minimum(np.floor((np.arange(ny).astype(F32) + F32(0.5)) * F32(ratio)).astype(np.int64), rny - 1)
    c = cn[np.asarray(lu).reshape(ny, nx), np.asarray(hsg).reshape(ny, nx)].astype(F32)
    S = F32(25400) / c - F32(254)
    Ia = F32(0.2) * S
    P = np.zeros((ny, nx), F32)
    pk = np.zeros((ny, nx), F32)
    start = np.full((ny, nx), -1, np.int64)
    for f in range(nf):
        code = R[f][rj[:, None], ri[None, :]]
        echo = code > 0
        dbz = np.minimum(F32(0.5) * code.astype(F32) - F32(32), F32(53))
        Z = np.power(F32(10), dbz / F32(10))
        r = np.power(Z / F32(200), F32(1) / F32(1.6))
        P = np.where(echo, _fma32(r, F32(frame_h), P), P)
        pk = np.where(echo, np.maximum(pk, r), pk)
        start = np.where(echo & (start < 0) & (P > Ia), f, start)
    e = P - Ia
    Q = np.where(P > Ia, e * e / (e + S), F32(0))
    return Q.ravel(), pk.ravel(), start.ravel()


def _fa_ref(code, indeg, done, acc, nx, ny):
    """accum_wave: one wave in numpy (float64 sums): (indeg_out, done, acc, fired)."""
    c = np.asarray(code).reshape(ny, nx)
    k = np.zeros(c.shape, np.int64)
    for b in range(8):
        k[c == (1 << b)] = b
    jj, ii = np.mgrid[0:ny, 0:nx]
    ri, rj = ii + DX[k], jj + DY[k]
    ok = (c > 0) & (ri >= 0) & (ri < nx) & (rj >= 0) & (rj < ny)
    rec = np.where(ok, rj * nx + ri, -1).ravel()
    fire = (np.asarray(done) == 0) & (np.asarray(indeg) == 0)
    g = fire & (rec >= 0)
    a = np.asarray(acc, np.float64) + np.bincount(rec[g], weights=np.asarray(acc, np.float64)[g], minlength=nx * ny)
    ind = np.asarray(indeg) - np.bincount(rec[g], minlength=nx * ny)
    return ind, np.where(fire, 1, done), a, int(fire.sum())


def _zs_ref(depth, vel, zone, area, nz=tp.P228_ZS_NZ):
    """inundation_stats: (ncls (nz, 4), dmax (nz), volume float64 (nz))."""
    depth = np.asarray(depth).astype(np.int64)
    zone = np.asarray(zone).astype(np.int64)
    w = (zone != 0) & (depth >= tp.P228_ZS_DRY)
    d = depth[w].astype(F32) * F32(0.001)
    v = np.asarray(vel)[w].astype(F32) * F32(0.001)
    df = np.where(d > tp.P228_ZS_DF_DEPTH[1], tp.P228_ZS_DF[2], np.where(d > tp.P228_ZS_DF_DEPTH[0],
                                                                         tp.P228_ZS_DF[1], tp.P228_ZS_DF[0]))
    hr = _fma32(d, v + F32(0.5), df)
    cls = (hr[:, None] >= tp.P228_ZS_HR[None, :]).sum(axis=1)
    zw = zone[w]
    ncls = np.bincount(zw * 4 + cls, minlength=nz * 4).reshape(nz, 4)
    dmax = np.zeros(nz, np.int64)
    np.maximum.at(dmax, zw, depth[w])
    vol = np.bincount(zw, weights=(d * F32(area)).astype(np.float64), minlength=nz)
    return ncls, dmax, vol


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # the valley in flood: wet channel, a partly flooded floodplain, dry buildings, a stable dt
    z, lc, h, hu, hv = tp._p228_sw_state(512, rng)
    wet = h > HDRY
    assert 0.15 < wet.mean() < 0.6 and (h >= 0).all() and (hu[h == 0] == 0).all() and (hv[h == 0] == 0).all()
    assert wet[lc == 0].all() and not wet[lc == 5].any() and (lc == 5).sum() > 100
    assert set(np.unique(lc)) == set(range(8))
    assert 4.5 < h.max() < 7 and np.median(h[wet & (lc != 0)]) < 2.5               # deep channel, shallow plain
    dt, hmax, nw, vol = _cfl_ref(h.ravel(), hu.ravel(), hv.ravel(), tp.P228_SW_DX, tp.P228_CF_CFL)
    assert tp.P228_SW_DT < dt < 0.5 and hmax == h.max() and nw == wet.sum()
    sp = np.hypot(hu[wet], hv[wet]) / h[wet]
    assert 0.3 < np.median(sp) < 1.5 and sp.max() < 4.5
    assert (wet[:, :-1] != wet[:, 1:]).sum() > 50                                    # a wet/dry front
    # the LiDAR DEM: pits, embankments; W from the coarse fill: >= Z, = Z on the edge
    zd = tp._p228_pd_dem(256, 256, rng)
    P = np.pad(zd, 1, constant_values=np.inf)
    nb = np.stack([P[1 + dy:257 + dy, 1 + dx:257 + dx] for dx, dy in zip(DX, DY)])
    pits = (zd < nb.min(axis=0)).sum()
    assert pits > 20
    w = tp._p228_pd_w0(zd)
    assert (w >= zd).all() and (w[0] == zd[0]).all() and (w[:, -1] == zd[:, -1]).all()
    assert (w > zd).mean() > 0.9
    c = tp._p228_priority_flood(np.array([[5, 5, 5, 5], [5, 1, 2, 5], [5, 3, 0, 4.5], [5, 5, 5, 5]], float))
    assert c[1, 1] == c[2, 2] == c[1, 2] == c[2, 1] == 4.5
    # radar: mostly no echo, convective peaks, Marshall-Palmer codes
    R = tp._p228_rr_rain(36, 256, 256, rng)                                         # the default radar
    assert 0.25 < (R == 0).mean() < 0.6 and R.max() > 40 and np.median(R[R > 0]) < 10
    assert np.percentile(R[R > 0], 99) > 4 * np.median(R[R > 0])                  # skewed: convective cores
    code = tp._p228_rr_codes(np.array([0.0, 1.0, 10.0, 100.0]))
    assert code[0] == 0 and abs(code[1] / 2 - 32 - 23.0) < 0.3 and abs(code[2] / 2 - 32 - 39.0) < 0.3
    lu, hsg = tp._p228_landuse(512, 512, rng)
    share = np.bincount(hsg.ravel(), minlength=4) / hsg.size
    assert np.allclose(share, tp.P228_RR_HSG, atol=0.05) and (hsg[lu == 0] == 3).all()
    assert set(np.unique(lu)) == set(range(8)) and ((lu == 1) | (lu == 2)).mean() > 0.02
    # D8: powers of two, few pits, the waves fire every cell (acyclic) and conserve the runoff
    code, indeg, done, acc = tp._p228_fa_state(128, rng, waves=0)
    assert set(np.unique(code)) <= {0, 1, 2, 4, 8, 16, 32, 64, 128} and (code == 0).mean() < 0.03
    assert (done == 0).all() and (acc >= 0).all() and (acc == 0).mean() > 0.05 and indeg.max() <= 8
    rec = tp._p228_receivers(code.reshape(128, 128))
    total = acc.astype(np.float64).sum()
    a = acc.astype(np.float64)
    for wave in range(100000):
        f = (done == 0) & (indeg == 0)
        if not f.any():
            break
        done[f] = 1
        g = f & (rec >= 0)
        a += np.bincount(rec[g], weights=a[g], minlength=len(a))
        indeg -= np.bincount(rec[g], minlength=len(a)).astype(np.int32)
    assert done.all() and wave > 20
    assert np.isclose(a[rec < 0].sum(), total)                                      # all reaches a sink
    # the flood rasters: a third wet, mm and mm/s, zones of uneven sizes, some outside
    dep, vel, zone = tp._p228_zs_rasters(512, 512, rng, nzones=200)
    assert dep.dtype == vel.dtype == zone.dtype == np.uint16
    wet = dep >= tp.P228_ZS_DRY
    assert 0.15 < wet.mean() < 0.6 and vel.max() <= 5000 and (vel[dep == 0] == 0).all()
    assert 0.05 < (zone == 0).mean() < 0.5 and zone.max() <= 200
    sz = np.bincount(zone[zone > 0].ravel())
    sz = sz[sz > 0]
    assert sz.max() > 5 * np.median(sz)


# ---- flood-swe-hll-hydrostatic-manning ----

def _check_swe(h, hu, hv, z, lc, nx, ny, dx=tp.P228_SW_DX, dt=tp.P228_SW_DT):
    arr = [np.asarray(a, F32).ravel() for a in (h, hu, hv, z)]
    host = arr + [np.asarray(lc, np.uint8).ravel(), np.zeros(nx * ny, F32), np.zeros(nx * ny, F32),
                  np.zeros(nx * ny, F32), np.int32(nx), np.int32(ny), F32(dx), F32(dt)]
    out = run("probe/flood-swe-hll-hydrostatic-manning", host, nx, symbols={"c_manning": tp.P228_SW_MANNING},
              grid=(-(-nx // 32), -(-ny // 8)))
    want = _swe_ref(*arr, host[4], nx, ny, dx, dt)
    for got, ref in zip(out[5:8], want):
        assert np.allclose(got, ref.ravel(), rtol=1e-5, atol=1e-5)
    return out, want


def test_swe_hll():
    rng = np.random.default_rng(1)
    z, lc, h, hu, hv = tp._p228_sw_state(96, rng)
    z, lc, h, hu, hv = (a[:, :72] for a in (z, lc, h, hu, hv))           # 72 x 96: partial blocks along x
    out, want = _check_swe(h, hu, hv, z, lc, 72, 96)
    assert (out[5] >= 0).all() and ((h > HDRY) & (out[5].reshape(96, 72) <= HDRY)).sum() < 20
    assert np.abs(out[5] - h.ravel()).max() > 1e-3                                  # the water moved


def test_swe_cases():
    nx, ny = 40, 12
    z = np.zeros((ny, nx), F32)
    h = np.zeros((ny, nx), F32)
    h[:, :20] = 2.0                                                                  # a dam break onto a dry bed
    zero = np.zeros((ny, nx), F32)
    out, _ = _check_swe(h, zero, zero, z, np.ones((ny, nx), np.uint8), nx, ny)
    h1 = out[5].reshape(ny, nx)
    assert (h1[:, 20] > 0).all() and (h1[:, 21:] == 0).all() and np.isclose(h1.sum(), h.sum(), rtol=1e-6)
    assert np.allclose(h1, h1[0:1]) and (out[7] == 0).all()                          # 1-D: no y momentum
    # lake at rest over a bumpy bed and a wall of land: stays at rest (well balanced)
    rng = np.random.default_rng(2)
    z = rng.uniform(0, 1.5, (ny, nx)).astype(F32)
    z[:, 30:] = 5.0
    h = np.maximum(F32(2.0) - z, 0).astype(F32)
    out, _ = _check_swe(h, zero, zero, z, rng.integers(0, 8, (ny, nx)).astype(np.uint8), nx, ny)
    assert np.abs(out[5] - h.ravel()).max() < 1e-5 and np.abs(out[6]).max() < 1e-4
    # a single cell, all walls; a flow against the east wall
    _check_swe(np.full((1, 1), 1.5, F32), np.full((1, 1), 2.0, F32), np.full((1, 1), -1.0, F32),
               np.zeros((1, 1), F32), np.zeros((1, 1), np.uint8), 1, 1)


# ---- flood-swe-cfl-dt-floatbits-shfl ----

def _check_cfl(h, hu, hv, grid, dx=tp.P228_SW_DX, cfl=tp.P228_CF_CFL):
    n = len(h)
    host = [np.asarray(h, F32), np.asarray(hu, F32), np.asarray(hv, F32), np.int32(n), F32(dx), F32(cfl),
            np.array([tp.P228_CF_DT0], F32).view(np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32),
            np.zeros(1, np.float64)]
    out = run("probe/flood-swe-cfl-dt-floatbits-shfl", host, 1, grid=(grid, 1))
    dt, hmax, nw, vol = _cfl_ref(host[0], host[1], host[2], dx, cfl)
    got_dt = out[6].view(F32)[0]
    assert got_dt == (F32(tp.P228_CF_DT0) if dt is None else min(dt, F32(tp.P228_CF_DT0)))
    assert out[7].view(F32)[0] == hmax and out[8][0] == nw
    assert np.isclose(out[9][0], vol, rtol=1e-12, atol=0)
    return got_dt


def test_cfl():
    rng = np.random.default_rng(3)
    _, _, h, hu, hv = tp._p228_sw_state(100, rng)                                   # 10000 cells, 5 trips
    dt = _check_cfl(h.ravel(), hu.ravel(), hv.ravel(), 8)
    assert 0.1 < dt < 1


def test_cfl_cases():
    _check_cfl(np.zeros(300, F32), np.zeros(300, F32), np.zeros(300, F32), 2)      # all dry: dt untouched
    h = np.full(77, 1e-3, F32)                                                      # at the threshold: dry
    h[40] = 3.0
    dt = _check_cfl(h, np.zeros(77, F32), np.zeros(77, F32), 1)                     # a single wet cell, part of a warp
    assert dt == F32(tp.P228_CF_CFL) * F32(tp.P228_SW_DX) / np.sqrt(F32(G) * F32(3.0))
    rng = np.random.default_rng(4)
    h = rng.exponential(1.0, 1000).astype(F32)
    _check_cfl(h, (h * rng.normal(0, 2, 1000)).astype(F32), (h * rng.normal(0, 2, 1000)).astype(F32), 1)
    h[:] = 2.0                                                                       # ties everywhere
    _check_cfl(h, np.zeros(1000, F32), np.full(1000, -2.0, F32), 3)


# ---- flood-dem-fill-planchon-smem-tile ----

def _check_pd(z, w, grid=None, eps=tp.P228_PD_EPS):
    ny, nx = z.shape
    host = [np.asarray(z, F32).ravel(), np.asarray(w, F32).ravel(), np.zeros(nx * ny, F32), np.int32(nx),
            np.int32(ny), F32(eps), np.zeros(1, np.int32)]
    out = run("probe/flood-dem-fill-planchon-smem-tile", host, nx, grid=grid or (-(-nx // 16), -(-ny // 16)))
    want, nch, sweeps = _pd_ref(z, w, eps)
    assert (out[2] == want.ravel()).all() and out[6][0] == nch
    return out, sweeps


def test_pd_fill():
    rng = np.random.default_rng(5)
    z = tp._p228_pd_dem(40, 56, rng)                                                 # 3 x 4 tiles, partial ones
    w = tp._p228_pd_w0(z)
    out, sweeps = _check_pd(z, w)
    assert out[6][0] > 100 and sweeps.max() > 5 and (out[2] >= z.ravel()).all()
    assert (out[2] <= w.ravel()).all()


def test_pd_cases():
    z = np.full((16, 16), 100.0, F32)                                                # a single tile, walls ...
    z[1:15:2, 1:15] = 0.0                                                            # ... around a snake of a channel
    for k, r in enumerate(range(2, 14, 2)):
        z[r, 14 if k % 2 == 0 else 1] = 0.0
    z[0, 1] = 0.0                                                                    # its outlet on the edge
    w = np.maximum(z, 50).astype(F32)
    w[0], w[-1], w[:, 0], w[:, -1] = z[0], z[-1], z[:, 0], z[:, -1]
    out, sweeps = _check_pd(z, w, grid=(1, 1))
    assert sweeps[0, 0] == tp.P228_PD_MAXIT                                          # the snake is longer than 32
    flat = np.full((20, 20), 7.0, F32)                                               # W = Z: nothing to do
    out, sweeps = _check_pd(flat, flat.copy())
    assert out[6][0] == 0 and (sweeps == 1).all()
    z = np.array([[5, 5, 5], [5, 1, 5], [5, 5, 5]], F32)                             # one active cell: a pit
    out, _ = _check_pd(z, np.array([[5, 5, 5], [5, 9, 5], [5, 5, 5]], F32))
    assert out[2][4] == F32(5) + F32(tp.P228_PD_EPS) and out[6][0] == 1


# ---- flood-radar-scs-runoff-u8-powf ----

def _check_rr(codes, nf, rnx, rny, lu, hsg, nx, ny, ratio=tp.P228_RR_RATIO):
    host = [np.asarray(codes, np.uint8).ravel(), np.int32(nf), np.int32(rnx), np.int32(rny), F32(ratio),
            np.asarray(lu, np.uint8).ravel(), np.asarray(hsg, np.uint8).ravel(), np.int32(nx), np.int32(ny),
            F32(tp.P228_RR_FRAME_H), np.zeros(nx * ny, F32), np.zeros(nx * ny, F32), np.zeros(nx * ny, np.int16)]
    out = run("probe/flood-radar-scs-runoff-u8-powf", host, nx, symbols={"c_cn": tp.P228_RR_CN},
              grid=(-(-nx // 32), -(-ny // 8)))
    Q, pk, st = _rr_ref(host[0], nf, rnx, rny, ratio, host[5], host[6], nx, ny, tp.P228_RR_FRAME_H)
    assert (out[12] == st).all()
    assert np.allclose(out[10], Q, rtol=2e-6, atol=1e-6) and np.allclose(out[11], pk, rtol=2e-6, atol=0)
    return out


def test_radar_runoff():
    rng = np.random.default_rng(6)
    nx, ny = 80, 48                                                                  # radar 5 x 3 pixels
    codes = tp._p228_rr_codes(tp._p228_rr_rain(36, 3, 5, rng) * 3)
    lu, hsg = tp._p228_landuse(ny, nx, rng)
    out = _check_rr(codes, 36, 5, 3, lu, hsg, nx, ny)
    assert (out[12] >= 0).any() and (out[12] == -1).any() and out[10].max() > 1


def test_radar_cases():
    nx, ny = 40, 9
    lu = np.tile(np.arange(8, dtype=np.uint8), 45)[:nx * ny]
    hsg = (np.arange(nx * ny) // 8 % 4).astype(np.uint8)
    codes = np.zeros((5, 1, 1), np.uint8)                                            # no echo at all
    out = _check_rr(codes, 5, 1, 1, lu, hsg, nx, ny, ratio=0.01)
    assert (out[10] == 0).all() and (out[11] == 0).all() and (out[12] == -1).all()
    codes = np.array([[[0, 255]], [[170, 1]], [[200, 100]]], np.uint8)              # hail cap, the weakest echo
    out = _check_rr(codes, 3, 2, 1, lu, hsg, nx, ny, ratio=0.05)
    _check_rr(codes, 3, 2, 1, lu, hsg, nx, ny, ratio=0.0)                            # every cell on pixel 0
    _check_rr(np.full((0,), 0, np.uint8), 0, 2, 1, lu, hsg, nx, ny)                  # no frames


# ---- flood-d8-accum-wave-ffs-atomics ----

def _check_fa(code, indeg, done, acc, nx, ny, grid):
    host = [np.asarray(code, np.uint8).ravel(), np.asarray(indeg, np.int32), np.asarray(indeg, np.int32).copy(),
            np.asarray(done, np.uint8).copy(), np.asarray(acc, F32).copy(), np.int32(nx), np.int32(ny),
            np.zeros(1, np.int32)]
    out = run("probe/flood-d8-accum-wave-ffs-atomics", host, nx, grid=(grid, 1))
    ind, dn, a, fired = _fa_ref(code, indeg, done, acc, nx, ny)
    assert (out[2] == ind).all() and (out[3] == dn).all() and out[7][0] == fired
    assert np.allclose(out[4], a, rtol=1e-6, atol=1e-30)
    return out


def test_accum_wave():
    rng = np.random.default_rng(7)
    code, indeg, done, acc = tp._p228_fa_state(60, rng)                              # after the first wave
    for _ in range(3):                                                               # three more, chained
        out = _check_fa(code, indeg, done, acc, 60, 60, 5)                           # 3600 cells, 3 trips
        assert out[7][0] > 0
        indeg, done, acc = out[2], out[3], out[4]


def test_accum_cases():
    nx = 300
    code = np.ones(nx, np.uint8)                                                     # a row draining east
    indeg = np.ones(nx, np.int32)
    indeg[0] = 0
    acc = np.arange(nx, dtype=F32)
    out = _check_fa(code, indeg, np.zeros(nx, np.uint8), acc + 1, nx, 1, 1)
    assert out[7][0] == 1 and out[4][1] == 3 and out[2][1] == 0 and out[3].sum() == 1
    code = np.full((5, 7), 32, np.uint8)                                             # all NW: the top and left edges drain out
    indeg = np.zeros((5, 7), np.int32)
    indeg[:-1, :-1] = 1
    out = _check_fa(code, indeg.ravel(), np.zeros(35, np.uint8), np.ones(35, F32), 7, 5, 1)
    assert out[7][0] == 11 and out[4].reshape(5, 7)[3, 5] == 2 and out[4].reshape(5, 7)[3, 6] == 1
    done = np.ones(35, np.uint8)                                                     # all done: nothing fires
    out = _check_fa(code, np.zeros(35, np.int32), done, np.ones(35, F32), 7, 5, 2)
    assert out[7][0] == 0
    codes = np.array([[2, 4, 8], [1, 0, 16], [128, 64, 32]], np.uint8)               # 8 donors into a pit
    out = _check_fa(codes, np.array([0, 0, 0, 0, 8, 0, 0, 0, 0], np.int32), np.zeros(9, np.uint8),
                    np.arange(1, 10, dtype=F32), 3, 3, 1)
    assert out[4][4] == 45 and out[2][4] == 0


# ---- flood-inundation-hazard-zones-u16-struct ----

def _check_zs(depth, vel, zone, grid, area=tp.P228_ZS_DX ** 2):
    n = len(depth)
    host = [np.asarray(depth, np.uint16), np.asarray(vel, np.uint16), np.asarray(zone, np.uint16), np.int32(n),
            F32(area), np.zeros(tp.P228_ZS_NZ, tp.P228_ZS_STAT)]
    out = run("probe/flood-inundation-hazard-zones-u16-struct", host, 1, symbols=tp._p228_zs_symbols(),
              grid=(grid, 1))
    ncls, dmax, vol = _zs_ref(depth, vel, zone, area)
    st = out[5]
    assert (st["ncls"] == ncls).all() and (st["dmax_mm"] == dmax).all()
    assert np.allclose(st["volume"], vol, rtol=1e-5, atol=0)
    return st


def test_inundation_stats():
    rng = np.random.default_rng(8)
    dep, vel, zone = tp._p228_zs_rasters(64, 96, rng, nzones=60)
    st = _check_zs(dep.ravel(), vel.ravel(), zone.ravel(), 6)                        # 6144 cells, 4 trips
    assert (st["ncls"].sum(axis=0) > 0).sum() >= 3 and (st["volume"] > 0).sum() >= 5


def test_inundation_cases():
    d = np.array([0, 9, 10, 250, 251, 750, 751, 1000, 2000, 65535, 500, 500], np.uint16)
    v = np.array([0, 0, 0, 1000, 0, 500, 0, 250, 0, 65535, 500, 499], np.uint16)   # thresholds, ties
    z = np.array([1, 1, 1, 2, 2, 3, 3, 1023, 1023, 5, 0, 6], np.uint16)            # zone 0 skipped, the last zone
    st = _check_zs(d, v, z, 1)
    assert st["ncls"][1].sum() == 1 and st["ncls"][0].sum() == 0 and st["dmax_mm"][1023] == 2000
    rng = np.random.default_rng(9)
    n = 5000                                                                          # one zone: all contended
    _check_zs(rng.integers(0, 3000, n).astype(np.uint16), rng.integers(0, 4000, n).astype(np.uint16),
              np.full(n, 7, np.uint16), 3)
    _check_zs(np.zeros(0, np.uint16), np.zeros(0, np.uint16), np.zeros(0, np.uint16), 1)    # no cells
