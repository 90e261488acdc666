"""probe-unseen141's kernels (kernels_cuda/probes143.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch

IDS = ["probe/sph143-bin-atomic", "probe/sph143-cell-scan-smem", "probe/sph143-density-poly6",
       "probe/sph143-press-visc-forces", "probe/sph143-leapfrog-vlimit", "probe/sph143-boundary-obstacles"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen141"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes143.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 12
    poly6, spiky, lap, mass = tp._p143_consts()
    assert abs(poly6 * tp.P143_H ** 9 * 64 * np.pi / 315 - 1) < 1e-12 and spiky == -lap and 0.1 < mass < 0.15
    xyz, m = tp._p143_fluid(n, rng)
    assert xyz.dtype == np.float32 and xyz.shape == (n, 3) and m == 8 and xyz.min() > 0 and xyz.max() < m * tp.P143_H
    assert np.bincount(tp._p143_cell(xyz, m)).max() <= 8                  # <= 8 a cell (lattice of h / 2)
    d = xyz[:300, None, :] - xyz[None, :, :]
    r = np.sqrt((d.astype(np.float64) ** 2).sum(axis=2))
    r[np.arange(300), np.arange(300)] = np.inf
    assert r.min() > 0.55 * tp.P143_H / 2                                  # no two particles close
    pos, cnt_, cc, slot, inv_h, mm, nn = tp._p143_bin_args(n, rng)
    assert len(pos) == 4 * n and len(cc) == m ** 3 and inv_h == np.float32(10) and nn == n
    assert (np.diff(tp._p143_cell(pos.reshape(-1, 4)[:, :3], m)) < 0).mean() > 0.3      # random order
    c, st, bs, _ = tp._p143_scan_args(5000, rng)
    assert c.dtype == np.int32 and abs(c.mean() - 8) < 0.3 and len(bs) == 10
    xyz, s, e, m = tp._p143_sorted(n, rng)
    cell = tp._p143_cell(xyz, m)
    assert (np.diff(cell) >= 0).all() and (s[cell] <= np.arange(n)).all() and (np.arange(n) < e[cell]).all()
    rho, pr, cnt = tp._p143_density_ref(xyz, s, e, m)
    assert 20 < cnt.mean() < 40 and cnt.max() <= 40                       # ~33 neighbours inside
    assert 0.95 < np.median(rho) / tp.P143_RHO0 < 1.05 and (pr < 0).any() and (pr > 0).any()
    a = tp._p143_forces_args(1000, rng)
    assert a[1].reshape(-1, 4)[:, 3].max() == 0 and a[2].dtype == np.float32 and a[13] == np.float32(-9.81)
    r2, _, _ = tp._p143_density_ref(a[0].reshape(-1, 4)[:, :3], a[4], a[5], int(a[14]))
    np.testing.assert_allclose(a[2], r2, rtol=1e-6)
    p, v, lim = tp._p143_lf_ref(*tp._p143_lf_args(n, rng)[:3])
    assert 0.02 < lim.mean() < 0.1
    p, v, wall, hit = tp._p143_bd_ref(*tp._p143_bd_args(n, rng)[:2])
    assert 0.07 < wall.mean() < 0.15 and 0.07 < hit.mean() < 0.15
    o = tp._p143_obst()
    dc = np.sqrt(((o[:, None, :3] - o[None, :, :3]) ** 2).sum(axis=2)) + np.eye(8) * 99
    assert dc.min() > 2 * o[:, 3].max() and (o[:, :3] - o[:, 3:] > 0).all()              # disjoint, clear of walls
    assert tp._p143_bd_syms(n, rng)["c_obst"]["w"][0] == np.float32(0.48)


# ---- sph143-bin-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_bin_atomic(policy):
    n = 3000                                                # 12 blocks, the last partial
    host, (pos, cell_of, count, slot, *_), *_ = launch("probe/sph143-bin-atomic", n, policy=policy)
    m = int(host[5])
    c = tp._p143_cell(pos.reshape(-1, 4)[:, :3], m)
    assert (cell_of == c).all()
    assert (count == np.bincount(c, minlength=m ** 3)).all() and count.max() > 1
    o = np.lexsort((slot, c))                               # each cell's slots: 0 .. count - 1
    first = np.searchsorted(c[o], c[o])
    assert (slot[o] == np.arange(n) - first).all()


# ---- sph143-cell-scan-smem ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_cell_scan(policy):
    n = 1300                                                # 3 blocks, the last partial
    host, (cnt, start, bsum, _), *_ = launch("probe/sph143-cell-scan-smem", n, policy=policy)
    ex, tot = tp._p143_scan_ref(host[0])
    assert (start == ex).all() and (bsum == tot).all() and tot.sum() == host[0].sum()
    assert start[0] == 0 and start[512] == 0 and start[511] == host[0][:511].sum()


# ---- sph143-density-poly6 ----

def test_density():
    n = 3000
    host, (pos, s, e, rho, press, *_), *_ = launch("probe/sph143-density-poly6", n)
    r, p, cnt = tp._p143_density_ref(pos.reshape(-1, 4)[:, :3], s, e, int(host[11]))
    np.testing.assert_allclose(rho, r, rtol=2e-5)
    np.testing.assert_allclose(press, p, rtol=0, atol=2e-4 * tp.P143_K_GAS * tp.P143_RHO0)
    assert cnt.min() >= 7 and r.min() < 0.6 * r.max()                      # the walls' particles lighter


# ---- sph143-press-visc-forces ----

def test_forces():
    n = 1000
    host, out, *_ = launch("probe/sph143-press-visc-forces", n)
    A = tp._p143_forces_ref(*host[:6], int(host[14]))
    got = out[6].reshape(-1, 4)
    scale = np.abs(A).max()
    np.testing.assert_allclose(got[:, :3], A, rtol=0, atol=2e-5 * scale)
    assert (got[:, 3] == 0).all() and scale > 20 and np.abs(A[:, 2] - tp.P143_G).max() > 5


# ---- sph143-leapfrog-vlimit ----

def test_leapfrog():
    n = 3000
    host, (pos, vel, acc, *_), *_ = launch("probe/sph143-leapfrog-vlimit", n)
    p, v, lim = tp._p143_lf_ref(*host[:3])
    np.testing.assert_allclose(pos.reshape(-1, 4)[:, :3], p, rtol=0, atol=2e-6)
    np.testing.assert_allclose(vel.reshape(-1, 4)[:, :3], v, rtol=0, atol=2e-6)
    sp = np.sqrt((vel.reshape(-1, 4)[:, :3].astype(np.float64) ** 2).sum(axis=1))
    assert lim.sum() > 50 and np.abs(sp[lim] - tp.P143_LF_VMAX).max() < 1e-5 and (acc == host[2]).all()


# ---- sph143-boundary-obstacles ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_boundary(policy):
    n = 3000
    host, (pos, vel, *_), *_ = launch("probe/sph143-boundary-obstacles", n, policy=policy)
    p, v, wall, hit = tp._p143_bd_ref(*host[:2])
    P, V = pos.reshape(-1, 4), vel.reshape(-1, 4)
    np.testing.assert_allclose(P[:, :3], p, rtol=0, atol=2e-6)
    np.testing.assert_allclose(V[:, :3], v, rtol=0, atol=2e-6)
    assert wall.sum() > 100 and hit.sum() > 100 and (P[:, :3] >= 0).all() and (P[:, :3] <= tp.P143_BOX).all()
    free = ~wall & ~hit
    assert (pos.reshape(-1, 4)[free] == host[0].reshape(-1, 4)[free]).all()
    o = tp._p143_obst()
    d = np.sqrt(((p[hit][:, None, :] - o[None, :, :3]) ** 2).sum(axis=2)).min(axis=1)
    np.testing.assert_allclose(d, o[0, 3], atol=1e-5)                      # projected onto the surface
