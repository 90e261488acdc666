"""Run one catalog entry / timing probe once on CuPy (for ncu): python run_entry.py ID N"""
import sys
from kernels_cuda import cupy_backend as cb
from kernels_cuda.timing_check import _entry

eid, n = sys.argv[1], int(sys.argv[2])
e = _entry(eid)
inp = e.inputs(n=n, seed=0)
be = cb.CupyBackend(timed=False)
e.run(be, inp)
be.cupy.cuda.Device().synchronize()
print("ran", eid, n, [(l.kernel, l.grid.as_tuple(), l.block.as_tuple()) for l in be.launches])
