"""probe-unseen59's kernels (kernels_cuda/probes61.cu) give numpy's (or plain Python's)
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from kernels_cuda.backend import EmulatorBackend
from probe_launch import launch

CODE = {ord(c): k for k, c in enumerate("ACGT")}


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen59"]
    assert ids == ["probe/dna-pack-2bit", "probe/pwm-scan", "probe/sw-affine-batch",
                   "probe/coverage-pileup", "probe/gc-window", "probe/quality-trim"]
    assert all(tp.get(i).source == "probes61.cu" and tp.get(i).note for i in ids)


def run_kernel(pid, host, grid):
    """Launch probe pid's kernel on hand-made host arguments (sanitizer on, outputs only: no
    timing model, as probe_launch's); the arrays after."""
    p = tp.get(pid)
    be = EmulatorBackend(seed=1, policy="lockstep", sanitize=True, track_time=False, count_memory=False)
    dev = [be.to_device(a) if isinstance(a, np.ndarray) else a for a in host]
    be.launch(p.source, p.kernel, grid, p.block, dev)
    assert be.launches[-1].sanitizer == []
    return [be.to_host(d) if isinstance(a, np.ndarray) else a for a, d in zip(host, dev)]


def test_genome_is_realistic():
    rng = np.random.default_rng(3)
    seq, mask = tp._u59_genome(1 << 18, rng)
    frac = np.bincount(seq, minlength=4) / len(seq)
    assert abs(frac[1] + frac[2] - 0.41) < 0.02 and abs(frac[0] - frac[3]) < 0.02
    assert 0.08 < mask.mean() < 0.25
    txt = tp._u59_ascii(seq, mask, rng)
    assert set(np.unique(txt).tolist()) == set(b"ACGTacgtN")


# ---- dna-pack-2bit ----

def test_dna_pack_2bit():
    n = 16 * 700 + 5           # 701 words: 3 blocks of 256, the last partial; the last word N-padded
    host, (txt, packed, nw), *_ = launch("probe/dna-pack-2bit", n)
    assert nw == 701 and len(txt) == 16 * 701 and (txt[n:] == ord("N")).all()
    assert set(np.unique(txt).tolist()) == set(b"ACGTacgtN")
    for i in list(range(nw - 3, nw)) + list(range(0, nw, 7)):
        word = 0
        for j, c in enumerate(bytes(txt[16 * i:16 * i + 16])):
            word |= CODE.get(ord(chr(c).upper()), 0) << (2 * j)
        assert packed[i] == word, i
    up = txt & 0xDF
    code = np.select([up == ord("C"), up == ord("G"), up == ord("T")], [1, 2, 3], 0).astype(np.uint64)
    ref = (code.reshape(-1, 16) << (2 * np.arange(16, dtype=np.uint64))).sum(1)
    np.testing.assert_array_equal(packed, ref.astype(np.uint32))


# ---- pwm-scan ----

def test_pwm_scan(monkeypatch):
    monkeypatch.setattr(tp, "U59_PWM_SITES", 200)      # 15 sites rather than 1
    n = 3000                   # 12 blocks of 256, the last partial; the last 11 positions -inf
    host, (seq, score, nn), syms, _ = launch("probe/pwm-scan", n)
    S = syms["c_pwm"].astype(np.float64).reshape(12, 4)
    assert (S * 64 == np.round(S * 64)).all() and np.abs(S).max() < 8     # every sum exact in float32
    assert seq.max() <= 3
    win = np.lib.stride_tricks.sliding_window_view(seq.astype(np.int64), 12)       # (n - 11) x 12
    k = np.arange(12)
    fwd = S[k, win].sum(1)
    rev = S[k, 3 - win[:, ::-1]].sum(1)
    ref = np.maximum(fwd, rev)
    np.testing.assert_array_equal(score[:n - 11], ref.astype(np.float32))
    assert np.isneginf(score[n - 11:]).all()
    # the planted sites stand out on both strands: the consensus scores ~20, background ~ -20
    assert (ref > 10).sum() >= 5 and np.median(ref) < -5
    assert (fwd > 10).any() and (rev > 10).any()


# ---- sw-affine-batch ----

def gotoh(q, t, match=tp.U59_SW_MATCH, mismatch=tp.U59_SW_MISMATCH, go=tp.U59_SW_OPEN, ge=tp.U59_SW_EXTEND):
    """Smith-Waterman-Gotoh local scores of pairs (q, t: npairs x m, npairs x k codes),
    full H, E, F matrices over all pairs at once; a gap of L costs go + (L - 1) ge."""
    P, m = q.shape
    k = t.shape[1]
    NEG = -10 ** 9
    H = np.zeros((P, m + 1, k + 1), np.int64)
    E = np.full((P, m + 1, k + 1), NEG, np.int64)
    F = np.full((P, m + 1, k + 1), NEG, np.int64)
    for i in range(1, m + 1):
        for j in range(1, k + 1):
            E[:, i, j] = np.maximum(E[:, i, j - 1] - ge, H[:, i, j - 1] - go)
            F[:, i, j] = np.maximum(F[:, i - 1, j] - ge, H[:, i - 1, j] - go)
            s = np.where(q[:, i - 1] == t[:, j - 1], match, mismatch)
            H[:, i, j] = np.maximum.reduce([np.zeros(P, np.int64), H[:, i - 1, j - 1] + s, E[:, i, j], F[:, i, j]])
    return H.reshape(P, -1).max(1)


def test_sw_affine_batch():
    n = 300                    # 3 blocks of 128, the last partial
    host, (query, target, score, nn), *_ = launch("probe/sw-affine-batch", n)
    L = tp.U59_SW_LEN
    q, t = query.reshape(n, L).astype(np.int64), target.reshape(n, L).astype(np.int64)
    ref = gotoh(q, t)
    np.testing.assert_array_equal(score, ref)
    assert (ref > 60).mean() > 0.4 and (ref < 25).mean() > 0.15           # true loci and false candidates


def test_sw_affine_batch_by_hand():
    L = tp.U59_SW_LEN
    rng = np.random.default_rng(5)
    base = rng.integers(0, 4, (8, L + 8))
    q = base[:, :L].copy()
    t = base[:, :L].copy()
    t[1, 20] = (t[1, 20] + 1) % 4                                        # one mismatch in the middle
    t[2] = np.concatenate([base[2, :20], base[2, 23:L + 3]])             # a 3-base deletion in the target
    q[3], t[3] = 0, 1                                                    # nothing matches
    t[4] = (q[4] + 2) % 4
    t[4, 10:14] = q[4, 10:14]                                            # one 4-base match
    t[5] = np.concatenate([base[5, :30], [(base[5, 30] + 1) % 4] * 2, base[5, 30:L - 2]])  # a 2-base insertion
    t[6] = q[6, ::-1]
    t[7] = np.roll(q[7], 5)
    host = [q.astype(np.uint8).ravel(), t.astype(np.uint8).ravel(), np.zeros(8, np.int32), np.int32(8)]
    got = run_kernel("probe/sw-affine-batch", host, 1)[2]
    ref = gotoh(q, t)
    np.testing.assert_array_equal(got, ref)
    assert got[0] == 2 * L and got[3] == 0 and got[4] >= 8
    assert got[1] == 2 * (L - 1) - 3                                     # through the mismatch
    assert got[2] >= 2 * (L - 3) - (5 + 2 * 2)                           # a 3-base gap costs 9


# ---- coverage-pileup ----

def test_coverage_pileup():
    n = 500                    # 50000 threads: 196 blocks of 256, the last partial; a 4000-base reference
    host, (bases, start, count, nn, ref_len), *_ = launch("probe/coverage-pileup", n)
    R = tp.U59_READ_LEN
    assert ref_len == tp.U59_COV_REF * n
    ref = np.zeros(4 * ref_len, np.int64)
    over = 0
    for r in range(n):
        for k in range(R):
            pos = int(start[r]) + k
            if pos < ref_len:
                ref[4 * pos + int(bases[r * R + k])] += 1
            else:
                over += 1
    np.testing.assert_array_equal(count, ref)
    assert over > 50                                                     # reads run past the end
    cov = ref.reshape(-1, 4).sum(1)
    assert 8 < cov.mean() < 14
    # the reads agree with one another: the majority base is ~99% of a well-covered position
    good = cov >= 5
    assert (ref.reshape(-1, 4).max(1)[good] / cov[good]).mean() > 0.97


# ---- gc-window ----

def gc_ref(txt):
    up = txt & 0xDF
    c = np.concatenate([[0], np.cumsum((up == ord("C")) | (up == ord("G")))])
    W = tp.U59_GC_WIN
    return (c[W:] - c[:-W]).astype(np.float32) / np.float32(W)


def test_gc_window():
    for n in (5000, 999 + 4 * 256, 1000):      # 4001 windows (16 blocks, the last partial), 4 whole blocks, one
        host, (txt, gc, nn), *_ = launch("probe/gc-window", n)
        assert len(gc) == n - 999
        ref = gc_ref(txt)
        np.testing.assert_array_equal(gc, ref)
        if n == 5000:
            assert set(np.unique(txt).tolist()) == set(b"ACGTacgtN")
            assert ref.min() < ref.max() and 0.3 < ref.mean() < 0.5


# ---- quality-trim ----

def bwa_trim(q, L, thr=tp.U59_QT_THR, minlen=tp.U59_QT_MINLEN):
    """bwa_trim_read: the kept length of a read with Phred+33 qualities q[:L]."""
    s, best, best_l = 0, 0, L
    for l in range(L - 1, minlen - 1, -1):
        s += thr - (int(q[l]) - 33)
        if s < 0:
            break
        if s > best:
            best, best_l = s, l
    return best_l


def test_quality_trim():
    n = 100                    # 13 blocks of 8 warps, the last half idle
    host, (qual, lens, kept, nn, thr), *_ = launch("probe/quality-trim", n)
    M = tp.U59_QT_MAXLEN
    Q = qual.reshape(n, M)
    ref = np.array([bwa_trim(Q[r], lens[r]) for r in range(n)])
    np.testing.assert_array_equal(kept, ref)
    assert (ref < lens).sum() > 10 and (ref == lens).sum() > 30 and (lens < M).sum() > 5
    assert ((Q >= 35) & (Q <= 74) | (Q == 0)).all()


def test_quality_trim_by_hand():
    M, T = tp.U59_QT_MAXLEN, tp.U59_QT_THR
    reads = []

    def add(q, L=M):
        q = np.asarray(q, np.int64)
        row = np.zeros(M, np.uint8)
        row[:L] = q + 33
        reads.append((row, L))

    add([40] * M)                                          # good to the end: kept whole
    add([2] * M)                                           # bad throughout: trimmed to 35
    for L in (0, 10, 35, 36, 66, 67, 68, 99, 100, 131):    # shorter than a round's work, round edges
        add([2] * L, L)
    q = [40] * M
    q[-1], q[-2], q[-3], q[-4] = T - 10, T + 10, T - 10, T + 20      # s 10, 0, 10 (a tie), -10 (stop)
    add(q)
    q = [40] * 60 + [T] * 89 + [T - 10]                    # s 10 from the last base to position 60: ties over rounds
    add(q)
    q = [2] * 148 + [T + 6, T - 5]                          # s 5, then -1: stop before the long bad stretch
    add(q)
    for stop in (31, 32, 33, 63, 64):                      # the first negative s at lane 31 / lane 0 of a round
        q = [2] * M
        q[M - 1 - stop] = 2 + 200                           # a huge quality: s < 0 there
        q[M - 1 - stop + 1] = T - 3
        add(q)
    q = [40] * 100 + [2] * 50                              # a Q2 tail over a round's boundary
    add(q)
    rng = np.random.default_rng(7)
    for _ in range(120):                                   # qualities around the threshold: long walks
        L = int(rng.integers(0, M + 1))
        add(rng.integers(T - 6, T + 7, L), L)
    nr = len(reads)
    Q = np.stack([r for r, _ in reads])
    lens = np.array([L for _, L in reads], np.int32)
    host = [Q.ravel(), lens, np.zeros(nr, np.int32), np.int32(nr), np.int32(T)]
    got = run_kernel("probe/quality-trim", host, -(-nr // 8))[2]
    ref = np.array([bwa_trim(Q[r], lens[r]) for r in range(nr)])
    np.testing.assert_array_equal(got, ref)
    assert got[0] == M and got[1] == 35 and list(got[2:6]) == [0, 10, 35, 35]
    assert got[12] == M - 1 and got[13] == M - 1 and got[14] == M - 1
    assert len(set(ref[-120:] - lens[-120:])) > 10
