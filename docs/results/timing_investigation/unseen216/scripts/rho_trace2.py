import sys, numpy as np
sys.path.insert(0, '/work/main')
from simt import machine as M
from kernels_cuda import timing_check as t
from kernels_cuda.backend import EmulatorBackend
orig_exec = M.Machine.exec
log = []
def exec_(self, p, w, counted=True, hoist=True):
    track = self.gwarp0 == 0 and 0 in w and len(log) < 6000
    before = float(self.wclock[0]) if track else 0.0
    orig_exec(self, p, w, counted, hoist)
    if track:
        ins = self.code[p]; d = ins.dst
        try:
            rdy = float(np.max(self.rt[d.slot][0:32])) if (d is not None and not isinstance(d, list) and self.rt is not None) else None
        except Exception:
            rdy = None
        log.append((p, ins.line, ins.op.name, getattr(ins, 'sub', ''), round(before, 1), round(float(self.wclock[0]), 1), rdy and round(rdy, 1)))
M.Machine.exec = exec_
e = t._entry('probe/nt-pollard-rho-brent-mont')
inp = e.inputs(n=e.default_n, seed=0)
be = EmulatorBackend(seed=0, policy='lockstep', sanitize=False, sample_blocks=1)
e.run(be, inp)
# print a stretch of the y loop at r >= 8 and of a gcd call
ys = [i for i, x in enumerate(log) if x[0] == 85]
gs = [i for i, x in enumerate(log) if x[0] == 211]
print('first y-steps at', ys[:3], 'gcd turns at', gs[:3], len(log))
i0 = ys[12]
for x in log[i0:i0 + 60]: print(*x)
print('----')
j0 = gs[5]
for x in log[j0:j0 + 45]: print(*x)
