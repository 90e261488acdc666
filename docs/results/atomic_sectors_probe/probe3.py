import numpy as np,cupy as cp,json,os,sys,itertools as it
def V(p):
    a=np.full(32,-1,np.int32)
    for l,x in p.items(): a[l]=x
    return a
A={0:160,6:6,15:3,20:1,21:163,27:7,29:0}
B={2:184,7:3,10:3,11:7,19:167,20:162,23:7};Bf={4:1,22:6,26:5,27:0}
C={3:0,6:166,10:6,15:4,16:2,18:1,25:3}
T=[];g=sys.argv[1]
def sub(n,D,F={}):
    k=sorted(D)
    for m in range(1<<len(k)):
        p=dict(F);p.update({l:D[l] for j,l in enumerate(k) if m>>j&1});T.append((f"{n}{m}",V(p)))
if g=="1": sub("A",A);sub("B",B,Bf)
elif g=="2":
    sub("C",C)
    for k in range(1,64):
        T.append((f"FA{k}",V({0:8*k,6:6,15:3,20:1,21:8*k+3,27:7,29:0})))
elif g=="3":
    for k in range(1,64):
        T.append((f"FC{k}",V({3:0,6:8*k+6,10:6,15:4,16:2,18:1,25:3})))
    for j in range(1,16):
        T.append((f"SA{j}",V({l:x+32*j for l,x in A.items()})));T.append((f"SC{j}",V({l:x+32*j for l,x in C.items()})))
    r=np.random.RandomState(0);v=[160,6,3,1,163,7,0]
    for q in range(20):
        o=r.permutation(7);T.append((f"PA{q}_"+"".join(map(str,o)),V({j:v[o[j]] for j in range(7)})))
json.dump([(n,[int(x) for x in a]) for n,a in T],open(os.environ["OUT"]+f"/t{g}.json","w"))
m=cp.RawModule(code=r'''extern "C" __global__ void w1(int*c,const int*idx){int i=idx[threadIdx.x]; if(i>=0) atomicAdd(&c[i],1);}''')
f=m.get_function("w1");c=cp.zeros(8192,cp.int32)
for n,a in T:f((1,),(32,),(c,cp.asarray(a)))
cp.cuda.Device().synchronize();print("done",g,len(T))
