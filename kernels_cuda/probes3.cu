// Kernels added in session 6, after the timing model's last change, to test it on code it
// was not built against (kernels_cuda/timing_probes.py, family probe-unseen2): a row
// softmax, a matrix-vector product with a warp per row, a 5x5 convolution, a maximum by
// warp shuffles and one atomicMax per warp, a bitonic-sort step and an RGB-to-grey
// conversion of bytes.
extern "C" {

// softmax of each row of a rows x cols matrix, one block of 256 threads per row: a
// shared-memory tree for the row's maximum, another for the sum of the exponentials
__global__ void softmax_rows(const float *in, float *out, int cols) {
    __shared__ float red[256];
    const float *row = in + blockIdx.x * cols;
    float *orow = out + blockIdx.x * cols;
    int t = threadIdx.x;
    float m = -3.0e38f;
    for (int c = t; c < cols; c += blockDim.x)
        m = fmaxf(m, row[c]);
    red[t] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] = fmaxf(red[t], red[t + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int c = t; c < cols; c += blockDim.x)
        sum += expf(row[c] - m);
    red[t] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        __syncthreads();
    }
    sum = red[0];
    for (int c = t; c < cols; c += blockDim.x)
        orow[c] = expf(row[c] - m) / sum;
}

// y = A x for an n x n row-major A: one warp per row, lanes stride over the columns and
// the partial sums meet by __shfl_down_sync
__global__ void gemv_warp(const float *A, const float *x, float *y, int n) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    if (row < n) {
        float s = 0.0f;
        for (int c = lane; c < n; c += 32)
            s += A[row * n + c] * x[c];
        for (int off = 16; off > 0; off >>= 1)
            s += __shfl_down_sync(0xffffffffu, s, off);
        if (lane == 0)
            y[row] = s;
    }
}

// out = in convolved with a 5 x 5 filter w (edges clamped), w x h floats
__global__ void conv5x5(const float *in, const float *w, float *out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        float s = 0.0f;
        for (int dy = -2; dy <= 2; dy++) {
            int yy = min(max(y + dy, 0), height - 1);
            for (int dx = -2; dx <= 2; dx++) {
                int xx = min(max(x + dx, 0), width - 1);
                s += w[(dy + 2) * 5 + dx + 2] * in[yy * width + xx];
            }
        }
        out[y * width + x] = s;
    }
}

// the maximum of n ints: a warp's maximum by __shfl_xor_sync, then one atomicMax per warp
// on one word
__global__ void warp_max(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : -2147483647;
    for (int off = 16; off > 0; off >>= 1)
        v = max(v, __shfl_xor_sync(0xffffffffu, v, off));
    if ((threadIdx.x & 31) == 0)
        atomicMax(out, v);
}

// one compare-and-swap step of a bitonic sort of a[0..n): stage k, distance j
__global__ void bitonic_step(int *a, int j, int k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int p = i ^ j;
    if (i < n && p > i) {
        int x = a[i];
        int y = a[p];
        bool up = (i & k) == 0;
        if ((x > y) == up) {
            a[i] = y;
            a[p] = x;
        }
    }
}

// grey = 0.299 r + 0.587 g + 0.114 b for n pixels of 3 interleaved bytes
__global__ void rgb_to_grey(const unsigned char *rgb, unsigned char *grey, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float r = rgb[3 * i];
        float g = rgb[3 * i + 1];
        float b = rgb[3 * i + 2];
        grey[i] = (unsigned char)(0.299f * r + 0.587f * g + 0.114f * b);
    }
}

}  // extern "C"
