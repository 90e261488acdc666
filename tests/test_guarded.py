"""Atomics behind a read of their own word (simt.guarded): found by the IR's shape, and
such a launch is emulated whole where it would have been block-sampled, since the late
blocks that skip the atomic do not survive a sample."""
import numpy as np
import pytest

import simt
from simt.guarded import guarded_atomics
from simt.launch import Dim3, LaunchConfig
from kernels_cuda import timing_probes
from kernels_cuda.backend import EmulatorBackend, auto_sample

KERNELS = r'''
extern "C" {
__device__ float atomicMaxFloat(float *address, float val) {
    int *a = (int *)address;
    int old = *a, assumed;
    while (val > __int_as_float(old)) {
        assumed = old;
        old = atomicCAS(a, assumed, __float_as_int(val));
        if (old == assumed) break;
    }
    return __int_as_float(old);
}
__global__ void cas_max(const float *v, const int *bin, float *mx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicMaxFloat(&mx[bin[i]], v[i]);
}
__global__ void if_max(const int *v, const int *bin, int *mx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && v[i] > mx[bin[i]]) atomicMax(&mx[bin[i]], v[i]);
}
__global__ void visit(const int *next, int *seen, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = next[i];
        if (!seen[v] && atomicCAS(&seen[v], 0, 1) == 0) out[i] = 1;
    }
}
// the catalog's atomicAdd_manual: the first CAS is unconditional (do-while)
__global__ void cas_add(const int *bin, int *h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int *addr = &h[bin[i]];
        int old = *addr, assumed;
        do { assumed = old; old = atomicCAS(addr, assumed, assumed + 1); } while (old != assumed);
    }
}
// a read of the word that guards nothing of the atomic, and an atomic on another word
__global__ void unguarded(const int *bin, int *h, int *m, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int seen = h[bin[i]];
        atomicAdd(&h[bin[i]], 1);
        if (seen > 3) atomicAdd(&m[0], 1);
    }
}
}
'''


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    p = tmp_path_factory.mktemp("g") / "guarded.cu"
    p.write_text(KERNELS)
    return simt.load(str(p))


@pytest.mark.parametrize("name, guarded", [("cas_max", True), ("if_max", True), ("visit", True),
                                           ("cas_add", False), ("unguarded", False)])
def test_guarded_atomics_are_found(mod, name, guarded):
    code = mod.get_function(name).ir.code
    got = guarded_atomics(code)
    assert bool(got) == guarded
    assert all(code[pc].op.name == "ATOM" for pc in got)


def test_a_guarded_launch_is_not_sampled(mod):
    """auto's sample (2^15 threads for a CAS kernel) becomes none for the CAS max, up to
    simt.guarded.WHOLE_THREADS; the CAS add keeps its sample."""
    cfg = LaunchConfig(Dim3.of(1 << 16), Dim3.of(256), 0)          # 2^24 threads
    assert auto_sample(cfg, mod.get_function("cas_max")) is None
    assert auto_sample(cfg, mod.get_function("cas_add")) == (1 << 15) // 256
    big = LaunchConfig(Dim3.of(1 << 17), Dim3.of(256), 0)          # 2^25: sampled
    assert auto_sample(big, mod.get_function("cas_max")) == (1 << 15) // 256


def test_bin_max_cas_counts_the_grid_s_atomics_not_the_sample_s():
    """probe/bin-max-cas, floats into 4096 bins, asked for a sample of 512 blocks as the
    tables do: emulated whole, the CAS attempts stop growing with the grid once the bins
    hold their maxima (a sample's extrapolation doubled them from 2^19 to 2^20 elements,
    and gave 7.6 times the grid's at 2^22); each bin ends at its maximum."""
    p = timing_probes.get("probe/bin-max-cas")
    cas = []
    for n in (1 << 19, 1 << 20):
        host = p.args(n, np.random.default_rng(0))
        be = EmulatorBackend(seed=0, sanitize=False, sample_blocks=512)
        dev = p.launch(be, host, {}, n)
        r = be.launches[-1]
        assert r.sampled_blocks is None
        cas.append(r.metrics["simt__atomic_cas_lanes.sum"])
        exp = np.full(4096, -np.inf, np.float32)
        np.maximum.at(exp, host[1], host[0])
        assert np.array_equal(be.to_host(dev[2]), exp)
    assert cas[0] > 4096 and cas[1] < 1.1 * cas[0]
