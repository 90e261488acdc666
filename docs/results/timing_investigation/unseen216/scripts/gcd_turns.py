import sys, numpy as np
sys.path.insert(0, '/work/main')
from kernels_cuda import timing_probes as tp
M = (1 << 64) - 1
num = [int(v) for v in tp.get('probe/nt-pollard-rho-brent-mont').inputs(n=8192, seed=0)['arg0']]
def inv64(n):
    x = n
    for _ in range(5): x = (x * ((2 - n * x) & M)) & M
    return x
def mont(a, b, n, ninv):
    p = a * b; lo = p & M; hi = p >> 64
    m = (lo * ninv) & M; mh = (m * n) >> 64
    t = (hi - mh) & M
    if hi < mh: t = (t + n) & M
    return t
def gturns(a, b):
    if a == 0 or b == 0: return 0
    a >>= (a & -a).bit_length() - 1
    k = 0
    while b:
        b >>= (b & -b).bit_length() - 1
        if a > b: a, b = b, a
        b -= a; k += 1
    return k
steps = 64
T = np.zeros((8192, steps), np.int32)
for i, N in enumerate(num):
    ninv = inv64(N); one = ((1 << 64) - N) % N; cm = one
    y = one + one
    if y >= N: y -= N
    for k in range(steps):
        y = (mont(y, y, N, ninv) + cm) & M
        if y >= N: y -= N
        T[i, k] = gturns(y, N)
np.save('/tmp/u216_scratch/gcd_turns64.npy', T)
w = T.reshape(256, 32, steps).max(1).sum(1)
print('mean lane turns', T.mean(), 'warp-max turns per call', w.mean() / steps)
