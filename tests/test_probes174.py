"""probe-unseen172's kernels (kernels_cuda/probes174.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/jl-rates-nasa-blockred", "probe/h2o2-implicit-newton", "probe/flamelet-bsearch-bilinear",
       "probe/zcond-hrr-smem-atomic", "probe/species-upwind-tile", "probe/ignition-delay-mc"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen172"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes174.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    Z, C = tp._p174_flame(1 << 20, rng)
    assert Z.dtype == C.dtype == np.float32 and 0 <= Z.min() and Z.max() <= 1 and 0 <= C.min() and C.max() <= 1
    assert abs((Z == 0).mean() - 0.40) < 0.05 and abs(((Z > 0) & (Z < tp.P174_ZST)).mean() - 0.27) < 0.05
    assert abs((Z > tp.P174_ZST).mean() - 0.33) < 0.05 and 0.005 < (Z == 1).mean() < 0.05
    assert abs((C == 0).mean() - 0.34) < 0.05 and abs((C == 1).mean() - 0.35) < 0.05
    assert np.corrcoef(Z[:-1], Z[1:])[0, 1] > 0.99 and np.corrcoef(C[:-1], C[1:])[0, 1] > 0.98     # smooth
    T, Y, wdot, hrr, tot, p, n = tp._p174_jl_args(1 << 16, rng)
    Y = Y.reshape(7, n)
    assert T.dtype == Y.dtype == np.float32 and len(wdot) == 7 * n and p == tp.P174_JL_P and n == 1 << 16
    assert np.abs(Y.sum(axis=0) - 1).max() < 1e-6 and Y.min() >= 0 and 270 < T.min() and T.max() < 2260
    assert 0.7 < (T < 1000).mean() < 0.85 and 0.1 < ((Y[2] > 0) & (Y[0] > 0)).mean() < 0.3     # CO in the fronts
    assert abs(np.median(Y[6][Y[0] == 0]) - 0.767) < 0.05                   # N2 of the coflow air
    conc, T, cN2, its, dt, nsub, n = tp._p174_ho_args(1 << 16, rng)
    c = conc.reshape(7, n)
    x = c / (c.sum(axis=0) + cN2)
    assert T.min() == 300 and abs((T == 300).mean() - 0.14) < 0.04 and 2200 < T.max() < 2350
    assert abs(np.median(cN2 / (c.sum(axis=0) + cN2)) - 0.65) < 0.05 and (dt, nsub) == (5e-7, 4)
    assert (x[3:6][:, T == 300] == 0).all() and 0.005 < np.percentile(x[3], 99) < 0.02       # radicals when hot
    assert np.allclose((c.sum(axis=0) + cN2) * 82.057 * T, 1)                # 1 atm
    zg, tab = tp._p174_fl_table()
    assert zg[0] == 0 and zg[-1] == 1 and (np.diff(zg) > 0).all() and (zg < 2 * tp.P174_ZST).sum() > 80
    assert abs(tab["T"].max() - tp.P174_TAD) < 5 and (tab["T"][:, 0] == tp.P174_TU).all()
    assert (tab["src"][:, [0, -1]] == 0).all() and 3000 < tab["src"].max() < 5000
    Z, hrr, T, cnt, sh, sT, n = tp._p174_zb_args(1 << 20, rng)
    assert 0.7 < (hrr == 0).mean() < 0.8 and hrr.min() >= 0 and 3000 < hrr.max() < 1e4 and len(cnt) == 128
    assert 0.5 < (Z < 1 / 128).mean() < 0.6                                  # bin 0: the coflow, its edge
    Y, u, v, Y2, nx, ny, dtdx, ddx2 = tp._p174_ad_args(512, rng)
    assert nx == ny == 512 and len(Y) == 512 * 512 and 0 <= Y.min() and Y.max() <= 1 and 0.5 < (Y > 0.01).mean() < 0.7
    assert u.min() >= 4 and u.max() <= 56 and abs(v).max() < 3 and dtdx * u.max() < 0.5 and ddx2 < 0.01     # stable
    cs, tau, steps, t_end, dt_max, max_steps, n = tp._p174_ig_args(1 << 16, rng)
    assert cs.dtype == tp.P174_IG_DTYPE and 650 <= cs["T0"].min() and cs["T0"].max() <= 1250
    assert abs(np.median(cs["p"]) - np.sqrt(300)) < 0.5 and abs(np.log(cs["fA"]).std() - 0.35) < 0.01
    assert (t_end, dt_max, max_steps) == (np.float32(0.02), np.float32(2e-5), 4000)
    tau, steps = tp._p174_ig_ref(cs[:4096])
    w = steps.reshape(-1, 32).max(axis=1)
    assert 0.05 < (tau < 0).mean() < 0.15 and np.median(steps) == 400 and 900 < w.mean() < 1200   # divergent


# ---- jl-rates-nasa-blockred ----

def _kp_wgs(T):
    """The water-gas shift's equilibrium constant at T from the NASA polynomials (float64)."""
    a = np.array([tp.P174_NASA[s][int(T >= 1000)] for s in ("CO", "H2O", "CO2", "H2")])
    g = (a[:, 0] * (1 - np.log(T)) - a[:, 1] * T / 2 - a[:, 2] * T ** 2 / 6 - a[:, 3] * T ** 3 / 12
         - a[:, 4] * T ** 4 / 20 + a[:, 5] / T - a[:, 6])
    return np.exp(-(g[2] + g[3] - g[0] - g[1]))


@pytest.mark.parametrize("n, policy", [(600, "lockstep"), (200, "random")])
def test_jl_rates(n, policy):
    rng = np.random.default_rng(2)                          # a window with flame fronts in it
    h = tp._p174_jl_args(n, rng)
    Y = h[1].reshape(7, n)
    Y[:, 0] = [0, 0.233, 0, 0, 0, 0, 0.767]                  # coflow air at 300 K: nothing happens
    h[0][0] = 300
    # CO, H2O, CO2, H2 at the shift's equilibrium at 1500 K: no net rate
    x = np.array([0, 0, 0.05, 0.05 * 0.15 * _kp_wgs(1500.0) / 0.05, 0.15, 0.05, 0])
    x[6] = 1 - x.sum()
    Y[:, 1] = x * tp.P174_JL_W / (x * tp.P174_JL_W).sum()
    h[0][1] = 1500
    h[0][2:4] = [1000.0, np.nextafter(np.float32(1000), np.float32(0))]   # the polynomials' switch
    h[1] = Y.ravel()
    syms = tp._p174_jl_syms(n, rng)
    out = run("probe/jl-rates-nasa-blockred", h, n, policy=policy, symbols=syms)
    w, hrr, scale, hscale = tp._p174_jl_ref(h[0], h[1])
    wk = out[2].reshape(7, n)
    # float32 against float64: rates are products of ~6 rounded factors (powf, expf: 2 ulp)
    # with exp(-Ta / T)'s argument up to ~60 magnifying its rounding (~4e-6), the
    # equilibrium constant from g / RT sums of terms up to ~200 (~3e-5 at 300 K, where the
    # reverse rate is negligible anyway): 2e-5 of the summed magnitudes; rates under 1e-33
    # underflow in float32
    assert (np.abs(wk - w) <= 2e-5 * scale + 1e-33).all()
    assert (np.abs(out[3] - hrr) <= 2e-5 * hscale + 1e-30).all()
    assert (wk[:, 0] == 0).all() and out[3][0] == 0 and (wk[6] == 0).all()
    assert (np.abs(wk[:, 1]) <= 1e-4 * scale[:, 1]).all() and scale[2, 1] > 1e-6     # CO's rates cancel
    assert (hrr > 10).sum() > n // 50 and w[0].min() < 0                          # some cells burning
    # the block sums' tree (8 levels) and the blocks' atomicAdds in any order
    nb = -(-n // tp.P174_JL_BLOCK)
    a = np.abs(out[3].astype(np.float64))
    assert abs(out[4][0] - out[3].astype(np.float64).sum()) <= (8 + nb) * 2 ** -24 * a.sum()


# ---- h2o2-implicit-newton ----

def test_h2o2_implicit():
    n, dt = 32, tp.P174_HO_DT                              # a warp, one implicit Euler step
    rng = np.random.default_rng(1)
    h = tp._p174_ho_args(4096, rng, nsub=1)
    idx = np.arange(0, 4096, 128)                           # cells across the flame: cold, fronts, burnt
    h[1], h[2], h[3], h[6] = h[1][idx].copy(), h[2][idx].copy(), h[3][idx], np.int32(n)
    c0 = h[0].reshape(7, -1)[:, idx].copy()
    c0[3:, 5] = 0                                          # no radicals: no initiation step, nothing happens
    h[1][5] = 2000.0
    h[0] = c0.ravel()
    out = run("probe/h2o2-implicit-newton", h, n, symbols=tp._p174_ho_syms(n, rng))
    c1 = out[0].reshape(7, n)
    ref, its = tp._p174_ho_ref(h[0], h[1], h[2], nsub=1)
    # both Newton iterations converge quadratically to the same root; the kernel stops with
    # updates under 1e-8 of the concentrations, its last one ~1e-16 relative
    assert (np.abs(c1 - ref) <= 1e-12 * np.abs(ref) + 1e-24).all()
    assert (out[3] == its).all() and its.max() >= 4 and (its == 1).sum() >= 3 and (h[1] == 300).sum() >= 2
    assert (c1[:, 5] == c0[:, 5]).all()
    # independent of either Newton: c1 solves the implicit Euler step, c1 = c0 + dt f(c1)
    kp = tp._p174_ho_syms(n, rng)
    kf, kr = (k[:, 0, None] * h[1] ** k[:, 1, None] * np.exp(-k[:, 2, None] / h[1]) for k in (kp["c_hkf"], kp["c_hkr"]))
    f = tp._p174_ho_rhs(c1, kf, kr, h[2] + c0.sum(axis=0))
    assert (np.abs(c1 - c0 - dt * f) <= 1e-8 * np.abs(c1) + 1e-20).all()
    assert (np.abs(c1 - c0) > 1e-3 * np.abs(c0)).any()                          # hot cells react
    H = np.array([[2, 0, 2, 1, 0, 1, 1], [0, 2, 1, 0, 1, 1, 2]])                 # H and O atoms conserved
    assert np.allclose(H @ c1, H @ c0, rtol=1e-10, atol=0)


# ---- flamelet-bsearch-bilinear ----

@pytest.mark.parametrize("n, policy", [(600, "lockstep"), (200, "random")])
def test_flamelet_lookup(n, policy):
    rng = np.random.default_rng(2)
    h = tp._p174_fl_args(n, rng)
    zg = h[2]
    # on the table's bounds and nodes: Z = 0, 1, zgrid[1], zgrid[100]; C = 0, 1, 0.5
    h[0][:6] = [0, 1, zg[1], zg[100], 1, 0]
    h[1][:6] = [0, 1, 0.5, 1, 0, 0.37]
    out = run("probe/flamelet-bsearch-bilinear", h, n, policy=policy)
    ref = tp._p174_fl_ref(h[0], h[1], zg, h[3])
    # 4 float32 weights and 4 products a field: ~8 roundings of terms up to the field's largest
    for k, r in enumerate(ref):
        assert (np.abs(out[6 + k] - r) <= 1e-6 * np.abs(r).max()).all()
    tab = h[3].reshape(tp.P174_FL_NZ, tp.P174_FL_NC)
    assert out[6][0] == tab["T"][0, 0] and out[6][1] == tab["T"][-1, -1] and out[6][3] == tab["T"][100, -1]
    assert out[6][4] == tab["T"][-1, 0] and out[9][0] == 0
    assert abs(out[6][2] - tab["T"][1, 50]) < 1e-3 and (out[8] > 100).mean() > 0.05


# ---- zcond-hrr-smem-atomic ----

@pytest.mark.parametrize("n, policy", [(3000, "lockstep"), (1000, "random")])
def test_zcond_bins(n, policy):
    rng = np.random.default_rng(0)
    h = tp._p174_zb_args(n, rng)
    out = run("probe/zcond-hrr-smem-atomic", h, n, policy=policy)
    cnt, sh, sT = tp._p174_zb_ref(*h[:3])
    # sums of non-negative float32 terms in any order: within (count - 1) 2^-24 of the sum
    assert (out[3] == cnt).all() and cnt[0] > n / 3
    assert (np.abs(out[4] - sh) <= cnt * 2 ** -24 * sh).all() and (np.abs(out[5] - sT) <= cnt * 2 ** -24 * sT).all()
    # integer-valued data (sums under 2^24 exact in float32), Z on the bins' edges and at 1
    h[1] = rng.integers(0, 50, n).astype(np.float32)
    h[2] = rng.integers(290, 2300, n).astype(np.float32)
    h[0][:5] = [0, 1 / 128, 127 / 128, 1, np.nextafter(np.float32(1 / 128), np.float32(0))]
    out = run("probe/zcond-hrr-smem-atomic", h, n, policy=policy)
    cnt, sh, sT = tp._p174_zb_ref(*h[:3])
    assert (out[3] == cnt).all() and (out[4] == sh).all() and (out[5] == sT).all() and cnt.sum() == n
    assert list(np.minimum((h[0][:5] * 128).astype(int), 127)) == [0, 1, 127, 127, 0]


# ---- species-upwind-tile ----

@pytest.mark.parametrize("n, policy", [(44, "lockstep"), (20, "random")])
def test_advect_diffuse(n, policy):
    # 44: 2 x 6 tiles of 32 x 8, 20: 1 x 3, both partial in x and y
    host, out, *_ = launch("probe/species-upwind-tile", n, policy=policy)
    ref = tp._p174_ad_ref(*host[:3], n, n, host[6], host[7]).ravel()
    # float32 against float64: ~12 roundings of terms no larger than 1 (Y) and 0.4 (CFL)
    assert np.abs(out[3] - ref).max() < 1e-6 and np.abs(ref - host[0]).max() > 1e-3
    # a front Y = 1 for x < n / 2 carried by u > 0 (v of both signs, no diffusion): the cell past it
    # takes dt/dx u; a uniform field stays as it is
    h = list(host)
    Y = np.zeros((n, n), np.float32)
    Y[:, :n // 2] = 1
    h[0] = Y.ravel()
    h[1] = np.full(n * n, 30, np.float32)
    h[2] = np.where(np.arange(n * n) % 3 == 0, -10, 10).astype(np.float32)
    h[7] = np.float32(0)
    r = run("probe/species-upwind-tile", h, n, policy=policy)[3].reshape(n, n)
    m = n // 2
    assert (r[:, :m] == 1).all() and (r[:, m] == np.float32(30) * h[6]).all() and (r[:, m + 1:] == 0).all()
    h[0] = np.full(n * n, 0.3, np.float32)
    h[7] = host[7]
    assert (run("probe/species-upwind-tile", h, n, policy=policy)[3] == np.float32(0.3)).all()


# ---- ignition-delay-mc ----

def test_ignition_delay():
    n = 64
    rng = np.random.default_rng(5)
    t_end, dt_max = 2e-3, 1e-5                            # at most ~600 steps for the emulator
    h = tp._p174_ig_args(n, rng, t_end=t_end, dt_max=dt_max)
    out = run("probe/ignition-delay-mc", h, n)
    tau, steps = tp._p174_ig_ref(h[0], t_end, dt_max)
    ok = tau > 0
    # float32 against float64: each step's 1 K rise rounds, so the 400 K mark may take one
    # step more or fewer (the last 1 K of the runaway takes up to 7e-4 of the delay); t summed
    # over ~600 steps in float32 (~4e-5)
    assert 0.1 < ok.mean() < 0.9 and ((out[1] > 0) == ok).all() and (out[1][~ok] == -1).all()
    assert (np.abs(out[1] - tau)[ok] <= 1e-3 * tau[ok]).all() and (np.abs(out[2] - steps) <= 1).all()
    assert steps[ok].min() >= 400 and steps.max() > 430 and (steps[~ok] >= 200).all()    # t_end / dt_max
    # the rate 4 times as fast: the same temperatures in a quarter of the time, exactly (scaling
    # by 4 commutes with every rounding), once the step is limited by the temperature rise only
    cs = np.concatenate([h[0][:16], h[0][:16]])
    cs["fA"][16:] *= 4
    h2 = [cs, np.zeros(32, np.float32), np.zeros(32, np.int32), np.float32(1e30), np.float32(1e30), np.int32(4000),
          np.int32(32)]
    out = run("probe/ignition-delay-mc", h2, 32)
    assert (out[1][16:] == out[1][:16] / 4).all() and (out[2][16:] == out[2][:16]).all() and (out[1] > 0).all()
    # the step limit
    h2[5] = np.int32(100)
    out = run("probe/ignition-delay-mc", h2, 32)
    assert (out[1] == -1).all() and (out[2] == 100).all()
