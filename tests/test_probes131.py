"""probe-unseen129's kernels (kernels_cuda/probes131.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/q4-plane-stress-ku-atomic", "probe/csr-spmv-q4-stiffness", "probe/pcg-jacobi-update-dot",
       "probe/truss-member-buckling-check", "probe/beam-superposition-smem", "probe/vonmises-hist-smem"]


def copy(host):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in host]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen129"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes131.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # Q4 mesh: 1024 elements a row at the probe's size, counter-clockwise elements (det J >
    # 0), nodes within the jitter, interior nodes in 4 elements
    assert tp._p131_side(1 << 22, tp.P131_Q4_NX) == 1024 and tp._p131_side(300, 1024) == 32
    n = 4096
    xy, u, conn, f, E, nu, t, nn = tp._p131_q4_args(n, rng)
    assert xy.dtype == u.dtype == np.float32 and conn.dtype == np.int32 and nn == n and len(conn) == 4 * n
    assert len(xy) == 2 * 65 * 65 and not f.any() and E == 210000 and nu == np.float32(0.3)
    grid = np.stack(np.meshgrid(np.arange(65), np.arange(65)), axis=-1).reshape(-1)
    assert np.abs(xy - grid).max() <= tp.P131_Q4_JITTER + 1e-6
    uses = np.bincount(conn, minlength=65 * 65).reshape(65, 65)
    assert (uses[1:-1, 1:-1] == 4).all() and uses[0, 0] == 1
    fr, dmin = tp._p131_q4_ref(xy, u, conn)
    assert dmin.min() > 0.1 and 1e-4 < np.abs(u).mean() < 2e-3
    # a rigid motion has no internal forces; a uniform strain on a regular mesh none at
    # interior nodes
    p = xy.reshape(-1, 2).astype(np.float64)
    rigid = np.stack([0.3 - 1e-3 * p[:, 1], -0.2 + 1e-3 * p[:, 0]], axis=1)
    assert np.abs(tp._p131_q4_ref(xy, rigid.ravel(), conn)[0]).max() < 1e-6
    g = grid.reshape(-1, 2).astype(np.float64)
    fu = tp._p131_q4_ref(grid, (1e-3 * g).ravel(), conn)[0].reshape(65, 65, 2)
    assert np.abs(fu[1:-1, 1:-1]).max() < 1e-8 and np.abs(fu[0, 0]).max() > 10
    # CSR: the plane-stress pattern, 18 nonzeros an interior row, 8 at a corner, sorted
    # columns, a symmetric pattern, the diagonal dominant-ish; 1024 nodes a row at 2^21 rows
    assert tp._p131_side((1 << 21) // 2, tp.P131_CSR_NX) == 1024
    rp, ci, v, x, y, nr = tp._p131_csr_args(2 * 4096, rng)
    cnt = np.diff(rp)
    assert rp.dtype == ci.dtype == np.int32 and v.dtype == x.dtype == np.float32 and nr == 8192 and not y.any()
    assert cnt.max() == 18 and cnt.min() == 8 and (cnt == 18).mean() > 0.9 and rp[-1] == len(ci)
    rows = np.repeat(np.arange(nr), cnt)
    assert all((np.diff(ci[rp[r]:rp[r + 1]]) > 0).all() for r in range(0, nr, 97))
    pairs = set(zip(rows.tolist(), ci.tolist()))
    assert all((c, r) in pairs for r, c in list(pairs)[:2000])
    dg = v[ci == rows]
    assert len(dg) == nr and dg.min() >= 8 and np.abs(v[ci != rows]).max() < 8
    assert set(np.unique(np.abs(ci - rows))) <= {0, 1, 2, 3, *range(125, 132)}   # 64 nodes a row
    # PCG: diag in range, float32 throughout
    xs, r, z, pp, q, dg, alpha, rz, nn = tp._p131_pcg_args(1000, rng)
    assert all(a.dtype == np.float32 for a in (xs, r, z, pp, q, dg, rz)) and not z.any() and rz[0] == 0
    assert dg.min() >= 1 and dg.max() <= 4 and alpha == np.float32(0.37)
    # truss: 4 members a node (right, up, diagonals), lengths a panel or a diagonal within
    # the jitter, ~half in compression, most warps mixed, slender bars in compression
    n = 1 << 14
    ends, area, xy, u, E, fy, al, *outs, nn = tp._p131_truss_args(n, rng)
    e = ends.reshape(-1, 2)
    assert len(e) == n and ends.dtype == np.int32 and (e[:, 1] > e[:, 0]).all() and nn == n
    assert set(np.unique(area)) == set(np.float32(tp.P131_TR_AREAS)) and not any(o.any() for o in outs)
    assert np.bincount(e[:, 0]).max() == 4 and (e[:, 1] - e[:, 0] == 1).sum() > n / 5
    P = xy.reshape(-1, 2)
    L = np.hypot(*(P[e[:, 1]] - P[e[:, 0]]).T) / tp.P131_TR_PANEL
    assert ((np.abs(L - 1) < 0.15) | (np.abs(L - np.sqrt(2)) < 0.15)).all()
    N, sig, ut, lam = tp._p131_truss_ref(ends, area, xy, u)
    comp = (N < 0).reshape(-1, 32)
    assert 0.4 < comp.mean() < 0.6 and (comp.any(axis=1) & ~comp.all(axis=1)).mean() > 0.95
    assert 0.5 < lam[N < 0].min() and lam.max() < 5 and 10 < np.median(np.abs(sig)) < 200
    # beam: the loads in the span
    ld, nl, Lb, EI, *outs, nn = tp._p131_beam_args(1000, rng)
    ld = ld.reshape(-1, 2)
    assert nl == 1024 == len(ld) and ld[:, 0].min() >= 0 and ld[:, 0].max() <= 20 and Lb == 20
    assert ld[:, 1].min() >= 0.5 and ld[:, 1].max() <= 2 and not any(o.any() for o in outs)
    # von Mises: the histogram peaks near bin 6 (~40 MPa), a thin tail past smax
    *comp, hist, smax, nn = tp._p131_vm_args(1 << 16, rng)
    assert all(c.dtype == np.float32 and len(c) == 1 << 16 for c in comp) and hist.dtype == np.uint32
    h, vm, edge = tp._p131_vm_ref(*comp)
    assert 5 <= h.argmax() <= 8 and 40 < np.median(vm) < 70 and 0 < h[-1] < 0.002 * (1 << 16)
    assert tp.get(IDS[5]).grid(1 << 24) == 4096


# ---- q4-plane-stress-ku-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_q4_internal_force(policy):
    n = 300                                                 # 2 blocks, the last partial
    host, (xy, u, conn, f, *_), *_ = launch("probe/q4-plane-stress-ku-atomic", n, policy=policy)
    ref = tp._p131_q4_ref(*host[:3])[0]
    assert np.abs(ref).max() > 50
    np.testing.assert_allclose(f, ref, rtol=0, atol=2e-5 * np.abs(ref).max())
    used = np.zeros(len(f) // 2, bool)
    used[conn] = True
    assert not f.reshape(-1, 2)[~used].any()                # the last row's missing elements


def test_q4_rigid_motion():
    # a rigid rotation: no forces, but for float32's rounding
    rng = np.random.default_rng(3)
    n = 100
    host = tp._p131_q4_args(n, rng)
    p = host[0].reshape(-1, 2).astype(np.float64)
    host[1] = np.stack([-1e-3 * p[:, 1], 1e-3 * p[:, 0]], axis=1).astype(np.float32).ravel()
    f = run("probe/q4-plane-stress-ku-atomic", host, n)[3]
    assert np.abs(f).max() < 0.05                           # a unit strain gives forces ~ 1e5


# ---- csr-spmv-q4-stiffness ----

def test_csr_spmv():
    n = 2 * 350                                             # 3 blocks, the last partial
    host, out, *_ = launch("probe/csr-spmv-q4-stiffness", n)
    np.testing.assert_allclose(out[4], tp._p131_csr_ref(*host[:4]), rtol=0, atol=2e-5)
    # the identity part: x on the diagonal only
    h = copy(host)
    h[2] = np.where(h[1] == np.repeat(np.arange(n), np.diff(h[0])), np.float32(2), np.float32(0))
    assert (run("probe/csr-spmv-q4-stiffness", h, n)[4] == 2 * host[3]).all()


# ---- pcg-jacobi-update-dot ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_pcg_update(policy):
    n = 1000                                                # 4 blocks, the last partial
    host, (x, r, z, p, q, d, a, rz, nn), *_ = launch("probe/pcg-jacobi-update-dot", n, policy=policy)
    xr, rr, zr, rzr = tp._p131_pcg_ref(host[0], host[1], host[3], host[4], host[5])
    np.testing.assert_allclose(x, xr, rtol=0, atol=1e-6)
    np.testing.assert_allclose(r, rr, rtol=0, atol=1e-6)
    np.testing.assert_allclose(z, zr, rtol=2e-6, atol=1e-7)
    assert abs(rz[0] - rzr) < 1e-5 * rzr and (p == host[3]).all() and (d == host[5]).all()


# ---- truss-member-buckling-check ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_truss_member_check(policy):
    n = 700                                                 # 3 blocks, the last partial
    host, out, *_ = launch("probe/truss-member-buckling-check", n, policy=policy)
    N, sig, ut, lam = tp._p131_truss_ref(*host[:4])
    assert np.abs(sig).min() > 0.01                         # no member within rounding of a sign change (~1e-3 MPa)
    np.testing.assert_allclose(out[7], N, rtol=2e-4)
    np.testing.assert_allclose(out[8], sig, rtol=2e-4)
    np.testing.assert_allclose(out[9], ut, rtol=2e-4)
    assert 0.3 < (N < 0).mean() < 0.7 and ut[N < 0].mean() > 3 * ut[N > 0].mean()


def test_truss_stocky_and_tension():
    # a uniform stretch (all in tension: util = |sigma| / fy), then a uniform shortening of
    # stocky bars (lam <= 0.2: chi 1, the same utilization)
    rng = np.random.default_rng(4)
    n = 200
    host = tp._p131_truss_args(n, rng)
    for s, A in ((1e-3, None), (-1e-3, 3e6)):
        h = copy(host)
        h[3] = (s * h[2].astype(np.float64)).astype(np.float32)
        if A:
            h[1] = np.full(n, A, np.float32)
        out = run("probe/truss-member-buckling-check", h, n)
        N, sig, ut, lam = tp._p131_truss_ref(*h[:4])
        assert (np.sign(N) == np.sign(s)).all() and lam.max() <= 0.2
        np.testing.assert_allclose(out[8], 210.0 * np.sign(s), rtol=1e-4)
        np.testing.assert_allclose(out[9], 210.0 / 355.0, rtol=1e-4)


# ---- beam-superposition-smem ----

def test_beam_superposition():
    # 300 loads (2 tiles, the second partial), 300 points (2 blocks, the last partial)
    rng = np.random.default_rng(2)
    n = 300
    host = tp._p131_beam_args(n, rng, nloads=300)
    out = run("probe/beam-superposition-smem", host, n)
    w, M = tp._p131_beam_ref(host[0], n)
    np.testing.assert_allclose(out[4], w, rtol=2e-5)
    np.testing.assert_allclose(out[5], M, rtol=2e-5)
    # one load at midspan: P L^3 / 48 EI and P L / 4 under it, linear moment, symmetric
    h = copy(host)
    h[0], h[1], h[6] = np.array([10.0, 1.0], np.float32), np.int32(1), np.int32(200)
    out = run("probe/beam-superposition-smem", h, 200)
    d, m = out[4][:200], out[5][:200]
    assert abs(d[99] / (20.0 ** 3 / (48 * 5e6)) - 1) < 1e-3 and abs(m[99] / 4.975 - 1) < 1e-5
    np.testing.assert_allclose(d, d[::-1], rtol=5e-5)            # float32 cancels in L - x near the ends
    np.testing.assert_allclose(m[:100], (np.arange(100) + 0.5) * 0.1 / 2, rtol=1e-5)


# ---- vonmises-hist-smem ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_vonmises_hist(policy):
    n = 9000                                                # 3 blocks, 11 or 12 trips a thread
    host, out, *_ = launch("probe/vonmises-hist-smem", n, policy=policy)
    h, vm, edge = tp._p131_vm_ref(*host[:6])
    assert edge.min() > 1e-5                                # no point within rounding of a bin's edge
    assert (out[6] == h).all() and h.sum() == n and h[-1] > 0


def test_vonmises_uniaxial_shear():
    # uniaxial stress s: sigma_vm = |s|; pure shear t: sqrt(3) |t|
    # (bins 0 .. 71, each value 0.1 bin or more from an edge; the last bin takes the rest)
    rng = np.random.default_rng(9)
    n = 1000
    k = rng.integers(0, 72, n)
    s = ((k + rng.uniform(0.1, 0.9, n)) * 6.25 * rng.choice([-1, 1], n)).astype(np.float32)
    z = np.zeros(n, np.float32)
    host = [s, z, z, z, z, z, np.zeros(64, np.uint32), np.float32(400), np.int32(n)]
    out = run("probe/vonmises-hist-smem", copy(host), n)
    ref = np.minimum(k, 63)
    assert (out[6] == np.bincount(ref, minlength=64)).all() and out[6][-1] > 100
    host[0], host[3] = z, s / np.float32(np.sqrt(3))
    out = run("probe/vonmises-hist-smem", copy(host), n)
    assert (out[6] == np.bincount(ref, minlength=64)).all()
