"""probe-unseen131's kernels (kernels_cuda/probes133.cu, a molecular-dynamics course) give
numpy's answers in the emulator at small sizes, with the sanitizer on: the timing probes
are only worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/md131-lj-cell-list", "probe/md131-bond-csr-gather", "probe/md131-vv-berendsen-ke",
       "probe/md131-rdf-smem-tiles", "probe/md131-cell-bin-atomic", "probe/md131-ewald-real-naive"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen131"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes133.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def min_dist(xyz, box):
    p = np.asarray(xyz, np.float64)
    d = tp._p133_minimg(p[:, None, :] - p[None, :, :], float(box))
    r = np.sqrt((d * d).sum(axis=2))
    np.fill_diagonal(r, np.inf)
    return r.min()


def test_data():
    rng = np.random.default_rng(0)
    n = 1000
    xyz, box = tp._p133_liquid(n, rng)
    a = tp.P133_RHO ** (-1 / 3)
    assert xyz.dtype == np.float32 and xyz.shape == (n, 3) and abs(box - 10 * a) < 1e-4
    assert xyz.min() > 0 and xyz.max() < box and min_dist(xyz, box) > (1 - 2 * tp.P133_JIT) * a - 1e-4
    # the liquid's sites in random order: neighbours in the arrays are far apart in space
    assert np.sqrt(((xyz[1:] - xyz[:-1]) ** 2).sum(axis=1)).mean() > box / 3
    # lj: sorted by cell, the cells' ranges consistent, cells at least rc wide
    pos, cs, ce, frc, bx, cl, m, rc2, nn = tp._p133_lj_args(n, rng)
    assert pos.dtype == np.float32 and len(pos) == 4 * n and nn == n and rc2 == np.float32(tp.P133_RC ** 2)
    assert m >= 3 and cl * m <= bx * (1 + 1e-6) and cl >= tp.P133_RC
    c = tp._p133_cells(pos.reshape(n, 4)[:, :3], bx)[2]
    assert (np.diff(c) >= 0).all() and (ce - cs == np.bincount(c, minlength=m ** 3)).all()
    assert cs[0] == 0 and ce[-1] == n and (cs[1:] == ce[:-1]).all()
    # bonds: chains plus crosslinks, every bond at both ends
    pos, bs, part, par, frc, bx, nn = tp._p133_bond_args(4096, rng)
    deg = np.diff(bs)
    assert bs[0] == 0 and bs[-1] == len(part) and par.dtype == np.float32 and len(par) == 2 * len(part)
    assert deg.min() >= 1 and 2.1 < deg.mean() < 2.3 and part.min() >= 0 and part.max() < 4096
    own = np.repeat(np.arange(4096), deg)
    edges = set(zip(own.tolist(), part.tolist()))
    assert all((j, i) in edges for i, j in edges) and (own != part).all()
    p = pos.reshape(-1, 4)[:, :3].astype(np.float64)
    chain = np.abs(own - part) == 1
    chain &= np.minimum(own, part) // tp.P133_B_CHAIN == np.maximum(own, part) // tp.P133_B_CHAIN
    kp = par.reshape(-1, 2)
    ck = kp[:, 0] == tp.P133_B_K                            # the chain bonds (a crosslink may join neighbours)
    assert chain[ck].all() and ck.sum() == 2 * (4096 - 4096 // tp.P133_B_CHAIN)
    assert (kp[~ck, 0] == tp.P133_B_XK).all() and (kp[~ck, 1] == tp.P133_B_XR0).all()
    r = np.sqrt((tp._p133_minimg(p[own] - p[part], float(bx)) ** 2).sum(axis=1))
    assert r[ck].min() > 0.84 and r[ck].max() < 1.16 and r[~ck].mean() > 3
    assert p.min() >= 0 and p.max() < bx
    # vv: temperature ~ P133_VV_T, lambda heating towards T0
    vx, vy, vz, fx, fy, fz, ty, ke, dt, lam, nn = tp._p133_vv_args(1 << 14, rng)
    assert ty.dtype == np.int32 and set(np.unique(ty)) == {0, 1, 2, 3} and ke[0] == 0
    m = np.asarray(tp.P133_VV_MASS)[ty]
    T = (m * (vx.astype(float) ** 2 + vy ** 2 + vz ** 2)).sum() / (3 * len(m))
    assert abs(T - tp.P133_VV_T) < 0.03 and 1.0 < lam < 1.01
    syms = tp._p133_vv_syms(0, rng)
    assert (syms["c_mass"] * syms["c_inv_mass"] - 1 < 1e-7).all()
    # rdf: rmax half the box, 256 bins
    pos, h, bx, rmax, inv_dr, nn = tp._p133_rdf_args(n, rng)
    assert h.dtype == np.uint32 and rmax == np.float32(bx / 2) and abs(inv_dr * rmax - 256) < 1e-3
    # cell-bin: the rows -1, ~6-7 atoms a cell, no overflow at a mid size
    pos, cnt, rows, ov, cl, m, nn = tp._p133_cb_args(1 << 18, rng)
    assert len(rows) == m ** 3 * tp.P133_CB_MAX and (rows == -1).all() and cnt.sum() == 0
    occ = np.bincount(tp._p133_cells(pos.reshape(-1, 4)[:, :3], m * cl)[2], minlength=m ** 3)
    assert 5 < occ.mean() < 9 and occ.max() <= tp.P133_CB_MAX // 2
    # ewald: neutral, +-1 charges
    pos, frc, bx, al, rc2, nn = tp._p133_ew_args(n, rng)
    q = pos.reshape(n, 4)[:, 3]
    assert set(np.unique(q)) == {-1.0, 1.0} and q.sum() == 0
    assert abs(np.sqrt(rc2) - tp.P133_EW_RCF * bx) < 1e-4 and abs(al * np.sqrt(rc2) - tp.P133_EW_ARC) < 1e-5


def close(got, ref, rtol=1e-4):
    """got close to ref within rtol of ref's largest magnitude."""
    np.testing.assert_allclose(got, ref, rtol=0, atol=rtol * np.abs(ref).max())


# ---- lj-cell-list ----

def test_lj_cell_list():
    n = 1000                                                # 8 blocks, the last partial; 5^3 cells
    host, (pos, cs, ce, frc, box, cl, m, rc2, nn), *_ = launch("probe/md131-lj-cell-list", n)
    assert m == 5
    f, e, gap = tp._p133_lj_ref(host[0], box, float(rc2))
    assert gap > 1e-4
    got = frc.reshape(n, 4)
    close(got[:, :3], f)
    close(got[:, 3], e)
    assert np.abs(f.sum(axis=0)).max() < 1e-6 * np.abs(f).max() * n            # Newton's third law
    assert e.min() < 0 < e.max() and (pos == host[0]).all()


# ---- bond-csr-gather ----

def test_bond_csr():
    n = 3000                                                # 12 blocks, the last partial
    host, (pos, bs, part, par, frc, box, nn), *_ = launch("probe/md131-bond-csr-gather", n)
    f, e = tp._p133_bond_ref(*host[:4], box)
    got = frc.reshape(n, 4)
    close(got[:, :3], f, 1e-5)
    close(got[:, 3], e, 1e-5)
    assert np.abs(f.sum(axis=0)).max() < 1e-9 * np.abs(f).max() * n


# ---- vv-berendsen-ke ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_vv_berendsen(policy):
    n = 3000                                                # 12 blocks, the last partial
    host, out, *_ = launch("probe/md131-vv-berendsen-ke", n, policy=policy)
    v, ke = tp._p133_vv_ref(*host[:7], dt=host[8], lam=host[9])
    for got, ref in zip(out[:3], v):
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(out[7][0], ke, rtol=1e-5)
    assert (out[3] == host[3]).all() and host[9] > 1


# ---- rdf-smem-tiles ----

def test_rdf_smem():
    n = 700                                                 # a 6 x 2 grid: partial i block, partial chunk and tile
    host, (pos, h, box, rmax, inv_dr, nn), *_ = launch("probe/md131-rdf-smem-tiles", n)
    ref, gap = tp._p133_rdf_ref(host[0], box, rmax, inv_dr)
    assert (h % 2 == 0).all()                               # (i, j) and (j, i) land in one bin
    assert abs(int(h.sum()) - int(ref.sum())) <= 4 and np.abs(h.astype(np.int64) - ref).sum() <= 8
    frac = ref.sum() / (n * (n - 1))
    assert 0.45 < frac < 0.56 and ref[:20].sum() == 0 and ref[-20:].min() > 0   # no pair closer than 0.7 a


# ---- cell-bin-atomic ----

def cell_bin_check(host, out, n):
    pos, cnt, rows, ov, cl, m, nn = out
    c = tp._p133_cells(host[0].reshape(n, 4)[:, :3], m * cl)[2]
    occ = np.bincount(c, minlength=m ** 3)
    cap = tp.P133_CB_MAX
    assert (cnt == occ).all() and ov[0] == np.maximum(occ - cap, 0).sum()
    R = rows.reshape(-1, cap)
    for k in np.flatnonzero(occ):
        row = R[k, :min(occ[k], cap)]
        assert (np.sort(row) == np.unique(row)).all() and (c[row] == k).all()
        assert (R[k, min(occ[k], cap):] == -1).all()
    assert (R[occ == 0] == -1).all()


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_cell_bin(policy):
    n = 3000                                                # 12 blocks, the last partial
    host, out, *_ = launch("probe/md131-cell-bin-atomic", n, policy=policy)
    cell_bin_check(host, out, n)
    assert out[3][0] == 0


def test_cell_bin_overflow():
    # 40 atoms crowded into cell 0: 32 of them in its row, 8 overflows
    rng = np.random.default_rng(3)
    n = 600
    host = tp._p133_cb_args(n, rng)
    p = host[0].reshape(n, 4)
    p[100:140, :3] = rng.uniform(0, 0.9 * host[4], (40, 3))
    out = run("probe/md131-cell-bin-atomic", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n,
              policy="random")
    cell_bin_check(host, out, n)
    assert out[3][0] >= 8 and out[1][0] >= 40


# ---- ewald-real-naive ----

def test_ewald_real():
    n = 300                                                 # 3 blocks, the last partial
    host, (pos, frc, box, alpha, rc2, nn), *_ = launch("probe/md131-ewald-real-naive", n)
    f, e, gap = tp._p133_ew_ref(host[0], box, alpha, rc2)
    assert gap > 1e-4
    got = frc.reshape(n, 4)
    close(got[:, :3], f, 2e-5)
    close(got[:, 3], e, 2e-5)
    assert np.abs(f.sum(axis=0)).max() < 1e-9 * np.abs(f).max() * n
