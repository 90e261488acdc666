"""probe-unseen163's kernels (kernels_cuda/probes165.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import hashlib

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/dd-gear-cdc-smem", "probe/dd-xxh64-warp-fp", "probe/dd-fp-index-cas64",
       "probe/dd-superfeature-nt12", "probe/dd-raid6-pq-gftab", "probe/dd-extent-entropy-hist"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen163"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes165.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _chunks(data, gear):
    """The stream cut at every candidate cut: (start, end) pairs."""
    pos = np.flatnonzero((tp._p165_gear_hash(data, gear) & np.uint32(tp.P165_GC_MASK)) == 0) + 1
    b = np.concatenate([[0], pos, [len(data)]])
    return list(zip(b[:-1], b[1:]))


def test_data():
    rng = np.random.default_rng(0)
    for p in (tp._p165_text_p(), tp._p165_exec_p()):
        lut = tp._p165_lut(p)
        assert len(lut) == 65536 and abs(p.sum() - 1) < 1e-12
        assert np.abs(np.bincount(lut, minlength=256) / 65536 - p).max() <= 1 / 65536
    assert tp._p165_text_p()[32] == 0.16 and tp._p165_exec_p()[0] == 0.25
    # the backup stream: about a quarter of its bytes in chunks seen before (re-sent files)
    s = tp._p165_stream(1 << 22, rng)
    assert s.dtype == np.uint8 and len(s) == 1 << 22 and 0.05 < (s == 0).mean() < 0.35
    d, seen, dup = s.tobytes(), set(), 0
    for a, b in _chunks(s, tp._p165_gear()):
        k = hashlib.md5(d[a:b]).digest()
        dup += (b - a) * (k in seen)
        seen.add(k)
    assert 0.15 < dup / len(s) < 0.45
    g = tp._p165_gear()
    assert g.dtype == np.uint32 and len(np.unique(g)) == 256
    assert (np.uint32(-int(g[0]) % 2 ** 32) & np.uint32(tp.P165_GC_MASK)) != 0     # zero runs never cut
    rnd = np.random.default_rng(1).integers(0, 256, 1 << 22).astype(np.uint8)
    assert 420 < len(_chunks(rnd, g)) - 1 < 610                                   # 1 in 8 KiB: 512
    data, gear, cuts, ncut, seg, n = tp._p165_gc_args(100000, rng)
    assert len(data) == n == 100000 and seg == 2048 and len(ncut) == 49 and len(cuts) == 49 * 16
    assert tp._p165_gc_grid(1 << 27) * tp.P165_GC_BLOCK * seg == 1 << 27
    # VM image blocks: zero, shared (duplicated) and unique ones
    n = 4096
    w, fp, nb, seed = tp._p165_fp_args(n, rng)
    B = w.reshape(n, 512)
    zero = (B == 0).all(axis=1)
    u, c = np.unique(B[~zero], axis=0, return_counts=True)
    assert w.dtype == fp.dtype == np.uint64 and nb == n and 0.08 < zero.mean() < 0.18
    assert 0.35 < (c == 1).sum() / n < 0.55 and c.max() > 20 and 0.4 < len(u) / n < 0.6
    # the dedup index's fingerprints
    n = 1 << 16
    fp, keys, refs, slot, new, mask, nn = tp._p165_ht_args(n, rng)
    u, c = np.unique(fp, return_counts=True)
    assert (fp != 0).all() and len(keys) == len(refs) == 1 << 17 and mask == (1 << 17) - 1 and nn == n
    assert 0.42 < len(u) / n < 0.56 and (c >= 100).sum() > 20
    z = tp._p165_splitmix(np.uint64(0xD0D0CAFE))
    assert u[np.argmax(c)] == z and 0.02 < (fp == z).mean() < 0.07                # the zero block's
    assert (fp[1:] == fp[:-1]).mean() > 0.02                                     # zero runs
    # CDC chunks for the super-features
    data, off, sf, n = tp._p165_sf_args(4000, rng)
    L = np.diff(off)
    assert off.dtype == np.int32 and len(data) == off[-1] and len(sf) == 3 * n
    assert L.min() >= 2048 and L.max() <= 65536 and abs(L.mean() - 8192) < 250
    sy = tp._p165_sf_syms(n, rng)
    assert (sy["c_m"] & 1).all() and len(sy["c_a"]) == 12
    # GF(2^8): exp[log b] = b, the period 255, exp[i + 1] = 2 exp[i] reduced by 0x11d
    lg, ex = tp._p165_gf_tables()
    b = np.arange(1, 256)
    assert (ex[lg[b].astype(int)] == b).all() and (ex[255:510] == ex[:255]).all() and len(np.unique(ex[:255])) == 255
    e = ex[:254].astype(int) << 1
    assert (np.where(e > 255, e ^ 0x11D, e) == ex[1:255]).all()
    # the RAID stripe: 64 KiB chunks round-robin over the disks
    n = 1 << 18
    D, lg, ex, P, Q, nn = tp._p165_r6_args(n, np.random.default_rng(3))
    vol = tp._p165_blocks(-(-8 * n * 4 // 4096), np.random.default_rng(3), tp.P165_R6_MIX,
                          tp.P165_R6_RUN)[0].view(np.uint32).ravel()
    ch = 16384
    assert (D[3 * n + ch:3 * n + 2 * ch] == vol[(8 + 3) * ch:(8 + 4) * ch]).all()   # disk 3's 2nd chunk
    assert 0.15 < (D.view(np.uint8) == 0).mean() < 0.35
    # extents: compressible and incompressible
    data, hist, ent, comp, lim, n = tp._p165_en_args(64, rng)
    _, e = tp._p165_en_ref(data, n)
    assert len(data) == 64 * 32768 and lim == 7.0 and e.max() > 7.99 and e.min() < 6
    assert 0.4 < (e < 7).mean() < 0.85 and 4.5 < np.median(e) < 7.5


# ---- dd-gear-cdc-smem ----

@pytest.mark.parametrize("n, policy", [(200003, "lockstep"), (20003, "random")])
def test_gear_cdc(n, policy):
    seg = 100                                          # 200003: 2001 segments (the last of 3 bytes), 16 blocks
    rng = np.random.default_rng(4)
    h = tp._p165_gc_args(n, rng, seg=seg)
    # 'a b a b ..' cuts every other byte (more than GC_MAXC a segment); zeros never
    g = tp._p165_gear().astype(np.uint64)
    hh = (g[:, None] * 0x55555555 + g[None, :] * 0xAAAAAAAA) & 0xFFFFFFFF
    a, b = (int(v[0]) for v in np.nonzero((hh & tp.P165_GC_MASK) == 0))
    h[0][5050:5400] = np.tile(np.uint8([b, a]), 175)
    h[0][9000:12000] = 0
    out = run("probe/dd-gear-cdc-smem", h, -(-n // seg) * tp.P165_GC_SEG, policy=policy)
    cuts, ncut = tp._p165_gc_ref(h[0], h[1], seg)
    assert (out[3] == ncut).all() and (out[2] == cuts).all()
    assert ncut.max() == 50 and ncut[91:120].sum() == 0 and ncut.sum() > 150
    pos = cuts[cuts > 0] - 1
    assert (pos % seg < 31).sum() > 10                                 # cuts found in the warm-up's reach


# ---- dd-xxh64-warp-fp ----

@pytest.mark.parametrize("n, policy", [(37, "lockstep"), (8, "random")])     # 37: 5 blocks, the last partial
def test_block_fp(n, policy):
    rng = np.random.default_rng(5)
    h = tp._p165_fp_args(n, rng)
    B = h[0].reshape(n, 512)
    B[1] = B[0]
    B[2] = B[0]
    B[2, 511] ^= np.uint64(1 << 63)                   # one bit apart
    B[3:5] = 0
    out = run("probe/dd-xxh64-warp-fp", h, n, policy=policy)[1]
    assert (out == tp._p165_fp_ref(h[0], n)).all()
    _, first, inv = np.unique(B, axis=0, return_index=True, return_inverse=True)
    assert (out == out[first[inv.ravel()]]).all() and len(np.unique(out)) == len(first)   # equal iff the blocks are
    assert out[1] == out[0] != out[2] and out[3] == out[4]


# ---- dd-fp-index-cas64 ----

def _check_table(fp, keys, refs, slot, new, mask):
    u, c = np.unique(fp, return_counts=True)
    occ = np.flatnonzero(keys)
    assert (keys[slot] == fp).all() and np.array_equal(np.sort(keys[occ]), u)     # each key once
    assert (refs[keys == 0] == 0).all() and (refs[occ] == c[np.searchsorted(u, keys[occ])]).all()
    assert (np.bincount(np.searchsorted(u, fp), new, len(u)) == 1).all()           # one thread put it there
    # linear probing: no empty slot between a key's home and its slot
    home = (keys[occ] & np.uint64(mask)).astype(np.int64)
    dist = (occ - home) % (mask + 1)
    full = np.concatenate([keys, keys]) != 0
    run_len = np.zeros(2 * (mask + 1), np.int64)                       # occupied slots ending at s (cyclic)
    for s in range(2 * (mask + 1)):
        run_len[s] = run_len[s - 1] + 1 if full[s] and s else int(full[s])
    assert (dist < np.maximum(run_len[occ], run_len[occ + mask + 1])).all()
    return dist


@pytest.mark.parametrize("n, policy", [(3000, "lockstep"), (2000, "random")])
def test_fp_insert(n, policy):
    host, out, *_ = launch("probe/dd-fp-index-cas64", n, policy=policy)
    dist = _check_table(host[0], *out[1:5], int(host[5]))
    assert dist.max() > 0 and len(out[1]) == (8192 if n == 3000 else 4096)      # collisions probed
    assert out[2].max() > 50                                            # the zero block's slot
    # keys all homed at the table's last slots: probing wraps round to slot 0
    n = 20
    h = tp._p165_ht_args(n, np.random.default_rng(0))
    mask = int(h[5])
    k = (np.arange(1, 7, dtype=np.uint64) << np.uint64(20)) | np.uint64(mask - 1)
    h[0] = k[np.arange(n) % 6]
    out = run("probe/dd-fp-index-cas64", h, n, policy=policy)
    _check_table(h[0], *out[1:5], mask)
    used = np.flatnonzero(out[2])
    assert list(used) == [0, 1, 2, 3, mask - 1, mask] and sorted(out[2][used]) == [3, 3, 3, 3, 4, 4]


# ---- dd-superfeature-nt12 ----

@pytest.mark.parametrize("nc, policy", [(8, "lockstep"), (4, "random")])
def test_super_features(nc, policy):
    rng = np.random.default_rng(6)
    # chunks of 1 window, of up to 128 (a window a thread), of 129 (2 a thread, the last threads
    # idle) and longer; the last chunk the fifth with one byte changed
    L = np.array([32, 33, 159, 160, 1800, 700, 3000, 1800])[:nc]
    off = np.concatenate([[0], np.cumsum(L)]).astype(np.int32)
    data = tp._p165_stream(int(off[-1]), rng)
    if nc == 8:
        data[off[7]:off[8]] = data[off[4]:off[5]]
        data[off[7] + 900] ^= 0x5A
    n = len(L)
    h = [data, off, np.zeros(3 * n, np.uint64), np.int32(n)]
    sy = tp._p165_sf_syms(n, rng)
    out = run("probe/dd-superfeature-nt12", h, n, policy=policy, symbols=sy)[2]
    ref, F = tp._p165_sf_ref(data, off, sy["c_m"], sy["c_a"])
    assert (out == ref).all()
    sf = out.reshape(n, 3)
    m = min(n, 7)
    assert not (sf[:m, None, :] == sf[None, :m, :]).any(axis=2)[~np.eye(m, dtype=bool)].any()    # unrelated: none
    if nc == 8:
        assert (sf[7] == sf[4]).sum() >= 2                            # resembling chunks share super-features
    # a single window's features are its transforms
    h0 = tp._p165_window_hash(data[:32])
    with np.errstate(over="ignore"):
        assert (F[0] == sy["c_m"] * h0[0] + sy["c_a"]).all()


# ---- dd-raid6-pq-gftab ----

@pytest.mark.parametrize("n, policy", [(3000, "lockstep"), (300, "random")])   # partial last blocks
def test_raid6_pq(n, policy):
    host, out, *_ = launch("probe/dd-raid6-pq-gftab", n, policy=policy)
    P, Q = tp._p165_r6_ref(host[0], n)
    assert (out[3] == P).all() and (out[4] == Q).all() and (P != Q).any()
    # one byte of 1 on disk d, byte k: Q's byte k is 2^d; lost disks 2 and 5 rebuilt from P and Q
    h = list(host)
    D = np.zeros((8, n), np.uint32)
    for d in range(8):
        D[d, d] = np.uint32(1) << np.uint32(8 * (d % 4))
    D[:, 100:] = host[0].reshape(8, n)[:, 100:]
    h[0] = D.ravel()
    out = run("probe/dd-raid6-pq-gftab", h, n, policy=policy)
    for d in range(8):
        assert out[3][d] == D[d, d] and out[4][d] == np.uint32(1 << d) << np.uint32(8 * (d % 4))
    lg, ex = (v.astype(int) for v in tp._p165_gf_tables())
    mul = lambda x, y: np.where((x == 0) | (y == 0), 0, ex[(lg[x] + lg[y]) % 255])
    div = lambda x, y: np.where(x == 0, 0, ex[(lg[x] - lg[y]) % 255])
    b = D.view(np.uint8).reshape(8, -1).astype(int)
    Pb, Qb = out[3].view(np.uint8).astype(int), out[4].view(np.uint8).astype(int)
    Pxy, Qxy = Pb.copy(), Qb.copy()
    for d in (0, 1, 3, 4, 6, 7):
        Pxy ^= b[d]
        Qxy ^= mul(b[d], ex[d])
    # D2 2^2 + D5 2^5 = Qxy, D2 + D5 = Pxy: D5 = (Qxy + 4 Pxy) / (2^5 + 2^2)
    d5 = div(Qxy ^ mul(Pxy, 4), np.full_like(Pxy, 32 ^ 4))
    assert (d5 == b[5]).all() and ((Pxy ^ d5) == b[2]).all()


# ---- dd-extent-entropy-hist ----

@pytest.mark.parametrize("n, policy", [(3, "lockstep"), (1, "random")])
def test_extent_entropy(n, policy):
    rng = np.random.default_rng(7)
    h = tp._p165_en_args(n, rng)
    b = h[0].view(np.uint8).reshape(n, -1)
    b[0] = 0                                                  # one bin: every lane on one address
    if n == 3:
        b[1] = rng.permutation(np.repeat(np.arange(256, dtype=np.uint8), 512))   # flat: exactly 8 bits
    out = run("probe/dd-extent-entropy-hist", h, n, policy=policy)
    hist, ent = tp._p165_en_ref(h[0], n)
    assert (out[1] == hist.ravel()).all() and out[2][0] == 0 and out[3][0] == 1
    if n == 3:
        assert out[2][1] == 8 and out[3][1] == 0
        # float32 terms p log2 p (p exact: counts over 2^17), 256 of them summed to at most 8: < 1e-5
        assert np.abs(out[2] - ent).max() < 1e-5 and 3 < ent[2] < 7
        assert out[3][2] == (ent[2] < tp.P165_EN_LIMIT)
