"""probe-unseen160's kernels (kernels_cuda/probes162.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import dataclasses

import numpy as np
import pytest

import probe_launch
from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/contact-freq-traj-smem", "probe/qcp-rmsd-warp-newton", "probe/rama-hist-smem-atomic",
       "probe/sasa-shrake-cells-local", "probe/dssp-hbond-best2", "probe/pb-rbsor-double"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen160"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes162.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # C-alpha traces: 3.8 A bonds, domains as compact as globular proteins, few clashes
    x, dom = tp._p162_trace(600, rng)
    assert np.allclose(np.linalg.norm(np.diff(x, axis=0), axis=1), 3.8) and dom.max() >= 2
    for k in range(dom.max() + 1):
        y = x[dom == k]
        assert 0.8 < np.sqrt(((y - y.mean(axis=0)) ** 2).sum(axis=1).mean()) / (2.2 * len(y) ** 0.38) < 1.25
    d = np.linalg.norm(x[:, None] - x[None], axis=-1)
    sep = np.abs(np.subtract.outer(np.arange(600), np.arange(600)))
    assert (np.where(sep >= 2, d, 99).min(axis=1) < 4).mean() < 0.15 and 5 < ((d < 8) & (sep >= 3)).sum() / 600 < 12
    # the trajectory: RMSFs of an MD run, frames correlated in time
    T = tp._p162_cf_traj(300, 400, rng).astype(np.float64)
    dv = T - T.mean(axis=0)
    assert 0.8 < np.median(np.sqrt((dv ** 2).sum(axis=2).mean(axis=0))) < 1.8
    corr = lambda a, b: (a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum())
    assert np.mean([corr(dv[f], dv[f + 1]) for f in range(399)]) > 0.4 > np.mean([corr(dv[f], dv[f + 200])
                                                                                  for f in range(199)])
    # frames for the RMSD: lognormal deviations about 2 A, turned and shifted anywhere in the box
    xyz, ref, _, na, n, g = tp._p162_qr_args(3000, rng, natoms=120)
    r = tp._p162_qr_ref(xyz, ref, 120)
    assert abs(np.median(r) / tp.P162_QR_DEV[0] - 1) < 0.05 and abs(np.log(r).std() - tp.P162_QR_DEV[1]) < 0.03
    assert np.abs(ref.reshape(-1, 3).mean(axis=0)).max() < 1e-4 and np.isclose(g, (ref.astype(np.float64) ** 2).sum())
    c = xyz.reshape(n, na, 3).mean(axis=1)
    assert c.min() > -1 and c.max() < 81 and np.abs(np.corrcoef(c[:-1, 0], c[1:, 0])[0, 1]) < 0.1
    # PDB chains: the torsions drawn are those of the coordinates (where defined), the
    # Ramachandran regions and classes with PDB's shares, chains cut by missing residues
    X, chain, cls, phi, psi = tp._p162_rh_backbone(50000, rng)
    X = X.astype(np.float64)
    i = np.arange(1, len(X) - 1)
    bond = lambda a, b: np.linalg.norm(a - b, axis=1)
    ok = (chain[i - 1] == chain[i]) & (bond(X[i - 1, 2], X[i, 0]) < 2)
    got = tp._p162_dihedrals(X[i - 1, 2], X[i, 0], X[i, 1], X[i, 2])
    assert ok.mean() > 0.98 and np.abs((got - phi[i] + 180) % 360 - 180)[ok].max() < 0.01
    gap = (chain[i - 1] == chain[i]) & (bond(X[i - 1, 2], X[i, 0]) > 3)
    assert 80 < gap.sum() < 250 and np.allclose(bond(X[:, 0], X[:, 1]), 1.458, atol=1e-4)
    L = np.bincount(chain)
    assert 120 < np.median(L[L > 0]) < 220 and L.max() <= tp.P162_RH_CHAIN[3]
    share = np.bincount(cls, minlength=4) / len(cls)
    assert abs(share[1] - 0.07) < 0.01 and abs(share[2] - 0.045) < 0.01 and abs(share[3] - 0.042) < 0.01
    helix = (phi > -90) & (phi < -35) & (psi > -70) & (psi < -10)
    assert 0.4 < helix.mean() < 0.55 and 0.15 < ((phi < -90) & (psi > 90)).mean() < 0.3
    assert (phi[cls == 1] > 0).mean() > 0.25 > (phi[cls == 0] > 0).mean() and (phi[cls == 2] < 0).mean() > 0.99
    # the sphere's points cover it evenly; the capsid's cell list is consistent
    s = tp._p162_sr_sphere().astype(np.float64)
    dd = np.linalg.norm(s[:, None] - s[None], axis=-1) + 9 * np.eye(96)
    assert np.allclose(np.linalg.norm(s, axis=1), 1, atol=1e-6) and dd.min() > 0.3 and abs(s.sum(0)).max() < 0.1
    a = tp._p162_sr_args(60000, rng)
    A, start = a[0].reshape(-1, 4), a[1]
    cell = tp._p162_sr_cells(A[:, :3])[2]
    assert (np.diff(start) >= 0).all() and start[-1] == len(A) and (np.diff(cell) >= 0).all()
    assert (start[cell] <= np.arange(len(A))).all() and (np.arange(len(A)) < start[cell + 1]).all()
    assert np.allclose(np.unique(A[:, 3]), [1.52, 1.55, 1.7, 1.8])
    r = np.linalg.norm(A[:, :3].astype(np.float64) - A[:, :3].mean(axis=0), axis=1)
    assert r.min() > 0.4 * r.max()                                         # a hollow shell
    k = rng.choice(len(A), 150, replace=False)
    D = np.linalg.norm(A[k, None, :3] - A[None, :, :3], axis=-1)
    nb = (D < A[k, 3, None] + A[None, :, 3] + 2.8).sum(axis=1) - 1
    assert nb.max() < tp.P162_SR_MAXNB and 25 < np.median(nb) < 50 and np.median(np.sort(D, axis=1)[:, 1]) > 1.2
    # the helical bundle: native helices' i -> i - 4 hydrogen bonds, prolines in loops only
    X, pro = tp._p162_ds_native(384, rng)
    r = np.zeros(384, tp.P162_DS_DTYPE)
    for j, k in enumerate(("n", "ca", "c", "o")):
        r[k] = X[:, j]
    E = tp._p162_ds_energies(r, pro, 384)[0][0]
    j = np.arange(4, 384)
    best = np.argmin(E, axis=1)
    assert (E[j, j - 4] < -0.5).mean() > 0.65 and (best == np.arange(384) - 4).mean() > 0.6
    assert 10 < np.isfinite(E).sum() / 384 < 20 and 0.04 < pro.mean() < 0.1
    ca = X[:, 1]
    assert np.ptp(ca, axis=0).max() < 60 and (np.linalg.norm(ca[:, None] - ca[None], axis=-1) < 9).sum() / 384 > 12
    # the PBE grid: protein and water dielectrics, ions kept out near atoms, the charges spread
    phi, ex, ey, ez, k2, q, *_ = tp._p162_pb_args(65, rng)
    ep, ew = tp.P162_PB_EPS
    assert set(np.unique(ex)) <= {np.float32(ep), np.float32(ew), np.float32(2 * ep * ew / (ep + ew))}
    assert 0.01 < (ex < 10).mean() < 0.06 and ((ex < 10) <= (k2 == 0)).all() and 0.05 < (k2 == 0).mean() < 0.2
    assert abs(q.sum() - np.rint(q.sum())) < 1e-3 and abs(q.sum()) < 20 and (q != 0).mean() < 0.05
    assert np.allclose(np.unique(k2[k2 > 0]), ew * tp.P162_PB_KAPPA ** 2 * (112 / 64) ** 2)


# ---- contact-freq-traj-smem ----

@pytest.mark.parametrize("n, seed, policy", [(20, 4, "lockstep"), (12, 3, "random")])
def test_contact_freq(n, seed, policy):
    frames = 6                                              # 20: 2 x 2 tiles, the last ones partial
    rng = np.random.default_rng(seed)
    h = tp._p162_cf_args(n, rng, frames=frames)
    out = run("probe/contact-freq-traj-smem", h, n, policy=policy)
    cnt, margin = tp._p162_cf_ref(h[0], n, frames)
    # float32 coordinates of up to ~100 A put d^2 within ~6e-5 A^2 of float64's near the
    # cutoff: with no pair within 1e-4 A^2 of it, they agree on every pair
    assert margin > 1e-4 and (out[1] == (cnt / np.float32(frames)).astype(np.float32).ravel()).all()
    assert ((cnt > 0) & (cnt < frames)).any() and (cnt == frames).any()


def test_contact_freq_line():
    # residues on a line 2 A apart: |i - j| = 3 (6 A) in contact, 4 exactly at the cutoff
    # (8 A, not under it); 1 and 2 too close along the chain; a second frame stretched x 10
    n = 19
    x = np.zeros((2, n, 3), np.float32)
    x[0, :, 0] = 2 * np.arange(n)
    x[1, :, 0] = 20 * np.arange(n)
    h = [x.ravel(), np.zeros(n * n, np.float32), np.int32(n), np.int32(2), np.float32(8), np.int32(3)]
    f = run("probe/contact-freq-traj-smem", h, n)[1].reshape(n, n)
    sep = np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
    assert (f == np.where(sep == 3, 0.5, 0)).all()


# ---- qcp-rmsd-warp-newton ----

@pytest.mark.parametrize("n, natoms, policy", [(7, 300, "lockstep"), (2, 40, "random")])
def test_qcp_rmsd(n, natoms, policy):
    # 7 frames: 2 blocks of 4 warps, the last partial; 40 atoms: lanes with 1 or 2
    rng = np.random.default_rng(1)
    h = tp._p162_qr_args(n, rng, natoms=natoms)
    ref = h[1].reshape(natoms, 3).astype(np.float64)
    R = tp._p162_rotations(2, rng)
    # a turned copy of the reference (RMSD 0) and a turned mirror image (no proper rotation fits)
    special = [ref @ R[0].T + 60, (ref * [1, 1, -1]) @ R[1].T + 10]
    h[0] = np.concatenate([h[0], np.float32(special).ravel()])
    h[2], h[4] = np.zeros(n + 2, np.float32), np.int32(n + 2)
    out = run("probe/qcp-rmsd-warp-newton", h, n + 2, policy=policy)[2]
    rmsd = tp._p162_qr_ref(h[0], h[1], natoms)
    # float32 sums over the atoms: G_x, G_y and the inner products carry relative errors of
    # ~1e-7, and E = G_x + G_y - 2 lambda cancels them: |natoms (out^2 - rmsd^2)| stays
    # within 1e-6 (G_x + G_y) (for 300 atoms: 0.02 A at RMSD 0, 3e-4 A at 1 A)
    G = 2 * (ref ** 2).sum()
    assert (np.abs(natoms * (out.astype(np.float64) ** 2 - rmsd ** 2)) <= 1e-6 * G).all()
    assert out[n] < 0.01 and rmsd[n + 1] > 3 and 0.5 < rmsd[:n].min()


# ---- rama-hist-smem-atomic ----

@pytest.mark.parametrize("n, seed, policy", [(1500, 4, "lockstep"), (200, 0, "random")])
def test_rama_hist(n, seed, policy):
    # 1500: 6 blocks of 256, the last partial (the grid-stride loop's later trips: below)
    host, out, *_ = launch("probe/rama-hist-smem-atomic", n, seed=seed, policy=policy)
    ref, edge = tp._p162_rh_ref(*host[:3])
    # float32 dihedrals here are within 3e-5 degrees of float64's (the most over 200k
    # residues): the bins agree unless an angle is within 2e-4 degrees of a bin edge
    assert edge > 2e-4 and (out[3] == ref).all()
    h = ref.reshape(4, 36, 36)
    assert ref.sum() > 0.9 * n and h[1:].sum() > 0.08 * n and h[0].max() > 0.03 * n        # contended bins


def test_rama_hist_breaks():
    # a chain broken by a shifted stretch (missing residues) and a chain id changed: the
    # residues either side lose their phi or psi; a grid of 1 block loops 3 times
    n = 700
    h = tp._p162_rh_args(n, np.random.default_rng(6))
    before = tp._p162_rh_ref(*h[:3])[0].sum()
    X = h[0].reshape(n, 3, 3)
    X[300:] += np.float32(5.0)
    h[1][500:] += 1
    p = dataclasses.replace(tp.get("probe/rama-hist-smem-atomic"), grid=lambda n: 1)
    out = probe_launch._run(p, h, {}, n, 0, "lockstep")[0][3]
    ref, edge = tp._p162_rh_ref(*h[:3])
    assert edge > 2e-4 and (out == ref).all() and ref.sum() == before - 4
    assert tp.get("probe/rama-hist-smem-atomic").grid(1 << 22) == tp.P162_RH_GRID


# ---- sasa-shrake-cells-local ----

def test_sasa_shrake_rupley():
    # the 24 atoms nearest a subunit's most central one (in 6 cells), packed anew: a warp
    xyz, rad = tp._p162_sr_capsid(3000, np.random.default_rng(0))
    c = np.argmin(np.linalg.norm(xyz - xyz.mean(axis=0), axis=1))
    k = np.argsort(np.linalg.norm(xyz - xyz[c], axis=1))[:24]
    h = tp._p162_sr_pack(xyz[k].astype(np.float32), rad[k])
    syms = tp._p162_sr_syms(24, None)
    out = run("probe/sasa-shrake-cells-local", h, 24, symbols=syms)
    A = h[0].reshape(24, 4)
    exposed, nb, margin = tp._p162_sr_ref(h[0])
    unit = (4 * np.float32(np.pi) * (A[:, 3] + np.float32(1.4)) ** 2 / 96).astype(np.float64)
    got = out[9] / unit
    # float32 points ~20 A from the origin put d^2 within ~2e-5 A^2 of float64's: with no
    # point within 2e-4 A^2 of an atom's expanded sphere, they agree on every test
    assert margin > 2e-4 and nb.max() < tp.P162_SR_MAXNB and (np.diff(h[1]) > 0).sum() == 6
    assert np.abs(got - exposed).max() < 1e-3 and (exposed == 0).any() and (exposed > 40).any()
    # an isolated atom: its whole sphere; two touching ones: an exactly split pair of caps
    h = [np.float32([[0, 0, 0, 1.7], [40, 0, 0, 1.52], [40, 0, 0.5, 1.52]]).ravel(), np.int32([0, 1, 3]),
         np.int32(2), np.int32(1), np.int32(1), np.float32(-0.5), np.float32(-0.5), np.float32(-0.5),
         np.float32(39.5), np.zeros(3, np.float32), np.int32(3)]
    s = run("probe/sasa-shrake-cells-local", h, 3, symbols=syms)[9]
    ex = tp._p162_sr_ref(h[0])[0]
    assert ex[0] == 96 and abs(s[0] - 4 * np.pi * 3.1 ** 2) < 1e-3 and ex[1] == ex[2] and 40 < ex[1] < 96
    assert np.allclose(s[1:] / (4 * np.pi * 2.92 ** 2 / 96), ex[1:], atol=1e-3)


# ---- dssp-hbond-best2 ----

@pytest.mark.parametrize("L, frames, seed, policy", [(40, 2, 5, "lockstep"), (32, 1, 7, "random")])
def test_dssp_hbond(L, frames, seed, policy):
    n = L * frames                                          # 80: a warp across the frames' boundary
    h = tp._p162_ds_args(n, np.random.default_rng(seed), L=L)
    assert h[1].any()                                       # a proline donor
    out = run("probe/dssp-hbond-best2", h, n, policy=policy)
    E, margin = tp._p162_ds_energies(h[0], h[1], L)
    E = E.reshape(n, L)
    o = np.argsort(E, axis=1, kind="stable")[:, :2]
    e = np.take_along_axis(E, o, axis=1)
    acc = np.where(e < 0, o, -1)
    # float32 energies are within ~1e-5 kcal/mol of float64's: the two best are the same
    # acceptors unless their energies are that close (none here)
    srt = np.sort(np.where(np.isfinite(E), E, 0), axis=1)[:, :3]
    assert margin > 1e-3 and np.diff(srt, axis=1)[srt[:, 1:] < 0].min() > 1e-4
    # (the energies: float32 coordinates and distances, terms up to ~30 kcal/mol: ~1e-5)
    assert (out[2].reshape(n, 2) == acc).all() and np.allclose(out[3].reshape(n, 2), np.where(e < 0, e, 0), atol=5e-5)
    assert (acc[::L] == -1).all() and (acc[np.tile(h[1], frames) == 1] == -1).all() and (e < -0.5).mean() > 0.3


# ---- pb-rbsor-double ----

@pytest.mark.parametrize("n, policy", [(13, "lockstep"), (6, "random")])
def test_pb_rbsor(n, policy):
    # 13: a 1 x 2 x 13 grid of (32, 8) blocks; 6: an even side; red then black
    h = tp._p162_pb_args(n, np.random.default_rng(7))
    h[0] = h[0] + np.random.default_rng(8).normal(0, 1, n ** 3)          # an unconverged iterate
    ref = h[0]
    for parity in (0, 1):
        h[9] = np.int32(parity)
        prev = h[0]
        h[0] = run("probe/pb-rbsor-double", h, n, policy=policy)[0]
        ref = tp._p162_pb_ref(ref, *h[1:6], n, parity, h[10], h[11])
        # double against double in another order: a few ulps
        assert np.allclose(h[0], ref, rtol=1e-13, atol=1e-13)
        z, y, x = np.meshgrid(*[np.arange(n)] * 3, indexing="ij")
        inner = (np.minimum(np.minimum(x, y), z) > 0) & (np.maximum(np.maximum(x, y), z) < n - 1)
        colour = ((x + y + z) % 2 == parity) & inner
        assert ((h[0] != prev) == colour.ravel()).all()
    assert (h[5] != 0).any() and (h[1] < 10).any()
