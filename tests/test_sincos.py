"""sincosf and its kin (two results through pointers), sinpi and cospi."""
import numpy as np
import pytest

import simt
from simt.errors import CompileError

SRC = r"""
extern "C" __global__ void k(const float *x, float *out, const double *xd, double *outd) {
    int i = threadIdx.x;
    float s, c;
    sincosf(x[i], &s, &c);
    out[i] = s;
    out[32 + i] = c;
    sincospif(x[i], &out[64 + i], out + 96 + i);
    out[128 + i] = sinpif(x[i]);
    out[160 + i] = cospif(x[i]);
    __shared__ float sh[64];
    __sincosf(x[i], &sh[i], &sh[32 + i]);
    __syncthreads();
    out[192 + i] = sh[i] * sh[i] + sh[32 + i] * sh[32 + i];
    double sd, cd;
    sincos(xd[i], &sd, &cd);
    outd[i] = sd;
    outd[32 + i] = cd;
    sincospi(xd[i], &outd[64 + i], &outd[96 + i]);
}
"""


def _run():
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(32) * 3).astype(np.float32)
    x[:4] = [0.5, 1.0, 4096.5, -2.25]          # sinpi/cospi exact at these
    xd = rng.standard_normal(32) * 3
    xd[:2] = [1e15 + 0.5, 0.25]
    dev = simt.Device()
    args = [dev.to_device(x), dev.to_device(np.zeros(224, np.float32)), dev.to_device(xd),
            dev.to_device(np.zeros(128))]
    simt.Module.from_source(SRC, "sc.cu").get_function("k").launch(dev, simt.LaunchConfig.of(1, 32), args)
    return x, xd, args[1].get(), args[3].get()


def test_sincos_family_matches_numpy():
    x, xd, out, outd = _run()
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(out[:32], np.sin(x64), atol=1e-6)
    np.testing.assert_allclose(out[32:64], np.cos(x64), atol=1e-6)
    pr = np.fmod(x64, 2.0) * np.pi
    for lo in (64, 128):
        np.testing.assert_allclose(out[lo:lo + 32], np.sin(pr), atol=1e-6)
    for lo in (96, 160):
        np.testing.assert_allclose(out[lo:lo + 32], np.cos(pr), atol=1e-6)
    # sinpi keeps the phase of large arguments: sinpi(4096.5) = 1, cospi(-2.25) = cos(pi/4)
    assert out[64 + 2] == 1.0 and out[64 + 1] == 0.0 and out[96] == 0.0
    assert out[96 + 3] == pytest.approx(np.sqrt(0.5), abs=1e-7)
    np.testing.assert_allclose(out[192:224], 1.0, atol=1e-6)
    np.testing.assert_allclose(outd[:32], np.sin(xd), rtol=0, atol=1e-15)
    np.testing.assert_allclose(outd[32:64], np.cos(xd), rtol=0, atol=1e-15)
    assert outd[64] == 1.0 and outd[96 + 1] == pytest.approx(np.sqrt(0.5), abs=1e-16)


def test_sincos_into_locals_uses_no_memory():
    """&s of a local is the variable itself (registers), as nvcc keeps it: no local loads
    or stores."""
    src = r"""extern "C" __global__ void k(const float *x, float *o) {
        float s, c; sincosf(x[threadIdx.x], &s, &c); o[threadIdx.x] = s + c; }"""
    dev = simt.Device()
    o = dev.to_device(np.zeros(32, np.float32))
    res = simt.Module.from_source(src, "l.cu").get_function("k").launch(
        dev, simt.LaunchConfig.of(1, 32), [dev.to_device(np.zeros(32, np.float32)), o])
    assert (o.get() == 1.0).all()
    assert not any(k.startswith("l1tex__t_sectors_pipe_lsu_mem_local") and v for k, v in res.metrics.items())


@pytest.mark.parametrize("body, msg", [
    ("float s, c; sincosf(1.0f, &s);", "wrong number of arguments"),
    ("double s, c; sincosf(1.0f, &s, &c);", 'argument of type "double *"'),
    ("float s; sincosf(1.0f, &s, x);", "pointer to const"),
])
def test_sincos_errors_name_the_place(body, msg):
    src = 'extern "C" __global__ void k(const float *x) {\n    ' + body + "\n}\n"
    with pytest.raises(CompileError) as e:
        simt.Module.from_source(src, "bad.cu").get_function("k")
    assert "bad.cu:2:" in str(e.value) and msg in str(e.value)
