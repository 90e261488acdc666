"""probe-unseen28's kernels (kernels_cuda/probes29.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from probe_launch import launch


def test_modpow_is_python_pow():
    n = 256
    host, (base, out, e, p, _), *_ = launch("probe/modpow-u64", n)
    assert out.tolist() == [pow(int(b), int(e), int(p)) for b in base]
    assert len(set(out.tolist())) > n // 2


def test_digit_sum_sums_decimal_digits():
    n = 1024
    host, (v, out, _), *_ = launch("probe/digit-sum-u32", n)
    assert out.tolist() == [sum(map(int, str(int(x)))) if x else 0 for x in v]
    assert len({len(str(int(x))) for x in v}) == 10          # every digit count, 1 to 10


def test_integral_cols_is_a_column_cumsum():
    n = 128
    host, (x, out, _, _), *_ = launch("probe/integral-cols", n)
    exp = np.cumsum(x.reshape(n, n).astype(np.float64), axis=0)
    np.testing.assert_allclose(out.reshape(n, n), exp, rtol=1e-4, atol=1e-3)


def test_bilateral5x5_weighs_neighbours_by_space_and_value():
    n = 64
    host, (img, out, _, _, inv2s2), syms, _ = launch("probe/bilateral5x5", n)
    a = img.reshape(n, n).astype(np.float64)
    pad = np.pad(a, 2, mode="edge")
    sp = syms["c_space"].reshape(5, 5).astype(np.float64)
    num = np.zeros_like(a)
    den = np.zeros_like(a)
    for dy in range(5):
        for dx in range(5):
            v = pad[dy:dy + n, dx:dx + n]
            w = sp[dy, dx] * np.exp(-(v - a) ** 2 * float(inv2s2))
            num += w * v
            den += w
    np.testing.assert_allclose(out.reshape(n, n), num / den, rtol=1e-5, atol=1e-6)
    assert not np.allclose(out.reshape(n, n), a, atol=1e-3)      # it does smooth


def test_rgba_to_planar_splits_the_bytes():
    n = 512
    host, (px, r, g, b, _), *_ = launch("probe/rgba-to-planar", n)
    bytes_ = px.view(np.uint8).reshape(n, 4)
    assert np.array_equal(r, bytes_[:, 0]) and np.array_equal(g, bytes_[:, 1]) and np.array_equal(b, bytes_[:, 2])


def test_bucket_of_counts_splitters_at_or_below_each_key():
    n = 512
    host, (keys, split, bucket, _), *_ = launch("probe/bucket-of", n)
    assert bucket.tolist() == np.searchsorted(split, keys, side="right").tolist()
    assert len(set(bucket.tolist())) > n // 4
