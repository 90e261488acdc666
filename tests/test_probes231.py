"""probe-unseen229's kernels (kernels_cuda/probes231.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/quant-w8a8-gemm-smem-tile-i8", "probe/quant-nf4-dequant-dq-const-lut",
       "probe/quant-calib-hist-smem-atomics-absmax", "probe/quant-fp16-causal-softmax-block-reduce",
       "probe/quant-kv-cache-int8-paged-warp-absmax", "probe/quant-sr-int8-hash-error-feedback-f64"]

F32 = np.float32
F16 = np.float16


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen229"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes231.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _fma32(a, b, c):
    """float a * b + c rounded once (the emulator contracts as nvcc does)."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(F32)


# ---- references ----

def _gemm_ref(A, W, sa, sw, bias):
    """w8a8_gemm_tiled: C (M x N half) = half(fma(float(acc) sa, sw, bias)), acc exact."""
    acc = A.astype(np.int64) @ W.astype(np.int64).T
    t = (acc.astype(F32) * sa[:, None]).astype(F32)
    return _fma32(t, sw[None, :], bias[None, :]).astype(F16), acc


def _nf4_ref(packed_u8, q, a2, off):
    """nf4_dequant_dq: the weights as half (weight 2i from byte i's high nibble)."""
    codes = np.stack([packed_u8 >> 4, packed_u8 & 15], axis=1).ravel()
    nb = -(-len(codes) // 64)
    amax = _fma32(tp.P231_CODE2[q[:nb]], a2[np.arange(nb) // 256], off)
    return (tp.P231_NF4[codes] * np.repeat(amax, 64)[:len(codes)]).astype(F32).astype(F16)


def _cal_ref(x, rng_):
    """calib_hist: (hist, amax, nclip) in float32 as the kernel bins."""
    a = np.abs(np.asarray(x, F32))
    scale = F32(tp.P231_CAL_BINS) / F32(rng_)
    raw = (a * scale).astype(F32).astype(np.int64)
    over = raw >= tp.P231_CAL_BINS
    b = np.minimum(raw, tp.P231_CAL_BINS - 1)
    hist = np.bincount(b, minlength=tp.P231_CAL_BINS)
    return hist, (a.max() if len(a) else F32(0)), int((over & (a >= F32(rng_))).sum())


def _softmax_ref(scores, S, scale):
    """softmax_causal_f16 in float64: rows x S, 0 past the query."""
    z = np.asarray(scores, F16).astype(F32).reshape(-1, S) * F32(scale)
    z = z.astype(np.float64)
    q = np.arange(z.shape[0]) % S
    mask = np.arange(S)[None, :] <= q[:, None]
    z = np.where(mask, z, -np.inf)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True), mask


def _kv_ref(k, v, slots, T, H, nblocks, page=tp.P231_KV_PAGE, hd=tp.P231_KV_HD, eps=tp.P231_KV_EPS):
    """kv_cache_quant_int8: (k_cache, v_cache, k_scale, v_scale) as the kernel leaves zeroed ones."""
    out = []
    for x in (k, v):
        x = np.asarray(x, F16).astype(F32).reshape(T, H, hd)
        s = np.maximum((np.abs(x).max(axis=2) / F32(127)).astype(F32), F32(eps))
        qv = np.clip(np.rint((x / s[..., None]).astype(F32)), -127, 127).astype(np.int8)
        cache = np.zeros((nblocks, H, page, hd), np.int8)
        sc = np.zeros((nblocks, H, page), F32)
        for t in range(T):
            sl = int(slots[t])
            if sl < 0 or sl // page >= nblocks:
                continue
            cache[sl // page, :, sl % page] = qv[t]
            sc[sl // page, :, sl % page] = s[t]
        out += [cache, sc]
    return out[0].ravel(), out[2].ravel(), out[1].ravel(), out[3].ravel()


def _fmix32(x):
    x = x.astype(np.uint64)
    m = np.uint64(0xFFFFFFFF)
    x ^= x >> np.uint64(16)
    x = (x * np.uint64(0x85EBCA6B)) & m
    x ^= x >> np.uint64(13)
    x = (x * np.uint64(0xC2B2AE35)) & m
    x ^= x >> np.uint64(16)
    return x


def _sr_ref(grad, err, scale, seed):
    """sr_quant_ef: (q int8, new err float32, sum of err^2 float64)."""
    n = len(grad)
    i = np.arange(n, dtype=np.uint64)
    h = _fmix32((i * np.uint64(0x9E3779B9) & np.uint64(0xFFFFFFFF)) ^ np.uint64(seed))
    u = (h >> np.uint64(8)).astype(F32) * F32(1.0 / 16777216.0)
    g = (np.asarray(grad, F32) + np.asarray(err, F32)).astype(F32)
    s = np.asarray(scale, F32)[np.arange(n) // tp.P231_SR_BUCKET]
    with np.errstate(divide="ignore"):
        inv = np.where(s > 0, F32(1) / s, F32(0)).astype(F32)
    y = np.clip(np.floor(_fma32(g, inv, u)), -127, 127)
    e = (g.astype(np.float64) - y * s.astype(np.float64)).astype(F32)
    return y.astype(np.int8), e, float(np.sum(e.astype(np.float64) ** 2))


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # W8A8: per-token / per-channel absmax codes, outlier activation channels
    A, W, sa, sw, bias = tp._p231_gm_data(64, 48, 512, rng)
    assert (np.abs(A.astype(int)).max(axis=1) == 127).all() and (np.abs(W.astype(int)).max(axis=1) == 127).all()
    assert A.min() >= -127 and W.min() >= -127 and (sa > 0).all() and (sw > 0).all()
    colmag = np.abs(A.astype(float)).mean(axis=0)
    assert (colmag > 3 * np.median(colmag)).sum() == round(512 * tp.P231_GM_OUTLIER[0])
    assert np.median(np.abs(A.astype(int))) < 20                                     # the bulk's codes small
    # NF4: codes spread over the 16 levels, every block holds +-1, the absmax's double quantization close
    packed, q, a2, off, amax = tp._p231_nf4_quant(1 << 18, rng)
    codes = np.stack([packed >> 4, packed & 15], axis=1).ravel()
    share = np.bincount(codes, minlength=16) / codes.size
    assert share.min() > 0.01 and share.max() < 0.12
    cb = codes.reshape(-1, 64)
    assert ((cb == 0) | (cb == 15)).any(axis=1).all()
    deq = _fma32(tp.P231_CODE2[q], a2[np.arange(len(q)) // 256], off)
    rel = np.abs(deq / amax - 1)
    assert rel.max() < 0.05 and rel.mean() < 0.006 and len(np.unique(tp.P231_CODE2)) == 256
    assert tp.P231_CODE2.min() > -1 and tp.P231_CODE2.max() == 1 and (tp.P231_CODE2 == 0).any()
    x = rng.uniform(-1, 1, 100000).astype(F32)
    assert (tp._p231_nf4_codes(x) == tp._p231_nearest(x, tp.P231_NF4)).all()
    # calibration: sparse post-ReLU, a few large outlier channels, a small clipped tail
    x = tp._p231_cal_acts(1 << 22, rng).reshape(-1, tp.P231_CAL_CH)
    assert (x >= 0).all() and 0.8 < (x == 0).mean() < 0.95
    fire = (x > 0).mean(axis=0)
    big = np.argsort(x.mean(axis=0))[-tp.P231_CAL_OUT[0]:]
    assert (fire[big] > 0.95).all() and 8 < np.median(x[:, big]) < 20
    assert 0 < (x >= tp.P231_CAL_RANGE).mean() < 1e-3 and x.max() < 3 * tp.P231_CAL_RANGE
    # attention logits: finite halves, a sink on key 0, sharp rows
    L = tp._p231_sm_logits(256, rng, heads=2).astype(F32)
    assert np.isfinite(L).all() and (L[:, :, 0].mean(axis=1) > L[:, :, 1:].mean(axis=(1, 2)) + 3 / tp.P231_SM_SCALE).all()
    p, _ = _softmax_ref(L.ravel(), 256, tp.P231_SM_SCALE)
    assert 0.1 < np.median(p.max(axis=1)) < 0.7
    # KV slots: distinct, 3% padding at the end, pages scattered within the cache
    slots, nb = tp._p231_kv_slots(4096, rng)
    real = slots[slots >= 0]
    assert len(np.unique(real)) == len(real) and (slots[len(real):] == -1).all() and 0.02 < (slots < 0).mean() < 0.04
    pages = real // tp.P231_KV_PAGE
    assert pages.max() < nb and (np.diff(pages) != 0).sum() > 0.9 * len(np.unique(pages))
    firsts = pages[np.r_[True, np.diff(pages) != 0]]                               # each page once, in order
    assert len(firsts) == len(np.unique(pages)) and (np.abs(np.diff(firsts)) > 1).mean() > 0.9   # not contiguous
    k, v = tp._p231_kv_data(64, rng)
    kc = np.abs(k.astype(F32)).mean(axis=0)                                        # heads x hd channel means
    assert (kc > 4 * np.median(kc, axis=1, keepdims=True)).sum() > 0.8 * 4 * tp.P231_KV_HEADS
    # the embedding's gradient: absent tokens' rows zero, Zipf-skewed rows, buckets' scales
    g, e, s = tp._p231_sr_state(1 << 22, rng, dim=128)                             # the default vocabulary, narrower
    rows = np.abs(g.reshape(-1, 128)).max(axis=1)
    med = np.median(rows[rows > 0])
    assert 0.2 < (rows == 0).mean() < 0.7 and np.percentile(rows, 99) > 4 * med and rows.max() > 30 * med
    b = np.abs(g + e).reshape(-1, tp.P231_SR_BUCKET).max(axis=1)
    erows = np.abs(e.reshape(-1, 128)).max(axis=1)
    assert (s == (b / F32(127)).astype(F32)).all() and 0.01 < ((rows == 0) & (erows == 0)).mean() < 0.2
    sb = np.repeat(s, tp.P231_SR_BUCKET)
    assert np.median(np.abs(e[sb > 0]) / sb[sb > 0]) < 1 and ((rows == 0) & (erows > 0)).mean() > 0.1   # stale errors


# ---- quant-w8a8-gemm-smem-tile-i8 ----

def _check_gemm(A, W, sa, sw, bias, grid=None):
    M, K = A.shape
    N = W.shape[0]
    host = [A.ravel(), W.ravel(), sa.astype(F32), sw.astype(F32), bias.astype(F32), np.zeros(M * N, F16),
            np.int32(M), np.int32(N), np.int32(K)]
    out = run(IDS[0], host, 1, grid=grid or (-(-N // 16), -(-M // 16)))
    want, acc = _gemm_ref(A, W, sa.astype(F32), sw.astype(F32), bias.astype(F32))
    assert (out[5].view(np.uint16) == want.ravel().view(np.uint16)).all()
    return out[5].reshape(M, N), acc


def test_gemm():
    rng = np.random.default_rng(1)
    A, W, sa, sw, bias = tp._p231_gm_data(40, 50, 70, rng)                          # partial tiles every way
    C, acc = _check_gemm(A, W, sa, sw, bias)
    assert np.abs(acc).max() > 5000
    host, after, _, _ = launch(IDS[0], 48, seed=2)                                   # the probe's own square layer
    want, _ = _gemm_ref(host[0].reshape(48, 48), host[1].reshape(48, 48), host[2], host[3], host[4])
    assert (after[5] == want.ravel()).all()


def test_gemm_cases():
    rng = np.random.default_rng(3)
    M, N, K = 16, 16, 1041                                                           # one block, extreme codes
    A = rng.choice(np.array([-128, 127], np.int8), (M, K))
    W = rng.choice(np.array([-128, 127], np.int8), (N, K))
    A[0], W[0], A[1], W[1] = -128, -128, 127, 127                                    # acc past 2^24, odd: rounded
    C, acc = _check_gemm(A, W, np.full(M, 1e-4, F32), np.full(N, 1e-3, F32), np.zeros(N, F32), grid=(1, 1))
    assert acc[0, 0] == 128 * 128 * K and acc[1, 1] == 127 * 127 * K > 1 << 24 and acc[1, 1] % 2
    A = rng.integers(-127, 128, (3, 5)).astype(np.int8)                             # K < 16, one block
    W = rng.integers(-127, 128, (7, 5)).astype(np.int8)
    _check_gemm(A, W, rng.uniform(0.01, 0.1, 3), rng.uniform(0.001, 0.01, 7), rng.normal(0, 1, 7))
    C, _ = _check_gemm(np.zeros((5, 0), np.int8), np.zeros((4, 0), np.int8), np.ones(5), np.ones(4),
                       np.arange(4, dtype=F32))                                      # K = 0: the bias alone
    assert (C == np.arange(4)).all()


# ---- quant-nf4-dequant-dq-const-lut ----

def _check_nf4(packed_u8, q, a2, off, grid=None):
    nw = len(packed_u8) // 4
    host = [packed_u8.view(np.uint32), q, a2, F32(off), np.zeros(8 * nw, F16), np.int32(nw)]
    out = run(IDS[1], host, 8 * nw, symbols=tp._p231_nf4_symbols(), grid=grid)
    want = _nf4_ref(packed_u8, q, a2, off)
    assert (out[4].view(np.uint16) == want.view(np.uint16)).all()
    return out[4]


def test_nf4():
    rng = np.random.default_rng(4)
    packed, q, a2, off, amax = tp._p231_nf4_quant(1 << 17, rng)                     # 64 blocks of 256 threads
    w = _check_nf4(packed, q, a2, off)
    assert np.abs(np.abs(w.astype(F32)).reshape(-1, 64).max(axis=1) / amax - 1).max() < 0.05
    host, after, _, _ = launch(IDS[1], 3 * 64 * 256 + 64, seed=5)                   # a partial last block
    want = _nf4_ref(host[0].view(np.uint8), host[1], host[2], host[3])
    assert (after[4].view(np.uint16) == want.view(np.uint16)).all()


def test_nf4_cases():
    # every byte value once in each word position, four 64-weight blocks of hand-picked absmax codes
    b = np.arange(256, dtype=np.uint8)
    packed = np.concatenate([b, b[::-1]])                                            # 512 bytes: 1024 weights
    q = np.array([0, 127, 128, 255] * 4, np.uint8)                                   # the map's ends and middle
    a2 = np.array([0.5], F32)
    w = _check_nf4(packed, q, a2, 0.25, grid=(1, 1))
    assert w[0] == F16(tp.P231_NF4[0] * _fma32(tp.P231_CODE2[0], 0.5, 0.25))
    _check_nf4(packed[:8], q[:1], a2, -0.1, grid=(1, 1))                             # two words: part of a block
    _check_nf4(np.zeros(0, np.uint8), np.zeros(0, np.uint8), a2, 0.0, grid=(1, 1))   # nothing


# ---- quant-calib-hist-smem-atomics-absmax ----

def _check_cal(x, grid, rng_=tp.P231_CAL_RANGE):
    host = [np.asarray(x, F32), np.int32(len(x)), F32(rng_), np.zeros(tp.P231_CAL_BINS, np.uint32),
            np.zeros(1, np.int32), np.zeros(1, np.int32)]
    out = run(IDS[2], host, 1, grid=(grid, 1))
    hist, amax, nclip = _cal_ref(x, rng_)
    assert (out[3] == hist).all() and out[4].view(F32)[0] == amax and out[5][0] == nclip
    return out


def test_calib():
    rng = np.random.default_rng(6)
    x = tp._p231_cal_acts(1 << 17, rng)                                              # 8 tokens, 4 blocks x 128 trips
    out = _check_cal(x, 4)
    assert out[3][0] > 0.8 * len(x) and (out[3] > 0).sum() > 300
    host, after, _, _ = launch(IDS[2], 40000, seed=7)                                # the probe's 1024 blocks, partly idle
    hist, amax, nclip = _cal_ref(host[0], host[2])
    assert (after[3] == hist).all() and after[4].view(F32)[0] == amax and after[5][0] == nclip


def test_calib_cases():
    r = F32(24.0)
    edge = np.array([0, -0.0, 24.0, -24.0, np.nextafter(r, F32(0)), np.nextafter(r, F32(100)), 1e6, -3.5,
                     24.0 * 5 / 2048, np.nextafter(F32(24.0 * 5 / 2048), F32(0))], F32)  # range, bin edges, signs
    out = _check_cal(np.tile(edge, 7)[:67], 1)                                       # one block, part of a warp
    assert out[5][0] >= 7 * 3 and out[4].view(F32)[0] == 1e6
    _check_cal(np.zeros(1000, F32), 2)                                               # all zero: 1000-way on bin 0
    _check_cal(np.zeros(0, F32), 1)                                                  # nothing
    rng = np.random.default_rng(8)
    _check_cal(rng.normal(0, 10, 5000).astype(F32), 3, rng_=2.0)                    # most clipped


# ---- quant-fp16-causal-softmax-block-reduce ----

def _check_softmax(scores, S, grid=None, scale=tp.P231_SM_SCALE):
    rows = len(scores) // S
    host = [np.asarray(scores, F16), np.zeros(rows * S, F16), np.int32(S), F32(scale)]
    out = run(IDS[3], host, S, grid=grid or (rows, 1))
    p, mask = _softmax_ref(scores, S, scale)
    got = out[1].astype(np.float64).reshape(rows, S)
    assert (got[~mask] == 0).all() and not np.signbit(out[1]).any()
    assert (np.abs(got - p) <= p * 2.0 ** -11 * 1.02 + 2.0 ** -25).all()
    assert np.allclose(got.sum(axis=1), 1, atol=2e-3)
    return got


def test_softmax():
    rng = np.random.default_rng(9)
    S = 300                                                                          # a row past 256 threads
    L = tp._p231_sm_logits(S, rng, heads=2)
    got = _check_softmax(L.ravel(), S)
    assert got[0, 0] == 1 and np.median(got[:, 0]) > 0.01                           # the first query; the sink


def test_softmax_cases():
    S = 40
    got = _check_softmax(np.zeros(S * S, F16), S)                                    # ties: uniform over 0 .. q
    assert (got[np.tril_indices(S)] == np.repeat(1.0 / np.arange(1, S + 1), np.arange(1, S + 1)).astype(F16)).all()
    s = np.full((S, S), -60000, F16)                                                 # a peak of the half range
    s[:, 5] = 60000
    got = _check_softmax(s.ravel(), S, scale=1.0)
    assert (got[5:, 5] == 1).all() and (got[5:, :5] == 0).all()
    rng = np.random.default_rng(10)
    _check_softmax(rng.normal(0, 30, 3 * 7).astype(F16), 7)                          # short rows: most threads idle


# ---- quant-kv-cache-int8-paged-warp-absmax ----

def _check_kv(k, v, slots, nblocks, grid=None, H=tp.P231_KV_HEADS):
    T = len(slots)
    cache = nblocks * H * tp.P231_KV_PAGE
    host = [np.asarray(k, F16).ravel(), np.asarray(v, F16).ravel(), np.asarray(slots, np.int32), np.int32(T),
            tp._p231_kv_layout(nblocks, heads=H), np.zeros(cache * tp.P231_KV_HD, np.int8),
            np.zeros(cache * tp.P231_KV_HD, np.int8), np.zeros(cache, F32), np.zeros(cache, F32)]
    out = run(IDS[4], host, T, grid=grid or (-(-T * H * 32 // 256), 1))
    want = _kv_ref(host[0], host[1], slots, T, H, nblocks)
    for got, ref in zip(out[5:9], want):
        assert (got == ref).all()
    return out


def test_kv_cache():
    rng = np.random.default_rng(11)
    host, after, _, _ = launch(IDS[4], 100, seed=12)                                 # 100 tokens x 32 heads, 3 pads
    nb = int(host[4]["num_blocks"])
    want = _kv_ref(host[0], host[1], host[2], 100, tp.P231_KV_HEADS, nb)
    for got, ref in zip(after[5:9], want):
        assert (got == ref).all()
    assert (host[2] < 0).sum() == 3 and np.abs(after[5].astype(int)).max() == 127
    slots, nb = tp._p231_kv_slots(50, rng)
    k, v = tp._p231_kv_data(50, rng, heads=3)
    _check_kv(k, v, slots, nb, H=3)                                                  # 150 warps: a partial block


def test_kv_cache_cases():
    H, hd = 2, tp.P231_KV_HD
    k = np.zeros((4, H, hd), F16)                                                    # a zero head: the eps scale
    k[1] = 1.0
    k[1, :, 7] = 127                                                                 # scale 1: exact codes
    k[2, 0] = np.linspace(-2.5, 2.5, hd).astype(F16)                                # ties at .5: to even
    k[2, 0, :4] = [254, 1, 3, 5]                                                     # scale 2: 0.5, 1.5, 2.5
    k[3] = -1.0
    v = -k
    slots = np.array([5, 40, 17, 90], np.int32)                                      # token 3's page past the cache
    out = _check_kv(k, v, slots, 4, grid=(1, 1), H=H)
    assert out[7][5 * 0 + 0 * 16 + 5] == F32(tp.P231_KV_EPS) and (out[5].reshape(4, H, 16, hd)[2, 0, 8] != 0).any()
    kc = out[5].reshape(4, H, 16, hd)
    assert list(kc[1, 0, 1, :4]) == [127, 0, 2, 2]                                  # 1/2 -> 0, 3/2 -> 2, 5/2 -> 2
    _check_kv(k, v, np.full(4, -1, np.int32), 4, grid=(1, 1), H=H)                   # all padding: nothing written


# ---- quant-sr-int8-hash-error-feedback-f64 ----

def _check_sr(g, e, s, grid, seed=tp.P231_SR_SEED):
    n = len(g)
    host = [np.asarray(g, F32), np.asarray(e, F32).copy(), np.asarray(s, F32), np.zeros(n // 4, np.uint32),
            np.int32(n // 4), np.uint32(seed), np.zeros(1, np.float64)]
    out = run(IDS[5], host, n, grid=(grid, 1))
    q, err, sq = _sr_ref(g, e, s, seed)
    assert (out[3].view(np.int8) == q).all() and (out[1].view(np.uint32) == err.view(np.uint32)).all()
    assert np.isclose(out[6][0], sq, rtol=1e-12, atol=0)
    return out, q


def test_sr():
    rng = np.random.default_rng(13)
    g, e, s = tp._p231_sr_state(1 << 16, rng)                                        # 16384 words, 4 blocks x 16 trips
    out, q = _check_sr(g, e, s, 4)
    gs = (g + e) / np.repeat(np.where(s > 0, s, 1), tp.P231_SR_BUCKET)
    nz = s[np.arange(len(g)) // tp.P231_SR_BUCKET] > 0
    assert abs(np.mean(q[nz] - gs[nz])) < 0.01                                      # unbiased
    assert (q[~nz] == 0).all() and np.abs(q).max() == 127


def test_sr_cases():
    n = 4 * 77                                                                       # part of a warp, one bucket
    g = np.linspace(-3, 3, n).astype(F32)
    _check_sr(g, np.zeros(n, F32), np.array([0.01], F32), 1)                         # clamped both ways
    g = np.full(n, 0.5, F32)
    out, q = _check_sr(g, np.zeros(n, F32), np.array([1.0], F32), 1)                 # halfway: a coin flip
    assert 0.3 < (q == 1).mean() < 0.7 and set(np.unique(q)) == {0, 1}
    out, q = _check_sr(np.full(n, 2.0, F32), np.zeros(n, F32), np.array([1.0], F32), 1)   # exact: no noise
    assert (q == 2).all() and out[6][0] == 0
    _check_sr(np.zeros(1024, F32), np.zeros(1024, F32), np.zeros(2, F32), 2)         # zero buckets
    _check_sr(np.zeros(0, F32), np.zeros(0, F32), np.zeros(0, F32), 1)               # nothing
