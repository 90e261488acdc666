// probe-unseen187: a biomechanics / musculoskeletal simulation course's CUDA assignments, as a
// student who knows CUDA basics hands them in (SI units unless said otherwise):
//  - muscle_eq_force: Hill-type muscle-tendon forces of a model's muscles over many time
//    samples, a thread a (muscle, sample) (a muscle's samples contiguous, its parameters a
//    Muscle struct): the compliant tendon's equilibrium fiber length found by bisection
//    (Thelen 2003 curves: Gaussian active force-length, exponential passive force, an
//    exponential toe then linear tendon, a Hill hyperbola force-velocity taken at the
//    musculotendon velocity; constant-thickness pennation), the tendon force and the fiber
//    length stored;
//  - gait_inverse_dynamics: inverse dynamics of a planar 7-segment gait model (head-arms-trunk,
//    two thighs, shanks and feet), a thread a frame of instrumented-treadmill walking:
//    segment angles, angular velocities and accelerations and the hip's position and
//    acceleration (a frame's 25 floats together), the feet's ground reaction forces; each
//    leg's segment kinematics in per-thread arrays, then Newton-Euler from the foot up, the
//    subject's anthropometrics (Winter's tables) in __constant__; the 6 net joint moments and
//    the trunk's residual force and moment stored;
//  - marker_pose_horn: a rigid marker cluster's pose in each motion-capture frame, a thread a
//    frame: the visible markers' (occluded ones exported as 0, 0, 0) centroids and
//    cross-covariance against the static trial's cluster in __constant__, Horn's 4 x 4
//    quaternion matrix and its largest eigenvector by a fixed number of shifted power
//    iterations (no SVD), then the translation and the RMS marker residual;
//  - forceplate_cop: a Kistler-type force plate's 8 channels (channel-major) to the ground
//    reaction force's vertical component, centre of pressure and free moment, the six
//    resultants smoothed by a 9-sample moving average done with __shfl_up_sync /
//    __shfl_down_sync (each warp loads 32 samples and stores its middle 24), no centre of
//    pressure under a vertical-force threshold;
//  - qct_bmd_hist: a quantitative-CT bone-density histogram: HU calibrated to mg HA/cm^3 by
//    the phantom's line, binned per anatomical region of a segmentation label volume (uint8,
//    0 outside bone) in a block-private shared-memory histogram (shared atomicAdd between two
//    __syncthreads, grid-stride loop), the block's non-zero bins added to global;
//  - tet_stiffness_assemble: assembly of a linear tetrahedral finite-element model of a bone
//    into a node-block CSR matrix (3 x 3 blocks), a thread an element, in double: the shape
//    functions' gradients from the inverted Jacobian, Young's modulus from the element's
//    CT-derived density (Morgan 2003 power law), the 12 x 12 element matrix V B^T D B from
//    per-thread B, D and DB arrays, each of its 16 blocks' position found by a linear search
//    of the node's CSR row and added by 9 double atomicAdds.

#define HILL_ITERS 20          // muscle_eq_force: bisection steps on the fiber length
#define HILL_GAMMA 0.45f       // active force-length Gaussian's width (squared, normalised lengths)
#define HILL_KPE 4.0f          // passive force's exponential shape
#define HILL_E0M 0.6f          // passive strain at the maximum isometric force
#define HILL_AF 0.25f          // force-velocity: concentric hyperbola's shape
#define HILL_FLEN 1.8f         // eccentric force asymptote
#define HILL_VB 0.18f          // eccentric hyperbola's constant
#define TEN_FTOE 0.33f         // tendon: force at the end of the toe region (of Fmax)
#define TEN_KTOE 3.0f          // toe region's exponential shape
#define TEN_ETOE 0.02436f      // strain at the end of the toe region (0.609 x 4%)
#define TEN_KLIN 42.8f         // linear region's stiffness (1.712 / 4%)
#define ID_SEG 7               // gait_inverse_dynamics: segments (0 HAT, 1-3 right thigh, shank, foot, 4-6 left)
#define ID_KIN 25              // floats a frame: hip x, y, ax, ay, then 7 angles, 7 velocities, 7 accelerations
#define ID_GRF 6               // floats a frame: right Fx, Fy, CoP x, left Fx, Fy, CoP x
#define ID_OUT 9               // floats out a frame: 6 joint moments, the residual Fx, Fy, M
#define ID_SUBJ 64             // subjects with anthropometrics in __constant__
#define ID_G 9.81f
#define HORN_M 6               // marker_pose_horn: markers in the cluster
#define HORN_ITERS 32          // power iterations
#define FP_R 4                 // forceplate_cop: the moving average's half-width (samples)
#define FP_OUT (32 - 2 * FP_R) // samples stored a warp
#define FP_FZMIN 20.0f         // N: no centre of pressure below this vertical force
#define QCT_REGIONS 8          // qct_bmd_hist: labels 1 .. QCT_REGIONS
#define QCT_BINS 256           // density bins a region
#define QCT_BIN_W 8.0f         // mg HA/cm^3 a bin, from 0
#define FE_E0 6850.0           // tet_stiffness_assemble: E = FE_E0 rho^FE_EXP MPa (Morgan et al. 2003)
#define FE_EXP 1.49

// muscle_eq_force's muscle parameters
struct Muscle {
    float fmax;      // maximum isometric force (N)
    float lopt;      // optimal fiber length (m)
    float lslack;    // tendon slack length (m)
    float alpha0;    // pennation angle at the optimal fiber length (rad)
    float vmax;      // maximum shortening velocity (optimal fiber lengths / s)
};

// gait_inverse_dynamics' anthropometrics (set by the host): subject s, segment g's mass (kg),
// length (m), centre of mass' distance from the proximal joint (a fraction of the length) and
// moment of inertia about the centre of mass (kg m^2) at ((s * ID_SEG) + g) * 4
__constant__ float c_seg[ID_SUBJ * ID_SEG * 4];
// marker_pose_horn's cluster in the static trial (set by the host), marker j at 3 j (mm)
__constant__ float c_ref[HORN_M * 3];

// normalised tendon force at tendon length lt (slack length ls)
__device__ float tendon_force(float lt, float ls) {
    float e = (lt - ls) / ls;
    if (e <= 0.0f) return 0.0f;
    if (e < TEN_ETOE) return TEN_FTOE / (expf(TEN_KTOE) - 1.0f) * (expf(TEN_KTOE * e / TEN_ETOE) - 1.0f);
    return TEN_KLIN * (e - TEN_ETOE) + TEN_FTOE;
}

// normalised fiber force at normalised length l, activation a, force-velocity factor fv
__device__ float fiber_force(float l, float a, float fv) {
    float fl = expf(-(l - 1.0f) * (l - 1.0f) / HILL_GAMMA);
    float fpe = 0.0f;
    if (l > 1.0f) fpe = (expf(HILL_KPE * (l - 1.0f) / HILL_E0M) - 1.0f) / (expf(HILL_KPE) - 1.0f);
    return a * fl * fv + fpe;
}

extern "C" {

// n = n_mus * T samples, muscle i / T's musculotendon length lmt (m), its lengthening velocity
// vmt (m/s) and activation act at i: force[i] the tendon force (N) and lfib[i] the fiber length
// (m) at which the tendon force equals the fiber force along the tendon, bisected in
// 0.3 .. 1.8 optimal lengths (and above the pennation's thickness)
__global__ void muscle_eq_force(const Muscle *mus, const float *lmt, const float *vmt, const float *act,
                                float *force, float *lfib, int T, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Muscle m = mus[i / T];
    float L = lmt[i];
    float a = act[i];
    float h = m.lopt * sinf(m.alpha0);             // l sin(alpha) stays h
    float v = vmt[i] / (m.vmax * m.lopt);
    v = fminf(fmaxf(v, -1.0f), 1.0f);
    float fv;
    if (v < 0.0f)
        fv = (1.0f + v) / (1.0f - v / HILL_AF);        // shortening
    else
        fv = (HILL_FLEN * v + HILL_VB) / (v + HILL_VB);  // lengthening
    float lo = fmaxf(0.3f * m.lopt, 1.01f * h);
    float hi = 1.8f * m.lopt;
    for (int k = 0; k < HILL_ITERS; k++) {
        float lm = 0.5f * (lo + hi);
        float s = h / lm;
        float cosa = sqrtf(1.0f - s * s);
        float g = tendon_force(L - lm * cosa, m.lslack) - fiber_force(lm / m.lopt, a, fv) * cosa;
        if (g > 0.0f)
            lo = lm;      // the tendon pulls harder: the fiber is longer
        else
            hi = lm;
    }
    float lm = 0.5f * (lo + hi);
    float s = h / lm;
    float cosa = sqrtf(1.0f - s * s);
    force[i] = m.fmax * tendon_force(L - lm * cosa, m.lslack);
    lfib[i] = lm;
}

// n frames: kin (ID_KIN a frame), grf (ID_GRF a frame; zero in swing), subj (the frame's subject):
// out (ID_OUT a frame) the right ankle, knee, hip and left ankle, knee, hip moments (N m, on the
// distal segment, counter-clockwise positive) and the residual force and moment on the trunk
// (y up, gravity -ID_G)
__global__ void gait_inverse_dynamics(const float *kin, const float *grf, const int *subj, float *out, int n) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= n) return;
    const float *k = kin + f * ID_KIN;
    const float *sp = c_seg + subj[f] * ID_SEG * 4;
    float ux[ID_SEG], uy[ID_SEG];          // segment directions, proximal to distal
    float cx[ID_SEG], cy[ID_SEG];          // centres of mass
    float ax[ID_SEG], ay[ID_SEG];          // their accelerations
    float px[ID_SEG], py[ID_SEG];          // proximal joints
    float hx = k[0], hy = k[1];
    for (int s = 0; s < ID_SEG; s++) sincosf(k[4 + s], &uy[s], &ux[s]);
    // the trunk, from the hip up
    {
        float L = sp[1], c = sp[2], w = k[11], al = k[18];
        px[0] = hx;
        py[0] = hy;
        cx[0] = hx + c * L * ux[0];
        cy[0] = hy + c * L * uy[0];
        ax[0] = k[2] + c * L * (-al * uy[0] - w * w * ux[0]);
        ay[0] = k[3] + c * L * (al * ux[0] - w * w * uy[0]);
    }
    // each leg's chain: hip -> knee -> ankle -> toe
    for (int leg = 0; leg < 2; leg++) {
        float jx = hx, jy = hy, jax = k[2], jay = k[3];
        for (int j = 0; j < 3; j++) {
            int s = 1 + 3 * leg + j;
            float L = sp[s * 4 + 1], c = sp[s * 4 + 2], w = k[11 + s], al = k[18 + s];
            float tx = -al * uy[s] - w * w * ux[s];   // tangential and centripetal
            float ty = al * ux[s] - w * w * uy[s];
            px[s] = jx;
            py[s] = jy;
            cx[s] = jx + c * L * ux[s];
            cy[s] = jy + c * L * uy[s];
            ax[s] = jax + c * L * tx;
            ay[s] = jay + c * L * ty;
            jx += L * ux[s];
            jy += L * uy[s];
            jax += L * tx;
            jay += L * ty;
        }
    }
    // Newton-Euler from each foot up; (dx, dy) the distal load's point, (Fx, Fy, M) the load on
    // the segment there
    float hipFx = 0.0f, hipFy = 0.0f, hipM = 0.0f;     // the legs' loads on the trunk at the hip
    for (int leg = 0; leg < 2; leg++) {
        const float *g = grf + f * ID_GRF + 3 * leg;
        float Fx = g[0], Fy = g[1], M = 0.0f;
        float dx = g[2], dy = 0.0f;
        for (int j = 2; j >= 0; j--) {
            int s = 1 + 3 * leg + j;
            float m = sp[s * 4], I = sp[s * 4 + 3], al = k[18 + s];
            float Px = m * ax[s] - Fx;                  // the proximal joint's force on the segment
            float Py = m * (ay[s] + ID_G) - Fy;
            float rpx = px[s] - cx[s], rpy = py[s] - cy[s];
            float rdx = dx - cx[s], rdy = dy - cy[s];
            float Pm = I * al - M - (rpx * Py - rpy * Px) - (rdx * Fy - rdy * Fx);
            out[f * ID_OUT + 3 * leg + 2 - j] = Pm;
            Fx = -Px;                                   // on the next segment up
            Fy = -Py;
            M = -Pm;
            dx = px[s];
            dy = py[s];
        }
        hipFx += Fx;
        hipFy += Fy;
        hipM += M;
    }
    // the trunk: what the legs leave unbalanced
    float m = sp[0], I = sp[3], al = k[18];
    float Rx = m * ax[0] - hipFx;
    float Ry = m * (ay[0] + ID_G) - hipFy;
    float Rm = I * al - hipM - ((px[0] - cx[0]) * hipFy - (py[0] - cy[0]) * hipFx);
    out[f * ID_OUT + 6] = Rx;
    out[f * ID_OUT + 7] = Ry;
    out[f * ID_OUT + 8] = Rm;
}

// n frames of HORN_M markers (mk: frame f's marker j at (f * HORN_M + j) * 3, mm; occluded
// ones 0, 0, 0): q (4 a frame: w, x, y, z) and t (3 a frame, mm) the rotation and translation
// taking c_ref onto the visible markers, rms (mm) the residual; with under 3 visible markers
// q = t = 0 and rms = -1
__global__ void marker_pose_horn(const float *mk, float *q, float *t, float *rms, int n) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= n) return;
    const float *p = mk + f * HORN_M * 3;
    float ca[3] = {0.0f, 0.0f, 0.0f}, cb[3] = {0.0f, 0.0f, 0.0f};
    int nv = 0;
    for (int j = 0; j < HORN_M; j++) {
        if (p[3 * j] == 0.0f && p[3 * j + 1] == 0.0f && p[3 * j + 2] == 0.0f) continue;
        for (int c = 0; c < 3; c++) {
            ca[c] += c_ref[3 * j + c];
            cb[c] += p[3 * j + c];
        }
        nv++;
    }
    if (nv < 3) {
        for (int c = 0; c < 4; c++) q[4 * f + c] = 0.0f;
        for (int c = 0; c < 3; c++) t[3 * f + c] = 0.0f;
        rms[f] = -1.0f;
        return;
    }
    for (int c = 0; c < 3; c++) {
        ca[c] /= nv;
        cb[c] /= nv;
    }
    // S[r][c] = sum a_r b_c over the centred visible markers
    float S[3][3] = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
    float shift = 0.0f;
    for (int j = 0; j < HORN_M; j++) {
        if (p[3 * j] == 0.0f && p[3 * j + 1] == 0.0f && p[3 * j + 2] == 0.0f) continue;
        float a[3], b[3];
        for (int c = 0; c < 3; c++) {
            a[c] = c_ref[3 * j + c] - ca[c];
            b[c] = p[3 * j + c] - cb[c];
        }
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) S[r][c] += a[r] * b[c];
        shift += 0.5f * (a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    }
    // Horn's matrix, shifted so that its largest eigenvalue is the largest in magnitude
    float N[4][4];
    N[0][0] = S[0][0] + S[1][1] + S[2][2] + shift;
    N[0][1] = S[1][2] - S[2][1];
    N[0][2] = S[2][0] - S[0][2];
    N[0][3] = S[0][1] - S[1][0];
    N[1][1] = S[0][0] - S[1][1] - S[2][2] + shift;
    N[1][2] = S[0][1] + S[1][0];
    N[1][3] = S[2][0] + S[0][2];
    N[2][2] = -S[0][0] + S[1][1] - S[2][2] + shift;
    N[2][3] = S[1][2] + S[2][1];
    N[3][3] = -S[0][0] - S[1][1] + S[2][2] + shift;
    for (int r = 1; r < 4; r++)
        for (int c = 0; c < r; c++) N[r][c] = N[c][r];
    float v[4] = {1.0f, 0.0f, 0.0f, 0.0f};
    for (int it = 0; it < HORN_ITERS; it++) {
        float w[4];
        for (int r = 0; r < 4; r++) w[r] = N[r][0] * v[0] + N[r][1] * v[1] + N[r][2] * v[2] + N[r][3] * v[3];
        float inv = rsqrtf(w[0] * w[0] + w[1] * w[1] + w[2] * w[2] + w[3] * w[3]);
        for (int r = 0; r < 4; r++) v[r] = w[r] * inv;
    }
    float q0 = v[0], qx = v[1], qy = v[2], qz = v[3];
    float R[3][3];
    R[0][0] = q0 * q0 + qx * qx - qy * qy - qz * qz;
    R[0][1] = 2.0f * (qx * qy - q0 * qz);
    R[0][2] = 2.0f * (qx * qz + q0 * qy);
    R[1][0] = 2.0f * (qx * qy + q0 * qz);
    R[1][1] = q0 * q0 - qx * qx + qy * qy - qz * qz;
    R[1][2] = 2.0f * (qy * qz - q0 * qx);
    R[2][0] = 2.0f * (qx * qz - q0 * qy);
    R[2][1] = 2.0f * (qy * qz + q0 * qx);
    R[2][2] = q0 * q0 - qx * qx - qy * qy + qz * qz;
    float tr[3];
    for (int r = 0; r < 3; r++) tr[r] = cb[r] - (R[r][0] * ca[0] + R[r][1] * ca[1] + R[r][2] * ca[2]);
    float e2 = 0.0f;
    for (int j = 0; j < HORN_M; j++) {
        if (p[3 * j] == 0.0f && p[3 * j + 1] == 0.0f && p[3 * j + 2] == 0.0f) continue;
        for (int r = 0; r < 3; r++) {
            float d = R[r][0] * c_ref[3 * j] + R[r][1] * c_ref[3 * j + 1] + R[r][2] * c_ref[3 * j + 2] + tr[r] -
                      p[3 * j + r];
            e2 += d * d;
        }
    }
    for (int c = 0; c < 4; c++) q[4 * f + c] = v[c];
    for (int c = 0; c < 3; c++) t[3 * f + c] = tr[c];
    rms[f] = sqrtf(e2 / nv);
}

// n samples of 8 channels (ch: channel c's sample i at c * n + i: fx12, fx34, fy14, fy23, fz1 ..
// fz4, N) of a plate with sensors at (+-a, +-b) (m) and its top az0 (m, negative) above them:
// the resultants moving-averaged over the samples within FP_R (fewer at the ends), then fz (N),
// the centre of pressure copx, copy (m) and the free moment tz (N m), 0 where fz < FP_FZMIN;
// a warp FP_OUT samples (blockDim.x a multiple of 32)
__global__ void forceplate_cop(const float *ch, float *fz, float *copx, float *copy, float *tz, float a, float b,
                               float az0, int n) {
    int lane = threadIdx.x & 31;
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int i = warp * FP_OUT + lane - FP_R;
    float c[8];
    for (int k = 0; k < 8; k++) c[k] = 0.0f;
    if (i >= 0 && i < n)
        for (int k = 0; k < 8; k++) c[k] = ch[k * n + i];
    float r[6];
    r[0] = c[0] + c[1];                                         // Fx
    r[1] = c[2] + c[3];                                         // Fy
    r[2] = c[4] + c[5] + c[6] + c[7];                           // Fz
    r[3] = b * (c[4] + c[5] - c[6] - c[7]);                     // Mx
    r[4] = a * (-c[4] + c[5] + c[6] - c[7]);                    // My
    r[5] = b * (-c[0] + c[1]) + a * (c[2] - c[3]);              // Mz
    for (int k = 0; k < 6; k++) {
        float s = r[k];
        for (int d = 1; d <= FP_R; d++)
            s += __shfl_down_sync(0xffffffff, r[k], d) + __shfl_up_sync(0xffffffff, r[k], d);
        r[k] = s;
    }
    if (lane < FP_R || lane >= 32 - FP_R || i >= n) return;
    int lo = max(i - FP_R, 0);
    int hi = min(i + FP_R, n - 1);
    float inv = 1.0f / (float)(hi - lo + 1);
    float Fx = r[0] * inv, Fy = r[1] * inv, Fz = r[2] * inv;
    float Mx = r[3] * inv + Fy * az0;
    float My = r[4] * inv - Fx * az0;
    float Mz = r[5] * inv;
    float x = 0.0f, y = 0.0f, T = 0.0f;
    if (Fz >= FP_FZMIN) {
        x = -My / Fz;
        y = Mx / Fz;
        T = Mz - Fy * x + Fx * y;
    }
    fz[i] = Fz;
    copx[i] = x;
    copy[i] = y;
    tz[i] = T;
}

// n voxels' HU (hu) and region labels (label, 0 outside bone): hist[(r - 1) * QCT_BINS + b] +=
// the voxels of region r whose density slope * HU + icpt (mg HA/cm^3) falls in bin b of
// QCT_BIN_W (clamped to the first and last bins)
__global__ void qct_bmd_hist(const short *hu, const unsigned char *label, unsigned int *hist, float slope,
                             float icpt, int n) {
    __shared__ unsigned int h[QCT_REGIONS * QCT_BINS];
    for (int k = threadIdx.x; k < QCT_REGIONS * QCT_BINS; k += blockDim.x) h[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int r = label[i];
        if (r == 0) continue;
        float bmd = slope * hu[i] + icpt;
        int b = (int)floorf(bmd / QCT_BIN_W);
        b = min(max(b, 0), QCT_BINS - 1);
        atomicAdd(&h[(r - 1) * QCT_BINS + b], 1u);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < QCT_REGIONS * QCT_BINS; k += blockDim.x)
        if (h[k] > 0) atomicAdd(&hist[k], h[k]);
}

// ne linear tetrahedra (tet: 4 node ids an element, positively oriented; xyz: 3 coordinates a
// node, mm; rho: apparent density, g/cm^3) assembled into the node-block CSR matrix (rowptr,
// col: a node's neighbours, itself included; val: 9 a block, row-major) of the stiffness
// (N/mm), Poisson's ratio nu
__global__ void tet_stiffness_assemble(const int *tet, const double *xyz, const float *rho, const int *rowptr,
                                       const int *col, double *val, double nu, int ne) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= ne) return;
    int nd[4];
    double x[4][3];
    for (int a = 0; a < 4; a++) {
        nd[a] = tet[4 * e + a];
        for (int c = 0; c < 3; c++) x[a][c] = xyz[3 * nd[a] + c];
    }
    double J[3][3];                      // columns: the edges from node 0
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) J[r][c] = x[c + 1][r] - x[0][r];
    double c00 = J[1][1] * J[2][2] - J[1][2] * J[2][1];
    double c01 = J[1][2] * J[2][0] - J[1][0] * J[2][2];
    double c02 = J[1][0] * J[2][1] - J[1][1] * J[2][0];
    double det = J[0][0] * c00 + J[0][1] * c01 + J[0][2] * c02;
    double id = 1.0 / det;
    double g[4][3];                      // shape functions' gradients: rows of J^-1, node 0 the rest
    g[1][0] = c00 * id;
    g[1][1] = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) * id;
    g[1][2] = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) * id;
    g[2][0] = c01 * id;
    g[2][1] = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) * id;
    g[2][2] = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) * id;
    g[3][0] = c02 * id;
    g[3][1] = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) * id;
    g[3][2] = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) * id;
    for (int c = 0; c < 3; c++) g[0][c] = -(g[1][c] + g[2][c] + g[3][c]);
    double V = det / 6.0;
    double E = FE_E0 * pow((double)rho[e], FE_EXP);
    double lam = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
    double mu = E / (2.0 * (1.0 + nu));
    double D[6][6];
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) D[r][c] = 0.0;
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) D[r][c] = lam;
        D[r][r] = lam + 2.0 * mu;
        D[r + 3][r + 3] = mu;
    }
    double B[6][12];                     // strains xx, yy, zz, xy, yz, zx (engineering shears)
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 12; c++) B[r][c] = 0.0;
    for (int a = 0; a < 4; a++) {
        B[0][3 * a] = g[a][0];
        B[1][3 * a + 1] = g[a][1];
        B[2][3 * a + 2] = g[a][2];
        B[3][3 * a] = g[a][1];
        B[3][3 * a + 1] = g[a][0];
        B[4][3 * a + 1] = g[a][2];
        B[4][3 * a + 2] = g[a][1];
        B[5][3 * a] = g[a][2];
        B[5][3 * a + 2] = g[a][0];
    }
    double DB[6][12];
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 12; c++) {
            double s = 0.0;
            for (int k = 0; k < 6; k++) s += D[r][k] * B[k][c];
            DB[r][c] = s;
        }
    for (int a = 0; a < 4; a++) {
        for (int bb = 0; bb < 4; bb++) {
            int p = rowptr[nd[a]];
            while (col[p] != nd[bb]) p++;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    double s = 0.0;
                    for (int r = 0; r < 6; r++) s += B[r][3 * a + i] * DB[r][3 * bb + j];
                    atomicAdd(&val[9 * p + 3 * i + j], V * s);
                }
        }
    }
}

}
