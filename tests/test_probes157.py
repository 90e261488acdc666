"""probe-unseen155's kernels (kernels_cuda/probes157.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/pd-horizon-cells-smem", "probe/pd-pmb-bond-force", "probe/pd-damage-tip-atomicmax",
       "probe/pd-verlet-node-aos", "probe/pd-energy-warp-shfl", "probe/williams-field-fp64"]
MAX = tp.P157_MAX_NB


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen155"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes157.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 36
    i, j, k, start = tp._p157_lattice(n)
    N = len(i)
    assert start[0] == 0 and start[-1] == N and len(start) == 12 * 6 * 4 + 1
    assert np.diff(start).max() == 27 and (np.diff(start) < 27).sum() > 0          # the hole's cells
    assert N == tp._p157_nodes(n) and 0.02 < 1 - N / (36 * 18 * 12) < 0.06
    X = tp._p157_pos(n, rng)
    dx = tp.P157_DX
    assert X.dtype == np.float32 and (np.abs(X[:, :3] / dx - np.c_[i, j, k] - 0.5) <= 0.0501).all()
    cell = ((X[:, 2] // (3 * dx)) * 6 + X[:, 1] // (3 * dx)) * 12 + X[:, 0] // (3 * dx)
    assert (np.diff(cell) >= 0).all() and (cell[start[:-1][np.diff(start) > 0]] ==
                                            np.flatnonzero(np.diff(start) > 0)).all()   # sorted by cell
    c, s0, mu, kappa, kic = tp._p157_material()
    assert abs(s0 - 1.21e-4) < 1e-6 and abs(c - 3.395e21) < 1e18 and kappa == 2 and abs(kic - 5.4e5) < 1e3
    X, U, nnb, nbr, brk = tp._p157_state(n, rng)
    used = np.arange(MAX)[None, :] < nnb[:, None]
    hx, hy, hr = tp.P157_HOLE[0] * n, tp.P157_HOLE[1] * 18, tp.P157_HOLE[2] * 18
    interior = ((i >= 3) & (i < n - 3) & (j >= 3) & (j < 15) & (k >= 3) & (k < 9) &
                (np.hypot(i + 0.5 - hx, j + 0.5 - hy) > hr + 3.2))              # a whole horizon around
    assert 92 <= nnb[interior].min() and nnb.max() <= 122 and abs(nnb[interior].mean() - 107) < 2
    assert nnb.min() < 40 and nbr[~used].max() == 0 and brk[~used].max() == 0
    rows = np.repeat(np.arange(N), nnb)
    key = (rows * N + nbr[used]) * 2 + brk[used]
    assert (np.sort(key) == np.sort((nbr[used] * N + rows) * 2 + brk[used])).all()   # symmetric bonds, flags
    assert (rows != nbr[used]).all() and len(np.unique(key // 2)) == len(key)
    yc, a0, tip = tp._p157_crack(n)
    y = X[:, 1].astype(np.float64)
    cross = (y[rows] < yc) != (y[nbr[used]] < yc)
    xm = (X[rows, 0] + X[nbr[used], 0]) / 2
    assert brk[used][cross & (xm < tip - 0.004)].all() and not brk[used][cross & (xm > tip + 0.025)].any()
    assert 0.02 < brk[used].mean() < 0.08 and abs(brk[used][~cross & (xm < tip - 0.01) &
                                                           (np.abs((y[rows] + y[nbr[used]]) / 2 - yc) < 0.003)].mean()
                                                    - tp.P157_WAKE) < 0.03
    phi = brk.sum(axis=1) / nnb
    assert (phi == 0).mean() > 0.25 and 0.25 < phi.max() < 0.8 and np.median(phi[phi > 0]) < 0.1   # skewed
    l0, s, _ = tp._p157_stretch(X, U, nnb, nbr)
    intact = used & (brk == 0)
    assert 10 < (s[intact] > s0).sum() < 0.001 * intact.sum() and np.nanmedian(np.abs(s)) < s0 / 5
    a, b = tp._p157_coefs(n, rng)
    assert abs(a[0] - 1.1 * kic / np.sqrt(2 * np.pi)) < 1e-6 and a[1] < 0 and b[0] < 0 and len(a) == 10
    g, rho, dt, vg, nn = tp._p157_vv_args(n, rng)
    assert g.dtype.itemsize == 64 and nn == N
    assert ((g["bc"] == 1) == (j >= 15)).all() and ((g["bc"] == 2) == (j < 3)).all()     # the grips
    assert 0.01 < np.median(np.abs(g["vy"])) < 0.5 and np.abs(g["ax"]).max() > 10 * np.median(np.abs(g["ax"]))
    assert np.allclose(g["fx"] / rho, g["ax"], rtol=0.6, atol=2e4)


# ---- pd-horizon-cells-smem ----

def _lists(nnb, nbr, brk, N):
    """The kernel's neighbour lists as a dense bond matrix (0 none, 1 intact, 2 broken)."""
    nbr, brk = nbr.reshape(N, MAX), brk.reshape(N, MAX)
    used = np.arange(MAX)[None, :] < nnb[:, None]
    assert nbr[~used].max() == 0 and brk[~used].max() == 0 and brk.max() <= 1     # untouched past nnb
    A = np.zeros((N, N), np.int8)
    A[np.repeat(np.arange(N), nnb), nbr[used]] = 1 + brk[used]
    assert ((A > 0).sum(axis=1) == nnb).all()                                     # no neighbour twice
    return A


@pytest.mark.parametrize("n, policy, keep", [(12, "lockstep", 27), (6, "random", 10)])
def test_pd_build_neighbors(n, policy, keep):
    # 12: 4 x 2 x 4 cells, the hole's column of 12 nodes missing; 6: 2 x 1 x 4 cells, only
    # each cell's first 10 nodes kept (the random policy is dear): cells partly filled
    host = tp._p157_nb_args(n, np.random.default_rng(0))
    start = host[1]
    sel = np.concatenate([np.arange(a, min(b, a + keep)) for a, b in zip(start[:-1], start[1:])])
    N = len(sel)
    host = [host[0][sel], np.concatenate([[0], np.cumsum(np.minimum(np.diff(start), keep))]).astype(np.int32),
            np.zeros(N, np.int32), np.zeros(N * MAX, np.int32), np.zeros(N * MAX, np.uint8), *host[5:]]
    out = run("probe/pd-horizon-cells-smem", host, n, policy=policy)
    A = _lists(out[2], out[3], out[4], N)
    bond, flag, amb = tp._p157_nb_ref(host[0], *host[8:])
    ref = bond.astype(np.int8) + flag
    # float32 may decide a pair within 1e-6 of the horizon (or of the pre-crack's end) either way
    assert ((A == ref) | amb).all() and amb.sum() < 8
    assert (A == 2).sum() > 0 and (out[2] < 30).any() and out[2].max() > (100 if keep == 27 else 20)
    assert (A == A.T).all()


# ---- pd-pmb-bond-force ----

@pytest.mark.parametrize("n, seed", [(12, 0), (6, 1)])
def test_pd_bond_force(n, seed):
    # (a thread touches only its own bonds' flags: lockstep is enough)
    host, out, *_ = launch("probe/pd-pmb-bond-force", n, seed=seed)
    X, U, nnb, nbr, b0, _, c, s0, N = host
    b0, b1 = b0.reshape(N, MAX), out[4].reshape(N, MAX)
    l0, s, _ = tp._p157_stretch(X, U, nnb, nbr)
    used = ~np.isnan(s)
    # the float32 stretch is within 4e-7 of float64's (bond lengths rounded to ~2^-23 relative
    # over 3 mm, a stretch of ~1e-4): a bond that close to s0 may break either way
    amb = np.abs(np.nan_to_num(s) - np.float64(s0)) < 4e-7
    want = (b0 == 1) | (used & (np.nan_to_num(s) > s0))
    assert ((b1 == 1) == want)[~amb].all() and (b1 >= b0).all() and (b1[~used] == 0).all()
    assert ((b1 == 1) & (b0 == 0)).sum() > 10                                  # bonds break at the tip
    # forces over the bonds left intact: each bond's term c s V off by c V 2e-7 at most (0.2% of
    # a term at the typical stretch s0 / 2; the terms largely cancel)
    ref = tp._p157_bf_ref(X, U, nnb, nbr, used & (b1 == 0), float(c))
    tol = float(c) * tp.P157_DX ** 3 * 2e-7 * nnb
    assert (np.abs(out[5][:, :3] - ref) <= tol[:, None]).all() and (out[5][:, 3] == 0).all()
    assert np.abs(ref).max() > 20 * tol.max()


def test_pd_bond_force_uniform():
    n = 6
    host = tp._p157_bf_args(n, np.random.default_rng(0))
    X, N = host[0], host[8]
    h = list(host)
    # a rigid translation: no stretch anywhere, no force, nothing breaks
    h[1] = np.tile(np.float32([2e-6, -1e-6, 5e-7, 0]), (N, 1))
    out = run("probe/pd-pmb-bond-force", h, n)
    assert (out[5] == 0).all() and (out[4] == host[4]).all()
    # a uniform stretch of 2 s0 about the origin: every bond breaks
    h[1] = (X * np.float32(2 * host[7])).astype(np.float32)
    h[1][:, 3] = 0
    out = run("probe/pd-pmb-bond-force", h, n)
    used = (np.arange(MAX)[None, :] < host[2][:, None]).ravel()
    assert (out[5] == 0).all() and (out[4][used] == 1).all() and (out[4][~used] == 0).all()


# ---- pd-damage-tip-atomicmax ----

@pytest.mark.parametrize("n, policy", [(12, "lockstep"), (6, "random")])
def test_pd_damage(n, policy):
    host, out, *_ = launch("probe/pd-damage-tip-atomicmax", n, policy=policy)
    X, nnb, brk, *_, N = host
    phi, hist, key = tp._p157_dm_ref(X, nnb, brk)
    assert (out[3] == phi).all() and (out[4] == hist).all() and int(out[5][0]) == key
    assert hist[0] > 0 and hist[1:].sum() > N // 4 and key > 0 and hist.sum() == N
    # hand-made: nothing broken but one node (all its bonds: phi 1, the last bin, the tip) and
    # one node without bonds (phi 0)
    h = list(host)
    h[2] = np.zeros_like(brk)
    h[1] = nnb.copy()
    h[1][5] = 0
    i = int(np.argmin(X[:, 0]))
    h[2][i * MAX:i * MAX + nnb[i]] = 1
    h[3], h[4], h[5] = np.zeros(N, np.float32), np.zeros(10, np.int32), np.zeros(1, np.uint64)
    out = run("probe/pd-damage-tip-atomicmax", h, n)
    assert out[3][i] == 1 and (np.delete(out[3], i) == 0).all() and list(out[4]) == [N - 1] + [0] * 8 + [1]
    assert int(out[5][0]) == (int(X[i, 0].view(np.uint32)) << 32 | i)


# ---- pd-verlet-node-aos ----

@pytest.mark.parametrize("n", [24, 18])
def test_pd_verlet(n):
    # (the grips are 3 rows each: a plate n / 2 = 12 and 9 rows tall has free rows between)
    host, out, *_ = launch("probe/pd-verlet-node-aos", n)
    g, rho, dt, vg, N = host
    ref = tp._p157_vv_ref(g, rho, dt, vg)
    got = out[0]
    # float32 in the kernel's order, but a multiply-add may be fused: off by a rounding or two of
    # the largest term (the sums cancel where the velocity is small against dt a)
    f = np.float32
    for ax in "xyz":
        a = g["f" + ax] / rho
        for q, terms, k in (("a", [a], 1), ("v", [g["v" + ax], f(0.5) * dt * (g["a" + ax] + a)], 2),
                            ("u", [g["u" + ax], dt * ref["v" + ax], f(0.5) * dt * dt * ref["a" + ax]], 4)):
            scale = np.max(np.abs([got[q + ax], ref[q + ax]] + terms), axis=0)
            assert (np.abs(got[q + ax] - ref[q + ax]) <= k * np.spacing(scale)).all(), q + ax
    grip = g["bc"] != 0
    assert grip.any() and (got["uy"] != g["uy"])[~grip].mean() > 0.9 and (got["ux"] == g["ux"])[grip].all()
    assert (got["vy"][g["bc"] == 1] == vg).all() and (got["vy"][g["bc"] == 2] == -vg).all()
    assert (got["ax"][grip] == 0).all() and (got["vx"][grip] == 0).all()
    for f in ("x", "y", "z", "fx", "fy", "fz"):
        assert (got[f] == g[f]).all()                                               # read only


# ---- pd-energy-warp-shfl ----

@pytest.mark.parametrize("n", [12, 6])
def test_pd_strain_energy(n):
    # 12: 852 nodes in 107 blocks of 8 warps, the last block partial (the random policy costs
    # too much at 256 threads a block; the sanitizer checks the shared stage all the same)
    host, out, *_ = launch("probe/pd-energy-warp-shfl", n)
    X, U, nnb, nbr, brk, _, _, c, N = host
    W, tot = tp._p157_se_ref(X, U, nnb, nbr, brk, c)
    # each bond's c s^2 |xi| V / 4 is off by c s |xi| V 2e-7 / 2 at most (the stretch's 2e-7): summed
    l0, s, _ = tp._p157_stretch(X, U, nnb, nbr)
    intact = ~np.isnan(s) & (brk.reshape(N, MAX) == 0)
    tol = (0.5 * float(c) * np.where(intact, np.abs(s) * l0, 0) * tp.P157_DX ** 3 * 2.5e-7).sum(axis=1)
    assert (np.abs(out[5] - W) <= tol + 1e-6 * W).all() and W.max() > 100 * tol.max()
    V = X[:, 3].astype(np.float64)
    assert abs(out[6][0] - (out[5] * V).sum()) <= 1e-6 * out[6][0] and abs(out[6][0] - tot) <= 1e-3 * tot


# ---- williams-field-fp64 ----

@pytest.mark.parametrize("n", [12, 6])
def test_williams_field(n):
    host, out, syms, _ = launch("probe/williams-field-fp64", n)
    X, _, xt, yt, mu, kappa, N = host
    ux, uy = tp._p157_wm_ref(X[:, 0], X[:, 1], xt, yt, syms["c_wa"], syms["c_wb"], mu, kappa)
    # double against double by another route (complex powers): the float32 results agree to a
    # rounding, or to 1e-12 of the largest displacement where a sum cancels
    big = max(np.abs(ux).max(), np.abs(uy).max())
    for got, ref in ((out[1][:, 0], ux), (out[1][:, 1], uy)):
        assert (np.abs(got - ref) <= np.spacing(np.abs(ref).astype(np.float32)) + 1e-12 * big).all()
    assert (out[1][:, 2:] == 0).all()


def test_williams_closed_forms():
    # one term each: the mode I and mode II K-fields (Anderson's closed forms) and the
    # T-stress's uniform plane strain
    n = 6
    host, *_ = launch("probe/williams-field-fp64", n)
    X, _, xt, yt, mu, kappa, N = host
    dx, dy = X[:, 0] - xt, X[:, 1] - yt
    r, th = np.hypot(dx, dy), np.arctan2(dy, dx)
    K, T = 5e5, -2e5
    f = K / (2 * mu) * np.sqrt(r / (2 * np.pi))
    ch, sh = np.cos(th / 2), np.sin(th / 2)
    e = np.zeros(10)
    cases = [(np.r_[K / np.sqrt(2 * np.pi), e[1:]], e, f * ch * (kappa - 1 + 2 * sh ** 2),
              f * sh * (kappa + 1 - 2 * ch ** 2)),
             (e, np.r_[-K / np.sqrt(2 * np.pi), e[1:]], f * sh * (kappa + 1 + 2 * ch ** 2),
              -f * ch * (kappa - 1 - 2 * sh ** 2)),
             (np.r_[0, T / 4, e[2:]], e, T * (1 - tp.P157_NU) / (2 * mu) * dx, -T * tp.P157_NU / (2 * mu) * dy)]
    for q, (a, b, ux, uy) in enumerate(cases):
        out = run("probe/williams-field-fp64", host, n, symbols={"c_wa": a, "c_wb": b})
        big = max(np.abs(ux).max(), np.abs(uy).max())
        assert np.abs(out[1][:, 0] - ux).max() <= 1e-6 * big and np.abs(out[1][:, 1] - uy).max() <= 1e-6 * big
        if q == 0:                                        # mode I opens the crack: the faces apart
            assert (out[1][:, 1][dx < 0] * dy[dx < 0] > 0).all()
