import sys, time
sys.path.insert(0, '/work/main'); sys.path.insert(0, '/tmp/u217_scratch')
import numpy as np
from kernels_cuda import timing_check as t
from kernels_cuda.backend import EmulatorBackend
from simt import timing
import os
if os.environ.get('L1CODE') or os.environ.get('INORDER'):
    import vm_exp_patch  # noqa
e = t._entry('probe/cc-bytecode-vm-switch-local')
prof = timing.load_profile('h200')
base = e.inputs(n=256, seed=0)
n = 256
cases = [('uniform', 4, 30, 0), ('uniform', 4, 60, 0), ('uniform', 0, 832040, 514229), ('uniform', 2, 999999999, 0), ('uniform', 6, 1999, 0)]
for w in (0, 2, 4, 5): cases.append(('warp', w, None, None))
for kind, p, a, b in cases:
    inp = dict(base)
    if kind == 'uniform':
        inp['arg2'] = np.full(n, p, np.uint8); inp['arg3'] = np.full(n, a, np.int32); inp['arg4'] = np.full(n, b, np.int32)
    else:
        s = slice(32*p, 32*p+32)
        for k in (2, 3, 4): inp[f'arg{k}'] = base[f'arg{k}'][s].copy()
        inp['arg5'] = np.zeros(32, np.int32); inp['arg6'] = np.zeros(32, np.int32); inp['arg7'] = np.int32(32); inp['n'] = 32
    be = EmulatorBackend(seed=0, policy='lockstep', sanitize=False, sample_blocks=None)
    e.run(be, inp)
    r = be.launches[0]; pr = timing.predict_result(r, prof); m = r.metrics
    steps = be_steps = None
    print(kind, p, a, b, 'pred_ms', round(pr.ms, 4), 'blk_max', m['simt__block_cycles.max'], 'IR', m['smsp__inst_executed.sum'], 'slots', m['simt__issue_slots.sum'], flush=True)
