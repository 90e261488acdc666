"""probe-unseen146's kernels (kernels_cuda/probes148.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/rl-blur-ratio-constpsf", "probe/spot-localmax-smem-append", "probe/ccl-labelprop-flag",
       "probe/bg-rollingmin-col-u16", "probe/hist12-smem-gridstride", "probe/mip-argmax-zstack-u16"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen146"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes148.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    psf = tp._p148_psf()
    k = 2 * tp.P148_RL_R + 1
    P = psf.reshape(k, k)
    assert psf.dtype == np.float32 and abs(psf.sum() - 1) < 1e-6 and P.argmax() == psf.size // 2
    assert (P == P[::-1, ::-1]).all() and P[2, 4] > P[4, 2]           # symmetric, wider in y (sigma 1.8 vs 1.3)
    n = 256
    est, obs, ratio, w, h = tp._p148_rl_args(n, rng)
    assert est.dtype == obs.dtype == np.float32 and est.min() >= 80 and est.max() <= 120
    assert abs(obs.mean() - 100) < 1 and (obs == np.round(obs)).all()
    img, spots, cnt, w, h, thr, cap = tp._p148_spot_args(n, rng)
    assert img.dtype == np.uint16 and img.max() <= 4095 and thr == tp.P148_SP_THRESH and cap == n * n // 256
    assert (spots == -1).all() and cnt[0] == 0
    bg = img.reshape(n, n)
    s = tp._p148_spot_ref(img, n, n)
    assert 0.6 * n * n / tp.P148_SP_DENSITY < len(s) <= n * n / tp.P148_SP_DENSITY < cap   # ~a spot a 2048 px
    assert 0.002 < (img > thr).mean() < 0.015 and np.median(bg) < 110                       # sparse over threshold
    mask, lab, lo, ch, w, h = tp._p148_cc_args(n, rng)
    assert mask.dtype == np.uint8 and set(np.unique(mask)) == {0, 1} and 0.3 < mask.mean() < 0.55
    assert lab.dtype == np.int32 and (lab[mask == 0] == 0).all() and (lab[mask == 1] == np.flatnonzero(mask) + 1).all()
    out, changed = tp._p148_cc_ref(mask, lab, n, n)
    assert changed and (out[mask == 1] < lab[mask == 1]).mean() > 0.8    # most foreground pixels get a smaller label
    img, rmin, o, w, h = tp._p148_bg_args(n, rng)
    assert img.dtype == rmin.dtype == np.uint16 and (rmin <= img).all() and 200 <= img.min() and img.max() < 2500
    r = tp.P148_BG_R
    j = 100
    assert (rmin.reshape(n, n)[:, j] == img.reshape(n, n)[:, j - r:j + r + 1].min(axis=1)).all()
    sub = tp._p148_bg_ref(img, rmin, n, n)
    assert sub.min() >= 0 and np.median(sub) < 50 and (sub > 300).mean() > 0.1             # cells stand out
    v, hist, nn = tp._p148_hi_args(1 << 16, rng)
    assert v.dtype == np.uint16 and v.max() == 4095 and nn == 1 << 16 and hist.dtype == np.uint32
    assert abs((v >= 300).mean() - tp.P148_HI_CELLS - tp.P148_HI_SAT) < 0.01 and np.median(v) < 110
    assert tp._p148_hi_grid(1 << 24) == 1024 and tp._p148_hi_grid(3000) == 12
    st, mip, dep, npix, nz = tp._p148_mip_args(4096, rng)
    assert st.dtype == np.uint16 and len(st) == 4096 * nz and nz == tp.P148_MIP_NZ and dep.dtype == np.uint8
    m, z = tp._p148_mip_ref(st, npix, nz)
    beads = m > 300
    assert 0.02 < beads.mean() < 0.04 and len(np.unique(z[beads])) > 60 and (m[~beads] >= 125).all()


# ---- rl-blur-ratio-constpsf ----

def test_rl_blur_ratio():
    n = 40                                                  # 3 x 3 blocks, the last ones partial
    host, (est, obs, ratio, *_), syms, _ = launch("probe/rl-blur-ratio-constpsf", n)
    ref = tp._p148_rl_ref(host[0], host[1], n, n)
    np.testing.assert_allclose(ratio, ref, rtol=2e-6)
    assert ratio.reshape(n, n)[n // 2, n // 2] < 1.5 and ratio.reshape(n, n)[0, 0] > 1.5   # corners see ~1/4 of the PSF


def test_rl_flat():
    # a flat estimate equal to obs: ratio 1 away from the borders
    rng = np.random.default_rng(3)
    n = 24
    host = tp._p148_rl_args(n, rng)
    host[0][:] = 50.0
    host[1][:] = 50.0
    out = run("probe/rl-blur-ratio-constpsf", host, n, symbols=tp._p148_rl_syms(n, rng))
    r = out[2].reshape(n, n)
    np.testing.assert_allclose(r[4:-4, 4:-4], 1.0, rtol=1e-5)
    assert (r[0] > 1.2).all()


# ---- spot-localmax-smem-append ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_spot_localmax(policy):
    n = 72                                                  # 5 x 5 tiles, the last partial
    host, (img, spots, cnt, *_), *_ = launch("probe/spot-localmax-smem-append", n, policy=policy)
    ref = tp._p148_spot_ref(host[0], n, n)
    assert len(ref) >= 1 and cnt[0] == len(ref)
    assert (np.sort(spots[:cnt[0]]) == ref).all() and (spots[cnt[0]:] == -1).all()


def test_spot_edges_ties_overflow():
    # spots on the image's corners and edges (outside counts as 0), a 2-pixel plateau (both
    # reported), a peak beside a brighter one 2 pixels off (not), and more spots than the
    # list holds (the count still counts all of them)
    n = 40
    img = np.full((n, n), 100, np.uint16)
    img[0, 0] = img[n - 1, n - 1] = img[0, 17] = 900
    img[20, 20] = img[20, 21] = 700
    img[10, 10], img[12, 11] = 500, 501
    img[30, 5], img[30, 8] = 400, 400                       # 3 apart: both
    host = [img.ravel(), np.full(64, -1, np.int32), np.zeros(1, np.int32), np.int32(n), np.int32(n),
            np.int32(300), np.int32(64)]
    out = run("probe/spot-localmax-smem-append", host, n, policy="random")
    ref = tp._p148_spot_ref(img.ravel(), n, n)
    assert set(ref) == {0, n * n - 1, 17, 20 * n + 20, 20 * n + 21, 12 * n + 11, 30 * n + 5, 30 * n + 8}
    assert out[2][0] == len(ref) and (np.sort(out[1][:len(ref)]) == ref).all()
    host[1], host[2], host[6] = np.full(3, -1, np.int32), np.zeros(1, np.int32), np.int32(3)
    out = run("probe/spot-localmax-smem-append", host, n, policy="random")
    assert out[2][0] == len(ref) and set(out[1]) <= set(ref) and len(set(out[1])) == 3


# ---- ccl-labelprop-flag ----

def test_ccl_propagate():
    n = 70                                                  # 3 x 9 blocks, partial
    host, (mask, lin, lout, ch, *_), *_ = launch("probe/ccl-labelprop-flag", n)
    ref, changed = tp._p148_cc_ref(host[0], host[1], n, n)
    assert (lout == ref).all() and ch[0] == 1 and changed and (lin == host[1]).all()


def test_ccl_converges():
    # iterate to the fixed point (flag 0 on the last pass): each blob one label, its
    # smallest index + 1
    rng = np.random.default_rng(4)
    n = 24
    mask, lab, lo, ch, w, h = tp._p148_cc_args(n, rng)
    for it in range(200):
        out = run("probe/ccl-labelprop-flag", [mask, lab, np.zeros_like(lab), np.zeros(1, np.int32), w, h], n)
        ref, changed = tp._p148_cc_ref(mask, lab, n, n)
        assert (out[2] == ref).all() and out[3][0] == int(changed)
        lab = out[2]
        if not changed:
            break
    assert not changed and it > 3
    m = mask.reshape(n, n) != 0
    L = lab.reshape(n, n)
    assert (L[~m] == 0).all()
    # 4-neighbours in the foreground share a label; labels are their components' minima
    assert (L[:, 1:][m[:, 1:] & m[:, :-1]] == L[:, :-1][m[:, 1:] & m[:, :-1]]).all()
    assert (L[1:][m[1:] & m[:-1]] == L[:-1][m[1:] & m[:-1]]).all()
    for lv in np.unique(L[m]):
        assert np.flatnonzero(L.ravel() == lv)[0] + 1 == lv


# ---- bg-rollingmin-col-u16 ----

def test_bg_colmin_subtract():
    n = 72                                                  # 3 x 9 blocks, partial; the window over most rows
    host, (img, rmin, out, *_), *_ = launch("probe/bg-rollingmin-col-u16", n)
    ref = tp._p148_bg_ref(host[0], host[1], n, n)
    assert (out == ref).all() and out.max() > 300
    # the two passes together: img minus the 51 x 51 minimum (clamped)
    a = host[0].reshape(n, n)
    r = tp.P148_BG_R
    y, x = 40, 30
    assert out.reshape(n, n)[y, x] == a[y, x] - a[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1].min()


# ---- hist12-smem-gridstride ----

# 5000: 20 blocks, the last partial; random (slow): the first 600 pixels of the same image, 3
# blocks, the last partial, a saturated pixel (bin 4095) among them
@pytest.mark.parametrize("policy, m", [("lockstep", 5000), ("random", 600)])
def test_hist12(policy, m):
    n = 5000
    if m == n:
        host, (v, hist, nn), *_ = launch("probe/hist12-smem-gridstride", n, policy=policy)
    else:
        host = tp.get("probe/hist12-smem-gridstride").args(n, np.random.default_rng(0))
        assert np.bincount(host[0], minlength=4096)[4095] > 0
        n = m
        host = [host[0][:m].copy(), np.zeros_like(host[1]), np.int32(m)]
        v, hist, nn = run("probe/hist12-smem-gridstride", host, m, policy=policy)
    ref = np.bincount(host[0], minlength=4096)
    assert (hist == ref).all() and hist.sum() == n and hist[4095] > 0


def test_hist12_gridstride():
    # more pixels than the grid's threads (the grid-stride loop), into a histogram not zero
    rng = np.random.default_rng(9)
    n = 40000
    v, hist, nn = tp._p148_hi_args(n, rng)
    hist[:] = 7
    host = [v, hist.copy(), nn]
    old = tp.P148_HI_GRID
    tp.P148_HI_GRID = 16                                    # 16 blocks: ~10 pixels a thread
    try:
        out = run("probe/hist12-smem-gridstride", host, n)
    finally:
        tp.P148_HI_GRID = old
    assert (out[1] == np.bincount(v, minlength=4096) + 7).all()


# ---- mip-argmax-zstack-u16 ----

def test_mip_argmax():
    n = 600                                                 # 3 blocks, the last partial
    host, (st, mip, dep, npix, nz), *_ = launch("probe/mip-argmax-zstack-u16", n)
    m, z = tp._p148_mip_ref(host[0], n, nz)
    assert (mip == m).all() and (dep == z).all() and dep.max() > 100


def test_mip_ties():
    # ties keep the first slice; a maximum in slice 0 and in the last slice
    n, nz = 40, tp.P148_MIP_NZ
    st = np.full((nz, n), 100, np.uint16)
    st[5, 0] = st[9, 0] = 60000
    st[nz - 1, 1] = 101
    st[0, 2] = 65535
    out = run("probe/mip-argmax-zstack-u16", [st.ravel(), np.zeros(n, np.uint16), np.zeros(n, np.uint8),
                                              np.int32(n), np.int32(nz)], n)
    assert list(out[1][:4]) == [60000, 101, 65535, 100] and list(out[2][:4]) == [5, nz - 1, 0, 0]
