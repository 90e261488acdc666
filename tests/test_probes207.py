"""probe-unseen205's kernels (kernels_cuda/probes207.cu) give independent numpy references'
answers (a generic mass-action ROS2 with numpy.linalg.solve, float64 radiative transfer,
bilinear semi-Lagrangian advection, the Gaussian plume formula, numpy.add.at gridding, the
Wesely resistances) in the emulator at small sizes, with the sanitizer on: the timing probes
are only worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/aq-ros2-nox-hox-cells", "probe/aq-photolysis-jvalues-const", "probe/aq-semilagrangian-bilinear",
       "probe/aq-gaussian-plume-smem", "probe/aq-emission-gridding-atomics", "probe/aq-wesely-drydep-budget"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen205"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes207.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _air(temp, pres):
    return np.asarray(pres, np.float64) * 100 / (1.380649e-23 * np.asarray(temp, np.float64)) * 1e-6


def test_data():
    rng = np.random.default_rng(0)
    # chemistry: ranges, skew, the radicals and NO / NO2 near their steady states
    n = 1 << 14
    h = tp._p207_ch_args(n, rng)
    c = h[0].reshape(n, 6)
    M = _air(h[1], h[2])
    nox = (c[:, 1] + c[:, 2]) / M * 1e9
    assert 0.15 < nox.min() and 0.3 < np.median(nox) < 2 and nox.max() > 20
    assert np.percentile(nox, 99) > 10 * np.median(nox)
    assert (c > 0).all() and 3 <= (c[:, 0] / M * 1e9).min() and (c[:, 0] / M * 1e9).max() < 60
    assert 1e5 < np.percentile(c[:, 3], 1) and np.percentile(c[:, 3], 99) < 1e8 and 1e8 < np.median(c[:, 4]) < 2e9
    assert 278 < h[1].min() and h[1].max() < 318 and 2 < h[1].std() < 6 and 990 > h[2].min() - 30
    assert (h[5] <= 8e-3 + 1e-9).all() and h[5].min() >= 1.6e-3 - 1e-9
    assert np.allclose(h[6] / h[5], 3e-5 / 8e-3, rtol=1e-6)
    k = tp._p207_ch_k(h[1], h[2], h[3], h[5], h[6])
    leighton = c[:, 1] / c[:, 2] * (k[:, 1] * c[:, 0] + k[:, 4] * c[:, 4]) / k[:, 0]
    assert abs(np.median(leighton) - 1) < 0.05 and np.percentile(np.abs(np.log(leighton)), 99) < 0.5
    assert (h[7] <= tp.P207_CH_DT).all() and 150 < np.median(h[7]) < 260
    assert len(h) == 13 and h[0].dtype == np.float64
    # photolysis: the tables' J values at the ground and aloft, the grid, the night
    tb = tp._p207_jv_tables()
    assert tb["c_sq"].shape == (16, 18) and (tb["c_sq"] >= 0).all() and (np.diff(tb["c_so3"][:9]) < 0).all()
    h = tp._p207_jv_args(3 * 24 * 32, rng, nlat=24, nlon=32)
    J, mu = tp._p207_jv_ref(*h[:6], int(h[7]), int(h[8]), float(h[9]))
    g = J[:768]
    assert 6e-3 < g[:, 0].max() < 1.4e-2 and 2e-5 < g[:, 1].max() < 8e-5 and 0.1 < g[:, 9].max() < 0.3
    assert (J[768:].max(0) >= g.max(0)).all() and 0.45 < (mu > 0).mean() < 0.55
    assert 200 < h[5][:768].min() and h[5][:768].max() < 480 and (np.diff(h[5].reshape(3, -1), axis=0) < 0).all()
    assert np.isclose(h[2], 0.06).any() and h[2].max() > 0.7 and (np.diff(h[3].reshape(3, -1), axis=0) < 0).all()
    # semi-Lagrangian: winds, Courant numbers, skewed tracers
    nx = 256
    h = tp._p207_sl_args(nx, rng)
    u, v = h[2].reshape(nx // 2, nx), h[3].reshape(nx // 2, nx)
    assert 25 < u.max() < 50 and u.min() < -5 and 5 < np.abs(v).max() < 30
    q = h[0].reshape(4, nx // 2, nx)
    assert 10 < q[0].min() and q[0].max() < 80 and (q[1] >= 70).all()
    assert q[2].max() > 50 * np.median(q[2]) and q[3].max() > 100 * np.median(q[3]) and (q[3] > 0.5).mean() < 0.2
    # the plume: clusters, heavy-tailed emissions, buoyant stacks
    st = tp._p207_pl_stacks(4000, rng)
    assert st.dtype.itemsize == 28 and 10 <= st["h"].min() and st["h"].max() <= 250
    top = np.sort(st["q"])[::-1]
    assert top[:200].sum() > 0.5 * top.sum() and 0.03 < (st["h"] >= 150).mean() < 0.07
    d = np.hypot(st["x"][:, None] - np.array([0.35, 0.25, 0.45]) * 51200,
                 st["y"][:, None] - np.array([0.40, 0.60, 0.25]) * 51200).min(1)
    assert (d < 6000).mean() > 0.95 and (st["ts"] > 330).all()
    # emissions: the records, their shares, what falls outside, the profiles
    rec = tp._p207_eg_records(1 << 16, rng)
    assert rec.dtype.itemsize == 16
    pol = np.bincount(rec["pol"], minlength=6) / len(rec)
    assert 0.2 < pol[0] < 0.32 and 0.15 < pol[3] < 0.25 and 0.08 < pol[4] < 0.16
    lay = rec["sec_lay"] >> 4
    sec = rec["sec_lay"] & 15
    assert (lay[~np.isin(sec, [0, 1, 3, 9])] == 0).all() and lay.max() == 5 and sec.max() <= 12
    _, drop = tp._p207_eg_ref(rec, 700, 420, 6, -25.0, 30.0, 0.1, 0, 2, 7, 0x1FFF)
    assert 0.15 < drop / len(rec) < 0.3
    assert (np.diff(rec["country"].astype(int)) >= 0).all()                 # sorted by country
    et = tp._p207_eg_tables()
    for k in ("c_month", "c_wday", "c_hour"):
        assert np.allclose(et[k].mean(1), 1, atol=1e-5) and (et[k] > 0).all()
    assert et["c_hour"][5].argmax() in (7, 8, 17, 18) and et["c_month"][2].argmax() == 0
    # deposition: land use, stability by the sun, the resistances' results
    n = 2 * 96 * 96
    h = tp._p207_dd_args(n, rng)
    lu = h[0]
    assert 0.5 < (lu == 6).mean() < 0.72 and len(np.unique(lu)) == 11
    land = lu != 6
    day = h[3] > 0
    assert (h[2][land & day] < 0).all() and (h[2][land & ~day] > 0).all()
    cn, dep, vd = tp._p207_dd_ref(*h[:6], int(h[6]), float(h[7]), float(h[8]), int(h[9]), float(h[10]),
                                  float(h[11]), float(h[12]))
    med = np.median(vd, axis=1) * 100                                       # cm/s
    assert med[3] > med[1] > med[0] > med[2] and 0.3 < med[3] < 2 and (vd > 0).all() and (vd < 0.3).all()
    assert np.percentile(vd[3], 99) < 0.1 and np.percentile(vd[2], 50) < 1e-3
    assert (dep >= 0).all() and (cn <= h[5].reshape(4, n)).all()


# ---- ros2-nox-hox-cells ----

def test_chem_ros2():
    rng = np.random.default_rng(1)
    n = 160                                                                 # a block and a partial one
    h = tp._p207_ch_args(n, rng)
    c = h[0].reshape(n, 6)
    h[5][:8] = 0.0                                                          # dusk: no photolysis
    h[6][:8] = 0.0
    h[7][8:12] = 5000.0                                                     # a first step beyond dt
    c[12:16, 1:3] = 0.0                                                     # no NOx at all
    c[16:20, 3:5] *= 30.0                                                   # radicals far off steady state
    h[7][140:142] = 1e-25                                                   # 40 steps of growth: capped
    out = run("probe/aq-ros2-nox-hox-cells", h, n)
    y, hn, steps = tp._p207_ch_ref(*h[:8])
    got = out[0].reshape(n, 6)
    assert (out[8] == steps).all() and (out[7] == hn.astype(np.float32)).all()
    assert np.allclose(got, y, rtol=1e-9, atol=1e-3)
    n0 = c[:, 1] + c[:, 2] + c[:, 5]
    assert np.allclose(got[:, 1] + got[:, 2] + got[:, 5], n0, rtol=1e-12)   # nitrogen kept
    assert (got[12:16, 1:3] == 0).all() and (got[12:16, 5] == c[12:16, 5]).all()
    assert steps[16:20].min() > np.median(steps) and steps.min() >= 1 and (steps[8:12] < 6).all()
    assert list(steps[140:142]) == [tp.P207_CH_MAXSTEP] * 2 and np.sort(steps)[-3] < tp.P207_CH_MAXSTEP
    y_all, _, s_all = tp._p207_ch_ref(*h[:8], maxstep=10 ** 4)
    assert (s_all[140:142] > tp.P207_CH_MAXSTEP).all() and not np.allclose(y_all[140], y[140], rtol=1e-3)
    M = _air(h[1], h[2])
    assert (got[:8, 0] < c[:8, 0]).all() and (got[:8, 2] >= c[:8, 2]).all()  # dark: NO + O3 -> NO2
    assert (np.abs(got[20:, 0] / c[20:, 0] - 1) < 0.2).all() and (got[:, 0] / M * 1e9 < 80).all()


# ---- photolysis-jvalues-const ----

def test_jvalues():
    rng = np.random.default_rng(3)
    nlat, nlon = 16, 24
    ncol = nlat * nlon
    n = 4 * ncol + 100                                                      # a partial fifth level
    h = tp._p207_jv_args(n, rng, nlat=nlat, nlon=nlon)
    # the subsolar column (lat 23.44, lon 0 at 12 UTC): no ozone, no air above the top cell
    h[0][0], h[1][0], h[2][0] = 23.44, 0.0, 0.3
    last = 4 * ncol
    h[5][last], h[3][last] = 0.0, 0.0
    tb = tp._p207_jv_tables()
    out = run("probe/aq-photolysis-jvalues-const", h, n, symbols=tb)
    got = out[6].reshape(n, 16)
    J, mu = tp._p207_jv_ref(*h[:6], ncol, int(h[8]), float(h[9]))
    sure = np.abs(mu) > 1e-4                                                # float32 may round the terminator
    assert ((got[sure] == 0).all(1) == (mu[sure] <= 0)).all() and 0.4 < (mu > 0).mean() < 0.6
    big = J > 1e-6 * J.max(0)
    assert np.allclose(got[big], J[big], rtol=2e-4) and (np.abs(got - J) <= 1e-5 * J.max(0) + 1e-30).all()
    top = tb["c_sq"].astype(np.float64) @ tb["c_f0"] * (1 + 2 * 0.3 * mu[last])
    assert mu[last] > 0.999 and np.allclose(got[last], top, rtol=1e-5)
    assert (got[:ncol].max(0) < got[3 * ncol:4 * ncol].max(0)).all()      # more light aloft


# ---- semilagrangian-bilinear ----

def _sl(h, nx):
    out = run("probe/aq-semilagrangian-bilinear", h, nx)
    return out[1].reshape(4, nx // 2, nx)


@pytest.mark.parametrize("scale", [1.0, 100.0])
def test_sl_advect(scale):
    rng = np.random.default_rng(4)
    nx = 128
    h = tp._p207_sl_args(nx, rng)
    h[9], h[10] = np.float32(h[9] * scale), np.float32(h[10] * scale)      # long steps: Courant 10+, wraps
    got = _sl(h, nx)
    ref, xd, yd = tp._p207_sl_ref(h[0], h[2], h[3], nx, nx // 2, 4, *h[7:11])
    scl = np.abs(ref).max(axis=(1, 2))[:, None, None]
    assert (np.abs(got - ref) <= 2e-5 * scl).all()
    assert (xd < 0).any()                                                   # across the date line
    if scale > 1:
        assert (xd >= nx).any() and np.abs(xd - np.arange(nx)).max() > 10   # westward too, 10+ points
        assert (yd < 0).any() and (yd > nx // 2 - 1).any()                  # clamped at the poles
    q = h[0].reshape(4, nx // 2, nx)
    assert (got.min(axis=(1, 2)) >= q.min(axis=(1, 2)) - 1e-4).all()      # bilinear: no new extrema
    assert (got.max(axis=(1, 2)) <= q.max(axis=(1, 2)) + 1e-3).all()


def test_sl_advect_shifts():
    rng = np.random.default_rng(5)
    nx, ny = 64, 32
    h = tp._p207_sl_args(nx, rng)
    q = h[0].reshape(4, ny, nx)
    h[2][:], h[3][:] = 0.0, 0.0                                             # calm: nothing moves
    assert (_sl(h, nx) == q).all()
    lat0, dlat, cx = float(h[7]), float(h[8]), float(h[9])
    cosl = np.cos(lat0 + np.arange(ny) * dlat)
    m = np.arange(ny) % 7 - 3                                               # row j shifted by m[j] points
    h[2][:] = np.repeat(m * cosl / cx, nx).astype(np.float32)
    got = _sl(h, nx)
    want = np.stack([np.roll(q[:, j], m[j], axis=-1) for j in range(ny)], axis=1)
    assert np.allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(q).max())


# ---- gaussian-plume-smem ----

@pytest.mark.parametrize("cls, ns, n", [(3, 96, 64), (5, 200, 32), (0, 40, 64)])
def test_gauss_plume(cls, ns, n):
    rng = np.random.default_rng(6 + cls)
    h = tp._p207_pl_args(n, rng, ns=ns, cls=cls)
    out = run("probe/aq-gaussian-plume-smem", h, n)
    ref = tp._p207_pl_ref(h[0], n, *[float(x) for x in h[4:8]], int(h[8]), float(h[9]), float(h[10]))
    got = out[2].reshape(n, n)
    assert np.allclose(got, ref, rtol=1e-4, atol=1e-5 * ref.max())
    assert (got[ref == 0] == 0).all() and 0.1 < (ref == 0).mean() < 0.6 and ref.max() > 10


def test_gauss_plume_ground_source():
    # one ground-level source without buoyancy on the axis of a row, the wind from the west:
    # C(x, 0, 0) = Q / (pi u sy sz) downwind, nothing upwind; a second, 300 m tall, above the lid
    n, dx = 64, 100.0
    st = np.zeros(2, tp.P207_PL_DTYPE)
    st[0] = (1000.0, 20 * dx + dx / 2, 0.0, 50.0, 0.0, 300.0, 1.0)
    st[1] = (1000.0, 40 * dx + dx / 2, 300.0, 500.0, 10.0, 400.0, 3.0)
    h = [st, np.int32(2), np.zeros(n * n, np.float32), np.int32(n), np.float32(dx), np.float32(0.0),
         np.float32(3.0), np.float32(270.0), np.int32(3), np.float32(290.0), np.float32(250.0)]
    got = run("probe/aq-gaussian-plume-smem", h, n, grid=(2, 16))[2].reshape(n, n)
    x = (np.arange(n) + 0.5) * dx - 1000.0
    a, b, c, d, e = tp.P207_PL_PG[3]
    sy = a * x / np.sqrt(1 + b * np.abs(x))
    sz = c * x * (1 + d * np.abs(x)) ** e
    down = x > 1
    want = np.where(down, 50.0 / (np.pi * 3.0 * sy * sz) * 1e6, 0.0)
    lid = np.exp(-(2 * 250.0) ** 2 / (2 * np.where(down, sz, 1) ** 2))      # the lid's images
    assert np.allclose(got[20], want * (1 + lid), rtol=1e-4) and (got[20][~down] == 0).all()
    assert (got[40:, :] < 1e-3 * got[20].max()).all() and got[20].max() > 1e3


# ---- emission-gridding-atomics ----

def _eg(h, n, grid=None):
    out = run("probe/aq-emission-gridding-atomics", h, n, symbols=tp._p207_eg_tables(), grid=grid)
    ref, drop = tp._p207_eg_ref(h[0], *[int(x) for x in h[2:5]], *[float(x) for x in h[5:8]],
                                *[int(x) for x in h[8:12]])
    return out[1].reshape(ref.shape), ref, int(out[12][0]), drop


@pytest.mark.parametrize("grid", [None, (8, 1)])
def test_emis_grid(grid):
    rng = np.random.default_rng(7)
    n = 4000
    h = tp._p207_eg_args(n, rng)
    got, ref, dropped, drop = _eg(h, n, grid)
    assert dropped == drop and 0.05 < drop / n < 0.4
    assert np.allclose(got, ref, rtol=2e-5, atol=1e-6 * ref.max()) and ((got > 0) == (ref > 0)).all()
    assert (ref[:, 1:].sum() > 0) and ref[3].sum() > 0 and ref.max() > 50 * np.median(ref[ref > 0])


def test_emis_grid_edges():
    rng = np.random.default_rng(8)
    n = 256
    h = tp._p207_eg_args(n, rng)
    rec = h[0]
    rec["pol"], rec["sec_lay"], rec["emis"], rec["country"] = 0, 5, 1.0, 3   # NOx, road, layer 0
    rec["lat"] = 50.05
    rec["lon"][:8] = [-25.0, 44.95, 45.0, -25.01, 0.0, 0.0, 10.0, -24.96]     # edges: in, in, out, out
    rec["lat"][4:6] = [30.0, 72.0]                                           # in, out
    rec["lon"][8:40] = 100.0                                                  # 32 records outside
    rec["lon"][40:72] = np.linspace(-24.9, 44.9, 32)                          # local hours -2 .. 3 at 0 UTC
    rec["sec_lay"][72:80] = 3 | (2 << 4)                                     # sector D (masked), layer 2
    rec["lon"][72:80] = 5.0
    rec["lon"][80:] = rng.uniform(-20, 40, n - 80)
    rec["lat"][80:] = 40.05
    rec["sec_lay"][80:] = rng.integers(0, 13, n - 80) | (rng.integers(0, 6, n - 80) << 4)
    for hour, wday in [(0, 0), (23, 6), (12, 3)]:
        h[10], h[9] = np.int32(hour), np.int32(wday)
        h[1][:] = 0
        h[12][:] = 0
        got, ref, dropped, drop = _eg(h, n)
        assert dropped == drop == 35 and np.allclose(got, ref, rtol=2e-5, atol=1e-7 * ref.max())
        assert (got[:, 2, 200] == 0).all() and (ref[:, 2, 200] == 0).all()  # sector D: masked
    assert ref[0, 0, 200, 0] > 0 and ref[0, 0, 200, 699] > 0 and ref[0, 0, 0, 250] > 0


# ---- wesely-drydep-budget ----

@pytest.mark.parametrize("grid, policy, n", [(None, "lockstep", 2 * 40 * 40 + 17), ((3, 1), "random", 1500)])
def test_drydep(grid, policy, n):
    rng = np.random.default_rng(9)
    h = tp._p207_dd_args(n, rng)
    h[4][:64] = 260.0                                                       # frozen: the snow season
    h[2][64:96] = np.float32(1e6)                                           # neutral
    syms = tp._p207_dd_tables()
    out = run("probe/aq-wesely-drydep-budget", h, n, symbols=syms, grid=grid, policy=policy)
    cn, dep, vd = tp._p207_dd_ref(*h[:6], int(h[6]), float(h[7]), float(h[8]), int(h[9]), float(h[10]),
                                  float(h[11]), float(h[12]))
    assert np.allclose(out[5].reshape(4, n), cn, rtol=2e-6)
    lu = h[0].astype(np.int64)
    by = np.zeros((4, 11))
    for s in range(4):
        np.add.at(by[s], lu, dep[s])
    assert np.allclose(out[13].reshape(4, 11), by, rtol=2e-5)
    assert np.allclose(out[14], dep.sum(1), rtol=2e-6) and (out[15] == np.bincount(lu, minlength=11)).all()
    assert np.isclose(out[13].reshape(4, 11).sum(1), out[14], rtol=1e-5).all()


def test_drydep_single_landuse():
    # every cell water, then every cell deciduous forest at midsummer noon: one shared address a
    # species, the deposits against the float64 reference
    rng = np.random.default_rng(10)
    n = 1000
    h = tp._p207_dd_args(n, rng)
    syms = tp._p207_dd_tables()
    for l in (6, 3):
        h[0][:] = l
        h[4][:] = 300.0
        h[3][:] = 800.0
        out = run("probe/aq-wesely-drydep-budget", h, n, symbols=syms)
        cn, dep, vd = tp._p207_dd_ref(*h[:6], int(h[6]), float(h[7]), float(h[8]), int(h[9]), float(h[10]),
                                      float(h[11]), float(h[12]))
        assert (out[15] == np.where(np.arange(11) == l, n, 0)).all()
        got = out[13].reshape(4, 11)
        assert np.allclose(got[:, l], dep.sum(1), rtol=2e-5) and (np.delete(got, l, axis=1) == 0).all()
    assert np.median(vd[0]) > 0.003                                          # O3 on a lush forest: > 0.3 cm/s
