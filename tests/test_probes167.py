"""probe-unseen165's kernels (kernels_cuda/probes167.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import dataclasses
from math import erf, exp, pi, sqrt

import numpy as np
import pytest

import probe_launch
from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/sia-glen-powf-stencil", "probe/pdd-smb-erfc-days", "probe/basal-water-d8-atomic",
       "probe/calving-front-compact", "probe/ice-column-thomas", "probe/ice-volume-smem-reduce"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen165"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes167.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 512
    H, b, mask = tp._p167_sheet(n, rng, ("H", "b", "mask"))
    frac = np.bincount(mask.ravel(), minlength=4) / n / n
    assert H.dtype == b.dtype == np.float32 and mask.dtype == np.uint8 and H.shape == (n, n)
    assert 0.45 < frac[0] < 0.6 and 0.35 < frac[1] < 0.5 and 0.02 < frac[2] < 0.1     # an ice sheet in the sea
    assert ((H > 0) == ((mask == 1) | (mask == 2))).all() and H.max() <= tp.P167_H0 and b.min() >= -4500
    assert (910 * H[mask == 2] < 1028 * -b[mask == 2]).all() and np.median(H[H > 0]) > 2000
    assert np.corrcoef(b[:, :-1].ravel(), b[:, 1:].ravel())[0, 1] > 0.95                # a smooth bed
    sea = np.pad(mask == 0, 1)
    berg = (H > 0) & sea[:-2, 1:-1] & sea[2:, 1:-1] & sea[1:-1, :-2] & sea[1:-1, 2:]
    assert 10 < berg.sum() < 200 and (H[berg] >= 80).all() and (H[berg] <= 300).all()   # icebergs
    Hs, bs, smb, H2, nx, ny, dx, gamma, glen, dt = tp._p167_sia_args(256, rng)
    assert nx == ny == 256 and dx == np.float32(5.6e6 / 256) and abs(gamma / 2.846e-5 - 1) < 1e-3
    s = tp._p167_surface(Hs, bs)
    assert (smb[(Hs > 0) & (s > 3000)] > 0).all() and (smb[(Hs > 0) & (s < 100)] < -0.5).all()
    assert 0.3 < (Hs > 0).mean() < 0.55 and (H2 == 0).all()
    mask, surf, lat, P, pdd, smb, sigma, ncell = tp._p167_pdd_args(256, rng)
    assert ncell == 256 ** 2 and sigma == 5 and lat[0] == 83 and lat[-1] == 59 and (np.diff(lat) <= 0).all()
    assert 0.03 < (mask == 3).mean() < 0.09 and 0.45 < (mask == 0).mean() < 0.6 and 2500 < surf.max() < 3300
    assert (surf[mask == 0] == 0).all() and 0.03 < P.min() and P.max() < 6 and 0.25 < np.median(P) < 0.5
    south = lat < 65
    assert np.median(P[south]) > 2 * np.median(P[lat > 77])                             # wet south
    cyc = tp._p167_pdd_syms(256, rng)["c_cycle"]
    assert cyc.dtype == np.float32 and len(cyc) == 365 and abs(np.argmax(cyc) - 196) < 15 and cyc.max() < 1.5
    assert abs(np.argmin(cyc) - 14) < 25 and abs(cyc.mean()) < 0.05
    phi, w, wo, nx, ny = tp._p167_rw_args(512, np.random.default_rng(3))
    H, b, mask = tp._p167_sheet(512, np.random.default_rng(3), ("H", "b", "mask"))      # the same sheet
    assert (phi == np.float32(1028 * 9.81) * b.ravel() + np.float32(910 * 9.81) * H.ravel()).all()
    assert (mask.ravel()[w > 0] == 1).all() and 0.15 < (w > 0).mean() < 0.4 and (wo == 0).all()
    assert abs(np.median(np.log(w[w > 0])) - np.log(3)) < 0.05 and (w >= 0).all()
    mask, front, faces, count, cap, nx, ny = tp._p167_cf_args(1024, rng)
    f, fa = tp._p167_cf_ref(mask, 1024, 1024)
    assert cap == len(front) == tp.P167_CF_CAP and (front == -1).all() and count[0] == 0
    assert 2000 < len(f) < 5000 and 0.05 < (fa == 4).mean() < 0.2 and (fa == 1).mean() > 0.4
    T, H, Ts, G, acc, dt, m = tp._p167_ct_args(256, rng)
    nz = tp.P167_CT_NZ
    T = T.reshape(nz, m)
    ice = H >= 10
    assert T.dtype == np.float32 and m == 256 ** 2 and 0.35 < ice.mean() < 0.55
    assert (T <= np.float32(273.15) - np.float32(8.7e-4) * H * (1 - np.arange(nz)[:, None] / (nz - 1)) + 1e-4).all()
    assert np.abs(T[-1] - Ts)[ice].max() < 0.4 and (T[0] > T[-1] + 5)[H > 2000].all()       # warmer at the bed
    assert 0.3 < (T[0][ice] > 273.15 - 8.7e-4 * H[ice] - 0.01).mean() < 0.7                 # at the melting point
    assert 0.04 < np.median(G) < 0.08 and 225 < np.median(Ts[ice]) < 255 and (acc > 0.02).all()
    H, b, vol, vaf, area, ca, n2 = tp._p167_iv_args(512, rng)
    assert n2 == 512 ** 2 and ca == np.float32((5.6e6 / 512) ** 2) and (vol == 0).all() and area[0] == 0


# ---- sia-glen-powf-stencil ----

@pytest.mark.parametrize("dt", [None, 5.0])
def test_sia_step(dt):
    n = 40                                                  # 2 x 5 blocks of 32 x 8, partial in x
    rng = np.random.default_rng(1)
    h = tp._p167_sia_args(n, rng)
    if dt:
        h[9] = np.float32(dt)                               # the fluxes' share of H2 as large as H's
    out = run("probe/sia-glen-powf-stencil", h, n)[3]
    H2, scale = tp._p167_sia_ref(*h[:3], n, n, *h[6:])
    # float32 against float64 from the same float32 surfaces (their differences exact): each
    # term within a few roundings (powf: 2 ulp) of itself, so within 3e-7 of the largest
    assert (np.abs(out - H2.ravel()) <= 3e-7 * scale.ravel()).all()
    assert (np.abs(H2.ravel() - h[0]) > 1e-3).sum() > 300 and (H2 == 0).any() and (H2 > 0).any()


def test_sia_slab():
    # a 200 m slab on a flat bed: only the smb changes it (ablating cells emptied), the edge
    # emptied; one cell 100 m thicker feeds its 4 neighbours alike, none of its diagonals
    n, dt = 16, np.float32(2.0)
    H = np.full((n, n), 200, np.float32)
    smb = np.where(np.arange(n) < 5, np.float32(-150), np.float32(0.5))[None, :].repeat(n, 0)
    H[8, 10] = 300
    h = [H.ravel(), np.zeros(n * n, np.float32), smb.astype(np.float32).ravel(), np.zeros(n * n, np.float32),
         np.int32(n), np.int32(n), np.float32(2000.0), np.float32(tp._p167_gamma()), np.float32(3), dt]
    out = run("probe/sia-glen-powf-stencil", h, n)[3].reshape(n, n)
    assert (out[0] == 0).all() and (out[-1] == 0).all() and (out[:, 0] == 0).all() and (out[:, -1] == 0).all()
    assert (out[1:-1, 1:5] == 0).all()
    far = np.ones((n, n), bool)
    far[[8, 7, 9, 8, 8], [10, 10, 10, 9, 11]] = False       # the cell and its 4 neighbours
    assert (out[1:-1, 5:-1][far[1:-1, 5:-1]] == 201).all()  # the diagonals too (the flux across a face: -D ds/dn)
    ring = out[[7, 9, 8, 8], [10, 10, 9, 11]]
    assert (ring == ring[0]).all() and ring[0] > 201
    H2 = tp._p167_sia_ref(*h[:3], n, n, *h[6:])[0]
    assert abs(ring[0] - H2[7, 10]) < 3e-7 * 300 and abs(out[8, 10] - H2[8, 10]) < 3e-7 * 300
    assert 10 < 301 - out[8, 10] < 20 and abs((out[8, 10] - 301) + 4 * (ring[0] - 201)) < 2e-4    # mass kept


# ---- pdd-smb-erfc-days ----

@pytest.mark.parametrize("n, policy", [(24, "lockstep"), (8, "random")])
def test_pdd_smb(n, policy):
    host, out, syms, _ = launch("probe/pdd-smb-erfc-days", n, seed=2, policy=policy)   # 24: 4.5 blocks
    pdd, smb, scale = tp._p167_pdd_ref(*host[:4], syms["c_cycle"])
    # 365 positive float32 terms summed one by one (expf, erfcf within 2 ulp): within 365 2^-24
    # of the total (the snow, 365 near-equal terms, ~5e-6 off: the errors add up); a cold
    # cell's E[max(T, 0)] ~ 1e-10 is a difference of two float32 terms, so 1e-6 K d besides
    sea = host[0] == 0
    tol = 365 * 2.0 ** -24
    assert (np.abs(out[4] - pdd) <= tol * pdd + 1e-6).all() and (np.abs(out[5] - smb) <= tol * scale).all()
    assert (out[4][sea] == 0).all() and (out[5][sea] == 0).all() and 0 < sea.sum() < n * n
    assert (smb < -0.1).any() and (pdd > 100).any()
    if n == 24:
        assert (smb > 0.1).any() and (pdd[~sea] < 1).any()


def test_pdd_smb_constant_days():
    # no seasonal cycle: each day at the annual mean t = 38.81 - 0.006309 h - 0.7189 lat; a
    # dome at -34 C (all snow, nothing melts), a cell at -0.5 C (all snow, the days' spread
    # melting it and then ice), a warm one at +10 C (all rain, ice melting), open ocean
    h = [np.uint8([1, 1, 3, 0]), np.float32([3000, 0, 0, 500]), np.float32([75, 54.7, 40, 70]),
         np.float32([0.4, 1.0, 2.0, 1.0]), np.zeros(4, np.float32), np.zeros(4, np.float32), np.float32(5),
         np.int32(4)]
    cyc = np.zeros(365, np.float32)
    out = run("probe/pdd-smb-erfc-days", h, 2, symbols={"c_cycle": cyc})
    t = 38.81 - 0.006309 * h[1].astype(float) - 0.7189 * h[2].astype(float)
    assert abs(t[0] + 34) < 0.1 and abs(t[1] + 0.514) < 0.01 and abs(t[2] - 10.05) < 0.01
    # E[max(T, 0)] for T ~ N(t, 5^2) in closed form, 365 days of it
    pdd = np.array([365 * (5 * exp(-u * u / 2) / sqrt(2 * pi) + 5 * u * (1 + erf(u / sqrt(2))) / 2)
                    for u in t / 5])
    snow = h[3] * np.exp(-4.37e-4 * h[1].astype(float))
    assert out[4][0] < 1e-6 and abs(out[5][0] - snow[0]) < 1e-5 * snow[0]
    assert (np.abs(out[4][1:3] - pdd[1:3]) < 1e-5 * pdd[1:3]).all()
    melt = min(snow[1], 0.003 * pdd[1])
    smb1 = snow[1] - 0.4 * melt - 0.008 * (pdd[1] - melt / 0.003)
    assert melt == snow[1] and abs(out[5][1] - smb1) < 1e-5 * (snow[1] + pdd[1] * 0.003)
    assert abs(out[5][2] + 0.008 * pdd[2]) < 1e-5 * pdd[2] * 0.008 and out[4][3] == out[5][3] == 0
    assert np.allclose(out[5], tp._p167_pdd_ref(*h[:4], cyc)[1], rtol=1e-5, atol=0)


# ---- basal-water-d8-atomic ----

@pytest.mark.parametrize("n, policy", [(40, "lockstep"), (24, "random")])
def test_route_water(n, policy):
    # 40: 3 x 3 blocks of 16 x 16, the last ones partial; 24: 2 x 2
    host, out, *_ = launch("probe/basal-water-d8-atomic", n, seed=1, policy=policy)
    ref = tp._p167_rw_ref(host[0], host[1], n, n)
    # float atomics of at most 9 positive terms in any order: within 9 2^-24 of the sum
    assert (np.abs(out[2] - ref) <= 6e-7 * ref).all() and abs(ref.sum() - host[1].astype(float).sum()) < 1e-3
    assert (host[1] > 0).sum() > n * n / 8 and (ref > 0).sum() < (host[1] > 0).sum()    # water gathers
    # whole millimetres: every sum exact whatever the order
    h = list(host)
    h[1] = np.where(host[1] > 0, np.random.default_rng(5).integers(1, 1000, n * n), 0).astype(np.float32)
    out = run("probe/basal-water-d8-atomic", h, n, policy=policy)
    assert (out[2] == tp._p167_rw_ref(h[0], h[1], n, n)).all()


@pytest.mark.parametrize("a, b", [(3, 1), (2, 1)])
def test_route_water_planes(a, b):
    # a plane phi = 1000 (a x + b y): to the west where a > (a + b) / sqrt 2 (the diagonal's
    # fall per unit distance), else to the south-west; the edges along them, the corner keeps its own
    nx, ny = 20, 12
    y, x = np.mgrid[0:ny, 0:nx]
    h = [(1000.0 * (a * x + b * y)).astype(np.float32).ravel(), np.ones(nx * ny, np.float32),
         np.zeros(nx * ny, np.float32), np.int32(nx), np.int32(ny)]
    out = run("probe/basal-water-d8-atomic", h, 20)[2]
    diag = a < (a + b) / np.sqrt(2)
    tx = np.where(x > 0, x - 1, 0)
    ty = np.where(x == 0, np.maximum(y - 1, 0), np.where(diag, np.maximum(y - 1, 0), y))
    ty = np.where((x > 0) & (y == 0), 0, ty)
    tgt = (ty * nx + tx).ravel()
    assert (out == np.bincount(tgt, minlength=nx * ny)).all() and out[0] == (4 if diag else 3)
    assert (tgt == tp._p167_rw_target(h[0], nx, ny)).all()


# ---- calving-front-compact ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_calving_front(policy):
    n = 64                                                  # 8 blocks of 512
    host, out, *_ = launch("probe/calving-front-compact", n, seed=3, policy=policy)
    f, fa = tp._p167_cf_ref(host[0], n, n)
    k = out[3][0]
    o = np.argsort(out[1][:k])
    assert k == len(f) > 50 and (out[1][:k][o] == f).all() and (out[2][:k][o] == fa).all()
    assert (out[1][k:] == -1).all() and (fa == 4).any() and (fa == 1).any()


def test_calving_front_cases():
    # 10 rows of 12: a grounded cell in the corner (2 ocean faces, none outside), a berg (4), a
    # cell between land and sea (3), ice inside land (none), an ice shelf on the bottom edge
    nx, ny = 12, 10
    m = np.zeros((ny, nx), np.uint8)
    m[0:4, 6:] = 3
    m[1, 8] = m[1, 9] = 1
    m[0, 0] = 1
    m[5, 5] = 2
    m[3, 5] = 1
    m[6:, 0:4] = 2
    m[9, 0:4] = 1
    cap = 64
    h = [m.ravel(), np.full(cap, -1, np.int32), np.full(cap, -1, np.int32), np.zeros(1, np.int32), np.int32(cap),
         np.int32(nx), np.int32(ny)]
    out = run("probe/calving-front-compact", h, 11)         # 121 threads for 120 cells
    k = out[3][0]
    got = dict(zip(out[1][:k].tolist(), out[2][:k].tolist()))
    want = {0: 2, 5 * nx + 5: 4, 3 * nx + 5: 3, 6 * nx: 1, 6 * nx + 1: 1, 6 * nx + 2: 1, 6 * nx + 3: 2, 7 * nx + 3: 1,
            8 * nx + 3: 1, 9 * nx + 3: 1}
    assert k == len(got) == 10 and got == want
    assert dict(zip(*(v.tolist() for v in tp._p167_cf_ref(m, nx, ny)))) == want
    h[4] = np.int32(3)                                      # a short list: all counted, 3 stored
    out = run("probe/calving-front-compact", h, 11, policy="random")
    assert out[3][0] == 10 and len(set(out[1][:3])) == 3 and all(want[c] == v for c, v in zip(out[1][:3], out[2][:3]))
    assert (out[1][3:] == -1).all()


# ---- ice-column-thomas ----

@pytest.mark.parametrize("n, policy", [(24, "lockstep"), (12, "random")])
def test_column_temp(n, policy):
    host, out, *_ = launch("probe/ice-column-thomas", n, seed=4, policy=policy)    # 24: 9 blocks of 64
    ref = tp._p167_ct_ref(*host[:5])
    # the Thomas algorithm in float32 on a diagonally dominant system against a float64 solve:
    # a few ulps (3e-5 K at 270 K) where r = KAPPA dt / dz^2 <= 1 (ice over 240 m thick); in
    # thinner columns (r up to 6000) cp nears -1 and the back substitution takes differences
    # of large terms: up to ~130 ulps (4 mK)
    nz = tp.P167_CT_NZ
    r = tp.P167_CT_KAPPA * tp.P167_CT_DT / (np.maximum(host[1], 10) / (nz - 1)) ** 2
    err = np.abs(out[0] - ref.ravel()).reshape(nz, -1).max(axis=0)
    assert (err < np.where(r <= 1, 1.5e-4, 5e-3)).all()
    T0, T1 = host[0].reshape(nz, -1), out[0].reshape(nz, -1)
    live = host[1] >= 10
    assert (T1[:, ~live] == T0[:, ~live]).all() and 0.3 < live.mean() < 0.7
    assert (np.abs(T1 - T0)[:, live].max(axis=0) > 0.01).all()


def test_column_temp_cases():
    # a linear profile of the geothermal gradient without advection: steady (in a 30 m column
    # too, r = 640); a 5 m column: untouched; a strong geothermal flux under 3000 m: the bed at
    # the melting point
    nz = tp.P167_CT_NZ
    H = np.float32([2000, 5, 3000, 30])
    Ts = np.float32([240, 250, 230, 260])
    G = np.float32([0.03, 0.05, 0.3, 0.06])
    acc = np.float32([0, 0.1, 0.1, 0])
    z = np.arange(nz)[:, None] / (nz - 1) * H.astype(float)[None, :]
    T = np.empty((nz, 4), np.float32)
    T[:, 0] = 240 + 0.03 / 2.1 * (2000 - z[:, 0])
    T[:, 1] = 250
    T[:, 2] = 230 + 0.5 * (3000 - z[:, 2]) / 30
    T[:, 3] = 260 + 0.06 / 2.1 * (30 - z[:, 3])
    h = [T.ravel().copy(), H, Ts, G, acc, np.float32(10), np.int32(4)]
    out = run("probe/ice-column-thomas", h, 1)[0].reshape(nz, 4)
    assert np.abs(out[:, 0] - T[:, 0]).max() < 1.5e-4 and (out[:, 1] == 250).all()
    assert np.abs(out[:, 3] - T[:, 3]).max() < 5e-3
    ref = tp._p167_ct_ref(*h[:5]).reshape(nz, 4)
    assert abs(out[0, 2] - (273.15 - 8.7e-4 * 3000)) < 1e-4 and np.abs(out - ref)[:, :3].max() < 1.5e-4
    tpmp = 273.15 - 8.7e-4 * (3000 - z[:, 2])
    assert out[-1, 2] == 230 and (out[:, 2] <= tpmp + 1e-4).all() and (np.abs(out[:, 2] - tpmp) < 1e-4).sum() > 3


# ---- ice-volume-smem-reduce ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_ice_volume(policy):
    # 3 blocks looping over 2304 cells, 3 trips a thread (the probe's 1024 blocks loop 144 times)
    n = 48
    p = dataclasses.replace(tp.get("probe/ice-volume-smem-reduce"), grid=lambda n: 3)
    h = tp._p167_iv_args(n, np.random.default_rng(5))
    out = probe_launch._run(p, h, {}, n, 0, policy)[0]
    vol, vaf, area = tp._p167_iv_ref(*h[:2], h[5])
    # float sums of 3 terms a thread and 8 tree levels: within 11 2^-24 of the totals
    assert abs(out[2][0] - vol) < 7e-7 * vol and abs(out[3][0] - vaf) < 7e-7 * vol and out[4][0] == area
    assert 0.3 < area / n / n < 0.6 and 0.2 * vol < vaf < 0.9 * vol
    # whole metres: every partial sum exact (under 2^24), the products with the float cell area too
    h[0], h[1] = np.rint(h[0]), np.rint(h[1])
    out = probe_launch._run(p, h, {}, n, 0, policy)[0]
    assert out[2][0] == tp._p167_iv_ref(*h[:2], h[5])[0]


def test_ice_volume_grid():
    n = 40                                                  # the probe's grid: 7 blocks, a trip a thread
    host, out, *_ = launch("probe/ice-volume-smem-reduce", n)
    vol, vaf, area = tp._p167_iv_ref(*host[:2], host[5])
    assert tp.get("probe/ice-volume-smem-reduce").grid(n) == 7 and tp.get("probe/ice-volume-smem-reduce").grid(
        tp.P167_IV_N) == tp.P167_IV_GRID
    assert abs(out[2][0] - vol) < 7e-7 * vol and abs(out[3][0] - vaf) < 7e-7 * vol and out[4][0] == area
