import pickle, time
from kernels_cuda import timing_check as t
e=t._entry('probe/nt-pollard-rho-brent-mont')
t0=time.time()
L=t.emulate(e, e.default_n)
l=L[0]
print(time.time()-t0)
print(list(l.per_line.items())[:3])
print(type(l.per_warp), list(l.per_warp)[:5] if isinstance(l.per_warp,dict) else None)
pickle.dump({'metrics':l.metrics,'per_line':l.per_line,'per_warp':l.per_warp,'div':l.divergence},open('/tmp/u216_scratch/rho_emu.pkl','wb'))
