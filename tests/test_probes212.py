"""probe-unseen210's kernels (kernels_cuda/probes212.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/asm-kmer31-canonical-cas-count", "probe/asm-minimizer-sketch-smem-append",
       "probe/asm-banded-sw-local-const", "probe/asm-fastq-qual-filter-warp",
       "probe/asm-kspectrum-correct-u8-table", "probe/asm-dbg-edges-hash-probe"]

ASCII = tp.P212_ACGTN


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen210"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes212.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _seg_gc(g, seg=20000):
    m = len(g) // seg * seg
    return np.isin(g[:m], [1, 2]).reshape(-1, seg).mean(axis=1)


def test_data():
    rng = np.random.default_rng(0)
    # the genome: GC by segments, repeats, tandem repeats, gaps
    g = tp._p212_genome(1 << 21, rng, gaps=True)
    gc = _seg_gc(g[g < 4])
    assert 0.47 < gc.mean() < 0.53 and 0.04 < gc.std() < 0.08 and gc.min() >= 0.27 and gc.max() <= 0.73
    gaps = g == 4
    assert 0 < gaps.mean() < 0.02 and (np.diff(gaps.astype(np.int8)) == 1).sum() >= 5
    f, r, ok = tp._p212_kmers(g[None, :], 31)
    _, c = tp._p212_unique(np.minimum(f, r)[ok])
    assert 0.001 < (c > 1).mean() < 0.02                                     # repeated 31-mers: the families
    run12 = np.lib.stride_tricks.sliding_window_view(g, 12)
    assert ((run12 == run12[:, :1]).all(axis=1) & (run12[:, 0] < 4)).sum() > 20       # homopolymers >= 12
    # qualities: Illumina-like
    q = tp._p212_quals(20000, rng).astype(np.int64)
    assert q.min() == 2 and q.max() == 41
    good = q.mean(axis=1) > 30
    assert 0.85 < good.mean() < 0.93
    assert 36 < q[good, :10].mean() < 39 and 27 < q[good, -5:].mean() < 31
    low_tail = (q[:, -20:] < 17).mean(axis=1) > 0.9
    assert 0.08 < low_tail.mean() < 0.13                                     # the collapsed tails
    assert 0.03 < (q.mean(axis=1) < 22).mean() < 0.08                         # the poor reads, early tails
    # the calls: substitutions at the qualities' rates, N only at Q2
    true = rng.integers(0, 4, q.shape).astype(np.uint8)
    called = tp._p212_call(true, q.astype(np.uint8), rng)
    err = (called != true) & (called < 4)
    want = (10.0 ** (-q / 10) * (called < 4)).sum()                          # an N call hides the error
    assert abs(err.sum() - want) < 4 * np.sqrt(want) and (called[q > 2] < 4).all()
    assert 0.45 < (called[q == 2] == 4).mean() < 0.55
    # k-mer counting: 20x reads, most distinct k-mers from the genome, the rest errors' singletons
    h = tp._p212_kc_args(8192, rng)
    keys, cnt = tp._p212_kc_ref(h[0])
    G = 8192 * 150 // 20
    assert G < len(keys) < 3 * G and 0.3 < (cnt == 1).mean() < 0.7 and len(keys) < 0.4 * len(h[2])
    assert 12 < np.median(cnt[cnt > 3]) < 20
    # minimizers: density ~2 / (w + 1)
    h = tp._p212_mz_args(200000, rng)
    ref = tp._p212_mz_ref(h[0])
    assert 0.16 < len(ref) / 200000 < 0.2 and len(ref) < len(h[2])
    # banded SW: most reads align end to end, the junk ones do not, indels cost a gap
    h = tp._p212_sw_args(256, rng)
    score, qe, te = tp._p212_sw_ref(h[0], h[1], h[2], h[3])
    assert 0.7 < (score >= 140).mean() < 0.9 and 0.02 < (score < 30).mean() < 0.1
    assert ((score >= 100) & (score < 140)).mean() > 0.03
    # quality filter: most reads kept whole, the collapsed tails cut, the poor reads dropped
    h = tp._p212_qf_args(4096, rng)
    cut, ok, ee, effq, stats, qh, cyc = tp._p212_qf_ref(h[0], h[1])
    assert 0.75 < (cut == 150).mean() < 0.9 and 0.93 < ok.mean() < 0.99 and 0.02 < (cut < 50).mean() < 0.06
    assert np.median(ee[ok]) < 0.3 and 30 < np.median(effq) < 40
    # k-spectrum: the genome's 13-mers solid, errors' not; correction removes most errors
    reads, truth, counts = tp._p212_ec_data(4000, rng)
    G = int(tp.P212_EC_RUN * 4000) * 150 // tp.P212_EC_COV
    assert 0.9 < (counts >= tp.P212_EC_SOLID).sum() / G < 1.2 and (counts >= 255).sum() < G / 100
    fixed, nfix = tp._p212_ec_ref(reads, 150, counts)
    before = ((reads != truth) & (reads != ord("N"))).sum()
    after = ((fixed != truth) & (fixed != ord("N"))).sum()
    assert after < 0.7 * before and 0.1 < (nfix > 0).mean() < 0.4 and nfix.max() == tp.P212_EC_MAXFIX
    # de Bruijn graph: load ~0.5, mostly simple nodes, bubbles / tips / repeats branch
    h = tp._p212_dbg_args(1 << 16, rng)
    t = h[0]
    occ = t["kmer"] != tp.P212_EMPTY
    assert 0.35 < occ.mean() < 0.7 and len(t) == tp._p212_dbg_cap(1 << 16)
    assert 0.004 < (occ & (t["count"] < tp.P212_DBG_MINC)).sum() / occ.sum() < 0.02
    c = t["count"][occ]
    assert 20 < np.median(c) < 30
    e, st = tp._p212_dbg_ref(t)
    assert st[1] / st[0] > 0.95 and 0.001 < st[2] / st[0] < 0.02 and st[3] >= 6


# ---- kmer31-canonical-cas-count ----

def _check_kc(h, L, policy="lockstep"):
    n = int(h[-1])
    out = run("probe/asm-kmer31-canonical-cas-count", h, n, policy=policy)
    keys, cnt = tp._p212_kc_ref(h[0], L)
    tab, tc = out[2], out[3]
    occ = np.flatnonzero(tab != tp.P212_EMPTY)
    o = np.argsort(tab[occ])
    assert (tab[occ][o] == keys).all() and (tc[occ][o] == cnt).all() and (tc[tab == tp.P212_EMPTY] == 0).all()
    assert out[5][0] == len(keys)
    # linear probing: every key sits past a run of full slots from its home
    mask = len(tab) - 1
    home = (tp._p212_mix64(tab[occ]) & np.uint64(mask)).astype(np.int64)
    full = tab != tp.P212_EMPTY
    for s, hm in zip(occ, home):
        run_ = (np.arange(hm, hm + ((s - hm) & mask) + 1)) & mask
        assert full[run_].all()
    return keys, cnt, (occ < home).any()


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_kmer_count(policy):
    rng = np.random.default_rng(1)
    L, n = 48, 80
    h = tp._p212_kc_args(n, rng, L=L)
    r = h[0].reshape(n, L)
    r[0] = ord("N")                                          # no k-mer at all
    r[1, 17] = ord("N")                                      # 17 bases before it, 30 after: no k-mer
    r[2, 31] = ord("N")                                      # one k-mer before it
    r[3] = np.frombuffer(b"A" * L, np.uint8)                 # a homopolymer: one k-mer 18 times
    r[4] = np.frombuffer(b"T" * L, np.uint8)                 # its reverse complement: the same canonical k-mer
    r[40:72] = r[8]                                          # a warp's 32 threads insert the same k-mers at once
    keys, cnt, _ = _check_kc(h, L, policy)
    assert cnt[np.searchsorted(keys, np.uint64(0))] == 2 * (L - 30)       # poly-A, 0 as a k-mer
    k8, _ = tp._p212_kc_ref(r[8], L)
    assert len(k8) and (cnt[np.searchsorted(keys, k8)] >= 33).all()
    k1, _ = tp._p212_kc_ref(r[:3], L)
    assert len(k1) == 1


def test_kmer_count_full_table_wraps():
    rng = np.random.default_rng(6)                          # a seed whose table wraps
    L, n = 40, 92
    h = tp._p212_kc_args(n, rng, L=L)
    keys, _ = tp._p212_kc_ref(h[0], L)
    cap = 1 << int(np.ceil(np.log2(len(keys) * 1.05)))      # loaded 0.84: long runs, wrapping at the end
    h[2] = np.full(cap, tp.P212_EMPTY, np.uint64)
    h[3] = np.zeros(cap, np.uint32)
    h[4] = np.uint32(cap - 1)
    _, _, wrapped = _check_kc(h, L)
    assert len(keys) > 0.75 * cap and wrapped


# ---- minimizer-sketch-smem-append ----

def _check_mz(seq, cap=None, grid=None):
    n = len(seq)
    cap = cap or n // 4 + 64
    h = [seq, np.int32(n), np.zeros(cap, np.uint64), np.int32(cap), np.zeros(1, np.int32)]
    out = run("probe/asm-minimizer-sketch-smem-append", h, n, grid=grid)
    ref = tp._p212_mz_ref(seq)
    c = int(out[4][0])
    assert c == len(ref)
    got = np.sort(out[2][:min(c, cap)])
    if c <= cap:
        assert (got == ref).all()
    else:                                                    # only cap of them kept, but all counted
        assert np.isin(got, ref).all() and len(np.unique(out[2])) == cap
    return ref


def test_minimizer_sketch():
    rng = np.random.default_rng(3)
    n = 256 * 9 + tp.P212_MZ_K + tp.P212_MZ_W - 2 + 1        # windows: 9 blocks and one over
    seq = tp._p212_mz_args(n, rng)[0]
    seq[500:620] = ord("N")                                  # a gap
    seq[1000:1100] = ord("A")                                # a homopolymer: equal hashes, leftmost wins
    seq[1300:1400] = np.tile(np.frombuffer(b"CA", np.uint8), 50)
    seq[250:260] = ord("N")                                  # across the first block's edge
    ref = _check_mz(seq)
    pos = (ref & np.uint64(0xFFFFFFFF)).astype(np.int64)
    assert not ((pos > 500 - 15) & (pos < 620)).any() and len(ref) > 0.12 * n


def test_minimizer_edges():
    rng = np.random.default_rng(4)
    short = tp.P212_ACGTN[rng.integers(0, 4, tp.P212_MZ_K + tp.P212_MZ_W - 2)]   # no window
    assert len(_check_mz(short)) == 0
    one = tp.P212_ACGTN[rng.integers(0, 4, tp.P212_MZ_K + tp.P212_MZ_W - 1)]     # exactly one
    assert len(_check_mz(one)) == 1
    seq = tp.P212_ACGTN[rng.integers(0, 4, 700)]
    _check_mz(seq, cap=20)                                   # the sketch overflows its buffer


# ---- banded-sw-local-const ----

def test_banded_sw():
    rng = np.random.default_rng(5)
    L, n = 20, 40
    HB = tp.P212_SW_HB
    h = tp._p212_sw_args(n, rng, L=L)
    reads = h[0].reshape(n, L)
    ref, ws = h[2], h[3]
    reads[0] = ref[ws[0] + HB:ws[0] + HB + L]                # exact, on the middle diagonal
    reads[1] = 4                                             # all N: nothing
    reads[2] = ref[ws[2]:ws[2] + L]                          # exact, on the band's first diagonal
    reads[3] = ref[ws[3] + 2 * HB:ws[3] + 2 * HB + L]        # and its last
    w4 = ref[ws[4] + HB:ws[4] + HB + 22]
    reads[4] = np.concatenate([w4[:10], w4[12:]])            # a 2-base deletion
    reads[5, :] = ref[ws[5] + HB:ws[5] + HB + L]
    reads[5, 10] = (reads[5, 10] + 1) % 4                    # a mismatch mid-read
    w6 = ref[ws[6] + HB:ws[6] + HB + 18]
    ins = (w6[9] + np.array([1, 2])) % 4                     # 2 inserted bases unlike the next one
    ins[1] = ins[1] if ins[1] != w6[8] else (ins[1] + 1) % 4
    reads[6] = np.concatenate([w6[:9], ins, w6[9:]])         # a 2-base insertion: 18 matches - 8
    out = run("probe/asm-banded-sw-local-const", h, n, symbols={"c_sub": tp._p212_sub()})
    score, qe, te = tp._p212_sw_ref(h[0], L, ref, ws)
    got = out[4]
    assert (got["score"] == score).all() and (got["qend"] == qe).all() and (got["tend"] == te).all()
    assert tuple(got[0]) == (L, L - 1, L - 1 + HB) and tuple(got[1]) == (0, -1, -1)
    assert tuple(got[2]) == (L, L - 1, L - 1) and tuple(got[3]) == (L, L - 1, L - 1 + 2 * HB)
    assert got[4]["score"] == L - 6 - 2 and got[4]["tend"] == L - 1 + HB + 2   # open 6 + 2 x 1, gap shifts the end
    assert got[5]["score"] == max(10, 9, L - 1 - 4)
    assert got[6]["score"] == 18 - 6 - 2 and got[6]["tend"] == L - 1 + HB - 2


# ---- fastq-qual-filter-warp ----

def _check_qf(h, n, grid=None):
    out = run("probe/asm-fastq-qual-filter-warp", h, n, symbols=tp._p212_qf_syms(n, None), grid=grid)
    cut, ok, ee, effq, stats, qh, cyc = tp._p212_qf_ref(h[0], h[1])
    assert (out[2] == cut).all() and (out[3] == ok).all()
    assert np.allclose(out[4], effq, rtol=2e-6, atol=2e-6)
    assert (out[5] == stats).all() and (out[6] == qh).all() and (out[7] == cyc).all()
    return out, cut, ok


def test_qual_filter():
    rng = np.random.default_rng(6)
    n = 100
    h = tp._p212_qf_args(n, rng)
    s, q = h[0].reshape(n, 150), h[1].reshape(n, 150)
    q[0] = 41 + 33                                           # perfect: all kept, EE 150 x 7.9e-5
    q[1] = 33 + 30
    q[1, :4] = 33 + 5                                        # the first window bad: nothing kept
    q[2] = 33 + 30
    q[2, 146:] = 33 + 19                                     # the last window just under Q20: cut at 146
    q[3] = 33 + 30
    q[3, 146:] = 33 + 20                                     # exactly Q20: kept
    q[4] = 33 + 30
    s[4, [3, 50, 90, 120]] = ord("N")                        # 4 Ns: dropped
    s[5] = ord("G")
    q[5] = 33 + 30                                           # EE 150 x 1e-3 = 0.15
    q[6] = 33 + 13                                           # 150 x 0.05 = 7.5 > 2: window mean 13 < 20 -> cut at 0
    q[7] = 33 + 21
    q[7, 60:] = 33 + 41                                      # EE 60 x 7.9e-3 = 0.48: passes
    q[8, :] = 33 + 20
    q[8, 60] = 33 + 2                                        # one Q2 base drags windows 57 .. 60 under: cut at 57
    out, cut, ok = _check_qf(h, n)
    assert list(cut[:4]) == [150, 0, 146, 150] and list(ok[:8]) == [1, 0, 1, 1, 0, 1, 0, 1] and cut[8] == 57
    assert out[4][0] == pytest.approx(41, abs=1e-4) and out[4][1] == 0
    # a grid smaller than the reads: every warp strides over several
    for a in h[2:8]:
        a[...] = 0
    _check_qf(h, n, grid=(2, 1))


# ---- kspectrum-correct-u8-table ----

def test_kspec_correct():
    rng = np.random.default_rng(7)
    L, n = 40, 64
    h = tp._p212_ec_args(n, rng, L=L)
    out = run("probe/asm-kspectrum-correct-u8-table", h, n)
    fixed, nfix = tp._p212_ec_ref(h[0], L, h[2])
    assert (out[3].reshape(n, L) == fixed).all() and (out[4] == nfix).all() and out[5][0] == nfix.sum()


def test_kspec_correct_cases():
    rng = np.random.default_rng(8)
    L, K = 60, tp.P212_EC_K
    g = tp._p212_genome(20000, rng)
    truth = np.stack([g[p:p + L] for p in rng.integers(0, 20000 - L, 32)])
    counts = tp._p212_ec_counts(np.repeat(truth, 5, axis=0))             # each true k-mer seen 5 times
    reads = truth.copy()
    reads[1, 30] = (reads[1, 30] + 1) % 4                    # one error: fixed
    reads[2, 20] = 4                                         # an N: called
    reads[3, [20, 30, 40]] = (reads[3, [20, 30, 40]] + 2) % 4          # three, far apart: all fixed
    reads[4, 5] = (reads[4, 5] + 1) % 4                      # in the first k-mer: nothing to anchor on
    reads[5, [16, 26, 36, 46, 56]] = (reads[5, [16, 26, 36, 46, 56]] + 1) % 4   # five: only four fixed
    reads[6, 59] = (reads[6, 59] + 3) % 4                    # the last base
    reads[7, K - 1] = (reads[7, K - 1] + 1) % 4              # the first k-mer's last base: no solid one before
    asc = ASCII[reads]
    h = [asc.ravel(), np.int32(L), counts, np.zeros(32 * L, np.uint8), np.zeros(32, np.uint8), np.zeros(1, np.int32),
         np.int32(32)]
    out = run("probe/asm-kspectrum-correct-u8-table", h, 32, grid=(1, 1))
    got = out[3].reshape(32, L)
    fixed, nfix = tp._p212_ec_ref(asc, L, counts)
    assert (got == fixed).all() and (out[4] == nfix).all() and out[5][0] == nfix.sum()
    want = ASCII[truth]
    assert all((got[i] == want[i]).all() for i in (0, 1, 2, 3, 6)) and list(nfix[:8]) == [0, 1, 1, 3, 0, 4, 1, 0]
    assert (got[4] == asc[4]).all() and (got[7] == asc[7]).all() and (got[5, :50] == want[5, :50]).all()


# ---- dbg-edges-hash-probe ----

def test_dbg_edges():
    rng = np.random.default_rng(9)
    n = 4096
    h = tp._p212_dbg_args(n, rng)
    occ = np.flatnonzero(h[0]["kmer"] != tp.P212_EMPTY)
    h[0]["count"][occ[::50]] = 2                             # pruned at minc 3
    out = run("probe/asm-dbg-edges-hash-probe", h, n)
    e, st = tp._p212_dbg_ref(h[0])
    assert (out[3] == e).all() and (out[4] == st).all() and st[2] > 0
    # a grid smaller than the table, every node kept
    h[3][:] = 0
    h[4][:] = 0
    h[2] = np.uint32(1)
    out = run("probe/asm-dbg-edges-hash-probe", h, n, grid=(3, 1))
    e, st1 = tp._p212_dbg_ref(h[0], minc=1)
    assert (out[3] == e).all() and (out[4] == st1).all() and st1[0] > st[0]


def test_dbg_path_and_fork():
    # one path of 40 k-mers and a fork off its 10th node: ends, one branching node
    rng = np.random.default_rng(10)
    K = tp.P212_KC_K
    seq = rng.integers(0, 4, K + 39).astype(np.uint8)
    alt = seq[10:10 + K + 4].copy()
    alt[K] = (alt[K] + 1) % 4                                # the branch: node 10's other successor
    f, r, _ = tp._p212_kmers(np.concatenate([seq[None, :]]), K)
    f2, r2, _ = tp._p212_kmers(alt[None, :], K)
    keys = tp._p212_unique(np.concatenate([np.minimum(f, r)[0], np.minimum(f2, r2)[0]]))[0]
    assert len(keys) == 40 + 4
    cap = 64
    t = tp._p212_dbg_table(keys, np.full(len(keys), 9, np.uint32), cap)
    h = [t, np.uint32(cap - 1), np.uint32(3), np.zeros(cap, np.uint8), np.zeros(4, np.int32)]
    out = run("probe/asm-dbg-edges-hash-probe", h, 64)
    e, st = tp._p212_dbg_ref(t)
    assert (out[3] == e).all() and list(out[4]) == list(st) == [44, 40, 1, 3]
