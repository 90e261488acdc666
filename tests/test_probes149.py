"""probe-unseen147's kernels (kernels_cuda/probes149.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/nerf-posenc-rowmajor", "probe/ngp-hashgrid-encode", "probe/nerf-render-rays-grid",
       "probe/nerf-mlp-smem-weights", "probe/ngp-occupancy-atomicmax", "probe/nerf-weights-pdf-scan"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen147"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes149.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 12
    x, out, nn = tp._p149_pe_args(n, rng)
    assert x.dtype == np.float32 and len(x) == 3 * n and -1 <= x.min() and x.max() < 1 and len(out) == 63 * n
    pos, table, feat, _ = tp._p149_hg_args(n, rng)
    assert 0 <= pos.min() and pos.max() < 1 and len(table) == 2 * 16 * (1 << 17) and len(feat) == 32 * n
    scale, res = tp._p149_hg_levels()
    assert scale[0] == 15 and abs(scale[-1] - 2047) < 1e-2 and (np.diff(scale) > 0).all()
    assert ((res.astype(np.int64) ** 3 <= 1 << 17).sum() == 4)               # 4 dense levels, 12 hashed
    assert (np.floor(scale.astype(np.float64) + 0.5) + 1 < res).all()        # dense corners inside the grid
    o, d, grid, near, far, ns, *_ = tp._p149_rm_args(n, rng)
    assert grid.dtype == np.float32 and len(grid) == 4 * 128 ** 3 and grid.min() >= 0
    g = grid.reshape(-1, 4)
    assert 0.15 < (g[:, 3] > 0).mean() < 0.3 and g[:, :3].max() <= 1
    assert np.allclose(np.linalg.norm(d.reshape(-1, 3), axis=1), 1, atol=1e-6)
    assert np.allclose(np.linalg.norm(o.reshape(-1, 3) - 0.5, axis=1), tp.P149_CAM_DIST, atol=1e-6)
    t = near + (np.arange(ns) + 0.5) * (far - near) / ns
    P = o.reshape(-1, 1, 3) + t[None, :, None] * d.reshape(-1, 1, 3)
    inside = ((P >= 0) & (P < 1)).all(axis=-1)
    assert 0.4 < inside.mean() < 0.6 and (~inside.any(axis=1)).mean() < 0.02   # about half the samples in the cube
    _, _, op, used, _ = tp._p149_rm_ref(o[:3 * 1024], d[:3 * 1024], grid)
    assert 0.2 < (op > 0.999 - 1e-9).mean() < 0.4 and 0.35 < (op == 0).mean() < 0.6   # some stop early, many see nothing
    m = tp._p149_mlp_args(n, rng)
    assert len(m[0]) == 32 * n and [len(a) for a in m[1:5]] == [1024, 32, 512, 16] and len(m[5]) == 16 * n
    y = tp._p149_mlp_ref(*m[:5])[0]
    assert 0 < y[:, 0].min() < 0.5 and 2 < y[:, 0].max() < 100 and y[:, 1:].min() < -1 and y[:, 1:].max() > 1
    pts, sig, dens, occ, thr, _ = tp._p149_occ_args(n, rng)
    p = pts.reshape(-1, 3)
    ok = ((p >= 0) & (p < 1)).all(axis=1)
    assert 0.4 < ok.mean() < 0.6 and sig.min() >= 0 and (sig[~ok] == 0).all()
    assert 0.05 < (sig > thr).mean() < 0.2 and len(dens) == 128 ** 3 and len(occ) == 128 ** 3 // 32
    step = np.linalg.norm(np.diff(p.reshape(-1, 64, 3), axis=1), axis=2)
    assert step.max() < 2 * 1.8 / 64 + 1e-5                                   # samples in order along each ray
    sig, tv, w, c, _ = tp._p149_wn_args(n * 16, rng)
    tt = tv.reshape(-1, 128)
    assert (np.diff(tt, axis=1) > 0).all() and 2 <= tt.min() and tt.max() <= 6 and sig.min() >= 0
    peak = sig.reshape(-1, 128).max(axis=1)
    assert 0.15 < (peak < 4).mean() < 0.25                                     # a fifth of the rays noise only


# ---- nerf-posenc-rowmajor ----

def test_posenc():
    n = 300                                                 # 2 blocks, the last partial
    host, (x, out, nn), *_ = launch("probe/nerf-posenc-rowmajor", n)
    ref = tp._p149_pe_ref(host[0])
    np.testing.assert_allclose(out.reshape(n, 63), ref, rtol=0, atol=2e-6)
    assert (out[:3] == x[:3]).all()


# ---- ngp-hashgrid-encode ----

def test_hashgrid():
    n = 200
    host, after, syms, _ = launch("probe/ngp-hashgrid-encode", n)
    ref, gap = tp._p149_hg_ref(host[0], host[1])
    np.testing.assert_allclose(after[2].reshape(n, 16, 2), ref, rtol=0, atol=1e-6)
    assert np.abs(ref).max() > 0.5 and (after[1] == host[1]).all()


def test_hashgrid_corners():
    # points on the unit cube's corners and faces: the dense levels' last vertex and the
    # hash of large coordinates
    rng = np.random.default_rng(3)
    n = 40
    host = tp._p149_hg_args(n, rng)
    p = host[0].reshape(n, 3)
    p[:8] = [[(c >> a) & 1 for a in range(3)] for c in range(8)]
    p[:8] = np.minimum(p[:8], np.float32(1 - 2 ** -24))
    p[8:12] = 0.0
    out = run("probe/ngp-hashgrid-encode", host, n, symbols=tp._p149_hg_syms(n, rng))
    ref, _ = tp._p149_hg_ref(host[0], host[1])
    np.testing.assert_allclose(out[2].reshape(n, 16, 2), ref, rtol=0, atol=1e-6)


# ---- nerf-render-rays-grid ----

def test_render_rays():
    n = 200
    host, after, *_ = launch("probe/nerf-render-rays-grid", n)
    rgb, dep, op, used, _ = tp._p149_rm_ref(host[0], host[1], host[2])
    assert (op > 0.999 - 1e-9).sum() > 20 and (op == 0).sum() > 20 and used.max() > 30
    np.testing.assert_allclose(after[6].reshape(n, 3), rgb, rtol=0, atol=2e-4)
    np.testing.assert_allclose(after[7], dep, rtol=0, atol=5e-4)
    np.testing.assert_allclose(after[8], op, rtol=0, atol=2e-5)
    assert (after[8][op == 0] == 0).all() and (after[6].reshape(n, 3)[op == 0] == 0).all()


# ---- nerf-mlp-smem-weights ----

def test_mlp():
    n = 160                                                 # 2 blocks, the last partial (all 128 threads stage weights)
    host, after, *_ = launch("probe/nerf-mlp-smem-weights", n)
    ref, gap = tp._p149_mlp_ref(*host[:5])
    assert gap > 1e-7
    np.testing.assert_allclose(after[5].reshape(n, 16), ref, rtol=2e-5, atol=2e-6)


# ---- ngp-occupancy-atomicmax ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_occupancy(policy):
    n = 1024                                                # 16 rays of 64 samples
    host, (pts, sig, dens, occ, *_), *_ = launch("probe/ngp-occupancy-atomicmax", n, policy=policy)
    rd, ro = tp._p149_occ_ref(host[0], host[1])
    assert (rd > 0).sum() > 20 and ro.any()
    assert (dens == rd).all() and (occ == ro).all()


def test_occupancy_collisions():
    # every sample of a warp in one cell with different densities, then accumulated on a
    # grid already holding larger values for some cells
    rng = np.random.default_rng(4)
    n = 256
    host = tp._p149_occ_args(n, rng)
    p = host[0].reshape(n, 3)
    p[:64] = [0.3, 0.4, 0.5]
    host[1][:64] = rng.uniform(0, 3, 64).astype(np.float32)
    dens0 = host[2]
    dens0[:] = rng.integers(0, 2, dens0.size).astype(np.uint32) * np.float32(2.0).view(np.uint32)
    out = run("probe/ngp-occupancy-atomicmax", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n,
              policy="random")
    rd, ro = tp._p149_occ_ref(host[0], host[1])
    assert (out[2] == np.maximum(rd, dens0)).all() and (out[3] == ro).all()
    cell = (int(0.5 * 128) * 128 + int(0.4 * 128)) * 128 + int(0.3 * 128)
    assert out[2][cell].view(np.float32) == max(host[1][:64].max(), dens0[cell].view(np.float32))


# ---- nerf-weights-pdf-scan ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_weights_pdf(policy):
    n = 3 * 128                                             # 3 rays
    host, (sig, tv, w, cdf, _), *_ = launch("probe/nerf-weights-pdf-scan", n, policy=policy)
    rw, rc = tp._p149_wn_ref(host[0], host[1])
    np.testing.assert_allclose(w, rw, rtol=1e-4, atol=2e-6)
    np.testing.assert_allclose(cdf, rc, rtol=1e-4, atol=2e-6)
    c = cdf.reshape(-1, 128)
    assert (np.diff(c, axis=1) > 0).all() and np.allclose(c[:, -1], 1, atol=1e-5)


def test_weights_pdf_edge():
    # an empty ray (uniform pdf), a ray opaque at its first sample, a ray dense only at its last
    rng = np.random.default_rng(5)
    n = 3 * 128
    host = tp._p149_wn_args(n, rng)
    s = host[0].reshape(3, 128)
    s[0] = 0
    s[1] = 0
    s[1, 0] = 1e4
    s[2] = 0
    s[2, -1] = 0.5
    out = run("probe/nerf-weights-pdf-scan", host, n)
    rw, rc = tp._p149_wn_ref(host[0], host[1])
    np.testing.assert_allclose(out[2], rw, rtol=1e-4, atol=2e-6)
    np.testing.assert_allclose(out[3], rc, rtol=1e-4, atol=2e-6)
    w = out[2].reshape(3, 128)
    assert (w[0] == 0).all() and w[1, 0] == 1 and (w[1, 1:] == 0).all() and w[2, -1] == 1
    np.testing.assert_allclose(out[3].reshape(3, 128)[0], (np.arange(128) + 1) / 128, atol=1e-6)
