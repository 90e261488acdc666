"""Calls that are one instruction in SASS (floorf's FRND, fminf's FMNMX, __popc, a
reinterpreted register) flow along data dependences like arithmetic
(``simt.machine.FLOW_CALLS``): a warp does not stop at them for their operands, so the loads
after them go out with the loads before.  probe/entropy-mesh-smem-atomic floors each of
three loaded coordinates; its SASS issues the loads together, where simt made each load
wait for the one before to return (2.23 of its H200 time, 1.32 after;
docs/results/timing_investigation/unseen195/notes.md)."""
import numpy as np

from kern import run

SRC = r"""
extern "C" __global__ void bins(const float *x, const float *y, const float *z, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int ix = (int)FN(x[i] * 4.0f);
        int iy = (int)FN(y[i] * 4.0f);
        int iz = (int)FN(z[i] * 4.0f);
        out[i] = ix + 16 * iy + 256 * iz;
    }
}
"""


def _cycles(fn: str) -> float:
    n = 256
    rng = np.random.default_rng(0)
    x, y, z = (rng.uniform(0, 0.999, n).astype(np.float32) for _ in range(3))
    (_, _, _, out, _), res = run(SRC.replace("FN", fn), "bins", 2, 128, [x, y, z, np.zeros(n, np.int32), np.int32(n)])
    f = {"floorf": np.floor, "": np.trunc, "expf": np.exp}[fn]
    q = lambda a: f(a * np.float32(4)).astype(np.int64)
    np.testing.assert_array_equal(out, q(x) + 16 * q(y) + 256 * q(z))
    return res.metrics["simt__block_cycles.max"]


def test_a_floor_of_a_loaded_value_does_not_hold_up_the_next_load():
    floor, cast = _cycles("floorf"), _cycles("")
    # the three loads go out together, as with a plain conversion (no call)
    assert floor < 1.1 * cast
    # a math call of several instructions still waits for its operand: three round trips
    assert _cycles("expf") > 1.8 * cast
