"""probe-unseen214's kernels (kernels_cuda/probes216.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import math

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/qsim-mg1-lindley-xorshift-const", "probe/qsim-mmc-crn-local-servers",
       "probe/qsim-erlang-c-staffing-double", "probe/qsim-wait-hist-logbins-smem",
       "probe/qsim-token-bucket-shaper-flows", "probe/qsim-lindley-maxplus-scan"]

F32 = np.float32


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen214"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes216.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _fma32(a, b, c):
    """float a * b + c rounded once (nvcc contracts it): exact product in double, one more
    rounding (a double rounding only on an exact midpoint, never met here)."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(F32)


# ---- references ----

def _mg1_ref(lam, seed, table, K, warm, tau):
    """mg1_lindley, vectorised over the replications, float32 as the kernel rounds."""
    s = np.asarray(seed, np.uint32).copy()
    lam = np.asarray(lam, F32)
    table = np.asarray(table, F32)
    u32 = np.uint32

    def uni():
        s[...] ^= s << u32(13)
        s[...] ^= s >> u32(17)
        s[...] ^= s << u32(5)
        return ((s >> u32(9)).astype(F32) + F32(0.5)) * F32(1 / 8388608)
    n = len(s)
    w = np.zeros(n, F32)
    svc = np.zeros(n, F32)
    wmax = np.zeros(n, F32)
    tot = np.zeros(n)
    over = np.zeros(n, np.int64)
    for k in range(K):
        a = -np.log(uni()) / lam
        w = np.maximum(F32(0), (w + svc) - a)
        u = uni() * F32(tp.P216_MG1_ICDF)
        j = np.floor(u).astype(np.int64)
        f = u - j.astype(F32)
        svc = _fma32(f, table[j + 1] - table[j], table[j])
        if k >= warm:
            tot += w
            over += w > F32(tau)
            wmax = np.maximum(wmax, w)
    m = K - warm
    return (tot / m).astype(F32), over.astype(F32) / F32(m), wmax


def _mmc_ref(cfg, ea, es, K, warm):
    """mmc_crn, vectorised over the configurations."""
    n = len(cfg)
    lam, mu, c = cfg["lam"].astype(F32), cfg["mu"].astype(F32), cfg["c"].astype(np.int64)
    free = np.zeros((n, tp.P216_MMC_MAXC), F32)
    off = np.arange(tp.P216_MMC_MAXC)[None, :] >= c[:, None]
    rows = np.arange(n)
    t = np.zeros(n, F32)
    t0 = np.zeros(n, F32)
    busy = np.zeros(n, F32)
    sumw = np.zeros(n)
    waited = np.zeros(n, np.int64)
    for k in range(K):
        t = t + F32(ea[k]) / lam
        best = np.argmin(np.where(off, np.inf, free), axis=1)            # the first of the earliest
        start = np.maximum(t, free[rows, best])
        svc = F32(es[k]) / mu
        free[rows, best] = start + svc
        if k == warm:
            t0 = t.copy()
        if k >= warm:
            sumw += start - t
            waited += start > t
            busy = busy + svc
    m = K - warm
    return (sumw / m).astype(F32), waited.astype(F32) / F32(m), busy / (c.astype(F32) * (t - t0))


def _erlang_c(c, A):
    """Erlang C (the chance a call waits) for c agents and A Erlangs, by the B recursion."""
    B = 1.0
    for k in range(1, c + 1):
        B = A * B / (k + A * B)
    return c * B / (c - A * (1 - B))


def _es_ref(load, aht, cls, targets=tp.P216_ES_TARGETS):
    """erlang_staffing in float64, a call at a time (no fused multiply-adds: a decision
    flips only if a service level falls within 1e-15 of its target)."""
    n = len(load)
    agents = np.zeros(n, np.int64)
    sl = np.zeros(n)
    asa = np.zeros(n)
    for i in range(n):
        A, h = float(load[i]), float(aht[i])
        tg = targets[cls[i]]
        T = float(tg["t_ans"]) / h
        B = 1.0
        c = 0
        while c < tp.P216_ES_MAXAGENTS:
            c += 1
            B = A * B / (c + A * B)
            if c > A:
                C = c * B / (c - A * (1.0 - B))
                sl[i] = 1.0 - C * math.exp(-(c - A) * T)
                asa[i] = C * h / (c - A)
                if sl[i] >= float(tg["sl"]) and A <= float(F32(tg["max_occ"]) * F32(c)):
                    break
        agents[i] = c
    return agents, sl, asa


def _wh_ref(w, cls, w0):
    """wait_hist: (hist 4 x 64, sums float64, max bits)."""
    w = np.asarray(w, F32)
    cls = np.asarray(cls, np.int64)
    hist = np.zeros((tp.P216_WH_CLASSES, tp.P216_WH_BINS), np.int64)
    zero = w == 0
    np.add.at(hist[:, 0], cls[zero], 1)
    pos = w > 0
    b = 1 + np.floor(np.log2(w[pos] / F32(w0)) * F32(tp.P216_WH_PER_OCT)).astype(np.int64)
    b = np.clip(b, 1, tp.P216_WH_BINS - 1)
    np.add.at(hist, (cls[pos], b), 1)
    sums = np.bincount(cls, weights=w.astype(np.float64), minlength=tp.P216_WH_CLASSES)
    mx = np.zeros(tp.P216_WH_CLASSES, np.int64)
    np.maximum.at(mx, cls, w.view(np.int32).astype(np.int64))
    return hist.ravel(), sums, mx


def _tb_ref(pk, start, bk):
    """token_bucket, vectorised over the flows: (delay, sent, drops, class drops)."""
    nf = len(bk)
    start = np.asarray(start, np.int64)
    npk = start[1:] - start[:-1]
    rate, depth, maxd = bk["rate"].astype(F32), bk["depth"].astype(F32), bk["max_delay"].astype(F32)
    tokens = depth.copy()
    last = np.zeros(nf, F32)
    dep = np.zeros(nf, F32)
    sent = np.zeros(nf, np.int64)
    drops = np.zeros(nf, np.int64)
    delay = np.zeros(len(pk), F32)
    cdrop = np.zeros(tp.P216_TB_CLASSES, np.int64)
    for j in range(int(npk.max(initial=0))):
        f = np.flatnonzero(j < npk)
        p = start[f] + j
        pt = pk["t"][p].astype(F32)
        ln = pk["len"][p].astype(F32)
        s = np.maximum(pt, dep[f])
        tok = np.minimum(depth[f], _fma32(rate[f], s - last[f], tokens[f]))
        ok = tok >= ln
        d = np.where(ok, s, s + (ln - tok) / rate[f])
        tok = np.where(ok, tok - ln, F32(0))
        drop = (d - pt) > maxd[f]
        delay[p] = np.where(drop, F32(-1), d - pt)
        drops[f] += drop
        np.add.at(cdrop, pk["dscp"][p[drop]].astype(np.int64) >> 3, 1)
        keep = f[~drop]
        tokens[keep] = tok[~drop]
        last[keep] = d[~drop]
        dep[keep] = d[~drop]
        sent[keep] += pk["len"][p[~drop]]
    return delay, sent, drops, cdrop


def _lindley(inter, svc):
    """The Lindley waits of sample paths (rows), sequentially in float64."""
    inter = np.atleast_2d(np.asarray(inter, np.float64))
    svc = np.atleast_2d(np.asarray(svc, np.float64))
    w = np.zeros(inter.shape)
    for k in range(1, inter.shape[1]):
        w[:, k] = np.maximum(0, w[:, k - 1] + svc[:, k - 1] - inter[:, k])
    return w


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # the empirical service distribution: mean 1, SCV ~1.4, a long right tail
    t = tp._p216_mg1_icdf(rng).astype(np.float64)
    assert len(t) == tp.P216_MG1_ICDF + 1 and (np.diff(t) >= 0).all() and t[0] > 0
    m1 = ((t[:-1] + t[1:]) / 2).mean()
    m2 = ((t[:-1] ** 2 + t[:-1] * t[1:] + t[1:] ** 2) / 3).mean()        # E[S^2], linear pieces
    scv = m2 - 1
    assert m1 == pytest.approx(1, rel=1e-6) and 1.0 < scv < 2.0 and t[-1] > 8 and 0.6 < t[128] < 0.85
    # the loads: 64 levels, replications in order; seeds non-zero
    h = tp._p216_mg1_args(1 << 12, rng)
    assert list(np.unique(h[0])[[0, -1]]) == [pytest.approx(0.5), pytest.approx(0.95)] and len(np.unique(h[0])) == 64
    assert (np.diff(h[0]) >= 0).all() and (h[1] != 0).all() and len(np.unique(h[1])) > 4090
    # M/G/1 by the reference: long runs meet Pollaczek-Khinchine's mean wait
    lam = np.full(64, 0.7, F32)
    mw, po, _ = _mg1_ref(lam, rng.integers(1, 1 << 32, 64, dtype=np.uint64).astype(np.uint32), t, 6000, 1000, 2.0)
    pk_w = 0.7 * m2 / (2 * 0.3)
    assert mw.mean() == pytest.approx(pk_w, rel=0.08) and 0.2 < po.mean() < 0.5
    # M/M/c configurations: c 1 .. 32, loads 0.5 .. 0.98; long runs meet Erlang C
    h = tp._p216_mmc_args(4096, rng)
    cfg = h[0]
    rho = cfg["lam"] / (cfg["c"] * cfg["mu"])
    assert cfg["c"].min() == 1 and cfg["c"].max() == 32 and 0.5 <= rho.min() and rho.max() <= 0.98
    assert 0.49 < (1 / cfg["mu"]).min() and (1 / cfg["mu"]).max() < 2.01 and abs(h[1].mean() - 1) < 0.15
    pick = np.flatnonzero((rho > 0.6) & (rho < 0.8))[:24]
    K = 20000
    ea = rng.standard_exponential(K).astype(F32)
    es = rng.standard_exponential(K).astype(F32)
    _, pw, ut = _mmc_ref(cfg[pick], ea, es, K, 1000)
    pc = np.array([_erlang_c(int(c), float(r * c)) for c, r in zip(cfg["c"][pick], rho[pick])])
    assert np.abs(pw - pc).mean() < 0.05 and np.abs(ut - rho[pick]).mean() < 0.05
    # contact-centre loads: lognormal peaks times a two-peaked day, 8 classes
    h = tp._p216_es_args(96 * 400, rng)
    load = h[0].reshape(400, 96)
    peak = load.max(axis=1)
    assert 8 < np.median(peak) < 20 and load.min() >= 0 and peak.max() < 2000
    prof = np.median(load / peak[:, None], axis=0)
    assert prof[:24].max() < 0.1 and prof[40:46].max() > 0.85 and 0.6 < prof[56:60].max() < 0.9
    aht = h[1].reshape(400, 96)
    assert (aht == aht[:, :1]).all() and 220 < np.median(aht) < 340 and aht.min() >= 60
    assert (h[2].reshape(400, 96) == h[2][::96, None]).all() and h[2].max() == 7
    ag, sl, asa = _es_ref(h[0][:2000], h[1][:2000], h[2][:2000])
    assert ag.min() == 1 and ag.max() > 30 and (sl[:2000] > 0.69).all()
    # waits: a mass at zero by class, exponential bodies, a lognormal tail
    w, c = tp._p216_wh_data(400000, rng)
    for k in range(4):
        wk = w[c == k]
        assert len(wk) / len(w) == pytest.approx(tp.P216_WH_CLASS_P[k], abs=0.01)
        assert (wk == 0).mean() == pytest.approx(tp.P216_WH_P0[k], abs=0.02)
        assert np.median(wk[wk > 0]) == pytest.approx(tp.P216_WH_MEAN[k] * 0.8, rel=0.15)
    assert w.max() > 3000 and (w >= 0).all()
    # packet traces: heavy-tailed flow sizes, IMIX, voice at 50 packets a second, bursts
    pk, start, bk = tp._p216_tb_flows(4096, rng)
    npk = np.diff(start)
    assert 25 < np.median(npk) < 35 and npk.max() > 800 and npk.min() >= 1 and start[-1] == len(pk)
    ef = pk["dscp"] == 46
    assert set(np.unique(pk["len"][~ef])) == {40, 576, 1500} and (pk["len"][ef] == 218).all()
    assert (pk["len"][~ef] == 40).mean() == pytest.approx(7 / 12, abs=0.01)
    first = np.zeros(len(pk), bool)
    first[start[:-1]] = True
    gap = np.diff(pk["t"].astype(np.float64), prepend=0)
    gap[first] = pk["t"][first]
    assert (gap >= 0).all() and (pk["t"][first] < 0.01).all()
    assert np.median(gap[ef & ~first]) == pytest.approx(0.02, abs=1e-3)
    b2b = ~ef & ~first & ~pk["flags"].astype(bool)
    assert np.allclose(gap[b2b], pk["len"][b2b] * 8 / 1e8, rtol=1e-3, atol=1e-6)
    assert 0.1 < pk["flags"][~ef & ~first].mean() < 0.15
    dur = np.maximum(pk["t"][start[1:] - 1], 0.01)
    mrate = np.add.reduceat(pk["len"].astype(np.float64), start[:-1]) / dur
    assert 0.59 < (bk["rate"] / mrate).min() and (bk["rate"] / mrate).max() < 1.51
    assert set(np.unique(bk["depth"] / 1500)) == set(range(1, 9))
    assert set(np.unique(bk["max_delay"])) == {F32(0.01), F32(0.1)}
    assert (bk["max_delay"][pk["dscp"][start[:-1]] == 46] == F32(0.01)).all()
    delay, _, drops, _ = _tb_ref(pk[:start[1024]], start[:1025], bk[:1024])
    assert 0.02 < (drops > 0).mean() < 0.15 and 0.25 < (delay > 0).mean() < 0.6 and 0.005 < (delay < 0).mean() < 0.06
    # sample paths: Erlang-2 arrivals of mean 1, H2 services of mean 0.85 and SCV 4
    a, s = tp._p216_ls_paths(4, rng, K=1 << 17)
    assert a.mean() == pytest.approx(1, rel=0.01) and a.var() == pytest.approx(0.5, rel=0.03)
    assert s.mean() == pytest.approx(0.85, rel=0.02) and s.var() / s.mean() ** 2 == pytest.approx(4, rel=0.1)
    w = _lindley(a, s)
    kingman = 0.85 / 0.15 * (0.5 + 4) / 2 * 0.85
    assert 0.5 * kingman < w[:, 20000:].mean() < 1.5 * kingman


# ---- mg1-lindley-xorshift-const ----

def _check_mg1(h, table, n, grid=None):
    out = run("probe/qsim-mg1-lindley-xorshift-const", h, n, symbols={"c_svc_icdf": table}, grid=grid)
    mw, po, mx = _mg1_ref(h[0], h[1], table, int(h[2]), int(h[3]), float(h[4]))
    assert np.allclose(out[5], mw, rtol=1e-6, atol=0) and (out[6] == po).all() and (out[7] == mx).all()
    return out


def test_mg1_lindley():
    rng = np.random.default_rng(1)
    n = 300                                                  # two blocks, the second part full
    h = tp._p216_mg1_args(n, rng, K=80, warm=10)
    table = tp._p216_mg1_icdf(rng)
    out = _check_mg1(h, table, n)
    assert out[5][-40:].mean() > 2 * out[5][:40].mean()
    assert (out[6] > 0).any() and (out[6] < 1).any() and (out[6] <= 1).all()


def test_mg1_edges():
    rng = np.random.default_rng(2)
    n = 40
    h = tp._p216_mg1_args(n, rng, K=30, warm=29)             # one customer counted
    h[0][:5] = 1e-6                                          # next to no arrivals: no one waits
    h[0][5:10] = 50.0                                        # a flood: everyone waits long
    h[4] = np.float32(0.0)                                   # tau 0: every customer who waits counts
    table = tp._p216_mg1_icdf(rng)
    out = _check_mg1(h, table, n, grid=(1, 1))
    assert (out[5][:5] == 0).all() and (out[6][:5] == 0).all() and (out[6][5:10] == 1).all()
    assert (out[5][5:10] > 10).all() and set(np.unique(out[6])) <= {0.0, 1.0}
    h2 = tp._p216_mg1_args(n, rng, K=25, warm=0)             # no warm-up
    _check_mg1(h2, np.linspace(0, 2, 257).astype(F32), n)    # a uniform (0, 2) service table


# ---- mmc-crn-local-servers ----

def _check_mmc(h, n):
    out = run("probe/qsim-mmc-crn-local-servers", h, n)
    mw, pw, ut = _mmc_ref(h[0], h[1], h[2], int(h[3]), int(h[4]))
    assert np.allclose(out[5], mw, rtol=1e-6, atol=1e-7) and (out[6] == pw).all()
    assert np.allclose(out[7], ut, rtol=1e-6)
    return out


def test_mmc_crn():
    rng = np.random.default_rng(3)
    n = 40
    h = tp._p216_mmc_args(n, rng, K=50, warm=5)
    cfg = h[0]
    cfg["c"][0], cfg["lam"][0], cfg["mu"][0] = 1, 0.9, 1.0           # M/M/1: the plain Lindley recursion
    cfg["c"][1], cfg["lam"][1], cfg["mu"][1] = 32, 0.5, 1.0          # 32 servers nearly idle: no one waits
    cfg["c"][2], cfg["lam"][2], cfg["mu"][2] = 32, 80.0, 1.0         # overloaded: all 32 busy
    h[2][:40] = 1.0                                                  # equal services: ties between servers
    out = _check_mmc(h, n)
    w1 = _lindley(h[1][None, :] / F32(0.9), h[2][None, :])[0]        # customer k's wait, M/M/1
    assert out[5][0] == pytest.approx(w1[5:].mean(), rel=1e-5)
    assert out[5][1] == 0 and out[6][1] == 0 and out[6][2] > 0.2


# ---- erlang-c-staffing-double ----

def test_erlang_staffing():
    rng = np.random.default_rng(4)
    n = 96 * 4
    h = tp._p216_es_args(n, rng)
    h[0][:8] = [0.0, 1e-4, 0.5, 1.0, 2.0, 100.0, 399.9, 20.0]      # hand-made loads
    h[2][:8] = [0, 1, 2, 3, 4, 5, 6, 7]
    out = run("probe/qsim-erlang-c-staffing-double", h, n, symbols={"c_targets": tp.P216_ES_TARGETS})
    ag, sl, asa = _es_ref(h[0], h[1], h[2])
    assert (out[3] == ag).all()
    assert np.allclose(out[4], sl, rtol=1e-6) and np.allclose(out[5], asa, rtol=1e-6)
    assert out[3][0] == 1 and out[4][0] == 1 and out[5][0] == 0
    assert (out[4] >= tp.P216_ES_TARGETS["sl"][h[2]] - 1e-6).all()
    occ = h[0] / out[3]
    assert (occ <= tp.P216_ES_TARGETS["max_occ"][h[2]] + 1e-6).all()
    # one agent fewer misses a target
    for i in np.flatnonzero(out[3] > 1)[:40]:
        c, A = int(out[3][i]) - 1, float(h[0][i])
        tg = tp.P216_ES_TARGETS[h[2][i]]
        if c <= A:
            continue
        C = _erlang_c(c, A)
        slc = 1 - C * math.exp(-(c - A) * float(tg["t_ans"]) / float(h[1][i]))
        assert slc < tg["sl"] or A > float(F32(tg["max_occ"]) * F32(c))


# ---- wait-hist-logbins-smem ----

def _check_wh(w, cls, w0, grid=None):
    n = len(w)
    h = [w, cls, np.int32(n), np.float32(w0), np.zeros(256, np.int32), np.zeros(4, np.float32), np.zeros(4, np.int32)]
    out = run("probe/qsim-wait-hist-logbins-smem", h, n, grid=grid)
    hist, sums, mx = _wh_ref(w, cls, w0)
    assert (out[4] == hist).all() and (out[6] == mx).all()
    assert np.allclose(out[5], sums, rtol=2e-5, atol=1e-6)
    return out


def test_wait_hist():
    rng = np.random.default_rng(5)
    n = 256 * 16 * 3 + 77                                    # 4 blocks, the last one short
    w, c = tp._p216_wh_data(n, rng)
    out = _check_wh(w, c, tp.P216_WH_W0)
    assert out[4].reshape(4, 64)[:, 0].sum() > 0.3 * n and (out[4].reshape(4, 64)[:, 63] > 0).any()
    _check_wh(w, c, tp.P216_WH_W0, grid=(2, 1))              # fewer blocks: more turns of the loop


def test_wait_hist_edges():
    # w0 a power of two: a doubling's edges exact
    w0 = 0.0625
    m = np.arange(-3, 20)
    w = np.concatenate([w0 * 2.0 ** m, [0, 0, 0, 1e-30, 1e30, w0 * 2 ** 0.26]]).astype(F32)
    c = (np.arange(len(w)) % 4).astype(np.uint8)
    out = _check_wh(w, c, w0, grid=(1, 1))
    hist = out[4].reshape(4, 64)
    want = np.clip(1 + 4 * m, 1, 63)
    for k, b in zip(c[:len(m)], want):
        assert hist[k, b] >= 1
    assert hist[:, 0].sum() == 3 and hist[:, 63].sum() >= 2
    _check_wh(np.zeros(0, F32), np.zeros(0, np.uint8), w0, grid=(1, 1))      # nothing to count
    z = np.zeros(32, F32)
    out = _check_wh(z, np.full(32, 2, np.uint8), w0, grid=(1, 1))
    assert out[4][2 * 64] == 32 and out[4].sum() == 32 and (out[6] == 0).all()


# ---- token-bucket-shaper-flows ----

def _check_tb(pk, start, bk, grid=None):
    nf = len(bk)
    h = [pk, start.astype(np.int32), bk, np.zeros(len(pk), F32), np.zeros(nf, np.uint64), np.zeros(nf, np.int32),
         np.zeros(8, np.int32), np.zeros(1, np.uint64), np.int32(nf)]
    out = run("probe/qsim-token-bucket-shaper-flows", h, nf, grid=grid)
    delay, sent, drops, cdrop = _tb_ref(pk, start, bk)
    assert np.allclose(out[3], delay, rtol=1e-6, atol=1e-9) and ((out[3] == -1) == (delay == -1)).all()
    assert (out[4] == sent).all() and (out[5] == drops).all() and (out[6] == cdrop).all()
    assert out[7][0] == sent.sum()
    return out


def test_token_bucket():
    rng = np.random.default_rng(6)
    nf = 40
    pk, start, bk = tp._p216_tb_flows(nf, rng)
    out = _check_tb(pk, start, bk)
    assert (out[5] > 0).any() and (out[3] > 0).any() and (out[3] == 0).any()


def test_token_bucket_cases():
    P = tp.P216_TB_PKT
    B = tp.P216_TB_BUCKET
    # flow 0: no packets; 1: one packet, fits; 2: 3 x 1000 bytes at once into 2000 tokens,
    # 1000 B/s: the third waits 1 s exactly, then a 4th over the bound dropped; 3: a packet
    # exactly the bucket's tokens; 4: a packet bigger than the bucket waits for the rest
    pk = np.zeros(9, P)
    start = np.array([0, 0, 1, 5, 6, 9])
    pk[0] = (0.5, 1500, 0, 0)
    pk[1:5] = [(0.0, 1000, 10, 0), (0.0, 1000, 10, 0), (0.0, 1000, 10, 0), (0.25, 1000, 26, 0)]
    pk[5] = (0.0, 1500, 46, 0)
    pk[6:9] = [(0.0, 1500, 0, 0), (0.001, 576, 0, 0), (2.0, 40, 0, 0)]
    bk = np.zeros(5, B)
    bk[:] = [(1e5, 3000, 0.1), (1e5, 3000, 0.1), (1000, 2000, 1.5), (1e3, 1500, 0.01), (1000, 1024, 5)]
    out = _check_tb(pk, start, bk, grid=(1, 1))
    d = out[3]
    assert d[0] == 0 and list(d[1:4]) == [0, 0, 1] and d[4] == -1 and d[5] == 0
    assert d[6] == pytest.approx(0.476, abs=1e-6) and d[7] == pytest.approx(0.475 + 0.576, abs=1e-5)
    assert list(out[4]) == [0, 1500, 3000, 1500, 2116] and list(out[5]) == [0, 0, 1, 0, 0]
    assert list(out[6]) == [0, 0, 0, 1, 0, 0, 0, 0]


# ---- lindley-maxplus-scan ----

def _check_ls(inter, svc, grid=None, exact=False):
    n, K = inter.shape
    h = [inter.ravel(), svc.ravel(), np.int32(K), np.zeros(n * K, F32), np.zeros(n, F32), np.zeros(n, np.int32)]
    out = run("probe/qsim-lindley-maxplus-scan", h, n, grid=grid)
    w = _lindley(inter, svc)
    got = out[3].reshape(n, K)
    nw = (w > 0).sum(axis=1)
    if exact:
        assert (got == w).all() and (out[5] == nw).all()
    else:
        assert np.allclose(got, w, rtol=2e-6, atol=1e-4 * max(1, w.max()))
        assert (np.abs(out[5] - nw) <= 2).all()
    assert np.allclose(out[4], w.mean(axis=1), rtol=1e-5, atol=1e-6)
    return out


def test_lindley_scan():
    rng = np.random.default_rng(7)
    a, s = tp._p216_ls_paths(3, rng, K=1000)                # 4 chunks, the last one short
    out = _check_ls(a, s)
    assert (out[5] > 500).all()


def test_lindley_scan_exact_and_short():
    rng = np.random.default_rng(8)
    # small integers: every sum exact, so the scan's waits equal the recursion's
    a = rng.integers(0, 9, (2, 700)).astype(F32)
    s = rng.integers(0, 9, (2, 700)).astype(F32)
    s[1, 300:400] = 0                                        # an idle stretch across a chunk's edge
    out = _check_ls(a, s, exact=True)
    assert (out[3].reshape(2, 700)[1, 300:400] == 0).any()
    _check_ls(a[:, :5].copy(), s[:, :5].copy(), exact=True)  # fewer customers than a warp
    one = _check_ls(a[:, :1].copy(), s[:, :1].copy(), exact=True)
    assert (one[5] == 0).all() and (one[3] == 0).all()
    _check_ls(a[:, :512].copy(), s[:, :512].copy(), exact=True)      # exactly two chunks
