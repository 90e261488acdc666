"""probe-unseen180's kernels (kernels_cuda/probes182.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
from statistics import NormalDist

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/vrp-route-cost-gather", "probe/two-opt-atomicmin64", "probe/wh-sku-demand-atomics",
       "probe/ss-policy-knuth-poisson", "probe/safety-stock-warp-shfl", "probe/ffd-cage-pack-local"]
U = 2.0 ** -24                                              # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen180"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes182.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # routes: a sweep's windows of the customers in angle order, over clustered customers
    P = tp._p182_rc_points(1024, np.random.default_rng(3))
    off, stops, dist, dem, *_, nodes, cap = tp._p182_rc_args(5000, np.random.default_rng(3), nodes=1024)[:9]
    assert nodes == 1024 and cap == tp.P182_RC_CAP and dist.dtype == np.float32 and len(dist) == 1024 * 1024
    D = dist.reshape(1024, 1024).astype(np.float64)
    E = np.hypot(P[:, None, 0] - P[None, :, 0], P[:, None, 1] - P[None, :, 1]) * tp.P182_RC_DETOUR
    np.fill_diagonal(E, np.inf)
    assert (np.diag(D) == 0).all() and 0.999 < (D / E)[D > 0].min() and (D / E).max() < 1.081
    assert (D != D.T).mean() > 0.99                                            # asymmetric roads
    nn = E[1:].min(axis=1) / tp.P182_RC_DETOUR                                 # customers' nearest neighbours
    assert np.median(nn) < 0.3 * tp.P182_RC_SIDE / np.sqrt(1024)                # clustered (uniform: ~0.5)
    m = np.diff(off)
    assert off[0] == 0 and m.min() >= 2 and m.max() <= 30 and abs(m.mean() - 9) < 0.2
    assert dem[0] == 0 and dem[1:].min() >= 1 and abs(np.median(dem[1:]) - 10) <= 1 and 1 <= stops.min()
    rank = np.empty(1024, np.int64)
    rank[1 + np.argsort(np.arctan2(P[1:, 1] - P[0, 1], P[1:, 0] - P[0, 0]))] = np.arange(1023)
    step = (rank[stops[1:]] - rank[stops[:-1]]) % 1023
    inner = np.ones(len(stops) - 1, bool)
    inner[off[1:-1] - 1] = False                                               # a route's consecutive stops
    assert (step[inner] == 1).all()
    # the tour: a space-filling curve's, far shorter than a random one, few improving 2-opt moves
    tour, x, y, best, n = tp._p182_to_args(2048, rng)
    assert (np.sort(tour) == np.arange(2048)).all() and best[0] == np.uint64(2 ** 64 - 1) and n == 2048
    L = lambda t: np.hypot(np.diff(x[t], append=x[t[0]]), np.diff(y[t], append=y[t[0]])).sum()
    assert L(tour) < 0.1 * L(rng.permutation(2048))
    D = tp._p182_to_deltas(tour, x, y)
    assert 1e-4 < (D < 0).sum() / (2048 * 2045 / 2) < 2e-3
    # order lines: orders contiguous, SKUs Zipf(1), the stores' nearest warehouses
    store, sku, qty, swh, grams, units, wl, wg, nsku, n = tp._p182_da_args(1 << 20, rng)
    assert nsku == 50000 and len(units) == 16 * nsku and wg.dtype == np.uint64 and swh.max() == 15
    assert abs((store[1:] != store[:-1]).mean() - 0.2) < 0.01 and abs(qty.mean() - 2) < 0.01
    c = np.sort(np.bincount(sku, minlength=nsku))[::-1]
    H = (1 / np.arange(1, nsku + 1)).sum()
    assert abs(c[0] / n - 1 / H) < 0.003 and abs(c[9] / n - 0.1 / H) < 0.002 and (c > 0).mean() > 0.6
    assert np.argmax(np.bincount(sku)) != 0 and grams.min() >= 20 and abs(np.median(grams) - 600) < 20
    # (s, S) policies: struct records, S above s, lead times within the ring buffer
    pol, *_, reps, days, seed, n = tp._p182_iv_args(1 << 16, rng)
    assert pol.dtype.itemsize == 28 and len(pol) == (1 << 16) // reps and days == 365
    assert (pol["S"] > pol["s"]).all() and pol["s"].min() >= 0 and pol["lead"].max() == 14 < tp.P182_IV_PIPE
    assert abs(np.median(pol["mu"]) - 3) < 0.3 and set(pol["lead"]) == set(tp.P182_IV_LEAD[0])
    # demand histories: intermittent slow movers, a weekly pattern
    hist, cls, sup, ltm, lts, uc, *_, days, n = tp._p182_ss_args(4096, rng)
    h = hist.reshape(n, days)
    mu = h.mean(axis=1)
    assert days == 364 and 0.2 < (h == 0).mean() < 0.35 and abs(np.median(mu) - 2) < 0.2
    assert (h[mu < 0.2] == 0).mean() > 0.85 and h.max() < 2000
    wk = h.reshape(n, 52, 7).sum(axis=(0, 1))
    assert np.argmax(wk) == 5 and np.argmin(wk) == 0                             # Saturday busiest
    assert abs(np.bincount(cls, minlength=4)[3] / n - 0.05) < 0.01 and (lts < ltm).all()
    assert np.bincount(sup).max() > 10 * np.median(np.bincount(sup, minlength=512))   # a few big suppliers
    # cartons: batches sorted largest first, volumes in litres
    off, vol, cage, nc, sl, cap, n = tp._p182_ff_args(1 << 14, rng)
    m = np.diff(off)
    assert cap == 600 and m.min() >= 1 and m.max() == 64 and abs(m.mean() - 36) < 1
    assert vol.min() >= 1 and vol.max() <= cap and abs(np.median(vol) - 22) <= 1
    d = np.diff(vol)
    d[off[1:-1] - 1] = 0                                                          # across batches
    assert (d <= 0).all() and 0.03 < (vol >= 150).mean() < 0.1


# ---- vrp-route-cost-gather ----

@pytest.mark.parametrize("n, policy", [(300, "lockstep"), (100, "random")])
def test_route_cost(n, policy):
    rng = np.random.default_rng(1)
    h = tp._p182_rc_args(n, rng, nodes=256)
    out = run("probe/vrp-route-cost-gather", h, n, policy=policy)
    cost, km, load, hours = tp._p182_rc_ref(*h[:4], *h[7:16])
    # up to 31 float32 distances summed (each ~1e2 km) in order: relative error < 31 U; the cost
    # a handful of float32 operations more
    assert (out[6] == load).all() and (np.abs(out[5] - km) <= 40 * U * km).all()
    assert (np.abs(out[4] - cost) <= 60 * U * cost).all()
    assert (load > tp.P182_RC_CAP).any() and (load <= tp.P182_RC_CAP).any()
    assert (hours > 10).any() and (hours < 10).any()


def test_route_cost_hand():
    # 5 nodes, whole-km distances: one stop, exactly full, one crate over and into overtime
    nodes = 5
    D = np.array([[0, 10, 20, 30, 40], [11, 0, 5, 7, 9], [21, 6, 0, 4, 8],
                  [31, 8, 5, 0, 3], [41, 9, 7, 2, 0]], np.float32) * 10
    dem = np.int32([0, 40, 50, 50, 41])
    off = np.int32([0, 1, 4, 6])
    stops = np.int32([1, 1, 2, 3, 3, 4])
    c = tp.P182_RC_COST
    h = [off, stops, D.ravel(), dem, np.zeros(3, np.float32), np.zeros(3, np.float32), np.zeros(3, np.int32),
         np.int32(nodes), np.int32(140), *(np.float32(c[k]) for k in ("speed", "service_h", "shift_h", "per_km",
                                                                     "fixed", "per_ot_h", "per_over")), np.int32(3)]
    out = run("probe/vrp-route-cost-gather", h, 3)
    assert list(out[5]) == [210, 100 + 50 + 40 + 310, 300 + 30 + 410] and list(out[6]) == [40, 140, 91]
    # route 2: 740 km / 55 km/h + 0.5 h = 13.95 h: 3.95 h over the shift
    want = [150 + 1.1 * 210, 150 + 1.1 * 500, 150 + 1.1 * 740 + 45 * (740 / 55 + 0.5 - 10)]
    assert np.allclose(out[4], want, rtol=8 * U, atol=0)
    h[8] = np.int32(90)                                                # the cap under routes 1 and 2's loads
    out = run("probe/vrp-route-cost-gather", h, 3)
    assert np.allclose(out[4], [want[0], want[1] + 25 * 50, want[2] + 25 * 1], rtol=8 * U, atol=0)


# ---- two-opt-atomicmin64 ----

@pytest.mark.parametrize("n, seed, policy", [(100, 0, "lockstep"), (40, 2, "random")])
def test_two_opt_best(n, seed, policy):
    # 100: 4 x 13 blocks, both partial
    host, out, *_ = launch("probe/two-opt-atomicmin64", n, seed=seed, policy=policy)
    D = tp._p182_to_deltas(*host[:3])
    d, i, j = tp._p182_to_key(out[3][0], n)
    s = np.sort(D.ravel())
    # coordinates up to 1000 km in float32: 4 distances each within ~1e-4 of float64's
    assert s[0] < 0 and s[1] - s[0] > 1e-3 and D[i, j] == s[0] and abs(d - s[0]) < 1e-3
    assert out[3][0] >> 63 == 0                                         # a negative delta's key


def test_two_opt_best_hand():
    n = 80
    th = 2 * np.pi * np.arange(n) / n
    x = (500 + 300 * np.cos(th)).astype(np.float32)
    y = (500 + 300 * np.sin(th)).astype(np.float32)
    tour = np.arange(n, dtype=np.int32)
    best = np.full(1, ~np.uint64(0))
    out = run("probe/two-opt-atomicmin64", [tour, x, y, best, np.int32(n)], n)
    assert out[3][0] == ~np.uint64(0)                                   # a convex tour: no improving move
    tour[11:31] = tour[11:31][::-1].copy()                              # one segment reversed
    out = run("probe/two-opt-atomicmin64", [tour, x, y, best, np.int32(n)], n)
    d, i, j = tp._p182_to_key(out[3][0], n)
    D = tp._p182_to_deltas(tour, x, y)
    assert (i, j) == (10, 30) and D[i, j] == D.min() and abs(d - D[i, j]) < 1e-3
    assert abs(-d - 4 * 300 * (np.sin(20 * np.pi / n) - np.sin(np.pi / n))) < 1e-3          # back to the circle


# ---- wh-sku-demand-atomics ----

@pytest.mark.parametrize("n, nsku, policy", [(5000, 300, "lockstep"), (1500, 40, "random")])
def test_demand_aggregate(n, nsku, policy):
    rng = np.random.default_rng(2)
    h = tp._p182_da_args(n, rng, nsku=nsku)                             # 5000: 10 blocks, the last partial
    out = run("probe/wh-sku-demand-atomics", h, n, policy=policy)
    units, lines, grams = tp._p182_da_ref(*h[:5], nsku)
    assert (out[5] == units).all() and (out[6] == lines).all() and (out[7] == grams).all()
    assert units.max() > 50 and (lines > 0).all()
    # every line the same store and SKU: all lanes of all blocks on one address
    h[0][:] = 7
    h[1][:] = 3
    out = run("probe/wh-sku-demand-atomics", h, n)
    w = h[3][7]
    assert list(np.flatnonzero(out[5])) == [w * nsku + 3] and out[5][w * nsku + 3] == h[2].sum()
    assert list(np.flatnonzero(out[6])) == [w] and out[6][w] == n and out[7][w] == h[2].sum() * h[4][3]


# ---- ss-policy-knuth-poisson ----

@pytest.mark.parametrize("n, reps, policy", [(160, 40, "lockstep"), (64, 8, "random")])
def test_ss_policy_sim(n, reps, policy):
    days = 40                                                           # 160: 3 blocks of 64, the last partial
    rng = np.random.default_rng(3)
    h = tp._p182_iv_args(n, rng, reps=reps, days=days)
    h[0]["S"] = h[0]["s"] + np.maximum(1, (h[0]["S"] - h[0]["s"]) // 4)     # orders every ~2 weeks, not ~7
    out = run("probe/ss-policy-knuth-poisson", h, n, policy=policy, symbols=tp._p182_iv_syms(n, rng))
    cost, lost, orders, dem, margin = tp._p182_iv_ref(h[0], reps, days, h[7], n)
    # the integers exactly where no product of uniforms came within 1e-6 of exp(-mean) (the
    # device's expf is within 2 ulp); the cost 3 float32 products and 2 sums of them
    ok = margin > 1e-6
    assert ok.mean() > 0.97
    assert (out[2] == lost)[ok].all() and (out[3] == orders)[ok].all() and (out[4] == dem)[ok].all()
    assert (np.abs(out[1] - cost) <= 8 * U * cost)[ok].all()
    assert (lost > 0).any() and (lost == 0).any() and (orders > 1).any() and orders.min() < orders.max()


def test_ss_policy_sim_hand():
    n, reps, days = 64, 32, 60
    rng = np.random.default_rng(4)
    h = tp._p182_iv_args(n, rng, reps=reps, days=days)
    pol = h[0]
    pol["mu"] = [2.0, 9.0]
    pol["s"] = [-1, 30]                                                 # SKU 0 never reorders
    pol["S"] = [50, 80]
    pol["lead"] = [1, 14]                                              # SKU 1's orders wrap the ring buffer
    out = run("probe/ss-policy-knuth-poisson", h, n, symbols=tp._p182_iv_syms(n, rng))
    cost, lost, orders, dem, margin = tp._p182_iv_ref(pol, reps, days, h[7], n)
    ok = margin > 1e-6
    assert (out[3][:32] == 0).all() and (out[2][:32] == np.maximum(out[4][:32] - 50, 0)).all()
    assert (out[2] == lost)[ok].all() and (out[3] == orders)[ok].all() and (out[4] == dem)[ok].all()
    assert (orders[32:] >= 2).all() and (lost[32:] > 0).any() and (lost[:32] > 0).any()


# ---- safety-stock-warp-shfl ----

@pytest.mark.parametrize("n, days, policy", [(44, 100, "lockstep"), (12, 364, "random")])
def test_safety_stock(n, days, policy):
    rng = np.random.default_rng(5)                                      # 44: 6 blocks of 8 warps, the last partial
    h = tp._p182_ss_args(n, rng, days=days)
    syms = tp._p182_ss_syms(n, rng)
    h[0][:days] = 0                                                     # a SKU without demand
    h[0][days:2 * days] = 7                                             # one with the same demand every day
    out = run("probe/safety-stock-warp-shfl", h, n, policy=policy, symbols=syms)
    ss, rop, eoq = tp._p182_ss_ref(*h[:6], h[9], h[10], days)
    # float32 sums of integers below 2^24 are exact; the variance, the quantile (Acklam's,
    # relative error 1.2e-9, in float32) and the square roots: a relative error under ~1e-5
    assert (h[0].astype(np.int64).reshape(n, days) ** 2).sum(axis=1).max() < 2 ** 24
    assert (np.abs(out[6] - ss) <= 1e-5 * ss).all() and (np.abs(out[7] - rop) <= 1e-5 * rop).all()
    assert (np.abs(out[8] - eoq) <= 1e-5 * eoq).all()
    assert out[6][0] == out[7][0] == out[8][0] == 0
    # the steady SKU: no demand variance, its safety stock covers the lead time's alone
    L, sL = float(h[3][h[2][1]]), float(h[4][h[2][1]])
    z = NormalDist().inv_cdf(float(np.float32(tp.P182_SS_SERVICE[h[1][1]])))
    assert abs(out[6][1] - z * 7 * sL) <= 1e-5 * z * 7 * sL and abs(out[7][1] - 7 * L - z * 7 * sL) <= 1e-5 * out[7][1]


# ---- ffd-cage-pack-local ----

@pytest.mark.parametrize("n, policy", [(300, "lockstep"), (40, "random")])
def test_first_fit_pack(n, policy):
    host, out, *_ = launch("probe/ffd-cage-pack-local", n, policy=policy)
    cage, used, slack = tp._p182_ff_ref(host[0], host[1], host[5])
    assert (out[2] == cage).all() and (out[3] == used).all() and (out[4] == slack).all()
    b = np.repeat(np.arange(n), np.diff(host[0]))
    fill = np.bincount(b * 64 + cage, host[1], n * 64)
    assert fill.max() <= 600 and (used.max() > 3) and (used * 600 - slack == np.bincount(b, host[1], n)).all()


def test_first_fit_pack_hand():
    cap = 600
    batches = [[600] * 64,                                             # 64 cages, the most a batch may use
               [300, 300, 300, 300, 300],                              # pairs
               [],                                                     # no cartons
               [500, 400, 300, 200, 100, 100],                         # first fit goes back to cage 0
               [1]]
    off = np.int32(np.concatenate([[0], np.cumsum([len(b) for b in batches])]))
    vol = np.int32(np.concatenate(batches))
    nb = len(batches)
    h = [off, vol, np.zeros(len(vol), np.int32), np.zeros(nb, np.int32), np.zeros(nb, np.int32), np.int32(cap),
         np.int32(nb)]
    out = run("probe/ffd-cage-pack-local", h, nb)
    assert list(out[2][:64]) == list(range(64)) and list(out[2][64:69]) == [0, 0, 1, 1, 2]
    assert list(out[2][69:]) == [0, 1, 2, 1, 0, 2, 0]
    assert list(out[3]) == [64, 3, 0, 3, 1] and list(out[4]) == [0, 300, 0, 200, 599]
