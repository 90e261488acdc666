"""probe-unseen173's kernels (kernels_cuda/probes175.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/popk-2cmt-oral-const", "probe/popk-m3-loglik-csr", "probe/nca-auc-loglin-warp",
       "probe/vpc-hist-smem-atomic", "probe/pkpd-emax-hill-grid", "probe/boot-mean-splitmix-dbl"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen173"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes175.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    s, conc, *theta, n = tp._p175_pk_args(1 << 15, rng)
    assert s.dtype == tp.P175_PK_DTYPE and s.dtype.itemsize == 24 and len(conc) == 16 * n and theta[0] == 5
    assert 40 <= s["wt"].min() and s["wt"].max() <= 150 and abs(np.median(s["wt"]) - 75) < 1
    eta = np.stack([s[k] for k in ("eta_cl", "eta_v1", "eta_q", "eta_v2", "eta_ka")])
    assert np.allclose(eta.std(axis=1), tp.P175_PK_OMEGA, rtol=0.03) and np.abs(eta.mean(axis=1)).max() < 0.01
    C = np.corrcoef(eta)
    assert abs(C[0, 1] - 0.5) < 0.02 and np.abs(C[np.triu_indices(5, 1)][1:]).max() < 0.03
    sy = tp._p175_pk_syms(n, rng)
    assert (sy["c_dose_t"] == 12 * np.arange(14)).all() and sy["c_dose_amt"][0] == 400
    assert (sy["c_dose_amt"][1:] == 200).all() and (np.diff(sy["c_obs_t"]) > 0).all() and sy["c_obs_t"][-1] == 168
    off, t, y, blq, cl, v, ka, dose, ofv, sa, sp, lloq, n = tp._p175_ll_args(1 << 16, rng)
    typ, st = tp._p175_design(1 << 20, np.random.default_rng(5))
    assert np.allclose(np.bincount(typ) / len(typ), tp.P175_LL_SHARE, atol=0.02) and (np.diff(st) >= 0).all()
    deg = np.diff(off)
    assert off[0] == 0 and off[-1] == len(t) == len(y) == len(blq) and (deg == 0).mean() < 1e-4 and deg.max() <= 16
    assert abs(deg.mean() - 5.6) < 0.4 and (deg == 1).mean() > 0.03 and (deg >= 14).mean() > 0.08
    rich = deg >= 7
    assert (rich[1:] != rich[:-1]).mean() < 0.1                               # studies contiguous
    assert 0.05 < blq.mean() < 0.13 and (y[blq == 1] == lloq).all() and (y[blq == 0] >= lloq).all()
    assert 0.2 < t.min() and t.max() < 76 and set(np.unique(dose)) <= {25, 50, 100, 200, 400, 800}
    assert abs(np.median(cl) - 5) < 0.2 and abs(np.std(np.log(ka)) - np.hypot(0.5, 0.1)) < 0.02
    tt, c, auc, cmax, tmax, ns, n = tp._p175_nca_args(4096, rng)
    tt, c = tt.reshape(n, ns), c.reshape(n, ns)
    assert ns == 256 and (tt[:, 0] == 0).all() and (np.diff(tt, axis=1) > 0.09).all() and tt.max() < 48.1
    assert 0.08 < (c == 0).mean() < 0.2 and c[c > 0].min() >= 0.02 and (c[:, 0] == 0).all()
    assert ((np.diff(c, axis=1) < 0) & (c[:, 1:] > 0)).mean() > 0.35 and 1 < np.median(c.max(axis=1)) < 3
    tad, conc, hist, lloq, inv_w, n = tp._p175_vpc_args(120001, rng)
    assert len(tad) == len(conc) == n and len(hist) == 640 and abs(np.log(8 / 0.05) * inv_w - 62) < 1e-4
    r = (tad[:n // 12 * 12].reshape(-1, 12) / np.float32(tp.P175_VPC_TIMES))
    assert 0.9 <= r.min() and r.max() <= 1.1 and 0.005 < (conc < lloq).mean() < 0.015 and (conc < 0).any()
    cl, v, ka, ec50, hill, emax, eavg, ftgt, tau, e0, target, n = tp._p175_em_args(1 << 15, rng)
    assert (ka > 1.5 * cl / v).all() and abs(np.median(hill) - 1.5) < 0.03 and abs(np.median(ec50) - 2) < 0.05
    assert emax.max() < 100 and abs(np.median(emax) - 94.4) < 0.5 and len(eavg) == 16 * n and tau == 24
    d = tp._p175_em_syms(n, rng)["c_dose"]
    assert len(d) == 16 and abs(d[0] - 5) < 1e-5 and abs(d[-1] - 2000) < 1e-2
    assert np.allclose(d[1:] / d[:-1], d[1] / d[0])
    x, mean, nsub, seed = tp._p175_bs_args(10, rng)
    assert nsub == 12000 and len(x) == nsub and len(mean) == 10 and mean.dtype == np.float64
    assert abs(np.median(x) - 5.55) < 0.1 and 0.06 < (x < 2.6).mean() < 0.09                # impaired renal function
    idx = tp._p175_bs_draws(3, nsub, seed)
    cnt = np.bincount(idx.ravel() * 10 // nsub, minlength=10)                  # the draws uniform
    assert idx.shape == (3, nsub) and ((cnt - 3600) ** 2 / 3600).sum() < 30


# ---- popk-2cmt-oral-const ----

@pytest.mark.parametrize("n, policy", [(300, "lockstep"), (70, "random")])
def test_pk2cmt_oral_sim(n, policy):
    host, out, syms, _ = launch("probe/popk-2cmt-oral-const", n, policy=policy)     # 300: 3 blocks, partial
    th = tuple(float(v) for v in host[2:7])
    ref, scale = tp._p175_pk_ref(host[0], th, syms["c_dose_t"], syms["c_dose_amt"], syms["c_obs_t"])
    # float32 parameters and exponents a few ulps off (~25 roundings of 2^-24 feeding each term,
    # an exponential's error growing with its exponent): within 2e-6 of the terms' absolute
    # values, each weighted by 1 + its exponent's size
    c = out[1].reshape(n, 16)
    assert (np.abs(c - ref) <= 2e-6 * scale).all() and (c[:, 0] == 0).all() and (c[:, 1:] > 0).all()
    # no peripheral distribution (Q ~ 0): the one-compartment model; samples at dose times are
    # troughs, those before the first dose 0
    h = list(host)
    h[0] = host[0][:40].copy()
    h[0]["eta_q"] = -30
    h[1] = np.zeros(40 * 16, np.float32)
    h[-1] = np.int32(40)
    sy = dict(syms, c_obs_t=np.float32([-1, 0, 0.5, 12, 12.5, 24, 30, 60, 84, 100, 120, 130, 150, 156, 200, 400]))
    c = run("probe/popk-2cmt-oral-const", h, 40, symbols=sy)[1].reshape(40, 16)
    s, wr = h[0], h[0]["wt"].astype(np.float64) / 70
    cl = th[0] * wr ** 0.75 * np.exp(s["eta_cl"].astype(np.float64))
    v1 = th[1] * wr * np.exp(s["eta_v1"].astype(np.float64))
    ka = th[4] * np.exp(s["eta_ka"].astype(np.float64))
    k = cl / v1
    one = np.zeros((40, 16))
    scale = np.zeros((40, 16))
    for td, a in zip(syms["c_dose_t"].astype(np.float64), syms["c_dose_amt"].astype(np.float64)):
        dt = np.maximum(sy["c_obs_t"] - td, 0)
        one += a * tp._p175_oral1(1.0, cl[:, None], v1[:, None], ka[:, None], dt)
        x, y = k[:, None] * dt, ka[:, None] * dt
        scale += a * (ka / v1 / np.abs(ka - k))[:, None] * (np.exp(-x) * (1 + x) + np.exp(-y) * (1 + y))
    # Q = 8 e^-30 L/h leaves the peripheral terms ~1e-12 of the rest; float32 as above
    assert (c[:, :2] == 0).all() and (np.abs(c - one) <= 2e-6 * scale).all()


# ---- popk-m3-loglik-csr ----

@pytest.mark.parametrize("n, seed, policy", [(1000, 0, "lockstep"), (300, 1, "random")])
def test_pk_m3_loglik(n, seed, policy):
    host, out, *_ = launch("probe/popk-m3-loglik-csr", n, seed=seed, policy=policy)
    ref, bound = tp._p175_ll_ref(*host[:8], *host[9:12])
    assert (np.abs(out[8] - ref) <= bound).all() and np.median(bound) < 1e-3 * np.abs(ref).mean()
    assert host[3].sum() > 20                                      # M3 terms among them
    # a subject without observations (0), one all below LLOQ, one observed exactly at its prediction
    h = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
    off = h[0]
    d3 = off[4] - off[3]
    for k in (1, 2, 3):
        h[k] = np.delete(h[k], np.arange(off[3], off[4]))
    off[4:] -= d3                                                    # subject 3: no observations
    h[3][off[5]:off[6]] = 1                                         # subject 5: all BLQ
    j = off[7]
    h[2][j] = tp._p175_oral1(h[7][7], h[4][7], h[5][7], h[6][7], h[1][j])
    h[3][j] = 0
    r = run("probe/popk-m3-loglik-csr", h, n)[8]
    ref, bound = tp._p175_ll_ref(*h[:8], *h[9:12])
    assert r[3] == 0 and (np.abs(r - ref) <= bound).all() and (h[3][off[5]:off[6]] == 1).all()


# ---- nca-auc-loglin-warp ----

@pytest.mark.parametrize("n, ns, policy", [(40, 256, "lockstep"), (9, 50, "random")])
def test_nca_auc_warp(n, ns, policy):
    # 40: 5 blocks of 8 warps; 50 samples: lanes with 1 or 2 intervals, a warp's last lanes idle
    rng = np.random.default_rng(3)
    h = tp._p175_nca_args(n, rng, ns=ns)
    c = h[1].reshape(n, ns)
    c[1] = 0                                                 # all below LLOQ
    c[2, 20] = c[2, 30] = c[2].max() + 1                     # a tie for Cmax: the first is Tmax
    c[3] = 2.0 * np.exp(-0.1 * h[0].reshape(n, ns)[3])       # a mono-exponential decline
    c[4, 10:] = c[4, 10]                                     # a plateau (c2 == c1: linear)
    out = run("probe/nca-auc-loglin-warp", h, n, policy=policy)
    auc, cmax, tmax, bound = tp._p175_nca_ref(h[0], h[1], n, ns)
    assert (np.abs(out[2] - auc) <= bound).all() and (out[3] == cmax).all() and (out[4] == tmax).all()
    assert out[2][1] == 0 and out[3][1] == 0 and out[4][1] == 0 and out[4][2] == h[0][2 * ns + 20]
    # log-down trapezoids are exact for an exponential decline: 20 (1 - exp(-0.1 T))
    T = float(h[0][3 * ns + ns - 1])
    assert abs(out[2][3] - 20 * (1 - np.exp(-0.1 * T))) < 1e-5 * 20


# ---- vpc-hist-smem-atomic ----

@pytest.mark.parametrize("n, policy", [(20000, "lockstep"), (1201, "random")])
def test_vpc_hist(n, policy):
    host, out, syms, _ = launch("probe/vpc-hist-smem-atomic", n, policy=policy)
    ref, edge = tp._p175_vpc_ref(host[0], host[1], syms["c_tcut"], host[3], host[4])
    # float32 logf may bin an observation within 1e-4 of a log bin's edge either way
    assert out[2].sum() == n and np.abs(out[2] - ref).sum() <= 2 * edge and edge < n * 1e-3
    assert (out[2] > 0).sum() > 100 and out[2].reshape(10, 64)[:, 0].sum() > 0
    # hand-made: on the time cuts (the later bin), before the first, past the last; at LLOQ (bin
    # 1), just under it, negative, far over the top bin
    h = list(host)
    lloq = float(host[3])
    h[0] = np.float32([0.4, 0.39999998, -0.5, 10.0, 100.0, 2.5, 2.5, 2.5, 2.5])
    h[1] = np.float32([1.0, 1.0, 1.0, 1.0, 1.0, lloq, np.nextafter(np.float32(lloq), np.float32(0)), -0.3, 1e6])
    h[2] = np.zeros(640, np.int32)
    h[-1] = np.int32(9)
    r = run("probe/vpc-hist-smem-atomic", h, 9, symbols=syms)[2].reshape(10, 64)
    cb = 1 + int(np.floor(np.log(1.0 / lloq) * float(host[4])))
    want = np.zeros((10, 64), np.int64)
    for tb, b in [(1, cb), (0, cb), (0, cb), (9, cb), (9, cb), (5, 1), (5, 0), (5, 0), (5, 63)]:
        want[tb, b] += 1
    assert (r == want).all()


# ---- pkpd-emax-hill-grid ----

@pytest.mark.parametrize("n, policy", [(300, "lockstep"), (40, "random")])
def test_emax_dose_grid(n, policy):
    host, out, syms, _ = launch("probe/pkpd-emax-hill-grid", n, policy=policy)       # grid 2 x 16, partial
    eavg, cnt, near = tp._p175_em_ref(*host[:6], syms["c_dose"])
    e = out[6].reshape(16, n)
    # the concentration a few ulps off (expf's arguments up to ~5 rounded), raised to the Hill
    # coefficient, times Emax: within 2e-6 Emax hill
    assert (np.abs(e - eavg) <= 2e-6 * host[5] * host[4]).all()
    k = np.rint(out[7].reshape(16, n) * 49)
    assert (np.abs(k - cnt) <= near).all() and (k == 0).any() and (k == 49).any() and ((k > 0) & (k < 49)).any()
    assert (np.diff(e, axis=0) > 0).all()                         # more drug, more effect, for everyone


# ---- boot-mean-splitmix-dbl ----

@pytest.mark.parametrize("n, nsub, policy", [(5, 1000, "lockstep"), (3, 300, "random"), (2, 100, "lockstep")])
def test_boot_mean(n, nsub, policy):
    # 1000 and 300: threads drawing 3 or 4 (2 or 1) values; 100: most threads none
    rng = np.random.default_rng(4)
    h = tp._p175_bs_args(n, rng, nsub=nsub)
    out = run("probe/boot-mean-splitmix-dbl", h, n, policy=policy)[1]
    idx = tp._p175_bs_draws(n, nsub, h[3])
    ref = h[0][idx].astype(np.float64).mean(axis=1)
    # double sums of float values in another order: a few ulps of double
    assert (np.abs(out - ref) <= 1e-13 * ref).all() and len(np.unique(out)) == n
    assert (np.abs(out - h[0].mean()) < 5 * h[0].std() / np.sqrt(nsub)).all()
    h[0] = np.full(nsub, 2.5, np.float32)                          # every resample's mean exactly 2.5
    assert (run("probe/boot-mean-splitmix-dbl", h, n)[1] == 2.5).all()
