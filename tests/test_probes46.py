"""probe-unseen44's kernels (kernels_cuda/probes46.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import math

import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch


def _expm_ref(A):
    """exp of each matrix: halved until the norm is below 2^-6, 24 Taylor terms, squared back."""
    nrm = np.abs(A).sum(axis=2).max(axis=1)
    s = np.maximum(0, np.ceil(np.log2(np.maximum(nrm, 1e-300))).astype(int) + 6)
    B = A / (2.0 ** s)[:, None, None]
    E, term = np.broadcast_to(np.eye(3), A.shape).copy(), np.broadcast_to(np.eye(3), A.shape).copy()
    for k in range(1, 25):
        term = term @ B / k
        E = E + term
    for i in range(len(A)):
        for _ in range(s[i]):
            E[i] = E[i] @ E[i]
    return E


def test_expm3_double():
    n = 300
    host, (a, e, nn), *_ = launch("probe/expm3-double", n)
    A, E = a.reshape(n, 3, 3), e.reshape(n, 3, 3)
    ref = _expm_ref(A)
    err = np.abs(E - ref).max(axis=(1, 2)) / np.abs(ref).max(axis=(1, 2))
    assert err.max() < 1e-8, err.max()
    # det exp(A) = exp(trace A)
    np.testing.assert_allclose(np.linalg.det(E), np.exp(np.trace(A, axis1=1, axis2=2)), rtol=1e-7)


def test_bsr_spmv4():
    nb = 300
    host, (rowptr, bcol, val, x, y, nn), *_ = launch("probe/bsr-spmv4", nb)
    V = val.reshape(-1, 4, 4).astype(np.float64)
    X = x.reshape(nb, 4).astype(np.float64)
    exp = np.zeros((nb, 4))
    for br in range(nb):
        for k in range(rowptr[br], rowptr[br + 1]):
            exp[br] += V[k] @ X[bcol[k]]
    np.testing.assert_allclose(y, exp.ravel(), rtol=1e-4, atol=1e-4)
    assert all(len(set(bcol[rowptr[b]:rowptr[b + 1]])) == rowptr[b + 1] - rowptr[b] for b in range(nb))


def test_redblack_gs():
    n = 48
    host, (u, f, nn, color, h2), *_ = launch("probe/redblack-gs", n)
    U0, F = host[0].reshape(n, n).astype(np.float64), f.reshape(n, n)
    yy, xx = np.mgrid[0:n, 0:n]
    upd = ((xx + yy) % 2 == color) & (xx > 0) & (yy > 0) & (xx < n - 1) & (yy < n - 1)
    P = np.pad(U0, 1)
    nb = P[1:-1, :-2] + P[1:-1, 2:] + P[:-2, 1:-1] + P[2:, 1:-1]
    U = u.reshape(n, n)
    np.testing.assert_allclose(U[upd], (0.25 * (nb + float(h2) * F))[upd], rtol=1e-5, atol=1e-6)
    assert np.array_equal(U[~upd], host[0].reshape(n, n)[~upd])
    assert upd.sum() == ((n - 2) ** 2) // 2


def test_binomial_option():
    n = 4
    host, (S, X, T, r, vol, price), *_ = launch("probe/binomial-option", n)
    N = tp.BIN_STEPS
    for o in range(n):
        dt = float(T[o]) / N
        u, d = math.exp(float(vol) * math.sqrt(dt)), math.exp(-float(vol) * math.sqrt(dt))
        pu = (math.exp(float(r) * dt) - d) / (u - d)
        disc = math.exp(-float(r) * dt)
        v = np.maximum(float(S[o]) * u ** (2.0 * np.arange(N + 1) - N) - float(X[o]), 0.0)
        for t in range(N - 1, -1, -1):
            v = disc * (pu * v[1:t + 2] + (1 - pu) * v[:t + 1])
        assert np.isclose(price[o], v[0], rtol=1e-3, atol=1e-3), (o, price[o], v[0])
        # Black-Scholes, which the tree approaches
        sd = float(vol) * math.sqrt(float(T[o]))
        d1 = (math.log(float(S[o]) / float(X[o])) + (float(r) + float(vol) ** 2 / 2) * float(T[o])) / sd
        cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))
        bs = float(S[o]) * cdf(d1) - float(X[o]) * math.exp(-float(r) * float(T[o])) * cdf(d1 - sd)
        assert abs(price[o] - bs) < 0.02 + 0.01 * bs, (o, price[o], bs)
    assert (price > 0.1).sum() >= 2


def test_varint_decode():
    n = 3000
    host, (enc, base, out, nbytes), *_ = launch("probe/varint-decode", n)
    vals, v, sh, lens, ln = [], 0, 0, [], 0
    for b in enc.tolist():
        v |= (b & 0x7F) << sh
        sh += 7
        ln += 1
        if b < 0x80:
            vals.append(v)
            lens.append(ln)
            v, sh, ln = 0, 0, 0
    assert 0.9 * n <= nbytes <= n and len(vals) == out.size
    assert list(out) == vals
    assert set(lens) == {1, 2, 3, 4, 5}


def test_negbin_logpmf():
    n = 1000          # not a multiple of the block: idle lanes evaluate lgammaf(0), +inf
    host, (k, r, p, out, nn), *_ = launch("probe/negbin-logpmf", n)
    exp = np.array([math.lgamma(int(kk) + float(rr)) - math.lgamma(float(rr)) - math.lgamma(int(kk) + 1)
                    + float(rr) * math.log(float(pp)) + int(kk) * math.log1p(-float(pp))
                    for kk, rr, pp in zip(k, r, p)])
    np.testing.assert_allclose(out, exp, rtol=1e-4, atol=2e-3)
    assert k.max() > 50 and (k == 0).sum() > 10
