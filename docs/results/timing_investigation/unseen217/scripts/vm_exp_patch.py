import os, numpy as np
from simt import machine, issue, l1hits
from simt.ir import Op
CODE_PC = 39
if os.environ.get('L1CODE'):
    orig = l1hits.TripSectors.load
    def load(self, pc, warps, sec, act, tt, hit_t):
        out = orig(self, pc, warps, sec, act, tt, hit_t)
        return np.minimum(tt, hit_t) if pc == CODE_PC else out
    l1hits.TripSectors.load = load
if os.environ.get('INORDER'):
    def inorder(ir):
        code = ir.code
        return frozenset(p for p in range(len(code)) if code[p].op in issue._PURE and code[p].op != Op.MOV)
    machine.inorder_pcs = inorder
if os.environ.get('INORDER_VARY'):
    def inorder2(ir):
        code = ir.code
        out = set()
        for top, back in issue._branchy_loops(ir, varying_ifs=True):
            out.update(p for p in range(top, back + 1) if code[p].op in issue._PURE and code[p].op != Op.MOV)
        return frozenset(out)
    machine.inorder_pcs = inorder2
