// probe-unseen235: an underwater-acoustics / active-sonar signal-processing course's CUDA
// assignments, as a student who knows CUDA basics hands them in (a towed array's
// beamformer, a Doppler-sensitive pulse's matched filter bank, CFAR detection, a
// forward-looking imaging sonar's display, an ADCP's current profile, a waveguide's
// propagation loss):
//  - fdbf_btr<NCH>: the conventional frequency-domain beamformer of a towed line array
//    into a broadband bearing-time record: a block a snapshot (FFT frame), threadIdx.x a
//    beam (128 beams equally spaced in cos(bearing)), threadIdx.y one of 4 slices of the
//    frequency bins; for each bin the NCH element spectra staged in shared memory (a float2
//    a thread, two barriers), the steering phasor's step by one sincosf, then NCH (#pragma
//    unroll) complex multiply-adds of a broadcast shared float2, a __constant__ Hann taper
//    weight and a phasor rotated by complex multiplies; the slices' powers summed through
//    shared memory and stored in dB (log10f);
//  - doppler_bank_mf: the matched filter bank of a Doppler-sensitive pseudo-noise pulse,
//    a thread a range sample, blockIdx.y a Doppler-shifted replica, blockIdx.z a beam: the
//    block's echo tile (plus the replica's length) and its replica staged in shared memory,
//    the correlation sum_k conj(r[k]) e[t + k] (#pragma unroll 4) from shared memory, the
//    power packed with the Doppler index as (float bits << 32 | d) into a 64-bit
//    atomicMax per range cell (the best Doppler channel wins; the bank's 16 blocks contend
//    for each cell);
//  - go_cfar: greatest-of cell-averaging CFAR along range on a beam x range power map, a
//    block a 1024-cell tile of a beam: the tile and its halo of guard and training cells
//    prefix-summed in double in shared memory (a warp __shfl_up_sync scan of doubles, the
//    warps' totals scanned by warp 0, three barriers a 256-cell chunk), then each cell's
//    leading and lagging training sums as differences of the prefix (one side only at a
//    beam's ends), the greater one the noise estimate, the divide, the cell's normalised
//    statistic in dB into a 128-bin shared histogram (contended shared atomics, flushed by
//    global atomicAdd), and the detections compacted by __ballot_sync / __popc with one
//    atomicAdd a warp (warp-aggregated) into a list of Detection structs;
//  - fls_scan_convert: the scan conversion of a forward-looking imaging sonar's polar
//    frames (16-bit range x beam intensities, beams unequally spaced in bearing: equal in
//    sine) to a Cartesian 8-bit display, a grid-stride loop over the pixels of a batch of
//    frames: the beams' bearings from the frame header staged in shared memory, each
//    pixel's range by sqrtf and bearing by atan2f, its beam by a binary search over the
//    shared table (~8 trips), outside the fan left black (divergent), inside a bilinear
//    interpolation of four gathered 16-bit samples, 20 log10 of it mapped to a gray byte;
//  - adcp_pulse_pair: a Janus four-beam ADCP's pulse-pair (lag-8 autocorrelation)
//    velocities, a block a (ping, depth cell), a warp a beam: the cell's 64 complex 16-bit
//    samples (short2, two a lane), x[n + 8] fetched from another lane by __shfl_sync, the
//    lag products and powers reduced by __shfl_down_sync, atan2f to the along-beam
//    velocity and the correlation by sqrtf and a divide (lane 0, into shared memory), a
//    barrier, then thread 0 screens the cell on the beams' correlations (divergent),
//    transforms beam to earth velocities by a __constant__ 4 x 4 matrix into a float4,
//    stores the correlations as uchar4 counts, and counts the good cells per depth by
//    atomicAdd (one address a depth, every ping's block);
//  - tl_normal_modes: the propagation loss of a Pekeris waveguide (isovelocity water over
//    a fluid half-space with attenuation) on a range x depth grid by the normal-mode sum,
//    a thread a (range, depth) point looping over the modes: a __constant__ table of Mode
//    structs (double horizontal wavenumber, float attenuation, amplitude, vertical
//    wavenumbers; one address a warp), the mode shape sinf(gamma z) in the water or an
//    evanescent expf in the sediment (uniform a warp), the phase kr r in double reduced
//    modulo 2 pi (floor) before sincosf, expf of the attenuation; then |p| by sqrtf and TL
//    by log10f.

#define PI_F 3.14159265358979f
#define TWO_PI_D 6.283185307179586
#define INV_TWO_PI_D 0.15915494309189535
#define FULL_MASK 0xffffffffu

// fdbf_btr
#define BF_NBEAM 128            // beams a snapshot (blockDim.x)
#define BF_NSUB 4               // bin slices a block (blockDim.y)
#define BF_MAXCH 128            // elements, at most (the taper table)
// doppler_bank_mf
#define MF_TILE 256             // range samples a block (blockDim.x)
#define MF_MAXTAPS 256          // the replica's length, at most
// go_cfar
#define CF_BLOCK 256
#define CF_PER 4                // cells a thread
#define CF_TILE (CF_BLOCK * CF_PER)
#define CF_GUARD 4              // guard cells a side
#define CF_TRAIN 32             // training cells a side
#define CF_HALO (CF_GUARD + CF_TRAIN)
#define CF_LEN (CF_TILE + 2 * CF_HALO)
#define CF_NWARP (CF_BLOCK / 32)
#define CF_NBIN 128             // the statistic's histogram: 0.5 dB bins from -30 dB
#define CF_HIST_LO_DB (-30.0f)
#define CF_HIST_PER_DB 2.0f
// fls_scan_convert
#define SC_MAXBEAM 512
// adcp_pulse_pair
#define AD_CELL 64              // samples a depth cell
#define AD_LAG 8                // the pulse-pair lag, samples
#define AD_NBEAM 4
#define AD_BAD (-32.768f)       // the bad-velocity fill value
// tl_normal_modes
#define NM_MAX 128

// ---------------------------------------------------------------- tables

// fdbf_btr: the array's shading (a Hann taper), set by the host
__constant__ float c_taper[BF_MAXCH];

// adcp_pulse_pair: beam (1: +x, 2: -x, 3: +y, 4: -y) to earth (u, v, w, error) velocities
__constant__ float c_b2e[16];

// tl_normal_modes: a mode of the waveguide. psi(z) = sin(gamma z) in the water (z <= D),
// bot exp(-delta (z - D)) in the sediment; the term amp psi(z) exp(-alpha r) exp(i kr r)
struct Mode {
    double kr;                  // horizontal wavenumber (1/m)
    float alpha;                // its imaginary part: the mode's attenuation (Np/m)
    float amp;                  // A^2 sin(gamma zs) / (rho(zs) sqrt(kr))
    float gamma;                // vertical wavenumber in the water (1/m)
    float delta;                // decay rate in the sediment (1/m)
    float bot;                  // sin(gamma D)
    float pad;
};
__constant__ Mode c_mode[NM_MAX];

// go_cfar: a detection
struct Detection {
    int beam;
    int cell;
    float power;
    float snr_db;
};

// ---------------------------------------------------------------- fdbf_btr<NCH>

// X: nsnap x nf x NCH complex spectra (snapshot, bin, element); bin k's steering phase
// step between elements (kd_lo + k kd_step) u_b with u_b = (2b + 1 - NBEAM) / NBEAM;
// btr[snap][b] = 10 log10(inv_norm sum_k |sum_ch taper[ch] X[ch] e^{i ch phase step}|^2).
// A block (BF_NBEAM, BF_NSUB) a snapshot: threadIdx.y takes every BF_NSUB-th bin (nf a
// multiple of BF_NSUB), its partial powers summed through shared memory at the end.
template <int NCH>
__global__ void fdbf_btr(const float2 *X, int nf, float kd_lo, float kd_step, float inv_norm, float *btr) {
    __shared__ float2 s_x[BF_NSUB][NCH];
    __shared__ float s_pw[BF_NSUB][BF_NBEAM];
    int b = threadIdx.x;
    int sub = threadIdx.y;
    int snap = blockIdx.x;
    float u = (float)(2 * b + 1 - BF_NBEAM) / (float)BF_NBEAM;
    float pw = 0.0f;
    for (int k0 = 0; k0 < nf; k0 += BF_NSUB) {
        int k = k0 + sub;
        __syncthreads();                                   // the last bins' reads done
        if (b < NCH) s_x[sub][b] = X[((size_t)snap * nf + k) * NCH + b];
        __syncthreads();
        float kd = kd_lo + kd_step * (float)k;
        float sn, cs;
        sincosf(kd * u, &sn, &cs);
        float pr = 1.0f, pi = 0.0f;                        // e^{i ch kd u}
        float yr = 0.0f, yi = 0.0f;
#pragma unroll
        for (int ch = 0; ch < NCH; ch++) {
            float2 x = s_x[sub][ch];
            float w = c_taper[ch];
            float xr = w * x.x, xi = w * x.y;
            yr += xr * pr - xi * pi;
            yi += xr * pi + xi * pr;
            float npr = pr * cs - pi * sn;
            pi = pr * sn + pi * cs;
            pr = npr;
        }
        pw += yr * yr + yi * yi;
    }
    s_pw[sub][b] = pw;
    __syncthreads();
    if (sub == 0) {
        float tot = 0.0f;
        for (int j = 0; j < BF_NSUB; j++) tot += s_pw[j][b];
        btr[snap * BF_NBEAM + b] = 10.0f * log10f(tot * inv_norm);
    }
}

extern "C" {

// ---------------------------------------------------------------- doppler_bank_mf

// echo: nbeam rows of rowlen = nsamp + ntaps - 1 complex baseband samples; bank: ndop
// replicas of ntaps; best[beam][t] = max over d of (bits(|y_d(t)|^2) << 32 | d), y_d(t) =
// sum_k conj(bank[d][k]) echo[beam][t + k]. Grid (nsamp / MF_TILE, ndop, nbeam).
__global__ void doppler_bank_mf(const float2 *echo, const float2 *bank, int nsamp, int ntaps,
                                unsigned long long *best) {
    __shared__ float2 s_e[MF_TILE + MF_MAXTAPS - 1];
    __shared__ float2 s_r[MF_MAXTAPS];
    int t = threadIdx.x;
    int d = blockIdx.y;
    int beam = blockIdx.z;
    int base = blockIdx.x * MF_TILE;
    int rowlen = nsamp + ntaps - 1;
    const float2 *row = echo + (size_t)beam * rowlen + base;
    for (int i = t; i < MF_TILE + ntaps - 1; i += MF_TILE) s_e[i] = row[i];
    for (int i = t; i < ntaps; i += MF_TILE) s_r[i] = bank[d * ntaps + i];
    __syncthreads();
    float yr = 0.0f, yi = 0.0f;
#pragma unroll 4
    for (int k = 0; k < ntaps; k++) {
        float2 r = s_r[k];
        float2 e = s_e[t + k];
        yr += r.x * e.x + r.y * e.y;                       // conj(r) e
        yi += r.x * e.y - r.y * e.x;
    }
    float p = yr * yr + yi * yi;
    unsigned long long key = ((unsigned long long)__float_as_uint(p) << 32) | (unsigned int)d;
    atomicMax(&best[(size_t)beam * nsamp + base + t], key);
}

// ---------------------------------------------------------------- go_cfar

// pw: nbeam x ncell powers (ncell a multiple of CF_TILE); a cell detects when pw / noise >
// alpha, noise the greater of the leading and lagging CF_TRAIN-cell means (CF_GUARD guard
// cells between), one side only within CF_HALO cells of a beam's ends. Detections go to
// det[atomicAdd(ndet)] (at most maxdet stored); hist counts 2 (10 log10(stat) + 30) by
// 0.5 dB bins (clamped to 0..127). Grid (ncell / CF_TILE, nbeam), CF_BLOCK threads.
__global__ void go_cfar(const float *pw, int ncell, float alpha, Detection *det, int maxdet, int *ndet,
                        unsigned int *hist) {
    __shared__ double s_pfx[CF_LEN + 1];                   // s_pfx[i] = the sum of tile[0 .. i-1]
    __shared__ double s_wsum[CF_NWARP];
    __shared__ unsigned int s_hist[CF_NBIN];
    int t = threadIdx.x;
    int lane = t & 31, wid = t >> 5;
    int beam = blockIdx.y;
    int base = blockIdx.x * CF_TILE;
    const float *row = pw + (size_t)beam * ncell;
    for (int i = t; i < CF_NBIN; i += CF_BLOCK) s_hist[i] = 0;
    if (t == 0) s_pfx[0] = 0.0;

    // the prefix sum of the tile and its halo (zeros past the beam's ends)
    double carry = 0.0;
    for (int c0 = 0; c0 < CF_LEN; c0 += CF_BLOCK) {
        int i = c0 + t;
        int g = base - CF_HALO + i;
        double v = (i < CF_LEN && g >= 0 && g < ncell) ? (double)row[g] : 0.0;
        for (int o = 1; o < 32; o *= 2) {
            double u = __shfl_up_sync(FULL_MASK, v, o);
            if (lane >= o) v += u;
        }
        if (lane == 31) s_wsum[wid] = v;
        __syncthreads();
        if (wid == 0) {
            double w = lane < CF_NWARP ? s_wsum[lane] : 0.0;
            for (int o = 1; o < CF_NWARP; o *= 2) {
                double u = __shfl_up_sync(FULL_MASK, w, o);
                if (lane >= o) w += u;
            }
            if (lane < CF_NWARP) s_wsum[lane] = w;
        }
        __syncthreads();
        if (i < CF_LEN) s_pfx[i + 1] = carry + (wid > 0 ? s_wsum[wid - 1] : 0.0) + v;
        carry += s_wsum[CF_NWARP - 1];
        __syncthreads();
    }

    for (int k = 0; k < CF_PER; k++) {
        int i = k * CF_BLOCK + t;
        int cell = base + i;
        int p = i + CF_HALO;                               // the cell's place in the tile
        float x = row[cell];
        double lead = s_pfx[p - CF_GUARD] - s_pfx[p - CF_GUARD - CF_TRAIN];
        double lag = s_pfx[p + CF_GUARD + 1 + CF_TRAIN] - s_pfx[p + CF_GUARD + 1];
        bool lead_ok = cell >= CF_HALO;
        bool lag_ok = cell + CF_HALO < ncell;
        double tr;
        if (lead_ok && lag_ok) tr = fmax(lead, lag);
        else if (lead_ok) tr = lead;
        else tr = lag;
        float noise = (float)(tr * (1.0 / CF_TRAIN));
        float stat = x / noise;
        float db = 10.0f * log10f(stat);
        int bin = (int)floorf((db - CF_HIST_LO_DB) * CF_HIST_PER_DB);
        bin = min(max(bin, 0), CF_NBIN - 1);
        atomicAdd(&s_hist[bin], 1u);
        bool hit = stat > alpha;
        unsigned int m = __ballot_sync(FULL_MASK, hit);
        if (m != 0) {
            int leader = __ffs(m) - 1;
            int slot0 = 0;
            if (lane == leader) slot0 = atomicAdd(ndet, __popc(m));
            slot0 = __shfl_sync(FULL_MASK, slot0, leader);
            if (hit) {
                int slot = slot0 + __popc(m & ((1u << lane) - 1u));
                if (slot < maxdet) {
                    Detection dd;
                    dd.beam = beam;
                    dd.cell = cell;
                    dd.power = x;
                    dd.snr_db = db;
                    det[slot] = dd;
                }
            }
        }
    }
    __syncthreads();
    for (int i = t; i < CF_NBIN; i += CF_BLOCK)
        if (s_hist[i] != 0) atomicAdd(&hist[i], s_hist[i]);
}

// ---------------------------------------------------------------- fls_scan_convert

// polar: nframe x nrange x nbeam 16-bit intensities (range line-major), sample j of a line
// at range rmin + j dr, beam b at bearing bearing[b] (increasing, radians from ahead,
// positive to starboard); img: nframe x ny x nx bytes, the sonar at the bottom centre,
// pixels px metres: pixel (ix, iy) at x = (ix - nx/2 + 1/2) px, y = (ny - iy - 1/2) px;
// outside the fan 0, inside (20 log10(1 + bilinear) - db_lo) gray_per_db clamped to
// [0, 255] and truncated
__global__ void fls_scan_convert(const unsigned short *polar, const float *bearing, int nframe, int nrange,
                                 int nbeam, float rmin, float inv_dr, int nx, int ny, float px, float db_lo,
                                 float gray_per_db, unsigned char *img) {
    __shared__ float s_th[SC_MAXBEAM];
    for (int i = threadIdx.x; i < nbeam; i += blockDim.x) s_th[i] = bearing[i];
    __syncthreads();
    int npix = nx * ny;
    int total = nframe * npix;
    float th_lo = s_th[0], th_hi = s_th[nbeam - 1];
    float rmax_idx = (float)(nrange - 1);
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < total; k += gridDim.x * blockDim.x) {
        int f = k / npix;
        int q = k - f * npix;
        int iy = q / nx;
        int ix = q - iy * nx;
        float x = ((float)ix - 0.5f * (float)nx + 0.5f) * px;
        float y = ((float)(ny - iy) - 0.5f) * px;
        float r = sqrtf(x * x + y * y);
        float th = atan2f(x, y);
        float fr = (r - rmin) * inv_dr;
        unsigned char g = 0;
        if (fr >= 0.0f && fr <= rmax_idx && th >= th_lo && th <= th_hi) {
            int lo = 0, hi = nbeam - 1;                    // s_th[lo] <= th <= s_th[hi]
            while (hi - lo > 1) {
                int mid = (lo + hi) >> 1;
                if (s_th[mid] <= th) lo = mid;
                else hi = mid;
            }
            float wb = (th - s_th[lo]) / (s_th[hi] - s_th[lo]);
            int r0 = min((int)fr, nrange - 2);
            float wr = fr - (float)r0;
            const unsigned short *p = polar + ((size_t)f * nrange + r0) * nbeam + lo;
            float v00 = (float)p[0], v01 = (float)p[1];
            float v10 = (float)p[nbeam], v11 = (float)p[nbeam + 1];
            float v = (1.0f - wr) * ((1.0f - wb) * v00 + wb * v01) + wr * ((1.0f - wb) * v10 + wb * v11);
            float gv = (20.0f * log10f(v + 1.0f) - db_lo) * gray_per_db;
            gv = fminf(fmaxf(gv, 0.0f), 255.0f);
            g = (unsigned char)gv;
        }
        img[k] = g;
    }
}

// ---------------------------------------------------------------- adcp_pulse_pair

// iq: nping x 4 beams x ncell x AD_CELL complex samples (16-bit I, Q); a cell's lag-8
// autocorrelation R1 = sum x[n + 8] conj(x[n]) and power R0 = sum (|x[n]|^2 + |x[n+8]|^2) / 2
// over its 56 pairs; beam velocity vscale atan2(Im R1, Re R1), correlation |R1| / R0.
// vel[ping][cell] = c_b2e (v1..v4) when every beam's correlation >= corr_min (ngood[cell]
// counts them), else AD_BAD; corr[ping][cell] = the four correlations in counts (0..255).
// Grid (ncell, nping), 128 threads.
__global__ void adcp_pulse_pair(const short2 *iq, int ncell, float vscale, float corr_min, float4 *vel,
                                uchar4 *corr, int *ngood) {
    __shared__ float s_v[AD_NBEAM];
    __shared__ float s_c[AD_NBEAM];
    int cell = blockIdx.x, ping = blockIdx.y;
    int lane = threadIdx.x & 31, beam = threadIdx.x >> 5;
    const short2 *x = iq + ((size_t)(ping * AD_NBEAM + beam) * ncell + cell) * AD_CELL;
    short2 q0 = x[lane];
    short2 q1 = x[lane + 32];
    float a0r = (float)q0.x, a0i = (float)q0.y;
    float a1r = (float)q1.x, a1i = (float)q1.y;
    int src = (lane + AD_LAG) & 31;
    float t0r = __shfl_sync(FULL_MASK, a0r, src), t0i = __shfl_sync(FULL_MASK, a0i, src);
    float t1r = __shfl_sync(FULL_MASK, a1r, src), t1i = __shfl_sync(FULL_MASK, a1i, src);
    bool low = lane < 32 - AD_LAG;
    float br = low ? t0r : t1r, bi = low ? t0i : t1i;       // x[lane + 8]
    float rr = br * a0r + bi * a0i;
    float ri = bi * a0r - br * a0i;
    float r0 = 0.5f * (a0r * a0r + a0i * a0i + br * br + bi * bi);
    if (low) {                                             // x[lane + 40] conj(x[lane + 32])
        rr += t1r * a1r + t1i * a1i;
        ri += t1i * a1r - t1r * a1i;
        r0 += 0.5f * (a1r * a1r + a1i * a1i + t1r * t1r + t1i * t1i);
    }
    for (int o = 16; o > 0; o >>= 1) {
        rr += __shfl_down_sync(FULL_MASK, rr, o);
        ri += __shfl_down_sync(FULL_MASK, ri, o);
        r0 += __shfl_down_sync(FULL_MASK, r0, o);
    }
    if (lane == 0) {
        s_v[beam] = vscale * atan2f(ri, rr);
        s_c[beam] = sqrtf(rr * rr + ri * ri) / r0;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        bool ok = true;
        uchar4 cc;
        float c0 = fminf(s_c[0], 1.0f), c1 = fminf(s_c[1], 1.0f), c2 = fminf(s_c[2], 1.0f),
              c3 = fminf(s_c[3], 1.0f);
        cc.x = (unsigned char)(255.0f * c0 + 0.5f);
        cc.y = (unsigned char)(255.0f * c1 + 0.5f);
        cc.z = (unsigned char)(255.0f * c2 + 0.5f);
        cc.w = (unsigned char)(255.0f * c3 + 0.5f);
        for (int b = 0; b < AD_NBEAM; b++)
            if (!(s_c[b] >= corr_min)) ok = false;
        float4 o;
        if (ok) {
            float e[4];
            for (int i = 0; i < 4; i++)
                e[i] = c_b2e[4 * i] * s_v[0] + c_b2e[4 * i + 1] * s_v[1] + c_b2e[4 * i + 2] * s_v[2] +
                       c_b2e[4 * i + 3] * s_v[3];
            o = make_float4(e[0], e[1], e[2], e[3]);
            atomicAdd(&ngood[cell], 1);
        } else {
            o = make_float4(AD_BAD, AD_BAD, AD_BAD, AD_BAD);
        }
        vel[ping * ncell + cell] = o;
        corr[ping * ncell + cell] = cc;
    }
}

// ---------------------------------------------------------------- tl_normal_modes

// the modes c_mode[0 .. nmodes-1]; tl[iz][ir] at range (ir + 1) dr, depth (iz + 1) dz (water
// depth D): TL = -20 log10(4 pi |sum_m amp psi_m(z) e^{-alpha r} e^{i kr r}| / sqrt(8 pi r)).
// Grid of (32, 8) blocks over (nr, nz).
__global__ void tl_normal_modes(int nmodes, int nr, int nz, float dr, float dz, float depth, float *tl) {
    int ir = blockIdx.x * blockDim.x + threadIdx.x;
    int iz = blockIdx.y * blockDim.y + threadIdx.y;
    if (ir >= nr || iz >= nz) return;
    float r = (float)(ir + 1) * dr;
    float z = (float)(iz + 1) * dz;
    bool water = z <= depth;
    double rd = (double)r;
    float pr = 0.0f, pi = 0.0f;
    for (int m = 0; m < nmodes; m++) {
        float psi;
        if (water) psi = sinf(c_mode[m].gamma * z);
        else psi = c_mode[m].bot * expf(-c_mode[m].delta * (z - depth));
        double ph = c_mode[m].kr * rd;
        ph = ph - TWO_PI_D * floor(ph * INV_TWO_PI_D);
        float sn, cs;
        sincosf((float)ph, &sn, &cs);
        float a = c_mode[m].amp * psi * expf(-c_mode[m].alpha * r);
        pr += a * cs;
        pi += a * sn;
    }
    float mag = sqrtf(pr * pr + pi * pi) / sqrtf(8.0f * PI_F * r);
    tl[iz * nr + ir] = -20.0f * log10f(fmaxf(4.0f * PI_F * mag, 1e-30f));
}

}
