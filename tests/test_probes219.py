"""probe-unseen217's kernels (kernels_cuda/probes219.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import math
import re

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/cc-dfa-lex-chunks-const", "probe/cc-bracket-depth-hillis-steele", "probe/cc-symtab-fnv-cas-intern",
       "probe/cc-bytecode-vm-switch-local", "probe/cc-liveness-bitvec-syncor", "probe/cc-const-fold-double-struct"]

U64 = np.uint64


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen217"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes219.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- references ----

# a C tokenizer by regular expressions, written apart from the DFA: comments, # lines,
# strings, character literals, identifiers, numbers, operator runs ('*' or an operator
# character, then operator characters), '/' runs, blanks, any other single character
_TOKEN = re.compile(rb'//[^\n]*|/\*.*?(?:\*/|\Z)|#[^\n]*|"(?:\\.|[^"\\\n])*"?|\'[^\'\n]*\'?|[A-Za-z_][A-Za-z_0-9]*'
                    rb'|[0-9][A-Za-z_0-9]*(?:\.[A-Za-z_0-9]*)?|[-+<>=!&|^%~?*][-+<>=!&|^%~?]*|/[-+<>=!&|^%~?]*'
                    rb'|[ \t\r\n\v\f]+|.', re.S)


def _regex_tokens(text):
    return sum(1 for t in _TOKEN.findall(bytes(text)) if not t.isspace())


def _lex_chunks(text, chunk=256):
    """For every chunk and start state: (end state, tokens begun), vectorised over chunks
    and start states together."""
    cls = tp._p219_lx_class()
    delta = tp._p219_lx_delta().reshape(12, 16).astype(np.int64)
    n = len(text)
    nch = -(-n // chunk)
    st = np.tile(np.arange(12), (nch, 1))
    cnt = np.zeros((nch, 12), np.int64)
    for j in range(chunk):
        pos = np.arange(nch) * chunk + j
        ok = pos < n
        c = cls[text[np.minimum(pos, max(n - 1, 0))]].astype(np.int64)[:, None]
        t = delta[st, c]
        cnt += np.where(ok[:, None], t >> 7, 0)
        st = np.where(ok[:, None], t & 0x7f, st)
    return st, cnt


def _compose(ends, cnts, s=0):
    """The chunks' maps applied in order from state s: (final state, tokens)."""
    tot = 0
    for e, c in zip(ends, cnts):
        tot += int(c[s])
        s = int(e[s])
    return s, tot


def _fnv1a64(names):
    """64-bit FNV-1a of each byte string, 0 mapped to 1."""
    out = []
    for b in names:
        h = 14695981039346656037
        for ch in b:
            h = ((h ^ ch) * 1099511628211) & 0xffffffffffffffff
        out.append(h or 1)
    return out


def _vm_interp(code, start, a, b):
    """A plain reading of the bytecode: (result, instructions run)."""
    stack, loc = [], [a, b, 0, 0]
    pc, n = start, 0
    while n < tp.P219_VM_MAX_STEPS:
        w = int(code[pc])
        op, arg = w & 0xff, (w - (1 << 32) if w >> 31 else w) >> 8
        pc += 1
        n += 1
        name = [k for k, v in tp.P219_OPC.items() if v == op][0]
        if name == "HALT":
            return (stack[-1] if stack else 0), n
        if name in ("PUSH", "LOAD", "DUP"):
            if len(stack) >= tp.P219_VM_STACK:
                return tp.P219_VM_ERROR, n
            stack.append(int(arg) if name == "PUSH" else loc[arg] if name == "LOAD" else stack[-1])
        elif name == "STORE":
            loc[arg] = stack.pop()
        elif name == "POP":
            stack.pop()
        elif name == "JMP":
            pc = int(arg)
        elif name == "JZ":
            if stack.pop() == 0:
                pc = int(arg)
        elif name == "JNZ":
            if stack.pop() != 0:
                pc = int(arg)
        else:
            y, x = stack.pop(), stack.pop()
            if name in ("DIV", "MOD") and y == 0:
                return tp.P219_VM_ERROR, n
            q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1) if y else 0
            r = {"ADD": x + y, "SUB": x - y, "MUL": x * y, "DIV": q, "MOD": x - q * y if y else 0, "LT": int(x < y),
                 "EQ": int(x == y), "AND": x & y, "SHR": x >> y}[name]
            stack.append(int(np.int64(r).astype(np.int32)))
    return tp.P219_VM_ERROR, n


def _vm_math(p, a, b):
    """What program p computes, by Python's own arithmetic."""
    def fib(x):
        f0, f1 = 0, 1
        for _ in range(x):
            f0, f1 = f1, (f0 + f1) % 1000003
        return f0

    def prime(x):
        return int(x >= 2 and all(x % d for d in range(2, math.isqrt(x) + 1)))
    return [lambda: math.gcd(a, b), lambda: int(str(a)[::-1]) if a else 0, lambda: sum(map(int, str(a))),
            lambda: math.isqrt(a), lambda: fib(a), lambda: bin(a).count("1"), lambda: prime(a),
            lambda: pow(a, b, 1009)][p]()


def _liveness_ref(fstart, succ, use, dfn, depth):
    """Per function: live-in / live-out as Python ints (128 bits) by a worklist to the
    least fixed point, the Jacobi rounds the kernel takes, the most variables live out of a
    block, the spill costs (float64)."""
    W = tp.P219_LV_WORDS
    word = lambda a, k: sum(int(a[k * W + j]) << (32 * j) for j in range(W))
    res = []
    for f in range(len(fstart) - 1):
        b0, nb = int(fstart[f]), int(fstart[f + 1] - fstart[f])
        U = [word(use, b0 + b) for b in range(nb)]
        D = [word(dfn, b0 + b) for b in range(nb)]
        S = [[int(s) for s in succ[2 * (b0 + b):2 * (b0 + b) + 2] if s >= 0] for b in range(nb)]
        pred = [[] for _ in range(nb)]
        for b in range(nb):
            for s in S[b]:
                pred[s].append(b)
        lin, lout = list(U), [0] * nb
        work = list(range(nb))
        while work:
            b = work.pop()
            o = 0
            for s in S[b]:
                o |= lin[s]
            i = U[b] | (o & ~D[b])
            lout[b] = o
            if i != lin[b]:
                lin[b] = i
                work.extend(pred[b])
        for b in range(nb):                                  # out from the final ins
            lout[b] = 0
            for s in S[b]:
                lout[b] |= lin[s]
        # Jacobi rounds
        ji, jo, it = list(U), [0] * nb, 0
        while True:
            no = [0] * nb
            for b in range(nb):
                for s in S[b]:
                    no[b] |= ji[s]
            ni = [U[b] | (no[b] & ~D[b]) for b in range(nb)]
            it += 1
            ch = ni != ji or no != jo
            ji, jo = ni, no
            if not ch:
                break
        assert ji == lin and jo == lout
        cost = np.zeros(W * 32)
        for b in range(nb):
            x = U[b] | D[b]
            for v in range(W * 32):
                if x >> v & 1:
                    cost[v] += 10.0 ** int(depth[b0 + b])
        res.append((lin, lout, it, max(bin(o).count("1") for o in lout), cost))
    return res


def _fold_ref(nodes):
    """(value, constant) of every node, in order, by Python's math; non-finite results,
    divisions by zero and square roots of negatives not folded."""
    n = len(nodes)
    val = np.zeros(n)
    con = np.zeros(n, bool)
    folded = 0
    for k in range(n):
        op = int(nodes["op"][k])
        L, R = int(nodes["left"][k]), int(nodes["right"][k])
        c, v = False, 0.0
        try:
            if op == 0:
                c, v = True, float(nodes["value"][k])
            elif 2 <= op <= 6 and con[L]:
                a = float(val[L])
                c = True
                if op == 2:
                    v = -a
                elif op == 3:
                    c = a >= 0
                    v = math.sqrt(a) if c else 0.0
                elif op == 4:
                    v = math.exp(a)
                elif op == 5:
                    v = abs(a)
                else:
                    v = float(math.floor(a))
            elif op >= 7 and con[L] and con[R]:
                a, b = float(val[L]), float(val[R])
                c = True
                if op == 7:
                    v = a + b
                elif op == 8:
                    v = a - b
                elif op == 9:
                    v = a * b
                elif op == 10:
                    c = b != 0
                    v = a / b if c else 0.0
                elif op == 11:
                    v = min(a, b)
                elif op == 12:
                    v = max(a, b)
                else:
                    v = math.pow(a, b)
        except (OverflowError, ValueError):
            c, v = False, 0.0
        if c and not math.isfinite(v):
            c, v = False, 0.0
        folded += c and op >= 2
        val[k], con[k] = v, c
    return val, con, folded


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # C source: every corpus function's brackets balanced; the DFA's token count equals a
    # regular-expression tokenizer's; blanks, letters, punctuation in C's proportions
    corp = tp._p219_corpus(rng, 60)
    deepest = []
    for f in corp:
        x = np.isin(f, np.frombuffer(b"([{", np.uint8)).astype(int) - np.isin(f, np.frombuffer(b")]}", np.uint8))
        d = np.cumsum(x)
        assert d[-1] == 0 and d.min() == 0 and d.max() >= 1
        deepest.append(d.max())
    assert 3 <= np.median(deepest) and max(deepest) >= 7
    lens = np.array([len(f) for f in corp])
    assert 400 < np.median(lens) < 1600 and lens.max() > 2500
    text = tp._p219_source(1 << 17, rng)
    assert len(text) == 1 << 17 and text.dtype == np.uint8
    ends, cnts = _lex_chunks(text)
    s, ntok = _compose(ends, cnts)
    assert ntok == _regex_tokens(text) and 3.5 < len(text) / ntok < 6
    cls = np.bincount(tp._p219_lx_class()[text], minlength=16) / len(text)
    assert 0.3 < cls[1] < 0.5 and 0.3 < cls[3] < 0.45 and 0.05 < cls[12] < 0.15 and cls[14:].sum() == 0
    # chunks start in many states, but the maps mostly synchronise within a chunk
    assert len(set(ends[:, 0])) >= 5
    # identifiers: Zipf, the short common names first, recent ones repeated
    pool, off, ln, rank, names = tp._p219_st_tokens(100000, rng)
    assert len(set(names)) == len(names) == tp.P219_ST_VOCAB and names[0] == "i"
    f = np.bincount(rank, minlength=len(names)) / len(rank)
    assert 0.09 < f[0] < 0.14 and 0.27 < f[:10].sum() < 0.37 and f[0] / f[9] == pytest.approx(10 ** 1.05, rel=0.3)
    assert (ln == np.array([len(names[r]) for r in rank])).all() and 4.5 < ln.mean() < 6.5 and ln.min() >= 1
    assert all(bytes(pool[off[i]:off[i] + ln[i]]).decode() == names[rank[i]] for i in range(0, 100000, 997))
    assert off[-1] + ln[-1] == len(pool) and (np.diff(off) == ln[:-1]).all()
    def near(r):                                              # the share seen among the last 16
        m = np.zeros(len(r), bool)
        for lag in range(1, 17):
            m[lag:] |= r[lag:] == r[:-lag]
        return m.mean()
    assert 0.4 < near(rank) < 0.55 and near(rng.permutation(rank)) < near(rank) - 0.25
    # test cases: programs' shares and inputs' ranges
    prog, a, b = tp._p219_vm_cases(20000, rng)
    share = np.bincount(prog, minlength=8) / len(prog)
    assert np.allclose(share, tp.P219_VM_PROG_P, atol=0.015)
    for p, lo, hi in ((0, 1, 10 ** 6), (1, 1, 10 ** 9), (3, 1, 10 ** 9), (4, 0, 40), (6, 2, 2000), (7, 0, 10 ** 6)):
        x = a[prog == p]
        assert x.min() >= lo and x.max() <= hi and x.max() > hi // 2
    x = a[prog == 0].astype(float)
    assert 0.4 < (x < 1000).mean() < 0.6                               # log-uniform
    assert (b[prog == 7] > 10 ** 5).mean() > 0.85 and (b[prog == 1] == 0).all()
    # CFGs: sizes, edges within the function, exits, loops
    fstart, succ, use, dfn, depth, nv = tp._p219_lv_funcs(4000, rng)
    nb = np.diff(fstart)
    assert nb.min() == 1 and nb.max() == 64 and 8 <= np.median(nb) <= 12
    fid = np.repeat(np.arange(4000), nb)
    bb = np.arange(fstart[-1]) - fstart[fid]
    s = succ.reshape(-1, 2).astype(np.int64)
    assert ((s == -1) | ((s >= 0) & (s < nb[fid][:, None]))).all()
    assert (s[bb == nb[fid] - 1] == -1).all() and (s[bb < nb[fid] - 1, 0] >= 1).all()
    back = (s[:, 1] >= 0) & (s[:, 1] <= bb)
    assert 0.08 < back.mean() < 0.13 and 0.15 < (s[:, 1] > bb).mean() < 0.3
    assert 3 <= depth.max() <= 4 and 0.6 < (depth == 0).mean() < 0.85 and (depth == 1).mean() > 0.15
    assert 4 <= nv.min() and 100 < nv.max() <= 128 and 20 < nv.mean() < 40
    for st in (use, dfn):
        w = st.reshape(-1, 4)
        pop = np.array([bin(int(x)).count("1") for x in w.ravel()]).reshape(-1, 4).sum(axis=1)
        assert pop.min() >= 1 and 1.8 < pop.mean() < 4
        hi = np.array([max((32 * j + int(w[k, j]).bit_length() - 1) for j in range(4) if w[k, j]) for k in
                       range(0, len(w), 50)])
        assert (hi < nv[fid[::50]]).all()
    # expression trees: post order, arities as the operators say, 40% literal leaves
    nodes, ts = tp._p219_ex_trees(3000, rng)
    sz = np.diff(ts)
    assert 5 <= np.median(sz) <= 9 and sz.max() > 60 and sz.min() == 1
    tid = np.repeat(np.arange(3000), sz)
    k = np.arange(len(nodes))
    op = nodes["op"]
    for side in ("left", "right"):
        c = nodes[side]
        has = c >= 0
        assert (c[has] < k[has]).all() and (c[has] >= ts[tid[has]]).all()
    assert ((nodes["left"] >= 0) == (op >= 2)).all() and ((nodes["right"] >= 0) == (op >= 7)).all()
    leaf = op <= 1
    assert (op[leaf] == 0).mean() == pytest.approx(0.4, abs=0.02)
    assert 0.1 < ((op >= 2) & (op <= 6)).sum() / (op >= 2).sum() < 0.2
    parents = np.bincount(np.concatenate([nodes["left"][nodes["left"] >= 0], nodes["right"][nodes["right"] >= 0]]),
                          minlength=len(nodes))
    assert (parents[ts[1:] - 1] == 0).all() and (np.delete(parents, ts[1:] - 1) == 1).all()   # trees, roots last
    v = nodes["value"][op == 0]
    assert v.min() >= 0 and v.max() == 1024 and (v == np.pi).any()


# ---- dfa-lex-chunks ----

def _check_lex(text, grid=None):
    text = np.asarray(text, np.uint8)
    n = len(text)
    nch = -(-n // 256)
    h = [text, np.int32(n), np.zeros(nch * 12, np.uint8), np.zeros(nch * 12, np.uint16), np.int32(nch)]
    out = run("probe/cc-dfa-lex-chunks-const", h, n, symbols=tp._p219_lx_symbols(n, None), grid=grid)
    ends, cnts = _lex_chunks(text)
    assert (out[2].reshape(-1, 12) == ends).all() and (out[3].reshape(-1, 12) == cnts).all()
    return ends, cnts


def test_dfa_lex():
    # hand-made chunks first: a block comment across the first chunk's edge, a string with an
    # escaped quote, a line comment, an identifier running into a number with an exponent,
    # a character literal; then generated source; one block, the last chunk short
    src = (b"x = a / b;" + b" " * 236 + b"/* c(o)m */ s = \"q\\\"(\" + 3.25f; // end" + b"\n" + b"y" * 230
           + b"1.5e3" + b"'\\n'")
    assert _regex_tokens(src) == 7 + 7 + 4
    rng = np.random.default_rng(1)
    text = np.concatenate([np.frombuffer(src, np.uint8), np.zeros(768 - len(src), np.uint8) + ord(" "),
                           tp._p219_source(96 * 256 + 77, rng)])
    ends, cnts = _check_lex(text)                              # 100 chunks
    assert _compose(ends, cnts) [1] == _regex_tokens(text)
    assert list(ends[0, [0, 6, 9]]) == [8, 6, 9] and list(cnts[0, [0, 6, 9]]) == [7, 0, 0]
    assert (cnts[3:-1, 0] > 20).all() and len(set(ends[3:, 0])) > 4
    _check_lex(np.zeros(0, np.uint8), grid=(1, 1))             # no text: nothing written


# ---- bracket-depth ----

def _check_bd(text, grid=None):
    text = np.asarray(text, np.uint8)
    n = len(text)
    nb = max(1, -(-n // 512))
    h = [text, np.int32(n), np.zeros(n, np.int16), np.zeros(nb, np.int32), np.zeros(nb, np.int32),
         np.zeros(6, np.int32)]
    out = run("probe/cc-bracket-depth-hillis-steele", h, n, grid=grid)
    x = np.zeros(nb * 512, np.int64)
    x[:n] = np.isin(text, np.frombuffer(b"([{", np.uint8)).astype(int) - np.isin(text, np.frombuffer(b")]}", np.uint8))
    d = np.cumsum(x.reshape(nb, 512), axis=1)
    assert (out[2] == d.ravel()[:n]).all()
    if n:
        assert (out[3] == d[:, -1]).all() and (out[4] == d.min(axis=1)).all()
    assert list(out[5]) == [int((text == ord(c)).sum()) for c in "()[]{}"]
    return out


def test_bracket_depth():
    rng = np.random.default_rng(2)
    text = tp._p219_source(3 * 512 + 200, rng)                # 4 blocks, the last short
    out = _check_bd(text)
    assert out[2].max() >= 3 and out[5].sum() > 50
    # whole text: the blocks' totals carry the depth across, never below 0 at a function's end
    glob = np.concatenate([[0], np.cumsum(out[3])])[:-1]
    assert (glob + out[4]).min() >= -1 and (np.repeat(glob, 512)[:len(text)] + out[2]).min() >= 0


def test_bracket_depth_edges():
    op = np.full(512, ord("{"), np.uint8)
    out = _check_bd(np.concatenate([op, op[::-1] + 2]))      # 512 deep, then all closed: '}' is '{' + 2
    assert out[2].max() == 512 and out[3][1] == -512 and out[4][1] == -512
    out = _check_bd(np.frombuffer(b")(][x", np.uint8), grid=(1, 1))
    assert list(out[2]) == [-1, 0, -1, 0, 0] and out[4][0] == -1 and out[3][0] == 0
    _check_bd(np.frombuffer(b"(", np.uint8))
    _check_bd(np.zeros(0, np.uint8), grid=(1, 1))


# ---- symtab-fnv-cas-intern ----

def _check_st(pool, off, ln, slots, grid=None):
    n = len(off)
    h = [np.asarray(pool, np.uint8), np.asarray(off, np.int32), np.asarray(ln, np.uint8), np.int32(n),
         np.zeros(slots, U64), np.zeros(slots, np.int32), np.full(slots, 0x7fffffff, np.int32), np.zeros(n, np.int32),
         np.uint32(slots - 1), np.zeros(1, np.int32)]
    out = run("probe/cc-symtab-fnv-cas-intern", h, n, grid=grid)
    keys, count, first, slot_of, maxp = out[4], out[5], out[6], out[7], int(out[9][0])
    hs = _fnv1a64([bytes(pool[o:o + l]) for o, l in zip(off, ln)])
    want = {}
    for i, x in enumerate(hs):
        c, f = want.get(x, (0, i))
        want[x] = (c + 1, f)
    used = np.flatnonzero(keys != 0)
    assert {int(keys[s]) for s in used} == set(want) and len(used) == len(want)
    for s in used:
        assert (count[s], first[s]) == want[int(keys[s])]
    assert (count[keys == 0] == 0).all() and (first[keys == 0] == 0x7fffffff).all()
    assert all(int(keys[slot_of[i]]) == x for i, x in enumerate(hs))
    # linear probing: no empty slot between a key's home and its slot
    dist = []
    for s in used:
        x = int(keys[s])
        home = ((x ^ (x >> 32)) & 0xffffffff) & (slots - 1)
        d = (int(s) - home) % slots
        assert all(keys[(home + j) % slots] != 0 for j in range(d))
        dist.append(d)
    assert maxp == max(dist, default=0)
    return out, hs


def test_symtab():
    rng = np.random.default_rng(3)
    pool, off, ln, rank, names = tp._p219_st_tokens(3000, rng)
    out, _ = _check_st(pool, off, ln, 8192)
    assert out[5].max() > 250                                  # "i"
    _check_st(pool, off, ln, 8192, grid=(2, 1))              # 512 threads, ~6 occurrences each


def test_symtab_collisions():
    names = [b"i", b"j", b"count", b"x1", b"x2", b"node_next", b"a", b"b", b"c", b"tmp"] + \
            [b"v%d" % k for k in range(40)]
    rng = np.random.default_rng(4)
    occ = rng.integers(0, len(names), 600)
    occ[:len(names)] = np.arange(len(names))[::-1]
    ln = np.array([len(names[o]) for o in occ])
    off = np.concatenate([[0], np.cumsum(ln)[:-1]])
    pool = np.frombuffer(b"".join(names[o] for o in occ), np.uint8)
    out, hs = _check_st(pool, off, ln, 64)                    # 50 names in 64 slots: long probes, wrap-around
    assert int(out[9][0]) >= 5
    _check_st(pool[:0], off[:0], ln[:0], 64, grid=(1, 1))    # no identifiers


# ---- bytecode-vm-switch-local ----

def _check_vm(prog, a, b, code=None, starts=None):
    if code is None:
        code, starts = tp._p219_vm_assemble()
    n = len(prog)
    h = [code, starts, np.asarray(prog, np.uint8), np.asarray(a, np.int32), np.asarray(b, np.int32),
         np.zeros(n, np.int32), np.zeros(n, np.int32), np.int32(n)]
    out = run("probe/cc-bytecode-vm-switch-local", h, n)
    ref = [_vm_interp(code, int(starts[p]), int(x), int(y)) for p, x, y in zip(prog, a, b)]
    assert list(out[5]) == [r for r, _ in ref] and list(out[6]) == [s for _, s in ref]
    return out


def test_bytecode_vm():
    rng = np.random.default_rng(5)
    prog, a, b = tp._p219_vm_cases(32, rng)                   # one warp, every program
    prog[:8] = np.arange(8)
    small = prog != 0                                          # smaller inputs: a quicker test
    a = np.where(small & (prog != 5), a % 1000, a).astype(np.int32)
    a[prog == 6] = np.maximum(a[prog == 6] % 400, 2)
    a[prog == 4] %= 25
    b[prog == 7] %= 1000
    out = _check_vm(prog, a, b)
    assert list(out[5]) == [_vm_math(int(p), int(x), int(y)) for p, x, y in zip(prog, a, b)]


def test_bytecode_vm_edges():
    # every program at its edge inputs; then a division by zero and a stack overflow
    cases = [(0, 7, 0), (0, 0, 5), (0, 1071, 462), (1, 0, 0), (1, 1200, 0), (2, 0, 0), (2, 999, 0), (3, 1, 0),
             (3, 0, 0), (3, 99, 0), (3, 100, 0), (4, 0, 0), (4, 1, 0), (4, 20, 0), (5, 0, 0), (5, 2147483647, 0),
             (6, 2, 0), (6, 1, 0), (6, 97, 0), (6, 91, 0), (7, 0, 0), (7, 5, 0), (7, 1009, 3), (7, 2, 1008)]
    prog, a, b = (np.array(x) for x in zip(*cases))
    out = _check_vm(prog, a, b)
    assert list(out[5]) == [_vm_math(int(p), int(x), int(y)) for p, x, y in cases]
    code, starts = tp._p219_vm_assemble(tp.P219_VM_SRC + ["PUSH 1; PUSH 0; DIV; HALT", "L: PUSH 1; JMP L",
                                                          "PUSH 7; PUSH 3; MOD; PUSH -9; PUSH 2; DIV; POP; HALT"])
    out = _check_vm(np.array([8, 9, 10, 0]), np.array([0, 0, 0, 12]), np.array([0, 0, 0, 18]), code, starts)
    assert list(out[5]) == [tp.P219_VM_ERROR, tp.P219_VM_ERROR, 1, 6] and list(out[6][:2]) == [3, 33]


# ---- liveness-bitvec-syncor ----

def _check_lv(fstart, succ, use, dfn, depth):
    nf = len(fstart) - 1
    B = int(fstart[-1])
    h = [np.asarray(fstart, np.int32), np.asarray(succ, np.int8), np.asarray(use, np.uint32),
         np.asarray(dfn, np.uint32),
         np.asarray(depth, np.uint8), np.zeros(B * 4, np.uint32), np.zeros(B * 4, np.uint32), np.zeros(nf, np.int32),
         np.zeros(nf, np.int32), np.zeros(nf * 128, np.float32)]
    out = run("probe/cc-liveness-bitvec-syncor", h, nf)
    ref = _liveness_ref(*h[:5])
    word = lambda a, k: sum(int(a[k * 4 + j]) << (32 * j) for j in range(4))
    for f, (lin, lout, it, ml, cost) in enumerate(ref):
        b0 = int(fstart[f])
        assert [word(out[5], b0 + b) for b in range(len(lin))] == lin
        assert [word(out[6], b0 + b) for b in range(len(lin))] == lout
        assert out[7][f] == it and out[8][f] == ml
        assert np.allclose(out[9][f * 128:(f + 1) * 128], cost, rtol=1e-6, atol=0)
    return out, ref


def _sets(rows):
    """uint32 words of the sets given as lists of variables, one list a block."""
    w = np.zeros((len(rows), 4), np.uint32)
    for b, vs in enumerate(rows):
        for v in vs:
            w[b, v >> 5] |= np.uint32(1 << (v & 31))
    return w.ravel()


def test_liveness():
    rng = np.random.default_rng(6)
    args = tp._p219_lv_funcs(12, rng)
    out, ref = _check_lv(*args[:5])
    assert max(r[2] for r in ref) >= 5 and out[8].max() >= 3


def test_liveness_cases():
    # f0: one block; f1: a loop 1 -> 2 -> 1 carrying v100 and v127 around, used after; f2:
    # 64 blocks in a chain, v0 defined in block 0 and used in block 63 (63 rounds to reach
    # block 0) with v31 / v32 used everywhere at depth 4
    rows_u = [[5]] + [[], [100], [127], [100, 127]] + [[31, 32] for _ in range(63)] + [[0, 31, 32]]
    rows_d = [[5, 6]] + [[100, 127], [100], [], []] + [[0]] + [[] for _ in range(63)]
    succ = [-1, -1] + [1, -1, 2, -1, 1, 3, -1, -1] + sum([[b + 1, -1] for b in range(63)], []) + [-1, -1]
    fstart = [0, 1, 5, 69]
    depth = [0, 0, 1, 1, 0] + [4] * 64
    out, ref = _check_lv(fstart, succ, _sets(rows_u), _sets(rows_d), depth)
    assert ref[1][0][2] == 1 << 100 | 1 << 127 and ref[2][2] >= 64
    assert out[9][128 + 100] == 1 + 10 + 1 and out[9][256 + 31] == 64 * 10 ** 4


# ---- const-fold-double-struct ----

def _check_cf(nodes, ts, grid=None):
    n = len(ts) - 1
    h = [nodes, np.asarray(ts, np.int32), np.int32(n), np.zeros(len(nodes)), np.zeros(len(nodes), np.uint8),
         np.zeros(1, np.int32)]
    out = run("probe/cc-const-fold-double-struct", h, n, grid=grid)
    val, con, folded = _fold_ref(nodes)
    assert (out[4] == con).all() and out[5][0] == folded
    assert np.allclose(out[3], val, rtol=1e-14, atol=0) and (out[3][~con] == 0).all()
    return out, val, con


def test_const_fold():
    rng = np.random.default_rng(7)
    nodes, ts = tp._p219_ex_trees(200, rng)                    # 2 blocks of 128, the last short
    out, val, con = _check_cf(nodes, ts)
    root = ts[1:] - 1
    assert 0.05 < con[root].mean() < 0.5 and out[5][0] > 50
    _check_cf(nodes, ts, grid=(1, 1))                          # one block: 1 or 2 trees a thread


def _tree(spec):
    """Nodes of hand-made trees: spec a list of trees, each a post-order list of
    (op, left, right, value) with children relative to the tree."""
    rows, ts = [], [0]
    for t in spec:
        for op, l, r, v in t:
            rows.append((l + ts[-1] if l >= 0 else -1, r + ts[-1] if r >= 0 else -1, v, op, 0, 0))
        ts.append(len(rows))
    return np.array(rows, tp.P219_EX_NODE), np.array(ts)


def test_const_fold_edges():
    C = lambda v: (0, -1, -1, v)
    V = (1, -1, -1, 0.0)
    spec = [
        [C(1.0), C(0.0), (10, 0, 1, 0)],                       # 1 / 0: left
        [C(2.0), (2, 0, -1, 0), (3, 1, -1, 0)],                # sqrt(-2): left, -2 folded
        [C(1000.0), (4, 0, -1, 0)],                            # exp(1000) overflows: left
        [C(-8.0), C(1 / 3), (13, 0, 1, 0)],                    # pow(-8, 1/3): NaN, left
        [C(0.0), C(-1.0), (13, 0, 1, 0)],                      # pow(0, -1): inf, left
        [C(2.5), (2, 0, -1, 0), (6, 1, -1, 0), (5, 2, -1, 0), C(3.0), (13, 3, 4, 0)],   # |floor(-2.5)|^3 = 27
        [C(3.0), V, (7, 0, 1, 0), C(2.0), (9, 2, 3, 0)],       # (3 + x) * 2: not constant
        [C(1e308), C(10.0), (9, 0, 1, 0)],                     # overflow to inf: left
        [C(0.1), C(0.2), (7, 0, 1, 0), C(7.0), (11, 2, 3, 0), C(-1.0), (12, 4, 5, 0)],
        [V],
        [C(np.pi)],
    ]
    nodes, ts = _tree(spec)
    out, val, con = _check_cf(nodes, ts, grid=(1, 1))
    root = ts[1:] - 1
    assert list(con[root]) == [False] * 5 + [True, False, False, True, False, True]
    assert val[root[5]] == 27.0 and val[root[8]] == 0.30000000000000004 and out[5][0] == 1 + 4 + 3
