// probe-unseen44 (session 33): kinds no probe had tried: 3x3 matrix exponentials in
// double a thread each (scaling and squaring around a degree-10 Taylor polynomial, a
// data-dependent number of squarings), SpMV of a block-sparse (BSR, 4x4 blocks) matrix a
// thread a scalar row with float4 gathers, one colour's half-step of red-black Gauss-
// Seidel in place (stride-2 rows), European options priced on a 512-step binomial tree a
// block each (two barriers a step), LEB128 varints decoded a warp a 32-byte window (value
// ends by ballot, output slots by popc), and negative-binomial log-probabilities (three
// lgammaf, logf and log1pf an element). Predicted before their first GPU run.

extern "C" {

// E = exp(A) for each 3x3 double matrix A (row-major): A scaled by 2^-s until its
// infinity norm is at most 1/2, a degree-10 Taylor polynomial by Horner, s squarings
__global__ void expm3_double(const double *A, double *E, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double a[9], p[9], t[9];
#pragma unroll
    for (int j = 0; j < 9; ++j) a[j] = A[9 * (size_t)i + j];
    double nrm = 0.0;
#pragma unroll
    for (int r = 0; r < 3; ++r) nrm = fmax(nrm, fabs(a[3 * r]) + fabs(a[3 * r + 1]) + fabs(a[3 * r + 2]));
    int s = 0;
    double sc = 1.0;
    while (nrm > 0.5) { nrm *= 0.5; sc *= 0.5; ++s; }
#pragma unroll
    for (int j = 0; j < 9; ++j) { a[j] *= sc; p[j] = (j & 3) == 0 ? 1.0 : 0.0; }
    for (int k = 10; k >= 1; --k) {                 // P = I + (A P) / k
        double c = 1.0 / (double)k;
#pragma unroll
        for (int r = 0; r < 3; ++r)
#pragma unroll
            for (int q = 0; q < 3; ++q)
                t[3 * r + q] = (a[3 * r] * p[q] + a[3 * r + 1] * p[3 + q] + a[3 * r + 2] * p[6 + q]) * c
                               + (r == q ? 1.0 : 0.0);
#pragma unroll
        for (int j = 0; j < 9; ++j) p[j] = t[j];
    }
    for (; s > 0; --s) {                            // P = P P
#pragma unroll
        for (int r = 0; r < 3; ++r)
#pragma unroll
            for (int q = 0; q < 3; ++q)
                t[3 * r + q] = p[3 * r] * p[q] + p[3 * r + 1] * p[3 + q] + p[3 * r + 2] * p[6 + q];
#pragma unroll
        for (int j = 0; j < 9; ++j) p[j] = t[j];
    }
#pragma unroll
    for (int j = 0; j < 9; ++j) E[9 * (size_t)i + j] = p[j];
}

// y = A x for A in BSR format with 4x4 blocks: block row br holds blocks
// [rowptr[br], rowptr[br + 1]), block k at block column bcol[k], its rows as four float4
// val[4k .. 4k + 3]; a thread a scalar row, x read as float4s
__global__ void bsr_spmv4(const int *rowptr, const int *bcol, const float4 *val, const float4 *x, float *y, int nbrows) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= 4 * nbrows) return;
    int br = row >> 2, sub = row & 3;
    float s = 0.0f;
    for (int k = rowptr[br]; k < rowptr[br + 1]; ++k) {
        float4 a = val[4 * k + sub], v = x[bcol[k]];
        s += a.x * v.x + a.y * v.y + a.z * v.z + a.w * v.w;
    }
    y[row] = s;
}

// one colour's half-step of red-black Gauss-Seidel for -lap(u) = f on an n x n grid
// (boundary fixed): the interior cells with (x + y) % 2 == color get the mean of their
// four neighbours (of the other colour) plus h2 f / 4, in place; a thread a cell of the colour
__global__ void redblack_gs(float *u, const float *f, int n, int color, float h2) {
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int x = 2 * (blockIdx.x * blockDim.x + threadIdx.x) + ((y + color) & 1);
    if (x < 1 || y < 1 || x >= n - 1 || y >= n - 1) return;
    size_t c = (size_t)y * n + x;
    u[c] = 0.25f * (u[c - 1] + u[c + 1] + u[c - n] + u[c + n] + h2 * f[c]);
}

#define BIN_STEPS 512

// price[o] = a European call's value on a 512-step Cox-Ross-Rubinstein binomial tree
// (spot S, strike X, expiry T years, rate r, volatility vol), a block of 256 threads an
// option, two nodes a thread, the tree's last column in shared memory
__global__ void binomial_option(const float *S, const float *X, const float *T, float r, float vol, float *price) {
    __shared__ float v[BIN_STEPS + 1];
    int o = blockIdx.x, tid = threadIdx.x;
    float dt = T[o] / BIN_STEPS, vdt = vol * sqrtf(dt);
    float u = expf(vdt), dn = expf(-vdt);
    float pu = (expf(r * dt) - dn) / (u - dn), disc = expf(-r * dt);
    float pud = pu * disc, pdd = (1.0f - pu) * disc, s = S[o], x = X[o];
    for (int i = tid; i <= BIN_STEPS; i += blockDim.x)
        v[i] = fmaxf(s * expf(vdt * (float)(2 * i - BIN_STEPS)) - x, 0.0f);
    __syncthreads();
    int i0 = tid, i1 = tid + 256;
    for (int t = BIN_STEPS - 1; t >= 0; --t) {
        float n0 = 0.0f, n1 = 0.0f;
        if (i0 <= t) n0 = pud * v[i0 + 1] + pdd * v[i0];
        if (i1 <= t) n1 = pud * v[i1 + 1] + pdd * v[i1];
        __syncthreads();
        if (i0 <= t) v[i0] = n0;
        if (i1 <= t) v[i1] = n1;
        __syncthreads();
    }
    if (tid == 0) price[o] = v[0];
}

// out = the unsigned LEB128 varints in in[0 .. nbytes) (7 bits a byte, least significant
// first, bit 7 set on all but a value's last byte), a warp a 32-byte window: the lanes
// holding a last byte find their slot from base[window] (the values ending before it) and
// a popc of the ballot, and walk back over the value's earlier bytes
__global__ void varint_decode(const unsigned char *in, const int *base, unsigned *out, int nbytes) {
    int win = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    int p = win * 32 + lane;
    unsigned b = p < nbytes ? in[p] : 0x80u;
    unsigned ends = __ballot_sync(0xffffffffu, (b & 0x80u) == 0u);
    if (b & 0x80u) return;
    int slot = base[win] + __popc(ends & ((1u << lane) - 1u));
    unsigned v = b;
    for (int q = p - 1; q >= 0; --q) {
        unsigned c = in[q];
        if (!(c & 0x80u)) break;
        v = (v << 7) | (c & 0x7fu);
    }
    out[slot] = v;
}

// out[i] = log P(K = k[i]) for K ~ NegativeBinomial(r[i], p[i]) (failures before the
// r-th success): lgamma(k + r) - lgamma(r) - lgamma(k + 1) + r log p + k log(1 - p)
__global__ void negbin_logpmf(const int *k, const float *r, const float *p, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float kk = (float)k[i], rr = r[i], pp = p[i];
    out[i] = lgammaf(kk + rr) - lgammaf(rr) - lgammaf(kk + 1.0f) + rr * logf(pp) + kk * log1pf(-pp);
}

}
