import sys, os, time
sys.path.insert(0, '/work/main'); sys.path.insert(0, '/tmp/u217_scratch')
import vm_exp_patch  # INORDER env
from kernels_cuda import timing_check as t
from simt import timing
eid, meas, n = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
e = t._entry(eid); L = t.emulate(e, n)
prof = timing.load_profile('h200')
tot = sum(timing.predict_result(r, prof).ms for r in L)
print(eid, os.environ.get('INORDER'), round(tot, 4), round(tot/meas, 2), [timing.predict_result(r, prof).bound for r in L])
