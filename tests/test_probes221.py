"""probe-unseen219's kernels (kernels_cuda/probes221.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/mchk-bfs-philo-hash-cas", "probe/mchk-aig-bitsim-smem-local", "probe/mchk-ctmc-tandem-double-shfl",
       "probe/mchk-petri-invariants-u8-ballot", "probe/mchk-cex-backtrace-ffs-u8", "probe/mchk-bitstate-bloom-struct"]

U32 = np.uint32
EMPTY = 0xFFFFFFFF


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen219"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes221.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- references ----

def _digits(s, N):
    """(len, N) stages of packed philosopher states."""
    s = np.asarray(s, np.int64)
    return np.stack([(s >> (2 * i)) & 3 for i in range(N)], axis=1)


def _pack(d):
    return (d.astype(np.int64) << (2 * np.arange(d.shape[1]))).sum(axis=1).astype(U32)


def _fork_free(d, f):
    """Fork f (philosopher f's left, f - 1's right) lies on the table."""
    N = d.shape[1]
    return ~np.isin(d[:, f], (2, 3)) & (d[:, (f - 1) % N] != 3)


def _successors(s, N):
    """{state: set of successors} by the forks' rules."""
    d = _digits(s, N)
    out = {int(x): set() for x in s}
    for i in range(N):
        new = np.full(len(s), -1)
        new[d[:, i] == 0] = 1                                            # think -> hungry
        new[(d[:, i] == 1) & _fork_free(d, i)] = 2                         # pick up the left fork
        new[(d[:, i] == 2) & _fork_free(d, (i + 1) % N)] = 3               # and the right one
        new[d[:, i] == 3] = 0                                            # put both down
        for k in np.flatnonzero(new >= 0):
            e = d[k].copy()
            e[i] = new[k]
            out[int(s[k])].add(int(_pack(e[None])[0]))
    return out


def _all_states(N):
    """Every consistent state by brute force over 4^N: no fork held twice."""
    s = np.arange(4 ** N, dtype=np.int64)
    d = _digits(s, N)
    ok = np.ones(len(s), bool)
    for f in range(N):
        ok &= ~(np.isin(d[:, f], (2, 3)) & (d[:, (f - 1) % N] == 3))
    return s[ok].astype(U32), d[ok].sum(axis=1)


def _probe_ok(table, mask, key):
    h = int(tp._p221_hash(np.array([key], U32))[0]) & mask
    while True:
        if table[h] == key:
            return True
        if table[h] == EMPTY:
            return False
        h = (h + 1) & mask


def _aig_eval(gates, nxt, bad, state, stim):
    """Independent bit-parallel AIG simulation with Python's literal lookups: (state, first, bits)."""
    ni, T = stim.shape[1], stim.shape[2]
    nl = len(nxt)
    v = {0: np.zeros(T, U32)}
    for k in range(nl):
        v[1 + ni + k] = state[k].astype(U32)
    first = np.full(T, -1)
    bits = np.zeros(T, U32)

    def lit(x):
        w = v[int(x) // 2]
        return ~w if int(x) % 2 else w
    for f in range(stim.shape[0]):
        for i in range(ni):
            v[1 + i] = stim[f, i]
        for g, (a, b) in enumerate(gates):
            v[1 + ni + nl + g] = lit(a) & lit(b)
        bw = lit(bad)
        hit = (bw != 0) & (first < 0)
        first[hit] = f
        bits[hit] = bw[hit]
        new = [lit(x) for x in nxt]
        for k in range(nl):
            v[1 + ni + k] = new[k]
    return np.stack([v[1 + ni + k] for k in range(nl)]), first, bits


def _design_model(st, inp):
    """The MAC / FIFO / arbiter design at word level, one step: st, inp dicts of int arrays."""
    prod = inp["a"] * inp["b"]
    en = inp["mac"] & (st["grant"] & 1)
    acc = np.where(inp["clr"] == 1, 0, (st["acc"] + np.where(en == 1, prod, 0)) % 4096)
    timer = np.where(inp["clr"] == 1, 0, (st["timer"] + 1) % 1024)
    full, empty, held = st["cnt"] == 8, st["cnt"] == 0, st["grant"] != 0
    dpush = (inp["push"] == 1) & ~full
    dpop = (inp["pop"] == 1) & ~empty & held
    cnt = np.where(dpop & ~dpush, st["cnt"] - 1, np.where(dpush & ~dpop, st["cnt"] + 1, st["cnt"])) % 16
    grant = np.zeros_like(st["grant"])
    ptr = st["ptr"].copy()
    for k in range(len(ptr)):
        for j in range(4):
            c = (st["ptr"][k] + j) % 4
            if (inp["req"][k] >> c) & 1:
                grant[k] = 1 << c
                ptr[k] = (c + 1) % 4
                break
    l = st["lfsr"]
    fb = 1 - (((l >> 15) ^ (l >> 13) ^ (l >> 12) ^ (l >> 10)) & 1)
    lfsr = ((l << 1) | fb) & 0xFFFF
    bad = full & ((st["grant"] >> 3) & 1 == 1) & ((st["acc"] >> 5) & 15 == 15) & (inp["pop"] == 1) & (inp["push"] == 0)
    return dict(acc=acc, timer=timer, cnt=cnt, ptr=ptr, grant=grant, lfsr=lfsr), bad


_FIELDS = [("acc", 0, 12), ("timer", 12, 10), ("cnt", 22, 4), ("ptr", 26, 2), ("grant", 28, 4), ("lfsr", 32, 16)]
_INPUTS = [("req", 0, 4), ("push", 4, 1), ("pop", 5, 1), ("clr", 6, 1), ("mac", 7, 1), ("a", 8, 4), ("b", 12, 4)]


def _unpack(words, layout, lane):
    """Bit `lane` of the words (rows) as the layout's integer fields."""
    bit = ((words >> U32(lane)) & U32(1)).astype(np.int64)
    return {k: sum(bit[o + j] << j for j in range(w)) for k, o, w in layout}


def _tandem_dense(c):
    """PRISM's tandem model, state by state: the uniformised matrix (dense), the targets, q."""
    m = c + 1
    R = tp.P221_TQ_RATES
    idx = lambda sc, ph, sm: (sc * 2 + ph) * m + sm
    Q = {}
    for sc in range(m):
        for ph in (0, 1):
            for sm in range(m):
                v = idx(sc, ph, sm)
                out = []
                if sc < c:
                    out.append((idx(sc + 1, ph, sm), 4.0 * c))
                if sc > 0 and ph == 0:
                    out.append((idx(sc, 1, sm), R["mu1a"]))
                    if sm < c:
                        out.append((idx(sc - 1, 0, sm + 1), R["mu1b"]))
                if sc > 0 and ph == 1 and sm < c:
                    out.append((idx(sc - 1, 0, sm + 1), R["mu2"]))
                if sm > 0:
                    out.append((idx(sc, ph, sm - 1), R["kappa"]))
                Q[v] = out
    n = 2 * m * m
    q = max(sum(r for _, r in o) for o in Q.values())
    P = np.zeros((n, n))
    for v, o in Q.items():
        for u, r in o:
            P[v, u] += r / q
        P[v, v] += 1 - sum(r for _, r in o) / q
    tgt = np.array([(v % m) == c for v in range(n)])
    return P, tgt, q


def _oat_bytes(st):
    """Jenkins' one-at-a-time over each record's 16 raw bytes (little-endian fields) and the
    64-bit mix of its two halves: the kernel's (h1, h2)."""
    b = st.view(np.uint8).reshape(-1, 16).astype(np.uint64)
    M = np.uint64(0xFFFFFFFF)
    h = np.zeros(len(st), np.uint64)
    for k in range(16):
        h = (h + b[:, k]) & M
        h = (h + (h << np.uint64(10))) & M
        h ^= h >> np.uint64(6)
    h = (h + (h << np.uint64(3))) & M
    h ^= h >> np.uint64(11)
    h = (h + (h << np.uint64(15))) & M
    q = st.view(np.uint64).reshape(-1, 2)

    def mix(z):
        with np.errstate(over="ignore"):
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))
    h2 = (mix(q[:, 0] ^ mix(q[:, 1])) & M) | np.uint64(1)
    return h, h2


def _bloom_bits(st, nbits):
    h1, h2 = _oat_bytes(st)
    return np.stack([(h1 + k * h2) % (1 << 32) % nbits for k in range(tp.P221_BS_K)], axis=1).astype(np.int64)


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # dining philosophers: the generator's states are the brute-force consistent ones
    for N in (3, 5, 7):
        s, lv = _all_states(N)
        g = tp._p221_philo_states(N)
        assert (g == s).all() and (tp._p221_philo_level(g, N) == lv).all()
        assert (tp._p221_philo_counts(N) == np.bincount(lv, minlength=3 * N + 1)).all()
    c13 = tp._p221_philo_counts(13)
    assert c13.sum() == 14835837 and tp._p221_bfs_level(13) == 16 and c13[16] == 1915771
    # the BFS input: the frontier is the largest level, the table exactly the levels up to it
    N = 6
    h = tp._p221_bfs_args(N, rng)
    s, lv = _all_states(N)
    d = tp._p221_bfs_level(N)
    assert sorted(h[0]) == sorted(s[lv == d]) and h[1] == len(h[0]) and h[2] == (lv < d).sum()
    table, mask = h[4], int(h[5])
    assert len(table) == mask + 1 >= 2 * len(s)
    assert sorted(table[table != EMPTY]) == sorted(s[lv <= d])
    assert all(_probe_ok(table, mask, int(k)) for k in s[lv <= d])
    # the BFS tree: levels in order, each parent one level up and one philosopher back
    state, parent, lvl = tp._p221_bfs_tree(7, rng)
    s7, lv7 = _all_states(7)
    assert sorted(state) == sorted(s7) and (np.diff(lvl) >= 0).all() and parent[0] == -1 and state[0] == 0
    assert (lvl[parent[1:]] == lvl[1:] - 1).all() and (lvl == _digits(state, 7).sum(axis=1)).all()
    ds, dp = _digits(state[1:], 7), _digits(state[parent[1:]], 7)
    diff = ds - dp
    assert ((diff == 1).sum(axis=1) == 1).all() and ((diff != 0).sum(axis=1) == 1).all()
    moved = np.bincount(np.argmax(diff, axis=1), minlength=7)
    assert moved.min() > 0.9 * moved.mean()                      # the philosopher stepped back: any of them
    lone = (ds > 0).sum(axis=1) == 1                             # one choice only: the busy one
    assert (np.argmax(diff, axis=1)[lone] == np.argmax(ds, axis=1)[lone]).all()
    tg = tp._p221_cx_targets(500, state, 7, rng)
    assert (np.diff(tg) >= 0).all() and ((_digits(state[tg], 7) == 3).sum(axis=1) >= 3).all()
    # the AIG is the design: its simulation matches the word-level model, lane by lane
    gates, nxt, bad = tp._p221_aig_design()
    assert 300 < len(gates) < tp.P221_AIG_MAXAND and len(nxt) == 48 and (gates < 2 * (1 + 16 + 48 + np.arange(
        len(gates)))[:, None]).all()
    T, F = 4, 60
    stim = tp._p221_aig_stim(T, F, rng)
    words = np.zeros((48, T), U32)
    hits = 0
    for f in range(F):
        new, _, bw = tp._p221_aig_run(gates, nxt, bad, words, stim[f:f + 1])
        for lane in (0, 7, 31):
            st = _unpack(words, _FIELDS, lane)
            inp = _unpack(stim[f], _INPUTS, lane)
            want, wbad = _design_model({k: np.atleast_1d(v) for k, v in st.items()},
                                       {k: np.atleast_1d(v) for k, v in inp.items()})
            got = _unpack(new, _FIELDS, lane)
            assert all((got[k] == want[k]).all() for k in got), (f, lane)
            assert (((bw >> U32(lane)) & U32(1)) == wbad).all()
            hits += int(wbad.sum())
        words = new
    assert _unpack(words, _FIELDS, 5)["timer"].max() > 0
    # the stimuli's biases
    st = tp._p221_aig_stim(256, 4, rng)
    ones = lambda w: np.unpackbits(w.view(np.uint8)).mean()
    for i, p in [(0, 3 / 8), (3, 3 / 8), (4, 5 / 8), (5, 1 / 4), (6, 1 / 128), (7, 1 / 2), (12, 1 / 2)]:
        assert ones(st[:, i]) == pytest.approx(p, abs=0.01 + 0.1 * p)
    # the warm-up leaves a few percent of the threads near the bug
    h = tp._p221_aig_args(512, rng)
    _, first, _ = tp._p221_aig_run(gates, nxt, bad, h[6].reshape(48, 512), h[7].reshape(8, 16, 512))
    assert 0.01 < (first >= 0).mean() < 0.2
    # tandem: the generator's CSR is PRISM's model, uniformised; x after K0 steps
    c = 7
    rowptr, col, val, tgt, q = tp._p221_tandem(c)
    P, ttgt, qq = _tandem_dense(c)
    A = np.zeros_like(P)
    for v in range(len(tgt)):
        assert (np.diff(col[rowptr[v]:rowptr[v + 1]]) > 0).all()
        A[v, col[rowptr[v]:rowptr[v + 1]]] = val[rowptr[v]:rowptr[v + 1]]
    assert np.allclose(A, P, rtol=0, atol=1e-15) and (tgt == ttgt).all()
    assert q == pytest.approx(4 * c + 6, rel=1e-15) and qq == pytest.approx(q, rel=1e-15)
    assert np.allclose(A.sum(axis=1), 1, atol=1e-14) and (val > 0).all()
    h = tp._p221_tq_args(c)
    x = ttgt.astype(float)
    for _ in range(tp.P221_TQ_K0):
        x = np.where(ttgt, 1.0, P @ x)
    sm = np.arange(len(x)) % (c + 1)
    assert np.allclose(h[4], x, rtol=1e-14, atol=0) and (h[4][sm < c - tp.P221_TQ_K0] == 0).all()
    assert (h[4][tgt != 0] == 1).all() and ((h[4] > 0) & (h[4] < 1)).sum() > 2 * (c + 1)
    assert 0 < h[7] < 1e-20
    # Petri markings: invariants hold except in about P221_PN_BAD of them
    sym = tp._p221_pn_symbols()
    M = tp._p221_pn_markings(200000, rng).astype(np.int64)
    W, tot = sym["c_pn_weight"].astype(np.int64), sym["c_pn_total"]
    broken = (M @ W.T != tot).any(axis=1)
    assert broken.mean() == pytest.approx(tp.P221_PN_BAD, rel=0.15)
    ok = M[~broken]
    for j, (K, B) in enumerate(zip(tp.P221_PN_K, tp.P221_PN_B)):
        o = 8 * j
        assert ok[:, o + 2].mean() == pytest.approx(tp.P221_PN_PWRITE, abs=0.01)
        rd = ok[ok[:, o + 2] == 0, o + 1]
        assert rd.mean() == pytest.approx(K * tp.P221_PN_PREAD, rel=0.02) and rd.max() <= K
        assert ok[:, o + 4].mean() == pytest.approx(B * tp.P221_PN_PBUF[0], rel=0.02)
        assert ok[:, o + 7].mean() == pytest.approx(B * tp.P221_PN_PBUF[3], rel=0.03)
    # bitstate: the pool's fields, the batch's revisits
    pool = tp._p221_bs_pool(100000, rng)
    pcs = (pool["pc"][:, None] >> (4 * np.arange(8))) & 15
    assert pcs.max() == 9 and (pcs == 0).mean() == pytest.approx(0.4 / (1 - 0.6 ** 10), abs=0.01)
    assert pool["seq"].max() == 1023 and ((pool["seq"].astype(int) - pool["ack"]) % 1024).mean() == pytest.approx(
        1.5, rel=0.05)
    assert (pool["chan"] == 0).mean() == pytest.approx(0.6, abs=0.01) and ((pool["chan"] & 0x7F) <= 12).all()
    st, filt = tp._p221_bs_batch(50000, rng, bits=24)
    b = _bloom_bits(st, 1 << 24)
    inside = ((filt[b >> 5] >> (b & 31).astype(U32)) & 1).all(axis=1)
    assert inside.mean() == pytest.approx(tp.P221_BS_REVISIT, abs=0.02)
    assert 0.3 < len(np.unique(st.view(np.uint64).reshape(-1, 2), axis=0)) / len(st) < 0.9   # revisits in the batch


# ---- mchk-bfs-philo-hash-cas ----

def _check_bfs(h, N, grid=None):
    before = h[4].copy()
    out = run("probe/mchk-bfs-philo-hash-cas", h, N, grid=grid)
    front, nf, base = h[0], int(h[1]), int(h[2])
    mask = int(h[5])
    seen = set(int(k) for k in before[before != EMPTY])
    succ = _successors(front, N)
    want = set().union(*succ.values()) - seen if nf else set()
    cnt = int(out[8][0])
    got = out[6][:cnt]
    assert cnt == len(want) and set(int(x) for x in got) == want
    assert (out[6][cnt:] == 0).all() and (out[7][cnt:] == 0).all()
    for x, p in zip(got, out[7][:cnt]):
        assert base <= p < base + nf and int(x) in succ[int(front[p - base])]
    table = out[4]
    assert set(int(k) for k in table[table != EMPTY]) == seen | want
    assert (table[before != EMPTY] == before[before != EMPTY]).all()               # nothing moved
    assert all(_probe_ok(table, mask, k) for k in want)
    return out


def test_bfs_expand():
    rng = np.random.default_rng(1)
    N = 7                                                        # 1253 frontier states: 5 blocks
    h = tp._p221_bfs_args(N, rng)
    s, lv = _all_states(N)
    out = _check_bfs(h, N)
    d = tp._p221_bfs_level(N)
    assert sorted(out[6][:out[8][0]]) == sorted(s[lv == d + 1])


def test_bfs_expand_cases():
    rng = np.random.default_rng(2)
    N = 4
    s, lv = _all_states(N)
    d = 4
    front = rng.permutation(s[lv == d])
    seen = rng.permutation(s[lv <= d])
    table = np.full(128, EMPTY, U32)                             # 114 of 128 slots at the end: long runs, wrapping
    table[116:] = 0x7F000000 + np.arange(12, dtype=U32)         # the last slots another model's keys
    for k in seen:
        hh = int(tp._p221_hash(np.array([k], U32))[0]) & 127
        while table[hh] != EMPTY:
            hh = (hh + 1) & 127
        table[hh] = k
    mk = lambda fr: [fr, np.int32(len(fr)), np.int32((lv < d).sum()), np.int32(N), table.copy(), np.uint32(127),
                     np.zeros(64, U32), np.zeros(64, np.int32), np.zeros(1, np.int32)]
    out = _check_bfs(mk(front), N, grid=(1, 1))
    assert out[8][0] == (lv == d + 1).sum()
    fill = np.flatnonzero(out[4] != EMPTY)
    home = tp._p221_hash(out[4][fill]) & U32(127)
    assert (fill < home).any() and ((fill - home.astype(int)) % 128).max() > 10     # runs wrapped past the end
    out = _check_bfs(mk(front[:0]), N, grid=(1, 1))             # an empty frontier
    assert out[8][0] == 0 and (out[4] == table).all()
    # three philosophers: each frontier state's successors all new or all old
    N = 3
    h = tp._p221_bfs_args(N, rng)
    _check_bfs(h, N)


# ---- mchk-aig-bitsim-smem-local ----

def _check_aig(h, T, F):
    out = run("probe/mchk-aig-bitsim-smem-local", h, T)
    gates = h[0].reshape(-1, 2)
    st, first, bits = _aig_eval(gates, h[2], int(h[5]), h[6].reshape(48, T), h[7].reshape(F, 16, T))
    assert (out[10].reshape(48, T) == st).all()
    assert (out[11] == first).all() and (out[12] == bits).all() and out[13][0] == (first >= 0).sum()
    return first


def test_aig_sim():
    rng = np.random.default_rng(3)
    T, F = 100, 2                                                # a block and a part-full one
    h = tp._p221_aig_args(T, rng, nframe=F, warm=30)
    st = h[6].reshape(48, T)
    st[22:26, :40] = np.array([0, 0, 0, 1], U32)[:, None] * U32(EMPTY)    # FIFO full in every lane
    st[28:32, :40] = np.array([0, 0, 0, 1], U32)[:, None] * U32(EMPTY)    # grant 3 held
    st[5:9, :40] = U32(EMPTY)                                    # acc's bits 8..5 set
    first = _check_aig(h, T, F)
    assert (first[:40] >= 0).sum() > 20 and (first[40:] >= 0).sum() < 20


# ---- mchk-ctmc-tandem-double-shfl ----

def _check_tq(h, c, grid=None):
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in h]
    out = run("probe/mchk-ctmc-tandem-double-shfl", h, c, grid=grid)
    P, tgt, _ = _tandem_dense(c)
    y = np.where(tgt, 1.0, P @ before[4])
    assert np.allclose(out[5], y, rtol=1e-14, atol=1e-300)
    assert (out[5][tgt] == 1).all() and (out[5][y == 0] == 0).all()
    assert np.allclose(out[6], before[6] + float(h[7]) * y, rtol=1e-14, atol=1e-300)
    md = np.uint64(out[9][0]).view(np.float64)
    assert md == pytest.approx(np.abs(y - before[4]).max(), rel=1e-13, abs=4e-16)     # row sums 1 to round-off
    return out


def test_ctmc_bounded_until():
    c = 15                                                       # 512 states: 2 blocks
    h = tp._p221_tq_args(c)
    out = _check_tq(h, c)
    h2 = tp._p221_tq_args(c)
    out2 = _check_tq(h2, c, grid=(1, 1))                         # 2 rows a thread
    assert (out2[5] == out[5]).all() and out2[9][0] == out[9][0]


def test_ctmc_bounded_until_cases():
    c = 4
    rowptr, col, val, tgt, _ = tp._p221_tandem(c)
    ns = len(tgt)
    rng = np.random.default_rng(4)
    x = rng.random(ns)
    x[tgt != 0] = 1.0
    h = [rowptr, col, val, tgt, x, np.zeros(ns), np.zeros(ns), np.float64(0.25), np.int32(ns), np.zeros(1, np.uint64)]
    _check_tq(h, c)
    x = np.ones(ns)                                              # the fixpoint of all ones: no change
    h = [rowptr, col, val, tgt, x, np.zeros(ns), np.ones(ns), np.float64(0.5), np.int32(ns), np.zeros(1, np.uint64)]
    out = _check_tq(h, c)
    assert out[9][0] < np.float64(1e-15).view(np.uint64) and np.allclose(out[6], 1.5, rtol=1e-15)


# ---- mchk-petri-invariants-u8-ballot ----

def _pn_reference_weights():
    """The 12 invariants written out place by place."""
    W, tot = [], []
    for j, (K, B) in enumerate(zip(tp.P221_PN_K, tp.P221_PN_B)):
        idle, rd, wr, lock, em, fu, pb, cb = range(8 * j, 8 * j + 8)
        row = np.zeros(32, int)
        row[[idle, rd, wr]] = 1
        W.append(row)
        tot.append(K)
        row = np.zeros(32, int)
        row[lock], row[rd], row[wr] = 1, 1, K
        W.append(row)
        tot.append(K)
        row = np.zeros(32, int)
        row[[em, fu, pb, cb]] = 1
        W.append(row)
        tot.append(B)
    return np.array(W), np.array(tot)


def _pn_ref(M):
    M = M.reshape(-1, 32).astype(np.int64)
    W, tot = _pn_reference_weights()
    mask = ((M @ W.T != tot) << np.arange(12)).sum(axis=1)
    for j in range(4):
        w, r = M[:, 8 * j + 2], M[:, 8 * j + 1]
        mask |= ((w > 1) | ((w > 0) & (r > 0))).astype(np.int64) << (12 + j)
    return mask


def _check_pn(M, grid=None):
    n = len(M) // 32
    h = [M, np.int32(n), np.zeros(n, np.uint16), np.zeros(16, np.int32), np.full(1, tp.P221_PN_NONE, np.int32)]
    out = run("probe/mchk-petri-invariants-u8-ballot", h, n, symbols=tp._p221_pn_symbols(), grid=grid)
    mask = _pn_ref(M)
    assert (out[2] == mask).all()
    assert (out[3] == ((mask[:, None] >> np.arange(16)) & 1).sum(axis=0)).all()
    bad = np.flatnonzero(mask)
    assert out[4][0] == (bad[0] if len(bad) else tp.P221_PN_NONE)
    return mask


def test_petri_check():
    rng = np.random.default_rng(5)
    W, tot = _pn_reference_weights()
    sym = tp._p221_pn_symbols()
    assert (sym["c_pn_weight"] == W).all() and (sym["c_pn_total"] == tot).all()
    M = tp._p221_pn_markings(3000, rng, bad=0.05)                # 12 blocks, the last part full
    mask = _check_pn(M.ravel())
    assert (mask != 0).mean() == pytest.approx(0.05, abs=0.015) and (mask >> 12).any()


def test_petri_check_cases():
    rng = np.random.default_rng(6)
    M = tp._p221_pn_markings(70, rng, bad=0.0)                   # all fine: nothing counted, no first
    assert (_check_pn(M.ravel()) == 0).all()
    M[69, 2] = 2                                                 # two writers (the invariants break too)
    M[33, 8 + 1] += 1                                            # a reader beside ... 
    M[33, 8 + 2] = 1                                             # ... a writer
    M[40, 24 + 3] = 255                                          # a lock place overflowing a byte's worth
    M[5, 16 + 4] += 1                                            # a buffer slot too many
    mask = _check_pn(M.ravel(), grid=(1, 1))
    assert (mask >> 12 & 1)[69] == 1 and (mask >> 13 & 1)[33] == 1 and mask[40] == 1 << 10 and mask[5] == 1 << 8
    assert (mask != 0).sum() == 4


# ---- mchk-cex-backtrace-ffs-u8 ----

def _cx_ref(state, parent, target, M=tp.P221_CX_MAXLEN):
    tr = np.zeros((len(target), M), U32)
    act = np.zeros((len(target), M), np.uint8)
    ln = np.zeros(len(target), np.int64)
    for t, v in enumerate(target):
        path = []
        while v >= 0:
            path.append(v)
            v = parent[v]
        path = path[:M][::-1]                                    # the states nearest the bad one
        ln[t] = len(path)
        for k, u in enumerate(path):
            tr[t, k] = state[u]
            p = parent[u]
            if p < 0:
                act[t, k] = tp.P221_CX_NOACT
            else:
                d = int(state[u]) ^ int(state[p])
                act[t, k] = ((d & -d).bit_length() - 1) // 2           # the lowest changed bit's philosopher
    return tr, act, ln


def _check_cx(state, parent, target, grid=None):
    n = len(target)
    M = tp.P221_CX_MAXLEN
    h = [state, parent, target, np.int32(n), np.zeros(n * M, U32), np.zeros(n * M, np.uint8), np.zeros(n, np.int32),
         np.zeros(M + 1, np.int32)]
    out = run("probe/mchk-cex-backtrace-ffs-u8", h, n, grid=grid)
    tr, act, ln = _cx_ref(state, parent, target)
    assert (out[4].reshape(n, M) == tr).all() and (out[5].reshape(n, M) == act).all()
    assert (out[6] == ln).all() and (out[7] == np.bincount(ln, minlength=M + 1)).all()
    return out


def test_cex_backtrace():
    rng = np.random.default_rng(7)
    N = 6
    h = tp._p221_cx_args(300, rng, nphil=N)                      # 3 blocks, the last part full
    out = _check_cx(h[0], h[1], h[2])
    lv = tp._p221_philo_level(h[0][h[2]], N)
    assert (out[6] == lv + 1).all()
    act = out[5].reshape(300, -1)
    for t in range(300):                                         # each step moves its philosopher one stage on
        k = int(out[6][t])
        tr = _digits(out[4].reshape(300, -1)[t, :k], N)
        assert all(((tr[i] - tr[i - 1]) % 4)[act[t, i]] == 1 for i in range(1, k))


def test_cex_backtrace_cases():
    # a chain of 100 Gray-code states (one bit apart): cut to the 64 nearest the bad state
    g = np.arange(100)
    state = (g ^ (g >> 1)).astype(U32)
    parent = (g - 1).astype(np.int32)
    target = np.array([99, 0, 63, 64, 1], np.int32)              # longer than 64, the root, 64, 65 and 2 states
    out = _check_cx(state, parent, target, grid=(1, 1))
    assert list(out[6]) == [64, 1, 64, 64, 2] and out[5][64] == tp.P221_CX_NOACT
    out = _check_cx(state, parent, target[:0], grid=(1, 1))     # no targets
    assert (out[7] == 0).all()


# ---- mchk-bitstate-bloom-struct ----

def _check_bs(st, filt, nbits, grid):
    n = len(st)
    before = filt.copy()
    h = [st, np.int32(n), filt, np.uint32(nbits - 1), np.zeros(n, np.uint8), np.zeros(1, np.int32)]
    out = run("probe/mchk-bitstate-bloom-struct", h, n, grid=grid)
    b = _bloom_bits(st, nbits)
    want = before.copy()
    for k in range(b.shape[1]):
        np.bitwise_or.at(want, b[:, k] >> 5, (np.ones(n, U32) << (b[:, k] & 31).astype(U32)))
    assert (out[2] == want).all()
    new = out[4]
    assert set(np.unique(new)) <= {0, 1} and new.sum() == out[5][0]
    was = ((before[b >> 5] >> (b & 31).astype(U32)) & 1).astype(bool)
    assert (new[was.all(axis=1)] == 0).all()                     # all its bits set before: not new
    owners = {}
    for i in range(n):
        for x in set(b[i]):
            owners.setdefault(int(x), set()).add(i)
    for i in range(n):                                           # a clear bit no other state has: new
        if any(not was[i, k] and len(owners[int(b[i, k])]) == 1 for k in range(b.shape[1])):
            assert new[i] == 1
    fresh = [x for x in owners if not (before[x >> 5] >> (x & 31)) & 1]
    assert all(any(new[i] for i in owners[x]) for x in fresh)   # each newly set bit: one state saw it clear
    return out


def test_bitstate_insert():
    rng = np.random.default_rng(8)
    st, filt = tp._p221_bs_batch(3000, rng, bits=20)             # 12 blocks, repeats within the batch
    out = _check_bs(st, filt, 1 << 20, grid=(12, 1))
    assert 0.2 < out[4].mean() < 0.6
    _check_bs(st, filt, 1 << 20, grid=(2, 1))                    # 6 states a thread, by the grid-stride loop


def test_bitstate_insert_cases():
    rng = np.random.default_rng(9)
    pool = tp._p221_bs_pool(40, rng)
    idx = np.array([0, 1, 2, 0, 3, 3, 3, 4] * 40)               # repeats in a warp and across warps
    out = _check_bs(pool[idx], np.zeros(1 << 11, U32), 1 << 16, grid=(1, 1))
    for k in range(5):
        assert out[4][idx == k].sum() >= 1
    assert out[5][0] <= 15
    full = np.full(1 << 5, EMPTY, U32)                           # a saturated filter: nothing new
    out = _check_bs(pool, full, 1 << 10, grid=(1, 1))
    assert out[5][0] == 0
    _check_bs(pool[:0], np.zeros(32, U32), 1 << 10, grid=(1, 1))   # an empty batch
