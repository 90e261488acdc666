"""probe-unseen154's kernels (kernels_cuda/probes156.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import conv_same, launch, run

IDS = ["probe/predprey-rd-holling", "probe/crw-forage-cauchy", "probe/metapop-ricker-csr",
       "probe/seed-rain-2dt-smem", "probe/occurrence-grid-atomic", "probe/leslie-double-shfl"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen154"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes156.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    f = tp._p156_field(256, 320, 64, rng)
    assert f.dtype == np.float32 and f.shape == (256, 320) and 0 <= f.min() and f.max() <= 1
    assert np.abs(np.diff(f, axis=1)).max() < 1 / 64 and np.abs(np.diff(f, axis=0)).max() < 1 / 64    # smooth
    N, P, N2, P2, nx, ny, *prm = tp._p156_rd_args(512, rng)
    K = tp.P156_RD_PARAMS["K"]
    assert N.dtype == P.dtype == np.float32 and len(N) == 512 * 512 and nx == ny == 512 and prm[1] == K
    assert 0 <= N.min() and N.max() <= 1.2 * K and 0.1 < (P == 0).mean() < 0.3 and P.max() <= 10
    assert np.corrcoef(N[:-1], N[1:])[0, 1] > 0.9                           # patchy, not noise
    x, y, th, en, s, R, W, H, rich, *_, steps, n = tp._p156_crw_args(4096, rng)
    assert W == H == tp.P156_CRW_SIDE and len(R) == W * H and steps == tp.P156_CRW_STEPS and n == 4096
    assert 0 <= x.min() and x.max() < W and 0 <= y.min() and y.max() < H and (s & 1).all()
    assert 0.15 < (R > rich).mean() < 0.25 and abs(th).max() <= np.pi
    assert np.median(np.hypot(np.diff(x), np.diff(y))) < 10                 # neighbours in a colony
    off, src, w, N, K, N2, r, mig, ext, n = tp._p156_mp_args(1 << 14, rng)
    deg = np.diff(off)
    dst = np.repeat(np.arange(n), deg)
    assert off[0] == 0 and deg.min() >= 1 and abs(deg.mean() - 12) < 0.3 and deg.std() > 7
    assert 0 <= src.min() and src.max() < n and (src != dst).mean() > 0.999
    assert abs((np.abs(src - dst) > 200).mean() - tp.P156_MP_LONG) < 0.01
    sent = np.bincount(src, w, n)
    assert np.allclose(sent[sent > 0], tp.P156_MP_SURV, rtol=1e-5)           # each sender loses 40%
    assert abs((N == 0).mean() - (1 - tp.P156_MP_OCC)) < 0.02 and 20 < np.median(K) < 45
    k = tp._p156_sd_kernel()
    assert k.shape == (15, 15) and (k == k.T).all() and (k == k[::-1]).all() and 0.9 < k.sum() < 1
    fec, rain, nx, ny = tp._p156_sd_args(512, rng)
    assert 0.25 < (fec > 0).mean() < 0.6 and abs(np.median(np.log(fec[fec > 0])) - 6) < 0.05
    lon, lat, sp, cnt, pres, lon0, lat0, cpd, W, H, n = tp._p156_oc_args(1 << 16, rng)
    assert (lon0, lat0, cpd, W, H) == tp.P156_OC_REGION and len(cnt) == W * H and len(pres) == 8 * W * H
    cell = tp._p156_oc_cells(lon, lat, lon0, lat0, cpd, W, H)
    nbad = n - round(tp.P156_OC_MIX[0] * n) - round(tp.P156_OC_MIX[1] * n)
    assert ((lon == 0) & (lat == 0)).sum() == nbad // 2 and (lon > 0).sum() == nbad - nbad // 2     # swapped
    assert 0.02 < (cell < 0).mean() < 0.05 and sp.max() < 256 and abs((sp == 0).mean() - 0.2) < 0.02
    c = np.sort(np.bincount(cell[cell >= 0], minlength=W * H))[::-1]
    assert c[:W * H // 100].sum() > 0.5 * c.sum() and c[0] > 50                # hot spots
    assert (cell[1:] == cell[:-1]).mean() > 0.05                                # datasets contiguous
    n0, sp, rg, env, *_, years, qe, n = tp._p156_ls_args(4096, rng)
    assert len(n0) == 12 * n and len(env) == tp.P156_LS_REGIONS * years and (np.diff(rg) >= 0).all()
    assert abs(np.median(n0.reshape(n, 12).sum(axis=1)) - 60) < 6 and abs(np.mean(env) - 0.91) < 0.05
    L = tp._p156_ls_matrices()
    lam = np.abs(np.linalg.eigvals(L)).max(axis=1)
    assert (1.0 < lam).all() and (lam < 1.2).all()
    assert (L[:, 0, 0] == 0).all() and (L[:, 11, 11] > 0).all() and (np.diag(L[0], -1) > 0).all()


# ---- predprey-rd-holling ----

def test_predprey_rd_step():
    n = 40                                                  # 2 x 5 blocks of 32 x 8, partial in x
    host, out, *_ = launch("probe/predprey-rd-holling", n)
    N2, P2 = tp._p156_rd_ref(host[0], host[1], n, n, *host[6:])
    # float32 against float64: ~15 roundings of terms no larger than K = 50
    assert np.abs(out[2] - N2.ravel()).max() < 2e-6 * 50 and np.abs(out[3] - P2.ravel()).max() < 2e-6 * 50
    assert (P2 == 0).any() and (P2 > 0).any()
    # prey alone at carrying capacity stays there (zero-flux edges); a lone predator spreads to its 4 neighbours
    h = list(host)
    h[0] = np.full(n * n, tp.P156_RD_PARAMS["K"], np.float32)
    h[1] = np.zeros(n * n, np.float32)
    h[1][0] = 1.0                                          # the corner
    out = run("probe/predprey-rd-holling", h, n)
    N2, P2 = tp._p156_rd_ref(h[0], h[1], n, n, *h[6:])
    assert (out[2][1:] == 50).all() and np.abs(out[3] - P2.ravel()).max() < 1e-6
    assert (np.flatnonzero(out[3]) == [0, 1, n]).all()


# ---- crw-forage-cauchy ----

@pytest.mark.parametrize("n, policy", [(256, "lockstep"), (128, "random")])
def test_crw_forage(n, policy):
    side, steps = 64, 16
    rng = np.random.default_rng(1)
    h = tp._p156_crw_args(n, rng, side=side, steps=steps)
    h[0][:4] = np.nextafter(np.float32(side), np.float32(0))     # on the torus' edges
    h[1][2:4] = 0
    out = run("probe/crw-forage-cauchy", h, n, policy=policy)
    x, y, th, en, s, margin = tp._p156_crw_ref(*h[:6], side, side, *h[8:12])
    assert (out[4] == s).all()                                   # the integer streams exactly
    # float32 against float64 over 16 steps drifts ~2e-4; a look-up within 1e-3 of a cell's
    # edge may pick the other cell in float32, so those animals are left out
    ok = margin > 1e-3
    dx = np.abs(out[0] - x)
    dy = np.abs(out[1] - y)
    assert ok.mean() > 0.85 and 0 <= out[0].min() and out[0].max() <= side and out[1].max() <= side
    assert np.minimum(dx, side - dx)[ok].max() < 1e-3 and np.minimum(dy, side - dy)[ok].max() < 1e-3
    assert np.abs(out[2] - th)[ok].max() < 1e-3 and (np.abs(out[3] - en) / np.abs(en))[ok].max() < 1e-4


# ---- metapop-ricker-csr ----

@pytest.mark.parametrize("n, policy", [(600, "lockstep"), (300, "random")])
def test_metapop_step(n, policy):
    host, out, *_ = launch("probe/metapop-ricker-csr", n, policy=policy)
    ref, gap = tp._p156_mp_ref(*host[:5])
    # float32 expf and sums of up to ~80 non-negative terms: relative error < 1e-5
    assert gap > 1e-5 and (np.abs(out[5] - ref) <= 1e-5 * ref).all() and ((out[5] == 0) == (ref == 0)).all()
    assert ((host[3] == 0) & (ref > 0)).any()                                # colonised patches
    # one occupied patch in an empty network: its stayers, none of its emigrants reaching the
    # quasi-extinction density anywhere; too few stayers and it is gone too
    h = list(host)
    for v in (1.0, 0.15):
        h[3] = np.zeros(n, np.float32)
        h[3][7] = v
        out = run("probe/metapop-ricker-csr", h, n)[5]
        K = float(host[4][7])
        stay = (1 - tp.P156_MP_MIG) * v * np.exp(tp.P156_MP_R * (1 - v / K))
        if v == 1:
            assert list(np.flatnonzero(out)) == [7] and abs(out[7] - stay) < 1e-5 * stay
        else:
            assert stay < tp.P156_MP_EXT and (out == 0).all()


# ---- seed-rain-2dt-smem ----

@pytest.mark.parametrize("n, seed, policy", [(40, 0, "lockstep"), (16, 5, "random")])
def test_seed_rain(n, seed, policy):
    # 40: 3 x 3 tiles, the last ones partial; 16: one tile (seed 5: a forest edge in it)
    host, out, syms, _ = launch("probe/seed-rain-2dt-smem", n, seed=seed, policy=policy)
    ref = conv_same(host[0].reshape(n, n), syms["c_disp"].reshape(15, 15)).ravel()
    # 225 non-negative float32 products summed: relative error < 225 * 2^-24
    assert (np.abs(out[1] - ref) <= 2e-5 * ref).all() and (ref > 0).sum() > (host[0] > 0).sum()
    # one seed source: its kernel, exactly, cut at the landscape's edges
    h = [np.zeros(n * n, np.float32), np.zeros(n * n, np.float32), np.int32(n), np.int32(n)]
    h[0][n // 2 * n + 3] = 1.0                              # 7 cells from the top and bottom
    r = run("probe/seed-rain-2dt-smem", h, n, symbols=syms)[1].reshape(n, n)
    k = tp._p156_sd_kernel()
    assert (r[n // 2 - 7:n // 2 + 8, :11] == k[:, 4:]).all() and np.count_nonzero(r) == 15 * 11


# ---- occurrence-grid-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_occurrence_grid(policy):
    reg = (-10.0, 40.0, 4.0, 30, 20)                        # 30 x 20 cells of 1/4 degree
    n = 3000
    rng = np.random.default_rng(2)
    h = tp._p156_oc_args(n, rng, region=reg)
    # records on cell edges and on the region's bounds (the east and north ones outside)
    h[0][:6] = np.float32([-10.0, -9.75, -2.5, -2.75, -10.0, -3.0])
    h[1][:6] = np.float32([40.0, 40.25, 41.0, 41.0, 45.0, 44.75])
    out = run("probe/occurrence-grid-atomic", h, n, policy=policy)
    cnt, pres = tp._p156_oc_ref(h[0], h[1], h[2], *reg)
    assert (out[3] == cnt).all() and (out[4] == pres).all()
    assert cnt.max() > 50 and 0 < n - cnt.sum() < 200
    assert list(tp._p156_oc_cells(h[0][:6], h[1][:6], *reg)) == [0, 31, -1, 4 * 30 + 29, -1, 19 * 30 + 28]
    rich = np.array([bin(int(v)).count("1") for v in pres]).reshape(-1, 8).sum(axis=1)
    assert ((cnt > 0) == (rich > 0)).all() and (rich <= cnt).all()


# ---- leslie-double-shfl ----

@pytest.mark.parametrize("n, policy", [(80, "lockstep"), (40, "random")])
def test_leslie_project(n, policy):
    years = 30                                              # 80: 3 warps, the last partial
    rng = np.random.default_rng(0)
    host = tp._p156_ls_args(n, rng, years=years)
    out = run("probe/leslie-double-shfl", host, n, policy=policy, symbols=tp._p156_ls_syms(n, rng))
    a, year, gap = tp._p156_ls_ref(*host[:4], years=years)
    # double against double in another order: a few ulps a year
    assert gap > 1e-6 and (out[5] == year).all() and (np.abs(out[4] - a.ravel()) <= 1e-12 * a.ravel()).all()
    assert out[6][0] == (year >= 0).sum() and 0 < (year >= 0).sum() < n and (year > 1).any()
