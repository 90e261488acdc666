"""Stepping one warp instruction at a time, inspecting, and going back in time."""
import numpy as np

import simt

SRC = r'''extern "C" __global__ void k(const int *d, int *h, int n) {
    __shared__ int s[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 32) s[threadIdx.x] = 0;
    __syncthreads();
    if (i < n) {
        int b = d[i] % 32;
        if (b & 1) atomicAdd(&s[b], 1);
        else s[(b * 2) % 32] += 0;
    }
    __syncthreads();
    if (threadIdx.x < 32) atomicAdd(&h[threadIdx.x], s[threadIdx.x]);
}'''


def make(n=300, grid=3, block=128):
    mod = simt.Module.from_source(SRC, "s.cu")
    dev = simt.Device()
    d = np.random.default_rng(1).integers(0, 1000, n).astype(np.int32)
    dd, h = dev.to_device(d), dev.zeros(32, np.int32)
    ln = mod.get_function("k").prepare(dev, simt.LaunchConfig.of(grid, block), [dd, h, np.int32(n)])
    return ln, h, d


def test_stepping_to_the_end_equals_a_run():
    ln, h, d = make()
    st = simt.Stepper(ln)
    n = 0
    while st.step() is not None:
        n += 1
    assert st.done and st.error is None
    stepped = (h.get(), st.result().metrics, st.result().per_line)
    ln2, h2, _ = make()
    res = ln2.run()
    assert np.array_equal(stepped[0], h2.get())
    assert stepped[1] == res.metrics and stepped[2] == res.per_line
    assert n == res.steps if res.steps else True
    exp = np.bincount(d % 32, minlength=32)
    exp[::2] = 0
    assert stepped[0].tolist() == exp.tolist()


def test_events_describe_access_and_branches():
    ln, h, d = make()
    st = simt.Stepper(ln)
    evs = []
    while True:
        e = st.step()
        if e is None:
            break
        evs.append(e)
    shared_atoms = [e for e in evs if e.access and e.access["space"] == "shared" and e.access["kind"] == "red"]
    assert shared_atoms and all("groups" in e.access for e in shared_atoms)
    g = shared_atoms[0].access
    assert sum(len(x["lanes"]) for x in g["groups"]) == bin(shared_atoms[0].active_mask).count("1")
    stores = [e for e in evs if e.access and e.access["space"] == "shared" and e.access["kind"] == "st"]
    assert stores[0].access["wavefronts"] == 1 and stores[0].access["banks"] == list(range(32))
    branches = [e for e in evs if e.branch and e.branch["diverged"]]
    assert branches and branches[0].line in (4, 6, 8)


def test_warp_state_and_values_mid_divergence():
    ln, h, d = make()
    st = simt.Stepper(ln)
    ev = st.run_until(lambda e: e.branch is not None and e.branch["diverged"] and e.line == 8)
    ws = st.warps(ev.block)
    w = ws[ev.warp]
    assert w.state == "running" and w.divergent != 0 and w.branch_line == 8
    assert len(ws) == 4
    vals = st.values(ev.block, "b")
    assert vals.shape == (128,)
    lane_b = vals[ev.warp * 32:(ev.warp + 1) * 32]
    # after the split the warp runs the then-side: exactly the lanes whose b is odd
    assert w.active == ev.branch["taken"]
    assert w.active == sum(1 << k for k in range(32) if (ev.active_mask >> k) & 1 and lane_b[k] & 1)
    assert w.divergent == ev.branch["not_taken"]


def test_back_and_goto_are_exact():
    ln, h, d = make()
    st = simt.Stepper(ln)
    st.run(150)
    snap = (st.steps, st.last.pc, st.last.warp, h.get().copy(), st.result().metrics)
    st.run(200)
    st.goto(150)
    assert (st.steps, st.last.pc, st.last.warp) == snap[:3]
    assert np.array_equal(h.get(), snap[3]) and st.result().metrics == snap[4]
    e1 = st.step()
    st.back()
    e2 = st.step()
    assert (e1.pc, e1.warp, e1.block, e1.active_mask) == (e2.pc, e2.warp, e2.block, e2.active_mask)
    # going back and forth ends exactly where a straight run ends (timing state included)
    while st.step() is not None:
        pass
    ln2, h2, _ = make()
    assert st.result().metrics == ln2.run().metrics


def test_launch_error_sets_error_instead_of_raising():
    src = 'extern "C" __global__ void k(int *a) { a[threadIdx.x + 100] = 1; }'
    mod = simt.Module.from_source(src, "e.cu")
    dev = simt.Device()
    a = dev.zeros(10, np.int32)
    st = simt.Stepper(mod.get_function("k").prepare(dev, simt.LaunchConfig.of(1, 32), [a]))
    while st.step() is not None:
        pass
    assert st.done and isinstance(st.error, simt.LaunchError)
    assert st.findings()[-1].tool == "memcheck"
