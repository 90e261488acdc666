// probe-unseen237: a power-electronics and electric-motor-drives course's CUDA assignments, as
// a student who knows CUDA basics hands them in (two-level voltage-source inverters, permanent
// magnet synchronous machines under field-oriented control, IGBT module losses, harmonic
// analysis of the inverter's output, parameter identification, drive-cycle statistics):
//  - svpwm_compare: space-vector PWM for a fleet of drives, a grid-stride loop over their
//    PWM periods: the alpha-beta voltage command (float2, coalesced) and the drive's dc-link
//    voltage (gathered, one address a warp), the sector from three sign tests through a
//    __constant__ table, the two active vectors' dwell times by a 6-way switch (divergent),
//    overmodulation clamped by rescaling (a divide; those periods counted per drive by
//    __ballot_sync / __popc and one int atomicAdd a warp), the three phases' compare values
//    of a center-aligned timer from a __constant__ table of the vectors' switch states,
//    stored as a 16-bit ushort4 (CMPA, CMPB, CMPC, sector + overmodulation flag);
//  - foc_pmsm_sim<SUB>: a Monte Carlo tolerance study of a servo drive, a thread a case
//    (a toleranced interior-PM motor and its tuning, fields of a 48-byte MotorCase struct
//    loaded with a 48-byte stride): the field-oriented speed and current control loop
//    simulated for nstep PWM periods, each a 12-bit ADC sample of two phase currents (rintf),
//    Clarke and Park transforms with an encoder-quantized angle (floorf, sincosf), the speed
//    by differencing the encoder and a first-order filter, the speed PI with clamping and
//    conditional integration, the MTPA d-current (sqrtf, a divide), the current PIs with
//    decoupling and the voltage-circle limit (sqrtf, a divide, divergent), the inverse
//    Park, then SUB forward-Euler substeps of the motor's dq model under the held
//    alpha-beta voltage (a sincosf and 3 divides each, #pragma unroll); the nominal motor
//    and the drive's constants a __constant__ struct (broadcast); a float4 of results;
//  - igbt_losses: the losses of an EV traction inverter's IGBT module over logged mission
//    profiles, a 2-D grid (blockIdx.y a phase leg, a grid-stride loop in x over its PWM
//    periods): a 12-byte LossSample struct a period (phase current, duty, 16-bit junction
//    temperature and dc-link voltage), the datasheet's on-state voltages and switching
//    energies by bilinear interpolation (current, temperature) in __constant__ tables
//    (lane-dependent indices: serialized constant reads), powf for the voltage scaling, the
//    current's sign choosing which IGBT and diode conduct (divergent at zero crossings), a
//    float4 of the four devices' losses stored, the leg's sums by __shfl_down_sync, shared
//    partials and one double atomicAdd each a block, the peak loss by an int atomicMax on
//    the float's bits;
//  - pwm_harmonics: the harmonic spectrum of the inverter's line-to-line voltage, a block a
//    captured fundamental period of 4096 switch-state bytes (uchar4 loads, bits unpacked into
//    a shared int8 waveform), a shared float2 twiddle table built by sincosf, a direct DFT of
//    harmonics 1..128 (two threads a harmonic, each half the period; the twiddle gathered at
//    (h n) mod N: bank conflicts; #pragma unroll 4), the halves combined through shared
//    memory, the amplitudes stored, THD and WTHD by __shfl_xor_sync and shared partials;
//  - pmsm_ls_identify: least-squares identification of Rs, Ld, Lq and the PM flux linkage
//    from a dynamometer log, a block a motor: a thread strides over the samples (float4 of
//    id, iq, vd, vq and the electrical speed; coalesced, the derivatives by central
//    differences of the neighbours' float4), the normal equations' 15 sums in double, a
//    shared-memory tree reduction with a __syncthreads a level, then thread 0's 4x4
//    Cholesky solve in double (sqrt, divides) and the residual's rms;
//  - efficiency_map: the operating-point statistics of an EV fleet's CAN logs over the
//    motor's speed-torque plane, a grid-stride loop: the 16-bit speed (rpm, unsigned) and
//    torque (0.1 N m, signed) of a sample (two coalesced 2-byte loads), its loss from a loss
//    model passed by value as a struct (copper with field weakening, iron by Steinmetz with
//    sqrtf, friction, inverter), its cell of a 48 x 64 map, three shared histograms (a
//    count, the loss and the mechanical energy) by shared atomicAdd (contended: the fleet
//    cruises in a few cells), flushed by global atomicAdd from each block's nonzero cells.

#define PI_F 3.14159265358979f
#define SQRT3_F 1.73205080756888f
#define INV_SQRT3_F 0.577350269189626f
#define FULL_MASK 0xffffffffu

#define SV_PERIOD 4000          // svpwm_compare: the up-down timer's period in counts (80 MHz, 10 kHz)

#define LUT_N 16                // igbt_losses: datasheet points at I = 0, DI, ..., 15 DI
#define IL_WARPS 8              // igbt_losses: warps a block (blockDim.x = 256)
#define VNOM 300.0f             // igbt_losses: the datasheet's switching test voltage (V)
#define KV_IGBT 1.35f           // igbt_losses: E_sw ~ (Vdc / VNOM)^KV
#define KV_DIODE 0.6f

#define HD_NS 4096              // pwm_harmonics: samples a fundamental period
#define HD_H 128                // pwm_harmonics: harmonics 1..HD_H
#define HD_BLOCK 256            // pwm_harmonics: two threads a harmonic

#define ID_BLOCK 256            // pmsm_ls_identify: threads a block
#define ID_NSUM 15              // pmsm_ls_identify: 10 of M = A^T A, 4 of A^T y, y^T y

#define EM_NS 48                // efficiency_map: speed bins (250 rpm each, 0..12000 rpm)
#define EM_NT 64                // efficiency_map: torque bins (10 N m each, -320..320 N m)
#define EM_CELLS (EM_NS * EM_NT)

// ---------------------------------------------------------------- tables and structs

// svpwm_compare: the sector (1..6) of N = A + 2B + 4C, and the active vectors' switch
// states V1..V6 (bit 0 phase a's upper switch, bit 1 b, bit 2 c), V7 = V1 again
__constant__ int c_sector_of[8] = {0, 2, 6, 1, 4, 3, 5, 0};
__constant__ int c_vec_bits[8] = {0, 1, 3, 2, 6, 4, 5, 1};

// foc_pmsm_sim: one Monte Carlo case (the motor as built, its load, its controller tuning)
struct MotorCase {
    float Rs, Ld, Lq, psi;      // ohm, H, H, Wb (the toleranced motor)
    float J, B, TL, w_ref;      // kg m^2, N m s, the load torque step (N m), speed command (rad/s)
    float wc_i, kp_w, ki_w, vdc;    // current loop bandwidth (rad/s), speed PI, dc link (V)
};

// foc_pmsm_sim: the nameplate motor the controller is designed on, and the drive's constants
struct DriveNominal {
    float Rs, Ld, Lq, psi;      // nominal parameters (the controller's model)
    float imax;                 // current limit (A, peak)
    float ts;                   // PWM / control period (s)
    float t_ramp, t_load;       // the speed command's ramp time, the load step's time (s)
    float adc_lsb;              // A a count of the current ADC
    float adc_max;              // its largest count (2047: 12 bits, signed)
    float enc_cnt;              // encoder counts a mechanical radian
    float w_filt;               // the speed filter's coefficient (a period)
    int pp;                     // pole pairs
};
__constant__ DriveNominal c_nom;

// igbt_losses: a PWM period's record of a phase leg (12 bytes)
struct LossSample {
    float i;                    // phase current, A (> 0: out of the leg)
    float d;                    // the upper switch's duty
    unsigned short tj;          // junction temperature, 0.01 deg C
    unsigned short vdc;         // dc-link voltage, 0.01 V
};

// igbt_losses: the datasheet's curves at 25 and 150 deg C, a point every DI amperes
__constant__ float c_vce[2][LUT_N];     // IGBT on-state voltage (V)
__constant__ float c_vf[2][LUT_N];      // diode forward voltage (V)
__constant__ float c_esw[2][LUT_N];     // IGBT Eon + Eoff at VNOM (J)
__constant__ float c_err[2][LUT_N];     // diode reverse-recovery energy at VNOM (J)

// bilinear interpolation in a [2][LUT_N] table: point j + fr, temperature weight wt
#define LUT2(T) ((1.0f - wt) * (T[0][j] + fr * (T[0][j + 1] - T[0][j])) + \
                 wt * (T[1][j] + fr * (T[1][j + 1] - T[1][j])))

// efficiency_map: the traction motor's loss model (a kernel argument by value)
struct LossModel {
    float kt;                   // N m / A (MTPA, below base speed)
    float rs;                   // ohm, phase (copper: 1.5 rs I^2)
    float w_base;               // rad/s: field weakening above
    float i_fw;                 // A / (rad/s): the d-current field weakening adds
    float kh, ke;               // hysteresis (W / (rad/s)^1.5), eddy (W / (rad/s)^2) iron loss
    float kfr;                  // friction and windage, W / (rad/s)
    float p_inv0, k_inv;        // inverter: W standing, W / A
};

// ---------------------------------------------------------------- foc_pmsm_sim helpers

// SUB forward-Euler substeps of h seconds of a PMSM's dq model under a held alpha-beta
// voltage: the rotor frame turns under it, so vd, vq are taken at each substep's angle
template <int SUB>
__device__ void pmsm_substeps(float &id, float &iq, float &wm, float &thm, float valpha, float vbeta,
                              float Rs, float Ld, float Lq, float psi, float J, float B, float TL,
                              int pp, float h) {
#pragma unroll
    for (int k = 0; k < SUB; k++) {
        float s, c;
        sincosf((float)pp * thm, &s, &c);
        float vd = valpha * c + vbeta * s;
        float vq = -valpha * s + vbeta * c;
        float we = (float)pp * wm;
        float did = (vd - Rs * id + we * Lq * iq) / Ld;
        float diq = (vq - Rs * iq - we * (Ld * id + psi)) / Lq;
        float te = 1.5f * (float)pp * (psi * iq + (Ld - Lq) * id * iq);
        float dw = (te - TL - B * wm) / J;
        id += h * did;
        iq += h * diq;
        thm += h * wm;
        wm += h * dw;
    }
}

// a current through the ADC: counts rounded to nearest, clamped to +-qmax
__device__ float adc_sample(float i, float lsb, float qmax) {
    float q = rintf(i / lsb);
    q = fminf(fmaxf(q, -qmax), qmax);
    return q * lsb;
}

template <int SUB>
__global__ void foc_pmsm_sim(const MotorCase *cases, int ncase, int nstep, float4 *result) {
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= ncase) return;
    float Rs = cases[n].Rs, Ld = cases[n].Ld, Lq = cases[n].Lq, psi = cases[n].psi;
    float J = cases[n].J, B = cases[n].B, TLs = cases[n].TL, w_ref = cases[n].w_ref;
    float wc = cases[n].wc_i, kp_w = cases[n].kp_w, ki_w = cases[n].ki_w, vdc = cases[n].vdc;
    const int pp = c_nom.pp;
    const float ts = c_nom.ts;
    // the current PIs by pole-zero cancellation on the nominal motor
    float kp_d = wc * c_nom.Ld, kp_q = wc * c_nom.Lq, ki = wc * c_nom.Rs;
    float dL = c_nom.Lq - c_nom.Ld;
    float vmax = vdc * INV_SQRT3_F;

    float id = 0.0f, iq = 0.0f, wm = 0.0f, thm = 0.0f;      // the motor's state
    float int_d = 0.0f, int_q = 0.0f, int_w = 0.0f;         // the integrators
    float thq_prev = 0.0f, w_f = 0.0f;                      // the encoder, the speed filter
    float ise = 0.0f, ipk2 = 0.0f, e_iq = 0.0f;
    for (int k = 0; k < nstep; k++) {
        float t = (float)k * ts;
        // the two phase currents sampled at the period's start (true angle), through the ADC
        float s, c;
        sincosf((float)pp * thm, &s, &c);
        float ial = id * c - iq * s, ibe = id * s + iq * c;
        float ia = adc_sample(ial, c_nom.adc_lsb, c_nom.adc_max);
        float ib = adc_sample(-0.5f * ial + 0.5f * SQRT3_F * ibe, c_nom.adc_lsb, c_nom.adc_max);
        // Clarke, then Park on the encoder's angle
        float ma = ia, mb = (ia + 2.0f * ib) * INV_SQRT3_F;
        float thq = floorf(thm * c_nom.enc_cnt) / c_nom.enc_cnt;
        float sq, cq;
        sincosf((float)pp * thq, &sq, &cq);
        float id_m = ma * cq + mb * sq;
        float iq_m = -ma * sq + mb * cq;
        // the speed: the encoder's difference, filtered
        float w_raw = (thq - thq_prev) / ts;
        thq_prev = thq;
        w_f += c_nom.w_filt * (w_raw - w_f);
        // the speed PI: clamp at the current limit, integrate only when not clamped
        float wr = w_ref * fminf(t / c_nom.t_ramp, 1.0f);
        float ew = wr - w_f;
        float iq_ref = kp_w * ew + int_w;
        if (iq_ref > c_nom.imax) {
            iq_ref = c_nom.imax;
        } else if (iq_ref < -c_nom.imax) {
            iq_ref = -c_nom.imax;
        } else {
            int_w += ki_w * ts * ew;
        }
        // MTPA on the nominal motor (Lq > Ld): the d current for this q current
        float id_ref = (c_nom.psi - sqrtf(c_nom.psi * c_nom.psi + 8.0f * dL * dL * iq_ref * iq_ref)) / (4.0f * dL);
        // the current PIs with decoupling on the filtered speed
        float we = (float)pp * w_f;
        float ed = id_ref - id_m, eq = iq_ref - iq_m;
        float vd = kp_d * ed + int_d - we * c_nom.Lq * iq_m;
        float vq = kp_q * eq + int_q + we * (c_nom.Ld * id_m + c_nom.psi);
        float m2 = vd * vd + vq * vq;
        if (m2 > vmax * vmax) {
            float g = vmax / sqrtf(m2);        // onto the linear-modulation circle
            vd *= g;
            vq *= g;
        } else {
            int_d += ki * ts * ed;
            int_q += ki * ts * eq;
        }
        // inverse Park on the encoder's angle: the inverter's average alpha-beta voltage
        float va = vd * cq - vq * sq, vb = vd * sq + vq * cq;
        float TL = t >= c_nom.t_load ? TLs : 0.0f;
        pmsm_substeps<SUB>(id, iq, wm, thm, va, vb, Rs, Ld, Lq, psi, J, B, TL, pp, ts / (float)SUB);
        ise += ew * ew * ts;
        ipk2 = fmaxf(ipk2, id * id + iq * iq);
        if (t >= c_nom.t_load) e_iq += fabsf(eq) * ts;
    }
    result[n] = make_float4(wm, sqrtf(ipk2), ise, e_iq);
}

// pwm_harmonics / efficiency_map helpers: a float sum over the warp
__device__ float warp_sum_xor(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
    return v;
}

extern "C" {

// ---------------------------------------------------------------- svpwm_compare

// vref: the alpha-beta voltage commands (V) of ndrive drives, nper PWM periods each
// (nper and total multiples of 32); vdc: each drive's dc-link voltage. cmp[k] = the
// three phases' compare values (counts of SV_PERIOD, center-aligned: the upper switch on
// while the counter is below) and the sector (| 8 when overmodulated); nover[drive] +=
// the overmodulated periods.
__global__ void svpwm_compare(const float2 *vref, const float *vdc, int nper, int total, ushort4 *cmp,
                              int *nover) {
    int lane = threadIdx.x & 31;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < total; k += gridDim.x * blockDim.x) {
        int drive = k / nper;
        float2 v = vref[k];
        float inv = 1.0f / vdc[drive];
        int A = v.y > 0.0f;
        int B = SQRT3_F * v.x - v.y > 0.0f;
        int C = -SQRT3_F * v.x - v.y > 0.0f;
        int sec = c_sector_of[A + 2 * B + 4 * C];
        // dwell times over the period
        float X = SQRT3_F * v.y * inv;
        float Y = (1.5f * v.x + 0.5f * SQRT3_F * v.y) * inv;
        float Z = (-1.5f * v.x + 0.5f * SQRT3_F * v.y) * inv;
        float t1, t2;
        switch (sec) {
        case 1: t1 = -Z; t2 = X; break;
        case 2: t1 = Y; t2 = Z; break;
        case 3: t1 = X; t2 = -Y; break;
        case 4: t1 = Z; t2 = -X; break;
        case 5: t1 = -Y; t2 = -Z; break;
        default: t1 = -X; t2 = Y; break;
        }
        bool over = t1 + t2 > 1.0f;
        if (over) {
            float g = 1.0f / (t1 + t2);
            t1 *= g;
            t2 *= g;
        }
        float t0h = 0.5f * (1.0f - t1 - t2);
        int b1 = c_vec_bits[sec], b2 = c_vec_bits[sec + 1];
        float da = t0h + ((b1 & 1) ? t1 : 0.0f) + ((b2 & 1) ? t2 : 0.0f);
        float db = t0h + ((b1 & 2) ? t1 : 0.0f) + ((b2 & 2) ? t2 : 0.0f);
        float dc = t0h + ((b1 & 4) ? t1 : 0.0f) + ((b2 & 4) ? t2 : 0.0f);
        ushort4 o;
        o.x = (unsigned short)__float2uint_rn(da * SV_PERIOD);
        o.y = (unsigned short)__float2uint_rn(db * SV_PERIOD);
        o.z = (unsigned short)__float2uint_rn(dc * SV_PERIOD);
        o.w = (unsigned short)(sec | (over ? 8 : 0));
        cmp[k] = o;
        unsigned int bal = __ballot_sync(FULL_MASK, over);
        if (lane == 0 && bal != 0) atomicAdd(&nover[drive], __popc(bal));
    }
}

// ---------------------------------------------------------------- igbt_losses

// smp: gridDim.y phase legs of len PWM periods each; fsw: the switching frequency (Hz);
// inv_di: 1 / the tables' current step. pdev[leg len + k] = the period's losses (W) of the
// upper IGBT, upper diode, lower IGBT, lower diode; ploss[4 leg + j] += their means over
// the record; pk[leg] = max(pk[leg], the largest IGBT loss) as the float's bits.
__global__ void igbt_losses(const LossSample *smp, int len, float fsw, float inv_di, float4 *pdev,
                            double *ploss, int *pk) {
    __shared__ float s_red[4][IL_WARPS];
    __shared__ float s_max[IL_WARPS];
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    int leg = blockIdx.y;
    const LossSample *s = smp + (size_t)leg * len;
    float4 *out = pdev + (size_t)leg * len;
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, pmax = 0.0f;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < len; k += gridDim.x * blockDim.x) {
        float cur = s[k].i;
        float d = s[k].d;
        float tj = 0.01f * (float)s[k].tj;
        float vdc = 0.01f * (float)s[k].vdc;
        float I = fabsf(cur);
        float u = fminf(I * inv_di, (float)(LUT_N - 1) - 0.001f);
        int j = (int)u;
        float fr = u - (float)j;
        float wt = (tj - 25.0f) * (1.0f / 125.0f);
        float vce = LUT2(c_vce);
        float vf = LUT2(c_vf);
        float kv = vdc * (1.0f / VNOM);
        float psw_t = fsw * LUT2(c_esw) * powf(kv, KV_IGBT);
        float psw_d = fsw * LUT2(c_err) * powf(kv, KV_DIODE);
        float p0, p1, p2, p3;
        if (cur >= 0.0f) {          // upper IGBT for d, lower diode for 1 - d
            p0 = d * vce * I + psw_t;
            p1 = 0.0f;
            p2 = 0.0f;
            p3 = (1.0f - d) * vf * I + psw_d;
        } else {                    // lower IGBT for 1 - d, upper diode for d
            p0 = 0.0f;
            p1 = d * vf * I + psw_d;
            p2 = (1.0f - d) * vce * I + psw_t;
            p3 = 0.0f;
        }
        out[k] = make_float4(p0, p1, p2, p3);
        a0 += p0;
        a1 += p1;
        a2 += p2;
        a3 += p3;
        pmax = fmaxf(pmax, fmaxf(p0, p2));
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        a0 += __shfl_down_sync(FULL_MASK, a0, o);
        a1 += __shfl_down_sync(FULL_MASK, a1, o);
        a2 += __shfl_down_sync(FULL_MASK, a2, o);
        a3 += __shfl_down_sync(FULL_MASK, a3, o);
        pmax = fmaxf(pmax, __shfl_down_sync(FULL_MASK, pmax, o));
    }
    if (lane == 0) {
        s_red[0][wid] = a0;
        s_red[1][wid] = a1;
        s_red[2][wid] = a2;
        s_red[3][wid] = a3;
        s_max[wid] = pmax;
    }
    __syncthreads();
    if (threadIdx.x < 4) {
        double sum = 0.0;
        for (int w = 0; w < IL_WARPS; w++) sum += (double)s_red[threadIdx.x][w];
        atomicAdd(&ploss[4 * leg + threadIdx.x], sum / (double)len);
    } else if (threadIdx.x == 4) {
        float m = 0.0f;
        for (int w = 0; w < IL_WARPS; w++) m = fmaxf(m, s_max[w]);
        atomicMax(&pk[leg], __float_as_int(m));
    }
}

// ---------------------------------------------------------------- pwm_harmonics

// states: gridDim.x captured fundamental periods of HD_NS bytes (bit 0: phase a's upper
// switch, bit 1: b's, bit 2: c's); the line-to-line voltage v_ab = vdc (S_a - S_b).
// amp[w HD_H + h - 1] = |V_h| (V, peak) for h = 1..HD_H; thd[2 w] = THD, thd[2 w + 1] =
// WTHD (sqrt(sum (V_h / h)^2) / V_1), both over h = 2..HD_H.
__global__ void pwm_harmonics(const uchar4 *states, float vdc, float *amp, float *thd) {
    __shared__ float2 s_tw[HD_NS];
    __shared__ signed char s_v[HD_NS];
    __shared__ float2 s_part[HD_BLOCK];
    __shared__ float s_sum[HD_BLOCK / 32][2];
    int t = threadIdx.x;
    const uchar4 *w = states + (size_t)blockIdx.x * (HD_NS / 4);
    for (int q = t; q < HD_NS / 4; q += HD_BLOCK) {
        uchar4 b = w[q];
        s_v[4 * q] = (signed char)((b.x & 1) - ((b.x >> 1) & 1));
        s_v[4 * q + 1] = (signed char)((b.y & 1) - ((b.y >> 1) & 1));
        s_v[4 * q + 2] = (signed char)((b.z & 1) - ((b.z >> 1) & 1));
        s_v[4 * q + 3] = (signed char)((b.w & 1) - ((b.w >> 1) & 1));
    }
    for (int k = t; k < HD_NS; k += HD_BLOCK) {
        float sn, cs;
        sincosf(2.0f * PI_F * (float)k / (float)HD_NS, &sn, &cs);
        s_tw[k] = make_float2(cs, -sn);
    }
    __syncthreads();
    int h = (t & (HD_H - 1)) + 1;
    int n0 = (t / HD_H) * (HD_NS / 2);
    int idx = (h * n0) & (HD_NS - 1);
    float re = 0.0f, im = 0.0f;
#pragma unroll 4
    for (int n = n0; n < n0 + HD_NS / 2; n++) {
        float v = (float)s_v[n];
        float2 e = s_tw[idx];
        re += v * e.x;
        im += v * e.y;
        idx = (idx + h) & (HD_NS - 1);
    }
    s_part[t] = make_float2(re, im);
    __syncthreads();
    float a = 0.0f, p2 = 0.0f, w2 = 0.0f;
    if (t < HD_H) {
        float2 p = s_part[t], q = s_part[t + HD_H];
        float xr = p.x + q.x, xi = p.y + q.y;
        a = (2.0f * vdc / (float)HD_NS) * sqrtf(xr * xr + xi * xi);
        amp[blockIdx.x * HD_H + t] = a;
        if (h > 1) {
            float r = a / (float)h;
            p2 = a * a;
            w2 = r * r;
        }
    }
    p2 = warp_sum_xor(p2);
    w2 = warp_sum_xor(w2);
    if ((t & 31) == 0) {
        s_sum[t >> 5][0] = p2;
        s_sum[t >> 5][1] = w2;
    }
    __syncthreads();
    if (t == 0) {
        float sp = 0.0f, sw = 0.0f;
        for (int i = 0; i < HD_H / 32; i++) {
            sp += s_sum[i][0];
            sw += s_sum[i][1];
        }
        thd[2 * blockIdx.x] = sqrtf(sp) / a;
        thd[2 * blockIdx.x + 1] = sqrtf(sw) / a;
    }
}

// ---------------------------------------------------------------- pmsm_ls_identify

// a block a motor: x[m len + k] = (id, iq, vd, vq) at the k-th sample (A, V), we the
// electrical speed (rad/s), ts the sampling period. The model vd = Rs id + Ld did/dt -
// we Lq iq, vq = Rs iq + Lq diq/dt + we Ld id + we psi, fitted by least squares over
// samples 1..len-2 (central differences): theta[m] = (Rs, Ld, Lq, psi), rms[m] = the
// residual's rms (V).
__global__ void pmsm_ls_identify(const float4 *x, const float *we, int len, float ts, float4 *theta,
                                 float *rms) {
    __shared__ double s_acc[ID_NSUM][ID_BLOCK];
    int t = threadIdx.x;
    const float4 *xm = x + (size_t)blockIdx.x * len;
    const float *wm = we + (size_t)blockIdx.x * len;
    float inv2ts = 0.5f / ts;
    double m00 = 0.0, m01 = 0.0, m02 = 0.0, m03 = 0.0, m11 = 0.0, m12 = 0.0, m13 = 0.0;
    double m22 = 0.0, m23 = 0.0, m33 = 0.0, b0 = 0.0, b1 = 0.0, b2 = 0.0, b3 = 0.0, yy = 0.0;
    for (int k = t + 1; k < len - 1; k += blockDim.x) {
        float4 c = xm[k];
        float4 p = xm[k - 1];
        float4 q = xm[k + 1];
        float w = wm[k];
        float did = (q.x - p.x) * inv2ts;
        float diq = (q.y - p.y) * inv2ts;
        // the d row [id, did, -we iq, 0] = vd; the q row [iq, we id, diq, we] = vq
        double r0 = c.x, r1 = did, r2 = -(double)w * c.y, y1 = c.z;
        double q0 = c.y, q1 = (double)w * c.x, q2 = diq, q3 = w, y2 = c.w;
        m00 += r0 * r0 + q0 * q0;
        m01 += r0 * r1 + q0 * q1;
        m02 += r0 * r2 + q0 * q2;
        m03 += q0 * q3;
        m11 += r1 * r1 + q1 * q1;
        m12 += r1 * r2 + q1 * q2;
        m13 += q1 * q3;
        m22 += r2 * r2 + q2 * q2;
        m23 += q2 * q3;
        m33 += q3 * q3;
        b0 += r0 * y1 + q0 * y2;
        b1 += r1 * y1 + q1 * y2;
        b2 += r2 * y1 + q2 * y2;
        b3 += q3 * y2;
        yy += y1 * y1 + y2 * y2;
    }
    s_acc[0][t] = m00; s_acc[1][t] = m01; s_acc[2][t] = m02; s_acc[3][t] = m03;
    s_acc[4][t] = m11; s_acc[5][t] = m12; s_acc[6][t] = m13;
    s_acc[7][t] = m22; s_acc[8][t] = m23; s_acc[9][t] = m33;
    s_acc[10][t] = b0; s_acc[11][t] = b1; s_acc[12][t] = b2; s_acc[13][t] = b3; s_acc[14][t] = yy;
    __syncthreads();
    for (int s = ID_BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) {
#pragma unroll
            for (int j = 0; j < ID_NSUM; j++) s_acc[j][t] += s_acc[j][t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        double M[4][4], L[4][4], b[4], z[4], th[4];
        M[0][0] = s_acc[0][0]; M[0][1] = s_acc[1][0]; M[0][2] = s_acc[2][0]; M[0][3] = s_acc[3][0];
        M[1][1] = s_acc[4][0]; M[1][2] = s_acc[5][0]; M[1][3] = s_acc[6][0];
        M[2][2] = s_acc[7][0]; M[2][3] = s_acc[8][0]; M[3][3] = s_acc[9][0];
        b[0] = s_acc[10][0]; b[1] = s_acc[11][0]; b[2] = s_acc[12][0]; b[3] = s_acc[13][0];
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < i; j++) M[i][j] = M[j][i];
        // Cholesky M = L L^T
        for (int j = 0; j < 4; j++) {
            double dsum = M[j][j];
            for (int k = 0; k < j; k++) dsum -= L[j][k] * L[j][k];
            L[j][j] = sqrt(dsum);
            for (int i = j + 1; i < 4; i++) {
                double ssum = M[i][j];
                for (int k = 0; k < j; k++) ssum -= L[i][k] * L[j][k];
                L[i][j] = ssum / L[j][j];
            }
        }
        for (int i = 0; i < 4; i++) {           // L z = b
            double ssum = b[i];
            for (int k = 0; k < i; k++) ssum -= L[i][k] * z[k];
            z[i] = ssum / L[i][i];
        }
        for (int i = 3; i >= 0; i--) {          // L^T th = z
            double ssum = z[i];
            for (int k = i + 1; k < 4; k++) ssum -= L[k][i] * th[k];
            th[i] = ssum / L[i][i];
        }
        double rss = s_acc[14][0] - (th[0] * b[0] + th[1] * b[1] + th[2] * b[2] + th[3] * b[3]);
        theta[blockIdx.x] = make_float4((float)th[0], (float)th[1], (float)th[2], (float)th[3]);
        rms[blockIdx.x] = (float)sqrt(fmax(rss, 0.0) / (2.0 * (len - 2)));
    }
}

// ---------------------------------------------------------------- efficiency_map

// nsmp logged samples of a traction motor: rpm (unsigned), torque (0.1 N m, signed: < 0
// regenerating), dt seconds apart. Cell (speed bin, torque bin) = (rpm / 250, (T + 320) /
// 10) of EM_NS x EM_NT (the samples outside skipped): count += 1, eloss += the loss model's
// loss dt (J), emech += T w dt (J).
__global__ void efficiency_map(const unsigned short *rpm, const short *torque, int nsmp, float dt,
                               LossModel lm, unsigned int *count, float *eloss, float *emech) {
    __shared__ unsigned int s_cnt[EM_CELLS];
    __shared__ float s_loss[EM_CELLS];
    __shared__ float s_mech[EM_CELLS];
    for (int c = threadIdx.x; c < EM_CELLS; c += blockDim.x) {
        s_cnt[c] = 0u;
        s_loss[c] = 0.0f;
        s_mech[c] = 0.0f;
    }
    __syncthreads();
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < nsmp; k += gridDim.x * blockDim.x) {
        float n_rpm = (float)rpm[k];
        float T = 0.1f * (float)torque[k];
        int bs = (int)(n_rpm * (1.0f / 250.0f));
        int bt = (int)floorf((T + 320.0f) * 0.1f);
        if (bs < EM_NS && bt >= 0 && bt < EM_NT) {
            float w = n_rpm * (2.0f * PI_F / 60.0f);
            float iq = fabsf(T) / lm.kt;
            float idw = w > lm.w_base ? lm.i_fw * (w - lm.w_base) : 0.0f;
            float i2 = iq * iq + idw * idw;
            float pcu = 1.5f * lm.rs * i2;
            float pfe = lm.kh * w * sqrtf(w) + lm.ke * w * w;
            float pinv = lm.p_inv0 + lm.k_inv * sqrtf(i2);
            float ploss = pcu + pfe + lm.kfr * w + pinv;
            int cell = bs * EM_NT + bt;
            atomicAdd(&s_cnt[cell], 1u);
            atomicAdd(&s_loss[cell], ploss * dt);
            atomicAdd(&s_mech[cell], T * w * dt);
        }
    }
    __syncthreads();
    for (int c = threadIdx.x; c < EM_CELLS; c += blockDim.x) {
        if (s_cnt[c] != 0u) {
            atomicAdd(&count[c], s_cnt[c]);
            atomicAdd(&eloss[c], s_loss[c]);
            atomicAdd(&emech[c], s_mech[c]);
        }
    }
}

}
