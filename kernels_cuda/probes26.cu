// probe-unseen25 (session 24): kinds no probe had tried, written after the racy-store and
// L2-slice investigations (timing_investigation/racy2/, l2map/) changed nothing in the
// model: a rank-1 update of a matrix (A -= u v^T, the trailing update of an LU step), an
// in-place transpose of a square matrix (half the threads swap, the rest idle), C = A B^T
// with a thread an output (both operands walked along their rows), an argmin through
// 64-bit atomicMin of (value bits, index) pairs after a warp's shuffles, and a rational
// function P(x) / Q(x) in double (FP64 division).
// Predicted before their first GPU run.

extern "C" {

// A[i][j] -= u[i] * v[j] for an n x n row-major matrix; a thread an element
__global__ void rank1_update(float *a, const float *u, const float *v, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n)
        a[(size_t)i * n + j] -= u[i] * v[j];
}

// transpose an n x n row-major matrix in place: the thread at (i, j) above the diagonal
// swaps A[i][j] and A[j][i]; the others do nothing
__global__ void transpose_inplace(float *a, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n && j > i) {
        size_t p = (size_t)i * n + j, q = (size_t)j * n + i;
        float t = a[p];
        a[p] = a[q];
        a[q] = t;
    }
}

// C = A B^T for n x n row-major A and B: C[i][j] = sum_k A[i][k] B[j][k]
__global__ void matmul_bt(const float *a, const float *b, float *c, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        float s = 0.f;
        for (int k = 0; k < n; ++k)
            s += a[(size_t)i * n + k] * b[(size_t)j * n + k];
        c[(size_t)i * n + j] = s;
    }
}

// the smallest non-negative float and its first index: each warp finds its minimum of
// (float bits << 32 | index) with shuffles, lane 0 folds it into *best by atomicMin
__global__ void argmin_u64(const float *x, unsigned long long *best, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long key = ~0ull;
    if (i < n)
        key = ((unsigned long long)__float_as_uint(x[i]) << 32) | (unsigned)i;
    for (int o = 16; o > 0; o >>= 1) {
        unsigned long long other = __shfl_xor_sync(0xffffffffu, key, o);
        key = other < key ? other : key;
    }
    if ((threadIdx.x & 31) == 0)
        atomicMin(best, key);
}

// y = P(x) / Q(x), degree 6 over degree 6, in double
__global__ void rational_double(const double *x, double *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double t = x[i];
        double p = ((((((0.5 * t + 1.5) * t - 2.0) * t + 0.25) * t + 3.0) * t - 1.0) * t + 2.0);
        double q = ((((((0.25 * t + 0.5) * t + 1.0) * t + 0.125) * t + 2.0) * t + 0.5) * t + 4.0);
        y[i] = p / q;
    }
}

}
