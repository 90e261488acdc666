"""Lane 0 of warp 0 of the first batch: its dynamic instruction stream (all loops unrolled as
it ran), each scalar value live from its def to its last read, each local-array word from its
store to its last load (per element, as nvcc frees them): the peak live 32-bit words + 3."""
import sys, collections
sys.path.insert(0, '/work/main')
import numpy as np
from simt import machine, occupancy as O
from simt.ir import Reg, Op
from simt.spaces import LOCAL_BASE
from kernels_cuda import timing_check as t
eid = sys.argv[1]
trace = []
st = {'on': True}
orig = machine.Machine.exec
def wrapped(self, p, w, counted=True, hoist=True):
    if st['on'] and (w == 0).any():
        ins = self.code[p]
        if bool(self.M[ins.depth][0]):
            addr = None
            if ins.op in (Op.LOAD, Op.STORE):
                a = self.rd(ins.args[0], slice(0, 1))
                addr = int(np.asarray(a).ravel()[0])
            trace.append((p, addr))
    return orig(self, p, w, counted, hoist)
fb = machine.Machine.finish_batch
def fwrap(self):
    st['on'] = False
    return fb(self)
machine.Machine.exec = wrapped
machine.Machine.finish_batch = fwrap
e = t._entry(eid)
from simt.module import Module
import kernels_cuda.timing_check
L = t.emulate(e, e.default_n)
print('trace len', len(trace), 'regs est', L[0].metrics.get('simt__registers_per_thread.max'))
# find code
code = None
import gc
for obj in gc.get_objects():
    if isinstance(obj, machine.Machine):
        code = obj.code; break
if code is None:
    from simt.module import Module
    m = Module.from_file('kernels_cuda/' + e.source if not e.source.startswith('kernels') else e.source)
    code = m.get_function(e.kernel).ir.code
n = len(trace)
scal_delta = np.zeros(n + 2); arr_delta = np.zeros(n + 2)
cur = {}   # reg slot/name -> (start, width, lastread)
def close(key):
    s, wdt, last = cur.pop(key)
    scal_delta[s] += wdt; scal_delta[max(last, s) + 1] -= wdt
cura = {}
def closea(a):
    s, last = cura.pop(a)
    arr_delta[s] += 1; arr_delta[max(last, s) + 1] -= 1
for tstep, (p, addr) in enumerate(trace):
    ins = code[p]
    for a in ins.args:
        if type(a) is Reg and a.name in cur:
            s, wdt, _ = cur[a.name]; cur[a.name] = (s, wdt, tstep)
    if ins.op == Op.LOAD and addr is not None and addr >= LOCAL_BASE:
        w = max(1, (ins.ctype.size if ins.ctype is not None and hasattr(ins.ctype, 'size') else 4) // 4)
        for k in range(w):
            if addr + 4 * k in cura:
                s, _ = cura[addr + 4 * k]; cura[addr + 4 * k] = (s, tstep)
    if ins.op == Op.STORE and addr is not None and addr >= LOCAL_BASE:
        if addr in cura: closea(addr)
        cura[addr] = (tstep, tstep)
    ds = ins.dst if isinstance(ins.dst, list) else ([ins.dst] if ins.dst is not None else [])
    for d in ds:
        if type(d) is Reg:
            if d.name in cur: close(d.name)
            cur[d.name] = (tstep, O._width(d), tstep)
for k in list(cur): close(k)
for a in list(cura): closea(a)
sc = np.cumsum(scal_delta)[:n]; ar = np.cumsum(arr_delta)[:n]; tot = sc + ar
i = int(tot.argmax())
print('dynamic peak', int(tot.max()), '+3 =', int(tot.max()) + 3, ' scalars', int(sc[i]), 'array words', int(ar[i]), 'at step', i, 'pc', trace[i][0], 'line', code[trace[i][0]].line)
print('scalar-only peak', int(sc.max()), 'array-only peak', int(ar.max()))
