"""probe-unseen207's kernels (kernels_cuda/probes209.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/dose-siddon-drr-int16-const", "probe/dose-pencil-beam-smem-beamlets",
       "probe/dose-mc-photon-woodcock-atomics", "probe/dose-dvh-bitmask-shared-atomics",
       "probe/dose-gamma-index-smem-ballot", "probe/dose-fluence-gradient-csr-atomics"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen207"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes209.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # the CT: air round a body, lungs, bone; the calibration through (0 HU, 1.0)
    ct = tp._p209_thorax((128, 128, 32), (2.5, 2.5, 10.0), rng)
    assert ct.dtype == np.int16 and ct.shape == (32, 128, 128) and ct.min() >= -1024 and ct.max() <= 3071
    mat = tp._p209_mc_mat(ct)
    frac = np.bincount(mat.ravel(), minlength=4) / mat.size
    assert 0.3 < frac[0] < 0.5 and 0.12 < frac[1] < 0.25 and 0.3 < frac[2] < 0.45 and 0.01 < frac[3] < 0.06
    assert -860 < np.median(ct[mat == 1]) < -800 and 25 < np.median(ct[mat == 2]) < 50
    assert np.abs(ct[mat == 0] + 1000).mean() < 8                         # air: -1000 and a little noise
    assert ct[:, 88:98, 60:68].max() > 800                                # the vertebra's cortex
    lut = tp._p209_hu_lut()
    assert lut[0] == 0 and lut[64] == 1 and (np.diff(lut) > 0).all() and lut[-1] == pytest.approx(2.6)
    assert tp._p209_rho(np.array([-1024, 0, 1000, 3071])) == pytest.approx([0, 1, 1.5, 2.6], abs=1e-3)
    # the DRR's geometry: a point source 1 m from the isocentre, the panel 1.5 m, square to the ray
    g = tp._p209_dr_geom(64)[0]
    iso = np.array(tp.P209_DR_DIM) * np.array(tp.P209_DR_VOX) / 2
    ctr = g["det0"] + 31.5 * g["du"] + 31.5 * g["dv"]
    assert np.linalg.norm(g["src"] - iso) == pytest.approx(1000, rel=1e-6)
    assert np.linalg.norm(ctr - g["src"]) == pytest.approx(1500, rel=1e-6)
    assert abs(np.dot(g["du"], ctr - g["src"])) < 1e-3 and np.linalg.norm(g["du"]) * 64 == pytest.approx(410)
    # the pencil beam: the depth dose's build-up, the beamlets round the target, the depths
    idd = tp._p209_pb_idd()
    assert idd[0] == pytest.approx(0.22, abs=0.01) and np.argmax(idd) == 15 and 0.16 < idd[-1] < 0.19
    bl = tp._p209_pb_beamlets(rng, (100.0, 50.0), tp.P209_PB_AXES)
    assert 550 < len(bl) < 680 and bl["w"].min() >= 0.05 and bl["w"].max() <= 2.5 and 0.9 < np.median(bl["w"]) < 1.3
    assert np.allclose(np.fmod(bl["x"] - 100, 2.5), 0, atol=1e-4) and np.abs(bl["x"] - 100).max() <= 33
    wed = tp._p209_pb_wed((64, 64, 8), 5.0, rng)
    assert (np.diff(wed, axis=1) >= 0).all() and wed[:, :8].max() < 1 and 150 < wed[:, -1, 32].min() < 260
    # the photon tables: water's 1 MeV attenuation (NIST 0.0707 /cm), photoelectric falling with E
    mu, mx, pe = tp._p209_mc_tables()
    assert mu[2, 20] / 1.04 * 10 == pytest.approx(0.0707, rel=0.03) and (mx >= mu).all() and (mx == mu.max(0)).all()
    assert (np.diff(pe, axis=1) < 0).all() and pe[2, 0] > 0.9 and pe[3, 10] > pe[2, 10] and pe[2, 20] < 1e-3
    cdf, e = tp._p209_mc_spectrum()
    assert cdf[-1] == 1 and (np.diff(cdf) > 0).all() and 1.4 < (np.diff(cdf, prepend=0) * e).sum() < 1.7
    # the prostate plan: 78 Gy in the PTV, the CTV inside it, no dose outside the body
    dose, mask = tp._p209_dv_plan((96, 64, 40), (4.0, 4.0, 4.0), rng)
    b = [(mask >> k) & 1 == 1 for k in range(8)]
    assert (dose[~b[0]] == 0).all() and (mask[~b[0]] == 0).all() and (b[2] <= b[1]).all()
    assert 77.5 < dose[b[1]].mean() < 80 and dose[b[1]].min() > 74 and dose.max() < 85
    assert all(b[k].sum() > 0 for k in range(8)) and (b[1] & b[3]).sum() > 0 and (b[1] & b[4]).sum() > 0
    assert np.median(dose[b[0]]) < 5 and 15 < dose[b[5]].mean() < 25 and 0.55 < b[0].mean() < 0.75
    # portal images: non-negative plans, their maxima, 10 .. 35% of the pixels over 10%
    h = tp._p209_gm_args(3, rng)
    r = h[0].reshape(3, 1024, 1024)
    assert (r >= 0).all() and np.allclose(h[2], r.max(axis=(1, 2)))
    v = (h[1].reshape(3, -1) >= 0.1 * h[2][:, None]).mean(axis=1)
    assert (v > 0.08).all() and (v < 0.4).all() and (r[:, 0] < 0.01 * h[2][:, None]).all()     # the field inside
    assert 0.002 < np.std(h[1].reshape(3, -1)[:, :1000] / h[2][:, None]) < 0.006                # the panel's noise
    # the dose-influence matrix: sorted rows, unique columns a row, unit weights give the PTV 78 Gy
    rp, col, val, org, w, per = tp._p209_fg_problem((50, 35, 20), 8.0, rng)
    assert rp[0] == 0 and (np.diff(rp) >= 0).all() and rp[-1] == len(col) and col.max() < len(w) == sum(per)
    rows = np.repeat(np.arange(len(org)), np.diff(rp))
    assert len(np.unique(rows.astype(np.int64) * len(w) + col)) == len(col) and (val > 0).all()
    d1 = np.bincount(rows, val.astype(np.float64), minlength=len(org))
    assert d1[org == 1].mean() == pytest.approx(78, rel=1e-4) and (d1[org == 0] == 0).all()
    assert len(per) == 9 and min(per) > 100 and 0.7 <= w.min() and w.max() <= 1.3


# ---- dose-siddon-drr-int16-const ----

def _drr(ct, dim, vox, nu, nv, gantry, det, grid):
    g = tp._p209_dr_geom(nu, dim=dim, vox=vox, gantry=gantry, det=det, nv=nv)
    h = [ct.ravel(), np.zeros(nu * nv, np.float32), np.zeros(nu * nv, np.uint16)]
    out = run("probe/dose-siddon-drr-int16-const", h, nu, symbols={"c_drr": g, "c_hu_rho": tp._p209_hu_lut()},
              grid=grid)
    return g, out[1].reshape(nv, nu), out[2].reshape(nv, nu)


@pytest.mark.parametrize("gantry", [20.0, 90.0])
def test_siddon_drr(gantry):
    rng = np.random.default_rng(1)
    dim, vox = (32, 28, 20), (8.0, 9.0, 12.0)
    ct = tp._p209_thorax(dim, vox, rng)
    g, rpl, drr = _drr(ct, dim, vox, 24, 20, gantry, 460.0, (2, 2))      # partial blocks; some rays miss
    ref = tp._p209_dr_ref(ct, g)
    assert np.allclose(rpl, ref, rtol=1e-4, atol=1e-3) and ref.max() > 150
    assert (ref == 0).any() and (rpl[ref == 0] == 0).all() and (drr[ref == 0] == 65535).all()
    want = np.floor(65535 * np.exp(-np.float64(np.float32(tp.P209_DR_MU)) * ref) + 0.5)
    assert np.abs(drr.astype(np.int64) - want).max() <= 1 and drr.min() < 2000


def test_siddon_water_box():
    # a box of water (0 HU, density 1): the radiological path is the geometric chord, by slabs
    dim, vox = (20, 16, 10), (10.0, 12.5, 15.0)
    ct = np.zeros(dim[::-1], np.int16)
    g, rpl, drr = _drr(ct, dim, vox, 16, 16, 0.0, 150.0, (1, 1))
    s = g["src"][0].astype(np.float64)
    hi = np.array(dim) * np.array(vox)
    u, v = np.meshgrid(np.arange(16), np.arange(16))
    p = g["det0"][0] + u[..., None] * g["du"][0] + v[..., None] * g["dv"][0]
    d = p - s
    with np.errstate(divide="ignore"):
        a0, a1 = -s / d, (hi - s) / d
    lo = np.maximum(np.minimum(a0, a1).max(axis=-1), 0)
    up = np.minimum(np.maximum(a0, a1).min(axis=-1), 1)
    chord = np.maximum(up - lo, 0) * np.linalg.norm(d, axis=-1)
    assert np.allclose(rpl, chord, rtol=1e-4, atol=1e-3) and chord.min() > 199 and chord.max() < 201.5


# ---- dose-pencil-beam-smem-beamlets ----

def _pb_case(rng, dim=(24, 20, 4), nb=300):
    n = dim[0] * dim[1] * dim[2]
    h = tp._p209_pb_args(n, rng, dim=dim)
    bl = np.zeros(nb, tp.P209_PB_DTYPE)                                  # 2 tiles, the second partial
    bl["x"] = rng.uniform(-10, 70, nb)
    bl["z"] = rng.uniform(-5, 15, nb)
    bl["w"] = rng.uniform(0, 2, nb)
    h[1], h[2] = bl, np.int32(nb)
    return h, n


def test_pencil_beam():
    rng = np.random.default_rng(2)
    h, n = _pb_case(rng)                                                  # 1920 voxels: 7.5 blocks
    wed = h[0]
    wed[:5] = [0.0, 398.5, 399.0, 520.0, 1.0]                             # the table's ends and beyond
    out = run("probe/dose-pencil-beam-smem-beamlets", h, n, symbols=tp._p209_pb_syms(n, rng))
    ref, marg = tp._p209_pb_ref(h)
    ok = marg > 1e-5
    assert ok.sum() >= n - 2 and np.allclose(out[8][ok], ref[ok], rtol=2e-5, atol=1e-9)
    assert ref.max() > 0.05 and (ref[:5] > 0).all()


def test_pencil_beam_single_beamlet():
    # one beamlet over a voxel's centre: its dose w idd(d) / (2 pi sigma^2) exactly; none: zeros
    rng = np.random.default_rng(3)
    h, n = _pb_case(rng, dim=(16, 8, 4), nb=1)
    h[0][:] = 50.0                                                        # 50 mm of water everywhere
    h[1][0] = (5 * 2.5 + 1.25, 1.25, 1.5)                                 # over voxel ix = 5, iz = 0
    out = run("probe/dose-pencil-beam-smem-beamlets", h, n, symbols=tp._p209_pb_syms(n, rng))
    sig = 3.0 + 0.012 * 50
    want = 1.5 * tp._p209_pb_idd()[50] / (2 * np.pi * sig * sig)
    d = out[8].reshape(4, 8, 16)
    assert d[0, :, 5] == pytest.approx(np.full(8, want), rel=1e-6)
    assert d[0, 0, 4] == pytest.approx(want * np.exp(-2.5 ** 2 / (2 * sig * sig)), rel=1e-5)
    assert (d[0, :, :1] == 0).all() and (d[1, :, 5] > 0).all()            # 3 sigma = 10.8 mm: 4 voxels
    h[2] = np.int32(0)
    h[8][:] = -1
    out = run("probe/dose-pencil-beam-smem-beamlets", h, n, symbols=tp._p209_pb_syms(n, rng), grid=(1, 1))
    assert (out[8][:256] == 0).all() and (out[8][256:] == -1).all()       # only the first block's voxels


# ---- dose-mc-photon-woodcock-atomics ----

def _mc(n, rng, syms, dim=(24, 24, 16), vox=5.0, field=60.0, mat=None, policy="lockstep"):
    h = tp._p209_mc_args(n, rng, dim=dim, vox=vox)
    if mat is not None:
        h[0][:] = mat
    h[1] = tp._p209_mc_beam(dim, vox, field=field, seed=int(rng.integers(1 << 32)))
    out = run("probe/dose-mc-photon-woodcock-atomics", h, n, symbols=syms, policy=policy)
    ref = tp._p209_mc_ref(h[0], h[1], n, syms)
    return h, out, ref


def _mc_check(out, ref, n):
    edep, esc, nint, marg = ref
    ok = marg > 2e-4
    assert ok.mean() > 0.97
    assert (out[4][ok] == nint[ok]).all() and ((out[3] == 0) == (esc == 0))[ok].all()
    assert np.allclose(out[3][ok], esc[ok], rtol=2e-5)
    e0 = out[2].sum(dtype=np.float64) + out[3].sum(dtype=np.float64)    # energy conserved
    assert e0 == pytest.approx(edep.sum() + esc.sum(), rel=1e-5)
    bad = (~ok).sum() * float(tp._p209_mc_spectrum()[1].max())
    assert np.abs(out[2] - edep).sum() <= 2 * bad + 1e-4 * e0           # the marginal histories' energy at most


@pytest.mark.parametrize("policy,n", [("lockstep", 384), ("random", 96)])
def test_mc_photon(policy, n):
    rng = np.random.default_rng(4)
    syms = tp._p209_mc_syms()
    h, out, ref = _mc(n, rng, syms, policy=policy)
    _mc_check(out, ref, n)
    if n > 100:
        assert ref[2].max() >= 4 and (ref[2] == 0).sum() > 20 and (ref[1] == 0).sum() >= 1 and ref[0].max() > 1


def test_mc_photon_cases():
    rng = np.random.default_rng(5)
    n = 256
    syms = tp._p209_mc_syms()
    # photoelectric only: every real collision absorbs the photon where it happens
    s2 = dict(syms, c_pe=np.ones_like(syms["c_pe"]))
    h, out, ref = _mc(n, rng, s2, mat=2)
    _mc_check(out, ref, n)
    assert set(np.unique(out[4])) == {0, 1} and ((out[4] == 1) == (out[3] == 0)).all()
    assert np.isin(out[3][out[3] > 0], syms["c_spec_e"]).all() and (out[4] == 1).sum() > 50
    # air only: almost nothing interacts, the photons keep their spectrum's energies
    h, out, ref = _mc(n, rng, syms, mat=0)
    _mc_check(out, ref, n)
    assert (out[4] == 0).mean() > 0.98 and np.isin(out[3][out[4] == 0], syms["c_spec_e"]).all()
    # a 1 mm beam along a bone rod in water (the beam's axis on the rod's voxels' corner)
    mat = np.full((16, 24, 24), 2, np.uint8)
    mat[7:9, :, 11:13] = 3
    h, out, ref = _mc(n, rng, syms, mat=mat.ravel(), field=1.0)
    _mc_check(out, ref, n)
    e = out[2].reshape(16, 24, 24)
    assert e[7:9, :, 11:13].sum() > 0.4 * e.sum() and e[7:9, :, 11:13].min() >= 0     # the first collisions


# ---- dose-dvh-bitmask-shared-atomics ----

def _dvh_check(h, out):
    H, S, M = tp._p209_dv_ref(h[0], h[1], h[3])
    assert (out[4].reshape(8, -1) == H).all()
    assert np.allclose(out[5], S, rtol=1e-12, atol=0) and (out[6].view(np.float32) == M).all()
    return H, S, M


@pytest.mark.parametrize("grid,policy", [(None, "lockstep"), ((3,), "random"), ((1,), "lockstep")])
def test_dvh_hist(grid, policy):
    rng = np.random.default_rng(6)
    dim = (40, 32, 5)
    h = tp._p209_dv_args(dim[0] * dim[1] * dim[2], rng, dim=dim)
    n = 6000                                                            # a partial last block
    h[0], h[1], h[2] = h[0][:n].copy(), h[1][:n].copy(), np.int32(n)
    h[0][:8] = [0.0, 7.8, 99.9, 100.0, 150.0, 78.0, 0.1, 1e-8]           # bin edges, the open last bin
    h[1][:8] = [1, 255, 3, 2, 128, 6, 255, 64]
    h[1][8:12], h[0][8:12] = 0, 50.0                                     # outside every structure: ignored
    out = run("probe/dose-dvh-bitmask-shared-atomics", h, n, grid=grid, policy=policy)
    H, S, M = _dvh_check(h, out)
    assert H[:, 999].sum() >= 2 and H[7].sum() > 0 and H.sum() == np.unpackbits(h[1]).sum()
    assert M[7] == np.float32(150.0) and S[1] > 0


def test_dvh_empty_and_single():
    rng = np.random.default_rng(7)
    # no structure anywhere: nothing counted, no sum, no maximum
    h = [rng.uniform(0, 80, 700).astype(np.float32), np.zeros(700, np.uint8), np.int32(700), np.float32(10),
         np.zeros(8000, np.uint32), np.zeros(8, np.float64), np.zeros(8, np.uint32)]
    out = run("probe/dose-dvh-bitmask-shared-atomics", h, 700)
    assert (out[4] == 0).all() and (out[5] == 0).all() and (out[6] == 0).all()
    # every voxel in every structure at one dose: 8 bins of 700, the whole block on one word
    h[0][:], h[1][:] = np.float32(61.25), 255
    out = run("probe/dose-dvh-bitmask-shared-atomics", h, 700, grid=(1,))
    hist = out[4].reshape(8, 1000)
    assert (hist[:, 612] == 700).all() and hist.sum() == 5600
    assert np.allclose(out[5], 700 * 61.25) and (out[6].view(np.float32) == np.float32(61.25)).all()


# ---- dose-gamma-index-smem-ballot ----

def _gamma(ref, ev, grid, nx, ny, policy="lockstep"):
    nz = len(ref) // (nx * ny)
    norm = ref.reshape(nz, -1).max(axis=1).astype(np.float32)
    h = [ref.astype(np.float32), ev.astype(np.float32), norm, np.int32(nx), np.int32(ny), np.float32(tp.P209_GM_DTA),
         np.float32(tp.P209_GM_DD), np.float32(tp.P209_GM_LOW), np.zeros(nz * nx * ny, np.float32),
         np.zeros(2 * nz, np.uint32)]
    out = run("probe/dose-gamma-index-smem-ballot", h, nz, grid=grid, policy=policy)
    g, cnt = tp._p209_gm_ref(h[0], h[1], norm, nx, ny, h[5], h[6], h[7])
    return out[8].reshape(nz, ny, nx), out[9].reshape(nz, 2), g, cnt


def test_gamma_2d():
    rng = np.random.default_rng(8)
    nx, ny = 40, 24                                                      # partial tiles both ways
    # two segments in a 10 mm window, the measurement shifted by 0.6 mm, 4% over, a leaf 1 mm off, noisy
    segs = [[-3.0, 3.0, -2.0, 2.0, 1.0], [-1.0, 4.0, -3.0, 1.0, 0.5]]
    ref = tp._p209_gm_field(nx, tp.P209_GM_PIX, segs)[8:8 + ny]
    segs[1][1] += 1.0
    ev = tp._p209_gm_field(nx, tp.P209_GM_PIX, segs, 0.6, -0.2)[8:8 + ny] * 1.04
    ev += rng.normal(0, 0.004, ev.shape)
    got, cnt, g, want = _gamma(ref.ravel(), ev.ravel(), (3, 2, 1), nx, ny)
    ok = np.abs(g - 1) > 1e-5
    assert np.allclose(got, g, rtol=2e-5, atol=1e-6) and (got == -1).sum() == (g == -1).sum() > 0
    assert (cnt[:, 1] == want[:, 1]).all() and np.abs(cnt[:, 0] - want[:, 0]).max() <= (~ok).sum()
    assert 0 < want[0, 0] < want[0, 1] and g.max() > 1.2


def test_gamma_cases():
    # image 0: equal uniform images (gamma 0); image 1: a measurement 6% over a uniform plan (gamma
    # 2, all fail); 16 x 16: one block an image
    a = np.full((2, 16, 16), 2.0)
    b = a.copy()
    b[1] *= 1.06
    got, cnt, g, want = _gamma(a.ravel(), b.ravel(), (1, 1, 2), 16, 16)
    assert (got[0] == 0).all() and np.allclose(got[1], 2.0, rtol=1e-5)
    assert list(cnt.ravel()) == [256, 256, 0, 256] and (want == cnt).all()
    # a small field: the low-dose pixels -1 and not evaluated; warps interleaved at random
    a = np.full((1, 16, 16), 0.05)
    a[0, 6:8, 3:7] = 1.0
    b = a.copy()
    b[0, 7, 3] = 0.9                                                     # 10% low: gamma 10 / 3
    got, cnt, g, want = _gamma(a.ravel(), b.ravel(), (1, 1, 1), 16, 16, policy="random")
    assert (got[0][a[0] < 0.1] == -1).all() and list(cnt[0]) == [7, 8] and (want == cnt).all()
    assert np.allclose(got, g, rtol=1e-5) and got[0, 7, 3] == pytest.approx(0.1 / 0.03, rel=1e-5)


# ---- dose-fluence-gradient-csr-atomics ----

def _fg(rng, w=None, policy="lockstep", dim=(50, 35, 20), vox=8.0):
    rp, col, val, org, ww, _ = tp._p209_fg_problem(dim, vox, rng)
    h = [rp, col, val, ww, org, np.int32(len(org)), np.zeros(len(org), np.float32), np.zeros(len(ww), np.float32),
         np.zeros(1, np.float64)]
    n = int(h[5]) - 100                                                  # a partial last block
    h[0], h[4], h[5], h[6] = h[0][:n + 1], h[4][:n], np.int32(n), h[6][:n]
    h[1], h[2] = h[1][:h[0][-1]], h[2][:h[0][-1]]
    if w is not None:
        h[3][:] = w
    out = run("probe/dose-fluence-gradient-csr-atomics", h, n, symbols=tp._p209_fg_syms(), policy=policy)
    return h, out, tp._p209_fg_ref(h[0], h[1], h[2], h[3], h[4])


@pytest.mark.parametrize("policy,dim,vox", [("lockstep", (50, 35, 20), 8.0), ("random", (16, 10, 3), 14.0)])
def test_fluence_grad(policy, dim, vox):
    rng = np.random.default_rng(9)
    h, out, (d, grad, obj) = _fg(rng, policy=policy, dim=dim, vox=vox)
    assert np.allclose(out[6], d, rtol=1e-5, atol=1e-4) and d.max() > 70
    rows = np.repeat(np.arange(int(h[5])), np.diff(h[0]))
    scale = np.bincount(h[1], np.abs(2 * np.asarray(h[2], np.float64)) * 80, minlength=len(h[3]))   # |terms| bound
    assert (np.abs(out[7] - grad) <= 1e-5 * scale + 1e-3).all() and (grad > 0).any() and (grad < 0).any()
    assert out[8][0] == pytest.approx(obj, rel=1e-5) and obj > 0
    assert len(rows) == len(h[1])


def test_fluence_grad_zero_weights():
    # no fluence: no dose, every PTV voxel 76 Gy under: its beamlets pulled up, nothing else
    rng = np.random.default_rng(10)
    h, out, (d, grad, obj) = _fg(rng, w=0.0)
    org = h[4]
    assert (out[6] == 0).all() and out[8][0] == pytest.approx((org == 1).sum() * 76.0 ** 2, rel=1e-9)
    assert np.allclose(out[7], grad, rtol=1e-5, atol=1e-3) and (grad <= 0).all() and (grad < 0).sum() > 100
