import sys, pickle, numpy as np
sys.path.insert(0, '/work/main')
from simt import counters as CC
from kernels_cuda import timing_check as t
from simt import timing as T
variants = {}; info = {}
orig_metrics = CC.Counters.metrics
def metrics(self, scale=1.0):
    base = orig_metrics(self, scale)
    orig_un = CC.Counters.uneven_share; orig_ws = CC.Counters.window_share
    for name, addr in (('hot=keys_i', 4338110528), ('hot=first_i', 4339652768)):
        h = (addr, self.hot[addr])
        rec = {}
        def un(s, alloc, lo, hi, b, off, hot=None, h=h, rec=rec):
            r = orig_un(s, alloc, lo, hi, b, off, h); rec.setdefault('un', {})[alloc] = r; return r
        def ws(s, alloc, b, off, hot=None, h=h, rec=rec):
            r = orig_ws(s, alloc, b, off, h); rec.setdefault('ws', {})[alloc] = r; return r
        CC.Counters.uneven_share = un; CC.Counters.window_share = ws
        variants[name] = orig_metrics(self, scale); info[name] = rec
        CC.Counters.uneven_share = orig_un; CC.Counters.window_share = orig_ws
    # per-region busiest GPU slice composition for keys: which sectors are on it
    w = self.slices96[3][0]; at = 0
    nz = np.flatnonzero(w); sl = CC.gpu_slice(nz + at)
    cnt = np.bincount(sl, weights=w[nz], minlength=CC.GPU_SLICES)
    top = int(np.argmax(cnt)); on = nz[sl == top]
    info['keys_top_slice'] = (top, cnt[top], sorted([(int(b), float(w[b])) for b in on], key=lambda x: -x[1])[:8], w.sum())
    return base
CC.Counters.metrics = metrics
e = t._entry('probe/cc-symtab-fnv-cas-intern')
L = t.emulate(e, e.default_n)
prof = T.load_profile('h200')
for k, m in variants.items():
    p = T.predict(m, 4096, 256, 0, prof)
    print(k, {x: m[x] for x in m if 'slice' in x and 'arrival' not in x}, round(p.ms, 4), round(p.ms/0.507824, 2), p.components_us['contention'], info[k])
print(info['keys_top_slice'])
