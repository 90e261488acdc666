"""probe-unseen156's kernels (kernels_cuda/probes158.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/fbm-perlin-const", "probe/droplet-erosion-atomic", "probe/thermal-erosion-tile",
       "probe/biome-whittaker-hist", "probe/worley-f1f2-hash64", "probe/lod-chunk-error-shfl"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen156"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes158.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    z = tp._p158_fractal(256, 512, rng)
    assert z.dtype == np.float32 and z.shape == (256, 512) and z.min() == 0 and z.max() == 1
    dz = np.abs(np.diff(z, axis=1))
    assert np.median(dz) < 0.01 and np.corrcoef(z[:, :-1].ravel(), z[:, 1:].ravel())[0, 1] > 0.99    # smooth
    assert np.abs(z[:, 0] - z[:, -1]).mean() < 2 * dz.mean()                                       # periodic
    h, W, H, ox, oy, freq, octv, lac, gain, red = tp._p158_fb_args(512, rng)
    assert len(h) == 512 * 512 and W == H == 512 and ox % 512 == 0 and oy % 512 == 0 and ox < 16 * 512
    assert (freq, octv, lac, gain) == (1 / 256, 8, 2, 0.5)
    perm = tp._p158_fb_syms(512, rng)["c_perm"]
    assert perm.dtype == np.int32 and (np.sort(perm[:256]) == np.arange(256)).all() and (perm[256:] == perm[:256]).all()
    h, d, pos, W, H, n = tp._p158_er_args(4096, rng, side=256)
    assert W == H == 256 and len(h) == 256 * 256 and not d.any() and len(pos) == 2 * n == 8192
    assert 0 <= pos.min() and pos.max() < 255 and abs(np.median(pos) - 127.5) < 5
    assert 0.3 < np.median(h) < 0.45 and np.mean(h) > np.median(h)                # skewed: lowlands wide
    h, h2, nx, ny, talus, c = tp._p158_te_args(4096, rng)
    assert abs(talus - np.tan(np.radians(33)) / 200) < 1e-9 and c == 0.5
    hh = h.reshape(4096, 4096)[:1024, :1024]
    drop = np.maximum.reduce([hh[1:-1, 1:-1] - hh[1 + dy:1023 + dy, 1 + dx:1023 + dx]
                              for dy in (-1, 0, 1) for dx in (-1, 0, 1)])
    assert 0.15 < (drop > talus).mean() < 0.35                                      # a quarter of the cells send
    h, m, b, hist, W, H, sea, kpu = tp._p158_bi_args(256, rng)
    assert (W, H) == (512, 256) and len(h) == len(m) == len(b) == W * H and b.dtype == np.uint8 and len(hist) == 16
    assert abs((h < sea).mean() - 0.7) < 0.01 and abs(kpu * (1 - sea) - 8) < 1e-4 and 0 <= m.min() and m.max() <= 1
    elev = (h[h > sea] - sea) * kpu
    assert 0.2 < np.median(elev) < 1.0 < elev.mean()                               # most land low, a few ranges high
    band = m.reshape(H, W).mean(axis=1)
    assert band[H // 2] > band[H // 3] + 0.2 and band[H // 6] > band[H // 3] + 0.2  # wet at 0 and 60, dry at 30
    cdf = tp._p158_wo_syms(64, rng)["c_poisson_cdf"]
    assert len(cdf) == 7 and abs(cdf[0] - 3.5 * np.exp(-2.5)) < 1e-6 and (np.diff(cdf) > 0).all() and cdf[-1] < 1
    f1, f2, i, W, H, ic, seed = tp._p158_wo_args(64, rng)
    assert W == H == 64 and ic == 1 / 32 and seed.dtype == np.uint64
    _, _, _, cnt = tp._p158_wo_points(np.arange(4000), np.zeros(4000, np.int64), seed, cdf)
    assert abs(cnt.mean() - 2.58) < 0.08 and (cnt == 1).mean() > 0.25 and cnt.max() >= 7
    h, err, N = tp._p158_lod_args(256, rng)
    hh = h.reshape(257, 257)
    assert N == 256 and len(err) == 16 * 6 and (hh[-1] == hh[0]).all() and (hh[:, -1] == hh[:, 0]).all()
    assert hh.min() == 0 and abs(hh.max() - 2000) < 1e-3


# ---- fbm-perlin-const ----

@pytest.mark.parametrize("n, policy", [(40, "lockstep"), (16, "random")])
def test_fbm_heightmap(n, policy):
    host, out, syms, _ = launch("probe/fbm-perlin-const", n, policy=policy)
    ref = tp._p158_fb_ref(*host[1:10], syms["c_perm"]).ravel()
    # float32 against float64: the noise values ~1 with ~10 roundings an octave, then powf
    assert np.abs(out[0] - ref).max() < 1e-5 and np.ptp(ref) > 0.02
    # at a lattice point of every octave (the world's origin), all noise is 0: e = 0.5
    h = list(host)
    h[3], h[4] = np.float32(0), np.float32(0)
    out = run("probe/fbm-perlin-const", h, n, symbols=syms)[0]
    assert abs(out[0] - 0.5 ** tp.P158_FB_REDIST) < 1e-6


# ---- droplet-erosion-atomic ----

@pytest.mark.parametrize("n, policy", [(300, "lockstep"), (64, "random")])
def test_droplet_erosion(n, policy):
    side = 48
    rng = np.random.default_rng(3)
    h = tp._p158_er_args(n, rng, side=side)
    _, margin, dmin, end = tp._p158_er_ref(h[0], h[2], side, side)
    # float32 against float64: a droplet looking up heights within 1e-3 of a cell's edge (where the
    # gradient jumps), with |dh| < 1e-6 (where it switches from eroding to depositing) or whose walk
    # amplifies a nudge of its start by 1e-5 (float32's rounding at 48 cells: 4e-6) more than 10
    # times (a droplet rocking in a pit) may take another path, so only the others are kept
    nudge = np.random.default_rng(1).standard_normal(2 * n) * 1e-5
    spread = np.abs(tp._p158_er_ref(h[0], h[2] + nudge, side, side)[3] - end).max(axis=1)
    ok = (margin > 1e-3) & (dmin > 1e-6) & (spread < 1e-4)
    assert ok.mean() > 0.6 and (end[ok, 3] == tp.P158_ER_LIFE).any() and (end[ok, 3] < 10).any()
    pos = h[2].reshape(-1, 2)[ok].ravel()
    m = int(ok.sum())
    h = [h[0], np.zeros(side * side, np.float32), pos, h[3], h[4], np.int32(m)]
    out = run("probe/droplet-erosion-atomic", h, m, policy=policy)
    ref = tp._p158_er_ref(h[0], pos, side, side)[0].ravel()
    # float32 rounding (~1e-6 of the heights and positions) amplified at most 10 times along a
    # walk, a cell's change the sum of up to ~20 droplets' terms: 1e-4 of the largest change
    assert np.abs(out[1] - ref).max() < 1e-4 * np.abs(ref).max() and (ref < 0).sum() > 50 and (ref > 0).sum() > 50
    # on a flat map no droplet moves: nothing changes
    h[0] = np.full(side * side, 0.5, np.float32)
    assert not run("probe/droplet-erosion-atomic", h, m)[1].any()


# ---- thermal-erosion-tile ----

@pytest.mark.parametrize("n, seed, policy", [(40, 0, "lockstep"), (16, 1, "random")])
def test_thermal_erosion(n, seed, policy):
    # 40: 3 x 3 tiles, the last partial; 16: one tile, every halo cell outside the map
    host, out, *_ = launch("probe/thermal-erosion-tile", n, seed=seed, policy=policy)
    ref = tp._p158_te_ref(host[0], n, n, host[4], host[5]).ravel()
    # float32: ~10 roundings of heights <= 40: 2e-5 absolute, against moves of ~0.05
    assert np.abs(out[1] - ref).max() < 4e-5 and (np.abs(ref - host[0]) > 1e-3).mean() > 0.3
    assert abs(out[1].astype(np.float64).sum() - host[0].astype(np.float64).sum()) < 1e-3     # mass kept
    # a lone spike in a corner: c (d_max - talus) shared among its 3 neighbours, all equal
    t = host[4]
    h = [np.zeros(n * n, np.float32), np.zeros(n * n, np.float32), np.int32(n), np.int32(n), t, host[5]]
    h[0][n * n - 1] = 1.0
    out = run("probe/thermal-erosion-tile", h, n)[1]
    sent = np.float32(0.5) * (1 - t)
    assert abs(out[-1] - (1 - sent)) < 1e-6 and np.abs(out[[n * n - 2, n * n - n - 1, n * n - n - 2]] - sent / 3).max() < 1e-6
    assert np.count_nonzero(out) == 4


# ---- biome-whittaker-hist ----

@pytest.mark.parametrize("n, policy", [(48, "lockstep"), (32, "random")])
def test_biome_classify(n, policy):
    host, out, syms, _ = launch("probe/biome-whittaker-hist", n, policy=policy)
    ref, gap = tp._p158_bi_ref(host[0], host[1], *host[4:8])
    ref = ref.ravel()
    # the float32 temperature, elevation or moisture bin may differ from float64 within ~1e-5 of a threshold
    sure = gap.ravel() > 1e-4
    assert sure.mean() > 0.99 and (out[2][sure] == ref[sure]).all()
    assert (out[3] == np.bincount(out[2], minlength=16)).all() and len(np.unique(ref)) >= 8
    # hand-made cells: a 4-row world (latitudes 67.5, 22.5, -22.5, -67.5), sea level 0.5, 8 km a unit
    W, H = 8, 4
    hgt = np.tile(np.float32([0.4, 0.49, 0.4999, 0.5001, 0.55, 0.55, 0.9, 0.5]), H)
    mst = np.tile(np.float32([0.5, 0.5, 0.5, 0.5, 0.05, 0.95, 0.5, 0.999]), H)
    h = [hgt, mst, np.zeros(W * H, np.uint8), np.zeros(16, np.uint32), np.int32(W), np.int32(H), np.float32(0.5),
         np.float32(8)]
    b = run("probe/biome-whittaker-hist", h, 1, symbols=syms)[2].reshape(H, W)
    # 67.5: -3.75 C at sea level (no beach), -6.35 C at 0.4 km, ice at 3.2 km; 22.5: 18.75 C, 16.15 C at
    # 0.4 km, -2.05 C at 3.2 km
    assert (b[:, :3] == [0, 1, 1]).all() and (b == b[::-1]).all()
    assert list(b[0, 3:]) == [5, 6, 4, 3, 5] and list(b[1, 3:]) == [2, 11, 9, 5, 2]


# ---- worley-f1f2-hash64 ----

@pytest.mark.parametrize("n, seed, policy", [(48, 0, "lockstep"), (16, 1, "random")])
def test_worley_f1f2(n, seed, policy):
    host, out, syms, _ = launch("probe/worley-f1f2-hash64", n, seed=seed, policy=policy)
    f1, f2, ids, gap = tp._p158_wo_ref(*host[3:7], syms["c_poisson_cdf"])
    # float32 coordinates of up to ~3 cells: 1e-6 cells; the ids agree where F2 - F1 is no near tie
    assert np.abs(out[0] - f1.ravel()).max() < 2e-6 and np.abs(out[1] - f2.ravel()).max() < 2e-6
    assert gap > 1e-5 and (out[2] == ids.ravel()).all()
    assert len(np.unique(out[2])) > n * n / 32 ** 2 * 2 and (f1 < 1.5).all() and (f1 < f2).all()


# ---- lod-chunk-error-shfl ----

def test_lod_chunk_error():
    n = 128                                               # 2 x 2 chunks
    host, out, *_ = launch("probe/lod-chunk-error-shfl", n)
    ref = tp._p158_lod_ref(host[0], n).ravel()
    # float32 heights <= 2000 m (ulp 1.2e-4) through ~4 roundings: 1e-3 m
    assert np.abs(out[1] - ref).max() < 1e-3 and ref.min() > 0.01
    # coarser meshes are further off
    e = ref.reshape(-1, 6)
    assert (e[:, 0] < e[:, -1]).all() and (e[:, 0] < e[:, 1]).all()
    # a flat map with one 100 m spike at an odd vertex on the border of chunks 0 and 1: both see
    # 100 m at every level, the other chunks nothing
    h = [np.zeros((n + 1) ** 2, np.float32), np.zeros_like(host[1]), np.int32(n)]
    h[0][17 * (n + 1) + 64] = 100.0
    e = run("probe/lod-chunk-error-shfl", h, n)[1].reshape(-1, 6)
    want = np.zeros_like(e)
    want[:2] = 100.0
    assert (e == want).all()
