"""__constant__ loads at a warp-uniform address that changes from trip to trip
(simt.issue.uniform_ldc_pcs, machine._const_counters): nvcc reads them with ULDC from a
uniform register where the loop body does not branch, and with LDC c[0x3][R], one pass of
the constant cache a warp, where it does (sm_90 SASS of probe/fir64-shared against
probe/raycast-spheres and probe/point-in-polygon, whose loops branch to the slow paths
of sqrtf and of a division; a branch on a varying condition is taken to do the same)."""
import numpy as np
import pytest

import simt
from simt import counters as C
from simt.issue import issue_weights, uniform_ldc_pcs

SRC = """
__constant__ float c[64];
extern "C" __global__ void k(float *o, int n) {
    float s = 0.0f;
    for (int j = 0; j < n; ++j) {
        float v = c[j];
        BODY
    }
    o[threadIdx.x] = s;
}"""

BODIES = {
    "plain": ("s += v * o[threadIdx.x];", 0),                          # ULDC: no pass
    "predicated": ("if (o[threadIdx.x] > v) s += v;", 0),               # predicated: no branch
    "branch": ("if (o[threadIdx.x] > v) o[64 + threadIdx.x] = v;", 1),  # a branch around a store: LDC
    "division": ("s += v / o[threadIdx.x];", 1),                        # FCHK + CALL: LDC
}


@pytest.mark.parametrize("body", sorted(BODIES))
def test_a_uniform_constant_load_is_an_ldc_only_where_its_loop_branches(body):
    code, ldc = BODIES[body]
    mod = simt.Module.from_source(SRC.replace("BODY", code), "t.cu")
    k = mod.get_function("k")
    dev = simt.Device()
    mod.get_global(dev, "c").set(np.linspace(-1, 1, 64, dtype=np.float32))
    o = dev.to_device(np.linspace(0.5, 1.5, 128, dtype=np.float32))
    res = k.launch(dev, simt.LaunchConfig.of(1, 64, 0), [o, np.int32(40)])
    loads = [p for p, i in enumerate(k.ir.code) if i.op.name == "LOAD" and i.info.get("space") == "const"]
    assert len(loads) == 1 and (loads[0] in uniform_ldc_pcs(k.ir)) == bool(ldc)
    assert issue_weights(k.ir)[loads[0]] == ldc
    assert res.metrics.get(C.CONST_PASSES, 0) == ldc * 2 * 40          # a pass a warp a trip


def test_raycast_pays_the_constant_cache_for_its_sphere_tables():
    """probe/raycast-spheres reads sph_x/y/z/r[s] for s < ns with sqrtf and an if in the
    loop: 4 LDC a trip, 2.0 cycles a pass, bound by the constant cache at 0.95 of its H100
    time (0.655 with the loads as free operands, once dead address arithmetic stopped
    hiding that)."""
    from simt import timing
    from kernels_cuda import timing_check, timing_probes
    p = timing_probes.get("probe/raycast-spheres")
    r = timing_check.emulate(p, p.n)[0]
    loop = 4 * 32 * (2048 * 2048 // 32)               # (and the shading's lane-varying sph_*[hit])
    assert loop <= r.metrics[C.CONST_PASSES] <= 1.05 * loop
    pred = timing.predict_result(r, timing.load_profile("h100"))
    assert pred.bound == "constant" and 0.8 <= pred.ms / 0.1423 <= 1.25
