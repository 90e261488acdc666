// Kernels added late in session 6 to test the timing model on more code it was not built
// against (family probe-unseen4): a 2D stencil through a shared tile with a halo, a warp
// scan by shuffles, a double-precision axpy, float atomics spread over 1024 addresses,
// a row sum with one thread per row (uncoalesced), and an ELLPACK sparse matrix-vector
// product.
extern "C" {

#define ST 16
// out = 5-point Laplacian of in (w x h floats, edges clamped), tiles of 16 x 16 staged
// in shared memory with a one-element halo
__global__ void stencil2d_shared(const float *in, float *out, int w, int h) {
    __shared__ float t[ST + 2][ST + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * ST + tx, y = blockIdx.y * ST + ty;
    int cx = min(x, w - 1), cy = min(y, h - 1);
    t[ty + 1][tx + 1] = in[cy * w + cx];
    if (tx == 0) t[ty + 1][0] = in[cy * w + max(cx - 1, 0)];
    if (tx == ST - 1) t[ty + 1][ST + 1] = in[cy * w + min(cx + 1, w - 1)];
    if (ty == 0) t[0][tx + 1] = in[max(cy - 1, 0) * w + cx];
    if (ty == ST - 1) t[ST + 1][tx + 1] = in[min(cy + 1, h - 1) * w + cx];
    __syncthreads();
    if (x < w && y < h)
        out[y * w + x] = t[ty][tx + 1] + t[ty + 2][tx + 1] + t[ty + 1][tx] + t[ty + 1][tx + 2]
                         - 4.0f * t[ty + 1][tx + 1];
}

// inclusive scan of each warp's 32 ints by __shfl_up_sync
__global__ void warp_scan(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = i < n ? in[i] : 0;
    for (int off = 1; off < 32; off <<= 1) {
        int u = __shfl_up_sync(0xffffffffu, v, off);
        if (lane >= off)
            v += u;
    }
    if (i < n)
        out[i] = v;
}

// y = a x + y in double precision
__global__ void daxpy(double a, const double *x, double *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

// sums[i % 1024] += in[i]: float atomics spread over 1024 addresses
__global__ void atomic_spread_f32(const float *in, float *sums, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&sums[i & 1023], in[i]);
}

// the sum of each row of a rows x cols matrix, one thread per row: a warp's lanes read
// 32 different rows at once
__global__ void row_sum_naive(const float *m, float *out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float s = 0.0f;
        for (int c = 0; c < cols; c++)
            s += m[r * cols + c];
        out[r] = s;
    }
}

// y = A x for A in ELLPACK form: k entries per row stored column-major (entry j of row r
// at j * rows + r), so consecutive threads read consecutive words
__global__ void spmv_ell(const int *cols, const float *vals, const float *x, float *y,
                         int rows, int k) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float s = 0.0f;
        for (int j = 0; j < k; j++)
            s += vals[j * rows + r] * x[cols[j * rows + r]];
        y[r] = s;
    }
}

}  // extern "C"
