"""probe-unseen209's kernels (kernels_cuda/probes211.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/ch-spinodal-halo2-smem", "probe/potts-moore-sublattice-ballot",
       "probe/kobayashi-dendrite-double-aniso", "probe/gb-stats-gridstride-atomics",
       "probe/cnt-nucleation-double-warp-append", "probe/apt-multiphase-local-union"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen209"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes211.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _brute_voronoi(n, cell, seed, pix):
    """The Laguerre grain of each pixel in pix by brute force over every seed (periodic)."""
    rng = np.random.default_rng(seed)
    m = n // cell
    oy, ox = rng.random((m, m)), rng.random((m, m))
    w = (tp.P211_VOR_WSD * rng.standard_normal((m, m)) * cell * cell).astype(np.float64)
    sy = (np.arange(m)[:, None] + oy) * cell
    sx = (np.arange(m)[None, :] + ox) * cell
    out = []
    for y, x in pix:
        dy = (y + 0.5 - sy + n / 2) % n - n / 2
        dx = (x + 0.5 - sx + n / 2) % n - n / 2
        out.append(int(np.argmin(dy ** 2 + dx ** 2 - w)))
    return np.array(out)


def test_data():
    rng = np.random.default_rng(0)
    # the tessellation: the nearest of the 9 local seeds is the nearest of all but rarely
    n, cell = 512, 32
    lab = tp._p211_voronoi(n, np.random.default_rng(5), cell)
    pix = rng.integers(0, n, (400, 2))
    assert (lab[pix[:, 0], pix[:, 1]] == _brute_voronoi(n, cell, 5, pix)).mean() > 0.99
    area = np.bincount(lab.ravel(), minlength=(n // cell) ** 2)
    assert (area == 0).mean() < 0.03 and 0.35 < area[area > 0].std() / area[area > 0].mean() < 0.55
    lab4, d4 = tp._p211_voronoi(n, np.random.default_rng(5), cell, top=4)
    assert (lab4[..., 0] == lab).all() and (d4[..., 0] == 0).all() and (np.diff(d4, axis=-1) >= 0).all()
    assert (lab4[..., 1:] != lab4[..., :1]).all() and (d4[..., 1] < 1).mean() > 0.03
    # Cahn-Hilliard: mean composition 0.4, a labyrinth at wavelength ~80, 4-cell interfaces
    n = 1024
    c = tp._p211_ch_field(n, rng).reshape(n, n).astype(np.float64)
    assert abs(c.mean() - tp.P211_CH_C0) < 0.03 and -0.05 < c.min() and c.max() < 1.05
    assert 0.04 < ((c > 0.1) & (c < 0.9)).mean() < 0.12 and np.median(np.abs(c - 0.5)) > 0.45
    S = np.abs(np.fft.rfft2(c - c.mean())) ** 2
    kb = np.rint(np.sqrt(np.fft.fftfreq(n)[:, None] ** 2 + np.fft.rfftfreq(n)[None, :] ** 2) * n).astype(int)
    Sr = np.bincount(kb.ravel(), S.ravel()) / np.maximum(np.bincount(kb.ravel()), 1)
    assert 60 < n / (np.argmax(Sr[1:100]) + 1) < 120
    # Potts: distinct 16-bit ids, boundary sites ~15%, the Boltzmann table
    s = tp._p211_grain_map(1024, rng).reshape(1024, 1024).astype(np.int64)
    assert s.max() < 1 << 16
    nb = np.stack([np.roll(np.roll(s, dy, 0), dx, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx])
    assert 0.1 < (nb != s).any(axis=0).mean() < 0.2
    assert len(np.unique(s)) > 0.97 * 1024 and np.bincount(s.ravel()).max() < 4 * 1024
    b = tp._p211_pt_syms(0, rng)["c_boltz"]
    assert b[0] == 1 and b[1] == pytest.approx(np.exp(-2)) and (np.diff(b) < 0).all()
    # Kobayashi: phi in [0, 1], six arms along theta0, T 0.9 in the solid, 0 far out
    phi, T = tp._p211_kb_fields(768, rng, nuclei=1)
    phi, T = phi.reshape(768, 768), T.reshape(768, 768)
    assert phi.min() >= 0 and phi.max() <= 1 and 0.001 < (phi > 0.5).mean() < 0.2
    assert T.max() < 0.92 and T.min() > -0.02 and np.median(T[phi > 0.99]) == pytest.approx(0.9, abs=0.01)
    yy, xx = np.nonzero(phi > 0.5)
    cy, cx = yy.mean(), xx.mean()
    ang = np.mod(np.arctan2(yy - cy, xx - cx) - tp.P211_KB_PAR["theta0"], np.pi / 3)
    r = np.hypot(yy - cy, xx - cx)
    far = r > np.quantile(r, 0.9)
    assert (np.minimum(ang[far], np.pi / 3 - ang[far]) < 0.2).mean() > 0.9        # the tips on the 6 axes
    # grain boundaries: orientations in [0, pi / 2), half in the cube component
    o = tp._p211_gb_ori(1 << 16, rng).astype(np.float64)
    assert o.min() >= 0 and o.max() < np.pi / 2
    near = np.minimum(o, np.pi / 2 - o) < np.deg2rad(15)
    assert 0.62 < near.mean() < 0.70                                     # 0.5 x 0.99 + 0.5 x 1 / 3
    th, bins = tp._p211_gb_mis(o[:5000], o[5000:10000])
    assert th.max() <= np.pi / 4 + 1e-6 and 0.42 < (th < np.deg2rad(15)).mean() < 0.54
    # nucleation: a lognormal field around 1.7 at%, supersaturated everywhere, a few masked halos
    n = 64
    c, mask = tp._p211_nu_field(n, rng, nprec=8)
    c = c.astype(np.float64)
    free = c < 0.3
    assert (c > tp.P211_NU_CEQ).all() and abs(np.median(c[free]) - tp.P211_NU_C0) < 0.001
    assert 0.09 < np.std(np.log(c[mask == 0])) < 0.14 and 0.001 < mask.mean() < 0.15 and (c[mask == 0] < 0.1).all()
    dgv, rs, prob = tp._p211_nu_prob(c[mask == 0])
    p = tp.P211_NU_PAR
    barrier = 16 * np.pi * p["gamma"] ** 3 / (3 * dgv ** 2) / p["kT"]
    assert 0.4e-9 < np.median(rs) < 0.65e-9 and 8 < barrier.min() and np.median(barrier) < 18
    assert 1e-6 < np.median(prob) < 1e-4 and prob.max() < 0.1
    # multi-phase field: ids distinct a cell, the largest first, a prefix of live slots
    f = tp._p211_apt_field(256, rng)
    ids, ph = f["id"].astype(np.int64), f["phi"]
    live = ids != tp.P211_APT_EMPTY
    k = live.sum(axis=1)
    assert (live == (np.arange(4)[None, :] < k[:, None])).all() and (ph[~live] == 0).all()
    assert (ph[live] >= tp.P211_APT_MIN).all() and (ph[:, 0] >= 0.5).all()
    assert (np.diff(ph, axis=1)[live[:, 1:]] <= 0).all()
    assert all(len(set(r[:kk])) == kk for r, kk in zip(ids[::97], k[::97]))
    frac = np.bincount(k, minlength=5) / len(k)
    assert frac[0] == 0 and 0.25 < frac[1] < 0.45 and 0.25 < frac[2] < 0.45 and 0.05 < frac[4] < 0.15


# ---- ch-spinodal-halo2-smem ----

@pytest.mark.parametrize("n", [16, 64])
def test_ch_spinodal(n):
    rng = np.random.default_rng(1)
    h = [tp._p211_ch_field(n, rng, lam=12.0, up=2), np.zeros(n * n, np.float32), np.int32(n),   # a finer labyrinth
         np.float32(tp.P211_CH_A), np.float32(tp.P211_CH_KAPPA), np.float32(tp.P211_CH_MDT)]
    c = h[0].reshape(n, n)
    c[0, :] = 1.0                                    # a sharp interface on the periodic seam
    c[n - 1, :] = 0.0
    c[:, 3] = 0.5
    out = run("probe/ch-spinodal-halo2-smem", h, n)
    ref = tp._p211_ch_ref(h[0], n)
    assert np.abs(out[1].reshape(n, n) - ref).max() < 2e-6 and np.abs(ref - c).max() > 0.02
    h[0][:] = 0.25                                   # uniform: no change at all
    out = run("probe/ch-spinodal-halo2-smem", h, n)
    assert (out[1] == np.float32(0.25)).all()


# ---- potts-moore-sublattice-ballot ----

def test_potts_sweep():
    rng = np.random.default_rng(2)
    n = 128
    h = tp._p211_pt_args(n, rng, cell=16)
    syms = tp._p211_pt_syms(n, rng)
    s = h[0].copy()
    total = 0
    for sub in ((0, 0), (1, 0), (0, 1), (1, 1)):    # a full sweep, sublattice by sublattice
        h[2], h[3], h[4] = np.int32(sub[0]), np.int32(sub[1]), np.uint32(77 + sub[0] + 2 * sub[1])
        h[5][:] = 0
        out = run("probe/potts-moore-sublattice-ballot", h, n, symbols=syms)
        ref, fl = tp._p211_pt_ref(s, n, sub[0], sub[1], int(h[4]), syms["c_boltz"])
        assert (out[0].reshape(n, n) == ref).all() and out[5][0] == fl
        total += fl
        s = ref.ravel().astype(np.uint16)
        h[0] = out[0]
    assert total > 100 and (s != tp._p211_pt_args(n, np.random.default_rng(2), cell=16)[0]).mean() < 0.1


def test_potts_cases():
    rng = np.random.default_rng(3)
    n = 64
    h = tp._p211_pt_args(n, rng, cell=16)
    cold = {"c_boltz": np.array([1] + [0] * 8, np.float32)}             # kT 0: only downhill or level moves
    old = h[0].copy()
    out = run("probe/potts-moore-sublattice-ballot", h, n, symbols=cold)
    ref, fl = tp._p211_pt_ref(old, n, 1, 0, 20250, cold["c_boltz"])
    assert (out[0].reshape(n, n) == ref).all() and out[5][0] == fl > 0
    # a lone site of another grain flips back (dE -8); ids at the top of the 16-bit range
    s = np.full((n, n), 65535, np.uint16)
    s[10, 21] = 65534
    s[32, 63] = 7                                    # on the seam: its neighbours wrap
    h[0] = s.ravel().copy()
    h[5][:] = 0
    out = run("probe/potts-moore-sublattice-ballot", h, n, symbols=cold)
    assert (out[0] == 65535).all() and out[5][0] == 2
    h[0] = np.full(n * n, 300, np.uint16)             # one grain: nothing to do
    h[5][:] = 0
    out = run("probe/potts-moore-sublattice-ballot", h, n, symbols=tp._p211_pt_syms(n, rng))
    assert (out[0] == 300).all() and out[5][0] == 0


# ---- kobayashi-dendrite-double-aniso ----

def test_kobayashi():
    rng = np.random.default_rng(4)
    n = 72                                           # partial blocks in x
    phi, T = tp._p211_kb_fields(n, rng, nuclei=4, ell=4.0)
    h = [phi, T, np.zeros(n * n), np.zeros(n * n), np.int32(n), tp._p211_kb_params()]
    out = run("probe/kobayashi-dendrite-double-aniso", h, n)
    pn, Tn = tp._p211_kb_ref(phi, T, n)
    assert np.abs(out[2].reshape(n, n) - pn).max() < 1e-12 and np.abs(out[3].reshape(n, n) - Tn).max() < 1e-12
    assert np.abs(pn - phi.reshape(n, n)).max() > 0.01
    # a half-plane of solid along the left edge (the clamped edges), the melt cold
    phi = np.zeros((n, n))
    phi[:, :20] = 1
    phi[:, 20] = 0.5
    T = np.where(phi > 0, 0.9, 0.0)
    h = [phi.ravel(), T.ravel(), np.zeros(n * n), np.zeros(n * n), np.int32(n), tp._p211_kb_params()]
    out = run("probe/kobayashi-dendrite-double-aniso", h, n)
    pn, Tn = tp._p211_kb_ref(phi, T, n)
    got = out[2].reshape(n, n)
    assert np.abs(got - pn).max() < 1e-12 and np.abs(out[3].reshape(n, n) - Tn).max() < 1e-12
    assert (got[:, :19] == 1).all() and (got[:, 22:] == 0).all() and (got[:, 20] > 0.5).all()   # the front advances


# ---- gb-stats-gridstride-atomics ----

def _check_gb(h, n, grid=None, policy="lockstep"):
    out = run("probe/gb-stats-gridstride-atomics", h, n, grid=grid, policy=policy)
    area, perim, hist, tj, en, near = tp._p211_gb_ref(h[0], h[1], n)
    assert (out[3] == area).all() and (out[4] == perim).all() and out[6][0] == tj
    assert out[7][0] == pytest.approx(en, rel=2e-5, abs=1e-5)
    if near > 1e-6:
        assert (out[5] == hist).all()
    else:
        assert out[5].sum() == hist.sum() and np.abs(out[5] - hist).sum() <= 2
    return out


@pytest.mark.parametrize("n,cell,grid,policy", [(64, 16, None, "lockstep"), (32, 8, (3,), "random")])
def test_gb_stats(n, cell, grid, policy):
    rng = np.random.default_rng(5)
    h = tp._p211_gb_args(n, rng, cell=cell)
    out = _check_gb(h, n, grid, policy)
    assert out[5].sum() > 4 * n and out[6][0] > 5 and out[3].sum() == n * n


def test_gb_cases():
    rng = np.random.default_rng(6)
    n = 32
    h = tp._p211_gb_args(n, rng, cell=16)
    h[0][:] = 5                                      # a single grain: no boundary at all
    out = _check_gb(h, n)
    assert out[3][5] == n * n and out[4].sum() == 0 and out[5].sum() == 0 and out[6][0] == 0 and out[7][0] == 0
    # three vertical bands (periodic: 3 boundaries, each 32 edges), one junction row with a 4th grain
    lab = np.zeros((n, n), np.uint16)
    lab[:, 10:20], lab[:, 20:] = 1, 2
    lab[16, 5] = 3
    h = tp._p211_gb_args(n, rng, cell=16)
    h[0] = lab.ravel()
    h[1][:4] = [0.1, 0.1, 0.1 + np.float32(np.pi / 2), 1.0]       # 0 | 1 equal, 1 | 2 equal mod 90 deg
    out = _check_gb(h, n)
    assert out[4][0] == 32 + 32 + 4 and out[4][1] == 64 and out[4][3] == 4
    assert out[5][0] == 96 and out[5][27] == 4 and out[7][0] == pytest.approx(4.0, abs=1e-2)   # grain 3's edges


# ---- cnt-nucleation-double-warp-append ----

def _nu_case(n, rng, boost):
    c, m = tp._p211_nu_field(n, rng, nprec=max(1, int(tp.P211_NU_PREC * (n / 256) ** 3)))
    par = dict(tp.P211_NU_PAR)
    par["vdt"] *= boost
    h = [c, m, np.int32(n), np.uint32(11), np.zeros(4096, tp.P211_NU_DTYPE), np.zeros(1, np.int32),
         np.int32(4096), np.zeros(1, np.float64)]
    return h, par


@pytest.mark.parametrize("n,boost,grid,policy", [(32, 100, None, "lockstep"), (16, 800, (3,), "random")])
def test_cnt_nucleation(n, boost, grid, policy):
    rng = np.random.default_rng(7)
    h, par = _nu_case(n, rng, boost)
    out = run("probe/cnt-nucleation-double-warp-append", h, n, symbols=tp._p211_nu_syms(n, rng, par), grid=grid,
              policy=policy)
    cells, rs, dg, marg = tp._p211_nu_ref(h[0], h[1], n, 11, par)
    assert len(marg) == 0 and 50 < len(cells) < 4096
    k = out[5][0]
    nu = out[4][:k]
    got = nu["x"] + n * nu["y"] + n * n * nu["z"]
    o = np.argsort(got)
    assert k == len(cells) and (got[o] == cells).all() and (out[4][k:]["r"] == 0).all()
    assert np.allclose(nu["r"][o], rs, rtol=1e-6)
    assert out[7][0] == pytest.approx(dg, rel=1e-12)


def test_cnt_overflow_and_none():
    rng = np.random.default_rng(8)
    n = 32
    h, par = _nu_case(n, rng, 100)
    h[6] = np.int32(10)                              # 10 slots: the count goes on, the rest dropped
    syms = tp._p211_nu_syms(n, rng, par)
    out = run("probe/cnt-nucleation-double-warp-append", h, n, symbols=syms)
    cells, rs, dg, marg = tp._p211_nu_ref(h[0], h[1], n, 11, par)
    got = out[4][:10]["x"] + n * out[4][:10]["y"] + n * n * out[4][:10]["z"]
    assert out[5][0] == len(cells) > 10 and len(set(got)) == 10 and set(got) <= set(cells)
    assert (out[4][10:]["r"] == 0).all()
    # everything depleted or at the solubility: no nucleus, no driving force from the latter
    h, par = _nu_case(n, rng, 100)
    h[1][:] = 1
    h[0][: n * n] = np.float32(0.001)
    out = run("probe/cnt-nucleation-double-warp-append", h, n, symbols=tp._p211_nu_syms(n, rng, par))
    cells, rs, dg, marg = tp._p211_nu_ref(h[0], h[1], n, 11, par)
    assert out[5][0] == 0 and len(cells) == 0 and out[7][0] == pytest.approx(dg, rel=1e-12)


# ---- apt-multiphase-local-union ----

def _check_apt(f, n, grid=None):
    h = [f, np.zeros(n * n, tp.P211_APT_DTYPE), np.int32(n)] + [np.float32(v) for v in tp.P211_APT_PAR]
    out = run("probe/apt-multiphase-local-union", h, n, grid=grid)[1]
    ref, marg = tp._p211_apt_ref(f, n)
    marg = set(marg)
    bad = []
    for i, (ids, ph) in enumerate(ref):
        k = len(ids)
        ok = list(out["id"][i][:k]) == ids and (out["id"][i][k:] == tp.P211_APT_EMPTY).all() \
            and np.allclose(out["phi"][i][:k], ph, rtol=1e-5, atol=1e-7) and (out["phi"][i][k:] == 0).all()
        if not ok and i not in marg:
            bad.append(i)
    assert bad == [] and len(marg) < 0.01 * n * n
    return out, ref


def test_apt_grain_growth():
    rng = np.random.default_rng(9)
    n = 64
    f = tp._p211_apt_field(n, rng, cell=16)
    out, ref = _check_apt(f, n)
    k = np.array([len(r[0]) for r in ref])
    assert (k == 1).sum() > 100 and (k >= 3).sum() > 300


def test_apt_cases():
    n = 32
    f = np.zeros(n * n, tp.P211_APT_DTYPE)
    ids, ph = f["id"].reshape(n, n, 4), f["phi"].reshape(n, n, 4)
    ids[:] = tp.P211_APT_EMPTY
    ids[..., 0], ph[..., 0] = 9, 1.0                 # grain 9 everywhere, fully
    ids[0:8, 0:8, 0], ph[0:8, 0:8, 0] = tp.P211_APT_EMPTY, 0     # an empty patch at the corner (periodic edges)
    for j, (y, x) in enumerate(((20, 19), (20, 21), (19, 20), (21, 20), (20, 20))):
        ids[y, x] = [100 + j, 200 + j, 9, 300 + j]   # 5 cells of 4 grains each: a union of 16
        ph[y, x] = [0.4, 0.3, 0.2 + 0.01 * j, 0.05]
    ids[25, 25, :2], ph[25, 25, :2] = [9, 65534], [0.99, 1e-5]    # a vanishing second grain: dropped
    out, ref = _check_apt(f, n)
    oi, op = out["id"].reshape(n, n, 4), out["phi"].reshape(n, n, 4)
    assert (oi[2:6, 2:6] == tp.P211_APT_EMPTY).all() and (op[2:6, 2:6] == 0).all()
    assert (oi[0, 0:8, 0] == 9).all() and (op[0, 2:6, 0] == np.float32(0.1)).all()   # fed by the seam
    assert (oi[12:16, 28:32, 0] == 9).all() and (op[12:16, 28:32, 0] == 1).all()
    assert (oi[12:16, 28:32, 1:] == tp.P211_APT_EMPTY).all()
    assert (oi[20, 20] != tp.P211_APT_EMPTY).all() and len(ref[20 * n + 20][0]) == 4
    assert list(oi[25, 25, 1:]) == [tp.P211_APT_EMPTY] * 3
