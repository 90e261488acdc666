// probe-unseen97: a multigrid / numerical-PDE solvers course's CUDA assignments, as a
// student who knows CUDA basics hands them in. The grids are vertex-centred with
// Dirichlet boundaries, row-major with x fastest (3-D: index (k * n + j) * n + i):
//   vc7_residual   the residual r = f - A u of the variable-coefficient 7-point operator
//                  -div(a grad u) on an n^3 grid, a thread a point (3-D blocks), the face
//                  coefficients harmonic means of the two points' a (a division each);
//   rbgs3d_sweep   one colour's half-sweep of red-black SOR for the 7-point Poisson
//                  problem on an n^3 grid, in place, a thread a point of the whole grid
//                  (8 x 8 x 8 blocks): the other colour's threads and the boundary return;
//   fw_restrict27  full-weighting restriction of a fine 3-D residual ((2 nc - 1)^3) to the
//                  coarse grid (nc^3), a thread a coarse point summing the 27 fine points
//                  around it (stride 2) with weights (2 - |di|)(2 - |dj|)(2 - |dk|) / 64;
//   yline_jacobi   weighted line-Jacobi for an anisotropic 3-D problem (strong coupling in
//                  y), a thread a y-line solved exactly by the Thomas algorithm with the
//                  elimination's coefficients in per-thread arrays (local memory);
//   resnorm2d      the coarse grid's residual norms (5-point Poisson, 2-D): sum r^2 in
//                  double and max |r|, a 16 x 16 block's by a shared-memory tree, then a
//                  double atomicAdd and an int atomicMax on the float's bits a block;
//   coarsest_rbgs  the coarsest-grid solve: many red-black Gauss-Seidel sweeps of a small
//                  2-D grid by one block, u and f staged in shared memory, a
//                  __syncthreads after each colour.

#define YL_NY 256             // yline_jacobi: the longest line (the local arrays' length), n <= YL_NY
#define CG_N 65               // coarsest_rbgs: the largest coarsest grid a side, n <= CG_N
#define NORM_BLOCK 256        // resnorm2d: blockDim.x * blockDim.y

extern "C" {

// the coefficient on the face between two points: the harmonic mean of theirs
__device__ float face_coef(float a, float b) {
    return 2.0f * a * b / (a + b);
}

// r = f - A u for -div(a grad u) = f on an n^3 grid (spacing h, inv_h2 = 1 / h^2): A u at
// an interior point the sum over its 6 neighbours of face_coef(a_c, a_nb) (u_c - u_nb)
// times inv_h2; r = 0 on the boundary
__global__ void vc7_residual(const float *u, const float *a, const float *f, float *r, float inv_h2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= n || j >= n || k >= n) return;
    int c = (k * n + j) * n + i;
    if (i == 0 || j == 0 || k == 0 || i == n - 1 || j == n - 1 || k == n - 1) {
        r[c] = 0.0f;
        return;
    }
    int nn = n * n;
    float uc = u[c];
    float ac = a[c];
    float s = face_coef(ac, a[c - 1]) * (uc - u[c - 1])
            + face_coef(ac, a[c + 1]) * (uc - u[c + 1])
            + face_coef(ac, a[c - n]) * (uc - u[c - n])
            + face_coef(ac, a[c + n]) * (uc - u[c + n])
            + face_coef(ac, a[c - nn]) * (uc - u[c - nn])
            + face_coef(ac, a[c + nn]) * (uc - u[c + nn]);
    r[c] = f[c] - inv_h2 * s;
}

// one half-sweep of red-black SOR for -lap u = f on an n^3 grid (h2 = h^2), in place: the
// interior points with (i + j + k) % 2 == color get u = (1 - omega) u + omega (h2 f + the
// sum of the 6 neighbours) / 6 (the neighbours are all of the other colour)
__global__ void rbgs3d_sweep(float *u, const float *f, float h2, float omega, int color, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i < 1 || j < 1 || k < 1 || i >= n - 1 || j >= n - 1 || k >= n - 1) return;
    if ((i + j + k) % 2 != color) return;
    int c = (k * n + j) * n + i;
    int nn = n * n;
    float nb = u[c - 1] + u[c + 1] + u[c - n] + u[c + n] + u[c - nn] + u[c + nn];
    float gs = (h2 * f[c] + nb) / 6.0f;
    u[c] = (1.0f - omega) * u[c] + omega * gs;
}

// full-weighting restriction of the fine residual rf (nf = 2 nc - 1 points a side) to rc
// (nc a side): coarse (I, J, K) sits on fine (2I, 2J, 2K) and takes the 27 fine points
// around it weighted (2 - |di|)(2 - |dj|)(2 - |dk|) / 64; the coarse boundary 0
__global__ void fw_restrict27(const float *rf, float *rc, int nc) {
    int I = blockIdx.x * blockDim.x + threadIdx.x;
    int J = blockIdx.y * blockDim.y + threadIdx.y;
    int K = blockIdx.z * blockDim.z + threadIdx.z;
    if (I >= nc || J >= nc || K >= nc) return;
    int c = (K * nc + J) * nc + I;
    if (I == 0 || J == 0 || K == 0 || I == nc - 1 || J == nc - 1 || K == nc - 1) {
        rc[c] = 0.0f;
        return;
    }
    int nf = 2 * nc - 1;
    float s = 0.0f;
    for (int dk = -1; dk <= 1; dk++) {
        for (int dj = -1; dj <= 1; dj++) {
            for (int di = -1; di <= 1; di++) {
                float w = (2 - abs(di)) * (2 - abs(dj)) * (2 - abs(dk));
                s += w * rf[((2 * K + dk) * nf + 2 * J + dj) * nf + 2 * I + di];
            }
        }
    }
    rc[c] = s / 64.0f;
}

// one weighted line-Jacobi sweep for -(ex u_xx + u_yy + ez u_zz) = f on an n^3 grid (h2 =
// h^2), a thread the y-line (i, k) inside the boundary: the tridiagonal system (-1, 2 + 2 ex
// + 2 ez, -1) in y, its right side h2 f plus the old x and z neighbours times ex and ez
// (plus the line's boundary values in the first and last equations), solved by the Thomas
// algorithm; u_new = (1 - omega) u + omega x at the line's interior points
__global__ void yline_jacobi(const float *u, const float *f, float *u_new, float ex, float ez, float h2,
                             float omega, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int k = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || k < 1 || i >= n - 1 || k >= n - 1) return;
    float cp[YL_NY];
    float dp[YL_NY];
    int nn = n * n;
    int base = k * nn + i;
    float diag = 2.0f + 2.0f * ex + 2.0f * ez;
    cp[0] = 0.0f;
    dp[0] = 0.0f;
    // forward elimination (sub- and super-diagonals -1)
    for (int j = 1; j < n - 1; j++) {
        int c = base + j * n;
        float d = h2 * f[c] + ex * (u[c - 1] + u[c + 1]) + ez * (u[c - nn] + u[c + nn]);
        if (j == 1) d += u[c - n];
        if (j == n - 2) d += u[c + n];
        float m = diag + cp[j - 1];
        cp[j] = -1.0f / m;
        dp[j] = (d + dp[j - 1]) / m;
    }
    // back substitution
    float x = 0.0f;
    for (int j = n - 2; j >= 1; j--) {
        x = dp[j] - cp[j] * x;
        int c = base + j * n;
        u_new[c] = (1.0f - omega) * u[c] + omega * x;
    }
}

// the residual r = f - (4 u - the 4 neighbours) inv_h2 at the interior points of an n x n
// grid, reduced to *sum_sq += sum r^2 (double) and *max_bits = max(|r| as int bits)
// (non-negative floats order as their bits); a block of NORM_BLOCK threads reduces its own
// by a tree in shared memory, thread 0 doing the two atomics
__global__ void resnorm2d(const float *u, const float *f, double *sum_sq, int *max_bits, float inv_h2, int n) {
    __shared__ double s_sum[NORM_BLOCK];
    __shared__ float s_max[NORM_BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    double r2 = 0.0;
    float ra = 0.0f;
    if (i > 0 && j > 0 && i < n - 1 && j < n - 1) {
        int c = j * n + i;
        float r = f[c] - inv_h2 * (4.0f * u[c] - u[c - 1] - u[c + 1] - u[c - n] - u[c + n]);
        r2 = (double)r * (double)r;
        ra = fabsf(r);
    }
    s_sum[t] = r2;
    s_max[t] = ra;
    __syncthreads();
    for (int s = NORM_BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) {
            s_sum[t] += s_sum[t + s];
            s_max[t] = fmaxf(s_max[t], s_max[t + s]);
        }
        __syncthreads();
    }
    if (t == 0) {
        atomicAdd(sum_sq, s_sum[0]);
        atomicMax(max_bits, __float_as_int(s_max[0]));
    }
}

// the coarsest-grid solve by one block: `sweeps` red-black Gauss-Seidel sweeps for -lap u =
// f on an n x n grid (n <= CG_N, h2 = h^2), u and h2 f staged in shared memory, the (n -
// 2)^2 interior points strided over the block's threads (those of the other colour
// skipped), a __syncthreads after each colour; u written back (the boundary unchanged)
__global__ void coarsest_rbgs(float *u, const float *f, float h2, int sweeps, int n) {
    __shared__ float su[CG_N * CG_N];
    __shared__ float sf[CG_N * CG_N];
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    int nt = blockDim.x * blockDim.y;
    for (int p = tid; p < n * n; p += nt) {
        su[p] = u[p];
        sf[p] = h2 * f[p];
    }
    __syncthreads();
    int m = n - 2;
    for (int s = 0; s < sweeps; s++) {
        for (int color = 0; color < 2; color++) {
            for (int p = tid; p < m * m; p += nt) {
                int i = p % m + 1;
                int j = p / m + 1;
                if ((i + j) % 2 == color) {
                    int c = j * n + i;
                    su[c] = 0.25f * (sf[c] + su[c - 1] + su[c + 1] + su[c - n] + su[c + n]);
                }
            }
            __syncthreads();
        }
    }
    for (int p = tid; p < n * n; p += nt) u[p] = su[p];
}

}
