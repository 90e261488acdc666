"""A loop nvcc unrolls by 4 keeps its four trips' loads in flight only when nothing stands
between the trips: a store through a pointer that may alias the loads, a branch or a slow
divide keeps one trip's (simt.hoisting; the sm_90 SASS of 532 probe loops,
docs/results/timing_investigation/unroll3/)."""
import numpy as np
import pytest

import simt
from simt import machine
from simt.hoisting import hoist_blockers
from simt.loops import loops

SRC = """
extern "C" __global__ void plain(const float *x, float *out, int n) {
    float s = 0.0f;
    for (int j = threadIdx.x; j < n; j += 32) s += x[j];
    out[threadIdx.x] = s;
}
// integral_rows' shape: a running sum stored through another pointer each trip
extern "C" __global__ void prefix(const float *x, float *out, int n) {
    float s = 0.0f;
    for (int j = 0; j < n; j++) { s += x[threadIdx.x * n + j]; out[threadIdx.x * n + j] = s; }
}
extern "C" __global__ void prefix_restrict(const float *__restrict__ x, float *__restrict__ out, int n) {
    float s = 0.0f;
    for (int j = 0; j < n; j++) { s += x[threadIdx.x * n + j]; out[threadIdx.x * n + j] = s; }
}
// in place: the store writes the word the trip read, through the same pointer
extern "C" __global__ void in_place(float *x, int n) {
    for (int j = 0; j < n; j++) x[threadIdx.x * n + j] *= 2.0f;
}
extern "C" __global__ void cutoff(const float *x, float *out, int n, float c) {
    float s = 0.0f;
    for (int j = threadIdx.x; j < n; j += 32) {
        float v = x[j];
        if (v < c) { float w = x[j ^ 1]; s += w * v + sqrtf(w); s *= 0.5f; s += expf(v) * w; }
    }
    out[threadIdx.x] = s;
}
extern "C" __global__ void divide(const float *x, const float *y, float *out, int n) {
    float s = 0.0f;
    for (int j = threadIdx.x; j < n; j += 32) s += x[j] / y[j];
    out[threadIdx.x] = s;
}
extern "C" __global__ void halve(const float *x, float *out, int n) {
    float s = 0.0f;
    for (int j = threadIdx.x; j < n; j += 32) s += x[j] / 2.0f;
    out[threadIdx.x] = s;
}
extern "C" __global__ void mod64(const long long *x, long long *out, int n, long long m) {
    long long s = 0;
    for (int j = threadIdx.x; j < n; j += 32) s += x[j] % m;
    out[threadIdx.x] = s;
}
// a store whose data does not wait for the trip's load: only aliasing keeps the next load back
extern "C" __global__ void stamp(const float *x, float *seen, float *out, int n) {
    float s = 0.0f;
    for (int j = threadIdx.x; j < n; j += 32) { seen[j] = 1.0f; s += x[j]; }
    out[threadIdx.x] = s;
}
extern "C" __global__ void stamp_restrict(const float *__restrict__ x, float *__restrict__ seen, float *out, int n) {
    float s = 0.0f;
    for (int j = threadIdx.x; j < n; j += 32) { seen[j] = 1.0f; s += x[j]; }
    out[threadIdx.x] = s;
}
extern "C" __global__ void scatter(const int *idx, const float *x, float *out, int n) {
    for (int j = threadIdx.x; j < n; j += 32) atomicAdd(&out[idx[j]], x[j]);
}
"""

WANT = {"plain": (), "prefix": ("store",), "prefix_restrict": (), "in_place": (),
        "cutoff": ("branch",), "divide": ("divide",), "halve": (), "mod64": ("divide",),
        "scatter": ("store",), "stamp": ("store",), "stamp_restrict": ()}


@pytest.fixture(scope="module")
def mod():
    return simt.Module.from_source(SRC, "hoist.cu")


def _loop(ir):
    (loop,) = loops(ir.code)
    return loop


@pytest.mark.parametrize("name", sorted(WANT))
def test_what_stands_between_the_trips(mod, name):
    ir = mod.get_function(name).ir
    assert hoist_blockers(ir.code, *_loop(ir), ir.params) == WANT[name]


def test_restrict_is_read_from_the_parameters(mod):
    assert [p.restrict for p in mod.get_function("prefix_restrict").ir.params] == [True, True, False]
    assert not any(p.restrict for p in mod.get_function("prefix").ir.params)


def _depths(mod, name, on=True):
    ir = mod.get_function(name).ir
    old = machine.HOIST_BLOCKERS
    try:
        machine.HOIST_BLOCKERS = on
        ir.__dict__.pop("_simt_ld_depth", None)
        return sorted(set(machine._load_depths(ir).values()))
    finally:
        machine.HOIST_BLOCKERS = old
        ir.__dict__.pop("_simt_ld_depth", None)


def test_a_blocked_loop_keeps_one_trip_in_flight(mod):
    assert _depths(mod, "plain") == [4]
    assert _depths(mod, "prefix_restrict") == [4]
    assert _depths(mod, "prefix") == [1]
    assert _depths(mod, "divide") == [2]                 # one trip: its two loads
    assert _depths(mod, "prefix", on=False) == [4]       # the switch restores the old rule
    assert _depths(mod, "divide", on=False) == [8]


def test_the_warp_waits_a_latency_a_trip(mod):
    """One warp summing a row while it marks each word seen: with the mark stored through a
    pointer that may alias the row, each trip's load waits for the last one (a global
    latency a trip); with ``__restrict__`` four trips' loads are in flight together.  (A
    store that waits for the loaded data holds the in-order warp up by itself, with or
    without the rule: ``prefix``.)"""
    trips = 64
    n = 32 * trips
    dev = simt.Device()
    lat = machine.LAT["global"]
    cyc = {}
    for name in ("stamp", "stamp_restrict"):
        x = dev.to_device(np.ones(n, np.float32))
        seen, out = dev.zeros(n, np.float32), dev.zeros(32, np.float32)
        res = mod.get_function(name).launch(dev, simt.LaunchConfig.of(grid=1, block=32),
                                            [x, seen, out, np.int32(n)], sanitize=False)
        assert np.array_equal(out.get(), np.full(32, trips, np.float32)) and seen.get().min() == 1.0
        cyc[name] = res.metrics["simt__block_cycles.max"]
    assert trips * lat <= cyc["stamp"] <= trips * lat + 4 * lat
    assert cyc["stamp_restrict"] <= trips * lat / 4 + 4 * lat


STAGE = """
extern "C" __global__ void stage3(const unsigned char *x, float *out) {      // 3-4 trips
    __shared__ unsigned char s[196];
    for (int j = threadIdx.x; j < 196; j += 64) s[j] = x[blockIdx.x * 196 + j];
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x] + s[threadIdx.x + 128];
}
extern "C" __global__ void stage4(const unsigned char *x, float *out) {      // 4 trips, every lane
    __shared__ unsigned char s[256];
    for (int j = threadIdx.x; j < 256; j += 64) s[j] = x[blockIdx.x * 256 + j];
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x] + s[threadIdx.x + 192];
}
extern "C" __global__ void stage9(const unsigned char *x, float *out) {      // 8-9 trips
    __shared__ unsigned char s[520];
    for (int j = threadIdx.x; j < 520; j += 64) s[j] = x[blockIdx.x * 520 + j];
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x] + s[threadIdx.x + 448];
}
"""


def test_a_few_trips_run_in_the_peeled_remainder():
    """nvcc runs the ``trips % 4`` peeled off a loop it unrolls by 4 first, one trip at a
    time: a staging loop whose lanes make 3 or 4 trips keeps one trip's loads in flight
    (the LCD filter's tile, unseen238/notes.md); 4 trips for every lane, or 8 to 9, keep
    the unrolled copies'."""
    from simt.hoisting import remainder_only
    mod = simt.Module.from_source(STAGE, "stage.cu")
    got = {}
    for name in ("stage3", "stage4", "stage9"):
        ir = mod.get_function(name).ir
        got[name] = remainder_only(ir.code, *_loop(ir))
    assert got == {"stage3": True, "stage4": False, "stage9": False}
    assert _depths(mod, "stage3") == [1] and _depths(mod, "stage4") == [4]
    old = machine.REMAINDER_ONLY
    try:
        machine.REMAINDER_ONLY = False
        assert _depths(mod, "stage3") == [4]
    finally:
        machine.REMAINDER_ONLY = old
