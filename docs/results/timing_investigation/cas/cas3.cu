// Which pattern feature makes 64 words in lane order retry more than hashed words in a
// steady state?  CAS-add loops on 64 words, attempts counted, four patterns:
//   0 lane order       32 distinct words of one line per warp
//   1 hashed           ~25 distinct words over both lines, lanes of a warp collide
//   2 spread distinct  32 distinct words over both lines (lane * odd + offset)
//   3 hashed one line  words of one line per warp, lanes of a warp collide
extern "C" __global__ void k_cas_pat(int *slots, int mode, int n, unsigned long long *attempts) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31, w = i >> 5;
    unsigned h = i * 2654435761u; h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
    unsigned hw = w * 2654435761u; hw ^= hw >> 15; hw *= 2246822519u; hw ^= hw >> 13;
    unsigned s;
    if (mode == 0) s = i & 63;
    else if (mode == 1) s = h & 63;
    else if (mode == 2) s = (lane * ((hw & 30) | 1) + (hw >> 8)) & 63;
    else s = (h & 31) | ((w & 1) << 5);
    unsigned a = 0;
    if (i < (unsigned)n) {
        int *addr = &slots[s];
        int old = *addr, assumed;
        do {
            assumed = old;
            old = atomicCAS(addr, assumed, assumed + 1);
            ++a;
        } while (old != assumed);
    }
    for (int o = 16; o; o >>= 1) a += __shfl_down_sync(0xffffffffu, a, o);
    if (lane == 0) atomicAdd(&attempts[blockIdx.x & 1023], (unsigned long long)a);
}
