"""Session 40: would adding the registers of the loads a loop nvcc unrolls by 4 keeps in
flight bring simt.occupancy's estimate closer to nvcc's count?  For each innermost loop
that is neither fully unrolled nor of a run-time stride (the loops simt.machine keeps 4
trips of loads in flight for), 3 x the 32-bit words its global loads return; the largest
over the kernel's loops, added to the estimate.  Same kernels as probes_compare.py.  Runs
here, no GPU:
python docs/results/timing_investigation/regs/inflight_compare.py > docs/results/timing_investigation/regs/inflight_compare.txt"""
import glob
import re
from pathlib import Path
import numpy as np
import simt
from simt.occupancy import REG_OVERHEAD, blocks_by_registers, live_peak
from simt.loops import full_unrolls
from simt.machine import _global_loads, _runtime_stride
from simt.ctypes_ import sizeof
rows, seen = [], set()
def extra(ir):
    code=ir.code; full=full_unrolls(code); best=0
    loads=_global_loads(type('K',(),{'code':code})())
    per={}
    for p,inner in loads.items():
        if inner is None or inner in full: continue
        per.setdefault(inner,[]).append(p)
    for inner,ps in per.items():
        if _runtime_stride(code,*inner): continue
        w=sum(max(1,-(-sizeof(code[p].ctype)//4)) for p in ps if code[p].ctype is not None)
        best=max(best,3*w)
    return best
for res in sorted(glob.glob("docs/results/timing_investigation/*/probes*_res.txt")):
    f = Path(res).name.replace("_res.txt", ".cu"); path = Path("kernels_cuda") / f
    if not path.exists(): continue
    mod = simt.Module.from_file(path)
    for m in re.finditer(r"Function (\w+):\n\s*REG:(\d+)", Path(res).read_text()):
        name, n = m.group(1), int(m.group(2))
        if (f, name) in seen: continue
        try: fn = mod.get_function(name)
        except Exception: continue
        seen.add((f, name))
        rows.append((f, name, n, live_peak(fn.ir), extra(fn.ir)))
n=np.array([r[2] for r in rows],float); live=np.array([r[3] for r in rows],float); ex=np.array([r[4] for r in rows],float)
def cls(r): return 16 if r<=16 else (24 if r<=24 else (32 if r<=32 else 99))
def report(est,label):
    d=est-n
    same=sum(cls(a)==cls(b) for a,b in zip(est,n))
    print(f"{label:20s} median {np.median(d):+5.1f} mean|d| {np.abs(d).mean():5.2f} within3 {np.sum(np.abs(d)<=3):3d} same class(16/24/32/>32) {same:3d} of {len(n)} over-est>3 {np.sum(d>3)}")
report(live+REG_OVERHEAD,"model")
report(live+REG_OVERHEAD+ex,"model+inflight")
for f,name,r,lv,e in rows:
    if name in ('pagerank_pull','spmv_sell32','rle_encode_runs','bfs_level','uf_link'): print(name, r, lv+3, lv+3+e)
def occ(r, threads=256): return min(2048 // threads, 32, blocks_by_registers(int(r), threads))
a=[occ(x) for x in live+REG_OVERHEAD]; b=[occ(x) for x in live+REG_OVERHEAD+ex]; t=[occ(x) for x in n]
ch=[(rows[i][1],t[i],a[i],b[i]) for i in range(len(rows)) if a[i]!=b[i]]
print("occupancy changes:", len(ch), "toward nvcc:", sum(abs(x[3]-x[1])<abs(x[2]-x[1]) for x in ch), ch)
print("same occupancy: model", sum(x==y for x,y in zip(a,t)), "new", sum(x==y for x,y in zip(b,t)))
