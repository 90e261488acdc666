"""probe-unseen81's kernels (kernels_cuda/probes83.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/demosaic-mhc-rggb", "probe/bilateral-smem-r5", "probe/hdr-merge-const-crf",
       "probe/loglum-atomic-reduce", "probe/guided-sat-double", "probe/lut3d-trilinear-float4"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen81"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes83.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # demosaic: a 12-bit RGGB mosaic of the scene (R at even x, even y)
    n = 1024
    raw, rgb, inv_w, W, H = tp._p83_dm_args(n, rng)
    assert raw.dtype == np.uint16 and raw.max() == 4095 and raw.min() == 0 and len(rgb) == 3 * n * n
    assert W == H == n and inv_w == np.float32(1 / 4095)
    m = raw.reshape(n, n).astype(np.float64)
    assert abs(m[0::2, 1::2].mean() - m[1::2, 0::2].mean()) < 40          # the two greens alike
    ref = tp._p83_demosaic_ref(raw, n, n)
    assert 0 < (ref == 0).mean() < 0.05 and 0 < (ref == 1).mean() < 0.05  # some clamping at the edges
    assert (ref[0::2, 0::2, 0] == np.minimum(m[0::2, 0::2] * np.float32(1 / 4095), 1)).all()  # R sites keep R
    # bilateral: flat patches of 0.1 .. 0.9 plus noise, in [0, 1]; the spatial weights
    img, out, inv, W, H = tp._p83_bl_args(256, rng)
    assert img.dtype == np.float32 and img.min() >= 0 and img.max() <= 1 and inv == np.float32(50)
    im = img.reshape(256, 256)
    assert 0.04 < np.std(im[5:27, 5:27]) < 0.06 and np.std(im) > 0.15
    ws = tp._p83_bl_syms(256, rng)["c_spatial"]
    assert ws.shape == (121,) and ws[60] == 1 and abs(ws[61] - np.exp(-1 / 18)) < 1e-7
    # hdr: 5 exposures of n pixels, ~0.6% of channel samples saturated in all of them
    n = 1 << 14
    ldr, rad, nn = tp._p83_hdr_args(n, rng)
    assert ldr.dtype == np.uint8 and len(ldr) == 5 * 3 * n and len(rad) == 3 * n and nn == n
    z = ldr.reshape(5, n, 3)
    assert (z.mean(axis=(1, 2))[1:] > z.mean(axis=(1, 2))[:-1]).all()    # longer exposures brighter
    assert (z[0] <= 127).mean() > 0.9 and (z[4] == 255).mean() > 0.5         # dark and blown-out ends
    E, fb = tp._p83_hdr_ref(ldr, n)
    assert 0.002 < fb.mean() < 0.012 and (z[:, fb] == 255).all() and not (z[:, ~fb] % 255 == 0).all(axis=0).any()
    g, ldt = tp._p83_hdr_curve()
    assert g.shape == (3, 256) and np.isfinite(g).all() and (np.diff(g, axis=1) > 0).all() and g[:, 255].max() == 0
    s = tp._p83_hdr_syms(n, rng)
    assert s["c_g"].shape == (768,) and s["c_log_dt"].dtype == np.float32
    lnE = np.log(E[~fb])
    assert abs(np.median(lnE) - np.log(11.5)) < 0.15 and 1.6 < lnE.std() < 1.95   # radiance recovered
    # loglum: lognormal luminance about 0.18
    rgb, sl, mb, delta, nn = tp._p83_ll_args(n, rng)
    assert rgb.dtype == np.float32 and len(rgb) == 3 * n and sl[0] == 0 and mb.dtype == np.uint32
    s, mx = tp._p83_loglum_ref(rgb)
    assert abs(np.exp(s / n) - 0.18) < 0.02 and mx > 20
    # guided: the SATs are those of I, p, I^2, I p (zero first row and column)
    n = 64
    args = tp._p83_gf_args(n, np.random.default_rng(3))
    I, p = tp._p83_gf_images(n, np.random.default_rng(3))
    S = [a.reshape(n + 1, n + 1) for a in args[:4]]
    for T, X in zip(S, (I, p, I * I, I * p)):
        assert T.dtype == np.float64 and (T[0] == 0).all() and (T[:, 0] == 0).all()
        assert abs(T[-1, -1] - X.sum()) < 1e-9 and abs(T[20, 31] - X[:20, :31].sum()) < 1e-9
    assert 0 <= I.min() and I.max() <= 1 and 0.04 < (p - I).std() < 0.06
    a, b = tp._p83_guided_ref(*args[:4], 3, 1e-3, n, n)
    y, x = 10, 60                                                 # a window clipped at the right
    mI, mP = I[7:14, 57:].mean(), p[7:14, 57:].mean()
    av = ((I * p)[7:14, 57:].mean() - mI * mP) / ((I * I)[7:14, 57:].mean() - mI * mI + np.float32(1e-3))
    assert abs(a[y, x] - av) < 1e-9 and abs(b[y, x] - (mP - av * mI)) < 1e-9
    # lut: the grade keeps black black, lifts white's red and cuts its blue
    lut = tp._p83_lut_table()
    assert lut.shape == (33, 33, 33, 4) and lut.min() >= 0 and lut.max() <= 1 and (lut[..., 3] == 1).all()
    assert (lut[0, 0, 0, :3] == 0).all() and lut[32, 32, 32, 0] == 1 and abs(lut[32, 32, 32, 2] - 0.94) < 1e-6
    px, out, lt, nn = tp._p83_lut_args(5000, rng)
    q = px.reshape(-1, 4)
    assert px.dtype == np.uint8 and len(lt) == 33 ** 3 * 4 and nn == 5000
    assert (q[:4096, 3] == np.arange(4096) & 255).all() and (q[4096:, 3] == (np.arange(904) ^ 1) & 255).all()
    assert np.abs(np.diff(q[:4096, :3].astype(int), axis=0)).mean() < 4     # neighbours alike (noise ~2 levels)


# ---- demosaic-mhc-rggb ----

def test_demosaic():
    n = 44                                                  # 2 x 6 blocks, the last ones partial
    host, out, *_ = launch("probe/demosaic-mhc-rggb", n)
    ref = tp._p83_demosaic_ref(host[0], n, n)
    np.testing.assert_allclose(out[1], ref.ravel(), rtol=0, atol=1e-6)


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_demosaic_edges(policy):
    # a random mosaic (every phase's filters overshoot: values clamped at 0 and 1), an
    # odd size (reflect-101 at both ends of both axes)
    rng = np.random.default_rng(4)
    n = 37
    raw = rng.integers(0, 4096, n * n).astype(np.uint16)
    host = [raw, np.zeros(3 * n * n, np.float32), np.float32(1 / 4095), np.int32(n), np.int32(n)]
    out = run("probe/demosaic-mhc-rggb", host, n, policy=policy)
    ref = tp._p83_demosaic_ref(raw, n, n)
    assert (ref == 0).mean() > 0.01 and (ref == 1).mean() > 0.01 and ((ref > 0) & (ref < 1)).mean() > 0.5
    np.testing.assert_allclose(out[1], ref.ravel(), rtol=0, atol=1e-6)


# ---- bilateral-smem-r5 ----

# 40: 3 x 3 blocks, partial; random (slow): 12, one block, partial in x and y, its halo
# edge-clamped on every side
@pytest.mark.parametrize("policy, n", [("lockstep", 40), ("random", 12)])
def test_bilateral(policy, n):
    host, out, *_ = launch("probe/bilateral-smem-r5", n, policy=policy)
    ref = tp._p83_bilateral_ref(host[0], n, n)
    np.testing.assert_allclose(out[1], ref.ravel(), rtol=0, atol=2e-6)
    im = host[0].reshape(n, n)
    assert np.abs(ref - im).mean() > 0.02                   # it smooths the noise


def test_bilateral_edges():
    # a step edge of 0.6 is kept (its range weights ~e^-18), a flat image passes through
    n = 24
    im = np.where(np.arange(n)[None, :] < 11, 0.2, 0.8).repeat(n, 0).astype(np.float32)
    for img in (im, np.full((n, n), 0.5, np.float32)):
        host = [img.ravel(), np.zeros(n * n, np.float32), np.float32(50), np.int32(n), np.int32(n)]
        out = run("probe/bilateral-smem-r5", host, n, symbols=tp._p83_bl_syms(n, None))
        np.testing.assert_allclose(out[1], img.ravel(), rtol=0, atol=1e-6)


# ---- hdr-merge-const-crf ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_hdr_merge(policy):
    n = 1000                                                # 4 blocks, the last partial
    host, out, *_ = launch("probe/hdr-merge-const-crf", n, policy=policy)
    ref, fb = tp._p83_hdr_ref(host[0], n)
    assert fb.any()
    np.testing.assert_allclose(out[1], ref.ravel(), rtol=2e-6)


def test_hdr_fallback():
    # pixels saturated (255) or black (0) in every exposure, or in all but one
    rng = np.random.default_rng(6)
    n = 300
    host = tp._p83_hdr_args(n, rng)
    z = host[0].reshape(5, n, 3)
    z[:, :10] = 255
    z[:, 10:20] = 0
    z[:, 20:30] = 255
    z[0, 20:30] = 200
    z[:, 30:40, 1] = 0
    z[4, 30:40, 1] = 60
    out = run("probe/hdr-merge-const-crf", host, n, symbols=tp._p83_hdr_syms(n, rng))
    ref, fb = tp._p83_hdr_ref(host[0], n)
    assert fb[:20].all() and not fb[20:30].any() and not fb[30:40, 1].any()
    np.testing.assert_allclose(out[1], ref.ravel(), rtol=2e-6)
    g, ldt = tp._p83_hdr_curve()
    np.testing.assert_allclose(out[1].reshape(n, 3)[:10], np.exp(g[:, 255] - ldt[2])[None].repeat(10, 0), rtol=1e-6)
    np.testing.assert_allclose(out[1].reshape(n, 3)[20:30], np.exp(g[:, 200] - ldt[0])[None].repeat(10, 0),
                               rtol=1e-6)


# ---- loglum-atomic-reduce ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_loglum(policy):
    n = 1000                                                # 4 blocks, the last partial
    host, out, *_ = launch("probe/loglum-atomic-reduce", n, policy=policy)
    s, mx = tp._p83_loglum_ref(host[0])
    np.testing.assert_allclose(out[1][0], s, rtol=2e-6)
    np.testing.assert_allclose(out[2].view(np.float32)[0], mx, rtol=1e-6)


def test_loglum_accumulates():
    # a running sum and a larger earlier max are kept; then the max in the last, partial
    # block's last pixel
    rng = np.random.default_rng(7)
    n = 700
    host = tp._p83_ll_args(n, rng)
    host[1] = np.array([100.0], np.float32)
    host[2] = np.array([np.float32(1e6)]).view(np.uint32)
    out = run("probe/loglum-atomic-reduce", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    s, mx = tp._p83_loglum_ref(host[0])
    np.testing.assert_allclose(out[1][0], 100 + s, rtol=2e-6)
    assert out[2].view(np.float32)[0] == 1e6
    host[2] = np.zeros(1, np.uint32)
    host[0][-3:] = 5000.0
    out = run("probe/loglum-atomic-reduce", host, n, policy="random")
    assert out[2].view(np.float32)[0] == tp._p83_loglum_ref(host[0])[1] and tp._p83_loglum_ref(host[0])[1] > 4999


# ---- guided-sat-double ----

def test_guided():
    n = 50                                                  # 2 x 7 blocks, partial; windows clipped
    host, out, *_ = launch("probe/guided-sat-double", n)
    a, b = tp._p83_guided_ref(*host[:4], host[6], host[7], n, n)
    np.testing.assert_allclose(out[4], a.ravel(), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(out[5], b.ravel(), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("r", [1, 4])
def test_guided_edges(r):
    # a guide of 6-pixel patches (a ~ 1 near edges, ~ 0 inside flat patches), p noisy
    rng = np.random.default_rng(8)
    n = 40
    I = rng.uniform(0, 1, (7, 7)).repeat(6, 0).repeat(6, 1)[:n, :n]
    p = I + rng.standard_normal((n, n)) * 0.05
    host = [tp._p83_sat(x).ravel() for x in (I, p, I * I, I * p)]
    host += [np.zeros(n * n, np.float32), np.zeros(n * n, np.float32), np.int32(r), np.float32(1e-3),
             np.int32(n), np.int32(n)]
    out = run("probe/guided-sat-double", host, n, policy="random")
    a, b = tp._p83_guided_ref(*host[:4], r, 1e-3, n, n)
    assert a.max() > 0.9 and np.abs(a).min() < 0.1
    np.testing.assert_allclose(out[4], a.ravel(), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(out[5], b.ravel(), rtol=1e-6, atol=1e-9)


# ---- lut3d-trilinear-float4 ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_lut3d(policy):
    n = 3000                                                # 12 blocks, the last partial
    host, out, *_ = launch("probe/lut3d-trilinear-float4", n, policy=policy)
    ref, v = tp._p83_lut_ref(host[0])
    got = out[1].reshape(-1, 4)
    assert (got[:, 3] == host[0].reshape(-1, 4)[:, 3]).all()
    d = np.abs(got.astype(int) - ref.astype(int))
    t = np.clip(v, 0, 1) * 255 + 0.5 - ref[:, :3]          # in [0, 1): near 0 or 1 is a rounding tie
    assert d.max() <= 1 and ((t < 1e-4) | (t > 1 - 1e-4))[d[:, :3] > 0].all()
    assert (got[:, :3] != host[0].reshape(-1, 4)[:, :3]).mean() > 0.5


def test_lut3d_corners():
    # a random LUT, colours on a grid of levels (0 and 255 land on the LUT's end nodes and
    # give the table's entry; 255 uses the last cell with t = 1)
    rng = np.random.default_rng(9)
    vals = np.array([0, 8, 16, 128, 247, 255], np.uint8)
    c = np.stack(np.meshgrid(vals, vals, vals, indexing="ij"), -1).reshape(-1, 3)
    n = len(c)
    px = np.concatenate([c, rng.integers(0, 256, (n, 1))], axis=1).astype(np.uint8)
    lut = rng.uniform(0, 1, (33, 33, 33, 4)).astype(np.float32)
    host = [px.ravel(), np.zeros(4 * n, np.uint8), lut.ravel(), np.int32(n)]
    out = run("probe/lut3d-trilinear-float4", host, n)
    ref, v = tp._p83_lut_ref(px, lut)
    d = np.abs(out[1].reshape(-1, 4).astype(int) - ref.astype(int))
    assert d.max() <= 1 and (d > 0).mean() < 0.01
    ends = ((c == 0) | (c == 255)).all(axis=1)
    idx = (c[ends] // 255 * 32).astype(int)
    node = lut[idx[:, 2], idx[:, 1], idx[:, 0], :3]
    assert (out[1].reshape(-1, 4)[ends, :3] == np.floor(node * 255 + 0.5)).all()
