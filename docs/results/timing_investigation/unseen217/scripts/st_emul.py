import sys, pickle, numpy as np, time
sys.path.insert(0, '/work/main')
from simt import counters as CC
from kernels_cuda import timing_check as t
log = {}
orig_metrics = CC.Counters.metrics
def metrics(self, scale=1.0):
    log['regions'] = {a: list(v) for a, v in self.regions.items()}
    log['scale'] = scale
    log['hot'] = sorted(self.hot.items(), key=lambda x: -x[1])[:20] if self.hot else None
    log['gpu'] = list(self.alloc_gpu)
    log['slices96'] = {a: (v[0].copy(),) for a, v in self.slices96.items()}
    out = orig_metrics(self, scale)
    return out
CC.Counters.metrics = metrics
orig_un = CC.Counters.uneven_share
def un(self, alloc, lo, hi, base, off, hot=None):
    r = orig_un(self, alloc, lo, hi, base, off, hot)
    log.setdefault('uneven', []).append((alloc, lo, hi, base, off, hot, r)); return r
CC.Counters.uneven_share = un
orig_bs = CC.Counters.busiest_slice_share
def bs(self, alloc, lo, hi, slices, off):
    r = orig_bs(self, alloc, lo, hi, slices, off)
    log.setdefault('bss', []).append((alloc, lo, hi, slices, r)); return r
CC.Counters.busiest_slice_share = bs
orig_ws = CC.Counters.window_share
def ws(self, *a, **k):
    r = orig_ws(self, *a, **k)
    log.setdefault('ws', []).append((a[0], r)); return r
CC.Counters.window_share = ws
t0=time.time()
e = t._entry('probe/cc-symtab-fnv-cas-intern')
L = t.emulate(e, e.default_n)
print('emul s', time.time()-t0)
log['metrics'] = L[0].metrics
pickle.dump(log, open('/tmp/u217_scratch/st_log.pkl', 'wb'))
for k in ('regions','scale','uneven','bss','ws','gpu'):
    print(k, log.get(k))
print('hot', log['hot'][:10])
