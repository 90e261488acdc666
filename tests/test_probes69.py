"""probe-unseen67's kernels (kernels_cuda/probes69.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/qsim-gate1q-const", "probe/qsim-cnot-skip", "probe/qsim-hadamard-smem-tile", "probe/qsim-expect-z-shfl",
       "probe/qsim-sample-bsearch", "probe/qsim-qaoa-phase-sincos"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen67"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes69.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def cplx(z):
    """Interleaved float32 (re, im) as complex128."""
    return z.astype(np.float64).view(np.complex128)


def f2(z):
    """complex values as interleaved float32."""
    return np.ascontiguousarray(z, np.complex64).view(np.float32).copy()


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 12
    psi, k, npairs = tp._u67_gate1q_args(n, rng)
    assert psi.dtype == np.float32 and len(psi) == 2 * n and abs(np.linalg.norm(cplx(psi)) - 1) < 1e-6
    assert k == 2 and npairs == n // 2 and abs(psi.mean()) < 0.05 / np.sqrt(n)
    g = tp._u67_gate1q_syms(n, rng)
    u = (g["c_gate_re"] + 1j * g["c_gate_im"].astype(np.float64)).reshape(2, 2)
    assert g["c_gate_re"].dtype == np.float32 and np.abs(u @ u.conj().T - np.eye(2)).max() < 1e-6
    assert tp._u67_cnot_args(n, rng)[1:] == [0, 11, n // 2]
    assert len(tp._u67_ht_args(n, rng)[0]) == 2 * n
    with pytest.raises(AssertionError):
        tp._u67_ht_args(512, rng)
    masks = [tp._u67_ez_args(n, rng)[1] for _ in range(20)]
    assert all(isinstance(m, np.uint32) and 0 < m < n for m in masks) and 4 < np.mean([bin(m).count("1")
                                                                                            for m in masks]) < 8
    cdf, uu, shots, dim, ns = tp._u67_sample_args(n, rng)
    assert cdf.dtype == uu.dtype == np.float64 and (np.diff(cdf) > 0).all() and abs(cdf[-1] - 1) < 1e-6
    assert dim == n and ns == len(uu) == len(shots) == n // 16 and 0 <= uu.min() and uu.max() < 1
    psi, ne, gamma, nn = tp._u67_qaoa_args(n, rng)
    assert ne == 18 and gamma == np.float32(0.8) and nn == n
    e = tp._u67_qaoa_syms(1 << 24, rng)
    u, v = e["c_edge_u"], e["c_edge_v"]
    assert u.dtype == np.int32 and len(u) == len(v) == 128 and (u[36:] == 0).all() and (v[36:] == 0).all()
    assert (u[:36] < v[:36]).all() and (np.bincount(np.r_[u[:36], v[:36]], minlength=24) == 3).all()
    assert len(set(zip(u[:36].tolist(), v[:36].tolist()))) == 36 and v[:36].max() < 24
    assert all(p.n >= 1 << 24 for p in tp.entries() if p.family == "probe-unseen67")


# ---- qsim-gate1q-const ----

def gate_ref(psi, k, u):
    """U (2x2) on qubit k of the state psi (complex), in float64."""
    a = psi.reshape(-1, 2, 1 << k)
    return np.einsum("ij,bjk->bik", u, a).ravel()


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_gate1q_const(policy):
    n = 1 << 10                                             # 2 blocks of 256 pairs
    host, (psi, k, npairs), syms, _ = launch("probe/qsim-gate1q-const", n, policy=policy)
    u = (syms["c_gate_re"].astype(np.float64) + 1j * syms["c_gate_im"]).reshape(2, 2)
    ref = gate_ref(cplx(host[0]), 2, u)
    assert k == 2 and npairs == n // 2 and np.abs(ref - cplx(host[0])).max() > 0.01
    np.testing.assert_allclose(cplx(psi), ref, rtol=0, atol=2e-8)
    assert abs(np.linalg.norm(cplx(psi)) - 1) < 1e-6


def test_gate1q_targets():
    # every target from 0 to the top qubit of 7 qubits (64 pairs: one partial block) and
    # targets 0, 5 and 10 of 11 qubits (1024 pairs: 4 blocks)
    rng = np.random.default_rng(5)
    g = tp._u67_gate1q_syms(0, rng)
    u = (g["c_gate_re"].astype(np.float64) + 1j * g["c_gate_im"]).reshape(2, 2)
    for nq, ks in ((7, range(7)), (11, (0, 5, 10))):
        n = 1 << nq
        psi = tp._u67_state(n, rng)
        for k in ks:
            out = run("probe/qsim-gate1q-const", [psi.copy(), np.int32(k), np.int32(n // 2)], n, symbols=g)
            np.testing.assert_allclose(cplx(out[0]), gate_ref(cplx(psi), k, u), rtol=0, atol=1e-7)
    # Pauli X from the constants: an exact swap
    x = {"c_gate_re": np.array([0, 1, 1, 0], np.float32), "c_gate_im": np.zeros(4, np.float32)}
    out = run("probe/qsim-gate1q-const", [psi.copy(), np.int32(3), np.int32(n // 2)], n, symbols=x)
    assert (cplx(out[0]) == cplx(psi).reshape(-1, 2, 8)[:, ::-1].ravel()).all()


# ---- qsim-cnot-skip ----

def cnot_ref(psi, c, t):
    idx = np.arange(len(psi))
    return psi[np.where((idx >> c) & 1, idx ^ (1 << t), idx)]


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_cnot_skip(policy):
    n = 1 << 10
    host, (psi, c, t, npairs), *_ = launch("probe/qsim-cnot-skip", n, policy=policy)
    assert (c, t, npairs) == (0, 9, n // 2)
    assert (cplx(psi) == cnot_ref(cplx(host[0]), 0, 9)).all() and (psi != host[0]).mean() > 0.45


def test_cnot_pairs():
    # control above and below the target, adjacent and far, a partial block (n = 2^7)
    rng = np.random.default_rng(6)
    for nq in (7, 10):
        n = 1 << nq
        psi = tp._u67_state(n, rng)
        for c, t in ((nq - 1, 0), (3, 4), (4, 3), (1, nq - 2)):
            out = run("probe/qsim-cnot-skip", [psi.copy(), np.int32(c), np.int32(t), np.int32(n // 2)], n,
                      policy="random")
            assert (cplx(out[0]) == cnot_ref(cplx(psi), c, t)).all()


# ---- qsim-hadamard-smem-tile ----

def ht_ref(psi, log=10):
    """H on each of the low `log` qubits, each stage scaled by float32(1/sqrt 2), in float64."""
    r = float(np.float32(0.70710678))
    a = psi.reshape(-1, 1 << log).copy()
    for q in range(log):
        b = a.reshape(a.shape[0], -1, 2, 1 << q)
        a = np.stack([(b[:, :, 0] + b[:, :, 1]) * r, (b[:, :, 0] - b[:, :, 1]) * r], 2).reshape(a.shape)
    return a.ravel()


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_hadamard_smem_tile(policy):
    n = 1 << 11                                             # 2 tiles
    host, (psi,), *_ = launch("probe/qsim-hadamard-smem-tile", n, policy=policy)
    ref = ht_ref(cplx(host[0]))
    np.testing.assert_allclose(cplx(psi), ref, rtol=0, atol=3e-8)
    assert abs(np.linalg.norm(cplx(psi)) - 1) < 1e-5


def test_hadamard_basis_states():
    # |0> of each tile -> the uniform superposition over its 10 low qubits (1/32 each, up to
    # the rounding of 1/sqrt 2); |1> -> alternating signs; H twice is the identity
    z = np.zeros(2048, np.complex128)
    z[0], z[1024 + 1] = 1, 1j
    out = cplx(run("probe/qsim-hadamard-smem-tile", [f2(z)], 2048)[0])
    r10 = float(np.float32(0.70710678)) ** 10
    np.testing.assert_allclose(out[:1024], r10, rtol=1e-6)
    np.testing.assert_allclose(out[1024:], 1j * r10 * (-1.0) ** np.arange(1024), rtol=1e-6)
    psi = tp._u67_state(2048, np.random.default_rng(7))
    twice = run("probe/qsim-hadamard-smem-tile", [run("probe/qsim-hadamard-smem-tile", [psi.copy()], 2048)[0]], 2048)
    np.testing.assert_allclose(cplx(twice[0]), cplx(psi) * r10 * r10 * 1024, rtol=0, atol=1e-7)


# ---- qsim-expect-z-shfl ----

def ez_ref(psi, mask, n):
    p = np.abs(psi[:n]) ** 2
    sign = np.array([(-1) ** bin(x & int(mask)).count("1") for x in range(n)])
    return float(np.sum(p * sign))


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_expect_z_shfl(policy):
    n = 1 << 11                                             # 8 blocks, 8 atomics onto one double
    host, (psi, mask, res, nn), *_ = launch("probe/qsim-expect-z-shfl", n, policy=policy)
    assert nn == n and res.dtype == np.float64 and 0 < mask < n
    ref = ez_ref(cplx(host[0]), mask, n)
    assert abs(res[0] - ref) < 1e-14 and abs(ref) < 0.2


def test_expect_z_cases():
    rng = np.random.default_rng(8)
    psi = tp._u67_state(1024, rng)
    # the empty string: the norm; a partial last block (n = 300: its last warps and lanes
    # idle); accumulating onto an old result
    for mask, n, old in ((0, 1024, 0.0), (0b1011, 300, 0.5), (0x3ff, 1000, -1.0)):
        out = run("probe/qsim-expect-z-shfl", [psi, np.uint32(mask), np.array([old]), np.int32(n)], n, policy="random")
        assert abs(out[2][0] - old - ez_ref(cplx(psi), mask, n)) < 1e-14
    assert abs(out[2][0] + 1 - ez_ref(cplx(psi), 0x3ff, 1000)) < 1e-14
    # basis states: eigenvalues +-1, exactly
    for x, mask, ev in ((5, 0b101, 1.0), (5, 0b100, -1.0), (1023, 0x3ff, 1.0), (512, 0x201, -1.0)):
        z = np.zeros(1024, np.complex128)
        z[x] = 1
        out = run("probe/qsim-expect-z-shfl", [f2(z), np.uint32(mask), np.zeros(1), np.int32(1024)], 1024)
        assert out[2][0] == ev


# ---- qsim-sample-bsearch ----

def sample_ref(cdf, u):
    return np.minimum(np.searchsorted(cdf, u, side="right"), len(cdf) - 1)


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_sample_bsearch(policy):
    n = 1 << 12                                             # 256 shots, one block
    host, (cdf, u, shots, dim, ns), *_ = launch("probe/qsim-sample-bsearch", n, policy=policy)
    assert dim == n and ns == 256 and (shots == sample_ref(cdf, u)).all() and len(np.unique(shots)) > 200


def test_sample_edges():
    # numbers equal to a cdf entry (the next outcome), zero-probability outcomes (runs of
    # equal entries, never drawn, except the last outcome for a number at or past the last
    # entry, as the search clamps), 0, a dimension not a power of 2, shots in a partial block
    dim = 1000
    p = np.random.default_rng(9).random(dim)
    p[[0, 5, 6, 7, 998, 999]] = 0
    cdf = np.cumsum(p / p.sum())
    u = np.r_[0.0, cdf[[1, 4, 10, 500]], 0.999999999, cdf[-1], np.nextafter(1.0, 0),
              np.random.default_rng(10).random(292)]
    out = run("probe/qsim-sample-bsearch", [cdf, u, np.full(len(u), -1, np.int32), np.int32(dim),
                                            np.int32(len(u))], len(u) * 16)
    ref = sample_ref(cdf, u)
    assert (out[2] == ref).all() and ref[:4].tolist() == [1, 2, 8, 11] and ref[5:7].tolist() == [997, 999]
    assert not np.isin(out[2][8:], [0, 5, 6, 7, 998]).any()


# ---- qsim-qaoa-phase-sincos ----

def qaoa_ref(psi, u, v, ne, gamma):
    x = np.arange(len(psi))
    cut = sum((((x >> a) ^ (x >> b)) & 1 for a, b in zip(u[:ne], v[:ne])), np.zeros(len(psi), np.int64))
    return psi * np.exp(-1j * (np.float32(gamma) * cut.astype(np.float32)).astype(np.float64)), cut


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_qaoa_phase_sincos(policy):
    n = 1 << 10                                             # 4 blocks, 15 edges
    host, (psi, ne, gamma, nn), syms, _ = launch("probe/qsim-qaoa-phase-sincos", n, policy=policy)
    ref, cut = qaoa_ref(cplx(host[0]), syms["c_edge_u"], syms["c_edge_v"], ne, gamma)
    assert ne == 15 and nn == n and cut.max() > 10 and cut.min() == 0
    np.testing.assert_allclose(cplx(psi), ref, rtol=0, atol=1e-8)


def test_qaoa_graphs():
    rng = np.random.default_rng(11)
    n = 300                                                 # a partial last block
    psi = tp._u67_state(512, rng)[:2 * n].copy()
    e = {"c_edge_u": np.zeros(128, np.int32), "c_edge_v": np.zeros(128, np.int32)}
    e["c_edge_u"][:128], e["c_edge_v"][:128] = rng.integers(0, 9, 128), rng.integers(0, 9, 128)   # loops, repeats
    for ne, gamma in ((0, 0.8), (128, 0.37), (7, -2.5)):
        out = run("probe/qsim-qaoa-phase-sincos", [psi.copy(), np.int32(ne), np.float32(gamma), np.int32(n)], n,
                  symbols=e)
        ref, cut = qaoa_ref(cplx(psi), e["c_edge_u"], e["c_edge_v"], ne, gamma)
        np.testing.assert_allclose(cplx(out[0]), ref, rtol=0, atol=1e-7 if ne == 128 else 2e-8)
    assert cut.max() >= 5 and (out[0] == psi).mean() < 0.1
    out = run("probe/qsim-qaoa-phase-sincos", [psi.copy(), np.int32(0), np.float32(0.8), np.int32(n)], n, symbols=e)
    assert (out[0] == psi).all()                            # no edges: exp(0) = 1 exactly
