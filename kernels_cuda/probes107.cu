// probe-unseen105: an electrical power-systems course's CUDA assignments, as a student who
// knows CUDA basics hands them in.
//
// ybus_mismatch:   the power-flow mismatch of Newton-Raphson, F = [P_spec - Re S; Q_spec -
//                  Im S] with S_i = V_i conj(sum_k Y_ik V_k): the bus admittance matrix in
//                  CSR with cuDoubleComplex values, a thread a bus (a row), V gathered by
//                  column index (double complex, rectangular).
// mc_contingency:  Monte-Carlo N-1 screening on a 24-bus, 32-line DC model: a thread a
//                  sample, the PTDF and LODF matrices staged in shared memory, bus injections
//                  scaled by hashed uniform load factors, one hashed line outaged, the
//                  post-contingency flows f_l + LODF[l][k] f_k checked against the ratings;
//                  the violations and the worst loading stored, insecure samples counted by
//                  one global atomicAdd.
// branch_injection: per-bus injections from the pi-model branch flows of a voltage
//                  profile (polar, float), a thread a branch, both ends' P and Q added into
//                  the buses by four float atomicAdds.
// rbgs_dcpf:       one colour's sweep of red-black Gauss-Seidel (SOR) on the DC power flow
//                  B theta = P of a square mesh distribution grid: a thread a bus of the
//                  colour, four neighbours' angles and line susceptances, the slack bus (0)
//                  held at 0.
// ed_lambda:       economic dispatch by lambda iteration (bisection) of ED_NG generators with
//                  quadratic costs and limits, a block a load scenario, a thread a generator:
//                  the output summed by a shared-memory tree each iteration, thread 0 moving
//                  the bracket until it is narrower than tol; dispatch, lambda and the total
//                  cost stored.
// line_limit_check: line-flow limit checks: a thread a line, the from-end current of the
//                  pi model against the rating; lines out of service skipped, loadings over
//                  WARN_LEVEL counted, overloaded lines' trip time by their kind (overhead,
//                  cable: thermal inverse time; transformer: IEC standard-inverse relay)
//                  appended to a list through an atomicAdd counter.

#define MC_NB 24           // mc_contingency: buses of the DC model
#define MC_NL 32           // mc_contingency: lines
#define ED_NG 256          // ed_lambda: generators (blockDim.x == ED_NG)
#define ED_MAX_IT 60       // ed_lambda: the most bisection steps
#define WARN_LEVEL 0.9f    // line_limit_check: loading that counts as a warning
#define OH_TAU 600.0f      // overhead line thermal time constant, s
#define CABLE_TAU 1800.0f  // cable thermal time constant, s
#define TRAFO_TMS 0.5f     // transformer relay time multiplier

#include <cuComplex.h>

enum LineKind { OVERHEAD = 0, CABLE = 1, TRAFO = 2 };

extern "C" {

// a 32-bit integer hash (lowbias32), the RNG of the Monte-Carlo kernel
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// power-flow mismatch F[i] = P_spec[i] - Re S_i, F[n + i] = Q_spec[i] - Im S_i, where
// S_i = V_i conj(I_i) and I_i = sum_k Y[i][k] V[k] (Y in CSR)
__global__ void ybus_mismatch(const int *row_ptr, const int *col, const cuDoubleComplex *Y,
                              const cuDoubleComplex *V, const double *P_spec, const double *Q_spec, double *F,
                              int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cuDoubleComplex I = make_cuDoubleComplex(0.0, 0.0);
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
        I = cuCadd(I, cuCmul(Y[k], V[col[k]]));
    }
    cuDoubleComplex S = cuCmul(V[i], cuConj(I));
    F[i] = P_spec[i] - cuCreal(S);
    F[n + i] = Q_spec[i] - cuCimag(S);
}

// n Monte-Carlo samples of N-1 screening: sample s scales bus b's base injection by
// 1 + spread (2u - 1), u from hash(seed + s MC_NB + b), outages line k = hash(seed2 + s) %
// MC_NL, and checks |f_l + LODF[l][k] f_k| against rate[l] for every other line l (f = PTDF
// P); the number of overloaded lines and the worst loading stored, samples with an overload
// counted in *n_insecure
__global__ void mc_contingency(const float *ptdf, const float *lodf, const float *p_base, const float *rate,
                               int *n_viol, float *worst, int *n_insecure, float spread, unsigned int seed,
                               unsigned int seed2, int n) {
    __shared__ float sPTDF[MC_NL * MC_NB];
    __shared__ float sLODF[MC_NL * MC_NL];
    __shared__ float sP0[MC_NB];
    __shared__ float sRate[MC_NL];
    for (int k = threadIdx.x; k < MC_NL * MC_NB; k += blockDim.x) sPTDF[k] = ptdf[k];
    for (int k = threadIdx.x; k < MC_NL * MC_NL; k += blockDim.x) sLODF[k] = lodf[k];
    if (threadIdx.x < MC_NB) sP0[threadIdx.x] = p_base[threadIdx.x];
    if (threadIdx.x < MC_NL) sRate[threadIdx.x] = rate[threadIdx.x];
    __syncthreads();

    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n) return;

    float P[MC_NB];
    for (int b = 0; b < MC_NB; b++) {
        unsigned int h = hash32(seed + (unsigned int)s * MC_NB + b);
        float u = (h >> 8) * (1.0f / 16777216.0f);
        P[b] = sP0[b] * (1.0f + spread * (2.0f * u - 1.0f));
    }
    int k = hash32(seed2 + (unsigned int)s) % MC_NL;

    // pre-contingency flow on the outaged line
    float fk = 0.0f;
    for (int b = 0; b < MC_NB; b++) fk += sPTDF[k * MC_NB + b] * P[b];

    int viol = 0;
    float w = 0.0f;
    for (int l = 0; l < MC_NL; l++) {
        if (l == k) continue;
        float f = 0.0f;
        for (int b = 0; b < MC_NB; b++) f += sPTDF[l * MC_NB + b] * P[b];
        float fp = f + sLODF[l * MC_NL + k] * fk;
        float load = fabsf(fp) / sRate[l];
        if (load > 1.0f) viol++;
        w = fmaxf(w, load);
    }
    n_viol[s] = viol;
    worst[s] = w;
    if (viol > 0) atomicAdd(n_insecure, 1);
}

// branch flows of the pi model (series y = g + jb, total charging bsh) at the voltages Vm,
// Va, added into the bus injections: P[f] += P_ft, Q[f] += Q_ft, P[t] += P_tf, Q[t] += Q_tf
__global__ void branch_injection(const int *from, const int *to, const float *g, const float *b,
                                 const float *bsh, const float *Vm, const float *Va, float *P, float *Q, int m) {
    int l = blockIdx.x * blockDim.x + threadIdx.x;
    if (l >= m) return;
    int f = from[l];
    int t = to[l];
    float gl = g[l];
    float bl = b[l];
    float bc = 0.5f * bsh[l];
    float vf = Vm[f];
    float vt = Vm[t];
    float s, c;
    sincosf(Va[f] - Va[t], &s, &c);
    float vv = vf * vt;
    float pft = vf * vf * gl - vv * (gl * c + bl * s);
    float qft = -vf * vf * (bl + bc) - vv * (gl * s - bl * c);
    float ptf = vt * vt * gl - vv * (gl * c - bl * s);
    float qtf = -vt * vt * (bl + bc) + vv * (gl * s + bl * c);
    atomicAdd(&P[f], pft);
    atomicAdd(&Q[f], qft);
    atomicAdd(&P[t], ptf);
    atomicAdd(&Q[t], qtf);
}

// one red-black SOR sweep of colour `color` ((i + j) % 2 == color) on the DC power flow of
// an nx x ny mesh: bh[id] the line to the east neighbour, bv[id] to the south one; bus 0
// the slack (theta 0)
__global__ void rbgs_dcpf(float *theta, const float *P, const float *bh, const float *bv, float omega, int color,
                          int nx, int ny) {
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = 2 * (blockIdx.x * blockDim.x + threadIdx.x) + ((i + color) & 1);
    if (i >= ny || j >= nx) return;
    int id = i * nx + j;
    if (id == 0) return;
    float num = P[id];
    float den = 0.0f;
    if (j > 0) {
        float bl = bh[id - 1];
        num += bl * theta[id - 1];
        den += bl;
    }
    if (j < nx - 1) {
        float bl = bh[id];
        num += bl * theta[id + 1];
        den += bl;
    }
    if (i > 0) {
        float bl = bv[id - nx];
        num += bl * theta[id - nx];
        den += bl;
    }
    if (i < ny - 1) {
        float bl = bv[id];
        num += bl * theta[id + nx];
        den += bl;
    }
    theta[id] = (1.0f - omega) * theta[id] + omega * num / den;
}

// economic dispatch of ED_NG generators (cost a + b P + c P^2, Pmin <= P <= Pmax) for the
// load demand[s] of scenario s = blockIdx.x: bisection on lambda in [lam_lo, lam_hi] while
// the bracket is wider than tol, P_g(lambda) = clamp((lambda - b) / 2c); the dispatch, the
// final lambda and the total cost stored
__global__ void ed_lambda(const float *ca, const float *cb, const float *cc, const float *pmin, const float *pmax,
                          const float *demand, float *p_out, float *lambda, float *cost, float lam_lo, float lam_hi,
                          float tol) {
    __shared__ float s_sum[ED_NG];
    __shared__ float s_lo, s_hi;
    int g = threadIdx.x;
    int sc = blockIdx.x;
    float b = cb[g];
    float c = cc[g];
    float lo_g = pmin[g];
    float hi_g = pmax[g];
    float D = demand[sc];
    if (g == 0) {
        s_lo = lam_lo;
        s_hi = lam_hi;
    }
    __syncthreads();

    for (int it = 0; it < ED_MAX_IT && s_hi - s_lo > tol; it++) {
        float lam = 0.5f * (s_lo + s_hi);
        float p = fminf(fmaxf((lam - b) / (2.0f * c), lo_g), hi_g);
        s_sum[g] = p;
        __syncthreads();
        for (int st = ED_NG / 2; st > 0; st >>= 1) {
            if (g < st) s_sum[g] += s_sum[g + st];
            __syncthreads();
        }
        if (g == 0) {
            if (s_sum[0] < D)
                s_lo = lam;
            else
                s_hi = lam;
        }
        __syncthreads();
    }

    float lam = 0.5f * (s_lo + s_hi);
    float p = fminf(fmaxf((lam - b) / (2.0f * c), lo_g), hi_g);
    p_out[sc * ED_NG + g] = p;
    s_sum[g] = ca[g] + b * p + c * p * p;
    __syncthreads();
    for (int st = ED_NG / 2; st > 0; st >>= 1) {
        if (g < st) s_sum[g] += s_sum[g + st];
        __syncthreads();
    }
    if (g == 0) {
        lambda[sc] = lam;
        cost[sc] = s_sum[0];
    }
}

// line limit checks of m lines: the from-end current |I| = |(y + j bsh/2) V_f - y V_t| of
// the pi model over rate[l] stored as the loading (0 for a line out of service); loadings
// over WARN_LEVEL up to 1 counted in *n_warn, overloads counted in *n_over and appended
// (line, trip time) to the list while it has room
__global__ void line_limit_check(const int *from, const int *to, const float *g, const float *b, const float *bsh,
                                 const unsigned char *status, const unsigned char *kind, const float *rate,
                                 const float *Vm, const float *Va, float *loading, int *n_warn, int *n_over,
                                 int *over_line, float *over_t, int max_list, int m) {
    int l = blockIdx.x * blockDim.x + threadIdx.x;
    if (l >= m) return;
    if (status[l] == 0) {
        loading[l] = 0.0f;
        return;
    }
    int f = from[l];
    int t = to[l];
    float gl = g[l];
    float bl = b[l];
    float vf = Vm[f];
    float vt = Vm[t];
    float s, c;
    sincosf(Va[f] - Va[t], &s, &c);
    float ir = gl * vf - vt * (gl * c + bl * s);
    float ii = (bl + 0.5f * bsh[l]) * vf - vt * (bl * c - gl * s);
    float load = sqrtf(ir * ir + ii * ii) / rate[l];
    loading[l] = load;

    if (load > 1.0f) {
        float tt;
        float l2 = load * load;
        switch (kind[l]) {
        case OVERHEAD:
            tt = OH_TAU * logf(l2 / (l2 - 1.0f));
            break;
        case CABLE:
            tt = CABLE_TAU * logf(l2 / (l2 - 1.0f));
            break;
        default:
            tt = TRAFO_TMS * 0.14f / (powf(load, 0.02f) - 1.0f);
            break;
        }
        int k = atomicAdd(n_over, 1);
        if (k < max_list) {
            over_line[k] = l;
            over_t[k] = tt;
        }
    } else if (load > WARN_LEVEL) {
        atomicAdd(n_warn, 1);
    }
}

}
