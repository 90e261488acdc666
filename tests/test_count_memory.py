"""``count_memory=False`` (the probe tests' launches, tests/probe_launch.py): the same outputs
and the same sanitizer findings, without the memory counters that take a third of the
emulation's time."""
import numpy as np

import simt
from simt import counters as C

SRC = """
extern "C" __global__ void k(const float *x, float *y, int *hist, int n) {
    __shared__ float t[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    t[threadIdx.x] = i < n ? x[i] : 0.0f;
    if (threadIdx.x == 0) t[63] = 1.0f;          // races with thread 63's store
    __syncthreads();
    if (i < n) {
        y[i] = t[threadIdx.x] + t[(threadIdx.x + 1) & 63];
        atomicAdd(&hist[i & 7], 1);
    }
}"""


def _run(count_memory):
    dev = simt.Device()
    x = np.arange(200, dtype=np.float32)
    y, hist = dev.zeros(200, np.float32), dev.zeros(8, np.int32)
    f = simt.Module.from_source(SRC, "cm.cu").get_function("k")
    r = f.launch(dev, simt.LaunchConfig.of(4, 64), [dev.to_device(x), y, hist, np.int32(200)],
                 count_memory=count_memory)
    return y.get(), hist.get(), r


def test_outputs_and_findings_are_those_of_a_counted_launch():
    y0, h0, r0 = _run(True)
    y1, h1, r1 = _run(False)
    assert np.array_equal(y0, y1) and np.array_equal(h0, h1)
    assert h1.sum() == 200
    assert [f.as_dict() for f in r0.sanitizer] == [f.as_dict() for f in r1.sanitizer]
    assert any("race" in f.as_dict()["kind"].lower() or "hazard" in f.as_dict()["kind"].lower()
               for f in r1.sanitizer)
    assert r0.metrics[C.INST] == r1.metrics[C.INST]
    # the memory counters: counted, and not
    for name in (C.SECT_LD, C.SECT_ST, C.WAVES_LD, C.WAVES_ST):
        assert r0.metrics[name] > 0
        assert r1.metrics.get(name, 0) == 0
