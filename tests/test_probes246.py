"""probe-unseen244's kernels (kernels_cuda/probes246.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/cem-fdtd3d-h-cpml-smem-zmarch", "probe/cem-huygens-dft-faces-gather",
       "probe/cem-ntff-pattern-smem-struct", "probe/cem-array-thinning-psll-warp",
       "probe/cem-mom-tm-hankel-fill-transpose", "probe/cem-ray-launch-coverage-atomics"]

F32 = np.float32
EPS = 2.0 ** -24                 # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen244"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes246.cu" and len(tp.get(i).note) > 400 for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- the data ----

def test_dipole_fields():
    # far from the dipole: E and eta0 H transverse, equal in size, E x H along r (outgoing)
    k = 2 * np.pi
    d = 10 * np.array([[30.0, 4.0, -7.0], [-3.0, 22.0, 40.0], [5.0, -60.0, 1.0]])   # kr 2000 to 3800
    E, H = tp._p246_dipole(d[:, 0], d[:, 1], d[:, 2], k)
    E, H = np.stack(E, 1), np.stack(H, 1)
    r = d / np.linalg.norm(d, axis=1)[:, None]
    assert np.allclose(np.abs((E * r).sum(1)) / np.linalg.norm(E, axis=1), 0, atol=0.01)
    assert np.allclose(np.linalg.norm(E, axis=1), np.linalg.norm(H, axis=1), rtol=0.01)
    S = np.real(np.cross(E, np.conj(H)))
    assert ((S * r).sum(1) > 0.99 * np.linalg.norm(S, axis=1)).all()
    # along its axis it does not radiate; the quasi-static field 2 p / r^3 there up close
    E, H = tp._p246_dipole(*(0.001 * tp.P246_PDIR), k, rmin=1e-5)
    assert np.allclose(np.stack(E), 2 * tp.P246_PDIR / 1e-9, rtol=1e-4) and np.abs(np.stack(H)).max() < 1e-6 * 2e9


def test_grid_data_and_cpml():
    rng = np.random.default_rng(1)
    f, src = tp._p246_fields(rng, 64, 32, 40)
    assert all(a.dtype == np.float32 and a.shape == (40, 32, 64) for a in f)
    ez = f[2]
    # the wave decays into the CPML: the outer layer is quiet next to the interior
    assert np.abs(ez[:, :, :2]).max() < 0.05 * np.abs(ez[:, :, 12:52]).max()
    p = tp._p246_cpml_profile()
    assert ((0 < p["b"]) & (p["b"] < 1) & (p["c"] < 0) & (p["ik"] <= 1) & (p["ik"] >= 0.2)).all()
    # psi at its steady state c / (1 - b) dF for each slab cell (p >= NPML: the far side)
    g = p["c"] / (1 - p["b"])
    ex, ey = f[0], f[1]
    px, py, pz = tp._p246_psi(f, 64, 32, 40)
    assert np.allclose(px[0, :, :, 3], g[3] * (ez[:, :, 4] - ez[:, :, 3]), rtol=1e-5, atol=1e-9)
    assert np.allclose(px[1, :, :, 19], g[19] * -ey[:, :, 63], rtol=1e-5, atol=1e-9)    # E past the grid 0
    assert np.allclose(py[1, :, 11], g[11] * (ex[:, 24] - ex[:, 23]), rtol=1e-5, atol=1e-9)
    assert np.allclose(pz[1, 12], g[12] * (ex[33] - ex[32]), rtol=1e-5, atol=1e-9)
    assert np.array_equal(p, p[::-1])                                          # both sides graded alike
    assert p["b"][9] > 0.98 and p["b"][0] < 0.8                                # weak at the interface, strong deep


def test_array_data():
    w = tp._p246_taylor()
    x = np.arange(128) - 63.5
    u = np.linspace(-1, 1, 20001)
    af = np.abs(np.exp(1j * np.pi * np.outer(u, x)) @ w)
    um = tp._p246_u_main()
    assert 0.02 < um < 0.03 and -31 < 20 * np.log10(af[np.abs(u) > um].max() / af.max()) < -29.5
    pop = tp._p246_population(np.random.default_rng(2), 500)
    on = np.unpackbits(pop.view(np.uint8), bitorder="little").reshape(500, 128)
    assert on[:, 0].all() and on[:, -1].all() and 0.55 < on.mean() < 0.75
    assert on[:, 60:68].mean() > 0.9 and on[:, 1:9].mean() < 0.5              # dense centre, thin edges


def test_reflector_and_city():
    seg = tp._p246_reflector(600)
    assert np.allclose(seg["len"], 0.05, rtol=1e-6)
    assert np.allclose(np.hypot(seg["tx"], seg["ty"]), 1)
    D = 2 * (seg["xc"][-1] + 0.5 * seg["len"][-1] * seg["tx"][-1])             # the rim's end
    assert np.allclose(seg["yc"], seg["xc"] ** 2 / (4 * 0.4 * D), atol=1e-4)    # on the parabola
    assert np.allclose(np.hypot(np.diff(seg["xc"]), np.diff(seg["yc"])), 0.05, rtol=1e-3)   # contiguous
    rng = np.random.default_rng(3)
    b = tp._p246_city(rng)
    cfg = tp._p246_raycfg(1024)
    assert 20 < len(b) <= tp.P246_RL_MAXBLD and (b["x1"] > b["x0"] + 20).all() and (b["y1"] > b["y0"] + 60).all()
    inside = (b["x0"] < cfg["txx"]) & (cfg["txx"] < b["x1"]) & (b["y0"] < cfg["txy"]) & (cfg["txy"] < b["y1"])
    assert not inside.any() and (b["x0"] > 0).all() and (b["x1"] < 640).all()
    for i in range(len(b)):                                                    # no two overlap
        o = (b["x0"] < b["x1"][i]) & (b["x0"][i] < b["x1"]) & (b["y0"] < b["y1"][i]) & (b["y0"][i] < b["y1"])
        assert o.sum() == 1
    m = tp._p246_materials()
    assert np.isclose(m["er"][0], 5.24) and 0.6 < m["ei"][0] < 0.66           # concrete at 3.5 GHz


# ---- fdtd3d_h_cpml ----

def _fwd(a, ax):
    """The forward difference along ax, E past the grid's end 0 (the PEC box)."""
    d = -a.copy()
    lo = [slice(None)] * 3
    hi = [slice(None)] * 3
    lo[ax], hi[ax] = slice(0, -1), slice(1, None)
    d[tuple(lo)] += a[tuple(hi)]
    return d


def _fd_ref(f, psi, db):
    """One H update in float64: H, psi and each value's error bound (float32 roundings of the
    operands' magnitudes)."""
    ex, ey, ez, hx, hy, hz = (a.astype(np.float64) for a in f)
    nz, ny, nx = ex.shape
    N = tp.P246_NPML
    prof = tp._p246_cpml_profile()
    b, c, ik = (prof[k].astype(np.float64) for k in ("b", "c", "ik"))
    # the derivatives, each stretched (d ik + psi) inside its slab, plain outside
    d = {"zy": _fwd(ez, 1), "zx": _fwd(ez, 2), "yx": _fwd(ey, 2), "xy": _fwd(ex, 1), "yz": _fwd(ey, 0),
         "xz": _fwd(ex, 0)}
    st = {k: v.copy() for k, v in d.items()}
    mag = {k: np.abs(v) for k, v in d.items()}
    out_psi, psi_err = [], []
    idx = np.r_[0:N, -N:0]
    for ax, (p, keys) in enumerate(zip(psi, (("zx", "yx"), ("zy", "xy"), ("yz", "xz")))):
        p = p.astype(np.float64)
        newp = np.empty_like(p)
        err = np.empty_like(p)
        for q, key in enumerate(keys):
            sl = [slice(None)] * 3
            sl[2 - ax] = idx
            sl = tuple(sl)
            shape = [1, 1, 1]
            shape[2 - ax] = 2 * N
            B, C, K = (v.reshape(shape) for v in (b, c, ik))
            dd = d[key][sl]
            newp[q] = B * p[q] + C * dd
            err[q] = 4 * EPS * (np.abs(B * p[q]) + np.abs(C * dd) + np.abs(newp[q]))
            st[key][sl] = dd * K + newp[q]
            mag[key][sl] = np.abs(dd * K) + np.abs(newp[q])
        out_psi.append(newp)
        psi_err.append(err)
    H = [hx - db * (st["zy"] - st["yz"]), hy - db * (st["xz"] - st["zx"]), hz - db * (st["yx"] - st["xy"])]
    M = [np.abs(hx) + db * (mag["zy"] + mag["yz"]), np.abs(hy) + db * (mag["xz"] + mag["zx"]),
         np.abs(hz) + db * (mag["yx"] + mag["xy"])]
    return H, [8 * EPS * m for m in M], out_psi, psi_err


def _check_fd(f, psi, grid, db=tp.P246_S):
    nz, ny, nx = f[0].shape
    host = [a.copy() for a in f] + [p.copy() for p in psi] + [np.int32(nx), np.int32(ny), np.int32(nz), F32(db)]
    out = run("probe/cem-fdtd3d-h-cpml-smem-zmarch", host, nz, symbols=tp._p246_cpml_symbols(), grid=grid)
    H, Herr, P, Perr = _fd_ref(f, psi, db)
    # each value a handful of float32 roundings (a difference, a multiply, an FMA or two, the
    # update), each within eps of the magnitudes it combines: 8 eps of their sum bounds it
    for q in range(3):
        assert (np.abs(out[3 + q] - H[q]) <= Herr[q]).all()
        assert (np.abs(out[6 + q] - P[q]) <= Perr[q]).all()
    assert all(np.array_equal(out[q], f[q]) for q in range(3))                 # E untouched
    return out


def test_fdtd_h_cpml_dipole():
    rng = np.random.default_rng(4)
    nx, ny, nz = 64, 32, 40                                                    # a second, partial z chunk
    f, _ = tp._p246_fields(rng, nx, ny, nz)
    psi = tp._p246_psi(f, nx, ny, nz)
    out = _check_fd(f, psi, (nx // 32, ny // 8, -(-nz // 32)))
    assert np.abs(out[3] - f[3]).max() > 0.01                                  # H moved


def test_fdtd_h_cpml_plane_wave():
    # an x-travelling plane wave Ez, eta0 Hy = -Ez in the interior: H's update there is the
    # plain curl; psi starts at 0 so the slabs' first step is the CPML's own
    nx, ny, nz = 64, 24, 24
    x = np.arange(nx)
    k = 2 * np.pi / 57.0
    f = [np.zeros((nz, ny, nx), F32) for _ in range(6)]
    f[2][:] = np.cos(k * x)[None, None, :]
    f[4][:] = -np.cos(k * (x + 0.5) - k * 0.5 * tp.P246_S)[None, None, :]
    psi = [np.zeros((2, nz, ny, 20), F32), np.zeros((2, nz, 20, nx), F32), np.zeros((2, 20, ny, nx), F32)]
    out = _check_fd(f, psi, (2, 3, 1))
    dz = np.cos(k * (x[:-1] + 1)) - np.cos(k * x[:-1])
    mid = slice(10, 54)
    assert np.allclose(out[4][5, 5, mid] - f[4][5, 5, mid], tp.P246_S * dz[mid], atol=1e-6)
    assert (out[6][0, :, :, :10] != 0).any() and (out[6][1] == 0).all()     # hyx in the x slabs; no Ey: hzx 0


# ---- huygens_dft ----

def _dft_ref(f, b, step, acc):
    """The face cells' tangential fields (float32, exact: a load or a float32 mean) and the
    accumulators after the step in float64, the phases from the kernel's float32 arguments."""
    ex, ey, ez, hx, hy, hz = f
    ijk, ax = tp._p246_box_cells(b)
    i, j, k = ijk.T
    v = np.empty((4, len(ax)), F32)
    E, H = (ex, ey, ez), (hx, hy, hz)
    tang = {0: (1, 2), 1: (0, 2), 2: (0, 1)}
    for a, (u, w) in tang.items():
        s = ax == a
        off = np.zeros((3, s.sum()), int)
        off[a] = 1
        ii, jj, kk = i[s], j[s], k[s]
        v[0, s], v[1, s] = E[u][kk, jj, ii], E[w][kk, jj, ii]
        for q, c in ((2, u), (3, w)):
            v[q, s] = F32(0.5) * (H[c][kk - off[2], jj - off[1], ii - off[0]] + H[c][kk, jj, ii])
    wdt = tp._p246_wdt()
    ae = (wdt * F32(step)).astype(np.float64)                 # float32 products, as sincosf gets them
    ah = (wdt * (F32(step) + F32(0.5))).astype(np.float64)
    ph = np.stack([np.exp(-1j * ae), np.exp(-1j * ae), np.exp(-1j * ah), np.exp(-1j * ah)], 1)   # (NF, 4)
    A = acc[..., 0] + 1j * acc[..., 1].astype(np.float64)
    return A + v[None].astype(np.float64) * ph[:, :, None], v


def _check_dft(f, b, step, acc):
    nz, ny, nx = f[0].shape
    host = [a.copy() for a in f] + [np.int32(nx), np.int32(ny), np.int32(step), acc.copy()]
    out = run("probe/cem-huygens-dft-faces-gather", host, nz,
              symbols={"c_box": b, "c_wdt": tp._p246_wdt()}, grid=(-(-int(b["ncell"]) // 256),))
    want, v = _dft_ref(f, b, step, acc)
    got = out[9][..., 0] + 1j * out[9][..., 1].astype(np.float64)
    # sincosf within 2 ulps of the float32 argument's sine and cosine, then a multiply and an
    # add (or one FMA): within 4 eps of |acc| + |v| for each part
    tol = 4 * EPS * (np.abs(acc[..., 0]) + np.abs(acc[..., 1]) + np.abs(v)[None])
    assert (np.abs(got.real - want.real) <= tol).all() and (np.abs(got.imag - want.imag) <= tol).all()
    return got, v


def test_huygens_dft_dipole():
    rng = np.random.default_rng(5)
    nx, ny, nz = 48, 40, 44                                                    # box 18 x 10 x 14 cells
    f, src = tp._p246_fields(rng, nx, ny, nz, step=1000)
    b = tp._p246_box(nx, ny, nz)
    assert (int(b["lx"]), int(b["ly"]), int(b["lz"]), int(b["ncell"])) == (18, 10, 14, 2 * (140 + 252 + 180))
    acc = tp._p246_dft_so_far(rng, b, src, 1000)
    got, v = _check_dft(f, b, 1000, acc)
    # a long-running DFT: 1000 steps of the CW field in each accumulator, the one next to
    # 3.5 GHz (3.514) the largest
    a = np.abs(got).mean((1, 2))
    assert a.min() > 50 * np.abs(v).mean() and np.argmax(a) == 3


def test_huygens_dft_faces():
    # each component tagged by its cell: the gathers land where the faces are
    nx, ny, nz = 40, 36, 38
    k, j, i = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    tag = (i + 100 * j + 10000 * k).astype(F32)
    f = [tag + F32(q * 1e6) for q in range(6)]
    b = tp._p246_box(nx, ny, nz)
    got, v = _check_dft(f, b, 0, np.zeros((8, 4, int(b["ncell"]), 2), F32))      # step 0: E's phase 0
    ijk, ax = tp._p246_box_cells(b)
    c = ijk[:, 0] + 100 * ijk[:, 1] + 10000 * ijk[:, 2]
    assert np.array_equal(got[0, 0].real[ax == 0], c[ax == 0] + 1e6)            # Ey on the x-faces
    assert np.array_equal(got[3, 1].real[ax == 2], c[ax == 2] + 1e6)            # Ey on the z-faces
    assert np.array_equal(v[2][ax == 1], (c[ax == 1] + 3e6 - 50).astype(F32))   # Hx's mean across y
    assert (ijk[ax == 0, 0] == np.repeat([15, 25], 6 * 8)).all()


# ---- ntff_pattern ----

def _nt_ref(s, nth, nph, dth, dph, k):
    """The far field in float64 from the kernel's float32 angles: (E_theta, E_phi) (ndir, 2)
    complex, U, and each direction's sum of the terms' magnitudes (for the tolerance)."""
    th = (np.arange(nth, dtype=F32) * F32(dth)).astype(np.float64)
    ph = (np.arange(nph, dtype=F32) * F32(dph)).astype(np.float64)
    T, P = (a.ravel() for a in np.meshgrid(th, ph, indexing="ij"))
    st, ct, sp, cp = np.sin(T), np.cos(T), np.sin(P), np.cos(P)
    kf = float(F32(k))
    r = np.stack([s["x"], s["y"], s["z"]], 1).astype(np.float64)
    u = np.stack([st * cp, st * sp, ct], 1) * kf
    e = np.exp(1j * (u @ r.T)) * s["area"].astype(np.float64)[None, :]
    J = np.stack([s["j" + a][:, 0] + 1j * s["j" + a][:, 1].astype(np.float64) for a in "xyz"], 1)
    M = np.stack([s["m" + a][:, 0] + 1j * s["m" + a][:, 1].astype(np.float64) for a in "xyz"], 1)
    N, L = e @ J, e @ M
    tv = np.stack([ct * cp, ct * sp, -st], 1)
    fv = np.stack([-sp, cp, np.zeros_like(sp)], 1)
    Nt, Np = (N * tv).sum(1), (N * fv).sum(1)
    Lt, Lp = (L * tv).sum(1), (L * fv).sum(1)
    g = kf / (4 * np.pi)
    E = np.stack([-1j * g * (Lp + Nt), 1j * g * (Lt - Np)], 1)
    U = kf * kf / (32 * np.pi ** 2) * (np.abs(Lp + Nt) ** 2 + np.abs(Lt - Np) ** 2)
    mag = g * (np.abs(e) @ (np.abs(J).sum(1) + np.abs(M).sum(1)))
    return E, U, mag, st


def _check_nt(s, nth, nph):
    dth, dph, k = F32(np.pi / (nth - 1)), F32(2 * np.pi / nph), F32(2 * np.pi / tp.P246_LAM)
    nd = nth * nph
    host = [s, np.int32(len(s)), np.int32(nth), np.int32(nph), dth, dph, k, np.zeros((nd, 4), F32),
            np.zeros(nd, F32), np.zeros(1), np.zeros(1, np.int32)]
    out = run("probe/cem-ntff-pattern-smem-struct", host, 0, grid=(-(-nd // 128),))
    E, U, mag, st = _nt_ref(s, nth, nph, dth, dph, k)
    far = out[7].astype(np.float64)
    got = np.stack([far[:, 0] + 1j * far[:, 1], far[:, 2] + 1j * far[:, 3]], 1)
    # float32 sums of nsurf products (each term's phase k r.u within a few eps of its ~6 rad,
    # sincosf within 2 ulps): within (nsurf + 16) eps of the terms' summed magnitudes
    tol = (len(s) + 16) * EPS * mag
    assert (np.abs(got - E) <= tol[:, None]).all()
    # U: |E|^2 (4 pi / k)^2 k^2 / (32 pi^2) = |E|^2 / 2: within twice E's relative error
    Emag = np.sqrt((np.abs(E) ** 2).sum(1))
    assert (np.abs(out[8] - U) <= 2 * Emag * tol + 8 * EPS * U + 1e-30).all()
    # the radiated power: float partials a warp, then doubles
    pr = (U * st).sum() * float(dth) * float(dph)
    assert abs(out[9][0] - pr) <= 1e-5 * pr
    assert out[10][0] == out[8].max().view(np.int32)                            # the peak's bits
    return out, U


def test_ntff_dipole_directivity():
    rng = np.random.default_rng(6)
    s = tp._p246_surface(rng, 8)                                               # a 48 mm box, 384 samples
    nth, nph = 13, 24                                                          # 15 degrees: 312 directions, 3 blocks
    out, U = _check_nt(s, nth, nph)
    # a short dipole's directivity is 1.5 and its pattern sin^2 of the angle from its axis
    D = 4 * np.pi * out[8].max() / out[9][0]
    assert 1.44 < D < 1.53
    th = np.arange(nth) * np.pi / (nth - 1)
    ph = np.arange(nph) * 2 * np.pi / nph
    T, P = (a.ravel() for a in np.meshgrid(th, ph, indexing="ij"))
    cosa = np.stack([np.sin(T) * np.cos(P), np.sin(T) * np.sin(P), np.cos(T)], 1) @ tp.P246_PDIR
    want = (1 - cosa ** 2) * out[8].max() / (1 - cosa ** 2).max()
    assert np.abs(out[8] - want).max() < 0.03 * out[8].max()


def test_ntff_random_currents():
    # arbitrary currents on 54 samples (one partial tile), 70 directions (one partial block)
    rng = np.random.default_rng(7)
    s = np.zeros(54, tp.P246_SURF)
    for c in ("x", "y", "z"):
        s[c] = rng.uniform(-0.05, 0.05, 54)
    s["area"] = rng.uniform(1e-5, 4e-5, 54)
    for a in ("jx", "jy", "jz", "mx", "my", "mz"):
        s[a] = rng.standard_normal((54, 2))
    out, U = _check_nt(s, 7, 10)
    # theta = 0 is one direction whatever phi: the same intensity along the first row
    assert np.allclose(out[8][:10], out[8][0], rtol=1e-4) and np.allclose(out[8][-10:], out[8][-1], rtol=1e-4)


# ---- array_thin_psll ----

def _at_ref(masks, elem, u_main, mask):
    """PSLL (dB), the samples over the mask, the count of samples within rounding of it, in
    float64 from the kernel's float32 phases (x u rounded to float32: sincospif's argument)."""
    on = np.unpackbits(masks.view(np.uint8), bitorder="little").reshape(len(masks), 128).astype(bool)
    j = np.arange(1024)
    u = (F32(-1) + j.astype(F32) * F32(2.0 / 1024)).astype(F32)               # exact: multiples of 1/512
    ph = (elem["x"][:, None] * u[None, :]).astype(np.float64)                  # (128, 1024), float32 products
    ev = elem["amp"].astype(np.float64)[:, None] * np.exp(1j * np.pi * ph)
    AF = on.astype(np.float64) @ ev
    asum = on @ elem["amp"].astype(np.float64)
    p = np.abs(AF) ** 2
    side = np.abs(u) > F32(u_main)
    pk = np.where(side[None, :], p, 0).max(1)
    thr = float(F32(mask)) * asum ** 2
    over = side[None, :] & (p > thr[:, None])
    near = side[None, :] & (np.abs(p - thr[:, None]) <= 1e-3 * thr[:, None])
    return 10 * np.log10(pk / asum ** 2), over.sum(1), near.sum(1), pk / asum ** 2


def _check_at(masks, elem, u_main, mask=0.01):
    n = len(masks)
    host = [np.ascontiguousarray(masks, np.uint32), np.int32(n), F32(u_main), F32(mask), np.zeros(n, F32),
            np.zeros(n, np.int32), np.full(1, 2 ** 31 - 1, np.int32)]
    out = run("probe/cem-array-thinning-psll-warp", host, n, symbols={"c_elem": elem})
    psll, nv, near, rel = _at_ref(masks, elem, u_main, mask)
    # float32 sums of <= 128 terms (FMAs, sincospif within an ulp or two of its float32
    # argument): |AF| within 128 eps of sum amp, the sidelobe (>= 1e-3 of the peak power here)
    # within 2 * 128 eps sqrt(1 / rel) relatively: 1e-3 dB covers it; counts may differ only
    # at samples within rounding of the mask
    assert (rel > 1e-3).all()
    assert np.abs(out[4] - psll).max() < 1e-3
    assert (np.abs(out[5] - nv) <= near).all()
    key = np.rint(F32(100) * out[4]).astype(np.int64) * 65536 + np.arange(n)   # float32 100 * db, as rintf sees it
    assert out[6][0] == key.min()
    return out


def test_array_population():
    rng = np.random.default_rng(8)
    masks = tp._p246_population(rng, 20)
    elem = tp._p246_elements(rng)
    ideal = elem.copy()
    ideal["x"] = np.arange(128) - 63.5
    ideal["amp"] = 1
    full = np.full((1, 4), 0xFFFFFFFF, np.uint32)
    ends = np.array([[1, 0, 0, 0x80000000]], np.uint32)
    out = _check_at(np.concatenate([masks, full, ends]), elem, tp._p246_u_main())   # 22 warps over 3 blocks
    assert (-24 < out[4][:20]).all() and (out[4][:20] < -12).all() and (out[5][:20] > 0).any()
    assert -14.0 < out[4][20] < -12.9                                          # a filled array: -13.3 dB
    assert -0.2 < out[4][21] <= 1e-4                                           # two ends alone: grating lobes
    u = -1 + np.arange(1024) / 512
    full_u = _check_at(np.concatenate([full, ends, np.array([[0, 1 << 7, 0, 0]], np.uint32)]), ideal, 0.0234)
    assert -13.6 < full_u[4][0] < -13.2           # the uniform array's -13.26 dB sidelobe, sampled 1/512 apart
    assert abs(full_u[4][2]) < 1e-5 and full_u[5][2] == (np.abs(u) > F32(0.0234)).sum()   # one element: isotropic


# ---- mom_tm_fill ----

_GLX, _GLW = np.polynomial.legendre.leggauss(200)


def _j0y0(x):
    """J0 and Y0 by quadrature (float64, x in (0.05, 100)): J0 = (1/pi) int_0^pi cos(x sin t) dt
    (the trapezoid rule on a periodic integrand: exact to rounding), Y0 = (1/pi) int_0^pi
    sin(x sin t) dt - (2/pi) int_0^inf exp(-x sinh t) dt (200-point Gauss-Legendre on [0, pi]
    and on [0, asinh(40 / x)]: smooth integrands, below 1e-15)."""
    x = np.asarray(x, np.float64)[..., None]
    t = (np.arange(400) + 0.5) * np.pi / 400
    j0 = np.cos(x * np.sin(t)).mean(-1)
    a = 0.5 * np.pi * (_GLX + 1)
    y1 = (0.5 * np.pi * _GLW * np.sin(x * np.sin(a))).sum(-1) / np.pi
    T = np.arcsinh(40.0 / x)
    b = 0.5 * T * (_GLX + 1)
    y2 = (0.5 * T * _GLW * np.exp(-x * np.sinh(b))).sum(-1)
    return j0, y1 - 2 / np.pi * y2


def test_bessel_reference():
    j, y = _j0y0(np.array([0.1, 1.0, 10.0]))
    assert np.allclose(j, [0.99750156206604, 0.7651976865579666, -0.2459357644513483], rtol=0, atol=1e-14)
    assert np.allclose(y, [-1.5342386513503667, 0.08825696421567696, 0.05567116728359939], rtol=0, atol=1e-14)
    # Hankel's asymptotic expansion (P to x^-4, Q to x^-3: within 2e-9 past x = 30)
    x = np.array([30.0, 37.5, 45.0])
    j, y = _j0y0(x)
    P, Q = 1 - 9 / (128 * x ** 2) + 3675 / (32768 * x ** 4), -1 / (8 * x) + 75 / (1024 * x ** 3)
    c, s = np.cos(x - np.pi / 4), np.sin(x - np.pi / 4)
    a = np.sqrt(2 / (np.pi * x))
    assert np.allclose(j, a * (P * c - Q * s), rtol=0, atol=3e-9)
    assert np.allclose(y, a * (P * s + Q * c), rtol=0, atol=3e-9)


def _mom_ref(seg, k=2 * np.pi):
    n = len(seg)
    coef = k * 376.730313668 / 4
    xc, yc, L = seg["xc"], seg["yc"], seg["len"]
    R = np.hypot(xc[:, None] - xc[None, :], yc[:, None] - yc[None, :])
    np.fill_diagonal(R, 1.0)
    j, y = _j0y0(k * R)
    Z = coef * L[None, :] * (j - 1j * y)
    gx, gw = np.polynomial.legendre.leggauss(8)
    m, q = np.nonzero((R < 1.5 * L[None, :]) & ~np.eye(n, dtype=bool))
    for a, b in zip(m, q):
        l = 0.5 * L[b] * gx
        r = np.hypot(xc[a] - (xc[b] + l * seg["tx"][b]), yc[a] - (yc[b] + l * seg["ty"][b]))
        jj, yy = _j0y0(k * r)
        Z[a, b] = coef * 0.5 * L[b] * (gw * (jj - 1j * yy)).sum()
    d = np.arange(n)
    gam = 1.7810724179901979
    Z[d, d] = coef * L * (1 - 1j * 2 / np.pi * (np.log(gam * k * L / 4) - 1))
    return Z, (m, q)


def _check_mom(seg):
    n = len(seg)
    host = [seg, np.int32(n), np.float64(2 * np.pi), np.zeros((n * n, 2))]
    out = run("probe/cem-mom-tm-hankel-fill-transpose", host, n, symbols=tp._p246_gl())
    got = out[3][:, 0] + 1j * out[3][:, 1]
    Z = got.reshape(n, n).T                                                    # column-major: zcm[n * N + m]
    want, near = _mom_ref(seg)
    # doubles throughout; j0 / y0 and the reference's quadratures within ~1e-15 absolute
    # (scaled by the entries' k eta0 len / 4 ~ 30 ohm), the sums of 8 quadrature terms and
    # the products a few ulps: 2e-13 of that scale (the worst seen: 1e-14)
    scale = 2 * np.pi * 376.730313668 / 4 * seg["len"].max()
    assert np.abs(Z - want).max() < 2e-13 * scale
    return Z, want, near


def test_mom_reflector_beam():
    seg = tp._p246_reflector(100)                                              # 5 wavelengths of arc: 4 x 4 tiles
    Z, want, (m, q) = _check_mom(seg)
    assert len(m) == 2 * 99 and (np.abs(m - q) == 1).all()                     # the neighbours integrated
    # a line source at the focus: the induced currents radiate a beam along the axis (+y)
    xc, yc = seg["xc"], seg["yc"]
    D = 2 * (xc[-1] + 0.5 * seg["len"][-1] * seg["tx"][-1])
    f = 0.4 * D
    j, y = _j0y0(2 * np.pi * np.hypot(xc, yc - f))
    I = np.linalg.solve(Z, -(j - 1j * y))
    phi = np.radians(np.arange(0, 181))
    Es = np.abs(np.exp(1j * 2 * np.pi * (np.outer(np.cos(phi), xc) + np.outer(np.sin(phi), yc))) @ (I * seg["len"]))
    assert abs(np.degrees(phi[np.argmax(Es)]) - 90) <= 1
    assert Es[np.abs(np.degrees(phi) - 90) > 25].max() < 0.5 * Es.max()       # a beam ~ lambda / D wide


def test_mom_partial_tiles():
    seg = tp._p246_reflector(45)                                               # 2 x 2 tiles, the second partial
    seg["xc"] += 0.3
    _check_mom(seg)


# ---- ray_launch_coverage ----

def _ray_ref(bld, cfg, nray, maxb=tp.P246_RL_MAXB):
    """Every ray replayed in float64 (the kernel's float32 launch angle): the coverage map,
    each ray's reflections, and the closest call (the smallest gap between a building's entry
    and exit, or between the entry slabs of a face hit: a ray passing that near a corner
    might go either way in float32)."""
    cell, nx, ny = float(cfg["cell"]), int(cfg["nx"]), int(cfg["ny"])
    W, H = nx * cell, ny * cell
    kdep, pmin = float(cfg["kdep"]), float(cfg["pmin"])
    mats = tp._p246_materials()
    x0, y0, x1, y1 = (bld[k].astype(np.float64) for k in ("x0", "y0", "x1", "y1"))
    cov = np.zeros((ny, nx))
    nbounce = np.zeros(nray, np.int64)
    close = np.inf

    def deposit(px, py, dx, dy, tend, dist0, pw):
        cx = min(max(int(px / cell), 0), nx - 1)
        cy = min(max(int(py / cell), 0), ny - 1)
        sx, sy = (1 if dx > 0 else -1), (1 if dy > 0 else -1)
        tdx, tdy = cell / abs(dx), cell / abs(dy)
        tmx = ((cx + (sx > 0)) * cell - px) / dx
        tmy = ((cy + (sy > 0)) * cell - py) / dy
        k, t = kdep * pw, 0.0
        while True:
            tn = min(tmx, tmy)
            last = tn >= tend
            if last:
                tn = tend
            if tn > t:
                cov[cy, cx] += k * (tn - t) / max(dist0 + 0.5 * (t + tn), 1.0)
            if last:
                return
            t = tn
            if tmx < tmy:
                cx, tmx = cx + sx, tmx + tdx
            else:
                cy, tmy = cy + sy, tmy + tdy
            if not (0 <= cx < nx and 0 <= cy < ny):
                return

    for r in range(nray):
        a = float((F32(r) + F32(0.5)) * F32(cfg["dphi"]))
        dx, dy = np.cos(a), np.sin(a)
        px, py = float(cfg["txx"]), float(cfg["txy"])
        pw, dist = 1.0, 0.0
        for b in range(maxb + 1):
            t1, t2 = (x0 - px) / dx, (x1 - px) / dx
            t3, t4 = (y0 - py) / dy, (y1 - py) / dy
            tnx, tny = np.minimum(t1, t2), np.minimum(t3, t4)
            tin, tout = np.maximum(tnx, tny), np.minimum(np.maximum(t1, t2), np.maximum(t3, t4))
            ahead = np.maximum(tin, tout) > 1e-3
            if ahead.any():
                close = min(close, np.abs(tout - tin)[ahead].min())
            ok = (tin < tout) & (tin > 1e-3)
            i = int(np.argmin(np.where(ok, tin, np.inf))) if ok.any() else -1
            tex = (W - px) / dx if dx > 0 else -px / dx
            tey = (H - py) / dy if dy > 0 else -py / dy
            tedge = min(tex, tey)
            hit = i >= 0 and tin[i] < tedge
            deposit(px, py, dx, dy, tin[i] if hit else tedge, dist, pw)
            if not hit or b == maxb:
                break
            close = min(close, abs(tnx[i] - tny[i]))
            tb = tin[i]
            px, py, dist = px + tb * dx, py + tb * dy, dist + tb
            m = mats[bld["mat"][i]]
            ci = abs(dx) if tnx[i] > tny[i] else abs(dy)
            q = np.sqrt(complex(float(m["er"]) - (1 - ci * ci), -float(m["ei"])))
            pw *= abs((ci - q) / (ci + q)) ** 2
            if tnx[i] > tny[i]:
                dx = -dx
            else:
                dy = -dy
            nbounce[r] += 1
            if pw < pmin:
                break
    return cov, nbounce, close


def _check_rl(bld, cfg, nray):
    n = int(nray)
    host = [bld, np.int32(len(bld)), np.int32(n), np.zeros((int(cfg["ny"]), int(cfg["nx"])), F32),
            np.zeros(n, np.int32)]
    out = run("probe/cem-ray-launch-coverage-atomics", host, n, symbols={"c_mat": tp._p246_materials(), "c_ray": cfg})
    cov, nb, close = _ray_ref(bld, cfg, n)
    assert close > 1e-3                      # no ray within a millimetre of a corner: the same paths in float32
    assert np.array_equal(out[4], nb)
    got = out[3].astype(np.float64)
    return got, cov, nb


def _rl_compare(got, cov, cfg):
    # float32 rays: each piece's k l / d within a few eps, the cell sums' float atomics within
    # N eps, and the pieces' ends off by the float32 rounding of the walk: the reflections'
    # positions (~1e-4 m each) and the crossing times tmx += tdx, each step rounding to half
    # an ulp of t (~3e-8 t) over the d / cell steps so far: ~1.5e-8 d^2 m at worst. A cell
    # crossed over ~2 m is then within ~1e-3 relatively; a corner's sliver within its length
    # error, worth k dl / d: 2e-3 relative plus k (4e-4 + 1.5e-8 d^2) / d (d the cell's
    # distance from the transmitter, the unfolded path's at least; the worst seen: 7e-4
    # relative, and slivers off by 2e-4 m at 350 m after reflections, 1e-3 m at 400 m in free
    # space)
    k = float(cfg["kdep"])
    c = (np.arange(int(cfg["nx"])) + 0.5) * float(cfg["cell"])
    d = np.hypot(c[None, :] - float(cfg["txx"]), c[:, None] - float(cfg["txy"]))
    assert (np.abs(got - cov) <= 2e-3 * cov + k * (4e-4 + 1.5e-8 * d * d) / np.maximum(d - 3.0, 1.0)).all()
    assert abs(got.sum() - cov.sum()) <= 1e-5 * cov.sum()


def test_rays_street_grid():
    rng = np.random.default_rng(4)
    bld = tp._p246_city(rng)
    cfg = tp._p246_raycfg(256)
    got, cov, nb = _check_rl(bld, cfg, 256)
    _rl_compare(got, cov, cfg)
    assert (nb == tp.P246_RL_MAXB).mean() > 0.5 and (nb == 0).sum() > 5      # street canyons; rays down the streets
    # no ray enters a building: the cells wholly inside the footprints stay dark
    c = (np.arange(320) + 0.5) * 2.0
    inside = np.zeros((320, 320), bool)
    for b in bld:
        inside |= ((c[:, None] > b["y0"] + 2) & (c[:, None] < b["y1"] - 2) & (c[None, :] > b["x0"] + 2)
                   & (c[None, :] < b["x1"] - 2))
    assert (got[inside] == 0).all() and (got[~inside] > 0).mean() > 0.1


def test_rays_free_space_friis():
    # no buildings: each ray runs to the map's edge depositing kdep / max(d, 1) a metre; the
    # map's cells then hold Friis' lambda^2 / (4 pi d)^2 (1 W, isotropic antennas)
    n = 512
    cfg = tp._p246_raycfg(n, tx=(301.3, 322.7))
    got, cov, nb = _check_rl(np.zeros(0, tp.P246_BLD), cfg, n)
    k = float(cfg["kdep"])
    _rl_compare(got, cov, cfg)
    a = ((F32(np.arange(n)) + F32(0.5)) * F32(cfg["dphi"])).astype(np.float64)
    tx = np.where(np.cos(a) > 0, (640 - 301.3) / np.cos(a), -301.3 / np.cos(a))
    ty = np.where(np.sin(a) > 0, (640 - 322.7) / np.sin(a), -322.7 / np.sin(a))
    te = np.minimum(tx, ty)
    # each ray's deposits: the midpoint rule for int_0^te kdep / max(d, 1) dd, within 1%
    assert np.isclose(got.sum(), k * (1 + np.log(te)).sum(), rtol=0.01) and (nb == 0).all()
    c = (np.arange(320) + 0.5) * 2.0
    d = np.hypot(c[None, :] - 301.3, c[:, None] - 322.7)
    ring = (d > 40) & (d < 120)
    # a cell's rays sum kdep len / d, their lengths about cell^2 / (d dphi): lambda^2 / (4 pi d)^2
    friis = tp.P246_LAM ** 2 / (4 * np.pi * d[ring]) ** 2
    assert abs(got[ring].sum() / friis.sum() - 1) < 0.03
