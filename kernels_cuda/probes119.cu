// probe-unseen117: a control-systems / state-estimation course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - kf_cv_step: one predict + update step of a batch of constant-velocity Kalman filters
//    (1-D position/velocity trackers, a scalar position measurement each), a thread a
//    track, the tracks an array of structs (state and the covariance's 3 distinct entries)
//    read and written whole; the normalized innovation squared stored for a consistency
//    check;
//  - pid_msd_sim: a PID loop closed around a mass-spring-damper, a thread a plant (each
//    with its own m, c, k and gains: a gain sweep), PID_STEPS semi-implicit Euler steps of
//    a setpoint step response with actuator saturation and conditional-integration
//    anti-windup; the final position, the integral of squared error, the peak and the
//    step after which the output stays within 2% of the setpoint stored;
//  - ss_sim: a discrete state-space model x' = A x + B u, y = C x (SS_NX states, SS_NU
//    inputs, one output) shared by many systems with their own initial states and input
//    sequences, a thread a system, A, B and C staged in shared memory; `steps` steps, the
//    outputs stored a step and the final state written back (states and inputs stored
//    component-major so that a warp's loads coalesce);
//  - gnn_gate: measurement-to-track gating for a multi-target tracker: a thread a
//    measurement, the tracks' predicted positions and inverse innovation covariances
//    staged in shared memory; each track whose Mahalanobis gate (chi-square) contains the
//    measurement counts it by atomicAdd and keeps the nearest measurement by a 64-bit
//    atomicMin of (d^2 bits << 32 | measurement index);
//  - iir_q14_df1: a fixed-point (Q2.14) 4th-order low-pass IIR, two direct-form-I biquads
//    with 64-bit accumulators, rounding and saturation to 16 bits, on int16 sensor streams
//    stored a channel after another (planar), a thread a channel walking its samples in
//    order;
//  - dare_riccati: value iteration of the discrete algebraic Riccati equation for many
//    small LQR problems in double (DARE_NX states, one input: a forward-Euler discretized
//    mass-spring-damper driven by a force), a thread a problem, iterated from
//    P = Q until the largest change is below tol times the largest entry (at most
//    DARE_MAX_IT sweeps); P, the gain K and the number of sweeps stored.

#define PID_STEPS 1000        // pid_msd_sim: time steps a plant
#define SS_NX 8               // ss_sim: states
#define SS_NU 2               // ss_sim: inputs
#define GATE_MAX_TRACKS 256   // gnn_gate: the most tracks (the shared arrays' size)
#define IIR_NSEC 2            // iir_q14_df1: second-order sections
#define IIR_Q 14              // iir_q14_df1: coefficients' fraction bits
#define DARE_NX 2             // dare_riccati: states
#define DARE_MAX_IT 1000      // dare_riccati: the most Riccati sweeps

// a constant-velocity track: position, velocity and the covariance [[p00, p01], [p01, p11]]
struct Track {
    float x;
    float v;
    float p00;
    float p01;
    float p11;
};

extern "C" {

// predict with F = [[1, dt], [0, 1]] and the white-acceleration noise Q = q [[dt^3/3,
// dt^2/2], [dt^2/2, dt]], then update with z[i] = x + noise of variance r
__global__ void kf_cv_step(Track *tracks, const float *z, float *nis, float dt, float q, float r, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Track t = tracks[i];

    // predict
    float xp = t.x + dt * t.v;
    float vp = t.v;
    float p00 = t.p00 + dt * (2.0f * t.p01 + dt * t.p11) + q * dt * dt * dt / 3.0f;
    float p01 = t.p01 + dt * t.p11 + q * dt * dt / 2.0f;
    float p11 = t.p11 + q * dt;

    // update
    float s = p00 + r;
    float k0 = p00 / s;
    float k1 = p01 / s;
    float y = z[i] - xp;
    t.x = xp + k0 * y;
    t.v = vp + k1 * y;
    t.p00 = (1.0f - k0) * p00;
    t.p01 = (1.0f - k0) * p01;
    t.p11 = p11 - k1 * p01;
    tracks[i] = t;
    nis[i] = y * y / s;
}

// n plants m x'' + c x' + k x = u from rest, PID on e = r - x with |u| <= umax (the
// integrator frozen while saturated), PID_STEPS steps of dt
__global__ void pid_msd_sim(const float *kp, const float *ki, const float *kd, const float *mass,
                            const float *damp, const float *stiff, float *x_end, float *ise, float *peak,
                            int *settle, float r, float umax, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float Kp = kp[i];
    float Ki = ki[i];
    float Kd = kd[i];
    float m = mass[i];
    float c = damp[i];
    float k = stiff[i];

    float x = 0.0f;
    float v = 0.0f;
    float integ = 0.0f;
    float e_prev = r;
    float cost = 0.0f;
    float xmax = 0.0f;
    int last_out = 0;
    for (int s = 0; s < PID_STEPS; s++) {
        float e = r - x;
        integ += e * dt;
        float deriv = (e - e_prev) / dt;
        float u = Kp * e + Ki * integ + Kd * deriv;
        if (u > umax) {
            u = umax;
            integ -= e * dt;
        } else if (u < -umax) {
            u = -umax;
            integ -= e * dt;
        }
        float a = (u - c * v - k * x) / m;
        v += a * dt;
        x += v * dt;
        cost += e * e * dt;
        xmax = fmaxf(xmax, x);
        if (fabsf(r - x) > 0.02f * r) last_out = s + 1;
        e_prev = e;
    }
    x_end[i] = x;
    ise[i] = cost;
    peak[i] = xmax;
    settle[i] = last_out;
}

// n systems of one model, `steps` steps: y_t = C x_t, x_{t+1} = A x_t + B u_t; x (SS_NX x
// n) holds the initial states and gets the final ones, u is (steps x SS_NU x n), y (steps
// x n); A, B, C row-major
__global__ void ss_sim(const float *A, const float *B, const float *C, float *x, const float *u, float *y,
                       int steps, int n) {
    __shared__ float sA[SS_NX * SS_NX];
    __shared__ float sB[SS_NX * SS_NU];
    __shared__ float sC[SS_NX];
    for (int k = threadIdx.x; k < SS_NX * SS_NX; k += blockDim.x) sA[k] = A[k];
    for (int k = threadIdx.x; k < SS_NX * SS_NU; k += blockDim.x) sB[k] = B[k];
    if (threadIdx.x < SS_NX) sC[threadIdx.x] = C[threadIdx.x];
    __syncthreads();

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xs[SS_NX];
    float xn[SS_NX];
    float us[SS_NU];
    for (int j = 0; j < SS_NX; j++) xs[j] = x[j * n + i];
    for (int t = 0; t < steps; t++) {
        for (int k = 0; k < SS_NU; k++) us[k] = u[(t * SS_NU + k) * n + i];
        float yt = 0.0f;
        for (int j = 0; j < SS_NX; j++) yt += sC[j] * xs[j];
        y[t * n + i] = yt;
        for (int r = 0; r < SS_NX; r++) {
            float acc = 0.0f;
            for (int c = 0; c < SS_NX; c++) acc += sA[r * SS_NX + c] * xs[c];
            for (int k = 0; k < SS_NU; k++) acc += sB[r * SS_NU + k] * us[k];
            xn[r] = acc;
        }
        for (int j = 0; j < SS_NX; j++) xs[j] = xn[j];
    }
    for (int j = 0; j < SS_NX; j++) x[j * n + i] = xs[j];
}

// n measurements (mx, my) against ntracks tracks (predicted position tx, ty; inverse
// innovation covariance [[s00, s01], [s01, s11]]): d^2 = d^T S^-1 d < gate counts the
// measurement for the track and offers it as the track's nearest
__global__ void gnn_gate(const float *mx, const float *my, const float *tx, const float *ty, const float *s00,
                         const float *s01, const float *s11, int *count, unsigned long long *nearest, float gate,
                         int ntracks, int n) {
    __shared__ float s_tx[GATE_MAX_TRACKS];
    __shared__ float s_ty[GATE_MAX_TRACKS];
    __shared__ float s_a[GATE_MAX_TRACKS];
    __shared__ float s_b[GATE_MAX_TRACKS];
    __shared__ float s_c[GATE_MAX_TRACKS];
    for (int t = threadIdx.x; t < ntracks; t += blockDim.x) {
        s_tx[t] = tx[t];
        s_ty[t] = ty[t];
        s_a[t] = s00[t];
        s_b[t] = s01[t];
        s_c[t] = s11[t];
    }
    __syncthreads();

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float px = mx[i];
    float py = my[i];
    for (int t = 0; t < ntracks; t++) {
        float dx = px - s_tx[t];
        float dy = py - s_ty[t];
        float d2 = s_a[t] * dx * dx + 2.0f * s_b[t] * dx * dy + s_c[t] * dy * dy;
        if (d2 < gate) {
            atomicAdd(&count[t], 1);
            unsigned long long key = ((unsigned long long)__float_as_uint(d2) << 32) | (unsigned int)i;
            atomicMin(&nearest[t], key);
        }
    }
}

// nch channels of nsamp int16 samples (channel c's at x[c * nsamp ...]) through IIR_NSEC
// biquads y = (b0 x + b1 x1 + b2 x2 - a1 y1 - a2 y2 + 2^(Q-1)) >> Q, saturated to int16,
// coef[s * 5 ...] = b0, b1, b2, a1, a2 in Q2.14 shared by all channels; states from zero
__global__ void iir_q14_df1(const short *x, short *y, const short *coef, int nsamp, int nch) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= nch) return;
    int b0[IIR_NSEC], b1[IIR_NSEC], b2[IIR_NSEC], a1[IIR_NSEC], a2[IIR_NSEC];
    int x1[IIR_NSEC], x2[IIR_NSEC], y1[IIR_NSEC], y2[IIR_NSEC];
    for (int s = 0; s < IIR_NSEC; s++) {
        b0[s] = coef[s * 5 + 0];
        b1[s] = coef[s * 5 + 1];
        b2[s] = coef[s * 5 + 2];
        a1[s] = coef[s * 5 + 3];
        a2[s] = coef[s * 5 + 4];
        x1[s] = 0;
        x2[s] = 0;
        y1[s] = 0;
        y2[s] = 0;
    }
    const short *in = x + (long long)c * nsamp;
    short *out = y + (long long)c * nsamp;
    for (int t = 0; t < nsamp; t++) {
        int v = in[t];
        for (int s = 0; s < IIR_NSEC; s++) {
            long long acc = (long long)b0[s] * v + (long long)b1[s] * x1[s] + (long long)b2[s] * x2[s] -
                            (long long)a1[s] * y1[s] - (long long)a2[s] * y2[s];
            acc += 1 << (IIR_Q - 1);
            long long o = acc >> IIR_Q;
            if (o > 32767) o = 32767;
            if (o < -32768) o = -32768;
            x2[s] = x1[s];
            x1[s] = v;
            y2[s] = y1[s];
            y1[s] = (int)o;
            v = (int)o;
        }
        out[t] = (short)v;
    }
}

// n LQR problems: A (n x DARE_NX x DARE_NX), b (n x DARE_NX), the diagonal of Q (n x
// DARE_NX) and r (n); P <- Q + A^T P A - (A^T P b)(b^T P A) / (r + b^T P b) from P = Q until
// max |P' - P| <= tol max |P'|; P (n x DARE_NX x DARE_NX), K = b^T P A / (r + b^T P b)
// (n x DARE_NX) and the sweeps stored
__global__ void dare_riccati(const double *A, const double *B, const double *Qd, const double *R, double *P_out,
                             double *K_out, int *iters, double tol, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double a[DARE_NX][DARE_NX];
    double b[DARE_NX];
    double q[DARE_NX];
    double p[DARE_NX][DARE_NX];
    for (int r = 0; r < DARE_NX; r++) {
        for (int c = 0; c < DARE_NX; c++) {
            a[r][c] = A[(i * DARE_NX + r) * DARE_NX + c];
            p[r][c] = 0.0;
        }
        b[r] = B[i * DARE_NX + r];
        q[r] = Qd[i * DARE_NX + r];
        p[r][r] = q[r];
    }
    double rr = R[i];

    double pa[DARE_NX][DARE_NX];
    double bpa[DARE_NX];
    double s = 0.0;
    int it = 0;
    double diff, pmax;
    do {
        // pa = P A, s = r + b^T P b, bpa = b^T P A
        for (int r = 0; r < DARE_NX; r++) {
            for (int c = 0; c < DARE_NX; c++) {
                double sum = 0.0;
                for (int k = 0; k < DARE_NX; k++) sum += p[r][k] * a[k][c];
                pa[r][c] = sum;
            }
        }
        s = rr;
        for (int r = 0; r < DARE_NX; r++) {
            double pb = 0.0;
            for (int k = 0; k < DARE_NX; k++) pb += p[r][k] * b[k];
            s += b[r] * pb;
        }
        for (int c = 0; c < DARE_NX; c++) {
            double sum = 0.0;
            for (int k = 0; k < DARE_NX; k++) sum += b[k] * pa[k][c];
            bpa[c] = sum;
        }
        // P' = Q + A^T pa - bpa^T bpa / s
        diff = 0.0;
        pmax = 0.0;
        for (int r = 0; r < DARE_NX; r++) {
            for (int c = 0; c < DARE_NX; c++) {
                double sum = (r == c) ? q[r] : 0.0;
                for (int k = 0; k < DARE_NX; k++) sum += a[k][r] * pa[k][c];
                sum -= bpa[r] * bpa[c] / s;
                diff = fmax(diff, fabs(sum - p[r][c]));
                pmax = fmax(pmax, fabs(sum));
                p[r][c] = sum;
            }
        }
        it++;
    } while (diff > tol * pmax && it < DARE_MAX_IT);

    // the gain from the final P
    for (int r = 0; r < DARE_NX; r++) {
        for (int c = 0; c < DARE_NX; c++) {
            double sum = 0.0;
            for (int k = 0; k < DARE_NX; k++) sum += p[r][k] * a[k][c];
            pa[r][c] = sum;
        }
    }
    s = rr;
    for (int r = 0; r < DARE_NX; r++) {
        double pb = 0.0;
        for (int k = 0; k < DARE_NX; k++) pb += p[r][k] * b[k];
        s += b[r] * pb;
    }
    for (int c = 0; c < DARE_NX; c++) {
        double sum = 0.0;
        for (int k = 0; k < DARE_NX; k++) sum += b[k] * pa[k][c];
        K_out[i * DARE_NX + c] = sum / s;
    }
    for (int r = 0; r < DARE_NX; r++)
        for (int c = 0; c < DARE_NX; c++) P_out[(i * DARE_NX + r) * DARE_NX + c] = p[r][c];
    iters[i] = it;
}

}
