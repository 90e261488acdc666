import numpy as np,cupy as cp,os
from kernels_cuda import timing_probes as tp
s=open('kernels_cuda/probes218.cu').read()
k=s.index('__global__ void pollard_rho_brent')
s=s[:k]+'__device__ long long g_cyc[256];__device__ int g_sm[64];\n'+s[k:]
a='if (i >= n) return;\n    unsigned long long N = num[i];'
assert a in s
s=s.replace(a,'if (i >= n) return;\n    long long t0=clock64();\n    unsigned long long N = num[i];',1)
b='    factor[i] = result;'
assert b in s
s=s.replace(b,'    if((threadIdx.x&31)==0)g_cyc[i/32]=clock64()-t0;if(threadIdx.x==0){int q;asm volatile("mov.u32 %0, %%smid;":"=r"(q));g_sm[blockIdx.x]=q;}\n'+b,1)
s+='''extern "C" __global__ void ub(const unsigned long long*num,int steps,int mode,long long*out,unsigned long long*sink){
int i=blockIdx.x*blockDim.x+threadIdx.x;unsigned long long N=num[i],ninv=inv64(N),one=(0ull-N)%N,cm=one,y=one+one,x=y,q=one;if(y>=N)y-=N;
long long t0=clock64();
if(mode==0){for(int k=0;k<steps;k++){y=mont_mul(y,y,N,ninv)+cm;if(y>=N)y-=N;}}
else if(mode==1){for(int k=0;k<steps;k++){y=mont_mul(y,y,N,ninv)+cm;if(y>=N)y-=N;q=mont_mul(q,x>y?x-y:y-x,N,ninv);}}
else{for(int k=0;k<steps;k++){y=mont_mul(y,y,N,ninv)+cm;if(y>=N)y-=N;q+=gcd64(y,N);}}
long long t1=clock64();if((threadIdx.x&31)==0)out[i/32]=t1-t0;sink[i]=y^q;}
'''
m=cp.RawModule(code=s,options=('--std=c++17',))
f=m.get_function('pollard_rho_brent');u=m.get_function('ub')
I=tp.get('probe/nt-pollard-rho-brent-mont').inputs(n=8192,seed=0)
num=cp.asarray(I['arg0']);n=8192
fa=cp.zeros(n,cp.uint64);it=cp.zeros(n,cp.uint32);tr=cp.zeros(n,cp.uint8)
e0,e1=cp.cuda.Event(),cp.cuda.Event();ts=[]
for r in range(6):
    e0.record();f((64,),(128,),(num,fa,it,tr,np.int32(n)));e1.record();e1.synchronize();ts.append(cp.cuda.get_elapsed_time(e0,e1))
g=lambda nm,d,c:cp.ndarray((c,),d,memptr=m.get_global(nm)).get()
cyc=g('g_cyc',cp.int64,256);sm=g('g_sm',cp.int32,64)
print('ms',ts,'max cyc',cyc.max(),'mean',cyc.mean(),'distinct sms',len(set(sm.tolist())))
R={'cyc':cyc,'sm':sm,'iters':it.get(),'tries':tr.get(),'ms':np.array(ts)}
sk=cp.zeros(n,cp.uint64)
for mode in (0,1,2):
  for st in (64,128,256):
    for W in (1,4):
      o=cp.zeros(64*W,cp.int64);u((64,),(32*W,),(num,np.int32(st),np.int32(mode),o,sk));o=o.get()
      R['ub%d_%d_%d'%(mode,st,W)]=o;print(mode,st,W,'cyc/step %.1f'%(np.median(o)/st),'max %.1f'%(o.max()/st))
np.savez(os.environ['OUT']+'/rho_gpu.npz',**R)
