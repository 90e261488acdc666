// L1 hit throughput of gathers: every warp re-reads a 16 KiB table that stays in L1, lane l
// at its own offset off[l] (bytes) plus a whole-line shift by warp and trip, active lanes
// l < active.
extern "C" {

__global__ void gather_f(const float *table, const int *off, float *out, int reps, int active) {
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int o = off[lane] >> 2;
    float s = 0.0f;
    if (lane < active)
        for (int r = 0; r < reps; r++) s += table[(o + 32 * w + 32 * (r & 7)) & 4095];
    if (s == -1.0f) out[blockIdx.x] = s;
}

__global__ void gather_b(const unsigned char *table, const int *off, float *out, int reps, int active) {
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int o = off[lane];
    unsigned s = 0u;
    if (lane < active)
        for (int r = 0; r < reps; r++) s += table[(o + 128 * w + 128 * (r & 7)) & 16383];
    if (s == 0xffffffffu) out[blockIdx.x] = (float)s;
}

}
