// Kernels added after the timing model's DRAM-latency and queueing changes, to test it on
// code it was not built against (kernels_cuda/timing_probes.py, family probe-unseen):
// dense matrix products, a saxpy, a grid-stride vector add, a block sum with one atomic
// per block and a 3x3 box filter.
extern "C" {

// C = A B, n x n floats, one thread per element of C
__global__ void matmul_naive(const float *A, const float *B, float *C, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float s = 0.0f;
        for (int k = 0; k < n; k++)
            s += A[row * n + k] * B[k * n + col];
        C[row * n + col] = s;
    }
}

#define MT 16
// the same with 16 x 16 tiles of A and B in shared memory (n a multiple of 16)
__global__ void matmul_tiled(const float *A, const float *B, float *C, int n) {
    __shared__ float As[MT][MT];
    __shared__ float Bs[MT][MT];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * MT + ty, col = blockIdx.x * MT + tx;
    float s = 0.0f;
    for (int t = 0; t < n / MT; t++) {
        As[ty][tx] = A[row * n + t * MT + tx];
        Bs[ty][tx] = B[(t * MT + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < MT; k++)
            s += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = s;
}

__global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

// a grid-stride loop over n elements with a fixed grid
__global__ void vecadd_gridstride(const float *a, const float *b, float *c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        c[i] = a[i] + b[i];
}

// the sum of n floats: a shared-memory tree per block of 256, one atomicAdd per block
__global__ void block_sum(const float *in, float *out, int n) {
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int p = blockDim.x / 2; p > 0; p >>= 1) {
        if (t < p)
            s[t] += s[t + p];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, s[0]);
}

// out = the mean of each pixel's 3 x 3 neighbourhood (edges clamped), w x h floats
__global__ void box3x3(const float *in, float *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        float s = 0.0f;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int xx = min(max(x + dx, 0), w - 1);
                int yy = min(max(y + dy, 0), h - 1);
                s += in[yy * w + xx];
            }
        out[y * w + x] = s / 9.0f;
    }
}

}  // extern "C"
