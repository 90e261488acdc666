// probe-unseen242: an optical-coherence-tomography / biomedical-optics course's CUDA
// assignments, as a student who knows CUDA basics hands them in (a spectral-domain OCT of
// the retina at 840 nm: a 2048-pixel line camera from 790 to 890 nm, 70 kHz A-scans, a
// layered retina with a foveal pit, retinal and choroidal vessels, fully developed speckle;
// and a Monte Carlo model of OCT in layered skin at 1300 nm):
//  - bscan_background_window: the first step of the processing chain, a B-scan's fixed
//    pattern removed: a block a 64-pixel strip of the spectrum of one B-scan (64 x 4
//    threads): each thread sums its camera pixel's 12-bit uint16 samples over every fourth
//    A-scan (a column walk: a warp's 64-byte row segments, a row of the B-scan apart), the 4
//    partial sums reduced in shared memory (a barrier), the mean spectrum (an int -> float
//    divide) stored, then a second pass over the same strip: (raw - mean) * the Hann window
//    (__constant__, one load a thread: the thread's pixel is fixed) stored as float;
//  - ascan_fft_dispersion: an A-scan a block (256 threads): the k-linear spectrum (2048
//    floats, coalesced) multiplied by exp(-i phi(k)), phi = a2 k^2 + a3 k^3 the numerical
//    dispersion compensation (sincosf a sample), stored bit-reversed (__brev) into a shared
//    float2 array; the twiddles exp(-2 pi i j / 2048) built in shared memory by sincospif;
//    an 11-stage radix-2 decimation-in-time FFT (a template over log2 N, unrolled stages,
//    4 butterflies a thread a stage, a barrier a stage, twiddles read at a stride of
//    N / len: bank conflicts in the early stages); the first 1024 bins (depth) as
//    10 log10 |X|^2 mapped onto a display range into an 8-bit image row;
//  - doppler_kasai: phase-resolved Doppler OCT by the Kasai autocorrelation, a thread a
//    pixel of a stack of complex B-scans (float2, A-scans contiguous in depth; the flat
//    index -> depth, A-scan, B-scan by integer / and %): the lag-1 autocorrelation
//    sum_x sum_z c(x+1, z) conj(c(x, z)) over a 4-pair x 5-sample window (20 pairs of
//    float2 loads, overlapping the neighbours': L1 reuse; windows clipped at the edges), the
//    power, a noise threshold (divergent), atan2f -> axial velocity and 1 - |R1| / R0
//    (Doppler variance), a float2 store;
//  - angio_ssada_enface: split-spectrum amplitude-decorrelation angiography (SSADA) of 4
//    repeated B-scans x 4 spectral bands, projected en face over the retina's slab: a
//    warp-level grid-stride loop, a warp an A-scan at a time, its slab (ILM to Bruch's
//    membrane, a short2 from the segmentation, one address a warp) walked in 32-sample
//    trips (lanes along depth, the last trip partial): 16 uint16 amplitude loads a lane (16
//    planes, 64-byte runs), a signal mask, the 12 adjacent-repeat pairs' A1 A2 / ((A1^2 +
//    A2^2) / 2) (12 divides), then the flow pixels by __ballot_sync and __popc, the mean and
//    maximum by __shfl_xor_sync, a 16-byte struct store by lane 0;
//  - mc_oct_photons: Monte Carlo photon transport in 5-layer skin (MCML's hop / drop / spin
//    with Henyey-Greenstein scattering, Fresnel reflection and Snell refraction at every
//    layer boundary, Russian roulette) scored as OCT: a thread a photon, an xorshift32
//    stream seeded by a Wang hash, the layer's optical properties from a __constant__ struct
//    table (per-lane layer indices: serialised), logf / sincosf / sqrtf / divides a step,
//    the absorbed weight by float atomicAdd into a global A(r, z) grid (contended near the
//    beam), the photons leaving through the detector's aperture and acceptance cone binned
//    by half their optical path length into shared-memory A-scan histograms (all photons,
//    and class I: whose deepest optical depth matches the path) by shared float atomicAdd,
//    the block's totals by double atomicAdd; long, divergent loops (a warp runs its
//    longest photon), a 16-byte record a photon;
//  - speckle_roi_stats: speckle statistics of intensity B-scans in 32 x 32 regions, a block
//    a region (256 threads, a float4 of 4 depths a thread: 4 A-scans a warp, 128-byte
//    runs): the sums of I and I^2 in double (__shfl_down_sync on doubles, 8 warp partials in
//    shared memory), the mean, speckle contrast sigma / mean and the K-distribution's
//    effective scatterer number; then a 64-bin histogram of I / <I> by shared int
//    atomicAdd (hot low bins: exponential statistics), stored as uint16 and added into a
//    tissue or a noise histogram by global atomicAdd (64 addresses for every block).

#define FULL_MASK 0xffffffffu
#define PI_F 3.14159265358979f

#define BG_TX 64                // bscan_background_window: camera pixels a block (blockDim.x)
#define BG_TY 4                 // A-scan rows a block walks in step (blockDim.y)
#define NK_MAX 2048             // the camera's pixels (c_win's length)

#define FFT_LOGN 11             // ascan_fft_dispersion: a 2048-point FFT
#define FFT_N (1 << FFT_LOGN)

#define DOP_WX 4                // doppler_kasai: A-scan pairs (lag 1) averaged
#define DOP_WZ 2                // depth samples each side

#define SS_N 4                  // angio_ssada_enface: repeated B-scans
#define SS_M 4                  // split-spectrum bands

#define MC_LAYERS 5             // mc_oct_photons: tissue layers (the last semi-infinite)
#define MC_BINS 256             // A-scan depth bins
#define MC_NR 100               // absorption grid: radial bins
#define MC_NZ 200               // absorption grid: depth bins
#define MC_MAX_STEPS 10000      // a photon's steps, at most

#define ROI 32                  // speckle_roi_stats: a region's side (pixels)
#define ROI_BINS 64             // histogram bins of I / <I> over [0, 8)

// a tissue layer: its depths (mm), refractive index, absorption and scattering (1/mm) and
// the Henyey-Greenstein anisotropy
struct Layer {
    float z0, z1, n, mua, mus, g;
};

// the Monte Carlo run's scoring set-up
struct McConfig {
    float n_above;      // the medium above the tissue (air)
    float det_r;        // the detection fibre's radius on the surface (mm)
    float cos_acc;      // the cosine of its acceptance half-angle (in air)
    float bin_w;        // A-scan bin width (optical depth, mm)
    float opl_max;      // photons past this optical path are out of the coherence window
    float lc;           // the coherence length (optical, mm): class I photons within it
    float dr, dz;       // the absorption grid's cells (mm)
    float wmin;         // Russian roulette below this weight ...
    float chance;       // ... survived with this probability
};

// a photon's fate, for the report
struct PhotonTally {
    float w;            // its weight on leaving through the top (0 if it did not)
    float opl;          // its optical path length (mm)
    float zmax;         // its deepest point (mm)
    short nscat;        // scattering events
    short fate;         // 0 roulette, 1 left the top, 2 detected, 3 past opl_max, 4 step cap
};

// an A-scan's en-face angiography values over the slab
struct EnFace {
    float mean_d;       // mean decorrelation (low-signal pixels as 0)
    float max_d;        // maximum decorrelation
    int nflow;          // pixels over the flow threshold
    int npix;           // the slab's pixels
};

// a speckle region's statistics
struct RoiStats {
    float mean;         // <I>
    float contrast;     // sigma_I / <I>
    float alpha;        // the K-distribution's effective scatterer number (0: C <= 1)
    int tissue;         // <I> over the noise floor
};

__constant__ float c_win[NK_MAX];              // the Hann window (set by the host)
__constant__ Layer c_layers[MC_LAYERS];        // the skin model (set by the host)
__constant__ McConfig c_mc;                    // the scoring set-up (set by the host)

// ---------------------------------------------------------------- helpers

// a radix-2 decimation-in-time FFT in place over s (input bit-reversed, output in order),
// tw[j] = exp(-2 pi i j / N), all the block's threads
template <int LOGN>
__device__ void fft_radix2(float2 *s, const float2 *tw) {
    const int N = 1 << LOGN;
#pragma unroll
    for (int st = 1; st <= LOGN; st++) {
        int half = 1 << (st - 1);
        int tstride = N >> st;
        for (int b = threadIdx.x; b < N / 2; b += blockDim.x) {
            int pos = b & (half - 1);
            int i0 = ((b >> (st - 1)) << st) + pos;
            int i1 = i0 + half;
            float2 w = tw[pos * tstride];
            float2 u = s[i0];
            float2 v = s[i1];
            float tr = v.x * w.x - v.y * w.y;
            float ti = v.x * w.y + v.y * w.x;
            s[i0] = make_float2(u.x + tr, u.y + ti);
            s[i1] = make_float2(u.x - tr, u.y - ti);
        }
        __syncthreads();
    }
}

__device__ unsigned int wang_hash(unsigned int s) {
    s = (s ^ 61u) ^ (s >> 16);
    s *= 9u;
    s = s ^ (s >> 4);
    s *= 0x27d4eb2du;
    s = s ^ (s >> 15);
    return s;
}

// xorshift32; a uniform in (0, 1]
__device__ float rnd(unsigned int *st) {
    unsigned int x = *st;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *st = x;
    return (float)((x >> 8) + 1u) * (1.0f / 16777216.0f);
}

// unpolarised Fresnel reflectance from index ni into nt at incidence cosine ci; *ct the
// transmitted ray's cosine (total internal reflection: 1, *ct = 0)
__device__ float fresnel(float ni, float nt, float ci, float *ct) {
    if (ni == nt) {
        *ct = ci;
        return 0.0f;
    }
    float si = sqrtf(fmaxf(0.0f, 1.0f - ci * ci));
    float st = ni / nt * si;
    if (st >= 1.0f) {
        *ct = 0.0f;
        return 1.0f;
    }
    float c2 = sqrtf(1.0f - st * st);
    *ct = c2;
    float rs = (ni * ci - nt * c2) / (ni * ci + nt * c2);
    float rp = (ni * c2 - nt * ci) / (ni * c2 + nt * ci);
    return 0.5f * (rs * rs + rp * rp);
}

// the optical depth (mm) of geometric depth z through the layers
__device__ float optical_depth(float z) {
    float od = 0.0f;
#pragma unroll
    for (int l = 0; l < MC_LAYERS; l++) {
        float a = c_layers[l].z0, b = c_layers[l].z1;
        float t = fminf(z, b) - a;
        if (t > 0.0f) od += c_layers[l].n * t;
    }
    return od;
}

extern "C" {

// ---------------------------------------------------------------- bscan_background_window

// raw: B-scans of na A-scans of nk camera pixels (uint16, 12-bit); bg[b][k] = the mean over
// the B-scan's A-scans, out[b][a][k] = (raw - bg) * c_win[k]; grid (nk / BG_TX, B-scans)
__global__ void bscan_background_window(const unsigned short *raw, int na, int nk, float *out, float *bg) {
    __shared__ int s_sum[BG_TY][BG_TX];
    __shared__ float s_mean[BG_TX];
    int k = blockIdx.x * BG_TX + threadIdx.x;
    int b = blockIdx.y;
    const unsigned short *src = raw + (size_t)b * na * nk;
    int acc = 0;
    for (int a = threadIdx.y; a < na; a += BG_TY) acc += src[(size_t)a * nk + k];
    s_sum[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0) {
        int t = 0;
        for (int r = 0; r < BG_TY; r++) t += s_sum[r][threadIdx.x];
        float m = (float)t / (float)na;
        s_mean[threadIdx.x] = m;
        bg[(size_t)b * nk + k] = m;
    }
    __syncthreads();
    float m = s_mean[threadIdx.x];
    float w = c_win[k];
    float *dst = out + (size_t)b * na * nk;
    for (int a = threadIdx.y; a < na; a += BG_TY) {
        size_t i = (size_t)a * nk + k;
        dst[i] = ((float)src[i] - m) * w;
    }
}

// ---------------------------------------------------------------- ascan_fft_dispersion

// spec: nascan k-linear spectra of FFT_N floats; a block an A-scan: img[a][z], z < FFT_N / 2,
// = 255 clamp((10 log10 |X[z]|^2 - db_lo) / (db_hi - db_lo)) rounded, X the DFT of
// spec * exp(-i (a2 kap^2 + a3 kap^3)), kap = (j - N/2) / (N/2)
__global__ void ascan_fft_dispersion(const float *spec, int nascan, float a2, float a3, float db_lo, float db_hi,
                                     unsigned char *img) {
    __shared__ float2 s[FFT_N];
    __shared__ float2 tw[FFT_N / 2];
    int a = blockIdx.x;
    if (a >= nascan) return;
    const float *x = spec + (size_t)a * FFT_N;
    for (int j = threadIdx.x; j < FFT_N / 2; j += blockDim.x) {
        float sn, cs;
        sincospif(-2.0f * (float)j / (float)FFT_N, &sn, &cs);
        tw[j] = make_float2(cs, sn);
    }
    for (int j = threadIdx.x; j < FFT_N; j += blockDim.x) {
        float kap = (float)(j - FFT_N / 2) * (2.0f / (float)FFT_N);
        float phi = kap * kap * (a2 + a3 * kap);
        float sn, cs;
        sincosf(phi, &sn, &cs);
        float v = x[j];
        int r = (int)(__brev((unsigned int)j) >> (32 - FFT_LOGN));
        s[r] = make_float2(v * cs, -v * sn);
    }
    __syncthreads();
    fft_radix2<FFT_LOGN>(s, tw);
    float scale = 255.0f / (db_hi - db_lo);
    unsigned char *row = img + (size_t)a * (FFT_N / 2);
    for (int z = threadIdx.x; z < FFT_N / 2; z += blockDim.x) {
        float2 X = s[z];
        float p = X.x * X.x + X.y * X.y;
        float db = 10.0f * log10f(p + 1e-30f);
        float v = (db - db_lo) * scale;
        v = fminf(fmaxf(v, 0.0f), 255.0f);
        row[z] = (unsigned char)(v + 0.5f);
    }
}

// ---------------------------------------------------------------- doppler_kasai

// c: nb B-scans of nx A-scans of nz complex samples; a thread a pixel: out[b][x][z] = (vscale * arg R1,
// 1 - |R1| / R0) where the window's mean power R0 > pmin, else (0, 0): R1 = sum over
// x' in [x, min(x + DOP_WX, nx - 1)), z' in [z - DOP_WZ, z + DOP_WZ] (clipped) of
// c(x' + 1, z') conj(c(x', z')), R0 the pairs' summed power (|c1|^2 + |c2|^2) / 2 (so
// the threshold is on its mean)
__global__ void doppler_kasai(const float2 *c, int nb, int nx, int nz, float vscale, float pmin, float2 *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nb * nx * nz) return;
    int z = i % nz;
    int r = i / nz;
    int x = r % nx;
    int b = r / nx;
    const float2 *bs = c + (size_t)b * nx * nz;
    float rr = 0.0f, ri = 0.0f, p0 = 0.0f;
    int cnt = 0;
    int za = max(z - DOP_WZ, 0), zb = min(z + DOP_WZ, nz - 1);
    int xe = min(x + DOP_WX, nx - 1);
    for (int xa = x; xa < xe; xa++) {
        const float2 *A = bs + (size_t)xa * nz;
        const float2 *B = A + nz;
        for (int zz = za; zz <= zb; zz++) {
            float2 u = A[zz];
            float2 v = B[zz];
            rr += v.x * u.x + v.y * u.y;
            ri += v.y * u.x - v.x * u.y;
            p0 += 0.5f * (u.x * u.x + u.y * u.y + v.x * v.x + v.y * v.y);
            cnt++;
        }
    }
    float2 res = make_float2(0.0f, 0.0f);
    if (cnt > 0 && p0 > pmin * (float)cnt) {
        float ph = atan2f(ri, rr);
        float mag = sqrtf(rr * rr + ri * ri);
        res.x = ph * vscale;
        res.y = 1.0f - mag / p0;
    }
    out[i] = res;
}

// ---------------------------------------------------------------- angio_ssada_enface

// amp: ny positions x (SS_N repeats x SS_M bands) planes of nx A-scans of nz amplitudes
// (uint16); slab[y * nx + x] = (top, bottom) depths; a warp an A-scan at a time (a
// grid-stride loop over the ny * nx A-scans, blockDim.x a multiple of 32): the SSADA
// decorrelation of each slab pixel whose mean amplitude is over amin (else 0), projected
// en face: mean, max, pixels over dthr, pixels
__global__ void angio_ssada_enface(const unsigned short *amp, const short2 *slab, int ny, int nx, int nz,
                                   float amin, float dthr, EnFace *out) {
    int lane = threadIdx.x & 31;
    int nwarps = gridDim.x * blockDim.x / 32;
    size_t plane = (size_t)nx * nz;
    for (int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32; w < ny * nx; w += nwarps) {
        int y = w / nx;
        int x = w - y * nx;
        short2 sb = slab[w];
        int top = sb.x, bot = sb.y;
        const unsigned short *base = amp + (size_t)y * SS_N * SS_M * plane + (size_t)x * nz;
        float dsum = 0.0f, dmax = 0.0f;
        int nflow = 0, npix = 0;
        for (int z0 = top; z0 < bot; z0 += 32) {
            int z = z0 + lane;
            bool in = z < bot;
            bool flow = false;
            if (in) {
                float a[SS_N][SS_M];
                float asum = 0.0f;
#pragma unroll
                for (int n = 0; n < SS_N; n++) {
#pragma unroll
                    for (int m = 0; m < SS_M; m++) {
                        a[n][m] = (float)base[(size_t)(n * SS_M + m) * plane + z];
                        asum += a[n][m];
                    }
                }
                float d = 0.0f;
                if (asum > amin * (float)(SS_N * SS_M)) {
                    float s = 0.0f;
#pragma unroll
                    for (int n = 0; n < SS_N - 1; n++) {
#pragma unroll
                        for (int m = 0; m < SS_M; m++) {
                            float p = a[n][m] * a[n + 1][m];
                            float q = 0.5f * (a[n][m] * a[n][m] + a[n + 1][m] * a[n + 1][m]);
                            s += p / fmaxf(q, 1.0f);
                        }
                    }
                    d = 1.0f - s / (float)((SS_N - 1) * SS_M);
                }
                dsum += d;
                dmax = fmaxf(dmax, d);
                flow = d > dthr;
            }
            unsigned int fb = __ballot_sync(FULL_MASK, flow);
            unsigned int pb = __ballot_sync(FULL_MASK, in);
            nflow += __popc(fb);
            npix += __popc(pb);
        }
        for (int o = 16; o > 0; o >>= 1) {
            dsum += __shfl_xor_sync(FULL_MASK, dsum, o);
            dmax = fmaxf(dmax, __shfl_xor_sync(FULL_MASK, dmax, o));
        }
        if (lane == 0) {
            EnFace e;
            e.mean_d = npix > 0 ? dsum / (float)npix : 0.0f;
            e.max_d = dmax;
            e.nflow = nflow;
            e.npix = npix;
            out[w] = e;
        }
    }
}

// ---------------------------------------------------------------- mc_oct_photons

// nphot photons launched at the origin straight down; photon i's stream seeded by
// wang_hash(seed ^ (i * 0x9E3779B9)); absrz[iz * MC_NR + ir] += absorbed weight,
// ascan[0][bin] / ascan[1][bin] += detected weight (all / class I) at bin =
// opl / 2 / bin_w, totals += (left the top, detected, absorbed, past opl_max) a block,
// tally[i] = photon i's fate
__global__ void mc_oct_photons(int nphot, unsigned int seed, float *absrz, float *ascan, double *totals,
                               PhotonTally *tally) {
    __shared__ float h[2 * MC_BINS];
    __shared__ float s_tot[4];
    for (int j = threadIdx.x; j < 2 * MC_BINS; j += blockDim.x) h[j] = 0.0f;
    if (threadIdx.x < 4) s_tot[threadIdx.x] = 0.0f;
    __syncthreads();
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id < nphot) {
        unsigned int st = wang_hash(seed ^ ((unsigned int)id * 0x9E3779B9u));
        if (st == 0u) st = 0x6d2b79f5u;
        float n1 = c_layers[0].n;
        float rsp = (c_mc.n_above - n1) / (c_mc.n_above + n1);
        float w = 1.0f - rsp * rsp;                 // the specular reflection taken off
        float x = 0.0f, y = 0.0f, z = 0.0f;
        float ux = 0.0f, uy = 0.0f, uz = 1.0f;
        float opl = 0.0f, zmax = 0.0f, wout = 0.0f;
        int l = 0, nscat = 0, fate = 4;
        for (int step = 0; step < MC_MAX_STEPS; step++) {
            Layer L = c_layers[l];
            float mut = L.mua + L.mus;
            float s = -logf(rnd(&st)) / mut;
            float db = 1e30f;
            if (uz > 0.0f) db = (L.z1 - z) / uz;
            else if (uz < 0.0f) db = (L.z0 - z) / uz;
            if (s >= db) {
                // hop to the boundary; the rest of the step is redrawn (exponential: memoryless)
                x += db * ux;
                y += db * uy;
                z = uz > 0.0f ? L.z1 : L.z0;
                opl += L.n * db;
                int nl = uz > 0.0f ? l + 1 : l - 1;
                float nt = nl < 0 ? c_mc.n_above : c_layers[nl].n;
                float ct;
                float R = fresnel(L.n, nt, fabsf(uz), &ct);
                if (rnd(&st) > R) {
                    if (nl < 0) {
                        // out through the top: inside the fibre's aperture and cone?
                        wout = w;
                        fate = 1;
                        atomicAdd(&s_tot[0], w);
                        if (sqrtf(x * x + y * y) < c_mc.det_r && ct >= c_mc.cos_acc) {
                            fate = 2;
                            atomicAdd(&s_tot[1], w);
                            float dep = 0.5f * opl;
                            int bin = (int)(dep / c_mc.bin_w);
                            if (bin < MC_BINS) {
                                atomicAdd(&h[bin], w);
                                if (dep - optical_depth(zmax) < c_mc.lc) atomicAdd(&h[MC_BINS + bin], w);
                            }
                        }
                        break;
                    }
                    float ratio = L.n / nt;
                    ux *= ratio;
                    uy *= ratio;
                    uz = uz > 0.0f ? ct : -ct;
                    l = nl;
                } else {
                    uz = -uz;
                }
            } else {
                // hop, drop
                x += s * ux;
                y += s * uy;
                z += s * uz;
                opl += L.n * s;
                zmax = fmaxf(zmax, z);
                float dw = w * L.mua / mut;
                w -= dw;
                int ir = min((int)(sqrtf(x * x + y * y) / c_mc.dr), MC_NR - 1);
                int iz = min((int)(z / c_mc.dz), MC_NZ - 1);
                atomicAdd(&absrz[iz * MC_NR + ir], dw);
                atomicAdd(&s_tot[2], dw);
                // spin: Henyey-Greenstein
                float g = L.g;
                float cost;
                float u = rnd(&st);
                if (g != 0.0f) {
                    float t = (1.0f - g * g) / (1.0f - g + 2.0f * g * u);
                    cost = (1.0f + g * g - t * t) / (2.0f * g);
                } else {
                    cost = 2.0f * u - 1.0f;
                }
                cost = fminf(fmaxf(cost, -1.0f), 1.0f);
                float sint = sqrtf(1.0f - cost * cost);
                float sinp, cosp;
                sincosf(2.0f * PI_F * rnd(&st), &sinp, &cosp);
                if (fabsf(uz) > 0.99999f) {
                    ux = sint * cosp;
                    uy = sint * sinp;
                    uz = uz > 0.0f ? cost : -cost;
                } else {
                    float tmp = sqrtf(1.0f - uz * uz);
                    float nux = sint * (ux * uz * cosp - uy * sinp) / tmp + ux * cost;
                    float nuy = sint * (uy * uz * cosp + ux * sinp) / tmp + uy * cost;
                    uz = -sint * cosp * tmp + uz * cost;
                    ux = nux;
                    uy = nuy;
                }
                nscat++;
                if (w < c_mc.wmin) {
                    if (rnd(&st) <= c_mc.chance) {
                        w /= c_mc.chance;
                    } else {
                        w = 0.0f;
                        fate = 0;
                        break;
                    }
                }
            }
            if (opl > c_mc.opl_max) {
                atomicAdd(&s_tot[3], w);
                fate = 3;
                break;
            }
        }
        PhotonTally t;
        t.w = wout;
        t.opl = opl;
        t.zmax = zmax;
        t.nscat = (short)nscat;
        t.fate = (short)fate;
        tally[id] = t;
    }
    __syncthreads();
    for (int j = threadIdx.x; j < 2 * MC_BINS; j += blockDim.x) {
        float v = h[j];
        if (v != 0.0f) atomicAdd(&ascan[j], v);
    }
    if (threadIdx.x < 4) atomicAdd(&totals[threadIdx.x], (double)s_tot[threadIdx.x]);
}

// ---------------------------------------------------------------- speckle_roi_stats

// img: B-scans of nx A-scans of nz intensities (nx, nz multiples of ROI); a block the
// region (blockIdx.x: depth, .y: A-scans, .z: B-scan): roi[r] its statistics,
// hist[r][k] its pixels with 8 I / <I> in [k, k + 1) (the last bin open), ghist[0 or 1][k]
// += them (tissue: <I> > noise_floor, or noise)
__global__ void speckle_roi_stats(const float *img, int nx, int nz, float noise_floor, RoiStats *roi,
                                  unsigned short *hist, unsigned int *ghist) {
    __shared__ double s_sum[8], s_sq[8];
    __shared__ int s_hist[ROI_BINS];
    __shared__ float s_mean;
    __shared__ int s_tissue;
    int tid = threadIdx.x;
    int lane = tid & 31, wid = tid >> 5;
    int xo = tid >> 3, zq = tid & 7;
    int b = blockIdx.z;
    size_t col = ((size_t)b * nx + blockIdx.y * ROI + xo) * nz + blockIdx.x * ROI;
    float4 v = reinterpret_cast<const float4 *>(img + col)[zq];
    if (tid < ROI_BINS) s_hist[tid] = 0;
    float fs = v.x + v.y + v.z + v.w;
    float fq = v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    double ds = (double)fs, dq = (double)fq;
    for (int o = 16; o > 0; o >>= 1) {
        ds += __shfl_down_sync(FULL_MASK, ds, o);
        dq += __shfl_down_sync(FULL_MASK, dq, o);
    }
    if (lane == 0) {
        s_sum[wid] = ds;
        s_sq[wid] = dq;
    }
    __syncthreads();
    int r = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    if (tid == 0) {
        double S = 0.0, Q = 0.0;
        for (int k = 0; k < 8; k++) {
            S += s_sum[k];
            Q += s_sq[k];
        }
        double mean = S / (ROI * ROI);
        double var = Q / (ROI * ROI) - mean * mean;
        double c2 = var > 0.0 ? var / (mean * mean) : 0.0;
        RoiStats rs;
        rs.mean = (float)mean;
        rs.contrast = (float)sqrt(c2);
        rs.alpha = c2 > 1.0 ? (float)(2.0 / (c2 - 1.0)) : 0.0f;
        rs.tissue = rs.mean > noise_floor ? 1 : 0;
        roi[r] = rs;
        s_mean = rs.mean;
        s_tissue = rs.tissue;
    }
    __syncthreads();
    float inv = 1.0f / s_mean;
    float e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < 4; k++) {
        int bin = (int)(e[k] * inv * 8.0f);
        atomicAdd(&s_hist[min(bin, ROI_BINS - 1)], 1);
    }
    __syncthreads();
    if (tid < ROI_BINS) {
        int c = s_hist[tid];
        hist[(size_t)r * ROI_BINS + tid] = (unsigned short)c;
        if (c > 0) atomicAdd(&ghist[(s_tissue ? 0 : ROI_BINS) + tid], (unsigned int)c);
    }
}

}  // extern "C"
