"""probe-unseen89's kernels (kernels_cuda/probes91.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/fdtd3d-yee-e-material", "probe/fdtd2d-cpml-ez-ricker", "probe/fdtd1d-slab-sweep-smem",
       "probe/mom-helix-zfill-gauss", "probe/ntff2d-farfield-atomic", "probe/mom-zmatvec-warp"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen89"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes91.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # fdtd3d: the materials' shares and the coefficients (vacuum Courant 0.5 < 1/sqrt 3)
    n = 64
    Ex, Ey, Ez, Hx, Hy, Hz, mat, *dims = tp._p91_yee_args(n, rng)
    assert mat.dtype == np.uint8 and len(mat) == n ** 3 and dims == [n, n, n] and Hz.dtype == np.float32
    cnt = np.bincount(mat, minlength=4)
    assert abs(cnt[1] / (4 / 3 * np.pi * (n / 4) ** 3) - 1) < 0.05
    assert cnt[2] == 2 * n * n and cnt[3] == (n // 2) ** 2
    assert all((e[mat == 3] == 0).all() for e in (Ex, Ey, Ez)) and abs(Hx.std() - 1) < 0.01
    ca, cb = tp._p91_coefs()
    assert ca.tolist() == [1, 1, np.float32(0.9 / 1.1), 0] and cb[0] == 0.5 < 1 / np.sqrt(3) and cb[1] == 0.125
    assert set(tp._p91_yee_syms(n, rng)) == {"c_ca", "c_cb"}
    # fdtd2d: the CPML's profiles graded into the strips, psi only there, the source outside
    n = 128
    a = tp._p91_cpml_args(n, rng)
    b, c, k = a[5:8]
    npml = tp._P91_NPML
    assert a[13] == npml and all(v.dtype == np.float32 and len(v) == n for v in (b, c, k))
    assert b[0] == b[:npml].min() and 0.8 < b[0] and b[:npml].max() < 0.96       # strongest at the wall
    assert (b[npml:n - npml] == 0).all() and (c[npml:n - npml] == 0).all() and (k[npml:n - npml] == 1).all()
    assert (c[:npml] < 0).all() and k[0] == 5 and (np.diff(k[:npml]) < 0).all()
    assert np.allclose(b[::-1], b) and np.allclose(k[::-1], k)              # symmetric ends
    px, py = a[3].reshape(n, n), a[4].reshape(n, n)
    assert (px[:, npml:n - npml] == 0).all() and (px[:, :npml] != 0).all()
    assert (py[npml:n - npml] == 0).all() and (py[-npml:] != 0).all()
    assert npml <= a[14] < n - npml and npml <= a[15] < n - npml
    assert abs(tp._p91_ricker(tp._P91_SRC_Q) - 0.292) < 0.001              # rising: 0.175 periods before the peak
    # fdtd1d: slabs clear of the source and the probes; the records' reference shows the
    # reflection from every slab and the transmitted pulse arriving in every run
    eps, sig, lo, hi, rr, rt, dte, t0, sp, steps = tp._p91_slab_args(64, rng)
    assert steps == tp._P91_STEPS and len(rr) == 64 * steps and lo.dtype == np.int32
    assert tp._P91_SRC1D < lo.min() and hi.max() < tp._P91_RECT and (hi - lo).min() >= 10
    assert 1.5 <= eps.min() and eps.max() <= 9 and 0 <= sig.min() and sig.max() <= 0.04
    R, T = tp._p91_slab_ref(eps, sig, lo, hi)
    assert np.abs(R[:, 150:]).max(axis=1).min() > 0.1                       # the slab's echo
    assert np.abs(T).max(axis=1).min() > 0.05                               # every pulse through in time
    # mom: the helix's segments about lambda / 21, unit tangents, the quadrature exact
    c, t, h = tp._p91_helix(4096)
    assert np.allclose(2 * h, 0.04767, atol=1e-5) and np.allclose(np.linalg.norm(t, axis=1), 1)
    assert np.allclose(np.linalg.norm(c[1:] - c[:-1], axis=1), 0.04753, atol=1e-5) and 30 < c[:, 2].max() < 31
    g = tp._p91_gauss_syms(0, rng)
    assert abs(g["c_gw"].sum() - 2) < 1e-6 and abs((g["c_gw"] * g["c_gx"] ** 14).sum() - 2 / 15) < 1e-6
    m = tp._p91_mom_args(64, rng)
    assert len(m[7]) == 2 * 64 * 64 and m[8] == np.float32(2 * np.pi) and m[9] == np.float32(1e-3)
    # ntff: the contour a square (n / 4 a side), outward normals, J = n x H, M = -n x E
    n = 64
    xs, ys, dl, J, MX, MY, far, k0, eta, nn, nang = tp._p91_ntff_args(n, rng)
    L = n / 4 * tp._P91_NTFF_DX
    assert nn == n and nang == tp._P91_NANG and len(far) == 2 * nang and dl.sum() == pytest.approx(4 * L)
    assert np.allclose(np.maximum(np.abs(xs), np.abs(ys)), L / 2) and len(np.unique(np.round(xs * 100))) == n / 4 + 2
    x, y, nx, ny = tp._p91_ntff_contour(n)
    assert ((nx * x + ny * y) > 0).all() and (np.abs(nx) + np.abs(ny) == 1).all()
    j, mx, my = (tp._p91_f2c(v) for v in (J, MX, MY))
    assert np.allclose(np.abs(mx) + np.abs(my), np.abs(mx + my))          # M along one axis a side
    assert 0.8 < np.mean(np.abs(mx) ** 2 + np.abs(my) ** 2) < 1.25 and 0.6 < np.mean(np.abs(j * eta) ** 2) < 1.4
    # zmatvec: complex normal, unit variance
    Z, I, V, nn = tp._p91_zmv_args(200, rng)
    assert Z.dtype == np.float32 and len(Z) == 2 * 200 * 200 and len(I) == 400 and abs(Z.var() - 0.5) < 0.02


# ---- fdtd3d-yee-e-material ----

def test_fdtd3d_yee():
    n = 32                                                  # grid (1, 4, 32)
    host, out, syms, _ = launch("probe/fdtd3d-yee-e-material", n)
    for got, ref in zip(out[:3], tp._p91_yee_ref(*host[:7], n)):
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    mat = host[6]
    for got, old in zip(out[:3], host[:3]):
        g, o = got.reshape(n, n, n), old.reshape(n, n, n)
        assert (g[0] == o[0]).all() and (g[:, 0] == o[:, 0]).all() and (g[:, :, 0] == o[:, :, 0]).all()
        assert (got[mat == 3] == 0).all() and (got != old).mean() > 0.9
    assert all((a == b).all() for a, b in zip(out[3:7], host[3:7]))


# ---- fdtd2d-cpml-ez-ricker ----

def test_fdtd2d_cpml():
    n = 96                                                  # 6 x 6 blocks, the middle ones PML-free
    host, out, *_ = launch("probe/fdtd2d-cpml-ez-ricker", n)
    ez, px, py = tp._p91_cpml_ref(*host)
    np.testing.assert_allclose(out[0], ez, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[3], px, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[4], py, rtol=1e-5, atol=1e-6)
    npml = tp._P91_NPML
    g, o = out[0].reshape(n, n), host[0].reshape(n, n)
    assert (g[0] == o[0]).all() and (g[-1] == o[-1]).all() and (g[:, 0] == o[:, 0]).all()
    assert (out[3].reshape(n, n)[:, npml:n - npml] == 0).all() and (out[4].reshape(n, n)[npml:n - npml] == 0).all()
    # the source: the same step without it differs at its cell only
    h2 = list(host)
    h2[16] = np.float32(0)
    h2[0] = host[0].copy()
    out2 = run("probe/fdtd2d-cpml-ez-ricker", h2, n)
    diff = (out[0] - out2[0]).reshape(n, n)
    assert np.flatnonzero(diff).tolist() == [host[15] * n + host[14]]
    assert diff[host[15], host[14]] == pytest.approx(tp._p91_ricker(tp._P91_SRC_Q), rel=1e-5)


# ---- fdtd1d-slab-sweep-smem ----

def test_fdtd1d_slabs():
    # 2 runs of 240 steps (the probe's 1200 are slow in the emulator), the slabs moved
    # up to the source so that their echoes reach REC_R: one lossless eps 9, one lossy
    # eps 2; the pulse's left half leaves through the low boundary
    steps = 240
    rng = np.random.default_rng(3)
    host = tp._p91_slab_args(2, rng, steps=steps)
    host[0][:] = [9.0, 2.0]
    host[1][:] = [0.0, 0.04]
    host[2][:] = [40, 50]
    host[3][:] = [80, 60]
    out = run("probe/fdtd1d-slab-sweep-smem", host, 2)
    R, T = tp._p91_slab_ref(*host[:4], steps=steps)
    np.testing.assert_allclose(out[4].reshape(2, steps), R, rtol=0, atol=1e-5)
    np.testing.assert_allclose(out[5].reshape(2, steps), T, rtol=0, atol=1e-7)
    assert np.abs(T).max() < 1e-6 and R.max() > 0.95        # nothing through yet; the incident pulse's left half
    assert R[0, 120:160].min() < -0.45 and R[1, 160:].min() < -0.25         # the echoes, inverted (eps up)
    assert np.abs(R[0, 190:]).max() < 0.01                  # the echo gone through the low boundary


# ---- mom-helix-zfill-gauss ----

def test_mom_fill():
    n = 40                                                  # 3 x 3 blocks, the last partial
    host, out, syms, _ = launch("probe/mom-helix-zfill-gauss", n)
    Z = tp._p91_f2c(out[7]).reshape(n, n)
    ref = tp._p91_mom_ref(*host[:7])
    np.testing.assert_allclose(Z, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
    d = np.diag(ref)
    assert np.allclose(np.diag(Z), d, rtol=1e-5) and (d.real > 5 * np.abs(ref - np.diag(d)).max()).all()
    assert np.allclose(Z, Z.T, atol=1e-3 * np.abs(ref - np.diag(d)).max())        # the helix's 2-fold symmetry


# ---- ntff2d-farfield-atomic ----

@pytest.mark.parametrize("policy, nang", [("lockstep", 24), ("random", 8)])
def test_ntff(policy, nang, monkeypatch):
    # 24 angles (the probe's 720 are slow in the emulator: the grid's y and the far
    # field's length both read _P91_NANG); random: 8 (16 blocks, each angle's 2 on its words)
    monkeypatch.setattr(tp, "_P91_NANG", nang)
    n = 300                                                 # 2 blocks an angle, the last partial
    host, out, *_ = launch("probe/ntff2d-farfield-atomic", n, policy=policy)
    assert host[-1] == nang and len(out[6]) == 2 * nang
    ref = tp._p91_ntff_ref(*host[:6], nang=nang)
    got = tp._p91_f2c(out[6])
    scale = np.sqrt(n) * tp._P91_NTFF_DX * 2
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-5 * scale)
    assert np.abs(ref).min() > 0.01 * scale and np.abs(ref).max() < 5 * scale
    # a uniform line current Jz alone along the bottom side: |F| its array factor
    h2 = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
    for a in (3, 4, 5):
        h2[a][:] = 0
    h2[3][0:2 * (n // 4):2] = 1 / tp._P91_ETA
    out2 = run("probe/ntff2d-farfield-atomic", h2, n, policy=policy)
    phi = 2 * np.pi * np.arange(nang) / nang
    u = np.pi * tp._P91_NTFF_DX * np.cos(phi)                     # k0 dx cos(phi) / 2
    m = n // 4
    af = tp._P91_NTFF_DX * np.abs(np.sin(m * u) / np.sin(np.where(u == 0, 1, u)))
    af[u == 0] = m * tp._P91_NTFF_DX
    np.testing.assert_allclose(np.abs(tp._p91_f2c(out2[6])), af, rtol=0, atol=1e-4)


# ---- mom-zmatvec-warp ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_zmatvec(policy):
    n = 100                                                 # 13 blocks, the last half idle; rows not a warp's multiple
    host, out, *_ = launch("probe/mom-zmatvec-warp", n, policy=policy)
    Z = tp._p91_f2c(host[0]).reshape(n, n)
    ref = Z @ tp._p91_f2c(host[1])
    np.testing.assert_allclose(tp._p91_f2c(out[2]), ref, rtol=0, atol=1e-5 * np.sqrt(n))
    assert (out[0] == host[0]).all() and np.abs(ref).min() > 0
