"""probe-unseen60's kernels (kernels_cuda/probes62.cu) give numpy's (or plain Python's)
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch

EPS = float(np.finfo(np.float32).eps)        # 2^-23


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen60"]
    assert ids == ["probe/qam16-demap-llr", "probe/viterbi-acs", "probe/ldpc-minsum-check",
                   "probe/ofdm-equalize", "probe/rs-syndromes", "probe/cfo-correct-rotate"]
    assert all(tp.get(i).source == "probes62.cu" and tp.get(i).note for i in ids)


def cplx(f):
    """Interleaved float32 (float2) as complex128."""
    return f[0::2].astype(np.float64) + 1j * f[1::2].astype(np.float64)


# ---- qam16-demap-llr ----

def test_qam16_points_are_gray_and_unit_energy():
    pts = tp._u60_qam16_points()
    assert abs(np.mean(np.abs(pts) ** 2) - 1) < 1e-12
    d = np.abs(pts[:, None] - pts[None, :])
    dmin = d[d > 0].min()
    for a in range(16):
        for b in range(16):
            if abs(d[a, b] - dmin) < 1e-9:                   # nearest neighbours differ in one bit
                assert bin(a ^ b).count("1") == 1
    assert sum(abs(d[0] - dmin) < 1e-9) == 4                 # label 0: (1 + j) / sqrt(10), inside
    assert sum(abs(d[3] - dmin) < 1e-9) == 2                 # label 3: (3 + 3 j) / sqrt(10), a corner


def test_qam16_demap_llr():
    n = 1000                                                 # 4 blocks of 256, the last partial
    host, (sym, llr, nn, n0), syms, _ = launch("probe/qam16-demap-llr", n)
    y = cplx(sym)
    pts = syms["c_qam_re"].astype(np.float64) + 1j * syms["c_qam_im"].astype(np.float64)
    d = np.abs(y[:, None] - pts[None, :]) ** 2               # n x 16
    lab = np.arange(16)
    ref = np.zeros((n, 4))
    for b in range(4):
        one = ((lab >> (3 - b)) & 1) == 1
        ref[:, b] = (d[:, one].min(1) - d[:, ~one].min(1)) / float(n0)
    got = llr.reshape(n, 4).astype(np.float64)
    # each distance: two differences, two products, a sum (each half an ulp of a term no
    # larger than the distance, fused or not); then the difference, the reciprocal and
    # the product: 6 eps of the larger distance over N0 bounds it
    scale = np.maximum.reduce([d[:, lab >> (3 - b) & 1 == 1].min(1) for b in range(4)]
                              + [d[:, lab >> (3 - b) & 1 == 0].min(1) for b in range(4)]) / float(n0)
    assert (np.abs(got - ref) <= 6 * EPS * scale[:, None] + 1e-30).all(), np.abs(got - ref).max()
    # the LLRs' signs are the nearest point's label
    near = np.argmin(d, 1)
    hard = (got < 0).astype(int) @ (1 << np.arange(3, -1, -1))
    assert (hard == near).mean() > 0.999
    # the b0 and b1 LLRs are the sign bits of the real and imaginary parts (Gray, max-log)
    assert ((got[:, 0] < 0) == (y.real < 0)).all() and ((got[:, 1] < 0) == (y.imag < 0)).all()
    # at 12 dB the symbols sit near their points: most LLRs are confident, a few are not
    assert (np.abs(got) > 4).mean() > 0.8 and (np.abs(got) < 1).sum() > 10
    assert np.count_nonzero(llr) == 4 * n


# ---- viterbi-acs ----

def trellis():
    """For each next state ns: its two predecessors and the bits each transition emits,
    from the shift register (the input at bit 6, the state below it), written out from scratch."""
    def parity(v):
        return bin(v).count("1") & 1
    prev, outs = [], []
    for ns in range(64):
        u = ns >> 5
        ps = [((ns << 1) & 63) | k for k in (0, 1)]
        for s in ps:
            assert ((u << 5) | (s >> 1)) == ns                  # s goes to ns on input u
        prev.append(ps)
        outs.append([(parity(((u << 6) | s) & 0o171), parity(((u << 6) | s) & 0o133)) for s in ps])
    return prev, outs


def acs_reference(rx, pm0, T):
    """The kernel's ACS in float32, the same operations in the same order: (metrics after,
    decision bits (ncw x T x 64))."""
    prev, outs = trellis()
    ncw = pm0.shape[0]
    pm = pm0.copy()
    dec = np.zeros((ncw, T, 64), bool)
    for t in range(T):
        x, y = rx[:, t, 0], rx[:, t, 1]
        new = np.empty_like(pm)
        for ns in range(64):
            m = []
            for k in (0, 1):
                a, b = outs[ns][k]
                bm = (-x if a else x) + (-y if b else y)
                m.append(pm[:, prev[ns][k]] + bm)
            d = m[1] > m[0]
            dec[:, t, ns] = d
            new[:, ns] = np.where(d, m[1], m[0])
        pm = new
    return pm, dec


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_viterbi_acs(policy):
    # lockstep: 12 codewords (blocks); random (warps interleaved one instruction at a time:
    # the shared metrics' double buffer, the ballot halves and the barriers): 2 blocks
    ncw, T = (12 if policy == "lockstep" else 2), tp.U60_VIT_STEPS
    host, (rx, pm_in, pm_out, dec, steps), *_ = launch("probe/viterbi-acs", ncw, policy=policy)
    assert steps == T
    R = rx.reshape(ncw, T, 2)
    pm_ref, dec_ref = acs_reference(R, pm_in.reshape(ncw, 64), T)
    np.testing.assert_array_equal(pm_out.reshape(ncw, 64), pm_ref)
    words = (dec_ref.astype(np.uint64) << np.arange(64, dtype=np.uint64)).sum(-1, dtype=np.uint64)
    np.testing.assert_array_equal(dec.reshape(ncw, T), words)
    # the survivors decode: trace back from state 0 (the zero tail) through the decision
    # bits; the transmitted bits are the generator's first draw
    bits = np.random.default_rng(0).integers(0, 2, (ncw, T))
    bits[:, T - 6:] = 0
    D = dec.reshape(ncw, T)
    decoded = np.zeros((ncw, T), int)
    for c in range(ncw):
        s = 0
        for t in range(T - 1, -1, -1):
            decoded[c, t] = s >> 5
            s = ((s << 1) & 63) | int((int(D[c, t]) >> s) & 1)
        assert s == 0                                        # back to the starting state
    assert (decoded == bits).all(1).sum() >= ncw - 1
    # the encoder's code (checked against the trellis) is what was sent: the hard
    # decisions disagree with it only at the channel's error rate (~6% at 4 dB, rate 1/2)
    code = tp._u60_conv_encode(bits.astype(np.uint8))
    flips = ((R < 0) != code.astype(bool)).mean()
    assert 0.02 < flips < 0.1
    assert (D >> np.uint64(32)).any() and (D & np.uint64(0xFFFFFFFF)).any()


# ---- ldpc-minsum-check ----

def test_ldpc_minsum_check():
    m = 700                                                  # 3 blocks of 256, the last partial
    host, (row_ptr, v2c, c2v, mm, scale), *_ = launch("probe/ldpc-minsum-check", m)
    assert mm == m and row_ptr[0] == 0 and row_ptr[-1] == len(v2c)
    deg = np.diff(row_ptr)
    assert set(deg) == {6, 7, 8}
    sc = np.float32(scale)
    ref = np.zeros(len(v2c), np.float32)
    for i in range(m):
        q = v2c[row_ptr[i]:row_ptr[i + 1]]
        for k in range(len(q)):
            others = np.delete(q, k)
            neg = int((others < 0).sum()) & 1
            mag = np.float32(np.abs(others).min())
            ref[row_ptr[i] + k] = -(sc * mag) if neg else sc * mag
    np.testing.assert_array_equal(c2v, ref)
    # the messages: mostly positive (the all-zero codeword), a few negative
    assert 0.01 < (v2c < 0).mean() < 0.1
    assert (c2v < 0).sum() > 0.1 * len(c2v)              # one negative message flips its node's others


# ---- ofdm-equalize ----

@pytest.mark.parametrize("N, cp, nsym", [(300, 21, 3), (tp.U60_OFDM_N, tp.U60_OFDM_CP, 2)])
def test_ofdm_equalize(monkeypatch, N, cp, nsym):
    # 300 subcarriers x 3 symbols: 4 blocks of 256, the last partial
    monkeypatch.setattr(tp, "U60_OFDM_N", N)
    monkeypatch.setattr(tp, "U60_OFDM_CP", cp)
    host, (rx, h, out, ns, nn, cc), *_ = launch("probe/ofdm-equalize", nsym)
    assert (ns, nn, cc) == (nsym, N, cp)
    Y = cplx(rx).reshape(nsym, N + cp)[:, cp:]
    Hk = cplx(h)
    ref = Y / Hk
    got = cplx(out).reshape(nsym, N)
    # |h|^2, the two numerators (two products and a sum each) and the divisions, each
    # rounding by half an ulp of a term no larger than |y| |h| (or |h|^2): 6 eps of |y / h|
    tol = 6 * EPS * np.abs(Y) / np.abs(Hk)
    assert (np.abs(got.real - ref.real) <= tol).all() and (np.abs(got.imag - ref.imag) <= tol).all()
    # the equalized values are the QPSK points, up to the noise (20 dB) the fades amplify:
    # close where the channel is at least its median, much further in the deep fades
    qp = (np.sign(got.real) + 1j * np.sign(got.imag)) / np.sqrt(2)
    err = np.abs(got - qp)
    strong = np.abs(Hk) >= np.median(np.abs(Hk))
    assert (err[:, strong] < 0.3).mean() > 0.95
    assert np.median(err[:, ~strong]) > np.median(err[:, strong])
    assert np.abs(Hk).min() < 0.3 * np.abs(Hk).max()         # frequency selective: fades


# ---- rs-syndromes ----

def gf_mul(a, b):
    """GF(256) by x^8 + x^4 + x^3 + x^2 + 1 (0x11d), shift and add."""
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        if a & 0x100:
            a ^= 0x11D
        b >>= 1
    return r


def gf_pow(a, e):
    r = 1
    for _ in range(e):
        r = gf_mul(r, a)
    return r


def syndromes(r):
    """S_j = sum over i of r_i alpha^((j + 1)(254 - i)), j < 32, alpha = 2, evaluated term by term."""
    out = []
    for j in range(32):
        aj = gf_pow(2, j + 1)
        s, p = 0, 1
        for i in range(254, -1, -1):                         # r[254] the constant term
            s ^= gf_mul(int(r[i]), p)
            p = gf_mul(p, aj)
        out.append(s)
    return out


def test_rs_encoder_gives_codewords():
    log, exp = tp._u60_gf_tables()
    assert all(exp[i] == gf_pow(2, i % 255) for i in range(510))
    assert all(log[exp[i]] == i for i in range(255))
    msg = np.random.default_rng(5).integers(0, 256, (3, 223), dtype=np.uint8)
    cw = tp._u60_rs_encode(msg)
    assert cw.shape == (3, 255) and (cw[:, :223] == msg).all()
    for c in cw:
        assert syndromes(c) == [0] * 32


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_rs_syndromes(policy):
    # lockstep: 3 blocks of 8 codewords, the last partial; random (warps interleaved one
    # instruction at a time: the tables' copy, the barrier, the reads): one partial block
    ncw = 21 if policy == "lockstep" else 2
    host, (cw, log, exp, syn, nn), *_ = launch("probe/rs-syndromes", ncw, policy=policy)
    C = cw.reshape(ncw, 255)
    S = syn.reshape(ncw, 32)
    for c in range(ncw):
        assert list(S[c]) == syndromes(C[c]), c
    # the codewords carry errors (a few error-free): re-encoding the message bytes shows them
    # (no 16 or fewer errors make another codeword: the distance is 33)
    nerr = (tp._u60_rs_encode(C[:, :223].copy()) != C).sum(1)
    assert ((S != 0).any(1) == (nerr > 0)).all()
    assert (S != 0).any(1).sum() >= ncw - 3


# ---- cfo-correct-rotate ----

@pytest.mark.parametrize("frame, fft, n", [(1000, 128, 2500), (tp.U60_CFO_FRAME, tp.U60_CFO_FFT, 70000)])
def test_cfo_correct_rotate(monkeypatch, frame, fft, n):
    # 2500 samples in frames of 1000 (FFT 128): 10 blocks of 256, the last partial, the
    # last frame partial; then the default frames (phases up to ~47 rad)
    monkeypatch.setattr(tp, "U60_CFO_FRAME", frame)
    monkeypatch.setattr(tp, "U60_CFO_FFT", fft)
    host, (x, eps, y, total, L, N), *_ = launch("probe/cfo-correct-rotate", n)
    assert (total, L, N) == (n, frame, fft) and len(eps) == -(-n // frame)
    k = np.arange(n)
    # the phase in float32 as the kernel computes it (products and a quotient: no fusing)
    ph = (np.float32(-6.28318531) * eps[k // frame] * (k % frame).astype(np.float32)) / np.float32(fft)
    assert ph.dtype == np.float32
    X = cplx(x)
    ref = X * np.exp(1j * ph.astype(np.float64))
    got = cplx(y)
    # sincosf within an ulp or so, then two products and a sum a component: 4 eps of |x|
    tol = 4 * EPS * np.abs(X)
    assert (np.abs(got.real - ref.real) <= tol).all() and (np.abs(got.imag - ref.imag) <= tol).all()
    # and the rotation undoes the offset: the cyclic prefix's correlation with the end of
    # its symbol turns by 2 pi eps before, by about nothing after
    checked = 0
    for f in range(len(eps)):
        for s, cp in tp._u60_cfo_symbols(frame, fft):
            a = f * frame + s
            if s + cp + fft > frame or a + cp + fft > n:
                continue
            before = np.angle(np.sum(X[a + fft:a + fft + cp] * np.conj(X[a:a + cp])))
            after = np.angle(np.sum(got[a + fft:a + fft + cp] * np.conj(got[a:a + cp])))
            assert abs(np.angle(np.exp(1j * (before - 2 * np.pi * eps[f])))) < 0.3 and abs(after) < 0.3
            checked += 1
    assert checked >= 10 and np.abs(eps).max() > 0.2
