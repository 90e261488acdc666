from simt.module import Module
from simt import occupancy as O
from simt.promote import register_arrays
from simt.regalloc import live_ranges, back_edges, through_loops
import numpy as np
m = Module.from_file('kernels_cuda/probes220.cu')
for name in ['euler2d_muscl_hll','cool_subcycle']:
    k = m.get_function(name)
    ir = k.ir
    print(name, 'est', k.registers, 'peak', O.live_peak(ir), 'ninstr', len(ir.code))
    ra = register_arrays(ir)
    print(' arrays', len(ra), 'words', sum(w for *_ , w in ra), ra[:40])
    # peak without arrays
    first,last,byid = live_ranges(ir.code)
    delta=np.zeros(len(ir.code)+1,np.int64)
    for kk,r in byid.items():
        w=O._width(r); delta[first[kk]]+=w; delta[last[kk]+1]-=w
    scal=np.cumsum(delta)
    loops=back_edges(ir.code)
    arr=np.zeros(len(ir.code)+1,np.int64)
    for a,z,w in ra:
        arr[a]+=w; arr[through_loops(a,z,loops)+1]-=w
    arr=np.cumsum(arr)
    tot=scal+arr
    i=int(tot.argmax())
    print(' scalars peak', scal.max(), 'arrays peak', arr.max(), 'at argmax: scal',scal[i],'arr',arr[i], 'pc',i)
    print(' loops', len(loops))
