// probe-unseen136: a numerical-linear-algebra course's CUDA assignments, as a student who
// knows CUDA basics hands them in:
//  - lu_pivot_batched: LU factorization with partial pivoting (LAPACK getf2 order) of many
//    small LU_N x LU_N matrices, a thread a matrix, in place in global memory (each matrix
//    row-major and contiguous, so a warp's lanes are LU_N*LU_N floats apart); the pivot
//    rows and a singularity flag written out; the row swaps data-dependent (divergent);
//  - householder_panel: Householder QR (LAPACK geqr2 conventions: R on and above the
//    diagonal, the reflectors with an implicit unit below it, tau) of tall-skinny
//    HH_M x HH_K column-major panels, a block a panel and a thread a row, the panel staged
//    in shared memory, every norm and every reflector-column dot product a shared-memory
//    tree reduction;
//  - givens_lsq: least squares by Givens rotations, a thread a small GV_M x GV_N problem
//    (A and b interleaved across the problems, element (r, c) of problem i at
//    (r*GV_N + c)*nsys + i), the rows streamed into an upper-triangular R kept in
//    registers, then back substitution; the solution and the residual norm stored;
//  - power_step: one power-iteration step y = A x for a dense n x n matrix, a warp a row
//    (lanes striding the row), a shuffle reduction, and the Rayleigh quotient's numerator
//    x.y and |y|^2 accumulated by float atomicAdd;
//  - thomas_batched: the Thomas algorithm on many tridiagonal systems of TH_N unknowns, a
//    thread a system, the diagonals interleaved (unknown k of system i at k*nsys + i), the
//    modified coefficients c', d' written to scratch arrays on the forward sweep and read
//    back on the backward one;
//  - transpose_colnorm: a blocked transpose of an n x n matrix through a padded 32 x 33
//    shared tile (32 x 8 threads, 4 rows a thread), the first warp of each block also
//    summing the squares of its tile's columns and adding them into the column norms^2
//    with atomicAdd.

#define LU_N 8          // lu_pivot_batched: the matrices' order
#define HH_M 256        // householder_panel: rows a panel (blockDim.x == HH_M)
#define HH_K 8          // householder_panel: columns a panel
#define GV_M 32         // givens_lsq: equations a problem
#define GV_N 4          // givens_lsq: unknowns a problem
#define TH_N 128        // thomas_batched: unknowns a system
#define TILE 32         // transpose_colnorm: the tile's side (blockDim.x)
#define TROWS 8         // transpose_colnorm: blockDim.y

extern "C" {

// LU with partial pivoting of nmat LU_N x LU_N matrices (row-major, contiguous), in
// place: L (unit diagonal) below, U on and above; piv[k] the row swapped with row k;
// info the first zero pivot's column + 1 (0: nonsingular)
__global__ void lu_pivot_batched(float *A, int *piv, int *info, int nmat) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= nmat) return;
    float *a = A + (size_t)id * LU_N * LU_N;
    int *p = piv + id * LU_N;
    int sing = 0;
    for (int k = 0; k < LU_N; k++) {
        // the pivot: the largest |a[i][k]| on or below the diagonal
        int pr = k;
        float pmax = fabsf(a[k * LU_N + k]);
        for (int i = k + 1; i < LU_N; i++) {
            float v = fabsf(a[i * LU_N + k]);
            if (v > pmax) {
                pmax = v;
                pr = i;
            }
        }
        p[k] = pr;
        if (pmax == 0.0f) {
            if (sing == 0) sing = k + 1;
            continue;
        }
        if (pr != k) {
            for (int j = 0; j < LU_N; j++) {
                float t = a[k * LU_N + j];
                a[k * LU_N + j] = a[pr * LU_N + j];
                a[pr * LU_N + j] = t;
            }
        }
        float inv = 1.0f / a[k * LU_N + k];
        for (int i = k + 1; i < LU_N; i++) {
            float l = a[i * LU_N + k] * inv;
            a[i * LU_N + k] = l;
            for (int j = k + 1; j < LU_N; j++) a[i * LU_N + j] -= l * a[k * LU_N + j];
        }
    }
    info[id] = sing;
}

// Householder QR of npanel HH_M x HH_K column-major panels (panel p at p*HH_M*HH_K), in
// place as LAPACK's geqr2 leaves it; tau[p*HH_K + j] the j-th reflector's scale
__global__ void householder_panel(float *A, float *tau, int npanel) {
    __shared__ float sA[HH_K][HH_M];
    __shared__ float red[HH_M];
    int p = blockIdx.x;
    int t = threadIdx.x;
    float *a = A + (size_t)p * HH_M * HH_K;
    for (int c = 0; c < HH_K; c++) sA[c][t] = a[c * HH_M + t];
    __syncthreads();
    for (int j = 0; j < HH_K; j++) {
        // the norm of column j from the diagonal down
        float x = (t >= j) ? sA[j][t] : 0.0f;
        red[t] = x * x;
        __syncthreads();
        for (int s = HH_M / 2; s > 0; s >>= 1) {
            if (t < s) red[t] += red[t + s];
            __syncthreads();
        }
        float norm = sqrtf(red[0]);
        float xj = sA[j][j];
        float alpha = (xj >= 0.0f) ? -norm : norm;
        float v0 = xj - alpha;
        float beta = (norm > 0.0f) ? 1.0f / (norm * (norm + fabsf(xj))) : 0.0f;   // 2 / v.v
        float v = (t > j) ? x : ((t == j) ? v0 : 0.0f);
        __syncthreads();
        // apply H = I - beta v v^T to the columns right of j
        for (int c = j + 1; c < HH_K; c++) {
            red[t] = v * sA[c][t];
            __syncthreads();
            for (int s = HH_M / 2; s > 0; s >>= 1) {
                if (t < s) red[t] += red[t + s];
                __syncthreads();
            }
            float w = beta * red[0];
            __syncthreads();
            if (t >= j) sA[c][t] -= w * v;
        }
        // column j: alpha on the diagonal, v / v0 below it
        if (t == j) {
            sA[j][j] = alpha;
            tau[p * HH_K + j] = beta * v0 * v0;
        } else if (t > j) {
            sA[j][t] = (v0 != 0.0f) ? x / v0 : 0.0f;
        }
        __syncthreads();
    }
    for (int c = 0; c < HH_K; c++) a[c * HH_M + t] = sA[c][t];
}

// min |A x - b| for nsys GV_M x GV_N problems by Givens rotations (A's element (r, c) of
// problem i at (r*GV_N + c)*nsys + i, b's row r at r*nsys + i); x's component j at
// j*nsys + i, the residual norm in res[i]
__global__ void givens_lsq(const float *A, const float *b, float *x, float *res, int nsys) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nsys) return;
    float R[GV_N][GV_N + 1];
    for (int j = 0; j < GV_N; j++)
        for (int k = 0; k <= GV_N; k++) R[j][k] = 0.0f;
    float rsq = 0.0f;
    for (int r = 0; r < GV_M; r++) {
        float row[GV_N + 1];
        for (int c = 0; c < GV_N; c++) row[c] = A[(r * GV_N + c) * nsys + i];
        row[GV_N] = b[r * nsys + i];
        // rotate the row into R, zeroing its entries one by one
        for (int j = 0; j < GV_N; j++) {
            if (row[j] == 0.0f) continue;
            float h = sqrtf(R[j][j] * R[j][j] + row[j] * row[j]);
            float c = R[j][j] / h;
            float s = row[j] / h;
            for (int k = j; k <= GV_N; k++) {
                float u = R[j][k];
                float w = row[k];
                R[j][k] = c * u + s * w;
                row[k] = c * w - s * u;
            }
        }
        rsq += row[GV_N] * row[GV_N];
    }
    float xs[GV_N];
    for (int j = GV_N - 1; j >= 0; j--) {
        float s = R[j][GV_N];
        for (int k = j + 1; k < GV_N; k++) s -= R[j][k] * xs[k];
        xs[j] = s / R[j][j];
    }
    for (int j = 0; j < GV_N; j++) x[j * nsys + i] = xs[j];
    res[i] = sqrtf(rsq);
}

// one power-iteration step: y = A x (A n x n row-major), a warp a row; sums[0] += x.y and
// sums[1] += y.y
__global__ void power_step(const float *A, const float *x, float *y, float *sums, int n) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= n) return;
    const float *ar = A + (size_t)row * n;
    float s = 0.0f;
    for (int j = lane; j < n; j += 32) s += ar[j] * x[j];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffff, s, off);
    if (lane == 0) {
        y[row] = s;
        atomicAdd(&sums[0], x[row] * s);
        atomicAdd(&sums[1], s * s);
    }
}

// the Thomas algorithm on nsys tridiagonal systems of TH_N unknowns (sub-, main and
// super-diagonal a, b, c, right side d; unknown k of system i at k*nsys + i); cp and dp
// the forward sweep's scratch, the solution in xo
__global__ void thomas_batched(const float *a, const float *b, const float *c, const float *d, float *cp,
                               float *dp, float *xo, int nsys) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nsys) return;
    float cprev = c[i] / b[i];
    float dprev = d[i] / b[i];
    cp[i] = cprev;
    dp[i] = dprev;
    for (int k = 1; k < TH_N; k++) {
        int idx = k * nsys + i;
        float m = 1.0f / (b[idx] - a[idx] * cprev);
        cprev = c[idx] * m;
        dprev = (d[idx] - a[idx] * dprev) * m;
        cp[idx] = cprev;
        dp[idx] = dprev;
    }
    float xv = dprev;
    xo[(TH_N - 1) * nsys + i] = xv;
    for (int k = TH_N - 2; k >= 0; k--) {
        int idx = k * nsys + i;
        xv = dp[idx] - cp[idx] * xv;
        xo[idx] = xv;
    }
}

// AT = A^T for an n x n matrix through a 32 x 33 shared tile; colsq[j] += the squares of
// column j (the tile's first warp sums each column, one atomicAdd a column a tile)
__global__ void transpose_colnorm(const float *A, float *AT, float *colsq, int n) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y0 = blockIdx.y * TILE;
    for (int j = threadIdx.y; j < TILE; j += TROWS) {
        int y = y0 + j;
        tile[j][threadIdx.x] = (x < n && y < n) ? A[(size_t)y * n + x] : 0.0f;
    }
    __syncthreads();
    if (threadIdx.y == 0 && x < n) {
        float s = 0.0f;
        for (int j = 0; j < TILE; j++) s += tile[j][threadIdx.x] * tile[j][threadIdx.x];
        atomicAdd(&colsq[x], s);
    }
    int xt = y0 + threadIdx.x;
    for (int j = threadIdx.y; j < TILE; j += TROWS) {
        int yt = blockIdx.x * TILE + j;
        if (xt < n && yt < n) AT[(size_t)yt * n + xt] = tile[threadIdx.x][j];
    }
}

}
