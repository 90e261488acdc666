"""probe-unseen130's kernels (kernels_cuda/probes132.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/radar-matched-filter-global", "probe/radar-doppler-dft-smem-twiddle", "probe/radar-cfar2d-smem-halo",
       "probe/radar-das-beamform-fracdelay", "probe/radar-clutter-map-censor", "probe/radar-det-histogram-atomic"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen130"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes132.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # matched filter: pulses n / 64, a unit-magnitude replica, noise of power 1, echoes that compress
    n = 2048
    x, h, y, ns, L = tp._p132_mf_args(n, rng)
    assert tp._p132_mf_shape(16384) == (256, 16384) and ns == n and L == tp.P132_MF_TAPS
    assert x.dtype == np.float32 and len(x) == 2 * 32 * n and len(y) == 32 * n and not y.any()
    assert np.allclose(np.abs(tp._p132_c64(h)), 1, atol=1e-6)
    pw, _ = tp._p132_mf_ref(x, h, n)
    x16 = tp._p132_mf_args(16384, rng)[0]                  # 12 echoes over 9% of the samples
    assert 0.9 < np.median(np.abs(tp._p132_c64(x16)) ** 2) / np.log(2) < 1.1    # CN(0, 1): median power ln 2
    assert pw.max() > 30 * L                                # a compressed echo far above the noise's L
    # Doppler: a Hamming window, clutter at zero Doppler dominating near range
    x, win, rd, nr = tp._p132_dd_args(4096, rng)
    assert len(x) == 2 * 64 * 4096 and np.allclose(win, np.hamming(64)) and not rd.any()
    pd, scale = tp._p132_dd_ref(x, win, 4096)
    near = pd[:, :256]
    assert (near.argmax(axis=0) == 32).mean() > 0.95 and near[32].mean() > 1e3 * np.median(near[[0, 16, 48]])
    assert (pd[:, 2048:].max(axis=0) > 1e3).any()           # targets off zero Doppler
    # CFAR: the map's shape rule, alpha from the design false-alarm rate, exponential noise
    assert [tp._p132_cf_shape(k)[0] for k in (40, 8191, 8192, 20000, 1 << 15, 1 << 20)] == [16, 16, 32, 64, 128, 128]
    N = tp.P132_CF_N
    assert N == 144 and abs((1 + tp.P132_CF_ALPHA / N) ** -N - tp.P132_CF_PFA) < 1e-9
    pw, det, thr, alpha, nr, nd = tp._p132_cf_args(1 << 14, rng)
    assert (nd, nr) == (64, 1 << 14) and pw.dtype == np.float32 and alpha == np.float32(tp.P132_CF_ALPHA)
    P = pw.reshape(nd, nr)
    assert abs(np.median(P[:8]) - np.log(2)) < 0.02 and P[32, :64].mean() > 300
    t, d = tp._p132_cf_ref(pw, nd, nr)
    assert 1e-3 < d.mean() < 1e-2 and d[:8].mean() < 5e-3
    # beamforming: a symmetric Hamming taper; the beams nearest the sources the strongest
    tap = tp._p132_ds_taper()
    assert np.allclose(tap, np.hamming(32)) and (tap == tap[::-1]).all()
    x, y, sp, ns, nb = tp._p132_ds_args(4096, rng)
    assert len(x) == 32 * 4096 and len(y) == 64 * 4096 and sp == 2.0 and nb == 64
    yb, _ = tp._p132_ds_ref(x, 4096)
    pb = (yb[:, 200:-200] ** 2).mean(axis=1)
    ang = -60 + 120 * np.arange(64) / 63
    peaks = [i for i in range(1, 63) if pb[i] >= pb[i - 1] and pb[i] >= pb[i + 1]]
    top = sorted(peaks, key=lambda i: -pb[i])[:4]           # the sources' main lobes, then a grating lobe
    assert sorted(min(abs(ang[i] - s) for s in tp.P132_DS_SOURCES) < 4 for i in top) == [False, True, True, True]
    assert pb[top[2]] > 5 * np.median(pb)
    # clutter map: ~0.05% detections, the map within a few dB of the power, det starting 0xff
    x, cmap, det, a, k, nn = tp._p132_cm_args(1 << 18, rng)
    assert len(x) == 2 << 18 and cmap.dtype == np.float32 and (det == 0xff).all() and nn == 1 << 18
    new, dt, gap = tp._p132_cm_ref(x, cmap)
    assert 2e-4 < dt.mean() < 1e-3 and gap.min() > 1e-6
    p = x.reshape(-1, 2).astype(np.float64)
    p = (p ** 2).sum(axis=1)
    assert 0.8 < p.mean() / cmap.astype(np.float64).mean() < 1.25 and cmap.min() >= 0.5
    # histogram: 12-byte reports, each scan sorted, ~27% under the gate, a few cells taking most
    rep, cnt, ssum, mn, gpc, nd, nn = tp._p132_hg_args(1 << 16, rng)
    assert rep.dtype.itemsize == 12 and len(cnt) == len(ssum) == 512 * 64 and not cnt.any()
    assert rep["range"].min() >= 0 and rep["range"].max() < tp.P132_HG_GATES and rep["doppler"].max() < nd
    key = (np.arange(1 << 16) // tp.P132_HG_SCAN * nd + rep["doppler"]) * tp.P132_HG_GATES + rep["range"]
    assert (np.diff(key) >= 0).all()
    assert 0.22 < (rep["snr_db"] < mn).mean() < 0.32
    c, _ = tp._p132_hg_ref(rep, len(cnt))
    assert np.sort(c)[::-1][:300].sum() > 0.6 * c.sum()


# ---- radar-matched-filter-global ----

def test_matched_filter():
    n = 300                                                 # 4 pulses, 2 blocks a pulse, the last partial
    host, (x, h, y, ns, L), *_ = launch("probe/radar-matched-filter-global", n)
    assert ns == n and len(y) == 4 * n
    pw, scale = tp._p132_mf_ref(host[0], host[1], n)
    err = np.abs(np.sqrt(y.reshape(4, n)) - np.sqrt(pw))
    assert (err <= 1e-6 * scale + 1e-5).all()
    assert pw.max() > 10 * np.median(pw)                    # echoes compressed


# ---- radar-doppler-dft-smem-twiddle ----

def test_doppler_dft():
    n = 100                                                 # 4 range tiles, the last partial
    host, (x, win, rd, nr), *_ = launch("probe/radar-doppler-dft-smem-twiddle", n)
    pd, scale = tp._p132_dd_ref(host[0], host[1], n)
    got = np.sqrt(np.maximum(10 ** (rd.reshape(64, n).astype(np.float64) / 10) - 1e-10, 0))
    assert (np.abs(got - np.sqrt(pd)) <= 2e-6 * scale[None, :] + 1e-4).all()
    assert (pd.argmax(axis=0) == 32).mean() > 0.9           # zero Doppler in the middle row


# ---- radar-cfar2d-smem-halo ----

@pytest.mark.parametrize("policy, n", [("lockstep", 40), ("random", 20)])
def test_cfar_2d(policy, n):
    # 16 Doppler bins: the halo wraps right round; n = 40 a partial range tile, 20 edges on both sides
    rng = np.random.default_rng(3)
    host = tp._p132_cf_args(n, rng)
    pw = host[0].reshape(16, n)
    pw[5, 7] = 2000.0                                       # a target, one at the edge, one on the ridge's row
    pw[0, n - 1] = 150.0
    pw[8, n // 2] = 5000.0
    out = run("probe/radar-cfar2d-smem-halo", host, n, policy=policy)
    thr, det = tp._p132_cf_ref(host[0], 16, n)
    np.testing.assert_allclose(out[2].reshape(16, n), thr, rtol=2e-6)
    near = np.abs(pw - thr) <= 1e-5 * thr
    got = out[1].reshape(16, n).astype(bool)
    assert ((got == det) | near).all() and not near.any()
    assert det[5, 7] and det[0, n - 1] and det[8, n // 2] and det.sum() < 20


# ---- radar-das-beamform-fracdelay ----

def test_das_beamform():
    n = 300                                                 # 2 blocks a beam, the last partial
    host, (x, y, sp, ns, nb), syms, _ = launch("probe/radar-das-beamform-fracdelay", n)
    assert (syms["c_taper"] == tp._p132_ds_taper()).all()
    ref, scale = tp._p132_ds_ref(host[0], n)
    err = np.abs(y.reshape(64, n) - ref)
    assert (err <= 1e-5 * scale + 1e-6).all()
    # beams at -+60 degrees reach 31 * 2 * sin 60 = 54 samples back / on: their first / last samples sum fewer elements
    mid = scale[:, n // 2]
    assert scale[0, 0] < 0.2 * mid[0] and scale[-1, -1] < 0.2 * mid[-1]
    assert scale[0, -1] > 0.5 * mid[0] and scale[-1, 0] > 0.5 * mid[-1]


# ---- radar-clutter-map-censor ----

def test_clutter_map():
    rng = np.random.default_rng(4)
    n = 5000                                                # 20 blocks, the last partial
    host = tp._p132_cm_args(n, rng)
    xs = host[0].reshape(n, 2)
    hot = rng.choice(n, 200, replace=False)                 # more detections than the 0.05% of the probe
    xs[hot] *= np.float32(np.sqrt(60.0)) * np.sqrt(host[1][hot] / (xs[hot] ** 2).sum(axis=1))[:, None]
    new, det, gap = tp._p132_cm_ref(host[0], host[1])
    assert gap.min() > 1e-5 and 150 < det.sum() < 260
    out = run("probe/radar-clutter-map-censor", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    assert (out[2] == det).all()
    assert (out[1][det] == host[1][det]).all()              # censored cells keep the map, bit for bit
    np.testing.assert_allclose(out[1], new, rtol=1e-6)
    assert (out[1][~det] != host[1][~det]).mean() > 0.99


# ---- radar-det-histogram-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_det_histogram(policy):
    n = 3000                                                # 3 scans, 12 blocks, the last partial
    host, (rep, cnt, ssum, *_), *_ = launch("probe/radar-det-histogram-atomic", n, policy=policy)
    c, s = tp._p132_hg_ref(host[0], len(cnt))
    assert (cnt == c).all() and c.sum() < n and c.max() > 10
    np.testing.assert_allclose(ssum, s, rtol=1e-5, atol=1e-3)


def test_det_histogram_one_cell():
    # every report in one cell (the worst contention), a third of them under the gate
    rng = np.random.default_rng(6)
    n = 640
    host = tp._p132_hg_args(n, rng)
    host[0]["range"] = 992 + np.arange(n) % 32              # gates 992..1023: cell 31 of Doppler bin 5
    host[0]["doppler"] = 5
    host[0]["snr_db"] = np.where(np.arange(n) % 3 == 0, 13.5, 20.25).astype(np.float32)
    out = run("probe/radar-det-histogram-atomic", host, n, policy="random")
    cell = 31 * 64 + 5
    assert out[1][cell] == n - (n + 2) // 3 and out[1].sum() == out[1][cell]
    assert out[2][cell] == np.float32(20.25 * (n - (n + 2) // 3))     # exact: multiples of 1/4
