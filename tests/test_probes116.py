"""probe-unseen114's kernels (kernels_cuda/probes116.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/rdf-cell-list-atomic", "probe/xrd-perovskite-sf-smem", "probe/eam-density-nlist-colmajor",
       "probe/kmc-nfold-select-rowmajor", "probe/allen-cahn-tile-double", "probe/msd-lag-tree-atomic"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen114"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes116.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _min_image(p, q, box):
    d = q - p
    return d - box * np.rint(d / box)


def test_data():
    rng = np.random.default_rng(0)
    # rdf: a hot FCC crystal sorted by cell, cells no smaller than rmax, ~16 atoms a cell
    n = 4 * 8 ** 3
    pos4, start, hist, box, cell, ncell, rmax, inv_dr, bins, nn = tp._p116_rdf_args(n, rng)
    p = pos4.reshape(-1, 4)
    assert pos4.dtype == np.float32 and nn == n and (p[:, 3] == 0).all() and not hist.any()
    assert (p[:, :3] >= 0).all() and (p[:, :3] < box).all() and box == np.float32(8 * 1.6)
    assert ncell == 5 and cell >= rmax and start[0] == 0 and start[-1] == n and len(start) == 5 ** 3 + 1
    c = tp._p116_rdf_cells(p[:, :3], n)
    assert (np.diff(c) >= 0).all() and (np.repeat(np.arange(ncell ** 3), np.diff(start)) == c).all()
    assert 12 <= np.diff(start).mean() <= 20 and inv_dr * rmax == bins == 250
    h, near = tp._p116_rdf_ref(pos4, box)
    r = (np.arange(bins) + 0.5) / inv_dr
    g = h / (n * n / float(box) ** 3 * 4 * np.pi * r * r / inv_dr)
    assert abs(r[np.argmax(g)] - 1.6 / np.sqrt(2)) < 0.05 and g.max() > 2.5 and near < 1e-3 * h.sum()   # the first peak
    assert abs(g[r > 2].mean() - 1) < 0.2
    d = _min_image(p[:200, None, :3].astype(np.float64), p[None, :, :3].astype(np.float64), float(box))
    nb = ((d * d).sum(-1) < 2.5 ** 2).sum(1) - 1
    assert 55 < nb.mean() < 70
    # xrd: (La0.2 Sr0.8) TiO3 8 x 8 x 8, 2% O vacancies; reflections by |hkl|, (000) first
    at, sp, na, hkl, inv_a2, inten, nn = tp._p116_xrd_args(1 << 12, rng)
    a = at.reshape(-1, 4)
    assert na == len(sp) == 2560 and sp.dtype == np.int32 and (np.bincount(sp) >= [300, 60, 512, 1500]).all()
    assert np.bincount(sp)[2] == 512 and np.bincount(sp)[:2].sum() == 512 and 0.15 < np.bincount(sp)[1] / 512 < 0.25
    assert set(a[:, 3]) == {0, 1} and (a[sp != 3, 3] == 1).all() and 0.005 < (a[:, 3] == 0).mean() < 0.02
    assert a[:, :3].min() > -0.01 and a[:, :3].max() < 1 and abs(inv_a2 * (3.905 * 8) ** 2 - 1) < 1e-6
    h = hkl.reshape(-1, 3).astype(np.int64)
    q = (h * h).sum(1)
    assert (h[0] == 0).all() and (np.diff(q) >= 0).all() and len({tuple(x) for x in h}) == len(h)
    assert len(h) == nn == len(inten)
    g = np.arange(-13, 14)
    all_q = (g[:, None, None] ** 2 + g[None, :, None] ** 2 + g[None, None, :] ** 2).ravel()
    assert (all_q < q[-1]).sum() <= len(h) <= (all_q <= q[-1]).sum()       # every reflection inside the shell
    f0 = tp._p116_xrd_f(np.zeros(1))[0]
    np.testing.assert_allclose(f0, [38, 57, 22, 8], atol=0.05)               # f(0) = Z
    syms = tp._p116_xrd_syms(0, rng)
    assert syms["c_cm"].shape == (36,) and syms["c_biso"].dtype == np.float32
    # eam: 1% vacancies, 54 listed sites a full shell set, the list symmetric and complete within rc
    n = 4 * 6 ** 3
    pos4, nbr, nnum, rho, emb, demb, box, *rest = tp._p116_eam_args(n, rng)
    na = rest[-1]
    assert na == len(nnum) == n - n // 100 == 856 and len(nbr) == 64 * na and nbr.dtype == np.int32
    assert len(tp._p116_eam_offsets()) == 54 and nnum.max() == 54 and 50 <= nnum.min() and nnum.mean() > 53
    lst = nbr.reshape(64, na).T
    pairs = {(i, int(j)) for i in range(na) for j in lst[i, :nnum[i]]}
    assert len(pairs) == nnum.sum() and all((j, i) in pairs for i, j in pairs) and all(i != j for i, j in pairs)
    p = pos4.reshape(-1, 4)[:, :3].astype(np.float64)
    d = _min_image(p[:, None], p[None], float(box))
    r = np.sqrt((d * d).sum(-1))
    close = {(int(i), int(j)) for i, j in zip(*np.nonzero(r < tp.P116_EAM_RC)) if i != j}
    assert close <= pairs                                                    # every pair within rc is listed
    lr = np.array([r[i, j] for i, j in pairs])
    assert 0.7 < (lr < tp.P116_EAM_RC).mean() < 0.85 and lr.min() > 1.8
    # kmc: Fe and Cu hops, 2% blocked, a pick that walks half the events on average
    n = 1 << 13
    E, t, ev, nu, ikt, seed, nn = tp._p116_kmc_args(n, rng)
    Em = E.reshape(n, 64)
    assert E.dtype == np.float32 and (ev == -1).all() and t.max() <= 1e-6 and abs(ikt - 19.34) < 0.01
    assert abs((Em == 10).mean() - 0.02) < 0.003
    op = Em[Em < 10]                                                         # 85% Fe at 0.65, 15% Cu at 0.50, +- 0.05
    assert abs(op.mean() - 0.6275) < 0.003 and abs(op.std() - np.sqrt(0.05 ** 2 + 0.15 * 0.85 * 0.15 ** 2)) < 0.003
    k, dt, gap = tp._p116_kmc_ref(E)
    trips = k + 1
    assert 28 < trips.mean() < 36 and trips.reshape(-1, 32).max(1).mean() > 1.7 * trips.mean()
    assert (Em[np.arange(n), k] < 10).all() and 1e-12 < dt.mean() < 1e-9
    # allen-cahn: domains of +-1, both phases, thin interfaces
    phi = tp._p116_ac_args(256, rng)[0].reshape(256, 256)
    assert phi.dtype == np.float64 and np.abs(phi).max() < 1
    assert 0.25 < (phi > 0).mean() < 0.75 and 0.1 < (np.abs(phi) < 0.5).mean() < 0.25       # domains 16 modes wide
    assert 0.6 < np.abs(np.diff(phi, axis=1)).max() < 1                     # interfaces ~2 cells wide
    # msd: a quarter of the ions diffusing (MSD linear in the lag), the framework vibrating
    n = 4096
    tr, mob = tp._p116_msd_traj(n, rng)
    traj4, sums, nn, fr = tp._p116_msd_args(n, rng)
    assert traj4.dtype == np.float32 and len(traj4) == 4 * 64 * n and len(sums) == 32 and fr == 64
    assert abs(mob.mean() - 0.25) < 0.03
    m1 = ((tr[8:, mob] - tr[:-8, mob]) ** 2).sum(-1).mean()
    m0 = ((tr[8:, ~mob] - tr[:-8, ~mob]) ** 2).sum(-1).mean()
    assert abs(m1 / (3 * 0.09 * 8) - 1) < 0.1 and abs(m0 / (6 * 0.01) - 1) < 0.1


# ---- rdf-cell-list-atomic ----

def test_rdf_cells():
    n = 4 * 5 ** 3                                          # box 8, 3^3 cells: every image once; 4 blocks, one partial
    host, (pos, start, hist, box, cell, ncell, *_), *_ = launch("probe/rdf-cell-list-atomic", n)
    assert ncell == 3
    ref, near = tp._p116_rdf_ref(host[0], box)
    assert hist.sum() == ref.sum() and ref.sum() > 50 * n
    assert np.abs(hist.astype(np.int64) - ref).sum() <= 2 * near
    if near == 0:
        assert (hist == ref).all()


# ---- xrd-perovskite-sf-smem ----

@pytest.mark.parametrize("sup, n, policy", [(3, 300, "lockstep"), (4, 100, "random")])
def test_xrd(sup, n, policy):
    # 135 atoms (a partial tile), 320 cut to 260 (a full tile and a partial one of 4); the last
    # (or only) block partial
    rng = np.random.default_rng(sup)
    host = tp._p116_xrd_args(n, rng, sup=sup)
    if sup == 4:
        host[0], host[1], host[2] = host[0][:4 * 260].copy(), host[1][:260].copy(), np.int32(260)
    out = run("probe/xrd-perovskite-sf-smem", host, n, policy=policy, symbols=tp._p116_xrd_syms(n, rng))
    I, scale = tp._p116_xrd_ref(host[0], host[1], host[3], host[4])
    np.testing.assert_allclose(np.sqrt(out[5]), np.sqrt(I), rtol=0, atol=1e-5 * scale.max())
    f0 = tp._p116_xrd_f(np.zeros(1))[0][host[1]] * host[0].reshape(-1, 4)[:, 3]
    assert abs(out[5][0] / f0.sum() ** 2 - 1) < 1e-5                       # F(000): every atom in phase
    h = host[3].reshape(-1, 3)
    j = [np.flatnonzero((h == -x).all(1))[0] for x in h[1:n // 2]]
    np.testing.assert_allclose(out[5][1:n // 2], out[5][j], rtol=1e-3, atol=1e-3 * scale.max())   # Friedel's law


# ---- eam-density-nlist-colmajor ----

def test_eam_density():
    n = 4 * 6 ** 3                                          # 856 atoms: 7 blocks, the last partial
    host, (pos, nbr, nnum, rho, emb, demb, box, *_), *_ = launch("probe/eam-density-nlist-colmajor", n)
    r, e, de, gap = tp._p116_eam_ref(host[0], host[1], host[2], box)
    np.testing.assert_allclose(rho, r, rtol=2e-6)
    np.testing.assert_allclose(emb, e, rtol=2e-6)
    np.testing.assert_allclose(demb, de, rtol=2e-6)
    assert 9 < r.min() and r.max() < 17 and r.std() > 0.1


def test_eam_empty_and_cut():
    # an isolated atom (no neighbours: rho 0, F' -inf) and one whose neighbours all sit past rc
    rng = np.random.default_rng(3)
    n = 4 * 5 ** 3
    host = tp._p116_eam_args(n, rng)
    host[2][0] = 0
    p = host[0].reshape(-1, 4)
    nb = host[1].reshape(64, -1)[:, 1]
    far = nb[:host[2][1]]
    p[far, :3] = (p[1, :3] + 4.96).astype(np.float32) % host[6]             # all at r = 4.96 sqrt(3) > rc
    out = run("probe/eam-density-nlist-colmajor", host, n)
    with np.errstate(divide="ignore"):
        r, e, de, gap = tp._p116_eam_ref(host[0], host[1], host[2], host[6])
    assert out[3][0] == 0 and out[4][0] == 0 and out[5][0] == -np.inf
    assert out[3][1] == 0
    ok = (r > 0) & (np.arange(len(r)) > 1)
    np.testing.assert_allclose(out[3][ok], r[ok], rtol=2e-6)


# ---- kmc-nfold-select-rowmajor ----

def test_kmc_select():
    n = 300                                                 # 2 blocks, the last partial
    host, (E, t, ev, *_), *_ = launch("probe/kmc-nfold-select-rowmajor", n)
    k, dt, gap = tp._p116_kmc_ref(host[0])
    assert gap > 1e-5
    assert (ev == k).all() and len(set(ev)) > 40
    np.testing.assert_allclose(t, host[1] + dt, rtol=1e-6)


def test_kmc_edge_cases():
    # clocks from 0; replica 0 with one open hop (the last), replica 1 with one (the first),
    # replica 2 with all hops equal (the pick u1 x 64)
    rng = np.random.default_rng(4)
    n = 40
    host = tp._p116_kmc_args(n, rng)
    host[1][:] = 0
    E = host[0].reshape(n, 64)
    E[0] = 10.0
    E[0, 63] = 0.6
    E[1] = 10.0
    E[1, 0] = 0.6
    E[2] = 0.5
    out = run("probe/kmc-nfold-select-rowmajor", host, n)
    k, dt, gap = tp._p116_kmc_ref(host[0])
    assert out[2][0] == 63 and out[2][1] == 0 and (out[2] == k).all()
    np.testing.assert_allclose(out[1], dt, rtol=1e-5)
    u1 = (tp._p116_pcg(np.uint32(tp.P116_KMC_SEED) + np.uint32(4)) >> np.uint32(8)) / 16777216.0
    assert out[2][2] == int(u1 * 64)


# ---- allen-cahn-tile-double ----

@pytest.mark.parametrize("n, policy", [(48, "lockstep"), (32, "random")])
def test_allen_cahn(n, policy):
    host, (phi, new, *_), *_ = launch("probe/allen-cahn-tile-double", n, policy=policy)
    ref = tp._p116_ac_ref(host[0], n)
    np.testing.assert_allclose(new, ref, rtol=0, atol=1e-14)
    assert (phi == host[0]).all() and np.abs(new - phi).max() > 1e-3


def test_allen_cahn_uniform():
    # phi = +-1 and 0 are fixed points; a single +1 cell in -1 shrinks
    n = 32
    host = tp._p116_ac_args(n, np.random.default_rng(0))
    host[0][:] = -1.0
    host[0][5 * n + 31] = 1.0                               # on the wrapped edge
    out = run("probe/allen-cahn-tile-double", host, n)
    ref = tp._p116_ac_ref(host[0], n)
    np.testing.assert_allclose(out[1], ref, rtol=0, atol=1e-15)
    assert out[1][5 * n + 31] < 1 and out[1][5 * n] > -1 and out[1][5 * n + 30] > -1   # periodic neighbours


# ---- msd-lag-tree-atomic ----

def test_msd():
    n = 300                                                 # 2 x 32 blocks, the second partial
    host, (traj, sums, *_), *_ = launch("probe/msd-lag-tree-atomic", n)
    ref = tp._p116_msd_ref(host[0], n)
    np.testing.assert_allclose(sums, ref, rtol=1e-6)
    msd = sums / (n * (64 - np.arange(1, 33)))
    assert (np.diff(msd) > 0).all()                         # diffusive: growing with the lag


def test_msd_short_trajectory():
    # 12 frames, warps interleaved at random: lags 12 .. 32 have no origin (their sums stay 0)
    rng = np.random.default_rng(5)
    n, fr = 100, 12
    tr, _ = tp._p116_msd_traj(n, rng, frames=fr)
    host = [tp._u69_float4(tr.reshape(-1, 3)), np.zeros(32), np.int32(n), np.int32(fr)]
    out = run("probe/msd-lag-tree-atomic", host, n, policy="random")
    ref = tp._p116_msd_ref(host[0], n, frames=fr)
    np.testing.assert_allclose(out[1], ref, rtol=1e-6)
    assert (out[1][11:] == 0).all() and (out[1][:11] > 0).all()
