import sys, pickle, numpy as np, time, copy
sys.path.insert(0, '/work/main')
from simt import counters as CC
from kernels_cuda import timing_check as t
from simt import timing as T
log = {}
orig_metrics = CC.Counters.metrics
variants = {}
def metrics(self, scale=1.0):
    base = orig_metrics(self, scale)
    # variant A: every spread region's own hottest sector left out of its uneven count
    hot_by_alloc = {}
    for a,(trans,lo,hi,*_) in self.regions.items():
        cands = [(addr,n) for addr,n in self.hot.items() if lo <= addr <= hi]
        if cands: hot_by_alloc[a] = max(cands, key=lambda x: x[1])
    log['hot_by_alloc'] = hot_by_alloc
    orig_un = CC.Counters.uneven_share
    def un(s, alloc, lo, hi, b, off, hot=None):
        return orig_un(s, alloc, lo, hi, b, off, hot_by_alloc.get(alloc))
    orig_ws = CC.Counters.window_share
    CC.Counters.uneven_share = un
    # window share also subtracts the hot sector; use each region's own
    def ws(s, alloc, b, off, hot=None):
        return orig_ws(s, alloc, b, off, hot_by_alloc.get(alloc))
    CC.Counters.window_share = ws
    variants['own_hot_out'] = orig_metrics(self, scale)
    CC.Counters.uneven_share = orig_un; CC.Counters.window_share = orig_ws
    # variant B: no uneven/window rule at all (even shares)
    CC.Counters.uneven_share = lambda s,*a,**k: 0.0
    CC.Counters.window_share = lambda s,*a,**k: (0.0, False)
    variants['even'] = orig_metrics(self, scale)
    CC.Counters.uneven_share = orig_un; CC.Counters.window_share = orig_ws
    return base
CC.Counters.metrics = metrics
e = t._entry('probe/cc-symtab-fnv-cas-intern')
L = t.emulate(e, e.default_n)
variants['base'] = L[0].metrics
pickle.dump((variants, log), open('/tmp/u217_scratch/st_var.pkl', 'wb'))
prof = T.load_profile('h200')
for k,m in variants.items():
    p = T.predict(m, 4096, 256, 0, prof)
    print(k, {x: m[x] for x in m if 'slice' in x and 'arrival' not in x}, round(p.ms,4), p.components_us['contention'], p.bound)
print(log['hot_by_alloc'])
