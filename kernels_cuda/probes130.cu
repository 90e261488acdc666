// probe-unseen128: a quantum-computing course's state-vector and density-matrix
// simulation assignments, as a student who knows CUDA basics hands them in.  States are
// 2^nq single-precision complex amplitudes (cuFloatComplex, float2; qubit q is bit q of
// the index).
//  - apply_gate_2q: a general two-qubit gate (a 4x4 complex matrix in __constant__
//    memory) on qubits qa < qb, a thread a group of four amplitudes (the index with zeros
//    inserted at bits qa and qb), the four loaded into a small array, the matrix-vector
//    product written back in place;
//  - qubit_marginals: the measurement probability P(q = 1) of every qubit, a thread an
//    amplitude adding |a|^2 into a shared-memory slot of each qubit whose bit its index
//    has (shared atomicAdd), then one global atomicAdd a qubit a block;
//  - expect_pauli: the expectation value of a Pauli string given as an X mask and a Z mask
//    (Y where both), a thread an amplitude: conj(psi[i ^ xmask]) psi[i] times the string's
//    phase i^(#Y) and sign (-1)^popc(i & zmask), a classic shared-memory tree reduction a
//    block and one double atomicAdd;
//  - sample_histogram: random-circuit sampling, shots drawn from a 12-qubit state's
//    distribution (its cumulative probabilities staged in shared memory), a thread
//    SHOTS_PER_THREAD shots, each a hashed uniform number, a binary search in shared
//    memory and an atomicAdd on the outcome's count in global memory;
//  - density_gate_depol: a noisy single-qubit gate on a density matrix (row-major D x D
//    float2): rho <- U rho U^dagger on qubit k (U in __constant__ memory), then the
//    depolarizing channel on the same qubit, a 2-D grid, a thread a 2x2 block of rho;
//  - rabi_chevron: a Rabi chevron, a thread a (detuning, drive amplitude) point: a qubit
//    driven by a Gaussian pulse integrated as RABI_STEPS piecewise-constant steps, each
//    step's exact 2x2 propagator from expf, sqrtf and sincosf; P(|1>) stored.
#include <cuComplex.h>

#define MAX_QUBITS 32          // qubit_marginals: room in shared memory
#define PX_BLOCK 256           // expect_pauli: blockDim.x
#define SAMP_Q 12              // sample_histogram: the sampled register's qubits
#define SAMP_N (1 << SAMP_Q)   // its outcomes
#define SHOTS_PER_THREAD 16    // sample_histogram: shots a thread
#define RABI_STEPS 512         // rabi_chevron: time steps of the pulse

// apply_gate_2q's gate (set by the host): row-major 4x4, the basis index 2 b_qb + b_qa
__constant__ float c_g2_re[16];
__constant__ float c_g2_im[16];

// density_gate_depol's gate (set by the host): row-major 2x2
__constant__ float c_u_re[4];
__constant__ float c_u_im[4];

extern "C" {

// i with a 0 inserted at bit k
__device__ int insert_zero(int i, int k) {
    int low = i & ((1 << k) - 1);
    return ((i >> k) << (k + 1)) | low;
}

// a 32-bit integer hash (lowbias32), the sampler's RNG
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// psi <- G psi on qubits qa < qb; nquads = 2^(nq - 2)
__global__ void apply_gate_2q(cuFloatComplex *psi, int qa, int qb, int nquads) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nquads) return;
    int i00 = insert_zero(insert_zero(i, qa), qb);
    int idx[4];
    idx[0] = i00;
    idx[1] = i00 | (1 << qa);
    idx[2] = i00 | (1 << qb);
    idx[3] = i00 | (1 << qa) | (1 << qb);
    cuFloatComplex a[4];
    for (int k = 0; k < 4; k++) a[k] = psi[idx[k]];
    for (int r = 0; r < 4; r++) {
        cuFloatComplex s = make_cuFloatComplex(0.0f, 0.0f);
        for (int c = 0; c < 4; c++) {
            cuFloatComplex g = make_cuFloatComplex(c_g2_re[r * 4 + c], c_g2_im[r * 4 + c]);
            s = cuCaddf(s, cuCmulf(g, a[c]));
        }
        psi[idx[r]] = s;
    }
}

// p1[q] += sum over the amplitudes i with bit q set of |psi[i]|^2, q < nq (p1 zeroed by
// the host)
__global__ void qubit_marginals(const cuFloatComplex *psi, float *p1, int nq, int n) {
    __shared__ float s_p[MAX_QUBITS];
    if (threadIdx.x < nq) s_p[threadIdx.x] = 0.0f;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        cuFloatComplex a = psi[i];
        float p = a.x * a.x + a.y * a.y;
        for (int q = 0; q < nq; q++) {
            if ((i >> q) & 1) atomicAdd(&s_p[q], p);
        }
    }
    __syncthreads();
    if (threadIdx.x < nq) atomicAdd(&p1[threadIdx.x], s_p[threadIdx.x]);
}

// *result += <psi| P |psi>, P = i^popc(xmask & zmask) X^xmask Z^zmask (Y = i X Z):
// P|i> = i^#Y (-1)^popc(i & zmask) |i ^ xmask>; blockDim.x == PX_BLOCK
__global__ void expect_pauli(const cuFloatComplex *psi, unsigned int xmask, unsigned int zmask, double *result,
                             int n) {
    __shared__ float s_sum[PX_BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    float v = 0.0f;
    if (i < n) {
        cuFloatComplex a = psi[i];
        cuFloatComplex b = psi[i ^ xmask];
        cuFloatComplex prod = cuCmulf(cuConjf(b), a);
        int ny = __popc(xmask & zmask) & 3;
        if (ny == 0)
            v = prod.x;
        else if (ny == 1)
            v = -prod.y;
        else if (ny == 2)
            v = -prod.x;
        else
            v = prod.y;
        if (__popc((unsigned int)i & zmask) & 1) v = -v;
    }
    s_sum[t] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) s_sum[t] += s_sum[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(result, (double)s_sum[0]);
}

// nshots shots of a SAMP_Q-qubit register, cdf the inclusive prefix sum of its SAMP_N
// probabilities: shot s's outcome the first x with cdf[x] > u (SAMP_N - 1 when none), u
// the top 24 bits of hash32(seed + s) over 2^24; counts[x] += 1 a shot
__global__ void sample_histogram(const float *cdf, unsigned int *counts, unsigned int seed, int nshots) {
    __shared__ float s_cdf[SAMP_N];
    for (int k = threadIdx.x; k < SAMP_N; k += blockDim.x) s_cdf[k] = cdf[k];
    __syncthreads();
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < SHOTS_PER_THREAD; j++) {
        int shot = t * SHOTS_PER_THREAD + j;
        if (shot >= nshots) break;
        float u = (hash32(seed + (unsigned int)shot) >> 8) * (1.0f / 16777216.0f);
        int lo = 0;
        int hi = SAMP_N - 1;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (s_cdf[mid] > u)
                hi = mid;
            else
                lo = mid + 1;
        }
        atomicAdd(&counts[lo], 1u);
    }
}

// rho <- D_lambda(U rho U^dagger) on qubit k of a dim x dim density matrix, D_lambda the
// depolarizing channel (1 - lambda) rho + lambda Tr_k(rho) (x) I/2; a thread the 2x2 block
// of rows r0, r0 + 2^k and columns c0, c0 + 2^k (x a column pair, y a row pair)
__global__ void density_gate_depol(cuFloatComplex *rho, int k, float lambda, int dim) {
    int cp = blockIdx.x * blockDim.x + threadIdx.x;
    int rp = blockIdx.y * blockDim.y + threadIdx.y;
    int half = dim / 2;
    if (cp >= half || rp >= half) return;
    int c0 = insert_zero(cp, k);
    int c1 = c0 | (1 << k);
    int r0 = insert_zero(rp, k);
    int r1 = r0 | (1 << k);
    cuFloatComplex b00 = rho[r0 * dim + c0];
    cuFloatComplex b01 = rho[r0 * dim + c1];
    cuFloatComplex b10 = rho[r1 * dim + c0];
    cuFloatComplex b11 = rho[r1 * dim + c1];
    cuFloatComplex u00 = make_cuFloatComplex(c_u_re[0], c_u_im[0]);
    cuFloatComplex u01 = make_cuFloatComplex(c_u_re[1], c_u_im[1]);
    cuFloatComplex u10 = make_cuFloatComplex(c_u_re[2], c_u_im[2]);
    cuFloatComplex u11 = make_cuFloatComplex(c_u_re[3], c_u_im[3]);
    // M = U B
    cuFloatComplex m00 = cuCaddf(cuCmulf(u00, b00), cuCmulf(u01, b10));
    cuFloatComplex m01 = cuCaddf(cuCmulf(u00, b01), cuCmulf(u01, b11));
    cuFloatComplex m10 = cuCaddf(cuCmulf(u10, b00), cuCmulf(u11, b10));
    cuFloatComplex m11 = cuCaddf(cuCmulf(u10, b01), cuCmulf(u11, b11));
    // B = M U^dagger
    b00 = cuCaddf(cuCmulf(m00, cuConjf(u00)), cuCmulf(m01, cuConjf(u01)));
    b01 = cuCaddf(cuCmulf(m00, cuConjf(u10)), cuCmulf(m01, cuConjf(u11)));
    b10 = cuCaddf(cuCmulf(m10, cuConjf(u00)), cuCmulf(m11, cuConjf(u01)));
    b11 = cuCaddf(cuCmulf(m10, cuConjf(u10)), cuCmulf(m11, cuConjf(u11)));
    // depolarize: the off-diagonal shrinks, the diagonal moves to its mean
    float keep = 1.0f - lambda;
    cuFloatComplex mean = make_cuFloatComplex(0.5f * (b00.x + b11.x), 0.5f * (b00.y + b11.y));
    rho[r0 * dim + c0] = make_cuFloatComplex(keep * b00.x + lambda * mean.x, keep * b00.y + lambda * mean.y);
    rho[r0 * dim + c1] = make_cuFloatComplex(keep * b01.x, keep * b01.y);
    rho[r1 * dim + c0] = make_cuFloatComplex(keep * b10.x, keep * b10.y);
    rho[r1 * dim + c1] = make_cuFloatComplex(keep * b11.x + lambda * mean.x, keep * b11.y + lambda * mean.y);
}

// p1[i] = P(|1>) of a qubit starting in |0> after a Gaussian pulse (H = delta/2 Z + Omega(t)/2
// X, Omega(t) = omax exp(-(t - t_pulse/2)^2 / (2 sigma^2)), 0 <= t <= t_pulse) at detuning
// delta0 + i % nd ddelta and amplitude omax = omega0 + (i / nd) domega; RABI_STEPS steps
__global__ void rabi_chevron(float *p1, float delta0, float ddelta, float omega0, float domega, float t_pulse,
                             float sigma, int nd, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float delta = delta0 + ddelta * (i % nd);
    float omax = omega0 + domega * (i / nd);
    float dt = t_pulse / RABI_STEPS;
    float ar = 1.0f, ai = 0.0f;        // the |0> amplitude
    float br = 0.0f, bi = 0.0f;        // the |1> amplitude
    for (int s = 0; s < RABI_STEPS; s++) {
        float t = (s + 0.5f) * dt - 0.5f * t_pulse;
        float om = omax * expf(-t * t / (2.0f * sigma * sigma));
        float w = 0.5f * sqrtf(delta * delta + om * om);
        float sn, cs;
        sincosf(w * dt, &sn, &cs);
        float nz = 0.5f * delta / w;
        float nx = 0.5f * om / w;
        // U = cos(w dt) I - i sin(w dt) (nz Z + nx X)
        float a2r = cs * ar + sn * nz * ai + sn * nx * bi;
        float a2i = cs * ai - sn * nz * ar - sn * nx * br;
        float b2r = cs * br - sn * nz * bi + sn * nx * ai;
        float b2i = cs * bi + sn * nz * br - sn * nx * ar;
        ar = a2r;
        ai = a2i;
        br = b2r;
        bi = b2i;
    }
    p1[i] = br * br + bi * bi;
}

}
