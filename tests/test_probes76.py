"""probe-unseen74's kernels (kernels_cuda/probes76.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/lbm-d2q9-aos-bounceback", "probe/advect-muscl-minmod", "probe/sor-redblack-poisson",
       "probe/heat3d-7pt-smem", "probe/tracers-bilinear-rk2", "probe/cfl-euler-atomicmax"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen74"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes76.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # lbm: ~3% solid (the walls and the cylinder), fluid cells near equilibrium at rho ~ 1
    solid = tp._u74_lbm_solid(tp.U74_LBM_N)
    assert 0.02 < solid.mean() < 0.04 and solid[0].all() and solid[-1].all() and not solid[1:-1, 0].any()
    n = 128
    f, fo, s, omega, nx, ny = tp._u74_lbm_args(n, rng)
    assert f.dtype == np.float32 and len(f) == 9 * n * n and s.dtype == np.uint8 and nx == ny == n
    cells = f.reshape(n * n, 9).astype(np.float64)
    rho = cells.sum(axis=1)
    ex, ey, w, opp = tp._u74_d2q9()
    fl = s == 0
    assert (cells > 0).all() and np.abs(rho[fl] - 1).max() < 0.06
    assert np.allclose(cells[~fl], np.float32(w)) and (ex[opp] == -ex).all() and (ey[opp] == -ey).all()
    ux = (cells @ ex) / rho
    assert 0.06 < ux[fl].max() < 0.12 and abs(ux.reshape(n, n)[n // 2, -1] - tp.U74_LBM_U0) < 0.04
    # advect: Taylor-Green velocity (Courant 0.4 at the peak), squares of 1 on a smooth
    # background, the face velocity's sign uniform across nearly every warp
    q, u, v, qn, cx, cy, *_ = tp._u74_ad_args(n, rng)
    assert q.dtype == u.dtype == np.float32 and 0.25 <= q.min() and q.max() == 1.0 and (q == 1).mean() > 0.01
    assert abs(np.abs(u).max() - tp.U74_AD_U0) < 0.01 and np.abs(u).max() * cx <= 0.4 + 1e-6
    m = tp.U74_AD_N
    uu = tp._u74_ad_fields(m // 4, rng)[1]                  # a quarter of the size: cells 64 wide
    ue = 0.5 * (uu + np.roll(uu, -1, axis=1))
    seg = (ue > 0).reshape(m // 4, -1, 32)
    assert (seg.all(axis=2) | ~seg.any(axis=2)).mean() > 0.9
    assert 0.05 < tp._u74_ad_ref(q, u, v, n, n)[1] < 0.5                      # minmod flattens some faces
    # sor: an 8192 x 4096 field, h^2 rhs ~ N(0, 0.01)
    p, rhs, om, h2, color, nx, ny = tp._u74_sor_args(n, rng)
    assert nx == n and ny == n // 2 and len(p) == nx * ny and np.abs(p).max() <= 1 and color == 0
    assert abs((h2 * rhs).std() - tp.U74_SOR_RHS) < 0.005
    # heat3d: a hot sphere (~6.5% of the box) plus noise
    T = tp._u74_ht_args(64, rng)[0]
    assert T.dtype == np.float32 and 0 <= T.min() and T.max() < 1.1 and 0.05 < (T >= 1).mean() < 0.08
    assert tp._u74_ht_grid(tp.U74_HT_N) == (10, 80, 80)
    # tracers: uniform over the grid, a divergence-free field, under a cell a step
    px, py, uf, vf, dt, gx, gy, npart = tp._u74_tr_args(1000, rng)
    g = tp.U74_TR_GRID
    assert gx == gy == g and npart == 1000 and 0 <= px.min() and px.max() < g and py.max() < g
    U, V = uf.reshape(g, g).astype(np.float64), vf.reshape(g, g).astype(np.float64)
    div = (np.roll(U, -1, 1) - np.roll(U, 1, 1)) + (np.roll(V, -1, 0) - np.roll(V, 1, 0))
    grad = np.abs(np.roll(U, -1, 1) - np.roll(U, 1, 1)).max()
    assert np.abs(div).max() < 2e-3 * grad and max(np.abs(U).max(), np.abs(V).max()) == pytest.approx(1.5, 1e-6)
    assert dt * tp.U74_TR_UMAX < 1
    # cfl: positive densities and pressures, the sound speed ~ the flow speed
    r, cu, cv, cp, mb, *_ = tp._u74_cfl_args(4096, rng)
    assert r.min() >= 0.2 and r.max() < 2 and 0.1 <= cp.min() and cp.max() <= 10 and mb[0] == 0
    c = np.sqrt(1.4 * cp / r)
    assert 0.5 < np.median(c) < 3 and 0.5 < np.abs(cu).mean() < 1


# ---- lbm-d2q9-aos-bounceback ----

@pytest.mark.parametrize("n", [64, 40])                 # 40: partial blocks in x and y
def test_lbm_d2q9(n):
    host, (f, fo, s, *_), *_ = launch("probe/lbm-d2q9-aos-bounceback", n)
    ref = tp._u74_lbm_ref(host[0], host[2], n)
    np.testing.assert_allclose(fo, ref, rtol=0, atol=2e-6)
    assert abs(fo.astype(np.float64).sum() - f.astype(np.float64).sum()) < 1e-3 * n * n / 4096   # mass kept
    # a solid cell's populations reversed: its out[opp[q]] is what streamed in along q
    ex, ey, w, opp = tp._u74_d2q9()
    cells = fo.reshape(n, n, 9)
    fin = host[0].reshape(n, n, 9)
    x, y = int(0.25 * n), int(0.5 * n)
    assert s.reshape(n, n)[y, x]
    for q in range(9):
        assert cells[y, x, opp[q]] == fin[(y - ey[q]) % n, (x - ex[q]) % n, q]


# ---- advect-muscl-minmod ----

@pytest.mark.parametrize("n", [64, 40])
def test_advect_muscl(n):
    host, out, *_ = launch("probe/advect-muscl-minmod", n)
    ref, _ = tp._u74_ad_ref(*host[:3], n, n)
    np.testing.assert_allclose(out[3], ref, rtol=0, atol=2e-6)
    q0 = host[0].astype(np.float64)
    assert abs(out[3].astype(np.float64).sum() - q0.sum()) < 1e-4 * n * n               # conservative
    assert out[3].min() > q0.min() - 1e-6 and out[3].max() < q0.max() + 1e-6            # TVD: no new extrema
    assert np.abs(out[3] - host[0]).max() > 0.05


def test_advect_signs():
    # a uniform flow to the left and down: every face upwinded from the right / above, and a
    # constant field unchanged
    n = 48
    rng = np.random.default_rng(3)
    q = rng.uniform(0, 1, n * n).astype(np.float32)
    u = np.full(n * n, -0.7, np.float32)
    v = np.full(n * n, -0.3, np.float32)
    host = [q, u, v, np.zeros(n * n, np.float32), np.float32(0.4), np.float32(0.4), np.int32(n), np.int32(n)]
    out = run("probe/advect-muscl-minmod", host, n)
    np.testing.assert_allclose(out[3], tp._u74_ad_ref(q, u, v, n, n)[0], rtol=0, atol=2e-6)
    host[0] = np.full(n * n, 0.5, np.float32)
    assert (run("probe/advect-muscl-minmod", host, n)[3] == 0.5).all()


# ---- sor-redblack-poisson ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_sor_redblack(policy):
    n = 70                                                  # 70 x 35: partial blocks
    host, out, *_ = launch("probe/sor-redblack-poisson", n, policy=policy)
    ref, m = tp._u74_sor_ref(*host[:5], n, n // 2)
    np.testing.assert_allclose(out[0], ref, rtol=0, atol=2e-6)
    assert (out[0][~m] == host[0][~m]).all() and (out[0][m] != host[0][m]).mean() > 0.99
    assert (out[1] == host[1]).all()


def test_sor_full_sweep():
    # red then black: a Gauss-Seidel-like sweep; the second half reads the first's output
    n = 64
    rng = np.random.default_rng(4)
    host = tp._u74_sor_args(n, rng)
    red = run("probe/sor-redblack-poisson", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    ref_red, _ = tp._u74_sor_ref(*host[:4], 0, n, n // 2)
    host_b = [red[0].copy(), host[1], host[2], host[3], np.int32(1), host[5], host[6]]
    black = run("probe/sor-redblack-poisson", host_b, n)
    ref_black, mb = tp._u74_sor_ref(ref_red, *host[1:4], 1, n, n // 2)
    np.testing.assert_allclose(black[0], ref_black, rtol=0, atol=4e-6)
    assert (black[0][mb] != red[0][mb]).mean() > 0.99


# ---- heat3d-7pt-smem ----

@pytest.mark.parametrize("policy, n", [("lockstep", 37), ("random", 6)])   # random: 1 x 2 x 2 blocks, partial
def test_heat3d_smem(policy, n):
    host, (T, Tn, *_), *_ = launch("probe/heat3d-7pt-smem", n, policy=policy)
    ref = tp._u74_ht_ref(host[0], n)
    np.testing.assert_allclose(Tn, ref, rtol=0, atol=1e-6)
    b = np.ones((n, n, n), bool)
    b[1:-1, 1:-1, 1:-1] = False
    assert (Tn.reshape(n, n, n)[b] == T.reshape(n, n, n)[b]).all()                      # boundary held
    assert Tn.max() < T.max() and Tn.reshape(n, n, n)[~b].min() > T.min()             # diffusion smooths


# ---- tracers-bilinear-rk2 ----

def tr_dist(a, b):
    g = tp.U74_TR_GRID
    d = np.abs(np.asarray(a, np.float64) - b)
    return np.minimum(d, g - d)


def test_tracers():
    n = 1000                                                # 4 blocks, the last partial
    host, (px, py, *_), *_ = launch("probe/tracers-bilinear-rk2", n)
    rx, ry = tp._u74_tr_ref(*host[:4])
    assert tr_dist(px, rx).max() < 2e-4 and tr_dist(py, ry).max() < 2e-4
    g = tp.U74_TR_GRID
    assert 0 <= px.min() and px.max() < g and 0 <= py.min() and py.max() < g
    step = np.hypot(tr_dist(px, host[0]), tr_dist(py, host[1]))
    assert step.max() < tp.U74_TR_DT * tp.U74_TR_UMAX * 1.5 and step.mean() > 0.05


def test_tracers_wrap():
    # tracers on grid nodes and within half a cell of the domain's edges: some cross them
    rng = np.random.default_rng(9)
    n = 512
    host = tp._u74_tr_args(n, rng)
    g = tp.U74_TR_GRID
    k = np.arange(n)
    e = rng.uniform(0, 0.5, n).astype(np.float32)
    edge = np.where(k % 4 < 2, e, np.float32(g) - e).astype(np.float32)    # near 0 or near g
    node = rng.integers(0, g, n).astype(np.float32)
    host[0] = np.where(k % 2 == 0, edge, node)              # even: x near an edge, odd: y
    host[1] = np.where(k % 2 == 0, node, edge)
    host[0][:8] = np.float32(0.0)
    out = run("probe/tracers-bilinear-rk2", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    rx, ry = tp._u74_tr_ref(*host[:4])
    assert tr_dist(out[0], rx).max() < 2e-4 and tr_dist(out[1], ry).max() < 2e-4
    assert 0 <= out[0].min() and out[0].max() < g and 0 <= out[1].min() and out[1].max() < g
    crossed = np.abs(out[0] - host[0]) > g / 2
    assert crossed.sum() > 20 and (np.abs(out[1] - host[1]) > g / 2).sum() > 20


# ---- cfl-euler-atomicmax ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_cfl_max(policy):
    n = 1000                                                # 4 blocks, the last partial
    host, out, *_ = launch("probe/cfl-euler-atomicmax", n, policy=policy)
    s = tp._u74_cfl_ref(*host[:4])
    got = float(out[4].view(np.float32)[0])
    assert got == pytest.approx(s.max(), rel=1e-6)
    assert np.sort(s)[-2] < s.max() * (1 - 1e-5)            # the maximum is unambiguous


def test_cfl_cases():
    # the largest speed in the last, partial block; then a running max already above all
    rng = np.random.default_rng(11)
    n = 700
    host = tp._u74_cfl_args(n, rng)
    host[1][690] = np.float32(25.0)
    out = run("probe/cfl-euler-atomicmax", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    s = tp._u74_cfl_ref(*host[:4])
    assert np.argmax(s) == 690 and float(out[4].view(np.float32)[0]) == pytest.approx(s.max(), rel=1e-6)
    host[4] = np.array([np.float32(1e7)]).view(np.int32)
    out = run("probe/cfl-euler-atomicmax", host, n, policy="random")
    assert out[4].view(np.float32)[0] == np.float32(1e7)
