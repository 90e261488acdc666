import sys, collections
sys.path.insert(0, '/work/main')
import numpy as np
from kernels_cuda import timing_probes as tp
from kernels_cuda import timing_check as t
e = t._entry('probe/cc-bytecode-vm-switch-local')
inp = e.inputs(n=e.default_n, seed=0)
code, starts, prog, a, b = (inp[f'arg{k}'] for k in range(5))
names = {v: k for k, v in tp.P219_OPC.items()}
def trace(start, x, y):
    stack, loc = [], [int(x), int(y), 0, 0]; pc = start; ops = []
    while len(ops) < tp.P219_VM_MAX_STEPS:
        w = int(code[pc]); op = w & 0xff; arg = (w - (1 << 32) if w >> 31 else w) >> 8
        pc += 1; name = names[op]; ops.append(name)
        if name == 'HALT': break
        if name in ('PUSH','LOAD','DUP'):
            if len(stack) >= tp.P219_VM_STACK: break
            stack.append(int(arg) if name=='PUSH' else loc[arg] if name=='LOAD' else stack[-1])
        elif name=='STORE': loc[arg]=stack.pop()
        elif name=='POP': stack.pop()
        elif name=='JMP': pc=int(arg)
        elif name=='JZ':
            if stack.pop()==0: pc=int(arg)
        elif name=='JNZ':
            if stack.pop()!=0: pc=int(arg)
        else:
            yy, xx = stack.pop(), stack.pop()
            if name in ('DIV','MOD') and yy==0: break
            q = abs(xx)//abs(yy)*(1 if (xx<0)==(yy<0) else -1) if yy else 0
            r={'ADD':xx+yy,'SUB':xx-yy,'MUL':xx*yy,'DIV':q,'MOD':xx-q*yy,'LT':int(xx<yy),'EQ':int(xx==yy),'AND':xx&yy,'SHR':xx>>yy}[name]
            stack.append(int(np.int64(r).astype(np.int32)))
    return ops
tr = [trace(int(starts[p]), x, y) for p, x, y in zip(prog, a, b)]
steps = np.array([len(o) for o in tr])
print('cases', len(tr), 'mean steps', steps.mean(), 'median', np.median(steps), 'max', steps.max())
tot_ws = 0; tot_paths = 0
for w in range(8):
    lanes = tr[32*w:32*w+32]; mx = max(len(o) for o in lanes)
    npaths = [len({o[k] for o in lanes if k < len(o)}) for k in range(mx)]
    act = [sum(1 for o in lanes if k < len(o)) for k in range(mx)]
    tot_ws += mx; tot_paths += sum(npaths)
    print('warp', w, 'steps', mx, 'lane-steps', sum(len(o) for o in lanes), 'distinct ops/step %.2f' % np.mean(npaths), 'active lanes/step %.1f' % np.mean(act))
print('warp-steps', tot_ws, 'distinct-op steps', tot_paths)
c = collections.Counter(op for o in tr for op in o); print(c.most_common())
