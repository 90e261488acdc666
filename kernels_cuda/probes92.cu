// probe-unseen90: a sparse iterative-solvers course's CUDA assignments, as a student who
// knows CUDA basics hands them in: the pieces of CG / BiCGSTAB and of a geometric multigrid
// cycle on the 2-D Poisson problem, written one kernel a step.
//
// - csr_vector_spmv: y = A x for a CSR matrix in the "vector" form, a warp a row: the lanes
//   stride through the row's nonzeros 32 at a time, then a __shfl_down_sync tree sums the
//   warp's partial sums and lane 0 stores y[row];
// - bicgstab_update: BiCGSTAB's fused end of an iteration, a thread an element: x += alpha
//   p + omega s, r = s - omega t, and the two dot products the next iteration needs (r0hat
//   . r and r . r) in double, summed over the block by a shared-memory tree and added into
//   dots[0], dots[1] by two double atomicAdds a block;
// - sptrsv_level: one level of a level-scheduled sparse lower-triangular solve L x = b (L in
//   CSR, each row's diagonal stored last), a thread a row of the level: the level's rows
//   come from the analysis phase's list level_rows[lev_start .. lev_end), each subtracts its
//   row's products with x of earlier levels and divides by the diagonal;
// - restrict_residual: a multigrid cycle's residual-and-restrict step, a thread a coarse
//   point: the 9 fine-grid residuals f - A u (the 5-point Laplacian over h^2) under the
//   coarse point's full-weighting stencil, each recomputed from u and f, weighted 1/16,
//   2/16, 4/16 (coarse boundary points get 0);
// - prolong_correct: the cycle's correction, a thread a fine point: the coarse error
//   interpolated bilinearly (a fine point on a coarse point copies it, one between two
//   averages them, one in a cell's middle averages four: a branch on the parities of i and
//   j) and added to u in place, the boundary left alone;
// - wjacobi_kl: a weighted-Jacobi sweep for -div(k grad u) = f on a 2-D grid (Darcy flow in
//   a random medium): a 16 x 16 block stages its tile of u and a one-point halo in shared
//   memory; the coefficient k = exp(sum_m a_m sin(p_m x) sin(q_m y)), a truncated
//   Karhunen-Loeve expansion with its KL_M modes in __constant__ memory, is evaluated at the
//   point's four face midpoints on the fly (no stored coefficient array).

#define WARP_SIZE 32
#define DOT_BLOCK 256         // bicgstab_update: blockDim.x == DOT_BLOCK
#define TILE 16               // wjacobi_kl: blockDim == (TILE, TILE)
#define KL_M 8                // wjacobi_kl: the KL expansion's modes

// wjacobi_kl's KL modes (set by the host): amplitudes and the x and y wavenumbers
__constant__ float c_kl_a[KL_M];
__constant__ float c_kl_p[KL_M];
__constant__ float c_kl_q[KL_M];

extern "C" {

// y = A x, a warp a row (blockDim.x a multiple of 32)
__global__ void csr_vector_spmv(const int *row_ptr, const int *col, const float *val, const float *x, float *y,
                                int nrows) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int row = tid / WARP_SIZE;
    int lane = threadIdx.x % WARP_SIZE;
    if (row >= nrows) return;          // the whole warp leaves together
    int start = row_ptr[row];
    int end = row_ptr[row + 1];
    float sum = 0.0f;
    for (int k = start + lane; k < end; k += WARP_SIZE) sum += val[k] * x[col[k]];
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffff, sum, offset);
    if (lane == 0) y[row] = sum;
}

// x += alpha p + omega s; r = s - omega t; dots[0] += r0 . r, dots[1] += r . r (double)
__global__ void bicgstab_update(float *x, float *r, const float *p, const float *s, const float *t, const float *r0,
                                float alpha, float omega, double *dots, int n) {
    __shared__ double s_rho[DOT_BLOCK];
    __shared__ double s_rr[DOT_BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    double rho = 0.0;
    double rr = 0.0;
    if (i < n) {
        float si = s[i];
        x[i] = x[i] + alpha * p[i] + omega * si;
        float ri = si - omega * t[i];
        r[i] = ri;
        rho = (double)r0[i] * (double)ri;
        rr = (double)ri * (double)ri;
    }
    s_rho[tid] = rho;
    s_rr[tid] = rr;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s_rho[tid] += s_rho[tid + stride];
            s_rr[tid] += s_rr[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        atomicAdd(&dots[0], s_rho[0]);
        atomicAdd(&dots[1], s_rr[0]);
    }
}

// the rows level_rows[lev_start .. lev_end) of L x = b, every row they depend on solved
__global__ void sptrsv_level(const int *row_ptr, const int *col, const float *val, const int *level_rows,
                             const float *b, float *x, int lev_start, int lev_end) {
    int k = lev_start + blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= lev_end) return;
    int row = level_rows[k];
    int start = row_ptr[row];
    int diag = row_ptr[row + 1] - 1;   // the diagonal is the row's last entry
    float sum = b[row];
    for (int j = start; j < diag; j++) sum -= val[j] * x[col[j]];
    x[row] = sum / val[diag];
}

// the residual f - A u at fine point (i, j) of an nf x nf grid (0 on the boundary)
__device__ float fine_residual(const float *u, const float *f, int i, int j, int nf, float inv_h2) {
    if (i <= 0 || j <= 0 || i >= nf - 1 || j >= nf - 1) return 0.0f;
    int k = i * nf + j;
    return f[k] - (4.0f * u[k] - u[k - 1] - u[k + 1] - u[k - nf] - u[k + nf]) * inv_h2;
}

// rc = full weighting of the fine residual, nf = 2 nc - 1, a thread a coarse point
__global__ void restrict_residual(const float *u, const float *f, float *rc, int nf, int nc, float inv_h2) {
    int J = blockIdx.x * blockDim.x + threadIdx.x;
    int I = blockIdx.y * blockDim.y + threadIdx.y;
    if (I >= nc || J >= nc) return;
    float v = 0.0f;
    if (I > 0 && J > 0 && I < nc - 1 && J < nc - 1) {
        int i = 2 * I;
        int j = 2 * J;
        float centre = fine_residual(u, f, i, j, nf, inv_h2);
        float edges = fine_residual(u, f, i - 1, j, nf, inv_h2) + fine_residual(u, f, i + 1, j, nf, inv_h2) +
                      fine_residual(u, f, i, j - 1, nf, inv_h2) + fine_residual(u, f, i, j + 1, nf, inv_h2);
        float corners = fine_residual(u, f, i - 1, j - 1, nf, inv_h2) + fine_residual(u, f, i - 1, j + 1, nf, inv_h2) +
                        fine_residual(u, f, i + 1, j - 1, nf, inv_h2) + fine_residual(u, f, i + 1, j + 1, nf, inv_h2);
        v = 0.0625f * (4.0f * centre + 2.0f * edges + corners);
    }
    rc[I * nc + J] = v;
}

// u += P ec (bilinear interpolation of the coarse error), nf = 2 nc - 1, a thread a fine point
__global__ void prolong_correct(float *u, const float *ec, int nf, int nc) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i <= 0 || j <= 0 || i >= nf - 1 || j >= nf - 1) return;   // the boundary stays
    int I = i / 2;
    int J = j / 2;
    int c = I * nc + J;
    float e;
    if (i % 2 == 0 && j % 2 == 0) {
        e = ec[c];
    } else if (i % 2 == 0) {
        e = 0.5f * (ec[c] + ec[c + 1]);
    } else if (j % 2 == 0) {
        e = 0.5f * (ec[c] + ec[c + nc]);
    } else {
        e = 0.25f * (ec[c] + ec[c + 1] + ec[c + nc] + ec[c + nc + 1]);
    }
    u[i * nf + j] += e;
}

// the diffusion coefficient at (x, y): exp of the KL expansion
__device__ float kappa(float x, float y) {
    float s = 0.0f;
    for (int m = 0; m < KL_M; m++) s += c_kl_a[m] * sinf(c_kl_p[m] * x) * sinf(c_kl_q[m] * y);
    return expf(s);
}

// one weighted-Jacobi sweep u_new = (1 - omega) u + omega D^-1 (h^2 f + the neighbours'
// k-weighted u) on an n x n grid of spacing h, boundary values kept
__global__ void wjacobi_kl(const float *u, const float *f, float *u_new, float omega, float h, int n) {
    __shared__ float tile[TILE + 2][TILE + 2];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int j = blockIdx.x * TILE + tx;
    int i = blockIdx.y * TILE + ty;
    bool inside = i < n && j < n;
    tile[ty + 1][tx + 1] = inside ? u[i * n + j] : 0.0f;
    if (tx == 0) tile[ty + 1][0] = (inside && j > 0) ? u[i * n + j - 1] : 0.0f;
    if (tx == TILE - 1) tile[ty + 1][TILE + 1] = (i < n && j + 1 < n) ? u[i * n + j + 1] : 0.0f;
    if (ty == 0) tile[0][tx + 1] = (inside && i > 0) ? u[(i - 1) * n + j] : 0.0f;
    if (ty == TILE - 1) tile[TILE + 1][tx + 1] = (j < n && i + 1 < n) ? u[(i + 1) * n + j] : 0.0f;
    __syncthreads();
    if (!inside) return;
    float uc = tile[ty + 1][tx + 1];
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
        u_new[i * n + j] = uc;
        return;
    }
    float x = j * h;
    float y = i * h;
    float kw = kappa(x - 0.5f * h, y);
    float ke = kappa(x + 0.5f * h, y);
    float ks = kappa(x, y - 0.5f * h);
    float kn = kappa(x, y + 0.5f * h);
    float nb = kw * tile[ty + 1][tx] + ke * tile[ty + 1][tx + 2] + ks * tile[ty][tx + 1] + kn * tile[ty + 2][tx + 1];
    float uj = (h * h * f[i * n + j] + nb) / (kw + ke + ks + kn);
    u_new[i * n + j] = (1.0f - omega) * uc + omega * uj;
}

}
