// probe/softmax-rows (kernels_cuda/probes3.cu) with clock64 stamps by thread 0 after each
// phase, and variants that drop a phase: where does a block's time go at full occupancy?
extern "C" {

#define TREE(OP)                                                   \
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {                 \
        if (t < s) red[t] = OP(red[t], red[t + s]);                \
        __syncthreads();                                           \
    }
#define ADD(a, b) ((a) + (b))

// mode 0: the probe; 1: no pass 3 (no stores); 2: pass 1 only; 3: exp replaced by x - m
__global__ void softmax_trace(const float *in, float *out, int cols, long long *tr, int mode) {
    __shared__ float red[256];
    const float *row = in + blockIdx.x * cols;
    float *orow = out + blockIdx.x * cols;
    int t = threadIdx.x;
    long long c0 = clock64();
    unsigned long long g0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    float m = -3.0e38f;
    for (int c = t; c < cols; c += blockDim.x)
        m = fmaxf(m, row[c]);
    long long c1 = clock64();
    red[t] = m;
    __syncthreads();
    TREE(fmaxf)
    m = red[0];
    __syncthreads();
    long long c2 = clock64();
    float sum = 1.0f;
    if (mode != 2) {
        sum = 0.0f;
        for (int c = t; c < cols; c += blockDim.x)
            sum += mode == 3 ? row[c] - m : expf(row[c] - m);
        red[t] = sum;
        __syncthreads();
        TREE(ADD)
        sum = red[0];
    }
    long long c3 = clock64();
    if (mode == 0 || mode == 3)
        for (int c = t; c < cols; c += blockDim.x)
            orow[c] = (mode == 3 ? row[c] - m : expf(row[c] - m)) / sum;
    else if (t == 0 && sum == -1.0f)
        orow[0] = sum;
    long long c4 = clock64();
    if (t == 0) {
        long long *p = tr + blockIdx.x * 6;
        p[0] = (long long)g0; p[1] = c1 - c0; p[2] = c2 - c0; p[3] = c3 - c0; p[4] = c4 - c0;
    }
}

}  // extern "C"
