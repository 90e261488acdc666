"""probe-unseen204's kernels (kernels_cuda/probes206.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on, on generated crowds and on
hand-made edge cases (doors crossed at their ends, bodies on top of each other, walls in a
tile, agents boxed in or fighting for a cell, measurement-area edges): the timing probes
are only worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/crowd-door-flow-short2", "probe/crowd-social-force-cells", "probe/crowd-floor-field-smem-u16",
       "probe/crowd-density-splat-atomics", "probe/crowd-ca-move-claims", "probe/crowd-fd-measure-shfl-double"]
ABSENT = tp.P206_FL_ABSENT
INF = tp.P206_FF_INF


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen204"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes206.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # door flow: occupancy, the hall's range, walking speeds, crossings at every door, counter-flow
    nslot, frames = 256, 1500
    traj = tp._p206_fl_traj(frames, nslot, rng)
    x, y = traj[..., 0].astype(np.int64), traj[..., 1].astype(np.int64)
    occ = x != ABSENT
    assert 0.85 < occ.mean() < 0.96 and (y[~occ] == 0).all()
    assert x[occ].min() >= -110 and x[occ].max() <= 6110 and y[occ].min() >= -110 and y[occ].max() <= 4110
    both = occ[:-1] & occ[1:]
    step = np.hypot(np.diff(x, axis=0), np.diff(y, axis=0))[both]
    assert 3.5 < np.median(step) < 6.5 and np.percentile(step, 99) < 12       # cm a frame: ~1.3 m/s
    flow, back, nc = tp._p206_fl_ref(traj.ravel(), nslot)
    assert (flow.sum(1) > 50).all() and 0.1 < back.sum() / nc < 0.4 and 0.001 < nc / both.sum() < 0.006
    # crowd: n pedestrians sorted by cell, densities under the cap, clustered
    n = 1 << 16
    cx_, cy_, start, ncx, ncy, rho = tp._p206_crowd(n, rng, tp.P206_SF_CELL)
    c = tp.P206_SF_CELL
    cell = np.floor(cy_ / c).astype(int) * ncx + np.floor(cx_ / c).astype(int)
    assert len(cx_) == n and start[-1] == n and len(start) == ncx * ncy + 1 and (np.diff(cell) >= 0).all()
    assert (np.searchsorted(start, np.arange(n), side="right") - 1 == cell).all()
    assert abs(n / (ncx * ncy * c * c) - tp.P206_CROWD_RHO) < 0.05 and rho.max() <= tp.P206_CROWD_MAX + 1e-9
    cnt = np.diff(start)
    assert (cnt == 0).mean() > 0.4 and (rho > 4).mean() > 0.05            # empty cells and packed clusters
    # social force: the structs
    peds, _, st, ncx, ncy, _ = tp._p206_sf_args(1 << 14, rng)
    assert peds.dtype.itemsize == 28 and st[-1] == 1 << 14
    assert peds["r"].min() >= 0.2 and peds["r"].max() <= 0.28 and 1.25 < peds["v0"].mean() < 1.43
    goals = tp._p206_sf_goals(int(ncx), int(ncy))
    d2 = (peds["x"][:, None] - goals[None, :, 0]) ** 2 + (peds["y"][:, None] - goals[None, :, 1]) ** 2
    assert (peds["goal"] == np.argmin(d2, 1)).all()
    sp = np.hypot(peds["vx"], peds["vy"])
    assert 0.3 < np.median(sp) < 1.3 and sp.max() < 3
    sy = tp._p206_sf_syms(1 << 14, rng)
    walls = sy["c_wall"].reshape(-1, 4)
    assert len(walls) == tp.P206_SF_NWALL and walls.min() >= 0 and walls[:, [0, 2]].max() <= ncx * c + 1e-3
    L = np.hypot(walls[4:, 2] - walls[4:, 0], walls[4:, 3] - walls[4:, 1])
    assert (L > 0).all() and L.max() <= 60 + 1e-3
    # density splat: the grid covers the site
    h = tp._p206_ds_args(1 << 12, rng)
    pos = h[0].reshape(-1, 2)
    assert pos.min() >= 0 and pos[:, 0].max() < h[5] * tp.P206_DS_H and pos[:, 1].max() < h[6] * tp.P206_DS_H
    # floor plan: the outer wall with exits on it only, buildings
    w = 512
    t, centres = tp._p206_plan(w, rng)
    edge = np.concatenate([t[0], t[-1], t[:, 0], t[:, -1]])
    assert set(np.unique(edge)) == {tp.P206_FF_WALL, tp.P206_FF_EXIT} and (t[1:-1, 1:-1] != tp.P206_FF_EXIT).all()
    assert len(centres) == 4 + w // 512 and 0.15 < (t == tp.P206_FF_WALL).mean() < 0.35
    ty, f, fo, nch, ww = tp._p206_ff_args(w, rng)
    ty, f = ty.reshape(w, w), f.reshape(w, w)
    assert (f[ty == tp.P206_FF_EXIT] == 0).all() and (f[ty == tp.P206_FF_WALL] == INF).all()
    fr = f[ty == tp.P206_FF_FREE]
    assert 0.1 < (fr == INF).mean() < 0.6 and fr[fr < INF].max() <= 5 * tp.P206_FF_FRONT * w + 1
    # cellular automaton: distinct free cells, queues near the exits, bosons near the agents
    h = tp._p206_ca_args(1 << 14, rng)
    cells, S, D, occ = h[0], h[1], h[2], h[3]
    w = int(h[6])
    assert len(np.unique(cells)) == 1 << 14 and (occ[cells] == tp.P206_CA_AGENT).all()
    assert (occ == tp.P206_CA_AGENT).sum() == 1 << 14 and abs((1 << 14) / w ** 2 - tp.P206_CA_FILL) < 0.02
    assert np.median(S[cells]) < 0.7 * np.median(S[occ == tp.P206_CA_FREE])
    assert (D[occ == tp.P206_CA_WALL] == 0).all() and D[cells].mean() > 1.3 * D[occ == tp.P206_CA_FREE].mean()
    assert (h[4] == 0xFFFFFFFF).all() and int(h[6]) % 16 == 0
    # fundamental diagram: the corridor, NaN pairs, speeds, stop-and-go
    nslot, frames = 512, 1200
    P = tp._p206_fd_traj(frames, nslot, rng)
    nan = np.isnan(P[..., 0])
    assert (nan == np.isnan(P[..., 1])).all() and 0.9 < (~nan).mean() < 1.0
    assert np.nanmin(P[..., 0]) > -0.1 and np.nanmax(P[..., 0]) < 240.1
    assert np.nanmin(P[..., 1]) > 0.2 and np.nanmax(P[..., 1]) < 7.8
    v = np.hypot(*(P[2:] - P[:-2]).transpose(2, 0, 1)) / (2 * tp.P206_FD_DT)
    v = v[~np.isnan(v)]
    assert 0.9 < np.median(v) < 1.45 and (v < 0.5).mean() > 0.05                  # the jams


# ---- crowd-door-flow-short2 ----

def _flow_run(h, n, grid=None):
    out = run("probe/crowd-door-flow-short2", h, n, symbols=tp._p206_fl_syms(n, None), grid=grid)
    return out[2].reshape(tp.P206_FL_NDOOR, tp.P206_FL_MAXBIN), out[3], int(out[4][0])


@pytest.mark.parametrize("grid", [None, (3, 1)])
def test_door_flow(grid):
    rng = np.random.default_rng(1)
    nslot, frames = 64, 500
    n = nslot * frames
    h = tp._p206_fl_args(n, rng, nslot=nslot, burn=300)
    flow, back, nc = _flow_run(h, n, grid)
    rf, rb, rn = tp._p206_fl_ref(h[0], nslot)
    assert (flow == rf).all() and (back == rb).all() and nc == rn
    assert rf.sum() >= 20 and rn > rf.sum() and (rf[:, 20:] == 0).all()


def test_door_flow_edges():
    nslot, frames = 8, 60
    T = np.zeros((frames, nslot, 2), np.int16)
    T[..., 0] = ABSENT

    def put(s, f0, f1, x, y):
        T[f0:f1, s] = (x, y)

    put(0, 0, 25, 5990, 2000); put(0, 25, 60, 6010, 2000)          # east door out at step 24: bin 0
    put(1, 0, 26, 1100, 3990); put(1, 26, 60, 1100, 4010)          # north door out at step 25: bin 1
    put(2, 0, 10, 4600, 3980); put(2, 10, 20, 4600, 4000)          # onto the door's line (inside) ...
    put(2, 20, 60, 4600, 4005)                                     # ... then out at step 19: bin 0
    put(3, 0, 30, 10, 610); put(3, 30, 60, -10, 630)               # west door through its end b: counted
    put(4, 0, 30, 10, 490); put(4, 30, 60, -10, 510)               # through its end a: not counted
    put(5, 0, 6, 5990, 3000); put(5, 6, 40, 6010, 3000)            # through the wall beside the door: no
    put(5, 41, 42, 6010, 2000); put(5, 42, 60, 5990, 2000)         # gone at 40, back outside, comes in
    put(6, 0, 50, 1100, 3999); put(6, 50, 51, 1100, 4001)          # jitter on the north door's line:
    put(6, 51, 52, 1100, 3999); put(6, 52, 60, 1100, 4002)         # out, in, out
    h = [T.ravel(), np.int32(nslot), np.zeros(tp.P206_FL_NDOOR * tp.P206_FL_MAXBIN, np.int32),
         np.zeros(tp.P206_FL_NDOOR, np.int32), np.zeros(1, np.int32), np.int32((frames - 1) * nslot)]
    want = np.zeros((tp.P206_FL_NDOOR, tp.P206_FL_MAXBIN), np.int64)
    want[0, 0] = want[2, 0] = want[3, 1] = want[1, 2] = 1
    want[1, 1] = 2
    for grid in (None, (1, 1)):
        flow, back, nc = _flow_run([a.copy() if isinstance(a, np.ndarray) else a for a in h], frames * nslot, grid)
        assert (flow == want).all() and list(back) == [1, 1, 0, 0] and nc == 8
    rf, rb, rn = tp._p206_fl_ref(T.ravel(), nslot)
    assert (rf == want).all() and list(rb) == [1, 1, 0, 0] and rn == 8


# ---- crowd-social-force-cells ----

def _sf_check(out, ref, tol):
    for f in ("vx", "vy"):
        assert (np.abs(out[f] - ref[f]) <= tol).all(), f
    ulp = 2.0 ** -22 * max(np.abs(ref["x"]).max(), np.abs(ref["y"]).max(), 1.0)
    for f in ("x", "y"):
        assert (np.abs(out[f] - ref[f]) <= tol * tp.P206_SF_DT + ulp).all(), f
    for f in ("r", "v0", "goal"):
        assert (out[f] == ref[f]).all()


def test_social_force():
    rng = np.random.default_rng(2)
    n = 1500
    h = tp._p206_sf_args(n, rng)
    sy = tp._p206_sf_syms(n, rng)
    out = run("probe/crowd-social-force-cells", h, n, symbols=sy)
    ref, tol = tp._p206_sf_ref(h[0], sy["c_wall"], sy["c_goal"])
    _sf_check(out[1], ref, tol)
    assert np.median(tol) < 1e-3 and (np.abs(ref["vx"] - h[0]["vx"]) > 0.1).mean() > 0.05   # forces acted
    sp = np.hypot(ref["vx"], ref["vy"])
    assert (np.abs(sp - 1.3 * ref["v0"]) < 1e-6).mean() > 0.01                  # some at the speed cap


def test_social_force_edges():
    c = tp.P206_SF_CELL
    ncx, ncy = 6, 3
    W, H = ncx * c, ncy * c
    pts = [(1.8, 1.8, 0.5, 0.1),        # alone: the driving force only
           (3.0, 1.9, 0.0, 0.0),        # two bodies on the same spot (d = 0: skipped) ...
           (3.0, 1.9, 0.3, 0.0),
           (3.35, 1.9, 0.0, 0.2),       # ... overlapped by a third
           (3.61, 2.3, -0.2, 0.0),      # the next cell over, overlapping it
           (7.05, 0.5, 1.0, 0.0),       # 15 cm from the east wall, 50 cm from the south one
           (0.05, 3.55, 0.0, 0.0)]      # in a corner
    x, y = np.array([p[0] for p in pts]), np.array([p[1] for p in pts])
    cell = np.floor(y / c).astype(int) * ncx + np.floor(x / c).astype(int)
    order = np.argsort(cell, kind="stable")
    peds = np.zeros(len(pts), tp.P206_PED_DTYPE)
    for k, i in enumerate(order):
        peds[k] = (pts[i][0], pts[i][1], pts[i][2], pts[i][3], 0.25, 1.3, 7 if i % 2 else 6)
    start = np.searchsorted(cell[order], np.arange(ncx * ncy + 1)).astype(np.int32)
    walls = [[0, 0, W, 0], [W, 0, W, H], [W, H, 0, H], [0, H, 0, 0]] + [[100 + k, 100, 101 + k, 100] for k in range(12)]
    sy = {"c_wall": np.array(walls, np.float32).ravel(), "c_goal": tp._p206_sf_goals(ncx, ncy).ravel()}
    n = len(pts)
    h = [peds, np.zeros(n, tp.P206_PED_DTYPE), start, np.int32(ncx), np.int32(ncy), np.int32(n)]
    out = run("probe/crowd-social-force-cells", h, n, symbols=sy)[1]
    ref, tol = tp._p206_sf_ref(peds, sy["c_wall"], sy["c_goal"])
    _sf_check(out, ref, tol)
    a = int(np.flatnonzero(order == 0)[0])                  # the lone pedestrian: v + (v0 e - v) dt / tau
    g = sy["c_goal"].reshape(-1, 2)[peds["goal"][a]] - np.array([1.8, 1.8])
    v = np.array([0.5, 0.1]) + (1.3 * g / np.hypot(*g) - [0.5, 0.1]) * tp.P206_SF_DT / tp.P206_SF_TAU
    assert np.abs([out["vx"][a] - v[0], out["vy"][a] - v[1]]).max() < 1e-6
    b, c2 = [int(np.flatnonzero(order == i)[0]) for i in (1, 2)]
    assert np.isfinite(out["vx"]).all() and out["x"][b] != out["x"][c2]          # pushed apart by the third
    e = int(np.flatnonzero(order == 5)[0])
    assert out["vx"][e] < 0                                                     # the wall pushes back


# ---- crowd-floor-field-smem-u16 ----

def test_floor_field():
    rng = np.random.default_rng(3)
    w = 64
    h = tp._p206_ff_args(w, rng)
    out = run("probe/crowd-floor-field-smem-u16", h, w)
    ref, ch = tp._p206_ff_ref(h[0], h[1], w)
    assert (out[2] == ref).all() and out[3][0] == ch >= 2
    assert (ref[h[0] != tp.P206_FF_FREE] == h[1][h[0] != tp.P206_FF_FREE]).all() and (ref <= h[1]).all()
    # relaxed to convergence by the reference: a launch changes nothing more
    f = h[1]
    for _ in range(60):
        f2, k = tp._p206_ff_ref(h[0], f, w)
        f = f2
        if k == 0:
            break
    assert k == 0 and (f < INF).mean() > 0.6
    h2 = [h[0], f, np.zeros(w * w, np.uint16), np.zeros(1, np.int32), np.int32(w)]
    out = run("probe/crowd-floor-field-smem-u16", h2, w)
    assert (out[2] == f).all() and out[3][0] == 0


def test_floor_field_wall_in_tile():
    w = 40                                                   # 3 x 3 tiles, the last ones partial
    t = np.zeros((w, w), np.uint8)
    t[17:31, 24] = tp.P206_FF_WALL
    f = np.full((w, w), INF, np.uint16)
    f[20, 20] = 0
    t[20, 20] = tp.P206_FF_EXIT
    h = [t.ravel(), f.ravel(), np.zeros(w * w, np.uint16), np.zeros(1, np.int32), np.int32(w)]
    out = run("probe/crowd-floor-field-smem-u16", h, w)
    got = out[2].reshape(w, w)
    ref, ch = tp._p206_ff_ref(t.ravel(), f.ravel(), w)
    assert (out[2] == ref).all() and out[3][0] == ch == 1
    yy, xx = np.mgrid[16:32, 16:24]
    dx, dy = np.abs(xx - 20), np.abs(yy - 20)
    assert (got[16:32, 16:24] == 7 * np.minimum(dx, dy) + 5 * np.abs(dx - dy)).all()   # chamfer 5-7
    assert got[20, 25] == 50 and got[20, 24] == INF        # round the wall's top end: 4 + 1 diagonals, 3 steps
    assert (got[:16] == INF).all() and (got[32:] == INF).all() and (got[:, :16] == INF).all()


# ---- crowd-density-splat-atomics ----

def _ds_check(out, h):
    ref = tp._p206_ds_ref(h[0], h[1], int(h[5]), int(h[6]))
    for k in range(3):
        assert np.allclose(out[2 + k], ref[k].ravel(), rtol=1e-5, atol=1e-6)
    return ref


@pytest.mark.parametrize("grid", [None, (2, 1)])
def test_density_splat(grid):
    rng = np.random.default_rng(4)
    n = 2000
    h = tp._p206_ds_args(n, rng)
    out = run("probe/crowd-density-splat-atomics", h, n, grid=grid)
    ref = _ds_check(out, h)
    assert abs(ref[0].sum() * tp.P206_DS_H ** 2 / n - 0.92) < 0.05               # the cut-off loses ~8%


def test_density_splat_edges():
    gw, gh = 8, 6                                            # 4 m x 3 m
    pts = [(0.01, 0.01), (3.99, 2.99), (1.75, 1.25), (2.0, 1.5)] + [(2.2, 1.6)] * 40
    rng = np.random.default_rng(5)
    pos = np.array(pts, np.float32).ravel()
    vel = rng.normal(0, 1, pos.size).astype(np.float32)
    z = lambda: np.zeros(gw * gh, np.float32)
    h = [pos, vel, z(), z(), z(), np.int32(gw), np.int32(gh), np.int32(len(pts))]
    out = run("probe/crowd-density-splat-atomics", h, len(pts), grid=(1, 1))
    ref = _ds_check(out, h)
    norm = 1 / (np.pi * tp.P206_DS_R ** 2)
    assert ref[0][0, 0] > 0 and ref[0][-1, -1] > 0
    lone = tp._p206_ds_ref(pos[4:6], vel[4:6], gw, gh)[0]                       # (1.75, 1.25) on node (3, 2)
    assert abs(lone[2, 3] - norm) < 1e-6 and (lone > 0).sum() == 21              # the 1.2 m disc of nodes


# ---- crowd-ca-move-claims ----

def _ca_check(h, out):
    tg, key, near = tp._p206_ca_ref(h[0], h[1], h[2], h[3], int(h[6]), int(h[7]), int(h[8]))
    got = out[5].astype(np.int64)
    assert (got[~near] == tg[~near]).all() and near.mean() < 0.01
    mv = got != h[0]
    claim = np.full(len(h[4]), 0xFFFFFFFF, np.uint64)
    np.minimum.at(claim, got[mv], key[mv].astype(np.uint64))
    assert (out[4] == claim).all()
    return tg, key


def test_ca_move():
    rng = np.random.default_rng(6)
    n = 3000
    h = tp._p206_ca_args(n, rng)
    out = run("probe/crowd-ca-move-claims", h, n)
    tg, key = _ca_check(h, out)
    w = int(h[6])
    mv = tg != h[0]
    assert 0.5 < mv.mean() < 0.95 and (h[3][tg[mv]] != tp.P206_CA_WALL).all()
    assert (h[3][tg[mv]] != tp.P206_CA_AGENT).all()
    d = np.maximum(np.abs(tg % w - h[0] % w), np.abs(tg // w - h[0] // w))
    assert d.max() == 1 and len(np.unique(tg[mv])) < mv.sum()               # some cells fought over


def test_ca_move_edges():
    w = 32
    occ = np.full((w, w), tp.P206_CA_WALL, np.uint8)
    S = np.full((w, w), 50.0, np.float32)                    # exp(-kS dS) stays finite: dS >= -10 m
    D = np.zeros((w, w), np.uint8)
    cells = [5 * w + 5, 10 * w + 10, 10 * w + 12, 0, 20 * w + 20, 20 * w + 21]
    occ[10, 11] = tp.P206_CA_FREE                            # one free cell between two agents
    S[10, 11] = 40.0
    occ[0, 1] = occ[1, 0] = occ[1, 1] = tp.P206_CA_FREE      # the lattice's corner: 3 neighbours inside
    S[0, 1], S[1, 0], S[1, 1] = 40.0, 49.0, 49.0
    occ[19:22, 19:23] = tp.P206_CA_EXIT                      # two agents on either side of an exit
    occ[20, 20:22] = tp.P206_CA_FREE
    S[19:22, 19:23] = 40.0
    D[19:22, 19:23] = 200
    D[20, 20:22] = 0                                         # staying weighs 1, an exit e^30
    occ.ravel()[cells] = tp.P206_CA_AGENT
    n = len(cells)
    h = [np.array(cells, np.int32), S.ravel(), D.ravel(), occ.ravel(), np.full(w * w, 0xFFFFFFFF, np.uint32),
         np.zeros(n, np.int32), np.int32(w), np.int32(w), np.uint32(99), np.int32(n)]
    out = run("probe/crowd-ca-move-claims", h, n)
    tg, key = _ca_check(h, out)
    got = out[5]
    assert got[0] == cells[0]                                # walled in: stays, claims nothing
    assert got[1] == got[2] == 10 * w + 11                   # both take the free cell: the lower key wins
    assert out[4][10 * w + 11] == min(key[1], key[2])
    assert got[3] == 1 and occ.ravel()[got[4]] == tp.P206_CA_EXIT and occ.ravel()[got[5]] == tp.P206_CA_EXIT
    assert (np.delete(out[4], got[1:]) == 0xFFFFFFFF).all()


# ---- crowd-fd-measure-shfl-double ----

def _fd_check(out, pos, nslot, F):
    c, r, v = tp._p206_fd_ref(pos, nslot)
    assert (out[3].reshape(F, -1) == c).all()
    assert np.allclose(out[4].reshape(F, -1), r, rtol=1e-12, atol=0)
    assert np.allclose(out[5].reshape(F, -1), v, rtol=1e-6, atol=1e-9)
    return c, r, v


def test_fd_measure():
    rng = np.random.default_rng(7)
    nslot, F = 64, 100
    h = tp._p206_fd_args(nslot * F, rng, nslot=nslot, burn=100)
    out = run("probe/crowd-fd-measure-shfl-double", h, nslot * F, symbols=tp._p206_fd_syms(0, rng), grid=(F - 2, 1))
    c, r, v = _fd_check(out, h[0], nslot, F)
    assert c.sum() > 100 and (c[1:-1] > 0).any(axis=0).sum() >= 4


def test_fd_measure_edges():
    nslot, F = 300, 6                                        # 2 slots a thread for the first 44 lanes
    P = np.full((F, nslot, 2), np.nan, np.float32)
    f = np.arange(F)
    P[:, 0] = (30.0, 1.0)                                    # on area 0's low corner: inside, still
    P[:, 1] = (34.0, 4.0)                                    # on its x1 edge: outside
    P[:, 2] = (31.0, 7.0)                                    # on its y1 edge: outside
    P[:, 3, 0], P[:, 3, 1] = 31 + 0.04 * f, 3.0              # 1 m/s along x
    P[2:, 4] = (32.0, 2.0)                                   # enters at frame 2: a speed from frame 3 on
    P[:, 299, 0], P[:, 299, 1] = 72.0, 4 + 0.02 * f          # the last slot, in area 1 at 0.5 m/s
    h = [P.ravel(), np.int32(nslot), np.int32(F), np.zeros(F * 6, np.int32), np.zeros(F * 6), np.zeros(F * 6)]
    out = run("probe/crowd-fd-measure-shfl-double", h, nslot * F, symbols=tp._p206_fd_syms(0, None), grid=(F - 2, 1))
    c, r, v = _fd_check(out, h[0], nslot, F)
    assert c[:, 0].tolist() == [0, 2, 2, 3, 3, 0] and c[:, 1].tolist() == [0, 1, 1, 1, 1, 0]
    assert (c[:, 2:] == 0).all() and (out[5].reshape(F, -1)[:, 2:] == 0).all()
    assert abs(v[1, 0] - 0.5) < 1e-4 and abs(v[3, 0] - 1 / 3) < 1e-4 and abs(v[2, 1] - 0.5) < 1e-4
    assert r[1, 0] == 2 / 24.0
