// probe-unseen101: a lattice field theory course's CUDA assignments (lattice gauge theory
// on the way to lattice QCD), as a student who knows CUDA basics hands them in. The course's
// conventions: a site of an L^4 (or Ls^3 x Lt) lattice is x = x0 + L (x1 + L (x2 + L x3)),
// direction mu = 0 .. 3 (x, y, z, t), boundaries periodic; the link U_mu(x) is stored at
// 4 x + mu (site-major: a site's four links together). U(1) links are angles (or the unit
// complex numbers e^(i theta) as float2), SU(2) links are unit quaternions (a0, a1, a2, a3)
// in a float4, U = a0 + i a.sigma.
//
//   u1_plaquette      4D U(1) gauge theory: a thread a site, the six plaquette angles
//                     theta_mu(x) + theta_nu(x+mu) - theta_mu(x+nu) - theta_nu(x) summed as
//                     cosf, the block's sum by a shared-memory tree into block_sum (the host
//                     adds the blocks' sums: the average plaquette)
//   wilson_dslash_u1  the Wilson-Dirac operator on a 4-spinor field (float2 psi[4 x + s])
//                     in a U(1) background: out = psi - kappa sum_mu [(1 - gamma_mu) U_mu(x)
//                     psi(x+mu) + (1 + gamma_mu) U_mu(x-mu)^* psi(x-mu)], a thread a site, the
//                     DeGrand-Rossi gamma matrices (one nonzero a row) in __constant__ tables
//   su2_heatbath      one checkerboard sweep of the SU(2) heatbath: a thread a site of one
//                     parity, its link in direction mu replaced by a Kennedy-Pendleton draw
//                     from the staples' sum (six staples, twelve quaternion products); the
//                     rejection loop runs a data-dependent number of tries (a hash RNG)
//   su2_polyakov      the Polyakov loop of an Ls^3 x Lt lattice: a thread a spatial site, the
//                     product of its Lt time links, tr P / 2 stored, summed into one float
//                     by atomicAdd and counted into a PL_BINS histogram by atomicAdd
//   cg_cdot           the complex inner product <p, q> = sum conj(p_i) q_i of a conjugate
//                     gradient solver's vectors (float2), accumulated in double over a
//                     grid-stride loop, reduced by __shfl_down_sync and shared memory, one
//                     double atomicAdd a block for each of Re and Im
//   u1_metropolis_2d  the 2D U(1) (compact QED2) Metropolis update of the links of one
//                     direction on one checkerboard parity: a 16 x 16 tile of both link
//                     fields staged with a one-site halo in shared memory, MC_NHIT hits a
//                     link (hash RNG, cosf and expf), the other parity's threads idle

#define PLAQ_BLOCK 256    // u1_plaquette: blockDim.x
#define HB_MAX_TRY 15     // su2_heatbath: Kennedy-Pendleton tries (4 draws each) before giving up
#define PL_BINS 64        // su2_polyakov: histogram bins over [-1, 1]
#define CG_BLOCK 256      // cg_cdot: blockDim.x
#define MC_TILE 16        // u1_metropolis_2d: the tile (blockDim 16 x 16)
#define MC_NHIT 8         // u1_metropolis_2d: Metropolis hits a link

// gamma_mu in the DeGrand-Rossi basis: row s of gamma_mu has its one nonzero entry
// (c_gre + i c_gim)[4 mu + s] in column c_gcol[4 mu + s]
__constant__ int c_gcol[16] = {3, 2, 1, 0, 3, 2, 1, 0, 2, 3, 0, 1, 2, 3, 0, 1};
__constant__ float c_gre[16] = {0, 0, 0, 0, -1, 1, 1, -1, 0, 0, 0, 0, 1, 1, 1, 1};
__constant__ float c_gim[16] = {1, 1, -1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0};

extern "C" {

// a 32-bit integer hash (lowbias32): the course's counter-based RNG
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// a uniform float in [0, 1) from a hash's top 24 bits
__device__ float uniform01(unsigned int h) {
    return (h >> 8) * (1.0f / 16777216.0f);
}

// the site next to x in a direction where x's coordinate is c (stride: the direction's
// site stride), forward (d = 1) or backward (d = -1), periodic
__device__ int hop(int x, int c, int stride, int L, int d) {
    if (d > 0) return c == L - 1 ? x - (L - 1) * stride : x + stride;
    return c == 0 ? x + (L - 1) * stride : x - stride;
}

__device__ float2 cmul(float2 a, float2 b) {
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// conj(a) * b
__device__ float2 cmulc(float2 a, float2 b) {
    return make_float2(a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x);
}

// SU(2) as quaternions: (a0 + i a.sigma)(b0 + i b.sigma) = a0 b0 - a.b + i (a0 b + b0 a - a x b).sigma
__device__ float4 qmul(float4 a, float4 b) {
    return make_float4(a.x * b.x - a.y * b.y - a.z * b.z - a.w * b.w,
                       a.x * b.y + b.x * a.y - (a.z * b.w - a.w * b.z),
                       a.x * b.z + b.x * a.z - (a.w * b.y - a.y * b.w),
                       a.x * b.w + b.x * a.w - (a.y * b.z - a.z * b.y));
}

__device__ float4 qdag(float4 a) {
    return make_float4(a.x, -a.y, -a.z, -a.w);
}

// the sum over the six plaquettes at each site of cos(theta_P), a block's sum in
// block_sum[blockIdx.x] (theta: the link angles, 4 a site)
__global__ void u1_plaquette(const float *theta, float *block_sum, int L) {
    __shared__ float s_sum[PLAQ_BLOCK];
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int vol = L * L * L * L;
    float p = 0.0f;
    if (x < vol) {
        int fwd[4];
        int rest = x;
        int stride = 1;
        for (int mu = 0; mu < 4; mu++) {
            int c = rest % L;
            rest /= L;
            fwd[mu] = hop(x, c, stride, L, 1);
            stride *= L;
        }
        for (int mu = 0; mu < 3; mu++) {
            for (int nu = mu + 1; nu < 4; nu++) {
                float a = theta[4 * x + mu] + theta[4 * fwd[mu] + nu] - theta[4 * fwd[nu] + mu] - theta[4 * x + nu];
                p += cosf(a);
            }
        }
    }
    s_sum[threadIdx.x] = p;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) s_sum[threadIdx.x] += s_sum[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) block_sum[blockIdx.x] = s_sum[0];
}

// out = psi - kappa sum_mu [(1 - gamma_mu) U_mu(x) psi(x+mu) + (1 + gamma_mu) U_mu(x-mu)^* psi(x-mu)]
// (U: e^(i theta) a link, 4 a site; psi, out: 4 spin components a site)
__global__ void wilson_dslash_u1(const float2 *U, const float2 *psi, float2 *out, float kappa, int L) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int vol = L * L * L * L;
    if (x >= vol) return;
    float2 acc[4];
    for (int s = 0; s < 4; s++) acc[s] = make_float2(0.0f, 0.0f);
    int rest = x;
    int stride = 1;
    for (int mu = 0; mu < 4; mu++) {
        int c = rest % L;
        rest /= L;
        int xf = hop(x, c, stride, L, 1);
        int xb = hop(x, c, stride, L, -1);
        float2 uf = U[4 * x + mu];
        float2 ub = U[4 * xb + mu];
        float2 hf[4];
        float2 hb[4];
        for (int s = 0; s < 4; s++) {
            hf[s] = cmul(uf, psi[4 * xf + s]);
            hb[s] = cmulc(ub, psi[4 * xb + s]);
        }
        for (int s = 0; s < 4; s++) {
            int k = 4 * mu + s;
            float2 g = make_float2(c_gre[k], c_gim[k]);
            float2 gf = cmul(g, hf[c_gcol[k]]);
            float2 gb = cmul(g, hb[c_gcol[k]]);
            acc[s].x += hf[s].x - gf.x + hb[s].x + gb.x;
            acc[s].y += hf[s].y - gf.y + hb[s].y + gb.y;
        }
        stride *= L;
    }
    for (int s = 0; s < 4; s++) {
        float2 p = psi[4 * x + s];
        out[4 * x + s] = make_float2(p.x - kappa * acc[s].x, p.y - kappa * acc[s].y);
    }
}

// one heatbath update of the links U_mu(x) of the sites x of one parity (a thread a site):
// the staples' sum A = k V (V in SU(2)), a0 of X = U V drawn from sqrt(1 - a0^2) exp(beta k
// a0) by Kennedy-Pendleton, its vector part isotropic, U = X V^dagger; the draws hash(seed +
// 64 x + counter) (tries 0 .. 59, the direction 60 and 61); a link none of HB_MAX_TRY tries
// accepts is left as it was
__global__ void su2_heatbath(float4 *U, float beta, int mu, int parity, unsigned int seed, int L) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int vol = L * L * L * L;
    if (i >= vol / 2) return;
    int x = 2 * i;
    int c[4];
    int st[4];
    int rest = x;
    int s = 1;
    for (int d = 0; d < 4; d++) {
        c[d] = rest % L;
        rest /= L;
        st[d] = s;
        s *= L;
    }
    if (((c[0] + c[1] + c[2] + c[3]) & 1) != parity) {
        x += 1;
        c[0] += 1;
    }
    int xp = hop(x, c[mu], st[mu], L, 1);
    float4 A = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int nu = 0; nu < 4; nu++) {
        if (nu == mu) continue;
        int xpn = hop(x, c[nu], st[nu], L, 1);
        int xmn = hop(x, c[nu], st[nu], L, -1);
        int xpmn = hop(xp, c[nu], st[nu], L, -1);
        float4 up = qmul(qmul(U[4 * xp + nu], qdag(U[4 * xpn + mu])), qdag(U[4 * x + nu]));
        float4 dn = qmul(qmul(qdag(U[4 * xpmn + nu]), qdag(U[4 * xmn + mu])), U[4 * xmn + nu]);
        A.x += up.x + dn.x;
        A.y += up.y + dn.y;
        A.z += up.z + dn.z;
        A.w += up.w + dn.w;
    }
    float k = sqrtf(A.x * A.x + A.y * A.y + A.z * A.z + A.w * A.w);
    float alpha = beta * k;
    unsigned int base = seed + 64u * (unsigned int)x;
    unsigned int ctr = base;
    float a0 = 0.0f;
    bool ok = false;
    for (int t = 0; t < HB_MAX_TRY; t++) {
        float r1 = 1.0f - uniform01(hash32(ctr++));      // (0, 1]
        float r2 = uniform01(hash32(ctr++));
        float r3 = 1.0f - uniform01(hash32(ctr++));
        float r4 = uniform01(hash32(ctr++));
        float cs = cosf(6.28318531f * r2);
        float lam2 = -(logf(r1) + cs * cs * logf(r3)) / (2.0f * alpha);
        if (r4 * r4 <= 1.0f - lam2) {
            a0 = 1.0f - 2.0f * lam2;
            ok = true;
            break;
        }
    }
    if (!ok) return;
    float r = sqrtf(fmaxf(1.0f - a0 * a0, 0.0f));
    float ct = 2.0f * uniform01(hash32(base + 60u)) - 1.0f;
    float sn = sqrtf(1.0f - ct * ct);
    float ph = 6.28318531f * uniform01(hash32(base + 61u));
    float4 X = make_float4(a0, r * sn * cosf(ph), r * sn * sinf(ph), r * ct);
    float4 Vd = make_float4(A.x / k, -A.y / k, -A.z / k, -A.w / k);
    U[4 * x + mu] = qmul(X, Vd);
}

// the Polyakov loop at each spatial site s of an Ls^3 x Lt lattice: P = prod_t U_3(s, t),
// tr P / 2 into poly[s], added to *sum and counted into hist (PL_BINS bins over [-1, 1])
__global__ void su2_polyakov(const float4 *U, float *poly, float *sum, int *hist, int Ls, int Lt) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    int vs = Ls * Ls * Ls;
    if (s >= vs) return;
    float4 P = U[4 * s + 3];
    for (int t = 1; t < Lt; t++) P = qmul(P, U[4 * (t * vs + s) + 3]);
    float tr = P.x;
    poly[s] = tr;
    atomicAdd(sum, tr);
    int b = (int)((tr + 1.0f) * 0.5f * PL_BINS);
    if (b > PL_BINS - 1) b = PL_BINS - 1;
    if (b < 0) b = 0;
    atomicAdd(&hist[b], 1);
}

// res[0] += Re <p, q>, res[1] += Im <p, q> (<p, q> = sum_i conj(p_i) q_i over n complex
// numbers), in double
__global__ void cg_cdot(const float2 *p, const float2 *q, double *res, int n) {
    __shared__ double s_re[CG_BLOCK / 32];
    __shared__ double s_im[CG_BLOCK / 32];
    double re = 0.0;
    double im = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float2 a = p[i];
        float2 b = q[i];
        re += (double)a.x * b.x + (double)a.y * b.y;
        im += (double)a.x * b.y - (double)a.y * b.x;
    }
    for (int o = 16; o > 0; o >>= 1) {
        re += __shfl_down_sync(0xffffffff, re, o);
        im += __shfl_down_sync(0xffffffff, im, o);
    }
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    if (lane == 0) {
        s_re[warp] = re;
        s_im[warp] = im;
    }
    __syncthreads();
    if (warp == 0) {
        re = lane < blockDim.x / 32 ? s_re[lane] : 0.0;
        im = lane < blockDim.x / 32 ? s_im[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1) {
            re += __shfl_down_sync(0xffffffff, re, o);
            im += __shfl_down_sync(0xffffffff, im, o);
        }
        if (lane == 0) {
            atomicAdd(&res[0], re);
            atomicAdd(&res[1], im);
        }
    }
}

// MC_NHIT Metropolis hits on each link theta_mu(x) of the sites x = (x, y) of one parity of
// an L x L lattice (theta: 2 angles a site, L a multiple of MC_TILE), action -beta sum_P
// cos(theta_P): a proposal theta + delta (2 u - 1), accepted when dS <= 0 or u' < exp(-dS);
// the draws hash(seed + 2 MC_NHIT site + 2 hit) and the next counter
__global__ void u1_metropolis_2d(float *theta, float beta, float delta, int mu, int parity, unsigned int seed,
                                 int L) {
    __shared__ float s0[MC_TILE + 2][MC_TILE + 2];
    __shared__ float s1[MC_TILE + 2][MC_TILE + 2];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bx = blockIdx.x * MC_TILE;
    int by = blockIdx.y * MC_TILE;
    for (int k = ty * MC_TILE + tx; k < (MC_TILE + 2) * (MC_TILE + 2); k += MC_TILE * MC_TILE) {
        int hx = k % (MC_TILE + 2);
        int hy = k / (MC_TILE + 2);
        int gx = (bx + hx - 1 + L) % L;
        int gy = (by + hy - 1 + L) % L;
        s0[hy][hx] = theta[2 * (gy * L + gx)];
        s1[hy][hx] = theta[2 * (gy * L + gx) + 1];
    }
    __syncthreads();
    int x = bx + tx;
    int y = by + ty;
    if (((x + y) & 1) != parity) return;
    int lx = tx + 1;
    int ly = ty + 1;
    // the link's two plaquettes are cos(th + a) and cos(th - b)
    float th, a, b;
    if (mu == 0) {
        th = s0[ly][lx];
        a = s1[ly][lx + 1] - s0[ly + 1][lx] - s1[ly][lx];
        b = s0[ly - 1][lx] + s1[ly - 1][lx + 1] - s1[ly - 1][lx];
    } else {
        th = s1[ly][lx];
        a = s0[ly][lx - 1] - s0[ly + 1][lx - 1] - s1[ly][lx - 1];
        b = s0[ly][lx] + s1[ly][lx + 1] - s0[ly + 1][lx];
    }
    unsigned int base = seed + 2u * MC_NHIT * (unsigned int)(y * L + x);
    float s_old = -beta * (cosf(th + a) + cosf(th - b));
    for (int h = 0; h < MC_NHIT; h++) {
        float tn = th + delta * (2.0f * uniform01(hash32(base + 2u * h)) - 1.0f);
        float s_new = -beta * (cosf(tn + a) + cosf(tn - b));
        float dS = s_new - s_old;
        if (dS <= 0.0f || uniform01(hash32(base + 2u * h + 1u)) < expf(-dS)) {
            th = tn;
            s_old = s_new;
        }
    }
    theta[2 * (y * L + x) + mu] = th;
}

}
