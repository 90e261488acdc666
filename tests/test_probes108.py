"""probe-unseen106's kernels (kernels_cuda/probes108.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import dataclasses

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import _run, launch, run

IDS = ["probe/cache-sim-lru-4way", "probe/gshare-pht-smem", "probe/reuse-time-hist-smem", "probe/tlb-walk-batch",
       "probe/rv32-instr-mix-atomics", "probe/scoreboard-config-sweep"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen106"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes108.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # cache-sim: word addresses, ~30% writes, ~68% hits, ~12% writebacks
    n, L = 512, tp.P108_CS_LEN
    tr, h0, m0, w0, ln, nn = tp._p108_cs_args(n, rng)
    assert tr.dtype == np.uint32 and len(tr) == n * L and ln == L and nn == n and not h0.any()
    assert ((tr & 2) == 0).all() and abs((tr & 1).mean() - tp.P108_CS_WRITE) < 0.01
    h, m, wb = tp._p108_cs_ref(tr)
    assert (h + m == L).all() and 0.62 < h.mean() / L < 0.72 and 0.08 < wb.mean() / L < 0.16
    steps = np.diff(tr.reshape(n, L).astype(np.int64) & ~1, axis=1)
    assert 0.23 < (steps == 4).mean() < 0.27                  # stream after stream: 0.5^2
    # gshare: 4-aligned PCs in 64 KiB, ~27% mispredicted, the traces from ~10% to ~40%
    n, L = 256, tp.P108_GS_LEN
    g, mi0, hi0, ln, nn = tp._p108_gs_args(n, rng)
    assert g.dtype == np.uint32 and len(g) == n * L and ln == L and nn == n
    pc = g & ~np.uint32(1)
    assert (pc % 4 == 0).all() and pc.min() >= 0x10000 and pc.max() < 0x20000
    assert 0.5 < (g & 1).mean() < 0.7
    mi, hi = tp._p108_gs_ref(g, n)
    assert 0.2 < mi.mean() / L < 0.35 and mi.min() / L < 0.15 and mi.max() / L > 0.35
    assert (hi == (g.reshape(L, n)[-tp.P108_GS_BITS:] & 1)[::-1].T.dot(1 << np.arange(tp.P108_GS_BITS))).all()
    # reuse-hist: no 0xffffffff, ~39% without reuse in the window, the others spread over the bins
    tr, hist, nn = tp._p108_rd_args(1 << 18, rng)
    assert tr.dtype == np.uint32 and tr.max() < 1 << 31 and nn == 1 << 18 and not hist.any()
    f = tp._p108_rd_ref(tr) / (1 << 18)
    assert 0.35 < f[-1] < 0.43 and f[:-1].min() > 0.04 and f[:-1].max() < 0.1
    d = tp._p108_rd_dist(tr)
    assert ((d > 256) | (d == 0)).mean() == pytest.approx(f[-1])
    # tlb: ~75% hits, ~17% walks, ~8% faults; the TLB consistent with the page tables
    va, tv, tpn, pdir, ptab, pa, st, nn = tp._p108_tlb_args(1 << 16, rng)
    assert va.dtype == tv.dtype == tpn.dtype == ptab.dtype == np.uint32 and pdir.dtype == np.int32
    assert (pdir >= 0).sum() == tp.P108_TLB_DIRS and len(ptab) == tp.P108_TLB_DIRS << tp.P108_PT_BITS
    assert abs((ptab & 1).mean() - tp.P108_TLB_VALID) < 0.01
    live = tv != 0xFFFFFFFF
    assert (~live).sum() == tp.P108_TLB_EMPTY and len(set(tv[live])) == live.sum()
    assert (tv[live].reshape(-1) % 64 == np.flatnonzero(live) // 4).all()           # each in its set
    pte = ptab[pdir[tv[live] >> 10].astype(np.int64) * 1024 + (tv[live] & 1023)]
    assert (pte & 1).all() and (pte >> 12 == tpn[live]).all()
    frames = ptab >> 12
    assert len(np.unique(frames)) == len(frames) and frames.max() < (1 << 20) - 1
    pa2, st2 = tp._p108_tlb_ref(va, tv, tpn, pdir, ptab)
    fr = np.bincount(st2, minlength=3) / len(st2)
    assert abs(fr[0] - 0.75) < 0.01 and abs(fr[1] - 0.17) < 0.01 and abs(fr[2] - 0.08) < 0.01
    assert (pa2[st2 == 2] == 0xFFFFFFFF).all() and ((pa2 & 0xFFF) == (va & 0xFFF))[st2 < 2].all()
    # instr-mix: the classes at their frequencies, rd spread over 31 registers
    code, cc, rc, nn = tp._p108_im_args(1 << 18, rng)
    c, r = tp._p108_im_ref(code)
    np.testing.assert_allclose(c / c.sum(), tp.P108_IM_FREQ, atol=0.003)
    assert r[0] == 0 and r[1:].min() > 0 and r.max() / r.sum() < 0.08 and 0.7 < r.sum() / len(code) < 0.75
    assert not np.isin(code[tp._p108_im_class(code) == 11] & 0x7F, [o for o in tp.P108_IM_OPC if o]).any()
    # scoreboard: the op mix, stores/branches/NOPs write nothing, CPI 1.4 .. 4
    prog, cfg, cy0, st0, ln, nn = tp._p108_sb_args(1024, rng)
    ops = prog & 7
    assert len(prog) == ln == tp.P108_SB_LEN and cfg.dtype == np.int32 and len(cfg) == 1024 * 10
    np.testing.assert_allclose(np.bincount(ops, minlength=8) / len(ops), tp.P108_SB_FREQ, atol=0.02)
    assert not ((prog >> 3) & 31)[np.isin(ops, [4, 5, 7])].any() and ((prog >> 3) & 31)[ops < 4].min() > 0
    cf = cfg.reshape(1024, 10)
    lo, hi = np.array(tp.P108_SB_LAT).T
    assert (cf[:, :8] >= lo).all() and (cf[:, :8] <= hi).all() and cf[:, 8].max() <= 100
    cy, stl = tp._p108_sb_ref(prog, cfg)
    cpi = cy / len(prog)
    assert 1.2 < cpi.min() and cpi.max() < 4.5 and 0.4 < (stl / cy).mean() < 0.7


# ---- cache-sim-lru-4way ----

def test_cache_sim():
    rng = np.random.default_rng(3)
    n = 36                                                  # one partial block: 2 warps, the last partial
    host = tp._p108_cs_args(n, rng, length=256)
    out = run("probe/cache-sim-lru-4way", host, n)
    h, m, wb = tp._p108_cs_ref(host[0], length=256)
    assert (out[1] == h).all() and (out[2] == m).all() and (out[3] == wb).all()
    assert 0.6 < h.mean() / 256 < 0.8 and wb.sum() > 0


def test_cache_sim_lru_edges():
    # trace 0: 5 lines of one set cycled (LRU thrashes: every access misses), all writes
    # (each eviction after the first 4 writes back); trace 1: 4 lines of one set cycled
    # (4 cold misses, then hits); trace 2: a, b, c, d, a (a now MRU), e evicts b, a hits
    L = 40
    stride = tp.P108_CS_SETS * tp.P108_CS_LINE              # the same set
    t0 = (np.arange(L) % 5 * stride + 0x100000) | 1
    t1 = np.arange(L) % 4 * stride + 0x200000 + 8
    seq = [0, 1, 2, 3, 0, 4, 0, 1] + [0] * (L - 8)
    t2 = np.array(seq) * stride + 0x300040
    trace = np.stack([t0, t1, t2]).astype(np.uint32).ravel()
    host = [trace, np.zeros(3, np.int32), np.zeros(3, np.int32), np.zeros(3, np.int32), np.int32(L), np.int32(3)]
    out = run("probe/cache-sim-lru-4way", host, 3)
    assert list(out[1]) == [0, L - 4, L - 6] and list(out[2]) == [L, 4, 6] and list(out[3]) == [L - 4, 0, 0]


# ---- gshare-pht-smem ----

def test_gshare():
    rng = np.random.default_rng(4)
    n = 100                                                 # 2 blocks, the last partial
    host = tp._p108_gs_args(n, rng, length=200)
    out = run("probe/gshare-pht-smem", host, n)
    mi, hi = tp._p108_gs_ref(host[0], n)
    assert (out[1] == mi).all() and (out[2] == hi).all() and mi.min() < mi.max()


def test_gshare_edges():
    # trace 0 always taken (no miss from weakly taken); trace 1 never taken at one PC
    # (the history 0, one counter: 1 miss, then strongly not taken); trace 2 alternating at
    # one PC (the history tells them apart: a miss on each new history ending in a taken
    # branch while the history fills, 7 in all)
    L, n = 60, 3
    k = np.arange(L)
    rec = np.stack([np.full(L, 0x10001), np.full(L, 0x10000), 0x10000 | (k % 2)]).astype(np.uint32)
    host = [rec.T.ravel().copy(), np.zeros(n, np.int32), np.zeros(n, np.uint32), np.int32(L), np.int32(n)]
    out = run("probe/gshare-pht-smem", host, n)
    mi, hi = tp._p108_gs_ref(host[0], n)
    assert (out[1] == mi).all() and (out[2] == hi).all()
    assert out[1][0] == 0 and out[1][1] == 1 and out[2][0] == 511 and out[2][1] == 0 and out[2][2] == 0b101010101
    assert out[1][2] == 7


# ---- reuse-time-hist-smem ----

# 1200: 5 blocks, the last partial; random (slow): 300, 2 blocks, the last partial
@pytest.mark.parametrize("policy, n", [("lockstep", 1200), ("random", 300)])
def test_reuse_hist(policy, n):
    host, out, *_ = launch("probe/reuse-time-hist-smem", n, policy=policy)
    ref = tp._p108_rd_ref(host[0])
    assert (out[1] == ref).all() and ref.sum() == n and ref.min() > 0


def test_reuse_hist_edges():
    # one line repeated (d = 1 but the first), a period of 256 (the window's edge: bin 8)
    # and of 257 (no reuse in the window), across block boundaries
    n = 1100
    a = np.full(n, 7, np.uint32)
    b = (np.arange(n) % 256).astype(np.uint32) + 1000
    c = (np.arange(n) % 257).astype(np.uint32) + 5000
    for tr, want in ((a, {0: n - 1, 9: 1}), (b, {8: n - 256, 9: 256}), (c, {9: n})):
        host = [tr, np.zeros(tp.P108_RD_BINS, np.uint32), np.int32(n)]
        out = run("probe/reuse-time-hist-smem", host, n)
        ref = np.zeros(tp.P108_RD_BINS, np.uint32)
        for k, v in want.items():
            ref[k] = v
        assert (out[1] == ref).all() and (tp._p108_rd_ref(tr) == ref).all()


# ---- tlb-walk-batch ----

def test_tlb():
    n = 3000
    host, out, *_ = launch("probe/tlb-walk-batch", n)
    pa, st = tp._p108_tlb_ref(*host[:5])
    assert (out[5] == pa).all() and (out[6] == st).all() and set(st) == {0, 1, 2}


def test_tlb_edges():
    # a page in an invalid TLB way's set but not cached, an invalid PTE, an unmapped
    # directory entry, offsets 0 and 0xfff, the 0xffffffff invalid tag itself
    rng = np.random.default_rng(9)
    va, tv, tpn, pdir, ptab, pa, st, nn = tp._p108_tlb_args(64, rng)
    E = 1 << tp.P108_PT_BITS
    live = np.flatnonzero(tv != 0xFFFFFFFF)
    inval = np.flatnonzero((ptab & 1) == 0)[0]
    row = inval // E
    d_inval = np.flatnonzero(pdir == row)[0]
    nodir = np.flatnonzero(pdir < 0)[0]
    addrs = [int(tv[live[0]]) << 12, (int(tv[live[1]]) << 12) | 0xFFF, ((d_inval << 10) | (inval % E)) << 12 | 5,
             nodir << 22, 0xFFFFFFFF]
    va[:len(addrs)] = addrs
    out = run("probe/tlb-walk-batch", [va, tv, tpn, pdir, ptab, pa, st, nn], 64)
    pa2, st2 = tp._p108_tlb_ref(va, tv, tpn, pdir, ptab)
    assert (out[5] == pa2).all() and (out[6] == st2).all()
    assert list(st2[:5]) == [0, 0, 2, 2, st2[4]] and pa2[0] == int(tpn[live[0]]) << 12
    assert pa2[1] == (int(tpn[live[1]]) << 12) | 0xFFF and pa2[2] == pa2[3] == 0xFFFFFFFF


# ---- rv32-instr-mix-atomics ----

@pytest.mark.parametrize("policy, grid", [("lockstep", None), ("random", 3)])
def test_instr_mix(policy, grid):
    n = 3000
    p = tp.get("probe/rv32-instr-mix-atomics")
    if grid is not None:                                    # the grid-stride loop: 4 words a thread
        p = dataclasses.replace(p, grid=lambda n: grid)
    host = p.args(n, np.random.default_rng(1))
    out = _run(p, host, {}, n, 0, policy)[0]
    c, r = tp._p108_im_ref(host[0])
    assert (out[1] == c).all() and (out[2] == r).all() and c.sum() == n and (c > 0).all()


def test_instr_mix_encodings():
    # hand-made words: add, sub, mul, div (funct7 0, 0x20, 1, 1), addi x0 (a nop: no rd
    # count), lui, ecall, an all-zero word (illegal), sw, beq, jal ra, jalr x0
    words = [0x003100B3, 0x40310133, 0x023101B3, 0x02314233, 0x00000013, 0x000122B7, 0x00000073, 0x00000000,
             0x00112023, 0x00208463, 0x008000EF, 0x00008067]
    code = np.array(words, np.uint32)
    host = [code, np.zeros(tp.P108_IM_CLASSES, np.uint32), np.zeros(32, np.uint32), np.int32(len(code))]
    out = run("probe/rv32-instr-mix-atomics", host, len(code))
    assert list(out[1]) == [1, 0, 1, 1, 1, 0, 1, 1, 2, 2, 1, 1]
    want = np.zeros(32, np.uint32)
    want[[1, 2, 3, 4, 5, 1]] += np.uint32(1)
    want[1] = 2
    assert (out[2] == want).all()
    c, r = tp._p108_im_ref(code)
    assert (c == out[1]).all() and (r == want).all()


# ---- scoreboard-config-sweep ----

def test_scoreboard():
    rng = np.random.default_rng(2)
    n = 150                                                 # 2 blocks, the last partial
    host = tp._p108_sb_args(n, rng, length=300)
    out = run("probe/scoreboard-config-sweep", host, n)
    cy, stl = tp._p108_sb_ref(host[0], host[1])
    assert (out[2] == cy).all() and (out[3] == stl).all() and len(set(cy)) > n // 2


def test_scoreboard_edges():
    # three dependent DIVs (x1 = x1 / x1 ...), an independent DIV (waits for the divider),
    # a missing load, a use of it, a mispredicted branch
    def ins(op, rd=0, r1=0, r2=0, bit=0):
        return op | rd << 3 | r1 << 8 | r2 << 13 | bit
    prog = np.array([ins(2, 1, 1, 1), ins(2, 1, 1, 1), ins(2, 1, 1, 1), ins(2, 2, 3, 3), ins(3, 4, 5, 0, 1 << 18),
                     ins(0, 6, 4, 4), ins(5, 0, 6, 0, 1 << 19), ins(0, 7, 0, 0)], np.uint32)
    cfg = np.array([[1, 3, 10, 2, 1, 1, 4, 1, 20, 5], [1, 2, 30, 1, 1, 1, 2, 1, 100, 1]], np.int32)
    host = [prog, cfg.ravel(), np.zeros(2, np.int32), np.zeros(2, np.int32), np.int32(len(prog)), np.int32(2)]
    out = run("probe/scoreboard-config-sweep", host, 2)
    cy, stl = tp._p108_sb_ref(prog, cfg)
    assert (out[2] == cy).all() and (out[3] == stl).all()
    # config 0: divs issue at 1, 11, 21, 31 (the 4th waits for the divider), the load at
    # 32 (ready 54), the ALU at 54 (ready 55), the branch at 55 (+5), the last ALU at 61
    assert cy[0] == 62 and stl[0] == 9 + 9 + 9 + 21 + 0
