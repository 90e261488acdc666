import numpy as np, cupy as cp, json, os, sys
d=np.load("docs/results/atomic_sectors_probe/data.npy").astype(np.int32)
W=lambda w: d[w*32:(w+1)*32].copy()
T=[]
if sys.argv[1]=="A":
    for w in [205,115,74,139,81,9,16,29]: T.append((f"orig{w}",W(w)))
    for w in [205,115]:
        for L in range(32):
            a=W(w); a[L]=-1; T.append((f"del{w}_{L}",a))
    for off in [32,64,128,256,512,1024,2048]: T.append((f"off205_{off}",W(205)+off))
    a=W(205); T.append(("rev205",a[::-1].copy())); T.append(("roll205_16",np.roll(a,16))); T.append(("roll205_1",np.roll(a,1)))
    b=np.full(32,-1,np.int32); b[17]=a[17]; b[30]=a[30]; T.append(("pair205",b))
    b=np.where(a<32,a,-1).astype(np.int32); T.append(("line0_205",b))
else:
    for w in [74,139,16]:
        for L in range(32):
            a=W(w); a[L]=-1; T.append((f"del{w}_{L}",a))
json.dump([(n,[int(x) for x in a]) for n,a in T],open(os.environ["OUT"]+f"/tests{sys.argv[1]}.json","w"))
m=cp.RawModule(code=r'''extern "C" __global__ void w1(int*c,const int*idx){int i=idx[threadIdx.x]; if(i>=0) atomicAdd(&c[i],1);}''')
f=m.get_function("w1"); c=cp.zeros(8192,cp.int32)
for n,a in T: f((1,),(32,),(c,cp.asarray(a)))
cp.cuda.Device().synchronize(); print("done",len(T))
