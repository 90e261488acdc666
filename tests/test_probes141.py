"""probe-unseen139's kernels (kernels_cuda/probes141.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/fdtd3d-acoustic-leapfrog", "probe/image-source-rir-atomic", "probe/raytrace-room-etc",
       "probe/fir-reverb-const-smem", "probe/modal-synth-expsin", "probe/spectrogram-dft-smem"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen139"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes141.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 24
    p, q, out, c2, nx, ny, nz = tp._p141_fdtd_args(n, rng)
    P = p.reshape(n, n, n)
    assert p.dtype == np.float32 and len(p) == n ** 3 and c2 == np.float32(0.25) and nx == ny == nz == n
    assert (P[0] == 0).all() and (P[:, -1] == 0).all() and (P[:, :, 0] == 0).all() and (q.reshape(n, n, n)[-1] == 0).all()
    assert 0.9 < np.corrcoef(p, q)[0, 1] < 1 and P[1:-1, 1:-1, 1:-1].std() > 0.9
    assert tp.P141_FD_COURANT < 3 ** -0.5                                   # the 3-D stability limit
    # image sources: the order from n, the default's images and the share within the RIR
    assert tp._p141_is_order(8 * 7 ** 3) == 3 and tp._p141_is_total(tp.get(IDS[1]).n) == 8 * 101 ** 3
    a = tp._p141_is_args(8 * 5 ** 3, rng)
    assert a[0].shape == (tp.P141_IS_LEN,) and a[-2] == 2 and a[11] == np.float32(16000 / 343)
    assert all(0 < s < L and 0 < r < L for s, r, L in zip(tp.P141_SRC, tp.P141_RCV, tp.P141_ROOM))
    rir, k, amp, margin = tp._p141_is_ref(20)
    assert (k >= 0).all() and amp.max() < 1 / (4 * np.pi * 4.5)             # all within 2 s at order 20
    # rays: bounce counts spread (divergent warps) and some receiver hits
    etc, b, gm, em = tp._p141_rt_ref(4096)
    assert b.min() >= 10 and b.max() < tp.P141_RT_MAXB and b.reshape(-1, 32).max(axis=1).mean() > 2 * b.mean()
    assert 0.02 < (etc > 0).sum() / 1000 and etc.max() < 4096
    h = tp._p141_fir_h()
    assert h.dtype == np.float32 and h[0] == 1 and (h[1:40] == 0).all() and np.abs(h[40:]).max() < 1
    assert np.abs(h[-100:]).max() < 0.02                                     # decayed
    x, y, dry, wet, nn = tp._p141_fir_args(5000, rng)
    assert x.dtype == np.float32 and nn == 5000 and np.abs(x).max() < 1.6
    w, d, am, ph, out, ifs, m, nn = tp._p141_ms_args(3 * tp.P141_MS_LEN + 5, rng)
    assert len(w) == 4 * tp.P141_MS_MODES == len(d) and m == tp.P141_MS_MODES
    f = w / (2 * np.pi)
    assert 59.9 < f.min() and f.max() < 8000.1 and d.min() >= 0.5 and am.min() >= 0 and am.max() < 1 / 16
    assert (w.astype(np.float64) * tp.P141_MS_LEN / tp.P141_MS_FS).max() < 105615        # sinf's fast path
    x, spec, hop, nf = tp._p141_sg_args(50, rng)
    assert len(x) == 128 * 49 + 256 and spec.shape == (50 * 128,) and hop == 128 and nf == 50


# ---- fdtd3d-acoustic-leapfrog ----

def test_fdtd3d():
    n = 40                                                  # partial blocks in x and y
    host, (p, q, out, *_), *_ = launch("probe/fdtd3d-acoustic-leapfrog", n)
    np.testing.assert_allclose(out, tp._p141_fdtd_ref(host[0], host[1], n), rtol=1e-5, atol=1e-5)
    assert (p == host[0]).all()


# ---- image-source-rir-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_image_source(policy):
    n = 8 * 9 ** 3                                          # order 4: 5832 images
    host, (rir, *_), *_ = launch("probe/image-source-rir-atomic", n, policy=policy)
    assert host[-2] == 4
    ref, k, amp, margin = tp._p141_is_ref(4)
    amb = margin < 1e-3                                     # rounding may go either way in float32
    assert amb.sum() <= 20
    clean = np.ones(len(ref), bool)
    for kk in k[amb]:
        clean[max(kk - 1, 0):kk + 2] = False
    np.testing.assert_allclose(rir[clean], ref[clean], rtol=2e-5, atol=1e-9)
    assert abs(rir.sum() - ref.sum()) < 1e-5 * ref.sum()
    assert (np.bincount(k, minlength=len(ref)) > 1).any()   # bins shared by several images


def test_image_source_cutoff():
    # a short RIR: the images past its end add nothing
    rng = np.random.default_rng(3)
    host = tp._p141_is_args(8 * 7 ** 3, rng)
    host[0] = np.zeros(400, np.float32)
    host[-1] = np.int32(400)
    rir = run("probe/image-source-rir-atomic", host, 8 * 7 ** 3)[0]
    ref, k, amp, margin = tp._p141_is_ref(3, length=400)
    assert (k < 0).mean() > 0.5 and margin[k >= 0].min() > 1e-3
    np.testing.assert_allclose(rir, ref, rtol=2e-5, atol=1e-9)


# ---- raytrace-room-etc ----

# 300: 2 blocks, the last partial; random (slow): 200, one block of 7 warps, the last partial
@pytest.mark.parametrize("policy, n", [("lockstep", 256 + 44), ("random", 200)])
def test_raytrace(policy, n):
    host, (etc, bounces, *_), *_ = launch("probe/raytrace-room-etc", n, policy=policy)
    ref, b, gm, em = tp._p141_rt_ref(n)
    assert gm.min() > 1e-3 and em.min() > 2e-5              # no test within float32's reach
    assert (bounces == b).all() and b.min() < 15 and b.max() > 60
    np.testing.assert_allclose(etc, ref, rtol=1e-4, atol=1e-7)
    assert (ref > 0).sum() > 20


# ---- fir-reverb-const-smem ----

def test_fir_reverb():
    n = 3000                                                # 12 blocks, the last partial
    host, (x, y, *_), *_ = launch("probe/fir-reverb-const-smem", n)
    np.testing.assert_allclose(y, tp._p141_fir_ref(host[0]), rtol=0, atol=2e-5)


def test_fir_impulse():
    # an impulse at 300 gives dry at 300 and the taps scaled by wet after it
    rng = np.random.default_rng(1)
    n = 1500
    host = tp._p141_fir_args(n, rng)
    host[0] = np.zeros(n, np.float32)
    host[0][300] = 1
    y = run("probe/fir-reverb-const-smem", host, n, symbols=tp._p141_fir_syms(n, rng))[1]
    h = tp._p141_fir_h()
    assert (y[:300] == 0).all() and y[300] == np.float32(0.6) + np.float32(0.4)
    np.testing.assert_allclose(y[301:1324], np.float32(0.4) * h[1:], rtol=1e-6, atol=1e-9)


# ---- modal-synth-expsin ----

def test_modal_synth():
    # 2 sounds (the second partial), 24 modes (the probe's 256 are slow in the emulator)
    rng = np.random.default_rng(4)
    n = tp.P141_MS_LEN + 300
    host = tp._p141_ms_args(n, rng)
    host[-2] = np.int32(24)
    out = run("probe/modal-synth-expsin", host, n)[4]
    ref = tp._p141_ms_ref(*host[:4], n, n_modes=24)
    np.testing.assert_allclose(out, ref, rtol=0, atol=2e-6)
    L = tp.P141_MS_LEN
    assert np.abs(ref).max() > 0.1 and (ref[:2000] ** 2).mean() > 3 * (ref[L - 2000:L] ** 2).mean()   # decaying
    assert np.abs(ref[L:L + 100]).mean() > 2 * np.abs(ref[L - 100:L]).mean()   # the next sound's attack


# ---- spectrogram-dft-smem ----

def test_spectrogram():
    n = 40
    host, (x, spec, *_), *_ = launch("probe/spectrogram-dft-smem", n)
    ref = tp._p141_sg_ref(host[0], n)
    np.testing.assert_allclose(spec.reshape(n, 128), ref, rtol=0, atol=2e-3)
    assert ref.max() - ref.min() > 40                       # the chirp's peak over the noise floor
    assert (np.argmax(ref[:10], axis=1) < np.argmax(ref[-10:], axis=1)).all()     # rising
