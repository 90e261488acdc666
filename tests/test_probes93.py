"""probe-unseen91's kernels (kernels_cuda/probes93.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import re
from pathlib import Path

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/me-sad-fullsearch", "probe/dct8x8-hevc-smem", "probe/quant-deadzone-jpeg",
       "probe/deblock-h264-vedge", "probe/intra4x4-satd-modes", "probe/jpeg-symbol-stats"]
SRC = (Path(tp.__file__).parent / "probes93.cu").read_text()


def const_table(name):
    """A __constant__ table's initializer in probes93.cu, as ints."""
    body = re.search(name + r"\[[^\]]*\] = \{([^}]*)\}", SRC).group(1)
    return np.array([int(v) for v in body.split(",")])


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen91"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes93.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_tables():
    # the .cu's tables are the references' (and the standards': HEVC's DCT basis nearly
    # orthogonal with norms about 64^2 8, the zigzag a permutation along the anti-diagonals)
    C = tp._P93_DCT
    assert (const_table("c_dct8") == C.ravel()).all()
    G = C @ C.T
    assert (np.abs(G - np.diag(np.diag(G))) <= 50).all() and (np.abs(np.diag(G) - 64 * 64 * 8) < 300).all()
    zz = tp._p93_zigzag()
    assert (const_table("c_zigzag") == zz).all() and sorted(zz) == list(range(64))
    assert list(zz[:10]) == [0, 1, 8, 16, 9, 2, 3, 10, 17, 24] and list(zz[-4:]) == [47, 55, 62, 63]
    d = zz // 8 + zz % 8
    assert (np.diff(d) >= 0).all()
    assert (const_table("c_alpha") == tp._P93_ALPHA).all() and (const_table("c_beta") == tp._P93_BETA).all()
    assert (const_table("c_tc0") == tp._P93_TC0.ravel()).all() and tp._P93_TC0.shape == (52, 3)
    assert (np.diff(tp._P93_ALPHA) >= 0).all() and (np.diff(tp._P93_TC0, axis=0) >= 0).all()


def test_data():
    rng = np.random.default_rng(0)
    assert tp._p93_dims(1 << 21) == (2048, 1024) and tp._p93_dims(1 << 24) == (4096, 4096)
    # me: the current frame is the reference displaced by the regions' vectors, and the
    # full search finds them (the texture has detail at the block's scale)
    n = 1 << 14
    cur, ref, tx, ty = tp._p93_me_frames(n, rng)
    w, h = tp._p93_dims(n)
    assert cur.dtype == np.uint8 and cur.shape == (h, w) and 20 < ref.std() < 80
    assert tx.min() == -6 and tx.max() == 5 and (tx.reshape(h // 32, 4, w // 32, 4) == tx[::4, ::4][:, None, :, None]).all()
    mv, cost, gap = tp._p93_me_ref(cur.ravel(), ref.ravel(), w, h)
    hit = (mv[0::2] == tx.ravel()) & (mv[1::2] == ty.ravel())
    assert hit.mean() > 0.95 and np.median(cost) < 200 and np.median(gap) > 300
    # dct: Laplacian residuals, 2% flat +-255 blocks (the DC's extreme +-32640)
    res, co, ww = tp._p93_dct_args(1 << 16, rng)
    assert res.dtype == np.int16 and np.abs(res).max() == 255 and ww == 256
    blk = res.reshape(32, 8, 32, 8).transpose(0, 2, 1, 3).reshape(-1, 64)
    flat = (blk == blk[:, :1]).all(axis=1) & (np.abs(blk[:, 0]) == 255)
    assert 0.01 < flat.mean() < 0.03 and 11 < np.abs(blk[~flat]).mean() < 13
    out = tp._p93_dct_ref(res, ww)
    assert np.abs(out).max() == 32640 and np.abs(out).max() < 32768
    # quant: coefficients shaped like a DCT's (DC drifting, AC decaying), ~3/4 of the
    # levels zero, dead zone below 2/3 of a step
    coef, mf, qs, *rest = tp._p93_quant_args(1 << 16, rng)
    assert coef.dtype == np.int32 and (qs == tp._P93_Q_TABLE).all() and (np.abs(mf * qs - 65536) <= qs / 2).all()
    c = coef.reshape(-1, 64)
    assert abs(c[:, 0].mean() - 800) < 20 and c[:, 0].max() < 1700 and np.abs(c[:, 63]).mean() < 7
    assert np.abs(np.abs(c[:, 1]).mean() - 300 / 2 ** 1.5) < 5
    lv, rc = tp._p93_quant_ref(coef)
    assert 0.65 < (lv == 0).mean() < 0.85 and (np.abs(coef) * 1.5 > np.abs(rc) - 1).all()
    k = np.arange(len(coef)) % 64
    assert (lv[np.abs(coef) < 0.66 * qs[k]] == 0).all() and (lv[np.abs(coef) > 0.67 * qs[k]] != 0).all()
    # deblock: a blocky frame with real edges; the filters' decisions mixed
    n = 1 << 16
    img, bs, qp, w, h = tp._p93_db_args(n, rng)
    assert img.dtype == np.uint8 and len(bs) == len(qp) == n // 64
    assert set(np.unique(bs)) == set(range(5)) and qp.min() == 20 and qp.max() == 45
    f, nrm, st = tp._p93_db_ref(img, bs, qp, w, h)
    on = nrm | st
    assert 0.35 < on.mean() < 0.6 and 0.1 < st.mean() < 0.2 and 0.1 < (f != img).mean() < 0.3
    # intra: every mode the cheapest somewhere, none dominant
    n = 1 << 16
    img, *_ = tp._p93_ip_args(n, rng)
    m, cost, costs = tp._p93_ip_ref(img, *tp._p93_dims(n))
    share = np.bincount(m, minlength=9) / len(m)
    assert share.min() > 0.04 and share.max() < 0.3 and (costs[0] > 1 << 39).sum() == 8    # the corner block: DC only
    # symstats: levels as quantized coefficients; DC differences small, runs and EOBs
    lev, ac, dc, nnz, nb = tp._p93_ss_args(1 << 16, rng)
    assert lev.dtype == np.int16 and nb == 1024 and np.abs(lev).max() <= 2047
    a, d, z = tp._p93_ss_ref(lev)
    assert d.sum() == nb and d[0] > 0 and d[:5].sum() > 0.9 * nb and 8 < z.mean() < 24
    assert a[0] > 0.9 * nb and a[0xF0] > 0 and a.sum() > 10 * nb


# ---- me-sad-fullsearch ----

def test_me_sad_fullsearch():
    n = 1 << 12                                             # 64 x 64: 64 blocks, most at a border
    host, (cur, ref, mv, cost, w, h, lam), *_ = launch("probe/me-sad-fullsearch", n)
    rmv, rcost, gap = tp._p93_me_ref(cur, ref, int(w), int(h))
    assert (mv == rmv).all() and (cost == rcost).all()
    _, _, tx, ty = tp._p93_me_frames(n, np.random.default_rng(0))
    assert ((mv[0::2] == tx.ravel()) & (mv[1::2] == ty.ravel())).mean() > 0.9


def test_me_ties_and_flat():
    # a flat reference (every candidate's SAD equal: the zero vector wins on the MV cost)
    # and a 2-row-of-blocks frame (clamping at top and bottom); lambda 0 (ties to the
    # lowest candidate index)
    rng = np.random.default_rng(3)
    n = 1 << 11                                             # 64 x 32
    host = tp._p93_me_args(n, rng)
    w, h = int(host[4]), int(host[5])
    assert (w, h) == (64, 32)
    host[1][: w * 8] = 100
    host[0][: w * 8] = 90
    out = run("probe/me-sad-fullsearch", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    rmv, rcost, _ = tp._p93_me_ref(host[0], host[1], w, h)
    assert (out[2] == rmv).all() and (out[3] == rcost).all()
    assert (out[2][:2] == 0).all() and out[3][0] == 640      # block (0, 0): all of its window flat
    host[6] = np.int32(0)
    host[0][:] = 7
    host[1][:] = 7
    out = run("probe/me-sad-fullsearch", host, n)
    assert (out[2][0::2] == -8).all() and (out[2][1::2] == -8).all() and (out[3] == 0).all()


# ---- dct8x8-hevc-smem ----

def test_dct8x8():
    n = 1 << 13                                             # 128 x 64: 8 x 4 tiles
    host, (res, coef, w), *_ = launch("probe/dct8x8-hevc-smem", n)
    assert (coef == tp._p93_dct_ref(res, int(w))).all()
    # a constant block's energy all in its DC: (8 64)^2 v / 2^11 = 128 v
    host[0][:] = 0
    img = host[0].reshape(64, 128)
    img[8:16, 16:24] = 5
    img[:8, :8] = -255
    out = run("probe/dct8x8-hevc-smem", host, n)
    c = out[1].reshape(64, 128)
    assert c[8, 16] == 640 and c[0, 0] == -32640 and np.count_nonzero(c) == 2
    assert (out[1] == tp._p93_dct_ref(host[0], 128)).all()


# ---- quant-deadzone-jpeg ----

def test_quant_deadzone():
    n = 1000                                                # 4 blocks, the last partial
    host, (coef, mf, qs, lev, rec, *_), *_ = launch("probe/quant-deadzone-jpeg", n)
    assert len(coef) == n
    lv, rc = tp._p93_quant_ref(coef)
    assert (lev == lv).all() and (rec == rc).all() and (lv == 0).any() and (lv != 0).any()
    # the clamp (32000 / 10 past 2047), signs, the dead zone (2/3 of a step: 46 at step
    # 68 a level 1, -72 at step 109 a level 0)
    host[0][960:] = np.array([0, 5, 32000, -32000, -5, 11, -11, 8] * 5, np.int32)
    host[0][996:998] = [46, -72]
    host[3] = np.zeros(n, np.int16)
    host[4] = np.zeros(n, np.int32)
    out = run("probe/quant-deadzone-jpeg", host, n)
    lv, rc = tp._p93_quant_ref(host[0])
    assert (out[3] == lv).all() and (out[4] == rc).all()
    assert lv[962] == 2047 and rc[962] == 20470 and lv[963] == -2000 and rc[963] == -32000
    assert (lv[965:968] == 0).all() and lv[961] == 0 and lv[996] == 1 and lv[997] == 0 and rc[996] == 68


# ---- deblock-h264-vedge ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_deblock(policy):
    n = 1 << 12                                             # 64 x 64: 7 edges of 64 lines
    host, (img, bs, qp, w, h), *_ = launch("probe/deblock-h264-vedge", n, policy=policy)
    f, nrm, st = tp._p93_db_ref(host[0], host[1], host[2], int(w), int(h))
    assert (img == f).all() and nrm.any() and st.any() and (img != host[0]).any()
    assert (img.reshape(64, 64)[:, :5] == host[0].reshape(64, 64)[:, :5]).all()      # the left border untouched


def test_deblock_cases():
    # hand-made lines at QP 40 (alpha 80, beta 13): steps of 10 across edges of bS 1, 2
    # (normal filter), a step of 7 at bS 4 (strong filter), a real edge of 150 at an
    # average QP 30 (alpha 25: untouched), bS 0 untouched
    rng = np.random.default_rng(1)
    n = 1 << 12
    img, bs, qp, w, h = tp._p93_db_args(n, rng)
    I = img.reshape(64, 64)
    I[:, :] = 100
    I[:, 8:16] = 110                                        # block column 1: edges e = 1 (bS 1) and 2 (bS 2)
    I[8:16, 32:40] = 250                                    # block row 1, e = 4: a real edge
    I[16:24, 24:32] = 2                                     # block row 2, e = 4 (bS 4): 2 | 9
    I[16:24, 32:40] = 9
    bs[:] = np.tile(np.arange(8) % 5, 8).astype(np.uint8)
    qp[:] = 40
    qp[8 + 4] = 20
    out = run("probe/deblock-h264-vedge", [img.copy(), bs.copy(), qp.copy(), w, h], n)
    f, nrm, st = tp._p93_db_ref(img, bs, qp, w, h)
    assert (out[0] == f).all()
    o = out[0].reshape(64, 64).astype(int)
    assert (o[8:16, 28:36] == I[8:16, 28:36]).all()                     # not filtered
    assert (o[:, 36:44] == I[:, 36:44]).all()                           # e = 5: bS 0
    # bS 1 (tc0 4, tc 6): delta 4, p1 and q1 moved by +2 and -3; bS 2 (tc0 5) the mirror
    assert list(o[0, 4:20]) == [100, 100, 102, 104, 106, 107, 110, 110, 110, 110, 107, 106, 104, 102, 100, 100]
    assert (o[:8] == o[0]).all() and (o[40, :24] == o[0, :24]).all()
    assert list(o[16, 28:36]) == [2, 3, 4, 5, 6, 7, 8, 9]                 # bS 4: the strong filter, 6 pixels
    assert nrm.any() and st.any()


# ---- intra4x4-satd-modes ----

def test_intra4x4():
    n = 1 << 12                                             # 64 x 64: 256 blocks, 2 thread blocks
    host, (img, mode, cost, w, h), *_ = launch("probe/intra4x4-satd-modes", n)
    m, c, costs = tp._p93_ip_ref(host[0], int(w), int(h))
    assert (mode == m).all() and (cost == c).all()
    assert len(set(m)) == 9 and mode[0] == 2                # the corner block: DC of 128


def test_intra4x4_patterns():
    # blocks that are their vertical and horizontal predictions (SATD 0) among random
    # pixels, then a flat frame (every block but the corner costs 0; the corner's DC is 128)
    rng = np.random.default_rng(4)
    n = 1 << 10                                             # 32 x 32: 64 blocks
    img = rng.integers(0, 256, (32, 32)).astype(np.uint8)
    img[4:8, 4:8] = img[3, 4:8]                             # block 9: vertical
    img[4:8, 12:16] = img[4:8, 11:12]                       # block 11: horizontal
    host = [img.ravel(), np.zeros(64, np.uint8), np.zeros(64, np.int32), np.int32(32), np.int32(32)]
    out = run("probe/intra4x4-satd-modes", host, n)
    m, c, costs = tp._p93_ip_ref(img.ravel(), 32, 32)
    assert (out[1] == m).all() and (out[2] == c).all()
    assert m[9] == 0 and c[9] == 0 and m[11] == 1 and c[11] == 0 and np.median(c) > 100
    img[:] = 77
    out = run("probe/intra4x4-satd-modes", [img.ravel(), np.zeros(64, np.uint8), np.zeros(64, np.int32),
                                            np.int32(32), np.int32(32)], n)
    m, c, _ = tp._p93_ip_ref(img.ravel(), 32, 32)
    assert (out[1] == m).all() and (out[2] == c).all()
    assert (c[1:] == 0).all() and c[0] == 16 * 51 // 2 and m[0] == 2 and m[1] == 1 and m[8] == 0


# ---- jpeg-symbol-stats ----

@pytest.mark.parametrize("policy, blocks", [("lockstep", 300), ("random", 150)])
def test_symbol_stats(policy, blocks):
    n = blocks * 64                                         # 300 blocks: 3 thread blocks (150: 2), the last partial
    host, (lev, ac, dc, nnz, nb), *_ = launch("probe/jpeg-symbol-stats", n, policy=policy)
    a, d, z = tp._p93_ss_ref(host[0])
    assert (ac == a).all() and (dc == d).all() and (nnz == z).all() and nb == blocks


def test_symbol_stats_cases():
    # ZRL runs (a lone level at the last zigzag place: 3 ZRLs then (14, size)), an all-zero
    # block (one EOB, DC size of the drop), a full block (no EOB), large levels (size 11)
    rng = np.random.default_rng(2)
    lev, ac, dc, nnz, nb = tp._p93_ss_args(8 * 64, rng)
    L = lev.reshape(8, 64)
    zz = tp._p93_zigzag()
    L[1, 1:] = 0
    L[1, zz[63]] = -3
    L[2, :] = 0
    L[3, :] = 2047
    L[3, zz[7]] = -1
    out = run("probe/jpeg-symbol-stats", [lev, ac, dc, nnz, nb], 8 * 64)
    a, d, z = tp._p93_ss_ref(lev)
    assert (out[1] == a).all() and (out[2] == d).all() and (out[3] == z).all()
    assert a[0xF0] >= 3 and a[(14 << 4) | 2] >= 1 and a[11] >= 62 and z[2] == 0 and z[3] == 64
