import sys; sys.path.insert(0,'/work/main')
import numpy as np
from kernels_cuda import timing_probes as tp
code, starts = tp._p219_vm_assemble()
names = {v: k for k, v in tp.P219_OPC.items()}
exec(open('/tmp/u217_scratch/vmtrace_fn.py').read())
for p,a,b,blk in ((4,30,0,71884.0),(4,60,0,140357.8),(0,832040,514229,50558.2),(2,999999999,0,21778.7),(6,1999,0,111143.2)):
    ops = trace(int(starts[p]), a, b)
    print(p,a,b,'steps',len(ops),'simt cycles/step %.1f'%(blk/len(ops)))
