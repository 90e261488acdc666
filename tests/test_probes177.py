"""probe-unseen175's kernels (kernels_cuda/probes177.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/melt-pool-laser-7pt", "probe/voxelize-ray-parity", "probe/hatch-clip-smem",
       "probe/powder-porosity-atomic", "probe/inherent-strain-march", "probe/overhang-compact-shfl"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen175"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes177.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    k = tp._p177_kT()
    assert len(k) == 32 and (np.diff(k[:16]) > 0).all() and k[17] > 1.9 * k[15]      # liquid doubled
    alpha = k.max() / tp.P177_MP_RHO_C
    assert alpha * tp.P177_MP_DT / tp.P177_MP_H ** 2 < 1 / 6                       # the explicit step is stable
    T, T2, st, nx, ny, nz, h, *_ = tp._p177_mp_args(128, rng)
    T, st = T.reshape(32, 128, 128), st.reshape(32, 128, 128)
    assert T.dtype == np.float32 and st.dtype == np.uint8 and (nx, ny, nz) == (128, 128, 32)
    assert T.min() >= 473 and T.max() == np.float32(3100) and 0.01 < (T > 1923).mean() < 0.04
    assert (st[:24] == 1).all() and 0.3 < (st[24:] == 0).mean() < 0.7 and (st[24:][T[24:] > 1923] == 1).all()
    z, y, x = np.nonzero(T > 1923)                     # the melt pool: ~65 um deep, 130 wide, 320 long
    assert 32 - z.min() == 13 and y.max() - y.min() == 25 and 60 < x.max() - x.min() < 70 and x.max() < 82
    assert T[-1, 64, 76 - 40] > T[-1, 64, 76 + 40] + 1000                      # the spot at 76, its trail
    tri, ntri, mask, hits, *_, nxv, nyv = tp._p177_vx_args(512, rng)
    t = tri.view(np.float32).reshape(-1, 3, 3)
    assert ntri == len(tri) == 4096 and len(mask) == 512 * 512 and mask.dtype == np.uint64
    assert t[..., :2].min() > 0 and t[..., :2].max() < 80 and 1 <= t[..., 2].min() and t[..., 2].max() < 32
    _, vid = np.unique(t.reshape(-1, 3), axis=0, return_inverse=True)
    vid = vid.reshape(-1, 3)
    e = np.sort(np.stack([vid, np.roll(vid, -1, axis=1)], axis=2).reshape(-1, 2), axis=1)
    _, c = np.unique(e, axis=0, return_counts=True)
    assert (c == 2).all()                                                       # watertight: each edge twice
    edges, eoff, segs, nseg, cx, cy, sp, lines = tp._p177_ht_args(64, rng)
    E = edges.view(np.float32).reshape(-1, 4)
    ne = np.diff(eoff)
    assert eoff[0] == 0 and len(eoff) == 65 and set(ne) == {1114, 1204, 1294} and lines == 512
    r = np.hypot(E[:, 0] - cx, E[:, 1] - cy)
    assert r.max() < lines * sp / 2 and 7 < r.min() < 9                         # inside the lines' span
    assert (E[1:1024, :2] == E[:1023, 2:]).all() and (E[1023, 2:] == E[0, :2]).all()    # a closed contour
    L = np.hypot(*(E[:, 2:] - E[:, :2]).T)[:1024]
    assert 0.07 < np.median(L) < 0.1 and L.max() > 5 * np.median(L)             # uneven vertices, as sliced
    p, solid, count, psd, ic, gx, gy, gz, n = tp._p177_pp_args(1 << 18, rng, side=40)
    cell, cz = tp._p177_pp_cells(p, ic, gx, gy, gz)
    assert p.dtype.itemsize == 16 and (gx, gy) == (40, 40) and len(solid) == 40 * 40 * gz and len(psd) == 16 * gz
    assert abs((cell < 0).mean() - tp.P177_PP_SPATTER) < 1e-4 and (cell[-(cell < 0).sum():] < 0).all()
    assert 14 < np.median(2 * p["r"]) / 2 < 18 and p["r"].min() >= 4 and p["r"].max() <= 35
    key = ((p["z"] // 50) * 80 + p["y"] // 50) * 80 + p["x"] // 50
    assert (np.diff(key[cell >= 0]) < 0).mean() < 1e-3                          # the DEM's bin order (float32 edges)
    vol = np.bincount(cell[cell >= 0], 4 / 3 * np.pi * p["r"][cell >= 0] ** 3.0, gx * gy * gz).reshape(gz, gy, gx)
    phi = vol / 100.0 ** 3
    assert 0.45 < phi[:-1].mean() < 0.6 and phi[-1].mean() < 0.8 * phi[:-1].mean()
    row = phi[:-1].mean(axis=(0, 2))
    assert (row < 0.7 * np.median(row)).sum() >= 3                              # recoater streaks
    eps, sig, nx, ny, nz, E, R, beta = tp._p177_is_args(256, rng)
    e = eps.reshape(nz, 256, 256)
    part = (e > 0).mean(axis=(1, 2))
    assert nz == 64 and 0.1 < part.min() and part.max() < 0.25 and (e[e > 0] >= 0.95 * 0.003).all()
    assert e.max() <= 1.05 * 0.0075 and ((e[45, 170, 160:210] > 0) & (e[30, 170, 160:210] == 0)).any()  # bridge
    v, tri, lst, cnt, vol, cc, zp, ep, n = tp._p177_oh_args(1 << 14, rng)
    V, T = v.reshape(-1, 3), tri.reshape(-1, 3)
    assert len(V) == 65 * 128 and len(T) == n and T.max() < len(V) and V[:, 2].min() == 0
    assert abs(cc - np.sqrt(0.5)) < 1e-7 and 0.15 < (V[:, 2] == 0).mean() < 0.3       # the flat base
    A, B, C = V[T[:, 0]].astype(float), V[T[:, 1]].astype(float), V[T[:, 2]].astype(float)
    N = np.cross(B - A, C - A)
    assert (np.linalg.norm(N, axis=1) == 0).sum() == 2 * 128                    # the poles' degenerate facets
    assert 1 < (N * A).sum() / 6 / (4 / 3 * np.pi * 30 ** 3) < 1.5             # closed, outward, ~a sphere's volume


# ---- melt-pool-laser-7pt ----

def test_melt_pool_step():
    n = 40                                                 # nz 10: 5 x 5 x 2 blocks of 8^3, partial in x, y, z
    host, out, syms, _ = launch("probe/melt-pool-laser-7pt", n)
    T2, st, gap = tp._p177_mp_ref(host[0], host[2], *host[3:])
    # float32 against float64: temperatures to 3100 K (ulp 2.4e-4), the stencil's 7 terms a few
    # ulps each scaled by alpha dt / h^2 < 0.12, the source a few ulps of its < 40 K
    assert np.abs(out[1] - T2.ravel()).max() < 2e-3
    assert gap > 2e-3 and (out[2] == st.ravel()).all()
    # the laser off, all solid at 2000 K: the inside stays, the bottom loses heat to the plate,
    # the top by radiation (~20 ulps)
    h = list(host)
    h[0] = np.full_like(host[0], 2000.0)
    h[2] = np.ones_like(host[2])
    h[12] = np.float32(0)
    out = run("probe/melt-pool-laser-7pt", h, n, symbols=syms)[1].reshape(n // 4, n, n)
    drop = float(h[7]) * float(h[17]) * (2000.0 ** 4 - 300.0 ** 4) / float(h[6]) / float(h[8])
    T2, *_ = tp._p177_mp_ref(h[0], h[2], *h[3:])
    assert (out[1:-1] == 2000).all() and np.abs(out[-1] - (2000 - drop)).max() < 2e-4 and drop > 2e-3
    assert np.abs(out - T2).max() < 2e-4 and (out[0] < 1990).all()
    # powder on top, half of it at 1900 K: the half at 2000 K melts, the other stays powder
    h[2] = np.ones((n // 4, n, n), np.uint8)
    h[2][-1] = 0
    h[0] = np.full((n // 4, n, n), 2000, np.float32)
    h[0][-1, :, :n // 2] = 1900
    h[0], h[2] = h[0].ravel(), h[2].ravel()
    out = run("probe/melt-pool-laser-7pt", h, n, symbols=syms)
    T2, st, gap = tp._p177_mp_ref(h[0], h[2], *h[3:])
    top = out[2].reshape(n // 4, n, n)[-1]
    assert (top[:, n // 2:] == 1).all() and (top[:, :n // 2] == 0).all() and (out[2] == st.ravel()).all()
    assert np.abs(out[1] - T2.ravel()).max() < 2e-3 and gap > 1


# ---- voxelize-ray-parity ----

def test_voxelize_parity():
    n = 16                                                  # 16 x 16 rays over one torus' quarter of the plate
    rng = np.random.default_rng(1)
    h = tp._p177_vx_args(n, rng, res=(10, 5), count=1)
    h[6] = np.float32(40 / n)
    out = run("probe/voxelize-ray-parity", h, n)
    ins, hits, margin = tp._p177_vx_ref(h[0], *h[4:9], n, n)
    # float32 edge functions and crossing heights are good to ~1e-4 mm here: columns whose ray
    # passes within 1e-3 mm of a deciding edge line, or a crossing within 1e-3 mm of a voxel
    # centre, are left out
    ok = margin > 1e-3
    assert ok.mean() > 0.95 and (out[3].reshape(n, n) == hits)[ok].all() and (hits % 2 == 0).all()
    assert (tp._p177_mask_bits(out[2]).reshape(n, n, 64) == ins)[ok].all() and (hits == 2).sum() > 40
    assert ins.sum() > 300
    # the faceted torus against the true one
    _, shapes = tp._p177_vx_tori(np.random.default_rng(1), (10, 5), 1)
    c, R, r, Rm = shapes[0]
    g = (np.arange(n) + 0.5) * 40 / n
    P = np.stack(np.broadcast_arrays(g[None, :, None], g[:, None, None], ((np.arange(64) + 0.5) * 0.5)[None, None]), -1)
    q = (P - c) @ Rm                                       # in the torus' frame
    d = np.hypot(np.hypot(q[..., 0], q[..., 1]) - R, q[..., 2]) - r
    sag = (R + r) * (1 - np.cos(np.pi / 10)) + r * (1 - np.cos(np.pi / 5))     # the facets' chords' depth
    far = np.abs(d) > sag
    assert (ins == (d < 0))[far].all() and (far & (d < 0)).sum() > 200


def test_voxelize_box():
    # two boxes (12 triangles each): one from z 2.2 to 31.6 mm (its voxels from the first centre
    # above 2.2, 2.25 in layer 4, to layer 62: the top crossing flips layer 63 back), one from
    # under the volume (-1 mm) to over its top (40.3 mm: not crossing), all 64 layers
    n = 16
    quads = [(0, 1, 3, 2), (4, 5, 7, 6), (0, 1, 5, 4), (2, 3, 7, 6), (0, 2, 6, 4), (1, 3, 7, 5)]
    cub = np.array([[x, y, z] for z in (0, 1) for y in (0, 1) for x in (0, 1)], float)
    t = []
    for lo, hi in (([10.3, 10.2, 2.2], [29.9, 30.1, 31.6]), ([30.6, 3.1, -1.0], [37.4, 8.8, 40.3])):
        V = np.array(lo) + cub * (np.array(hi) - lo)
        t += [[V[a], V[b], V[c]] for q in quads for a, b, c in ((q[0], q[1], q[2]), (q[0], q[2], q[3]))]
    tri = np.zeros(24, tp.P177_TRI_DTYPE)
    tri.view(np.float32).reshape(-1, 9)[:] = np.array(t).reshape(-1, 9)
    f32 = np.float32
    h = [tri, np.int32(24), np.zeros(n * n, np.uint64), np.zeros(n * n, np.int32), f32(0), f32(0), f32(2.5), f32(0),
         f32(0.5), np.int32(n), np.int32(n)]
    out = run("probe/voxelize-ray-parity", h, n)
    ins, hits, margin = tp._p177_vx_ref(tri, *h[4:9], n, n)
    want = np.zeros((n, n), np.uint64)
    want[4:12, 4:12] = 2 ** 63 - 16                        # rays at 1.25 + 2.5 k mm
    want[1:4, 12:15] = 2 ** 64 - 1
    assert margin.min() > 1e-3 and (hits == 2 * (want > 0)).all() and (out[3] == hits.ravel()).all()
    assert (out[2] == want.ravel()).all() and (tp._p177_mask_bits(want) == ins).all()


# ---- hatch-clip-smem ----

@pytest.mark.parametrize("n, lines, spacing, verts, policy", [(3, 200, 0.25, (120, 16), "lockstep"),
                                                            (2, 64, 0.75, (48, 12), "random")])
def test_hatch_layers(n, lines, spacing, verts, policy):
    rng = np.random.default_rng(2)                         # 200 lines: 2 of 4 blocks active, one partly
    h = tp._p177_ht_args(n, rng, lines=lines, spacing=spacing, verts=verts)
    out = run("probe/hatch-clip-smem", h, n, policy=policy)
    nseg, segs, ncross, margin = tp._p177_ht_ref(h[0], h[1], h[4], h[5], h[6], lines)
    # float32 vertices rotated and interpolated: crossings good to ~2e-5 mm; lines passing
    # within 1e-4 mm of a vertex may count it on either side, so they are left out
    ok = margin > 1e-4
    assert ok.mean() > 0.98 and ncross.max() <= 32 and (ncross >= 4).any() and (ncross % 2 == 0).all()
    assert (out[3].reshape(n, lines) == nseg)[ok].all()
    got = out[2].reshape(segs.shape)
    assert np.abs(got - segs)[ok].max() < 1e-4


def test_hatch_vertices_on_lines():
    # a diamond of half-diagonal 5 mm in layer 0 (lines along x), 41 lines 0.5 mm apart: the
    # half-open rule gives the line through its top vertex nothing, the one through its bottom
    # vertex a zero-length vector (counting the minimum twice), the one through its side
    # vertices the full width, the others the width at their height, odd lines backwards
    cx, cy = 60.0, 60.0
    p = np.array([[5, 0], [0, 5], [-5, 0], [0, -5]], float) + [cx, cy]
    edges = np.zeros(4, tp.P177_EDGE_DTYPE)
    edges.view(np.float32).reshape(-1, 4)[:] = np.c_[p, np.roll(p, -1, axis=0)]
    lines = 41
    h = [edges, np.array([0, 4], np.int32), np.zeros(lines * 16 * 4, np.float32), np.zeros(lines, np.int32),
         np.float32(cx), np.float32(cy), np.float32(0.5), np.int32(lines)]
    out = run("probe/hatch-clip-smem", h, 1)
    v = (np.arange(lines) - 20) * 0.5
    inside = (v >= -5) & (v < 5)
    assert (out[3] == inside).all()
    s = out[2].reshape(lines, 16, 4)[:, 0]
    half = 5 - np.abs(v)
    sign = np.where(np.arange(lines) % 2, 1, -1)
    want = np.c_[cx + sign * half, cy + v, cx - sign * half, cy + v] * inside[:, None]
    assert np.abs(s - want).max() < 1e-5


# ---- powder-porosity-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_powder_porosity(policy):
    n = 3000                                               # 6 x 6 x 4 cells, 6 blocks, the last partial
    rng = np.random.default_rng(3)
    h = tp._p177_pp_args(n, rng, side=6)
    # hand-made: on cell faces (x = 100 in cell 1, z = 0 in layer 0), on the grid's far face and
    # under it (outside), a radius on a bin edge (12.5: bin 5) and past the last (45: bin 15)
    q = h[0]
    q[:6] = [(100, 50, 0, 12.5), (0, 0, 0, 45.0), (600, 10, 10, 15), (10, 600, 10, 15), (10, 10, -0.01, 15),
             (599.99, 599.99, 10, 10)]
    out = run("probe/powder-porosity-atomic", h, n, policy=policy)
    solid, count, psd = tp._p177_pp_ref(q, *h[4:8])
    cell, _ = tp._p177_pp_cells(q[:6], *h[4:8])
    assert list(cell) == [1, 0, -1, -1, -1, 35] and h[7] == 4
    # float32 atomicAdds of ~30 volumes a cell in any order: within 30 x 2^-24 relative
    assert (np.abs(out[1] - solid) <= 4e-6 * solid).all() and (out[2] == count).all() and (out[3] == psd).all()
    assert psd[5] >= 1 and psd[15] >= 1 and count.sum() == n - 3 - (h[0]["z"] >= 400).sum()
    assert count.max() > 40 and 15 < np.median(count) < 40


# ---- inherent-strain-march ----

@pytest.mark.parametrize("n, nz, policy", [(40, 8, "lockstep"), (16, 4, "random")])
def test_inherent_stress(n, nz, policy):
    rng = np.random.default_rng(4)
    h = tp._p177_is_args(n, rng, nz=nz)                    # 40: 2 x 5 blocks, partial in x
    out = run("probe/inherent-strain-march", h, n, policy=policy)
    sig = tp._p177_is_ref(h[0], n, n, nz, *h[5:])
    # float32: S sums ~nz terms of ~6e-3 (relative error ~1e-6), sigma ~ E eps <= 870 MPa
    assert np.abs(out[1] - sig.ravel()).max() < 2e-3 and ((out[1] == 0) == (h[0] == 0)).all()
    e = h[0].reshape(nz, n, n)
    assert (sig > 0).any() and (sig[e > 0] < (1 - 1e-3) * 110e3 * e[e > 0]).mean() > 0.5   # relieved
    # one column of strain 0.004 in the grid's corner: its mean a ninth of itself, S geometric
    e = np.zeros((nz, n, n), np.float32)
    e[:, 0, 0] = 0.004
    h[0] = e.ravel()
    out = run("probe/inherent-strain-march", h, n)[1].reshape(nz, n, n)
    r, E, beta = 0.88, 110e3, 0.1
    k = np.arange(nz)
    S = 0.004 / 9 * r * (1 - r ** (nz - 1 - k)) / (1 - r)
    assert np.abs(out[:, 0, 0] - E * (0.004 - beta * S)).max() < 1e-3 and np.count_nonzero(out) == nz


# ---- overhang-compact-shfl ----

@pytest.mark.parametrize("n, policy", [(576, "lockstep"), (407, "random")])
def test_overhang_detect(n, policy):
    host, out, *_ = launch("probe/overhang-compact-shfl", n, policy=policy)   # 407: the mesh cut mid-row
    sel, vol, margin = tp._p177_oh_ref(*host[:2], *host[5:8])
    # float32 normals are good to ~1e-6: every facet is 1e-4 or more from the critical angle
    assert margin.min() > 1e-4 and out[3][0] == len(sel) and (np.sort(out[2][:len(sel)]) == sel).all()
    assert (out[2][len(sel):] == -1).all() and 10 < len(sel) < n / 5
    # the volumes from float32 cross products (~1e-6 relative each), summed in double
    assert abs(out[4][0] - vol) < 1e-6 * vol
