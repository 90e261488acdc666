"""probe-unseen143's kernels (kernels_cuda/probes145.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import dataclasses

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import _run, launch, run

IDS = ["probe/xtal-structure-factors", "probe/debye-pair-sum", "probe/xtal-density-map",
       "probe/powder-pattern-smem-atomics", "probe/patterson-pair-atomics", "probe/xtal-index-spots"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen143"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes145.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # P2_1 2_1 2_1 atoms: in the cell, 4 copies of the asymmetric unit, Z from the types
    x, y, z, Z = tp._p145_atoms(400, rng)
    assert all(a.dtype == np.float32 and a.min() >= 0 and a.max() < 1 for a in (x, y, z))
    assert Z.dtype == np.int32 and set(np.unique(Z)) <= set(tp.P145_Z) and (Z[:100] == Z[300:]).all()
    for got, want in ((x[100:200], 0.5 - x[:100]), (z[200:300], 0.5 - z[:100]), (x[300:], x[:100] + 0.5)):
        dd = got - want.astype(np.float64)
        assert np.abs(dd - np.round(dd)).max() < 1e-6                   # the screw axes' copies, mod 1
    # structure factors: hkl in the box, B in range
    h, *at, fre, fim, a, b, c, na, n = tp._p145_sf_args(1000, rng)
    hk = h.reshape(-1, 3)
    assert h.dtype == np.int32 and (np.abs(hk).max(axis=0) == tp.P145_SF_HKL).all() and na == tp.P145_SF_ATOMS
    assert at[4].min() >= 10 and at[4].max() <= 40 and len(at[0]) == na
    # Debye: the atoms in the ball, q evenly spaced
    px, py, pz, f, q, I, nn = tp._p145_db_args(2048, rng)
    r = np.sqrt(px.astype(float) ** 2 + py ** 2 + pz ** 2)
    assert r.max() <= tp.P145_DB_R + 1e-4 and r.max() > 17 and np.median(r) > 13      # uniform in the ball
    assert len(q) == tp.P145_DB_NQ and q[0] == np.float32(0.05) and set(np.unique(f)) == set(tp.P145_DB_F)
    # density map: the lowest-resolution half-sphere, Friedel mates excluded, F from the model
    d = tp._p145_dm_refl()
    assert len(d["h"]) == tp.P145_DM_REFL and d["F000"] == tp._p145_atoms(tp.P145_DM_ATOMS,
                                                                          np.random.default_rng(145))[3].sum()
    key = set(zip(d["h"], d["k"], d["l"]))
    assert len(key) == len(d["h"]) and not any((-hh, -kk, -ll) in key for hh, kk, ll in key)
    a, b, c = tp.P145_DM_CELL
    ds = np.sqrt((d["h"] / a) ** 2 + (d["k"] / b) ** 2 + (d["l"] / c) ** 2)
    assert (np.diff(ds) >= -1e-12).all() and 1 / ds.max() > 3 and np.abs(d["h"]).max() < 12
    assert d["F"].max() < d["F000"] and (d["F"] > 0).all()
    # powder: about half out of reach, ~30% binned
    hkl, Ip, pat, *rest = tp._p145_pw_args(1 << 16, rng)
    bins, w, gap = tp._p145_pw_ref(hkl, Ip)
    assert 0.25 < (bins >= 0).mean() < 0.35 and abs(Ip.mean() - tp.P145_PW_IMEAN) < 2
    lam = tp.P145_PW_LAMBDA
    hh = hkl.reshape(-1, 3) / np.array(tp.P145_PW_CELL)
    assert 0.4 < (0.5 * lam * np.sqrt((hh ** 2).sum(axis=1)) >= 1).mean() < 0.55
    cnt = np.bincount(bins[bins >= 0], minlength=tp.P145_PW_BINS)
    assert cnt[-200:].mean() > 20 * cnt[:200].mean()                      # denser at high angle
    # Patterson: a 32^3 grid of uint32
    *_, P, nn = tp._p145_pt_args(64, rng)
    assert P.dtype == np.uint32 and len(P) == tp.P145_PG ** 3
    # index spots: ~80% within tol, UB a rotation times the reciprocal cell
    UB, UBi = tp._p145_ix_ub()
    assert np.allclose(np.linalg.svd(UB)[1], sorted(1 / np.array(tp.P145_IX_CELL))[::-1])
    q, hkl, res, count, tol, nn = tp._p145_ix_args(4096, rng)
    _, rr, ok, *_ = tp._p145_ix_ref(q)
    assert q.dtype == np.float32 and len(q) == 3 * 4096 and 0.77 < ok.mean() < 0.82
    assert np.median(rr[ok]) < 0.06


# ---- xtal-structure-factors ----

def test_structure_factors():
    # 300 reflections (2 blocks, the last partial) and 300 atoms (a full and a partial tile)
    rng = np.random.default_rng(3)
    host = tp._p145_sf_args(300, rng, natoms=300)
    host[0][:3] = 0                                           # F(000) = sum f
    out = run("probe/xtal-structure-factors", host, 300)
    re, im = tp._p145_sf_ref(*host[:6])
    np.testing.assert_allclose(out[6], re, rtol=0, atol=0.02)
    np.testing.assert_allclose(out[7], im, rtol=0, atol=0.02)
    assert out[6][0] == host[4].sum() and out[7][0] == 0 and np.abs(re).max() > 100


# ---- debye-pair-sum ----

def test_debye():
    n = 300                                                   # 2 x 64 blocks, a partial tile
    host, out, *_ = launch("probe/debye-pair-sum", n)
    ref = tp._p145_db_ref(*host[:5])
    np.testing.assert_allclose(out[5], ref, rtol=2e-5, atol=2e-5 * ref.max())
    f = host[3].astype(np.float64)
    assert abs(ref[0] / f.sum() ** 2 - 1) < 0.2 and abs(ref[-1] / (f * f).sum() - 1) < 0.1   # Guinier .. self terms


# ---- xtal-density-map ----

@pytest.mark.parametrize("s, nref", [(12, 1024), (7, 100)])
def test_density_map(s, nref):
    p = tp.get("probe/xtal-density-map")
    rng = np.random.default_rng(0)
    host = p.args(s ** 3, rng)
    host[3] = np.int32(nref)
    out = run("probe/xtal-density-map", host, s ** 3, symbols=p.symbols(s ** 3, rng))
    ref = tp._p145_dm_ref(s, nref)
    scale = np.abs(ref).max()
    np.testing.assert_allclose(out[0], ref, rtol=0, atol=2e-5 * scale)
    assert ref.min() < 0 < ref.mean() and ref.std() > 0.15 * scale


# ---- powder-pattern-smem-atomics ----

def powder_check(host, got):
    bins, w, gap = tp._p145_pw_ref(*host[:2])
    near = gap < 2e-3                                         # float32 may bin these either side
    ref = np.bincount(bins[bins >= 0], weights=w[bins >= 0], minlength=tp.P145_PW_BINS)
    slack = np.zeros(tp.P145_PW_BINS + 2)
    for b, ww in zip(bins[near], w[near]):
        slack[b:b + 3] += ww                                  # bins b - 1, b, b + 1
    assert near.mean() < 0.005
    assert (np.abs(got - ref) <= 1e-5 * np.abs(ref) + 1e-3 + slack[1:-1]).all()
    np.testing.assert_allclose(got.sum(), w.sum(), rtol=1e-5)
    return ref


def test_powder_pattern():
    n = 3000                                                  # 12 blocks, a reflection a thread
    host, out, *_ = launch("probe/powder-pattern-smem-atomics", n)
    ref = powder_check(host, out[2])
    assert (ref > 0).sum() > 500 and (out[2][ref == 0] == 0).all()


def test_powder_grid_stride():
    # 3 blocks looping over 2000 reflections (the probe's 1024 blocks loop 32 times); two
    # reflections with hkl 000 (sin theta 0) and one far out (sin theta > 1)
    p = dataclasses.replace(tp.get("probe/powder-pattern-smem-atomics"), grid=lambda n: 3)
    host = tp._p145_pw_args(2000, np.random.default_rng(4))
    host[0][:6] = 0
    host[0][6:9] = [78, 96, 116]
    got = _run(p, host, {}, 2000, 0, "random")[0][2]
    powder_check(host, got)
    assert tp._p145_pw_ref(*host[:2])[0][:3].tolist() == [-1, -1, -1]


# ---- patterson-pair-atomics ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_patterson(policy):
    n = 60                                                    # 3600 pairs: 15 blocks, the last partial
    host, out, *_ = launch("probe/patterson-pair-atomics", n, policy=policy)
    ref = tp._p145_pt_ref(*host[:4])
    assert (out[4] == ref).all()
    Z = host[3].astype(np.int64)
    assert out[4][0] >= (Z * Z).sum() and int(out[4].sum()) == Z.sum() ** 2     # the origin peak; all pairs


# ---- xtal-index-spots ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_index_spots(policy):
    n = 700                                                   # 3 blocks, the last partial
    host, out, *_ = launch("probe/xtal-index-spots", n, policy=policy)
    hkl, res, ok, half, gap = tp._p145_ix_ref(host[0])
    assert half > 1e-4 and gap > 1e-4
    assert (out[1].reshape(-1, 3) == hkl).all() and out[3][0] == ok.sum()
    np.testing.assert_allclose(out[2], res, rtol=1e-4, atol=2e-5)
    assert 0.7 < ok.mean() < 0.9 and (hkl[~ok] == 0).all() and (np.abs(hkl[ok]).max(axis=0) > 15).all()
