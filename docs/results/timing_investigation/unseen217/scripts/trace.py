"""Emulate one probe (as the tables do) and trace warp 0's clock by source line and pc."""
import sys, time, collections, json
sys.path.insert(0, '/work/main')
import numpy as np
from simt import machine
from kernels_cuda import timing_check as t
from simt import timing
eid = sys.argv[1]
by_line = collections.Counter(); by_pc = collections.Counter(); cnt_pc = collections.Counter()
state = {'on': True, 'last': 0.0, 'texts': {}}
orig = machine.Machine.advance_clock
def wrapped(self, ins, sel, act, full, wsel):
    if not state['on']:
        return orig(self, ins, sel, act, full, wsel)
    ids = machine._warp_ids(wsel)
    has0 = (ids == 0).any() if len(ids) else False
    before = float(self.wclock[0])
    r = orig(self, ins, sel, act, full, wsel)
    after = float(self.wclock[0])
    if after < before - 1:
        state['on'] = False
        return r
    if has0:
        by_line[ins.line] += after - before
        by_pc[ins.pc] += after - before
        cnt_pc[ins.pc] += 1
        state['texts'][ins.pc] = str(ins)[:90]
    return r
machine.Machine.advance_clock = wrapped
t0 = time.time()
e = t._entry(eid)
L = t.emulate(e, e.default_n)
print('emulated in', round(time.time() - t0, 1), 's', file=sys.stderr)
prof = timing.load_profile('h200')
for r in L:
    p = timing.predict_result(r, prof)
    print(r.kernel, round(p.ms, 4), p.bound, {k: v for k, v in p.components_us.items() if v})
    print('block_cycles.mean', r.metrics.get('simt__block_cycles.mean'), 'max', r.metrics.get('simt__block_cycles.max'))
print('warp0 total', round(sum(by_line.values())))
for ln, v in sorted(by_line.items()):
    print('line', ln, round(v))
top = sorted(by_pc.items(), key=lambda x: -x[1])[:40]
for pc, v in top:
    print('pc', pc, round(v), 'n', cnt_pc[pc], state['texts'][pc])
