"""probe-unseen92's kernels (kernels_cuda/probes94.cu, a high-energy-physics analysis
course) give numpy's answers in the emulator at small sizes, with the sanitizer on: the
timing probes are only worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/calo-seed-cluster", "probe/dimuon-mass-hist", "probe/track-hit-binmatch", "probe/vertex-fit-adaptive",
       "probe/trigger-ballot-compact", "probe/antikt-nn-smem"]


def copy(host):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in host]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen92"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes94.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # calorimeter: noise around 0, ~10 seeds an event from 12 showers, ~1% of cells above the seed threshold
    E, *rest = tp._p94_calo_args(1 << 18, rng)
    assert E.dtype == np.float32 and len(E) == 1 << 18 and rest[-1] == 1 << 18
    assert abs(np.median(E)) < 0.01 and 0.035 < np.percentile(E, 84) < 0.05
    seed = tp._p94_calo_ref(E)[3]
    assert 0.005 < (E >= tp._P94_CALO_SEED).mean() < 0.02 and 6 < seed.sum() / 64 < 14
    # dimuon: a Z peak, ~40% of events passing the cuts, weights +-0.5 with ~10% negative
    mu = tp._p94_mu_args(1 << 16, rng)
    assert all(a.dtype == np.float32 and len(a) == 1 << 16 for a in mu[:7])
    assert set(np.unique(mu[6])) == {-0.5, 0.5} and 0.08 < (mu[6] < 0).mean() < 0.12
    assert np.abs(mu[2]).max() <= np.pi and np.abs(mu[5]).max() <= np.pi and mu[0].min() > 0 and mu[3].min() > 0
    h, b, x, m = tp._p94_mu_ref(*mu[:7])
    inr = b >= 0
    assert 0.3 < inr.mean() < 0.5 and 0.35 < (~np.isnan(m)).mean() < 0.5
    assert abs(np.median(m[inr]) - 91.2) < 1 and np.argmax(np.bincount(b[inr])) in range(122, 126)
    assert 0.4 < np.sort(np.bincount(b[inr]))[-10:].sum() / inr.sum() < 0.6          # ~half on 10 hot bins
    # tracks: events of 256, 8 layers of ~262 hits an event (~4 a bin), ~95% of layers matched
    n = 1 << 12
    tr = tp._p94_trk_args(n, rng)
    phi0, kappa, hp, bs = tr[:4]
    nev, L, nb = n // 256, len(tp._P94_TRK_R), tp._P94_TRK_NBINS
    assert len(bs) == nev * L * nb + 1 and bs[0] == 0 and bs[-1] == len(hp) and (np.diff(bs) >= 0).all()
    assert 3.5 < np.diff(bs).mean() < 4.5 and hp.min() >= 0 and hp.max() <= np.float32(2 * np.pi)
    seg = np.repeat(np.arange(nev * L * nb), np.diff(bs))
    assert ((hp.astype(np.float64) / (2 * np.pi) * nb).astype(np.int64).clip(0, nb - 1) == seg % nb).all()
    assert (np.diff(hp)[np.diff(seg // nb) == 0] >= 0).all()                             # sorted in a layer
    assert np.abs(0.5 * max(tp._P94_TRK_R) * kappa).max() < 0.3 and tr[6] < 2 * np.pi / nb
    best, cnt, amb = tp._p94_trk_ref(*tr[:4])
    assert 0.9 < (best >= 0).mean() < 0.99 and amb.mean() < 0.01
    # vertices: 16 + Poisson(64) tracks, the fit within 0.1 mm of the truth for ~99% of events
    v = tp._p94_vtx_args(1 << 12, np.random.default_rng(5))
    truth = tp._p94_vtx_truth(1 << 12, np.random.default_rng(5))
    k = np.diff(v[2])
    assert k.min() >= 16 and 75 < k.mean() < 85 and v[0].dtype == np.float32 and len(v[0]) == v[2][-1]
    assert 0.02 <= v[1].min() and v[1].max() <= 0.3
    z, err, c, gap = tp._p94_vtx_ref(*v[:3])
    assert (np.abs(z - truth) < 0.1).mean() > 0.97 and np.median(err) < 0.01 and 0.75 < (c / k).mean() < 0.85
    # trigger: Poisson(3.2) jets sorted, ~6% of events passing
    jp, nj, met, *rest = tp._p94_trig_args(1 << 16, rng)
    pt = jp.reshape(-1, 8)
    assert nj.max() <= 8 and abs(nj.mean() - 3.2) < 0.05 and (np.diff(pt, axis=1) <= 0).all()
    assert ((pt > 0).sum(axis=1) == nj).all() and (pt[pt > 0] >= 20).all()
    ok, ht = tp._p94_trig_ref(jp, nj, met)
    assert 0.04 < ok.mean() < 0.08
    # jets: 48 .. 127 particles, zero padded, nearly all with a partner within R (the beam nearest for <1%)
    jet = tp._p94_jet_args(256, rng)
    npart = jet[3]
    assert npart.min() >= 48 and npart.max() < 128 and jet[0].reshape(-1, 128)[np.arange(128) >= npart[:, None]].max() == 0
    assert jet[0].reshape(-1, 128)[np.arange(128) < npart[:, None]].min() >= 0.5 and np.abs(jet[2]).max() <= np.pi
    nn = tp._p94_jet_ref(*jet[:4])[0]
    on = (np.arange(128) < npart[:, None]).ravel()
    assert 0 < (nn[on] == -1).mean() < 0.01


# ---- calo-seed-cluster ----

def calo_check(host, out):
    ref_e, ref_eta, ref_phi, seed = tp._p94_calo_ref(host[0])
    assert (out[1] == ref_e).all()
    assert (out[2][seed] == ref_eta[seed]).all() and (out[3][seed] == ref_phi[seed]).all()
    assert (out[2][~seed] == 0).all() and (out[3][~seed] == 0).all()                # untouched
    assert out[4][0] == seed.sum()
    return seed


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_calo_cluster(policy):
    n = 2 * 4096                                            # two events
    host, out, *_ = launch("probe/calo-seed-cluster", n, policy=policy)
    seed = calo_check(host, out)
    assert seed.sum() > 15 and (host[0] >= 1).sum() > 3 * seed.sum()


def test_calo_edges():
    # seeds on the eta edges and across the phi wrap, two equal neighbours (both seeds)
    rng = np.random.default_rng(3)
    host = tp._p94_calo_args(4096, rng)
    E = host[0].reshape(64, 64)
    E[:] = rng.normal(0, tp._P94_CALO_NOISE, (64, 64))      # noise only, then the cells below
    E[0, 10], E[1, 10] = 5.0, 2.0                           # eta edge 0
    E[63, 30], E[62, 31] = 4.0, 0.5                         # eta edge 63
    E[20, 0], E[20, 63], E[21, 63] = 3.0, 2.5, 0.3          # phi wraps: 63 is 0's neighbour
    E[40, 40] = E[40, 41] = 6.0                             # a tie
    out = run("probe/calo-seed-cluster", copy(host), 4096)
    seed = calo_check(host, out).reshape(64, 64)
    assert seed[0, 10] and seed[63, 30] and seed[20, 0] and not seed[20, 63] and seed[40, 40] and seed[40, 41]
    assert out[3].reshape(64, 64)[20, 0] < 0                # pulled across the wrap


# ---- dimuon-mass-hist ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_dimuon_mass_hist(policy):
    n = 3000
    host, out, *_ = launch("probe/dimuon-mass-hist", n, policy=policy)
    h, b, x, m = tp._p94_mu_ref(*host[:7])
    # an event within float32's reach of a bin edge (or the range's ends) may land either side
    with np.errstate(invalid="ignore"):
        amb = np.abs(x - np.round(x)) < 5e-3
    sure = (b >= 0) & ~amb
    href = np.bincount(b[sure], weights=host[6][sure].astype(np.float64), minlength=240)
    assert amb.sum() < 0.02 * n and sure.sum() > 0.3 * n
    diff = out[7] - href
    slack = np.zeros(240)
    for k in np.flatnonzero(amb):                           # x near j: bin j - 1 or j (or outside)
        j = int(np.round(x[k]))
        slack[max(j - 1, 0):min(j + 1, 240)] += 0.5
    assert (np.abs(diff) <= slack + 1e-6).all()
    assert abs(diff.sum()) <= 0.5 * amb.sum() + 1e-6
    assert out[7].sum() == pytest.approx(h.sum(), abs=0.5 * amb.sum() + 1e-6)
    assert (host[6] < 0).any() and out[7].max() > 10


def test_dimuon_cuts_exact():
    # hand-made events on the cuts: pt exactly at the cut passes, |eta| exactly at it passes
    rng = np.random.default_rng(4)
    n = 64
    host = tp._p94_mu_args(n, rng)
    pt1, eta1, phi1, pt2, eta2, phi2, w = host[:7]
    pt1[:] = pt2[:] = 45.0
    eta1[:] = eta2[:] = 0.0
    phi1[:], phi2[:] = 0.0, np.float32(np.pi)               # back to back: m = 90 GeV (+ the muon mass)
    pt1[1] = np.float32(25.0)
    pt2[2] = np.nextafter(np.float32(25.0), np.float32(0))  # just below: cut
    eta1[3] = eta2[3] = np.float32(2.4)                     # at the cut: passes (m 88.8 GeV)
    pt1[3] = pt2[3] = np.float32(44.4)
    eta2[4] = np.nextafter(np.float32(2.4), np.float32(3))  # just above: cut
    w[:] = 0.5
    out = run("probe/dimuon-mass-hist", copy(host), n)
    h, b, x, m = tp._p94_mu_ref(*host[:7])
    assert (b >= 0).sum() == n - 2 and b[2] == b[4] == -1 and (out[7] == h).all()
    assert out[7][120] == 0.5 * (n - 4) and out[7][115] == 0.5    # 90.0002 GeV: bin 120


# ---- track-hit-binmatch ----

@pytest.mark.parametrize("policy, n", [("lockstep", 512), ("random", 96)])
def test_track_hit_match(policy, n):
    # two events of 256 tracks; part of one under the random schedule (slow in the emulator)
    host, out, *_ = launch("probe/track-hit-binmatch", n, policy=policy)
    best, cnt, amb = tp._p94_trk_ref(*host[:4])
    got = out[4].reshape(n, -1)
    assert amb.sum() < 10 and (got[~amb] == best[~amb]).all() and (got[~amb] >= 0).mean() > 0.85
    assert (out[5] == (got >= 0).sum(axis=1)).all()
    ok = ~amb.any(axis=1)
    assert (out[5][ok] == cnt[ok]).all()
    # matched hits are the track's event's, on the right layer
    nb, L = tp._P94_TRK_NBINS, len(tp._P94_TRK_R)
    seg = np.searchsorted(host[3], got[got >= 0], side="right") - 1
    assert (seg // (nb * L) == (np.arange(n)[:, None] // 256 + 0 * got)[got >= 0]).all()
    assert (seg // nb % L == (np.arange(L)[None, :] + 0 * got)[got >= 0]).all()


def set_layer(bs, hp, seg, phis):
    """Replace the hits of segment seg (event * 8 + layer) by phis (as many), rebinned."""
    nb = tp._P94_TRK_NBINS
    a, z = bs[seg * nb], bs[(seg + 1) * nb]
    p = np.sort(np.asarray(phis, np.float32))
    assert len(p) == z - a
    hp[a:z] = p
    b = np.minimum((p.astype(np.float64) / (2 * np.pi) * nb).astype(np.int64), nb - 1)
    bs[seg * nb + 1:(seg + 1) * nb] = a + np.searchsorted(b, np.arange(1, nb))


def test_track_hit_wrap_and_empty():
    # tracks next to phi = 0 / 2 pi (the bin scan wraps; one helix turns negative), then an
    # event's layer 0 without hits
    rng = np.random.default_rng(6)
    n = 256
    host = tp._p94_trk_args(n, rng)
    phi0, kappa, hp, bs = host[:4]
    nb = tp._P94_TRK_NBINS
    k = bs[nb] - bs[0]
    set_layer(bs, hp, 0, np.r_[0.001, 6.2825, rng.uniform(0.02, 2 * np.pi - 0.02, k - 2)])
    phi0[:5] = [0.0, 6.2831, 0.0015, 0.0005, 3.0]
    kappa[:5] = [0.0, 0.0, 0.0, -0.05, 0.0]                 # track 3: phi -0.0005, wrapped to 6.28269
    best, cnt, amb = tp._p94_trk_ref(*host[:4])
    first, last = bs[0], bs[nb] - 1
    assert not amb[:4].any() and list(best[:4, 0]) == [last, last, first, last]
    out = run("probe/track-hit-binmatch", copy(host), n, symbols=tp._p94_trk_syms(n, rng))
    got = out[4].reshape(n, -1)
    assert (got[~amb] == best[~amb]).all() and list(got[:4, 0]) == [last, last, first, last]
    # layer 0 empty: every bin's offset the segment's end
    bs[:nb] = bs[nb]
    out = run("probe/track-hit-binmatch", copy(host), n, symbols=tp._p94_trk_syms(n, rng))
    got = out[4].reshape(n, -1)
    assert (got[:, 0] == -1).all() and (got[:, 1:][~amb[:, 1:]] == best[:, 1:][~amb[:, 1:]]).all()
    assert (out[5] == (got >= 0).sum(axis=1)).all()


# ---- vertex-fit-adaptive ----

def vtx_check(host, out):
    z, err, cnt, gap = tp._p94_vtx_ref(*host[:3])
    np.testing.assert_allclose(out[3], z, rtol=0, atol=2e-4)
    np.testing.assert_allclose(out[4], err, rtol=1e-4)
    sure = gap > 1e-3
    assert (out[5][sure] == cnt[sure]).all() and np.abs(out[5] - cnt).max() <= 1
    return z, cnt


@pytest.mark.parametrize("policy, n", [("lockstep", 24), ("random", 2)])
def test_vertex_fit(policy, n):
    host, out, *_ = launch("probe/vertex-fit-adaptive", n, policy=policy)
    z, cnt = vtx_check(host, out)
    truth = tp._p94_vtx_truth(n, np.random.default_rng(0))
    assert (np.abs(out[3] - truth) < 0.1).mean() > 0.9 and (cnt < np.diff(host[2])).all()


def test_vertex_fit_sizes():
    # events of 1, 2, 127, 128, 129 and 300 tracks (1 to 3 block-stride trips)
    rng = np.random.default_rng(7)
    ks = np.array([1, 2, 127, 128, 129, 300])
    start = np.concatenate([[0], np.cumsum(ks)]).astype(np.int32)
    zt = rng.normal(0, 40, len(ks))
    s = rng.uniform(0.02, 0.3, start[-1]).astype(np.float32)
    ev = np.repeat(np.arange(len(ks)), ks)
    z = (zt[ev] + rng.normal(0, 1, start[-1]) * s).astype(np.float32)
    z[-50:] = rng.uniform(-150, 150, 50)                    # pile-up in the last event
    host = [z, s, start, np.zeros(6, np.float32), np.zeros(6, np.float32), np.zeros(6, np.int32),
            np.float32(tp._P94_VTX_CHI2), np.float32(tp._P94_VTX_T0), np.int32(6)]
    out = run("probe/vertex-fit-adaptive", copy(host), 6)
    vtx_check(host, out)
    assert abs(out[3][0] - z[0]) < 1e-5 and out[5][0] == 1 and np.abs(out[3] - zt)[2:].max() < 0.05


# ---- trigger-ballot-compact ----

def trig_check(host, out):
    ok, ht = tp._p94_trig_ref(*host[:3])
    k = int(out[5][0])
    assert k == ok.sum()
    sel = out[3][:k]
    assert (np.sort(sel) == np.flatnonzero(ok)).all()
    assert (out[4][:k] == ht[sel]).all()
    assert (out[3][k:] == 0).all()
    return ok


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_trigger_select(policy):
    n = 5000                                                # a partial last warp
    host, out, *_ = launch("probe/trigger-ballot-compact", n, policy=policy)
    ok = trig_check(host, out)
    assert 100 < ok.sum() < 500
    # within a warp the passers keep their order
    sel = out[3][:ok.sum()]
    w = sel // 32
    for g in np.unique(w):
        assert (np.diff(sel[w == g]) > 0).all()


def test_trigger_paths():
    # each path alone, HT just at the cut (fails: > is strict), no jets, every event passing
    rng = np.random.default_rng(2)
    n = 64
    host = tp._p94_trig_args(n, rng)
    pt = host[0].reshape(n, 8)
    nj, met = host[1], host[2]
    pt[:], nj[:], met[:] = 0, 0, 10
    pt[0, :4], nj[0] = [120, 100, 100, 90], 4               # HT 410, 4 hard jets: pass
    pt[1, :4], nj[1] = [110, 100, 100, 90], 4               # HT 400: not > 400
    pt[2, :5], nj[2] = [200, 150, 100, 39.5, 30], 5         # 3 hard jets: fail
    pt[3, 0], nj[3] = 301, 1                                # leading jet: pass
    met[4] = 151                                            # MET alone: pass
    pt[5, :8], nj[5] = 60, 8                                # 8 x 60: pass
    out = run("probe/trigger-ballot-compact", copy(host), n)
    ok = trig_check(host, out)
    assert list(np.flatnonzero(ok)) == [0, 3, 4, 5]
    host[2][:] = 500
    out = run("probe/trigger-ballot-compact", copy(host), n)
    assert trig_check(host, out).all() and (np.sort(out[3]) == np.arange(n)).all()


# ---- antikt-nn-smem ----

def jet_check(host, out):
    nn, d, gap = tp._p94_jet_ref(*host[:4])
    on = (np.arange(128) < host[3][:, None]).ravel()
    sure = on & (gap > 1e-5)
    assert sure.sum() > 0.99 * on.sum()
    assert (out[4][sure] == nn[sure]).all()
    np.testing.assert_allclose(out[5][on], d[on], rtol=1e-5, atol=0)     # float32 2 pi in the wrap
    assert (out[4][~on] == 0).all() and (out[5][~on] == 0).all()                # padding untouched
    return nn


@pytest.mark.parametrize("policy, n", [("lockstep", 6), ("random", 2)])
def test_antikt_nn(policy, n):
    host, out, *_ = launch("probe/antikt-nn-smem", n, policy=policy)
    nn = jet_check(host, out)
    on = (np.arange(128) < host[3][:, None]).ravel()
    assert (nn[on] >= 0).mean() > 0.95


def test_antikt_wrap_and_small():
    # a pair across phi = +-pi (away from the rest in eta), an event of one particle (the
    # beam) and one of 127
    rng = np.random.default_rng(9)
    host = tp._p94_jet_args(3, rng)
    pt, eta, phi, npart = host[:4]
    npart[:] = [60, 1, 127]
    pt[0], eta[0], phi[0] = 50.0, 6.0, np.float32(3.1)
    pt[1], eta[1], phi[1] = 40.0, 6.02, np.float32(-3.1)    # dphi 0.083 across the wrap
    pt[128] = 5.0
    pt[256:383] = 1.0 + 0.25 * np.arange(127)
    eta[256:383] = rng.uniform(-2.5, 2.5, 127)
    phi[256:383] = rng.uniform(-np.pi, np.pi, 127)
    out = run("probe/antikt-nn-smem", copy(host), 3)
    jet_check(host, out)
    assert out[4][0] == 1 and out[4][1] == 0 and out[4][128] == -1
    assert out[5][128] == np.float32(1 / 25) and out[5][0] < 2e-5
    assert (out[4][256:383] != -1).mean() > 0.5
