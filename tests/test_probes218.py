"""probe-unseen216's kernels (kernels_cuda/probes218.cu) give independent references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import math

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/nt-segsieve-bitset-twins", "probe/nt-nextprime-mr64-mont", "probe/nt-pollard-rho-brent-mont",
       "probe/nt-multfunc-spf-local", "probe/nt-legendre-polya-warp-scan", "probe/nt-prime-gaps-cramer-hist"]

F32 = np.float32
U64 = np.uint64


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen216"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes218.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- references ----

def _isprime(x):
    """Exact for x < 3.3e24: trial division below 50, then strong tests to the first 13
    primes (Sorenson and Webster's bound)."""
    x = int(x)
    if x < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47):
        if x % p == 0:
            return x == p
    if x < 47 * 47:
        return True
    d = x - 1
    s = (d & -d).bit_length() - 1
    d >>= s
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41):
        y = pow(a, d, x)
        if y in (1, x - 1):
            continue
        for _ in range(s - 1):
            y = y * y % x
            if y == x - 1:
                break
        else:
            return False
    return True


def _prime_flags(lo, hi):
    """flags[k]: lo + k is prime, lo <= k < hi, by crossing off every multiple (even ones too)."""
    f = np.ones(hi - lo, bool)
    for v in range(lo, min(hi, 2)):
        f[v - lo] = False
    r = math.isqrt(hi) + 1
    small = np.ones(r + 1, bool)
    small[:2] = False
    for p in range(2, r + 1):
        if small[p]:
            small[p * p::p] = False
            s = max(p * p, -(-lo // p) * p)
            f[s - lo::p] = False
    return f


def _factor(m):
    """{p: e} by trial division."""
    out = {}
    p = 2
    while p * p <= m:
        while m % p == 0:
            out[p] = out.get(p, 0) + 1
            m //= p
        p += 1
    if m > 1:
        out[m] = out.get(m, 0) + 1
    return out


def _rho_ref(N):
    """pollard_rho_brent on one N, Montgomery products as a b / 2^64 mod N:
    (factor, steps, tries)."""
    R = 1 << 64
    Ri = pow(R, -1, N)
    mm = lambda a, b: a * b * Ri % N          # noqa: E731
    one = R % N
    steps = 0
    for c in range(1, tp.P218_RHO_TRIES + 1):
        cm = c * one % N
        f = lambda v: (mm(v, v) + cm) % N      # noqa: E731
        y = 2 * one % N
        x = ys = y
        q = one
        g = 1
        r = 1
        while g == 1 and r <= 1 << 16:
            x = y
            for _ in range(r):
                y = f(y)
            steps += r
            k = 0
            while k < r and g == 1:
                ys = y
                lim = min(32, r - k)
                for _ in range(lim):
                    y = f(y)
                    q = mm(q, abs(x - y))
                steps += lim
                g = math.gcd(q, N)
                k += 32
            r *= 2
        if g == N:
            while True:
                ys = f(ys)
                steps += 1
                g = math.gcd(abs(x - ys), N)
                if g != 1:
                    break
        if g not in (1, N):
            return g, steps, c
    return 0, steps, tp.P218_RHO_TRIES


def _legendre(a, p):
    """(a / p) by Euler's criterion."""
    t = pow(a, (p - 1) // 2, p)
    return -1 if t == p - 1 else t


def _jacobi_fact(a, m):
    """(a / m) for odd m as the product of Legendre symbols over m's prime factors."""
    out = 1
    for p, e in _factor(m).items():
        out *= _legendre(a % p, p) ** e
    return out


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # sieve: the odd base primes up to the square root of the range's end, ascending
    h = tp._p218_sv_args(1 << 15, rng)
    base = h[1].astype(np.int64)
    end = int(h[0]) + 2 * ((1 << 15) * tp.P218_SV_ODDS + 32)
    assert int(h[0]) % 2 == 1 and end < 1 << 32 and base[0] == 3 and (np.diff(base) > 0).all()
    assert base[-1] ** 2 <= end < (base[-1] + 300) ** 2 and int(h[2]) == len(base) == 6013
    assert all(_isprime(p) for p in base[::97])
    # next-prime starts: bit lengths 25 .. 62 uniform, uniform within an octave
    s = tp._p218_np_starts(40000, rng)
    bl = np.array([int(v).bit_length() for v in s])
    assert bl.min() == 25 and bl.max() == 62
    assert np.bincount(bl)[25:].min() > 0.8 * 40000 / 38
    frac = np.array([int(v) / 2 ** (b - 1) - 1 for v, b in zip(s, bl)])
    assert abs(frac.mean() - 0.5) < 0.01 and frac.min() >= 0 and frac.max() < 1
    # semiprimes: p 10 .. 16 bits, q 21 .. 40 bits, both prime
    num, p = tp._p218_rho_nums(600, rng)
    q = num // p
    assert (p * q == num).all() and (num % 2 == 1).all() and int(num.max()) < 1 << 56
    pb = np.array([int(v).bit_length() for v in p])
    qb = np.array([int(v).bit_length() for v in q])
    assert pb.min() == 10 and pb.max() == 16 and qb.min() == 21 and qb.max() == 40
    assert all(_isprime(a) and _isprime(b) for a, b in zip(p[:200], q[:200]))
    # the smallest-prime-factor table
    spf = tp._p218_spf(1 << 20)
    xs = rng.integers(2, 1 << 20, 3000)
    assert all(spf[x] == min(_factor(int(x))) for x in xs)
    assert spf[1] == 1 and spf[2] == 2 and spf[(1 << 20) - 3] == (1 << 20) - 3      # 1048573 is prime
    # Legendre moduli: primes of 17 .. 31 bits
    jp = tp._p218_jp_args(800, rng)[0]
    jb = np.array([int(v).bit_length() for v in jp])
    assert jb.min() == 17 and jb.max() == 31 and all(_isprime(v) for v in jp[:300])
    assert 0.2 < (jp % 8 == 1).mean() < 0.3
    # a window's primes: every prime of [lo, lo + span) once, in order; Cramer's mean gap
    lo = 10 ** 12 + 12345
    pr = tp._p218_window_primes(lo, 1 << 18)
    f = _prime_flags(lo, lo + (1 << 18))
    assert (pr.astype(np.int64) - lo == np.flatnonzero(f)).all()
    g = np.diff(pr.astype(np.float64))
    assert (g / np.log(pr[:-1].astype(np.float64))).mean() == pytest.approx(1, rel=0.05)
    h = tp._p218_gs_args(1 << 16, rng)
    assert 10 ** 12 <= int(h[0][0]) < 10 ** 12 + 10 ** 9 + (1 << 16) and int(h[1]) == len(h[0])
    assert 2000 < int(h[1]) < 2800 and len(h[2]) == len(h[0]) - 1
    assert tp.P218_GS_DTYPE.itemsize == 24 and tp._p218_gs_grid(1 << 29) == 4682


# ---- segsieve-bitset-twins ----

def _check_sieve(lo, nseg, base=None, grid=None):
    base = tp._p218_sv_args(nseg, None, lo=lo)[1] if base is None else base
    h = [np.uint32(lo), base, np.int32(len(base)), np.zeros(nseg, np.uint32), np.zeros(nseg, np.uint32),
         np.zeros(2, np.uint64), np.int32(nseg)]
    out = run("probe/nt-segsieve-bitset-twins", h, nseg, grid=grid)
    f = _prime_flags(lo, lo + 2 * (nseg * tp.P218_SV_ODDS + 1))[::2]     # the odd numbers (lo odd)
    segp = f[:-1].reshape(nseg, -1).sum(axis=1)
    twin = (f[:-1] & f[1:]).reshape(nseg, -1).sum(axis=1)
    assert (out[3] == segp).all() and (out[4] == twin).all()
    assert list(out[5]) == [segp.sum(), twin.sum()]
    return out


def test_sieve_from_one():
    # from 1: 1 crossed off, the base primes themselves kept, (3, 5) and (5, 7) twins
    out = _check_sieve(1, 2)
    assert out[3][0] == 1900 - 1 and out[5][0] == 3512 - 1      # pi(16384), pi(32768) less the prime 2


def test_sieve_high():
    lo = tp.P218_SV_LO + 2 * tp.P218_SV_ODDS * 1000
    base = tp._p218_sv_args(1200, None)[1]                        # primes past the square root: never used
    _check_sieve(lo, 1, base=base)


# ---- nextprime-mr64-mont ----

def _check_np(starts, grid=None):
    n = len(starts)
    h = [np.asarray(starts, U64), np.zeros(n, U64), np.zeros(n, np.uint16), np.zeros(n, np.uint8),
         np.zeros(1, np.uint32), np.int32(n)]
    syms = tp._p218_np_symbols(n, None)
    out = run("probe/nt-nextprime-mr64-mont", h, n, symbols=syms, grid=grid)
    want = []
    for x0 in starts:
        x = int(x0) | 1
        while not _isprime(x):
            x += 2
        want.append(x)
    want = np.array(want, U64)
    gap = (want - np.asarray(starts, U64)).astype(np.int64)
    rounds = (want - (np.asarray(starts, U64) | U64(1))) // U64(64) + U64(1)
    assert (out[1] == want).all() and (out[2] == gap).all() and (out[3] == rounds).all()
    assert out[4][0] == gap.max()
    return out


def test_next_prime():
    rng = np.random.default_rng(1)
    s = list(tp._p218_np_starts(5, rng))
    s += [387096134,                     # in the maximal gap of 250 after 387096133: 4 rounds
          3215031751,                    # a strong pseudoprime to bases 2, 3, 5, 7 (151 x 751 x 28351)
          (1 << 61) - 1,                 # a Mersenne prime: gap 0
          (1 << 62) - 203 - 62,          # the 32nd odd candidate 2^62 - 203 the first prime (2^62 - 273 before)
          1000003 - 1]                   # an even start one below a prime
    out = _check_np(s, grid=(2, 1))                      # 8 warps: two of them take a second start
    assert out[2][5] == 249 and out[3][5] == 4 and out[2][7] == 0 and out[2][8] == 62 and out[3][8] == 1


# ---- pollard-rho-brent-mont ----

def _check_rho(num, grid=None):
    n = len(num)
    h = [np.asarray(num, U64), np.zeros(n, U64), np.zeros(n, np.uint32), np.zeros(n, np.uint8), np.int32(n)]
    out = run("probe/nt-pollard-rho-brent-mont", h, n, grid=grid)
    ref = [_rho_ref(int(v)) for v in num]
    assert list(out[1]) == [r[0] for r in ref]
    assert list(out[2]) == [r[1] for r in ref] and list(out[3]) == [r[2] for r in ref]
    return out


def test_pollard_rho():
    rng = np.random.default_rng(2)
    num, p = tp._p218_rho_nums(40, rng)
    extra = np.array([9, 15, 25, 1000003 * 1000033, 65521 ** 2, 3 * 5 * 7 * 11 * 13 * 1009], U64)
    out = _check_rho(np.concatenate([num, extra]))
    f = out[1].astype(object)
    allnum = np.concatenate([num, extra]).astype(object)
    ok = f != 0
    assert ok[:40].all() and all(n % d == 0 and 1 < d < n for n, d in zip(allnum[ok], f[ok]))
    assert (out[2][:40] > 8).all() and (out[3][:40] >= 1).all()


# ---- multfunc-spf-local ----

def _mf_ref(lo, n):
    phi, ali, tau, mu, om = [], [], [], [], []
    for m in range(lo, lo + n):
        fa = _factor(m)
        ph, sg, t = 1, 1, 1
        for p, e in fa.items():
            ph *= p ** (e - 1) * (p - 1)
            sg *= (p ** (e + 1) - 1) // (p - 1)
            t *= e + 1
        phi.append(ph)
        ali.append(sg - m)
        tau.append(t)
        mu.append(0 if any(e > 1 for e in fa.values()) else (-1) ** len(fa))
        om.append(len(fa))
    return [np.array(v, np.int64) for v in (phi, ali, tau, mu, om)]


def _check_mf(lo, n, spf, grid=None):
    h = [spf, np.uint32(lo), np.int32(n), np.zeros(n, np.uint32), np.zeros(n, np.uint32), np.zeros(n, np.uint16),
         np.zeros(n, np.int8), np.zeros(11, np.uint32), np.zeros(3, np.uint32), np.zeros(1, U64)]
    out = run("probe/nt-multfunc-spf-local", h, n, grid=grid)
    phi, ali, tau, mu, om = _mf_ref(lo, n)
    assert (out[3] == phi).all() and (out[4] == ali).all() and (out[5] == tau).all() and (out[6] == mu).all()
    assert (out[7] == np.bincount(om, minlength=11)).all()
    m = np.arange(lo, lo + n)
    cls = np.where(ali < m, 0, np.where(ali == m, 1, 2))
    assert (out[8] == np.bincount(cls, minlength=3)).all() and out[9][0] == phi.sum()
    return out


def test_mult_functions_small():
    # from 1: the perfect numbers 6, 28, 496, 8128; n not a multiple of the block
    n = 8200
    out = _check_mf(1, n, tp._p218_spf(n + 1))
    assert out[8][1] == 4 and out[6][0] == 1 and out[5][0] == 1 and out[4][0] == 0


def test_mult_functions_high():
    lo = (1 << 24) - 700                     # across 2^24: 2^24's 25 divisors
    out = _check_mf(lo, 900, tp._p218_spf(lo + 900))
    assert out[5][700] == 25 and out[3][700] == 1 << 23


# ---- legendre-polya-warp-scan ----

def _check_jp(mods, A, prime=True):
    n = len(mods)
    h = [np.asarray(mods, np.uint32), np.int32(A), np.zeros(n, np.int32), np.zeros(n, np.int32),
         np.zeros(n, np.int32), np.zeros(n, F32), np.int32(n)]
    out = run("probe/nt-legendre-polya-warp-scan", h, n)
    for v, m in enumerate(mods):
        m = int(m)
        chi = np.array([(_legendre(a, m) if prime else _jacobi_fact(a, m)) for a in range(1, A + 1)])
        S = np.cumsum(chi)
        best = int(np.abs(S).max(initial=0))
        nr = np.flatnonzero(chi == -1)
        assert out[2][v] == S[-1] and out[3][v] == best and out[4][v] == (nr[0] + 1 if len(nr) else 0)
        fm = F32(m)
        assert out[5][v] == pytest.approx(F32(best) / (np.sqrt(fm) * np.log(fm)), rel=1e-6)
    return out


def test_legendre_polya():
    rng = np.random.default_rng(3)
    mods = tp._p218_jp_args(6, rng)[0]
    mods = np.concatenate([mods, [65537, 2 ** 31 - 1]]).astype(np.uint32)      # 1 and 7 mod 8: 2 a residue
    out = _check_jp(mods, 700)                              # A not a multiple of 32
    assert out[4][6] == 3 and out[4][7] == 3


def test_jacobi_edges():
    # a complete sum vanishes; composite moduli (Jacobi symbols, zeros where gcd > 1); A < 32
    _check_jp([101, 1019], 100)
    out = _check_jp([101, 1019], 20)
    assert out[4][0] == 2 and out[4][1] == 2                # 101 = 5, 1019 = 3 mod 8: 2 a non-residue
    out = _check_jp([9 * 7, 15, 3 * 3 * 3 * 11, 9], 40, prime=False)
    assert out[4][3] == 0 and out[2][3] == 40 - 13                 # (a / 9) = 1 unless 3 | a


# ---- prime-gaps-cramer-hist ----

def _check_gs(pr, grid=None):
    pr = np.asarray(pr, U64)
    np_ = len(pr)
    h = [pr, np.int32(np_), np.zeros(max(np_ - 1, 1), np.uint16), np.zeros(64, np.uint32),
         np.zeros(1, tp.P218_GS_DTYPE)]
    blocks = grid or (tp._p218_gs_grid(np_ * 28), 1)
    out = run("probe/nt-prime-gaps-cramer-hist", h, np_, grid=blocks)
    g = np.diff(pr.astype(np.int64))
    r = (g / np.log(pr[:-1].astype(np.float64))).astype(F32)
    b = np.minimum(np.floor(r * F32(8)).astype(np.int64), 63)
    st = out[4][0]
    assert (out[2][:len(g)] == g).all() and (out[3] == np.bincount(b, minlength=64)).all()
    assert [st["twins"], st["cousins"], st["sexy"]] == [(g == 2).sum(), (g == 4).sum(), (g == 6).sum()]
    assert st["max_gap"] == g.max(initial=0)
    assert st["sum_r"] == pytest.approx(r.astype(np.float64).sum(), rel=2e-5, abs=1e-6)
    assert st["sum_r2"] == pytest.approx((r.astype(np.float64) ** 2).sum(), rel=2e-5, abs=1e-6)
    return out


def test_prime_gaps():
    rng = np.random.default_rng(4)
    h = tp._p218_gs_args(3 << 16, rng)                  # ~7100 primes: 2 blocks, the last one partial
    _check_gs(h[0])
    _check_gs(h[0][:3000], grid=(1, 1))                 # one block: more turns of the loop


def test_prime_gaps_edges():
    pr = np.array([3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 1327, 1361], U64)    # 1327 .. 1361: a gap of 34
    out = _check_gs(pr)
    assert out[4][0]["twins"] == 5 and out[4][0]["max_gap"] == 1327 - 37 and out[3][63] == 1
    out = _check_gs(pr[:1])                             # one prime: no gaps
    assert out[3].sum() == 0 and out[4][0]["max_gap"] == 0
    _check_gs(pr[:0])
