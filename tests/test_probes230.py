"""probe-unseen228's kernels (kernels_cuda/probes230.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/gravity-salt-dome-nagy-prisms-const", "probe/gravity-terrain-corr-dem-i16-smem-tile",
       "probe/mag-rtp-upcont-spectrum-bits-expf", "probe/mag-euler-deconv-window-shfl-double",
       "probe/mag-flightline-gridding-atomics-struct", "probe/gravity-inversion-jtr-grad-smem-proj"]

F32 = np.float32
GK = 6.674e-11 * 1e5                     # G in mGal m^2 / kg
DUMMY = F32(-1.0e32)


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen228"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes230.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- references ----

def _pg_ref(h, nx, ny, x0, y0, dx, prisms):
    """prism_gz in float64 from the kernel's float32 station coordinates: (gz, the sum of the
    corner terms' magnitudes, mGal) (ny, nx)."""
    xp = (F32(x0) + np.arange(nx, dtype=F32) * F32(dx)).astype(np.float64)[None, :]
    yp = (F32(y0) + np.arange(ny, dtype=F32) * F32(dx)).astype(np.float64)[:, None]
    zp = -np.asarray(h, F32).reshape(ny, nx).astype(np.float64)
    gz = np.zeros((ny, nx))
    mag = np.zeros((ny, nx))
    for x1, x2, y1, y2, z1, z2, rho in np.asarray(prisms, np.float64):
        for a, xb in enumerate((x1, x2)):
            for b, yb in enumerate((y1, y2)):
                for c, zb in enumerate((z1, z2)):
                    x = (F32(xb) - xp.astype(F32)).astype(np.float64)
                    y = (F32(yb) - yp.astype(F32)).astype(np.float64)
                    z = (F32(zb) - zp.astype(F32)).astype(np.float64)
                    x, y, z = np.broadcast_arrays(x, y, z)
                    r = np.sqrt(x * x + y * y + z * z)
                    with np.errstate(divide="ignore", invalid="ignore"):
                        f = np.where(y + r > 0, x * np.log(np.where(y + r > 0, y + r, 1)), 0)
                        f = f + np.where(x + r > 0, y * np.log(np.where(x + r > 0, x + r, 1)), 0)
                        f = f - np.where(z != 0, z * np.arctan(x * y / np.where(z != 0, z * r, 1)), 0)
                    gz += (1 if (a + b + c) % 2 == 0 else -1) * rho * f
                    mag += abs(rho) * np.abs(f)
    return GK * gz, GK * mag


def _tc_ref(dem, cell, rho, R=tp.P230_TC_R):
    """terrain_corr in float64, the DEM's edges clamped: (ny, nx)."""
    z = np.asarray(dem, np.float64)
    ny, nx = z.shape
    P = np.pad(z, R, mode="edge")
    out = np.zeros((ny, nx))
    for dy in range(-R, R + 1):
        for dx in range(-R, R + 1):
            d2 = dx * dx + dy * dy
            if d2 == 0 or d2 > R * R:
                continue
            r = cell * np.sqrt(d2)
            dh = P[R + dy:R + dy + ny, R + dx:R + dx + nx] - z
            out += 1 / r - 1 / np.sqrt(r * r + dh * dh)
    return GK * rho * cell * cell * out


def _rt_op(n, dk, dz, eps, fdir, mdir):
    """rtp_upcont's operator (complex128 n x n, FFT order; 0 at the mean) and where its
    denominator was clamped."""
    ki = np.fft.fftfreq(n, 1.0 / n)
    kx = (ki * np.float64(F32(dk)))[None, :]
    ky = (ki * np.float64(F32(dk)))[:, None]
    k = np.hypot(kx, ky)
    with np.errstate(divide="ignore", invalid="ignore"):
        tf = fdir[2] + 1j * (fdir[0] * kx + fdir[1] * ky) / k
        tm = mdir[2] + 1j * (mdir[0] * kx + mdir[1] * ky) / k
        d = tf * tm
        d2 = np.abs(d) ** 2
        op = np.conj(d) / np.maximum(d2, eps) * np.exp(-k * dz)
    op[0, 0] = 0
    clamp = d2 < eps
    clamp[0, 0] = False
    return op, clamp


def _eu_ref(T, Tx, Ty, Tz, nx, ny, dx, si, zmax, W=tp.P230_EU_W, S=tp.P230_EU_S):
    """euler_windows in float64 (numpy's LU solve): {window: (x0, y0, z0, base)} accepted, the
    windows with a gap, the singular ones."""
    T, Tx, Ty, Tz = (np.asarray(a, F32).reshape(ny, nx) for a in (T, Tx, Ty, Tz))
    nwx, nwy = (nx - W) // S + 1, (ny - W) // S + 1
    acc, gaps, sing = {}, 0, 0
    jj, ii = np.mgrid[0:W, 0:W]
    for w in range(nwx * nwy):
        i0, j0 = (w % nwx) * S, (w // nwx) * S
        sl = (slice(j0, j0 + W), slice(i0, i0 + W))
        t = T[sl].astype(np.float64).ravel()
        if (T[sl] == DUMMY).any():
            gaps += 1
            continue
        A = np.column_stack([Tx[sl].ravel(), Ty[sl].ravel(), Tz[sl].ravel(), np.full(W * W, np.float64(F32(si)))])
        A = A.astype(np.float64)
        x = (i0 + ii).ravel() * np.float64(F32(dx))
        y = (j0 + jj).ravel() * np.float64(F32(dx))
        rhs = x * A[:, 0] + y * A[:, 1] + np.float64(F32(si)) * t
        N = A.T @ A
        try:
            s = np.linalg.solve(N, A.T @ rhs)
        except np.linalg.LinAlgError:
            sing += 1
            continue
        if np.abs(np.linalg.eigvalsh(N)).min() < 1e-24 * np.abs(N).max():
            sing += 1
            continue
        xc, yc = (i0 + 0.5 * (W - 1)) * np.float64(F32(dx)), (j0 + 0.5 * (W - 1)) * np.float64(F32(dx))
        side = W * np.float64(F32(dx))
        if 0 < s[2] <= zmax and abs(s[0] - xc) <= side and abs(s[1] - yc) <= side:
            acc[w] = s
    return acc, gaps, sing


def _gr_ref(smp, base, base_ref, cell, sigma, gnx, gny, regional=tp.P230_GR_REGIONAL, rad=tp.P230_GR_RAD):
    """grid_samples: the good samples' residuals in float64 from the kernel's float32 index
    arithmetic: (wsum, vsum, sum |w v|, the terms a node, count, rejected)."""
    s = np.asarray(smp)
    rej = np.array([((s["qc"] >> b) & 1).sum() for b in range(8)], np.int64)
    g = s[s["qc"] == 0]
    tb = g["t_ds"].astype(F32) * (F32(0.1) / F32(tp.P230_GR_BASE_DT))
    kb = tb.astype(np.int64)
    fb = (tb - kb.astype(F32)).astype(np.float64)
    over = kb >= tp.P230_GR_NBASE - 1
    kb[over] = tp.P230_GR_NBASE - 2
    fb[over] = 1.0
    b = np.asarray(base, np.float64)
    di = b[kb] + fb * (b[kb + 1] - b[kb]) - np.float64(F32(base_ref))
    reg = np.asarray(regional, np.float64)
    v = g["tmi"].astype(np.float64) - di - (reg[0] + reg[1] * g["x"] + reg[2] * g["y"])
    gx = g["x"] / F32(cell)
    gy = g["y"] / F32(cell)
    ci = np.floor(gx + F32(0.5)).astype(np.int64)
    cj = np.floor(gy + F32(0.5)).astype(np.int64)
    wsum = np.zeros(gnx * gny)
    vsum = np.zeros(gnx * gny)
    vabs = np.zeros(gnx * gny)
    nterm = np.zeros(gnx * gny)
    for dj in range(-rad, rad + 1):
        for dd in range(-rad, rad + 1):
            ii, jj = ci + dd, cj + dj
            ok = (ii >= 0) & (ii < gnx) & (jj >= 0) & (jj < gny)
            ex = gx[ok].astype(np.float64) - ii[ok]
            ey = gy[ok].astype(np.float64) - jj[ok]
            w = np.exp(-(ex * ex + ey * ey) / (2 * sigma * sigma))
            node = jj[ok] * gnx + ii[ok]
            np.add.at(wsum, node, w)
            np.add.at(vsum, node, w * v[ok])
            np.add.at(vabs, node, np.abs(w * v[ok]))
            np.add.at(nterm, node, 1)
    ok = (ci >= 0) & (ci < gnx) & (cj >= 0) & (cj < gny)
    count = np.bincount(cj[ok] * gnx + ci[ok], minlength=gnx * gny)
    return wsum, vsum, vabs, nterm, count, rej


def _iv_ref(J, res, m, mref, nxy, beta, z0, step, mmin, mmax, zlayer):
    """inv_grad_step in float64: (g, m_new, sum |J r| a cell)."""
    J = np.asarray(J, np.float64).reshape(len(res), len(m))
    r = np.asarray(res, np.float64)
    gd = J.T @ r
    gabs = np.abs(J).T @ np.abs(r)
    ncell = J.shape[1]
    z = np.asarray(zlayer, np.float64)[np.arange(ncell) // nxy]
    wz = 1.0 / (z + z0)
    g = gd + beta * wz * wz * (np.asarray(m, np.float64) - mref)
    return g, np.clip(m - step * g, mmin, mmax), gabs


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # the salt dome: a dense caprock on salt lighter than the compacted sediments below ~450 m
    pr = tp._p230_pg_prisms(rng)
    used = pr[:tp.P230_PG_NLAY + 1]
    assert (pr[tp.P230_PG_NLAY + 1:] == 0).all() and (used[:, 1] > used[:, 0]).all() and (used[:, 5] > used[:, 4]).all()
    assert used[0, 6] > 300 and (used[1:, 6] < 0).all() and -60 < used[1, 6] < -10 and used[-1, 6] < -400
    assert (used[1:, 4] == used[:-1, 5]).all() and used[-1, 5] == 6050          # stacked, no gaps
    w = used[1:, 1] - used[1:, 0]
    assert w.argmax() in (1, 2) and w[-1] > w[4]                                 # the overhang, widening
    h = tp._p230_pg_heights(128, rng, dx=320.0)
    assert h.min() >= 0.5 and 2 < np.median(h) < 8 and h.max() > 10
    gz, _ = _pg_ref(h[::8, ::8], 16, 16, -63.5 * 320, -63.5 * 320, 8 * 320.0, used)
    assert gz.min() < -5 and abs(gz[0, 0]) < 0.2 * abs(gz.min())                 # a low over the dome
    z = np.zeros(1, F32)
    cap = _pg_ref(z, 1, 1, 0.0, 0.0, 1.0, used)[0] - _pg_ref(z, 1, 1, 0.0, 0.0, 1.0, used[1:])[0]
    assert 0.5 < cap[0, 0] < 2                                                   # the caprock's high inside it
    # the DEM: 16-bit metres, alpine relief, flat lakes, steep slopes
    dem = tp._p230_tc_dem(2048, 2048, rng)                                       # the default
    assert dem.dtype == np.int16 and 100 <= dem.min() and dem.max() <= 3500
    assert 400 < dem.std() < 650 and 1300 < np.median(dem) < 1700
    assert 0.035 < (dem == dem.min()).mean() < 0.06                              # lakes
    sl = np.degrees(np.arctan(np.hypot(*np.gradient(dem.astype(float), tp.P230_TC_CELL))))
    assert 12 < np.median(sl) < 25 and np.percentile(sl, 99) > 33
    # the spectrum: fractal with the depth's roll-off, a 150 nT field, its mean 35 nT
    n = 256
    spec = tp._p230_rt_spec(n, rng)
    c = spec[..., 0] + 1j * spec[..., 1]
    f = np.fft.ifft2(c)
    assert abs(f.real.mean() - 35) < 1e-3 and 120 < f.real.std() < 180 and np.abs(f.imag).max() < 1e-3
    amp = np.abs(c)
    assert amp[0, 1:4].mean() > 100 * amp[0, n // 2 - 4:n // 2].mean()          # red, the short waves damped
    _, clamp = _rt_op(n, 2 * np.pi / (n * tp.P230_RT_DX), tp.P230_RT_DZ, tp.P230_RT_EPS,
                      *tp._p230_rt_symbols().values())
    assert 0.1 < clamp.mean() < 0.4                                              # the low-latitude wedge
    # Euler: an RTP field with dykes (sharp, high gradients), gaps ~5%, Tz the field's |k| filter
    T, Tx, Ty, Tz = tp._p230_eu_grids(512, rng)
    gap = T == DUMMY
    assert 0.02 < gap.mean() < 0.12 and (Tx[gap] == DUMMY).all() and (Tz[gap] == DUMMY).all()
    good = ~gap
    assert 120 < T[good].std() < 180 and np.corrcoef(T[good], Tz[good])[0, 1] > 0.2
    gx = np.abs(Tx[good])
    assert np.percentile(gx, 99) > 8 * np.median(gx)                             # skewed: the dykes
    # the survey: 6.0 .. 8.0 m between samples, lines 100 m apart, ~8% flagged for the stated reasons
    smp = tp._p230_gr_survey(150, rng)
    base, ref = tp._p230_gr_base(150)
    trav = smp[smp["kind"] == 0]
    step = np.hypot(np.diff(trav["x"]), np.diff(trav["y"]))[np.diff(trav["line"]) == 0]
    assert 5.95 < step.min() and step.max() < 8.05 and (np.diff(smp["t_ds"]) > 0).all()
    assert len(np.unique(trav["line"])) == 30 and len(np.unique(smp["line"][smp["kind"] == 1])) == 3
    q = smp["qc"]
    rate = [((q >> b) & 1).mean() for b in range(5)]
    assert 0.0003 < rate[0] < 0.003 and 0.001 < rate[1] < 0.05 and 0.1 < rate[2] < 0.3 and rate[3] < 0.03
    assert 0 < rate[4] < 0.1 and (q >> 5 == 0).all()
    assert abs(np.median(base[:300]) - ref) < 30 and np.abs(np.diff(base)).max() > 1.0
    # the inversion: J positive, falling with depth; residuals and model within the stated ranges
    J, res, m, mref, stp, beta = tp._p230_iv_problem(16, rng, nd=64, nz=12)
    assert (J > 0).all() and J.shape == (64, 16 * 16 * 12)
    Jl = J.reshape(64, 12, 256).max(axis=(0, 2))
    assert (np.diff(Jl) < 0).all() and 0.3 < Jl[0] < 5
    assert (m >= -0.3).all() and (m <= 0.5).all() and (mref == 0).all() and stp > 0 and beta > 0
    assert np.abs(res).max() > 10                                                # residuals in sd^-2 units


# ---- gravity-salt-dome-nagy-prisms-const ----

def _check_pg(h, nx, ny, x0, y0, dx, prisms, nprism, grid=None):
    full = np.zeros((tp.P230_PG_MAX, 7), F32)
    full[:len(prisms)] = prisms
    host = [np.asarray(h, F32).ravel(), np.int32(nx), np.int32(ny), F32(x0), F32(y0), F32(dx), np.int32(nprism),
            np.zeros(nx * ny, F32)]
    out = run("probe/gravity-salt-dome-nagy-prisms-const", host, nx, symbols={"c_prisms": full.ravel()},
              grid=grid or (-(-nx // 16), -(-ny // 16)))
    gz, mag = _pg_ref(h, nx, ny, x0, y0, dx, full[:nprism])
    assert np.allclose(out[7].reshape(ny, nx), gz, rtol=1e-5, atol=2e-6 * mag.max() + 1e-9)
    return out[7].reshape(ny, nx), gz


def test_prism_gz():
    rng = np.random.default_rng(1)
    pr = tp._p230_pg_prisms(rng)[:tp.P230_PG_NLAY + 1]
    h = tp._p230_pg_heights(40, rng, dx=900.0)[:24]                              # 40 x 24: partial blocks
    got, _ = _check_pg(h, 40, 24, -19.5 * 900, -11.5 * 900, 900.0, pr, len(pr))
    assert got.min() < -5


def test_prism_cases():
    # a cube of 1000 kg/m^3 at 1 km under a station: 100 m side, ~ a point mass
    cube = np.array([[-50, 50, -50, 50, 950, 1050, 1000]], F32)
    got, _ = _check_pg(np.zeros(1, F32), 1, 1, 0.0, 0.0, 1.0, cube, 1, grid=(1, 1))
    assert abs(got[0, 0] - GK * 1000 * 1e6 / 1e6) < 1e-6
    # an outcropping prism (top at the datum) and stations on its corners and edges: the guards
    box = np.array([[0, 200, 0, 100, 0, 300, 500], [-100, 0, -100, 0, 50, 80, -200]], F32)
    _check_pg(np.zeros((3, 5), F32), 5, 3, 0.0, 0.0, 100.0, box, 2)
    got, _ = _check_pg(np.zeros((2, 2), F32), 2, 2, 0.0, 0.0, 100.0, box, 0)      # no prisms
    assert (got == 0).all()


# ---- gravity-terrain-corr-dem-i16-smem-tile ----

def _check_tc(dem, cell=tp.P230_TC_CELL, rho=tp.P230_TC_RHO):
    ny, nx = dem.shape
    host = [np.asarray(dem, np.int16).ravel(), np.int32(nx), np.int32(ny), F32(cell), F32(rho), np.zeros(nx * ny, F32)]
    out = run("probe/gravity-terrain-corr-dem-i16-smem-tile", host, nx, grid=tp._p230_tc_grid(max(nx, ny)))
    ref = _tc_ref(dem, cell, rho)
    got = out[5].reshape(ny, nx)
    assert np.allclose(got, ref, rtol=2e-5, atol=1e-7)
    return got, ref


def test_terrain_corr():
    rng = np.random.default_rng(2)
    dem = tp._p230_tc_dem(40, 56, rng)                                           # 3 x 4 tiles, partial ones
    got, ref = _check_tc(dem)
    assert (got >= 0).all() and got.max() > 0.5


def test_terrain_cases():
    spike = np.full((20, 33), 500, np.int16)                                     # flat but for a tower of rock
    spike[10, 17] = 1500
    got, _ = _check_tc(spike)
    jj, ii = np.mgrid[0:20, 0:33]
    d2 = (jj - 10) ** 2 + (ii - 17) ** 2
    assert ((got > 0) == (d2 <= 64)).all() and (got[d2 > 64] == 0).all()       # felt exactly within the disc
    assert np.isclose(got[10, 25], GK * tp.P230_TC_RHO * 900 * (1 / 240 - 1 / np.hypot(240, 1000)), rtol=1e-5)
    assert got[10, 17] > 10 * got[10, 18]                                        # the tower's top: all below it


# ---- mag-rtp-upcont-spectrum-bits-expf ----

def _check_rt(spec, logn, dk, dz, eps, fdir, mdir, grid):
    n = 1 << logn
    host = [np.asarray(spec, F32).ravel().copy(), np.int32(logn), F32(dk), F32(dz), F32(eps)]
    out = run("probe/mag-rtp-upcont-spectrum-bits-expf", host, n,
              symbols={"c_fdir": np.asarray(fdir, F32), "c_mdir": np.asarray(mdir, F32)}, grid=(grid, 1))
    c = np.asarray(spec, F32).reshape(n, n, 2).astype(np.float64)
    v = c[..., 0] + 1j * c[..., 1]
    op, clamp = _rt_op(n, dk, dz, F32(eps), np.asarray(fdir, F32).astype(np.float64),
                       np.asarray(mdir, F32).astype(np.float64))
    want = v * op
    got = out[0].reshape(n, n, 2)
    tol = 3e-6 * np.abs(v) * np.abs(op) + 1e-30
    assert (np.abs(got[..., 0] - want.real) <= tol).all() and (np.abs(got[..., 1] - want.imag) <= tol).all()
    assert (got[0, 0] == 0).all()
    return got, clamp


def test_rtp_upcont():
    rng = np.random.default_rng(3)
    n = 64
    spec = tp._p230_rt_spec(n, rng)
    dk = 2 * np.pi / (n * tp.P230_RT_DX)
    sym = tp._p230_rt_symbols()
    _, clamp = _check_rt(spec, 6, dk, tp.P230_RT_DZ, tp.P230_RT_EPS, sym["c_fdir"], sym["c_mdir"], 3)
    assert clamp.sum() > 100                                                     # the stabiliser at work


def test_rtp_cases():
    rng = np.random.default_rng(4)
    spec = rng.standard_normal((2, 2, 2)).astype(F32)                            # 2 x 2: the mean and Nyquist
    pole = np.array([0, 0, 1], F32)
    got, _ = _check_rt(spec, 1, 0.5, 0.0, 0.0, pole, pole, 1)                  # at the pole, no continuation: identity
    assert (got.reshape(4, 2)[1:] == spec.reshape(4, 2)[1:]).all()
    d = tp._p230_dir(3.0, 10.0)                                                  # near the equator: clamped
    _check_rt(rng.standard_normal((16, 16, 2)).astype(F32), 4, 0.01, 100.0, 0.05, d, tp._p230_dir(60.0, -5.0), 1)
    _check_rt(rng.standard_normal((32, 32, 2)).astype(F32), 5, 0.001, 1000.0, 0.0, d, d, 2)


# ---- mag-euler-deconv-window-shfl-double ----

def _check_eu(T, Tx, Ty, Tz, nx, ny, dx=tp.P230_EU_DX, si=tp.P230_EU_SI, zmax=tp.P230_EU_ZMAX):
    nwx, nwy = (nx - tp.P230_EU_W) // tp.P230_EU_S + 1, (ny - tp.P230_EU_W) // tp.P230_EU_S + 1
    host = [np.asarray(a, F32).ravel() for a in (T, Tx, Ty, Tz)]
    host += [np.int32(nx), np.int32(ny), F32(dx), F32(si), np.int32(nwx), np.int32(nwy), F32(zmax),
             np.zeros(nwx * nwy, tp.P230_EU_SOL), np.zeros(1, np.int32)]
    out = run("probe/mag-euler-deconv-window-shfl-double", host, nx, grid=(-(-nwx * nwy * 32 // 256), 1))
    acc, gaps, sing = _eu_ref(T, Tx, Ty, Tz, nx, ny, dx, si, zmax)
    ns = out[12][0]
    sol = out[11][:ns]
    assert ns == len(acc) and (out[11][ns:]["npts"] == 0).all()
    assert sorted(sol["window"]) == sorted(acc) and (sol["npts"] == 64).all()
    for e in sol:
        s = acc[e["window"]]
        got = np.array([e["x0"], e["y0"], e["z0"], e["base"]], np.float64)
        assert np.allclose(got, s, rtol=2e-6, atol=1e-4 * (1 + abs(s[3])))
    return sol, acc, gaps, sing


def test_euler():
    rng = np.random.default_rng(5)
    T, Tx, Ty, Tz = tp._p230_eu_grids(64, rng)
    T, Tx, Ty, Tz = (a[:40] for a in (T, Tx, Ty, Tz))                          # 64 x 40: 29 x 17 windows
    T[30:34, 10:13] = DUMMY
    sol, acc, gaps, _ = _check_eu(T, Tx, Ty, Tz, 64, 40)
    assert len(acc) > 30 and gaps >= 9 and len(acc) < 29 * 17 - gaps


def test_euler_cases():
    # the field 1 / r of a line-like pole (homogeneous of degree -1: N = 1) at (260, 190, 120) m: exact
    nx, ny, dx = 24, 20, 25.0
    jj, ii = np.mgrid[0:ny, 0:nx].astype(np.float64)
    X, Y, z0 = ii * dx - 260, jj * dx - 190, 120.0
    r = np.sqrt(X * X + Y * Y + z0 * z0)
    T, Tx, Ty, Tz = 1e6 / r, -1e6 * X / r ** 3, -1e6 * Y / r ** 3, 1e6 * z0 / r ** 3
    sol, acc, _, _ = _check_eu(T, Tx, Ty, Tz, nx, ny, dx)
    near = [e for e in sol if abs(e["x0"] - 260) < 1 and abs(e["y0"] - 190) < 1]
    assert len(near) >= 4 and all(abs(e["z0"] - 120) < 0.5 for e in near)
    # a flat field (singular) and one window with a gap in its last point
    flat = np.full((8, 8), 40.0, F32)
    zero = np.zeros((8, 8), F32)
    sol, acc, _, sing = _check_eu(flat, zero, zero, zero, 8, 8)
    assert len(sol) == 0 and sing == 1
    T2 = T[:8, :8].astype(F32)
    T2[7, 7] = DUMMY
    sol, _, gaps, _ = _check_eu(T2, Tx[:8, :8], Ty[:8, :8], Tz[:8, :8], 8, 8)
    assert len(sol) == 0 and gaps == 1
    sol, _, _, _ = _check_eu(T, Tx, Ty, Tz, nx, ny, dx, zmax=100.0)              # all deeper than zmax
    assert len(sol) == 0


# ---- mag-flightline-gridding-atomics-struct ----

def _check_gr(smp, base, base_ref, gnx, gny, grid, cell=tp.P230_GR_CELL, sigma=tp.P230_GR_SIGMA):
    host = [np.asarray(smp, tp.P230_GR_SAMPLE), np.int32(len(smp)), F32(base_ref), F32(cell), F32(sigma),
            np.int32(gnx), np.int32(gny), np.zeros(gnx * gny, F32), np.zeros(gnx * gny, F32),
            np.zeros(gnx * gny, np.int32), np.zeros(8, np.int32)]
    out = run("probe/mag-flightline-gridding-atomics-struct", host, gnx,
              symbols={"c_base": np.asarray(base, F32), "c_regional": tp.P230_GR_REGIONAL}, grid=(grid, 1))
    wsum, vsum, vabs, nterm, count, rej = _gr_ref(smp, base, base_ref, cell, sigma, gnx, gny)
    assert (out[9] == count).all() and (out[10] == rej).all()
    k = 1e-7 * (nterm + 2)                                                       # float32 sums of nterm terms
    assert (np.abs(out[7] - wsum) <= k * wsum + 1e-7).all()
    assert (np.abs(out[8] - vsum) <= k * vabs + 0.02 * wsum + 1e-7).all()
    return out


def test_gridding():
    rng = np.random.default_rng(6)
    n = 60
    smp = tp._p230_gr_survey(n, rng)                                             # 1.2 km: 12 lines, 1 tie
    base, ref = tp._p230_gr_base(n)
    out = _check_gr(smp, base, ref, n, n, 5)
    assert out[10][2] > 0 and out[9].max() >= 3 and (out[7] > 0).mean() > 0.5


def test_gridding_cases():
    base = np.linspace(50200, 50230, tp.P230_GR_NBASE).astype(F32)
    base[-1] += 50                                                               # the table's last reading
    s = np.zeros(10, tp.P230_GR_SAMPLE)
    s["x"] = [30.0, 50.0, -30.0, 10.0, 95.0, 10.0, 70.0, 70.0, 70.0, -15.0]     # a tie at half a cell, off the grid
    s["y"] = [30.0, 10.0, 10.0, 10.0, 95.0, 10.0, 70.0, 70.0, 70.0, 45.0]
    s["tmi"] = 50600.0
    s["t_ds"] = [0, 299, 300, 10 ** 8, 5, 5, 5, 5, 5, 7]                          # past the base table's end: clamped
    s["qc"] = [0, 0, 0, 0, 0, 255, 3, 16, 0, 0]
    _check_gr(s, base, 50210.0, 5, 5, 1)
    _check_gr(s[:0], base, 50210.0, 5, 5, 1)                                     # no samples
    same = np.zeros(300, tp.P230_GR_SAMPLE)                                      # 300 samples on one node: contended
    same["x"], same["y"], same["tmi"], same["t_ds"] = 40.0, 40.0, 50700.0, np.arange(300)
    out = _check_gr(same, base, 50210.0, 5, 5, 2)
    assert out[9][2 * 5 + 2] == 300


# ---- gravity-inversion-jtr-grad-smem-proj ----

def _check_iv(J, res, m, mref, nxy, beta, step, grid=None, zlayer=None, z0=tp.P230_IV_Z0, bounds=tp.P230_IV_BOUNDS):
    nd, ncell = len(res), len(m)
    zl = tp._p230_iv_symbols()["c_zlayer"] if zlayer is None else zlayer
    host = [np.asarray(J, F32).ravel(), np.asarray(res, F32), np.int32(nd), np.int32(ncell), np.asarray(m, F32),
            np.asarray(mref, F32), np.int32(nxy), F32(beta), F32(z0), F32(step), F32(bounds[0]), F32(bounds[1]),
            np.zeros(ncell, F32), np.zeros(1, F32)]
    out = run("probe/gravity-inversion-jtr-grad-smem-proj", host, 1, symbols={"c_zlayer": zl},
              grid=(grid or -(-ncell // 256), 1))
    g, mn, gabs = _iv_ref(host[0], host[1], host[4], host[5], nxy, F32(beta), F32(z0), F32(step), F32(bounds[0]),
                          F32(bounds[1]), zl)
    gtol = 1e-5 * (gabs + np.abs(g))
    assert (np.abs(out[12] - mn) <= F32(step) * gtol + 2e-7).all()
    assert np.isclose(out[13][0], (g * g).sum(), rtol=1e-4)
    return out, g, mn


def test_inversion_step():
    rng = np.random.default_rng(7)
    J, res, m, mref, step, beta = tp._p230_iv_problem(12, rng, nd=300, nz=10)  # 300 data: a partial tile
    out, g, mn = _check_iv(J, res, m, mref, 144, beta, step)                    # 1440 cells: a partial block
    assert (mn != m).mean() > 0.9 and ((mn == F32(-0.3)) | (mn == F32(0.5))).sum() > 0


def test_inversion_cases():
    rng = np.random.default_rng(8)
    m = rng.uniform(-0.5, 0.7, 300).astype(F32)                                  # outside the bounds: clamped
    out, g, mn = _check_iv(np.zeros((0, 300), F32), np.zeros(0, F32), m, np.zeros(300, F32), 100, 5e4, 1e4)
    assert (out[12] == mn).all()                                                 # no data: the model term alone
    J = rng.exponential(1.0, (256, 257)).astype(F32)                             # one full tile, a lone cell
    _check_iv(J, rng.normal(0, 50, 256).astype(F32), np.zeros(257, F32), np.zeros(257, F32), 257, 0.0, 1e-6,
              grid=2)
