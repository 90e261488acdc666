"""probe-unseen62's kernels (kernels_cuda/probes64.cu) give numpy's (or plain Python's)
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
from math import erf

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen62"]
    assert ids == ["probe/bs-greeks-fd", "probe/asian-mc-xorshift", "probe/american-put-tree",
                   "probe/bollinger-bands", "probe/portfolio-variance-warp", "probe/orderbook-depth"]
    assert all(tp.get(i).source == "probes64.cu" and tp.get(i).note for i in ids)



_erf = np.vectorize(erf)


def ncdf(x):
    return 0.5 * (1 + _erf(np.asarray(x, np.float64) / np.sqrt(2)))


def bs(S, K, T, r, v, put):
    """The Black-Scholes value in float64 (put: 0 / 1 an option)."""
    S, K, T, v = (np.asarray(a, np.float64) for a in (S, K, T, v))
    d1 = (np.log(S / K) + (r + 0.5 * v * v) * T) / (v * np.sqrt(T))
    d2 = d1 - v * np.sqrt(T)
    df = np.exp(-r * T)
    return np.where(np.asarray(put) == 1, K * df * ncdf(-d2) - S * ncdf(-d1), S * ncdf(d1) - K * df * ncdf(d2))


# ---- bs-greeks-fd ----

def greeks_ref(S, K, T, vol, put, r):
    """The kernel's differences, the bumped inputs rounded to float32 as the kernel's are,
    the prices in float64."""
    f = np.float32
    h = f(0.01) * S
    p0 = bs(S, K, T, r, vol, put)
    pu, pd = bs(S + h, K, T, r, vol, put), bs(S - h, K, T, r, vol, put)
    vu, vd = bs(S, K, T, r, vol + f(0.01), put), bs(S, K, T, r, vol - f(0.01), put)
    pt = bs(S, K, T - f(1.0) / f(365.0), r, vol, put)
    h = h.astype(np.float64)
    return {"price": p0, "delta": (pu - pd) / (2 * h), "gamma": (pu - 2 * p0 + pd) / (h * h),
            "vega": (vu - vd) / 0.02, "theta": pt - p0}


def check_greeks(S, K, T, vol, put, r, got):
    ref = greeks_ref(S, K, T, vol, put, float(r))
    S = S.astype(np.float64)
    tol = {"price": 2e-6 * S, "delta": 2e-4, "gamma": 2e-2 / S, "vega": 1e-4 * S, "theta": 4e-6 * S}
    for k in ref:
        np.testing.assert_array_less(np.abs(got[k] - ref[k]), tol[k], err_msg=k)


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_bs_greeks_fd(policy):
    n = 600                                                 # 3 blocks of 256, the last partial
    host, (S, K, T, vol, put, r, price, delta, gamma, vega, theta, nn), *_ = launch("probe/bs-greeks-fd", n,
                                                                                   policy=policy)
    assert nn == n and np.isclose(r, tp.U62_R)
    got = {"price": price, "delta": delta, "gamma": gamma, "vega": vega, "theta": theta}
    check_greeks(S, K, T, vol, put, r, got)
    # the differences are close to the analytic Greeks (a month or more to expiry)
    s, k, t, v = (a.astype(np.float64) for a in (S, K, T, vol))
    d1 = (np.log(s / k) + (float(r) + 0.5 * v * v) * t) / (v * np.sqrt(t))
    pdf = np.exp(-0.5 * d1 * d1) / np.sqrt(2 * np.pi)
    far = t >= 30 / 365
    assert far.sum() > 300
    np.testing.assert_allclose(delta[far], (ncdf(d1) - put)[far], atol=2e-3)
    g, ve = pdf / (s * v * np.sqrt(t)), s * pdf * np.sqrt(t)
    assert (np.abs(gamma - g) < 0.02 * g + 2e-2 / s)[far].all()
    assert (np.abs(vega - ve) < 0.01 * ve + 1e-4 * s)[far].all()
    assert (theta[put == 0] < 4e-6 * S[put == 0]).all() and (vega > -1e-4 * S).all() and (gamma > -2e-2 / S).all()
    # the chain: calls and puts, short and long expiries, a smile, in and out of the money
    assert 0.4 < put.mean() < 0.6 and set(np.round(T * 365).astype(int)) == set(tp.U62_GREEK_EXPIRIES)
    assert (K / S).min() < 0.7 and (K / S).max() > 1.4 and S.min() < 20 and S.max() > 200
    assert ((delta > 0.05) & (delta < 0.95)).sum() > 100 and (np.abs(delta) > 0.99).sum() > 5


def test_bs_greeks_edge_cases():
    # put-call parity on the same terms, deep in and out of the money, a week to expiry
    S = np.array([100, 100, 100, 100, 50, 50, 500, 10, 100, 100], np.float32)
    K = np.array([100, 50, 200, 100, 100, 25, 400, 12.5, 100, 100], np.float32)
    T = np.array([1, 0.25, 0.25, 7 / 365, 2, 0.5, 1.5, 0.1, 0.05, 3], np.float32)
    vol = np.array([0.2, 0.3, 0.3, 0.8, 0.5, 0.15, 0.25, 1.2, 0.05, 0.4], np.float32)
    m = len(S)
    S, K, T, vol = (np.tile(a, 2) for a in (S, K, T, vol))
    put = np.repeat(np.array([0, 1], np.uint8), m)
    n = 2 * m
    host = [S, K, T, vol, put, np.float32(tp.U62_R)] + [np.zeros(n, np.float32) for _ in range(5)] + [np.int32(n)]
    out = run("probe/bs-greeks-fd", host, n)
    got = dict(zip(["price", "delta", "gamma", "vega", "theta"], out[6:11]))
    check_greeks(S, K, T, vol, put, tp.U62_R, got)
    c, p = slice(0, m), slice(m, n)
    s, k, t = S[:m].astype(np.float64), K[:m].astype(np.float64), T[:m].astype(np.float64)
    np.testing.assert_allclose(got["price"][c] - got["price"][p], s - k * np.exp(-tp.U62_R * t), atol=2e-5 * 500)
    np.testing.assert_allclose(got["delta"][c] - got["delta"][p], 1, atol=3e-4)
    assert (np.abs(got["gamma"][c] - got["gamma"][p]) < 4e-2 / s).all()
    assert (np.abs(got["vega"][c] - got["vega"][p]) < 2e-4 * s).all()
    # the at-the-money call, a year, at r = 4% and 20% volatility: 9.93 (the textbook check)
    assert abs(got["price"][0] - bs(100, 100, 1, tp.U62_R, 0.2, 0)) < 1e-4 and 9.9 < got["price"][0] < 10.0
    assert got["delta"][1] > 0.999 and got["price"][2] < 1e-3 and abs(got["delta"][m + 1]) < 1e-3


# ---- asian-mc-xorshift ----

def xorshift(x):
    x ^= x << np.uint32(13)
    x ^= x >> np.uint32(17)
    x ^= x << np.uint32(5)
    return x


def asian_ref(S0, K, r, sig, T, nsteps, seed, npaths):
    """Each path's discounted payoff (float64) from the kernel's generator and uniforms
    (uint32 and float32 as on the GPU), the normals and the path in float64."""
    p = np.arange(npaths, dtype=np.uint32)
    x = np.uint32(seed) ^ (p * np.uint32(2654435761))
    x[x == 0] = 0x9E3779B9
    for _ in range(4):
        x = xorshift(x)
    S0, K, r, sig, T = (float(a) for a in (S0, K, r, sig, T))
    dt = np.float32(T) / np.float32(nsteps)
    drift, vs = (r - 0.5 * sig * sig) * dt, sig * np.sqrt(dt)
    s, tot = np.full(npaths, S0), np.zeros(npaths)
    for _ in range(nsteps):
        x = xorshift(x)
        u1 = (x.astype(np.float32) + np.float32(1)) * np.float32(2.0 ** -32)
        x = xorshift(x)
        u2 = x.astype(np.float32) * np.float32(2.0 ** -32)
        z = np.sqrt(-2 * np.log(u1.astype(np.float64))) * np.cos(6.2831853 * u2.astype(np.float64))
        s = s * np.exp(drift + vs * z)
        tot += s
    return np.exp(-r * T) * np.maximum(tot / nsteps - K, 0)


def block_sums(v, block=256):
    return np.add.reduceat(v, np.arange(0, len(v), block)) if len(v) else v


def geometric_asian(S0, K, r, sig, T, N):
    """The discretely monitored geometric-average Asian call (closed form), a lower bound
    of the arithmetic one."""
    dt = T / N
    mu = np.log(S0) + (r - 0.5 * sig * sig) * dt * (N + 1) / 2
    s2 = sig * sig * dt * (N + 1) * (2 * N + 1) / (6 * N)
    d2 = (mu - np.log(K)) / np.sqrt(s2)
    return np.exp(-r * T) * (np.exp(mu + s2 / 2) * ncdf(d2 + np.sqrt(s2)) - K * ncdf(d2))


# 1000: 4 blocks of 256 paths, the last partial; random (one warp an instruction, slow):
# 300, 2 blocks, the last partial, each block's reduction over its barriers
@pytest.mark.parametrize("policy, n", [("lockstep", 1000), ("random", 300)])
def test_asian_mc(policy, n):
    host, (S0, K, r, sig, T, ns, seed, bsum, bsq, nn), *_ = launch("probe/asian-mc-xorshift", n, policy=policy)
    assert nn == n and ns == tp.U62_MC_STEPS and len(bsum) == len(bsq) == -(-n // 256)
    pay = asian_ref(S0, K, r, sig, T, int(ns), int(seed), n)
    np.testing.assert_allclose(bsum, block_sums(pay), rtol=2e-5)
    np.testing.assert_allclose(bsq, block_sums(pay ** 2), rtol=2e-5)
    assert 0.35 < (pay > 0).mean() < 0.65
    price = bsum.sum() / n
    se = np.sqrt((bsq.sum() / n - price ** 2) / n)
    geo = geometric_asian(*(float(a) for a in (S0, K, r, sig, T)), int(ns))
    assert 3.3 < geo < 3.8 and geo - 3 * se < price < geo + 0.3 + 3 * se


def test_asian_mc_generator():
    # the generator's uniforms and normals (the first thousands of paths' first dates)
    p = np.arange(1 << 14, dtype=np.uint32)
    x = np.uint32(tp.U62_MC_SEED) ^ (p * np.uint32(2654435761))
    for _ in range(5):
        x = xorshift(x)
    u = x / 2.0 ** 32
    assert abs(u.mean() - 0.5) < 0.01 and abs(np.corrcoef(u[:-1], u[1:])[0, 1]) < 0.03
    pay = asian_ref(tp.U62_MC_S0, 0.0, 0.0, tp.U62_MC_VOL, tp.U62_MC_T, 1, tp.U62_MC_SEED, 1 << 14)
    z = np.log(pay / tp.U62_MC_S0) / (tp.U62_MC_VOL * np.sqrt(tp.U62_MC_T)) + 0.5 * tp.U62_MC_VOL * np.sqrt(tp.U62_MC_T)
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03


def test_asian_mc_edge_cases():
    cases = [  # S0, K, r, sigma, T, steps, seed, paths
        (100, 100, 0.04, 0.3, 0.25, 63, 0, 300),          # seed 0: path 0's state would be 0
        (100, 0, 0.0, 0.2, 1.0, 1, 7, 257),               # every path pays its one fixing
        (100, 1e6, 0.04, 0.3, 1.0, 12, 99, 256),          # no path pays
        (50, 45, 0.1, 0.6, 2.0, 24, 0xFFFFFFFF, 33),      # one partial block
    ]
    for S0, K, r, sig, T, ns, seed, n in cases:
        f = np.float32
        nb = -(-n // 256)
        host = [f(S0), f(K), f(r), f(sig), f(T), np.int32(ns), np.uint32(seed), np.zeros(nb, f), np.zeros(nb, f),
                np.int32(n)]
        out = run("probe/asian-mc-xorshift", host, n, policy="random")
        pay = asian_ref(f(S0), f(K), f(r), f(sig), f(T), ns, seed, n)
        np.testing.assert_allclose(out[7], block_sums(pay), rtol=2e-5, atol=1e-30)
        np.testing.assert_allclose(out[8], block_sums(pay ** 2), rtol=2e-5, atol=1e-30)
        if K == 0:
            assert (pay > 0).all() and abs(out[7].sum() / n - S0) < 3 * S0 * sig / np.sqrt(n)
        if K > 1e5:
            assert (out[7] == 0).all() and (out[8] == 0).all()


# ---- american-put-tree ----

def crr_put(S, K, T, vol, r, N=tp.U62_TREE_STEPS, american=True):
    """The put on the kernel's Cox-Ross-Rubinstein tree, in float64."""
    dt = T / N
    lu = vol * np.sqrt(dt)
    u, d = np.exp(lu), np.exp(-lu)
    pu, disc = (np.exp(r * dt) - d) / (u - d), np.exp(-r * dt)
    v = np.maximum(K - S * np.exp(lu * (2 * np.arange(N + 1) - N)), 0)
    for t in range(N - 1, -1, -1):
        v = disc * (pu * v[1:] + (1 - pu) * v[:-1])
        if american:
            v = np.maximum(v, K - S * np.exp(lu * (2 * np.arange(t + 1) - t)))
    return v[0]


def check_tree(S, K, T, vol, r, price):
    terms = [a.astype(np.float64) for a in (S, K, T, vol)]
    ref = np.array([crr_put(*a, float(r)) for a in zip(*terms)])
    np.testing.assert_array_less(np.abs(price - ref), 2e-4 * terms[1])
    return ref, np.array([crr_put(*a, float(r), american=False) for a in zip(*terms)])


def test_american_put_tree():
    n = 6
    host, (S, K, T, vol, r, price, nn), *_ = launch("probe/american-put-tree", n)
    assert nn == n
    ref, eur = check_tree(S, K, T, vol, r, price)
    assert (price >= np.maximum(K - S, 0) - 1e-4).all() and (ref > eur + 1e-3).sum() >= 3    # early exercise pays
    # the European put on the tree is close to Black-Scholes'
    np.testing.assert_allclose(eur, bs(S, K, T, float(r), vol, 1), rtol=5e-3, atol=5e-3)
    # the whole set: strikes either side of the spot, short and long expiries
    host = tp.get("probe/american-put-tree").args(2048, np.random.default_rng(0))
    S, K, T = host[:3]
    assert (K / S).min() < 0.82 and (K / S).max() > 1.22 and T.min() < 0.12 and T.max() > 1.98


def test_american_put_tree_edge_cases():
    # deep in the money (exercise now), far out of it (worth ~0), at the money, a random
    # interleaving of the block's warps over its barriers
    S = np.array([20, 300, 100], np.float32)
    K = np.array([100, 100, 100], np.float32)
    T = np.array([1.0, 0.1, 0.5], np.float32)
    vol = np.array([0.2, 0.2, 0.3], np.float32)
    for idx, policy in [([0, 1], "lockstep"), ([2], "random")]:
        m = len(idx)
        host = [S[idx], K[idx], T[idx], vol[idx], np.float32(tp.U62_R), np.zeros(m, np.float32), np.int32(m)]
        price = run("probe/american-put-tree", host, m, policy=policy)[5]
        check_tree(S[idx], K[idx], T[idx], vol[idx], tp.U62_R, price)
        if 0 in idx:
            assert price[0] == pytest.approx(80.0, abs=1e-3) and price[1] < 1e-6


# ---- bollinger-bands ----

def bands_ref(px, ndays, W=tp.U62_BB_WINDOW):
    """Each close's window mean, (population) variance and mean square, in float64."""
    p = px.astype(np.float64)
    mean, var, msq = np.zeros(len(p)), np.zeros(len(p)), np.zeros(len(p))
    for i in range(len(p)):
        d = i % ndays
        w = p[i - min(d, W - 1):i + 1]
        mean[i], var[i], msq[i] = w.mean(), w.var(), (w * w).mean()
    return mean, var, msq


def check_bands(px, ndays, mid, up, lo, sig):
    mean, var, msq = bands_ref(px, ndays)
    p = px.astype(np.float64)
    np.testing.assert_allclose(mid, mean, rtol=1e-6)
    sd = (up.astype(np.float64) - lo) / 4
    tol_var = 5e-6 * msq + 1e-12                           # a few float32 roundings of the squares
    np.testing.assert_array_less(np.abs(sd * sd - var), tol_var)
    np.testing.assert_allclose((up.astype(np.float64) + lo) / 2, mean, rtol=1e-6)
    tol_sd = np.minimum(np.sqrt(tol_var), tol_var / np.maximum(np.sqrt(var), 1e-30))
    ref = np.where(p > mean + 2 * np.sqrt(var), -1, np.where(p < mean - 2 * np.sqrt(var), 1, 0))
    clear = (np.abs(p - mean - 2 * np.sqrt(var)) > 3 * tol_sd) & (np.abs(p - mean + 2 * np.sqrt(var)) > 3 * tol_sd)
    np.testing.assert_array_equal(sig[clear], ref[clear])
    return ref, clear


# 5000: 2 series of 2048 days and 904 of a third; random (slow): 2100, a series and 52
# days of a second, 9 blocks, the last partial
@pytest.mark.parametrize("policy, n", [("lockstep", 5000), ("random", 2100)])
def test_bollinger_bands(policy, n):
    host, (px, nd, nn, mid, up, lo, sig), *_ = launch("probe/bollinger-bands", n, policy=policy)
    assert nd == tp.U62_BB_DAYS and nn == n
    ref, clear = check_bands(px, int(nd), mid, up, lo, sig)
    assert clear.mean() > 0.95 and (ref == sig).mean() > 0.999
    first = np.arange(0, n, int(nd))
    assert (sig[first] == 0).all() and (mid[first] == px[first]).all()
    assert (sig == 1).sum() > 50 and (sig == -1).sum() > 50 and (sig == 0).mean() > 0.8
    assert ((np.round(px.astype(np.float64) * 100) / 100).astype(np.float32) == px).all()    # in cents
    r = np.diff(np.log(px.astype(np.float64)))
    r = r[np.arange(1, n) % int(nd) != 0]
    assert 0.008 < r.std() < 0.05 and ((r - r.mean()) ** 4).mean() / r.var() ** 2 > 4                 # fat tails


def test_bollinger_bands_edge_cases():
    rng = np.random.default_rng(5)
    cases = [  # closes, days a series
        (np.full(300, 42.5, np.float32), 100),                                  # flat: no bands
        (np.round(100 + np.cumsum(rng.normal(0, 1, 700)), 2).astype(np.float32), 7),   # series shorter than a window
        (np.r_[np.full(30, 10.0), 20.0, np.full(30, 10.0), 0.5, np.full(200, 10.0)].astype(np.float32), 261),
        (np.round(1000 * np.exp(np.cumsum(rng.normal(0, 0.02, 600))), 2).astype(np.float32), 600),
        (np.full(3, 7.0, np.float32), 1),                                       # one day a series
    ]
    for px, nd in cases:
        n = len(px)
        host = [px, np.int32(nd), np.int32(n), np.zeros(n, np.float32), np.zeros(n, np.float32),
                np.zeros(n, np.float32), np.zeros(n, np.int8)]
        out = run("probe/bollinger-bands", host, n)
        ref, _ = check_bands(px, nd, *out[3:7])
        if nd == 100:
            assert (out[3] == px).all() and (out[6] == 0).all()
        if nd == 261:
            assert out[6][30] == -1 and out[6][61] == 1 and ref[30] == -1 and ref[61] == 1


# ---- portfolio-variance-warp ----

# 300: 38 blocks of 8 warps, the last half used; random (slow): 36, 5 blocks, the last half
# used, 2 trips a lane along a row, the second partial
@pytest.mark.parametrize("policy, n", [("lockstep", 300), ("random", 36)])
def test_portfolio_variance(policy, n):
    host, (cov, w, nn, sw, var), *_ = launch("probe/portfolio-variance-warp", n, policy=policy)
    assert nn == n and len(cov) == n * n
    C, W = cov.reshape(n, n).astype(np.float64), w.astype(np.float64)
    np.testing.assert_allclose(sw, C @ W, rtol=1e-5, atol=1e-6 * np.abs(C).max() * np.abs(W).sum())
    assert var[0] == pytest.approx(W @ C @ W, rel=1e-5)
    assert (C == C.T).all() and np.linalg.eigvalsh(C).min() > 0.01
    vols = np.sqrt(np.diag(C))
    assert 0.2 < vols.min() and vols.max() < 0.7 and 0.1 < np.sqrt(var[0]) < 0.35
    assert abs(W.sum() - 1) < 1e-5 and 0.1 < (W < 0).mean() < 0.3


def test_portfolio_variance_edge_cases():
    rng = np.random.default_rng(2)
    for n in (1, 31, 33, 64, 100):
        A = rng.normal(0, 0.2, (n, n))
        C = (A @ A.T / n + 0.01 * np.eye(n)).astype(np.float32)
        w = rng.normal(0, 1, n).astype(np.float32)
        out = run("probe/portfolio-variance-warp",
                  [C.ravel(), w, np.int32(n), np.zeros(n, np.float32), np.zeros(1, np.float32)], n, policy="random")
        C64, w64 = C.astype(np.float64), w.astype(np.float64)
        np.testing.assert_allclose(out[3], C64 @ w64, rtol=1e-5, atol=1e-6)
        assert out[4][0] == pytest.approx(w64 @ C64 @ w64, rel=1e-5)
    # an identity covariance: the variance is the weights' squared norm
    n = 200
    w = np.arange(1, n + 1, dtype=np.float32) / n
    out = run("probe/portfolio-variance-warp",
              [np.eye(n, dtype=np.float32).ravel(), w, np.int32(n), np.zeros(n, np.float32),
               np.zeros(1, np.float32)], n)
    assert (out[3] == w).all() and out[4][0] == pytest.approx(float((w.astype(np.float64) ** 2).sum()), rel=1e-6)


# ---- orderbook-depth ----

def book_ref(price, qty, side, base, L):
    live = qty > 0
    lvl = price.astype(np.int64) - base
    inside = live & (lvl >= 0) & (lvl < L)
    b = side[inside].astype(np.int64) * L + lvl[inside]
    depth = np.zeros(2 * L, np.uint64)
    np.add.at(depth, b, qty[inside].astype(np.uint64))
    return depth, np.bincount(b, minlength=2 * L).astype(np.uint32), int((live & ~inside).sum())


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_orderbook_depth(policy):
    n = 5000                                                # 20 blocks of 256, the last partial
    host, (price, qty, side, nn, base, L, depth, cnt, drop), *_ = launch("probe/orderbook-depth", n, policy=policy)
    assert nn == n and L == tp.U62_OB_LEVELS and base == tp.U62_OB_MID - L // 2
    d, c, k = book_ref(price, qty, side, int(base), int(L))
    np.testing.assert_array_equal(depth, d)
    np.testing.assert_array_equal(cnt, c)
    assert drop[0] == k > 20
    mid = tp.U62_OB_MID - base
    assert cnt[mid] == 0 and cnt[L + mid] == 0                 # nothing at the mid
    assert depth[:mid].sum() > 0 and depth[L + mid + 1:].sum() > 0
    assert cnt[mid - 1] > cnt[mid - 40] > 0 and cnt[L + mid + 1] > 50      # deepest at the touch
    assert 0.05 < (qty == 0).mean() < 0.11 and ((qty > 0) & (qty < 100)).mean() > 0.15
    assert (qty[qty >= 100] % 100 == 0).all()
    assert 0.5 * tp.U62_OB_MID <= price.min() and price.max() < 1.5 * tp.U62_OB_MID     # the stale orders


def test_orderbook_depth_edge_cases():
    base, L = 1000, 16
    # 700 orders on one level (both sides), the window's edges and just past them, a
    # cancelled and a negative size, three of 2e9 shares on one level (past 2^32 together),
    # then a ladder across the window
    spec = [(999, 5, 0), (1000, 7, 1), (1015, 11, 0), (1016, 13, 1), (1003, 0, 0), (1003, -4, 1),
            (1012, 2_000_000_000, 1), (1012, 2_000_000_000, 1), (1012, 2_000_000_000, 1)]
    price = np.r_[np.full(700, 1005), [s[0] for s in spec], np.arange(980, 1040)].astype(np.int32)
    qty = np.r_[np.full(700, 3), [s[1] for s in spec], np.arange(1, 61) * 100].astype(np.int32)
    side = np.r_[np.arange(700) % 2, [s[2] for s in spec], np.arange(60) % 2].astype(np.uint8)
    n = len(price)
    host = [price, qty, side, np.int32(n), np.int32(base), np.int32(L), np.zeros(2 * L, np.uint64),
            np.zeros(2 * L, np.uint32), np.zeros(1, np.uint32)]
    out = run("probe/orderbook-depth", host, n, policy="random")
    d, c, k = book_ref(price, qty, side, base, L)
    np.testing.assert_array_equal(out[6], d)
    np.testing.assert_array_equal(out[7], c)
    assert out[8][0] == k == 2 + 20 + 24
    # level 5 (price 1005): 350 a side, and the ladder's 1005 (its 26th order, an ask)
    assert out[7][5] == 350 and out[7][L + 5] == 351 and out[6][L + 5] == 350 * 3 + 2600
    assert out[6][L + 12] == 6_000_000_000 and out[6][12] == 3300 and out[6][L + 0] == 7 and out[6][15] == 11
