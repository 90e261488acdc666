"""probe-unseen112's kernels (kernels_cuda/probes114.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import zlib

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/frame-alloc-bitmap-atomicor", "probe/freelist-cas-percpu", "probe/cdc-rabin-karp-cuts",
       "probe/adler32-pages-smem", "probe/pte-radix-count-smem", "probe/clock-age-sweep-ballot"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen112"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes114.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # frame-alloc: n / 2 words, 75% of the frames in use, half the words full, ~2 words a request
    n = 1 << 14
    bm, nw, out, seed, nn = tp._p114_pa_args(n, rng)
    assert bm.dtype == np.uint32 and nw == len(bm) == n // 2 and nn == n and not out.any()
    assert abs(np.unpackbits(bm.view(np.uint8)).mean() - 0.75) < 0.01
    assert abs((bm == 0xFFFFFFFF).mean() - tp.P114_PA_FULL) < 0.02
    frames, after = tp._p114_pa_serial(bm, n)
    assert (frames >= 0).all() and len(set(frames.tolist())) == n
    scanned = (frames // 32 - tp._p114_pa_start(n, nw)) % nw + 1
    assert 1.5 < scanned.mean() < 2.6 and scanned.max() < tp.P114_PA_PROBE
    per_word = np.bincount(tp._p114_pa_start(n, nw), minlength=nw)
    assert per_word.mean() == 2 and per_word.max() >= 8                         # requests ~2 a word, some more
    # freelist: every pool node on exactly one list, 160 a list
    fh, fnx, uh, unx, got, nn = tp._p114_fl_args(1000, rng)
    assert len(fh) == 8 and len(fnx) == 8 * tp.P114_FL_LEN and (uh == -1).all() and (unx == -1).all()
    walks = [tp._p114_fl_walk(h, fnx) for h in fh]
    assert all(len(w) == tp.P114_FL_LEN for w in walks)
    assert sorted(sum(walks, [])) == list(range(8 * tp.P114_FL_LEN))
    # cdc: ~1 cut in 4096 bytes, 8 KiB blocks copied (their cuts copied too, past the window)
    n = 1 << 20
    d, mask, pw, cuts, nc, mx, nn = tp._p114_cdc_args(n, rng)
    assert d.dtype == np.uint8 and pw == pow(257, 47, 10 ** 9 + 7) and pw.dtype == np.uint64
    assert len(cuts) == mx == n // 1024 + 64 and nc.dtype == np.int32
    c = tp._p114_cdc_ref(d)
    assert 0.8 < len(c) / (n / 4096) < 1.2 and len(c) < mx
    B = tp.P114_CDC_DUP[0]
    blocks = d.reshape(-1, B)
    dup = [k for k in range(1, len(blocks)) if any((blocks[k] == blocks[s]).all() for s in range(k))]
    assert 0.2 < len(dup) / len(blocks) < 0.3
    cut_in = lambda b: (c[(c > b * B + 48) & (c <= (b + 1) * B)] - b * B).tolist()      # noqa: E731
    same = [cut_in(k) == cut_in(next(s for s in range(k) if (blocks[k] == blocks[s]).all())) for k in dup]
    assert all(same) and sum(len(cut_in(k)) for k in dup) > 50
    # adler: zero, text and random pages
    mem, sums, nn = tp._p114_ad_args(1000, rng)
    pages = mem.view(np.uint8).reshape(1000, 4096)
    zero = (pages == 0).all(axis=1)
    text = ~zero & (pages >= 32).all(axis=1) & (pages <= 126).all(axis=1)
    assert abs(zero.mean() - 0.15) < 0.04 and abs(text.mean() - 0.35) < 0.05 and nn == 1000
    p = pages[3].astype(np.int64)
    a = 1 + p.sum()
    b = 4096 + ((4096 - np.arange(4096)) * p).sum()
    assert tp._p114_ad_ref(mem[1024 * 3:1024 * 4])[0] == ((b % 65521) << 16) | (a % 65521)
    # pte: 80% present, runs of ~16 consecutive frames, a warp's present lanes on ~2-3 digits
    n = 1 << 16
    pte, counts, shift, nn = tp._p114_pte_args(n, rng)
    assert pte.dtype == np.uint64 and len(counts) == 256 * 16 and shift == 8
    pres = (pte & np.uint64(1)) != 0
    assert abs(pres.mean() - 0.8) < 0.01
    sw = ~pres & (pte != 0)
    assert abs(sw.sum() / (~pres).sum() - tp.P114_PTE_SWAP) < 0.03
    assert ((pte[pres] & np.uint64(0x7FF0000000000F98)) == 0).all()              # only the flags and frame bits
    pfn = ((pte & np.uint64(0x000FFFFFFFFFF000)) >> np.uint64(12)).astype(np.int64)
    step = np.diff(pfn)[pres[1:] & pres[:-1]]
    assert 0.9 < (step == 1).mean() < 0.96
    dig = (pfn >> 8) & 255
    per_warp = [len(set(dig[w * 32:(w + 1) * 32][pres[w * 32:(w + 1) * 32]])) for w in range(n // 32)]
    assert 2 <= np.mean(per_warp) <= 3.5
    assert tp._p114_pte_ref(pte).sum() == pres.sum()
    # clock: ~88% live, ~11% victims, a fifth of them dirty-ish (~25%)
    fr, ev, nev, wb, nwb, nn = tp._p114_ck_args(1 << 16, rng)
    assert fr.dtype.itemsize == 16 and fr["age"].max() <= 255
    live = (fr["flags"] & 12) == 0
    assert abs(live.mean() - 0.88) < 0.01
    after, e, w = tp._p114_ck_ref(fr)
    v = (len(e) + len(w)) / len(fr)
    assert 0.09 < v < 0.14 and 0.2 < len(w) / (len(e) + len(w)) < 0.3
    assert ((after["flags"][live] & 1) == 0).all() and (after["age"][~live] == fr["age"][~live]).all()


# ---- frame-alloc-bitmap-atomicor ----

def pa_check(bm0, bm1, frames, seed=tp.P114_PA_SEED):
    """The allocator's invariants: granted frames distinct and free before, the bitmap after
    the one before plus them, and each request passed over only words that are full now
    (those of a failed request's whole window)."""
    bm0, bm1 = np.asarray(bm0, np.uint32), np.asarray(bm1, np.uint32)
    nw = len(bm0)
    ok = frames >= 0
    g = frames[ok].astype(np.int64)
    assert len(set(g.tolist())) == len(g)
    assert (((bm0[g // 32] >> (g % 32).astype(np.uint32)) & 1) == 0).all()
    want = bm0.copy()
    np.bitwise_or.at(want, g // 32, (np.uint32(1) << (g % 32).astype(np.uint32)))
    assert (bm1 == want).all()
    # each grant the lowest clear bit when it was made (bits are only ever set): a word's
    # grants its k lowest bits clear before
    for w in np.unique(g // 32):
        b = np.sort(g[g // 32 == w] % 32)
        clear = [k for k in range(32) if not (int(bm0[w]) >> k) & 1]
        assert b.tolist() == clear[:len(b)]
    start = tp._p114_pa_start(len(frames), nw, seed)
    span = np.where(ok, (frames // 32 - start) % nw, tp.P114_PA_PROBE)
    assert (span < tp.P114_PA_PROBE + (~ok)).all()
    for s, k in zip(start, span):
        assert (bm1[(s + np.arange(k)) % nw] == 0xFFFFFFFF).all()
    return ok


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_frame_alloc(policy):
    n = 1000                                                # 4 blocks, the last partial
    host, (bm, nw, frames, *_), *_ = launch("probe/frame-alloc-bitmap-atomicor", n, policy=policy)
    assert pa_check(host[0], bm, frames).all()
    assert (frames // 32 != tp._p114_pa_start(n, nw)).any()   # some passed over full words


def test_frame_alloc_scarce():
    # 80 words, all full but 12 bits: at most 12 of 60 requests served, the others find
    # nothing in their 64-word window; then a bitmap with no free frame at all
    rng = np.random.default_rng(3)
    bm = np.full(80, 0xFFFFFFFF, np.uint32)
    for k in rng.choice(80 * 32, 12, replace=False):
        bm[k // 32] &= ~np.uint32(1 << (k % 32))
    n = 60
    host = [bm.copy(), np.int32(80), np.zeros(n, np.int32), np.uint32(7), np.int32(n)]
    out = run("probe/frame-alloc-bitmap-atomicor", host, n, policy="random")
    ok = pa_check(bm, out[0], out[2], seed=7)
    assert 0 < ok.sum() <= 12 and (~ok).any() and (out[2][~ok] == -1).all()
    host = [np.full(80, 0xFFFFFFFF, np.uint32), np.int32(80), np.zeros(n, np.int32), np.uint32(7), np.int32(n)]
    out = run("probe/frame-alloc-bitmap-atomicor", host, n)
    assert (out[2] == -1).all() and (out[0] == 0xFFFFFFFF).all()


# ---- freelist-cas-percpu ----

def fl_check(host, out, length):
    fh0, fnx, *_ = host
    fh, _, uh, unx, got = out[:5]
    n = len(got)
    B = tp.P114_FL_BLOCK
    for cpu in range(len(fh0)):
        k = min(B, n - cpu * B)
        lst = tp._p114_fl_walk(fh0[cpu], fnx)
        g = got[cpu * B:cpu * B + k]
        taken = min(k, length)
        assert sorted(g[g >= 0].tolist()) == sorted(lst[:taken]) and (g == -1).sum() == k - taken
        assert fh[cpu] == (lst[taken] if taken < length else -1)
        used = tp._p114_fl_walk(uh[cpu], unx)
        assert sorted(used) == sorted(lst[:taken])


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_freelist(policy):
    n = 600 if policy == "lockstep" else 216                # 5 CPUs (random: 2), the last with 88 threads
    host, out, *_ = launch("probe/freelist-cas-percpu", n, policy=policy)
    fl_check(host, out, tp.P114_FL_LEN)
    assert (out[0] != host[0]).all() and (out[3] == -1).sum() == len(host[3]) - n + len(host[0])


def test_freelist_runs_dry():
    # lists of 40 nodes for a CPU of 100 threads: 60 get -1, the free list ends empty
    n, L = 100, 40
    rng = np.random.default_rng(4)
    lists = rng.permutation(L).astype(np.int32)
    nxt = np.full(L, -1, np.int32)
    nxt[lists[:-1]] = lists[1:]
    host = [lists[:1].copy(), nxt, np.full(1, -1, np.int32), np.full(L, -1, np.int32), np.zeros(n, np.int32),
            np.int32(n)]
    out = run("probe/freelist-cas-percpu", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n,
              policy="random")
    fl_check(host, out, L)
    assert out[0][0] == -1 and (out[4] == -1).sum() == 60


# ---- cdc-rabin-karp-cuts ----

@pytest.mark.parametrize("mask, n, policy", [(tp.P114_CDC_MASK, (1 << 15) + 1000, "random"),
                                             (0x3F, (1 << 13) + 1000, "lockstep")])
def test_cdc(mask, n, policy):
    # a partial segment and block; the probe's mask (3 cuts, at one offset of 3 copies of an
    # 8 KiB block) and one giving ~1 cut in 64 bytes
    rng = np.random.default_rng(1)
    host = tp._p114_cdc_args(n, rng)
    host[1], host[3], host[5] = np.uint32(mask), np.zeros(n // 32, np.int32), np.int32(n // 32)
    out = run("probe/cdc-rabin-karp-cuts", host, n, policy=policy)
    ref = tp._p114_cdc_ref(host[0], mask)
    assert len(ref) >= 3 and int(out[4][0]) == len(ref) and len(ref) <= host[5]
    assert (np.sort(out[3][:len(ref)]) == ref).all() and not out[3][len(ref):].any()
    if mask == 0x3F:
        # segments with several cuts, and cuts whose window reaches into the segment before
        assert (np.diff(ref // 256) == 0).any() and ((ref - 1) % 256 < 47).sum() > 10


def test_cdc_overflow():
    # every position a cut (mask 0) with room for 100: all counted, 100 distinct stored
    n = 1000
    rng = np.random.default_rng(2)
    host = tp._p114_cdc_args(n, rng)
    host[1], host[3], host[5] = np.uint32(0), np.zeros(100, np.int32), np.int32(100)
    out = run("probe/cdc-rabin-karp-cuts", host, n)
    assert int(out[4][0]) == n and len(set(out[3].tolist())) == 100 and out[3].min() >= 1 and out[3].max() <= n


# ---- adler32-pages-smem ----

def test_adler32():
    n = 12
    host, (mem, sums, nn), *_ = launch("probe/adler32-pages-smem", n)
    assert (sums == tp._p114_ad_ref(host[0])).all() and len(set(sums.tolist())) > 8
    # the largest sums (all bytes 0xff), a single byte at either end, a zero page (A 1, B 4096)
    mem = np.zeros(4 * 1024, np.uint32)
    mem[:1024] = 0xFFFFFFFF
    mem[1024] = 0x5A
    mem[3 * 1024 - 1] = 0x5A000000
    out = run("probe/adler32-pages-smem", [mem, np.zeros(4, np.uint32), np.int32(4)], 4)
    want = [zlib.adler32(mem[k * 1024:(k + 1) * 1024].tobytes()) for k in range(4)]
    assert out[1].tolist() == want and want[3] == (4096 << 16) | 1


# ---- pte-radix-count-smem ----

@pytest.mark.parametrize("shift, policy", [(8, "lockstep"), (0, "random"), (20, "lockstep")])
def test_pte_radix(shift, policy):
    n = 10000                                               # 3 blocks, the last partial
    rng = np.random.default_rng(shift)
    host = tp._p114_pte_args(n, rng)
    host[2] = np.int32(shift)
    out = run("probe/pte-radix-count-smem", host, n, policy=policy)
    ref = tp._p114_pte_ref(host[0], shift)
    assert (out[1] == ref).all() and ref.sum() == ((host[0] & np.uint64(1)) != 0).sum()
    assert (ref.reshape(256, 3)[16:].sum() == 0) == (shift == 20)          # frame numbers < 2^24


# ---- clock-age-sweep-ballot ----

def ck_check(host, out):
    f, e, w = tp._p114_ck_ref(host[0])
    assert (out[0] == f).all()
    for lst, cnt, ref in ((out[1], out[2], e), (out[3], out[4], w)):
        k = int(cnt[0])
        assert k == len(ref) and (np.sort(lst[:k]) == ref).all() and not lst[k:].any()
        if k == 0:
            continue
        # a warp's victims together, in lane order
        runs = np.split(lst[:k], np.flatnonzero(lst[1:k] // 32 != lst[:k - 1] // 32) + 1)
        assert all((np.diff(r) > 0).all() for r in runs) and len(runs) == len(set(ref // 32))
    return e, w


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_clock_sweep(policy):
    n = 1000                                                # a partial block and warp
    host, out, *_ = launch("probe/clock-age-sweep-ballot", n, policy=policy)
    e, w = ck_check(host, out)
    assert len(e) > 40 and len(w) > 10


def test_clock_sweep_edges():
    # all victims (age 1, unreferenced, clean or dirty by parity), then none (all pinned)
    n = 300
    rng = np.random.default_rng(6)
    host = tp._p114_ck_args(n, rng)
    host[0]["flags"] = np.arange(n) % 2 * tp.P114_F_DIRTY
    host[0]["age"] = 1
    host[0]["mapcount"] = 1
    out = run("probe/clock-age-sweep-ballot", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n,
              policy="random")
    e, w = ck_check(host, out)
    assert len(e) == 150 and len(w) == 150
    host[0]["flags"] = tp.P114_F_PINNED | tp.P114_F_REF
    out = run("probe/clock-age-sweep-ballot", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    e, w = ck_check(host, out)
    assert len(e) == len(w) == 0 and (out[0] == host[0]).all()
