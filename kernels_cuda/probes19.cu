// probe-unseen18 (session 17): kernel kinds no probe had tried: a register-tiled SGEMM,
// a layout permutation with run-time integer division, a data-dependent while loop
// (Collatz), 64-bit popcount and multiply-heavy hashing, byte outputs, double atomics
// straight to global bins, 16-byte vector loads of text, and double-precision exp/log.
// Predicted before their first GPU run.

// C = A B for n x n row-major floats: 64 x 64 tiles, 16 x 16 threads, 4 x 4 outputs a
// thread, k in steps of 16 through shared memory
extern "C" __global__ void sgemm_reg4x4(const float *A, const float *B, float *C, int n) {
    __shared__ float As[16][64];
    __shared__ float Bs[16][64];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    int t = ty * 16 + tx;
    float acc[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < n; k0 += 16) {
        // 1024 elements of each tile, four a thread
        for (int r = 0; r < 4; r++) {
            int e = t + r * 256;
            int ar = e / 16, ak = e % 16;          // A tile: 64 rows x 16 k
            As[ak][ar] = A[(row0 + ar) * n + k0 + ak];
            int bk = e / 64, bc = e % 64;          // B tile: 16 k x 64 columns
            Bs[bk][bc] = B[(k0 + bk) * n + col0 + bc];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; k++) {
            float a[4], b[4];
            for (int i = 0; i < 4; i++) a[i] = As[k][ty * 4 + i];
            for (int j = 0; j < 4; j++) b[j] = Bs[k][tx * 4 + j];
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            C[(row0 + ty * 4 + i) * n + col0 + tx * 4 + j] = acc[i][j];
}

// NCHW -> NHWC, one thread an output element, the dimensions known only at run time
extern "C" __global__ void nchw_to_nhwc(const float *in, float *out, int N, int C, int H, int W) {
    int total = N * C * H * W;
    for (int o = blockIdx.x * blockDim.x + threadIdx.x; o < total; o += blockDim.x * gridDim.x) {
        int c = o % C;
        int w = (o / C) % W;
        int h = (o / (C * W)) % H;
        int b = o / (C * W * H);
        out[o] = in[((b * C + c) * H + h) * W + w];
    }
}

// steps of the Collatz map until 1, a while loop as long as the data says
extern "C" __global__ void collatz_steps(const unsigned *start, unsigned *steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = start[i];
    unsigned s = 0;
    while (x != 1) {
        x = (x & 1) ? 3 * x + 1 : x >> 1;
        s++;
    }
    steps[i] = s;
}

// Hamming distance of 64-bit codes to a query, one byte out a code
extern "C" __global__ void hamming_u64(const unsigned long long *codes, unsigned long long q,
                                       unsigned char *dist, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dist[i] = (unsigned char)__popcll(codes[i] ^ q);
}

// splitmix64 of the index: three 64-bit multiplies a thread, the high half stored
extern "C" __global__ void splitmix_fill(unsigned *out, unsigned long long seed, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned long long z = seed + (unsigned long long)(i + 1) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z = z ^ (z >> 31);
        out[i] = (unsigned)(z >> 32);
    }
}

// a weighted histogram in double, every element an atomicAdd on one of 1024 global bins
extern "C" __global__ void hist_double_direct(const int *idx, const double *w, double *bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[idx[i] & 1023], w[i]);
}

// newlines in a text, 16 bytes a thread through a uint4 load, one atomicAdd a warp
extern "C" __global__ void count_newlines_vec(const uint4 *text, unsigned *count, int nvec) {
    unsigned c = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += blockDim.x * gridDim.x) {
        uint4 v = text[i];
        unsigned w[4] = {v.x, v.y, v.z, v.w};
        for (int k = 0; k < 4; k++)
            for (int b = 0; b < 32; b += 8)
                c += ((w[k] >> b) & 0xffu) == 10u;
    }
    c = __reduce_add_sync(0xffffffffu, c);
    if ((threadIdx.x & 31) == 0) atomicAdd(count, c);
}

// softplus in double: log(1 + exp(x)), written the stable way
extern "C" __global__ void softplus_double(const double *x, double *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        y[i] = v > 0.0 ? v + log1p(exp(-v)) : log1p(exp(v));
    }
}
