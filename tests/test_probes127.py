"""probe-unseen125's kernels (kernels_cuda/probes127.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/wave2d-o4-smem-tile", "probe/stalta-pick-early-exit", "probe/xcorr-pairs-smem-lags",
       "probe/mag-hist-gr-atomics", "probe/hypo-grid-search-const", "probe/slant-stack-taup-interp"]


def copy(host):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in host]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen125"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes127.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    # wave: a ring around the source, a layered model with a fast disc, CFL number <= 0.45
    rng = np.random.default_rng(0)
    n = 256
    up, uc, vel, un, dt, dx, nx, ny, sx, sy, src = tp._p127_wave_args(n, rng)
    assert all(a.dtype == np.float32 and len(a) == n * n for a in (up, uc, vel, un)) and (un == -7).all()
    assert nx == ny == n and (sx, sy) == (128, 51) and src == np.float32(0.01)
    assert vel.min() == 1500 and 4400 < vel.max() < 4500 and (vel == 4400).sum() > 0.02 * n * n
    assert vel.max() * dt / dx <= 0.45
    assert 0.95 < np.abs(uc).max() < 1.05 and np.abs(uc - up).max() > 0.1
    U = uc.reshape(n, n)
    assert abs(U[sy, sx]) < 0.01 and U[sy, sx + 64] > 0.9                  # the ring at radius 64
    # STA/LTA: ~40-50% of the channels pick, at samples 290 .. 710, within 10 samples of the
    # arrival; every warp has a channel without a pick (a warp runs all 1024 samples)
    rng = np.random.default_rng(0)
    n = 4096
    data, pick, rmax, nch, ns, nsta, nlta, thr = tp._p127_sl_args(n, rng)
    assert data.dtype == np.float32 and len(data) == ns * n and ns == 1024 and nch == n
    assert (pick == -2).all() and not rmax.any() and (nsta, nlta, thr) == (20, 200, 4.0)
    assert 0.9 < data.reshape(ns, n)[:200].std() < 1.1                     # noise before the arrivals
    rec, arr = tp._p127_sl_record(n, np.random.default_rng(0))
    assert 290 <= arr.min() and arr.max() < 710
    pk, best, gap = tp._p127_sl_ref(data, n)
    on = pk >= 0
    assert 0.35 < on.mean() < 0.6 and (pk[on] >= arr[on] - 10).all() and (pk[on] <= arr[on] + 10).all()
    assert (~on).reshape(-1, 32).any(axis=1).all() and (best[~on] < thr).all() and (best[on] > thr).all()
    amp = np.abs(rec[300:800] - np.asarray(data, np.float64).reshape(ns, n)[300:800]).max(axis=0)
    assert amp.max() < 1e-5                                                 # rounded to float32 only
    # cross-correlation: all pairs a < b, a common signal delayed 0 .. 31 samples a station
    rng = np.random.default_rng(0)
    n = 12
    tr, pa, pb, cc, k = tp._p127_xc_args(n, rng)
    assert k == 66 == len(pa) == len(pb) and (pa < pb).all() and len(cc) == 66 * 128 and len(tr) == n * 512
    off = tp._p127_xc_offsets(n, np.random.default_rng(0))
    ref = tp._p127_xc_ref(tr, pa, pb)
    assert (ref.argmax(axis=1) - 64 == off[pa] - off[pb]).all()
    assert 0.55 < ref.max(axis=1).min() and ref.max() < 0.75
    # magnitudes: b = 1 by Aki's estimate above Mc, ~29% above it, 0.01 units, ~12% in the
    # busiest bin
    rng = np.random.default_rng(0)
    n = 1 << 18
    mag, hist, nmc, sdm, mc, nn = tp._p127_mh_args(n, rng)
    assert mag.dtype == np.float32 and len(mag) == n and nn == n and mc == np.float32(2.0)
    assert not hist.any() and len(hist) == 100 and nmc[0] == 0 and sdm[0] == 0
    assert mag.min() >= 1.0 and mag.max() < 9 and np.allclose(mag * 100, np.round(mag * 100), atol=1e-3)
    h, c, s = tp._p127_mh_ref(mag)
    assert abs(np.log10(np.e) / (s / c + 0.005) - 1.0) < 0.03 and 0.27 < c / n < 0.31
    assert 0.1 < h.max() / n < 0.14 and h.argmax() in (15, 16) and h.sum() == n
    # grid search: the misfit smallest within a grid step or two of the true hypocentre
    rng = np.random.default_rng(0)
    n = 128 * 128 * 64
    mis, x0, y0, z0, dh, vp, nz = tp._p127_hy_args(n, rng)
    assert nz == 64 and len(mis) == n and dh == np.float32(0.5) and vp == np.float32(6)
    syms = tp._p127_hy_syms(n, rng)
    sta, h, t = tp._p127_hy_event(n, np.random.default_rng(0))
    assert all(syms[k].dtype == np.float32 and len(syms[k]) == 48 for k in syms)
    assert 0 <= sta[:, :2].min() and sta[:, :2].max() <= 64 and -1 <= sta[:, 2].min() and sta[:, 2].max() <= 0
    assert 16 <= h[:2].min() and h[:2].max() <= 48 and 2 <= h[2] <= 30
    sub = tp._p127_hy_ref(syms, nz)
    i = int(sub.argmin())
    best = np.array([i % 128, i // 128 % 128, i // 16384]) * 0.5
    assert np.abs(best - h).max() <= 1.5 and sub.min() < 48 * (2 * tp.P127_HY_NOISE) ** 2
    # slant stack: tapered traces, the direct wave's slowness focused
    rng = np.random.default_rng(0)
    n = 8
    d, x, m, ntr, nt, dt, p0, dp = tp._p127_tp_args(n, rng)
    D = d.reshape(ntr, nt)
    assert (ntr, nt) == (256, 2048) and len(m) == n * nt and not m.any()
    assert not D[:, :16].any() and not D[:, -16:].any() and 0.9 < np.abs(D).max() < 2
    assert x[0] == 100 and np.allclose(np.diff(x), 12.5) and p0 == 0 and dp == np.float32(0.7e-3 / 8)
    pan = tp._p127_tp_ref(d, x, 3, dp=1 / 3000)                            # p = 0, 1/3000, 1/1500
    assert np.abs(pan[2]).max() > 2 * np.abs(pan[1]).max() and np.abs(pan[2]).max() > 100


# ---- wave2d-o4-smem-tile ----

@pytest.mark.parametrize("n", [48, 50])
def test_wave2d(n):
    # 48: 3 x 3 full tiles; 50: partial tiles on the right and bottom edges
    host, out, *_ = launch("probe/wave2d-o4-smem-tile", n)
    ref = tp._p127_wave_ref(host[0], host[1], host[2], n)
    got = out[3].reshape(n, n)
    np.testing.assert_allclose(got, ref, rtol=0, atol=2e-6)
    assert not got[:2].any() and not got[-2:].any() and not got[:, :2].any() and not got[:, -2:].any()
    assert (out[1] == host[1]).all() and (out[0] == host[0]).all()
    # the source: the same step without it differs at (sx, sy) only
    h = copy(host)
    h[10] = np.float32(0)
    out0 = run("probe/wave2d-o4-smem-tile", h, n)[3].reshape(n, n)
    diff = np.argwhere(got != out0)
    assert diff.tolist() == [[n // 5, n // 2]]


# ---- stalta-pick-early-exit ----

def test_stalta_pick():
    n = 700                                                 # 3 blocks, the last partial; 2 events
    host, out, *_ = launch("probe/stalta-pick-early-exit", n)
    pk, best, gap = tp._p127_sl_ref(host[0], n)
    assert gap > 1e-4 and 0.2 < (pk >= 0).mean() < 0.7
    assert (out[1] == pk).all()
    np.testing.assert_allclose(out[2], best, rtol=1e-5)


def test_stalta_edge_cases():
    # a dead channel (all zeros: 0 / 0, no pick, ratio 0), a channel over the threshold at
    # the first tested sample, one whose event comes after the record's end
    rng = np.random.default_rng(3)
    n = 40
    host = tp._p127_sl_args(n, rng)
    x = host[0].reshape(tp.P127_SL_NS, n)
    x[:, 0] = 0
    x[190:201, 1] = 30
    x[:, 2] = rng.standard_normal(tp.P127_SL_NS).astype(np.float32)
    out = run("probe/stalta-pick-early-exit", host, n)
    pk, best, gap = tp._p127_sl_ref(host[0], n)
    assert (out[1] == pk).all() and out[1][0] == -1 and out[2][0] == 0 and out[1][1] == 200 and out[1][2] == -1
    np.testing.assert_allclose(out[2], np.nan_to_num(best), rtol=1e-5)


# ---- xcorr-pairs-smem-lags ----

@pytest.mark.parametrize("policy, n", [("lockstep", 5), ("random", 2)])
def test_xcorr_pairs(policy, n):
    # 10 pairs; one pair with the warps interleaved at random (the reduction's barriers)
    host, out, *_ = launch("probe/xcorr-pairs-smem-lags", n, policy=policy)
    ref = tp._p127_xc_ref(*host[:3])
    np.testing.assert_allclose(out[3].reshape(ref.shape), ref, rtol=0, atol=2e-6)
    off = tp._p127_xc_offsets(n, np.random.default_rng(0))
    assert (out[3].reshape(ref.shape).argmax(axis=1) - 64 == off[host[1]] - off[host[2]]).all()


def test_xcorr_edge_cases():
    # a silent station (its pairs all zeros), a station paired with itself (the zero-lag
    # peak 1), and only some of the pairs listed
    rng = np.random.default_rng(4)
    tr, pa, pb, cc, k = tp._p127_xc_args(4, rng)
    tr.reshape(4, -1)[3] = 0
    pa = np.array([0, 2, 3, 1], np.int32)
    pb = np.array([0, 3, 1, 2], np.int32)
    out = run("probe/xcorr-pairs-smem-lags", [tr, pa, pb, np.zeros(4 * 128, np.float32), np.int32(4)], 3)
    got = out[3].reshape(4, 128)
    assert not got[1].any() and not got[2].any() and not got[3].any()    # pair 3 beyond the 3 blocks
    assert abs(got[0, 64] - 1) < 1e-6 and got[0].argmax() == 64
    np.testing.assert_allclose(got[0], tp._p127_xc_ref(tr, [0], [0])[0], atol=2e-6)


# ---- mag-hist-gr-atomics ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_mag_hist(policy):
    n = 5000
    host, out, *_ = launch("probe/mag-hist-gr-atomics", n, policy=policy)
    h, c, s = tp._p127_mh_ref(host[0])
    assert (out[1] == h).all() and out[2][0] == c
    assert abs(float(out[3][0]) - s) < 1e-5 * s


def test_mag_hist_edge_cases():
    # negative magnitudes (-0.05 truncates into bin 0, -0.3 to -3: not binned), magnitudes
    # on bin edges, at Mc exactly, and past the last bin (10.0, 12.3)
    mag = np.array([-0.3, -0.05, 0.0, 0.1, 1.3, 1.99, 2.0, 2.01, 9.99, 10.0, 12.3] * 7, np.float32)
    n = len(mag)
    host = [mag, np.zeros(100, np.int32), np.zeros(1, np.int32), np.zeros(1, np.float32), np.float32(2.0),
            np.int32(n)]
    out = run("probe/mag-hist-gr-atomics", host, n, policy="random")
    h, c, s = tp._p127_mh_ref(mag)
    assert (out[1] == h).all() and out[2][0] == c == 35 and abs(out[3][0] - s) < 1e-4
    assert h.sum() == 56 and h[0] == 14 and h[99] == 7


# ---- hypo-grid-search-const ----

def test_hypo_grid():
    n = 128 * 128 * 2                                       # 2 depth slices
    host, out, syms, _ = launch("probe/hypo-grid-search-const", n)
    ref = tp._p127_hy_ref(syms, 2)
    np.testing.assert_allclose(out[0], ref, rtol=2e-4, atol=1e-5)
    assert out[0].argmin() == ref.argmin()


# ---- slant-stack-taup-interp ----

def test_slant_stack():
    n = 2                                                   # p = 0 and p = PMAX / 2: 16 blocks
    host, out, *_ = launch("probe/slant-stack-taup-interp", n)
    ref = tp._p127_tp_ref(host[0], host[1], n)
    got = out[2].reshape(ref.shape)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-3)
    np.testing.assert_allclose(got[0], host[0].reshape(256, 2048).sum(axis=0, dtype=np.float64), atol=1e-3)
