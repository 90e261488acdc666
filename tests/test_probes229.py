"""probe-unseen227's kernels (kernels_cuda/probes229.cu) give independent references' answers
in the emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import hashlib

import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/pqc-kyber-ntt-smem-montgomery-i16", "probe/pqc-dilithium-sign-z-sparse-challenge",
       "probe/pqc-kyber-rej-uniform-ballot", "probe/pqc-kyber-shake256-cbd-local-keccak",
       "probe/pqc-kyber-compress-du10-pack-hist", "probe/pqc-falcon-samplerz-double-exp"]

Q = 3329
DQ_GAMMA1, DQ_BETA = 1 << 17, 78
U64 = np.uint64


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen227"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes229.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- references ----

def _br7(k):
    return int(format(k, "07b")[::-1], 2)


def _ntt_ref(a):
    """Kyber's NTT by its definition (FIPS 203): f^_{2i + b} = sum_j f_{2j + b} zeta^((2 br7(i) + 1) j)
    mod q, as the centred representative; a: (npoly, 256)."""
    g = np.array([pow(17, 2 * _br7(i) + 1, Q) for i in range(128)], dtype=object)
    M = np.array([[pow(int(gi), j, Q) for j in range(128)] for gi in g], np.int64)      # (128, 128)
    a = np.asarray(a, np.int64) % Q
    out = np.empty(a.shape, np.int64)
    out[:, 0::2] = (a[:, 0::2] @ M.T) % Q
    out[:, 1::2] = (a[:, 1::2] @ M.T) % Q
    return np.where(out > Q // 2, out - Q, out)


def _negacyclic(c, s):
    """c s in Z[X]/(X^256 + 1), int64 (schoolbook by np.convolve, the top half folded back negated)."""
    full = np.convolve(np.asarray(c, np.int64), np.asarray(s, np.int64))
    out = full[:256].copy()
    out[:len(full) - 256] -= full[256:]
    return out


def _rej_ref(stream):
    """Kyber's SampleNTT in order on one byte stream: (the first <= 256 accepted, count)."""
    b = np.asarray(stream, np.int64).reshape(-1, 3)
    d1 = b[:, 0] | ((b[:, 1] & 0xF) << 8)
    d2 = (b[:, 1] >> 4) | (b[:, 2] << 4)
    d = np.stack([d1, d2], 1).ravel()
    acc = d[d < Q]
    return acc[:256], len(acc)


def _cbd2_ref(buf):
    """Kyber's CBD_2 of 128 bytes, bit by bit: coefficient i = (b_{4i} + b_{4i+1}) - (b_{4i+2} + b_{4i+3})."""
    bits = np.unpackbits(np.frombuffer(buf, np.uint8), bitorder="little").astype(np.int64).reshape(256, 4)
    return bits[:, 0] + bits[:, 1] - bits[:, 2] - bits[:, 3]


def _compress_ref(u):
    """Compress_q(x, 10) with exact rational rounding, packed as a little-endian bit stream,
    and the noise histogram of Decompress(Compress(x)) - x, centred mod q."""
    x = np.asarray(u, np.int64)
    t = np.floor(x * 1024 / Q + 0.5).astype(np.int64) % 1024          # round half up; no ties (q odd)
    y = np.floor(t * Q / 1024 + 0.5).astype(np.int64)
    e = (y - x + Q // 2) % Q - Q // 2
    bits = ((t[:, None] >> np.arange(10)) & 1).astype(np.uint8).ravel()
    ct = np.packbits(bits, bitorder="little")
    return ct, np.bincount(e + 2, minlength=5), e


def _splitmix(s):
    """splitmix64 on a uint64 array of states: (new states, outputs)."""
    with np.errstate(over="ignore"):
        s = s + U64(0x9E3779B97F4A7C15)
        z = s.copy()
        z = (z ^ (z >> U64(30))) * U64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> U64(27))) * U64(0x94D049BB133111EB)
    return s, z ^ (z >> U64(31))


def _samplerz_ref(leaves, nsig, seed, bound2, rcdt=None):
    """Falcon's SamplerZ as the kernel runs it, every leaf at once: (z, norm2, rejections, long)."""
    rcdt = tp._p229_rcdt() if rcdt is None else rcdt
    mu, sg = leaves["mu"], leaves["sigma"]
    m = len(mu)
    with np.errstate(over="ignore"):
        st = U64(seed) + np.arange(m, dtype=np.uint64)
    s = np.floor(mu)
    r = mu - s
    dss = 1.0 / (2.0 * sg * sg)
    ccs = tp.P229_SZ_SMIN / sg
    inv = 1.0 / (2.0 * tp.P229_SZ_SMAX * tp.P229_SZ_SMAX)
    zz = np.zeros(m, np.int64)
    rej = np.zeros(m, np.int64)
    live = np.ones(m, bool)
    while live.any():
        st1, o = _splitmix(st)
        u = (o >> U64(11)).astype(np.float64) * 2.0 ** -53
        z0 = (u[:, None] < rcdt[None, :]).sum(1)
        st2, o = _splitmix(st1)
        b = (o & U64(1)).astype(np.int64)
        zc = b + (2 * b - 1) * z0
        x = (zc - r) ** 2 * dss - z0 * z0 * inv
        p = ccs * np.exp(-x)
        st3, o = _splitmix(st2)
        acc = (o >> U64(11)).astype(np.float64) * 2.0 ** -53 < p
        st = np.where(live, st3, st)
        zz = np.where(live & acc, zc, zz)
        rej += live & ~acc
        live &= ~acc
    z = s.astype(np.int64) + zz
    n2 = ((z - mu) ** 2).reshape(nsig, -1).sum(1)
    return z, n2, int(rej.sum()), int((n2 > bound2).sum())


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # CBD_2: -2 .. 2 with weights 1, 4, 6, 4, 1 (/ 16)
    a = tp._p229_cbd(200000, 2, rng)
    assert a.dtype == np.int16 and a.min() == -2 and a.max() == 2
    assert np.allclose(np.bincount(a + 2) / len(a), np.array([1, 4, 6, 4, 1]) / 16, atol=0.005)
    # Dilithium: sparse challenges of 39 +-1, s1 in -2 .. 2, y in -(gamma1 - 1) .. gamma1
    c = tp._p229_ds_challenge(500, rng).reshape(500, 256)
    assert ((c != 0).sum(1) == 39).all() and set(np.unique(c)) == {-1, 0, 1}
    assert abs((c == 1).mean() - (c == -1).mean()) < 0.01
    assert np.allclose((c != 0).mean(0), 39 / 256, atol=0.05)                        # positions uniform
    host = tp._p229_ds_args(64, rng)
    assert host[1].min() == -2 and host[1].max() == 2 and host[2].min() >= -(DQ_GAMMA1 - 1)
    assert host[2].max() <= DQ_GAMMA1 and abs(host[2].mean()) < 2000
    # the XOF's bytes: uniform; 504 of them give 256 coefficients ~99% of the time
    host = tp._p229_rj_args(400, rng)
    acc = np.array([_rej_ref(host[0][k * 504:(k + 1) * 504])[1] for k in range(400)])
    assert 262 < acc.mean() < 284 and (acc < 256).mean() < 0.05
    # u: uniform in 0 .. q-1; noise of d_u = 10 in -2 .. 2
    host = tp._p229_cp_args(64, rng)
    assert host[0].min() == 0 and host[0].max() == Q - 1 and host[2] * 4 == len(host[0]) == 64 * 768
    hist = _compress_ref(host[0])[1]
    assert (hist > 0).all() and hist.sum() == len(host[0])
    # Falcon's leaves: sigma' in [sigma_min, sigma_max], skewed up; the reverse CDT
    lv = tp._p229_sz_leaves(64, rng)
    assert tp.P229_SZ_SMIN <= lv["sigma"].min() and lv["sigma"].max() <= tp.P229_SZ_SMAX
    assert np.median(lv["sigma"]) > (tp.P229_SZ_SMIN + tp.P229_SZ_SMAX) / 2 and 250 < lv["mu"].std() < 350
    rc = tp._p229_rcdt()
    assert len(rc) == 18 and (np.diff(rc) < 0).all() and 0.6 < rc[0] < 0.7 and rc[-1] < 1e-20
    # the sampler's output: mean mu, variance ~sigma'^2, ~0.7 rejections a sample, a few long
    z, n2, rej, nl = _samplerz_ref(lv, 64, tp.P229_SZ_SEED, tp.P229_SZ_BOUND2)
    d = z - lv["mu"]
    assert abs(d.mean()) < 0.03 and abs((d * d).mean() / (lv["sigma"] ** 2).mean() - 1) < 0.06
    assert 0.5 < rej / len(z) < 1.0 and 0 < nl < 16


# ---- pqc-kyber-ntt-smem-montgomery-i16 ----

def _check_ntt(a, grid=None):
    a = np.asarray(a, np.int16).reshape(-1, 256)
    n = len(a)
    host = [a.ravel().copy(), np.full(n * 256, 7777, np.int16), np.int32(n)]
    out = run("probe/pqc-kyber-ntt-smem-montgomery-i16", host, n, grid=grid)
    got = out[1].reshape(n, 256)
    m = n if grid is None else grid[0]
    assert (got[:m] == _ntt_ref(a[:m])).all() and (got[m:] == 7777).all()
    return out[1]


def test_kyber_ntt():
    rng = np.random.default_rng(1)
    _check_ntt(tp._p229_nt_args(6, rng)[0])


def test_kyber_ntt_cases():
    rng = np.random.default_rng(2)
    a = np.zeros((4, 256), np.int16)
    a[1, 0] = 1                                                                      # 1: 1 mod every X^2 - gamma
    a[2, 255] = -1                                                                   # -X^255
    a[3] = rng.integers(-(Q - 1), Q, 256)                                            # the widest inputs
    out = _check_ntt(a).reshape(4, 256)
    assert (out[0] == 0).all() and (out[1, 0::2] == 1).all() and (out[1, 1::2] == 0).all()
    assert np.abs(out).max() <= Q // 2
    b = np.full((2, 256), Q - 1, np.int16)
    b[1] = -(Q - 1)
    _check_ntt(b, grid=(1, 1))                                                       # a single block: poly 1 untouched
    _check_ntt(b)


# ---- pqc-dilithium-sign-z-sparse-challenge ----

def _check_ds(c, s1, y):
    nsig = len(c)
    host = [np.asarray(c, np.int8).ravel(), np.asarray(s1, np.int8).ravel(), np.asarray(y, np.int32).ravel(),
            np.zeros(nsig * 1024, np.int32), np.zeros(nsig, np.int32), np.int32(nsig)]
    out = run("probe/pqc-dilithium-sign-z-sparse-challenge", host, nsig, grid=(nsig, 4))
    c = host[0].reshape(nsig, 256)
    s1 = host[1].reshape(nsig, 4, 256)
    want = host[2].reshape(nsig, 4, 256).astype(np.int64).copy()
    for k in range(nsig):
        for m in range(4):
            want[k, m] += _negacyclic(c[k], s1[k, m])
    bad = np.abs(want) >= DQ_GAMMA1 - DQ_BETA
    mask = (bad.any(axis=2) * (1 << np.arange(4))).sum(1)
    assert (out[3] == want.ravel()).all() and (out[4] == mask).all()
    return out


def test_dilithium_z():
    rng = np.random.default_rng(3)
    host = tp._p229_ds_args(12, rng)
    out = _check_ds(host[0].reshape(12, 256), host[1], host[2])
    assert (out[4] != 0).any() and (out[4] != 15).any()


def test_dilithium_z_cases():
    c = np.zeros((4, 256), np.int8)
    c[1, 255] = 1                                                                    # X^255: every product wraps but one
    c[2, 0] = -1
    c[3, :] = 1                                                                      # dense
    s1 = np.full((4, 4, 256), 2, np.int8)
    s1[:, 1] = -2
    y = np.zeros((4, 4, 256), np.int32)
    y[:, 0, 7] = DQ_GAMMA1 - DQ_BETA                                                 # c = 0: z = gamma1 - beta, rejected
    y[:, 1, 3] = -(DQ_GAMMA1 - DQ_BETA)                                              # and its negative
    y[:, 2, 9] = -(DQ_GAMMA1 - DQ_BETA) + 1                                          # just inside
    y[:, 3, 255] = DQ_GAMMA1
    out = _check_ds(c, s1, y)
    assert out[4][0] == 0b1011


# ---- pqc-kyber-rej-uniform-ballot ----

def _check_rj(streams, grid=None):
    streams = np.asarray(streams, np.uint8).reshape(-1, 504)
    n = len(streams)
    host = [streams.ravel().copy(), np.full(n * 256, -7, np.int16), np.int32(n), np.zeros(1, np.int32),
            np.full(n, -1, np.int32)]
    out = run("probe/pqc-kyber-rej-uniform-ballot", host, n, grid=grid)
    polys = out[1].reshape(n, 256)
    short = []
    for k in range(n):
        if grid is not None and k >= grid[0] * 4:
            assert (polys[k] == -7).all()
            continue
        acc, cnt = _rej_ref(streams[k])
        assert (polys[k, :len(acc)] == acc).all() and (polys[k, len(acc):] == -7).all()
        if cnt < 256:
            short.append(k)
    assert out[3][0] == len(short) and sorted(out[4][:len(short)]) == short and (out[4][len(short):] == -1).all()
    return out


def test_rej_uniform():
    rng = np.random.default_rng(4)
    host = tp._p229_rj_args(40, rng)
    _check_rj(host[0])                                                               # 10 blocks of 4 warps


def test_rej_uniform_cases():
    rng = np.random.default_rng(5)
    s = rng.integers(0, 256, (8, 504)).astype(np.uint8)
    s[0] = 0xFF                                                                      # nothing accepted
    s[1] = 0                                                                         # all: done after 128 triples
    s[2, :300] = 0xFF                                                                # the stream runs short
    t = np.zeros(504, np.int64)                                                      # candidates q - 1 and q in turn
    d = np.tile([Q - 1, Q, Q, Q - 1], 84)
    t[0::3] = d[0::2] & 0xFF
    t[1::3] = (d[0::2] >> 8) | ((d[1::2] & 0xF) << 4)
    t[2::3] = d[1::2] >> 4
    s[3] = t                                                                         # 168 accepted: short
    s[4, :300] = 0                                                                   # 200 accepted, the 256th mid-warp
    s[7] = 0xFF                                                                      # 255 accepted: one short
    s[7, :381] = 0
    s[7, 382] = 0xF0                                                                 # (0, 0xFFF)
    out = _check_rj(s)
    assert out[3][0] >= 4 and (out[1].reshape(8, 256)[3, :168] == Q - 1).all() and 7 in out[4]
    _check_rj(s[:5], grid=(1, 1))                                                    # a single block: poly 4 untouched


# ---- pqc-kyber-shake256-cbd-local-keccak ----

def _check_pc(seeds, npk, grid=None):
    seeds = np.asarray(seeds, np.uint8).reshape(-1, 32)
    nk = len(seeds)
    host = [seeds.ravel().copy(), np.full(nk * npk * 256, 99, np.int16), np.int32(nk), np.int32(npk)]
    p = tp.get("probe/pqc-kyber-shake256-cbd-local-keccak")
    out = run(p.id, host, nk, grid=grid or (-(-nk * npk // 128), 1))
    polys = out[1].reshape(nk, npk, 256)
    for k in range(nk):
        for j in range(npk):
            buf = hashlib.shake_256(seeds[k].tobytes() + bytes([j])).digest(128)
            assert (polys[k, j] == _cbd2_ref(buf)).all(), (k, j)
    return polys


def test_prf_cbd():
    rng = np.random.default_rng(6)
    seeds = tp._p229_pc_args(29, rng)[0].reshape(29, 32)
    seeds[0] = 0                                                                     # edge seeds
    seeds[1] = 0xFF
    seeds[2] = np.arange(32)
    polys = _check_pc(seeds, 5)                                                      # 145 threads: a partial block
    assert np.allclose(np.bincount(polys.ravel() + 2) / polys.size, np.array([1, 4, 6, 4, 1]) / 16, atol=0.01)
    assert (polys[:, 0] != polys[:, 1]).any(axis=1).all()                            # the nonce matters


# ---- pqc-kyber-compress-du10-pack-hist ----

def _check_cp(u, grid):
    u = np.asarray(u, np.int16)
    ng = len(u) // 4
    host = [u.copy(), np.full(ng * 5, 0xAA, np.uint8), np.int32(ng), np.zeros(5, np.uint32)]
    out = run("probe/pqc-kyber-compress-du10-pack-hist", host, 1, grid=(grid, 1))
    ct, hist, e = _compress_ref(u)
    assert (out[1] == ct).all() and (out[3] == hist).all()
    return out, e


def test_compress():
    rng = np.random.default_rng(7)
    host = tp._p229_cp_args(3, rng)                                                  # 576 groups, 2 blocks: 2 trips
    out, e = _check_cp(host[0], 2)
    assert out[3].sum() == len(host[0]) and (out[3] > 0).all()


def test_compress_cases():
    x = np.arange(Q, dtype=np.int16)                                                 # every coefficient
    x = np.concatenate([x, [0, Q - 1, 1664]]).astype(np.int16)                       # 3332 = 833 groups
    out, e = _check_cp(x, 1)
    assert e.min() == -2 and e.max() == 2                                            # the noise's full range
    _check_cp(np.zeros(0, np.int16), 3)                                              # empty: nothing stored
    _check_cp(np.full(8, Q - 1, np.int16), 1)                                        # rounds to 1024: wraps to 0


# ---- pqc-falcon-samplerz-double-exp ----

def _check_sz(leaves, nsig, seed=tp.P229_SZ_SEED, bound2=tp.P229_SZ_BOUND2):
    host = [leaves, np.zeros(nsig * 512, np.int16), np.zeros(nsig, np.float64), np.int32(nsig), np.uint64(seed),
            np.float64(bound2), np.zeros(1, np.int32), np.zeros(1, np.int32)]
    out = run("probe/pqc-falcon-samplerz-double-exp", host, nsig, symbols={"c_rcdt": tp._p229_rcdt()})
    z, n2, rej, nl = _samplerz_ref(leaves, nsig, seed, bound2)
    assert (out[1] == z).all() and out[6][0] == rej and out[7][0] == nl
    assert np.allclose(out[2], n2, rtol=1e-12, atol=0)
    return out


def test_samplerz():
    rng = np.random.default_rng(8)
    lv = tp._p229_sz_leaves(6, rng)
    out = _check_sz(lv, 6)
    assert out[6][0] > 500


def test_samplerz_cases():
    lv = np.zeros(1024, tp.P229_SZ_LEAF)
    lv["sigma"][:512] = tp.P229_SZ_SMIN                                              # the narrowest
    lv["sigma"][512:] = tp.P229_SZ_SMAX                                              # the widest
    lv["mu"] = np.linspace(-3.5, 3.5, 1024)                                          # integers and halves among them
    lv["mu"][:4] = [-0.0, 2.0, -1e-12, 1.0 - 1e-12]
    _check_sz(lv, 2, seed=(1 << 64) - 5)                                             # the state wraps around 2^64
    _check_sz(lv[:512], 1, bound2=0.0)                                               # every signature long
