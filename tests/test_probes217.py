"""probe-unseen215's kernels (kernels_cuda/probes217.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import math

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/gwas-bed-qc-const-lut-warp", "probe/gwas-ld-r2-window-popcll-smem",
       "probe/gwas-grm-tile16-std-u8", "probe/gwas-logistic-score-covar-double",
       "probe/gwas-perm-maxt-gather-atomicmax", "probe/gwas-prs-ct-tiers-local-atomic"]

F32 = np.float32


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen215"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes217.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- references ----

def _codes_of(bed_words, nsamp):
    """.bed codes (m, nsamp) of rows of 32-bit words, decoded independently of the
    generator's packer: sample i in bits 2 (i % 16) .. of word i / 16."""
    w = np.asarray(bed_words, np.uint32)
    i = np.arange(nsamp)
    return ((w[:, i // 16] >> (2 * (i % 16)).astype(np.uint32)) & 3).astype(np.uint8)


def _codes_of_bytes(rows, nsamp):
    """.bed codes (m, nsamp) of byte rows: sample i in bits 2 (i % 4) .. of byte i / 4."""
    r = np.asarray(rows, np.uint8)
    i = np.arange(nsamp)
    return ((r[:, i // 4] >> (2 * (i % 4)).astype(np.uint8)) & 3).astype(np.uint8)


def _qc_ref(codes, case, filters=tp.P217_QC_FILTERS):
    """bed_qc's fields from the codes (ints exact, floats in float64)."""
    nsamp = codes.shape[1]
    cnt = {c: (codes == c).sum(axis=1) for c in range(4)}
    ccnt = {c: ((codes == c) & case).sum(axis=1) for c in (0, 2, 3)}
    a, h, b, m = cnt[0], cnt[2], cnt[3], cnt[1]
    n = a + h + b
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, (2 * a + h) / (2.0 * n), 0)
        ua, uh, ub = a - ccnt[0], h - ccnt[2], b - ccnt[3]
        u1, u2 = 2 * ua + uh, 2 * ub + uh
        f = (4.0 * ua * ub - uh.astype(np.float64) * uh) / (u1.astype(np.float64) * u2)
        chi = (ua + uh + ub) * f * f
        hwe = np.where((u1 > 0) & (u2 > 0), [math.erfc(math.sqrt(0.5 * x)) if x == x else 1.0 for x in chi], 1.0)
        c1, c2 = 2.0 * ccnt[0] + ccnt[2], 2.0 * ccnt[3] + ccnt[2]
        den = (c1 + c2) * (u1 + u2) * (c1 + u1) * (c2 + u2)
        chisq = np.where(den > 0, (c1 + c2 + u1 + u2) * (c1 * u2 - c2 * u1) ** 2 / den, 0)
        orr = np.where((c2 > 0) & (u1 > 0), c1 * u2 / (c2 * u1), -1)
    p = p.astype(F32)                                                # a division of exact ints, rounded once
    maf = np.minimum(p, F32(1) - p)                                  # 1 - p in float: as the kernel
    call = n / nsamp
    mm, mc, mh = filters
    ok = (F32(maf) >= F32(mm)) & (F32(call) >= F32(mc)) & (hwe >= F32(mh))
    return dict(n_hom1=a, n_het=h, n_hom2=b, n_miss=m, maf=maf, call_rate=call, hwe_p=hwe, chisq=chisq,
                odds_ratio=orr, pass_=ok)


def _ld_ref(het, hom, pos, nsamp, win=tp.P217_LD_WIN_BP, r2min=tp.P217_LD_R2MIN):
    """r2 (n x 64, float32: the double ratio of exact integers rounded once) and the
    count over r2min, from (n, nsamp) bool planes."""
    x = het.astype(np.int64) + 2 * hom.astype(np.int64)
    n = len(x)
    sx, sxx = x.sum(axis=1), (x * x).sum(axis=1)
    r2 = np.zeros((n, tp.P217_LD_WIN), F32)
    pos = np.asarray(pos, np.int64)
    for d in range(1, tp.P217_LD_WIN + 1):
        i = np.arange(n - d)
        j = i + d
        inwin = pos[j] - pos[i] <= win
        sxy = (x[i] * x[j]).sum(axis=1)
        num = float(nsamp) * sxy - sx[i].astype(np.float64) * sx[j]
        va = float(nsamp) * sxx[i] - sx[i].astype(np.float64) * sx[i]
        vb = float(nsamp) * sxx[j] - sx[j].astype(np.float64) * sx[j]
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where((va > 0) & (vb > 0), num * num / (va * vb), 0).astype(F32)
        # window: every partner up to d within win_bp (positions increase)
        r2[i[inwin], d - 1] = r[inwin]
    valid = np.zeros_like(r2, bool)
    for d in range(1, tp.P217_LD_WIN + 1):
        i = np.arange(n - d)
        valid[i[pos[i + d] - pos[i] <= win], d - 1] = True
    return r2, int(((r2 >= F32(r2min)) & valid).sum()), valid


def _grm_ref(g, freq):
    """GCTA's matrix in float64 from the float32 frequencies."""
    p = np.asarray(freq, np.float64)[:, None]
    z = np.where(g == 3, 0.0, (g - 2 * p) / np.sqrt(2 * p * (1 - p)))
    return z.T @ z / g.shape[0]


def _ls_ref(dose, sub, inv):
    """score, variance, p-value in float64 (and sum |g r| for the tolerance)."""
    g = dose.astype(np.float64) / tp.P217_LS_SCALE
    r, w, X = sub["r"].astype(np.float64), sub["w"].astype(np.float64), sub["x"].astype(np.float64)
    u = g @ r
    wgx = (g * w) @ X
    v = (g * g) @ w - np.einsum("sa,ab,sb->s", wgx, inv, wgx)
    chi2 = np.where(v > 0, u * u / np.where(v > 0, v, 1), 0)
    pv = np.array([math.erfc(math.sqrt(0.5 * c)) for c in chi2])
    return u, v, pv, np.abs(g) @ np.abs(r)


def _pt_ref(g, y, perm, sxx, tobs, syy):
    """perm_maxt in float32, a sample at a time as the kernel adds (g y exact: g is 0, 1, 2):
    exceed counts and max bits."""
    nsamp, nsnp = g.shape
    P = len(perm)
    yp = np.asarray(y, F32)[perm]                                    # (P, nsamp)
    sxy = np.zeros((P, nsnp), F32)
    gf = g.astype(F32)
    for i in range(nsamp):
        sxy = sxy + gf[i][None, :] * yp[:, i:i + 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (F32(nsamp) * sxy) * sxy / (np.asarray(sxx, F32) * F32(syy))
    t = np.where(np.asarray(sxx)[None, :] > 0, t, F32(0)).astype(F32)
    exceed = ((t >= np.asarray(tobs, F32)[None, :]) & (np.asarray(sxx)[None, :] > 0)).sum(axis=0)
    return exceed, t.max(axis=1).view(np.int32), t


def _prs_ref(codes, sc, thresh=tp.P217_PRS_PTHRESH):
    """(prs tiers x nsamp float64, missing calls a sample, sum |terms| a sample)."""
    c = codes[sc["row"]]                                             # (nscore, nsamp)
    g = np.choose(c, [2.0, 0.0, 1.0, 0.0]).astype(np.float64)
    miss = c == 1
    g = np.where(miss, 2 * sc["freq"].astype(F32).astype(np.float64)[:, None], g)
    tier = np.array([min(int(np.sum(np.asarray(p, F32) > thresh[:-1])), len(thresh) - 1) for p in sc["pval"]])
    term = sc["beta"].astype(np.float64)[:, None] * g
    prs = np.stack([term[tier <= t].sum(axis=0) for t in range(len(thresh))])
    return prs, miss.sum(axis=0), np.abs(term).sum(axis=0), tier


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # the byte table: four codes counted into four bytes
    lut = tp._p217_bed_lut()
    assert lut[0x00] == 4 and lut[0xAA] == 4 << 8 and lut[0xFF] == 4 << 16 and lut[0x55] == 4 << 24
    assert lut[0b11100100] == 1 | 1 << 8 | 1 << 16 | 1 << 24 and (lut.view(np.uint8).reshape(-1, 4).sum(1) == 4).all()
    # genotype codes: Hardy-Weinberg proportions, missingness, a het deficit
    c = tp._p217_codes(rng, np.array([0.3, 0.3, 0.001]), 200000, np.array([0.02, 0.0, 0.0]), np.array([0, 0.5, 0]))
    fr = [(c == k).mean(axis=1) for k in (0, 2, 3, 1)]
    assert fr[3][0] == pytest.approx(0.02, abs=0.002) and fr[0][0] == pytest.approx(0.98 * 0.09, abs=0.003)
    assert fr[1][0] == pytest.approx(0.98 * 0.42, abs=0.004) and fr[1][1] == pytest.approx(0.21, abs=0.004)
    assert fr[1][2] == pytest.approx(0.002, abs=5e-4) and fr[3][1] == 0
    # bed rows and case mask: 16 samples a word, low bits first, zero padding
    bed, mask, case, p, miss, F, orr = tp._p217_qc_data(4096, rng, nsamp=1000)
    assert bed.shape == (4096, 63) and mask.shape == (63,)
    codes = _codes_of(bed, 1000)
    assert (tp._p217_unpack(bed.view(np.uint8), 1000) == codes).all() and (bed[:, -1] >> 16 == 0).all()
    assert (_codes_of(mask[None, :], 1000)[0] == np.where(case, 3, 0)).all() and case.mean() == pytest.approx(0.4)
    maf = np.minimum(p, 1 - p)
    assert (maf < 0.01).mean() == pytest.approx(0.3, abs=0.03) and maf.max() <= 0.5 and maf.min() >= 5e-4
    assert (p < 0.5).mean() == pytest.approx(0.8, abs=0.03)
    callr = (codes != 1).mean(axis=1)
    assert np.median(callr) > 0.995 and (callr < 0.97).mean() == pytest.approx(0.02, abs=0.01)
    assert (F > 0).mean() == pytest.approx(0.01, abs=0.005) and (orr > 1).mean() == pytest.approx(0.005, abs=0.003)
    q = _qc_ref(codes, case)
    assert (q["hwe_p"][F > 0.4] < 1e-6).mean() > 0.3 and (q["hwe_p"][F == 0] < 1e-6).mean() < 0.02
    # LD: positions clustered, windows of varied size, high r^2 within blocks, none across
    pos = tp._p217_ld_positions(20000, rng)
    gap = np.diff(pos)
    assert (gap >= 1).all() and np.mean(gap) == pytest.approx(tp.P217_LD_GAP * 1.38, rel=0.25)
    nw = np.searchsorted(pos, pos + tp.P217_LD_WIN_BP, side="right") - np.arange(len(pos)) - 1
    nw = np.minimum(nw, 64)[:-100]
    assert (nw == 64).mean() > 0.2 and (nw < 20).mean() > 0.05 and 30 < nw.mean() < 60
    het, hom = tp._p217_ld_haps(2000, rng, nsamp=1024)
    assert not (het & hom).any()
    r2, _, valid = _ld_ref(het, hom, np.arange(2000) * 1000, 1024)
    assert np.median(r2[:, 0]) > 0.03 and (r2[:, 0] > 0.8).mean() > 0.05 and r2[:, 63].mean() < 0.02
    # GRM data: 3 populations, trios share an allele at every called SNP, ~1% missing
    g, freq, pop, trios = tp._p217_grm_data(600, rng, nsnp=400)
    assert set(np.unique(g)) == {0, 1, 2, 3} and (g == 3).mean() == pytest.approx(0.01, abs=0.004)
    assert np.bincount(pop) / 600 == pytest.approx(tp.P217_GRM_POP_P, abs=0.05) and len(trios) > 50
    for c, m, f in trios[:10]:
        ok = (g[:, [c, m, f]] != 3).all(axis=1)
        gc = g[ok, c].astype(int)
        assert (np.abs(gc - g[ok, m]) <= 1).all() and (np.abs(gc - g[ok, f]) <= 1).all()
    G = _grm_ref(g, freq)
    assert np.mean(np.diag(G)) == pytest.approx(1, abs=0.1)
    kin = np.array([G[c, m] for c, m, _ in trios])
    assert 0.35 < kin.mean() < 0.65
    same = pop[:, None] == pop[None, :]
    off = ~np.eye(600, dtype=bool)
    assert G[same & off].mean() > G[~same].mean() + 0.02
    # logistic null model: ~30% cases, the score equations hold, X'WX inverse symmetric
    sub, inv, y, pop = tp._p217_ls_subjects(rng, 2048)
    assert 0.2 < y.mean() < 0.4 and (sub["w"] > 0).all() and (sub["w"] <= 0.25).all()
    assert np.abs(sub["x"].astype(np.float64).T @ sub["r"]).max() < 1e-3
    assert np.allclose(inv, inv.T) and (np.linalg.eigvalsh(inv) > 0).all() and (sub["x"][:, 0] == 1).all()
    dose, maf, info = tp._p217_ls_dose(2000, rng, pop, 2048)
    assert dose.shape == (2000, 2048) and dose.max() <= 60000
    d = dose.astype(np.float64) / tp.P217_LS_SCALE
    assert np.corrcoef(d.mean(axis=1) / 2, maf)[0, 1] > 0.95 and 0.8 < info.mean() < 0.92
    frac = np.abs(d - np.rint(d))
    assert (frac < 0.02).mean() > 0.5 and (frac > 0.1).mean() > 0.05         # mostly near calls
    # permutations: centred trait, a right skew, permutations
    g, y, sxx, tobs, syy = tp._p217_pt_data(rng, 400, 300)
    assert abs(float(y.sum())) < 1e-2 and (sxx > 0).all() and ((y - y.mean()) ** 3).mean() > 0
    h = tp._p217_pt_args(5, rng, 400, 300)
    assert (np.sort(h[2].reshape(5, 400), axis=1) == np.arange(400)).all()
    assert (tobs > 15).sum() >= 3                                    # the causal SNPs stand out
    # the score file: clumped rows, p-value tiers, effect sizes
    bed, sc, p = tp._p217_prs_data(256, rng, nrow=4096, nscore=1024)
    assert (np.diff(sc["row"]) > 0).all() and bed.shape == (4096, 64)
    tiers = np.searchsorted(tp.P217_PRS_PTHRESH, sc["pval"], side="left")
    cnt = np.bincount(tiers, minlength=8)
    assert cnt[0] > 5 and cnt[7] > 400 and (sc["pval"] > 0).all() and (sc["pval"] <= 1).all()
    assert np.abs(sc["freq"] - p[sc["row"]]).max() < 0.06
    assert np.abs(sc["beta"][sc["pval"] < 1e-8]).min() > 0.03


# ---- bed-qc ----

def _check_qc(bed, mask, case, nsamp, grid=None):
    n = len(bed)
    mm, mc, mh = tp.P217_QC_FILTERS
    h = [bed.ravel().copy(), mask, np.int32(n), np.int32(bed.shape[1]), np.int32(nsamp), F32(mm), F32(mc), F32(mh),
         np.zeros(n, tp.P217_QC_DTYPE)]
    out = run("probe/gwas-bed-qc-const-lut-warp", h, n, symbols={"c_bed_lut": tp._p217_bed_lut()}, grid=grid)[8]
    q = _qc_ref(_codes_of(bed, nsamp), case)
    for k in ("n_hom1", "n_het", "n_hom2", "n_miss"):
        assert (out[k] == q[k]).all(), k
    for k in ("maf", "call_rate", "chisq", "odds_ratio"):
        assert np.allclose(out[k], q[k], rtol=2e-6, atol=0), k
    assert np.allclose(out["hwe_p"], q["hwe_p"], rtol=1e-4, atol=1e-37)
    assert (out["pass"] == q["pass_"]).all()
    return out, q


def test_bed_qc():
    rng = np.random.default_rng(1)
    bed, mask, case, *_ = tp._p217_qc_data(100, rng, nsamp=1000)     # padding in the last word
    out, q = _check_qc(bed, mask, case, 1000)
    assert out["pass"].sum() > 50 and (out["pass"] == 0).any() and (out["odds_ratio"] > 0).mean() > 0.8


def test_bed_qc_edges():
    rng = np.random.default_rng(2)
    nsamp = 500
    bed, mask, case, *_ = tp._p217_qc_data(40, rng, nsamp=nsamp)
    codes = _codes_of(bed, nsamp)
    codes[0] = 1                                     # all missing
    codes[1] = 3                                     # monomorphic A2
    codes[2] = 0                                     # monomorphic A1
    codes[3] = np.where(case, 1, 2)                  # no case called; every control het
    codes[4, :] = 0
    codes[4, ~case] = 3                              # cases all A1/A1, controls all A2/A2
    bed = tp._p217_pack(codes, bed.shape[1] * 4).view("<u4")
    out, q = _check_qc(bed, mask, case, nsamp, grid=(1,))            # one block: 5 turns of the loop
    assert out["n_miss"][0] == nsamp and out["maf"][0] == 0 and out["hwe_p"][0] == 1 and out["odds_ratio"][0] == -1
    assert out["n_hom2"][1] == nsamp and out["maf"][1] == 0 and out["n_hom1"][2] == nsamp and not out["pass"][2]
    assert out["hwe_p"][3] < 1e-30 and out["chisq"][3] == 0
    assert out["chisq"][4] == pytest.approx(2 * nsamp) and out["odds_ratio"][4] == -1
    # no case at all: the controls are everyone
    none = np.zeros(nsamp, bool)
    _check_qc(bed, np.zeros_like(mask), none, nsamp, grid=(2,))


# ---- ld-r2 ----

def _check_ld(het, hom, pos, nsamp, grid=None):
    n = len(het)
    H, D = tp._p217_planes(het), tp._p217_planes(hom)
    h = [H.ravel(), D.ravel(), np.asarray(pos, np.int32), np.int32(n), np.int32(H.shape[1]), np.int32(nsamp),
         np.int32(tp.P217_LD_WIN_BP), F32(tp.P217_LD_R2MIN), np.full(n * 64, -7, F32), np.zeros(1, np.int32)]
    out = run("probe/gwas-ld-r2-window-popcll-smem", h, n, grid=grid)
    r2, high, valid = _ld_ref(het, hom, pos, nsamp)
    got = out[8].reshape(n, 64)
    assert (got[valid] == r2[valid]).all() and (got[~valid] == -7).all()
    assert out[9][0] == high
    return got, valid


def test_ld_r2():
    rng = np.random.default_rng(3)
    n = 100                                                          # 2 blocks, the second short
    het, hom = tp._p217_ld_haps(n, rng, nsamp=300)
    pos = tp._p217_ld_positions(n, rng, gap=4000)
    got, valid = _check_ld(het, hom, pos, 300)
    nw = valid.sum(axis=1)
    assert nw.max() == 64 and nw.min() < 30 and (got[valid] > 0.5).any()


def test_ld_r2_edges():
    rng = np.random.default_rng(4)
    n, nsamp = 70, 1100                                              # 18 words: two chunks, the last short
    het, hom = tp._p217_ld_haps(n, rng, nsamp=nsamp)
    het[5], hom[5] = False, False                                    # monomorphic: r^2 0
    het[6], hom[6] = het[7], hom[7]                                  # identical SNPs: r^2 1
    pos = np.arange(n) * 1000 + 5000
    pos[10:30] = pos[9] + tp.P217_LD_WIN_BP + np.arange(20)          # 10 exactly at 9's window's edge
    pos[30:] = pos[29] + tp.P217_LD_WIN_BP + 1 + np.arange(40) * 1000    # just past 29's
    got, valid = _check_ld(het, hom, pos, nsamp)
    assert got[6, 0] == 1 and (got[5][valid[5]] == 0).all() and got[4, 0] == 0
    assert valid[9, 0] and valid[9].sum() == 1 and valid[29].sum() == 0 and valid[10].sum() == 19
    _check_ld(het[:1], hom[:1], pos[:1], nsamp, grid=(1,))            # one SNP: no pair


# ---- grm-tile ----

def _poly(g, freq):
    """The SNPs polymorphic in the sample (a MAF filter runs before a GRM)."""
    ok = (freq > 0) & (freq < 1)
    return g[ok].copy(), freq[ok].copy()


def _check_grm(g, freq, grid=None):
    nsnp, n = g.shape
    h = [g.ravel(), freq, np.full(n * n, -7, F32), np.int32(nsnp), np.int32(n)]
    out = run("probe/gwas-grm-tile16-std-u8", h, n, grid=grid)[2].reshape(n, n)
    G = _grm_ref(g, freq)
    assert (out == out.T).all()
    assert np.allclose(out, G, rtol=2e-5, atol=2e-6)
    return out, G


def test_grm():
    rng = np.random.default_rng(5)
    g, freq = _poly(*tp._p217_grm_data(40, rng, nsnp=60)[:2])        # 3 x 3 blocks, the last short
    assert 48 < len(g) < 64 and len(g) % 16                          # 4 tiles, the last short
    out, G = _check_grm(g, freq)
    assert np.diag(out).mean() == pytest.approx(1, abs=0.3)


def test_grm_edges():
    rng = np.random.default_rng(6)
    g, freq = _poly(*tp._p217_grm_data(16, rng, nsnp=20)[:2])
    g, freq = g[:16], freq[:16]                                      # one tile, one block
    g[3, :] = 3                                                      # a SNP missing everywhere: adds 0
    g[:, 5] = 3                                                      # a sample missing everywhere: row 0
    out, _ = _check_grm(g, freq)
    assert (out[5] == 0).all()
    g1 = np.array([[0, 1, 2]], np.uint8)                             # one SNP, p = 1/2: z = -sqrt2, 0, sqrt2
    out, _ = _check_grm(g1, np.array([0.5], F32))
    assert np.allclose(out, [[2, 0, -2], [0, 0, 0], [-2, 0, 2]], rtol=1e-6)


# ---- logistic-score ----

def _check_ls(dose, sub, inv, grid=None):
    n, nsamp = dose.shape
    h = [dose.ravel(), sub, inv.ravel(), np.int32(nsamp), np.zeros(n, F32), np.zeros(n, F32), np.zeros(n)]
    out = run("probe/gwas-logistic-score-covar-double", h, n, grid=grid)
    u, v, pv, scale = _ls_ref(dose, sub, inv)
    tol = 2e-6 * scale + 1e-7
    assert (np.abs(out[4] - u) <= tol).all()
    assert np.allclose(out[5], v, rtol=1e-4, atol=1e-4)
    ok = v > 1e-2
    chi_k = -2 * np.log(np.maximum(out[6], 1e-300))                  # compare on a log scale
    chi_r = -2 * np.log(np.maximum(pv, 1e-300))
    assert np.allclose(chi_k[ok], chi_r[ok], rtol=1e-3, atol=1e-3)
    return out, u, v, pv


def test_logistic_score():
    rng = np.random.default_rng(7)
    sub, inv, y, pop = tp._p217_ls_subjects(rng, 700)                # 3 subjects for some threads, 2 for others
    dose, *_ = tp._p217_ls_dose(40, rng, pop, 700)
    out, u, v, pv = _check_ls(dose, sub, inv)
    assert (out[6] < 1).all() and (out[6] > 0).all() and (out[5] > 0).all()


def test_logistic_score_edges():
    rng = np.random.default_rng(8)
    sub, inv, y, pop = tp._p217_ls_subjects(rng, 100)                # fewer subjects than threads
    dose, *_ = tp._p217_ls_dose(4, rng, pop, 100)
    dose[0] = 0                                                      # monomorphic: score 0, p 1
    dose[1] = np.where(y > 0, 60000, 0)                              # the trait itself: a huge chi-square
    out, u, v, pv = _check_ls(dose, sub, inv)
    assert out[4][0] == 0 and out[6][0] == 1 and out[5][0] == 0
    assert out[6][1] < 1e-10


# ---- perm-maxt ----

def _check_pt(g, y, perm, sxx, tobs, syy, grid=None, exact=True):
    nsamp, nsnp = g.shape
    P = len(perm)
    h = [g.ravel(), y, perm.ravel().astype(np.int32), sxx, tobs, F32(syy), np.int32(nsamp), np.int32(nsnp),
         np.zeros(nsnp, np.int32), np.zeros(P, np.int32)]
    out = run("probe/gwas-perm-maxt-gather-atomicmax", h, P, grid=grid or (-(-nsnp // 256), P))
    exc, mx, t = _pt_ref(g, y, perm, sxx, tobs, syy)
    assert (out[8] == exc).all() and (out[9] == mx).all()
    return out, t


def test_perm_maxt():
    rng = np.random.default_rng(9)
    g, y, sxx, tobs, syy = tp._p217_pt_data(rng, 300, 300)          # 2 blocks a permutation, the second short
    g[:, 7] = 1                                                      # monomorphic
    sxx[7] = 0
    perm = rng.permuted(np.tile(np.arange(300), (4, 1)), axis=1)
    perm[0] = np.arange(300)                                         # the identity
    out, t = _check_pt(g, y, perm, sxx, tobs, syy)
    assert out[8][7] == 0 and (out[8] <= 4).all() and (out[8] >= 1).any()
    keep = np.arange(300) != 7
    assert np.allclose(t[0][keep], tobs[keep], rtol=1e-3, atol=1e-4)    # the identity: the observed statistics
    assert out[9][0].view(F32) == t[0].max() and t[0].max() > 15


def test_perm_maxt_ties():
    # dyadic trait: every sum exact; tobs set to permutation 0's statistics: ties count
    rng = np.random.default_rng(10)
    nsamp, nsnp = 270, 40                                            # the gather loops twice
    g = rng.integers(0, 3, (nsamp, nsnp)).astype(np.uint8)
    y = (rng.integers(-16, 17, nsamp) / 4).astype(F32)
    gd = g.astype(np.float64)
    sxx = ((gd - gd.mean(axis=0)) ** 2).sum(axis=0).astype(F32)
    syy = F32((y.astype(np.float64) ** 2).sum())
    perm = np.stack([rng.permutation(nsamp) for _ in range(3)])
    _, _, t = _pt_ref(g, y, perm, sxx, np.zeros(nsnp, F32), syy)
    tobs = t[0].copy()
    out, _ = _check_pt(g, y, perm, sxx, tobs, syy)
    assert (out[8] >= 1).all()                                       # permutation 0 ties every SNP
    out, _ = _check_pt(g, y, perm[:1], sxx, tobs + np.float32(1e-3), syy, grid=(1, 1))
    assert (out[8] == 0).all()


# ---- prs-score ----

def _check_prs(bed, nsamp, sc, chunk, grid=None):
    nscore = len(sc)
    h = [bed.ravel(), np.int32(bed.shape[1]), sc, np.int32(nscore), np.int32(chunk), np.int32(nsamp),
         np.zeros(8 * nsamp, F32), np.zeros(nsamp, np.int32)]
    g = grid or (-(-nsamp // 256), -(-nscore // chunk))
    out = run("probe/gwas-prs-ct-tiers-local-atomic", h, nsamp, symbols={"c_pthresh": tp.P217_PRS_PTHRESH}, grid=g)
    prs, miss, scale, tier = _prs_ref(_codes_of_bytes(bed, nsamp), sc)
    got = out[6].reshape(8, nsamp)
    assert (np.abs(got - prs) <= 2e-6 * scale + 1e-7).all()
    assert (out[7] == miss).all()
    return got, prs, tier


def test_prs():
    rng = np.random.default_rng(11)
    nsamp = 300                                                      # 2 x-blocks, the second short; 75 bytes a row
    bed, sc, p = tp._p217_prs_data(nsamp, rng, nrow=300, nscore=150)
    got, prs, tier = _check_prs(bed, nsamp, sc, 64)                  # 3 y-blocks, the last short
    assert len(np.unique(tier)) >= 5 and (np.diff(got, axis=0) != 0).any()


def test_prs_edges():
    rng = np.random.default_rng(12)
    nsamp = 37                                                       # a partial byte at the row's end
    bed, sc, p = tp._p217_prs_data(nsamp, rng, nrow=20, nscore=12)
    codes = _codes_of_bytes(bed, nsamp)
    codes[sc["row"][0]] = 1                                          # a score SNP missing everywhere
    bed = tp._p217_pack(codes, bed.shape[1])
    sc["pval"][:8] = tp.P217_PRS_PTHRESH                             # exactly at each threshold: that tier
    sc["pval"][8] = 0.0
    sc["pval"][9] = np.nextafter(F32(5e-8), F32(1))                  # just past the first
    got, prs, tier = _check_prs(bed, nsamp, sc, 5)
    assert list(tier[:10]) == [0, 1, 2, 3, 4, 5, 6, 7, 0, 1]
    _check_prs(bed, nsamp, sc, 12, grid=(1, 1))                      # one block, all in one chunk
    _check_prs(bed, nsamp, sc[:0], 5, grid=(1, 1))                   # an empty score file: zeros
