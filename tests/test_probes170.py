"""probe-unseen168's kernels (kernels_cuda/probes170.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/dsmc-channel-move-maxwell", "probe/dsmc-cell-count-atomic", "probe/dsmc-ntc-vhs-collide",
       "probe/dsmc-sample-block-smem", "probe/dsmc-maxwell-init-splitmix", "probe/dsmc-plume-inflow-atomic"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen168"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes170.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    rho, T, u, v = tp._p170_flow(400, 200)
    assert rho.dtype == np.float32 and len(rho) == 400 * 200 and 0.01 < (rho == 0).mean() < 0.02   # the body
    assert 0.03 < (rho > 2).mean() < 0.07 and abs(rho.max() - 5) < 0.1 and abs(T.max() / tp.P170_TINF - 8.7) < 0.1
    assert (T[rho > 2] > tp.P170_TINF).all() and (u[rho == 1] == tp.P170_UINF).all() and 0.6 < (rho == 1).mean() < 0.9
    x, y, u, v, w, s, px, py, pe, Lx, H, uw, vmp0, vmp1, alpha, dt, nwb, n = tp._p170_mv_args(1 << 16, rng)
    assert H == np.float32(tp.P170_MV_H) and nwb == 16 and len(px) == 32 and (s & 1).all() and uw == 200
    assert 0 <= x.min() and x.max() < Lx and 0 <= y.min() and y.max() < H and abs(Lx / H - 1) < 1e-6
    assert 0.53 < (y < H / 2).mean() < 0.55                                # denser by the cold wall
    cold, hot = y < H / 8, y > 7 * H / 8
    assert abs(w[cold].std() / w[hot].std() - np.sqrt(279.25 / 366.75)) < 0.02 and abs(u[hot].mean() - 170) < 5
    assert abs(vmp0 * dt - H / 128) < 1e-3 * H and alpha == np.float32(0.9)
    x, y, cell, slot, cnt, inv_dx, nx, ny, n = tp._p170_cc_args(1 << 16, rng)
    c = tp._p170_cc_cells(x, y, inv_dx, nx, ny)
    k = np.bincount(c[c >= 0], minlength=nx * ny)
    assert (nx, ny) == (80, 40) and 0 < (c < 0).mean() < 0.01 and k.max() > 60 and 0.01 < (k == 0).mean() < 0.03
    assert 0.7 < (np.diff(c) >= 0).mean() < 0.9                               # nearly in cell order
    assert 3.5 < np.mean([len(np.unique(r)) for r in c.reshape(-1, 32)]) < 6    # cells a warp
    d = tp._p170_cells(3200, rng)
    cnt, start, pid = d["cnt"], d["start"], d["pid"]
    assert (d["nx"], d["ny"]) == (80, 40) and (np.sort(pid) == np.arange(cnt.sum())).all()
    assert (start == np.cumsum(cnt) - cnt).all() and (cnt[d["rho"] == 0] == 0).all()
    assert abs(cnt[d["rho"] == 1].mean() - 20) < 0.5 and cnt.max() > 80
    assert 0.2 < (np.diff(pid) != 1).mean() < 0.45 and np.abs(np.diff(pid)).max() < 120     # nearly sorted
    free = np.repeat(d["rho"] == 1, cnt)[np.argsort(pid)]
    vmp = np.sqrt(2 * tp.P170_KB * tp.P170_TINF / tp.P170_MASS)
    assert abs(d["u"][free].mean() - 1300) < 5 and abs(d["w"][free].std() / vmp * np.sqrt(2) - 1) < 0.02
    _, cnt, *_, smax, rem, s, nc, coll, inv_cref, ncell = tp._p170_ntc_args(3200, rng)
    N = cnt.astype(np.float64)
    sel = coll * N * (N - 1) * smax
    assert 0 <= rem.min() and rem.max() < 1 and (s & 1).all() and 2.5 < np.median(sel[d["rho"] == 1]) < 3.6
    assert sel.max() > 100 and np.allclose(smax[d["rho"] == 1], 1000 ** 0.62 * (3 * vmp) ** 0.38, rtol=1e-6)
    *_, old, ncell = tp._p170_sum_args(3200, rng)
    assert old.dtype == tp.P170_SUM_DTYPE and abs(np.median(old["n"][d["rho"] == 1]) - 4000) < 50
    cs, T, uc, vc, *_, seed, dx, nx, ncell, n = tp._p170_mi_args(1 << 16, rng)
    assert cs[0] == 0 and cs[-1] == n and (np.diff(cs) >= 0).all() and len(cs) == ncell + 1 == 80 * 40 + 1
    assert seed.dtype == np.uint64 and abs(np.median(np.diff(cs)[(T == tp.P170_TINF) & (uc == 1300)]) - 20) < 1.5
    st = tp._p170_in_states()
    assert abs(st["nin"][0] - 3.7) < 0.01 and abs(st["nin"][1] - 0.14) < 0.01 and (st["cmax"] == st["s"] + 3).all()
    c = np.linspace(0, st["cmax"], 100001)
    fmax = (c * np.exp(-(c - st["s"]) ** 2)).max(axis=0)
    assert np.allclose(fmax, st["fmax"], rtol=1e-6)
    typ, rem, s, *_, cnt, maxp, dt, dy, ny, nx, nf = tp._p170_in_args(1 << 16, rng, np0=1000)
    assert (ny, nf) == (256, 1 << 16) and abs((typ == 0).mean() - np.pi * 0.09) < 0.01 and cnt[0] == 1000
    assert maxp == 1000 + int(1.25 * st["nin"][typ].sum()) + 64 and 0 <= rem.min() and rem.max() < 1


# ---- dsmc-channel-move-maxwell ----

@pytest.mark.parametrize("n, alpha, policy", [(2048, 0.9, "lockstep"), (1024, 0.9, "random"), (512, 0.0, "lockstep")])
def test_channel_move(n, alpha, policy):
    rng = np.random.default_rng(3)
    h = tp._p170_mv_args(n, rng)
    H = float(h[10])
    h[14] = np.float32(alpha)
    h[15] = np.float32(h[15] * 12)                          # 12 times the step: ~5% of particles hit a wall
    h[3][:4] = (np.float32([1.3, -1.7, 2.6, -3.4]) * h[10] / h[15]).astype(np.float32)    # crossing again and again
    out = run("probe/dsmc-channel-move-maxwell", h, n, policy=policy)
    x, y, u, v, w, s, sums, size, hits, margin = tp._p170_mv_ref(*h[:6], *h[9:17])
    # no decision within 1e-5 of its threshold (float32's errors here are ~1e-7)
    assert margin.min() > 1e-5 and hits > 0.04 * n and (out[5] == s).all()
    Lx = float(h[9])
    dx = np.abs(out[0] - x)
    assert np.minimum(dx, Lx - dx).max() < 1e-6 * Lx and np.abs(out[1] - y).max() < 1e-6 * H
    assert 0 <= out[0].min() and out[0].max() < Lx and 0 <= out[1].min() and out[1].max() <= H
    for k in range(3):                                      # float32 against float64: a few ulps of the speeds
        assert (np.abs(out[2 + k] - (u, v, w)[k]) <= 1e-6 * (np.abs((u, v, w)[k]) + 300)).all()
    # the wall sums, float atomics in any order: a few ulps of the sizes of their terms
    for k in range(3):
        assert (np.abs(out[6 + k] - sums[k]) <= 1e-5 * size[k]).all()
    assert (size[2] > 0).sum() >= len(size[2]) // 2
    if alpha == 0:                                          # specular only: folded flights, the speeds kept
        y0 = h[1].astype(np.float64) + h[3].astype(np.float64) * float(h[15])
        fold = np.abs(np.mod(y0 + H, 2 * H) - H)
        assert np.abs(out[1] - fold).max() < 1e-6 * H and (out[2] == h[2]).all() and (out[4] == h[4]).all()
        assert (np.abs(out[3]) == np.abs(h[3])).all() and ((out[3] != h[3]) == (np.floor(y0 / H) % 2 == 1)).all()
        nwb = int(h[16])                                    # pushed down at the bottom, up at the top
        assert (out[7][:nwb] <= 0).all() and (out[7][nwb:] >= 0).all() and (out[7] != 0).sum() > nwb
        assert (out[6] == 0).all() and (np.abs(out[8]) <= 1e-6 * size[2]).all()


# ---- dsmc-cell-count-atomic ----

@pytest.mark.parametrize("n, policy", [(3000, "lockstep"), (1500, "random")])
def test_cell_count(n, policy):
    rng = np.random.default_rng(4)
    h = tp._p170_cc_args(n, rng)
    nx, ny = int(h[6]), int(h[7])
    L, T = nx * tp.P170_DX, ny * tp.P170_DX
    # on cell edges and on the domain's bounds (the far ones outside), a hair below 0
    h[0][:6] = np.float32([0.0, 0.002, L, 0.005, -1e-9, 0.0041])
    h[1][:6] = np.float32([0.0, 0.001, 0.0015, T, 0.003, 0.0])
    out = run("probe/dsmc-cell-count-atomic", h, n, policy=policy)
    cell = tp._p170_cc_cells(h[0], h[1], h[5], nx, ny)
    assert list(cell[:6]) == [0, nx + 2, -1, -1, -1, 4] and 0 < (cell < 0).sum()
    assert (out[2] == cell).all() and ((out[3] < 0) == (cell < 0)).all()
    count = np.bincount(cell[cell >= 0], minlength=nx * ny)
    assert (out[4] == count).all() and count.max() > 40
    # each cell's slots 0 .. count - 1, each once
    ok = cell >= 0
    o = np.lexsort((out[3][ok], cell[ok]))
    first = np.cumsum(count) - count
    assert (out[3][ok][o] == np.arange(ok.sum()) - np.repeat(first, count)).all()


# ---- dsmc-ntc-vhs-collide ----

@pytest.mark.parametrize("n, seed, policy", [(200, 0, "lockstep"), (64, 1, "random")])
def test_ntc_collide(n, seed, policy):
    host, out, *_ = launch("probe/dsmc-ntc-vhs-collide", n, seed=seed, policy=policy)
    u, v, w, smax, rem, s, nc, margin = tp._p170_ntc_ref(*host[:9], host[10], host[11])
    # no candidate count or acceptance within 1e-4 of its threshold (float32 drifts ~1e-6)
    assert margin > 1e-4 and (out[8] == s).all() and (out[9] == nc).all()
    assert nc.sum() > 2 * n and nc.max() > 20 and (nc == 0).any() and (smax > host[6]).any()
    # float32 against float64 through up to ~40 collisions a cell: under 1e-6 of the speeds (~2000 m/s)
    for k in range(3):
        assert np.abs(out[3 + k] - (u, v, w)[k]).max() < 2e-3
    assert (np.abs(out[6] - smax) <= 1e-5 * smax).all() and np.abs(out[7] - rem).max() < 1e-4
    # the collisions keep each cell's momentum and energy
    cell = np.repeat(np.arange(int(host[12])), host[1])
    for q in (lambda a: a, lambda a: a * a):
        before = sum(np.bincount(cell, q(host[3 + k].astype(np.float64)[host[2]])) for k in range(3))
        after = sum(np.bincount(cell, q(out[3 + k].astype(np.float64)[host[2]])) for k in range(3))
        assert np.allclose(after, before, rtol=1e-5, atol=1e-2)
    # moved: exactly the particles of colliding cells' pairs
    moved = (out[3] != host[3]) | (out[4] != host[4]) | (out[5] != host[5])
    assert (np.repeat(nc, host[1])[np.argsort(host[2])][moved] > 0).all()


# ---- dsmc-sample-block-smem ----

@pytest.mark.parametrize("n, policy", [(150, "lockstep"), (12, "random")])
def test_sample_cells(n, policy):
    rng = np.random.default_rng(5)
    h = tp._p170_sum_args(n, rng)
    # hand-made: cell 0 of 150 particles (3 rounds of the block; the list's first 150, read by
    # other cells too), cells 1 and 2 empty
    cnt = h[1].copy()
    cnt[0] = 150
    cnt[1:3] = 0
    h[1] = cnt
    out = run("probe/dsmc-sample-block-smem", h, n, policy=policy)[6]
    ref, size = tp._p170_sum_ref(*h[:6], h[6])
    assert (out["n"] == ref["n"]).all() and len(h[2]) > 200
    # float32 sums of up to 150 terms (per thread then a 6-level tree) added to a double: a few
    # ulps of the sum of the terms' sizes
    for k, f in enumerate("uvw"):
        assert (np.abs(out[f] - ref[f]) <= 1e-6 * size[k] + 1e-12 * np.abs(ref[f])).all()
    assert (np.abs(out["c2"] - ref["c2"]) <= 1e-6 * (ref["c2"] - h[6]["c2"]) + 1e-12 * ref["c2"]).all()
    assert (out[cnt == 0] == h[6][cnt == 0]).all()


# ---- dsmc-maxwell-init-splitmix ----

@pytest.mark.parametrize("n, policy", [(3000, "lockstep"), (1000, "random")])
def test_maxwell_init(n, policy):
    rng = np.random.default_rng(6)
    h = tp._p170_mi_args(n, rng)
    out = run("probe/dsmc-maxwell-init-splitmix", h, n, policy=policy)
    x, y, u, v, w, cell = tp._p170_mi_ref(h[0], h[1], h[2], h[3], h[10], h[11], int(h[12]), n)
    assert (out[9] == cell).all()
    dx = tp.P170_DX
    assert np.abs(out[4] - x).max() < 1e-4 * dx and np.abs(out[5] - y).max() < 1e-4 * dx
    # float32 logf/sqrtf/sinf/cosf against float64: ~1e-6 of the thermal speeds
    sig = np.sqrt(tp.P170_KB / tp.P170_MASS * h[1][cell].astype(np.float64))
    for k, r in enumerate((u, v, w)):
        assert (np.abs(out[6 + k] - r) <= 2e-6 * (np.abs(r) + 6 * sig)).all()
    assert (np.floor(out[4] / dx + 0.5 * (out[4] / dx % 1 == 0)) % 1 == 0).all()
    c = (np.floor(out[5] / dx) * int(h[12]) + np.floor(out[4] / dx)).astype(np.int64)
    assert (c == cell).mean() > 0.99                                       # in their cells
    # empty cells first and last: the search still finds the particles' cells
    cs = np.array([0, 0, 0, 3, 3, 4, 7, 7, 7], np.int32)
    T = np.full(8, 300, np.float32)
    h2 = [cs, T, T * 0, T * 0, *(np.zeros(7, np.float32) for _ in range(5)), np.zeros(7, np.int32), h[10],
          np.float32(1.0), np.int32(4), np.int32(8), np.int32(7)]
    out = run("probe/dsmc-maxwell-init-splitmix", h2, 7)
    assert list(out[9]) == [2, 2, 2, 4, 5, 5, 5]
    assert (np.floor(out[4]) == [2, 2, 2, 0, 1, 1, 1]).all() and (np.floor(out[5]) == [0, 0, 0, 1, 1, 1, 1]).all()


# ---- dsmc-plume-inflow-atomic ----

@pytest.mark.parametrize("n, policy, room", [(400, "lockstep", None), (300, "random", None), (400, "lockstep", 50)])
def test_plume_inflow(n, policy, room):
    rng = np.random.default_rng(7)
    np0 = 100
    h = tp._p170_in_args(n, rng, np0=np0)
    if room is not None:                                   # the particle arrays nearly full
        h[11] = np.int32(np0 + room)
    out = run("probe/dsmc-plume-inflow-atomic", h, n, policy=policy, symbols=tp._p170_in_syms(n, rng))
    ny, nx = int(h[14]), int(h[15])
    rem, s, k, ref, margin = tp._p170_in_ref(h[0], h[1], h[2], h[12], h[13], ny)
    # no acceptance test within 1e-4 of its threshold (float32 drifts ~1e-6)
    assert margin > 1e-4 and (out[1] == rem).all() and out[10][0] == np0 + k.sum() and (k[h[0] == 0] >= 3).all()
    maxp = int(h[11])
    top = min(maxp, np0 + int(k.sum()))
    assert (out[9][np0:top] % nx == 0).all() and (out[9][top:] == 0).all() and (out[9][:np0] == 0).all()
    f = out[9][np0:top] // nx
    # each element's molecules in consecutive slots, in order
    o = np.argsort(f, kind="stable")
    assert (np.diff(o)[np.diff(f[o]) == 0] == 1).all()
    j = np.arange(len(f)) - np.searchsorted(f[o], f[o])
    idx = (np.cumsum(k) - k)[f[o]] + j
    assert (j < k[f[o]]).all()
    got = np.array(out[3:9])[:, np0:top][:, o]
    want = ref[:, idx]
    scale = np.array([float(h[12]) * 2000, ny * float(h[13]), ny * float(h[13]), 2000, 2000, 2000])[:, None]
    assert (np.abs(got - want) <= 2e-6 * scale).all()
    if room is None:
        assert top == np0 + k.sum() and (out[2] == s).all()
        assert (np.bincount(f, minlength=len(k)) == k).all()
    else:
        assert top == maxp and (np.bincount(f, minlength=len(k)) <= k).all()
