"""probe-unseen72's kernels (kernels_cuda/probes74.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/rk4-lorenz-sweep", "probe/dopri-vdp-double", "probe/em-ou-pathmax", "probe/pso-rastrigin-atomicmin",
       "probe/sa-qubo-smem", "probe/ga-knapsack-tournament"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen72"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes74.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 12
    x, y, z, rho, *rest = tp._u72_lorenz_args(n, rng)
    assert all(a.dtype == np.float32 for a in (x, y, z, rho)) and rho.min() >= 20 and rho.max() <= 32
    assert np.abs(x).max() <= 15 and 5 <= z.min() and rest[-1] == n
    a, b, e = tp._u72_dp_tableau()
    assert np.allclose(a[6, :6], b[:6]) and abs(b.sum() - 1) < 1e-15 and abs(e.sum()) < 1e-15
    assert np.allclose(a.sum(axis=1), [0, 0.2, 0.3, 0.8, 8 / 9, 1, 1])          # the stages' nodes c
    syms = tp._u72_dp_syms(n, rng)
    assert syms["c_dp_a"].shape == (49,) and syms["c_dp_a"].dtype == np.float64
    v = tp._u72_vdp_args(n, rng)
    assert v[0].dtype == np.float64 and 0.1 <= v[2].min() and v[2].max() <= 10 and np.abs(v[1]).max() <= 2
    _, _, acc, rej, gap = tp._u72_dopri_ref(*v[:3])
    tries = acc + rej
    assert 10 < acc.min() and acc.max() < 120 and rej.sum() > 0 and tries.max() < tp.U72_DP_MAX
    assert tries.reshape(-1, 32).max(axis=1).mean() > 1.5 * tries.mean()      # divergent warps
    x0 = tp._u72_em_args(n, rng)[0]
    assert x0.dtype == np.float32 and abs(x0.mean() - 0.5) < 0.05
    xs, vs, pb, pf, g, key, *rest = tp._u72_pso_args(n, rng)
    d = tp.U72_PSO_DIM
    assert len(xs) == len(vs) == len(pb) == n * d and pf.dtype == np.float32 and key.dtype == np.uint64
    np.testing.assert_allclose(pf, tp._u72_rastrigin(pb.reshape(n, d)), rtol=1e-6)
    assert (pf <= tp._u72_rastrigin(xs.reshape(n, d)) + 1e-3).all()              # pbest no worse than x
    k = int(key[0])
    assert k & 0xffffffff == np.argmin(pf) and np.uint32(k >> 32).view(np.float32) == pf.min()
    assert (g == pb.reshape(n, d)[np.argmin(pf)]).all()
    imp = tp._u72_pso_ref(xs, vs, pb, pf, g, key)[4]
    assert 0.4 < imp.mean() < 0.6
    Q, xb, e0, *rest = tp._u72_sa_args(n, rng)
    Qm = Q.reshape(64, 64)
    assert (Qm == Qm.T).all() and (Q * 4 == np.round(Q * 4)).all() and np.abs(Q).max() <= 2
    assert xb.dtype == np.uint8 and set(np.unique(xb)) == {0, 1} and len(xb) == 64 * n
    xf = xb.reshape(n, 64).astype(np.float64)
    assert (e0 == np.einsum("ci,ij,cj->c", xf, Qm.astype(np.float64), xf)).all()
    w, val, cap = tp._u72_ks_items()
    assert w.dtype == np.int32 and cap == w.sum() // 2 and 1 <= w.min() and w.max() <= 100
    pop, nxt, fit, isl, capa, *rest = tp._u72_ga_args(n, rng)
    assert pop.dtype == np.uint64 and len(isl) == n // 128 and capa == cap
    fill = np.unpackbits(pop.view(np.uint8)).mean()
    assert abs(fill - tp.U72_GA_FILL / 256) < 0.01
    f = tp._u72_ga_ref(pop)[0]
    assert 0.6 < (f > 0).mean() < 0.9 and (f < 0).any()


# ---- rk4-lorenz-sweep ----

def test_rk4_lorenz():
    n = 300                                                 # 2 blocks, the last partial
    host, (x, y, z, rho, sigma, beta, dt, nn), *_ = launch("probe/rk4-lorenz-sweep", n)
    assert nn == n and sigma == 10 and dt == np.float32(0.005)
    for got, ref in zip((x, y, z), tp._u72_lorenz_ref(*host[:4])):
        np.testing.assert_allclose(got, ref, rtol=0, atol=3e-3)
    assert (rho == host[3]).all() and np.abs(x - host[0]).min() > 0


# ---- dopri-vdp-double ----

def test_dopri_vdp():
    # to t = 0.3 (the probe's t_end is 4; the emulator is slow on the longest loops), mu over
    # the whole range plus a linear oscillator (mu 0) and a system at rest (no error: the
    # step grows 5x a try)
    rng = np.random.default_rng(5)
    n = 40                                                  # one partial block
    host = tp._u72_vdp_args(n, rng)
    host[2][:3] = [0.0, 10.0, 0.1]
    host[0][3] = host[1][3] = 0.0
    host[5] = np.float64(0.3)
    out = run("probe/dopri-vdp-double", host, n, symbols=tp._u72_dp_syms(n, rng))
    y0, y1, acc, rej, gap = tp._u72_dopri_ref(*host[:3], t_end=0.3)
    assert gap.min() > 1e-9 and rej.sum() > 5 and acc.max() > 2 * acc.min()
    assert (out[3] == acc).all() and (out[4] == rej).all()
    np.testing.assert_allclose(out[0], y0, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out[1], y1, rtol=1e-12, atol=1e-14)
    assert out[0][3] == 0 and out[1][3] == 0 and acc[3] == 3 and rej[3] == 0   # 0.01, 0.05, then the 0.24 left
    c, s = np.cos(0.3), np.sin(0.3)
    np.testing.assert_allclose([out[0][0], out[1][0]], [host[0][0] * c + host[1][0] * s,
                                                        host[1][0] * c - host[0][0] * s], atol=1e-6)


# ---- em-ou-pathmax ----

def test_em_ou_pathmax():
    n = 300
    host, (x0, xe, xm, *_), *_ = launch("probe/em-ou-pathmax", n)
    e, m = tp._u72_em_ref(host[0])
    np.testing.assert_allclose(xe, e, rtol=0, atol=5e-6)
    np.testing.assert_allclose(xm, m, rtol=0, atol=5e-6)
    assert (xm >= x0).all() and (xm > x0).mean() > 0.5 and (xm == x0).any()      # some paths start at their max
    assert abs(e.mean() - tp.U72_EM_MU) < 0.05 and 0.15 < e.std() < 0.3            # near stationary N(0.5, 0.2^2)


# ---- pso-rastrigin-atomicmin ----

def pso_check(host, out):
    x, v, pb, pf, imp, f = tp._u72_pso_ref(*host[:6])
    assert np.abs(f - host[3]).min() > 1e-3                 # no particle within rounding of its pbest
    np.testing.assert_allclose(out[0], x.ravel(), rtol=0, atol=2e-6)
    np.testing.assert_allclose(out[1], v.ravel(), rtol=0, atol=2e-6)
    np.testing.assert_allclose(out[2], pb.ravel(), rtol=0, atol=2e-6)
    np.testing.assert_allclose(out[3], pf, rtol=1e-6, atol=1e-4)
    d = tp.U72_PSO_DIM
    assert (out[2].reshape(-1, d)[~imp] == host[2].reshape(-1, d)[~imp]).all()
    assert (out[3][~imp] == host[3][~imp]).all()
    k0 = int(host[5][0])
    keys = [(int(out[3][j:j + 1].view(np.uint32)[0]) << 32) | int(j) for j in np.flatnonzero(imp)]
    k = min([k0] + keys)
    assert int(out[5][0]) == k
    if k != k0:                                             # the best improver's, f and index
        cand = np.where(imp, f, np.inf)
        j = int(np.argmin(cand))
        assert np.sort(cand)[1] - cand[j] > 1e-3 and k & 0xffffffff == j
    return imp


# 2 blocks, the last partial (random, slow: 4 particles in it)
@pytest.mark.parametrize("policy, n", [("lockstep", 300), ("random", 260)])
def test_pso_rastrigin(policy, n):
    host, out, *_ = launch("probe/pso-rastrigin-atomicmin", n, policy=policy)
    imp = pso_check(host, out)
    assert 0.3 < imp.mean() < 0.7 and int(out[5][0]) == int(host[5][0])     # none beats the swarm's best
    # the first step's key (all ones): the best improver's
    host[5] = np.array([2 ** 64 - 1], np.uint64)
    out = run("probe/pso-rastrigin-atomicmin", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n,
              policy=policy)
    pso_check(host, out)
    assert int(out[5][0]) != 2 ** 64 - 1


def test_pso_edge_cases():
    # no particle improving (the key and bests untouched), then all of them improving
    rng = np.random.default_rng(8)
    n = 40
    host = tp._u72_pso_args(n, rng)
    for pf in (np.zeros(n, np.float32), np.full(n, 1e9, np.float32)):
        h = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
        h[3] = pf
        out = run("probe/pso-rastrigin-atomicmin", [a.copy() if isinstance(a, np.ndarray) else a for a in h], n,
                  policy="random")
        imp = pso_check(h, out)
        assert imp.all() if pf[0] else not imp.any()


# ---- sa-qubo-smem ----

@pytest.mark.parametrize("policy, n", [("lockstep", 40), ("random", 20)])
def test_sa_qubo(policy, n):
    # 12 moves a chain (the probe's 64 are slow in the emulator), a partial block
    rng = np.random.default_rng(6)
    host = tp._u72_sa_args(n, rng)
    assert host[9] == tp.U72_SA_MOVES
    host[9] = np.int32(12)
    Q, x0, e0, xo, eo, eb, *_ = run("probe/sa-qubo-smem", host, n, policy=policy)
    x, e, best, gap = tp._u72_sa_ref(*host[:3], moves=12)
    assert gap > 1e-6
    assert (xo == x).all() and (eo == e).all() and (eb == best).all()
    assert (xo != host[1]).any() and (eb <= host[2]).all() and (eb < host[2]).mean() > 0.5
    xf = xo.reshape(n, 64).astype(np.float64)
    assert (eo == np.einsum("ci,ij,cj->c", xf, Q.reshape(64, 64).astype(np.float64), xf)).all()


# ---- ga-knapsack-tournament ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_ga_knapsack(policy):
    n = 256                                                 # 2 islands
    host, (pop, nxt, fit, isl, *_), *_ = launch("probe/ga-knapsack-tournament", n, policy=policy)
    f, child, best = tp._u72_ga_ref(host[0])
    assert (fit == f).all() and (nxt == child).all() and (isl == best).all()
    # the children's parents are fitter than average: crossover of tournament winners
    assert f[(f > 0)].size > n / 2 and (tp._u72_ga_ref(child)[0].mean() > f.mean())


def test_ga_edge_cases():
    # an island of identical genomes (children equal but for a mutation), an island of
    # the empty genome and the full one (fitness 0 and cap - sum(w))
    rng = np.random.default_rng(2)
    n = 256
    host = tp._u72_ga_args(n, rng)
    host[0][:128] = host[0][7]
    host[0][128:] = np.where(np.arange(128) % 2 == 0, np.uint64(0), np.uint64(2 ** 64 - 1))
    out = run("probe/ga-knapsack-tournament", host, n, policy="random", symbols=tp._u72_ga_syms(n, rng))
    f, child, best = tp._u72_ga_ref(host[0])
    w, v, cap = tp._u72_ks_items()
    assert (out[2] == f).all() and (out[1] == child).all() and (out[3] == best).all()
    assert best[1] == 0 and f[129] == cap - w.sum()
    diff = np.unpackbits((out[1][:128] ^ host[0][:128]).view(np.uint8)).reshape(128, 64).sum(axis=1)
    assert set(diff) == {0, 1} and 0.02 < diff.mean() < 0.25                 # one bit at p_mut 0.1
