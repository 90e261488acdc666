"""probe-unseen69's kernels (kernels_cuda/probes71.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/rdf-smem-hist", "probe/lj-nlist-const", "probe/ewald-sk-shfl", "probe/mc-trial-double",
       "probe/coulomb-grid-const", "probe/angle-harmonic-atomic"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen69"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes71.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def min_image(d, box):
    return d - box * np.rint(d / box)


def pair_r2(xyz, box):
    """All the pairs' squared minimum-image distances (the diagonal inf)."""
    d = min_image(xyz[None, :, :] - xyz[:, None, :], box)
    r2 = (d * d).sum(-1)
    np.fill_diagonal(r2, np.inf)
    return r2


def test_data():
    rng = np.random.default_rng(0)
    # the jittered lattice: in the box, at the density, no two atoms closer than 0.8 spacings
    for n in (1000, 1200):
        pos, box, m, sites = tp._u69_lattice(n, rng, 0.8)
        assert m ** 3 >= n > (m - 1) ** 3 and len(np.unique(sites)) == n and np.isclose(n / box ** 3, 0.8)
        assert pos.min() >= 0 and pos.max() < box and np.sqrt(pair_r2(pos, box).min()) > 0.8 * box / m
    p4, hist, box, inv_dr, rmax2, nn = tp._u69_rdf_args(1000, rng)
    assert p4.dtype == np.float32 and len(p4) == 4000 and (p4[3::4] == 0).all() and hist.dtype == np.uint32
    assert np.isclose(rmax2, (box / 2) ** 2) and np.isclose(inv_dr * box / 2, 256) and nn == 1000
    # the Verlet list: exactly the atoms within cutoff + skin, each once
    p4, nl, cnt, f, box, rc2, max_nb, nn = tp._u69_lj_args(1000, rng)
    xyz = p4.reshape(-1, 4)[:, :3].astype(np.float64)
    r2 = pair_r2(xyz, float(box))
    want = r2 < 2.8 ** 2
    nl = nl.reshape(1000, max_nb)
    assert (cnt == want.sum(1)).all() and 70 < cnt.mean() < 85 and cnt.max() <= 128 and np.isclose(rc2, 6.25)
    for i in range(0, 1000, 37):
        assert sorted(nl[i, :cnt[i]]) == list(np.flatnonzero(want[i])) and (nl[i, cnt[i]:] == 0).all()
    types = p4[3::4]
    assert set(np.unique(types)) == {0, 1, 2, 3} and 0.35 < (types == 0).mean() < 0.45 and (f == 0).all()
    t = tp._u69_lj_table()
    assert np.isclose(t["eps"][1], np.sqrt(0.8)) and np.isclose(t["sig2"][2 * 4 + 3], 0.975 ** 2)
    assert (t["eps"].reshape(4, 4) == t["eps"].reshape(4, 4).T).all() and t["sig2"][0] == 1
    # SPC/E water: neutral, the geometry kept through the wrap, the density
    xyz, q, box = tp._u69_water(300, rng)
    assert len(xyz) == 900 and abs(q.sum()) < 1e-9 and xyz.min() >= 0 and xyz.max() < box
    oh = min_image(xyz.reshape(300, 3, 3)[:, 1:] - xyz.reshape(300, 3, 3)[:, :1], box)
    assert np.allclose(np.linalg.norm(oh, axis=2), 1.0)
    cos = (oh[:, 0] * oh[:, 1]).sum(1)
    assert np.allclose(np.degrees(np.arccos(cos)), 109.47) and np.isclose(300 / box ** 3, 0.0334)
    # the k-vectors: within the cutoff, one of each +-k pair, by |k|
    kv = tp._u69_kvecs(box)
    k2 = (kv * kv).sum(1)
    assert (np.diff(k2) >= -1e-12).all() and k2.max() <= 1 and len(kv) == tp._u69_sk_nk(300)
    allk = np.round(np.r_[kv, -kv] * box / (2 * np.pi)).astype(int)
    assert len({tuple(k) for k in allk}) == 2 * len(kv)
    assert 0.2 < len(kv) / 300 < 0.3                                     # ~ kcut^3 / (12 pi^2 rho)
    xyzq, kvf, sk, na = tp._u69_sk_args(300, rng)
    assert na == 900 and len(kvf) == 4 * tp._u69_sk_nk(300) and abs(xyzq[3::4].sum()) < 1e-4
    # Monte Carlo: full lattices, displaced by at most delta, about half the moves accepted
    pos, who, new, rnd, acc, box, rc2, beta, na = tp._u69_mc_args(200, rng)
    P = pos.reshape(200, 512, 4)
    old = P[np.arange(200), who, :3]
    step = min_image(new.reshape(200, 4)[:, :3].astype(np.float64) - old, float(box))
    assert na == 512 and np.abs(step).max() <= 0.15 + 1e-5 and (acc == 0).all() and P[..., :3].max() < box
    assert new.max() < box and new.min() >= 0 and np.isclose(512 / box ** 3, 0.8) and np.isclose(beta, 1 / 1.2)
    de, ok, _ = mc_ref(pos, who, new, rnd, box, rc2, beta, na)
    assert 0.2 < ok.mean() < 0.6 and (de < 0).mean() > 0.15
    # the Coulomb grid: the water box in the table, the spacing covering it
    pot, sp, na, nx, ny, nz = tp._u69_dcs_args(32, rng)
    tab = tp._u69_dcs_syms(32, rng)["c_atoms"]
    assert na == 3900 and nx == ny == nz == 32 and len(pot) == 32 ** 3 and np.isclose(sp * 32, tp._u69_dcs_box())
    assert len(tab) == 4000 and (tab["w"][3900:] == 0).all() and abs(tab["w"].sum()) < 1e-3
    assert tab["x"][:3900].max() <= sp * 32 * 1.0001 and (tab["w"][:3900] != 0).all()
    # the copolymer melt: bonds of 0.97, angles about the type's theta0, chains in order
    pos, ang, box = tp._u69_polymer(300, rng)
    assert len(pos) == 300 * 64 and len(ang) == 300 * 62 and pos.min() >= 0 and pos.max() < box
    bond = np.linalg.norm(min_image(np.diff(pos.reshape(300, 64, 3), axis=1), box), axis=2)
    assert np.allclose(bond, 0.97)
    assert (ang[:, 1] == ang[:, 0] + 1).all() and (ang[:, 2] == ang[:, 1] + 1).all() and (ang[:, 1] % 64 != 0).all()
    th = np.degrees(angle_ref(tp._u69_float4(pos), ang.ravel(), box, tp._u69_ang_table())[2])
    for t in range(4):
        assert abs(th[ang[:, 3] == t].mean() - tp.U69_ANG_THETA0[t]) < 1.5
    assert th.min() >= 60 - 1e-3 and th.max() <= 178 + 1e-3 and 0.3 < (ang[:, 3] == 1).mean() < 0.45
    p4, a4, f, e, box, nn = tp._u69_ang_args(1000, rng)
    assert len(a4) == 4000 and len(p4) == 4 * 17 * 64 and len(f) == 3 * 17 * 64 and len(e) == 1000
    assert a4.reshape(-1, 4)[:, 2].max() < 17 * 64


# ---- rdf-smem-hist ----

def rdf_ref(p4, box, inv_dr, rmax2, bins=256):
    """(the histogram, the ordered pairs within float32 rounding of a bin edge or r_max,
    which may land either side)."""
    xyz = p4.reshape(-1, 4)[:, :3].astype(np.float64)
    r2 = pair_r2(xyz, float(box))
    r2 = r2[np.isfinite(r2)]
    x = np.sqrt(r2[r2 < rmax2]) * float(inv_dr)
    hist = np.bincount(np.floor(x).astype(int), minlength=bins)[:bins]
    border = (np.abs(x - np.round(x)) < 1e-4).sum() + (np.abs(r2 - rmax2) < 1e-5 * rmax2).sum()
    return hist, border


@pytest.mark.parametrize("policy, n", [("lockstep", 300), ("random", 72)])    # 2 (1) blocks, the last partial
def test_rdf_smem_hist(policy, n):
    host, (p4, hist, box, inv_dr, rmax2, nn), *_ = launch("probe/rdf-smem-hist", n, policy=policy)
    ref, border = rdf_ref(host[0], box, inv_dr, rmax2)
    assert nn == n and border < 1e-3 * n * n and np.abs(hist.astype(np.int64) - ref).sum() <= 2 * border
    assert abs(int(hist.sum()) - n * (n - 1) * np.pi / 6) < 0.1 * n * n     # the sphere's share of the box
    m = int(np.ceil(n ** (1 / 3)))                                          # no pair within 0.8 spacings
    assert hist[:int(0.79 * box / m * inv_dr)].sum() == 0 and hist.sum() % 2 == 0


def test_rdf_edge_cases():
    # every atom at the same point but one (all the pairs in bin 0, two threads' atomics on
    # one shared word), pairs across the box's faces, one beyond r_max, a histogram that
    # already holds counts
    box = 10.0
    xyz = np.array([[5, 5, 5]] * 40 + [[0.1, 0.1, 9.9], [9.9, 9.9, 0.1], [0.05, 5, 5], [5, 0.05, 0.05]])
    n = len(xyz)
    hist = np.arange(256, dtype=np.uint32)
    out = run("probe/rdf-smem-hist", [tp._u69_float4(xyz), hist.copy(), np.float32(box), np.float32(256 / 5),
                                      np.float32(25), np.int32(n)], n, policy="random")
    ref, _ = rdf_ref(tp._u69_float4(xyz), box, 256 / 5, 25)
    assert ref[0] == 40 * 39 and ref.sum() < n * (n - 1) and (out[1] == hist + ref).all()


# ---- lj-nlist-const ----

def lj_ref(p4, nl, cnt, box, rc2, max_nb, table):
    """(forces (n, 3), energies, the per-atom sums of |pair force|s, and of the |force|s
    and |energies| of the pairs within float32 rounding of the cutoff, which the kernel
    may take or not), in float64."""
    p = p4.reshape(-1, 4)
    n = len(p)
    xyz, t = p[:, :3].astype(np.float64), p[:, 3].astype(int)
    rows = np.repeat(np.arange(n), cnt)
    j = nl.reshape(n, max_nb)[rows, np.arange(len(rows)) - np.repeat(np.cumsum(cnt) - cnt, cnt)]
    d = min_image(xyz[rows] - xyz[j], float(box))
    r2 = (d * d).sum(1)
    on = r2 < rc2
    tab = table[t[rows] * 4 + t[j]]
    sr6 = (tab["sig2"].astype(np.float64) / r2) ** 3
    eps = tab["eps"].astype(np.float64)
    fr = np.where(on, 24 * eps * sr6 * (2 * sr6 - 1) / r2, 0)
    f = np.zeros((n, 3))
    np.add.at(f, rows, fr[:, None] * d)
    e = np.bincount(rows, np.where(on, 2 * eps * sr6 * (sr6 - 1), 0), n)
    scale = np.bincount(rows, np.abs(fr) * np.sqrt(r2), n)
    edge = np.abs(r2 - rc2) < 1e-5 * rc2
    fc = np.abs(24 * eps * sr6 * (2 * sr6 - 1) / r2) * np.sqrt(r2)
    slack = np.bincount(rows, np.where(edge, fc + np.abs(2 * eps * sr6 * (sr6 - 1)), 0), n)
    return f, e, scale, slack


def lj_check(out, host, table):
    f, e, scale, slack = lj_ref(*host[:3], host[4], host[5], host[6], table)
    assert (slack > 0).sum() <= 4
    got = out[3].reshape(-1, 4)
    assert (np.abs(got[:, :3] - f) <= 2e-5 * scale[:, None] + slack[:, None] + 1e-6).all()
    assert (np.abs(got[:, 3] - e) <= 1e-5 * (np.abs(e) + scale) + slack + 1e-6).all()
    return f, e


def test_lj_nlist_const():
    n = 700                                                  # 6 blocks, the last partial (m = 9: vacancies)
    host, after, syms, _ = launch("probe/lj-nlist-const", n)
    assert (syms["c_lj"] == tp._u69_lj_table()).all() and after[7] == n and after[6] == 128
    f, e = lj_check(after, host, syms["c_lj"])
    assert -8 < e.mean() < -1 and np.abs(f.sum(0)).max() < 1e-6 * np.abs(f).sum()    # Newton's third law


def test_lj_edge_cases():
    # an atom without neighbours, a listed pair beyond the cutoff (in the skin) and one
    # just inside it, pairs across the box's faces, all 16 type pairs, and a table whose
    # type pairs are not symmetric (the kernel indexes ti * 4 + tj)
    box = 12.0
    xyz = np.array([[0.3, 6, 6], [11.5, 6, 6], [6, 0.2, 11.9], [6, 11.3, 0.7], [6, 6, 6], [6, 8.6, 6],
                    [6, 6, 8.4], [3, 3, 3]])
    types = np.array([0, 1, 2, 3, 3, 2, 1, 0])
    n = len(xyz)
    nl = np.zeros((n, 6), np.int32)
    cnt = np.zeros(n, np.int32)
    for i in range(7):                                       # atom 7: none
        nb = [j for j in range(7) if j != i]
        nl[i, :len(nb)] = nb
        cnt[i] = len(nb)
    table = tp._u69_lj_table()
    table["eps"] = np.arange(1, 17) / 8
    host = [tp._u69_float4(xyz, types), nl.ravel(), cnt, np.full(4 * n, 9, np.float32), np.float32(box),
            np.float32(6.25), np.int32(6), np.int32(n)]
    out = run("probe/lj-nlist-const", [x.copy() if isinstance(x, np.ndarray) else x for x in host], n,
              symbols={"c_lj": table})
    f, e = lj_check(out, host, table)
    got = out[3].reshape(n, 4)
    assert (got[7] == 0).all() and (f[:4] != 0).any(axis=1).all()
    r46 = np.linalg.norm(xyz[4] - xyz[5]), np.linalg.norm(xyz[4] - xyz[6])
    assert r46[0] > 2.5 and r46[1] < 2.5 and got[4, 1] == 0 and got[4, 2] > 0     # 5 in the skin, 6 within


# ---- ewald-sk-shfl ----

def sk_ref(xyzq, kv):
    a = xyzq.reshape(-1, 4).astype(np.float64)
    ph = kv.reshape(-1, 4)[:, :3].astype(np.float64) @ a[:, :3].T
    return np.c_[np.cos(ph) @ a[:, 3], np.sin(ph) @ a[:, 3]]


@pytest.mark.parametrize("policy, n", [("lockstep", 150), ("random", 64)])   # 450 (192) atoms, 37 (13) k-vectors
def test_ewald_sk_shfl(policy, n):
    host, (xyzq, kv, sk, na), *_ = launch("probe/ewald-sk-shfl", n, policy=policy)
    ref = sk_ref(xyzq, kv)
    assert na == 3 * n and len(sk) == 2 * tp._u69_sk_nk(n) and np.abs(ref).max() > 1
    np.testing.assert_allclose(sk.reshape(-1, 2), ref, rtol=0, atol=3e-7 * np.abs(xyzq[3::4]).sum())


def test_ewald_edge_cases():
    # one atom (255 threads with nothing), a charge where every phase is 0 (the origin),
    # atoms strided so that each thread takes several, k along each axis
    rng = np.random.default_rng(5)
    box = (40 / tp.U69_WATER_RHO) ** (1 / 3)                                # 40 waters' box and k-vectors
    kv = tp._u69_kvecs(box)
    for na, policy in ((1, "random"), (700, "lockstep")):
        xyz = rng.uniform(0, box, (na, 3))
        xyz[0] = 0
        q = rng.uniform(-1, 1, na)
        host = [tp._u69_float4(xyz, q), tp._u69_float4(kv), np.zeros(2 * len(kv), np.float32), np.int32(na)]
        out = run("probe/ewald-sk-shfl", host, 40, policy=policy)
        assert len(kv) == tp._u69_sk_nk(40)
        np.testing.assert_allclose(out[2].reshape(-1, 2), sk_ref(host[0], host[1]), rtol=0, atol=3e-7 * np.abs(q).sum())
    one = run("probe/ewald-sk-shfl", [tp._u69_float4(np.zeros((1, 3)), [0.5]), host[1], host[2] * 0, np.int32(1)],
              40)
    assert (one[2].reshape(-1, 2) == [0.5, 0]).all()


# ---- mc-trial-double ----

def mc_ref(pos, who, new, rnd, box, rc2, beta, na):
    """(dE, accepted, the moves within rounding of the Metropolis test) in float64."""
    P = pos.reshape(-1, na, 4)[:, :, :3].astype(np.float64)
    ns = len(who)
    X = new.reshape(ns, 4)[:, :3].astype(np.float64)

    def energy(x):
        d = min_image(P - x[:, None, :], float(box))
        r2 = (d * d).sum(-1)
        r2[np.arange(ns), who] = np.inf
        ir6 = np.where(r2 < rc2, 1 / r2 ** 3, 0)
        return (4 * ir6 * (ir6 - 1)).sum(1), np.abs(r2 - rc2).min(1)

    en, gn = energy(X)
    eo, go = energy(P[np.arange(ns), who])
    de = en - eo
    p = np.exp(-float(beta) * de)
    border = ((de > 0) & (np.abs(rnd - p) < 1e-4)) | (np.abs(de) < 1e-6) | (np.minimum(gn, go) < 1e-5)
    return de, (de <= 0) | (rnd < p), border


@pytest.mark.parametrize("policy, n", [("lockstep", 30), ("random", 10)])
def test_mc_trial_double(policy, n):
    host, (pos, who, new, rnd, acc, box, rc2, beta, na), *_ = launch("probe/mc-trial-double", n, policy=policy)
    de, ok, border = mc_ref(*host[:4], box, rc2, beta, na)
    assert not border.any() and 0.2 * n < ok.sum() < 0.8 * n
    assert (acc == ok).all()
    moved = host[0].reshape(n, na, 4).copy()
    moved[ok, who[ok]] = new.reshape(n, 4)[ok]
    assert (pos.reshape(n, na, 4) == moved).all()


def test_mc_edge_cases():
    # a move onto another atom (exp(-beta dE) underflows: rejected though rnd is 0), a move
    # to where it stands (dE = 0: accepted), a move across the box's face, the last atom
    # moved, counts accumulating onto the old ones
    rng = np.random.default_rng(6)
    pos, who, new, rnd, acc, box, rc2, beta, na = tp._u69_mc_args(4, rng)
    P = pos.reshape(4, na, 4)
    who[:] = [3, 10, 0, na - 1]
    N = P[np.arange(4), who].copy()
    N[0, :3] = P[0, 4, :3] + 0.01
    N[2, 0] = float(box) - 0.01
    N[3, :3] = N[3, :3] - 0.05
    rnd[:] = [0, 0.999, 0.5, 0.0]
    acc[:] = [5, 6, 7, 8]
    host = [pos, who, N.ravel(), rnd, acc, box, rc2, beta, na]
    out = run("probe/mc-trial-double", [x.copy() if isinstance(x, np.ndarray) else x for x in host], 4,
              policy="random")
    de, ok, border = mc_ref(*host[:4], box, rc2, beta, na)
    assert de[0] > 1e6 and de[1] == 0 and not border[[2, 3]].any()
    assert ok[1] and not ok[0] and (out[4] == [5, 6, 7, 8] + ok).all()
    assert (out[0].reshape(4, na, 4)[np.arange(4), who] == np.where(ok[:, None], N, P[np.arange(4), who])).all()


# ---- coulomb-grid-const ----

def dcs_ref(tab, na, sp, n):
    g = np.arange(n, dtype=np.float32) * np.float32(sp)                   # x * spacing, as the kernel rounds it
    z, y, x = np.meshgrid(g, g, g, indexing="ij")
    pts = np.c_[x.ravel(), y.ravel(), z.ravel()].astype(np.float64)
    a = np.c_[tab["x"], tab["y"], tab["z"]][:na].astype(np.float64)
    q = tab["w"][:na].astype(np.float64)
    r = np.sqrt(((pts[:, None, :] - a[None]) ** 2).sum(-1))
    return (q / r).sum(1), (np.abs(q) / r).sum(1)


@pytest.mark.parametrize("n", [20, 16])               # 2 x 2 x 20 blocks, the last ones partial; 1 x 1 x 16
def test_coulomb_grid_const(n):
    # the probe's own arguments at a small grid, but a smaller water box (40 molecules,
    # cut to 100 atoms) in the table: the loop runs natoms times
    rng = np.random.default_rng(7)
    host = tp._u69_dcs_args(n, rng)
    xyz, q, box = tp._u69_water(40, rng)
    tab = tp._u69_dcs_table(xyz[:100], q[:100])
    host[1] = np.float32(box / n)
    host[2] = np.int32(100)
    out = run("probe/coulomb-grid-const", host, n, symbols={"c_atoms": tab})
    ref, scale = dcs_ref(tab, 100, host[1], n)
    assert out[0].shape == (n ** 3,) and np.abs(ref).max() > 1
    assert (np.abs(out[0] - ref) <= 5e-7 * scale).all()


# ---- angle-harmonic-atomic ----

def angle_ref(p4, a4, box, table):
    """(forces (n, 3), energies, the angles (radians), the per-atom sum of |force|s) in float64."""
    xyz = p4.reshape(-1, 4)[:, :3].astype(np.float64)
    a = a4.reshape(-1, 4)
    r1 = min_image(xyz[a[:, 0]] - xyz[a[:, 1]], float(box))
    r2 = min_image(xyz[a[:, 2]] - xyz[a[:, 1]], float(box))
    r1s, r2s = (r1 * r1).sum(1), (r2 * r2).sum(1)
    r12 = np.sqrt(r1s * r2s)
    c = np.clip((r1 * r2).sum(1) / r12, -1, 1)
    th = np.arccos(c)
    k, th0 = table["k"][a[:, 3]].astype(np.float64), table["theta0"][a[:, 3]].astype(np.float64)
    g = (2 * k * (th - th0) / np.maximum(np.sqrt(1 - c * c), 1e-3))[:, None]
    f1 = g * (r2 / r12[:, None] - c[:, None] * r1 / r1s[:, None])
    f3 = g * (r1 / r12[:, None] - c[:, None] * r2 / r2s[:, None])
    f = np.zeros_like(xyz)
    mag = np.zeros(len(xyz))
    for col, fc in ((0, f1), (1, -f1 - f3), (2, f3)):
        np.add.at(f, a[:, col], fc)
        np.add.at(mag, a[:, col], np.abs(fc).sum(1))
    return f, k * (th - th0) ** 2, th, mag


def ang_check(out, host, table):
    f, e, th, mag = angle_ref(host[0], host[1], host[4], table)
    np.testing.assert_allclose(out[3], e, rtol=1e-4, atol=1e-5)
    assert (np.abs(out[2].reshape(-1, 3) - f) <= 1e-4 * mag[:, None] + 1e-5).all()
    return f


@pytest.mark.parametrize("policy, n", [("lockstep", 500), ("random", 300)])   # 2 blocks, the last partial
def test_angle_harmonic_atomic(policy, n):
    host, after, syms, _ = launch("probe/angle-harmonic-atomic", n, policy=policy)
    assert after[5] == n and (syms["c_ang"] == tp._u69_ang_table()).all()
    f = ang_check(after, host, syms["c_ang"])
    used = np.unique(host[1].reshape(-1, 4)[:, :3])
    assert (after[2].reshape(-1, 3)[used] != 0).all() and (after[2].reshape(-1, 3)[used.max() + 1:] == 0).all()
    assert np.abs(f.sum(0)).max() < 1e-9 * np.abs(f).sum()


def test_angle_edge_cases():
    # a vertex shared by many angles (same-address atomics from every lane), an angle
    # across the box's faces, a straight angle (cos clamped to -1, sin to 1e-3), forces
    # added onto nonzero ones, a per-type table the host changed
    box = 10.0
    xyz = np.array([[5, 5, 5], [6, 5, 5], [5, 6, 5], [4, 5, 5], [5, 4, 5.5], [5, 5, 6], [9.8, 0.1, 0.2],
                    [0.3, 0.1, 0.2], [0.3, 9.5, 0.4]])
    a = [(i, 0, k, (i + k) % 4) for i in range(1, 6) for k in range(1, 6) if i != k] + [(6, 7, 8, 2), (1, 0, 3, 0)]
    a4 = np.array(a, np.int32).ravel()
    na = len(a)
    table = tp._u69_ang_table()
    table["k"] = [5, 10, 15, 20]
    f0 = np.linspace(-1, 1, 27).astype(np.float32)
    host = [tp._u69_float4(xyz), a4, f0.copy(), np.zeros(na, np.float32), np.float32(box), np.int32(na)]
    out = run("probe/angle-harmonic-atomic", host, na, policy="random", symbols={"c_ang": table})
    f, e, th, mag = angle_ref(host[0], a4, box, table)
    np.testing.assert_allclose(out[3], e, rtol=1e-4, atol=1e-5)
    assert np.isclose(th[-1], np.pi) and np.isclose(th[-2], np.pi / 2)
    got = out[2].reshape(-1, 3) - f0.reshape(-1, 3)
    assert (np.abs(got - f) <= 1e-4 * mag[:, None] + 1e-5).all()
