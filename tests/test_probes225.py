"""probe-unseen223's kernels (kernels_cuda/probes225.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/lbm-d2q9-bgk-pull-porous-zouhe", "probe/lbm-d3q19-bgk-push-aos-spheres",
       "probe/lbm-d2q9-mrt-double-const-local", "probe/lbm-shanchen-force-smem-halo-expf",
       "probe/lbm-d3q19-moments-ke-shfl-ballot", "probe/lbm-tracer-bilinear-bitmask-atomics"]

F32 = np.float32
EX = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1])                     # D2Q9, written out again here
EY = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1])
W9 = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)


def _d3q19():
    """D3Q19's vectors (rest, the 6 faces, the 12 edges in +- pairs), opposites, weights."""
    e = [(0, 0, 0)]
    for a in range(3):
        for s in (1, -1):
            v = [0, 0, 0]
            v[a] = s
            e.append(tuple(v))
    for a, b in ((0, 1), (0, 2), (1, 2)):
        for sa, sb in ((1, 1), (-1, -1), (1, -1), (-1, 1)):
            v = [0, 0, 0]
            v[a], v[b] = sa, sb
            e.append(tuple(v))
    e = np.array(e)
    opp = np.array([int(np.flatnonzero((e == -v).all(axis=1))[0]) for v in e])
    w = np.where((e != 0).sum(axis=1) == 0, 1 / 3, np.where((e != 0).sum(axis=1) == 1, 1 / 18, 1 / 36))
    return e, opp, w


E19, OPP19, W19 = _d3q19()


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen223"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes225.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _fma32(a, b, c):
    """float a * b + c rounded once (the emulator contracts as nvcc does)."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(F32)


def _feq(rho, u, E, W):
    """float64 equilibria (q, ...) of density rho and velocity components u."""
    usq = sum(c * c for c in u)
    out = []
    for e, w in zip(E, W):
        eu = sum(e[k] * u[k] for k in range(len(u)))
        out.append(w * rho * (1 + 3 * eu + 4.5 * eu * eu - 1.5 * usq))
    return np.array(out)


# ---- references ----

def _bp_ref(f_in, mask, nx, ny, omega, u_in, rho_out):
    """d2q9_bgk_pull: f_out (9, ny, nx), float64, zero at solid cells."""
    f = np.asarray(f_in, np.float64).reshape(9, ny, nx)
    sol = np.asarray(mask).reshape(ny, nx).astype(bool)
    Y, X = np.mgrid[0:ny, 0:nx]
    opp = [0, 3, 4, 1, 2, 7, 8, 5, 6]
    g = np.zeros_like(f)
    for q in range(9):
        xs, ys = X - EX[q], (Y - EY[q]) % ny
        inside = (xs >= 0) & (xs < nx)
        xc = np.clip(xs, 0, nx - 1)
        g[q] = np.where(inside, np.where(sol[ys, xc], f[opp[q]], f[q][ys, xc]), 0.0)
    a = g[:, :, 0]                                         # Zou-He inlet, velocity (u_in, 0)
    r = (a[0] + a[2] + a[4] + 2 * (a[3] + a[6] + a[7])) / (1 - u_in)
    a[1] = a[3] + 2 / 3 * r * u_in
    a[5] = a[7] - 0.5 * (a[2] - a[4]) + r * u_in / 6
    a[8] = a[6] + 0.5 * (a[2] - a[4]) + r * u_in / 6
    b = g[:, :, nx - 1]                                    # Zou-He outlet, density rho_out
    ux = -1 + (b[0] + b[2] + b[4] + 2 * (b[1] + b[5] + b[8])) / rho_out
    b[3] = b[1] - 2 / 3 * rho_out * ux
    b[7] = b[5] + 0.5 * (b[2] - b[4]) - rho_out * ux / 6
    b[6] = b[8] - 0.5 * (b[2] - b[4]) - rho_out * ux / 6
    rho = g.sum(0)
    u = [(EX[:, None, None] * g).sum(0) / rho, (EY[:, None, None] * g).sum(0) / rho]
    out = g - omega * (g - _feq(rho, u, np.stack([EX, EY], 1), W9))
    out[:, sol] = 0
    return out


def _pa_ref(f_in, mask, shape, omega, gx):
    """d3q19_push_aos: f_out (nz, ny, nx, 19), float64, zero at solid cells."""
    nx, ny, nz = shape
    f = np.asarray(f_in, np.float64).reshape(nz, ny, nx, 19)
    sol = np.asarray(mask).reshape(nz, ny, nx).astype(bool)
    rho = f.sum(-1)
    u = [(f * E19[:, k]).sum(-1) / rho for k in range(3)]
    u[0] = u[0] + gx / omega
    post = f + omega * (np.moveaxis(_feq(rho, u, E19, W19), 0, -1) - f)
    out = np.zeros_like(f)
    for q in range(19):
        sh = (E19[q, 2], E19[q, 1], E19[q, 0])
        src_solid = np.roll(sol, sh, axis=(0, 1, 2))           # the cell at x - e_q
        out[..., q] = np.where(src_solid, post[..., OPP19[q]], np.roll(post[..., q], sh, axis=(0, 1, 2)))
    out[sol] = 0
    return out


def _mrt_ref(f, mask, n, fx, M, S):
    """d2q9_mrt_collide: f after (9, n)."""
    f = np.asarray(f, np.float64).reshape(9, n).copy()
    fl = np.asarray(mask).ravel() == 0
    m = M @ f[:, fl]
    rho, jx, jy = m[0], m[3], m[5]
    j2 = (jx * jx + jy * jy) / rho
    meq = np.array([rho, -2 * rho + 3 * j2, rho - 3 * j2, jx, -jx, jy, -jy, (jx * jx - jy * jy) / rho, jx * jy / rho])
    m = m - S[:, None] * (m - meq)
    m[3] += fx
    f[:, fl] = np.linalg.solve(M, m)
    return f


def _sc_ref(f, nx, ny, G, rho0, tau):
    """shanchen_force: (rho, ux, uy) float64 (ny, nx)."""
    f = np.asarray(f, np.float64).reshape(9, ny, nx)
    rho = f.sum(0)
    psi = rho0 * (1 - np.exp(-rho / rho0))
    Fx = np.zeros_like(rho)
    Fy = np.zeros_like(rho)
    for q in range(1, 9):
        p = np.roll(psi, (-EY[q], -EX[q]), axis=(0, 1))          # psi at x + e_q
        Fx += W9[q] * p * EX[q]
        Fy += W9[q] * p * EY[q]
    Fx *= -G * psi
    Fy *= -G * psi
    jx = (EX[:, None, None] * f).sum(0)
    jy = (EY[:, None, None] * f).sum(0)
    return rho, (jx + tau * Fx) / rho, (jy + tau * Fy) / rho


def _ke_ref(f, mask, n, speed_scale, hist_scale):
    """d3q19_moments_ke in float32 as the kernel rounds: (fluid, rho, u (3, n), speed_q, hist,
    ke, mass (float64), umax (float32), nfluid)."""
    f = np.asarray(f, F32).reshape(19, n)
    fl = np.asarray(mask).ravel() == 0
    rho = np.zeros(n, F32)
    j = np.zeros((3, n), F32)
    for q in range(19):                                     # in the kernel's order, exact +-1 products
        rho += f[q]
        for k in range(3):
            if E19[q, k]:
                j[k] = j[k] + F32(E19[q, k]) * f[q]
    u = j / rho
    u2 = _fma32(u[2], u[2], _fma32(u[0], u[0], u[1] * u[1]))       # a * b + c * d: fma(a, b, c * d)
    s = np.sqrt(u2)
    sq = np.minimum(_fma32(s, F32(speed_scale), F32(0.5)), F32(65535)).astype(np.uint16)
    b = np.minimum((s * F32(hist_scale)).astype(np.int64), tp.P225_KE_BINS - 1)
    hist = np.bincount(b[fl], minlength=tp.P225_KE_BINS)
    ke = (0.5 * rho[fl].astype(np.float64) * u2[fl].astype(np.float64)).sum()
    mass = rho[fl].astype(np.float64).sum()
    umax = s[fl].max() if fl.any() else F32(0)
    rho[~fl] = 0
    u[:, ~fl] = 0
    sq[~fl] = 0
    return fl, rho, u, sq, hist, ke, mass, umax, int(fl.sum())


def _tr_interp(ux, uy, nx, ny, x, y):
    xf, yf = np.floor(x), np.floor(y)
    i0, j0 = xf.astype(np.int64), yf.astype(np.int64)
    ax, ay = (x - xf).astype(F32), (y - yf).astype(F32)
    i1 = np.minimum(i0 + 1, nx - 1)
    j1 = np.where(j0 + 1 >= ny, 0, j0 + 1)
    out = []
    for g in (ux, uy):
        g00, g10, g01, g11 = g[j0 * nx + i0], g[j0 * nx + i1], g[j1 * nx + i0], g[j1 * nx + i1]
        a = _fma32(ax, g10 - g00, g00)
        b = _fma32(ax, g11 - g01, g01)
        out.append(_fma32(ay, b - a, a))
    return out


def _tr_ref(t, ux, uy, bits, nx, ny, dt):
    """tracer_advect in float32 as the kernel rounds: (tracers after, conc float64, exits)."""
    t = t.copy()
    ux, uy = np.asarray(ux, F32), np.asarray(uy, F32)
    sol = np.unpackbits(np.asarray(bits, "<u4").view(np.uint8), bitorder="little")
    act = np.flatnonzero(t["status"] == 0)
    x, y, age, st = t["x"][act].copy(), t["y"][act].copy(), t["age"][act].copy(), np.zeros(len(act), np.int32)
    u, v = _tr_interp(ux, uy, nx, ny, x, y)
    sp = np.maximum(np.abs(u), np.abs(v))
    nsub = np.maximum(np.ceil((sp * F32(dt)) / F32(tp.P225_TR_MAXSTEP)).astype(np.int64), 1)
    h = (F32(dt) / nsub.astype(F32)).astype(F32)
    live = np.ones(len(act), bool)
    for s in range(int(nsub.max()) if len(act) else 0):
        on = live & (s < nsub)
        if s > 0:
            u2, v2 = _tr_interp(ux, uy, nx, ny, x, y)
            u, v = np.where(on, u2, u), np.where(on, v2, v)
        xn = _fma32(h, u, x)
        yn = _fma32(h, v, y)
        yn = np.where(yn < 0, yn + F32(ny), yn).astype(F32)
        yn = np.where(yn >= ny, yn - F32(ny), yn).astype(F32)
        xn = np.where(xn < 0, F32(0), xn).astype(F32)
        out = on & (xn >= nx - 1)
        x = np.where(out, xn, x)
        y = np.where(out, yn, y)
        st[out] = 1
        live &= ~out
        on &= ~out
        c = yn.astype(np.int64) * nx + np.minimum(xn, nx - 1).astype(np.int64)
        move = on & (sol[np.clip(c, 0, nx * ny - 1)] == 0)
        x = np.where(move, xn, x)
        y = np.where(move, yn, y)
        age = np.where(move, age + h, age).astype(F32)
    t["x"][act], t["y"][act], t["age"][act], t["status"][act] = x, y, age, st
    conc = np.zeros(nx * ny)
    k = st == 0
    xs, ys = x[k], y[k]
    i0, j0 = xs.astype(np.int64), ys.astype(np.int64)
    ax, ay = (xs - i0).astype(np.float64), (ys - j0).astype(np.float64)
    j1 = np.where(j0 + 1 == ny, 0, j0 + 1)
    for c, wt in ((j0 * nx + i0, (1 - ax) * (1 - ay)), (j0 * nx + i0 + 1, ax * (1 - ay)),
                  (j1 * nx + i0, (1 - ax) * ay), (j1 * nx + i0 + 1, ax * ay)):
        np.add.at(conc, c, wt)
    return t, conc, int(st.sum())


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # tables: the D2Q9 / D3Q19 sets written out in the module agree with those built here
    assert (tp.P225_EX == EX).all() and (tp.P225_EY == EY).all() and np.allclose(tp.P225_W, W9)
    assert (tp.P225_EX[tp.P225_OPP] == -EX).all() and (tp.P225_EY[tp.P225_OPP] == -EY).all()
    assert sorted(map(tuple, tp.P225_E19)) == sorted(map(tuple, E19)) and np.isclose(tp.P225_W19.sum(), 1)
    assert (tp.P225_E19[tp.P225_OPP19] == -tp.P225_E19).all()
    for e, w in ((tp.P225_E19, tp.P225_W19), (np.stack([EX, EY], 1), W9)):   # isotropy: sum w e e = 1/3
        assert np.allclose(np.einsum("q,qa,qb->ab", w.astype(float), e, e), np.eye(e.shape[1]) / 3)
    M = tp.P225_MRT_M
    assert np.allclose(M @ M.T, np.diag(np.diag(M @ M.T)))                 # orthogonal rows
    # Boolean grains: the solid fraction asked for, lognormal radii
    m = tp._p225_grains((512, 512), 0.35, (8.0, 0.35), rng)
    assert abs(m.mean() - 0.35) < 0.05
    m3 = tp._p225_grains((64, 64, 64), 0.4, (5.0, 0.25), rng)
    assert abs(m3.mean() - 0.4) < 0.06
    # the porous channel: walls, open inlet and outlet sections, ~35% solid in between
    nx, ny = 512, 256
    mask = tp._p225_bp_mask(nx, ny, rng)
    lo, hi = int(tp.P225_BP_PORE[0] * nx), int(tp.P225_BP_PORE[1] * nx)
    assert (mask[0] == 1).all() and (mask[-1] == 1).all()
    assert (mask[1:-1, :lo] == 0).all() and (mask[1:-1, hi:] == 0).all()
    assert 0.28 < mask[1:-1, lo:hi].mean() < 0.42
    f = tp._p225_bp_state(mask, rng).reshape(9, ny, nx)
    rho = f.sum(0)
    ux = (EX[:, None, None] * f).sum(0) / rho
    fl = mask == 0
    assert np.abs(rho[fl] - 1).max() < 0.01 and 0.02 < ux[fl].mean() < 0.07 and np.abs(ux).max() < 0.2
    sp = ux[fl]
    assert np.percentile(sp, 5) < 0.5 * np.median(sp) and sp.min() < 0.01      # slow cells by the grains
    # spheres: AoS layout, a cell's 19 populations together, mass ~1 a fluid cell
    h = tp._p225_pa_args(32, rng)
    fa = h[0].reshape(-1, 19)
    fl = h[2] == 0
    assert np.abs(fa[fl].sum(1) - 1).max() < 0.01 and 0.25 < 1 - fl.mean() < 0.55
    assert ((fa[fl] @ E19[:, 0]) / fa[fl].sum(1)).mean() > 0.01                # a drift along x
    # MRT: the double field
    h = tp._p225_mr_args(128, rng)
    assert h[0].dtype == np.float64 and 0.2 < h[1].mean() < 0.4
    # Shan-Chen: two phases, thin interfaces, droplets clustered
    rho = tp._p225_sc_density(512, rng)
    assert rho.min() >= tp.P225_SC_RHOG - 1e-6 and rho.max() <= tp.P225_SC_RHOL + 1e-6
    liq = rho > 0.5 * (tp.P225_SC_RHOL + tp.P225_SC_RHOG)
    assert 0.08 < liq.mean() < 0.35 and ((rho > 0.3) & (rho < 2.0)).mean() < 0.15
    tiles = liq.reshape(8, 64, 8, 64).mean(axis=(1, 3))
    assert tiles.std() > 0.1                                                  # clustered, not uniform
    # moments: speeds right-skewed, under P225_KE_UMAX
    h = tp._p225_ke_args(32, rng)
    f = h[0].reshape(19, -1)
    fl = h[1] == 0
    u = (E19.T @ f[:, fl]) / f[:, fl].sum(0)
    s = np.sqrt((u * u).sum(0))
    assert s.max() < tp.P225_KE_UMAX and np.percentile(s, 5) < 0.6 * np.median(s) < np.percentile(s, 99) / 2.5
    # tracers: clustered in fluid cells, some gone, the mask bit-packed
    h = tp._p225_tr_args(1 << 14, rng)
    t, nx, ny = h[0], int(h[5]), int(h[6])
    bits = np.unpackbits(h[4].view(np.uint8), bitorder="little")[:nx * ny]
    cell = t["y"].astype(int) * nx + t["x"].astype(int)
    assert (bits[cell] == 0).all() and (t["x"] >= 0).all() and (t["x"] < nx - 1).all() and (t["y"] < ny).all()
    assert 0.02 < t["status"].mean() < 0.09 and 0.2 < bits.mean() < 0.4
    occ = np.bincount(cell, minlength=nx * ny)
    assert occ.max() > 20 and (occ > 0).mean() < 0.3                        # clustered
    assert (t["x"] > nx - 8).sum() > 0                                       # some reach the outlet


# ---- lbm-d2q9-bgk-pull-porous-zouhe ----

def _check_bp(h, grid=None):
    nx, ny = int(h[3]), int(h[4])
    out = run("probe/lbm-d2q9-bgk-pull-porous-zouhe", h, nx, symbols=tp._p225_d2q9_symbols(),
              grid=grid or (-(-nx // tp.P225_BP_BLOCK), ny))
    want = _bp_ref(h[0], h[2], nx, ny, float(h[5]), float(h[6]), float(h[7]))
    got = out[1].reshape(9, ny, nx)
    assert np.allclose(got, want, rtol=2e-5, atol=2e-7)
    return got


def test_bgk_pull():
    rng = np.random.default_rng(1)
    h = tp._p225_bp_args(256, rng)                     # 256 x 128: 2 blocks a row
    got = _check_bp(h)
    nx, ny = 256, 128
    sol = h[2].reshape(ny, nx).astype(bool)
    rho = got.sum(0)
    ux = (EX[:, None, None] * got).sum(0) / np.where(sol, 1, rho)
    inl = ~sol[:, 0]
    assert np.allclose(ux[inl, 0], tp.P225_BP_UIN, atol=1e-6)     # Zou-He: the inlet at its velocity ...
    assert np.allclose(rho[~sol[:, -1], -1], tp.P225_BP_RHOOUT, atol=1e-6)   # ... the outlet at its density


def test_bgk_pull_cases():
    rng = np.random.default_rng(2)
    nx, ny = 40, 6                                     # part of one block a row
    mask = np.zeros((ny, nx), np.uint8)
    mask[0] = mask[-1] = 1
    mask[2, 20] = 1                                    # one grain
    mask[3:5, 30:32] = 1
    f = tp._p225_bp_state(mask, rng)
    h = [f.ravel(), np.zeros(f.size, F32), mask.ravel(), np.int32(nx), np.int32(ny), F32(1 / 0.8), F32(0.04),
         F32(1.0)]
    got = _check_bp(h)
    assert (got[:, mask == 1] == 0).all()
    # at rest, uniform: every fluid cell keeps rho 1, except where the boundaries push
    f = tp._p225_feq(np.ones(ny * nx, F32), (np.zeros(ny * nx, F32),) * 2, np.stack([EX, EY], 1), tp.P225_W)
    h[0] = f.ravel()
    h[6] = F32(0.0)
    got = _check_bp(h)
    fl = mask == 0
    assert np.allclose(got.sum(0)[fl], 1, atol=1e-6)


# ---- lbm-d3q19-bgk-push-aos-spheres ----

def _check_pa(h):
    shape = tuple(int(v) for v in h[3:6])
    out = run("probe/lbm-d3q19-bgk-push-aos-spheres", h, shape[0], symbols=tp._p225_pa_symbols(),
              grid=(-(-shape[0] // tp.P225_PA_BLOCK), shape[1], shape[2]))
    want = _pa_ref(h[0], h[2], shape, float(h[6]), float(h[7]))
    got = out[1].reshape(want.shape)
    assert np.allclose(got, want, rtol=2e-5, atol=2e-7)
    return got


def test_push_aos():
    rng = np.random.default_rng(3)
    h = tp._p225_pa_args(24, rng)                      # 24 x 12 x 12, spheres of radius ~1.5
    got = _check_pa(h)
    fl = h[2] == 0
    fin = h[0].reshape(-1, 19)
    assert np.isclose(got.reshape(-1, 19)[fl].sum(), fin[fl].sum(), rtol=1e-6)   # mass conserved
    assert 0.2 < 1 - fl.mean() < 0.6


def test_push_aos_cases():
    rng = np.random.default_rng(4)
    nx, ny, nz = 20, 3, 1                              # periodic over 3 and 1 cells: wraps onto itself
    mask = np.zeros((nz, ny, nx), np.uint8)
    mask[0, 1, 5] = 1
    mask[0, :, 12] = 1                                 # a wall across the channel
    f = tp._p225_pa_state(mask, rng)
    h = [f.ravel(), np.zeros(f.size, F32), mask.ravel(), np.int32(nx), np.int32(ny), np.int32(nz),
         F32(1 / 0.7), F32(1e-4)]
    got = _check_pa(h)
    assert (got[mask == 1] == 0).all()
    mask = np.ones((2, 2, 2), np.uint8)                # all solid: nothing written
    f = rng.random((8, 19)).astype(F32)
    h = [f.ravel(), np.zeros(f.size, F32), mask.ravel(), np.int32(2), np.int32(2), np.int32(2), F32(1.0), F32(0)]
    assert (_check_pa(h) == 0).all()


# ---- lbm-d2q9-mrt-double-const-local ----

def _check_mr(h, grid=None):
    n = int(h[2])
    syms = tp._p225_mr_symbols()
    out = run("probe/lbm-d2q9-mrt-double-const-local", h, 1, symbols=syms,
              grid=grid or -(-n // tp.P225_MR_BLOCK))
    want = _mrt_ref(h[0], h[1], n, float(h[3]), tp.P225_MRT_M, tp.P225_MR_S)
    got = out[0].reshape(9, n)
    assert np.allclose(got, want, rtol=1e-12, atol=1e-14)
    assert (got[:, h[1] == 1] == np.asarray(h[0]).reshape(9, n)[:, h[1] == 1]).all()   # solids untouched
    return got


def test_mrt():
    rng = np.random.default_rng(5)
    h = tp._p225_mr_args(40, rng)                      # 1600 cells: 7 blocks, the last partly
    before = h[0].reshape(9, -1).copy()
    got = _check_mr(h)
    fl = h[1] == 0
    m0, m1 = tp.P225_MRT_M @ before[:, fl], tp.P225_MRT_M @ got[:, fl]
    assert np.allclose(m1[0], m0[0], rtol=0, atol=1e-14) and np.allclose(m1[3], m0[3] + tp.P225_MR_FX, atol=1e-14)
    assert np.allclose(m1[5], m0[5], atol=1e-14)
    assert not np.allclose(m1[1], m0[1], atol=1e-9)    # the energy moment relaxed


def test_mrt_cases():
    rng = np.random.default_rng(6)
    n = 37                                             # part of one block
    rho = 1 + 0.01 * rng.random(n)
    ux, uy = 0.05 * rng.standard_normal(n), 0.05 * rng.standard_normal(n)
    f = _feq(rho, (ux, uy), np.stack([EX, EY], 1), W9)           # at equilibrium: only the force acts
    h = [f.ravel().copy(), np.zeros(n, np.uint8), np.int32(n), np.float64(0.0)]
    got = _check_mr(h)
    assert np.allclose(got, f, rtol=0, atol=1e-15)
    h = [f.ravel().copy(), np.ones(n, np.uint8), np.int32(n), np.float64(1e-3)]   # all solid
    _check_mr(h, grid=1)


# ---- lbm-shanchen-force-smem-halo-expf ----

def _check_sc(h, n):
    out = run("probe/lbm-shanchen-force-smem-halo-expf", h, n, symbols=tp._p225_d2q9_symbols(),
              grid=(int(h[1]) // 32, int(h[2]) // 8))
    rho, ux, uy = _sc_ref(h[0], int(h[1]), int(h[2]), float(h[3]), float(h[4]), float(h[5]))
    assert np.allclose(out[6], rho.ravel(), rtol=1e-6, atol=0)
    assert np.allclose(out[7], ux.ravel(), rtol=2e-5, atol=2e-7)
    assert np.allclose(out[8], uy.ravel(), rtol=2e-5, atol=2e-7)
    return out


def test_shanchen():
    rng = np.random.default_rng(7)
    h = tp._p225_sc_args(64, rng)                      # 2 x 8 tiles, halos wrap around
    _check_sc(h, 64)


def test_shanchen_cases():
    nx, ny = 32, 32                                    # 4 tiles in a column
    Y, X = np.mgrid[0:ny, 0:nx]
    d = np.sqrt((X - 15.3) ** 2 + (Y - 15.6) ** 2)
    rho = 0.12 + 2.08 * 0.5 * (1 + np.tanh(2 * (5.0 - d) / 2.5))            # one droplet
    f = tp._p225_feq(rho.astype(F32), (np.zeros(nx * ny, F32),) * 2, np.stack([EX, EY], 1), tp.P225_W)
    h = [f.ravel(), np.int32(nx), np.int32(ny), F32(-5.5), F32(1.0), F32(1.0)] + [np.zeros(nx * ny, F32)] * 3
    out = _check_sc(h, nx)
    Fx, Fy = out[6] * out[7], out[6] * out[8]          # at rest: tau F = rho u
    edge = (d.ravel() > 2.5) & (d.ravel() < 8)
    inward = Fx * (15.3 - X.ravel()) + Fy * (15.6 - Y.ravel())
    assert (inward[edge] > 0).all()                    # cohesion: the interface pulled into the drop
    nx, ny = 32, 8                                     # one tile: every halo is the tile itself
    flat = tp._p225_feq(np.full(nx * ny, 0.7, F32), (np.full(nx * ny, 0.02, F32), np.zeros(nx * ny, F32)),
                        np.stack([EX, EY], 1), tp.P225_W)
    h = [flat.ravel(), np.int32(nx), np.int32(ny), F32(-5.5), F32(1.0), F32(1.0)] + [np.zeros(nx * ny, F32)] * 3
    out = _check_sc(h, nx)
    assert np.allclose(out[7], 0.02, rtol=1e-5) and np.abs(out[8]).max() < 1e-7   # uniform: no force


# ---- lbm-d3q19-moments-ke-shfl-ballot ----

def _check_ke(h, grid):
    n = int(h[2])
    out = run("probe/lbm-d3q19-moments-ke-shfl-ballot", h, 1, symbols=tp._p225_ke_symbols(), grid=grid)
    fl, rho, u, sq, hist, ke, mass, umax, nf = _ke_ref(h[0], h[1], n, float(h[6]), float(h[7]))
    assert (out[3] == rho).all() and (out[4].reshape(3, n) == u).all() and (out[5] == sq).all()
    assert (out[11] == hist).all() and out[10][0] == nf
    assert np.isclose(out[8][0], ke, rtol=1e-12, atol=1e-300) and np.isclose(out[8][1], mass, rtol=1e-12)
    assert out[9].view(F32)[0] == umax
    return out


def test_moments_ke():
    rng = np.random.default_rng(8)
    h = tp._p225_ke_args(24, rng)                      # 24 x 18 x 12 = 5184 cells, 21 blocks
    out = _check_ke(h, (8, 1))                         # 8 blocks: a grid-stride loop of 3 trips
    assert out[11].sum() == out[10][0] and out[10][0] < 5184 and out[8][0] > 0


def test_moments_ke_cases():
    n = 300                                            # a partial last warp
    rho = np.ones(n, F32)
    u = np.zeros((3, n), F32)
    u[0, :100] = 0.3                                   # beyond UMAX: quantised speed and bin clamp
    u[1, 100:200] = np.linspace(0, 0.2, 100)
    f = tp._p225_feq(rho, u, tp.P225_E19, tp.P225_W19)
    mask = np.zeros(n, np.uint8)
    mask[::7] = 1
    h = [f.ravel(), mask, np.int32(n), np.zeros(n, F32), np.zeros(3 * n, F32), np.zeros(n, np.uint16),
         F32(65535 / 0.25), F32(64 / 0.25), np.zeros(2), np.zeros(1, np.int32), np.zeros(1, np.int32),
         np.zeros(64, np.int32)]
    out = _check_ke(h, (1, 1))                         # one block, 2 trips
    assert out[11][63] >= 85 and (out[5][:100][mask[:100] == 0] == 65535).all()
    h = [f.ravel(), np.ones(n, np.uint8), np.int32(n), np.zeros(n, F32), np.zeros(3 * n, F32),
         np.zeros(n, np.uint16), F32(1), F32(1), np.zeros(2), np.zeros(1, np.int32), np.zeros(1, np.int32),
         np.zeros(64, np.int32)]
    out = _check_ke(h, (3, 1))                         # all solid: nothing counted
    assert out[10][0] == 0 and (out[8] == 0).all() and out[9][0] == 0


# ---- lbm-tracer-bilinear-bitmask-atomics ----

def _check_tr(h, grid=None):
    n = int(h[1])
    nx, ny = int(h[5]), int(h[6])
    out = run("probe/lbm-tracer-bilinear-bitmask-atomics", h, n, grid=grid or max(1, -(-n // 256)))
    t, conc, nexit = _tr_ref(h[0], h[2], h[3], h[4], nx, ny, float(h[7]))
    got = out[0]
    assert (got["status"] == t["status"]).all() and out[9][0] == nexit
    assert (got["x"] == t["x"]).all() and (got["y"] == t["y"]).all() and (got["age"] == t["age"]).all()
    assert np.allclose(out[8], conc, rtol=1e-5, atol=1e-5)
    return out


def test_tracers():
    rng = np.random.default_rng(10)
    h = tp._p225_tr_args(3000, rng)
    out = _check_tr(h)
    nx = int(h[5])
    bits = np.unpackbits(h[4].view(np.uint8), bitorder="little")
    t = out[0]
    live = t["status"] == 0
    assert (bits[t["y"][live].astype(int) * nx + t["x"][live].astype(int)] == 0).all()   # never inside a grain
    assert np.isclose(out[8].sum(), live.sum(), rtol=1e-5)


def test_tracer_cases():
    nx, ny = 64, 16
    mask = np.zeros((ny, nx), np.uint8)
    mask[:, 30] = 1                                    # a wall the tracers cannot cross
    mask[5, 30] = 0                                    # but for one hole
    ux = np.full(nx * ny, 0.1, F32)
    uy = np.full(nx * ny, -0.05, F32)
    t = np.zeros(8, tp.P225_TRACER)
    t["x"] = [28.5, 29.9, 62.0, 10.0, 0.0, 40.0, 29.5, 5.25]
    t["y"] = [5.2, 2.0, 3.0, 0.01, 15.99, 7.0, 5.5, 8.75]
    t["status"] = [0, 0, 0, 0, 0, 1, 0, 0]
    h = [t, np.int32(8), ux, uy, tp._p225_tr_bits(mask), np.int32(nx), np.int32(ny), F32(20.0),
         np.zeros(nx * ny, F32), np.zeros(1, np.int32)]
    out = _check_tr(h, grid=1)
    g = out[0]
    assert g["status"][2] == 1 and out[9][0] == 1      # out at the outlet
    assert g["x"][1] < 30 and g["y"][3] > 15           # blocked by the wall; wrapped around y
    assert g["x"][5] == 40.0 and g["age"][5] == 0      # already gone: untouched
    still = [t, np.int32(8), np.zeros(nx * ny, F32), np.zeros(nx * ny, F32), tp._p225_tr_bits(mask), np.int32(nx),
             np.int32(ny), F32(20.0), np.zeros(nx * ny, F32), np.zeros(1, np.int32)]
    out = _check_tr(still, grid=1)                     # no flow: deposited where they are
    assert out[8][8 * nx + 5] == 0.75 * 0.25 and np.isclose(out[8].sum(), 7)
