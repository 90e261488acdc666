"""probe-unseen84's kernels (kernels_cuda/probes86.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/ising2d-philox-checker", "probe/potts3d-xorshift-state", "probe/photon-slab-hg",
       "probe/walk-porous-blocked", "probe/wang-landau-ising8", "probe/pt-energy-reduce"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen84"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes86.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # the Philox: Random123's known-answer vectors for philox2x32_10 (first word)
    assert int(tp._p86_philox(np.uint32([0]), np.uint32([0]), 0)[0]) == 0xff1dae59
    assert int(tp._p86_philox(np.uint32([0xffffffff]), np.uint32([0xffffffff]), 0xffffffff)[0]) == 0x2c3f628b
    assert int(tp._p86_philox(np.uint32([0x243f6a88]), np.uint32([0x85a308d3]), 0x13198a2e)[0]) == 0xdd7ce038
    # ising: +-1 int8 in 8 x 8 domains, ~15% of spins against their domain
    L = 256
    s, LL, color, beta, h, *_ = tp._p86_ising_args(L, rng)
    assert s.dtype == np.int8 and set(np.unique(s)) == {-1, 1} and LL == L and color == 0
    dom = np.sign(s.reshape(L // 8, 8, L // 8, 8).astype(np.int32).sum(axis=(1, 3)))
    against = s.reshape(L // 8, 8, L // 8, 8) != dom[:, None, :, None]
    assert abs(against.mean() - 38 / 256) < 0.01 and abs(float(beta) - 0.4406868) < 1e-6 and h == np.float32(0.05)
    new, flip, gap = tp._p86_ising_ref(s, L)
    assert 0.3 < flip.mean() * 2 < 0.45                           # ~35% of a colour's sites flip
    # potts: states 0 .. 3 uniform, the xorshift states nonzero
    sp, st, LL, par, beta = tp._p86_potts_args(16, rng)
    assert sp.dtype == np.uint8 and len(sp) == 16 ** 3 and set(np.unique(sp)) == {0, 1, 2, 3}
    assert st.dtype == np.uint32 and st.min() > 0 and abs(np.bincount(sp).std() / len(sp)) < 0.02
    assert 0.7 < tp._p86_potts_ref(sp, st, 16)[2].mean() * 2 < 0.85          # hot start: most proposals taken
    # photons: trip counts ~17 on average, a warp's slowest ~57, none near the cap; ~30%
    # reflected, ~55% transmitted, the absorbed ones deposited mostly near the entrance
    tally, hist, steps, gap = tp._p86_photon_ref(1 << 14)
    assert 14 < steps.mean() < 20 and 45 < steps.reshape(-1, 32).max(axis=1).mean() < 65
    assert steps.max() < 300 and tally[2] == 0 and tally.sum() + hist.sum() == 1 << 14
    assert 0.2 < tally[0] / 2 ** 14 < 0.35 and 0.5 < tally[1] / 2 ** 14 < 0.65 and hist[:32].sum() > hist[32:].sum()
    # walkers: a 70% open medium, starts on open sites
    grid, px, py, blk, LL, *_ = tp._p86_walk_args(1000, rng)
    assert grid.dtype == np.uint8 and len(grid) == 2048 ** 2 and abs(grid.mean() - 179 / 256) < 0.002
    assert (grid[py * 2048 + px] == 1).all() and px.min() >= 0 and py.max() < 2048
    x, y, b = tp._p86_walk_ref(grid, px, py)
    assert 0.25 < b.mean() / 256 < 0.35 and (grid[y * 2048 + x] == 1).all()
    # Wang-Landau: the walkers' energies right, spread from ~0 down to ~-100
    sw, E, lng, hist, steps, *_ = tp._p86_wl_args(1000, rng)
    assert sw.dtype == np.int8 and (E == tp._p86_wl_energy(sw)).all() and E.min() < -90 and E.max() > -10
    assert (E % 4 == 0).all() and lng.dtype == np.float32 and len(lng) == 65 and lng[32] == np.float32(64 * np.log(2))
    # parallel tempering: disordered replicas above beta_c, magnetized below
    sp, Eo, Mo, LL = tp._p86_pt_args(64, rng)
    assert sp.dtype == np.int32 and LL == 128 and len(sp) == 64 * 128 * 128
    E, M = tp._p86_pt_ref(sp)
    b = np.linspace(0.3, 0.6, 64)
    assert np.abs(M[b < 0.43]).max() < 600 and (M[b > 0.47] > 0.85 * 128 * 128).all() and E.min() < -30000


# ---- ising2d-philox-checker ----

@pytest.mark.parametrize("L, color", [(64, 0), (48, 1)])
def test_ising2d_philox(L, color):
    # L = 48: the half rows' 24 threads leave part of a 32-wide block idle
    rng = np.random.default_rng(3)
    host = tp._p86_ising_args(L, rng)
    host[2] = np.int32(color)
    out = run("probe/ising2d-philox-checker", [a.copy() if isinstance(a, np.ndarray) else a for a in host], L)
    new, flip, gap = tp._p86_ising_ref(host[0], L, color)
    assert gap > 1e-6
    assert (out[0] == new).all() and 0.25 < flip.mean() * 2 < 0.5
    yy, xx = np.divmod(np.arange(L * L), L)
    assert (out[0][(xx + yy) % 2 != color] == host[0][(xx + yy) % 2 != color]).all()


# ---- potts3d-xorshift-state ----

@pytest.mark.parametrize("L, parity", [(16, 0), (10, 1)])
def test_potts3d(L, parity):
    # L = 10: 500 threads, a partial block
    rng = np.random.default_rng(4)
    host = tp._p86_potts_args(L, rng)
    host[3] = np.int32(parity)
    out = run("probe/potts3d-xorshift-state", [a.copy() if isinstance(a, np.ndarray) else a for a in host], L)
    sp, st, acc, gap = tp._p86_potts_ref(host[0], host[1], L, parity)
    assert gap > 1e-6
    assert (out[0] == sp).all() and (out[1] == st).all()
    on = (out[1] != host[1])
    assert on.sum() == L ** 3 // 2 and (acc <= on).all() and (out[0][acc] != host[0][acc]).all()


# ---- photon-slab-hg ----

@pytest.mark.parametrize("policy, seed", [("lockstep", 16043894), ("random", 288790092)])
def test_photon_slab(policy, seed):
    # 160 photons (a block and a partial one) under seeds whose paths keep clear of every
    # threshold by far more than float32's drift from the float64 reference (~1e-5 after
    # 30 paths): the tallies then match exactly
    n = 160
    host = tp._p86_photon_args(n, np.random.default_rng(0))
    host[6] = np.uint32(seed)
    tally, hist, *_ = run("probe/photon-slab-hg", host, n, policy=policy)
    rt, rh, steps, gap = tp._p86_photon_ref(n, seed=seed)
    assert gap > 3e-4 and steps.max() > 60
    assert (tally == rt).all() and (hist == rh).all() and tally.sum() + hist.sum() == n
    assert tally[0] > 0 and tally[1] > 0 and tally[2] == 0 and hist.sum() > 0


# ---- walk-porous-blocked ----

def test_walk_porous():
    n = 300
    host, (grid, px, py, blk, *_), *_ = launch("probe/walk-porous-blocked", n)
    x, y, b = tp._p86_walk_ref(host[0], host[1], host[2])
    assert (px == x).all() and (py == y).all() and (blk == b).all()
    assert (grid[py * 2048 + px] == 1).all() and ((px != host[1]) | (py != host[2])).mean() > 0.8


def test_walk_walls():
    # a small open box (L = 8, a solid centre): walls and solid sites both refuse moves
    rng = np.random.default_rng(9)
    n, L = 64, 8
    grid = np.ones(L * L, np.uint8)
    grid[[27, 28, 35, 36]] = 0
    sites = np.flatnonzero(grid)[rng.integers(0, 60, n)]
    host = [grid, (sites % L).astype(np.int32), (sites // L).astype(np.int32), np.zeros(n, np.int32), np.int32(L),
            np.uint32(5), np.int32(n)]
    out = run("probe/walk-porous-blocked", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n,
              policy="random")
    x, y, b = tp._p86_walk_ref(grid, host[1], host[2], L=L, seed=5)
    assert (out[1] == x).all() and (out[2] == y).all() and (out[3] == b).all()
    assert (grid[y * L + x] == 1).all() and 0.1 < b.mean() / 256 < 0.4


# ---- wang-landau-ising8 ----

@pytest.mark.parametrize("policy, n, steps", [("lockstep", 160, 256), ("random", 40, 64)])
def test_wang_landau(policy, n, steps):
    # the probe's 256 steps a walker (random: 64, its walkers' histogram atomics interleaved);
    # n = 160: a block and a partial one
    host = tp.get("probe/wang-landau-ising8").args(n, np.random.default_rng(0))    # as launch draws them
    assert host[4] == 256
    host[4] = np.int32(steps)
    out = run("probe/wang-landau-ising8", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n,
              policy=policy)
    s, E, hist, gap = tp._p86_wl_ref(*host[:3], steps=steps)
    assert gap > 1e-6
    assert (out[0] == s).all() and (out[1] == E).all() and (out[3] == hist).all()
    assert hist.sum() == steps * n and (out[1] == tp._p86_wl_energy(out[0])).all() and (out[1] != host[1]).mean() > 0.5


def test_wang_landau_short():
    # a 10-step launch from ground states and a disordered lattice (flips out of the ground
    # state are rare: ln g(-128) - ln g(-120) = -7.75)
    rng = np.random.default_rng(6)
    n = 64
    host = tp._p86_wl_args(n, rng)
    sp = host[0].reshape(n, 64)
    sp[:32] = np.where(np.arange(32)[:, None] % 2 == 0, 1, -1)
    host[1] = tp._p86_wl_energy(sp)
    host[4] = np.int32(10)
    out = run("probe/wang-landau-ising8", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n,
              policy="random")
    s, E, hist, gap = tp._p86_wl_ref(*host[:3], steps=10)
    assert gap > 1e-6 and host[1][:32].max() == -128
    assert (out[0] == s).all() and (out[1] == E).all() and (out[3] == hist).all() and hist[0] >= 300


# ---- pt-energy-reduce ----

@pytest.mark.parametrize("L", [32, 20])
def test_pt_energy(L):
    # L = 20: 400 sites, some threads one site and some two; 4 replicas (blocks), cold to hot
    rng = np.random.default_rng(7)
    n = 4
    host = tp._p86_pt_args(n, rng)
    host[0] = np.ascontiguousarray(host[0].reshape(n, 128, 128)[:, :L, :L]).ravel()
    host[3] = np.int32(L)
    out = run("probe/pt-energy-reduce", host, n, policy="random")
    E, M = tp._p86_pt_ref(host[0], L)
    assert (out[1] == E).all() and (out[2] == M).all() and M.max() > 0.9 * L * L and abs(M[0]) < 0.3 * L * L


def test_pt_energy_full_replica():
    # the probe's own replica side (128^2, 64 sites a thread), two replicas: ordered and not
    n = 2
    host, (sp, E, M, L), *_ = launch("probe/pt-energy-reduce", n)
    rE, rM = tp._p86_pt_ref(host[0])
    assert (E == rE).all() and (M == rM).all() and M[1] > 0.95 * 128 * 128 and abs(M[0]) < 600
