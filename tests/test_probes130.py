"""probe-unseen128's kernels (kernels_cuda/probes130.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
from functools import reduce

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/qc-gate2q-const-quad", "probe/qc-marginals-smem-atomic", "probe/qc-expect-pauli-tree",
       "probe/qc-sample-hist-atomic", "probe/qc-density-gate-depol", "probe/qc-rabi-chevron-sincos"]

PAULI = {"I": np.eye(2), "X": np.array([[0, 1], [1, 0]]), "Y": np.array([[0, -1j], [1j, 0]]),
         "Z": np.diag([1.0, -1.0])}


def full_op(ops):
    """The 2^nq x 2^nq operator of one 2x2 matrix a qubit (ops[q] on qubit q, bit q of the
    index)."""
    return reduce(np.kron, ops[::-1])


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen128"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes130.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 10
    psi, qa, qb, nquads = tp._p130_g2_args(n, rng)
    a = tp._p130_cplx(psi)
    assert psi.dtype == np.float32 and len(psi) == 2 * n and abs(np.vdot(a, a).real - 1) < 1e-5
    assert (qa, qb, nquads) == (1, 6, n // 4) and tp._p130_g2_qubits(1 << 25) == (1, 21)
    s = tp._p130_g2_syms(n, rng)
    g = (s["c_g2_re"].astype(np.float64) + 1j * s["c_g2_im"]).reshape(4, 4)
    assert s["c_g2_re"].dtype == np.float32 and np.abs(g @ g.conj().T - np.eye(4)).max() < 1e-6
    # the reference gate against the tensor picture: G's index 2 b_qb + b_qa
    t = a.reshape([2] * 10)                                   # axis j: bit 9 - j (qb = 6: d, qa = 1: i)
    t = np.einsum("pqdi,abcdefghij->abcpefghqj", g.reshape(2, 2, 2, 2), t)
    np.testing.assert_allclose(tp._p130_g2_ref(psi, 1, 6, s["c_g2_re"], s["c_g2_im"]), t.ravel(), atol=1e-6)
    # Pauli strings: the reference against the explicit operator
    nq = 6
    for _ in range(5):
        x, z = tp._p130_pauli_masks(nq, rng)
        assert x != 0 and x < 1 << nq and z < 1 << nq
        names = ["IXZY"[((int(x) >> q) & 1) + 2 * ((int(z) >> q) & 1)] for q in range(nq)]
        P = full_op([PAULI[c] for c in names])
        st = tp._p130_state(1 << nq, rng)
        c = tp._p130_cplx(st)
        assert abs(tp._p130_px_ref(st, x, z) - np.vdot(c, P @ c).real) < 1e-12
    ops = np.array([bin(int(m)).count("1") for m in (tp._p130_pauli_masks(24, rng)[0] for _ in range(200))])
    assert 10 < ops.mean() < 14                               # X or Y on ~half the qubits
    cdf = tp._p130_samp_args(5000, rng)[0]
    p = np.diff(np.r_[0.0, cdf.astype(np.float64)])
    assert cdf.dtype == np.float32 and len(cdf) == 4096 and (p >= 0).all() and abs(cdf[-1] - 1) < 1e-5
    assert 0.8 < (p * 4096).std() < 1.2 and (p * 4096 > 4).any()    # Porter-Thomas: exponential
    rho, k, lam, dim = tp._p130_dm_args(64, rng)
    r = tp._p130_cplx(rho).reshape(64, 64)
    assert rho.dtype == np.float32 and k == 4 and dim == 64 and lam == np.float32(0.05)
    assert np.abs(r - r.conj().T).max() < 1e-7 and abs(np.trace(r).real - 1) < 1e-5
    ev = np.linalg.eigvalsh(r)
    assert ev.min() > -1e-6 and (ev > 1e-4).sum() == tp.P130_DM_RANK
    assert tp._p130_dm_args(1 << 12, np.random.default_rng(1))[1] == 4
    # the reference channel against the Kraus form: (1 - p) rho + p/3 (X rho X + Y rho Y + Z rho Z), lambda = 4p/3
    s = tp._p130_dm_syms(16, rng)
    u = (s["c_u_re"].astype(np.float64) + 1j * s["c_u_im"]).reshape(2, 2)
    assert np.abs(u @ u.conj().T - np.eye(2)).max() < 1e-6
    rho16 = tp._p130_rho(16, rng)
    st16 = rho16.astype(np.complex64).view(np.float32).ravel()
    r16 = tp._p130_cplx(st16).reshape(16, 16)
    for kk in (0, 2, 3):
        U = full_op([u if q == kk else np.eye(2) for q in range(4)])
        m = U @ r16 @ U.conj().T
        pd = 0.75 * float(np.float32(0.05))
        want = (1 - pd) * m
        for c in "XYZ":
            O = full_op([PAULI[c] if q == kk else np.eye(2) for q in range(4)])
            want = want + pd / 3 * O @ m @ O
        got = tp._p130_dm_ref(st16, kk, 0.05, s["c_u_re"], s["c_u_im"])
        np.testing.assert_allclose(got, want, atol=1e-12)
    # Rabi: no zero detuning, the amplitudes up to OMAX, resonance gives sin^2(area / 2)
    pr = tp._p130_rabi_args(1 << 18, rng)
    d0, dd, o0, do, tpulse, sig, nd, nn = pr[1:]
    det = d0 + dd * np.arange(nd)
    assert nd == 512 and nn == 1 << 18 and np.abs(det).min() > 1e-4 and abs(det[0] + det[-1]) < 1e-6
    assert abs(o0 + do * (nn // nd - 1) - tp.P130_RABI_OMAX) < 1e-6
    assert np.exp(-(tpulse / 2) ** 2 / (2 * sig ** 2)) > 0.1     # the pulse cut at +-2 sigma
    small = tp._p130_rabi_params(4 * 512)
    pref = tp._p130_rabi_ref(*small, 512, 4 * 512, steps=512).reshape(4, 512)
    dt = tp.P130_RABI_TP / 512
    tt = (np.arange(512) + 0.5) * dt - tp.P130_RABI_TP / 2
    env = np.exp(-tt * tt / (2 * tp.P130_RABI_SIGMA ** 2)).sum() * dt
    area = (np.float32(small[2]) + np.float32(small[3]) * np.arange(4)) * env
    np.testing.assert_allclose(pref[:, 255], np.sin(area / 2) ** 2, atol=1e-4)
    np.testing.assert_allclose(pref[:, :256], pref[:, ::-1][:, :256], atol=1e-4)   # symmetric in detuning


# ---- qc-gate2q-const-quad ----

def test_gate2q():
    n = 1 << 10                                              # 256 quads: one block
    host, (psi, qa, qb, nquads), syms, _ = launch("probe/qc-gate2q-const-quad", n)
    want = tp._p130_g2_ref(host[0], qa, qb, syms["c_g2_re"], syms["c_g2_im"])
    got = tp._p130_cplx(psi)
    np.testing.assert_allclose(got, want, atol=1e-6)
    assert abs(np.vdot(got, got).real - 1) < 1e-5 and np.abs(got - tp._p130_cplx(host[0])).min() > 0


@pytest.mark.parametrize("qa, qb", [(0, 1), (3, 9)])
def test_gate2q_other_qubits(qa, qb):
    rng = np.random.default_rng(3)
    n = 1 << 11                                              # 512 quads: two blocks
    host = tp._p130_g2_args(n, rng)
    host[1], host[2] = np.int32(qa), np.int32(qb)
    syms = tp._p130_g2_syms(n, rng)
    out = run("probe/qc-gate2q-const-quad", host, n, symbols=syms, policy="random")
    np.testing.assert_allclose(tp._p130_cplx(out[0]),
                               tp._p130_g2_ref(host[0], qa, qb, syms["c_g2_re"], syms["c_g2_im"]), atol=1e-6)


# ---- qc-marginals-smem-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_marginals(policy):
    n = 1 << 10                                              # 4 blocks
    host, (psi, p1, nq, nn), *_ = launch("probe/qc-marginals-smem-atomic", n, policy=policy)
    assert nq == 10 and nn == n
    np.testing.assert_allclose(p1, tp._p130_marg_ref(host[0], 10), rtol=2e-5)
    assert (np.abs(p1 - 0.5) < 0.1).all()                   # a random state's qubits: near 1/2


def test_marginals_partial_and_basis():
    # the first 300 amplitudes only (the last block partial); then a basis state |x>
    rng = np.random.default_rng(4)
    host = tp._p130_marg_args(512, rng)
    host[3] = np.int32(300)
    out = run("probe/qc-marginals-smem-atomic", host, 300)
    np.testing.assert_allclose(out[1], tp._p130_marg_ref(host[0][:600], 9), rtol=2e-5)
    host = tp._p130_marg_args(512, rng)
    host[0][:] = 0
    x = 0b101100111
    host[0][2 * x + 1] = 1.0                                 # i |x>
    out = run("probe/qc-marginals-smem-atomic", host, 512)
    assert (out[1] == [(x >> q) & 1 for q in range(9)]).all()


# ---- qc-expect-pauli-tree ----

def test_expect_pauli():
    n = 1 << 10
    host, (psi, x, z, res, nn), *_ = launch("probe/qc-expect-pauli-tree", n, policy="random")
    want = tp._p130_px_ref(host[0], x, z)
    assert abs(res[0] - want) < 2e-6 and x != 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_expect_pauli_large(seed):
    # (psi + P psi) / norm: an expectation far from 0, each count of Y mod 4 in turn
    rng = np.random.default_rng(seed)
    nq = 9
    n = 1 << nq
    host = tp._p130_px_args(n, rng)
    ny = 0
    while ny != seed:
        x, z = tp._p130_pauli_masks(nq, rng)
        ny = bin(int(x) & int(z)).count("1") % 4
    names = ["IXZY"[((int(x) >> q) & 1) + 2 * ((int(z) >> q) & 1)] for q in range(nq)]
    P = full_op([PAULI[c] for c in names])
    c = tp._p130_cplx(host[0])
    c = c + P @ c
    c /= np.linalg.norm(c)
    host[0] = np.stack([c.real, c.imag], axis=1).astype(np.float32).ravel()
    host[1], host[2] = x, z
    out = run("probe/qc-expect-pauli-tree", host, n)
    want = np.vdot(c, P @ c).real
    assert want > 0.5 and abs(out[3][0] - want) < 2e-6
    assert abs(tp._p130_px_ref(host[0], x, z) - want) < 1e-6


# ---- qc-sample-hist-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_sample_hist(policy):
    n = 5000                                                 # 2 blocks, the second mostly idle
    host, (cdf, counts, seed, nn), *_ = launch("probe/qc-sample-hist-atomic", n, policy=policy)
    want, _ = tp._p130_samp_ref(host[0], n)
    assert (counts == want).all() and counts.sum() == n


def test_sample_hist_zero_outcomes():
    # a distribution on 3 outcomes (all other probabilities 0) and a cdf short of 1: the
    # shots above it land on the last outcome
    n = 3000
    cdf = np.zeros(4096, np.float32)
    cdf[17:] = 0.25
    cdf[1000:] = 0.5
    cdf[4000:] = 0.9
    host = [cdf, np.zeros(4096, np.uint32), np.uint32(5), np.int32(n)]
    out = run("probe/qc-sample-hist-atomic", host, n)
    want, _ = tp._p130_samp_ref(cdf, n, seed=5)
    assert (out[1] == want).all()
    assert set(np.flatnonzero(want)) == {17, 1000, 4000, 4095}
    assert abs(want[4095] / n - 0.1) < 0.03 and abs(want[17] / n - 0.25) < 0.04


# ---- qc-density-gate-depol ----

def test_density():
    n = 64                                                   # 6 qubits: a 1 x 4 grid of 32 x 8
    host, (rho, k, lam, dim), syms, _ = launch("probe/qc-density-gate-depol", n)
    want = tp._p130_dm_ref(host[0], k, lam, syms["c_u_re"], syms["c_u_im"])
    got = tp._p130_cplx(rho).reshape(64, 64)
    np.testing.assert_allclose(got, want, atol=2e-7)
    assert abs(np.trace(got).real - 1) < 1e-5 and np.abs(got - got.conj().T).max() < 1e-7


@pytest.mark.parametrize("k", [0, 4])
def test_density_partial(k):
    # dim 32: 16 column pairs, half of each warp out of range; target 0 and the top qubit
    rng = np.random.default_rng(k)
    host = tp._p130_dm_args(32, rng)
    host[1] = np.int32(k)
    syms = tp._p130_dm_syms(32, rng)
    out = run("probe/qc-density-gate-depol", host, 32, symbols=syms, policy="random")
    want = tp._p130_dm_ref(host[0], k, host[2], syms["c_u_re"], syms["c_u_im"])
    np.testing.assert_allclose(tp._p130_cplx(out[0]).reshape(32, 32), want, atol=2e-7)


# ---- qc-rabi-chevron-sincos ----

def test_rabi():
    n, nd = 256, 64                                          # 4 amplitudes x 64 detunings, one block
    host = [np.zeros(n, np.float32)] + tp._p130_rabi_params(n, nd) + [np.int32(nd), np.int32(n)]
    out = run("probe/qc-rabi-chevron-sincos", host, n)
    want = tp._p130_rabi_ref(*host[1:])
    np.testing.assert_allclose(out[0], want, rtol=0, atol=2e-4)
    assert want.max() > 0.9 and want.min() < 0.05            # full flips and near-zero points
