"""probe-unseen94's kernels (kernels_cuda/probes96.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import dataclasses

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import _run, launch, run

IDS = ["probe/plummer-direct-accpot", "probe/cic-mass-deposit-3d", "probe/pm-cic-force-gather",
       "probe/fof-cell-minlabel", "probe/pk-shell-smem-hist", "probe/leapfrog-kd-ekin"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen94"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes96.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def neighbourhood(p, nc):
    """Each particle's candidates in fof_link_step: the particles of the 27 cells around its own."""
    c = np.minimum((p * np.float32(nc)).astype(np.int64), nc - 1)
    occ = np.zeros((nc, nc, nc), np.int64)
    np.add.at(occ, (c[:, 2], c[:, 1], c[:, 0]), 1)
    nb = sum(np.roll(occ, (a, b, d), (0, 1, 2)) for a in (-1, 0, 1) for b in (-1, 0, 1) for d in (-1, 0, 1))
    return occ, nb[c[:, 2], c[:, 1], c[:, 0]]


def test_data():
    rng = np.random.default_rng(0)
    # the Plummer sphere: mass 1, half-mass radius 1 / sqrt(2^(2/3) - 1) = 1.305, cut at 20
    x, y, z, m, *rest = tp._p96_plummer_args(1 << 14, rng)
    r = np.sqrt(x.astype(np.float64) ** 2 + y ** 2 + z ** 2)
    assert x.dtype == np.float32 and abs(m.sum() - 1) < 1e-4 and r.max() <= tp.P96_NB_RMAX
    assert abs(np.median(r) - 1.305) < 0.05 and abs(x.mean()) < 0.05
    assert rest[-3] == 1 and rest[-2] == np.float32(tp.P96_NB_EPS ** 2) and rest[-1] == 1 << 14
    # clustered positions: in [0, 1), counts in cells far from Poisson; in fof's cells (0.6
    # mean separations) ~86% empty, tens of candidates a particle, a few hundred at most in
    # a halo's core (the sweep's longest loops)
    n = 1 << 15
    p = tp._p96_clustered(n, rng)
    assert p.dtype == np.float32 and p.min() >= 0 and p.max() < 1 and abs(p.mean() - 0.5) < 0.02
    occ = neighbourhood(p, 32)[0]
    assert occ.var() / occ.mean() > 5 and (occ == 0).mean() > 0.45             # Poisson: 0.37 empty
    nc = tp._p96_fof_ncell(n)
    occ, nb = neighbourhood(p, nc)
    assert nc == 53 and 0.82 < (occ == 0).mean() < 0.9 and 20 < nb.mean() < 80 and 150 < nb.max() < 1000
    # cic: a mean density of 1 on the mesh
    cx, cy, cz, rho, pm, ng, nn = tp._p96_cic_args(n, rng, ng=32)
    assert rho.shape == (32 ** 3,) and pm == np.float32(32 ** 3 / n) and ng == 32 and nn == n
    d = tp._p96_cic_ref(cx, cy, cz, pm, 32)
    assert abs(d.mean() - 1) < 1e-6 and d.max() > 20
    # pm: the mesh's acceleration is minus the potential's gradient: -div g follows the
    # density contrast (4 pi G = 1) and points into the halos
    a = tp._p96_pm_args(n, rng, ng=32)
    gx, gy, gz = (g.reshape(32, 32, 32).astype(np.float64) for g in a[3:6])
    div = sum((np.roll(g, -1, ax) - np.roll(g, 1, ax)) * 16 for g, ax in ((gx, 2), (gy, 1), (gz, 0)))
    delta = tp._p96_cic_ref(*a[:3], 32 ** 3 / n, 32).reshape(32, 32, 32) - 1
    assert np.corrcoef(-div.ravel(), delta.ravel())[0, 1] > 0.3 and abs(gx.mean()) < 1e-6
    # fof: sorted by cell, the cells' ranges, b = 0.2 mean separations, first-sweep labels
    px, py, pz, start, end, lab, lo, ch, b2, nc, nn = tp._p96_fof_args(4096, rng)
    assert nc == 26 and abs(np.sqrt(b2) - 0.2 / 16) < 1e-6 and (lab == np.arange(4096)).all()
    assert 1 / nc > np.sqrt(b2)                                                   # cells wider than b
    c = np.minimum((np.stack([px, py, pz], 1) * np.float32(nc)).astype(np.int64), nc - 1)
    cid = (c[:, 2] * nc + c[:, 1]) * nc + c[:, 0]
    assert (np.diff(cid) >= 0).all()
    full = start >= 0
    assert (end[~full] == 0).all() and (end[full] - start[full]).sum() == 4096
    assert (cid[start[full]] == np.flatnonzero(full)).all() and (cid[end[full] - 1] == np.flatnonzero(full)).all()
    new, gap = tp._p96_fof_ref(px, py, pz, lab, b2)
    assert 0.08 < (new < lab).mean() < 0.3 and gap > 1e-5
    # pk: the shells' mean power follows the model
    dk, pk, nm, ng, nb_ = tp._p96_pk_args(64, rng)
    assert dk.dtype == np.float32 and len(dk) == 2 * 64 * 64 * 33 and nb_ == 32 and dk[:2].tolist() == [0, 0]
    P, W = tp._p96_pk_ref(dk, 64, 32)
    k = np.arange(8, 32)
    assert np.abs(P[8:] / W[8:] / tp._p96_pk_model(k) - 1).max() < 0.1
    # leapfrog: masses mean ~1; a few particles cross the box's faces in one step
    pos, vel, acc, ek, dt, box, nn = tp._p96_lf_args(1 << 16, rng)
    P4 = pos.reshape(-1, 4)
    assert P4[:, :3].min() >= 0 and P4[:, :3].max() < 1 and abs(P4[:, 3].mean() - 1) < 0.02
    assert (vel.reshape(-1, 4)[:, 3] == 0).all() and dt == np.float32(0.01)
    pn = tp._p96_lf_ref(pos, vel, acc)[0]
    moved = P4[:, :3] + dt * (vel.reshape(-1, 4)[:, :3] + dt * acc.reshape(-1, 4)[:, :3])
    assert 10 < ((moved < 0) | (moved >= 1)).sum() < 500 and pn[:, :3].max() < 1


# ---- plummer-direct-accpot ----

def test_nbody_accel_pot():
    n = 300                                                 # 3 tiles, the last partial
    host, out, *_ = launch("probe/plummer-direct-accpot", n)
    ref = tp._p96_nbody_ref(*host[:4], G=host[8], eps2=host[9])
    for got, want in zip(out[4:8], ref):
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-5 * np.abs(want).max())
    assert (out[7] < 0).all() and (out[0] == host[0]).all()


def test_nbody_softening_and_g():
    # two bodies 0.1 apart: the softened pair force, G scaling it, the self term left out
    host = tp._p96_plummer_args(2, np.random.default_rng(1))
    host[0][:], host[1][:], host[2][:] = [0, 0.1], [0, 0], [0, 0]
    host[3][:] = [2.0, 3.0]
    host[8], host[9] = np.float32(0.5), np.float32(0.01)
    out = run("probe/plummer-direct-accpot", host, 2)
    s = 0.1 ** 2 + 0.01
    np.testing.assert_allclose(out[4], [0.5 * 3 * 0.1 / s ** 1.5, -0.5 * 2 * 0.1 / s ** 1.5], rtol=1e-5)
    np.testing.assert_allclose(out[7], [-0.5 * 3 / s ** 0.5, -0.5 * 2 / s ** 0.5], rtol=1e-5)
    assert (out[5] == 0).all() and (out[6] == 0).all()


# ---- cic-mass-deposit-3d ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_cic_deposit(policy):
    n = 3000                                                # 12 blocks, the last partial
    host = tp._p96_cic_args(n, np.random.default_rng(2), ng=16)
    host[0][:3] = [0.0, 0.999, 1 / 32]                      # the wraps below 0 and above ng - 1
    out = run("probe/cic-mass-deposit-3d", host, n, policy=policy)
    ref = tp._p96_cic_ref(*host[:3], host[4], 16)
    np.testing.assert_allclose(out[3], ref, rtol=1e-5, atol=1e-5 * float(host[4]))
    assert abs(out[3].astype(np.float64).sum() - n * float(host[4])) < 1e-3 * n * float(host[4])
    assert out[3].max() > 10 * out[3].mean()                 # halos


# ---- pm-cic-force-gather ----

def test_pm_interp():
    n = 3000
    host = tp._p96_pm_args(n, np.random.default_rng(3), ng=16)
    host[0][:3] = [0.0, 0.999, 1 / 32]                      # the wraps, and particle 2 at a cell's centre
    host[1][2], host[2][2] = 3 / 32, 5 / 32
    out = run("probe/pm-cic-force-gather", host, n)
    for got, want in zip(out[6:9], tp._p96_pm_ref(*host[:6], 16)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * np.abs(want).max())
    c = (2 * 16 + 1) * 16 + 0                               # a cell centre: the mesh's values themselves
    assert [out[6][2], out[7][2], out[8][2]] == [host[3][c], host[4][c], host[5][c]]


# ---- fof-cell-minlabel ----

def fof_check(host, out):
    new, gap = tp._p96_fof_ref(host[0], host[1], host[2], host[5], host[8])
    assert gap > 1e-5
    assert (out[6] == new).all() and out[7][0] == (new < host[5]).sum()
    assert (out[5] == host[5]).all()
    return new


def test_fof_first_sweep():
    n = 1024                                                # 4 blocks, 16^3 cells
    host, out, *_ = launch("probe/fof-cell-minlabel", n)
    new = fof_check(host, out)
    assert 0.05 < (new < host[5]).mean() < 0.4


def test_fof_later_sweep():
    # a later sweep: labels already propagated once, in a partial block and with a
    # permutation of labels that are not the indices (min over friends still)
    n = 1000
    rng = np.random.default_rng(4)
    host = tp._p96_fof_args(n, rng)
    host[5] = rng.permutation(n).astype(np.int32)
    first = tp._p96_fof_ref(host[0], host[1], host[2], host[5], host[8])[0].astype(np.int32)
    host[5] = first
    out = run("probe/fof-cell-minlabel", host, n)
    new = fof_check(host, out)
    assert (new <= first).all() and (new < first).any()


# ---- pk-shell-smem-hist ----

@pytest.mark.parametrize("policy, ng", [("lockstep", 32), ("random", 16)])
def test_pk_shells(policy, ng):
    # 32 x 32 x 17 modes in 68 blocks (16 x 16 x 9 in 9 under the random policy)
    host, out, *_ = launch("probe/pk-shell-smem-hist", ng, policy=policy)
    P, W = tp._p96_pk_ref(host[0], ng, ng // 2)
    assert (out[2] == W).all() and out[2][0] == 0
    np.testing.assert_allclose(out[1], P, rtol=2e-5)


def test_pk_grid_stride():
    # a grid of 3 blocks walking all 24 x 24 x 13 modes (~10 a thread), nbins below ng / 2
    ng = 24
    p = dataclasses.replace(tp.get("probe/pk-shell-smem-hist"), grid=lambda n: 3)
    host = tp._p96_pk_args(ng, np.random.default_rng(5))
    host[4] = np.int32(9)
    out = _run(p, host, {}, ng, 0, "lockstep")[0]
    P, W = tp._p96_pk_ref(host[0], ng, 9)
    assert (out[2][:9] == W).all() and (out[2][9:] == 0).all() and (out[1][9:] == 0).all()
    np.testing.assert_allclose(out[1][:9], P, rtol=2e-5)
    # the shells' weights count the full grid's modes: (int)(|k| + 0.5) over all ng^3
    k = np.fft.fftfreq(ng, 1 / ng)
    b = np.rint(np.sqrt(k[:, None, None] ** 2 + k[None, :, None] ** 2 + k[None, None, :] ** 2) + 1e-9)
    assert (W[1:] == np.bincount(b.astype(int).ravel(), minlength=9)[1:9]).all()


# ---- leapfrog-kd-ekin ----

def test_leapfrog():
    n = 1000                                                # 4 blocks, the last partial
    host = tp._p96_lf_args(n, np.random.default_rng(6))
    P, V, A = (h.reshape(-1, 4) for h in host[:3])
    P[:4, 0] = [0.0, 0.9999, 0.5, 0.5]                      # across both faces
    V[:4, 0] = [-0.05, 0.05, 0.0, 0.0]
    A[:4, 0] = 0
    out = run("probe/leapfrog-kd-ekin", [h.copy() if isinstance(h, np.ndarray) else h for h in host], n,
              policy="random")
    p, v, e = tp._p96_lf_ref(*host[:3])
    np.testing.assert_allclose(out[1].reshape(-1, 4), v, rtol=0, atol=1e-7)
    d = out[0].reshape(-1, 4)[:, :3] - p[:, :3]
    assert np.abs(d - np.rint(d)).max() < 1e-6 and (out[0].reshape(-1, 4)[:, 3] == P[:, 3]).all()
    assert out[0][0] == pytest.approx(1 - 0.0005, abs=1e-6) and out[0][4] == pytest.approx(0.0004, abs=1e-6)
    q = out[0].reshape(-1, 4)[:, :3]
    assert q.min() >= 0 and q.max() <= 1
    assert out[3][0] == pytest.approx(e, rel=2e-5)
