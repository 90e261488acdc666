"""probe-unseen174's kernels (kernels_cuda/probes176.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/psm-xcorr-gather", "probe/precursor-bsearch-f64", "probe/xcorr-preproc-smem",
       "probe/tryptic-digest-atomic", "probe/isotope-averagine-lgamma", "probe/psm-count-hist"]
EPS = 2.0 ** -24                                            # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen174"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes176.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    t = tp._p176_mass_table()
    assert t[ord("G") - 65] == np.float32(57.02146) and t[ord("C") - 65] == np.float32(160.03065)
    assert (t == 0).sum() == 6                              # B J O U X Z
    seq, off, mass = tp._p176_peptides(20000, rng)
    L = np.diff(off)
    assert L.min() == 7 and L.max() == 30 and 12 < L.mean() < 14 and (np.diff(mass) >= 0).all()
    last = seq[off[1:] - 1]
    assert np.isin(last, [ord("K"), ord("R")]).all() and abs((last == ord("K")).mean() - 0.55) < 0.02
    inner = np.isin(seq, [ord("K"), ord("R")]).sum() - len(L)
    assert abs(inner / len(L) - tp.P176_PEP_MC) < 0.01                     # missed cleavages
    assert np.allclose(np.add.reduceat(t.astype(np.float64)[seq - 65], off[:-1]) + tp.P176_WATER, mass)
    assert 1200 < np.median(mass) < 1450 and 500 < mass[0] and mass[-1] < 4000
    # masses cluster about nominal mass x 1.0005 (the peptide mass defect)
    frac = mass / 1.000495 - np.rint(mass / 1.000495)
    assert np.abs(frac).mean() < 0.1
    seq, off, pep, sp, spec, *_, n = tp._p176_psm_args(1 << 14, rng, npep=1 << 15)
    cnt = np.bincount(sp)
    assert n == len(pep) == len(sp) and len(cnt) == n // 128 and (np.diff(sp) >= 0).all() and cnt.std() > 60
    assert (np.diff(pep)[np.diff(sp) == 0] == 1).all()                     # each spectrum a run of the database
    S = spec.reshape(-1, 2048)
    assert 0.05 < (S > 0).mean() < 0.12 and abs(S.max() - 50) < 1e-4 and S.min() < -2
    xc, hits, _ = tp._p176_psm_ref(seq, off, pep, sp, spec)
    best = np.maximum.reduceat(xc, np.concatenate([[0], np.cumsum(cnt)[:-1]]))
    assert 0.6 < (best > 1.5).mean() < 0.8 and np.median(xc) < 0.2          # ~70% with their peptide among them
    mass, npep, mz, z, first, last, ppm, n = tp._p176_pw_args(1 << 14, rng, npep=1 << 18)
    assert npep == len(mass) and (np.diff(mass) >= 0).all() and mz.dtype == np.float64 and len(first) == 4 * n
    zc = np.bincount(z, minlength=6) / n
    assert 0.08 < zc[1] < 0.2 and 0.4 < zc[2] < 0.6 and 0.2 < zc[3] < 0.35 and zc[5] < 0.02
    mass, npep, mz, z, *_ = tp._p176_pw_args(1 << 14, rng, npep=1 << 10)      # a sparse database:
    f, l, gap = tp._p176_pw_ref(mass, mz, z)                                # windows seldom hit by chance
    hit = (l > f).mean(axis=0)
    c = hit[3]                                              # (3 13C peaks: the chance of a hit)
    assert c < 0.15 and abs((hit[0] - c) / (1 - c) - 0.7 * 0.82) < 0.04
    assert abs((hit[1] - c) / (1 - c) - 0.7 * 0.14) < 0.03
    M = (mz - tp.P176_PROTON) * z
    j = np.clip(np.searchsorted(mass, M), 1, npep - 1)
    e = (M / np.where(np.abs(mass[j] - M) < np.abs(mass[j - 1] - M), mass[j], mass[j - 1]) - 1) * 1e6
    assert abs(np.median(e[np.abs(e) < 10]) - 1.5) < 0.2                    # the instrument's offset (ppm)
    raw, out = tp._p176_xp_args(500, rng)
    R = raw.reshape(500, 2048)
    assert 0.07 < (R > 0).mean() < 0.1 and (R[:, :50] == 0).all() and np.median(R[R > 0]) > 1000
    assert np.quantile(R[R > 0], 0.99) > 10 * np.median(R[R > 0])              # a skewed intensity scale
    seq, off, outp, nout, cap, n = tp._p176_td_args(2000, rng)
    L = np.diff(off)
    assert abs(np.median(L) - 415) < 25 and L.min() >= 50 and L.max() > 3000 and (seq[off[:-1]] == ord("M")).all()
    assert abs((seq == ord("L")).mean() - 0.0966) < 0.002 and outp.dtype == tp.P176_PEP_DTYPE and cap == len(outp)
    rows, m = tp._p176_td_ref(seq, off)
    assert 0.17 < len(rows) / off[-1] < 0.22 < tp.P176_TD_CAP and 15 < rows[:, 2].mean() < 18
    mz, inten, scan, off, bz, bs, n = tp._p176_is_args(1 << 15, rng)
    key = scan * 4096.0 + mz
    assert (np.diff(key) >= 0).all() and (off[scan] <= np.arange(n)).all() and (np.arange(n) < off[scan + 1]).all()
    assert off[-1] == n and 1300 < np.median(np.diff(off)) < 1650 and 350 <= mz.min() and mz.max() <= 1800
    zb, best, scores = tp._p176_is_ref(mz, inten, scan, off)
    zc = np.bincount(zb, minlength=5) / n
    assert 0.3 < (zb > 0).mean() < 0.45 and zc[2] > zc[3] > zc[4] and np.median(best[zb > 0]) > 0.9
    xc, prot, dec, hist, spc, npass, lo, inv_w, thr, n = tp._p176_sc_args(1 << 18, rng)
    P = tp.P176_SC_PROT
    assert abs(dec.mean() - 0.275) < 0.005 and (prot[dec == 1] >= P).all() and (prot[dec == 0] < P).all()
    assert 0.01 < (xc < 0).mean() < 0.02 and xc[dec == 1].mean() < 1.7 and len(spc) == 2 * P
    h, sp, k = tp._p176_sc_ref(xc, prot, dec, 2 * P)
    assert 0.28 < k / n < 0.36 and 0.05 < sp.max() / k < 0.09 and (sp > 0).sum() > 0.5 * P     # abundant proteins


# ---- psm-xcorr-gather ----

@pytest.mark.parametrize("n, policy", [(700, "lockstep"), (128, "random")])
def test_psm_xcorr(n, policy):
    rng = np.random.default_rng(3)
    h = tp._p176_psm_args(n, rng, npep=4000, cand=100)
    syms = tp._p176_aa_syms(n, rng)
    out = run("probe/psm-xcorr-gather", h, n, policy=policy, symbols=syms)
    xc, hits, mag = tp._p176_psm_ref(*h[:5])
    # the bins are the kernel's (float32 ladders in its order); <= 58 float32 additions of the
    # gathered bins, then the 0.005 scaling
    assert (out[6] == hits).all() and (np.abs(out[5] - xc) <= 60 * EPS * mag + EPS * np.abs(xc)).all()
    assert (hits == 0).any()
    if n > 500:                                             # (the one spectrum of n = 128 has no id)
        b, y = tp._p176_ions(h[0], h[1], h[2])
        assert (xc > 1).any() and (np.nan_to_num(y) > 2048 * tp.P176_BIN_W).any()     # ions past the last bin
    # integer-valued spectra: every sum exact
    h[4] = rng.integers(-3, 4, len(h[4])).astype(np.float32)
    out = run("probe/psm-xcorr-gather", h, n, policy=policy, symbols=syms)
    xc, hits, _ = tp._p176_psm_ref(*h[:5])
    assert (out[6] == hits).all() and (out[5] == (np.float32(0.005) * (xc / 0.005).astype(np.float32))).all()


def test_psm_xcorr_ladder():
    # one peptide, PEPTIDEK, against a spectrum with 1 at its b3 and y2 bins, -1 elsewhere
    s = np.frombuffer(b"PEPTIDEK", np.uint8).copy()
    b, y = tp._p176_ions(s, np.int32([0, 8]), np.int64([0]))
    assert abs(b[0, 2] - 324.155) < 1e-3 and abs(y[0, 5] - 276.155) < 1e-3     # b3 = PEP, y2 = EK
    spec = np.full(2048, -1, np.float32)
    spec[tp._p176_bin([b[0, 2], y[0, 5]])] = 1
    h = [s, np.int32([0, 8]), np.zeros(3, np.int32), np.zeros(3, np.int32), spec, np.zeros(3, np.float32),
         np.zeros(3, np.int32), np.int32(3)]
    out = run("probe/psm-xcorr-gather", h, 3, symbols=tp._p176_aa_syms(3, None))
    assert (out[6] == 2).all() and (out[5] == np.float32(0.005) * np.float32(2 - 12)).all()


# ---- precursor-bsearch-f64 ----

@pytest.mark.parametrize("n, policy", [(300, "lockstep"), (100, "random")])
def test_precursor_window(n, policy):
    rng = np.random.default_rng(4)
    h = tp._p176_pw_args(n, rng, npep=6000)
    mass = h[0]
    # isobaric peptides (the same composition, the same mass) and spectra beyond the database's ends
    mass[3000:3005] = mass[3000]
    h[2][:3] = (mass[3000] + np.float64([0, 1, 2]) * tp.P176_C13) / 2 + tp.P176_PROTON
    h[3][:3] = 2
    h[2][3:5] = np.float64([300.0, 9000.0])
    h[3][3:5] = 1
    out = run("probe/precursor-bsearch-f64", h, n, policy=policy)
    f, l, gap = tp._p176_pw_ref(mass, h[2], h[3])
    # double against double: the bounds agree to an ulp or two (an FMA or not), far below the gap
    assert gap > 1e-12 and (out[4] == f.ravel()).all() and (out[5] == l.ravel()).all()
    assert (f[:3].diagonal() <= 3000).all() and (l[:3].diagonal() >= 3005).all()
    assert (f[3] == 0).all() and (l[3] == 0).all() and (f[4] == 6000).all() and (l[4] == 6000).all()
    assert (l - f).max() > 1 and ((l - f) == 0).any()


# ---- xcorr-preproc-smem ----

@pytest.mark.parametrize("n, seed", [(3, 0), (2, 5)])
def test_xcorr_preprocess(n, seed):
    h, out, _, _ = launch("probe/xcorr-preproc-smem", n, seed=seed)
    ref, q, s = tp._p176_xp_ref(h[0])
    # float32 as numpy's up to the normalised bins; the kernel's 151-bin window sums in float32
    # (<= 150 roundings of a partial sum <= the whole) against float64, then a division and a subtraction
    assert (np.abs(out[1] - ref.ravel()) <= EPS * (s + 2 * np.abs(q) + 2 * s / 150).ravel()).all()
    assert ((q == 50).sum(axis=1) >= 2).all() and ((q == 0) & (h[0].reshape(n, -1) > 0)).any()   # small peaks dropped


def test_xcorr_preprocess_exact():
    # one peak a window (perfect squares: every step exact), a small one under 5% of the base peak
    raw = np.zeros(2048, np.float32)
    at = 100 + 205 * np.arange(10)
    raw[at] = (np.arange(1, 11) * 20.0) ** 2
    raw[at[9] + 3] = 9.0                                    # sqrt 3 < 0.05 * 200: dropped
    raw[at[4] + 1] = 400.0                                  # sqrt 20 in a window of max 100: 10
    out = run("probe/xcorr-preproc-smem", [raw, np.zeros(2048, np.float32)], 1)[1]
    q = np.zeros(2048, np.float32)
    q[at] = 50
    q[at[4] + 1] = 10
    i = np.arange(2048)
    s = np.array([q[max(k - 75, 0):k + 76].sum() for k in i], np.float32)    # small integers: exact
    assert (out == q - (s - q) / np.float32(150)).all()
    assert out[at[0]] == np.float32(50) and out[at[4]] == np.float32(50) - np.float32(10) / np.float32(150)


# ---- tryptic-digest-atomic ----

def _digest(h, n, policy="lockstep"):
    out = run("probe/tryptic-digest-atomic", h, n, policy=policy, symbols=tp._p176_aa_syms(n, None))
    k = int(out[3][0])
    o = out[2][:min(k, int(h[4]))]
    got = np.stack([o["protein"], o["start"], o["len"]], 1).astype(np.int64)
    order = np.lexsort(got.T[::-1])
    return k, got[order], o["mass"][order].astype(np.float64), out[2]


@pytest.mark.parametrize("n, policy", [(64, "lockstep"), (32, "random")])
def test_tryptic_digest(n, policy):
    rng = np.random.default_rng(6)
    h = tp._p176_td_args(n, rng, length=(50, 0.5, 20))      # short proteins (median 50)
    k, got, m, _ = _digest(h, n, policy)
    rows, mass = tp._p176_td_ref(h[0], h[1])
    # float32 sums of <= 30 residues and a water in the kernel's order: <= 33 roundings of at most the mass
    assert k == len(rows) and (got == rows).all() and (np.abs(m - mass) <= 33 * EPS * mass).all()
    lo, hi = tp.P176_TD_MASS
    assert np.abs(np.concatenate([mass - lo, hi - mass])).min() > 0.05              # no peptide on a mass bound
    assert (rows[:, 2] == 7).any() and (rows[:, 2] == 30).any() and len(np.unique(rows[:, 0])) > n / 2


def test_tryptic_digest_rules():
    # KP and RP not cut; a protein not ending in K/R; a too-short and a too-long fragment; 2 missed cleavages
    prots = [b"AAAAAAKPAAAAARAAAAAAAK",                   # fragments 0-13, 14-21
             b"MSSSSSGGGRPSSS" + b"G" * 11 + b"W" * 20,   # one fragment of 45: too long
             b"KAAAAAAAAK" + b"AK" + b"GGGGGGGR" + b"AAAAAAAAA"]
    seq = np.frombuffer(b"".join(prots), np.uint8).copy()
    off = np.int32(np.concatenate([[0], np.cumsum([len(p) for p in prots])]))
    h = [seq, off, np.zeros(20, tp.P176_PEP_DTYPE), np.zeros(1, np.int32), np.int32(20), np.int32(3)]
    k, got, m, _ = _digest(h, 3)
    # protein 2: K | AAAAAAAAK | AK | GGGGGGGR | AAAAAAAAA, lengths 1, 9, 2, 8, 9 (GGGGGGGR alone
    # 573 Da: too light)
    want = [(0, 0, 14), (0, 0, 22), (0, 14, 8),
            (2, 0, 10), (2, 0, 12), (2, 1, 9), (2, 1, 11), (2, 1, 19), (2, 10, 10), (2, 10, 19), (2, 12, 17),
            (2, 20, 9)]
    assert k == len(want) and [tuple(r) for r in got] == want
    rows, mass = tp._p176_td_ref(seq, off)
    assert (rows == got).all() and (np.abs(m - mass) <= 33 * EPS * mass).all()
    # more peptides than slots: all counted, cap written, the rest untouched
    h[2] = np.zeros(20, tp.P176_PEP_DTYPE)
    h[4] = np.int32(5)
    k, got, m, buf = _digest(h, 3)
    assert k == len(want) and set(map(tuple, got)) <= set(want) and len(got) == 5 and (buf[5:]["len"] == 0).all()


# ---- isotope-averagine-lgamma ----

@pytest.mark.parametrize("n, policy", [(800, "lockstep"), (48, "random")])
def test_isotope_score(n, policy):
    rng = np.random.default_rng(7)
    h = tp._p176_is_args(n, rng)
    out = run("probe/isotope-averagine-lgamma", h, n, policy=policy, symbols=tp._p176_is_syms(n, rng))
    z, best, scores = tp._p176_is_ref(*h[:4])
    # peaks whose isotope matches move with 2% of the tolerance (float32 m/z sums) and near-ties
    # of two charges left out; the pmfs as differences of float32 lgammaf values up to ~1500
    # (ulp 1.2e-4): scores to 5e-4
    lo = tp._p176_is_ref(*h[:4], slack=-0.02)[2]
    hi = tp._p176_is_ref(*h[:4], slack=0.02)[2]
    s2 = np.sort(scores, axis=1)
    ok = (np.abs(lo - hi).max(axis=1) == 0) & ((s2[:, -1] - s2[:, -2] > 1e-3) | (s2[:, -1] == 0))
    assert ok.mean() > 0.97 and (out[4] == z)[ok].all() and (np.abs(out[5] - best)[ok] <= 5e-4).all()
    assert (z == 1).any() and (z == 4).any() and (z == 0).any()


def test_isotope_envelope():
    # one spectrum: an averagine envelope of charge 2 at 800.4 (M ~ 1599) and a lone peak
    M = 1598.78
    pat = tp._p176_averagine([M])[0]
    mz = np.float32(np.concatenate([(M + np.arange(6) * tp.P176_C13) / 2 + tp.P176_PROTON, [1200.0]]))
    inten = np.float32(np.concatenate([1e5 * pat, [5e4]]))
    h = [mz, inten, np.zeros(7, np.int32), np.int32([0, 7]), np.zeros(7, np.int32), np.zeros(7, np.float32),
         np.int32(7)]
    out = run("probe/isotope-averagine-lgamma", h, 7, symbols=tp._p176_is_syms(7, None))
    z, best, scores = tp._p176_is_ref(*h[:4])
    assert out[4][0] == 2 and abs(out[5][0] - 1) < 5e-4 and out[4][6] == 0 and out[5][6] == 0
    assert (scores[0, 2:] == 0).all() and 0 < scores[0, 0] < scores[0, 1]       # z 1: peaks 2, 4 at +1, +2
    assert (out[4] == z).all() and (np.abs(out[5] - best) <= 5e-4).all()


# ---- psm-count-hist ----

@pytest.mark.parametrize("n, policy", [(5000, "lockstep"), (1000, "random")])
def test_psm_histogram(n, policy):
    rng = np.random.default_rng(8)
    h = tp._p176_sc_args(n, rng)
    # scores on bin edges, at the threshold, under the range and over it
    h[0][:6] = np.float32([0.0, 0.01, 2.5, -0.3, 5.12, 40.0])
    h[2][:6] = 0
    out = run("probe/psm-count-hist", h, n, policy=policy)
    hist, spc, k = tp._p176_sc_ref(h[0], h[1], h[2], 2 * tp.P176_SC_PROT)
    assert (out[3] == hist).all() and (out[4] == spc).all() and out[5][0] == k
    assert hist[0] > 0 and hist[511] > 0 and hist[512:].sum() > 0 and spc.max() > 5
    assert list(tp._p176_sc_ref(h[0][:6], h[1][:6], h[2][:6], 2 * tp.P176_SC_PROT)[0].nonzero()[0]) == [0, 1, 250, 511]
