"""probe-unseen79's kernels (kernels_cuda/probes81.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
from pathlib import Path

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/wave2d-fd8-global", "probe/stencil25-zmarch-smem", "probe/nmo-interp-stretchmute",
       "probe/cmp-stack-atomicadd", "probe/kirchhoff-tmig-aperture", "probe/agc-running-pertrace"]
NT = tp._P81_NT


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen79"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes81.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # the 8th-order weights: a second derivative (sum 0, exact on x^2, zero on x^4 .. x^8)
    c = tp._P81_FD8.astype(np.float64)
    k = np.arange(1, 5)
    assert abs(c[0] + 2 * c[1:].sum()) < 1e-7 and abs(2 * (c[1:] * k ** 2).sum() - 2) < 1e-7
    assert all(abs((c[1:] * k ** p).sum()) < 1e-6 for p in (4, 6, 8))
    src = (Path(tp.__file__).parent / "probes81.cu").read_text()
    assert "{-2.84722222f, 1.6f, -0.2f, 0.0253968254f, -0.00178571429f}" in src      # the same c_fd8
    # traces: decaying noise, the last samples tapered to exactly zero
    d = tp._p81_traces(400, NT, rng).reshape(400, NT)
    assert d.dtype == np.float32 and (d[:, -1] == 0).all() and (d[:, -64:-1] != 0).mean() > 0.99
    rms = np.sqrt((d[:, :256] ** 2).mean()), np.sqrt((d[:, 1600:1856] ** 2).mean())
    assert 0.8 < rms[0] < 1.0 and 0.08 < rms[1] < 0.15
    u, up, vdt2, nx, nz = tp._p81_wave_args(128, rng)
    assert u.dtype == up.dtype == vdt2.dtype == np.float32 and len(u) == 128 * 128 and nx == nz == 128
    vd = np.sqrt(vdt2.reshape(128, 128)) * tp._P81_WAVE_H / tp._P81_WAVE_DT
    assert 1400 < vd.min() and vd.max() < 4800 and vd[:8].mean() < 1600 and vd[-8:].mean() > 4400
    assert np.sqrt(vdt2.max()) < 0.5                                          # stable (CFL)
    vol, out, sx_, sy_, sz_ = tp._p81_st_args(64, rng)
    assert len(vol) == 64 * 64 * 16 and (sx_, sy_, sz_) == (64, 64, 16) and not out.any()
    p = tp.get("probe/stencil25-zmarch-smem")
    assert p.grid(p.n) == (32, 64, 8) and p.n // 8 == 8 * 16                      # 8 slabs of 16 planes
    # nmo: CMPs of 64 offsets, vrms rising with t0; ~83% of samples kept, some warps divergent
    a = tp._p81_nmo_args(256 * NT, rng)
    off, vr = a[1], a[2].reshape(-1, NT)
    assert a[6] == 64 and a[8] == 256 and vr.shape == (4, NT) and (np.diff(vr, axis=1) > 0).all()
    assert off[0] == 100 and off[63] == 3250 and (off[64:128] == off[:64]).all()
    keep = tp._p81_nmo_ref(*[a[i] for i in (0, 1, 2, 4, 5, 6, 7, 8)])[1]
    assert 0.78 < keep.mean() < 0.88
    w = keep.reshape(-1, 32)
    assert 0.01 < (w.any(axis=1) & ~w.all(axis=1)).mean() < 0.06
    # stack: 16384 traces at the default size in 512 bins, fold up to 64, ~80% non-zero
    sx, gx, nbins = tp._p81_stk_geom(16384)
    assert nbins == 512 and (gx - sx).min() == 100 and (gx - sx).max() == 6475
    assert tp.get("probe/cmp-stack-atomicadd").n == 16384 * NT
    st, fold = tp._p81_stk_ref(np.zeros(16384), sx, gx, tp._P81_STK_X0, tp._P81_STK_DBIN, nbins, 1, 16384)
    assert fold.max() == 64 and fold[:4].sum() == 0 and fold.sum() == 16384
    s = tp._p81_stk_args(1024 * NT, rng)
    nzr = (s[0] != 0).mean()
    assert s[7] == len(s[4]) and len(s[3]) == s[7] * NT and 0.75 < nzr < 0.85
    fold = tp._p81_stk_ref(*[s[i] for i in (0, 1, 2, 5, 6, 7, 8, 9)])[1]
    assert fold.sum() == 1024 and fold.max() == 4                            # 4 shots of 256
    # kirchhoff and agc
    km = tp._p81_km_args(8 * NT, rng)
    assert km[7] == 8 and km[5] == 100 and km[1][0] == 1500 and abs(km[1][-1] - 3547.5) < 1
    ant = tp._P81_AGC_NT
    g = tp._p81_agc_args(640 * ant, rng)
    dead = ~g[0].reshape(640, ant).any(axis=1)
    assert g[2] == 62 and g[3] == ant == 1024 and g[4] == 640 and 2 <= dead.sum() <= 25
    p = tp.get("probe/agc-running-pertrace")
    assert p.grid(p.n) == 8


# ---- wave2d-fd8-global ----

def test_wave2d():
    n = 72                                                  # 3 x 9 blocks, the last partial
    host, (u, up, vdt2, nx, nz), *_ = launch("probe/wave2d-fd8-global", n)
    ref = tp._p81_wave_ref(*host)
    np.testing.assert_allclose(up, ref, rtol=0, atol=2e-5)
    e = np.ones((n, n), bool)
    e[4:-4, 4:-4] = False
    assert (up.reshape(n, n)[e] == host[1].reshape(n, n)[e]).all()          # edges untouched
    assert (up != host[1]).mean() > 0.7 and (u == host[0]).all()


# ---- stencil25-zmarch-smem ----

def test_stencil25():
    # 64 x 32 x 28 (the probe's nz for n = 160): 2 x 2 x 2 blocks, slabs of 16 + 4 planes
    nx, ny, nz = 64, 32, 28
    host = tp._p81_st_args(160, np.random.default_rng(0))
    assert host[4] == nz
    vol = host[0][:nx * ny * nz].copy()
    host = [vol, np.zeros_like(vol), np.int32(nx), np.int32(ny), np.int32(nz)]
    out = run("probe/stencil25-zmarch-smem", host, nx, grid=(nx // 32, ny // 16, 2))[1]
    ref = tp._p81_st_ref(vol, nx, ny, nz)
    np.testing.assert_allclose(out, ref, rtol=0, atol=2e-5)
    assert (out.reshape(nz, ny, nx)[4:24, 4:-4, 4:-4] != 0).all()


def test_stencil25_random_policy():
    # warps interleaved one instruction at a time: no race on the tile between planes
    rng = np.random.default_rng(3)
    nx, ny, nz = 32, 32, 10                                 # 1 x 2 blocks, 2 planes
    vol = rng.standard_normal(nx * ny * nz, dtype=np.float32)
    host = [vol, np.zeros_like(vol), np.int32(nx), np.int32(ny), np.int32(nz)]
    out = run("probe/stencil25-zmarch-smem", host, 32, policy="random")[1]
    np.testing.assert_allclose(out, tp._p81_st_ref(vol, nx, ny, nz), rtol=0, atol=2e-5)


# ---- nmo-interp-stretchmute ----

def test_nmo():
    n = 80 * NT                                             # 2 CMPs, the second partial
    host, after, *_ = launch("probe/nmo-interp-stretchmute", n)
    ref, keep, margin = tp._p81_nmo_ref(*[host[i] for i in (0, 1, 2, 4, 5, 6, 7, 8)])
    assert margin > 3e-6                                    # no mute test within rounding
    out = after[3]
    assert ((out != 0) == keep).all()
    np.testing.assert_allclose(out, ref, rtol=0, atol=6e-4)             # t / dt ~ 1000 in float32
    assert np.abs(out - ref).mean() < 2e-5
    k = keep.reshape(80, NT)
    assert not k[:, 0].any() and k[:, 1].sum() == 0 and k[:, 1000].all() and not k[:, -1].any()
    assert k[0, 100:1900].all() and not k[63, :300].any() and k[63, 1000:1900].all()      # far offsets muted longer


# ---- cmp-stack-atomicadd ----

@pytest.mark.parametrize("policy, nt", [("lockstep", 128), ("random", 8)])
def test_cmp_stack(policy, nt):
    # 2 shots overlapping in 252 bins (fold 2 there); short traces keep the random policy quick
    rng = np.random.default_rng(4)
    host = tp._p81_stk_args(512 * nt, rng, nt=nt)
    host[0][:] = rng.standard_normal(512 * nt).astype(np.float32)      # (the mute would zero nearly all)
    host[0][::7] = 0.0                                                  # some zeros: not added
    out = run("probe/cmp-stack-atomicadd", host, 512 * nt, policy=policy)
    st, fold = tp._p81_stk_ref(*[host[i] for i in (0, 1, 2, 5, 6, 7, 8, 9)])
    assert (out[4] == fold).all() and fold.max() == 2 and (fold == 2).sum() == 252
    np.testing.assert_allclose(out[3], st, rtol=1e-6, atol=1e-6)
    assert (out[3] != 0).mean() > 0.6


def test_cmp_stack_default_nt_and_dropped_bins():
    # the probe's nt (its mute), then a stack of fewer bins: traces past the last dropped
    n = 300 * NT
    host, after, *_ = launch("probe/cmp-stack-atomicadd", n)
    st, fold = tp._p81_stk_ref(*[host[i] for i in (0, 1, 2, 5, 6, 7, 8, 9)])
    assert (after[4] == fold).all() and fold.sum() == 300
    np.testing.assert_allclose(after[3], st, rtol=1e-6, atol=1e-6)
    rng = np.random.default_rng(1)
    nt = 64
    host = tp._p81_stk_args(300 * nt, rng, nt=nt)
    host[0][:] = rng.standard_normal(300 * nt).astype(np.float32)
    nb = 100
    host[3] = np.zeros(nb * nt, np.float32)
    host[4] = np.zeros(nb, np.int32)
    host[7] = np.int32(nb)
    out = run("probe/cmp-stack-atomicadd", host, 300 * nt)
    st, fold = tp._p81_stk_ref(*[host[i] for i in (0, 1, 2, 5, 6, 7, 8, 9)])
    assert fold.sum() == 96 + 44 and (out[4] == fold).all()                # bins 4 .. 99: 96 of shot 0, 44 of shot 1
    np.testing.assert_allclose(out[3], st, rtol=1e-6, atol=1e-6)


# ---- kirchhoff-tmig-aperture ----

def test_kirchhoff():
    n = 12 * NT                                             # 12 traces: the aperture (100) covers all
    host, after, *_ = launch("probe/kirchhoff-tmig-aperture", n)
    ref, cnt = tp._p81_km_ref(*[host[i] for i in (0, 1, 3, 4, 5, 6, 7)])
    np.testing.assert_allclose(after[2], ref, rtol=0, atol=2e-3)
    c = cnt.reshape(12, NT)
    assert c[:, 100].min() == 12 and c[:, -1].max() < 12 and c[0, -1] == 0


def test_kirchhoff_narrow_aperture():
    rng = np.random.default_rng(9)
    nt = 200
    host = tp._p81_km_args(24 * nt, rng, nt=nt)
    host[5] = np.int32(3)
    out = run("probe/kirchhoff-tmig-aperture", host, 24 * nt)
    ref, cnt = tp._p81_km_ref(*[host[i] for i in (0, 1, 3, 4, 5, 6, 7)])
    np.testing.assert_allclose(out[2], ref, rtol=0, atol=1e-3)
    c = cnt.reshape(24, nt)
    assert c[0, 10] == 4 and c[10, 10] == 7 and c[23, 10] == 4
    # the zero-offset term alone at t0 = 0 (weight 1): the image's first sample sums the traces'
    assert np.allclose(out[2].reshape(24, nt)[:, 0], ref.reshape(24, nt)[:, 0], atol=1e-6)


# ---- agc-running-pertrace ----

@pytest.mark.parametrize("nt, half", [(300, 62), (90, 200)])
def test_agc(nt, half):
    rng = np.random.default_rng(5)
    ntr = 40                                                # 1 partial block
    host = tp._p81_agc_args(ntr * nt, rng, nt=nt)
    d = host[0].reshape(ntr, nt)
    d[[3, 17]] = 0.0                                        # dead traces
    host[2] = np.int32(half)
    out = run("probe/agc-running-pertrace", host, ntr * nt)[1]
    ref = tp._p81_agc_ref(host[0], half, nt, ntr)
    np.testing.assert_allclose(out, ref, rtol=2e-4, atol=2e-4)
    o = out.reshape(ntr, nt)
    assert not o[[3, 17]].any() and np.abs(o[0]).max() > 1
    if half >= nt:                                          # one window: the trace over its RMS
        live = d[0].astype(np.float64)
        np.testing.assert_allclose(o[0], live / np.sqrt((live ** 2).mean()), rtol=2e-4, atol=2e-4)

