"""probe-unseen109's kernels (kernels_cuda/probes111.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/d8-flowdir-smem-tile", "probe/flowacc-pull-pass", "probe/kinwave-newton-reach",
       "probe/green-ampt-storm", "probe/reservoir-scenarios", "probe/catchment-stats-atomics"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen109"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes111.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    side = 256
    z = tp._p111_dem(side, rng)
    assert z.dtype == np.float32 and z.shape == (side, side)
    assert len(np.unique(z)) > 0.99 * z.size                                # jittered: (nearly) no ties
    assert z[:8].mean() - z[-8:].mean() > 0.8 * tp.P111_DEM_RELIEF          # falls to the bottom row
    assert z[:, side // 2].mean() < z[:, :8].mean() - 100                    # a valley down the middle
    code, sl = tp._p111_d8_ref(z)
    assert set(np.unique(code)) <= {0, 1, 2, 4, 8, 16, 32, 64, 128} and (code == 0).mean() < 0.05
    assert (sl[code > 0] > 0).all() and (sl[code == 0] == 0).all()
    dem, d, s, cs, nx, ny = tp._p111_d8_args(side, rng)
    assert dem.shape == (side * side,) and d.dtype == np.uint8 and cs == tp.P111_CELL and nx == ny == side
    # flow accumulation's input: 16 passes from ones, not yet converged (the changing
    # cells ~0.7% at 1024 x 1024, ~14% at the probe's 4096 x 4096: longer flow paths)
    side = 1024
    c, acc, nxt, flag, nx, ny = tp._p111_fa_args(side, rng)
    c, acc = c.reshape(side, side), acc.reshape(side, side)
    assert c.dtype == np.uint8 and acc.dtype == np.int32 and flag[0] == 0
    a = np.ones_like(acc)
    for _ in range(tp.P111_FA_PASSES):
        a = tp._p111_acc_pass(c, a)
    assert (a == acc).all() and acc.max() > tp.P111_FA_PASSES
    changed = (tp._p111_acc_pass(c, acc) != acc).mean()
    assert 0.003 < changed < 0.5
    inflow = sum(m.astype(int) for m in tp._p111_inflows(c))
    assert abs(inflow.mean() - 1) < 0.02                                     # each cell drains to about one
    # kinematic wave: hydrographs rising to a flood and receding
    n = 1000
    q, L, S0, nm, W, ql, out, dt, steps, nn = tp._p111_kw_args(n, rng)
    q = q.reshape(steps + 1, n)
    assert q.dtype == np.float32 and steps == tp.P111_KW_STEPS and nn == n
    assert (q.max(axis=0) > 1.9 * q[0]).all() and (q[-1] < q.max(axis=0)).all()
    assert 5e3 <= L.min() and L.max() <= 20e3 and 1e-4 <= S0.min() and S0.max() <= 1e-2
    ref, its = tp._p111_kw_ref(q, L, S0, nm, W, ql, steps=12)
    assert its.min() >= 1 and its.max() < tp.P111_KW_MAXIT and 1.2 < its.mean() < 2.5
    # Green-Ampt: soil classes in patches, most cells ponding
    soil, se, rf, *rest = tp._p111_ga_args(4096, rng)
    assert soil.dtype == np.uint8 and soil.max() < len(tp.P111_GA_SOILS)
    assert (soil.reshape(-1, tp.P111_GA_RUN) == soil[::tp.P111_GA_RUN, None]).all()
    assert 0.1 <= se.min() and se.max() <= 0.6 and 0.5 < rf.min() and rf.max() < 1.5
    syms = tp._p111_ga_syms(4096, rng)
    assert all(v.dtype == np.float32 for v in syms.values()) and len(syms["c_rain"]) == tp.P111_GA_STEPS
    assert syms["c_ks"][0] == np.float32(11.78) and syms["c_rain"].max() > 4
    F, R, tpd, gap = tp._p111_ga_ref(soil, se, rf)
    assert 0.6 < (tpd >= 0).mean() < 0.99 and (R[tpd < 0] == 0).all() and (R[tpd >= 0] > 0).all()
    # reservoir: inflows around the seasonal mean; some scenarios fail, some spill
    n = 1024
    h = tp._p111_res_args(n, rng)
    q, days = h[0].reshape(-1, n), h[10]
    assert days == 365 and q.shape == (365, n) and q.min() > 0
    assert abs(np.median(q[:31].mean(axis=0) / q[181:212].mean(axis=0)) - 1.6 / 0.4) < 1.5
    st, ar = h[1], h[2]
    assert st[0] == 0 and st[-1] >= tp.P111_RES_CAP and (np.diff(ar) > 0).all()
    S, sp, low, fails, ks = tp._p111_res_ref(h[0], n)
    assert 0.1 < (fails > 0).mean() < 0.4 and 0.05 < (sp > 0).mean() < 0.3
    assert (low >= tp.P111_RES_DEAD - 1).all() and (S <= tp.P111_RES_CAP).all() and 5 < ks.mean() < 10
    # catchments: 1024 tiles, ~21% of the cells outside, a warp on 1-2 catchments
    side = 256
    lab, zc, rain, cnt, rs, es, zmax, zmin, nn = tp._p111_cs_args(side * side, rng)
    assert len(cnt) == 1024 and abs((lab < 0).mean() - (1 - np.pi / 4)) < 0.01
    assert rain.min() >= 0 and abs(rain.mean() - 50) < 5 and zmax[0] == -2 ** 31 and zmin[0] == 2 ** 31 - 1
    lab, nb = tp._p111_cs_labels(2048, rng)                                  # the probe's: tiles of 64
    w = lab.reshape(-1, 32)[::61]
    k = np.array([len(np.unique(r[r >= 0])) for r in w])
    assert nb == 1024 and k.max() <= 4 and 0.8 < (k[k > 0] <= 2).mean()


# ---- d8-flowdir-smem-tile ----

def test_d8_flowdir():
    n = 40                                                  # 3 x 3 blocks, the last row and column partial
    host, (dem, code, sl, cs, nx, ny), *_ = launch("probe/d8-flowdir-smem-tile", n)
    c, s = tp._p111_d8_ref(dem.reshape(n, n), cs)
    assert (code == c.ravel()).all() and (sl == s.ravel()).all()
    assert len(set(code)) >= 4


def test_d8_hand_made():
    # a cone around a pit at (10, 12) with a flat plateau in the corner: every cell on the
    # cone points along the line to the pit, the pit and the plateau code 0
    n = 24
    yy, xx = np.mgrid[0:n, 0:n]
    z = np.hypot(xx - 12.0, yy - 10.0).astype(np.float32)
    z[18:, 18:] = 50.0                                      # the plateau, higher than all around
    host = [z.ravel(), np.zeros(n * n, np.uint8), np.zeros(n * n, np.float32), np.float32(10.0),
            np.int32(n), np.int32(n)]
    out = run("probe/d8-flowdir-smem-tile", host, n)
    code = out[1].reshape(n, n)
    c, s = tp._p111_d8_ref(z, 10.0)
    assert (code == c).all() and (out[2] == s.ravel()).all()
    assert code[10, 12] == 0 and (code[19:23, 19:23] == 0).all()
    assert code[10, 5] == 1 and code[10, 20] == 16 and code[3, 12] == 4 and code[17, 12] == 64
    assert code[4, 6] == 2 and code[16, 18] == 32                            # the diagonals SE, NW
    assert out[2].reshape(n, n)[10, 5] == np.float32(1.0) / np.float32(10.0)


# ---- flowacc-pull-pass ----

def test_flowacc_pass():
    n = 40                                                  # 2 x 5 blocks of 32 x 8, partial in x
    host, (code, acc, nxt, flag, nx, ny), *_ = launch("probe/flowacc-pull-pass", n)
    ref = tp._p111_acc_pass(code.reshape(n, n), acc.reshape(n, n)).ravel()
    assert (nxt == ref).all() and (ref != acc).any() and flag[0] == 1
    # iterated to convergence: the last pass changes nothing and leaves the flag at 0
    c = code.reshape(n, n)
    a = acc.reshape(n, n)
    while True:
        b = tp._p111_acc_pass(c, a)
        if (b == a).all():
            break
        a = b
    out = run("probe/flowacc-pull-pass", [code, a.ravel().copy(), np.zeros(n * n, np.int32),
                                          np.zeros(1, np.int32), nx, ny], n, policy="random")
    assert (out[2] == a.ravel()).all() and out[3][0] == 0
    # every cell counted once downstream of itself: the counts where the flow leaves the
    # grid or stops sum to the cells
    sinks = np.zeros((n, n), bool)
    yy, xx = np.mgrid[0:n, 0:n]
    for k, (dx, dy) in enumerate(zip(tp.P111_DX, tp.P111_DY)):
        m = c == (1 << k)
        sinks |= m & ((xx + dx < 0) | (xx + dx >= n) | (yy + dy < 0) | (yy + dy >= n))
    sinks |= c == 0
    assert a[sinks].sum() == n * n


# ---- kinwave-newton-reach ----

def test_kinwave_route():
    # 12 steps (the probe's 48 are slow in the emulator), floods peaking within them
    rng = np.random.default_rng(4)
    n, steps = 40, 12                                       # one partial block
    host = tp._p111_kw_args(n, rng, steps=steps)
    q = host[0].reshape(steps + 1, n)
    assert host[8] == steps and (q.max(axis=0) > 1.5 * q[0]).mean() > 0.5
    out = run("probe/kinwave-newton-reach", host, n)
    ref, its = tp._p111_kw_ref(*host[:6], steps=steps)
    got = out[6].reshape(steps, n)
    np.testing.assert_allclose(got, ref, rtol=2e-5)
    assert (its.max(axis=(0, 1)) >= 2).any() and (its == 1).any()
    # the flood arrives attenuated and later at the outlet, plus the lateral inflow
    lat = host[5] * host[1]
    assert (got.max(axis=0) < q.max(axis=0) + lat + 1e-3).all()


def test_kinwave_steady():
    # a steady inflow stays the steady state: the outlet carries inflow plus lateral inflow
    rng = np.random.default_rng(5)
    n, steps = 8, 4
    host = tp._p111_kw_args(n, rng, steps=steps)
    host[0] = np.tile(host[0][:n], steps + 1)
    out = run("probe/kinwave-newton-reach", host, n)[6].reshape(steps, n)
    steady = host[0][:n].astype(np.float64) + host[5].astype(np.float64) * host[1]
    np.testing.assert_allclose(out, np.broadcast_to(steady, out.shape), rtol=2e-5)


# ---- green-ampt-storm ----

def test_green_ampt():
    n = 300                                                 # 2 blocks, the last partial
    host, (soil, se, rf, F, R, tpd, dt, nn), *_ = launch("probe/green-ampt-storm", n)
    rF, rR, rtp, gap = tp._p111_ga_ref(soil, se, rf, dt)
    assert gap > 1e-5
    assert (F == rF).all() and (R == rR).all() and (tpd == rtp).all()
    assert (tpd >= 0).any() and (tpd < 0).any() and len(set(soil)) > 2
    rain = tp._p111_ga_rain().astype(np.float64)
    np.testing.assert_allclose(F + R, rain.sum() * 0.25 * rf, rtol=1e-5)      # water balance


def test_green_ampt_edge_cases():
    # sand under light rain never ponds; clay at saturation ponds at once after the first
    # interval (F > 0, capacity ~Ks); a silt loam in between
    rng = np.random.default_rng(9)
    n = 64
    host = tp._p111_ga_args(n, rng)
    host[0] = np.array([0, 10, 4, 4] * 16, np.uint8)
    host[1] = np.array([0.5, 1.0, 0.1, 0.6] * 16, np.float32)
    host[2] = np.array([0.05, 1.0, 1.0, 1.0] * 16, np.float32)
    syms = tp._p111_ga_syms(n, rng)
    out = run("probe/green-ampt-storm", host, n, symbols=syms)
    rF, rR, rtp, gap = tp._p111_ga_ref(*host[:3])
    assert (out[3] == rF).all() and (out[4] == rR).all() and (out[5] == rtp).all()
    assert (out[5][0::4] == -1).all() and (out[4][0::4] == 0).all()
    assert (out[5][1::4] == 1).all()
    assert (out[3][2::4] > out[3][3::4]).all()              # drier soil takes in more


# ---- reservoir-scenarios ----

def test_reservoir_sim():
    # 150 days (the probe's 365 are slow in the emulator), the inflows scaled 0.1 .. 3 so
    # that some scenarios run short and some spill; a start at 150 hm^3
    rng = np.random.default_rng(3)
    n, days = 64, 150
    host = tp._p111_res_args(n, rng, days=days)
    host[0] = (host[0].reshape(days, n) * np.geomspace(0.1, 3, n).astype(np.float32)).ravel()
    host[9] = np.float32(150.0)
    assert host[10] == days
    out = run("probe/reservoir-scenarios", host, n, symbols=tp._p111_res_syms(n, rng))
    S, sp, low, fails, ks = tp._p111_res_ref(host[0], n, s0=150.0)
    assert (out[3] == S).all() and (out[4] == sp).all() and (out[5] == low).all() and (out[6] == fails).all()
    assert (fails > 0).sum() >= 5 and (sp > 0).sum() >= 5 and (fails == 0).any()
    assert (low[fails > 0] <= tp.P111_RES_DEAD + 1e-3).all()
    assert len(np.unique(ks)) >= 8                          # the table scan's trips vary


# ---- catchment-stats-atomics ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_catchment_stats(policy):
    n = 60 * 60                                             # 15 blocks, the last partial
    host, out, *_ = launch("probe/catchment-stats-atomics", n, policy=policy)
    nb = len(host[3])
    cnt, rs, es, zmax, zmin = tp._p111_cs_ref(*host[:3], nb)
    assert nb == 900 and (cnt > 0).sum() > 600 and (cnt == 0).any()
    assert (out[3] == cnt).all() and (out[6] == zmax).all() and (out[7] == zmin).all()
    np.testing.assert_allclose(out[4], rs, rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(out[5], es, rtol=1e-5, atol=1e-3)
    assert (out[6][cnt == 0] == -2 ** 31).all() and (out[7][cnt == 0] == 2 ** 31 - 1).all()
