"""probe-unseen242's kernels (kernels_cuda/probes244.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/oct-bscan-background-hann-const", "probe/oct-fft2048-dispersion-smem",
       "probe/oct-doppler-kasai-atan2-window", "probe/oct-ssada-enface-warp-gridstride",
       "probe/oct-montecarlo-skin-photons", "probe/oct-speckle-roi-contrast-hist"]

F32 = np.float32
EPS = 2.0 ** -24                 # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen242"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes244.cu" and len(tp.get(i).note) > 400 for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- the data ----

def test_retina_and_speckle():
    th = tp._p244_layers(np.array([0.0, 3.0]))
    far = sum(t for _, t, _, _, _ in tp.P244_RETINA)
    assert abs(th[:, 1].sum() - far) < 1e-6 * far and 300 < far < 400          # ~350 um away from the fovea
    assert th[0, 0] == 0 and th[:, 0].sum() < 0.75 * far                         # the pit: no NFL, thinner
    rng = np.random.default_rng(1)
    refl, tops, vel = tp._p244_retina(rng, 256, 512, 6.0, z_rpe=0.45)
    assert (np.diff(tops, axis=0) >= 0).all() and tops[0].min() > 20            # layers in order, under the vitreous
    top = int(tops[0].min()) - 5
    assert refl[:, :top].max() == tp.P244_VITREOUS
    assert refl.max() >= 1.0 and np.abs(vel).max() > 0                          # bright layers, some flow
    # fully developed speckle: in a uniform medium the intensity is exponential (contrast 1)
    c = tp._p244_speckle(rng, np.ones((128, 512)), 2.6, 1.1, noise=0.0)
    I = np.abs(c) ** 2
    assert abs(I.mean() - 1) < 0.1 and abs(I.std() / I.mean() - 1) < 0.1
    # the raw spectra: 12 bits, the reference spectrum's Gaussian over the dark level
    raw = tp._p244_raw(rng, 1, 16)
    m = raw[0].mean(0)
    assert raw.max() < 4096 and 2800 < m.max() < 3300 and 250 < m[0] < 340
    assert abs(np.argmax(m) - 1024) < 40                                        # 840 nm at mid-camera


# ---- bscan_background_window ----

def _check_bg(raw, win, grid=None):
    nb, na, nk = raw.shape
    host = [np.ascontiguousarray(raw, np.uint16), np.int32(na), np.int32(nk), np.zeros((nb, na, nk), F32),
            np.zeros((nb, nk), F32)]
    out = run("probe/oct-bscan-background-hann-const", host, nb, symbols={"c_win": win},
              grid=grid or (nk // 64, nb))
    # integer sums (exact), one correctly rounded float divide, a subtract and a multiply:
    # numpy's float32 does the same operations, so the answer is bit for bit
    mean = raw.astype(np.int64).sum(1).astype(F32) / F32(na)
    want = (raw.astype(F32) - mean[:, None, :]) * win[None, None, :nk]
    assert np.array_equal(out[4], mean)
    assert np.array_equal(out[3], want)
    return out[3], out[4]


def test_background_bscans():
    rng = np.random.default_rng(2)
    raw = np.ascontiguousarray(tp._p244_raw(rng, 2, 48)[:, :, 896:1152])       # the spectrum's centre
    out, bg = _check_bg(raw, tp._p244_hann(256))
    assert np.abs(out.mean(1)).max() < 1e-3 * np.abs(out).max()                # the fixed pattern gone


def test_background_cases():
    rng = np.random.default_rng(3)
    raw = rng.integers(0, 4096, (3, 37, 128)).astype(np.uint16)                # 37 rows: 10, 9, 9, 9 a thread row
    raw[1] = 4095                                                               # saturated: exact 4095.0
    win = np.zeros(2048, F32)
    win[:128] = rng.random(128).astype(F32)
    out, bg = _check_bg(raw, win)
    assert (bg[1] == 4095).all() and (out[1] == 0).all()


# ---- ascan_fft_dispersion ----

def _fft_ref(spec, a2, a3, lo, hi):
    N = tp.P244_NK
    kap = (np.arange(N) - N / 2) / (N / 2)
    X = np.fft.fft(spec.astype(np.float64) * np.exp(-1j * kap * kap * (a2 + a3 * kap)), axis=1)[:, :N // 2]
    v = (10 * np.log10(np.abs(X) ** 2 + 1e-30) - lo) * (255 / (hi - lo))
    return np.clip(v, 0, 255), X


def _check_fft(spec, a2=tp.P244_A2, a3=tp.P244_A3, db=tp.P244_DB):
    n = len(spec)
    host = [np.ascontiguousarray(spec, F32), np.int32(n), F32(a2), F32(a3), F32(db[0]), F32(db[1]),
            np.zeros((n, tp.P244_NK // 2), np.uint8)]
    out = run("probe/oct-fft2048-dispersion-smem", host, n)
    v, X = _fft_ref(host[0], a2, a3, *db)
    want = np.floor(v + 0.5)
    got = out[6].astype(np.int64)
    # float32 phases (sincosf of up to 33 rad), 11 butterfly stages: a bin's relative error
    # is ~1e-6 of the A-scan's energy over its own, a few thousandths of a dB where it shows:
    # a code off by one only where 255 v / range sits within that of a half
    d = np.abs(got - want)
    assert d.max() <= 1
    near = np.abs(v + 0.5 - np.rint(v + 0.5)) < 0.05
    assert (d[~near] == 0).all()
    return got, X


def test_fft_ascans():
    rng = np.random.default_rng(4)
    spec = tp._p244_klinear(rng, 1, nx=12)
    got, X = _check_fft(spec)
    assert (got > 100).mean() > 0.02 and (got == 0).mean() > 0.2                # the retina over the noise floor


def test_fft_reflectors():
    N = tp.P244_NK
    j = np.arange(N)
    kap = (j - N / 2) / (N / 2)
    phi = kap * kap * (tp.P244_A2 + tp.P244_A3 * kap)
    win = tp._p244_hann().astype(np.float64)
    spec = np.zeros((3, N))
    for i, (p, a) in enumerate([(100, 40.0), (333, 8.0), (900, 1.0)]):         # mirrors at integer depths
        spec[i] = a * win * np.cos(2 * np.pi * p * j / N + phi)
    got, X = _check_fft(spec, db=(0.0, 100.0))
    assert [int(np.argmax(g)) for g in got] == [100, 333, 900]
    flat, _ = _check_fft(spec, a2=0.0, a3=0.0, db=(0.0, 100.0))                # uncompensated: smeared
    assert all(flat[i].max() < got[i].max() - 20 for i in range(3))


# ---- doppler_kasai ----

def _kasai_ref(c, pmin, vs=tp.P244_VSCALE, WX=4, WZ=2):
    """Velocity, variance, the mask and each pixel's error bound (float64)."""
    c = c.astype(np.complex128)
    nb, nx, nz = c.shape
    pr = c[:, 1:] * np.conj(c[:, :-1])
    pp = 0.5 * (np.abs(c[:, 1:]) ** 2 + np.abs(c[:, :-1]) ** 2)
    R = np.zeros((nb, nx, nz), complex)
    P = np.zeros((nb, nx, nz))
    S = np.zeros((nb, nx, nz))
    C = np.zeros((nb, nx, nz))
    for dx in range(WX):
        for dz in range(-WZ, WZ + 1):
            xs, zs = np.arange(nx) + dx, np.arange(nz) + dz
            m = (xs < nx - 1)[:, None] & ((zs >= 0) & (zs < nz))[None, :]
            xi, zi = np.clip(xs, 0, nx - 2), np.clip(zs, 0, nz - 1)
            R += np.where(m, pr[:, xi][:, :, zi], 0)
            P += np.where(m, pp[:, xi][:, :, zi], 0)
            S += np.where(m, np.abs(pr[:, xi][:, :, zi]), 0)
            C += m
    ok = (C > 0) & (P > pmin * C)
    v = np.where(ok, np.angle(R) * vs, 0)
    var = np.where(ok, 1 - np.abs(R) / np.where(ok, P, 1), 0)
    # float32 sums of up to 20 products (each an FMA or two): |dR| <= 64 eps sum|products|,
    # so arg R within 64 eps S / |R| radians; the variance's within 64 eps (S + P) / P
    with np.errstate(divide="ignore", invalid="ignore"):
        ang = np.where(np.abs(R) > 0, 64 * EPS * S / np.abs(R) + 4 * EPS, np.inf)
    return v, var, ok, ang, 64 * EPS * (S + P) / np.maximum(P, 1e-30) + 4 * EPS, P, C


def _check_dop(c, pmin, grid=None):
    nb, nx, nz = c.shape
    cf = np.ascontiguousarray(np.asarray(c, np.complex64).view(F32).reshape(nb, nx, nz, 2))
    host = [cf, np.int32(nb), np.int32(nx), np.int32(nz), F32(tp.P244_VSCALE), F32(pmin), np.zeros_like(cf)]
    out = run("probe/oct-doppler-kasai-atan2-window", host, nb, grid=grid)
    gv, gvar = out[6][..., 0], out[6][..., 1]
    v, var, ok, ang, vtol, P, C = _kasai_ref(c, pmin)
    # a pixel whose mean power is within rounding of the threshold may land either way:
    # none in these data; phases compared modulo 2 pi (atan2's cut at +-pi)
    edge = np.abs(P / np.maximum(C, 1) - pmin) <= 1e-5 * pmin
    assert not edge.any()
    dph = np.angle(np.exp(1j * (gv.astype(np.float64) - v) / tp.P244_VSCALE))
    assert (np.abs(dph) <= ang).all()
    assert (np.abs(gvar - var) <= vtol).all()
    assert ((gv == 0) & (gvar == 0))[~ok].all()
    return gv, gvar, ok


def test_doppler_bscan():
    rng = np.random.default_rng(5)
    c = tp._p244_doppler_bscans(rng, 1)
    # a window from the vitreous into the retina
    x0 = 150
    prof = (np.abs(c[0, x0:x0 + 40]) ** 2).mean(0)
    z0 = int(np.argmax(prof > 0.2)) - 6
    win = np.ascontiguousarray(c[:, x0:x0 + 40, z0:z0 + 72])
    gv, gvar, ok = _check_dop(win, 4 * tp.P244_NOISE)
    assert ok.mean() > 0.5 and (~ok).any()                                      # the vitreous under the threshold


def test_doppler_cases():
    rng = np.random.default_rng(6)
    nx, nz = 24, 40
    a = rng.rayleigh(1.0, (1, 1, nz)) + 0.2
    th = rng.uniform(0, 2 * np.pi, (1, 1, nz))
    dphi = np.where(np.arange(nz) < 20, 1.3, -2.9)                             # two layers, both ways
    x = np.arange(nx)[None, :, None]
    c = a * np.exp(1j * (th + x * dphi[None, None, :]))
    c[:, :, 30:] = 1e-3 * np.exp(1j * rng.uniform(0, 7, (1, nx, 10)))          # noise only below
    gv, gvar, ok = _check_dop(c, 0.01, grid=(4,))                               # 960 pixels: a partial block
    inner = ok[0, :-1, 2:18]
    assert inner.all() and np.allclose(gv[0, :-1, 2:18], 1.3 * tp.P244_VSCALE, rtol=1e-5)
    assert np.allclose(gv[0, :-1, 22:28], -2.9 * tp.P244_VSCALE, rtol=1e-5)
    assert np.abs(gvar[0, :-1, 2:18]).max() < 1e-5                             # equal amplitudes: no variance
    assert (gv[0, -1] == 0).all() and (gv[0, :, 33:] == 0).all()               # the last A-scan, the noise


# ---- angio_ssada_enface ----

def _ssada_ref(amp, slab, amin, dthr):
    ny, P, nx, nz = amp.shape
    A = amp.astype(np.float64).reshape(ny, 4, 4, nx, nz)
    s = sum((A[:, n] * A[:, n + 1] / np.maximum(0.5 * (A[:, n] ** 2 + A[:, n + 1] ** 2), 1)).sum(1)
            for n in range(3))
    d = np.where(A.sum((1, 2)) > amin * 16, 1 - s / 12, 0)
    sl = slab.reshape(ny, nx, 2).astype(np.int64)
    z = np.arange(nz)
    m = (z >= sl[..., :1]) & (z < sl[..., 1:])
    dm = np.where(m, d, 0)
    npix = m.sum(-1)
    return dict(mean=dm.sum(-1) / np.maximum(npix, 1), max=dm.max(-1), nflow=(m & (d > dthr)).sum(-1),
                npix=npix, near=(m & (np.abs(d - dthr) < 4e-6)).sum(-1))


def _check_ss(amp, slab, amin=tp.P244_SS_AMIN, dthr=tp.P244_SS_DTHR, grid=(4,)):
    ny, _, nx, nz = amp.shape
    host = [np.ascontiguousarray(amp, np.uint16), np.ascontiguousarray(slab, np.int16).reshape(-1, 2), np.int32(ny),
            np.int32(nx), np.int32(nz), F32(amin), F32(dthr), np.zeros(ny * nx, tp.P244_ENFACE)]
    out = run("probe/oct-ssada-enface-warp-gridstride", host, ny, grid=grid)
    e = out[7].reshape(ny, nx)
    r = _ssada_ref(host[0], host[1], amin, dthr)
    # the amplitude sums are integers (exact), the mask too; each decorrelation is 12 float32
    # quotients (a few roundings each) summed: within 2e-6; the slab's mean sums <= 137 of
    # them in a per-lane order and a butterfly: 4e-6; a pixel that close to the threshold
    # may count either way
    assert (e["npix"] == r["npix"]).all()
    assert np.allclose(e["max_d"], r["max"], rtol=0, atol=2e-6)
    assert np.allclose(e["mean_d"], r["mean"], rtol=0, atol=4e-6)
    assert (np.abs(e["nflow"] - r["nflow"]) <= r["near"]).all()
    return e, r


def test_ssada_rows():
    rng = np.random.default_rng(7)
    amp, slab = tp._p244_angio(rng, 3, nx=64, width=3.0 * 64 / 512, x_off=-1.0)   # 1 mm from the fovea
    e, r = _check_ss(amp, slab)                                                  # 192 A-scans over 32 warps
    assert (e["npix"] > 80).all() and e["nflow"].sum() > 0 and (e["max_d"] > 0.15).any()


def test_ssada_cases():
    rng = np.random.default_rng(8)
    nx, nz = 9, 80
    static = np.clip(rng.rayleigh(900.0, (nx, nz)), 300, 4000)                 # over the mask; squares exact
    amp = np.broadcast_to(static, (1, 16, nx, nz)).copy()
    amp[0, :, 1] = rng.rayleigh(900.0, (16, nz))                                 # flow everywhere in A-scan 1
    amp[0, :, 2] = 100                                                           # under the signal mask
    amp[0, :4, 3, :40] = 0                                                       # repeat 0 dark: A1 A2 = 0
    amp = np.rint(amp).astype(np.uint16)
    slab = np.array([[0, 80], [5, 69], [0, 80], [0, 80], [7, 7], [10, 11], [3, 35], [3, 36], [48, 80]], np.int16)
    e, r = _check_ss(amp, slab[None], amin=200.0, grid=(1,))
    e = e[0]
    assert e["npix"].tolist() == [80, 64, 80, 80, 0, 1, 32, 33, 32]
    assert e["max_d"][0] == 0 and e["max_d"][2] == 0 and e["mean_d"][4] == 0
    assert e["nflow"][1] > 40 and 0.2 < e["mean_d"][1] < 0.45                   # independent Rayleigh pairs
    assert e["nflow"][3] == 40                                                   # 4 of the 12 quotients 0: d = 1/3


# ---- mc_oct_photons ----

def _xorshift(st, idx):
    x = st[idx]
    x ^= x << np.uint32(13)
    x ^= x >> np.uint32(17)
    x ^= x << np.uint32(5)
    st[idx] = x
    return ((x >> np.uint32(8)).astype(np.float64) + 1.0) / 16777216.0


def _mc_ref(n, seed, layers, conf, NR=100, NZ=200, BINS=256):
    """Every photon replayed in float64 from the same xorshift32 streams, photons side by side."""
    u = np.uint32
    s = (np.uint64(seed) ^ ((np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B9)) & np.uint64(0xFFFFFFFF)))
    s = s.astype(u)
    s = (s ^ u(61)) ^ (s >> u(16))
    s = s * u(9)
    s = s ^ (s >> u(4))
    s = s * u(0x27D4EB2D)
    st = s ^ (s >> u(15))
    st[st == 0] = u(0x6D2B79F5)
    L = {k: layers[k].astype(np.float64) for k in layers.dtype.names}
    C = {k: float(conf[k]) for k in conf.dtype.names}
    nL = len(L["n"])
    rsp = (C["n_above"] - L["n"][0]) / (C["n_above"] + L["n"][0])
    w = np.full(n, 1 - rsp * rsp)
    x, y, z, ux, uy = (np.zeros(n) for _ in range(5))
    uz = np.ones(n)
    opl, zmax, wout = np.zeros(n), np.zeros(n), np.zeros(n)
    lay, nscat, fate = np.zeros(n, int), np.zeros(n, int), np.full(n, 4)
    alive = np.ones(n, bool)
    A, H, tot = np.zeros((NZ, NR)), np.zeros((2, BINS)), np.zeros(4)

    def optical_depth(zm):
        t = np.minimum(zm[:, None], L["z1"][None]) - L["z0"][None]
        return np.where(t > 0, L["n"][None] * t, 0).sum(1)

    while alive.any():
        a = np.flatnonzero(alive)
        li = lay[a]
        mua, mus, g, nn, z0, z1 = (L[k][li] for k in ("mua", "mus", "g", "n", "z0", "z1"))
        mut = mua + mus
        step = -np.log(_xorshift(st, a)) / mut
        with np.errstate(divide="ignore", invalid="ignore"):
            db = np.where(uz[a] > 0, (z1 - z[a]) / uz[a], np.where(uz[a] < 0, (z0 - z[a]) / uz[a], 1e30))
        hit = step >= db
        b, dh = a[hit], db[hit]
        if len(b):                                        # to the boundary: Fresnel, Snell
            x[b] += dh * ux[b]
            y[b] += dh * uy[b]
            z[b] = np.where(uz[b] > 0, z1[hit], z0[hit])
            opl[b] += nn[hit] * dh
            nl = np.where(uz[b] > 0, lay[b] + 1, lay[b] - 1)
            ni, nt = nn[hit], np.where(nl < 0, C["n_above"], L["n"][np.clip(nl, 0, nL - 1)])
            ci = np.abs(uz[b])
            sint = ni / nt * np.sqrt(np.maximum(0, 1 - ci * ci))
            tir = sint >= 1
            ct = np.sqrt(np.maximum(0, 1 - sint * sint))
            with np.errstate(divide="ignore", invalid="ignore"):
                rs = (ni * ci - nt * ct) / (ni * ci + nt * ct)
                rp = (ni * ct - nt * ci) / (ni * ct + nt * ci)
            same = ni == nt
            R = np.where(same, 0, np.where(tir, 1, 0.5 * (rs * rs + rp * rp)))
            ct = np.where(same, ci, np.where(tir, 0, ct))
            tr = _xorshift(st, b) > R
            esc = tr & (nl < 0)
            o = b[esc]
            wout[o], fate[o] = w[o], 1
            tot[0] += w[o].sum()
            det = (np.hypot(x[o], y[o]) < C["det_r"]) & (ct[esc] >= C["cos_acc"])
            d = o[det]
            fate[d] = 2
            tot[1] += w[d].sum()
            dep = 0.5 * opl[d]
            k = (dep / C["bin_w"]).astype(int)
            inb = k < BINS
            np.add.at(H[0], k[inb], w[d][inb])
            c1 = inb & (dep - optical_depth(zmax[d]) < C["lc"])
            np.add.at(H[1], k[c1], w[d][c1])
            alive[o] = False
            into = tr & (nl >= 0)
            t = b[into]
            ratio = ni[into] / nt[into]
            ux[t] *= ratio
            uy[t] *= ratio
            uz[t] = np.where(uz[t] > 0, ct[into], -ct[into])
            lay[t] = nl[into]
            uz[b[~tr]] *= -1
        c, sc, h = a[~hit], step[~hit], ~hit
        if len(c):                                        # hop, drop, spin
            x[c] += sc * ux[c]
            y[c] += sc * uy[c]
            z[c] += sc * uz[c]
            opl[c] += nn[h] * sc
            zmax[c] = np.maximum(zmax[c], z[c])
            dw = w[c] * mua[h] / mut[h]
            w[c] -= dw
            ir = np.minimum((np.hypot(x[c], y[c]) / C["dr"]).astype(int), NR - 1)
            iz = np.minimum((z[c] / C["dz"]).astype(int), NZ - 1)
            np.add.at(A, (iz, ir), dw)
            tot[2] += dw.sum()
            gg, r1 = g[h], _xorshift(st, c)
            with np.errstate(divide="ignore", invalid="ignore"):
                t = (1 - gg * gg) / (1 - gg + 2 * gg * r1)
                cost = np.clip(np.where(gg != 0, (1 + gg * gg - t * t) / (2 * gg), 2 * r1 - 1), -1, 1)
            sint = np.sqrt(1 - cost * cost)
            ph = 2 * np.pi * _xorshift(st, c)
            sp, cp = np.sin(ph), np.cos(ph)
            vx, vy, vz = ux[c], uy[c], uz[c]
            vert = np.abs(vz) > 0.99999
            tmp = np.sqrt(np.maximum(1 - vz * vz, 1e-300))
            ux[c] = np.where(vert, sint * cp, sint * (vx * vz * cp - vy * sp) / tmp + vx * cost)
            uy[c] = np.where(vert, sint * sp, sint * (vy * vz * cp + vx * sp) / tmp + vy * cost)
            uz[c] = np.where(vert, np.where(vz > 0, cost, -cost), -sint * cp * tmp + vz * cost)
            nscat[c] += 1
            low = c[w[c] < C["wmin"]]
            if len(low):                                  # Russian roulette
                live = _xorshift(st, low) <= C["chance"]
                w[low[live]] /= C["chance"]
                dead = low[~live]
                w[dead], fate[dead], alive[dead] = 0, 0, False
        a = a[alive[a]]
        cap = a[opl[a] > C["opl_max"]]
        tot[3] += w[cap].sum()
        fate[cap], alive[cap] = 3, False
    return dict(A=A, H=H, tot=tot, w=wout, opl=opl, zmax=zmax, nscat=nscat, fate=fate)


def _check_mc(n, layers, conf):
    host = tp._p244_mc_args(n, np.random.default_rng(0))
    out = run("probe/oct-montecarlo-skin-photons", host, n, symbols={"c_layers": layers, "c_mc": conf})
    ref = _mc_ref(n, tp.P244_MC_SEED, layers, conf)
    T = out[5]
    # the same random numbers drive both, so every photon takes the same path: float32
    # positions drift from float64 by ~1e-6 relative over its few dozen steps, which could
    # flip a boundary or bin decision only within that of an edge: none at this seed
    assert (T["fate"] == ref["fate"]).all() and (T["nscat"] == ref["nscat"]).all()
    assert np.allclose(T["opl"], ref["opl"], rtol=1e-4, atol=1e-6)
    assert np.allclose(T["zmax"], ref["zmax"], rtol=1e-4, atol=1e-6)
    assert np.allclose(T["w"], ref["w"], rtol=1e-5, atol=1e-7)
    # float atomic sums of <= a few hundred deposits in any order (then doubles): 1e-5
    assert np.allclose(out[2], ref["A"], rtol=1e-4, atol=1e-5 * max(1.0, ref["A"].max()))
    assert np.allclose(out[3], ref["H"], rtol=1e-4, atol=1e-6)
    assert np.allclose(out[4], ref["tot"], rtol=1e-5, atol=1e-6)
    return out, ref


def test_mc_skin():
    out, ref = _check_mc(384, tp._p244_skin(), tp._p244_mcconf())             # a block and a half
    f = np.bincount(ref["fate"], minlength=5)
    assert f[3] > 0.8 * 384 and f[1] > 0 and f[0] == 0 and ref["nscat"].max() > 25
    # every photon's weight accounted for: specular 4% off the top, the rest escaped,
    # absorbed or cut at the coherence window (no roulette deaths here)
    assert np.isclose(out[4][[0, 2, 3]].sum(), 384 * 0.96, rtol=1e-5)
    assert np.isclose(out[4][0], out[5]["w"].sum(), rtol=1e-5)


def test_mc_detection_and_beer_lambert():
    # a wide fibre takes every photon that leaves: the histogram holds them all
    conf = tp._p244_mcconf(det_r=100.0, na=1.0)
    out, ref = _check_mc(256, tp._p244_skin(), conf)
    T = out[5]
    inwin = (T["fate"] == 2) & (0.5 * T["opl"] < conf["bin_w"] * tp.P244_MC_BINS)   # the last hop may pass it
    assert (T["fate"] != 1).all() and np.isclose(out[3][0].sum(), T["w"][inwin].sum(), rtol=1e-5)
    assert 0 < out[3][1].sum() < out[3][0].sum()                                 # class I: a few
    # an index-matched absorber without scattering: each photon drops its weight at an
    # exponential depth (mu_a 2 /mm): Beer-Lambert
    layers = np.zeros(5, tp.P244_LAYER)
    for i in range(5):
        layers[i] = (0.3 * i, 0.3 * (i + 1) if i < 4 else 1e4, 1.0, 2.0, 0.0, 0.9)
    out, ref = _check_mc(1024, layers, tp._p244_mcconf())
    frac = out[2][:35].sum() / out[2].sum()                                      # above 0.35 mm
    assert abs(frac - (1 - np.exp(-0.7))) < 4 * np.sqrt(0.25 / 1024)


# ---- speckle_roi_stats ----

def _check_sp(img, floor, grid=None):
    nb, nx, nz = img.shape
    R = tp.P244_ROI
    nr = nb * (nx // R) * (nz // R)
    host = [np.ascontiguousarray(img, F32), np.int32(nx), np.int32(nz), F32(floor), np.zeros(nr, tp.P244_ROISTATS),
            np.zeros((nr, 64), np.uint16), np.zeros((2, 64), np.uint32)]
    out = run("probe/oct-speckle-roi-contrast-hist", host, nb, grid=grid or (nz // R, nx // R, nb))
    reg = host[0].reshape(nb, nx // R, R, nz // R, R).transpose(0, 1, 3, 2, 4).reshape(nr, R * R)
    r64 = reg.astype(np.float64)
    mean = r64.mean(1)
    c2 = np.maximum((r64 ** 2).mean(1) - mean ** 2, 0) / mean ** 2
    st = out[4]
    # float32 partial sums of 4 (3 roundings) and of 4 FMA'd squares, then doubles: the mean
    # within 4 eps; the variance, a difference of moments ~(1 + C^2) mean^2, so C^2 within
    # ~16 eps (1 + C^2) (and the float's rounding); alpha = 2 / (C^2 - 1) within that over
    # |C^2 - 1| (relative), where C^2 is not within 1e-4 of 1
    assert np.allclose(st["mean"], mean, rtol=4 * EPS, atol=0)
    dc2 = 16 * EPS * (1 + c2) + 4 * EPS * c2
    assert (np.abs(st["contrast"].astype(np.float64) ** 2 - c2) <= dc2).all()
    with np.errstate(divide="ignore"):
        alpha = np.where(c2 > 1, 2 / (c2 - 1), 0)
    ok = np.abs(c2 - 1) > 1e-4
    assert (np.abs(st["alpha"] - alpha)[ok] <= (alpha * (dc2 / np.abs(c2 - 1) + 2 * EPS))[ok]).all()
    assert (st["tissue"] == (st["mean"] > F32(floor))).all()
    # the bins from the kernel's own float mean: I * (1 / mean) * 8 in float32, as numpy
    # does it, truncated: exact
    inv = F32(1) / st["mean"]
    k = np.minimum((reg * inv[:, None] * F32(8)).astype(np.int64), 63)
    h = np.stack([np.bincount(b, minlength=64) for b in k])
    assert (out[5] == h).all()
    t = st["tissue"] == 1
    assert (out[6][0] == h[t].sum(0)).all() and (out[6][1] == h[~t].sum(0)).all()
    return st, out[5], out[6]


def test_speckle_bscan():
    rng = np.random.default_rng(9)
    img = tp._p244_intensity(rng, 2, nx=64, nz=512, width=6.0 * 64 / 1024)
    st, h, g = _check_sp(img, 3 * tp.P244_NOISE)
    t = st["tissue"] == 1
    assert 0.2 < t.mean() < 0.8
    assert abs(np.median(st["contrast"][~t]) - 1) < 0.05                         # noise: exponential speckle
    assert np.median(st["contrast"][t]) > 1.05 and g[0, 0] > g[0, 12]


def test_speckle_cases():
    rng = np.random.default_rng(10)
    img = np.empty((1, 64, 64), F32)
    img[0, :32, :32] = 0.75                                                      # constant: C = 0, all in bin 8
    img[0, 32:, :32] = rng.exponential(0.5, (32, 32))                            # speckle: C ~ 1
    img[0, :32, 32:] = rng.exponential(1e-3, (32, 32))                           # under the noise floor
    img[0, 32:, 32:] = 0.01
    img[0, 40, 40] = 50.0                                                        # one glint past 8 <I>: bin 63
    st, h, g = _check_sp(img, 0.004)
    assert st["contrast"][0] == 0 and st["alpha"][0] == 0 and h[0, 8] == 1024
    assert abs(st["contrast"][2] - 1) < 0.15 and st["tissue"].tolist() == [1, 0, 1, 1]
    assert h[3, 63] == 1 and h[3, 1] == 1023 and g[1].sum() == 1024             # 0.01 / 0.0588: 1.36 <I>
