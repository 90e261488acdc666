"""Where CuPy puts probe/partition8-atomic's arrays, as timing_check.measure allocates them
(a fresh pool, the probe's arguments in order): each device pointer's offset in its 1 KiB
and 2 KiB block.  The 8 bucket cursors are 128 bytes apart in 1 KiB; l2map/ found a
1 KiB-aligned kilobyte in two L2 slices, four lines each, and one that starts 512 bytes
into a kilobyte reaches four.  python3 alignment.py (on the GPU machine)"""
from kernels_cuda import cupy_backend as cb
from kernels_cuda import timing_probes

for pid in ("probe/partition8-atomic", "probe/partition8-match"):
    cb.release_pools()
    p = timing_probes.get(pid)
    inp = p.inputs(n=p.n, seed=0)
    be = cb.CupyBackend(timed=False)
    seen = []
    orig = be.launch

    def spy(source, kernel, grid, block, args, shared_mem=0):
        seen.extend(int(a.data.ptr) for a in args if hasattr(getattr(a, "data", None), "ptr"))
        return orig(source, kernel, grid, block, args, shared_mem)

    be.launch = spy
    p.run(be, inp)
    print(pid, [(hex(x), x % 1024, x % 2048) for x in seen])
