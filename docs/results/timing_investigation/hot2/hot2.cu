// Two hot counters (session 48): line-limit-check-divergent and clock-age-sweep-ballot
// (unseen105/, unseen112/) each add to two int counters, one warp-aggregated atomicAdd a
// warp per counter, and took about the two chains' sum, where simt takes the busier.
// off: the second counter's distance in ints; mode 0: one counter; 1: every warp adds to
// both; 2: even warps to the first, odd to the second; 3: as 1, the returned values used.
extern "C" __global__ void hot2(int *c, int *out, int off, int mode, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int w = i >> 5;
    int r = 0;
    if (mode == 0) {
        atomicAdd(&c[0], 1);
    } else if (mode == 1) {
        atomicAdd(&c[0], 1);
        atomicAdd(&c[off], 1);
    } else if (mode == 2) {
        atomicAdd(&c[(w & 1) ? off : 0], 1);
    } else {
        r = atomicAdd(&c[0], 1);
        r += atomicAdd(&c[off], 1);
    }
    if (r == -1) out[i] = r;
}
