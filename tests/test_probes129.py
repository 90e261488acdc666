"""probe-unseen127's kernels (kernels_cuda/probes129.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from kernels_cuda.backend import EmulatorBackend
from probe_launch import launch, run

IDS = ["probe/sir-agent-csr-firsthit", "probe/reed-frost-binomial-double", "probe/case-counts-region-age",
       "probe/incidence-ma7-smem", "probe/renewal-rt-cori", "probe/contact-matrix-survey-smem"]


def run_grid(kernel, grid, block, host, symbols=None, policy="lockstep"):
    """probes129.cu's kernel on host arguments at a grid of our own, sanitizer on: the
    host arrays after."""
    be = EmulatorBackend(seed=0, policy=policy, sanitize=True)
    for k, v in (symbols or {}).items():
        be.get_global("probes129.cu", k, v.shape, v.dtype).set(v)
    dev = [be.to_device(a) if isinstance(a, np.ndarray) and a.ndim > 0 else a for a in host]
    be.launch("probes129.cu", kernel, grid, block, dev, 0)
    res = be.launches[-1]
    assert res.sanitizer == [], [f.as_dict() for f in res.sanitizer]
    return [be.to_host(d) if isinstance(a, np.ndarray) and a.ndim > 0 else a for a, d in zip(host, dev)]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen127"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes129.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 14
    # the contact network: CSR, heavy-tailed degrees of mean ~12, mostly local, no self-loops
    rp, col, st, nxt, nc, beta, gamma, s1, s2, nn = tp._p129_sir_args(n, rng)
    deg = np.diff(rp)
    assert rp.dtype == col.dtype == np.int32 and rp[0] == 0 and rp[-1] == len(col) and nn == n
    assert deg.min() >= 2 and deg.max() <= 150 and 11 < deg.mean() < 13 and deg.std() > 6
    src = np.repeat(np.arange(n), deg)
    dist = np.minimum((col - src) % n, (src - col) % n)
    assert (col != src).all() and (col >= 0).all() and (col < n).all()
    assert 0.68 < (dist <= tp.P129_SIR_WIN).mean() < 0.74
    assert st.dtype == np.uint8 and np.allclose(np.bincount(st, minlength=3) / n, tp.P129_SIR_INIT, atol=0.01)
    new, cases, walked = tp._p129_sir_ref(rp, col, st)
    assert 0.01 < cases / n < 0.03 and walked[st == 0].mean() > 0.9 * deg[st == 0].mean()
    assert walked.reshape(-1, 32).max(axis=1).mean() > 2 * walked.mean()     # divergent warps
    # Reed-Frost: R0 0.5 .. 3 in a population of 400: minor and major outbreaks
    p = tp._p129_rf_args(4096, rng)[0]
    assert p.dtype == np.float64 and p.min() >= 0.5 / 400 and p.max() <= 3 / 400
    tot, gen, mx, trips, gap = tp._p129_rf_ref(p)
    assert gap > 1e-9 and gen.max() < tp.P129_RF_MAXGEN and tot.max() < 400
    assert 0.4 < (tot > 40).mean() < 0.7 and (tot < 10).mean() > 0.2        # bimodal final sizes
    assert trips.reshape(-1, 32).max(axis=1).mean() > 1.8 * trips.mean()
    # the line list: sorted onsets (but the missing), region sizes skewed, a few unknowns
    region, age, onset, counts, epi, nn = tp._p129_cc_args(n, rng)
    assert region.dtype == np.int32 and age.dtype == np.uint8 and onset.dtype == np.int16
    known = onset[onset >= 0]
    assert (np.diff(known) >= 0).all() and known.max() < tp.P129_CC_DAYS and abs((onset < 0).mean() - 0.02) < 0.005
    assert abs((region < 0).mean() - 0.01) < 0.004 and region.max() < tp.P129_CC_REGIONS
    assert abs((age == 255).mean() - 0.03) < 0.005 and age[age != 255].max() <= 100
    rc = np.bincount(region[region >= 0], minlength=tp.P129_CC_REGIONS)
    assert rc.max() > 20 * max(rc.min(), 1)
    c, e = tp._p129_cc_ref(region, age, onset)
    assert c.sum() == (region >= 0).sum() and e.sum() == len(known) and len(c) == 350 * 19
    # daily counts: waves, weekday dips, some zero rows' stretches
    cases, ma, g, days = tp._p129_ma_args(16 * 1024, rng)
    assert cases.dtype == np.int32 and days == 1024 and len(cases) == 16 * 1024 and cases.min() >= 0
    cm = cases.reshape(16, 1024)
    assert (cm == 0).mean() > 0.05 and cm.max() > 20
    # the serial interval: weights summing to 1, mean ~4.7 days
    w = tp._p129_rt_si()
    assert w.dtype == np.float32 and len(w) == 21 and w[0] == 0 and abs(w.sum() - 1) < 1e-6
    assert abs((w * np.arange(21)).sum() - 4.7) < 0.15 and np.argmax(w) == 3
    inc, *_, a, b, days, nreg = tp._p129_rt_args(4 * 512, rng)
    assert inc.dtype == np.float32 and (inc == np.round(inc)).all() and days == 512 and nreg == 4
    # the survey: grouped by participant, assortative, weights in 1/64ths
    part, cont, wt, M, nn = tp._p129_cm_args(n, rng)
    assert part.dtype == cont.dtype == np.uint8 and part.max() < 90 and cont.max() < 90
    assert (part[1:] == part[:-1]).mean() > 0.85
    assert (np.abs(part.astype(int) - cont) <= 8).mean() > 0.5
    assert (wt * 64 == np.round(wt * 64)).all() and wt.min() >= 0.5 and wt.max() <= 2


# ---- sir-agent-csr-firsthit ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_sir_agent_step(policy):
    n = 600                                                 # 3 blocks, the last partial
    host, (rp, col, st, nxt, nc, *_), *_ = launch("probe/sir-agent-csr-firsthit", n, policy=policy)
    ref, cases, _ = tp._p129_sir_ref(*host[:3])
    assert (nxt == ref).all() and nc[0] == cases
    assert cases > 3 and ((st == 1) & (nxt == 2)).sum() >= 1 and (st == host[2]).all()


def test_sir_edge_cases():
    # all agents infectious but agent 0 (its first contacts transmit at beta 1; counted once),
    # then everyone susceptible (no one to catch it from)
    rng = np.random.default_rng(3)
    n = 100
    host = tp._p129_sir_args(n, rng)
    host[2][:] = 1
    host[2][0] = 0
    host[5] = np.float32(1.0)
    out = run("probe/sir-agent-csr-firsthit", host, n)
    assert out[3][0] == 1 and out[4][0] == 1
    assert (out[3][1:] == tp._p129_sir_ref(*host[:3], beta=1.0)[0][1:]).all()
    host = tp._p129_sir_args(n, rng)
    host[2][:] = 0
    out = run("probe/sir-agent-csr-firsthit", host, n, policy="random")
    assert (out[3] == 0).all() and out[4][0] == 0


# ---- reed-frost-binomial-double ----

def test_reed_frost():
    n = 160                                                 # 2 blocks, the last partial
    host, (p, fs, dur, pk, *_), *_ = launch("probe/reed-frost-binomial-double", n)
    tot, gen, mx, trips, gap = tp._p129_rf_ref(host[0])
    assert gap > 1e-9
    assert (fs == tot).all() and (dur == gen).all() and (pk == mx).all()
    assert (fs < 10).any() and (fs > 100).any() and (pk <= fs).all() and (dur >= 1).all()


def test_reed_frost_edge_cases():
    # p 0 (the index case only: one generation) and p near 1 (everyone in generation 1)
    rng = np.random.default_rng(4)
    n = 8
    host = tp._p129_rf_args(n, rng)
    host[0][:4] = 0.0
    host[0][4:] = 0.9999
    out = run("probe/reed-frost-binomial-double", host, n)
    assert (out[1][:4] == 1).all() and (out[2][:4] == 1).all() and (out[3][:4] == 1).all()
    tot, gen, mx, *_ = tp._p129_rf_ref(host[0])
    assert (out[1] == tot).all() and (out[2] == gen).all() and (out[3] == mx).all()
    assert (tot[4:] == 400).all() and (mx[4:] == 399).all()


# ---- case-counts-region-age ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_case_counts(policy):
    n = 3000
    host, (region, age, onset, counts, epi, _), *_ = launch("probe/case-counts-region-age", n, policy=policy)
    c, e = tp._p129_cc_ref(*host[:3])
    assert (counts == c).all() and (epi == e).all()
    assert c.reshape(-1, 19)[:, 18].sum() > 0 and c.reshape(-1, 19)[:, 17].sum() > 0      # unknown, 85+


# ---- incidence-ma7-smem ----

def test_incidence_ma7():
    n = 2 * 1024                                            # 2 regions, grid (4, 2)
    host, (cases, ma, g, days), *_ = launch("probe/incidence-ma7-smem", n)
    m, gr = tp._p129_ma_ref(host[0], 1024)
    np.testing.assert_array_equal(ma, m)
    np.testing.assert_array_equal(g, gr)
    assert (g == 0).sum() >= 26 and (g > 1.2).any() and (g < 0.8).any()


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_incidence_ma7_partial_tile(policy):
    # 300 days (the second tile mostly idle), 3 regions, zero stretches (growth 0)
    rng = np.random.default_rng(6)
    days = 300
    host = tp._p129_ma_args(3 * days, rng, ndays=days)
    host[0][100:140] = 0
    out = run_grid("incidence_ma7", (2, 3), 256, host, policy=policy)
    m, gr = tp._p129_ma_ref(host[0], days)
    np.testing.assert_array_equal(out[1], m)
    np.testing.assert_array_equal(out[2], gr)
    assert (gr[113:147] == 0).all() and out[1][0] == host[0][0]


# ---- renewal-rt-cori ----

def test_renewal_rt():
    n = 2 * 512
    host, (inc, mean, cv, *_), *_ = launch("probe/renewal-rt-cori", n)
    rm, rc = tp._p129_rt_ref(host[0], 512)
    np.testing.assert_allclose(mean, rm, rtol=2e-5)
    np.testing.assert_allclose(cv, rc, rtol=2e-6)
    assert (mean[:7] == -1).all() and (mean[512:519] == -1).all() and (mean[7:512] > 0).all()
    assert 0.3 < np.median(mean[mean > 0]) < 3


def test_renewal_rt_partial_block():
    # 3 regions of 100 days (2 blocks, the last partial), one region all zeros (R_t = a b)
    rng = np.random.default_rng(7)
    host = tp._p129_rt_args(300, rng, ndays=100)
    host[0][100:200] = 0
    syms = tp._p129_rt_syms(300, rng)
    out = run("probe/renewal-rt-cori", host, 300, symbols=syms)
    rm, rc = tp._p129_rt_ref(host[0], 100)
    np.testing.assert_allclose(out[1], rm, rtol=2e-5)
    np.testing.assert_allclose(out[2], rc, rtol=2e-6)
    assert np.allclose(out[1][107:200], 5.0) and np.allclose(out[2][107:200], 1.0)


# ---- contact-matrix-survey-smem ----

def test_contact_matrix():
    n = 5000                                                # 20 blocks, a trip each
    host, (part, cont, w, M, _), *_ = launch("probe/contact-matrix-survey-smem", n)
    ref = tp._p129_cm_ref(*host[:3])
    assert (M == ref).all()                                 # weights in 1/64ths: sums exact
    assert np.trace(ref.reshape(16, 16)) > 0.2 * ref.sum()


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_contact_matrix_grid_stride(policy):
    # 4 blocks over 5000 contacts: ~5 trips a thread, the last partial
    rng = np.random.default_rng(9)
    n = 5000
    host = tp._p129_cm_args(n, rng)
    host[0][:10] = 255                                      # ages past the last band
    out = run_grid("contact_matrix", 4, 256, host, policy=policy)
    assert (out[3] == tp._p129_cm_ref(*host[:3])).all()
