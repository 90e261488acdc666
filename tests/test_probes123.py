"""probe-unseen121's kernels (kernels_cuda/probes123.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/secded72-popc-correct", "probe/ldpc-bitflip-csr-gather", "probe/rs-chien-gf256-smem",
       "probe/polar-encode-butterfly-smem", "probe/deinterleave-llr-strided", "probe/ber-frame-atomics"]


def copy(host):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in host]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen121"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes123.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 16
    # SECDED(72,64): the layout, clean words decode clean, the error rates
    masks, p2b, pos = tp._p123_sec_tables()
    assert len(set(pos)) == 64 and pos.max() == 71 and not any(p & (p - 1) == 0 for p in pos)
    assert (p2b >= 0).sum() == 64 and sum(bin(int(m)).count("1") for m in masks) == sum(bin(p).count("1") for p in pos)
    d0, d, c, kind = tp._p123_sec_words(n, rng)
    assert d.dtype == np.uint64 and c.dtype == np.uint8
    assert abs((kind == 1).mean() - tp.P123_SEC_P1) < 0.003 and abs((kind == 2).mean() - tp.P123_SEC_P2) < 0.001
    nflip = np.unpackbits((d ^ d0).view(np.uint8)).reshape(n, 64).sum(axis=1) + \
        np.unpackbits(c ^ tp._p123_sec_encode(d0)).reshape(n, 8).sum(axis=1)
    assert (nflip == kind).all()
    assert (tp._p123_sec_encode(d0[kind == 0]) == c[kind == 0]).all()
    assert 0.4 < ((kind.reshape(-1, 32) != 0).any(axis=1)).mean() < 0.6     # warps with an error lane
    # LDPC: degrees, check degrees, a syndrome consistent with the bits
    ptr, chk, syn, bits, out, nn = tp._p123_ldpc_args(n, rng)
    deg = np.diff(ptr)
    assert ptr.dtype == np.int32 and chk.dtype == np.int32 and ptr[0] == 0 and len(chk) == ptr[-1]
    assert set(np.unique(deg)) == set(tp.P123_LDPC_DEG) and abs(deg.mean() - 3.6) < 0.05
    cd = np.bincount(chk, minlength=n // 2)
    assert cd.max() - cd.min() <= 1 and chk.max() < n // 2
    assert abs(bits.mean() - tp.P123_LDPC_P) < 0.002 and 0.02 < syn.mean() < 0.06
    var = np.repeat(np.arange(n), deg)
    assert (np.bincount(chk, weights=bits[var], minlength=n // 2) % 2 == syn).all()
    assert (deg.reshape(-1, 32).max(axis=1) == 8).mean() > 0.95                # divergent trips
    # Reed-Solomon: the GF tables, the locators' roots at the error positions
    exp, log = tp._p123_gf_tables()
    assert len(set(exp[:255])) == 255 and (log[exp[:255]] == np.arange(255)).all() and exp[8] == 0x1D
    lam, mask, fail = tp._p123_rs_locators(4096, rng)
    assert abs(fail.mean() - tp.P123_RS_FAIL) < 0.02 and (lam[:, 0] == 1).all() and (lam[fail, 8] != 0).all()
    nu = mask.sum(axis=1)
    assert (nu[fail] == 0).all() and set(nu[~fail]) == set(range(9))
    last = np.array([max([j for j in range(9) if lam[i, j]]) for i in range(4096)])
    assert (last[~fail] == nu[~fail]).all()
    roots, cnt = tp._p123_rs_ref(lam)
    assert (roots[~fail] == mask[~fail]).all() and (cnt[fail] < 8).mean() > 0.99
    # polar: the info set
    info = tp._p123_polar_info()
    assert len(info) == 512 and (np.diff(info) > 0).all() and info[-1] == 1023 and 0 not in info
    # BPSK samples: the LLR scale, the BER near theory
    y, llr, scale, nn = tp._p123_il_args(1 << 16, rng)
    s = tp._p123_sigma(tp.P123_IL_EBN0)
    assert y.dtype == np.float32 and np.isclose(scale, 2 / s ** 2) and abs(np.abs(y).mean() - 1) < 0.1
    y, tx, fe, tot, nn = tp._p123_ber_args(1 << 18, rng)
    assert len(fe) == 256 and tx.dtype == np.uint8
    assert abs(((y < 0) != tx).mean() - 0.0229) < 0.002


# ---- secded72-popc-correct ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_secded72(policy):
    n = 1000                                                # 4 blocks, the last partial
    rng = np.random.default_rng(3)
    d0, d, c, kind = tp._p123_sec_words(n, rng)
    # the first 6 words' errors by hand: data bit 63, the overall parity bit, check bit 6,
    # two data bits, a data and a check bit, data bit 20
    d[:6], c[:6] = d0[:6], tp._p123_sec_encode(d0[:6])
    kind[:6] = [1, 1, 1, 2, 2, 1]
    d[0] ^= np.uint64(1) << np.uint64(63)
    c[1] ^= np.uint8(1 << 7)
    c[2] ^= np.uint8(1 << 6)
    d[3] ^= np.uint64(5)
    d[4] ^= np.uint64(1)
    c[4] ^= np.uint8(1)
    d[5] ^= np.uint64(1) << np.uint64(20)
    host = [d, c, np.zeros(n, np.uint64), np.zeros(n, np.uint8), np.zeros(1, np.int32), np.int32(n)]
    out = run("probe/secded72-popc-correct", copy(host), n, policy=policy, symbols=tp._p123_sec_syms(n, rng))
    ref_d, ref_st, ref_bad = tp._p123_sec_ref(d, c)
    assert (out[2] == ref_d).all() and (out[3] == ref_st).all() and out[4][0] == ref_bad
    # against the truth: single errors corrected, double errors flagged, clean words clean
    assert (out[3] == kind).all()
    assert (out[2][kind <= 1] == d0[kind <= 1]).all() and (out[2][kind == 2] == d[kind == 2]).all()
    assert out[4][0] == (kind == 2).sum() >= 2 and (kind == 1).sum() > 10
    assert (out[0] == d).all() and (out[1] == c).all()


def test_secded72_launch():
    host, out, syms, _ = launch("probe/secded72-popc-correct", 600)
    ref_d, ref_st, ref_bad = tp._p123_sec_ref(*host[:2])
    assert (out[2] == ref_d).all() and (out[3] == ref_st).all() and out[4][0] == ref_bad


# ---- ldpc-bitflip-csr-gather ----

def test_ldpc_bitflip():
    n = 3000                                                # 12 blocks, the last partial
    host, out, *_ = launch("probe/ldpc-bitflip-csr-gather", n)
    ref, unsat = tp._p123_ldpc_ref(*host[:4])
    assert (out[4] == ref).all() and (out[3] == host[3]).all()
    flip = ref != host[3]
    assert 0.002 < flip.mean() < 0.02
    # most flips fix an error: the bits' weight drops
    assert ref.sum() < host[3].sum()
    # a tie (half of a variable's checks failing) does not flip
    deg = np.diff(host[0])
    tie = 2 * unsat == deg
    assert tie.any() and (~flip[tie]).all()


def test_ldpc_all_checks_fail():
    # every check failing flips every bit; none failing flips none
    rng = np.random.default_rng(4)
    n = 500
    host = tp._p123_ldpc_args(n, rng)
    for s in (1, 0):
        h = copy(host)
        h[2][:] = s
        out = run("probe/ldpc-bitflip-csr-gather", h, n, policy="random")
        assert (out[4] == (host[3] ^ s)).all()


# ---- rs-chien-gf256-smem ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_rs_chien(policy):
    n = 24
    rng = np.random.default_rng(5)
    lam, mask, fail = tp._p123_rs_locators(n, rng)
    # no error, one error at position 0, eight errors, one at 254
    exp, _ = tp._p123_gf_tables()
    lam[0] = [1, 0, 0, 0, 0, 0, 0, 0, 0]
    mask[0], fail[0] = False, False
    lam[1] = [1, 1, 0, 0, 0, 0, 0, 0, 0]                    # 1 + alpha^0 x
    mask[1], fail[1] = False, False
    mask[1, 0] = True
    lam[2] = [1, exp[254], 0, 0, 0, 0, 0, 0, 0]
    mask[2], fail[2] = False, False
    mask[2, 254] = True
    host = [lam.ravel(), *tp._p123_gf_tables(), np.zeros(n * 255, np.uint8), np.zeros(n, np.int32), np.int32(n)]
    out = run("probe/rs-chien-gf256-smem", copy(host), n, policy=policy)
    roots, cnt = tp._p123_rs_ref(lam)
    assert (out[3].reshape(n, 255) == roots).all() and (out[4] == cnt).all()
    assert (roots[~fail] == mask[~fail]).all() and fail.any() and (mask.sum(axis=1) == 8).any()
    deg = np.array([max(j for j in range(9) if lam[i, j]) for i in range(n)])
    assert (cnt[~fail] == deg[~fail]).all() and (cnt[fail] != 8).all()


def test_rs_chien_launch():
    host, out, *_ = launch("probe/rs-chien-gf256-smem", 10)
    roots, cnt = tp._p123_rs_ref(host[0])
    assert (out[3] == roots.ravel()).all() and (out[4] == cnt).all() and cnt.sum() > 0


# ---- polar-encode-butterfly-smem ----

def polar_matrix():
    F = np.array([[1, 0], [1, 1]], np.int64)
    G = np.ones((1, 1), np.int64)
    while len(G) < tp.P123_POLAR_N:
        G = np.kron(G, F)
    return G


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_polar_encode(policy):
    n = 3
    host, out, *_ = launch("probe/polar-encode-butterfly-smem", n, policy=policy)
    x = out[2].reshape(n, tp.P123_POLAR_N)
    assert (x == tp._p123_polar_ref(host[0], host[1])).all()
    u = np.zeros((n, tp.P123_POLAR_N), np.int64)
    u[:, host[1]] = host[0].reshape(n, -1)
    assert (x == (u @ polar_matrix()) % 2).all()            # x = u G_N over GF(2)
    assert 0.4 < x.mean() < 0.6


def test_polar_unit_vectors():
    # a single info bit gives the matching row of G_N
    n = 2
    info = tp._p123_polar_info()
    u = np.zeros(n * tp.P123_POLAR_K, np.uint8)
    u[0] = 1                                                # info[0]: the least reliable kept
    u[tp.P123_POLAR_K + tp.P123_POLAR_K - 1] = 1            # info[-1] = 1023: weight N
    host = [u, info, np.zeros(n * tp.P123_POLAR_N, np.uint8), np.int32(n)]
    out = run("probe/polar-encode-butterfly-smem", host, n)
    x = out[2].reshape(n, -1)
    G = polar_matrix()
    assert (x[0] == G[info[0]]).all() and (x[1] == G[1023]).all() and (x[1] == 1).all()


# ---- deinterleave-llr-strided ----

def test_deinterleave():
    n = 2 * tp.P123_IL_ROWS * tp.P123_IL_COLS               # 2 frames
    host, out, *_ = launch("probe/deinterleave-llr-strided", n)
    ref = tp._p123_il_ref(host[0], host[2])
    assert (out[1] == ref).all()
    # interleaving the LLRs again gives the samples back, scaled
    R, C = tp.P123_IL_ROWS, tp.P123_IL_COLS
    again = out[1].reshape(-1, R, C).transpose(0, 2, 1).ravel()
    np.testing.assert_allclose(again, host[0] * host[2], rtol=1e-6)
    # sample index c R + r lands at output r C + c
    f, r, c = 1, 5, 77
    assert out[1][f * R * C + r * C + c] == np.float32(host[2]) * host[0][f * R * C + c * R + r]


# ---- ber-frame-atomics ----

@pytest.mark.parametrize("policy, n", [("lockstep", 5000), ("random", 2000)])
def test_ber_count(policy, n):
    host, out, *_ = launch("probe/ber-frame-atomics", n, policy=policy)
    fe, tot = tp._p123_ber_ref(host[0], host[1])
    assert (out[2] == fe).all() and out[3][0] == tot == fe.sum()
    assert len(fe) == -(-n // 1024) and tot > 20 and (fe > 0).all()


def test_ber_noiseless():
    # no noise: no errors; every sample flipped: every bit wrong
    rng = np.random.default_rng(6)
    n = 3000
    host = tp._p123_ber_args(n, rng)
    clean = (1.0 - 2.0 * host[1]).astype(np.float32)
    for y, per in ((clean, 0), (-clean, 1)):
        h = copy(host)
        h[0] = y
        out = run("probe/ber-frame-atomics", h, n, policy="random")
        assert out[3][0] == per * n
        assert (out[2] == per * np.minimum(1024, n - 1024 * np.arange(len(out[2])))).all()
