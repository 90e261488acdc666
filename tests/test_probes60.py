"""probe-unseen58's kernels (kernels_cuda/probes60.cu) give numpy's (or plain Python's)
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
from collections import deque

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from kernels_cuda.backend import EmulatorBackend
from probe_launch import launch

EPS = float(np.finfo(np.float32).eps)        # 2^-23
W = 72                                       # 72 x 40: 5 x 3 blocks of 16 x 16, the last column and row partial
H = tp._u58_h(W)


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen58"]
    assert ids == ["probe/harris-response", "probe/lucas-kanade-flow", "probe/census5x5",
                   "probe/canny-nms", "probe/uf-ccl-link", "probe/warp-perspective"]
    assert all(tp.get(i).source == "probes60.cu" and tp.get(i).note for i in ids)


def box5(a):
    """The 5 x 5 window sums of an h x w array at the pixels 3 or more from the border."""
    h, w = a.shape
    return sum(a[3 + dy:h - 3 + dy, 3 + dx:w - 3 + dx] for dy in range(-2, 3) for dx in range(-2, 3))


def interior(h, w):
    m = np.zeros((h, w), bool)
    m[3:h - 3, 3:w - 3] = True
    return m


# ---- harris-response ----

def test_harris_response():
    host, (img, resp, w, h, k), *_ = launch("probe/harris-response", W)
    assert (w, h) == (W, H)
    I = img.reshape(H, W).astype(np.float64)
    assert (I * 256 == np.round(I * 256)).all() and I.min() >= 26 / 256 and I.max() <= 154 / 256
    gx, gy = tp._u58_sobel(I)
    sxx, syy, sxy = box5(gx * gx), box5(gy * gy), box5(gx * gy)
    # the gradients are multiples of 2^-8 no larger than 4 (154 - 26) / 256 = 2, their products multiples of 2^-16
    # no larger than 4, the window sums below 2^8: every sum is exact in float32, fused or not
    assert max(sxx.max(), syy.max()) < 256
    kk = float(np.float32(tp.U58_HARRIS_K))
    tr = sxx + syy
    ref = sxx * syy - sxy * sxy - kk * tr * tr
    got = resp.reshape(H, W)
    inn = interior(H, W)
    assert (got[~inn] == 0).all()
    # what is left: the two products and the difference of det, the trace, its square and
    # the product by k, each rounding by at most half an ulp of a term no larger than
    # sxx syy + sxy^2 + k tr^2: 4 eps of that bounds them all
    scale = sxx * syy + sxy * sxy + kk * tr * tr
    err = np.abs(got[inn].reshape(ref.shape) - ref)
    assert (err <= 4 * EPS * scale + 1e-30).all(), err.max()
    assert (ref > 1e-3 * scale.max()).sum() > 20 and (ref < -1e-3 * scale.max()).sum() > 100   # corners and edges


# ---- lucas-kanade-flow ----

def test_lucas_kanade_flow(monkeypatch):
    # the small frames hold 40 blobs (the default size's density would give 2), so every
    # window has some texture: a threshold 100 x the default's leaves some unsolved
    monkeypatch.setattr(tp, "U58_LK_MIN_DET", 1e-6)
    host, (f0, f1, u, v, w, h, min_det), *_ = launch("probe/lucas-kanade-flow", W)
    I0, I1 = f0.reshape(H, W).astype(np.float64), f1.reshape(H, W).astype(np.float64)
    assert (I0 * 256 == np.round(I0 * 256)).all() and (I1 * 256 == np.round(I1 * 256)).all()
    ix, iy, it = np.zeros_like(I0), np.zeros_like(I0), I1 - I0
    ix[:, 1:-1] = (I0[:, 2:] - I0[:, :-2]) * 0.5
    iy[1:-1, :] = (I0[2:, :] - I0[:-2, :]) * 0.5
    # the gradients are multiples of 2^-9 no larger than 1/2 (frames in [0, 1]), their
    # products multiples of 2^-18 no larger than 1/4, the 25-term sums below 2^6: all exact
    # in float32.  det in float64 is exact too (products of 24-bit multiples of 2^-18)
    sxx, syy, sxy, sxt, syt = (box5(a * b) for a, b in ((ix, ix), (iy, iy), (ix, iy), (ix, it), (iy, it)))
    det = sxx * syy - sxy * sxy
    P = sxx * syy + sxy * sxy
    thr = float(min_det)
    # the kernel's det rounds twice, within eps P of the exact one: only pixels that far
    # from the threshold are decided
    solved, flat = det >= thr + 2 * EPS * P, det < thr - 2 * EPS * P
    U, V = u.reshape(H, W), v.reshape(H, W)
    inn = interior(H, W)
    assert (U[~inn] == 0).all() and (V[~inn] == 0).all()
    Ui, Vi = U[inn].reshape(det.shape), V[inn].reshape(det.shape)
    assert (Ui[flat] == 0).all() and (Vi[flat] == 0).all()
    assert solved.sum() > 0.5 * det.size and flat.sum() > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        eu = (sxy * syt - syy * sxt) / det
        ev = (sxy * sxt - sxx * syt) / det
    s = solved
    # numerator: two products and a difference (2 roundings of |a b| + |c d|, fused or not);
    # det: eps P; the division half an ulp: 4 eps of each relative size is a safe bound
    tu = 4 * EPS * ((np.abs(sxy * syt) + np.abs(syy * sxt)) + np.abs(eu) * P) / det + 4 * EPS * np.abs(eu)
    tv = 4 * EPS * ((np.abs(sxy * sxt) + np.abs(sxx * syt)) + np.abs(ev) * P) / det + 4 * EPS * np.abs(ev)
    assert (np.abs(Ui[s] - eu[s]) <= tu[s]).all() and (np.abs(Vi[s] - ev[s]) <= tv[s]).all()
    # and the flow is the frames' motion where the window is well textured
    good = s & (det > 0.05 * det.max())
    assert good.sum() > 50
    assert abs(np.median(Ui[good]) - tp.U58_LK_SHIFT[0]) < 0.1
    assert abs(np.median(Vi[good]) - tp.U58_LK_SHIFT[1]) < 0.1


# ---- census5x5 ----

def test_census5x5():
    host, (img, out, w, h), *_ = launch("probe/census5x5", W)
    I = img.reshape(H, W).astype(np.int64)
    P = np.pad(I, 2, mode="edge")
    ref = np.zeros((H, W), np.int64)
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            if dx == 0 and dy == 0:
                continue
            ref = (ref << 1) | (P[2 + dy:2 + dy + H, 2 + dx:2 + dx + W] < I)
    np.testing.assert_array_equal(out.reshape(H, W), ref)
    assert (ref >> 24 == 0).all() and len(np.unique(ref)) > 200
    ties = sum((P[2 + dy:2 + dy + H, 2 + dx:2 + dx + W] == I).sum() for dy in (-1, 0, 1) for dx in (-1, 0, 1))
    assert ties - W * H > 0.05 * 8 * W * H         # equal 3 x 3 neighbours (bit 0) beyond the centre itself


# ---- canny-nms ----

def test_canny_nms():
    host, (mag, dirn, out, w, h), *_ = launch("probe/canny-nms", W)
    M, D = mag.reshape(H, W), dirn.reshape(H, W)
    # the fold and the sector bounds in float32, as the kernel computes them: exact
    a = np.where(D < 0, D + np.float32(3.14159265), D)
    assert a.dtype == np.float32
    b = [np.float32(c) for c in (0.39269908, 1.17809725, 1.96349541, 2.74889357)]
    ref = np.zeros((H, W), np.float32)
    counts = [0] * 4
    for y in range(1, H - 1):
        for x in range(1, W - 1):
            t = a[y, x]
            if t < b[0] or t >= b[3]:
                s, (n1, n2) = 0, (M[y, x - 1], M[y, x + 1])
            elif t < b[1]:
                s, (n1, n2) = 1, (M[y - 1, x - 1], M[y + 1, x + 1])
            elif t < b[2]:
                s, (n1, n2) = 2, (M[y - 1, x], M[y + 1, x])
            else:
                s, (n1, n2) = 3, (M[y - 1, x + 1], M[y + 1, x - 1])
            counts[s] += 1
            ref[y, x] = M[y, x] if M[y, x] >= n1 and M[y, x] >= n2 else 0
    np.testing.assert_array_equal(out.reshape(H, W), ref)
    assert min(counts) > 100
    kept, strong = (ref > 0).sum(), (M[1:-1, 1:-1] > 0).sum()
    assert 0.1 * strong < kept < 0.8 * strong


# ---- uf-ccl-link ----

def components(fg):
    """The smallest index of each foreground pixel's 4-connected component (-1 off it), by BFS."""
    h, w = fg.shape
    lab = np.full(h * w, -1, np.int64)
    for s in range(h * w):
        if not fg.flat[s] or lab[s] >= 0:
            continue
        lab[s] = s
        q = deque([s])
        while q:
            i = q.popleft()
            y, x = divmod(i, w)
            for j, ok in ((i - 1, x > 0), (i + 1, x < w - 1), (i - w, y > 0), (i + w, y < h - 1)):
                if ok and fg.flat[j] and lab[j] < 0:
                    lab[j] = s
                    q.append(j)
    return lab


def roots(label):
    r = label.astype(np.int64).copy()
    fgm = r >= 0
    for _ in range(len(r)):
        nxt = np.where(fgm, r[np.maximum(r, 0)], -1)
        if (nxt == r).all():
            return r
        r = nxt
    raise AssertionError("a parent cycle")


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_uf_ccl_link_converges_to_the_components(policy):
    # lockstep: the 72 x 40 image; random (warps interleaved one instruction at a time: the
    # root finding beside the atomicMin links): a 40 x 22 one, 3 x 2 blocks, the last column
    # and row partial (seed 5: over 20 components, one over 30 pixels, like the larger one)
    pid = "probe/uf-ccl-link"
    p = tp.get(pid)
    (Wp, seed) = (W, 0) if policy == "lockstep" else (40, 5)
    Hp = tp._u58_h(Wp)
    host, (fg, label, w, h), *_ = launch(pid, Wp, seed=seed, policy=policy)       # one pass, as the probe
    F = fg.reshape(Hp, Wp)
    ref = components(F)
    idx = np.arange(Wp * Hp)
    assert ((label >= 0) == (fg != 0)).all() and (label <= idx).all() and (label[label >= 0] <= idx[label >= 0]).all()
    assert (label != host[1]).sum() > 0.3 * (fg != 0).sum()        # the first pass linked most pixels
    assert (roots(label)[fg != 0] >= ref[fg != 0]).all()             # within their components
    # then the host repeats the pass until it changes nothing
    be = EmulatorBackend(seed=1, policy=policy, sanitize=True)
    dl = be.to_device(label)
    dfg = be.to_device(fg)
    passes = 1
    while True:
        before = be.to_host(dl).copy()
        be.launch(p.source, p.kernel, p.grid(Wp), p.block, [dfg, dl, w, h])
        assert be.launches[-1].sanitizer == []
        after = be.to_host(dl)
        passes += 1
        if (after == before).all():
            break
        assert passes < 40
    np.testing.assert_array_equal(roots(after), ref)
    assert (after <= idx).all()
    ncomp = len(np.unique(ref[ref >= 0]))
    assert passes >= 3 and ncomp > 20 and (np.bincount(ref[ref >= 0]).max() > 30)


# ---- warp-perspective ----

def test_warp_perspective():
    host, (src, dst, sw, sh, dw, dh), syms, _ = launch("probe/warp-perspective", W)
    Hm = syms["c_homog"].astype(np.float64).reshape(3, 3)
    S = src.reshape(H, W, 4).astype(np.float64)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float64)
    wz = Hm[2, 0] * xx + Hm[2, 1] * yy + Hm[2, 2]
    sx = (Hm[0, 0] * xx + Hm[0, 1] * yy + Hm[0, 2]) / wz
    sy = (Hm[1, 0] * xx + Hm[1, 1] * yy + Hm[1, 2]) / wz
    inside = (sx >= 0) & (sy >= 0) & (sx <= W - 1) & (sy <= H - 1)
    # the kernel's coordinates are within ~1e-5 px of these (a few float32 roundings of
    # terms below 100 px, over wz near 1): pixels that close to the edge may go either way
    near = (np.minimum(np.abs(sx), np.abs(sx - (W - 1))) < 1e-3) | (np.minimum(np.abs(sy), np.abs(sy - (H - 1))) < 1e-3)
    D = dst.reshape(H, W, 4).astype(np.int64)
    out = ~inside & ~near
    assert (D[out] == 0).all()
    assert 0.15 * W * H < out.sum() < 0.6 * W * H
    x0, y0 = np.floor(np.where(inside, sx, 0)).astype(int), np.floor(np.where(inside, sy, 0)).astype(int)
    x1, y1 = np.minimum(x0 + 1, W - 1), np.minimum(y0 + 1, H - 1)
    ax, ay = (np.where(inside, sx, 0) - x0)[..., None], (np.where(inside, sy, 0) - y0)[..., None]
    v = ((1 - ax) * (1 - ay) * S[y0, x0] + ax * (1 - ay) * S[y0, x1] + (1 - ax) * ay * S[y1, x0]
         + ax * ay * S[y1, x1])
    ref = np.floor(v + 0.5).astype(np.int64)
    ok = inside & ~near
    # the bilinear blend is continuous in (sx, sy), so the ~1e-5 px and the weights' few
    # roundings move it by far less than 0.5: at most one step, where it is near a half
    diff = np.abs(D[ok] - ref[ok])
    assert diff.max() <= 1
    assert (diff == 0).mean() > 0.99
    assert (D[ok][:, 3] == 255).all()
