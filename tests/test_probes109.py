"""probe-unseen107's kernels (kernels_cuda/probes109.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/grid-map-trilinear", "probe/lj-coulomb-pocket-tiles", "probe/quaternion-pose-transform",
       "probe/pose-rmsd-warp", "probe/tanimoto-popc-screen", "probe/ligand-best-pose-smem"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen107"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes109.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # the ligand: 24 atoms, centred, within ~5 A, neutral
    ref, types, q = tp._p109_ligand()
    assert ref.shape == (24, 3) and ref.dtype == np.float32 and np.abs(ref.mean(0)).max() < 1e-5
    assert np.linalg.norm(ref, axis=1).max() < 1.3 * tp.P109_LIG_R and abs(q.sum()) < 1e-5
    assert types.dtype == np.int32 and 0 <= types.min() and types.max() < tp.P109_LIG_TYPES
    # grid maps: poses spread over the box, ~4% of the atoms outside it
    n = 24 * 2048
    x, y, z, t, c, maps, emap, ae, pe, ox, oy, oz, ih, na, nn = tp._p109_gm_args(n, rng)
    assert len(maps) == 8 * 64 ** 3 and len(emap) == 64 ** 3 and len(pe) == 2048 and na == 24 and nn == n
    assert (t == np.tile(types, 2048)).all() and ih == np.float32(1 / 0.375)
    out = 1 - tp._p109_gm_cells(x, y, z)[1].mean()
    assert 0.02 < out < 0.06
    xyz = np.stack([x, y, z], 1).reshape(-1, 24, 3).astype(np.float64)
    d = xyz - xyz.mean(1, keepdims=True)                     # rigid copies of the ligand
    assert np.allclose(np.linalg.norm(d, axis=2), np.linalg.norm(ref, axis=1), atol=1e-4)
    assert abs(maps.mean() - tp.P109_MAP_MEAN) < 0.01
    # pair scoring: the pocket shell, ~41% of the pairs within the cutoff, clashes clamped
    a = tp._p109_ps_args(480, rng)
    rec = np.stack(a[5:8], 1).astype(np.float64) - tp._p109_box_centre()
    r = np.linalg.norm(rec, axis=1)
    assert len(r) == a[12] == 256 and r.min() >= 4 - 1e-4 and r.max() <= 10 + 1e-4
    assert set(np.unique(a[9])) == {0, 1, 2, 3} and a[9].dtype == np.int32
    ev, ee, mag, inside, gap = tp._p109_ps_ref(*a[:10])
    assert 0.35 < inside < 0.47 and (ev > 0).mean() > 0.5 and (ev < 0).any()
    A, B = tp._p109_lj_tables()
    assert A.shape == (8, 4) and (A > 0).all() and (B > 0).all()
    # transform: quaternions not normalised
    ref2, quat, trans, o, na, nn = tp._p109_tf_args(1000, rng)
    assert len(quat) == 4 * 42 and len(o) == 3000 and (ref2 == ref.ravel()).all()
    assert np.linalg.norm(quat.reshape(-1, 4), axis=1).std() > 0.2
    # rmsd: ~52% of the poses under 2 A
    poses, xtal, rm, good, cut, na, nn = tp._p109_rm_args(1 << 14, rng)
    rr = tp._p109_rm_ref(poses, xtal)
    assert 0.45 < (rr < cut).mean() < 0.6 and rr.min() > 0.2 and rr.max() < 10
    # tanimoto: sparse fingerprints, ~1% analogs, ~0.5% hits, the rest far below 0.6
    qfp, qcnt = tp._p109_ts_queries()
    assert qfp.shape == (8, 32) and (np.bitwise_count(qfp).sum(1) == qcnt).all() and 40 <= qcnt.min()
    db, bs, bq, hits, nh, th, mh, nn = tp._p109_ts_args(1 << 15, rng)
    bits = np.bitwise_count(db.reshape(-1, 32)).sum(1)
    assert 30 < bits.mean() < 45 and bits.min() >= 10 and len(hits) == mh == 2048 and (hits == -1).all()
    best, qi, hit = tp._p109_ts_ref(db)
    assert 0.003 < hit.mean() < 0.007 and np.median(best) < 0.1 and (best < th).sum() > 0.99 * len(best)
    # best pose: log-uniform runs of poses, n in all
    c = tp._p109_bp_counts(1 << 23)
    assert c.sum() == 1 << 23 and c.min() >= 1 and c.max() <= 4096 and 10000 < len(c) < 12500
    terms, start, nrot, bsc, bix, wr, nn = tp._p109_bp_args(1 << 16, rng)
    assert len(terms) == 5 << 16 and start[0] == 0 and start[-1] == 1 << 16 and (np.diff(start) > 0).all()
    assert len(nrot) == len(start) - 1 == tp._p109_bp_grid(1 << 16) and nrot.max() <= 10
    e = tp._p109_bp_scores(terms, start, nrot)
    assert -12 < e.mean() < -3


# ---- grid-map-trilinear ----

def test_grid_map():
    n = 24 * 22                                             # 3 blocks, the last partial; 22 poses
    host, (x, y, z, t, q, maps, emap, ae, pe, *_), *_ = launch("probe/grid-map-trilinear", n)
    e, p = tp._p109_gm_ref(*host[:7])
    np.testing.assert_allclose(ae, e, rtol=0, atol=2e-5)
    np.testing.assert_allclose(pe, p, rtol=0, atol=2e-4)
    ok = tp._p109_gm_cells(x, y, z)[1]
    assert (~ok).any() and (ae[~ok] == tp.P109_OUT_PENALTY).all() and ok.mean() > 0.8


def test_grid_map_edges():
    # atoms on grid points, on the box's last cell and just outside each face
    rng = np.random.default_rng(3)
    n = 24 * 2
    host = tp._p109_gm_args(n, rng)
    h, o = tp.P109_GRID_H, np.array(tp.P109_GRID_O, np.float32)
    pts = [(0, 0, 0), (63 - 1e-3, 62.5, 10), (5, 6, 7), (-1e-3, 5, 5), (5, 63.001, 5), (5, 5, 64), (62.9, 0.1, 62.9)]
    for k, g in enumerate(pts):
        for d in range(3):
            host[d][k] = np.float32(o[d] + g[d] * h)
    out = run("probe/grid-map-trilinear", host, n)
    e, p = tp._p109_gm_ref(*host[:7])
    np.testing.assert_allclose(out[7], e, rtol=0, atol=2e-5)
    np.testing.assert_allclose(out[8], p, rtol=0, atol=2e-4)
    G = 64
    assert out[7][0] == pytest.approx(host[5][host[3][0] * G ** 3] + host[4][0] * host[6][0], abs=1e-6)
    assert out[7][3] == out[7][4] == out[7][5] == tp.P109_OUT_PENALTY


# ---- lj-coulomb-pocket-tiles ----

@pytest.mark.parametrize("policy, n, m", [("lockstep", 200, 200), ("random", 100, 160)])
def test_pair_score(policy, n, m):
    # fewer pocket atoms than the probe's 256 (the emulator is slow on long loops), the
    # last tile partial, the last block partial
    rng = np.random.default_rng(4)
    host = tp._p109_ps_args(n, rng, m=m)
    out = run("probe/lj-coulomb-pocket-tiles", host, n, policy=policy, symbols=tp._p109_ps_syms(n, rng))
    ev, ee, mag, inside, gap = tp._p109_ps_ref(*host[:10])
    assert gap > 5e-5 and 0.2 < inside < 0.6          # no pair within rounding of the cutoff
    assert (np.abs(out[10] - ev) <= 1e-5 * mag + 1e-5).all()
    np.testing.assert_allclose(out[11], ee, rtol=1e-4, atol=1e-4)
    assert (out[0] == host[0]).all() and (out[10] > 1e3).any() and (out[10] < 0).any()


# ---- quaternion-pose-transform ----

def test_pose_transform():
    n = 24 * 20 + 7                                         # 2 blocks; the last pose partial
    host, (ref, quat, trans, out, *_), *_ = launch("probe/quaternion-pose-transform", n)
    want = tp._p109_tf_ref(ref, quat, trans, n)
    np.testing.assert_allclose(out.reshape(-1, 3), want, rtol=0, atol=2e-5)
    # a rigid motion: each pose's distances to its centroid those of the reference
    xyz = out[:24 * 20 * 3].reshape(20, 24, 3).astype(np.float64)
    c = xyz - xyz.mean(1, keepdims=True)
    np.testing.assert_allclose(np.linalg.norm(c, axis=2), np.tile(np.linalg.norm(ref.reshape(24, 3), axis=1),
                                                                  (20, 1)), atol=2e-5)


# ---- pose-rmsd-warp ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_pose_rmsd(policy):
    n = 37                                                  # 5 blocks of 8 warps, the last 5 only
    host, (poses, xtal, rm, good, *_), *_ = launch("probe/pose-rmsd-warp", n, policy=policy)
    want = tp._p109_rm_ref(poses, xtal)
    np.testing.assert_allclose(rm, want, rtol=2e-6)
    assert np.abs(want - tp.P109_RM_CUT).min() > 1e-4
    assert good[0] == (want < tp.P109_RM_CUT).sum() and 0 < good[0] < n


def test_pose_rmsd_edges():
    # a pose equal to the crystal's (RMSD 0), one shifted rigidly by (1, 2, 2) (RMSD 3)
    rng = np.random.default_rng(6)
    n = 9
    host = tp._p109_rm_args(n, rng)
    P = host[0].reshape(n, 72)
    P[0] = host[1]
    P[1] = (host[1].reshape(24, 3) + np.float32([1, 2, 2])).ravel()
    out = run("probe/pose-rmsd-warp", host, n)
    want = tp._p109_rm_ref(host[0], host[1])
    np.testing.assert_allclose(out[2], want, rtol=2e-6)
    assert out[2][0] == 0 and out[2][1] == pytest.approx(3, abs=1e-5)
    assert out[3][0] == (want < tp.P109_RM_CUT).sum()


# ---- tanimoto-popc-screen ----

@pytest.mark.parametrize("policy, n", [("lockstep", 700), ("random", 300)])
def test_tanimoto(policy, n):
    # a small database with extra analogs and exact copies of the queries; the last block partial
    rng = np.random.default_rng(7)
    host = tp._p109_ts_args(n, rng)
    db = host[0].reshape(n, 32)
    qfp, _ = tp._p109_ts_queries()
    db[5::23] = qfp[np.arange(len(db[5::23])) % 8] & (rng.integers(0, 1 << 32, (len(db[5::23]), 32),
                                                                   dtype=np.uint64).astype(np.uint32) | 0x0F0F0F0F)
    db[::37] = qfp[np.arange(len(db[::37])) % 8]            # similarity 1
    db[3] = 0                                               # empty: similarity 0 to all
    out = run("probe/tanimoto-popc-screen", host, n, policy=policy, symbols=tp._p109_ts_syms(n, rng))
    best, q, hit = tp._p109_ts_ref(host[0])
    assert (out[1] == best).all() and (out[2] == q).all()
    k = int(out[4][0])
    assert k == hit.sum() and n // 25 < k <= len(out[3])
    assert sorted(out[3][:k]) == list(np.flatnonzero(hit)) and (out[3][k:] == -1).all()
    assert (out[1][::37] == 1).all() and out[1][3] == 0 and out[2][3] == 0


def test_tanimoto_overflow():
    # more hits than slots: the count goes on, only max_hits stored
    rng = np.random.default_rng(8)
    n = 300
    host = tp._p109_ts_args(n, rng)
    qfp, _ = tp._p109_ts_queries()
    host[0].reshape(n, 32)[:100] = qfp[np.arange(100) % 8]
    host[6] = np.int32(64)
    host[3] = np.full(64, -1, np.int32)
    out = run("probe/tanimoto-popc-screen", host, n, symbols=tp._p109_ts_syms(n, rng))
    hit = tp._p109_ts_ref(host[0])[2]
    assert out[4][0] == hit.sum() >= 100
    assert len(set(out[3])) == 64 and set(out[3]) <= set(np.flatnonzero(hit))


# ---- ligand-best-pose-smem ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_best_pose(policy):
    n = 6000                                                # 8 ligands of 16 .. 2600 poses
    host, (terms, start, nrot, bs, bi, *_), *_ = launch("probe/ligand-best-pose-smem", n, policy=policy)
    best, idx, gap = tp._p109_bp_ref(terms, start, nrot)
    assert gap > 1e-5 and len(best) == tp._p109_bp_grid(n) >= 4
    c = np.diff(start)
    assert c.min() < 256 < c.max()                          # some ligands with idle threads, some looping
    assert (bi == idx).all()
    np.testing.assert_allclose(bs, best, rtol=1e-6)


def test_best_pose_ties():
    # a ligand's poses all scoring alike (the first wins), one whose best is its last pose
    rng = np.random.default_rng(9)
    n = 6000
    host = tp._p109_bp_args(n, rng)
    start = host[1]
    T = host[0].reshape(5, n)
    a, b = start[1], start[2]
    T[:, a:b] = T[:, a:a + 1]
    b2 = start[3]
    T[:, b2 - 1] = [120, 1600, 0.2, 40, 4]                  # the lowest score the terms allow
    out = run("probe/ligand-best-pose-smem", host, n, symbols=tp._p109_bp_syms(n, rng))
    best, idx, _ = tp._p109_bp_ref(host[0], start, host[2])
    assert (out[4] == idx).all() and out[4][1] == a and out[4][2] == b2 - 1
    np.testing.assert_allclose(out[3], best, rtol=1e-6)
