import sys, numpy as np, pickle
sys.path.insert(0, '/work/main')
from simt import machine as M
from kernels_cuda import timing_check as t
from kernels_cuda.backend import EmulatorBackend
NP = 400
cyc = np.zeros((256, NP)); cnt = np.zeros((256, NP))
finish = {}
orig_exec = M.Machine.exec
def exec_(self, p, w, counted=True, hoist=True):
    ww = np.asarray(w, dtype=np.int64)
    before = self.wclock[ww].copy()
    orig_exec(self, p, w, counted, hoist)
    g = self.gwarp0 + ww
    np.add.at(cyc, (g, p), self.wclock[ww] - before)
    np.add.at(cnt, (g, p), 1)
M.Machine.exec = exec_
orig_fin = M.Counters.warp_finish if hasattr(M, 'Counters') else None
e = t._entry('probe/nt-pollard-rho-brent-mont')
inp = e.inputs(n=e.default_n, seed=0)
be = EmulatorBackend(seed=0, policy='lockstep', sanitize=False, sample_blocks=None)
e.run(be, inp)
L = be.launches[0]
print(L.metrics['simt__block_cycles.max'], L.metrics['simt__block_cycles.mean'])
pickle.dump({'cyc': cyc, 'cnt': cnt, 'metrics': L.metrics, 'inp': [np.asarray(a) if hasattr(a, '__len__') else a for a in inp]}, open('/tmp/u216_scratch/rho_trace.pkl', 'wb'))
