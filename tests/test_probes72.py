"""probe-unseen70's kernels (kernels_cuda/probes72.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/radar-pulse-compress-smem", "probe/radar-corner-turn-window", "probe/radar-doppler-dft-shfl",
       "probe/radar-cfar-ca-atomic", "probe/radar-beamform-const", "probe/radar-covariance-smem"]


def cplx(a):
    """Interleaved float32 (cuFloatComplex) as complex128."""
    return np.asarray(a, np.float32).view(np.complex64).astype(np.complex128)


def f32(z):
    return tp._u70_f32(z)


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen70"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes72.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    h = tp._u70_chirp()
    ac = np.abs(np.correlate(h, h, "full"))
    assert len(h) == 64 and np.allclose(np.abs(h), 1) and ac.max() == pytest.approx(64)
    assert np.sort(ac)[-2] < 20                                              # peak-to-sidelobe > 10 dB
    x, hf, y, nr, npul = tp._u70_pc_args(4096, rng)
    assert (npul, nr) == (256, 4096) and x.dtype == hf.dtype == np.float32 and len(x) == len(y) == 2 * 256 * 4096
    assert (cplx(hf) == h.astype(np.complex64)).all() and (y == 0).all()
    X = cplx(x).reshape(npul, nr)
    assert 1.5 < np.mean(np.abs(X) ** 2) < 2.2 and abs(X.mean()) < 0.01    # noise 1, echoes 24 x 64 x ~2.15
    comp = np.abs(pc_ref(x[:2 * 8 * nr], hf, 8, nr)).mean(0)               # the echoes compress to peaks
    assert 18 <= (comp > 30).sum() <= 24 * 3 and np.median(comp) < 10
    z, win, out, npul, nr = tp._u70_ct_args(1024, rng)
    assert (npul, nr) == (64, 1024) and (win == np.hanning(64).astype(np.float32)).all() and (out == 0).all()
    assert (np.abs(cplx(z).reshape(64, 1024)).mean(0) > 2.5).sum() == tp.U70_TARGETS
    zd, yd, nd = tp._u70_dd_args(256, rng)
    Z = cplx(zd).reshape(256, 32)
    assert nd == 256 and len(yd) == len(zd) and np.abs(Z[:, 0]).max() == 0 and np.abs(Z[:, 16]).mean() > 0.7
    pw, dr, dd, ds, cnt, room, nr, ndp = tp._u70_cf_args(2048, rng)
    P = pw.reshape(64, 2048)
    assert (room, nr, ndp) == (512, 2048, 64) and len(dr) == len(dd) == len(ds) == room and cnt.tolist() == [0]
    assert pw.dtype == np.float32 and 0.95 < P[16:48, 1024:].mean() < 1.1 and P[0, :64].mean() > 3000
    assert P[0, -256:].mean() < 5 and tp._u70_cf_syms(0, rng)["c_cfar"].tolist() == (2, 16, np.float32(10.672686))
    xb, yb, nb = tp._u70_bf_args(1 << 13, rng)
    Xb = cplx(xb).reshape(-1, 16)
    assert len(yb) == 2 * 16 * (1 << 13) and abs(np.mean(np.abs(Xb) ** 2) / (2 + 1000 + 10 ** 2.5) - 1) < 0.05
    w = tp._u70_bf_steer()
    assert np.allclose(w @ w.conj().T, np.eye(16) / 16)                   # orthogonal beams (a Butler matrix)
    steer = tp._u70_bf_syms(0, rng)["c_steer"]
    assert steer.shape == (256, 2) and (steer[:, 0] == w.real.ravel().astype(np.float32)).all()
    xc, R, ng = tp._u70_cv_args(64, rng)
    Xc = cplx(xc).reshape(64, 16, 32)
    assert ng == 64 and len(R) == 2 * 64 * 256 and abs(np.mean(np.abs(Xc) ** 2) / 1417.2 - 1) < 0.1
    ev = np.linalg.eigvalsh(np.mean(Xc @ Xc.conj().transpose(0, 2, 1), 0) / 32)
    assert ev[-3] > 100 * ev[-4]                                            # three jammers over the noise


# ---- radar-pulse-compress-smem ----

def pc_ref(x, h, npul, nr):
    X = np.pad(cplx(x).reshape(npul, nr), ((0, 0), (0, 64)))
    hc = np.conj(cplx(h))
    return sum(X[:, k:k + nr] * hc[k] for k in range(64))


@pytest.mark.parametrize("policy, n", [("lockstep", 300), ("random", 64)])
def test_pulse_compress(policy, n):
    # 2 (1) blocks a pulse, partial; the pulses' last 63 outputs truncated
    host, (x, h, y, nr, npul), *_ = launch("probe/radar-pulse-compress-smem", n, policy=policy)
    assert (npul, nr) == (n // 16, n)
    X = np.abs(cplx(x).reshape(npul, nr))
    bound = sum(np.pad(X, ((0, 0), (0, 64)))[:, k:k + nr] for k in range(64))     # sum |x| |h|
    assert (np.abs(cplx(y).reshape(npul, nr) - pc_ref(x, h, npul, nr)) <= 5e-7 * bound).all()


def test_pulse_compress_edge_cases():
    # a phase-coded (QPSK) replica and integer samples: every product and sum exact; an
    # impulse gives the conjugated, reversed replica; pulses shorter than the replica
    rng = np.random.default_rng(5)
    h = (rng.choice([-1, 1], 64) + 1j * rng.choice([-1, 1], 64))
    for n, policy in ((40, "random"), (300, "lockstep")):
        npul, nr = tp._u70_pc_shape(n)
        X = rng.integers(-8, 9, (npul, nr)) + 1j * rng.integers(-8, 9, (npul, nr))
        X[0] = 0
        X[0, 30] = 1
        host = [f32(X), f32(h), np.zeros(2 * npul * nr, np.float32), np.int32(nr), np.int32(npul)]
        out = cplx(run("probe/radar-pulse-compress-smem", host, n, policy=policy)[2]).reshape(npul, nr)
        assert (out == pc_ref(host[0], host[1], npul, nr)).all()
        assert (out[0, :31] == np.conj(h[30::-1])).all() and (out[0, 31:] == 0).all()


# ---- radar-corner-turn-window ----

@pytest.mark.parametrize("policy, n", [("lockstep", 1000), ("random", 300)])
def test_corner_turn_window(policy, n):
    # 62 (18) pulses by 1000 (300) range bins: partial tiles on both edges
    host, (z, win, out, npul, nr), *_ = launch("probe/radar-corner-turn-window", n, policy=policy)
    assert (npul, nr) == (n // 16, n) and npul % 32 and nr % 32
    zin = host[0].reshape(npul, nr, 2)
    want = (zin * win[:, None, None]).transpose(1, 0, 2)                  # exact: one float multiply
    assert (out.reshape(nr, npul, 2) == want).all()


def test_corner_turn_edge_cases():
    # a single pulse (one tile row, 31 of its rows idle); fewer range bins than a tile
    rng = np.random.default_rng(6)
    for npul, nr, n in ((1, 200, 200), (2, 20, 32)):
        z = rng.standard_normal(2 * npul * nr).astype(np.float32)
        win = rng.uniform(0, 1, npul).astype(np.float32)
        out = np.full(2 * 32 * 32 * 8, 7, np.float32)
        host = [z, win, out, np.int32(npul), np.int32(nr)]
        got = run("probe/radar-corner-turn-window", host, n, policy="random")[2]
        want = (z.reshape(npul, nr, 2) * win[:, None, None]).transpose(1, 0, 2).ravel()
        assert (got[:len(want)] == want).all() and (got[len(want):] == 7).all()


# ---- radar-doppler-dft-shfl ----

def dft_ref(z, nr):
    """Y[r][d] with doppler_dft_warp's float32 angles (-2 pi p d / 32 rounded at each step),
    their sines and cosines in float64, and a bound on float32 rounding."""
    p, d = np.meshgrid(np.arange(32, dtype=np.float32), np.arange(32, dtype=np.float32), indexing="ij")
    ang = (np.float32(-2.0) * np.float32(3.14159265) * p * d / np.float32(32)).astype(np.float64)
    Z = cplx(z).reshape(nr, 32)
    return Z @ np.exp(1j * ang), np.abs(Z).sum(1, keepdims=True)


@pytest.mark.parametrize("policy, n", [("lockstep", 37), ("random", 13)])
def test_doppler_dft(policy, n):
    # 5 (2) blocks of 8 warps, the last with 5 of them
    host, (z, Y, nr), *_ = launch("probe/radar-doppler-dft-shfl", n, policy=policy)
    ref, bound = dft_ref(z, n)
    got = cplx(Y).reshape(n, 32)
    assert (np.abs(got - ref) <= 5e-7 * bound).all()
    assert np.allclose(got, np.fft.fft(cplx(z).reshape(n, 32), axis=1), rtol=0, atol=1e-4 * bound.max())


def test_doppler_edge_cases():
    # an impulse in pulse 0 has a flat spectrum (exact: the other terms are zeros and
    # sincosf(0) is (0, 1)); a tone on Doppler bin k puts 32 there and ~0 elsewhere
    n = 9
    Z = np.zeros((n, 32), complex)
    Z[:4, 0] = [1 + 2j, -3.5, 0.25j, 7 - 1j]
    for k in range(4, n):
        Z[k] = (k - 3) * np.exp(2j * np.pi * np.arange(32) * (5 * k % 32) / 32)
    out = run("probe/radar-doppler-dft-shfl", [f32(Z), np.zeros(2 * n * 32, np.float32), np.int32(n)], n,
              policy="random")
    Y = cplx(out[1]).reshape(n, 32)
    assert (Y[:4] == Z[:4, :1]).all()
    for k in range(4, n):
        np.testing.assert_allclose(Y[k], 32 * (k - 3) * (np.arange(32) == 5 * k % 32), rtol=0, atol=1e-3 * (k - 3))


# ---- radar-cfar-ca-atomic ----

def cfar_ref(pw, guard=tp.U70_CF_GUARD, train=tp.U70_CF_TRAIN, alpha=tp.U70_CF_ALPHA):
    """(detections, pw / noise, the cut over the threshold) in cfar_ca's float32 order."""
    nr = pw.shape[1]
    s = np.zeros_like(pw)
    cnt = np.zeros(nr, np.int32)
    for k in range(guard + 1, guard + train + 1):
        if k < nr:
            s[:, k:] += pw[:, :-k]
            cnt[k:] += 1
            s[:, :nr - k] += pw[:, k:]
            cnt[:nr - k] += 1
    with np.errstate(invalid="ignore"):
        noise = s / cnt.astype(np.float32)
    thr = np.float32(alpha) * noise
    return pw > thr, pw / noise, pw / thr


def check_detections(after, det, snr):
    dr, dd, ds, cnt, room = after[1], after[2], after[3], int(after[4][0]), int(after[5])
    assert cnt == det.sum()
    k = min(cnt, room)
    got = sorted(zip(dd[:k].tolist(), dr[:k].tolist()))
    assert len(set(got)) == k and all(det[d, r] for d, r in got)                # distinct, all true detections
    if cnt <= room:
        assert got == sorted(zip(*np.nonzero(det)))
    assert (ds[:k] == snr[dd[:k], dr[:k]]).all() and (dr[k:] == 0).all() and (ds[k:] == 0).all()


@pytest.mark.parametrize("policy, n", [("lockstep", 1000), ("random", 200)])
def test_cfar_ca(policy, n):
    # 31 (6) Doppler rows of 4 (1) blocks, the last partial; cells near the edges with fewer
    # training cells
    host, after, syms, _ = launch("probe/radar-cfar-ca-atomic", n, policy=policy)
    ndp, nr = n // 32, n
    assert after[6:] == [nr, ndp] and syms["c_cfar"]["train"] == 16
    det, snr, ratio = cfar_ref(host[0].reshape(ndp, nr))
    assert np.abs(ratio - 1).min() > 1e-5 and det.sum() >= 5                 # no cell within rounding of its threshold
    check_detections(after, det, snr)


def test_cfar_edge_cases():
    # a flat map with spikes (at the row's ends too: there one side's training cells only),
    # the window and factor from c_cfar: with no guard cell two adjacent spikes raise each
    # other's threshold (still passed, 20 > 4 x 25 / 6), with 2 guard cells the spikes 5
    # cells from the row's start hide each other (20 > 10 x 35 / 16 and 38 / 19 fail); a
    # list too short for the detections (the counter still counts them all); a guard wider
    # than the row (no training cell: 0 / 0, which no cell beats)
    nr, ndp = 64, 2
    pw = np.ones((ndp, nr), np.float32)
    pw[0, [0, 5, 63]] = 20
    pw[1, 30:32] = 20
    cases = (((0, 3, 4.0), 16, [(0, 0), (0, 5), (0, 63), (1, 30), (1, 31)]),
             ((2, 16, 10.0), 16, [(0, 63), (1, 30), (1, 31)]),
             ((0, 3, 4.0), 3, [(0, 0), (0, 5), (0, 63), (1, 30), (1, 31)]),
             ((70, 2, 1.0), 4, []))
    for params, room, want in cases:
        host = [pw.ravel(), np.zeros(room, np.int32), np.zeros(room, np.int32), np.zeros(room, np.float32),
                np.zeros(1, np.int32), np.int32(room), np.int32(nr), np.int32(ndp)]
        after = run("probe/radar-cfar-ca-atomic", host, nr, policy="random",
                    symbols={"c_cfar": tp._u70_cfar_params(*params)})
        det, snr, _ = cfar_ref(pw, *params)
        assert sorted(zip(*np.nonzero(det))) == want
        check_detections(after, det, snr)
    assert (after[1] == 0).all() and after[4][0] == 0


# ---- radar-beamform-const ----

@pytest.mark.parametrize("policy, n", [("lockstep", 300), ("random", 20)])    # random: a partial warp a beam
def test_beamform(policy, n):
    host, (x, y, nn), syms, _ = launch("probe/radar-beamform-const", n, policy=policy)
    w = cplx(syms["c_steer"]).reshape(16, 16)
    X = cplx(x).reshape(n, 16)
    got = cplx(y).reshape(16, n)
    assert (np.abs(got - np.conj(w) @ X.T) <= 1e-7 * np.abs(X).sum(1)).all()
    assert np.argmax(np.abs(got).mean(1)) in (2, 3) and np.abs(got).mean(1).max() > 10     # the jammer at -0.55


def test_beamform_edge_cases():
    # a plane wave from each beam's own direction: 1 in that beam, ~0 in the other
    # (orthogonal) beams; channel samples beyond nsnap's never read
    n = 40
    u = -1 + (2 * np.arange(16) + 1) / 16
    X = tp._u70_ula(u[np.arange(n) % 16], 16)
    syms = tp._u70_bf_syms(0, None)
    host = [np.r_[f32(X), np.full(32, np.nan, np.float32)], np.zeros(2 * 16 * n, np.float32), np.int32(n)]
    got = cplx(run("probe/radar-beamform-const", host, n, symbols=syms)[1]).reshape(16, n)
    np.testing.assert_allclose(got, np.eye(16)[:, np.arange(n) % 16], rtol=0, atol=2e-6)


# ---- radar-covariance-smem ----

@pytest.mark.parametrize("policy, n", [("lockstep", 3), ("random", 1)])      # random: one block, its 8 warps
def test_covariance(policy, n):
    host, (x, R, ng), *_ = launch("probe/radar-covariance-smem", n, policy=policy)
    X = cplx(x).reshape(n, 16, 32)
    ref = X @ X.conj().transpose(0, 2, 1) / 32
    got = cplx(R).reshape(n, 16, 16)
    d = np.real(np.diagonal(ref, axis1=1, axis2=2))
    assert ng == n and (np.abs(got - ref) <= 1e-6 * np.sqrt(d[:, :, None] * d[:, None, :])).all()
    assert np.real(np.diagonal(got, axis1=1, axis2=2)).min() > 1


def test_covariance_edge_cases():
    # integer snapshots: every product and sum exact, so R exactly numpy's (Hermitian);
    # an all-zero gate
    rng = np.random.default_rng(8)
    n = 3
    X = rng.integers(-8, 9, (n, 16, 32)) + 1j * rng.integers(-8, 9, (n, 16, 32))
    X[1] = 0
    out = run("probe/radar-covariance-smem", [f32(X), np.full(2 * n * 256, 5, np.float32), np.int32(n)], n)
    got = cplx(out[1]).reshape(n, 16, 16)
    assert (got == X @ X.conj().transpose(0, 2, 1) / 32).all() and (got[1] == 0).all()
