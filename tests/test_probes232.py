"""probe-unseen230's kernels (kernels_cuda/probes232.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/ib-spread-peskin4-rbc-atomics", "probe/ib-direct-forcing-roma3-mac-structs",
       "probe/ib-fibre-forces-smem-atan2-const-mat", "probe/ib-pressure-jacobi-f64-smem-tree",
       "probe/ib-advect-remesh-shfl-scan", "probe/ib-bin-morton3-u16-smem-hist"]

F32 = np.float32
M = 128                                             # MEM_M
CAP_IN, CAP_OUT = 256, 512


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen230"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes232.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _fma32(a, b, c):
    """float a * b + c rounded once (the emulator contracts as nvcc does)."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(F32)


# ---- references ----

def _cos4(r):
    r = np.abs(r)
    return np.where(r < 2, 0.25 * (1 + np.cos(0.5 * np.pi * r)), 0.0)


def _roma3(r):
    r = np.abs(r)
    a = (1 + np.sqrt(np.maximum(1 - 3 * r * r, 0))) / 3
    q = 1 - r
    b = (5 - 3 * r - np.sqrt(np.maximum(1 - 3 * q * q, 0))) / 6
    return np.where(r <= 0.5, a, np.where(r <= 1.5, b, 0.0))


def _spread_ref(X, F, nx, ny, h):
    """ib_spread_peskin4 in float64: (fx, fy, the sums of the terms' magnitudes, the sums of
    the forces' magnitudes over h^2 of the markers whose stencil holds the node: a weight of
    1 + cosf near -1 is only as good as float32's unit in the last place of 1)."""
    X = np.asarray(X, F32).reshape(-1, 2)
    F = np.asarray(F, F32).reshape(-1, 2).astype(np.float64)
    s = X / F32(h) - F32(0.5)
    i0 = np.floor(s[:, 0]).astype(np.int64) - 1
    j0 = np.floor(s[:, 1]).astype(np.int64) - 1
    fx, fy, mag, fmag = (np.zeros(nx * ny) for _ in range(4))
    for a in range(4):
        for b in range(4):
            w = _cos4(s[:, 0] - (i0 + a)) * _cos4(s[:, 1] - (j0 + b)) / (float(F32(h)) ** 2)
            j = j0 + b
            ok = (j >= 0) & (j < ny)
            idx = (j * nx + (i0 + a) % nx)[ok]
            np.add.at(fx, idx, (F[:, 0] * w)[ok])
            np.add.at(fy, idx, (F[:, 1] * w)[ok])
            np.add.at(mag, idx, (np.abs(F).sum(1) * w)[ok])
            np.add.at(fmag, idx, (np.abs(F).sum(1) / (float(F32(h)) ** 2))[ok])
    return fx, fy, mag, fmag


def _df_ref(mk, part, u, v, w, nx, ny, nz, h, dt, dv):
    """ib_direct_forcing in float64 (the grid indices from float32 positions): (fx, fy, fz,
    pforce (npart, 6), the forces' error scale (a float32 sum of the terms' magnitudes over
    dt), the sums' error scale (npart, 6): the terms' magnitudes and their float32 errors)."""
    h = F32(h)
    stag = [(0.0, 0.5, 0.5), (0.5, 0.0, 0.5), (0.5, 0.5, 0.0)]
    pos = [np.asarray(mk[k], F32) for k in "xyz"]
    U, mag = [], []
    for c, g in enumerate((u, v, w)):
        s = [pos[d] / h - F32(stag[c][d]) for d in range(3)]
        b = [np.floor(s[d] + F32(0.5)).astype(np.int64) - 1 for d in range(3)]
        acc = np.zeros(len(pos[0]))
        am = np.zeros(len(pos[0]))
        for kk in range(3):
            for jj in range(3):
                for ii in range(3):
                    wt = _roma3(s[0] - (b[0] + ii)) * _roma3(s[1] - (b[1] + jj)) * _roma3(s[2] - (b[2] + kk))
                    val = g[(((b[2] + kk) % nz) * ny + (b[1] + jj) % ny) * nx + (b[0] + ii) % nx]
                    acc += wt * val
                    am += np.abs(wt * val)
        U.append(acc)
        mag.append(am)
    P = part[np.asarray(mk["pid"])]
    r = [pos[0] - P["xc"], pos[1] - P["yc"], pos[2] - P["zc"]]
    r = [a.astype(np.float64) for a in r]
    ud = P["u"] + P["oy"] * r[2] - P["oz"] * r[1]
    vd = P["v"] + P["oz"] * r[0] - P["ox"] * r[2]
    wd = P["w"] + P["ox"] * r[1] - P["oy"] * r[0]
    f = [(ud - U[0]) / dt, (vd - U[1]) / dt, (wd - U[2]) / dt]
    scale = (np.abs(ud) + np.abs(vd) + np.abs(wd) + mag[0] + mag[1] + mag[2]) / dt
    c6 = np.stack([f[0], f[1], f[2], r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2],
                   r[0] * f[1] - r[1] * f[0]], 1) * dv
    rn = np.sqrt(r[0] ** 2 + r[1] ** 2 + r[2] ** 2)
    err = np.stack([scale, scale, scale, rn * scale, rn * scale, rn * scale], 1) * dv   # the terms' float32 errors
    pf = np.zeros((len(part), 6))
    pm = np.zeros((len(part), 6))
    np.add.at(pf, np.asarray(mk["pid"]), c6)
    np.add.at(pm, np.asarray(mk["pid"]), np.abs(c6) + 2e-6 / 1e-5 * err)
    return f[0], f[1], f[2], pf, scale, pm


def _ff_ref(X, l0, kap0, A0, typ, mat=tp.P232_RBC_MAT):
    """ib_fibre_forces in float64: F (nc, M, 2)."""
    X = np.asarray(X, F32).reshape(-1, M, 2).astype(np.float64)
    l0 = np.asarray(l0, F32).reshape(-1, M).astype(np.float64)
    k0 = np.asarray(kap0, F32).reshape(-1, M).astype(np.float64)
    A0 = np.asarray(A0, F32).astype(np.float64)
    ks, kb, ka = (mat[np.asarray(typ), k].astype(np.float64)[:, None] for k in range(3))
    xp, xm = np.roll(X, -1, axis=1), np.roll(X, 1, axis=1)
    e, em = xp - X, X - xm
    l, lm = np.hypot(e[..., 0], e[..., 1]), np.hypot(em[..., 0], em[..., 1])
    ds = 0.5 * (l + lm)
    cross = em[..., 0] * e[..., 1] - em[..., 1] * e[..., 0]
    kap = np.arctan2(cross, em[..., 0] * e[..., 0] + em[..., 1] * e[..., 1]) / ds
    T = ks * (l / l0 - 1)
    tf = T[..., None] * e / l[..., None]
    F = tf - np.roll(tf, 1, axis=1)
    area = 0.5 * (X[..., 0] * xp[..., 1] - xp[..., 0] * X[..., 1]).sum(1)
    n = np.stack([xp[..., 1] - xm[..., 1], xm[..., 0] - xp[..., 0]], -1)
    n /= np.hypot(n[..., 0], n[..., 1])[..., None]
    dk = kap - k0
    kss = (np.roll(dk, -1, axis=1) - 2 * dk + np.roll(dk, 1, axis=1)) / ds ** 2
    fb = -kb * (kss + 0.5 * dk * (kap * kap - k0 * k0)) * ds
    fa = -ka * ((area - A0) / A0)[:, None] * ds
    return F + (fb + fa)[..., None] * n


def _pj_ref(p, rhs, nx, ny, h2, omega):
    """ib_pressure_jacobi in float64: (pn, sum of squared residuals)."""
    P = np.asarray(p).reshape(ny, nx)
    b = np.asarray(rhs).reshape(ny, nx)
    up = np.concatenate([P[1:], P[-1:]])
    dn = np.concatenate([P[:1], P[:-1]])
    nb = np.roll(P, 1, axis=1) + np.roll(P, -1, axis=1) + up + dn
    r = b - (nb - 4 * P) / h2
    return ((1 - omega) * P + omega * 0.25 * (nb - h2 * b)).ravel(), float((r * r).sum())


def _rm_ref(X, U, count, dt, ds_max):
    """ib_advect_remesh by a loop over the membranes (float32 as the kernel rounds):
    (Xout (nb CAP_OUT, 2), count_out, nsplit)."""
    X = np.asarray(X, F32).reshape(-1, CAP_IN, 2)
    U = np.asarray(U, F32).reshape(-1, CAP_IN, 2)
    nb = len(count)
    out = np.zeros((nb, CAP_OUT, 2), F32)
    cnt = np.zeros(nb, np.int64)
    nsplit = 0
    for b in range(nb):
        m = int(count[b])
        if m == 0:
            continue
        x = _fma32(F32(dt), U[b, :m], X[b, :m])
        pts = []
        for i in range(m):
            xn = x[(i + 1) % m]
            e = (xn - x[i]).astype(np.float64)
            L = np.sqrt(e @ e)
            k = max(int(np.ceil(L / float(F32(ds_max)))) - 1, 0)
            nsplit += k > 0
            pts.append(x[i].astype(np.float64))
            for q in range(1, k + 1):
                pts.append(x[i] + (q / (k + 1)) * e)
        cnt[b] = min(len(pts), CAP_OUT)
        out[b, :cnt[b]] = np.array(pts[:CAP_OUT])
    return out.reshape(-1, 2), cnt, nsplit


def _morton3(x, y, z):
    code = np.zeros(len(x), np.int64)
    for bit in range(10):
        code |= ((x >> bit) & 1) << (3 * bit)
        code |= ((y >> bit) & 1) << (3 * bit + 1)
        code |= ((z >> bit) & 1) << (3 * bit + 2)
    return code


def _bm_ref(X, inv_h, nx, ny, nz):
    """ib_bin_markers: (keys, counts (8192))."""
    X = np.asarray(X, F32).reshape(-1, 3)
    c = np.floor(X * F32(inv_h)).astype(np.int64)
    ci, cj, ck = c[:, 0] % nx, c[:, 1] % ny, c[:, 2] % nz
    key = _morton3(ci // 16, cj // 16, ck // 16)
    return key, np.bincount(key, minlength=tp.P232_BM_NBIN)


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # the 2-D red-cell channel: a CCW biconcave outline, markers 0.5 .. 0.8 h apart, a cell-free layer
    nx, ny = 1024, 512
    X, X0, typ, cen, th = tp._p232_channel(nx, ny, rng)
    nc = len(X)
    assert nc == tp._p232_channel_count(nx, ny) == 172
    l0, k0, A0 = tp._p232_rest(X0)
    Ru = tp.P232_RBC_R * tp.P232_RBC_H
    assert (A0 > 0).all() and np.allclose(np.median(A0), 0.891 * Ru * Ru, rtol=0.05)
    assert np.allclose(l0, l0[:, :1], rtol=0.02) and 0.55 < np.median(l0) / tp.P232_RBC_H < 0.7
    assert (k0.max(1) > 2 / Ru).all() and (k0.min(1) < 0).all()                     # convex rims, concave dimples
    h = tp.P232_RBC_H
    y = X[..., 1] / h
    assert y.min() > 2 and y.max() < ny - 2 and (X[..., 0] >= 0).all() and (X[..., 0] < nx * h).all()
    near = (cen[:, 1] / h < tp.P232_RBC_SLOT) | (cen[:, 1] / h > ny - tp.P232_RBC_SLOT)
    assert near.sum() == 2 * 10                                                      # wall rows half full (of 21)
    Xu = X.copy()
    Xu[..., 0] -= nx * h * np.round((Xu[..., 0] - Xu[:, :1, 0]) / (nx * h))
    l, _, A = tp._p232_rest(Xu)
    assert np.abs(A / A0 - 1).max() < 0.1 and 0.45 < np.percentile(l / h, 1) and np.percentile(l / h, 99) < 0.85
    F = tp._p232_membrane_force(Xu, X0, typ)
    assert np.abs(F.sum(1)).max() < 1e-9 and np.abs(F).max() > 0.1                 # internal forces: no net force
    tt = np.bincount(tp._p232_rbc_cells(np.full(20000, 0.5), rng)[2], minlength=4) / 20000
    assert np.allclose(tt, tp.P232_RBC_TYPES, atol=0.01)
    # the membranes of the fibre forces: channels of 768 x 480 um in their own coordinates, near rest
    Xf, l0f, k0f, A0f, tf = tp._p232_ff_cells(3000, rng)
    assert (Xf[..., 0] > 0).all() and Xf[..., 0].max() < 64 * 12 and Xf[..., 1].max() < 40 * 12
    lf, _, Af = tp._p232_rest(Xf.astype(np.float64))
    strain = lf / l0f - 1
    assert np.abs(Af / A0f - 1).max() < 0.01
    assert -0.22 < np.percentile(strain, 1) < -0.12 and 0.22 < np.percentile(strain, 99) < 0.34
    assert np.allclose(np.bincount(tf, minlength=4) / 3000, tp.P232_RBC_TYPES, atol=0.02)
    # the pressure step: jumps inside the cells over a smooth field; rhs a Laplacian (sums to 0)
    p, rhs, jump = tp._p232_pj_fields(512, 256, rng)
    inside = jump > 0.5 * np.median(jump[jump > 0.05])
    assert 0.04 < inside.mean() < 0.12 and np.abs(rhs.sum()) < 1e-6 * np.abs(rhs).sum()
    assert np.percentile(np.abs(rhs), 99) > 20 * np.median(np.abs(rhs))             # concentrated at the membranes
    # the spheres: phi, no overlap, markers on the surface, the fluid near the rigid motion
    part, mk, u, v, w = tp._p232_df_state(64, rng)
    hh, D = tp.P232_DF_H, tp.P232_DF_D * tp.P232_DF_H
    L = 64 * hh
    assert len(part) == tp._p232_df_count(64) == 43
    assert abs(len(part) * np.pi / 6 * D ** 3 / L ** 3 - tp.P232_DF_PHI) < 0.01
    c = np.stack([part["xc"], part["yc"], part["zc"]], 1).astype(np.float64)
    d = c[:, None] - c[None]
    d -= L * np.round(d / L)
    dist = np.sqrt((d ** 2).sum(-1)) + np.eye(len(c)) * 1e9
    assert dist.min() >= D + hh - 1e-5
    pos = np.stack([mk["x"], mk["y"], mk["z"]], 1)
    rr = np.linalg.norm(pos - c[mk["pid"]], axis=1)
    assert np.allclose(rr, D / 2, rtol=1e-5) and len(mk) == 43 * tp.P232_DF_NL
    assert (np.bincount(mk["pid"]) == tp.P232_DF_NL).all() and (np.diff(mk["pid"]) >= 0).all()
    assert -23 < part["w"].mean() < -17 and np.std(u) > 2
    # the vesicles: 32 .. 256 markers, ~12% of the segments longer than ds_max, a few by 2 or more
    X, U, cnt = tp._p232_rm_membranes(3000, rng)
    assert cnt.min() >= 32 and cnt.max() <= 256 and 100 < np.median(cnt) < 130
    live = np.arange(CAP_IN)[None, :] < cnt[:, None]
    X3 = X.reshape(3000, CAP_IN, 2)
    assert (X3[~live] == 0).all() and X3.max() < 32 * tp.P232_RM_SLOT
    L = np.concatenate([np.hypot(*(np.roll(X3[b, :m], -1, 0) - X3[b, :m]).T) for b, m in enumerate(cnt)])
    k = np.maximum(np.ceil(L / tp.P232_RM_H) - 1, 0)
    assert 0.08 < (k > 0).mean() < 0.16 and 0 < (k >= 2).mean() < 0.005
    _, cnt1, nsplit = _rm_ref(X[:300], U[:300], cnt[:300], tp.P232_RM_DT, tp.P232_RM_H)
    assert 0.05 < nsplit / cnt[:300].sum() < 0.2 and (cnt1 - cnt[:300]).max() > 20
    # the 3-D red cells: in the box, biconcave (thin middle), ~9 cells of 4 um radius a slot row
    Xb = tp._p232_rbc3d(64, 32, 32, rng)
    assert len(Xb) == tp._p232_bm_count(64) * tp.P232_BM_NV
    box = np.array([64, 32, 32]) * tp.P232_BM_H
    assert (Xb >= 0).all() and (Xb < box).all()
    key, cntb = _bm_ref(Xb, 1 / tp.P232_BM_H, 64, 32, 32)
    assert key.max() < 8 * 4 * 4 and cntb.sum() == len(Xb)
    cell = Xb[:tp.P232_BM_NV].astype(np.float64)                                   # (not across the box's edge)
    sv = np.linalg.svd(cell - cell.mean(0), compute_uv=False)
    assert np.allclose(sv[1] / sv[0], 1, atol=0.1) and 0.2 < sv[2] / sv[0] < 0.45    # a disc
    assert np.ptp(cell @ np.linalg.svd(cell - cell.mean(0))[2][0]) > 7.5              # 8 um across


# ---- ib-spread-peskin4-rbc-atomics ----

def _check_spread(X, F, nx, ny, h=tp.P232_RBC_H, grid=None):
    X = np.asarray(X, F32).reshape(-1, 2)
    F = np.asarray(F, F32).reshape(-1, 2)
    nm = len(X)
    host = [X, F, np.int32(nm), np.zeros(nx * ny, F32), np.zeros(nx * ny, F32), np.int32(nx), np.int32(ny), F32(h)]
    out = run("probe/ib-spread-peskin4-rbc-atomics", host, nx, grid=grid or (max(1, -(-nm // 256)),))
    fx, fy, mag, fmag = _spread_ref(X, F, nx, ny, h)
    tol = 1e-5 * mag + 1e-7 * fmag + 1e-30
    assert (np.abs(out[3] - fx) <= tol).all() and (np.abs(out[4] - fy) <= tol).all()
    return out


def test_spread():
    rng = np.random.default_rng(1)
    host = tp._p232_sp_args(512, rng)                                           # 512 x 256: 37 cells, 4736 markers
    assert host[2] == 37 * M
    out = _check_spread(host[0], host[1], 512, 256)
    h2 = tp.P232_RBC_H ** 2
    assert np.isclose(out[3].astype(np.float64).sum() * h2, host[1][:, 0].astype(np.float64).sum(), atol=1e-4)
    assert (out[3] != 0).mean() > 0.05


def test_spread_cases():
    h = tp.P232_RBC_H
    nx, ny = 64, 16
    # at the periodic edge, on a node, by the walls, and 40 markers on one point (contended)
    X = np.array([[0.01, 2.0], [nx * h - 0.01, 2.0], [(10 + 0.5) * h, (5 + 0.5) * h], [3.0, 0.05], [3.0, ny * h - 0.1]]
                 + [[7.3, 1.9]] * 40, F32)
    F = np.tile(np.array([[1.0, -2.0]], F32), (len(X), 1))
    F[2] = [4.0, 8.0]
    out = _check_spread(X, F, nx, ny)
    fx = out[3].reshape(ny, nx)
    assert fx[5, 10] == F32(4 * 0.25 / h ** 2) and fx[5, 12] == 0                   # phi(0) phi(0), phi(2) = 0
    assert fx[:, 0].sum() > 0 and fx[:, -1].sum() > 0                                 # wrapped around
    _check_spread(np.zeros((0, 2), F32), np.zeros((0, 2), F32), nx, ny, grid=(1,))    # no markers


# ---- ib-direct-forcing-roma3-mac-structs ----

def _check_df(mk, part, u, v, w, nx, ny, nz, h=tp.P232_DF_H, dt=tp.P232_DF_DT):
    nm = len(mk)
    dv = F32(h) ** 3
    host = [mk, np.int32(nm), part, np.asarray(u, F32), np.asarray(v, F32), np.asarray(w, F32), np.int32(nx),
            np.int32(ny), np.int32(nz), F32(h), F32(dt), dv, np.zeros(nm, F32), np.zeros(nm, F32),
            np.zeros(nm, F32), np.zeros(6 * len(part), F32)]
    out = run("probe/ib-direct-forcing-roma3-mac-structs", host, nx, grid=(max(1, -(-nm // 128)),))
    fx, fy, fz, pf, scale, pm = _df_ref(mk, part, host[3], host[4], host[5], nx, ny, nz, h, float(F32(dt)), float(dv))
    for got, ref in zip(out[12:15], (fx, fy, fz)):
        assert (np.abs(got - ref) <= 2e-6 * scale + 1e-30).all()
    assert (np.abs(out[15].reshape(-1, 6) - pf) <= 1e-5 * pm + 1e-30).all()
    return out, pf


def test_direct_forcing():
    rng = np.random.default_rng(2)
    part, mk, u, v, w = tp._p232_df_state(32, rng)                       # 5 spheres, 2260 markers, a partial warp
    out, pf = _check_df(mk, part, u, v, w, 32, 32, 32)
    assert len(part) == 5 and (pf[:, 2] != 0).all()
    assert (mk["x"] < 0).any() or (mk["y"] < 0).any() or (mk["z"] < 0).any() or \
           (mk["x"] > 2).any() or (mk["y"] > 2).any() or (mk["z"] > 2).any()  # across the box's edge


def test_direct_forcing_cases():
    rng = np.random.default_rng(3)
    n = 16
    h = tp.P232_DF_H
    # 5 particles of 13 markers each (warps across particles), uniform flow = their rigid motion
    part = np.zeros(5, tp.P232_PARTICLE)
    part["xc"], part["yc"], part["zc"] = rng.uniform(-0.2, 1.2, (3, 5))
    part["w"] = -20.0
    part["r"] = 0.3
    mk = np.zeros(65, tp.P232_MARKER)
    mk["pid"] = np.repeat(np.arange(5), 13)
    d = rng.standard_normal((65, 3))
    d *= 0.3 / np.linalg.norm(d, axis=1, keepdims=True)
    mk["x"] = part["xc"][mk["pid"]] + d[:, 0]
    mk["y"] = part["yc"][mk["pid"]] + d[:, 1]
    mk["z"] = part["zc"][mk["pid"]] + d[:, 2]
    zero = np.zeros(n ** 3, F32)
    out, pf = _check_df(mk, part, zero, zero, np.full(n ** 3, -20.0, F32), n, n, n)
    assert np.abs(out[14]).max() < 1.0 and np.abs(out[12]).max() == 0            # Roma's weights sum to 1
    # a spinning particle at rest in still fluid, one marker on a node, all in one warp
    part = np.zeros(1, tp.P232_PARTICLE)
    part["xc"], part["yc"], part["zc"], part["oz"] = 0.5, 0.5, 0.5, 10.0
    mk = np.zeros(32, tp.P232_MARKER)
    ang = np.arange(32) * 2 * np.pi / 32
    mk["x"], mk["y"], mk["z"] = 0.5 + 0.25 * np.cos(ang), 0.5 + 0.25 * np.sin(ang), 0.5
    mk["x"][0] = 12 * h                                                               # on u's node
    out, pf = _check_df(mk, part, zero, zero, zero, n, n, n)
    assert pf[0, 5] > 0 and np.abs(pf[0, :2]).max() < 1e-3 * pf[0, 5] / 0.25        # a torque, no net force


# ---- ib-fibre-forces-smem-atan2-const-mat ----

def _check_ff(X, l0, k0, A0, typ, rtol=2e-4):
    nc = len(A0)
    host = [np.asarray(X, F32).reshape(-1, 2), np.asarray(l0, F32).ravel(), np.asarray(k0, F32).ravel(),
            np.asarray(A0, F32), np.asarray(typ, np.uint8), np.zeros((nc * M, 2), F32)]
    out = run("probe/ib-fibre-forces-smem-atan2-const-mat", host, nc, symbols=tp._p232_mat_symbols(), grid=(nc,))
    want = _ff_ref(*host[:5])
    got = out[5].reshape(nc, M, 2)
    scale = np.abs(want).max(axis=(1, 2), keepdims=True)
    floor = 1e-6 * tp.P232_RBC_MAT[np.asarray(typ), 0][:, None, None]   # ks (l / l0 - 1) near rest, in float32
    assert (np.abs(got - want) <= rtol * scale + floor).all()
    return got, want


def test_fibre_forces():
    rng = np.random.default_rng(4)
    X, l0, k0, A0, typ = tp._p232_ff_cells(24, rng)
    got, want = _check_ff(X, l0, k0, A0, typ)
    assert (np.abs(got).max(axis=(1, 2)) > 0.01).all()


def test_fibre_cases():
    ang = 2 * np.pi * np.arange(M) / M
    circ = np.stack([np.cos(ang), np.sin(ang)], -1)
    R = 4.0
    X0 = R * circ
    l0, k0, A0 = (np.asarray(a, F32) for a in tp._p232_rest(X0[None]))
    # at rest: no force; stretched 10% (each type): inward tension, the area's push out, less bending
    X = np.stack([X0, 1.1 * X0 + [20.0, 20.0], 1.1 * X0, 1.1 * X0, 1.1 * X0])
    typ = np.array([0, 0, 1, 2, 3], np.uint8)
    got, want = _check_ff(X, np.tile(l0, (5, 1)), np.tile(k0, (5, 1)), np.tile(A0, 5), typ)
    assert np.abs(got[0]).max() < 1e-4
    radial = (got[1:] * circ[None]).sum(-1)
    assert np.allclose(radial, radial[:, :1], rtol=1e-3)                              # symmetric
    mat = tp.P232_RBC_MAT
    dth = 2 * np.pi / M
    T = mat[typ[1:], 0] * 0.1
    ds = 1.1 * R * 2 * np.sin(dth / 2)
    kap = dth / ds
    fa = mat[typ[1:], 2] * 0.21 * ds
    fb = mat[typ[1:], 1] * 0.5 * (kap - k0[0, 0]) * (kap * kap - k0[0, 0] ** 2) * ds
    assert np.allclose(radial[:, 0], -2 * T * np.sin(dth / 2) - fa - fb, rtol=1e-3)


# ---- ib-pressure-jacobi-f64-smem-tree ----

def _check_pj(p, rhs, nx, ny, h2=tp.P232_RBC_H ** 2, omega=tp.P232_PJ_OMEGA):
    host = [np.asarray(p, np.float64).ravel(), np.asarray(rhs, np.float64).ravel(), np.zeros(nx * ny), np.int32(nx),
            np.int32(ny), np.float64(h2), np.float64(omega), np.zeros(1)]
    out = run("probe/ib-pressure-jacobi-f64-smem-tree", host, nx, grid=(nx // 16, ny // 16))
    pn, r2 = _pj_ref(host[0], host[1], nx, ny, h2, omega)
    assert np.allclose(out[2], pn, rtol=1e-13, atol=1e-13 * np.abs(pn).max())
    assert np.isclose(out[7][0], r2, rtol=1e-11, atol=1e-300)
    return out, r2


def test_pressure_jacobi():
    rng = np.random.default_rng(5)
    p, rhs, _ = tp._p232_pj_fields(256, 96, rng)                                     # 16 x 6 tiles, 5 slot rows
    out, r2 = _check_pj(p, rhs, 256, 96)
    assert r2 > 0 and np.abs(out[2] - p.ravel()).max() > 1e-3


def test_pressure_cases():
    rng = np.random.default_rng(6)
    out, r2 = _check_pj(np.full((16, 16), 3.5), np.zeros((16, 16)), 16, 16)      # a single tile at rest
    assert (out[2] == 3.5).all() and r2 == 0
    P = rng.standard_normal((16, 32))
    _check_pj(P, rng.standard_normal((16, 32)), 32, 16)                           # both walls, wrap in one tile
    ramp = np.repeat(np.arange(32, dtype=np.float64)[:, None], 16, axis=1)         # the walls' mirror
    out, r2 = _check_pj(ramp, np.zeros((32, 16)), 16, 32, h2=1.0, omega=1.0)
    assert out[2].reshape(32, 16)[0, 0] == 0.25 and out[2].reshape(32, 16)[5, 3] == 5.0


# ---- ib-advect-remesh-shfl-scan ----

def _check_rm(X, U, count, dt=tp.P232_RM_DT, ds_max=tp.P232_RM_H):
    nb = len(count)
    host = [np.asarray(X, F32).reshape(-1, 2), np.asarray(U, F32).reshape(-1, 2), np.asarray(count, np.int32),
            F32(dt), F32(ds_max), np.zeros((nb * CAP_OUT, 2), F32), np.zeros(nb, np.int32), np.zeros(1, np.int32)]
    out = run("probe/ib-advect-remesh-shfl-scan", host, nb, grid=(nb,))
    Xo, cnt, nsplit = _rm_ref(host[0], host[1], count, dt, ds_max)
    assert (out[6] == cnt).all() and out[7][0] == nsplit
    assert np.allclose(out[5], Xo, rtol=0, atol=2e-6 * max(1.0, np.abs(Xo).max()))
    return out


def test_advect_remesh():
    rng = np.random.default_rng(7)
    X, U, cnt = tp._p232_rm_membranes(40, rng)
    out = _check_rm(X, U, cnt)
    assert out[7][0] > 0 and (out[6] > cnt).any()


def test_remesh_cases():
    X = np.zeros((4, CAP_IN, 2), F32)
    U = np.zeros((4, CAP_IN, 2), F32)
    cnt = np.array([0, 1, 4, 256], np.int32)                   # empty, a single marker, a coarse square, full
    X[2, :4] = [[0, 0], [10, 0], [10, 10], [0, 10]]            # 40 h sides: 39 new markers each, capped at 512
    ang = 2 * np.pi * np.arange(256) / 256
    X[3] = np.stack([8 * np.cos(ang), 8 * np.sin(ang)], -1)    # 0.79 h apart, a wave of velocities
    U[3] = np.stack([50 * np.cos(5 * ang), 0 * ang], -1)
    out = _check_rm(X, U, cnt)
    assert list(out[6][:3]) == [0, 1, 160] and out[5][CAP_OUT:CAP_OUT + 1].tolist() == [[0, 0]]
    assert (out[5].reshape(4, CAP_OUT, 2)[0] == 0).all()
    X[2, :4] = [[0, 0], [40, 0], [40, 40], [0, 40]]            # 160 h sides: over the cap
    out = _check_rm(X, U, cnt)
    assert out[6][2] == CAP_OUT


# ---- ib-bin-morton3-u16-smem-hist ----

def _check_bm(X, nx, ny, nz, grid, inv_h=1 / tp.P232_BM_H):
    X = np.asarray(X, F32).reshape(-1, 3)
    nm = len(X)
    host = [X, np.int32(nm), F32(inv_h), np.int32(nx), np.int32(ny), np.int32(nz), np.zeros(nm, np.uint16),
            np.zeros(tp.P232_BM_NBIN, np.int32)]
    out = run("probe/ib-bin-morton3-u16-smem-hist", host, nx, grid=(grid,))
    key, cnt = _bm_ref(X, inv_h, nx, ny, nz)
    assert (out[6] == key).all() and (out[7] == cnt).all()
    return out


def test_bin_markers():
    rng = np.random.default_rng(8)
    X = tp._p232_rbc3d(128, 64, 64, rng, ncell=6)                               # 15372 vertices, 8 trips
    out = _check_bm(X, 128, 64, 64, 8)
    assert (out[7] > 0).sum() >= 6 and out[6].max() > 16


def test_bin_cases():
    # the box's far corner (the largest code), the box's edges and past them (wrapped), ties
    X = np.array([[255.9, 127.9, 127.9], [0, 0, 0], [-0.1, -0.1, -0.1], [256.0, 128.0, 128.0], [8.0, 8.0, 8.0],
                  [7.99, 8.0, 8.0]] + [[100.0, 50.0, 20.0]] * 50, F32)
    out = _check_bm(X, 512, 256, 256, 1)                                           # a single block
    assert out[6][0] == 8191 and out[6][1] == 0 and out[6][2] == 8191 and out[6][3] == 0
    assert out[6][4] == 7 and out[6][5] == 6 and out[7].sum() == len(X)
    _check_bm(np.zeros((0, 3), F32), 64, 32, 32, 2)                                 # nothing to bin
