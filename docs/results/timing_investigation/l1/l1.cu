// L1 hit throughput: every warp re-reads a 16 KiB table that stays in L1.  Lane l of
// warp w reads word (l * spread + w + (r & 7)) % 4096 on trip r, so a request touches
// min(32, 32 * spread / 32) lines: 1 line for spread 1 ... 32 lines for spread 32.
extern "C" __global__ void l1_lines(const float *table, float *out, int reps, int spread) {
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    float s = 0.0f;
    for (int r = 0; r < reps; r++)
        s += table[(lane * spread + w + (r & 7)) & 4095];
    if (s == -1.0f) out[blockIdx.x] = s;
}
