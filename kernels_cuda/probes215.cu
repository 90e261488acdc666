// probe-unseen213: a seismic-imaging / exploration-geophysics course's CUDA assignments, as a
// student who knows CUDA basics hands them in. Traces are stored trace after trace (sample
// it of trace tr at tr * nt + it), times in seconds, distances in metres:
//  - semblance_scan: semblance velocity analysis of CMP gathers, a block 128 zero-offset
//    times of one (CMP, trial velocity) pair (a 3-D grid: time tiles, velocities, CMPs): each
//    thread sums its traces along the hyperbola t = sqrt(t0^2 + x^2 / v^2) (linear
//    interpolation, a stretch mute, offsets and trial velocities in __constant__), the
//    squared stack and the energy (times the live traces) into shared arrays with a halo of
//    SB_HW samples either side, __syncthreads, then the ratio of their sums over a window of
//    2 SB_HW + 1 samples;
//  - acoustic_fd_sponge: one leapfrog step of the 2-D constant-density acoustic wave equation
//    (4th order in space, 2nd in time) for a reverse-time-migration shot, a 32 x 16 tile of
//    the pressure with its 2-point halo staged in shared memory, the Ricker source injected
//    at its grid point, Cerjan's sponge (exp(-(a (NB - d))^2)) on the sides and the bottom,
//    the receiver row written to the seismogram;
//  - spiking_decon: Wiener spiking (predictive, unit lag) deconvolution, a block a trace:
//    the trace staged in shared memory, DC_NL threads each one lag of the design window's
//    autocorrelation in double, thread 0 alone solving the Toeplitz normal equations by the
//    Levinson-Durbin recursion in double (the filter in local arrays, prewhitening eps),
//    then every thread convolving the trace with the prediction-error filter;
//  - fold_map: CMP fold, mean offset and an offset / azimuth histogram of a 3-D land
//    survey from its trace headers (a struct a trace), a grid-stride loop over the traces:
//    the midpoint's bin by floorf, the offset by sqrtf and the azimuth by atan2f, the bin's
//    fold and offset sum by global int / float atomicAdd, the (offset class, azimuth
//    sector) histogram in shared memory by atomicAdd, flushed at the end;
//  - fb_stalta: first-break picking on 16-bit shot records by STA / LTA, a warp a trace: the
//    cumulative energy by a warp-shuffle scan of 64-bit integers chunk by chunk into a
//    shared array, then the STA / LTA ratio of each sample and the first sample over the
//    threshold by __ballot_sync / __ffs;
//  - segy_ibm_to_ieee: a SEG-Y file's IBM hexadecimal floats (big-endian, behind a 240-byte
//    header a trace) to IEEE floats, a thread a sample in a grid-stride loop: four byte
//    loads, the fraction normalised by __clz, the exponent rebuilt with shifts and masks,
//    values out of IEEE's range clamped and counted, each trace's peak |amplitude| by
//    atomicMax on the float's bits.

#define SB_NOFF 48              // semblance_scan: traces a CMP gather
#define SB_NV 64                // trial velocities
#define SB_TILE 128             // zero-offset times a block (blockDim.x)
#define SB_HW 5                 // the semblance window's half width (samples)
#define SB_SMUTE 0.6f           // stretch mute: (t - t0) / t0 over this is left out

#define FD_R 2                  // acoustic_fd_sponge: the stencil's radius (4th order)
#define FD_BX 32                // blockDim == (FD_BX, FD_BY)
#define FD_BY 16
#define FD_NB 64                // sponge width (points)
#define FD_DAMP 0.0053f         // Cerjan's a

#define DC_NL 32                // spiking_decon: prediction-error filter length (samples)
#define DC_MAXNT 1500           // samples a trace at most

#define FM_NOFF 16              // fold_map: offset classes
#define FM_DOFF 250.0f          // metres an offset class
#define FM_NAZ 12               // azimuth sectors over 0 .. 180 degrees

#define FB_NT 1024              // fb_stalta: samples a trace
#define FB_WARPS 4              // traces a block (blockDim.x == 32 FB_WARPS)
#define FB_NS 8                 // STA window (samples)
#define FB_NLW 60               // LTA window (samples), just before the STA window
#define FB_THRESH 5.0f          // STA / LTA over this: the first break

#define SG_FILEHDR 3600         // segy_ibm_to_ieee: textual + binary file header (bytes)
#define SG_TRHDR 240            // trace header (bytes)

struct TraceHeader {
    int ffid;                   // field record (shot) number
    int chan;                   // channel in the record
    float sx, sy;               // source position
    float gx, gy;               // receiver position
    short trid;                 // trace identification: 1 seismic, 2 dead, 3 auxiliary
    short elev;                 // receiver elevation
};

// semblance_scan: offsets of a gather's traces and the trial RMS velocities, set by the host
__constant__ float c_off[SB_NOFF];
__constant__ float c_vel[SB_NV];

// acoustic_fd_sponge: the 4th-order second-derivative weights (centre, 1, 2), set by the host
__constant__ float c_fd4[FD_R + 1];

extern "C" {

// gathers: ncmp gathers of SB_NOFF traces of nt samples (dt apart), trace o of gather c at
// (c * SB_NOFF + o) * nt; semb[(c * SB_NV + iv) * nt + it]: the semblance at t0 = it dt for
// the velocity c_vel[iv]
__global__ void semblance_scan(const float *gathers, int nt, float dt, float *semb) {
    __shared__ float s_num[SB_TILE + 2 * SB_HW];
    __shared__ float s_den[SB_TILE + 2 * SB_HW];
    int c = blockIdx.z;
    int iv = blockIdx.y;
    int first = blockIdx.x * SB_TILE - SB_HW;      // the tile's first time, halo included
    float v = c_vel[iv];
    float inv_v2 = 1.0f / (v * v);
    const float *g = gathers + (size_t)c * SB_NOFF * nt;
    for (int j = threadIdx.x; j < SB_TILE + 2 * SB_HW; j += blockDim.x) {
        int it0 = first + j;
        float num = 0.0f, den = 0.0f;
        int live = 0;
        if (it0 >= 0 && it0 < nt) {
            float t0 = it0 * dt;
            for (int o = 0; o < SB_NOFF; o++) {
                float x = c_off[o];
                float t = sqrtf(t0 * t0 + x * x * inv_v2);
                if (t - t0 > SB_SMUTE * t0) continue;       // stretched too much
                float s = t / dt;
                int i = (int)floorf(s);
                if (i >= nt - 1) continue;                  // past the end of the trace
                float w = s - i;
                float a = (1.0f - w) * g[o * nt + i] + w * g[o * nt + i + 1];
                num += a;
                den += a * a;
                live++;
            }
        }
        s_num[j] = num * num;
        s_den[j] = live * den;
    }
    __syncthreads();
    int it0 = blockIdx.x * SB_TILE + threadIdx.x;
    if (it0 >= nt) return;
    float sn = 0.0f, sd = 0.0f;
    for (int k = 0; k <= 2 * SB_HW; k++) {
        sn += s_num[threadIdx.x + k];
        sd += s_den[threadIdx.x + k];
    }
    semb[((size_t)c * SB_NV + iv) * nt + it0] = sd > 0.0f ? sn / sd : 0.0f;
}

// p, p_prev: the pressure at steps it and it - 1 on an nx x nz grid (x fastest), vel the
// velocity; p_next the pressure at step it + 1; dt_h = dt / h; a Ricker wavelet of peak
// frequency f0 (delayed 1 / f0) injected at (sx, sz); seis[ix] = p_next at depth rz
__global__ void acoustic_fd_sponge(const float *p, const float *p_prev, float *p_next, const float *vel, int nx,
                                   int nz, float dt_h, int it, float dt, float f0, int sx, int sz, int rz,
                                   float *seis) {
    __shared__ float tile[FD_BY + 2 * FD_R][FD_BX + 2 * FD_R];
    int tx = threadIdx.x, ty = threadIdx.y;
    int ix = blockIdx.x * FD_BX + tx;
    int iz = blockIdx.y * FD_BY + ty;
    bool inside = ix < nx && iz < nz;
    tile[ty + FD_R][tx + FD_R] = inside ? p[(size_t)iz * nx + ix] : 0.0f;
    if (tx < FD_R) {
        int xl = ix - FD_R, xr = ix + FD_BX;
        tile[ty + FD_R][tx] = (xl >= 0 && iz < nz) ? p[(size_t)iz * nx + xl] : 0.0f;
        tile[ty + FD_R][tx + FD_BX + FD_R] = (xr < nx && iz < nz) ? p[(size_t)iz * nx + xr] : 0.0f;
    }
    if (ty < FD_R) {
        int zt = iz - FD_R, zb = iz + FD_BY;
        tile[ty][tx + FD_R] = (zt >= 0 && ix < nx) ? p[(size_t)zt * nx + ix] : 0.0f;
        tile[ty + FD_BY + FD_R][tx + FD_R] = (zb < nz && ix < nx) ? p[(size_t)zb * nx + ix] : 0.0f;
    }
    __syncthreads();
    if (!inside) return;
    size_t g = (size_t)iz * nx + ix;
    if (ix < FD_R || ix >= nx - FD_R || iz < FD_R || iz >= nz - FD_R) {
        p_next[g] = 0.0f;                               // the rim stays at rest
        if (iz == rz) seis[ix] = 0.0f;
        return;
    }
    int cx = tx + FD_R, cz = ty + FD_R;
    float lap = 2.0f * c_fd4[0] * tile[cz][cx];
    for (int k = 1; k <= FD_R; k++)
        lap += c_fd4[k] * (tile[cz][cx - k] + tile[cz][cx + k] + tile[cz - k][cx] + tile[cz + k][cx]);
    float c = vel[g] * dt_h;
    c = c * c;
    float pn = 2.0f * tile[cz][cx] - p_prev[g] + c * lap;
    if (ix == sx && iz == sz) {
        float a = 3.14159265f * f0 * (it * dt - 1.0f / f0);
        a = a * a;
        pn += c * (1.0f - 2.0f * a) * expf(-a);
    }
    int d = min(min(ix, nx - 1 - ix), nz - 1 - iz);     // points to the sides and the bottom (the top is free)
    if (d < FD_NB) {
        float s = FD_DAMP * (FD_NB - d);
        pn *= expf(-s * s);
    }
    p_next[g] = pn;
    if (iz == rz) seis[ix] = pn;
}

// traces: one a block, nt samples (nt <= DC_MAXNT); the filter designed on samples w0 ..
// w0 + nw - 1 with prewhitening eps; out the deconvolved traces, pef[tr * DC_NL + k] the
// prediction-error filters (pef[0] = 1)
__global__ void spiking_decon(const float *traces, int nt, int w0, int nw, double eps, float *out, float *pef) {
    __shared__ float s_tr[DC_MAXNT];
    __shared__ double s_r[DC_NL];
    __shared__ float s_f[DC_NL];
    int tr = blockIdx.x;
    const float *x = traces + (size_t)tr * nt;
    for (int i = threadIdx.x; i < nt; i += blockDim.x) s_tr[i] = x[i];
    __syncthreads();
    if (threadIdx.x < DC_NL) {
        int lag = threadIdx.x;
        double acc = 0.0;
        for (int i = w0; i < w0 + nw - lag; i++) acc += (double)s_tr[i] * s_tr[i + lag];
        s_r[lag] = acc;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double a[DC_NL], tmp[DC_NL];
        a[0] = 1.0;
        for (int k = 1; k < DC_NL; k++) a[k] = 0.0;
        double err = s_r[0] * (1.0 + eps);
        if (err > 0.0) {                                // a dead trace keeps the unit spike
            for (int k = 1; k < DC_NL; k++) {
                double acc = s_r[k];
                for (int j = 1; j < k; j++) acc += a[j] * s_r[k - j];
                double rc = -acc / err;
                for (int j = 1; j < k; j++) tmp[j] = a[j] + rc * a[k - j];
                for (int j = 1; j < k; j++) a[j] = tmp[j];
                a[k] = rc;
                err *= 1.0 - rc * rc;
            }
        }
        for (int k = 0; k < DC_NL; k++) {
            s_f[k] = (float)a[k];
            pef[(size_t)tr * DC_NL + k] = (float)a[k];
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < nt; i += blockDim.x) {
        float y = 0.0f;
        for (int k = 0; k < DC_NL && k <= i; k++) y += s_f[k] * s_tr[i - k];
        out[(size_t)tr * nt + i] = y;
    }
}

// hdr: ntr trace headers; the bins: nbx x nby squares of side bin from (x0, y0); fold[b] +=
// the live traces whose midpoint falls in bin b, offsum[b] += their offsets; hist[io *
// FM_NAZ + ia] += the live binned traces of offset class io and azimuth sector ia
__global__ void fold_map(const TraceHeader *hdr, int ntr, float x0, float y0, float bin, int nbx, int nby,
                         int *fold, float *offsum, int *hist) {
    __shared__ int s_hist[FM_NOFF * FM_NAZ];
    for (int i = threadIdx.x; i < FM_NOFF * FM_NAZ; i += blockDim.x) s_hist[i] = 0;
    __syncthreads();
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < ntr; t += gridDim.x * blockDim.x) {
        TraceHeader h = hdr[t];
        if (h.trid != 1) continue;                      // dead and auxiliary traces
        float mx = 0.5f * (h.sx + h.gx);
        float my = 0.5f * (h.sy + h.gy);
        int bx = (int)floorf((mx - x0) / bin);
        int by = (int)floorf((my - y0) / bin);
        if (bx < 0 || bx >= nbx || by < 0 || by >= nby) continue;
        float dx = h.gx - h.sx;
        float dy = h.gy - h.sy;
        float off = sqrtf(dx * dx + dy * dy);
        float az = atan2f(dy, dx) * (180.0f / 3.14159265f);
        if (az < 0.0f) az += 180.0f;                    // source-receiver azimuths folded onto 0 .. 180
        int ia = min((int)(az / (180.0f / FM_NAZ)), FM_NAZ - 1);
        int io = min((int)(off / FM_DOFF), FM_NOFF - 1);
        int b = by * nbx + bx;
        atomicAdd(&fold[b], 1);
        atomicAdd(&offsum[b], off);
        atomicAdd(&s_hist[io * FM_NAZ + ia], 1);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < FM_NOFF * FM_NAZ; i += blockDim.x)
        if (s_hist[i] != 0) atomicAdd(&hist[i], s_hist[i]);
}

// traces: ntr records of FB_NT 16-bit samples; picks[tr] the first sample whose STA (FB_NS
// samples ending there) exceeds FB_THRESH times the LTA (the FB_NLW samples before the STA
// window), -1 if none; ratio[tr] the STA / LTA there
__global__ void fb_stalta(const short *traces, short *picks, float *ratio, int ntr) {
    __shared__ long long s_c[FB_WARPS][FB_NT + 1];     // s_c[w][i]: energy of samples 0 .. i - 1
    int w = threadIdx.x / 32, lane = threadIdx.x % 32;
    int tr = blockIdx.x * FB_WARPS + w;
    if (tr >= ntr) return;
    const short *x = traces + (size_t)tr * FB_NT;
    if (lane == 0) s_c[w][0] = 0;
    long long carry = 0;
    for (int base = 0; base < FB_NT; base += 32) {
        int v = x[base + lane];
        long long e = (long long)(v * v);
        for (int o = 1; o < 32; o *= 2) {
            long long y = __shfl_up_sync(0xffffffff, e, o);
            if (lane >= o) e += y;
        }
        e += carry;
        s_c[w][base + lane + 1] = e;
        carry = __shfl_sync(0xffffffff, e, 31);
    }
    __syncwarp();
    int pick = -1;
    float r = 0.0f;
    for (int base = FB_NLW + FB_NS - 1; base < FB_NT; base += 32) {
        int i = base + lane;
        int hit = 0;
        float q = 0.0f;
        if (i < FB_NT) {
            float sta = (float)(s_c[w][i + 1] - s_c[w][i + 1 - FB_NS]) / FB_NS;
            float lta = (float)(s_c[w][i + 1 - FB_NS] - s_c[w][i + 1 - FB_NS - FB_NLW]) / FB_NLW;
            hit = lta > 0.0f && sta > FB_THRESH * lta;
            if (hit) q = sta / lta;
        }
        unsigned int b = __ballot_sync(0xffffffff, hit);
        if (b != 0) {
            int l = __ffs(b) - 1;
            pick = base + l;
            r = __shfl_sync(0xffffffff, q, l);
            break;
        }
    }
    if (lane == 0) {
        picks[tr] = (short)pick;
        ratio[tr] = r;
    }
}

// file: a SEG-Y file of ntr traces of ns samples (4-byte IBM floats, big-endian); out[tr * ns
// + i] the samples as IEEE floats (under 2^-126 flushed to 0, over the largest float clamped,
// both counted in *nbad); tmax[tr]: the bits of the trace's largest |sample| (zeroed first)
__global__ void segy_ibm_to_ieee(const unsigned char *file, int ns, float *out, int *tmax, int *nbad, int ntr) {
    int total = ntr * ns;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < total; k += gridDim.x * blockDim.x) {
        int tr = k / ns;
        int i = k % ns;
        const unsigned char *b = file + SG_FILEHDR + (size_t)tr * (SG_TRHDR + 4 * ns) + SG_TRHDR + 4 * i;
        unsigned int w = ((unsigned int)b[0] << 24) | ((unsigned int)b[1] << 16) | ((unsigned int)b[2] << 8) | b[3];
        unsigned int sign = w & 0x80000000u;
        int ex = (w >> 24) & 0x7f;                      // base-16 exponent, biased by 64
        unsigned int frac = w & 0x00ffffffu;
        float v;
        if (frac == 0) {
            v = 0.0f;
        } else {
            int shift = __clz(frac) - 8;                // leading zeros of the 24-bit fraction
            frac <<= shift;
            int e = 4 * ex - 130 - shift;               // the IEEE biased exponent
            if (e <= 0) {
                v = 0.0f;
                atomicAdd(nbad, 1);
            } else if (e >= 255) {
                v = __uint_as_float(sign | 0x7f7fffffu);
                atomicAdd(nbad, 1);
            } else {
                v = __uint_as_float(sign | ((unsigned int)e << 23) | (frac & 0x007fffffu));
            }
        }
        out[k] = v;
        atomicMax(&tmax[tr], __float_as_int(fabsf(v)));
    }
}

}
