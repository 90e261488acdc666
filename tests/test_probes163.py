"""probe-unseen161's kernels (kernels_cuda/probes163.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/ssa-telegraph-records", "probe/tauleap-repressilator", "probe/rk4-mapk-feedback-double",
       "probe/mm-sse-grid-reduce", "probe/mrna-protein-hist-smem", "probe/stoich-residual-csr"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen161"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes163.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    r, g, m, p, s, rec, st, tot, t_end, nrec, cap, n = tp._p163_ssa_args(1 << 14, rng)
    assert r.dtype.itemsize == 24 and len(rec) == nrec * n and (s & 1).all() and tot.dtype == np.uint64
    assert abs(np.std(np.log(r["kp"])) - 0.3) < 0.01 and abs(np.std(np.log(r["koff"])) - 0.2) < 0.01
    assert (r["gm"] == np.float32(0.1)).all() and (r["gp"] == np.float32(0.05)).all()
    burst = r["kon"] / r["gm"] * r["km"] / r["koff"]                       # the mRNA's stationary mean
    assert abs(g.mean() - np.mean(r["kon"] / (r["kon"] + r["koff"]))) < 0.01
    assert abs(m.mean() / burst.mean() - 1) < 0.05 and m.var() / m.mean() > 15       # bursty
    assert abs(p.mean() / (burst * r["kp"] / r["gp"]).mean() - 1) < 0.05 and p.var() / p.mean() > 100
    x, seed, al, hl, pk, *prm, tau, thr, steps, n = tp._p163_tl_args(4096, rng)
    x = x.reshape(6, n)
    assert seed.dtype == np.uint64 and (seed > 0).all() and len(np.unique(seed)) == n
    assert (al.reshape(-1, 16) == al[::16, None]).all() and (hl.reshape(-1, 16) == hl[::16, None]).all()
    assert (hl[::16] == np.tile(np.float32(tp.P163_TL_HILL), n // 64)).all()         # each alpha at 4 Hills
    assert len(np.unique(al)) == n // 64 and al.min() == 1 and abs(al.max() - 60) < 1e-4
    assert abs(x[:3].mean() - 15) < 0.5 and abs(x[3:].mean() - 400) < 10
    nu = tp._p163_tl_syms(n, rng)["c_nu"].reshape(12, 6)
    assert (np.abs(nu).sum(axis=1) == 1).all() and (nu[:3, :3] == np.eye(3)).all() and (nu[6:9, 3:] == np.eye(3)).all()
    x0, V1, Ki, xT, pk, mpp, nh, dt, steps, n = tp._p163_mk_args(1 << 12, rng)
    X = x0.reshape(n, 8)
    tot = [X[:, :2].sum(axis=1), X[:, 2:5].sum(axis=1), X[:, 5:].sum(axis=1)]
    assert all(abs(t.mean() / T - 1) < 0.01 and t.min() > 0.95 * T and t.max() < 1.05 * T
               for t, T in zip(tot, (100, 300, 300)))
    assert (V1.reshape(128, -1) == V1[::32, None]).all() and np.allclose(V1[::32][[0, -1]], tp.P163_MK_V1)
    assert np.allclose(Ki[:32][[0, -1]], tp.P163_MK_KI) and np.allclose(np.diff(np.log(Ki[:32])), np.log(50) / 31)
    f = tp._p163_mk_rhs(X.T, V1, Ki, nh)                                   # the cascade keeps its totals
    assert np.abs(f[:2].sum(axis=0)).max() < 1e-12 and np.abs(f[2:5].sum(axis=0)).max() < 1e-12
    assert np.abs(f[5:].sum(axis=0)).max() < 1e-12
    S, v, w, sse, lv0, dlv, lk0, dlk, nk, m = tp._p163_mm_args(1 << 16, rng)
    assert m == 1536 and nk == 256 and (np.bincount(np.log2(500 / S).round().astype(int)) == 96).all()
    Vm, Km = tp.P163_MM_TRUE
    z = (v - Vm * S / (Km + S)) * w                                        # weighted residuals
    assert 0.005 < (np.abs(z) > 4).mean() < 0.03 and 0.5 < np.median(np.abs(z)) < 0.7 and (w > 0).all()
    assert np.allclose(np.exp([lv0, lv0 + 255 * dlv, lk0, lk0 + 255 * dlk]), [0.5, 40, 0.5, 2000], rtol=1e-5)
    # the plate pins the enzyme down: the SSE's least on a 64 x 64 grid within a step of the
    # truth without the outlying wells, within a factor 1.5 with them (least squares' bias)
    c = tp._p163_mm_args(4096, np.random.default_rng(1), nk=64)
    for k, tv, tk in ((np.abs(z) < 4, c[5], c[7]), (np.abs(z) >= 0, np.log(1.5), np.log(1.5))):
        b = np.argmin(tp._p163_mm_ref(S[k], v[k], w[k], 4096, *c[4:9])[0])
        assert abs(c[4] + b // 64 * c[5] - np.log(Vm)) < tv and abs(c[6] + b % 64 * c[7] - np.log(Km)) < tk
    m, p, hist, n = tp._p163_jh_args(1 << 20, rng)
    assert abs((m < 0).mean() - 0.01) < 0.001 and abs(((p < 0) & (m >= 0)).mean() - 0.005) < 0.0005
    assert ((m < 0) <= (p < 0)).all()
    mm, pp = m.reshape(16, -1), p.reshape(16, -1)
    ok = (mm >= 0) & (pp >= 0)
    mean_m = np.array([a[o].mean() for a, o in zip(mm, ok)])
    mean_p = np.array([a[o].mean() for a, o in zip(pp, ok)])
    assert abs(mean_m[0] - 0.3) < 0.01 and abs(mean_p[0] - 19.5) < 0.5 and (np.diff(mean_m[:8]) > 0).all()
    assert abs(mean_m[-1] - 20.3) < 0.3 and abs(mean_p[-1] - 19.5 - 800 * (1 - np.exp(-0.02 * 75))) < 10
    late = mm[-1][ok[-1]]
    assert late.var() / late.mean() > 8 and np.corrcoef(late, pp[-1][ok[-1]])[0, 1] > 0.4    # bursty, coupled
    h = tp._p163_jh_ref(m, p)
    assert h[0] > 0.04 * h.sum() and (h > 0).sum() > 3000 and h.sum() == ok.sum()  # one crowded bin, a long tail
    rowptr, rxn, coef, flux, res, ns = tp._p163_st_args(8400, rng, ns=64)
    nrxn = 13500
    ln = np.diff(rowptr)
    assert rowptr[0] == 0 and len(res) == 8400 * ns and len(flux) == nrxn * ns and rxn.max() < nrxn
    assert 45000 < len(rxn) < 55000 and np.median(ln) == 5 and ln.max() > 1000 and np.sort(ln)[-20] > 80
    assert all((np.diff(rxn[a:b]) > 0).all() for a, b in zip(rowptr[:-1], rowptr[1:]))     # no duplicates
    deg = np.bincount(rxn, minlength=nrxn)
    assert deg[-1] == 60 and deg[:-1].max() <= 10 and (deg >= 1).all() and abs(deg[:-1].mean() - 3.7) < 0.15
    frac = coef != np.round(coef)
    assert (rxn[frac] == nrxn - 1).all() and frac.sum() > 50 and abs((np.abs(coef[~frac]) == 1).mean() - 0.88) < 0.01
    F = flux.reshape(nrxn, ns)
    zero = (F == 0).all(axis=1)
    both = (F > 0).any(axis=1) & (F < 0).any(axis=1)
    assert abs(zero.mean() - 0.2) < 0.02 and abs(both.mean() - 0.8 * 0.3) < 0.02


# ---- ssa-telegraph-records ----

@pytest.mark.parametrize("n, t_end, cap, policy", [(64, 0.5, 60, "lockstep"), (40, 0.3, 1 << 20, "random")])
def test_ssa_telegraph(n, t_end, cap, policy):
    rng = np.random.default_rng(3)
    h = tp._p163_ssa_args(n, rng, t_end=t_end, nrec=5, max_steps=cap)
    # cell 0 can do nothing; cell 1 only loses its 20 proteins, fast (all of them by t = 0.5)
    h[0]["kon"][:2] = 0
    h[0]["gp"][1] = 5
    h[1][:2] = h[2][:2] = 0
    h[3][:2] = (0, 20)
    out = run("probe/ssa-telegraph-records", h, n, policy=policy)
    g, m, p, s, steps, rec, cmar, tmar = tp._p163_ssa_ref(*h[:5], t_end, 5, cap)
    # the kernel's sums may be contracted to FMAs and its logf is not numpy's: ~3e-7 relative
    # for the propensities' sums, ~1e-6 a step for the clock (t < 1); a trajectory whose
    # choices or times came within 10x that of a boundary is left out
    ok = (cmar > 3e-6) & (tmar > 1e-5)
    assert ok.mean() > 0.85 and ok[:2].all()
    for k, ref in ((1, g), (2, m), (3, p), (4, s), (6, steps)):
        assert (out[k] == ref)[ok].all()
    assert (out[5].reshape(5, n) == rec)[:, ok].all() and out[7][0] == out[6].sum()
    assert steps[0] == 0 and (rec[:, 0] == 0).all() and steps[1] == 20 - p[1] and rec[-1, 1] == p[1]
    assert (np.diff(rec[:, 1]) <= 0).all() and rec[0, 1] > 0
    if cap < 100:
        assert p[1] == 0 and (steps == cap).sum() > 2 and (steps < cap).sum() > n // 2
    assert (np.abs(np.diff(rec, axis=0)) > 0).any()


# ---- tauleap-repressilator ----

def test_tauleap_repressilator():
    n, steps = 32, 4
    rng = np.random.default_rng(4)
    h = tp._p163_tl_args(n, rng, steps=steps)
    h[2][:] = np.geomspace(*tp.P163_TL_ALPHA, n).astype(np.float32)
    h[3][:] = np.resize(np.float32(tp.P163_TL_HILL), n)
    h[10] = np.float32(1.0)                                 # long leaps: negative copy numbers to clamp
    x = h[0].reshape(6, n)
    x[:, 0] = 0                                             # an empty cell
    x[:, 1] = (40, 2, 2, 395, 10, 10)                       # protein 0 about to peak (a Poisson(80) normal)
    x[:, 2:8] = rng.integers(0, 4, (6, 6))                  # few molecules of everything
    out = run("probe/tauleap-repressilator", h, n, symbols=tp._p163_tl_syms(n, rng))
    c, s, peaks, clamps, mar = tp._p163_tl_ref(*h[:4], *h[5:13])
    ok = mar > 1                                            # no decision within the kernel's float error
    assert ok.mean() > 0.85 and ok[:2].all()
    assert (out[0].reshape(6, n) == c)[:, ok].all() and (out[1] == s)[ok].all() and (out[4] == peaks)[ok].all()
    assert peaks[1] == 1 and clamps > 0 and (c[:3, 0] > 0).any()             # the empty cell transcribes


# ---- rk4-mapk-feedback-double ----

def test_rk4_mapk():
    n, steps = 32, 12
    rng = np.random.default_rng(5)
    h = tp._p163_mk_args(n, rng, steps=steps)
    h[2][:] = rng.permutation(np.geomspace(*tp.P163_MK_KI, n))
    # start each point 6 steps before its first MAPK-PP peak (numpy's run of 600 steps)
    pre = tp._p163_mk_ref(*h[:3], steps=600, keep=True)[4]
    path = np.concatenate([h[0].reshape(1, n, 8).transpose(0, 2, 1), pre])       # states: steps + 1 x 8 x n
    pp = path[:, 7]
    top = (pp[1:-1] > pp[:-2]) & (pp[1:-1] > pp[2:]) & (pp[1:-1] > tp.P163_MK_PEAK)
    top[:5] = False
    first = np.where(top.any(axis=0), top.argmax(axis=0) + 1, 6)
    h[0] = path[first - 6, :, np.arange(n)].ravel()
    out = run("probe/rk4-mapk-feedback-double", h, n)
    x, peaks, mean_pp, mar = tp._p163_mk_ref(*h[:3], steps=steps)
    # double against double (FMA contraction, pow against numpy's): ~1e-15 a step
    assert (np.abs(out[3] - x.ravel()) <= 1e-11 * (np.abs(x.ravel()) + 1)).all()
    assert (np.abs(out[5] - mean_pp) <= 1e-11 * mean_pp).all()
    assert (mar > 1e-9).all() and (out[4] == peaks).all() and (peaks == 1).sum() > n // 2


# ---- mm-sse-grid-reduce ----

@pytest.mark.parametrize("nk, n, m, policy", [(4, 8, 600, "lockstep"), (2, 4, 1536, "random")])
def test_mm_sse_grid(nk, n, m, policy):
    rng = np.random.default_rng(6)
    h = tp._p163_mm_args(n, rng, nk=nk, m=m)
    h[4:9] = np.float32(np.log(2)), np.float32(0.5), np.float32(np.log(10)), np.float32(0.6), np.int32(nk)
    out = run("probe/mm-sse-grid-reduce", h, n, policy=policy)
    sse, err = tp._p163_mm_ref(h[0], h[1], h[2], n, *h[4:9])
    assert (np.abs(out[3] - sse) <= err).all() and (err < 1e-4 * sse).all()
    # rates exactly on the model of point b (float32 of float64): its SSE the least, ~0
    b = n - 3
    h[1] = (np.exp(float(h[4]) + b // nk * float(h[5])) * h[0] / (np.exp(float(h[6]) + b % nk * float(h[7])) + h[0]))
    h[1] = h[1].astype(np.float32)
    out = run("probe/mm-sse-grid-reduce", h, n, policy=policy)[3]
    sse, err = tp._p163_mm_ref(h[0], h[1], h[2], n, *h[4:9])
    assert (np.abs(out - sse) <= err).all() and np.argmin(out) == b and out[b] < 1e-8 * np.median(out)


# ---- mrna-protein-hist-smem ----

@pytest.mark.parametrize("n, policy", [(20000, "lockstep"), (3000, "random")])
def test_joint_hist(n, policy):
    host, out, *_ = launch("probe/mrna-protein-hist-smem", n, policy=policy)     # 20000: 2 blocks
    ref = tp._p163_jh_ref(host[0], host[1])
    assert (out[2] == ref).all() and ref.sum() == ((host[0] >= 0) & (host[1] >= 0)).sum() and ref.max() > 100
    # every cell in one bin but for the edges: the last bins open, uncounted cells skipped
    h = list(host)
    h[0] = np.zeros(n, np.int32)
    h[1] = np.zeros(n, np.int32)
    h[0][:7] = (63, 64, 1000, -1, 0, 5, 0)
    h[1][:7] = (1023, 1024, 15, 5, -1, 16, 15)
    out = run("probe/mrna-protein-hist-smem", h, n, policy=policy)[2]
    assert (out == tp._p163_jh_ref(h[0], h[1])).all() and out.sum() == n - 2
    assert out[0] == n - 6 and out[63 * 64 + 63] == 2 and out[63 * 64] == 1 and out[5 * 64 + 1] == 1


# ---- stoich-residual-csr ----

@pytest.mark.parametrize("n, ns", [(60, 40), (16, 280)])
def test_stoich_residual(n, ns):
    rng = np.random.default_rng(7)
    h = tp._p163_st_args(n, rng, ns=ns)
    rowptr, rxn, coef = h[:3]
    a, b = rowptr[7], rowptr[8]                             # metabolite 7 in no reaction
    h[1], h[2] = np.delete(rxn, np.s_[a:b]), np.delete(coef, np.s_[a:b])
    h[0] = np.concatenate([rowptr[:8], rowptr[8:] - (b - a)]).astype(np.int32)
    out = run("probe/stoich-residual-csr", h, n)
    R, B = tp._p163_st_ref(*h[:4], ns)
    # float32 sums of a row's terms in order: within length x 2^-24 of the sum of their sizes
    assert (np.abs(out[4] - R.ravel()) <= B.ravel()).all() and (out[4].reshape(n, ns)[7] == 0).all()
    assert np.diff(h[0]).max() > 10 and (R != 0).mean() > 0.8
    # integer coefficients and fluxes (sums under 2^24): exact
    h[2] = np.round(h[2]).astype(np.float32)
    h[3] = np.round(h[3] * 16).astype(np.float32)
    out = run("probe/stoich-residual-csr", h, n)
    assert (out[4] == tp._p163_st_ref(*h[:4], ns)[0].ravel()).all()
