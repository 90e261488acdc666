"""probe-unseen57's kernels (kernels_cuda/probes59.cu) give numpy's (or plain Python's)
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import dataclasses

import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch

EPS = float(np.finfo(np.float32).eps)        # 2^-23


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen57"]
    assert ids == ["probe/zbuffer-raster", "probe/lbs-skinning", "probe/cloth-spring-step",
                   "probe/sph-hash-forces", "probe/sap-broadphase", "probe/shadow-pcf5x5"]
    assert all(tp.get(i).source == "probes59.cu" and tp.get(i).note for i in ids)


# ---- zbuffer-raster ----

def raster_reference(verts, W, H):
    """{pixel: [(depth, triangle)]} of the front-facing triangles covering each pixel centre,
    the edge functions in float64 (exact: the vertices are on a 1/16 pixel grid, so they are
    the float32 kernel's too), the depth in float64."""
    frags = {}
    for t, (a, b, c) in enumerate(verts.astype(np.float64)):
        area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        if area <= 0:
            continue
        xs, ys = verts[t, :, 0], verts[t, :, 1]
        x0, x1 = max(int(np.floor(xs.min())), 0), min(int(np.ceil(xs.max())), W - 1)
        y0, y1 = max(int(np.floor(ys.min())), 0), min(int(np.ceil(ys.max())), H - 1)
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                px, py = x + 0.5, y + 0.5
                w0 = (c[0] - b[0]) * (py - b[1]) - (c[1] - b[1]) * (px - b[0])
                w1 = (a[0] - c[0]) * (py - c[1]) - (a[1] - c[1]) * (px - c[0])
                w2 = (b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0])
                if w0 >= 0 and w1 >= 0 and w2 >= 0:
                    z = (w0 * a[2] + w1 * b[2] + w2 * c[2]) / area
                    frags.setdefault(y * W + x, []).append((z, t))
    return frags


def test_zbuffer_raster(monkeypatch):
    W, H, n = 64, 40, 1000                          # 4 blocks, the last partial; ~2 fragments a pixel
    monkeypatch.setattr(tp, "U57_ZB_W", W)
    monkeypatch.setattr(tp, "U57_ZB_H", H)
    host, (vf, zbuf, nt, w, h), *_ = launch("probe/zbuffer-raster", n)
    verts = vf.reshape(n, 3, 3)
    assert (verts[:, :, :2] * tp.U57_ZB_SNAP == np.round(verts[:, :, :2] * tp.U57_ZB_SNAP)).all()
    frags = raster_reference(verts, W, H)
    empty = np.iinfo(np.uint64).max
    assert {int(p) for p in np.nonzero(zbuf != empty)[0]} == set(frags)     # exactly the covered pixels
    ids = (zbuf & 0xFFFFFFFF).astype(np.int64)
    depth = (zbuf >> 32).astype(np.uint32).view(np.float32).astype(np.float64)
    decided = 0
    for p, fr in frags.items():
        zt = dict((t, z) for z, t in fr)
        t = int(ids[p])
        assert t in zt, p                           # the winner covers the pixel (and faces the viewer)
        # the kernel's depth: 3 products, 2 sums and a product by the rounded 1 / area of
        # non-negative terms, each rounding at most half an ulp: within 4 eps of the exact value
        assert abs(depth[p] - zt[t]) <= 4 * EPS * zt[t], p
        zmin = min(zt.values())
        assert zt[t] <= zmin + 8 * EPS, p           # the nearest, up to the kernel's rounding
        if sum(z <= zmin + 8 * EPS for z in zt.values()) == 1:
            decided += 1
    assert decided > 0.99 * len(frags)
    assert sum(len(f) >= 3 for f in frags.values()) > 100                 # depth tests that reject
    assert 0.5 * W * H < len(frags) < 0.9 * W * H
    # the culled (clockwise) triangles would have won many pixels
    back = raster_reference(verts[:, [0, 2, 1]], W, H)
    assert sum(min(back[p])[0] < depth[p] for p in back if p in frags) > 200


def test_zbuffer_raster_ties_go_to_the_lower_id(monkeypatch):
    """Two copies of a triangle at one depth: every pixel they cover keeps the first's id;
    a clockwise copy in front of them draws nothing."""
    pid = "probe/zbuffer-raster"
    base = tp.get(pid)
    monkeypatch.setattr(tp, "U57_ZB_W", 32)
    monkeypatch.setattr(tp, "U57_ZB_H", 32)
    tri = np.array([[4, 4, 0.5], [20, 6, 0.5], [8, 18, 0.5]], np.float32)

    def args(n, rng):
        a = base.args(n, rng)
        v = a[0].reshape(n, 3, 3)
        v[:] = [0, 0, 0.9]                          # degenerate: culled
        v[5], v[40] = tri, tri
        v[2] = tri[[0, 2, 1]] - [0, 0, 0.25]        # clockwise, nearer
        return a
    monkeypatch.setitem(tp._BY_ID, pid, dataclasses.replace(base, args=args))
    host, (vf, zbuf, *_), *_ = launch(pid, 64)
    frags = raster_reference(vf.reshape(64, 3, 3), 32, 32)
    assert len(frags) > 50 and all(sorted(t for _, t in f) == [5, 40] for f in frags.values())
    hit = zbuf != np.iinfo(np.uint64).max
    assert set(np.nonzero(hit)[0].tolist()) == set(frags)
    assert ((zbuf[hit] & np.uint64(0xFFFFFFFF)) == 5).all()
    depth = (zbuf[hit] >> np.uint64(32)).astype(np.uint32).view(np.float32)
    assert (depth == depth[0]).all() and abs(float(depth[0]) - 0.5) <= 2 * EPS   # 108 x the rounded 1 / 216


# ---- lbs-skinning ----

def test_lbs_skinning():
    n = 1000                                        # 4 blocks, the last partial
    host, (pos, nrm, idx, w, bones, opos, onrm, nv), *_ = launch("probe/lbs-skinning", n)
    idx, w = idx.reshape(n, 4), w.reshape(n, 4).astype(np.float64)
    assert (idx[:, 0] == np.arange(n) * 64 // n).all() and idx.min() >= 0 and idx.max() < 64
    assert np.abs(w.sum(1) - 1).max() < 1e-6 and (w[:, 2:] == 0).all(1).sum() > n // 5
    B = bones.reshape(64, 3, 4).astype(np.float64)
    assert np.abs(np.einsum("kij,klj->kil", B[:, :, :3], B[:, :, :3]) - np.eye(3)).max() < 1e-6
    M = np.einsum("vj,vjab->vab", w, B[idx])
    p, nn = pos.reshape(n, 3).astype(np.float64), nrm.reshape(n, 3).astype(np.float64)
    exp_p = np.einsum("vab,vb->va", M[:, :, :3], p) + M[:, :, 3]
    exp_n = np.einsum("vab,vb->va", M[:, :, :3], nn)
    ln = np.linalg.norm(exp_n, axis=1, keepdims=True)
    assert ln.min() < 0.5                           # blends of unrelated rotations can nearly cancel ..
    exp_n /= ln
    # each blended entry is 4 float32 products summed (no more than 8 roundings of terms of
    # size <= sum |w B| <= 1 for the rotation, 0.5 for the translation), then 3 more products
    # and sums against |p| <= 1: 32 eps of the sum of the magnitudes (plus 1, for the entries'
    # own size) is a safe bound
    mag = np.einsum("vab,vb->va", np.abs(M[:, :, :3]), np.abs(p)) + np.abs(M[:, :, 3]) + 1.0
    assert (np.abs(opos.reshape(n, 3) - exp_p) <= 32 * EPS * mag).all()
    # .. so the normal's error before normalizing (the same bound, |n| = 1) is divided by its
    # length; rsqrtf and the three products add a few ulp of 1
    magn = np.einsum("vab,vb->va", np.abs(M[:, :, :3]), np.abs(nn))
    assert (np.abs(onrm.reshape(n, 3) - exp_n) <= 32 * EPS * magn / ln + 8 * EPS).all()
    assert np.abs(np.linalg.norm(onrm.reshape(n, 3).astype(np.float64), axis=1) - 1).max() < 16 * EPS


# ---- cloth-spring-step ----

def cloth_reference(pos, prev, m, rest, ks, kd, dt, mass):
    """cloth_step in float64 on the float32 inputs."""
    P, Q = pos.reshape(m, m, 4).astype(np.float64), prev.reshape(m, m, 4).astype(np.float64)
    V = (P[..., :3] - Q[..., :3]) / dt
    F = np.zeros((m, m, 3))
    F[..., 1] = -9.81 * mass
    mag = np.abs(F).copy()
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dx == 0 and dy == 0:
                continue
            ys, xs = slice(max(0, -dy), m - max(0, dy)), slice(max(0, -dx), m - max(0, dx))
            yn, xn = slice(max(0, dy), m + min(0, dy)), slice(max(0, dx), m + min(0, dx))
            e = P[yn, xn, :3] - P[ys, xs, :3]
            ln = np.linalg.norm(e, axis=-1, keepdims=True)
            L0 = rest * np.sqrt(2.0) if dx and dy else rest
            e /= ln
            s = ks * (ln - L0) + kd * ((V[yn, xn] - V[ys, xs]) * e).sum(-1, keepdims=True)
            F[ys, xs] += s * e
            mag[ys, xs] += np.abs(s * e)
    k = dt * dt / mass
    out = P.copy()
    out[..., :3] = P[..., :3] + 0.99 * (P[..., :3] - Q[..., :3]) + F * k
    out[0, 0], out[0, m - 1] = P[0, 0], P[0, m - 1]
    return out.reshape(-1, 4), (mag * k).reshape(-1, 3)


def test_cloth_spring_step():
    m = 40                                          # 3 x 3 blocks of 16 x 16, the last row and column partial
    host, (pos, prev, out, nx, ny, rest, ks, kd, dt, mass), *_ = launch("probe/cloth-spring-step", m)
    assert (nx, ny) == (m, m)
    exp, fmag = cloth_reference(pos, prev, m, float(rest), float(ks), float(kd), float(dt), float(mass))
    got = out.reshape(-1, 4)
    pins = [0, m - 1]
    np.testing.assert_array_equal(got[pins], pos.reshape(-1, 4)[pins])   # pinned: copied
    assert (got[:, 3] == 1.0).all()
    # positions within 1 of the origin round to 6e-8; the velocity (p - q) / dt is exact up to
    # those roundings over dt, so the damping and stretch terms are off by ~1e-7 of their
    # size, and the Verlet sum adds four roundings of |x| <= 1: 4 ulp of 1 plus 1e-5 of the
    # force term's magnitude
    err = np.abs(got[:, :3] - exp[:, :3])
    assert (err <= 4 * EPS + 1e-5 * fmag).all(), err.max()
    move = np.abs(exp[:, :3] - pos.reshape(-1, 4)[:, :3].astype(np.float64))
    assert np.median(move) > 100 * 4 * EPS       # the step moved the particles well beyond the tolerance


# ---- sph-hash-forces ----

def sph_reference(pos, vel, rho, prs, start, end, h, mass, visc, mask):
    """sph_forces in float64 (the cells from float32 divisions, as the kernel's), and the sum
    of the magnitudes of the terms; also how often a particle visits a bucket twice."""
    n = len(rho)
    P, Vv = pos.reshape(n, 4).astype(np.float64), vel.reshape(n, 4).astype(np.float64)
    cell = np.floor(pos.reshape(n, 4)[:, :3] / np.float32(h)).astype(np.int64)
    h6 = h ** 6
    spiky, vlap = -45.0 / (np.pi * h6), 45.0 / (np.pi * h6)
    acc, mag, twice, nbrs = np.zeros((n, 3)), np.zeros((n, 3)), 0, np.zeros(n, int)
    offs = np.array([(dx, dy, dz) for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)])
    for i in range(n):
        c = cell[i] + offs
        bk = tp._u57_sph_hash(c[:, 0], c[:, 1], c[:, 2], mask)
        bk = bk[start[bk] >= 0]
        twice += len(bk) != len(set(bk.tolist()))
        j = np.concatenate([np.arange(start[b], end[b]) for b in bk]) if len(bk) else np.zeros(0, int)
        j = j[j != i]
        r = P[i, :3] - P[j, :3]
        r2 = (r * r).sum(1)
        k = (r2 < h * h) & (r2 > 0)
        j, r, rr = j[k], r[k], np.sqrt(r2[k])
        nbrs[i] = len(j)
        hr = h - rr
        fp = -mass * (prs[i] + prs[j].astype(np.float64)) / (2 * rho[j]) * spiky * hr * hr / rr
        fv = visc * mass / rho[j] * vlap * hr
        tp_ = fp[:, None] * r
        tv = fv[:, None] * (Vv[j, :3] - Vv[i, :3])
        acc[i] = (tp_ + tv).sum(0) / rho[i]
        mag[i] = (np.abs(tp_) + np.abs(tv)).sum(0) / rho[i]
    acc[:, 1] -= 9.81
    return acc, mag, twice, nbrs


def test_sph_hash_forces():
    g = 4                                           # 1024 particles in 8 x 4 x 4 cells, 1024 buckets: 4 blocks
    host, (pos, vel, rho, prs, start, end, acc, n, h, mass, visc, mask), *_ = launch("probe/sph-hash-forces", g)
    assert n == 16 * g ** 3 and mask == 1023
    # the table: every particle in the bucket of its cell
    cell = np.floor(pos.reshape(n, 4)[:, :3] / h).astype(np.int64)
    hsh = tp._u57_sph_hash(cell[:, 0], cell[:, 1], cell[:, 2], int(mask))
    assert (np.diff(hsh) >= 0).all()
    assert all(start[b] <= i < end[b] for i, b in enumerate(hsh.tolist()))
    assert (start >= 0).sum() == len(set(hsh.tolist()))
    exp, mag, twice, nbrs = sph_reference(pos, vel, rho, prs, start, end, float(h), float(mass), float(visc),
                                          int(mask))
    assert twice > 0                                # some particles visit a shared bucket twice
    assert 28 < np.percentile(nbrs, 90) < 45       # ~33 inside the block, fewer at its faces
    # float32 sums of ~35-70 terms (collisions count some twice) of a few roundings each:
    # 1e-5 of the sum of the magnitudes; the r^2 < h^2 test can differ from float64's only for
    # r within ~1e-7 h of h, where the terms (h - r)^2 and (h - r) vanish
    got = acc.reshape(-1, 4)
    assert (np.abs(got[:, :3] - exp) <= 1e-5 * mag + 1e-5).all()
    assert (got[:, 3] == 0).all()
    assert np.abs(got[:, :3] - [0, -9.81, 0]).max() > 1.0      # the forces matter


# ---- sap-broadphase ----

def overlapping_pairs(b):
    """The pairs i < j of boxes (n x 6: lo, hi) overlapping on all three axes, by brute force."""
    lo, hi = b[:, :3], b[:, 3:]
    ov = ((lo[:, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[:, None, :])).all(2)
    i, j = np.nonzero(np.triu(ov, 1))
    return set(zip(i.tolist(), j.tolist()))


def test_sap_broadphase():
    n = 3000                                        # 12 blocks, the last partial
    host, (boxes, nn, pairs, npairs, cap), *_ = launch("probe/sap-broadphase", n)
    b = boxes.reshape(n, 6)
    assert (np.diff(b[:, 0]) >= 0).all() and int(cap) == 2 * n
    exp = overlapping_pairs(b)
    got = pairs.reshape(-1, 2)[:int(npairs[0])]
    assert int(npairs[0]) == len(exp) and len(exp) > n // 2
    assert set(map(tuple, got.tolist())) == exp and len(set(map(tuple, got.tolist()))) == len(got)
    assert (pairs.reshape(-1, 2)[len(exp):] == 0).all()


def test_sap_broadphase_capped(monkeypatch):
    """A pair buffer of 100: the counter counts every pair, the first 100 slots hold distinct
    true pairs, nothing is written past them."""
    pid = "probe/sap-broadphase"
    base = tp.get(pid)

    def args(n, rng):
        a = base.args(n, rng)
        a[-1] = np.int32(100)
        return a
    monkeypatch.setitem(tp._BY_ID, pid, dataclasses.replace(base, args=args))
    n = 1000
    host, (boxes, nn, pairs, npairs, cap), *_ = launch(pid, n)
    exp = overlapping_pairs(boxes.reshape(n, 6))
    got = [tuple(p) for p in pairs.reshape(-1, 2)[:100].tolist()]
    assert int(npairs[0]) == len(exp) > 100
    assert len(set(got)) == 100 and set(got) <= exp
    assert (pairs.reshape(-1, 2)[100:] == 0).all()


# ---- shadow-pcf5x5 ----

def pcf_reference(gpos, shadow, w, h, sm, bias, M, r):
    """shadow_pcf in float64: the visibility a pixel and whether it is ambiguous (u or v within
    1e-3 of a texel edge, or a comparison within 1e-5 of its threshold: where float32 and
    float64 may disagree)."""
    g = gpos.reshape(-1, 4).astype(np.float64)
    S = shadow.reshape(sm, sm).astype(np.float64)
    vis = np.ones(w * h)
    amb = np.zeros(w * h, bool)
    c = g @ M.astype(np.float64).T
    geo = g[:, 3] != 0
    with np.errstate(divide="ignore", invalid="ignore"):
        u = (c[:, 0] / c[:, 3] * 0.5 + 0.5) * sm
        v = (c[:, 1] / c[:, 3] * 0.5 + 0.5) * sm
        d = c[:, 2] / c[:, 3] * 0.5 + 0.5
    amb |= geo & ((np.abs(u - np.round(u)) < 1e-3) | (np.abs(v - np.round(v)) < 1e-3))
    inside = geo & (u >= 0) & (u < sm) & (v >= 0) & (v < sm)
    tx, ty = np.floor(u[inside]).astype(int), np.floor(v[inside]).astype(int)
    lit = np.zeros(len(tx), int)
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            marg = S[np.clip(ty + dy, 0, sm - 1), np.clip(tx + dx, 0, sm - 1)] - (d[inside] - bias)
            lit += marg >= 0
            amb[np.nonzero(inside)[0][np.abs(marg) < 1e-5]] = True
    k = (2 * r + 1) ** 2
    vis[inside] = (lit.astype(np.float32) * np.float32(1.0 / k)).astype(np.float64)
    return vis, amb, inside, lit


def test_shadow_pcf(monkeypatch):
    monkeypatch.setattr(tp, "U57_PCF_SM", 256)
    monkeypatch.setattr(tp, "U57_PCF_BOXES", 120)
    monkeypatch.setattr(tp, "U57_PCF_SIDE", (3, 12))
    # texels 8 times wider: the ground's depth changes 8 times as much across the 5 x 5
    # footprint, so the bias (no self-shadowing) and the roofs' height (well shadowed) grow
    monkeypatch.setattr(tp, "U57_PCF_BIAS", 6e-3)
    monkeypatch.setattr(tp, "U57_PCF_HEIGHT", 15.0)
    w = 200                                         # 200 x 112 pixels: 13 x 7 blocks, partial ones
    host, (gpos, shadow, vis, ww, hh, sm, bias), syms, res = launch("probe/shadow-pcf5x5", w)
    h = w * 9 // 16
    assert (int(ww), int(hh), int(sm)) == (w, h, 256)
    M = syms["c_light_vp"].reshape(4, 4)
    exp, amb, inside, lit = pcf_reference(gpos, shadow, w, h, 256, float(bias), M, tp.U57_PCF_R)
    assert amb.sum() < 0.01 * w * h
    np.testing.assert_array_equal(vis[~amb], exp[~amb].astype(np.float32))
    assert (np.abs(vis[amb] - exp[amb]) <= 2 / 25 + 1e-6).all()
    sky = gpos.reshape(-1, 4)[:, 3] == 0
    assert (vis[sky] == 1).all() and 0.2 < sky.mean() < 0.6
    assert (~sky & ~inside).sum() > 0                               # ground outside the light's map: lit
    assert (lit == 25).sum() > 5000 and (lit == 0).sum() > 200 and ((lit > 0) & (lit < 25)).sum() > 1000


def test_full_size_launch_shapes():
    """The launches as probed: grids for the sizes in timing_probes."""
    g = {p.id: (p.n, p.grid(p.n), p.block) for p in tp.entries() if p.family == "probe-unseen57"}
    assert g["probe/zbuffer-raster"] == (1 << 21, 8192, 256)
    assert g["probe/lbs-skinning"] == (1 << 22, 16384, 256)
    assert g["probe/cloth-spring-step"] == (2048, (128, 128), (16, 16))
    assert g["probe/sph-hash-forces"] == (32, 2048, 256)
    assert g["probe/sap-broadphase"] == (1 << 20, 4096, 256)
    assert g["probe/shadow-pcf5x5"] == (3840, (240, 135), (16, 16))
