# prime_gap_stats with the block's warps shared among the trip's two CAS words:
# W_eff = W / DIV (argv[1]; 1 = the model as is)
import sys, json, numpy as np
sys.path.insert(0, '/work/main')
from simt import counters as C, timing
DIV = float(sys.argv[1])
orig = C._cross_warp_passes
def patched(off2d, act2d, size, blocks, steady=None):
    r, c = np.nonzero(act2d)
    if not len(r):
        return np.zeros(off2d.shape[0])
    word = (off2d[r, c] // size).astype(np.int64)
    rw, lanes = np.unique((r.astype(np.int64) << 18) | word, return_counts=True)
    row = rw >> 18
    blk = np.asarray(blocks).astype(np.int64)[row]
    _, inv, warps = np.unique((blk << 18) | (rw & ((1 << 18) - 1)), return_inverse=True, return_counts=True)
    w = warps[inv.reshape(-1)].astype(float)
    if steady is not None:
        w = np.where(np.asarray(steady)[row], w, np.minimum(w, C.DRIFT_WARPS))
    w = np.maximum(1.0, w / DIV)
    lost = lanes * (w + 1) / 2.0
    out = np.zeros(off2d.shape[0])
    np.maximum.at(out, row, lost)
    return out
C._cross_warp_passes = patched
from kernels_cuda import timing_check as t
e = t._entry('probe/nt-prime-gaps-cramer-hist')
L = t.emulate(e, e.default_n)[0]
m = L.metrics
prof = timing.load_profile('h200')
p = timing.predict(m, L.config.grid.size, L.config.block.size, L.shared_bytes, prof)
print('DIV', DIV, 'pred ms %.4f' % p.ms, p.bound, {k: round(v, 1) for k, v in p.components_us.items()})
for k in ['smsp__inst_executed_op_shared_ld.sum', 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum', 'simt__issue_slots.sum', 'simt__block_cycles.mean', 'simt__block_cycles.max', 'smsp__inst_executed.sum']:
    print(k, m.get(k))
json.dump(m, open('/tmp/u216_scratch/gs_metrics_div%s.json' % sys.argv[1], 'w'))
