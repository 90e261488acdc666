"""probe-unseen134's kernels (kernels_cuda/probes136.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/strip-digitize-noise", "probe/calo-cluster-smem-halo", "probe/track-linefit-csr",
       "probe/dimuon-mass-hist-smem", "probe/l1-trigger-menu-atomics", "probe/jet-cone-broadcast"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen134"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes136.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # digitization: ~10% of the channels hit, gains and pedestals as stated, ~10% read out
    n = 1 << 16
    q, gain, ped, adc, noise, lsb, zs, seed, nn = tp._p136_dg_args(n, rng)
    assert q.dtype == gain.dtype == ped.dtype == np.float32 and adc.dtype == np.uint16 and nn == n
    assert abs((q > 0).mean() - tp.P136_DG_HIT) < 0.01 and 2 < np.median(q[q > 0]) < 5
    assert tp.P136_DG_GAIN[0] <= gain.min() and gain.max() <= tp.P136_DG_GAIN[1] and abs(ped.mean() - 300) < 1
    a, amb = tp._p136_dg_ref(q, gain, ped)
    assert 0.09 < (a > 0).mean() < 0.12 and amb.mean() < 0.01 and a.max() <= 4095
    # calorimeter: noise 0.06 .. 0.12 GeV (larger at the eta edges), showers making ~0.24% seeds
    n = 256
    E, nz, ce, ceta, cphi, ccell, ncl, mx, ne, npf = tp._p136_cl_args(n, rng)
    assert len(E) == n * n and mx == n * n // 64 and (ne, npf) == (n, n) and not ncl.any()
    N = nz.reshape(n, n)
    assert 0.053 < N.min() and N.max() < 0.133 and N[0].mean() > 1.8 * N[n // 2].mean()
    cells = tp._p136_cl_ref(E, nz, n, n)[0]
    assert 0.0015 < len(cells) / n / n < 0.0035 and 0.005 < (E > 4 * nz).mean() < 0.02
    # line fits: 6 .. 40 hits a track, consecutive layers, chi^2 / ndf ~ 1
    off, z, x, w, *rest = tp._p136_lf_args(4096, rng)
    nh = np.diff(off)
    assert off[0] == 0 and nh.min() == 6 and nh.max() == 40 and abs(nh.mean() - 23) < 0.5
    assert set(np.unique(w)) == {np.float32(1 / s ** 2) for s in tp.P136_LF_SIGMA}
    a, b, c2, ndf = tp._p136_lf_ref(off, z, x, w)
    assert np.abs(a).max() < 21 and np.abs(b).max() < 0.31 and abs(c2.sum() / ndf.sum() - 1) < 0.05
    # muons: 2 .. 8 an event, unused slots 0, a Z peak at 91 GeV
    pt, eta, phi, qq, nm, hist, lo, bw, nn = tp._p136_mh_args(1 << 14, rng)
    assert nm.min() == 2 and nm.max() <= 8 and abs(nm.mean() - 3.5) < 0.05 and not hist.any()
    live = (np.arange(8)[None, :] < nm[:, None]).ravel()
    assert (pt[~live] == 0).all() and (qq[~live] == 0).all() and set(np.unique(qq[live])) == {-1, 1}
    assert pt[live].min() >= 5 and np.abs(phi).max() <= np.pi and np.abs(eta).max() <= 2.4
    h, amb = tp._p136_mh_ref(pt, eta, phi, qq, nm)
    assert 86 <= h.argmax() <= 95 and 0.06 < h[89:94].sum() / h.sum() < 0.12 and amb < 3e-3 * h.sum()
    # trigger: sorted objects, HT the jets over 30 GeV, ~2.9 paths fired an event
    ev, raw, bits, nacc, nn = tp._p136_tr_args(1 << 14, rng)
    assert ev.dtype.itemsize == 40 and not raw.any() and len(raw) == tp.P136_TR_PATHS
    assert (np.diff(ev["jet"], axis=1) <= 0).all() and (np.diff(ev["mu"], axis=1) <= 0).all()
    assert np.allclose(ev["ht"], np.where(ev["jet"] > 30, ev["jet"], 0).sum(axis=1), rtol=1e-6)
    fired = tp._p136_tr_ref(ev)
    assert 2.5 < fired.sum(axis=1).mean() < 3.3 and 0.75 < fired.any(axis=1).mean() < 0.88
    syms = tp._p136_tr_syms(0, rng)
    assert len(syms["c_path_thr"]) == 24 and (syms["c_path_prescale"] >= 1).all()
    # jets: the axes the events' 32 hardest particles, ~5% of the particles in a cone
    pe, pp, ppt, ae, ap, *rest = tp._p136_jc_args(32 * 64, rng)
    assert len(pe) == 256 * 64 and len(ae) == 32 * 64 and np.abs(pp).max() <= np.pi
    P = ppt.reshape(64, 256)
    assert (np.sort(P, axis=1)[:, -32:].min(axis=1) >= 0).all()
    top = np.argsort(-P, axis=1)[:, :32]
    assert (np.take_along_axis(pe.reshape(64, 256), top, axis=1).ravel() == ae).all()
    cnt = tp._p136_jc_ref(pe, pp, ppt, ae, ap)[3]
    assert 0.03 < cnt.mean() / 256 < 0.07 and (cnt >= 1).all()         # each axis at least its own particle


# ---- strip-digitize-noise ----

def test_digitize():
    n = 1000                                               # 4 blocks, the last partial
    rng = np.random.default_rng(3)
    host = tp._p136_dg_args(n, rng)
    host[0][:4] = [100.0, 0.0, 50.0, 3.5]                  # saturating, empty, large, a MIP
    out = run("probe/strip-digitize-noise", host, n)
    ref, amb = tp._p136_dg_ref(*host[:3])
    assert not amb[:4].any() and (out[3][~amb] == ref[~amb]).all() and amb.sum() < 10
    assert (np.abs(out[3].astype(int) - ref.astype(int)) <= 1).all()
    assert out[3][0] == 4095 and 0.05 < (out[3] > 0).mean() < 0.2
    noisy = (host[0] == 0) & (out[3] > 0)                   # noise over the threshold: on the pedestal
    assert noisy.any() and (out[3][noisy] >= np.floor((host[2][noisy] + host[6]) / host[5])).all()


# ---- calo-cluster-smem-halo ----

def cluster_check(host, out, n, max_cl):
    cells, e, eta, phi = tp._p136_cl_ref(host[0], host[1], n, n)
    k = int(out[6][0])
    assert k == len(cells)
    m = min(k, max_cl)
    got = out[5][:m]
    assert len(set(got)) == m and set(got) <= set(cells)
    idx = np.searchsorted(cells, got)
    np.testing.assert_allclose(out[2][:m], e[idx], rtol=1e-5)
    np.testing.assert_allclose(out[3][:m], eta[idx], rtol=0, atol=2e-4)
    np.testing.assert_allclose(out[4][:m], phi[idx], rtol=0, atol=2e-4)
    return cells


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_calo_cluster(policy):
    n = 64                                                 # 4 x 4 blocks
    rng = np.random.default_rng(4)
    host = tp._p136_cl_args(n, rng)
    E = host[0].reshape(n, n)
    E[20, 0] += 8.0                                        # a seed on phi's edge: its window wraps
    E[20, n - 1] += 2.0
    E[0, 30] += 6.0                                        # a seed on eta's edge
    E[40, 15:17] += [5.0, 4.0]                             # a seed beside a block's edge, its neighbour
    out = run("probe/calo-cluster-smem-halo", host, n, policy=policy)
    cells = cluster_check(host, out, n, host[7])
    assert {20 * n, 30, 40 * n + 15} <= set(cells) and 40 * n + 16 not in cells
    assert len(cells) > 8
    j = list(out[5]).index(20 * n)
    assert out[4][j] < 0                                   # pulled towards phi = -1, the wrapped n - 1


def test_calo_cluster_overflow():
    n = 64
    host = tp._p136_cl_args(n, np.random.default_rng(4))
    host[7] = np.int32(3)                                  # room for 3 clusters: the rest counted, dropped
    out = run("probe/calo-cluster-smem-halo", host, n, policy="random")
    cells = cluster_check(host, out, n, 3)
    assert len(cells) > 3 and (out[5][3:] == 0).all()


# ---- track-linefit-csr ----

def test_line_fit():
    n = 300                                                # 3 blocks, the last partial
    host, out, *_ = launch("probe/track-linefit-csr", n)
    a, b, c2, ndf = tp._p136_lf_ref(*host[:4])
    np.testing.assert_allclose(out[4], a, rtol=0, atol=5e-3)
    np.testing.assert_allclose(out[5], b, rtol=0, atol=2e-5)
    np.testing.assert_allclose(out[6], c2, rtol=2e-3, atol=1e-3)
    assert (out[7] == ndf).all()


def test_line_fit_exact_lines():
    # hits exactly on lines: chi^2 ~ 0 and the lines recovered; a two-hit-per-layer track
    rng = np.random.default_rng(5)
    n = 40
    host = tp._p136_lf_args(n, rng)
    off, z = host[0], host[1]
    trk = np.repeat(np.arange(n), np.diff(off))
    aa, bb = np.linspace(-10, 10, n), np.linspace(-0.2, 0.2, n)
    host[2] = (aa[trk] + bb[trk] * z).astype(np.float32)
    out = run("probe/track-linefit-csr", host, n)
    a, b, c2, ndf = tp._p136_lf_ref(*host[:4])
    np.testing.assert_allclose(out[4], aa, atol=5e-3)
    np.testing.assert_allclose(out[5], bb, atol=2e-5)
    assert (np.abs(out[6]) < 0.5).all() and (c2 < 0.05).all() and (out[7] == ndf).all()


# ---- dimuon-mass-hist-smem ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_mass_hist(policy):
    n = 600                                                # 3 blocks, the last partial
    host, out, *_ = launch("probe/dimuon-mass-hist-smem", n, policy=policy)
    h, amb = tp._p136_mh_ref(*host[:5])
    diff = np.abs(out[5].astype(np.int64) - h.astype(np.int64)).sum()
    assert diff <= 2 * amb and amb < 5 and h.sum() > 1000 and h[89:94].sum() > 50
    assert out[5].dtype == np.uint32


def test_mass_hist_pairs():
    # hand-made events: one Z-like pair, a same-charge pair (not counted), one of 8 muons
    # (every pair), masses out of range (dropped)
    n = 4
    host = tp._p136_mh_args(n, np.random.default_rng(1))
    pt, eta, phi, q, nm = (a.reshape(n, -1) if a.ndim and len(a) == 8 * n else a for a in host[:5])
    nm[:] = [2, 2, 8, 2]
    pt[0, :2], eta[0, :2], phi[0, :2], q[0, :2] = [45.5, 45.5], [0.0, 0.0], [0.0, 3.1], [1, -1]
    q[1, :2] = [1, 1]
    pt[2], eta[2], q[2] = np.linspace(5, 60, 8), np.linspace(-0.5, 0.5, 8), [1, -1] * 4
    phi[2] = np.linspace(-3, 3, 8)
    pt[3, :2], eta[3, :2], phi[3, :2], q[3, :2] = [400.0, 400.0], [-2.0, 2.0], [0.0, 3.0], [1, -1]
    out = run("probe/dimuon-mass-hist-smem", host, n)
    h, amb = tp._p136_mh_ref(*host[:5])
    assert amb == 0 and (out[5] == h).all() and h.sum() == 1 + 16 and h[90] == 1


# ---- l1-trigger-menu-atomics ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_trigger(policy):
    n = 600
    host, out, syms, _ = launch("probe/l1-trigger-menu-atomics", n, policy=policy)
    ev, raw, bits, nacc = host[0], out[1], out[2], out[3]
    fired = tp._p136_tr_ref(ev)
    ps = syms["c_path_prescale"]
    assert (raw == fired.sum(axis=0)).all()
    B = ((bits[:, None] >> np.arange(24, dtype=np.uint32)) & 1).astype(bool)
    assert (B[:, ps == 1] == fired[:, ps == 1]).all() and not (B & ~fired).any()
    assert (B.sum(axis=0) == (raw + ps - 1) // ps).all()            # the counter's multiples of the prescale
    assert int(nacc[0]) == int((bits != 0).sum()) and 0.3 < (bits != 0).mean() < 0.7


def test_trigger_thresholds():
    # objects exactly at a threshold do not pass (a strict >); an empty event fires nothing
    n = 3
    host = tp._p136_tr_args(n, np.random.default_rng(2))
    ev = host[0]
    ev[0] = ((180.0, 60.0, 40.0, 40.0), (25.0, 8.0), (30.0, 10.0), 80.0, 300.0)
    ev[1] = ((0.0,) * 4, (0.0,) * 2, (0.0,) * 2, 0.0, 0.0)
    ev[2] = ((180.5, 60.5, 40.5, 40.5), (25.5, 8.5), (30.5, 10.5), 80.5, 300.5)
    out = run("probe/l1-trigger-menu-atomics", host, n, symbols=tp._p136_tr_syms(n, None))
    fired = tp._p136_tr_ref(ev)
    assert not fired[1].any() and fired[2].all() and fired[0].sum() == 15
    ps = tp._p136_tr_syms(n, None)["c_path_prescale"]
    B = ((out[2][:, None] >> np.arange(24, dtype=np.uint32)) & 1).astype(bool)
    assert (out[1] == fired.sum(axis=0)).all() and out[2][1] == 0 and (B[:, ps == 1] == fired[:, ps == 1]).all()
    assert (B[0] == fired[0]).all() and int(out[3][0]) == 2        # the first to fire a prescaled path takes it


# ---- jet-cone-broadcast ----

def test_jet_cone():
    n = 256                                                # 2 blocks, 8 events
    host, out, *_ = launch("probe/jet-cone-broadcast", n)
    spt, je, jp, cnt, gap = tp._p136_jc_ref(*host[:5])
    assert gap > 1e-6 and (out[8] == cnt).all()
    np.testing.assert_allclose(out[5], spt, rtol=1e-5)
    np.testing.assert_allclose(out[6], je, rtol=0, atol=2e-6)
    np.testing.assert_allclose(out[7], jp, rtol=0, atol=2e-6)


def test_jet_cone_wrap_and_empty():
    # an axis at phi ~ pi collecting particles across the wrap; an axis far from any particle
    n = 32
    host = tp._p136_jc_args(n, np.random.default_rng(6))
    pe, pp, ppt, ae, ap = host[:5]
    pe[:] = 2.4
    pp[:] = 0.0
    pe[:3], pp[:3], ppt[:3] = 0.0, [3.1, -3.1, 2.9], [10.0, 40.0, 10.0]
    ae[:2], ap[:2] = [0.0, -2.4], [3.05, 0.0]
    out = run("probe/jet-cone-broadcast", host, n)
    spt, je, jp, cnt, gap = tp._p136_jc_ref(*host[:5])
    assert gap > 1e-6 and (out[8] == cnt).all() and cnt[0] == 3 and cnt[1] == 0
    np.testing.assert_allclose(out[5], spt, rtol=1e-5)
    assert out[5][0] == 60 and out[7][0] > 3.05 and (out[6][1], out[7][1]) == (ae[1], ap[1])
    np.testing.assert_allclose(out[7], jp, rtol=0, atol=2e-6)
