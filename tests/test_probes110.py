"""probe-unseen108's kernels (kernels_cuda/probes110.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import dataclasses

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import _run, launch, run

IDS = ["probe/nasch-ring-ensemble", "probe/idm-ring-carfollow", "probe/road-bf-relax-atomicmin",
       "probe/od-matrix-aos-atomics", "probe/signal-queue-fixedtime", "probe/travel-time-hist-smem"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen108"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes110.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # nasch: rings of their own density, velocities 0 .. 5, the next road empty
    L = tp.P110_NS_LEN
    road, nxt, p, seed, n = tp._p110_ns_args(64 * L, rng)
    assert road.dtype == np.int32 and n == 64 * L and (nxt == -1).all() and p == np.float32(0.25)
    assert road.min() == -1 and road.max() == tp.P110_NS_VMAX
    dens = (road.reshape(64, L) >= 0).mean(axis=1)
    assert 0.04 < dens.min() < 0.15 and 0.4 < dens.max() < 0.51 and 0.22 < dens.mean() < 0.33
    gap = tp._p110_ns_ref(road)[1]
    assert (gap == 0).mean() > 0.25 and (gap >= tp.P110_NS_VMAX + 1).mean() > 0.08    # blocked and free cars
    # idm: rings in driving order, bumper gaps >= 1 m, trucks 10%, speeds below v0
    C = tp.P110_IDM_CARS
    x, v, xn, vn, v0, T, a, b, s0, ln, ring, dt, n = tp._p110_idm_args(16 * C, rng)
    assert all(z.dtype == np.float32 for z in (x, v, v0, T)) and ring == C * 25 and n == 16 * C
    assert x.min() >= 0 and x.max() < ring
    xr = x.reshape(16, C).astype(np.float64)
    fwd = (np.roll(xr, -1, axis=1) - xr) % ring
    assert abs(fwd.sum(axis=1) - ring).max() < 0.1 and fwd.min() > ln + 0.99     # the spacings close the ring
    assert 0.08 < (v0 == 25).mean() < 0.12 and (T[v0 == 25] == np.float32(1.8)).all()
    assert v.min() >= 0 and (v <= 1.1 * v0 + 1e-4).all() and 8 < v.mean() < 16
    _, vref, s, acc = tp._p110_idm_ref(x, v, v0, T)
    assert s.min() > 0.99 and (acc < -1.5).mean() > 0.1 and (acc > 0).mean() > 0.2 and (vref == 0).any()
    # bf: a grid graph, ~10% of the links missing, half the vertices reached
    W = 64
    rp, col, w, d, d2, ch, n = tp._p110_bf_args(W * W, rng)
    assert rp[0] == 0 and rp[-1] == len(col) and (np.diff(rp) <= 4).all() and n == W * W
    src = np.repeat(np.arange(W * W), np.diff(rp))
    assert set(np.unique(np.abs(col - src))) == {1, W} and (col >= 0).all() and (col < W * W).all()
    assert 0.85 < len(col) / (4 * W * (W - 1)) < 0.95 and w.min() >= 5 and w.max() <= 60
    assert (d == d2).all() and 0.45 < (d < tp.P110_BF_INF).mean() < 0.55 and ch[0] == 0
    assert d.min() < 8 * tp.P110_BF_EST and d[d < tp.P110_BF_INF].max() < 40 * W
    assert tp._p110_bf_ref(rp, col, w, d)[1] == 1
    # od: 16-byte records, 3% unmatched, hot zones, peaks
    trips, cnt, vkm, Z, n = tp._p110_od_args(1 << 16, rng)
    assert trips.dtype.itemsize == 16 and cnt.dtype == np.int32 and vkm.dtype == np.float32 and Z == 512
    assert len(cnt) == 4 * 512 * 512 and not cnt.any()
    bad = (trips["origin"] < 0) | (trips["dest"] < 0)
    assert 0.025 < bad.mean() < 0.035 and trips["origin"].max() < Z and trips["dest"].max() < Z
    share = np.bincount(trips["origin"][~bad], minlength=Z) / (~bad).sum()
    assert 0.06 < share.max() < 0.09 and (share < 0.001).mean() > 0.4                 # Zipf(0.8): top zone ~7.7%
    per = np.bincount(tp._p110_od_period(trips["depart_h"]), minlength=4) / n
    assert 0.3 < per[0] < 0.45 and 0.3 < per[2] < 0.45 and 0.06 < per[1] < 0.12 and 0.12 < per[3] < 0.25
    assert trips["depart_h"].min() >= 0 and trips["depart_h"].max() < 24 and trips["dist_km"].min() >= 0.1
    assert 7 < np.median(trips["dist_km"]) < 9
    # signals: greens fit the cycle, arrivals within range, some approaches over capacity
    lam, cyc, g, dl, mq, sv, sat, seed, sec, n = tp._p110_sig_args(512, rng)
    assert lam.dtype == np.float32 and len(lam) == 4 * 512 and sec == 900 and sat == 0.5
    assert cyc.min() >= 60 and cyc.max() <= 150 and g.min() > 10 and (g + 2 * tp.P110_SIG_LOST < cyc).all()
    cap = np.stack([g, g, cyc - g - 8, cyc - g - 8], axis=1) * 0.5 / cyc[:, None]
    assert 0.02 < (lam.reshape(-1, 4) > cap).mean() < 0.15
    dly, qmax, out = tp._p110_sig_ref(lam[:256], cyc[:64], g[:64])
    assert 3 < qmax.min() and qmax.max() > 25 and out.min() > 50
    # tt: sorted entries, 5% missing, 0.5% clock errors, 1% stopped, the main mass in ~7 min
    t_in, t_out, hist, n = tp._p110_tt_args(1 << 16, rng)
    assert (np.diff(t_in) >= 0).all() and t_in.dtype == np.float32 and len(hist) == 257
    assert 0.045 < (t_out == -1).mean() < 0.055 and 0.003 < ((t_out >= 0) & (t_out < t_in)).mean() < 0.007
    bins = tp._p110_tt_bins(t_in, t_out)
    assert 0.008 < (bins == 255).mean() < 0.012 and 0.05 < (bins == 256).mean() < 0.06
    assert 20 < np.median(bins) < 36 and np.bincount(bins).max() < 0.1 * n


# ---- nasch-ring-ensemble ----

def test_nasch():
    n = 3 * tp.P110_NS_LEN                                  # 48 blocks, 3 rings
    host, (road, nxt, *_), *_ = launch("probe/nasch-ring-ensemble", n)
    ref = tp._p110_ns_ref(host[0])[0]
    assert (nxt == ref).all() and (road == host[0]).all()
    assert (nxt >= 0).sum() == (host[0] >= 0).sum()          # no car lost, none collided
    assert (nxt == 0).mean() > 0.02 and (nxt == 5).any()


def test_nasch_edge_cases():
    # a full ring (nobody moves), a ring with one car at its end (wraps), a ring with two
    # cars one behind the other at the wrap and a car that brakes at random
    L = tp.P110_NS_LEN
    road = np.full(3 * L, -1, np.int32)
    road[:L] = 3
    road[2 * L - 2] = 5
    road[3 * L - 1], road[2 * L + 2] = 4, 0
    host = [road, np.full(3 * L, -1, np.int32), np.float32(1.0), np.uint32(7), np.int32(3 * L)]
    out = run("probe/nasch-ring-ensemble", host, 3 * L)[1]
    assert (out[:L] == 0).all()
    assert out[L + 2] == 5 - 1 and (out[L:2 * L] >= 0).sum() == 1           # p_brake 1: v 5 (capped) - 1
    assert out[2 * L] == 1 and out[2 * L + 2] == 0 and (out[2 * L:] >= 0).sum() == 2   # gap 2: 2 - 1; 1 - 1
    assert (out == tp._p110_ns_ref(road, p_brake=1.0, seed=7)[0]).all()


# ---- idm-ring-carfollow ----

def test_idm():
    rng = np.random.default_rng(3)
    C = tp.P110_IDM_CARS
    host = tp._p110_idm_args(2 * C, rng)
    ring = float(host[10])
    x0 = host[0][:C].astype(np.float64)                      # ring 0 turned: its last car 0.5 m before
    host[0][:C] = ((x0 - x0[C - 1] + ring - 0.5) % ring).astype(np.float32)   # the end (its leader past it)
    host[1][C - 1] = np.float32(20.0)
    x, v, xn, vn, *_ = run("probe/idm-ring-carfollow", host, 2 * C)
    xr, vr, s, acc = tp._p110_idm_ref(host[0], host[1], host[4], host[5])
    assert s.min() > 0.9 and host[0][0] < host[0][C - 1] and s[C - 1] < 200
    dx = (xn - xr + ring / 2) % ring - ring / 2
    assert np.abs(dx).max() < 5e-3 and np.abs(vn - vr).max() < 1e-3
    assert xn[C - 1] < 5 and xr[C - 1] < 5                   # wrapped
    assert (vn == 0).sum() == (vr == 0).sum() and (vn == 0).any() and (x == host[0]).all()


# ---- road-bf-relax-atomicmin ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_bf_relax(policy):
    n = 24 * 24                                             # 3 blocks, the last partial
    host, out, *_ = launch("probe/road-bf-relax-atomicmin", n, policy=policy)
    ref, ch = tp._p110_bf_ref(*host[:4])
    assert (out[4] == ref).all() and out[5][0] == ch == 1 and (out[3] == host[3]).all()
    assert (ref < host[3]).sum() > 50 and (ref == tp.P110_BF_INF).any()


def test_bf_relax_edge_cases():
    # nothing reached (no change), then only the source: its neighbours get their link times
    rng = np.random.default_rng(4)
    W = 20
    rp, col, w, d, d2, ch, n = tp._p110_bf_args(W * W, rng)
    inf = np.full(W * W, tp.P110_BF_INF, np.int32)
    out = run("probe/road-bf-relax-atomicmin", [rp, col, w, inf, inf.copy(), np.zeros(1, np.int32), n], n)
    assert (out[4] == inf).all() and out[5][0] == 0
    src = inf.copy()
    src[210] = 0
    out = run("probe/road-bf-relax-atomicmin", [rp, col, w, src, src.copy(), np.zeros(1, np.int32), n], n)
    e = slice(rp[210], rp[211])
    assert out[5][0] == 1 and (out[4][col[e]] == w[e]).all() and (out[4] < tp.P110_BF_INF).sum() == 1 + rp[211] - rp[210]
    assert (out[4] == tp._p110_bf_ref(rp, col, w, src)[0]).all()


# ---- od-matrix-aos-atomics ----

@pytest.mark.parametrize("policy, n", [("lockstep", 3000), ("random", 600)])
def test_od_aggregate(policy, n):
    # 12 blocks and 3 (random interleaving is slow), the last partial
    host, out, *_ = launch("probe/od-matrix-aos-atomics", n, policy=policy)
    cnt, vkm = tp._p110_od_ref(host[0])
    assert (out[1] == cnt).all() and cnt.sum() == ((host[0]["origin"] >= 0) & (host[0]["dest"] >= 0)).sum()
    np.testing.assert_allclose(out[2], vkm, rtol=1e-5, atol=1e-4)
    assert cnt.max() >= 2 and (cnt.reshape(4, -1).sum(axis=1) > 0).all()


def test_od_period_edges():
    # departures exactly at the periods' edges, a zone of -1 on either side
    n = 64
    trips = np.zeros(n, tp.P110_OD_DTYPE)
    hours = np.array([0, 5.999, 6, 9.999, 10, 14.999, 15, 18.999, 19, 23.999], np.float32)
    trips["depart_h"] = np.resize(hours, n)
    trips["origin"] = np.arange(n) % 7
    trips["dest"] = np.arange(n) % 5
    trips["dist_km"] = 1.5
    trips["origin"][3], trips["dest"][4] = -1, -1
    Z = 8
    host = [trips, np.zeros(4 * Z * Z, np.int32), np.zeros(4 * Z * Z, np.float32), np.int32(Z), np.int32(n)]
    out = run("probe/od-matrix-aos-atomics", host, n)
    cnt, vkm = tp._p110_od_ref(trips, n_zones=Z)
    assert (out[1] == cnt).all() and (out[2] == vkm).all() and cnt.sum() == n - 2
    assert list(tp._p110_od_period(hours)) == [3, 3, 0, 0, 1, 1, 2, 2, 3, 3]


# ---- signal-queue-fixedtime ----

@pytest.mark.parametrize("policy, n, sec", [("lockstep", 40, 75), ("random", 24, 50)])
def test_signal_queues(policy, n, sec):
    # 75 or 50 seconds (the probe's 900 are slow in the emulator), intersections in one block
    rng = np.random.default_rng(5)
    host = tp._p110_sig_args(n, rng)
    host[8] = np.int32(sec)
    host[0][:4] = 0.9                                      # a swamped intersection, a quiet one
    host[0][4:8] = 0.0
    out = run("probe/signal-queue-fixedtime", host, n, policy=policy)
    d, m, s = tp._p110_sig_ref(*host[:3], seconds=sec)
    assert (out[3] == d).all() and (out[4] == m).all() and (out[5] == s).all()
    assert m[0] > 12 and d[1] == m[1] == s[1] == 0 and (s > 0).mean() > 0.9


# ---- travel-time-hist-smem ----

@pytest.mark.parametrize("policy, n", [("lockstep", 5000), ("random", 2000)])
def test_tt_histogram(policy, n):
    # 20 blocks and 8, the last partial
    host, out, *_ = launch("probe/travel-time-hist-smem", n, policy=policy)
    ref = tp._p110_tt_ref(host[0], host[1])
    assert (out[2] == ref).all() and ref.sum() == n and ref[256] > 0 and ref[255] > 0


def test_tt_histogram_grid_stride():
    # 3 blocks for 3000 records (4 trips of the loop), exact bin edges and a zero travel time
    rng = np.random.default_rng(6)
    n = 3000
    t_in, t_out, hist, _ = tp._p110_tt_args(n, rng)
    t_in[:4] = 1000.0
    t_out[:4] = [1015.0, 1014.999, 1000.0, 1000.0 + 256 * 15]
    p = dataclasses.replace(tp.get("probe/travel-time-hist-smem"), grid=lambda n: 3)
    out = _run(p, [t_in, t_out, hist, np.int32(n)], {}, n, 0, "random")[0]
    ref = tp._p110_tt_ref(t_in, t_out)
    assert (out[2] == ref).all() and ref.sum() == n
    assert list(tp._p110_tt_bins(t_in[:4], t_out[:4])) == [1, 0, 256, 255]
