"""probe-unseen208's kernels (kernels_cuda/probes210.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/acc-fodo-rf-track-const", "probe/acc-spacecharge-cic-deposit-atomic",
       "probe/acc-emittance-moments-halo-f64", "probe/acc-wakefield-conv-smem",
       "probe/acc-tune-dft-int16-shfl", "probe/acc-dynamic-aperture-henon-f64"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen208"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes210.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _emittance(q, pq):
    q, pq = np.asarray(q, np.float64), np.asarray(pq, np.float64)
    c = np.cov(q, pq)
    return np.sqrt(np.linalg.det(c)), c


def test_data():
    rng = np.random.default_rng(0)
    # the ring: 8 FODO cells and a cavity, stable, tunes off the resonances, Qs ~ 0.02
    lat = tp._p210_ft_lattice()
    assert len(lat) == 65 and lat[-1]["type"] == tp.P210_EL_RF and lat["length"].sum() == pytest.approx(80)
    (bx, ax, qx), (by, ay, qy), qs, zr = tp._p210_ft_optics()
    assert 0.8 < qx < 0.88 and 0.75 < qy < 0.83 and abs(qx - qy) > 0.03
    assert 15 < bx < 18 and 3 < by < 4.5 and 0.015 < qs < 0.025 and 250 < zr < 320
    p = tp._p210_ft_beam(1 << 16, rng)
    ex, cx = _emittance(p["x"], p["px"])
    assert ex == pytest.approx(tp.P210_FT_EPS * (1 + tp.P210_FT_HALO * (tp.P210_FT_HALO_SCALE ** 2 - 1)), rel=0.05)
    assert cx[0, 0] / ex == pytest.approx(bx, rel=0.05) and -cx[0, 1] / ex == pytest.approx(ax, rel=0.1)  # matched
    r2 = p["x"].astype(float) ** 2 + p["y"].astype(float) ** 2
    assert 0.001 < (r2 > tp.P210_FT_AP ** 2).mean() < 0.02                  # some of the halo outside at once
    assert np.std(p["dp"]) == pytest.approx(1e-3, rel=0.03) and np.std(p["z"]) == pytest.approx(1e-3 * zr, rel=0.03)
    # the deposition's beam: a flat core, a halo, 0.1 .. 1% off the grid
    x, y = tp._p210_cd_beam(1 << 18, rng)
    assert x.dtype == np.float32 and 1.01 < np.median(np.abs(x - 3e-4)) / (0.6745 * 2e-3) < 1.08   # the halo's 5%
    assert 1.01 < np.median(np.abs(y + 1e-4)) / (0.6745 * 1e-3) < 1.08
    hi = tp.P210_CD_XMIN + (tp.P210_CD_NX - 1) * tp.P210_CD_DX
    off = (x < tp.P210_CD_XMIN) | (x >= hi) | (y < tp.P210_CD_XMIN) | (y >= hi)
    assert 0.001 < off.mean() < 0.01
    # the moments' beam: mismatched core, Pareto halo
    p = tp._p210_bm_beam(1 << 18, rng)
    tx, ty = tp._p210_bm_twiss()
    mom, hist, marg = tp._p210_bm_ref(p, tx, ty)
    ex, ey = tp._p210_bm_emittance(mom, len(p))
    assert 1.15 * 2e-6 < ex < 1.5 * 2e-6 and 1.15 * 1e-6 < ey < 1.5 * 1e-6   # 1.1 x and the halo
    assert hist.sum() == len(p) and hist[:8].sum() == 0 and hist[-1] == 0
    assert 0.02 < hist[tp.P210_BM_HOFF + 4:].sum() / len(p) < 0.04            # amplitudes past 16 emittances
    assert 5e-4 < hist[tp.P210_BM_HOFF + 6:].sum() / len(p) < 3e-3            # past 64: the halo alone
    assert np.argmax(hist) in (tp.P210_BM_HOFF + 1, tp.P210_BM_HOFF + 2) and marg.mean() < 1e-3
    core = np.abs(p["x"]) < 0.02
    e_core, c_core = _emittance(p["x"][core], p["px"][core])
    assert c_core[0, 0] / e_core == pytest.approx(1.3 * 12, rel=0.1)        # the beta mismatch
    # the wake: the beam-loading theorem's half at 0, the broadband part gone after ~1 ns
    w = tp._p210_wk_wake()
    assert w[0] == pytest.approx(0.5 * w[1] / np.exp(-np.pi * 1e9 * 40e-12) / 0.852, rel=0.05)
    assert np.abs(w[100:]).max() < 1.1 and np.abs(w[100:]).max() > 0.9      # the HOM rings on
    L = tp._p210_wk_profiles(64, rng)
    assert L.shape == (64, tp.P210_WK_BINS) and np.allclose(L.sum(axis=1), tp.P210_WK_Q, rtol=0.02)
    assert 0.4 < (L == 0).mean() < 0.65                                       # sparse outside the bunch
    cen = (L * np.arange(tp.P210_WK_BINS)).sum(axis=1) / L.sum(axis=1)
    assert 35 < np.ptp(cen) < 55                                              # the 25-bin dipole oscillation
    # the BPM signals: int16, the tune footprint around 0.31, a few saturated, 1% dead
    s, nux = tp._p210_tn_signals(2048, rng)
    assert s.dtype == np.int16 and s.shape == (2048, tp.P210_TN_TURNS)
    dead = (s == 0).all(axis=1)
    assert 5 <= dead.sum() <= 40 and ((s == 32767) | (s == -32768)).any(axis=1).mean() < 0.01
    assert 0.27 < nux.min() and nux.max() < 0.35 and 0.005 < nux.std() < 0.009
    amp = np.abs(s[~dead].astype(float) - s[~dead].mean(axis=1, keepdims=True)).max(axis=1)
    assert 3000 < np.median(amp) < 10000
    # the DA scan: rotations, half the amplitudes survive 64 turns
    arcs = tp._p210_da_arcs()
    assert np.allclose(arcs[:, 0] ** 2 + arcs[:, 1] ** 2, 1) and np.allclose(arcs[:, 2] ** 2 + arcs[:, 3] ** 2, 1)
    assert sum(tp.P210_DA_MUX) == pytest.approx(2.28) and sum(tp.P210_DA_MUY) == pytest.approx(2.31)
    surv, plane = tp._p210_da_ref(64, tp.P210_DA_TURNS)
    assert 0.4 < (surv == tp.P210_DA_TURNS).mean() < 0.6 and ((surv == tp.P210_DA_TURNS) == (plane == 0)).all()
    S = surv.reshape(64, tp.P210_DA_NANG)
    assert (S[:20] == tp.P210_DA_TURNS).all() and (S[-8:] < tp.P210_DA_TURNS).mean() > 0.9   # the core survives


# ---- acc-fodo-rf-track-const ----

def test_fodo_track():
    rng = np.random.default_rng(1)
    n, T = 200, 3                                                # a partial block
    h = tp._p210_ft_args(n, rng, turns=T)
    p = h[0]
    p[0] = (0, 0, 0, 0, 0, 0)                                    # the reference particle
    p[1] = (0.031, 0, 0, 0, 0, 0)                                # outside the pipe: lost at the first element
    p[2] = (0, 0, 0, 0, 0.5, 0)                                  # longitudinal only
    # a line of y amplitudes toward the pipe: the larger ones hit it where beta_y peaks, at the D quadrupoles
    p[3:13] = 0
    p["y"][3:13] = np.linspace(0.01, 0.028, 10)
    p["py"][3:13] = -0.6 * p["y"][3:13] / 3.56
    lat = tp._p210_ft_lattice()
    out = run("probe/acc-fodo-rf-track-const", h, n, symbols=tp._p210_ft_syms(n, rng))
    c, lost = tp._p210_ft_ref(p, lat, T, h[5])
    # the loss decisions float32 rounding could flip: the ones that move when the start moves by 1e-6
    marg = np.zeros(n, bool)
    for sc in (1 - 1e-6, 1 + 1e-6):
        marg |= tp._p210_ft_ref(p, lat, T, h[5], scale=sc)[1] != lost
    got, gl = out[0], out[1].astype(np.int64)
    assert marg.sum() <= 2 and (gl[~marg] == lost[~marg]).all()
    assert gl[1] == 0 and got[1]["x"] == np.float32(0.031)
    assert got[1]["px"] == -(np.float32(0.031) * np.float32(tp.P210_FT_KF))        # where it hit: after QF's kick
    assert (lost[3:13] < T).any() and (lost[3:13] == T).any() and (lost < T).sum() >= 3
    ok = (gl == lost) & ~marg
    for k in tp.P210_PART_DTYPE.names:
        assert np.abs(got[k][ok] - c[k][ok]).max() <= 2e-6 * np.abs(c[k]).max(), k
    assert got[0]["x"] == 0 and got[0]["px"] == 0 and got[0]["dp"] == 0
    assert got[2]["x"] == 0 and got[2]["z"] != 0.5 and got[2]["dp"] < 0       # the cavity pulls it back
    # the slip: z moves with dp (z' = L dp / gamma^2 a drift) less the drifts' path lengthening
    assert np.corrcoef(got["z"][ok] - p["z"][ok], p["dp"][ok])[0, 1] > 0.5


# ---- acc-spacecharge-cic-deposit-atomic ----

@pytest.mark.parametrize("policy,grid", [("lockstep", None), ("random", (1, 1))])
def test_cic_deposit(policy, grid):
    rng = np.random.default_rng(2)
    n = 3000
    h = tp._p210_cd_args(n, rng)
    x, y = h[0], h[1]
    dx, x0 = np.float32(tp.P210_CD_DX), np.float32(tp.P210_CD_XMIN)
    x[:400], y[:400] = np.float32(1e-3), np.float32(-2e-4)      # a clump: 400 particles on the same 4 nodes
    x[400], y[400] = x0, x0                                      # exactly on the first node
    x[401], y[401] = x0 - np.float32(1e-6), np.float32(0)        # just off the grid's low edge
    x[402], y[402] = np.float32(0), x0 + np.float32(255.5) * dx  # in the last row of nodes: no cell above it
    x[403], y[403] = np.float32(0), x0 + np.float32(254.5) * dx  # the last cell's middle
    out = run("probe/acc-spacecharge-cic-deposit-atomic", h, n, policy=policy, grid=grid)
    ref = tp._p210_cd_ref(x, y, h[3], h[4], h[5], h[6], h[7], h[8])
    got = out[9].reshape(tp.P210_CD_NX, tp.P210_CD_NX).astype(np.float64)
    q = float(h[3])
    assert np.abs(got - ref).max() <= 1e-5 * ref.max() and ref.max() > 400 * q * 0.5
    hi = tp.P210_CD_XMIN + 255 * tp.P210_CD_DX
    off = (x < tp.P210_CD_XMIN) | (y < tp.P210_CD_XMIN) | (x >= hi) | (y >= hi)
    assert off[401] and off[402] and not off[403] and 2 < off.sum() < 30
    assert got.sum() == pytest.approx(q * (n - off.sum()), rel=1e-5) and ref.sum() == pytest.approx(got.sum(), rel=1e-6)
    assert got[0, 0] == np.float32(q) and got[0, 1] == 0 and got[1, 0] == 0
    ix = int(np.floor((np.float32(0) - x0) * np.float32(1 / tp.P210_CD_DX)))
    assert got[254:, ix:ix + 2].sum() == pytest.approx(q, rel=1e-5) and (got[254:, :ix].sum() + got[254:, ix + 2:].sum()) == 0


def test_cic_deposit_empty():
    h = tp._p210_cd_args(0, np.random.default_rng(3))
    out = run("probe/acc-spacecharge-cic-deposit-atomic", h, 0, grid=(2, 1))
    assert (out[9] == 0).all()


# ---- acc-emittance-moments-halo-f64 ----

def test_beam_moments():
    rng = np.random.default_rng(4)
    n = 5000
    h = tp._p210_bm_args(n, rng)
    out = run("probe/acc-emittance-moments-halo-f64", h, n)
    mom, hist, marg = tp._p210_bm_ref(h[0], h[2], h[3])
    c = {k: h[0][k].astype(np.float64) for k in ("x", "px", "y", "py")}
    scale = np.array([np.abs(a).sum() for a in (c["x"], c["px"], c["x"] ** 2, c["x"] * c["px"], c["px"] ** 2,
                                                c["y"], c["py"], c["y"] ** 2, c["y"] * c["py"], c["py"] ** 2)])
    assert (np.abs(out[4] - mom) <= 1e-13 * scale).all() and (scale > 0).all()
    assert np.abs(out[5].astype(np.int64) - hist).sum() <= 2 * marg.sum() and out[5].sum() == n
    ex, ey = tp._p210_bm_emittance(out[4], n)
    e2 = tp._p210_bm_emittance(mom, n)
    assert ex == pytest.approx(e2[0], rel=1e-9) and ey == pytest.approx(e2[1], rel=1e-9)
    # one block striding over them all: the same sums
    out1 = run("probe/acc-emittance-moments-halo-f64", h, n, grid=(1, 1))
    assert np.allclose(out1[4], out[4], rtol=1e-13, atol=1e-18) and (out1[5] == out[5]).all()


def test_beam_moments_octaves():
    # unit Twiss: the amplitude is x^2 + px^2 + y^2 + py^2 exactly
    t = np.zeros((), tp.P210_TW_DTYPE)
    t["beta"], t["alpha"], t["inv_eps"] = 1, 0, 1
    vals = [(0, 0, 0, 0), (1, 0, 0, 0), (1, 0, 1, 0), (0.75, 0, 0, 0), (0, 0, 0, 2 ** -0.5 * 0.999),
            (2 ** -10, 0, 0, 0), (2 ** -7, 0, 0, 0), (2 ** 10, 0, 0, 0), (2 ** 7, 0, 0, 0), (1e-23, 0, 0, 0),
            (0, 3, 0, 0), (0, 0, 0, 3)]
    bins = [0, 16, 17, 15, 14, 0, 2, 31, 30, 0, 19, 19]
    p = np.zeros(len(vals) + 300, tp.P210_PART_DTYPE)
    for k, (a, b, c, d) in enumerate(vals):
        p[k]["x"], p[k]["px"], p[k]["y"], p[k]["py"] = a, b, c, d
    p["x"][len(vals):] = 1.5                                     # 300 in one bin: a contended shared atomic
    n = len(p)
    h = [p, np.int32(n), t, t, np.zeros(10), np.zeros(32, np.uint32)]
    out = run("probe/acc-emittance-moments-halo-f64", h, n, grid=(1, 1))
    want = np.bincount(bins + [17] * 300, minlength=32)
    assert (out[5] == want).all()
    x = p["x"].astype(np.float64)
    assert out[4][0] == pytest.approx(x.sum(), rel=1e-15) and out[4][2] == pytest.approx((x * x).sum(), rel=1e-15)
    assert out[4][4] == 9 and out[4][3] == 0 and out[4][8] == 0 and out[4][9] == pytest.approx(9 + 0.5 * 0.999 ** 2)


# ---- acc-wakefield-conv-smem ----

def test_wake_potential():
    rng = np.random.default_rng(5)
    nb, m = 600, 4                                               # 3 tiles, the last one partial
    w = tp._p210_wk_wake(nb)
    lam = np.zeros((m, nb), np.float32)
    lam[0, 5] = 1.0                                              # a unit charge: the wake itself
    t = np.arange(nb)
    lam[1] = rng.poisson(2000 * np.exp(-0.5 * ((t - 300) / 40) ** 2) / (40 * 2.5066)) * np.float32(0.08)
    lam[3] = rng.lognormal(0, 1, nb) * (rng.random(nb) < 0.2)    # sparse spikes everywhere
    h = [lam.ravel(), w, np.zeros(m * nb, np.float32), np.int32(nb)]
    out = run("probe/acc-wakefield-conv-smem", h, m, grid=(3, m))
    v, s = tp._p210_wk_ref(lam, w, nb)
    got = out[2].reshape(m, nb)
    assert (np.abs(got - v) <= 1e-5 * s + 1e-30).all() and np.abs(v[1]).max() > 10
    assert (got[0, :5] == 0).all() and (got[0, 5:] == -w[:nb - 5]).all()
    assert (got[2] == 0).all()
    assert got[1, 0] == 0 and got[3, 0] == -lam[3, 0] * w[0]
    # the first tile's block alone
    h[2][:] = 0
    out = run("probe/acc-wakefield-conv-smem", h, m, grid=(1, m))
    got = out[2].reshape(m, nb)
    assert (np.abs(got[:, :256] - v[:, :256]) <= 1e-5 * s[:, :256] + 1e-30).all() and (got[:, 256:] == 0).all()


# ---- acc-tune-dft-int16-shfl ----

def test_tune_dft():
    rng = np.random.default_rng(6)
    m = 12
    sig, nux = tp._p210_tn_signals(m, rng)
    T = tp.P210_TN_TURNS
    t = np.arange(T)
    sig[6] = 0                                                   # a dead channel
    sig[7] = 1234                                                # a constant: nothing once the mean is off
    sig[8] = np.rint(3000 * np.cos(2 * np.pi * 160 / 1024 * t + 0.4))     # a tune exactly on bin 160
    sig[9] = np.where(t % 2 == 0, 800, -800)                     # the half-integer: the last bin, no interpolation
    sig[10] = np.clip(np.rint(60000 * np.cos(2 * np.pi * 0.2771 * t) - 3000), -32768, 32767)   # saturated
    sig[11] = np.rint(5 * rng.standard_normal(T))                # noise alone
    h = [sig.ravel(), np.zeros(m, np.float32), np.zeros(m, np.float32), np.zeros(tp.P210_TN_HIST, np.int32),
         np.int32(m)]
    out = run("probe/acc-tune-dft-int16-shfl", h, m)
    tune, amp, p, marg = tp._p210_tn_ref(h[0], m)
    ok = ~marg
    ok[[6, 7]] = False                                           # all-zero spectra: every bin ties
    assert np.abs(out[1][ok] - tune[ok]).max() < 2e-6 and np.allclose(out[2][ok], amp[ok], rtol=1e-4)
    err = np.abs(out[1][:6] - nux[:6])
    assert np.median(err) < 1e-3 and err.max() < 0.02               # the generator's tunes (or a sideband, 0.008 off)
    assert list(out[1][6:8]) == [0, 0] and list(out[2][6:8]) == [0, 0]      # ties: the lowest bin
    assert out[1][8] == pytest.approx(160 / 1024, abs=2e-6) and out[1][9] == np.float32(511 / 1024)
    assert out[1][10] == pytest.approx(0.2771, abs=2e-4)
    hist = np.bincount(np.clip((out[1] * 2 * tp.P210_TN_HIST).astype(np.int64), 0, tp.P210_TN_HIST - 1),
                       minlength=tp.P210_TN_HIST)
    assert (out[3] == hist).all() and out[3][0] == 2 and out[3].sum() == m


# ---- acc-dynamic-aperture-henon-f64 ----

def test_da_scan():
    rng = np.random.default_rng(7)
    nr, T = 3, 32
    h = tp._p210_da_args(nr, rng, turns=T)                       # nr = 3: a partial block
    out = run("probe/acc-dynamic-aperture-henon-f64", h, nr, symbols=tp._p210_da_syms(0, rng))
    surv, plane = tp._p210_da_ref(nr, T)
    # chaotic orbits near the aperture's edge: the ones whose fate moves with the last bits
    chaos = np.zeros(len(surv), bool)
    for sc in (1 - 1e-12, 1 + 1e-12):
        chaos |= tp._p210_da_ref(nr, T, scale=sc)[0] != surv
    assert chaos.mean() < 0.05
    assert (out[0][~chaos] == surv[~chaos]).all() and (out[1][~chaos] == plane[~chaos]).all()
    assert (surv == T).any() and (surv < 5).any() and set(np.unique(plane)) == {0, 1, 2}


def test_da_scan_small_amplitudes():
    rng = np.random.default_rng(8)
    h = tp._p210_da_args(2, rng, turns=30)
    h[4] = np.float64(0.3)                                       # deep inside the aperture: all survive
    out = run("probe/acc-dynamic-aperture-henon-f64", h, 2, symbols=tp._p210_da_syms(0, rng))
    assert (out[0] == 30).all() and (out[1] == 0).all()
    h = tp._p210_da_args(2, rng, turns=30)
    h[5] = np.float64(1e-4)                                      # a tiny pipe: all lost on the first turn
    out = run("probe/acc-dynamic-aperture-henon-f64", h, 2, symbols=tp._p210_da_syms(0, rng))
    surv, plane = tp._p210_da_ref(2, 30, r2lost=1e-4)
    assert (out[0] == 0).all() and (out[1] == plane).all() and (plane > 0).all()
