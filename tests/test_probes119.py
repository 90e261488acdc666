"""probe-unseen117's kernels (kernels_cuda/probes119.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/kf-cv-track-aos", "probe/pid-msd-gain-sweep", "probe/statespace-smem-sim", "probe/gnn-gate-atomicmin",
       "probe/iir-q14-planar", "probe/lqr-dare-double"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen117"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes119.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 12
    # kf: a 20-byte struct, positive definite covariances, measurements that make the NIS chi-square(1)
    t, z, nis, dt, q, r, nn = tp._p119_kf_args(n, rng)
    assert t.dtype.itemsize == 20 and t.dtype.names == ("x", "v", "p00", "p01", "p11") and nn == n
    assert (t["p00"] > 0).all() and (t["p00"] * t["p11"] > t["p01"] ** 2).all() and z.dtype == np.float32
    assert abs(tp._p119_kf_ref(t, z)[5].mean() - 1) < 0.1
    # pid: the sweep's ranges; most loops settle, most saturate at first, many overshoot
    h = tp._p119_pid_args(512, rng)
    for a, rg in zip(h[:6], (tp.P119_PID_KP, tp.P119_PID_KI, tp.P119_PID_KD, tp.P119_PID_M, tp.P119_PID_C,
                             tp.P119_PID_K)):
        assert a.dtype == np.float32 and rg[0] <= a.min() and a.max() <= rg[1]
    x, ise, peak, settle, sat, gap = tp._p119_pid_ref(*h[:6])
    assert 0.55 < (settle < tp.P119_PID_STEPS).mean() < 0.85 and settle.min() > 50
    assert (sat > 0).mean() > 0.6 and (peak > 1.05).mean() > 0.3 and np.abs(x).max() < 5
    # ss: a stable shared model, inputs and states component-major
    A, B, C, x0, u, y, steps, nn = tp._p119_ss_args(n, rng)
    rho = np.abs(np.linalg.eigvals(A.reshape(8, 8).astype(np.float64))).max()
    assert abs(rho - tp.P119_SS_RHO) < 1e-5 and len(u) == steps * tp.P119_SS_NU * n and len(x0) == 8 * n
    # gate: ~80% of the measurements near a track, ~0.85 gated pairs a measurement, few in two gates
    g = tp._p119_gate_args(n, rng)
    assert g[9] == np.float32(tp.P119_GATE_CHI2) and g[10] == 256 and (g[7] == 0).all() and (g[8] == 2 ** 64 - 1).all()
    inside = tp._p119_gate_d2(*g[:7]) < np.float32(tp.P119_GATE_CHI2)
    k = inside.sum(axis=1)
    assert 0.8 < k.mean() < 0.9 and 0.17 < (k == 0).mean() < 0.24 and (k > 1).mean() < 0.1
    # iir: unit DC gain a section, clipping only on the loud (square-wave) channels
    c = tp._p119_iir_coefs().astype(np.float64).reshape(2, 5) / 2 ** 14
    assert np.allclose(c[:, :3].sum(axis=1) / (1 + c[:, 3] + c[:, 4]), 1, atol=2e-3)
    xs, ys, coef, T, nn = tp._p119_iir_args(64, rng)
    xs = xs.reshape(64, T)
    loud = np.arange(64) % tp.P119_IIR_LOUD == 0
    assert xs.dtype == np.int16 and (np.abs(xs[loud]) == 32000).all() and np.abs(xs[~loud]).max() < 20000
    assert tp._p119_iir_ref(xs[loud], coef)[1] > 0 and tp._p119_iir_ref(xs[~loud], coef)[1] == 0
    # dare: sweeps data-dependent (divergent warps), K stabilizing every plant
    d = tp._p119_dare_args(n, rng)
    P, K, it, gap = tp._p119_dare_ref(*d[:4])
    assert 40 < it.mean() < 80 and it.min() >= 5 and it.max() < tp.P119_DARE_MAX
    assert it.reshape(-1, 32).max(axis=1).mean() > 2 * it.mean()
    Acl = d[0].reshape(-1, 2, 2) - d[1].reshape(-1, 2)[:, :, None] * K[:, None, :]
    assert np.abs(np.linalg.eigvals(Acl)).max() < 1 and (np.abs(np.linalg.eigvals(d[0].reshape(-1, 2, 2))) > 1).any()


# ---- kf-cv-track-aos ----

def test_kf_cv():
    n = 300                                                 # 2 blocks, the last partial
    host, (t, z, nis, *_), *_ = launch("probe/kf-cv-track-aos", n)
    ref = tp._p119_kf_ref(host[0], host[1])
    for name, r in zip(tp.P119_KF_DTYPE.names, ref[:5]):
        np.testing.assert_allclose(t[name], r, rtol=2e-6, atol=2e-5 * np.abs(r).max())
    assert (np.abs(nis - ref[5]) <= 3e-4 * np.sqrt(ref[5]) + 1e-5 * ref[5]).all()     # z - x cancels (|x| ~ 1000)
    assert (t["x"] != host[0]["x"]).all() and (z == host[1]).all()


# ---- pid-msd-gain-sweep ----

def test_pid_msd():
    n = 160                                                 # 1 block, partial
    host, out, *_ = launch("probe/pid-msd-gain-sweep", n)
    x, ise, peak, settle, sat, gap = tp._p119_pid_ref(*host[:6])
    ok = gap > 1e-5                     # the plants with no test within float32's rounding of its threshold
    assert ok.mean() > 0.75 and (sat[ok] > 0).any() and (sat[ok] == 0).any()
    assert (settle[ok] < tp.P119_PID_STEPS).any() and (settle[ok] == tp.P119_PID_STEPS).any()
    assert (out[9][ok] == settle[ok]).all()
    for got, ref in zip(out[6:9], (x, ise, peak)):
        np.testing.assert_allclose(got[ok], ref[ok], rtol=0, atol=2e-5)
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-2)


# ---- statespace-smem-sim ----

def test_ss_sim():
    # 12 steps (the probe's 32 are slow in the emulator), a partial block
    rng = np.random.default_rng(3)
    n, steps = 200, 12
    host = tp._p119_ss_args(n, rng)
    host[4] = host[4][:steps * tp.P119_SS_NU * n].copy()
    host[5] = np.zeros(steps * n, np.float32)
    host[6] = np.int32(steps)
    A, B, C, x, u, y, *_ = run("probe/statespace-smem-sim", host, n)
    xr, yr = tp._p119_ss_ref(*host[:5])
    np.testing.assert_allclose(x, xr.ravel(), rtol=0, atol=3e-5 * np.abs(xr).max())
    np.testing.assert_allclose(y, yr.ravel(), rtol=0, atol=3e-5 * np.abs(yr).max())
    assert np.abs(yr[0] - host[2] @ host[3].reshape(8, n)).max() < 1e-5


# ---- gnn-gate-atomicmin ----

def gate_check(host, out):
    cnt, near, best, g1, sep = tp._p119_gate_ref(*host[:7])
    assert g1 > 1e-4 and sep > 1e-4                         # no d^2 near the gate, no near tie
    assert (out[7] == cnt).all()
    key = out[8]
    none = cnt == 0
    assert (key[none] == 2 ** 64 - 1).all()
    idx = (key[~none] & np.uint64(0xffffffff)).astype(np.int64)
    d2 = (key[~none] >> np.uint64(32)).astype(np.uint32).view(np.float32)
    assert (idx == near[~none]).all()
    np.testing.assert_allclose(d2, best[~none], rtol=1e-5, atol=1e-6)
    return cnt


# random (slow): one block, 5 of its 8 warps measuring, all staging the tracks
@pytest.mark.parametrize("policy, n", [("lockstep", 2000), ("random", 160)])
def test_gnn_gate(policy, n):
    host, out, *_ = launch("probe/gnn-gate-atomicmin", n, policy=policy)
    cnt = gate_check(host, out)
    assert cnt.sum() > 0.7 * n and cnt.max() > 1


def test_gnn_gate_few_tracks():
    # 40 tracks (fewer than a block's threads stage them), 5 moved out of everyone's reach
    rng = np.random.default_rng(4)
    n = 1000
    host = tp._p119_gate_args(n, rng)
    for k in range(2, 7):
        host[k] = host[k][:40].copy()
    host[2][:5] = -1e4
    host[7], host[8], host[10] = np.zeros(40, np.int32), np.full(40, 2 ** 64 - 1, np.uint64), np.int32(40)
    out = run("probe/gnn-gate-atomicmin", host, n, policy="random")
    cnt = gate_check(host, out)
    assert (cnt[:5] == 0).all() and (cnt[5:] > 0).sum() > 20


# ---- iir-q14-planar ----

def test_iir_q14():
    # 128 samples (the probe's 512 are slow in the emulator); channels 0, 16, 32 clip
    rng = np.random.default_rng(5)
    n, T = 40, 128
    host = tp._p119_iir_args(n, rng)
    host[0] = host[0].reshape(n, -1)[:, :T].ravel().copy()
    host[1] = np.zeros(n * T, np.int16)
    host[3] = np.int32(T)
    x, y, *_ = run("probe/iir-q14-planar", host, n)
    ref, clips = tp._p119_iir_ref(host[0], host[2], nsamp=T)
    assert clips > 0 and (y == ref.ravel()).all()
    assert (np.abs(y.reshape(n, T)[0]) == 32767).any() and np.abs(ref[1:16]).max() < 20000


# ---- lqr-dare-double ----

def test_dare():
    # the sweeps until a change under 1e-3 of P's largest entry (the probe's 1e-8: 3x the
    # sweeps, the emulation's time), still a few to a few dozen a problem
    n, tol = 200, 1e-3                                      # 2 blocks, the last partial
    host = tp.get("probe/lqr-dare-double").args(n, np.random.default_rng(0))
    host[7] = np.float64(tol)
    out = run("probe/lqr-dare-double", host, n)
    P, K, it, gap = tp._p119_dare_ref(*host[:4], tol=tol)
    assert gap > 1e-6                                       # no convergence test within rounding
    assert (out[6] == it).all() and it.max() > 3 * it.min()
    np.testing.assert_allclose(out[4], P.ravel(), rtol=1e-12, atol=1e-12 * np.abs(P).max())
    np.testing.assert_allclose(out[5], K.ravel(), rtol=1e-10, atol=1e-12)
    Pm = out[4].reshape(-1, 2, 2)
    np.testing.assert_allclose(Pm[:, 0, 1], Pm[:, 1, 0], rtol=1e-12)
    assert (np.linalg.eigvals(Pm).real > 0).all()
