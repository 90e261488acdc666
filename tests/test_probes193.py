"""probe-unseen191's kernels (kernels_cuda/probes193.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/llg-heun-float3-3d", "probe/dipolar-nbody-smem-rsqrt", "probe/film-energy-const-f64red",
       "probe/heisenberg-mc-checkerboard", "probe/stoner-wohlfarth-loop", "probe/skyrmion-charge-atan2-shfl"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen191"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes193.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # llg: a Landau state (in plane but at the core, flux closed) with thermal noise; the predictor's output
    h = tp._p193_llg_args(64, rng)
    nz = int(h[6])
    m = h[0].reshape(nz, 64, 64, 3)
    assert nz == 16 and h[0].dtype == np.float32 and np.abs(np.linalg.norm(m, axis=3) - 1).max() < 1e-6
    assert np.median(np.abs(m[..., 2])) < 0.05 and np.abs(m[..., 2]).max() > 0.9 and h[-1] == 1
    loop = np.concatenate([m[:, 2, 8:-8, 0], m[:, 8:-8, -3, 1], -m[:, -3, 8:-8, 0], -m[:, 8:-8, 2, 1]], axis=1)
    assert abs(np.mean(np.sign(loop))) > 0.95                                  # the edges' moments circulate
    assert 0.035 < np.std(np.diff(m[..., 2], axis=0)) < 0.05                    # layers alike but noise ~0.03
    assert np.allclose(h[2].reshape(m.shape), tp._p193_llg_rhs(m), rtol=0, atol=1e-6 * 6e11)
    assert np.abs(np.linalg.norm(h[1].reshape(m.shape), axis=3) - 1).max() < 1e-6
    assert 0.005 < np.abs(h[1] - h[0]).max() < 0.2                           # the step turns m by < 0.2 rad
    # dipolar: chains of lognormal particles, moments along the chains (near z)
    pos, mom, B, n = tp._p193_dp_args(4096, rng)
    p, mm = pos.reshape(-1, 3), mom.reshape(-1, 3)
    mag = np.linalg.norm(mm, axis=1)
    d = (mag / (tp.P193_DP_MS * np.pi / 6)) ** (1 / 3) * 1e9
    assert n == 4096 and abs(np.median(d) - 10) < 0.3 and abs(np.std(np.log(d)) - 0.25) < 0.02
    gap = np.linalg.norm(np.diff(p, axis=0), axis=1)
    assert np.mean(np.abs(gap - (d[1:] + d[:-1]) / 2 - 2) < 2) > 0.75          # neighbours in a chain ~ touch
    assert np.mean(mm[:, 2] / mag) > 0.8
    box = p[:, 0].max() - p[:, 0].min()
    assert 0.03 < (np.pi / 6 * (d ** 3).sum()) / box ** 3 < 0.07                 # volume fraction ~5%
    # energy: a recorded granular film, a region a grain, boundaries region 0
    mat = tp._p193_en_materials()
    assert mat.shape == (256, 6) and np.allclose(np.linalg.norm(mat[:, 3:], axis=1), 1) and mat[0, 1] == 0
    assert 2.7e5 < np.median(mat[1:, 1]) < 3.3e5 and np.degrees(np.arccos(mat[1:, 5].min())) < 20
    mx, my, mz, reg, E, nx, ny, inv_dx2, *b, dV = tp._p193_en_args(512, rng)
    assert reg.dtype == np.uint8 and len(reg) == 512 * 512 and 0.25 < (reg == 0).mean() < 0.4
    assert len(np.unique(reg)) == 256 and np.abs(mx * mx + my * my + mz * mz - 1).max() < 1e-6
    assert np.median(np.abs(mz)) > 0.95 and E.dtype == np.float64 and (E == 0).all()
    flips = (np.diff(np.sign(mz.reshape(512, 512)), axis=1) != 0).sum(axis=1)
    assert 15 < np.median(flips) < 30                                           # bits of 12 cells, half flipping
    # heisenberg: up and down domains, spins vMF(3) about them
    sx, sy, sz, seed, acc, L, color, beta, D, hh = tp._p193_mc_args(32, rng)
    assert L == 32 and len(sx) == 32 ** 3 and (seed & 1).all() and acc[0] == 0 and beta == np.float32(1 / 1.2)
    assert np.abs(sx * sx + sy * sy + sz * sz - 1).max() < 1e-5 and 0.25 < (sz > 0).mean() < 0.75
    w = np.linspace(-1, 1, 20001)                                               # vMF(3): density ~ exp(3 cos)
    assert abs(np.abs(sz).mean() - (np.abs(w) * np.exp(3 * w)).sum() / np.exp(3 * w).sum()) < 0.01
    assert (np.sign(sz.reshape(32, 32, 32)[:, :, 1:]) == np.sign(sz.reshape(32, 32, 32)[:, :, :-1])).mean() > 0.8
    # stoner-wohlfarth: isotropic easy axes, lognormal anisotropy fields, the loop's fields
    psi, hk, th, H, M, nsteps, n = tp._p193_sw_args(1 << 14, rng)
    assert abs(np.cos(psi).mean() - 0.5) < 0.01 and psi.max() <= np.pi / 2 and (th == 0).all()
    assert abs(np.median(hk) - 1) < 0.02 and nsteps == len(H) == len(M) == 400
    assert H[0] == H[-1] == 2.5 and H[199] == H[200] == -2.5 and (np.diff(H[:200]) < 0).all()
    # skyrmion: ~80% of a 40-cell lattice's sites hold one skyrmion each
    m, q, Q, nx, ny = tp._p193_sk_args(400, rng)
    qq, cut = tp._p193_sk_ref(m, 400, 400)
    mz = m.reshape(-1, 3)[:, 2]
    assert abs(qq.sum() - round(qq.sum())) < 1e-6 and 60 < -round(qq.sum()) < 100 and cut > 0.01
    assert np.abs(np.linalg.norm(m.reshape(-1, 3), axis=1) - 1).max() < 1e-6 and 0.8 < mz.mean() < 0.95


# ---- llg-heun-float3-3d ----

@pytest.mark.parametrize("n, policy", [(20, "lockstep"), (12, "random")])
def test_llg_heun(n, policy):
    # 20: 3 x 3 x 2 blocks of 8 x 8 x 4, partial in every direction (nz = 5)
    host, out, *_ = launch("probe/llg-heun-float3-3d", n, policy=policy)
    nz = int(host[6])
    sh = (nz, n, n, 3)
    m = host[0].reshape(sh).astype(np.float64)
    dt = float(host[-2])
    ref = tp._p193_unit(m + 0.5 * dt * (host[2].reshape(sh) + tp._p193_llg_rhs(host[1].reshape(sh))))
    # unit vectors from float32 sums of ~10 terms, a 0.05-rad step: a few ulps of 1
    assert np.abs(out[3].reshape(sh) - ref).max() < 1e-6 and np.abs(ref - m).max() > 0.01
    assert (out[0] == host[0]).all() and (out[1] == host[1]).all() and (out[2] == host[2]).all()
    # the predictor: the torque to 1e-6 of gamma bex (6 float differences of unit vectors times bex)
    h = tp._p193_llg_args(n, np.random.default_rng(1), stage=0)
    o = run("probe/llg-heun-float3-3d", h, n, policy=policy)
    t0 = tp._p193_llg_rhs(h[0].reshape(sh))
    scale = tp.P193_GAMMA * tp._p193_llg_coef()[0]
    assert np.abs(o[2].reshape(sh) - t0).max() < 1e-6 * scale and np.abs(t0).max() > 0.05 * scale
    assert np.abs(o[1].reshape(sh) - tp._p193_unit(h[0].reshape(sh) + dt * t0)).max() < 1e-6
    assert (o[3] == 0).all()


def test_llg_heun_uniform():
    # saturated along the easy axis and the field: no torque anywhere, m kept exactly; one cell
    # tilted (a corner): the torque only there and at its 3 neighbours
    n = 16
    h = tp._p193_llg_args(n, np.random.default_rng(0), stage=0)
    nz = int(h[6])
    m = np.zeros((nz, n, n, 3), np.float32)
    m[..., 0] = 1
    h[0] = m.ravel()
    o = run("probe/llg-heun-float3-3d", h, n)
    assert (o[2] == 0).all() and (o[1] == h[0]).all()
    m[0, 0, 0] = (0.6, 0.8, 0.0)
    h[0] = m.ravel()
    o = run("probe/llg-heun-float3-3d", h, n)
    moved = np.flatnonzero(np.abs(o[2].reshape(-1, 3)).max(axis=1))
    assert list(moved) == [0, 1, n, n * n]
    assert np.abs(o[2] - tp._p193_llg_rhs(m).ravel()).max() < 1e-6 * tp.P193_GAMMA * tp._p193_llg_coef()[0]


# ---- dipolar-nbody-smem-rsqrt ----

@pytest.mark.parametrize("n, policy", [(260, "lockstep"), (100, "random")])
def test_dipolar_field(n, policy):
    # 260: 3 blocks of 128, the last tile partial (threads past n still take part in the tiles)
    host, out, *_ = launch("probe/dipolar-nbody-smem-rsqrt", n, policy=policy)
    B, S = tp._p193_dp_ref(host[0], host[1])
    # float32 terms (~6 roundings each and an rsqrtf) summed n at a time: within 4e-6 of the
    # sum of the terms' sizes (~64 ulps; seen < 1e-6)
    err = np.abs(out[2].reshape(-1, 3) - B).max(axis=1)
    assert (err <= 4e-6 * S).all() and np.median(np.linalg.norm(B, axis=1)) > 0.01
    # three particles, one magnetised: its field along its axis (2 m / r^3) and across it (-m / r^3)
    pos = np.float32([0, 0, 0, 0, 0, 20, 20, 0, 0])
    mom = np.float32([0, 0, 8e-20, 0, 0, 0, 0, 0, 0])
    o = run("probe/dipolar-nbody-smem-rsqrt", [pos, mom, np.zeros(9, np.float32), np.int32(3)], 3)[2]
    want = np.array([0, 0, 0, 0, 0, 2e-3, 0, 0, -1e-3])
    assert np.abs(o - want).max() < 1e-6 * 2e-3 and o[0] == o[1] == o[2] == 0


# ---- film-energy-const-f64red ----

@pytest.mark.parametrize("n, policy", [(40, "lockstep"), (24, "random")])
def test_film_energy(n, policy):
    # 40: 1600 cells, 4 blocks of 512, the last partial
    host, out, syms, _ = launch("probe/film-energy-const-f64red", n, policy=policy)
    E, A = tp._p193_en_ref(*host[:4], *host[5:])
    # a cell's three energies in float32 (< ~8 roundings each), summed in double: within 1e-6
    # of the terms' sizes
    assert (np.abs(out[4] - E) <= 1e-6 * A).all() and E[0] > 0 and E[1] < 0
    assert len(np.unique(host[3])) > 10 and (host[3] == 0).any()
    # saturated along z: no exchange energy at all, the anisotropy and Zeeman energies of each
    # cell's region
    h = list(host)
    h[0], h[1], h[2] = np.zeros(n * n, np.float32), np.zeros(n * n, np.float32), np.ones(n * n, np.float32)
    h[4] = np.zeros(3)
    o = run("probe/film-energy-const-f64red", h, n, symbols=syms)[4]
    mat = tp._p193_en_materials().astype(np.float64)[host[3]]
    dV = float(host[-1])
    an, ze = -(mat[:, 1] * mat[:, 5] ** 2).sum() * dV, -(mat[:, 2] * float(host[10])).sum() * dV
    assert o[0] == 0 and abs(o[1] - an) < 1e-6 * abs(an) and abs(o[2] - ze) < 1e-6 * abs(ze) and ze > 0


# ---- heisenberg-mc-checkerboard ----

@pytest.mark.parametrize("L, color, policy", [(10, 0, "lockstep"), (10, 1, "random"), (8, 1, "lockstep")])
def test_heisenberg_sweep(L, color, policy):
    # 10: 500 sites of the colour, 8 blocks of 64, the last partial; 8: L / 2 = 4 sites a row
    h = tp._p193_mc_args(L, np.random.default_rng(L + color), color=color)
    out = run("probe/heisenberg-mc-checkerboard", h, L, policy=policy)
    S, s, acc, margin = tp._p193_mc_ref(*h[:4], L, color, *h[7:])
    # the decisions compared exactly where dE is further than 1e-4 from the acceptance threshold
    # (float32 dE errs by ~1e-6): here everywhere
    assert margin.min() > 1e-4
    assert (out[3] == s).all() and out[4][0] == acc and 0.2 < acc / (L ** 3 / 2) < 0.6
    other = ~np.isfinite(margin.ravel())
    for k in range(3):
        assert (out[k][other] == h[k][other]).all()                            # the other colour untouched
        assert np.abs(out[k] - S[:, k]).max() < 1e-6
    # infinite temperature: every proposal accepted, the count exact
    h[7] = np.float32(0)
    out = run("probe/heisenberg-mc-checkerboard", h, L, policy=policy)
    S, s, acc, _ = tp._p193_mc_ref(*h[:4], L, color, *h[7:])
    assert out[4][0] == acc == L ** 3 // 2 and np.abs(out[2] - S[:, 2]).max() < 1e-6


# ---- stoner-wohlfarth-loop ----

def _sw_args(n, seed, half):
    """Grains whose switching field is within 0.5% of one of the loop's fields have their
    anisotropy field moved (x 1.0075): there the metastable minimum is shallower than the
    solver's 0.1-rad steps and float32's rounding of the energy's slope, and the step at which
    the grain switches is a matter of precision."""
    h = tp._p193_sw_args(n, np.random.default_rng(seed), half=half)
    psi, hk, H = h[0], h[1], h[3].astype(np.float64)
    hsw = tp._p193_sw_hsw(psi.astype(np.float64))
    for _ in range(10):
        near = np.abs(np.abs(H[None, :] / hk[:, None]) / hsw[:, None] - 1).min(axis=1) < 5e-3
        hk[near] *= np.float32(1.0075)
    assert not near.any()
    return h


@pytest.mark.parametrize("n, half, policy", [(200, 20, "lockstep"), (70, 12, "random")])
def test_sw_hysteresis(n, half, policy):
    # 200: 1 block of 256, lanes past n idle through the loop; the loop's 40 fields
    h = _sw_args(n, 1, half)
    out = run("probe/stoner-wohlfarth-loop", h, n, policy=policy)
    cs, th, curv = tp._p193_sw_ref(h[0], h[1], h[2], h[3])
    # the solver stops within SW_TOL of a zero slope: theta within SW_TOL / curvature, cos theta
    # within that times |sin theta|; the steps' sums of float32 cosines to 1e-6 a grain
    bound = (tp.P193_SW_TOL / curv * np.sqrt(np.maximum(1 - cs ** 2, 0))).sum(axis=1) + 1e-6 * n
    assert (np.abs(out[4] - cs.sum(axis=1)) <= bound).all()
    assert out[4][0] > 0.9 * n and out[4][half - 1] < -0.9 * n and out[4][half // 2] > 0 > out[4][half + half // 2]
    d = np.angle(np.exp(1j * (out[2] - th)))
    assert (np.abs(d) <= 2 * tp.P193_SW_TOL / curv[-1] + 1e-5).all()
    assert (np.abs(out[2]) > 1).any()                                         # some went round and back


def test_sw_hysteresis_axes():
    # an easy-axis grain: a square loop switching at +-hk; a hard-axis grain: cos theta = H / hk
    half, hk = 20, 1.37
    H = tp._p193_sw_field(half)
    assert np.abs(np.abs(H / hk) - 1).min() > 0.02
    for psi in (0.0, np.pi / 2):
        h = [np.float32([psi]), np.float32([hk]), np.zeros(1, np.float32), H, np.zeros(2 * half, np.float32),
             np.int32(2 * half), np.int32(1)]
        M = run("probe/stoner-wohlfarth-loop", h, 1)[4]
        if psi == 0:
            k = np.arange(2 * half)
            down = np.flatnonzero(H[:half] < -hk)[0]
            up = half + np.flatnonzero(H[half:] > hk)[0]
            assert (M == np.where((k >= down) & (k < up), -1, 1)).all()
        else:
            c = np.clip(H / hk, -1, 1)
            assert (np.abs(M - c) <= tp.P193_SW_TOL / np.maximum(1 - c * c, 1e-3) + 1e-6).all()


# ---- skyrmion-charge-atan2-shfl ----

@pytest.mark.parametrize("n, policy", [(120, "lockstep"), (80, "random")])
def test_skyrmion_charge(n, policy):
    # 120: 9 lattice sites, 14400 cells in 15 blocks of 1024, the last partial
    host, out, *_ = launch("probe/skyrmion-charge-atan2-shfl", n, policy=policy)
    q, cut = tp._p193_sk_ref(host[0], n, n)
    # float32 cross and dot products of unit vectors and atan2f: ~1e-7 a plaquette, none near
    # atan2's branch cut; the total an integer (-1 a skyrmion) summed in float32
    assert cut > 1e-3 and np.abs(out[1] - q.ravel()).max() < 1e-6
    Q = q.sum()
    assert abs(Q - round(Q)) < 1e-6 and round(Q) < 0 and abs(out[2][0] - Q) < 1e-6 * n * n
    # a uniform film: no charge at all; one hand-made skyrmion: -1
    h = list(host)
    h[0] = np.tile(np.float32([0, 0, 1]), n * n)
    o = run("probe/skyrmion-charge-atan2-shfl", h, n)
    assert (o[1] == 0).all() and o[2][0] == 0
    n = 24
    y, x = np.indices((n, n)) - 11.3
    r = np.hypot(x, y)
    t = 2 * np.arctan(np.sinh(4 / 1.5) / np.sinh(r / 1.5))
    m = np.stack([np.sin(t) * x / r, np.sin(t) * y / r, np.cos(t)], axis=2).astype(np.float32)
    o = run("probe/skyrmion-charge-atan2-shfl", [m.ravel(), np.zeros(n * n, np.float32), np.zeros(1, np.float32),
                                                   np.int32(n), np.int32(n)], n)
    assert abs(o[2][0] + 1) < 1e-5 and np.abs(o[1] - tp._p193_sk_ref(m, n, n)[0].ravel()).max() < 1e-6
