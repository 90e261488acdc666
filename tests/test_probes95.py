"""probe-unseen93's kernels (kernels_cuda/probes95.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/ga-tsp-tourlen-blockmin", "probe/pso-flat-update-xorshift", "probe/ga-tournament-blx-mutate",
       "probe/sa-schwefel-chains", "probe/aco-deposit-atomicadd", "probe/aco-roulette-smem"]


def copies(host):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in host]


def is_perm_rows(t, m):
    return (np.sort(np.asarray(t).reshape(-1, m), axis=1) == np.arange(m)).all()


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen93"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes95.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # xorshift32's first values from state 1 (Marsaglia's 270369, 67634689, ...)
    s1 = tp._p95_xorshift(np.array([1], np.uint32))
    assert int(s1[0]) == 270369 and int(tp._p95_xorshift(s1)[0]) == 67634689
    n = 1 << 12
    tours, cx, cy, L, bb, nn = tp._p95_tsp_args(n, rng)
    assert tours.dtype == np.int32 and is_perm_rows(tours, 64) and nn == n and len(bb) == n // 256
    assert cx.dtype == np.float32 and 0 <= min(cx.min(), cy.min()) and max(cx.max(), cy.max()) < 100
    # pso: 2^12 particles x 30
    x, v, pb, g, st, w, c1, c2, vmax, lo, hi, dim, total = tp._p95_pso_args(n, rng)
    d = tp._P95_PSO_DIM
    assert total == n * d == len(x) == len(v) == len(pb) == len(st) and dim == d and len(g) == d
    assert lo == -hi == np.float32(-5.12) and np.abs(x).max() <= hi and np.abs(pb).max() <= hi
    assert 0.95 < v.std() < 1.05 and st.dtype == np.uint32 and (st != 0).all()
    assert (pb.reshape(n, d) == g).all(axis=1).any()                         # gbest: a particle's pbest
    xr, vr, sr, gap = tp._p95_pso_ref(x, v, pb, g, st)
    assert 0.01 < (vr == 0).mean() < 0.06 and 0.4 < (np.abs(vr) == np.float32(2)).mean() < 0.6
    # ga: 2^12 x 16 genes
    pop, fit, ch, st, pc, pm, sig, glo, ghi, nn = tp._p95_ga_args(n, rng)
    assert len(pop) == 16 * n and np.abs(pop).max() <= 5.12 and fit.dtype == np.float32
    np.testing.assert_allclose(fit, (pop.reshape(n, 16).astype(np.float64) ** 2).sum(axis=1), rtol=1e-6)
    g_, s_, par, cross, mut = tp._p95_ga_ref(pop, fit, st)
    assert abs(cross.mean() - 0.9) < 0.02 and abs(mut.mean() - 1 / 16) < 0.005
    assert np.median(fit[par[0]]) < np.percentile(fit, 30)                   # tournament winners are fit
    # sa: 1024 chains of 500 moves
    m = 1 << 10
    x0, fo, fb, st, t0, cool, step, iters, nn = tp._p95_sa_args(m, rng)
    assert iters == 500 and np.abs(x0).max() <= 500 and len(x0) == 8 * m and (st != 0).all()
    p, f, best, s, acc, gap = tp._p95_sa_ref(x0, st)
    assert 0.3 < acc.mean() / 500 < 0.55 and (best <= f).all() and (best < tp._p95_schwefel(x0)).all()
    np.testing.assert_allclose(f, tp._p95_schwefel(p), atol=0.05)
    assert f.mean() < 0.6 * tp._p95_schwefel(x0).mean()
    # aco deposit: 2^12 ants on 128 cities
    tours, L, tau, Q, nn = tp._p95_aco_args(n, rng)
    N = tp._P95_ACO_N
    assert tours.dtype == np.int32 and is_perm_rows(tours, N) and 0.05 <= tau.min() and tau.max() <= 0.15
    _, dm = tp._p95_aco_cities(N, 93)
    t = tours.reshape(n, N)
    np.testing.assert_allclose(L, dm[t, np.roll(t, -1, axis=1)].sum(axis=1), rtol=1e-6)
    base = tp._p95_aco_base_tour()
    be = {tuple(sorted(e)) for e in zip(base, np.roll(base, -1))}
    on = np.array([tuple(sorted(e)) in be for e in zip(t[:256].ravel(), np.roll(t[:256], -1, axis=1).ravel())])
    assert 0.9 < on.mean() < 0.99                                            # ~95% of edges the base tour's
    assert len(np.unique(t[:, 0])) == N                                      # the ants start at every city
    # aco construct: 32 cities
    C, D, tr, ln, st, nn = tp._p95_ac_args(n, rng)
    Cm, Dm = C.reshape(32, 32), D.reshape(32, 32)
    assert (np.diag(Cm) == 0).all() and (Cm + np.eye(32) > 0).all() and (Dm == Dm.T).all() and (Cm == Cm.T).all()
    tours, L, s, gap = tp._p95_ac_ref(C, D, st[:512])
    assert is_perm_rows(tours, 32) and len(np.unique(tours[:, 0])) == 32
    np.testing.assert_allclose(L, Dm.astype(np.float64)[tours, np.roll(tours, -1, axis=1)].sum(axis=1), rtol=1e-5)


# ---- ga-tsp-tourlen-blockmin ----

def test_tsp_fitness():
    n = 300                                                  # 2 blocks, the last partial
    host, (tours, cx, cy, L, bb, nn), *_ = launch("probe/ga-tsp-tourlen-blockmin", n)
    ref, best = tp._p95_tsp_ref(*host[:3])
    np.testing.assert_allclose(L, ref, rtol=2e-6)
    np.testing.assert_allclose(bb, best, rtol=2e-6)
    assert bb[1] == L[256:].min() and bb[0] == L[:256].min()
    # a tour that stays on one city has length 0 and is its block's best
    host[0].reshape(n, 64)[270] = 5
    out = run("probe/ga-tsp-tourlen-blockmin", copies(host), n)
    assert out[3][270] == 0 and out[4][1] == 0 and out[4][0] == bb[0]


# ---- pso-flat-update-xorshift ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_pso_update(policy):
    n = 40                                                   # 1200 coordinates: 5 blocks, the last partial
    host, out, *_ = launch("probe/pso-flat-update-xorshift", n, policy=policy)
    x, v, s, gap = tp._p95_pso_ref(*host[:5])
    assert gap > 1e-4                                        # no coordinate within rounding of a wall
    np.testing.assert_allclose(out[0], x, rtol=0, atol=2e-6)
    np.testing.assert_allclose(out[1], v, rtol=0, atol=2e-6)
    assert (out[4] == s).all() and (out[1] == 0).sum() == (v == 0).sum() > 0
    assert (out[2] == host[2]).all() and (out[3] == host[3]).all()


# ---- ga-tournament-blx-mutate ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_ga_breed(policy):
    n = 300
    host, out, *_ = launch("probe/ga-tournament-blx-mutate", n, policy=policy)
    g, s, par, cross, mut = tp._p95_ga_ref(host[0], host[1], host[3])
    np.testing.assert_allclose(out[2], g.ravel(), rtol=0, atol=2e-6)
    assert (out[3] == s).all() and cross.any() and (~cross).any() and mut.any()
    # a copied gene equals its first parent's bit for bit
    keep = ~cross[:, None] & ~mut
    assert (out[2].reshape(n, 16)[keep] == host[0].reshape(-1, 16)[par[0]][keep]).all()


def test_ga_breed_edge_cases():
    rng = np.random.default_rng(3)
    n = 64
    host = tp._p95_ga_args(n, rng)
    # no crossover, no mutation: each child is its first tournament's winner; three draws a
    # tournament, two more for alpha and the crossover test, then one a gene
    h = copies(host)
    h[4], h[5] = np.float32(0), np.float32(0)
    out = run("probe/ga-tournament-blx-mutate", copies(h), n)
    g, s, par, cross, mut = tp._p95_ga_ref(h[0], h[1], h[3], p_cross=0, p_mut=0)
    assert not cross.any() and not mut.any()
    assert (out[2].reshape(n, 16) == h[0].reshape(n, 16)[par[0]]).all() and (out[3] == s).all()
    st = h[3]
    for _ in range(3 * 2 + 2 + 16):
        st = tp._p95_xorshift(st)
    assert (out[3] == st).all()
    # every gene mutated, with a wide sigma: many land on the box's walls
    h = copies(host)
    h[5], h[6] = np.float32(1), np.float32(4)
    out = run("probe/ga-tournament-blx-mutate", copies(h), n, policy="random")
    g, s, par, cross, mut = tp._p95_ga_ref(h[0], h[1], h[3], p_mut=1, sigma=4)
    assert mut.all()
    np.testing.assert_allclose(out[2], g.ravel(), rtol=0, atol=1e-5)
    assert (out[3] == s).all() and (np.abs(out[2]) == np.float32(5.12)).mean() > 0.05


# ---- sa-schwefel-chains ----

@pytest.mark.parametrize("policy, n, iters", [("lockstep", 40, 100), ("random", 20, 40)])
def test_sa_schwefel(policy, n, iters):
    # fewer moves than the probe's 500 (the emulator is slow on long loops), a partial block
    rng = np.random.default_rng(0)
    host = tp._p95_sa_args(n, rng)
    assert host[7] == tp._P95_SA_ITERS
    host[7] = np.int32(iters)
    x, fo, fb, st, *_ = run("probe/sa-schwefel-chains", copies(host), n, policy=policy)
    p, f, best, s, acc, gap = tp._p95_sa_ref(host[0], host[3], iters=iters)
    assert gap > 1e-5                                        # no test within rounding of its threshold
    np.testing.assert_allclose(x, p, rtol=0, atol=1e-3)
    np.testing.assert_allclose(fo, f, rtol=0, atol=0.02)
    np.testing.assert_allclose(fb, best, rtol=0, atol=0.02)
    assert (st == s).all() and (acc > 0).all() and (acc < iters).all()
    assert (fb <= fo).all() and (fb < tp._p95_schwefel(host[0])).mean() > 0.9
    np.testing.assert_allclose(fo, tp._p95_schwefel(x), atol=0.02)


# ---- aco-deposit-atomicadd ----

@pytest.mark.parametrize("policy, n", [("lockstep", 100), ("random", 40)])
def test_aco_deposit(policy, n):
    # 100: 3 full warps and a partial one (40: a full and a partial one) of a 128-thread block
    host, (tours, L, tau, *_), *_ = launch("probe/aco-deposit-atomicadd", n, policy=policy)
    ref = tp._p95_aco_ref(*host[:3])
    np.testing.assert_allclose(tau, ref, rtol=2e-6, atol=1e-6)
    assert (tau >= host[2]).all() and (tau > host[2]).sum() >= 256
    np.testing.assert_allclose(tau.sum() - host[2].astype(np.float64).sum(), (2 * 128 / L.astype(np.float64)).sum(),
                               rtol=1e-4)


def test_aco_deposit_same_tour():
    # every ant on one tour: each of its 256 directed entries gets n Q / L, the rest nothing
    rng = np.random.default_rng(4)
    n = 64
    host = tp._p95_aco_args(n, rng)
    host[0] = np.tile(host[0][:128], n)
    host[1] = np.full(n, host[1][0], np.float32)
    host[2] = np.zeros(128 * 128, np.float32)
    out = run("probe/aco-deposit-atomicadd", copies(host), n, policy="random")
    t = host[0][:128].astype(np.int64)
    hot = np.zeros(128 * 128, bool)
    hot[t * 128 + np.roll(t, -1)] = True
    hot[np.roll(t, -1) * 128 + t] = True
    assert hot.sum() == 256 and (out[2][~hot] == 0).all()
    np.testing.assert_allclose(out[2][hot], n * (np.float32(1) / host[1][0]), rtol=1e-5)


# ---- aco-roulette-smem ----

# random (slow): the block's 4 warps stage the tables, 20 ants (a partial warp) read them
@pytest.mark.parametrize("policy, n", [("lockstep", 200), ("random", 20)])
def test_aco_construct(policy, n):
    host, (C, D, tours, L, st, nn), *_ = launch("probe/aco-roulette-smem", n, policy=policy)
    t, l, s, gap = tp._p95_ac_ref(host[0], host[1], host[4])
    assert (tours == t.ravel()).all() and (L == l).all() and (st == s).all()      # bit for bit
    assert is_perm_rows(tours, 32)
    # the ants prefer near cities: their tours are far shorter than random ones
    Dm = D.reshape(32, 32).astype(np.float64)
    rnd = np.random.default_rng(1).permuted(np.tile(np.arange(32), (200, 1)), axis=1)
    assert L.mean() < 0.6 * Dm[rnd, np.roll(rnd, -1, axis=1)].sum(axis=1).mean()
