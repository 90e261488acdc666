// probe-unseen87: a dense numerical-linear-algebra course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//   lu_schur_update       one step of right-looking LU without pivoting, in double: the
//                         rank-1 Schur-complement update A22 -= l u^T of the trailing
//                         submatrix after pivot k (the pivot column already scaled into
//                         the multipliers l by an earlier kernel), a thread an element of
//                         the trailing block, 32 x 8 threads a block;
//   householder_apply     a Householder reflector H = I - tau v v^T (from step k of a QR
//                         factorization: v zero above row k) applied to a block of columns
//                         of a column-major matrix, a block a column: w = v^T a_j by a
//                         shared-memory tree reduction, then a_j -= tau w v;
//   chol_tile32           the diagonal-block kernel of a tiled Cholesky factorization (or
//                         a block-Jacobi preconditioner's setup): many independent 32 x 32
//                         SPD tiles, a block of 32 x 32 threads a tile, the tile factored
//                         in place in shared memory (right-looking, a column a step: the
//                         square root, the column scaled, the trailing update, a barrier
//                         after each), the lower factor stored with zeros above;
//   jacobi_rotate_cols    a round of the parallel (round-robin ordered) cyclic Jacobi
//                         eigenvalue method: n/2 disjoint column pairs (p, q) rotated at
//                         once, A <- A J (the half of J^T A J that also updates the
//                         eigenvectors), each thread an element pair of a row; the pair's
//                         a_pp, a_qq, a_pq were gathered by an earlier kernel, each thread
//                         computes the rotation itself, and pairs already below the
//                         threshold are skipped;
//   mgs_project_atomic    the projections of modified Gram-Schmidt step k: r_kj = q_k^T a_j
//                         for every later column j of a tall row-major matrix, 32 x 8
//                         threads a block over 32 columns and MGS_ROWS rows, each column's
//                         partial sums added in shared memory, then one atomicAdd a column
//                         a block;
//   inv8_gauss_jordan     batched inverses of 8 x 8 matrices by Gauss-Jordan elimination
//                         with partial pivoting, a thread a matrix (row-major, 64 floats
//                         apart), the augmented [A | I] in a per-thread 8 x 16 array, a
//                         zero pivot reported in info[] as LAPACK's 1-based column.

#define LU_BX 32              // lu_schur_update: blockDim (LU_BX, LU_BY)
#define LU_BY 8
#define HH_BLOCK 256          // householder_apply: threads a block (a power of two)
#define CH_T 32               // chol_tile32: the tile's side (blockDim (CH_T, CH_T))
#define MGS_BX 32             // mgs_project_atomic: blockDim (MGS_BX, MGS_BY)
#define MGS_BY 8
#define MGS_ROWS 32           // mgs_project_atomic: rows a block
#define INV_N 8               // inv8_gauss_jordan: the matrices' order

extern "C" {

// A (n x n, row-major, double) after k steps of LU: A[i][k] (i > k) holds the multiplier
// l_i, row k the pivot row; A[i][j] -= l_i * A[k][j] for k < i, j < n
__global__ void lu_schur_update(double *A, int n, int k) {
    int j = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    int i = k + 1 + blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        double l = A[(size_t)i * n + k];
        double u = A[(size_t)k * n + j];
        A[(size_t)i * n + j] -= l * u;
    }
}

// H = I - tau v v^T applied to the ncols columns of A (column-major, m rows, lda = m),
// only rows k .. m - 1 (v[i] = 0 above k), a block a column: w = v^T a_j, a_j -= tau w v
__global__ void householder_apply(float *A, const float *v, float tau, int m, int ncols, int k) {
    __shared__ float red[HH_BLOCK];
    int j = blockIdx.x;
    if (j >= ncols) return;
    float *col = A + (size_t)j * m;
    float sum = 0.0f;
    for (int i = k + threadIdx.x; i < m; i += blockDim.x) sum += v[i] * col[i];
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    float w = tau * red[0];
    for (int i = k + threadIdx.x; i < m; i += blockDim.x) col[i] -= w * v[i];
}

// the Cholesky factor L (A = L L^T) of each of ntiles SPD CH_T x CH_T tiles (row-major,
// CH_T * CH_T floats apart), in place, a block a tile; the upper triangle zeroed
__global__ void chol_tile32(float *T, int ntiles) {
    __shared__ float s[CH_T][CH_T];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    if (blockIdx.x >= ntiles) return;
    float *tile = T + (size_t)blockIdx.x * CH_T * CH_T;
    s[ty][tx] = tile[ty * CH_T + tx];
    __syncthreads();
    for (int k = 0; k < CH_T; k++) {
        if (tx == k && ty == k) s[k][k] = sqrtf(s[k][k]);
        __syncthreads();
        if (tx == k && ty > k) s[ty][k] = s[ty][k] / s[k][k];
        __syncthreads();
        if (tx > k && ty >= tx) s[ty][tx] -= s[ty][k] * s[tx][k];
        __syncthreads();
    }
    tile[ty * CH_T + tx] = (ty >= tx) ? s[ty][tx] : 0.0f;
}

// A <- A J for the n/2 disjoint rotations of one round (pair k: columns top[k] < bot[k],
// with app[k] = A[p][p], aqq[k] = A[q][q], apq[k] = A[p][q] before the round); a pair with
// |a_pq| <= tol sqrt(|a_pp a_qq|) is left alone; blockIdx.y the row
__global__ void jacobi_rotate_cols(float *A, const int *top, const int *bot, const float *app, const float *aqq,
                                   const float *apq, float tol, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y;
    if (k >= n / 2) return;
    float g = apq[k];
    float a = app[k];
    float d = aqq[k];
    if (fabsf(g) <= tol * sqrtf(fabsf(a * d))) return;        // already converged: no rotation
    float theta = (d - a) / (2.0f * g);
    float t = (theta >= 0.0f ? 1.0f : -1.0f) / (fabsf(theta) + sqrtf(theta * theta + 1.0f));
    float c = 1.0f / sqrtf(t * t + 1.0f);
    float s = t * c;
    int p = top[k];
    int q = bot[k];
    float aip = A[i * n + p];
    float aiq = A[i * n + q];
    A[i * n + p] = c * aip - s * aiq;
    A[i * n + q] = s * aip + c * aiq;
}

// r[j] += sum over the block's rows i of q[i] A[i][j], for k < j < ncols (A m x ncols,
// row-major; r zeroed by the host); blockIdx.x picks 32 columns, blockIdx.y MGS_ROWS rows
__global__ void mgs_project_atomic(const float *A, const float *q, float *r, int m, int ncols, int k) {
    __shared__ float part[MGS_BY][MGS_BX];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int j = k + 1 + blockIdx.x * MGS_BX + tx;
    int row0 = blockIdx.y * MGS_ROWS;
    float sum = 0.0f;
    if (j < ncols) {
        for (int i = row0 + ty; i < row0 + MGS_ROWS && i < m; i += MGS_BY) sum += q[i] * A[(size_t)i * ncols + j];
    }
    part[ty][tx] = sum;
    __syncthreads();
    if (ty == 0 && j < ncols) {
        float t = 0.0f;
        for (int y = 0; y < MGS_BY; y++) t += part[y][tx];
        atomicAdd(&r[j], t);
    }
}

// Ainv = A^-1 for n 8 x 8 matrices (row-major, 64 floats apart) by Gauss-Jordan with
// partial pivoting, a thread a matrix; info[b] = 0, or the 1-based column of a zero pivot
// (the inverse then left unwritten)
__global__ void inv8_gauss_jordan(const float *A, float *Ainv, int *info, int n) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= n) return;
    float a[INV_N][2 * INV_N];
    for (int r = 0; r < INV_N; r++) {
        for (int c = 0; c < INV_N; c++) {
            a[r][c] = A[b * INV_N * INV_N + r * INV_N + c];
            a[r][INV_N + c] = (r == c) ? 1.0f : 0.0f;
        }
    }
    int flag = 0;
    for (int k = 0; k < INV_N; k++) {
        int p = k;
        float big = fabsf(a[k][k]);
        for (int r = k + 1; r < INV_N; r++) {
            if (fabsf(a[r][k]) > big) {
                big = fabsf(a[r][k]);
                p = r;
            }
        }
        if (big == 0.0f) {
            flag = k + 1;
            break;
        }
        if (p != k) {
            for (int c = 0; c < 2 * INV_N; c++) {
                float tmp = a[k][c];
                a[k][c] = a[p][c];
                a[p][c] = tmp;
            }
        }
        float inv = 1.0f / a[k][k];
        for (int c = 0; c < 2 * INV_N; c++) a[k][c] *= inv;
        for (int r = 0; r < INV_N; r++) {
            if (r != k) {
                float f = a[r][k];
                for (int c = 0; c < 2 * INV_N; c++) a[r][c] -= f * a[k][c];
            }
        }
    }
    info[b] = flag;
    if (flag == 0) {
        for (int r = 0; r < INV_N; r++)
            for (int c = 0; c < INV_N; c++) Ainv[b * INV_N * INV_N + r * INV_N + c] = a[r][INV_N + c];
    }
}

}
