import numpy as np, cupy as cp, sys
d = np.load("docs/results/atomic_sectors_probe/data.npy")
src = r'''extern "C" __global__ void w1(int *c, const int *idx) { atomicAdd(&c[idx[threadIdx.x]], 1); }'''
m = cp.RawModule(code=src)
f = m.get_function("w1")
c = cp.zeros(256, cp.int32)
W = len(d) // 32
for w in range(W):
    idx = cp.asarray(d[w * 32:(w + 1) * 32])
    f((1,), (32,), (c, idx))
cp.cuda.Device().synchronize()
print("done", W)
