"""probe-unseen225's kernels (kernels_cuda/probes227.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/dock-gridmap-trilinear-quat", "probe/dock-intra-lj-coulomb-excl-f64",
       "probe/dock-ga-tournament-crossover-local", "probe/dock-rmsd-cluster-tiles-u16",
       "probe/vs-tanimoto-popc-const-hist", "probe/vs-ro5-warp-ballot-compact"]

F32 = np.float32
U32 = np.uint32


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen225"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes227.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- references ----

def _rotation(q):
    """Rotation matrices of quaternions (w, x, y, z) after normalising, float64 (n, 3, 3): the
    matrix of v -> q v q*."""
    q = np.asarray(q, np.float64)
    q = q / np.sqrt((q * q).sum(axis=1, keepdims=True))
    out = np.zeros((len(q), 3, 3))
    for c in range(3):                                     # column c: the image of the unit vector e_c
        e = np.zeros(3)
        e[c] = 1
        w, u = q[:, 0], q[:, 1:]
        t = 2 * np.cross(u, np.broadcast_to(e, u.shape))
        out[:, :, c] = e + w[:, None] * t + np.cross(u, t)
    return out


def _gm_ref(h, syms):
    """gridmap_score: (energy float64 (n,), tolerance (n,), ambiguous (n,): an atom within 1e-4
    grid units of the grid's edge)."""
    n, natom, maps, npts = int(h[1]), int(h[2]), h[3], int(h[4])
    ps = h[0][:n]
    o = np.array([h[5], h[6], h[7]], np.float64)
    inv = np.float64(h[8])
    M = maps.reshape(-1, npts, npts, npts).astype(np.float64)          # (map, z, y, x)
    q = np.stack([ps[f] for f in ("qw", "qx", "qy", "qz")], 1)
    t = np.stack([ps[f] for f in ("tx", "ty", "tz")], 1).astype(np.float64)
    X = syms["c_lig_xyz"][:natom].astype(np.float64)
    P = np.einsum("pij,aj->pai", _rotation(q), X) + t[:, None, :]
    G = (P - o) * inv
    out = ((G < 0) | (G >= npts - 1)).any(axis=2)
    amb = ((np.abs(G) < 1e-4) | (np.abs(G - (npts - 1)) < 1e-4)).any(axis=2).any(axis=1)
    I = np.clip(np.floor(G).astype(np.int64), 0, npts - 2)
    Fr = G - I
    typ = syms["c_lig_type"][:natom].astype(np.int64)
    chg = syms["c_lig_charge"][:natom].astype(np.float64)

    def interp(mi):
        val = np.zeros(G.shape[:2])
        big = np.zeros(G.shape[:2])
        for dz in (0, 1):
            for dy in (0, 1):
                for dx in (0, 1):
                    c = M[mi, I[..., 2] + dz, I[..., 1] + dy, I[..., 0] + dx]
                    wgt = ((Fr[..., 0] if dx else 1 - Fr[..., 0]) * (Fr[..., 1] if dy else 1 - Fr[..., 1])
                           * (Fr[..., 2] if dz else 1 - Fr[..., 2]))
                    val += wgt * c
                    big = np.maximum(big, np.abs(c))
        return val, big
    vt, bt = interp(np.broadcast_to(typ, G.shape[:2]))
    ve, be = interp(np.full(G.shape[:2], tp.P227_GM_NMAPS - 2))
    vd, bd = interp(np.full(G.shape[:2], tp.P227_GM_NMAPS - 1))
    e = np.where(out, tp.P227_GM_OUTSIDE, vt + chg * ve + np.abs(chg) * vd)
    tol = np.where(out, 0, 1e-5 * (bt + np.abs(chg) * (be + bd)) + 1e-5)
    return e.sum(axis=1), tol.sum(axis=1) + 1.5e-6 * np.abs(e).sum(axis=1), amb


def _ms_eps(r):
    A, B, lam, k = tp.P227_MS
    return A + B / (1 + k * np.exp(-lam * B * r))


def _ie_ref(h, syms):
    """intra_energy: (energy float64 per pose, tolerance per pose, lig_total float64)."""
    xyz, poff, plig, loff, lt, lq, lex = h[:7]
    A, B = syms["c_lj_a"].astype(np.float64), syms["c_lj_b"].astype(np.float64)
    X = xyz.reshape(-1, 3).astype(np.float64)
    npose = len(poff) - 1
    e = np.zeros(npose)
    tol = np.zeros(npose)
    for p in range(npose):
        a, b = poff[p], poff[p + 1]
        m = b - a
        l0 = loff[plig[p]]
        x = X[a:b]
        t = lt[l0:l0 + m].astype(np.int64)
        q = lq[l0:l0 + m].astype(np.float64)
        ex = lex[l0:l0 + m]
        i, j = np.triu_indices(m, 1)
        excl = ((ex[i] >> j.astype(np.uint64)) & np.uint64(1)) == 1
        r2 = ((x[j] - x[i]) ** 2).sum(axis=1)
        keep = ~excl & (r2 < tp.P227_IE_CUTOFF2)
        i, j, r2 = i[keep], j[keep], np.maximum(r2[keep], tp.P227_IE_RMIN2)
        r = np.sqrt(r2)
        lj = np.minimum(A[t[i], t[j]] / r2 ** 6 - B[t[i], t[j]] / r2 ** 3, tp.P227_IE_ECLAMP)
        el = tp.P227_COULOMB * q[i] * q[j] / (r * _ms_eps(r))
        e[p] = (lj + el).sum()
        # float32 terms: a few ulps of each part (the LJ's difference of two large terms)
        big = A[t[i], t[j]] / r2 ** 6 + B[t[i], t[j]] / r2 ** 3
        tol[p] = (4e-7 * np.minimum(big, 1e4) + 2e-6 * np.abs(el)).sum() + 1e-9
    tot = np.zeros(len(loff) - 1)
    np.add.at(tot, plig, e)
    return e, tol, tot


def _hash32(x):
    x &= 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x7FEB352D) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x846CA68B) & 0xFFFFFFFF
    x ^= x >> 16
    return x


class _Xorshift:
    def __init__(self, s):
        self.s = s

    def next(self):
        s = self.s
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        self.s = s
        return s

    def uniform(self):
        return F32(self.next() >> 8) * F32(1.0 / 16777216.0)


def _ga_ref(genes, energy, ngene, seed, lo, hi):
    """ga_generation: (child genes float32 (runs, pop, ngene), parents (runs, pop, 2), cuts
    (runs, pop, 2), mutated mask (runs, pop, ngene)), the kernel's RNG stream replayed; the
    floats in float32 as the kernel rounds them (tanf by numpy's)."""
    pop = tp.P227_GA_POP
    g = genes.reshape(-1, pop, ngene)
    e = energy.reshape(-1, pop)
    nrun = len(e)
    kid = np.zeros((nrun, pop, ngene), F32)
    par = np.zeros((nrun, pop, 2), np.int64)
    cut = np.zeros((nrun, pop, 2), np.int64)
    mut = np.zeros((nrun, pop, ngene), bool)
    scale = [F32(v) for v in tp.P227_GA_SCALE]
    for r in range(nrun):
        elite = int(np.argmin(e[r]))
        kid[r, 0] = g[r, elite]
        par[r, 0] = elite
        for t in range(1, pop):
            st = _hash32(int(seed) ^ _hash32(r * pop + t)) or 1
            rs = _Xorshift(st)

            def tour():
                a, b = rs.next() % pop, rs.next() % pop
                better, worse = (b, a) if e[r, b] < e[r, a] else (a, b)
                return better if rs.uniform() < F32(tp.P227_GA_TOURN) else worse
            p1 = tour()
            p2 = tour()
            c1 = c2 = 0
            if rs.uniform() < F32(tp.P227_GA_PCROSS):
                c1, c2 = rs.next() % (ngene + 1), rs.next() % (ngene + 1)
                c1, c2 = min(c1, c2), max(c1, c2)
            k = np.where((np.arange(ngene) >= c1) & (np.arange(ngene) < c2), g[r, p2], g[r, p1]).astype(F32)
            for j in range(ngene):
                if rs.uniform() < F32(tp.P227_GA_PMUT):
                    mut[r, t, j] = True
                    dev = np.tan(F32(3.14159265) * (rs.uniform() - F32(0.5)), dtype=F32)
                    k[j] = k[j] + scale[0 if j < 3 else 1 if j < 7 else 2] * dev
            k[:3] = np.minimum(np.maximum(k[:3], F32(lo)), F32(hi))
            k[3:7] = k[3:7] / np.sqrt((k[3:7] * k[3:7]).sum(dtype=F32), dtype=F32)
            k[7:] = k[7:] - F32(360) * np.floor((k[7:] + F32(180)) / F32(360))
            kid[r, t] = k
            par[r, t] = p1, p2
            cut[r, t] = c1, c2
    return kid, par, cut, mut


def _rm_ref(xyz, n, natom):
    """rmsd_matrix: the RMSD matrix (float64 (n, n))."""
    X = xyz.reshape(n, natom * 3).astype(np.float64)
    sq = (X * X).sum(axis=1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0)
    for i in range(n):                                      # exact where it matters: small distances
        close = d2[i] < 25 * natom
        d2[i, close] = ((X[close] - X[i]) ** 2).sum(axis=1)
    return np.sqrt(d2 / natom)


def _ts_ref(fps, q):
    """tanimoto_screen, exactly: (best float32, best query, hist (64,), hits (nq,))."""
    f = fps.reshape(-1, tp.P227_TS_WORDS)
    nb = np.bitwise_count(f).sum(axis=1).astype(np.int64)
    qb = np.bitwise_count(q).sum(axis=1).astype(np.int64)
    common = np.bitwise_count(f[:, None, :] & q[None, :, :]).sum(axis=2).astype(np.int64)
    uni = nb[:, None] + qb[None, :] - common
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.where(uni > 0, common.astype(F32) / uni.astype(F32), F32(1))
    best = s.max(axis=1)
    bq = s.argmax(axis=1)
    b = np.minimum((best * F32(tp.P227_TS_BINS)).astype(np.int64), tp.P227_TS_BINS - 1)
    return best, bq, np.bincount(b, minlength=tp.P227_TS_BINS), (s >= F32(0.7)).sum(axis=0)


def _ro_ref(atoms, aoff, bonds, flags, boff):
    """ro5_filter: (mw, logp, tpsa float64, hbd, hba, rotb, nviol, passes, ambiguous) per molecule."""
    el = (atoms & 15).astype(np.int64)
    nh = ((atoms >> 4) & 3).astype(np.int64)
    deg = (atoms >> 6).astype(np.int64) + 1
    n = len(aoff) - 1
    na = np.diff(aoff)
    mol = np.repeat(np.arange(n), na)
    mw = np.bincount(mol, tp.P227_RO_MASS[el].astype(np.float64) + 1.008 * nh, n)
    logp = np.bincount(mol, tp.P227_RO_LOGP[el, nh].astype(np.float64), n)
    tpsa = np.bincount(mol, tp.P227_RO_TPSA[el, nh].astype(np.float64), n)
    het = (el == 1) | (el == 2)
    hba = np.bincount(mol, het, n).astype(np.int64)
    hbd = np.bincount(mol, het & (nh > 0), n).astype(np.int64)
    bmol = np.repeat(np.arange(n), np.diff(boff))
    a = (bonds & 0xFFFF).astype(np.int64) + aoff[bmol]
    b = (bonds >> 16).astype(np.int64) + aoff[bmol]
    rot = ((flags & 3) == 1) & ((flags & 12) == 0) & (deg[a] >= 2) & (deg[b] >= 2)
    rotb = np.bincount(bmol, rot, n).astype(np.int64)
    nv = (mw > 500).astype(int) + (logp > 5) + (hbd > 5) + (hba > 10)
    ok = (nv <= 1) & (rotb <= 10) & (tpsa <= 140)
    amb = (np.abs(mw - 500) < 2e-3) | (np.abs(logp - 5) < 2e-4) | (np.abs(tpsa - 140) < 2e-3)
    return mw, logp, tpsa, hbd, hba, rotb, nv, ok, amb


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # ligands: trees of degree <= 4, polar H only as leaves on N / OA, bonds 1.5 / 1.0 A, 110 deg
    sizes = np.array([12, 30, 64, 40])
    par = tp._p227_trees(sizes, rng)
    t = tp._p227_types(par, sizes, rng)
    for m, s in enumerate(sizes):
        p = par[m, 1:s]
        assert (p >= 0).all() and (p < np.arange(1, s)).all() and (par[m, s:] == -1).all()
        deg = np.bincount(p, minlength=s) + (np.arange(s) > 0)
        assert deg.max() <= 4
        hd = np.flatnonzero(t[m, :s] == 4)
        assert (deg[hd] == 1).all() and np.isin(t[m, par[m, hd]], [2, 3]).all()
    X = tp._p227_conformers(par, t, rng, np.array([0, 1, 2, 3, 2]))
    for c, m in enumerate([0, 1, 2, 3, 2]):
        k = np.arange(2, sizes[m])
        L = np.linalg.norm(X[c, k] - X[c, par[m, k]], axis=1)
        assert np.allclose(L, np.where(t[m, k] == 4, 1.0, 1.5))
    q = tp._p227_charges(t, sizes, rng)
    assert np.allclose(q.sum(axis=1), 0, atol=1e-5) and (q[t == 3] < 0).mean() > 0.9
    ex = tp._p227_exclusions(par, sizes)
    bits = ((ex[:, :, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    assert (bits == bits.transpose(0, 2, 1)).all() and not bits[:, np.arange(64), np.arange(64)].any()
    assert (bits[3, 1:40, :][np.arange(39), par[3, 1:40]]).all()         # bonded pairs excluded
    # grid maps: repulsive walls clamped, a favourable pocket, the electrostatic map both signs
    h = tp._p227_gm_args(2000, rng)
    M = h[3].reshape(8, 61, 61, 61)
    c = M[:, 30, 30, 30]
    assert (np.abs(M) <= tp.P227_GM_CLAMP).all() and (M[0] == tp.P227_GM_CLAMP).mean() > 0.1
    assert c[0] < 0 and c[3] < 0 and M[0].min() < -0.3 and M[6].min() < 0 < M[6].max() and M[7].min() >= 0
    ps = h[0]
    qn = np.sqrt(sum(ps[f].astype(np.float64) ** 2 for f in ("qw", "qx", "qy", "qz")))
    assert qn.min() >= 0.9 - 1e-6 and qn.max() <= 1.1 + 1e-6
    near = np.sqrt(ps["tx"] ** 2 + ps["ty"] ** 2 + ps["tz"] ** 2) < 4
    assert 0.65 < near.mean() < 0.85
    e, _, _ = _gm_ref(h, tp._p227_gm_symbols(2000, rng))
    assert (e < 0).mean() > 0.1 and (e > 1000).mean() > 0.15 and e.min() < -4   # many fit, some clash or leave the grid
    # GA populations: clashes, duplicates, unit quaternions, torsions in range
    g, en = tp._p227_ga_population(40, rng)
    assert 0.1 < (en > 0).mean() < 0.2 and en.max() > 1e3 and -15 < np.median(en) < -3
    assert np.allclose(np.linalg.norm(g[..., 3:7], axis=-1), 1, atol=1e-6)
    assert (np.abs(g[..., 7:]) <= 180).all() and (np.abs(g[..., :3]) <= tp.P227_GA_BOX).all()
    assert sum(len(np.unique(r)) < 150 for r in en) >= 35                # ties from copies
    # docked poses: binding modes tight (RMSD < 2 A mostly), the scattered poses far
    X, mode = tp._p227_rm_poses(600, rng)
    R = _rm_ref(X.ravel(), 600, 32)
    same = (mode[:, None] == mode[None, :]) & (mode[:, None] >= 0) & ~np.eye(600, dtype=bool)
    assert np.median(R[same]) < 1.5 and np.median(R[~same & (mode[:, None] >= 0) & (mode[None, :] >= 0)]) > 3
    assert (R[~np.eye(600, dtype=bool)] == 0).sum() > 0 and 0.1 < (mode < 0).mean() < 0.25
    # fingerprints: ~45 bits, skewed bit frequencies, analog series similar, queries with analogs
    h = tp._p227_ts_args(20000, rng)
    syms = tp._p227_ts_symbols(20000, rng)
    f = h[0].reshape(-1, 32)
    nb = np.bitwise_count(f).sum(axis=1)
    assert 35 < nb.mean() < 55 and nb.min() > 10
    freq = np.unpackbits(f.view(np.uint8), axis=1).mean(axis=0)
    assert freq.max() > 0.5 and np.median(freq) < 0.05
    best, bq, hist, hits = _ts_ref(h[0], syms["c_query"])
    assert (hits[:tp.P227_TS_ANALOG_Q] > 0).all() and np.median(best) < 0.4
    assert (syms["c_qbits"] == np.bitwise_count(syms["c_query"]).sum(axis=1)).all()
    # the library: degrees as the bonds say, halogens leaves, most molecules drug-like
    atoms, aoff, bonds, flags, boff = tp._p227_ro_library(5000, rng)
    n = 5000
    bmol = np.repeat(np.arange(n), np.diff(boff))
    a = (bonds & 0xFFFF).astype(np.int64) + aoff[bmol]
    b = (bonds >> 16).astype(np.int64) + aoff[bmol]
    deg = np.bincount(a, minlength=len(atoms)) + np.bincount(b, minlength=len(atoms))
    assert (deg == (atoms >> 6) + 1).all() and (a != b).all()
    assert (np.repeat(np.arange(n), np.diff(aoff))[b] == bmol).all()                 # bonds within their molecule
    el = atoms & 15
    assert (deg[el >= 5] == 1).all() and el.max() <= 8
    mw, logp, tpsa, hbd, hba, rotb, nv, ok, _ = _ro_ref(atoms, aoff, bonds, flags, boff)
    assert 300 < np.median(mw) < 420 and 1 < np.median(logp) < 4.5 and 0.5 < ok.mean() < 0.9
    assert (rotb > 10).any() and (nv >= 2).any() and np.median(hbd) >= 1


# ---- dock-gridmap-trilinear-quat ----

def _check_gm(h, syms, grid=None):
    n = int(h[1])
    out = run("probe/dock-gridmap-trilinear-quat", h, n, symbols=syms, grid=grid)
    e, tol, amb = _gm_ref(h, syms)
    ok = ~amb
    assert (np.abs(out[9][ok] - e[ok]) <= tol[ok]).all(), np.abs(out[9] - e)[ok].max()
    return out, e


def test_gridmap():
    rng = np.random.default_rng(1)
    h = tp._p227_gm_args(150, rng, npts=41)
    syms = tp._p227_gm_symbols(150, rng)
    out, e = _check_gm(h, syms)
    assert (e < tp.P227_GM_OUTSIDE).any() and (e >= tp.P227_GM_OUTSIDE).any()
    _check_gm(h, syms, grid=(3, 1))                                # 3 blocks striding over 3600 threads


def test_gridmap_cases():
    # linear maps (trilinear interpolation exact), spacing 0.5, identity rotations of scaled quaternions
    npts = 9
    z, y, x = np.meshgrid(np.arange(npts), np.arange(npts), np.arange(npts), indexing="ij")
    maps = np.stack([k + 0.25 * x - 0.5 * y + 2.0 * z for k in range(8)]).astype(F32)
    natom = 3
    syms = {"c_lig_xyz": np.zeros((64, 3), F32), "c_lig_charge": np.zeros(64, F32),
            "c_lig_type": np.zeros(64, np.int32)}
    syms["c_lig_xyz"][:3] = [[0, 0, 0], [1.5, 0, 0], [0, -1, 0.5]]
    syms["c_lig_charge"][:3] = [0.5, -0.25, 0]
    syms["c_lig_type"][:3] = [1, 5, 3]
    ps = np.zeros(5, tp.P227_POSE)
    ps["qw"] = [2.0, 1.0, 0.5, 1.0, 1.0]
    ps["tx"] = [0.0, 2.5, 0.0, 1.0, 1.0]                          # the grid spans 0 .. 4 A
    ps["ty"] = [1.0, 2.0, 1.0, 3.5, 1.25]
    ps["tz"] = [0.0, 2.0, 3.5, 1.0, 1.25]
    # pose 0: atom 0 on the corner (inside), atom 2 at y = 0 (inside); pose 1: atom 1 at x = 4 (off);
    # pose 2: atom 2 at z = 4 (off); pose 3: atom 2 at y = 2.5 inside, atom 1 fine; pose 4: inside
    h = [ps, np.int32(5), np.int32(natom), maps.ravel(), np.int32(npts), F32(0), F32(0), F32(0), F32(2.0),
         np.zeros(5, F32)]
    out, e = _check_gm(h, syms, grid=(1, 1))
    assert (out[9][[1, 2]] >= tp.P227_GM_OUTSIDE).all() and (out[9][[0, 3, 4]] < tp.P227_GM_OUTSIDE).all()
    # pose 0 by hand: atoms at grid (0, 2, 0), (3, 2, 0), (0, 0, 1)
    lin = lambda k, gx, gy, gz: k + 0.25 * gx - 0.5 * gy + 2.0 * gz      # noqa: E731
    want = (lin(1, 0, 2, 0) + 0.5 * lin(6, 0, 2, 0) + 0.5 * lin(7, 0, 2, 0)
            + lin(5, 3, 2, 0) - 0.25 * lin(6, 3, 2, 0) + 0.25 * lin(7, 3, 2, 0) + lin(3, 0, 0, 1))
    assert out[9][0] == F32(want)
    h[1] = np.int32(0)                                            # no poses: nothing written
    h[9] = np.full(5, 7.0, F32)
    out = run("probe/dock-gridmap-trilinear-quat", h, 0, symbols=syms, grid=(1, 1))
    assert (out[9] == 7).all()


# ---- dock-intra-lj-coulomb-excl-f64 ----

def _check_ie(h, syms=None):
    syms = syms or tp._p227_ie_symbols()
    npose = len(h[1]) - 1
    out = run("probe/dock-intra-lj-coulomb-excl-f64", h, npose, symbols=syms)
    e, tol, tot = _ie_ref(h, syms)
    assert (np.abs(out[7] - e) <= tol + 1e-6 * np.abs(e)).all(), np.abs(out[7] - e).max()
    tt = np.zeros(len(tot))
    np.add.at(tt, h[2], tol)
    assert (np.abs(out[8] - tot) <= tt + 1e-9).all()
    dev = np.zeros(len(tot))                                       # the double totals of the float energies
    np.add.at(dev, h[2], out[7].astype(np.float64))
    lim = np.zeros(len(tot))
    np.add.at(lim, h[2], 1e-7 * np.abs(out[7]) + 1e-12)
    assert (np.abs(out[8] - dev) <= lim).all()
    return out, e


def test_intra_energy():
    rng = np.random.default_rng(2)
    h = tp._p227_ie_args(24, rng, ppl=6)                          # 4 compounds x 6 conformers
    out, e = _check_ie(h)
    assert np.ptp(out[7][:6]) > 0                                 # conformers differ


def _ie_case(mols, rng):
    """Hand-made compounds (coordinates (m, 3), types, charges, bonded neighbour lists): one pose
    each."""
    xyz, t, q, ex = [], [], [], []
    poff, loff = [0], [0]
    for X, T, Q, nbr in mols:
        m = len(X)
        e = np.zeros(m, np.uint64)
        for i, js in enumerate(nbr):
            for j in js:
                e[i] |= np.uint64(1) << np.uint64(j)
        xyz.append(np.asarray(X, F32).ravel())
        t += list(T)
        q += list(Q)
        ex.append(e)
        poff.append(poff[-1] + m)
        loff.append(loff[-1] + m)
    n = len(mols)
    return [np.concatenate(xyz), np.array(poff, np.int32), np.arange(n, dtype=np.int32), np.array(loff, np.int32),
            np.array(t, np.uint8), np.array(q, F32), np.concatenate(ex), np.zeros(n, F32), np.zeros(n)]


def test_intra_cases():
    rng = np.random.default_rng(3)
    chain = [[k * 1.5, 0, 0] for k in range(4)]                     # 4 atoms, all pairs within 3 bonds
    allx = [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]]
    pair8 = [[0, 0, 0], [8.0, 0, 0], [0, 7.5, 0]]                   # (0, 1) at the cutoff: left out
    close = [[0, 0, 0], [0.5, 0, 0]]                                 # clamped to 1 A
    big = rng.normal(0, 4.0, (64, 3))                                # 64 atoms: bit 63 of the masks
    nb64 = [[j for j in range(64) if j != i and (i + j) % 5 == 0] for i in range(64)]
    mid = rng.normal(0, 3.0, (33, 3))                                # 33 atoms: the second warp has one
    mols = [(chain, [0, 1, 2, 3], [0.2, -0.2, 0.3, -0.3], allx),
            (pair8, [0, 2, 3], [0.5, -0.5, 0.4], [[], [], []]),
            (close, [3, 3], [-0.4, -0.4], [[], []]),
            ([[1, 2, 3]], [0], [0.0], [[]]),
            (big, rng.integers(0, 6, 64), rng.normal(0, 0.2, 64), nb64),
            (mid, rng.integers(0, 6, 33), rng.normal(0, 0.2, 33), [[] for _ in range(33)])]
    h = _ie_case(mols, rng)
    out, e = _check_ie(h)
    assert out[7][0] == 0 and out[7][3] == 0
    assert tp.P227_IE_ECLAMP < out[7][2] < tp.P227_IE_ECLAMP + 20    # the clamps: r = 1 A, LJ 1000
    r = 7.5
    want1 = tp._p227_ie_symbols()["c_lj_a"][0, 3] / r ** 12 - tp._p227_ie_symbols()["c_lj_b"][0, 3] / r ** 6 \
        + tp.P227_COULOMB * 0.5 * 0.4 / (r * _ms_eps(r))
    assert abs(out[7][1] - want1) < 1e-5 * abs(want1)               # only (0, 2): (0, 1) at 8 A is out


# ---- dock-ga-tournament-crossover-local ----

def _check_ga(h):
    ngene = int(h[2])
    nrun = len(h[1]) // tp.P227_GA_POP
    out = run("probe/dock-ga-tournament-crossover-local", h, nrun)
    kid, par, cut, mut = _ga_ref(h[0], h[1], ngene, int(h[3]), float(h[4]), float(h[5]))
    got = out[6].reshape(kid.shape)
    assert (got[:, 0] == kid[:, 0]).all()                           # the elite copied bit for bit
    d = np.abs(got.astype(np.float64) - kid)
    d[..., 7:] = np.minimum(d[..., 7:], np.abs(d[..., 7:] - 360))    # torsions: +-180 the same angle
    assert (d <= 1e-5 * np.maximum(1, np.abs(kid))).all(), d.max()
    unmoved = ~mut
    unmoved[..., 3:7] = False                                       # the quaternion renormalised
    assert (got[unmoved] == kid[unmoved]).all()
    return got, par, cut, mut


def test_ga_generation():
    rng = np.random.default_rng(4)
    h = tp._p227_ga_args(3, rng)
    got, par, cut, mut = _check_ga(h)
    rank = np.argsort(np.argsort(h[1].reshape(3, -1), axis=1, kind="stable"), axis=1) / 149
    assert rank[np.arange(3)[:, None, None], par[:, 1:]].mean() < 0.48                     # selection
    assert 0.7 < (cut[:, 1:, 0] < cut[:, 1:, 1]).mean() < 0.85 and mut.any()


def test_ga_cases():
    rng = np.random.default_rng(5)
    g, _ = tp._p227_ga_population(2, rng, ngene=7)                  # no torsions
    e = np.full((2, 150), -5.0, F32)                                # all tied: elite 0, tournaments keep the first
    e[1, 149] = -6.0                                                # the best last
    h = [g.ravel(), e.ravel(), np.int32(7), np.uint32(0), F32(-11.25), F32(11.25), np.zeros(g.size, F32)]
    got, par, cut, mut = _check_ga(h)
    assert (got[1, 0] == g[1, 149]).all() and (got[0, 0] == g[0, 0]).all()
    g, e = tp._p227_ga_population(1, rng, ngene=32)                 # the most genes
    g[0, :, 0] = 11.25                                              # translations on the box's edge
    h = [g.ravel(), e.ravel(), np.int32(32), np.uint32(0xDEADBEEF), F32(-11.25), F32(11.25), np.zeros(g.size, F32)]
    got, _, _, _ = _check_ga(h)
    assert (np.abs(got[..., :3]) <= 11.25).all() and (got[..., 7:] >= -180).all() and (got[..., 7:] < 180).all()


# ---- dock-rmsd-cluster-tiles-u16 ----

def _check_rm(X, grid=None):
    X = np.asarray(X, F32)
    n, natom = X.shape[:2]
    h = [X.ravel(), np.int32(n), np.int32(natom), np.zeros(n * n, np.uint16), np.zeros(n, np.int32)]
    out = run("probe/dock-rmsd-cluster-tiles-u16", h, n, grid=grid)
    R = _rm_ref(X.ravel(), n, natom)
    want = np.minimum(np.floor(R * 100 + 0.5), 65535)
    frac = R * 100 + 0.5 - np.floor(R * 100 + 0.5)
    edge = (frac < 1e-3) | (frac > 1 - 1e-3)
    got = out[3].reshape(n, n).astype(np.int64)
    assert (got[~edge] == want[~edge]).all() and (np.abs(got - want)[edge] <= 1).all()
    off = ~np.eye(n, dtype=bool)
    lo = ((R < tp.P227_RM_CUT - 1e-5) & off).sum(axis=1)
    hi = ((R < tp.P227_RM_CUT + 1e-5) & off).sum(axis=1)
    assert ((out[4] >= lo) & (out[4] <= hi)).all()
    return out, R


def test_rmsd_matrix():
    rng = np.random.default_rng(6)
    X, mode = tp._p227_rm_poses(45, rng)                            # 3 x 3 tiles, partial ones
    out, R = _check_rm(X)
    assert out[4].sum() > 0 and (out[3].reshape(45, 45).diagonal() == 0).all()


def test_rmsd_cases():
    rng = np.random.default_rng(7)
    base = rng.integers(-8, 8, (5, 3)) * 0.5                         # 5 atoms (15 floats a row)
    X = np.stack([base, base, base + [2.0, 0, 0], base + [1.5, 0, 0], base + [700.0, 0, 0],
                  base + [0, 0, -1.25]]).astype(F32)
    out, R = _check_rm(X, grid=(1, 1))
    got = out[3].reshape(6, 6)
    assert got[0, 1] == 0 and got[0, 2] == 200 and got[0, 3] == 150 and got[0, 4] == 65535 and got[2, 3] == 50
    assert list(out[4]) == [3, 3, 1, 4, 0, 3]                       # 2.0 exactly is not within 2 A
    _check_rm(X[:1], grid=(1, 1))                                   # a single pose


# ---- vs-tanimoto-popc-const-hist ----

def _check_ts(fps, q, grid):
    fps = np.asarray(fps, U32).reshape(-1, tp.P227_TS_WORDS)
    n = len(fps)
    h = [fps.ravel() if n else np.zeros(32, U32), np.int32(n), np.zeros(max(n, 1), F32), np.zeros(max(n, 1), np.uint8),
         np.zeros(tp.P227_TS_BINS, np.int32), np.zeros(tp.P227_TS_NQ, np.int32)]
    syms = {"c_query": np.asarray(q, U32), "c_qbits": np.bitwise_count(q).sum(axis=1).astype(np.int32)}
    out = run("probe/vs-tanimoto-popc-const-hist", h, n, symbols=syms, grid=grid)
    if n == 0:
        assert (out[4] == 0).all() and (out[5] == 0).all()
        return out
    best, bq, hist, hits = _ts_ref(fps, syms["c_query"])
    assert (out[2][:n] == best).all() and (out[3][:n] == bq).all()
    assert (out[4] == hist).all() and (out[5] == hits).all()
    return out


def test_tanimoto():
    rng = np.random.default_rng(8)
    h = tp._p227_ts_args(2500, rng)
    syms = tp._p227_ts_symbols(2500, rng)
    out = _check_ts(h[0], syms["c_query"], grid=(4, 1))             # 1024 threads: 3 trips
    assert out[5][:tp.P227_TS_ANALOG_Q].sum() > 0


def test_tanimoto_cases():
    rng = np.random.default_rng(9)
    q = rng.integers(0, 1 << 32, (2, 8, 32), dtype=np.uint64).astype(U32)
    q = q[0] & q[1]                                                 # dense random queries (~256 bits)
    q[2] = 0                                                        # an empty query
    q[5] = q[4]                                                     # two equal queries: the first wins
    fps = rng.integers(0, 1 << 32, (40, 32), dtype=np.uint64).astype(U32) & q[0]
    fps[0] = 0                                                      # empty: 1 against the empty query
    fps[1] = q[4]                                                   # identical to queries 4 and 5
    fps[2] = ~np.uint32(0)                                          # every bit
    out = _check_ts(fps, q, grid=(1, 1))
    assert out[2][0] == 1 and out[3][0] == 2 and out[3][1] == 4 and out[2][1] == 1 and out[4][63] >= 2
    _check_ts(np.zeros((0, 32), U32), q, grid=(2, 1))              # nothing to screen


# ---- vs-ro5-warp-ballot-compact ----

def _check_ro(h, grid=None):
    n = int(h[5])
    out = run("probe/vs-ro5-warp-ballot-compact", h, n, symbols=tp._p227_ro_symbols(), grid=grid)
    mw, logp, tpsa, hbd, hba, rotb, nv, ok, amb = _ro_ref(*h[:5])
    d = out[6]
    assert np.allclose(d["mw"], mw, rtol=0, atol=2e-3) and np.allclose(d["logp"], logp, rtol=0, atol=2e-4)
    assert np.allclose(d["tpsa"], tpsa, rtol=0, atol=2e-3)
    assert (d["hbd"] == hbd).all() and (d["hba"] == hba).all() and (d["rotb"] == rotb).all()
    assert (d["nviol"][~amb] == nv[~amb]).all()
    k = int(out[8][0])
    kept = np.sort(out[7][:k])
    assert len(np.unique(kept)) == k and (out[7][k:] == 0).all()
    got = np.zeros(n, bool)
    got[kept] = True
    assert (got[~amb] == ok[~amb]).all()
    return out, ok


def test_ro5():
    rng = np.random.default_rng(10)
    h = tp._p227_ro_args(301, rng)                                  # 76 blocks, the last with one warp busy
    out, ok = _check_ro(h)
    assert 0 < out[8][0] < 301


def _ro_mols(mols):
    """Hand-made molecules: (atoms as (element, H count), bonds as (a, b, flags))."""
    atoms, bonds, flags, aoff, boff = [], [], [], [0], [0]
    for at, bd in mols:
        deg = np.zeros(len(at), np.int64)
        for a, b, _ in bd:
            deg[a] += 1
            deg[b] += 1
        atoms += [e | (hh << 4) | ((max(d, 1) - 1) << 6) for (e, hh), d in zip(at, deg)]
        bonds += [a | (b << 16) for a, b, _ in bd]
        flags += [f for _, _, f in bd]
        aoff.append(len(atoms))
        boff.append(len(bonds))
    n = len(mols)
    return [np.array(atoms, np.uint8), np.array(aoff, np.int32), np.array(bonds, U32), np.array(flags, np.uint8),
            np.array(boff, np.int32), np.int32(n), np.zeros(n, tp.P227_RO_DESC), np.zeros(n, np.int32),
            np.zeros(1, np.int32)]


def test_ro5_cases():
    chain = lambda m, f=1: [(k, k + 1, f) for k in range(m - 1)]     # noqa: E731
    mols = [([(0, 3)], []),                                         # methane: no bonds
            ([(0, 3)] + [(0, 2)] * 11 + [(0, 3)], chain(13)),        # 10 rotatable bonds: passes
            ([(0, 3)] + [(0, 2)] * 12 + [(0, 3)], chain(14)),        # 11: fails
            ([(0, 3)] + [(0, 2)] * 12 + [(0, 3)], chain(14, 1 | 4)),  # ring bonds: none rotatable
            ([(1, 1)] * 5 + [(0, 2)] * 30, chain(35, 1 | 8)),        # 35 atoms (2 trips), 5 donors, amides
            ([(2, 1)] * 6 + [(1, 0)] * 5 + [(0, 2)] * 20, chain(31, 2)),   # 6 donors, 11 acceptors: 2 violations
            ([(7, 0)] * 4 + [(2, 0)] * 6 + [(0, 2)] * 7, chain(17, 3))]    # 4 Br: mw 514, one violation
    h = _ro_mols(mols)
    out, ok = _check_ro(h, grid=(2, 1))                             # 8 warps for 7 molecules
    d = out[6]
    assert list(d["rotb"]) == [0, 10, 11, 0, 0, 0, 0] and list(d["hbd"][4:6]) == [5, 6] and d["hba"][5] == 11
    assert list(ok) == [True, True, False, True, True, False, True] and list(d["nviol"]) == [0, 0, 0, 0, 0, 2, 1]
