"""bytecode_vm experiments: env L1CODE=1 (the code load an L1 hit), INORDER=1 (all loop
arithmetic waits for operands: ALU latency on the path), ISSUE=x (LAT['issue'] per IR inst)."""
import sys, os, time, collections
sys.path.insert(0, '/work/main')
import numpy as np
from simt import machine, issue, l1hits
from simt.ir import Op
from kernels_cuda import timing_check as t
from simt import timing
CODE_PC = 39
if os.environ.get('L1CODE'):
    orig = l1hits.TripSectors.load
    def load(self, pc, warps, sec, act, tt, hit_t):
        out = orig(self, pc, warps, sec, act, tt, hit_t)
        if pc == CODE_PC:
            return np.minimum(tt, hit_t)
        return out
    l1hits.TripSectors.load = load
if os.environ.get('INORDER'):
    def inorder(ir):
        code = ir.code
        return frozenset(p for p in range(len(code)) if code[p].op in issue._PURE and code[p].op != Op.MOV)
    machine.inorder_pcs = inorder
if os.environ.get('ISSUE'):
    machine.LAT['issue'] = float(os.environ['ISSUE'])
t0 = time.time()
e = t._entry('probe/cc-bytecode-vm-switch-local')
L = t.emulate(e, e.default_n)
prof = timing.load_profile('h200')
r = L[0]
p = timing.predict_result(r, prof)
m = r.metrics
print(os.environ.get('L1CODE'), os.environ.get('INORDER'), os.environ.get('ISSUE'), 'emul', round(time.time()-t0,1),
      'pred', round(p.ms, 4), 'ratio', round(p.ms/0.174288, 2), p.bound, 'lat', p.components_us['latency'],
      'blk mean/max', m['simt__block_cycles.mean'], m['simt__block_cycles.max'], 'warp_inst.max', m['simt__warp_inst.max'])
