"""probe-unseen203's kernels (kernels_cuda/probes205.cu) give independent references' answers
(float64 histories on the same random streams, segments split at the mesh's plane crossings,
dense complex solves and a Taylor matrix exponential, pair enumeration by searchsorted,
bincount and einsum) in the emulator at small sizes, with the sanitizer on: the timing
probes are only worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/delta-track-c5g7-lattice", "probe/tracklength-mesh-dda", "probe/cram16-burnup-chain",
       "probe/rossi-alpha-pulse-hist", "probe/fission-matrix-csr-warp", "probe/scatter-source-32g-smem"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen203"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes205.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # delta: C5G7's balance (Sigma_t = Sigma_a + the scattering row; the fission chamber has the
    # guide tube's scattering), the CDFs, the pin map
    bal = tp.P205_DT_SIGA + tp.P205_DT_SCAT.sum(axis=2)
    assert np.allclose(tp.P205_DT_SIGT[[0, 1, 3]], bal[[0, 1, 3]], rtol=2e-5)
    assert np.allclose(tp.P205_DT_SIGT, bal, rtol=3e-4)
    syms = tp._p205_dt_syms()
    cdf = syms["c_dt_cdf"].reshape(4, 7, 7)
    assert (np.diff(cdf, axis=2) >= 0).all() and (cdf[:, :, -1] == 1).all() and (cdf[3, 0, 0] < 0.3)
    assert (syms["c_dt_maj"] == syms["c_dt_sigt"].reshape(4, 7).max(axis=0)).all()
    pm = syms["c_dt_pin"].reshape(17, 17)
    assert list(np.bincount(pm.ravel())) == [264, 24, 1] and (pm == pm.T).all() and (pm == pm[::-1]).all()
    sx, sy, g = tp._p205_dt_args(1 << 16, rng)[:3]
    p = tp.P205_DT_PITCH
    px, py = (sx // p).astype(int), (sy // p).astype(int)
    r = np.hypot(sx - (px + 0.5) * p, sy - (py + 0.5) * p)
    assert (pm[py, px] == 0).all() and r.max() < tp.P205_DT_RF and abs(np.median(r) - tp.P205_DT_RF / 2 ** 0.5) < 0.01
    assert np.abs(np.bincount(g, minlength=7) / len(g) - tp.P205_DT_CHI).max() < 0.01
    fate, nc, cell, yld, margin, ev = tp._p205_dt_ref(*tp._p205_dt_args(4096, rng)[:4], syms)
    assert 0.07 < (fate == 1).mean() < 0.12 and (fate == 3).sum() == 0 and 17 < nc.mean() < 24
    assert 1.25 < yld.sum() / len(yld) < 1.4                   # k-infinity of a C5G7 UO2 assembly: ~1.33
    assert 1.2 < ev.mean() / nc.mean() < 1.5 and ev.reshape(-1, 32).max(axis=1).mean() > 2.5 * ev.mean()
    # track-tally: fundamental-mode starts, reflector tracks, lengths, weights
    tr, mesh = tp._p205_tt_args(1 << 16, rng)[:2]
    assert tr.dtype.itemsize == 36 and int(mesh["nx"]) == 170 and abs(float(mesh["dz"]) - 366 / 24) < 1e-5
    rad = np.hypot(tr["x"], tr["y"])
    core = rad < tp.P205_TT_RCORE
    gr = np.linspace(0, 100, 10001)
    w = gr * tp._p205_j0(2.405 * gr / 100)
    assert abs(rad[core].mean() - (gr * w).sum() / w.sum()) < 0.5
    out = (np.abs(tr["x"]) >= 107.1) | (np.abs(tr["y"]) >= 107.1) | (tr["z"] < 0) | (tr["z"] >= 366)
    assert 0.04 < out.mean() < 0.08 and abs((tr["group"] == 1).mean() - 0.4) < 0.01
    assert abs(tr["len"][tr["group"] == 0].mean() - 2.0) < 0.03 and abs(tr["len"][tr["group"] == 1].mean() - 0.8) < 0.02
    assert np.allclose(tr["u"] ** 2 + tr["v"] ** 2 + tr["w"] ** 2, 1, atol=1e-6) and abs(tr["w"].mean()) < 0.01
    assert abs((tr["wgt"] == 1).mean() - 0.7) < 0.01 and tr["wgt"].min() >= 0.25
    # cram: Pusa's coefficients approximate exp on the negative real axis, the chain is lower triangular
    z = -np.linspace(0, 500, 5001)
    r = tp.P205_BU_ALPHA0 + 2 * np.real(sum(a / (z - t) for a, t in zip(tp.P205_BU_ALPHA, tp.P205_BU_THETA)))
    assert np.abs(r - np.exp(z)).max() < 1e-13
    nuc, link = tp._p205_bu_chain()
    assert len(nuc) == tp.P205_BU_NN and len(link) == tp.P205_BU_NL and (link["from"] < link["to"]).all()
    assert (np.diff(link["to"]) >= 0).all() and (nuc["sig_f"] <= nuc["sig_a"]).all()
    N0, phi = tp._p205_bu_args(1 << 14, rng)[:2]
    N0 = N0.reshape(-1, tp.P205_BU_NN)
    names = [c[0] for c in tp.P205_BU_NUCS]
    col = lambda k: N0[:, names.index(k)]
    fresh = col("Pu239") == 0
    assert 0.3 < fresh.mean() < 0.36 and (N0[fresh].astype(bool).sum(axis=1) == 3).all()
    assert 0.018 < col("U238").min() and col("U238").max() < 0.025 and col("U235").max() < 0.045 * 0.0227 * 1.2
    assert 1e-4 < np.median(col("Pu239")[~fresh]) < 1.6e-4 and 1e-9 < np.median(col("Xe135")[~fresh]) < 3e-9
    assert 7e13 < np.percentile(phi, 1) and np.percentile(phi, 99) < 7e14 and 2.5e14 < np.median(phi) < 3.5e14
    A = tp._p205_bu_matrix(nuc, link, 3e14) * tp.P205_BU_DT
    assert np.abs(np.diag(A)).max() > 1000 and (np.triu(A, 1) == 0).all()              # stiff, triangular
    # rossi: the rates, the tubes, the dead time, and the die-away in the pairs' excess
    t, c = tp._p205_ra_events(1 << 18, rng)
    assert t.dtype == np.uint64 and c.dtype == np.uint8 and (np.diff(t.astype(np.int64)) >= 0).all()
    rate = len(t) / ((t[-1] - t[0]) / 1e9)
    assert 5.2e4 < rate < 6.2e4 and np.abs(np.bincount(c) / len(c) - np.array(tp.P205_RA_TUBES) / 8).max() < 0.005
    for k in range(8):
        assert np.diff(t[c == k].astype(np.int64)).min() > tp.P205_RA_DEAD
    h = tp._p205_ra_ref(t, c).astype(np.float64)
    ex = h - h[-40:].mean()
    lag = (np.arange(tp.P205_RA_NB) + 0.5) * 2048
    fit = np.polyfit(lag[:60], np.log(ex[:60]), 1)
    assert 40e3 < -1 / fit[0] < 60e3 and 1.25 < h[:4].mean() / h[-40:].mean() < 1.5
    # fission matrix: empty rows outside the core, entries within reach, sorted columns
    nx = 16
    rowptr, cols, val, s = tp._p205_fm_args(2 * nx ** 3, rng)[:4]
    nnz = np.diff(rowptr)
    assert 0.28 < (nnz == 0).mean() < 0.34 and nnz.max() == 81 and (val > 0).all() and (s[nnz == 0] == 0).all()
    rows = np.repeat(np.arange(len(nnz)), nnz)
    shape = (2 * nx, nx, nx)
    dz, dy, dx = np.array(np.unravel_index(cols, shape)) - np.array(np.unravel_index(rows, shape))
    assert (dx * dx + dy * dy + dz * dz <= 6.25).all() and (np.diff(cols)[np.diff(rows) == 0] > 0).all()
    assert (s[nnz > 0] > 0).all() and abs(s.sum() - (nnz > 0).sum()) < 1
    # scatter source: materials, a lattice's regions, the library's shape
    phi, mat, sig, nsf = tp._p205_ss_args(40 * 289 * 2, rng)[:4]
    assert mat.dtype == np.uint16 and abs((mat == 0).mean() - 0.2) < 1e-3
    assert abs((mat == 2).mean() - 0.6 * 25 / 289) < 1e-3                   # guide tubes' inner regions
    assert mat.max() + 1 == 3 + 2 * 264
    S = sig.reshape(-1, 32, 32)
    th = np.sqrt(tp.P205_SS_EDGES[:-1] * tp.P205_SS_EDGES[1:]) < tp.P205_SS_THERMAL
    up = np.tril(np.ones((32, 32), bool), -1)                                # to < from
    assert (S[:, up & ~(th[:, None] & th[None, :])] == 0).all() and (S[:, up] > 0).any()
    assert (S[0] == 0).mean() > 0.5 and (nsf.reshape(-1, 32)[:3] == 0).all() and (nsf.reshape(-1, 32)[3:] > 0).all()
    chi = tp._p205_ss_chi()
    assert abs(chi.sum() - 1) < 1e-6 and chi[th].sum() < 1e-6 and chi[:7].sum() > 0.96
    P = phi.reshape(-1, 32)
    assert (P > 0).all() and P[:, th].sum(axis=1)[mat == 0].mean() > P[:, th].sum(axis=1)[mat >= 3].mean()


# ---- delta-track-c5g7-lattice ----

def _dt_check(out, ref, n):
    fate, nc, cell, yld, margin, ev = ref
    ok = margin > 2e-4                                      # float32 may decide otherwise at a closer call
    assert ok.mean() > 0.8 and (out[7] == fate)[ok].all() and (out[6] == nc)[ok].all()
    assert list(out[8]) == [(out[7] == k).sum() for k in (1, 2, 3)] and out[8].sum() == n
    ab = np.bincount(cell[cell >= 0], minlength=289)
    fi = np.bincount(cell[cell >= 0], yld[cell >= 0], minlength=289)
    bad = (~ok).sum()
    assert out[4].sum() == (fate != 3).sum() and np.abs(out[4] - ab).sum() <= 2 * bad
    assert np.abs(out[5] - fi).sum() <= 2 * bad * yld.max() + 1e-5 * fi.sum()
    return ok


def test_delta_track():
    n = 64
    rng = np.random.default_rng(1)
    h = tp._p205_dt_args(n, rng)
    W = np.float32(17 * np.float32(1.26))
    # hand-made sources: the assembly's corner, its far edge (the wrap), the fission chamber's
    # and a guide tube's centres, a pin cell's corner, all fast or all thermal
    h[0][:6] = [0, W - np.float32(1e-5), 10.71, 2.5 * 1.26, 1.26, 20.0]
    h[1][:6] = [0, 5.0, 10.71, 5.5 * 1.26, 1.26, W - np.float32(1e-5)]
    h[2][:6] = [0, 6, 6, 0, 3, 6]
    syms = tp._p205_dt_syms()
    out = run("probe/delta-track-c5g7-lattice", h, n, symbols=syms)
    ref = tp._p205_dt_ref(h[0], h[1], h[2], h[3], syms)
    _dt_check(out, ref, n)
    assert set(out[7]) == {1, 2} and ref[1].max() > 30


def test_delta_track_black():
    # a black library (Sigma_a = Sigma_t): every neutron absorbed at its first real collision
    n = 96
    rng = np.random.default_rng(2)
    h = tp._p205_dt_args(n, rng)
    syms = tp._p205_dt_syms()
    syms["c_dt_siga"] = syms["c_dt_sigt"].copy()
    out = run("probe/delta-track-c5g7-lattice", h, n, symbols=syms)
    ref = tp._p205_dt_ref(h[0], h[1], h[2], h[3], syms)
    _dt_check(out, ref, n)
    assert (out[6] == 1).all() and (ref[5] > 1).any()                       # virtual collisions first
    mod = (ref[2] >= 0) & (out[7] == 1)
    assert mod.sum() > 10 and (out[7] == 2).sum() > 10


# ---- tracklength-mesh-dda ----

def _tt_check(out, ref):
    got = out[2].astype(np.float64)
    assert np.abs(got - ref).max() <= 5e-4 and abs(got.sum() - ref.sum()) <= 1e-5 * ref.sum() + 1e-3
    assert ((got > 1e-3) <= (ref > 0)).all() and ((ref > 1e-3) <= (got > 0)).all()


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_track_tally(policy):
    n = 1500 if policy == "lockstep" else 300
    rng = np.random.default_rng(3)
    h = tp._p205_tt_args(n, rng)
    tr = h[0]
    out = run("probe/tracklength-mesh-dda", h, n, policy=policy)
    ref = tp._p205_tt_ref(tr, h[1])
    _tt_check(out, ref)
    assert ref.max() > 0.5 and (ref > 0).sum() > n


def test_track_tally_edges():
    # a 10 x 10 x 4 mesh, one block striding over hand-made segments: along an axis, on a
    # face, entering from outside, missing the box, ending on a plane, empty, through it all
    n = 200
    rng = np.random.default_rng(4)
    h = tp._p205_tt_args(n, rng, nx=10, nz=4)
    tr, mesh = h[0], h[1]
    lo, d = float(mesh["x0"]), float(mesh["dx"])
    cases = [((5.0, 5.0, 10.0), (0, 0, 1), 400.0),          # up the z axis: 4 cells, out the top
             ((lo, 3.0, 50.0), (0, 1, 0), 30.0),            # on the low x face: inside
             ((-lo + 0.5, 3.0, 50.0), (0, 1, 0), 30.0),     # beyond the high x face: outside
             ((lo - 50, 1.0, 100.0), (1, 0, 0), 120.0),     # from the reflector in, along x
             ((lo - 50, 1.0, 100.0), (-1, 0, 0), 120.0),    # away from the mesh
             ((0.0, 0.0, 0.0), (0.6, 0.8, 0.0), d / 0.6),   # ends exactly on a plane
             ((1.0, 2.0, 3.0), (0, 0, 1), 0.0),             # no length
             ((lo - 1, lo - 1, -1.0), (0.48, 0.48, 0.7348469), 900.0)]  # corner to corner
    for k, (p, u, ln) in enumerate(cases):
        for f, v in zip(("x", "y", "z", "u", "v", "w", "len"), (*p, *u, ln)):
            tr[f][k] = v
    out = run("probe/tracklength-mesh-dda", h, n, grid=(1, 1))
    ref = tp._p205_tt_ref(tr, mesh)
    _tt_check(out, ref)
    one = tp._p205_tt_ref(tr[:1], mesh)
    assert (one > 0).sum() == 4 and abs(one.sum() - tr["wgt"][0] * (366 - 10)) < 1e-3
    assert tp._p205_tt_ref(tr[2:3], mesh).sum() == 0 and tp._p205_tt_ref(tr[1:2], mesh).sum() > 0
    assert (tp._p205_tt_ref(tr[7:8], mesh) > 0).sum() > 12


# ---- cram16-burnup-chain ----

def test_cram_deplete():
    n = 72
    rng = np.random.default_rng(5)
    h = tp._p205_bu_args(n, rng)
    N0 = h[0].reshape(n, -1)
    N0[-1] = 0                                              # an empty region
    h[1][-2] = 0                                            # no flux: decay alone
    out = run("probe/cram16-burnup-chain", h, n, symbols=tp._p205_bu_syms())
    ref, fr = tp._p205_bu_ref(h[0], h[1], h[2])
    got = out[3].reshape(n, -1)
    scale = N0.max(axis=1, keepdims=True)
    assert (np.abs(got - ref) <= 1e-9 * np.abs(ref) + 1e-12 * scale).all() and (got[-1] == 0).all()
    assert np.allclose(out[4], fr, rtol=1e-6, atol=0)
    # CRAM against a Taylor exponential of the same matrices (Pusa: ~1e-14 of the largest)
    nuc, link = tp._p205_bu_chain()
    for r in (0, 1, 2, n - 2):
        E = tp._p205_expm(tp._p205_bu_matrix(nuc, link, float(h[1][r])) * float(h[2]))
        assert (np.abs(E @ N0[r] - got[r]) <= 1e-11 * scale[r]).all()
    names = [c[0] for c in tp.P205_BU_NUCS]
    ix = {k: names.index(k) for k in ("I135", "U239", "Np239", "Pu239", "Xe135")}
    a, b = N0[n - 2], got[n - 2]
    for k in ("I135", "U239"):                              # short-lived, nothing feeding them: gone
        assert a[ix[k]] > 0 and abs(b[ix[k]]) < 1e-12 * a[ix[k]]
    # U-239 and Np-239 (12.7 half-lives) decayed into Pu-239
    gain = b[ix["Pu239"]] - a[ix["Pu239"]]
    assert abs(gain - a[ix["U239"]] - a[ix["Np239"]] * (1 - 0.5 ** (30 / 2.356))) < 1e-3 * a[ix["Np239"]]
    assert out[4][n - 2] == 0 and b[ix["Xe135"]] < 1e-12
    pu, u5 = names.index("Pu239"), names.index("U235")
    fresh = N0[:-2, pu] == 0
    assert fresh.sum() > 10 and (got[:-2, pu][fresh] > 1e-6).all() and (got[:-2, u5] < N0[:-2, u5]).all()


def test_cram_no_step():
    # dt = 0: CRAM returns the densities (to its own accuracy), the fission rates unchanged
    n = 40
    h = tp._p205_bu_args(n, np.random.default_rng(6))
    h[2] = np.float64(0.0)
    out = run("probe/cram16-burnup-chain", h, n, symbols=tp._p205_bu_syms())
    N0 = h[0].reshape(n, -1)
    assert (np.abs(out[3].reshape(n, -1) - N0) <= 1e-13 * N0.max(axis=1, keepdims=True)).all()


# ---- rossi-alpha-pulse-hist ----

@pytest.mark.parametrize("grid", [None, (3, 1)])
def test_rossi_hist(grid):
    n = 3000
    rng = np.random.default_rng(7)
    t, c, hist, nn = tp._p205_ra_args(n, rng)
    win = tp.P205_RA_NB << tp.P205_RA_SHIFT
    # hand-made: a tie of two tubes, a tie on one tube, lags of the window less one and the
    # window (just out), a bin's edges; then the last events
    base = int(t[0]) - 10 ** 7
    hand = np.array([0, 0, 0, 2047, 2048, win - 1, win], np.uint64) + np.uint64(base)
    t = np.concatenate([hand, t])
    c = np.concatenate([np.array([0, 1, 1, 4, 5, 2, 3], np.uint8), c])
    t, c = t[:n], c[:n]
    h = [t, c, hist, nn]
    out = run("probe/rossi-alpha-pulse-hist", h, n, grid=grid)
    ref = tp._p205_ra_ref(t, c)
    assert (out[2] == ref).all() and ref.sum() > 20 * n
    small = tp._p205_ra_ref(t[:7], c[:7])
    assert list(small[[0, 1, 254, 255]]) == [7, 3, 1, 6] and small.sum() == 17


# ---- fission-matrix-csr-warp ----

def test_fm_power():
    n = 2 * 10 ** 3
    rng = np.random.default_rng(8)
    h = tp._p205_fm_args(n, rng)
    out = run("probe/fission-matrix-csr-warp", h, n)
    ref, mag = tp._p205_fm_ref(*h[:5])
    assert (np.abs(out[5] - ref) <= 1e-6 * mag).all() and (out[5][np.diff(h[0]) == 0] == 0).all()
    assert abs(out[6][0] - out[5].astype(np.float64).sum()) <= 1e-12 * out[6][0]
    assert abs(out[6][0] - ref.sum()) <= 1e-6 * ref.sum()


def test_fm_power_rows():
    # rows of 0, 1, 31, 32, 33, 64, 65, 200 entries and a partial last block (13 rows)
    rng = np.random.default_rng(9)
    n = 13
    nnz = np.array([0, 1, 31, 32, 33, 64, 65, 200, 0, 3, 0, 7, 40])
    rowptr = np.concatenate([[0], np.cumsum(nnz)]).astype(np.int32)
    ncol = 300
    col = np.concatenate([np.sort(rng.choice(ncol, k, replace=False)) for k in nnz]).astype(np.int32)
    val = rng.random(rowptr[-1]).astype(np.float32)
    s = rng.random(ncol).astype(np.float32)
    h = [rowptr, col, val, s, np.float32(1 / 1.25), np.full(n, -1, np.float32), np.zeros(1), np.int32(n)]
    out = run("probe/fission-matrix-csr-warp", h, n)
    ref, mag = tp._p205_fm_ref(*h[:5])
    assert (np.abs(out[5] - ref) <= 1e-6 * mag).all() and out[5][0] == 0
    assert out[5][1] == np.float32(val[0] * s[col[0]] * h[4])              # one entry: two float roundings
    assert abs(out[6][0] - ref.sum()) <= 1e-6 * ref.sum()


# ---- scatter-source-32g-smem ----

@pytest.mark.parametrize("n, policy", [(1003, "lockstep"), (77, "random")])
def test_scatter_source(n, policy):
    rng = np.random.default_rng(10)
    h = tp._p205_ss_args(n, rng)
    syms = tp._p205_ss_syms()
    out = run("probe/scatter-source-32g-smem", h, n, policy=policy, symbols=syms)
    q, mag = tp._p205_ss_ref(h[0], h[1], h[2], h[3], h[4], syms["c_chi"])
    got = out[5].reshape(n, -1)
    assert (np.abs(got - q) <= 2e-6 * mag).all()
    fuel = h[1] >= 3
    fis = (h[3].reshape(-1, 32)[h[1]] * h[0].reshape(n, -1)).sum(axis=1)
    assert fuel.any() and (fis[fuel] > 0).all() and (fis[~fuel] == 0).all()
