// probe-unseen164: a compressed sensing / sparse signal recovery course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - fista_step: one FISTA iteration for the LASSO with a dense Gaussian measurement matrix
//    (row-major, m x n), a thread a coefficient: the gradient A^T r (r the residual at the
//    extrapolated point, from the previous kernel) by a loop down the thread's column, the
//    soft threshold, then Nesterov's momentum step;
//  - omp_select: orthogonal matching pursuit's selection step, a warp a column of the
//    measurement matrix (column-major, unit-norm columns): the correlation with the residual
//    by a strided loop and a __shfl_down_sync reduction, columns already in the support
//    skipped, the largest |correlation| (its float bits over the column's index, the lower
//    index winning ties) kept by a 64-bit atomicMax a warp on one word;
//  - sjlt_apply: a sparse Johnson-Lindenstrauss measurement operator (Kane-Nelson blocks:
//    each column one +-1 in each of SJ_S blocks of rows) applied to a compressible signal
//    (wavelet coefficients), stored by rows in CSR (column indices, signed-char signs), a
//    thread a measurement gathering the signal's entries;
//  - tv_dual_step: the dual step of Chambolle-Pock's primal-dual algorithm for total-variation
//    (ROF) denoising of an image: the forward-difference gradient of the over-relaxed primal
//    image added to the dual field (float2 a pixel), projected onto the unit disc (isotropic
//    TV), a thread a pixel in 2-D blocks;
//  - srht_block: a subsampled randomized Hadamard transform of a long signal cut into blocks
//    of WH_N samples, a block of WH_N / 2 threads a signal block: random signs (a bit each),
//    the Walsh-Hadamard butterflies in shared memory (log2 WH_N stages, __syncthreads
//    between), the WH_M kept rows (listed in __constant__) scaled and stored;
//  - amp_se: the AMP state evolution for soft thresholding over a Donoho-Tanner phase
//    diagram (delta = m / n, rho = k / m), a thread a point: the mean squared error of
//    soft thresholding a three-point prior in closed form (erfc and exp in double) iterated
//    to zero (recovered), a fixed point, divergence or maxit iterations (slow near the phase
//    transition), the point's minimax threshold from the host.

#define SJ_S 16               // sjlt_apply: nonzeros a column (the construction's blocks)
#define SJ_SCALE 0.25f        // 1 / sqrt(SJ_S)
#define WH_N 1024             // srht_block: samples a transform (blockDim.x == WH_N / 2)
#define WH_M 256              // rows kept a transform
#define SE_SQRT1_2 0.70710678118654752          // amp_se: 1 / sqrt(2)
#define SE_INV_SQRT2PI 0.39894228040143268      // 1 / sqrt(2 pi)

// srht_block's kept rows (set by the host): WH_M distinct rows of the WH_N, ascending
__constant__ int c_rows[WH_M];

// amp_se: the standard normal distribution function and density
__device__ double se_Phi(double z) {
    return 0.5 * erfc(-z * SE_SQRT1_2);
}

__device__ double se_phi(double z) {
    return SE_INV_SQRT2PI * exp(-0.5 * z * z);
}

extern "C" {

// one FISTA iteration over an m x n measurement matrix A (row-major): g = A^T r (r = y - A z),
// x_new = soft(z + step g, thr), z_new = x_new + mom (x_new - x) (x the previous iterate)
__global__ void fista_step(const float *A, const float *r, const float *z, const float *x, float *x_new,
                           float *z_new, int m, int n, float step, float thr, float mom) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    float g = 0.0f;
    for (int i = 0; i < m; i++) g += A[i * n + j] * r[i];
    float v = z[j] + step * g;
    float xn = 0.0f;
    if (v > thr)
        xn = v - thr;
    else if (v < -thr)
        xn = v + thr;
    x_new[j] = xn;
    z_new[j] = xn + mom * (xn - x[j]);
}

// OMP's selection over the n columns of A (column-major, m rows) not in the support (in_supp):
// *best = max over columns j of (float bits of |<a_j, r>|) << 32 | (n - 1 - j)  (blockDim.x a
// multiple of 32; *best zeroed by the host)
__global__ void omp_select(const float *A, const float *r, const int *in_supp, unsigned long long *best, int m,
                           int n) {
    int col = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (col >= n || in_supp[col]) return;        // the whole warp
    float c = 0.0f;
    for (int i = lane; i < m; i += 32) c += A[col * m + i] * r[i];
    for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffff, c, o);
    if (lane == 0) {
        unsigned long long key = ((unsigned long long)__float_as_uint(fabsf(c)) << 32) | (unsigned int)(n - 1 - col);
        atomicMax(best, key);
    }
}

// y = Phi x for the m x n sparse +-1 matrix Phi in CSR (row i's entries rowptr[i] .. rowptr[i + 1]:
// columns col, signs sgn), scaled by SJ_SCALE
__global__ void sjlt_apply(const int *rowptr, const int *col, const signed char *sgn, const float *x, float *y,
                           int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    float s = 0.0f;
    for (int e = rowptr[i]; e < rowptr[i + 1]; e++) {
        float v = x[col[e]];
        if (sgn[e] > 0)
            s += v;
        else
            s -= v;
    }
    y[i] = s * SJ_SCALE;
}

// p <- proj(p + sigma grad ubar) on an nx x ny image (row-major), grad the forward differences
// (0 across the last column and row), proj the projection onto the unit disc
__global__ void tv_dual_step(const float *ubar, float2 *p, int nx, int ny, float sigma) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    float u = ubar[i];
    float gx = 0.0f;
    float gy = 0.0f;
    if (x < nx - 1) gx = ubar[i + 1] - u;
    if (y < ny - 1) gy = ubar[i + nx] - u;
    float2 q = p[i];
    q.x += sigma * gx;
    q.y += sigma * gy;
    float nrm = fmaxf(1.0f, sqrtf(q.x * q.x + q.y * q.y));
    q.x /= nrm;
    q.y /= nrm;
    p[i] = q;
}

// y block b (WH_M values) = the rows c_rows of H D x_b / sqrt(WH_M), x_b = x[b WH_N .. (b + 1) WH_N),
// D the signs (bit g of signs set: sample g negated), H the WH_N x WH_N (Sylvester) Hadamard matrix
__global__ void srht_block(const float *x, const unsigned int *signs, float *y) {
    __shared__ float s[WH_N];
    int t = threadIdx.x;
    int base = blockIdx.x * WH_N;
    for (int i = t; i < WH_N; i += blockDim.x) {
        int g = base + i;
        float v = x[g];
        if ((signs[g / 32] >> (g % 32)) & 1) v = -v;
        s[i] = v;
    }
    __syncthreads();
    for (int h = 1; h < WH_N; h *= 2) {
        int i = (t / h) * 2 * h + t % h;
        float a = s[i];
        float b = s[i + h];
        s[i] = a + b;
        s[i + h] = a - b;
        __syncthreads();
    }
    for (int k = t; k < WH_M; k += blockDim.x) y[blockIdx.x * WH_M + k] = s[c_rows[k]] * 0.0625f;   // 1 / sqrt(WH_M)
}

// the state evolution tau2 <- sigma2 + mse(tau2) / delta of AMP with the soft threshold alpha[p] tau
// at point p = iy nd + ix of an nd x nr phase diagram (delta = (ix + 1) / nd, rho = (iy + 1) / nr),
// the signal's entries 0 with probability 1 - eps, +-1 else (eps = rho delta), from tau2 = sigma2 +
// eps / delta until tau2 < tol_abs, a change under tol_rel tau2, tau2 > tau2_max or maxit iterations:
// the last tau2 and the iterations run
__global__ void amp_se(const double *alpha, double *tau2_out, int *iters, int nd, int nr, double sigma2,
                       double tol_abs, double tol_rel, double tau2_max, int maxit) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= nd * nr) return;
    int ix = p % nd;
    int iy = p / nd;
    double delta = (ix + 1.0) / nd;
    double rho = (iy + 1.0) / nr;
    double eps = rho * delta;
    double a = alpha[p];
    double m0 = 2.0 * ((1.0 + a * a) * se_Phi(-a) - a * se_phi(a));   // a zero's MSE / tau2
    double tau2 = sigma2 + eps / delta;
    int it = 0;
    while (it < maxit) {
        double tau = sqrt(tau2);
        double th = a * tau;
        double z0 = (th - 1.0) / tau;          // 1 + tau Z > th  <=>  Z > z0
        double z1 = (-th - 1.0) / tau;         // 1 + tau Z < -th <=>  Z < z1
        double Q0 = se_Phi(-z0);
        double P1 = se_Phi(z1);
        double f0 = se_phi(z0);
        double f1 = se_phi(z1);
        double e1 = tau2 * (Q0 + z0 * f0) - 2.0 * tau * th * f0 + th * th * Q0 + tau2 * (P1 - z1 * f1) -
                    2.0 * tau * th * f1 + th * th * P1 + (1.0 - Q0 - P1);   // a nonzero's MSE
        double next = sigma2 + ((1.0 - eps) * m0 * tau2 + eps * e1) / delta;
        it++;
        double change = fabs(next - tau2);
        tau2 = next;
        if (tau2 < tol_abs || change < tol_rel * tau2 || tau2 > tau2_max) break;   // recovered, stuck, diverged
    }
    tau2_out[p] = tau2;
    iters[p] = it;
}

}
