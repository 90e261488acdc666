"""A warp-uniform load finds its sector in L1 when an earlier load of its block brought it
in (simt.l1hits): the chase and walk figures of timing_investigation/l1unif/."""
import numpy as np

import simt
from simt.l1hits import LAT_L1
from simt.machine import LAT

SRC = """
extern "C" __global__ void uchase(const int *nxt, int *out, int steps) {
    int p = 0;
    for (int s = 0; s < steps; ++s) p = nxt[p];
    out[threadIdx.x] = p;
}
extern "C" __global__ void walk(const float *p, int *out, int m, int stride, float r2) {
    for (int j = 0; j < m; ++j) {
        float d = p[j * stride] - threadIdx.x;
        if (d * d < r2) out[threadIdx.x] = j;       // a branch: the warp waits for d
    }
}
extern "C" __global__ void bump(int *p, int steps) {
    for (int s = 0; s < steps; ++s) {
        int v = p[0];
        __syncwarp();
        if (threadIdx.x == 0) p[0] = v + 1;
        __syncwarp();
    }
}
"""


def _cycles(kernel, args, block=32):
    mod = simt.Module.from_source(SRC, "l1.cu")
    dev = simt.Device()
    dargs = [dev.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    res = mod.get_function(kernel).launch(dev, simt.LaunchConfig.of(grid=1, block=block), dargs,
                                          sanitize=False)
    return res.metrics["simt__block_cycles.max"], dargs


def _cycle(n, rng):
    """A random cycle through n ints 8 apart (a sector each), starting at 0."""
    perm = rng.permutation(n) * 8
    nxt = np.zeros(8 * n, np.int32)
    nxt[perm] = np.roll(perm, -1)
    return nxt


def test_a_uniform_chase_through_l1_takes_an_l1_hit_a_step():
    rng = np.random.default_rng(0)
    nxt = _cycle(512, rng)          # 16 KiB: each step's sector is new in the first pass
    c1, _ = _cycles("uchase", [nxt, np.zeros(32, np.int32), np.int32(512)])
    c4, (_, out, _) = _cycles("uchase", [nxt, np.zeros(32, np.int32), np.int32(2048)])
    p = 0
    for _ in range(2048):
        p = int(nxt[p])
    assert out.get().tolist() == [p] * 32
    first = c1 / 512                # an L2 trip a step
    later = (c4 - c1) / 1536        # every sector in L1
    assert first >= LAT["global"]
    assert LAT_L1 <= later < LAT_L1 + 20        # the load and the index arithmetic
    assert later < LAT["global"] / 4


def test_a_walk_one_float_a_trip_misses_once_a_sector():
    rng = np.random.default_rng(1)
    m = 512
    p = rng.uniform(0, 32, 8 * m).astype(np.float32)
    out = np.zeros(32, np.int32)
    unit, _ = _cycles("walk", [p, out, np.int32(m), np.int32(1), np.float32(4.0)])
    apart, _ = _cycles("walk", [p, out, np.int32(m), np.int32(8), np.float32(4.0)])
    # a sector a trip: each trip waits an L2 trip at its branch
    assert apart / m >= LAT["global"]
    # 8 floats a sector: one trip in 8 waits for L2, the other 7 for L1
    saved = (apart - unit) / m
    assert abs(saved - 7 / 8 * (LAT["global"] - LAT_L1)) < 10


def test_a_sector_the_block_writes_is_not_read_from_l1():
    steps = 64
    c, (p, _) = _cycles("bump", [np.zeros(8, np.int32), np.int32(steps)])
    assert p.get()[0] == steps
    assert c / steps >= LAT["global"]


TWICE = '''extern "C" __global__ void twice(const float *x, float *out, int per) {
    const float *mine = x + (size_t)blockIdx.x * per;
    float s = 0.0f;
    for (int pass = 0; pass < 2; pass++)
        for (int i = threadIdx.x; i < per; i += blockDim.x) s += mine[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}'''


def test_blocks_of_one_batch_keep_their_l1_shares_apart():
    """2,048 blocks of 64 threads each read their own 12 KiB twice; each block's share of
    L1 (16 blocks an SM: 16 KiB) holds it, so the second pass hits.  All of them run in one
    lockstep batch, and the L1 table has a row for each (counters.L1_KEEP_ROWS was a cap:
    two blocks a row evicted each other's lines, marker-pose-horn-quat, unseen187/) - the
    same lines go to L2 as when the blocks run 1,024 at a time."""
    mod = simt.Module.from_source(TWICE, "twice.cu")
    per, nb = 3072, 2048
    got = []
    for bt in (None, 1024 * 64):
        dev = simt.Device()
        x = dev.to_device(np.ones(nb * per, np.float32))
        out = dev.to_device(np.zeros(nb * 64, np.float32))
        r = mod.get_function("twice").launch(dev, simt.LaunchConfig.of(nb, 64), [x, out, np.int32(per)],
                                             sanitize=False, batch_threads=bt)
        assert np.all(out.get() == 2 * per / 64)
        got.append((r.metrics["simt__l2_lines_ld.sum"], r.metrics["simt__l1_lines_ld.sum"]))
    (l2_one, l1_one), (l2_two, _) = got
    assert l1_one == nb * 2 * per // 32
    assert l2_one == l2_two
    assert l2_one < 0.55 * l1_one           # the first pass's lines only (and a few more)
