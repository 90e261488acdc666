import sys, time, json, pickle
sys.path.insert(0, '/work/main')
from simt import counters as Cm
from kernels_cuda import timing_check as t
from simt import timing
eid = sys.argv[1]
box = {}
orig = Cm.Counters.per_line
def pl(self, scale=1.0):
    box['c'] = self; box['scale'] = scale
    return orig(self, scale)
Cm.Counters.per_line = pl
t0 = time.time()
e = t._entry(eid)
L = t.emulate(e, e.default_n)
print('emulated', round(time.time() - t0, 1), file=sys.stderr)
c = box['c']; sc = box['scale']
from simt.module import Module
import gc
from simt import machine
code = None
for o in gc.get_objects():
    if isinstance(o, machine.Machine): code = o.code; break
if code is None:
    m = Module.from_file('kernels_cuda/probes220.cu'); code = m.get_function(e.kernel).ir.code
rows = []
for pc, d in enumerate(c.per_pc):
    if not d: continue
    inst = d.get(Cm.INST, 0) * sc
    w = c.slot_weights[pc] if c.slot_weights is not None else 1
    rows.append((pc, inst, inst * w, d.get(Cm.ISSUE_EXTRA, 0) * sc, {k: v * sc for k, v in d.items() if 'const' in k}, str(code[pc])[:80]))
pickle.dump({'rows': rows, 'metrics': L[0].metrics}, open(f'/tmp/u218_scratch/perpc_{eid.split("/")[1]}.pkl', 'wb'))
for r in rows:
    print(r[0], int(r[1]), round(r[2]), round(r[3]), {k: round(v) for k, v in r[4].items()}, r[5])
print('slots', sum(r[2] for r in rows), 'extra', sum(r[3] for r in rows))
p = timing.predict_result(L[0], timing.load_profile('h200'))
print(p.ms, p.components_us)
