"""probe-unseen39's kernels (kernels_cuda/probes41.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""

import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch


def test_gcd_pairs():
    host, (a, b, g, nn), *_ = launch("probe/gcd-pairs", 2000)
    assert np.array_equal(g, np.gcd(a.astype(np.int64), b.astype(np.int64)).astype(np.uint32))


def _aes_reference(block: bytes, rk: np.ndarray) -> bytes:
    """AES-128 by its byte-wise definition (SubBytes, ShiftRows, MixColumns), not by tables."""
    sb, xt = tp.aes_sbox(), tp._xtime
    keys = [np.array(rk[4 * r:4 * r + 4], ">u4").tobytes() for r in range(11)]
    s = [x ^ k for x, k in zip(block, keys[0])]
    for r in range(1, 11):
        s = [sb[x] for x in s]
        s = [s[(i + 4 * (i % 4)) % 16] for i in range(16)]                  # ShiftRows (column-major state)
        if r < 10:
            m = []
            for c in range(4):
                a = s[4 * c:4 * c + 4]
                m += [xt(a[0]) ^ xt(a[1]) ^ a[1] ^ a[2] ^ a[3], a[0] ^ xt(a[1]) ^ xt(a[2]) ^ a[2] ^ a[3],
                      a[0] ^ a[1] ^ xt(a[2]) ^ xt(a[3]) ^ a[3], xt(a[0]) ^ a[0] ^ a[1] ^ a[2] ^ xt(a[3])]
            s = m
        s = [x ^ k for x, k in zip(s, keys[r])]
    return bytes(s)


def test_aes_round_keys_and_fips197_vector():
    key = bytes(range(16))
    rk = tp.aes_round_keys(key)
    assert np.array(rk[40:], ">u4").tobytes().hex() == "13111d7fe3944a17f307a78b4d2b30c5"  # FIPS-197 C.1, round 10's key
    pt = bytes.fromhex("00112233445566778899aabbccddeeff")
    assert _aes_reference(pt, rk).hex() == "69c4e0d86a7b0430d8cdb78070b4c55a"   # FIPS-197 C.1


def test_aes128_ttable():
    n = 300
    p = tp.get("probe/aes128-ttable")
    host, (pt, ct, te0, sbox, nn), syms, _ = launch("probe/aes128-ttable", n)
    rk = syms["c_rk"]
    for i in range(n):
        assert bytes(ct[16 * i:16 * i + 16]) == _aes_reference(bytes(pt[16 * i:16 * i + 16]), rk), i
    assert p.kernel == "aes128_ttable"


def test_rope_pairs():
    n = 8 * tp.ROPE_HEADS * tp.ROPE_D // 2                                 # 8 tokens
    host, (x, tokens, heads, d, base), *_ = launch("probe/rope-pairs", n)
    x0 = host[0].reshape(8, tp.ROPE_HEADS, tp.ROPE_D // 2, 2).astype(np.float64)
    j = np.arange(tp.ROPE_D // 2)
    ang = np.arange(8)[:, None, None] * float(base) ** (-2.0 * j / tp.ROPE_D)[None, None, :]
    c, s = np.cos(ang), np.sin(ang)
    exp = np.stack([x0[..., 0] * c - x0[..., 1] * s, x0[..., 0] * s + x0[..., 1] * c], axis=-1)
    np.testing.assert_allclose(x.reshape(exp.shape), exp, rtol=1e-5, atol=1e-5)


def test_depthwise3x3():
    n = 24
    host, (a, w, out, h, wd), *_ = launch("probe/depthwise3x3", n)
    img = np.pad(a.reshape(tp.DW_CHANNELS, n, n).astype(np.float64), ((0, 0), (1, 1), (1, 1)))
    k = w.reshape(tp.DW_CHANNELS, 3, 3).astype(np.float64)
    exp = sum(k[:, dy, dx, None, None] * img[:, dy:dy + n, dx:dx + n] for dy in range(3) for dx in range(3))
    np.testing.assert_allclose(out.reshape(exp.shape), exp, rtol=1e-5, atol=1e-5)


def test_cc_min_pass():
    m = 3000
    host, (src, dst, lab, lab2, mm), *_ = launch("probe/cc-min-pass", m)
    exp = lab.copy()
    lu, lv = lab[src], lab[dst]
    np.minimum.at(exp, dst[lu < lv], lu[lu < lv])
    np.minimum.at(exp, src[lv < lu], lv[lv < lu])
    assert np.array_equal(lab2, exp)
    assert (lab2 < lab).any()


def test_match_hist():
    n = 256 * 12
    host, (keys, hist, nn), *_ = launch("probe/match-hist", n)
    assert np.array_equal(hist, np.bincount(keys, minlength=1024).astype(np.uint32))
    distinct = [len(set(keys[w:w + 32])) for w in range(0, n, 32)]
    assert 2 <= np.mean(distinct) <= 8                                      # a warp holds a few keys
