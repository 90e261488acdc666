"""probe-unseen97's kernels (kernels_cuda/probes99.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/mg-vc7-residual-harmonic", "probe/mg-rbsor3d-parity-888", "probe/mg-fw-restrict27-3d",
       "probe/mg-yline-thomas-local", "probe/mg-resnorm2d-atomic-max", "probe/mg-coarsest-rbgs-1block"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen97"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes99.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def boundary(a, n, dims):
    """The boundary points of a flat n^dims grid."""
    g = np.asarray(a).reshape((n,) * dims)
    m = np.zeros(g.shape, bool)
    for ax in range(dims):
        idx = [slice(None)] * dims
        idx[ax] = [0, -1]
        m[tuple(idx)] = True
    return g[m], g[~m]


def test_data():
    rng = np.random.default_rng(0)
    n = 32
    # 3-D iterates: the smooth mode plus noise, 0 on the boundary
    u, a, f, r, inv_h2, nn = tp._p99_vc_args(n, rng)
    assert all(x.dtype == np.float32 and x.size == n ** 3 for x in (u, a, f, r)) and nn == n
    bd, inner = boundary(u, n, 3)
    x = np.sin(np.pi * np.linspace(0, 1, n))
    smooth = boundary(x[:, None, None] * x[None, :, None] * x[None, None, :], n, 3)[1]
    assert (bd == 0).all() and abs((inner - smooth).std() - tp.P99_NOISE) < 0.002 and abs((inner - smooth).mean()) < 0.002
    assert 0.1 <= a.min() and a.max() <= 10 and abs(np.log10(a).mean()) < 0.02 and inv_h2 == 31 ** 2
    assert (r == 0).all() and abs(f.std() - 1) < 0.02
    u, f, h2, omega, color, nn = tp._p99_rb_args(n, rng)
    assert (boundary(u, n, 3)[0] == 0).all() and h2 == np.float32(1 / 31 ** 2) and omega == np.float32(1.2)
    assert color == 0
    rf, rc, nc = tp._p99_fw_args(9, rng)
    assert rf.size == 17 ** 3 and rc.size == 9 ** 3 and nc == 9 and rf.dtype == np.float32
    u, f, un, ex, ez, h2, om, nn = tp._p99_yl_args(n, rng)
    assert (un == u).all() and un is not u and ex == ez == np.float32(0.01) and om == np.float32(0.8)
    assert tp.P99_YL_N <= tp.P99_YL_NY
    # resnorm: the smooth part's residual is small beside the noise's
    m = 64
    u, f, s, mb, inv_h2, nn = tp._p99_rn_args(m, rng)
    assert s.dtype == np.float64 and mb.dtype == np.int32 and (boundary(u, m, 2)[0] == 0).all()
    ss, mx = tp._p99_rn_ref(u, f, inv_h2, m)
    x = np.sin(np.pi * np.linspace(0, 1, m))
    sm = np.outer(x, x).ravel()
    s0, _ = tp._p99_rn_ref(sm, f, inv_h2, m)
    assert s0 < 1e-3 * ss
    # coarsest: boundary x^2 - y^2, zero inside
    u, f, h2, sweeps, nn = tp._p99_cg_args(tp.P99_CG_N, rng)
    bd, inner = boundary(u, 65, 2)
    assert (inner == 0).all() and bd.min() == -1 and bd.max() == 1 and sweeps == 300
    assert tp.P99_CG_BLOCK == (32, 32) and nn == 65
    # the defaults: the fine grid's side, the one-block grid
    assert 2 * tp.P99_FW_NC - 1 == 385 and tp.get(IDS[5]).grid(65) == 1
    assert tp.get(IDS[1]).grid(256) == (32, 32, 32) and tp.get(IDS[2]).grid(193) == (7, 49, 49)


# ---- mg-vc7-residual-harmonic ----

def test_vc7_residual():
    n = 21                                                   # partial blocks in x, y and z
    host, (u, a, f, r, inv_h2, nn), *_ = launch("probe/mg-vc7-residual-harmonic", n)
    ref = tp._p99_vc_ref(u, a, f, inv_h2, n)
    np.testing.assert_allclose(r, ref, rtol=1e-5, atol=2e-6 * np.abs(ref).max())
    bd, inner = boundary(r, n, 3)
    assert (bd == 0).all() and (inner != 0).all()
    # a constant coefficient 1: the 7-point Laplacian
    host[1] = np.ones(n ** 3, np.float32)
    out = run("probe/mg-vc7-residual-harmonic", host, n)
    U = host[0].astype(np.float64).reshape(n, n, n)
    lap = (6 * U[1:-1, 1:-1, 1:-1] - U[:-2, 1:-1, 1:-1] - U[2:, 1:-1, 1:-1] - U[1:-1, :-2, 1:-1]
           - U[1:-1, 2:, 1:-1] - U[1:-1, 1:-1, :-2] - U[1:-1, 1:-1, 2:])
    got = out[3].reshape(n, n, n)[1:-1, 1:-1, 1:-1]
    np.testing.assert_allclose(got, host[2].reshape(n, n, n)[1:-1, 1:-1, 1:-1] - float(inv_h2) * lap,
                               rtol=1e-5, atol=1e-3)


# ---- mg-rbsor3d-parity-888 ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_rbsor3d(policy):
    n = 13                                                   # 2 x 2 x 2 blocks of 8^3, the last partial
    rng = np.random.default_rng(3)
    host = tp._p99_rb_args(n, rng)
    u0 = host[0].copy()
    for color in (0, 1):                                     # a full sweep: red then black
        host[4] = np.int32(color)
        before = host[0].copy()
        out = run("probe/mg-rbsor3d-parity-888", host, n, policy=policy)
        ref = tp._p99_rb_ref(before, host[1], host[2], host[3], color, n)
        np.testing.assert_allclose(out[0], ref, rtol=0, atol=2e-7)
        k, j, i = np.indices((n, n, n)).reshape(3, -1)
        other = (i + j + k) % 2 != color
        assert (out[0][other] == before[other]).all()          # the other colour untouched
        host[0] = out[0]
    assert (boundary(host[0], n, 3)[0] == 0).all() and (boundary(host[0] != u0, n, 3)[1]).all()


# ---- mg-fw-restrict27-3d ----

def test_fw_restrict27():
    nc = 11                                                  # fine 21^3; partial blocks
    host, (rf, rc, nn), *_ = launch("probe/mg-fw-restrict27-3d", nc)
    np.testing.assert_allclose(rc, tp._p99_fw_ref(rf, nc), rtol=1e-5, atol=1e-6)
    bd, inner = boundary(rc, nc, 3)
    assert (bd == 0).all() and (inner != 0).all()
    # the weights sum to 1: a constant fine residual restricts to itself inside
    host[0] = np.full((2 * nc - 1) ** 3, 3.0, np.float32)
    out = run("probe/mg-fw-restrict27-3d", host, nc)
    bd, inner = boundary(out[1], nc, 3)
    assert (inner == 3).all() and (bd == 0).all()


# ---- mg-yline-thomas-local ----

@pytest.mark.parametrize("n", [10, 37])
def test_yline_jacobi(n):
    host, (u, f, un, ex, ez, h2, om, nn), *_ = launch("probe/mg-yline-thomas-local", n)
    ref = tp._p99_yl_ref(u, f, ex, ez, h2, om, n)
    np.testing.assert_allclose(un, ref, rtol=0, atol=2e-6)
    assert (boundary(un, n, 3)[0] == boundary(u, n, 3)[0]).all()
    # omega 1: each line solved exactly (the tridiagonal residual in y ~ 0)
    host[6] = np.float32(1.0)
    host[2] = host[0].copy()
    out = run("probe/mg-yline-thomas-local", host, n)
    U0 = host[0].astype(np.float64).reshape(n, n, n)
    X = out[2].astype(np.float64).reshape(n, n, n)
    F = host[1].astype(np.float64).reshape(n, n, n)
    e = float(ex)
    I = slice(1, -1)
    lhs = (2 + 4 * e) * X[I, I, I] - X[I, :-2, I] - X[I, 2:, I]
    rhs = float(h2) * F[I, I, I] + e * (U0[I, I, :-2] + U0[I, I, 2:] + U0[:-2, I, I] + U0[2:, I, I])
    assert np.abs(lhs - rhs).max() < 1e-5


# ---- mg-resnorm2d-atomic-max ----

@pytest.mark.parametrize("policy, n", [("lockstep", 50), ("random", 33)])
def test_resnorm2d(policy, n):
    host, (u, f, s, mb, inv_h2, nn), *_ = launch("probe/mg-resnorm2d-atomic-max", n, policy=policy)
    ss, mx = tp._p99_rn_ref(u, f, inv_h2, n)
    assert abs(s[0] - ss) < 1e-5 * ss
    assert abs(float(mb.view(np.float32)[0]) - mx) < 1e-5 * mx
    # a second launch accumulates onto the first's sum and keeps the max
    host2 = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
    host2[2], host2[3] = s.copy(), mb.copy()
    out = run("probe/mg-resnorm2d-atomic-max", host2, n, policy=policy)
    assert abs(out[2][0] - 2 * ss) < 2e-5 * ss and out[3][0] == mb[0]


# ---- mg-coarsest-rbgs-1block ----

@pytest.mark.parametrize("n, sweeps, policy", [(17, 25, "lockstep"), (65, 2, "lockstep"), (23, 6, "random")])
def test_coarsest_rbgs(n, sweeps, policy):
    rng = np.random.default_rng(4)
    host = tp._p99_cg_args(n, rng)
    host[3] = np.int32(sweeps)
    out = run("probe/mg-coarsest-rbgs-1block", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n,
              policy=policy)
    ref = tp._p99_cg_ref(host[0], host[1], host[2], sweeps, n)
    np.testing.assert_allclose(out[0], ref, rtol=0, atol=2e-6)
    assert (boundary(out[0], n, 2)[0] == boundary(host[0], n, 2)[0]).all()
    # Gauss-Seidel, not Jacobi: one sweep differs from a Jacobi step's
    if sweeps == 2:
        assert np.abs(ref - tp._p99_cg_ref(host[0], host[1], host[2], 1, n)).max() > 1e-3


def test_coarsest_converges():
    # enough sweeps on a small grid: the discrete Poisson solution
    n = 9
    rng = np.random.default_rng(5)
    host = tp._p99_cg_args(n, rng)
    host[3] = np.int32(60)
    out = run("probe/mg-coarsest-rbgs-1block", host, n)
    U = out[0].astype(np.float64).reshape(n, n)
    hf = float(host[2]) * host[1].astype(np.float64).reshape(n, n)
    res = hf[1:-1, 1:-1] - (4 * U[1:-1, 1:-1] - U[:-2, 1:-1] - U[2:, 1:-1] - U[1:-1, :-2] - U[1:-1, 2:])
    assert np.abs(res).max() < 1e-5
