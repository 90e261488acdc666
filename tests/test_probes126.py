"""probe-unseen124's kernels (kernels_cuda/probes126.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/marching-squares-atomic-list", "probe/mc-classify-numverts", "probe/raycast-trilinear-early-exit",
       "probe/streamline-rk4-bilinear", "probe/tf-colormap-smem-lut", "probe/histeq-hist-smem"]


def copy(host):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in host]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen124"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes126.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # marching squares: a smooth field, the contour through ~4.6% of the cells at 1024
    # (~1.2% at 4096), fewer than the list's room from 512 on; saddles at small sizes
    f, segs, cells, cnt, iso, w, h, cap = tp._p126_ms_args(1024, rng)
    assert f.dtype == np.float32 and len(f) == 1024 ** 2 and w == h == 1024 and iso == np.float32(0.25)
    assert cap == 1023 ** 2 // 8 == len(cells) == len(segs) // 4 and (cells == -1).all() and cnt.tolist() == [0]
    assert np.abs(f).max() <= 1.5 and np.abs(np.diff(f.reshape(1024, 1024), axis=1)).max() < 0.15
    c, s, case = tp._p126_ms_ref(f, 1024)
    assert 0.03 < len(c) / 1023 ** 2 < 0.06 and len(c) < cap
    assert ((case == 5) | (case == 10)).sum() == 0
    case = tp._p126_ms_ref(tp._p126_ms_field(128).ravel(), 128)[2]
    assert ((case == 5) | (case == 10)).sum() > 20
    assert (tp.P126_MS_EDGES[[0, 15]] == -1).all() and ((tp.P126_MS_EDGES[1:15, 0] >= 0)).all()
    rng = np.random.default_rng(0)
    # marching cubes: Gaussian blobs, most voxels outside (case 255), ~2.5% occupied at 96
    vol, vv, vo, iso, nx, ny, nz = tp._p126_mc_args(96, rng)
    assert vol.dtype == np.float32 and len(vol) == 96 ** 3 and nx == ny == nz == 96 and iso == np.float32(0.5)
    assert vv.dtype == vo.dtype == np.uint32 and len(vv) == 95 ** 3 and not vv.any()
    nv, occ, cube = tp._p126_mc_ref(vol, 96)
    assert 0.015 < occ.mean() < 0.04 and (cube == 255).mean() > 0.8 and (cube == 0).mean() > 0.03
    assert nv.max() >= 9 and (nv % 3 == 0).all()
    t = tp.P126_MC_NUM_VERTS
    assert len(t) == 256 and t[0] == t[255] == 0 and (t[[1 << k for k in range(8)]] == 3).all() and t.max() == 15
    assert tp.get(IDS[1]).grid(320) == (40, 40, 80)
    # ray casting: an orthonormal camera, ~9% of the rays missing, ~30% stopped early
    rng = np.random.default_rng(0)
    n = 64
    vol, dim, cam, step, lo, hi, sc, col, alp, W, H = tp._p126_rc_args(n, rng)
    assert dim == 128 and len(vol) == 128 ** 3 and W == H == n and len(col) == n * n and step == 1
    o, r, u, d = (np.array([cam[m][c] for c in "xyz"], np.float64) for m in ("origin", "right", "up", "dir"))
    assert abs(np.linalg.norm(d) - 1) < 1e-6 and abs(r @ d) < 1e-6 and abs(u @ d) < 1e-6 and abs(r @ u) < 1e-6
    assert abs(np.linalg.norm(r) - 1.3 * 128 / n) < 1e-5 and np.linalg.norm(o - 63.5) > 110   # outside the box
    C, A, st, ga, gt = tp._p126_rc_ref(vol, dim, cam, n)
    assert 0.05 < (st == 0).mean() < 0.15 and 0.2 < (A > 0.95).mean() < 0.4 and st.max() > 150
    rng = np.random.default_rng(0)
    # streamlines: a float2 field of speeds up to ~3 cells a step, most lines full length
    fld, g, seeds, lines, lens, hh, nn = tp._p126_sl_args(2000, rng)
    assert fld.dtype == np.float32 and len(fld) == 2 * 1024 ** 2 and g == 1024 and nn == 2000
    assert len(lines) == 2 * 2000 * 128 and (lens == -1).all() and (0 <= seeds).all() and (seeds < 1023).all()
    sp = np.hypot(*fld.reshape(-1, 2).T)
    assert 0.3 < np.median(sp) < 1 and 2 < sp.max() < 4
    length = tp._p126_sl_ref(fld, g, seeds[:400])[1]
    assert 0.75 < (length == 128).mean() < 0.95 and length.min() < 40
    rng = np.random.default_rng(0)
    # colour map: blue to red, opacity a ramp; scalars smooth along a row, 1-2% outside the range
    s, lut, out, vmin, vmax, nn = tp._p126_tf_args(1 << 16, rng)
    L = lut.reshape(256, 4)
    assert lut.dtype == np.uint8 and (L[:, 3] == np.arange(256)).all() and L[0, 2] > L[0, 0] and L[-1, 0] > L[-1, 2]
    assert s.dtype == np.float32 and out.dtype == np.uint8 and len(out) == 4 * len(s)
    outside = ((s < vmin) | (s > vmax)).mean()
    assert 0.005 < outside < 0.05 and np.abs(np.diff(s.reshape(-1, 512), axis=1)).mean() < 0.06
    rng = np.random.default_rng(0)
    # histogram: a dark image, values 20..68, neighbours close
    img, hist, nn = tp._p126_he_args(1 << 23, rng)                # 1024 rows of 8192
    assert img.dtype == np.uint8 and img.min() == 20 and img.max() == 68 and not hist.any()
    hh = tp._p126_he_ref(img)
    assert hh.sum() == 1 << 23 and hh[:20].sum() == hh[69:].sum() == 0 and hh.max() > 0.03 * hh.sum()
    assert np.abs(np.diff(img.astype(int))[:4096]).mean() < 4
    assert tp.get(IDS[5]).grid(1 << 26) == 1024 and tp.get(IDS[5]).grid(1000) == 4


# ---- marching-squares-atomic-list ----

def ms_check(host, out, n, full=True):
    cells, segs, case = tp._p126_ms_ref(host[0], n)
    cnt = int(out[3][0])
    assert cnt == len(cells)
    k = min(cnt, int(host[7]))
    got_c, got_s = out[2][:k], out[1].reshape(-1, 4)[:k]
    assert (out[2][k:] == -1).all() and not out[1].reshape(-1, 4)[k:].any()
    order = np.argsort(got_c, kind="stable")                     # a cell's segments in its slots' order
    if full:
        assert (got_c[order] == cells).all() and (got_s[order] == segs).all()
    else:                                                        # each stored segment one of the reference's
        ref = {(int(c), tuple(s)) for c, s in zip(cells, segs)}
        assert all((int(c), tuple(s)) in ref for c, s in zip(got_c, got_s))
    return cells, case


@pytest.mark.parametrize("policy, n", [("lockstep", 100), ("random", 36)])
def test_marching_squares(policy, n):
    # 7 x 7 blocks (3 x 3), the last ones partial; room for every segment
    host = tp._p126_ms_args(n, np.random.default_rng(1))
    cap = 2 * (n - 1) ** 2
    host[1], host[2], host[7] = np.zeros(4 * cap, np.float32), np.full(cap, -1, np.int32), np.int32(cap)
    out = run("probe/marching-squares-atomic-list", copy(host), n, policy=policy)
    cells, case = ms_check(host, out, n)
    assert ((case == 5) | (case == 10)).any() and 0.3 < len(cells) / (n - 1) ** 2 < 1.2


def test_marching_squares_default_room_and_overflow():
    n = 480                                                      # the probe's own room (1/8 of the cells)
    host, out, *_ = launch("probe/marching-squares-atomic-list", n)
    cells, _ = ms_check(host, out, n)
    assert 0.08 < len(cells) / (n - 1) ** 2 < 0.12
    n = 60                                                       # a list too short: the first `cap` slots kept
    host = tp._p126_ms_args(n, np.random.default_rng(2))
    host[0][:n] = 0.25                                           # a row exactly at iso (not above it)
    assert int(host[7]) < len(tp._p126_ms_ref(host[0], n)[0])
    out = run("probe/marching-squares-atomic-list", copy(host), n, policy="random")
    ms_check(host, out, n, full=False)


# ---- mc-classify-numverts ----

def test_mc_classify():
    n = 26                                                       # 25^3 voxels: partial blocks on every axis
    host, out, *_ = launch("probe/mc-classify-numverts", n)
    nv, occ, cube = tp._p126_mc_ref(host[0], n)
    assert (out[1] == nv).all() and (out[2] == occ).all()
    assert 0.05 < occ.mean() < 0.3 and len(np.unique(cube)) > 30
    # a volume on the iso value (not below: case 0) but for one corner sample below it
    vol = np.full(n ** 3, 0.5, np.float32)
    vol[(5 * n + 7) * n + 3] = 0.25
    h = [vol] + copy(host[1:])
    out = run("probe/mc-classify-numverts", h, n)
    nv, occ, cube = tp._p126_mc_ref(vol, n)
    assert (out[1] == nv).all() and occ.sum() == 8 and set(nv[nv > 0]) == {3}


# ---- raycast-trilinear-early-exit ----

def test_raycast():
    n = 24                                                       # 2 x 2 blocks, the last ones partial
    host, out, *_ = launch("probe/raycast-trilinear-early-exit", n)
    C, A, st, gap_a, gap_t = tp._p126_rc_ref(host[0], host[1], host[2], n)
    safe = (gap_a > 1e-5) & (gap_t > 2e-3)                       # no decision float32 could flip
    assert safe.mean() > 0.97
    np.testing.assert_allclose(out[7][safe], C[safe], rtol=0, atol=2e-5)
    np.testing.assert_allclose(out[8][safe], A[safe], rtol=0, atol=2e-5)
    assert (out[7][st == 0] == 0).all() and (out[8][st == 0] == 0).all() and (st == 0).any()
    assert ((out[8] > 0.95) & (st < 60)).any() and ((out[8] < 0.5) & (st > 100)).any()


# ---- streamline-rk4-bilinear ----

def test_streamline():
    rng = np.random.default_rng(3)
    n = 36                                                       # one partial block: 2 warps, the last partial
    host = tp._p126_sl_args(n, rng)
    seeds = host[2].reshape(n, 2)
    seeds[:4] = [[-0.5, 10.0], [1023.5, 5.0], [1022.9, 1022.9], [0.0, 0.0]]   # outside, outside, leaving, a corner
    out = run("probe/streamline-rk4-bilinear", copy(host), n)
    lines, length, gap = tp._p126_sl_ref(host[0], host[1], seeds)
    safe = gap > 1e-3
    assert safe.sum() >= n - 2 and safe[:2].all()
    assert (out[4][safe] == length[safe]).all() and out[4][0] == out[4][1] == 0
    got = out[3].reshape(n, 128, 2)
    np.testing.assert_allclose(got[safe], lines[safe], rtol=0, atol=5e-3)
    for i in np.flatnonzero(safe):                               # nothing stored past the line's end
        assert not got[i, length[i]:].any()
    assert length[2] < 10 and (length == 128).mean() > 0.5


# ---- tf-colormap-smem-lut ----

def test_tf_colormap():
    n = 3000                                                     # 12 blocks, the last partial
    host = tp._p126_tf_args(n, np.random.default_rng(4))
    host[0][:6] = [0.1, 0.9, -1.0, 5.0, 0.5, np.nextafter(np.float32(0.9), np.float32(0))]
    out = run("probe/tf-colormap-smem-lut", copy(host), n)
    ref = tp._p126_tf_ref(host[0], host[1])
    got = out[2].reshape(n, 4)
    assert (got == ref).all()
    L = host[1].reshape(256, 4)
    assert (got[[0, 2]] == L[0]).all() and (got[[1, 3]] == L[255]).all()
    assert len(np.unique(got[:, 3])) > 200


# ---- histeq-hist-smem ----

@pytest.mark.parametrize("policy, n", [("lockstep", 1024 * 256 * 2 + 777), ("random", 5000)])
def test_histeq_hist(policy, n):
    # the first: 1024 blocks, each thread 2-3 trips of the grid-stride loop
    host, out, *_ = launch("probe/histeq-hist-smem", n, policy=policy)
    assert (out[1] == tp._p126_he_ref(host[0])).all() and out[1].sum() == n
    host[1] = np.arange(256, dtype=np.uint32)                    # adds into what is there
    host[0][:100] = 255
    out = run("probe/histeq-hist-smem", copy(host), n, policy=policy)
    assert (out[1] == tp._p126_he_ref(host[0]) + np.arange(256)).all()
