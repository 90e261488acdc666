"""A warp that leaves by ``return`` (every lane of it) ends when it returns, as one that runs
to the kernel's end does: its finish time counts in ``simt__block_cycles.*`` and
``simt__warp_cycles.mean``.  Before session 63 ``machine._kill`` marked such a warp done
without a finish time, so it counted as ending at cycle 0 and a block whose longest warp
returned early was taken for as short as its other warps."""
import numpy as np

from kern import run

BODY = r"""
    int t = threadIdx.x;
    float s = x[t];
    if (t >= 32) {                       // warp 1: a long chain of dependent loads
        int j = t;
        for (int k = 0; k < 64; k++) { j = nxt[j]; s += (float)j; }
        out[t] = s;
        RET
    }
    out[t] = s * 2.0f;                   // warp 0: one load and a store
"""
ARGS = "(const float *x, const int *nxt, float *out)"
RETURN = 'extern "C" __global__ void k' + ARGS + "{" + BODY.replace("RET", "return;") + "}"
ELSE = ('extern "C" __global__ void k' + ARGS + "{"
        + BODY.replace("RET", "").replace("    out[t] = s * 2.0f;", "    else out[t] = s * 2.0f;") + "}")


def launch(src):
    rng = np.random.default_rng(3)
    x = rng.random(64).astype(np.float32)
    nxt = rng.permutation(64).astype(np.int32)
    (_, _, out), res = run(src, "k", 1, 64, [x, nxt, np.zeros(64, np.float32)])
    j, want = np.arange(32, 64), x[32:].astype(np.float32)
    for _ in range(64):
        j = nxt[j]
        want = want + j.astype(np.float32)
    assert np.allclose(out[32:], want) and np.allclose(out[:32], 2 * x[:32])
    return res.metrics


def test_a_warp_that_returns_ends_when_it_returns():
    ret, els = launch(RETURN), launch(ELSE)
    # the block lives as long as its returning warp's 64 dependent loads, whichever way
    # the kernel is written (it was a few hundred cycles: warp 0's life)
    assert ret["simt__block_cycles.max"] > 64 * 100
    assert abs(ret["simt__block_cycles.max"] / els["simt__block_cycles.max"] - 1) < 0.05
    assert abs(ret["simt__warp_cycles.mean"] / els["simt__warp_cycles.mean"] - 1) < 0.05
