"""probe-unseen197's kernels (kernels_cuda/probes199.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/mcml-skin-atomic", "probe/tmm-stack-float2", "probe/fdtd-tm-phc-e",
       "probe/speckle-hist-u64shfl", "probe/lp-modes-bisect-f64", "probe/oct-klinear-gather"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen197"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes199.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    seed, A, Rd, dr, dz, n = tp._p199_mc_args(256, rng)
    assert (seed & 1).all() and len(np.unique(seed)) == 256 and len(A) == 100 * 100 and len(Rd) == 100
    t = tp._p199_mc_syms(n, rng)["c_tissue"]
    assert (np.diff(t["zbot"]) > 0).all() and (t["mus"] / (t["mua"] + t["mus"]) > 0.97).all()
    A, Rd, s, steps, esc, *_ = tp._p199_mc_ref(seed)
    assert abs(A.sum() + Rd.sum() - 256) < 0.05 * 256 and 0.3 < Rd.sum() / 256 < 0.55     # skin's albedo
    assert np.median(steps) < 100 < steps.mean() and steps.max() > 500                  # a long tail
    d, mat = tp._p199_tf_stack(rng)
    nq = np.array(tp.P199_TF_CAUCHY)[mat, 0] + np.array(tp.P199_TF_CAUCHY)[mat, 1] / 0.55 ** 2
    assert len(d) == 41 and (mat[::2] == 0).all() and (mat[1::2] == 1).all()            # H L H .. H
    assert np.abs(d * nq / (550 / 4) - 1).max() < 0.04 and np.abs(d * nq / (550 / 4) - 1).std() > 0.003
    Rs, Rp, lam0, dlam, nlam, dth, n = tp._p199_tf_args(1 << 21, rng)
    assert nlam == 2048 and lam0 + nlam * dlam == 800 and np.isclose(np.degrees(dth * 1023), 75)
    Ez, Hx, Hy, mat, nx, ny = tp._p199_fd_args(512, rng)
    m = mat.reshape(512, 512)
    frac = np.bincount(mat, minlength=20) / mat.size
    assert m.dtype == np.uint8 and m.max() == 19 and (m[:48] >= 2).all() and (m[48:-48, 48:-48] < 2).all()
    assert abs(frac[1] / (frac[0] + frac[1]) - np.pi * 0.2 ** 2) < 0.01                # rods of r = 0.2 a
    wg = (512 // 2) // 20 * 20
    assert (m[wg:wg + 20, 48:-48] == 0).all() and (m[wg - 20:wg, 48:-48] == 1).any()    # the W1 row
    assert np.abs(Ez.reshape(512, 512)[wg + 10]).max() > 0.9 and np.abs(Ez).max() <= 1
    ca, cb = tp._p199_fd_coef()
    assert ca[0] == ca[1] == 1 and np.isclose(cb[1], 0.5 / 8.9) and (np.diff(ca[2:]) < 0).all()
    img, hist, mom, n = tp._p199_sp_args(1 << 20, rng)
    f = img.reshape(1024, 1024).astype(np.float64) - tp.P199_SP_DARK
    c = f[448:576, 448:576]
    assert img.dtype == np.uint16 and img.max() <= 4095 and abs(c.std() / c.mean() - 1) < 0.05   # exponential
    assert 0.4 < np.corrcoef(c[:, :-1].ravel(), c[:, 1:].ravel())[0, 1] < 0.6          # grain 2 px
    assert abs(np.corrcoef(c[:, :-3].ravel(), c[:, 3:].ravel())[0, 1]) < 0.05
    assert c.mean() > 3 * f[:64, :64].mean() and (img == 4095).mean() < 1e-3
    V = tp._p199_lp_V(4096, rng)
    fib = V.reshape(64, 64)
    assert (np.diff(fib, axis=1) < 0).all() and 0.2 < V.min() and V.max() < 12.6 and 2 < np.median(V) < 3.5
    spec, dc, kidx, win, disp, out, npix, nn = tp._p199_oc_args(4, rng)
    assert spec.dtype == np.uint16 and spec.max() <= 4095 and nn == 4 * 2048 and len(out) == 2 * nn
    assert kidx[0] == 0 and kidx[-1] == 2047 and 0.9 < np.diff(kidx).min() < 1 < np.diff(kidx).max() < 1.1
    assert np.allclose(np.hypot(*disp.reshape(-1, 2).T), 1, atol=1e-6) and win[1024] > 0.99
    def depth(d):                                           # the A-scans' depth profiles (past the DC)
        return np.abs(np.fft.fft(tp._p199_oc_ref(spec, dc, kidx, win, d, 2048), axis=1))[:, 20:1024]
    z = depth(disp)
    zbin = 3.6 / 1024                                      # mm a depth bin (the Nyquist depth 3.6 mm)
    peaks = 20 + np.argsort(z.mean(axis=0))[-5:]
    assert max(min(abs(p * zbin - zl) for zl, _ in tp.P199_OC_LAYERS) for p in peaks) < 0.012   # 3 sd of ripple
    assert z.max(axis=1).mean() > 1.5 * depth(np.tile(np.float32([1, 0]), 2048)).max(axis=1).mean()   # dispersion


# ---- mcml-skin-atomic ----

def test_mc_photon():
    # a strongly absorbing skin (short walks; fat scattering isotropically, g = 0), the packets
    # picked whose float32 decisions (a step against a boundary, the roulette's bar, the
    # straight-down test) are at least 1e-5 from going the other way
    tissue = [(8.0, 45.0, 0.79, 0.08), (2.0, 20.0, 0.81, 0.6), (1.0, 12.0, 0.0, 1e30)]
    rng = np.random.default_rng(3)
    cand = tp._p199_mc_args(256, rng)[0]
    margin = tp._p199_mc_ref(cand, tissue=tissue)[5]
    n = 64                                                  # two warps of a block of 128
    h = tp._p199_mc_args(n, rng)
    h[0] = cand[margin > 1e-5][:n].copy()
    syms = tp._p199_mc_syms(n, rng, tissue=tissue)
    out = run("probe/mcml-skin-atomic", h, n, symbols=syms)
    A, Rd, s, steps, esc, margin, edge_w = tp._p199_mc_ref(h[0], tissue=tissue, eps=2e-6)
    assert (out[0] == s).all() and steps.max() > 50 and (esc > 0).sum() > n // 2     # the same walks
    # a deposit within 2e-6 mm of a bin edge may land in the next bin in float32 (positions
    # ~1 mm after ~100 steps carry ~1e-6 of rounding); the rest float32 sums of positives
    assert np.abs(out[1] - A).sum() <= 2 * edge_w.sum() + 1e-5 * A.sum()
    assert np.abs(out[2] - Rd).sum() <= 1e-5 * Rd.sum() + 2 * edge_w.sum()
    assert abs(out[1].sum() + out[2].sum() - A.sum() - Rd.sum()) < 1e-5 * n


def test_mc_photon_beer_lambert():
    # no scattering: each packet goes straight down and drops all its weight at its first
    # interaction, at the depth of Beer-Lambert's law through the layers' absorption
    tissue = [(2.0, 0.0, 0.0, 0.08), (1.0, 0.0, 0.0, 0.6), (0.5, 0.0, 0.0, 1e30)]
    rng = np.random.default_rng(4)
    seed = tp._p199_mc_args(256, rng)[0]
    u = ((tp._p156_xorshift(seed) >> np.uint32(8)).astype(np.float64) + 1) / 2 ** 24
    tau = -np.log(u)
    z = np.where(tau < 0.16, tau / 2, np.where(tau < 0.68, 0.08 + (tau - 0.16), 0.6 + (tau - 0.68) / 0.5))
    q = z / tp.P199_MC_DZ
    ok = np.abs(q - np.rint(q)) > 1e-3                      # not at a bin's edge
    n = 64
    h = tp._p199_mc_args(n, rng)
    h[0] = seed[ok][:n].copy()
    out = run("probe/mcml-skin-atomic", h, n, symbols=tp._p199_mc_syms(n, rng, tissue=tissue))
    iz = np.minimum(q[ok][:n].astype(np.int64), tp.P199_MC_NZ - 1)
    A = out[1].reshape(tp.P199_MC_NZ, tp.P199_MC_NR)
    assert (A[:, 0] == np.bincount(iz, minlength=tp.P199_MC_NZ)).all() and (A[:, 1:] == 0).all()
    assert (out[2] == 0).all() and len(np.unique(iz)) > 20 and (iz >= 30).any() and (iz < 4).any()


# ---- tmm-stack-float2 ----

def test_tmm_reflect():
    n, nlam = 512, 64                                       # 64 wavelengths x 8 angles (0 .. 75 degrees)
    rng = np.random.default_rng(0)
    h = tp._p199_tf_args(n, rng, nlam=nlam)
    syms = tp._p199_tf_syms(n, rng)
    out = run("probe/tmm-stack-float2", h, n, symbols=syms)
    i = np.arange(n)
    lam = (np.float32(h[2]) + (i % nlam).astype(np.float32) * np.float32(h[3])).astype(np.float64)
    th = ((i // nlam).astype(np.float32) * np.float32(h[5])).astype(np.float64)
    Rs, Rp = tp._p199_tf_ref(syms["c_tf_d"], syms["c_tf_mat"], lam, th)
    # float32 products of 41 layers' matrices against float64 Fresnel recursion: 2e-5 seen
    assert np.abs(out[0] - Rs).max() < 5e-5 and np.abs(out[1] - Rp).max() < 5e-5
    assert (out[0][:nlam] == out[1][:nlam]).all()          # normal incidence: no polarisation
    assert Rs.max() > 0.9999 and Rs.min() < 0.05 and (Rp < Rs - 0.1).any()


def test_tmm_bare_substrate():
    # layers of no thickness: the bare BK7 surface, Fresnel's equations (R_p 0 at Brewster's angle)
    n, nlam = 64, 2
    rng = np.random.default_rng(1)
    h = tp._p199_tf_args(n, rng, nlam=nlam)
    h[5] = np.float32(np.radians(88.0) / 31)
    syms = tp._p199_tf_syms(n, rng)
    syms["c_tf_d"] = np.zeros(41, np.float32)
    out = run("probe/tmm-stack-float2", h, n, symbols=syms)
    i = np.arange(n)
    lam = (np.float32(h[2]) + (i % nlam).astype(np.float32) * np.float32(h[3])).astype(np.float64)
    th = ((i // nlam).astype(np.float32) * np.float32(h[5])).astype(np.float64)
    A, B = tp.P199_TF_CAUCHY[2]
    ns = A + B / (lam * 1e-3) ** 2
    ct = np.sqrt(1 - (np.sin(th) / ns) ** 2)
    rs = (np.cos(th) - ns * ct) / (np.cos(th) + ns * ct)
    rp = (ns * np.cos(th) - ct) / (ns * np.cos(th) + ct)
    assert np.abs(out[0] - rs ** 2).max() < 1e-5 and np.abs(out[1] - rp ** 2).max() < 1e-5
    assert abs(out[0][0] - 0.044) < 0.001 and out[1].min() < 1e-4                       # 4% at 400 nm; Brewster


# ---- fdtd-tm-phc-e ----

def test_fdtd_tm_e():
    n = 150                                                 # 5 x 19 blocks of 32 x 8, partial both ways
    host, out, syms, _ = launch("probe/fdtd-tm-phc-e", n)
    ref = tp._p199_fd_ref(*host[:4], n)
    # 3 float32 roundings of terms no larger than 1
    assert np.abs(out[0] - ref.ravel()).max() < 1e-6 and np.abs(ref).max() > 0.5
    e = np.ones((n, n), bool)
    e[1:-1, 1:-1] = False
    assert (out[0].reshape(n, n)[e] == host[0].reshape(n, n)[e]).all()                 # the PEC walls kept
    assert {0, 1, 2, 19} <= set(np.unique(host[3]))
    # one Hy value in a still field: the curl at its cell and its right neighbour, +-cb
    h = [np.zeros(n * n, np.float32), np.zeros(n * n, np.float32), np.zeros(n * n, np.float32)] + list(host[3:])
    c = 75 * n + 70
    h[2][c] = 1.0
    r = run("probe/fdtd-tm-phc-e", h, n, symbols=syms)[0]
    cb = syms["c_cb"][host[3]]
    assert list(np.flatnonzero(r)) == [c, c + 1] and r[c] == cb[c] and r[c + 1] == -cb[c + 1]


# ---- speckle-hist-u64shfl ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_speckle_stats(policy):
    n = 3 * 4096 + 77                                       # 3 frames of 64 x 64 and a part of one
    rng = np.random.default_rng(5)
    h = tp._p199_sp_args(n, rng, side=64)
    out = run("probe/speckle-hist-u64shfl", h, n, policy=policy, grid=(4,))     # 12 pixels a thread
    v = h[0].astype(np.int64)
    assert (out[1] == np.bincount(v >> 2, minlength=1024)).all()
    assert out[2][0] == v.sum() and out[2][1] == (v * v).sum()
    # a saturated frame: one bin for every pixel, the sum of squares past 32 bits
    h[0] = np.full(n, 4095, np.uint16)
    out = run("probe/speckle-hist-u64shfl", h, n, policy=policy, grid=(4,))
    assert out[1][1023] == n and out[1][:1023].sum() == 0 and out[2][1] == n * 4095 ** 2 > 1 << 32


# ---- lp-modes-bisect-f64 ----

def test_lp_modes():
    # one warp: V just under LP11's cutoff (2.4048) and just over LP21's (3.8317); LP02's, at
    # the same cutoff, too near it (b < 1e-9) to be found. Scan steps of 0.4, roots to 1e-5 V
    V = np.array([2.40, 3.84])
    n, du, tol = 32, 0.4, 1e-5
    h = [V, np.float64(du), np.float64(tol), np.zeros(n * 8), np.zeros(n, np.int32), np.int32(n)]
    out = run("probe/lp-modes-bisect-f64", h, n)
    b, cnt, near = tp._p199_lp_ref(V, n, du=du)
    assert near.min() > 1e-3                                # no root at a scan point
    assert (out[4] == cnt).all() and list(cnt[:3]) == [1, 0, 0] and list(cnt[16:20]) == [1, 1, 1, 0]
    # |dU| < tol V / 2 from the bisection, |db| = 2 U |dU| / V^2 < tol; the A&S K's 1e-7 besides
    assert np.abs(out[3] - b.ravel()).max() < tol + 1e-7
    assert 0.52 < b[0, 0] < 0.54 and 0 < b[18, 0] < 0.01   # LP01 at V = 2.4; LP21 just guided


# ---- oct-klinear-gather ----

def test_oct_resample():
    n = 3                                                   # A-scans: 24 blocks
    host, out, *_ = launch("probe/oct-klinear-gather", n)
    ref = tp._p199_oc_ref(*host[:5], 2048).ravel()
    o = out[5].reshape(-1, 2)
    # float32: a difference of counts < 4096 and an interpolation, a few roundings of 2^-12
    assert np.abs(o[:, 0] - ref.real).max() < 1e-3 and np.abs(o[:, 1] - ref.imag).max() < 1e-3
    assert np.abs(ref).max() > 500
    # whole pixels, no window or dispersion: the background-free spectra themselves (the last
    # sample at the last pixel, t = 1)
    h = list(host)
    h[2] = np.arange(2048, dtype=np.float32)
    h[3] = np.ones(2048, np.float32)
    h[4] = np.tile(np.float32([1, 0]), 2048)
    o = run("probe/oct-klinear-gather", h, n)[5].reshape(-1, 2)
    assert (o[:, 0] == (host[0].astype(np.float32) - np.tile(host[1], n))).all() and (o[:, 1] == 0).all()
