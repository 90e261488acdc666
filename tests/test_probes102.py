"""probe-unseen100's kernels (kernels_cuda/probes102.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/pic2d-cic-charge-atomic", "probe/pic2d3v-boris-gather-push", "probe/mirror-boris-losscone",
       "probe/poisson-jacobi-dp-tile16", "probe/pic-sort-scatter-cells", "probe/twostream-vdist-ke"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen100"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes102.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def periodic_close(got, ref, atol):
    d = (np.asarray(got, np.float64) - ref + 0.5) % 1.0 - 0.5
    assert np.abs(d).max() <= atol, np.abs(d).max()


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 16
    x, y, rho, qw, idx, idy, nx, ny, nn = tp._p102_dep_args(n, rng)
    ng = tp.P102_DEP_NG
    assert x.dtype == y.dtype == np.float32 and 0 <= x.min() and x.max() < 1 and y.max() < 1
    assert rho.shape == (ng * ng,) and not rho.any() and nx == ny == ng == idx and nn == n
    assert abs(qw * n + ng * ng) < 1e-3 * ng * ng                           # mean density -1
    k = 2 * np.pi * tp.P102_DEP_K
    assert -0.12 < np.cos(k * x).mean() < -0.08 and -0.12 < np.cos(k * y).mean() < -0.08   # the k = 4 mode, -amp/2
    a = tp._p102_push_args(n, rng)
    v = np.stack(a[2:5])
    assert v.dtype == np.float32 and 0.45 < v.std() * tp.P102_PUSH_DT * tp.P102_PUSH_NG < 0.58   # half a cell a step
    assert np.abs(a[5]).max() < 2 * tp.P102_PUSH_E and a[5].shape == (tp.P102_PUSH_NG ** 2,)
    m = tp._p102_mir_args(4096, rng)
    sp = np.sqrt((np.stack(m[3:6]).astype(np.float64) ** 2).sum(axis=0))
    assert np.abs(sp - 1).max() < 1e-6 and np.abs(m[2]).max() <= tp.P102_MIR_Z0 and np.abs(m[0]).max() <= 2
    assert m[13] == tp.P102_MIR_STEPS and (1 + tp.P102_MIR_ZMAX ** 2 / tp.P102_MIR_L2) == 3
    *st, done, lost, gap = tp._p102_mir_ref(*m[:6])
    assert 0.15 < lost.mean() < 0.25 and done[lost].min() > 150 and (done[~lost] == tp.P102_MIR_STEPS).all()
    assert np.abs(np.sqrt(st[3] ** 2 + st[4] ** 2 + st[5] ** 2) - sp).max() < 1e-9   # the rotation keeps |v|
    assert lost.reshape(-1, 32).all(axis=1).sum() == 0                       # no warp escapes whole
    phi, pn, r, res, h2, s, s2 = tp._p102_jac_args(100 * 100, rng)
    P = phi.reshape(100, 100)
    assert phi.dtype == np.float64 and s == s2 == 100 and len(res) == 49 and h2 == 1 / 99 ** 2
    assert not P[0].any() and not P[-1].any() and not P[:, 0].any() and not P[:, -1].any()
    assert np.abs(r).max() > 50
    ns, g = 1 << 18, 64                                     # 64 particles a cell, as the probe's 2^22 in 256^2
    assert tp.P102_SORT_NG ** 2 * 64 == 1 << 22
    sa = tp._p102_sort_args(ns, rng, ng=g)
    c = tp._p102_sort_cells(sa[0], sa[1], g)
    counts = np.bincount(c, minlength=g * g)
    assert (sa[5] == np.r_[0, np.cumsum(counts)[:-1]]).all() and not sa[6].any() and sa[14] == g
    assert 0.7 < (np.diff(c) >= 0).mean() < 0.85                            # nearly sorted
    w = c[:ns // 32 * 32].reshape(-1, 32)
    assert np.mean([len(np.unique(r)) for r in w[:2000]]) < 8                  # a warp's lanes on a few cells
    d = tp._p102_dg_args(n, rng)
    assert d[0].dtype == np.float32 and d[4].dtype == np.float64 and not d[3].any()
    assert abs((d[0] > 0).mean() - 0.5) < 0.01 and abs(np.abs(d[0]).mean() - tp.P102_DG_V0) < 0.002
    h, ke = tp._p102_dg_ref(*d[:3])
    assert h.sum() == n and (h > 0).sum() < 80 and d[6] == 160 and tp._p102_dg_grid(1 << 24) == 4096


# ---- pic2d-cic-charge-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_deposit(policy):
    rng = np.random.default_rng(2)
    n = 1000                                                # 4 blocks, the last partial
    host = tp._p102_dep_args(n, rng)
    host[0][:4] = [0.9995, 0.3, 0.99999, 0.0]               # the last column, row and cell (wrapping), the origin
    host[1][:4] = [0.5, 0.9995, 0.99999, 0.0]
    x, y, rho, qw = run("probe/pic2d-cic-charge-atomic", host, n, policy=policy)[:4]
    ng = tp.P102_DEP_NG
    assert rho[0] != 0 and rho[ng * (ng // 2)] != 0 and rho[ng - 1] != 0     # wrapped weights landed on row/column 0
    ref = tp._p102_dep_ref(x, y, qw)
    np.testing.assert_allclose(rho, ref, rtol=0, atol=1e-5 * abs(qw))
    assert abs(rho.sum() - qw * n) < 1e-4 * abs(qw * n) and (rho != 0).sum() > 3 * n


# ---- pic2d3v-boris-gather-push ----

def test_boris_push():
    rng = np.random.default_rng(3)
    n = 1000
    host = tp._p102_push_args(n, rng)
    # particles leaving through each wall
    host[0][:2] = [1e-4, 0.9999]
    host[2][:2] = [-0.02, 0.02]
    host[1][2:4] = [1e-4, 0.9999]
    host[3][2:4] = [-0.02, 0.02]
    ref = tp._p102_push_ref(*host[:7])
    x, y, vx, vy, vz = run("probe/pic2d3v-boris-gather-push", [a.copy() if isinstance(a, np.ndarray) else a
                                                               for a in host], n)[:5]
    assert 0 <= x.min() and x.max() < 1 and 0 <= y.min() and y.max() < 1
    assert x[0] > 0.99 and x[1] < 0.01 and y[2] > 0.99 and y[3] < 0.01
    periodic_close(x, ref[0], 1e-6)
    periodic_close(y, ref[1], 1e-6)
    for got, r in zip((vx, vy, vz), ref[2:]):
        np.testing.assert_allclose(got, r, rtol=0, atol=1e-7)
    assert np.abs(vz - host[4]).max() > 1e-4                # the rotation mixes vz in (bx != 0)


# ---- mirror-boris-losscone ----

def test_mirror_trace():
    # 250 steps (the probe's 600 are slow in the emulator) from |z| up to 12 (not 8), so that
    # some particles escape within them
    rng = np.random.default_rng(5)
    n = 160                                                 # 2 blocks, the last partial
    host = tp._p102_mir_args(n, rng)
    host[2] = host[2] * np.float32(1.5)
    host[13] = np.int32(250)
    out = run("probe/mirror-boris-losscone", host, n)
    *st, done, lost, gap = tp._p102_mir_ref(*host[:6], nsteps=250)
    assert gap > 1e-3 and 10 <= lost.sum() < n / 4 and done.min() > 100
    assert (out[6] == done).all() and out[7][0] == lost.sum()
    for got, r in zip(out[:6], st):
        np.testing.assert_allclose(got, r, rtol=0, atol=1e-4)
    assert (np.abs(out[2][lost]) > tp.P102_MIR_ZMAX).all() and (np.abs(out[2][~lost]) <= tp.P102_MIR_ZMAX).all()


# ---- poisson-jacobi-dp-tile16 ----

@pytest.mark.parametrize("side", [40, 48])                  # partial tiles, whole tiles
def test_poisson_jacobi(side):
    n = side * side
    host, (phi, pn, rho, res, h2, nx, ny), *_ = launch("probe/poisson-jacobi-dp-tile16", n)
    ref, rref = tp._p102_jac_ref(phi, rho, h2, side)
    np.testing.assert_allclose(pn, ref, rtol=1e-13, atol=1e-16)
    np.testing.assert_allclose(res, rref, rtol=1e-10, atol=1e-16)
    P = pn.reshape(side, side)
    assert not P[0].any() and not P[:, -1].any() and (res > 0).all()


# ---- pic-sort-scatter-cells ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_sort_scatter(policy):
    # 8 x 8 cells for 3000 particles (~47 a cell: the lanes' atomics collide as at full size)
    rng = np.random.default_rng(6)
    n, ng = 3000, 8
    host = tp._p102_sort_args(n, rng, ng=ng)
    assert host[14] == ng
    out = run("probe/pic-sort-scatter-cells", host, n, policy=policy)
    x, y, vx, vy, vz, start, fill, xs, ys, vxs, vys, vzs, ids = out[:13]
    c = tp._p102_sort_cells(x, y, ng)
    assert (fill == np.bincount(c, minlength=ng * ng)).all()
    assert (np.sort(ids) == np.arange(n)).all()
    assert (xs == x[ids]).all() and (ys == y[ids]).all() and (vxs == vx[ids]).all() and (vys == vy[ids]).all()
    assert (vzs == vz[ids]).all()
    cs = tp._p102_sort_cells(xs, ys, ng)
    assert (np.diff(cs) >= 0).all() and (start[cs] <= np.arange(n)).all()
    assert (np.diff(c) < 0).any()                           # the input was not sorted


# ---- twostream-vdist-ke ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_vdist_diag(policy):
    rng = np.random.default_rng(7)
    n = 5000                                                # 2 blocks, ~10 particles a thread
    host = tp._p102_dg_args(n, rng)
    host[0][:5] = [-0.5, 0.45, 0.4, -0.4, -0.40001]         # out, out, out (the top edge), bin 0, out
    vmin, idv = host[5], host[6]
    assert np.floor((host[0][:5] - vmin) * idv).tolist() == [-16, 136, 128, 0, -1]
    out = run("probe/twostream-vdist-ke", host, n, policy=policy)
    h, ke = tp._p102_dg_ref(*host[:3])
    assert tp._p102_dg_grid(n) == 2 and h.sum() == n - 4
    assert (out[3] == h).all()
    assert abs(out[4][0] - ke) < 1e-5 * ke
