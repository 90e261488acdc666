"""probe-unseen181's kernels (kernels_cuda/probes183.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/newmark-spectrum-fp64", "probe/psha-hazard-erfc", "probe/fragility-loss-atomic",
       "probe/arias-cav-shfl", "probe/shakemap-idw-tiles", "probe/pga-exceed-smem-atomic"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen181"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes183.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    ag, T, sd, sa, npts, nper, dt, zeta, n = tp._p183_ns_args(256, rng)
    a = ag.reshape(n, npts)
    g = np.float32(tp.P183_G)
    pga = np.abs(a).max(axis=1) / g
    assert ag.dtype == np.float32 and npts == 6000 and nper == len(T) == 128 and len(sd) == 128 * n
    assert T[0] == np.float32(0.02) and abs(T[-1] - 10) < 1e-5 and (np.diff(np.log(T)) > 0).all()
    assert abs(np.median(pga) - 0.15) < 0.03 and pga.max() <= 1.5 + 1e-6 and (pga < 0.05).mean() > 0.05   # skewed
    assert (a[:, :200] == 0).all() and (a[:, 800:] != 0).all(axis=1).mean() > 0.9    # quiet until the S arrival
    e = np.cumsum(a.astype(np.float64) ** 2, axis=1)
    e /= e[:, -1:]
    d595 = ((e < 0.95).sum(axis=1) - (e < 0.05).sum(axis=1)) * dt          # significant duration (s)
    assert 3 < np.median(d595) < 12 and np.percentile(d595, 90) > 1.8 * np.percentile(d595, 10)
    zc = (np.diff(np.signbit(a[:, 800:4000]), axis=1)).sum(axis=1) / (3200 * dt) / 2   # zero crossings: frequency
    assert 2 < np.median(zc) < 6
    sx, sy, vs, rup, haz, nrup, rmax, n = tp._p183_hz_args(1 << 16, rng)
    assert sx.max() == 255 and sy.max() == 255 and len(haz) == 12 * n and rup.dtype.itemsize == 16 and nrup == 1024
    assert 180 < vs.min() and vs.max() < 1100 and 300 < np.median(vs) < 600
    f, b = rup[:512], rup[512:]
    assert f["mag"].min() > 6 and f["mag"].max() < 8 and b["mag"].min() > 4.6 and b["mag"].max() < 6
    assert abs(f["rate"].sum() - 3 * 0.01 * (1 - 10 ** -1.8)) < 1e-6                # M 6 - 8, 0.01 / yr a fault
    assert abs(b["rate"].sum() - 2 * (1 - 10 ** -1.26)) < 1e-4                      # M 4.6 - 6, 2 / yr
    fb = np.bincount(np.rint((f["mag"] - 6.1) / 0.2).astype(int), f["rate"])
    assert np.allclose(fb[1:] / fb[:-1], 10 ** (-0.9 * 0.2), rtol=1e-4)           # Gutenberg-Richter, b = 0.9
    assert (b["rate"] / b["rate"].mean()).max() > 10                             # background rates skewed
    mu, ok, _ = tp._p183_hz_mu(sx[::101], sy[::101], vs[::101], rup)
    assert 0.75 < ok.mean() < 0.95 and -5 < np.median(mu[ok]) < -3
    bld, pga, loss, reg, n = tp._p183_fr_args(1 << 18, rng)
    assert bld.dtype.itemsize == 16 and len(pga) == 1024 ** 2 and len(reg) == 256 and n == 1 << 18
    assert (np.diff(bld["region"]) >= 0).all() and np.bincount(bld["region"]).min() > 50
    assert np.abs(np.bincount(bld["type"], minlength=8) / n - tp.P183_FR_MIX).max() < 0.02
    assert np.mean([len(set(w)) for w in bld["type"][:32 * 512].reshape(-1, 32)]) > 5     # mixed in a warp
    x, y = bld["site"] % 1024, bld["site"] // 1024
    cx = np.bincount(bld["region"], x) / np.bincount(bld["region"])
    assert np.abs(x - cx[bld["region"]]).max() <= 8.5 and (np.bincount(bld["region"], y) > 0).all()
    assert abs(np.median(bld["value"][bld["type"] == 0]) - 300) < 15 and (bld["value"] > 0).all()
    assert 0.02 < np.median(pga) < 0.05 and pga.max() > 0.5 and (pga[bld["site"]] > 0.2).mean() > 0.1
    acc, ar, cav, pg, nab, npts, dt, thr = tp._p183_ar_args(64, rng)
    assert len(acc) == 64 * 8000 and thr == np.float32(0.05 * 9.81) and dt == np.float32(0.005)
    stx, sty, lnv, lnmap, nst, x0, y0, h, nx, ny = tp._p183_sm_args(1024, rng)
    assert nst == len(stx) == 1536 and len(lnmap) == 1024 ** 2 and h == np.float32(0.25)
    p = np.stack([stx, sty], axis=1).astype(np.float64)
    d = np.sqrt(((p[:, None] - p[None]) ** 2).sum(axis=2)) + np.eye(nst) * 1e9
    assert np.median(d.min(axis=1)) < 2 and np.percentile(d.min(axis=1), 95) > 5         # urban clusters
    assert -6.5 < lnv.min() and lnv.max() < 1 and -4 < np.median(lnv) < -2.5
    ex, ey, em, eta, cnt, n = tp._p183_ex_args(1 << 18, rng)
    syms = tp._p183_ex_syms(n, rng)
    assert 5 <= em.min() and em.max() <= 8 and abs((em >= 6).mean() - 0.0991) < 0.004
    assert abs((em >= 7).mean() - 0.0091) < 0.001 and abs(np.std(eta) - 0.4) < 0.01 and len(cnt) == 128 * 8
    assert len(syms["c_sx"]) == 128 and (np.diff(syms["c_exlev"]) > 0).all()
    h2 = np.sort(np.histogram2d(ex, ey, 20, [[0, 400], [0, 400]])[0].ravel())[::-1]
    assert h2[:40].sum() > 0.5 * n and (np.abs(np.diff(ex[:1000])) > 50).mean() > 0.5   # clustered, in time order
    eps = tp._p183_ex_eps(4096)
    assert abs(eps.mean()) < 0.01 and abs(eps.std() - 1) < 0.01 and np.abs(eps).max() < 2 * 3 ** 0.5
    c, _ = tp._p183_ex_ref(ex[:4096], ey[:4096], em[:4096], eta[:4096], syms)
    assert 0.02 < c[:, 0].sum() / 4096 / 128 < 0.1 and c[:, 7].sum() > 0


# ---- newmark-spectrum-fp64 ----

def test_newmark_spectrum():
    npts = 200                                              # 3 records x 128 periods: 3 blocks
    rng = np.random.default_rng(0)
    h = tp._p183_ns_args(3, rng, npts=npts)
    out = run("probe/newmark-spectrum-fp64", h, 3)
    sd, sa = tp._p183_ns_ref(h[0], h[1], npts, h[6], h[7])
    # double against double from the equilibrium form (~1e-13), both rounded to float: half an ulp apart
    assert (np.abs(out[2] - sd.ravel()) <= 2 ** -23 * sd.ravel()).all()
    assert (np.abs(out[3] - sa.ravel()) <= 2 ** -23 * sa.ravel()).all() and sa.min() > 0
    # a step of ground acceleration: the peak is (1 + exp(-zeta pi / sqrt(1 - zeta^2))) A / w^2 (to
    # Newmark's and the one-step ramp's errors, < 1e-3 for dt <= T / 100; 2 s, the first peak at
    # T / 2 for T <= 3 s); undamped, Sa = w^2 Sd
    npts = 200
    T = h[1][(h[1] >= 1) & (h[1] <= 3)]                    # 22 periods: 1 block, the rest of it idle
    m = len(T)
    step = np.ones(npts, np.float32)
    step[0] = 0
    for zeta in (0.05, 0.0):
        hs = [step, T, np.zeros(m, np.float32), np.zeros(m, np.float32), np.int32(npts), np.int32(m),
              np.float32(0.01), np.float32(zeta), np.int32(1)]
        o = run("probe/newmark-spectrum-fp64", hs, 1)
        w2 = (2 * np.pi / T.astype(np.float64)) ** 2
        peak = (1 + np.exp(-zeta * np.pi / np.sqrt(1 - zeta ** 2))) / w2
        assert m > 15 and (np.abs(o[2] - peak) < 1e-3 * peak).all()
        if zeta == 0:
            assert (np.abs(o[3] - w2 * o[2]) <= 2.5e-7 * o[3]).all()


# ---- psha-hazard-erfc ----

def test_psha_hazard():
    n, nrup = 64, 48                                        # 64 sites (2 x 32 in a row of the grid)
    rng = np.random.default_rng(0)
    h = tp._p183_hz_args(n, rng, nrup=nrup)
    syms = tp._p183_hz_syms(n, rng)
    h[3]["x"][:4] = np.float32([10, 20, 400, -250])         # 2 ruptures near, 2 beyond rmax
    h[3]["y"][:4] = np.float32([0.5, 0, 0, 0])
    out = run("probe/psha-hazard-erfc", h, n, symbols=syms)
    ref, gap = tp._p183_hz_ref(*h[:4])
    # ln PGA in float32 is within ~1e-6 of float64 (logf, sqrtf, ~10 terms under 10 in size) and
    # erfc's relative slope is ~2z <= 20 here: relative error < 3e-5 (rates > 1e-30; erfcf's tail
    # under float's normal range left out)
    r = ref.ravel()
    big = r > 1e-30
    assert gap > 1e-3 and big.mean() > 0.9 and (np.abs(out[4] - r)[big] <= 3e-5 * r[big]).all()
    assert (np.abs(out[4] - r)[~big] <= 1e-30).all()
    assert (np.diff(ref, axis=0) <= 0).all() and ref[0].min() > 1e-3                 # hazard curves fall
    # the cutoff: a rupture exactly rmax away (3-4-5) counts, one a hair beyond does not
    m = 32
    r2 = np.zeros(2, tp.P183_RUP_DTYPE)
    r2["x"], r2["y"], r2["mag"], r2["rate"] = [120, 120], [160, 160.01], [7.5, 7.5], [1e-3, 1.0]
    hh = [h[0][:m], h[1][:m], h[2][:m], r2, np.zeros(12 * m, np.float32), np.int32(2), np.float32(200), np.int32(m)]
    o = run("probe/psha-hazard-erfc", hh, m, symbols=syms)[4].reshape(12, m)
    ref, _ = tp._p183_hz_ref(*hh[:4])
    assert (np.abs(o - ref) <= 3e-5 * ref).all() and ref[0, 0] < 1e-3 and ref[0, 0] > 1e-4
    mu, ok, _ = tp._p183_hz_mu(hh[0], hh[1], hh[2], r2)
    assert ok[0, 0] and not ok[0, 1] and ok[1:, 1].all()


# ---- fragility-loss-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_fragility_loss(policy):
    n = 2000                                                # 8 tracts of ~250 buildings, 8 blocks (the last partial)
    host, out, syms, _ = launch("probe/fragility-loss-atomic", n, policy=policy)
    b, pga = host[0], host[1]
    L, R = tp._p183_fr_ref(b, pga)
    v = b["value"].astype(np.float64)
    # 0.5 (1 + erff) near 0 keeps only an absolute 2^-24 or so: a building's error under 1e-7 of
    # its value, plus 1e-6 relative (logf, erff's slope); a tract's float atomics add ~250 terms
    assert (np.abs(out[2] - L) <= 1e-7 * v + 1e-6 * L).all() and (L > 0).all()
    vt = np.bincount(b["region"], v)
    assert (np.abs(out[3] - R) <= 1e-7 * vt + 3e-5 * R).all() and R.max() > 100 * R.min()
    if policy == "random":
        return
    # no shaking, no loss; shaking far past every median: each building's whole value (erff == 1)
    h = list(host)
    p = np.zeros_like(pga)
    p[b["site"][: n // 2]] = 100.0
    p[b["site"][n // 2:]] = 0.0
    h[1], h[2], h[3] = p, np.zeros(n, np.float32), np.zeros(len(R), np.float32)
    o = run("probe/fragility-loss-atomic", h, n, policy=policy, symbols=syms)
    hit = p[b["site"]] > 0
    assert hit.sum() > n // 4 and (~hit).sum() > n // 4
    assert (o[2][hit] == b["value"][hit]).all() and (o[2][~hit] == 0).all()
    assert np.allclose(o[3], np.bincount(b["region"], np.where(hit, v, 0)), rtol=3e-6)


# ---- arias-cav-shfl ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_arias_cav(policy):
    rng = np.random.default_rng(3)
    npts = 1000                                             # 4 strides of 256, the last partial
    h = tp._p183_ar_args(6, rng, npts=npts)
    h[0][npts:2 * npts] = 0                                 # a dead channel
    out = run("probe/arias-cav-shfl", h, 6, policy=policy)
    ia, cav, pga, nab = tp._p183_ar_ref(h[0], npts, h[6], h[7])
    # float sums of <= 4 non-negative terms a thread and 8 + 8 a block: relative error < 1e-6
    assert (np.abs(out[1] - ia) <= 1e-6 * ia).all() and (np.abs(out[2] - cav) <= 1e-6 * cav).all()
    assert (out[3] == pga).all() and (out[4] == nab).all() and nab[1] == 0 and ia[1] == 0 and nab.max() > 0
    # fewer samples than threads (most lanes idle): one spike on the last sample
    a = np.zeros(2 * 40, np.float32)
    a[39] = -5.0
    a[40:] = np.float32(0.25)
    hs = [a, np.zeros(2, np.float32), np.zeros(2, np.float32), np.zeros(2, np.float32), np.zeros(2, np.int32),
          np.int32(40), np.float32(0.01), np.float32(0.49)]
    o = run("probe/arias-cav-shfl", hs, 2, policy=policy)
    assert list(o[3]) == [5, 0.25] and list(o[4]) == [1, 0] and abs(o[2][0] - 0.05) < 1e-8
    assert abs(o[1][0] - np.pi / (2 * 9.81) * 25 * 0.01) < 1e-7 and abs(o[2][1] - 40 * 0.25 * 0.01) < 1e-7


# ---- shakemap-idw-tiles ----

@pytest.mark.parametrize("n, nst, policy", [(20, 300, "lockstep"), (8, 100, "random")])
def test_shakemap_idw(n, nst, policy):
    # 20 x 20: 2 blocks, the second partial (its idle threads still stage stations); 300 stations:
    # 2 tiles, the last partial (8 x 8 and 100: a block of 256 threads, one partial tile)
    rng = np.random.default_rng(1)
    h = tp._p183_sm_args(n, rng, nst=nst)
    h[0][5], h[1][5] = 5 * 0.25, 3 * 0.25                   # a station on node (5, 3)
    h[0][7], h[1][7] = 2 * 0.25 + 0.0004, 0.0               # and one 0.4 m off node (2, 0)
    out = run("probe/shakemap-idw-tiles", h, n, policy=policy)
    ref, on = tp._p183_sm_ref(h[0], h[1], h[2], *h[5:10])
    # a weighted mean of |ln PGA| < 7 with float sums of <= 300 positive weights: within 4e-6
    assert (np.abs(out[3] - ref) <= 4e-6).all()
    assert list(np.flatnonzero(on)) == [2, 3 * n + 5] and out[3][3 * n + 5] == h[2][5] and out[3][2] == h[2][7]


# ---- pga-exceed-smem-atomic ----

@pytest.mark.parametrize("n, policy", [(260, "lockstep"), (24, "random")])
def test_pga_exceed(n, policy):
    # 260 + 1 events: 2 blocks, the last nearly empty; the last event an M 8 at site 9 with a
    # high inter-event term, over every level there
    rng = np.random.default_rng(0)
    h = tp._p183_ex_args(n, rng)
    syms = tp._p183_ex_syms(n, rng)
    h[:4] = (np.append(v, x).astype(np.float32) for v, x in zip(h[:4], (syms["c_sx"][9], syms["c_sy"][9], 8, 2)))
    h[5] = np.int32(n + 1)
    out = run("probe/pga-exceed-smem-atomic", h, n + 1, policy=policy, symbols=syms)
    cnt, margin = tp._p183_ex_ref(*h[:4], syms)
    # ln PGA in float32 within ~1e-6 of float64 (a few terms under 10): counts exact unless an
    # (event, site) is within 1e-5 of a level, where a site's counts may be off by one each
    amb = (margin < 1e-5).sum(axis=0)
    assert (np.abs(out[4].reshape(128, 8) - cnt) <= amb[:, None]).all() and amb.sum() <= 2 and cnt.sum() > n / 4
    assert (cnt[9] == tp._p183_ex_ref(*(v[:n] for v in h[:4]), syms)[0][9] + 1).all()
