// probe-unseen126: an observational-astronomy course's CUDA assignments (an imaging and
// time-series pipeline from raw CCD frames to a light curve's period), as a student who
// knows CUDA basics hands them in:
//
// calib_shift_add: CCD reduction and co-addition of dithered exposures: a thread a raw
//   16-bit pixel of one of nframes frames (frame-major), bias-subtracted and divided by
//   the flat field, then shifted by its frame's dither offset to the nearest pixel of a
//   larger output mosaic and added there by float atomicAdd (and the pixel's coverage
//   counted by an integer atomicAdd); saturated pixels (raw >= SA_SAT) and pixels shifted
//   off the mosaic are dropped.
// sigma_clip_stack: sigma-clipped mean stacking of nframes registered frames (frame-
//   major), a thread a pixel: the pixel's values copied into a per-thread array, then up
//   to SC_ITERS rounds of mean and sample standard deviation over the values still kept
//   (a bit mask) and rejection of those more than kappa sigma from the mean, stopping when
//   a round rejects nothing; the survivors' mean and their number stored.
// lomb_scargle: the classical Lomb-Scargle periodogram of an unevenly sampled light curve
//   (times t, magnitudes y with their mean removed by the host), a thread a trial
//   frequency f0 + k df; the observations staged LS_TILE at a time in shared memory by the
//   block, one pass for the time offset tau (atan2 of the sums of sin and cos 2wt) and a
//   second for the four sums of the power; the power normalized by the data's variance.
// aperture_phot: circular-aperture photometry: a block a star, its threads sharing the
//   AP_BOX x AP_BOX pixels around the star's position, each summing the pixels within
//   r_ap (the aperture) and those in the sky annulus r_in .. r_out, then shared-memory
//   tree reductions of the four sums; thread 0 subtracts the mean sky times the aperture's
//   pixel count and stores the flux, the sky level and the aperture's pixel count.
// find_peaks: source detection on a background-subtracted image: 16 x 16 blocks stage
//   their tile with a one-pixel halo (clamped at the image's edge) in shared memory, and a
//   pixel above thresh that is greater than its 8 neighbours is a source, appended to a
//   list (x, y, value) through a global atomicAdd on the list's length (the image's
//   outermost pixels are never sources).
// xmatch_nearest: positional cross-match of catalogue A against catalogue B sorted by
//   declination (degrees), a thread an A source: a binary search for the first B source
//   with dec >= dec_a - radius, then a scan of the B sources up to dec_a + radius keeping
//   the nearest within the radius (RA differences wrapped and scaled by cos dec); its
//   index (-1 for none) and separation in arcseconds stored.

#define SA_SAT 60000          // calib_shift_add: raw counts at or above this are saturated
#define SC_MAXF 32            // sigma_clip_stack: the most frames a stack
#define SC_ITERS 5            // sigma_clip_stack: the most clipping rounds
#define LS_TILE 256           // lomb_scargle: observations a shared-memory tile (== blockDim.x)
#define AP_BOX 25             // aperture_phot: the box of pixels around a star's nearest pixel
#define AP_THREADS 128        // aperture_phot: blockDim.x
#define PK_TILE 16            // find_peaks: the block is PK_TILE x PK_TILE

#define PI_F 3.14159265f

extern "C" {

__global__ void calib_shift_add(const unsigned short *raw, const float *bias, const float *flat,
                                const float *shift_x, const float *shift_y, float *coadd, int *cover, int nx,
                                int ny, int out_nx, int out_ny, int nframes) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int npix = nx * ny;
    if (i >= nframes * npix) return;
    int f = i / npix;
    int p = i - f * npix;
    int y = p / nx;
    int x = p - y * nx;
    unsigned short r = raw[i];
    if (r >= SA_SAT) return;
    float v = ((float)r - bias[p]) / flat[p];
    int ox = (int)floorf(x + shift_x[f] + 0.5f);
    int oy = (int)floorf(y + shift_y[f] + 0.5f);
    if (ox < 0 || ox >= out_nx || oy < 0 || oy >= out_ny) return;
    int o = oy * out_nx + ox;
    atomicAdd(&coadd[o], v);
    atomicAdd(&cover[o], 1);
}

__global__ void sigma_clip_stack(const float *frames, float *mean_out, unsigned char *nkept_out, float kappa,
                                 int nframes, int npix) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npix) return;
    float v[SC_MAXF];
    for (int k = 0; k < nframes; k++) v[k] = frames[k * npix + p];
    unsigned int keep = nframes >= 32 ? 0xffffffffu : (1u << nframes) - 1u;
    for (int it = 0; it < SC_ITERS; it++) {
        float s = 0.0f;
        int c = 0;
        for (int k = 0; k < nframes; k++) {
            if ((keep >> k) & 1u) {
                s += v[k];
                c++;
            }
        }
        if (c < 3) break;
        float mean = s / c;
        float s2 = 0.0f;
        for (int k = 0; k < nframes; k++) {
            if ((keep >> k) & 1u) {
                float d = v[k] - mean;
                s2 += d * d;
            }
        }
        float lim = kappa * sqrtf(s2 / (c - 1));
        unsigned int nk = keep;
        for (int k = 0; k < nframes; k++) {
            if (((keep >> k) & 1u) && fabsf(v[k] - mean) > lim) nk &= ~(1u << k);
        }
        if (nk == keep) break;
        keep = nk;
    }
    float s = 0.0f;
    int c = 0;
    for (int k = 0; k < nframes; k++) {
        if ((keep >> k) & 1u) {
            s += v[k];
            c++;
        }
    }
    mean_out[p] = s / c;
    nkept_out[p] = (unsigned char)c;
}

__global__ void lomb_scargle(const float *t, const float *y, float *power, float f0, float df, float var,
                             int nobs, int nfreq) {
    __shared__ float st[LS_TILE];
    __shared__ float sy[LS_TILE];
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    float w = 2.0f * PI_F * (f0 + k * df);

    // pass 1: tan(2 w tau) = sum sin(2 w t) / sum cos(2 w t)
    float s2 = 0.0f;
    float c2 = 0.0f;
    for (int base = 0; base < nobs; base += LS_TILE) {
        int j = base + threadIdx.x;
        st[threadIdx.x] = j < nobs ? t[j] : 0.0f;
        __syncthreads();
        int m = min(LS_TILE, nobs - base);
        for (int q = 0; q < m; q++) {
            float s, c;
            sincosf(2.0f * w * st[q], &s, &c);
            s2 += s;
            c2 += c;
        }
        __syncthreads();
    }
    float tau = atan2f(s2, c2) / (2.0f * w);

    // pass 2: the sums of y cos, y sin, cos^2 and sin^2 of w (t - tau)
    float yc = 0.0f;
    float ys = 0.0f;
    float cc = 0.0f;
    float ss = 0.0f;
    for (int base = 0; base < nobs; base += LS_TILE) {
        int j = base + threadIdx.x;
        st[threadIdx.x] = j < nobs ? t[j] : 0.0f;
        sy[threadIdx.x] = j < nobs ? y[j] : 0.0f;
        __syncthreads();
        int m = min(LS_TILE, nobs - base);
        for (int q = 0; q < m; q++) {
            float s, c;
            sincosf(w * (st[q] - tau), &s, &c);
            yc += sy[q] * c;
            ys += sy[q] * s;
            cc += c * c;
            ss += s * s;
        }
        __syncthreads();
    }
    if (k < nfreq) power[k] = 0.5f * (yc * yc / cc + ys * ys / ss) / var;
}

__global__ void aperture_phot(const float *img, const float *star_x, const float *star_y, float *flux,
                              float *sky_out, int *npix_out, float r_ap, float r_in, float r_out, int nx, int ny,
                              int nstars) {
    __shared__ float s_ap[AP_THREADS];
    __shared__ float s_sky[AP_THREADS];
    __shared__ int s_nap[AP_THREADS];
    __shared__ int s_nsky[AP_THREADS];
    int s = blockIdx.x;
    int tid = threadIdx.x;
    if (s >= nstars) return;
    float cx = star_x[s];
    float cy = star_y[s];
    int x0 = (int)floorf(cx + 0.5f) - AP_BOX / 2;
    int y0 = (int)floorf(cy + 0.5f) - AP_BOX / 2;
    float ap = 0.0f;
    float sky = 0.0f;
    int nap = 0;
    int nsky = 0;
    for (int k = tid; k < AP_BOX * AP_BOX; k += blockDim.x) {
        int x = x0 + k % AP_BOX;
        int y = y0 + k / AP_BOX;
        if (x < 0 || x >= nx || y < 0 || y >= ny) continue;
        float dx = x - cx;
        float dy = y - cy;
        float r2 = dx * dx + dy * dy;
        float v = img[y * nx + x];
        if (r2 <= r_ap * r_ap) {
            ap += v;
            nap++;
        } else if (r2 >= r_in * r_in && r2 <= r_out * r_out) {
            sky += v;
            nsky++;
        }
    }
    s_ap[tid] = ap;
    s_sky[tid] = sky;
    s_nap[tid] = nap;
    s_nsky[tid] = nsky;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (tid < h) {
            s_ap[tid] += s_ap[tid + h];
            s_sky[tid] += s_sky[tid + h];
            s_nap[tid] += s_nap[tid + h];
            s_nsky[tid] += s_nsky[tid + h];
        }
        __syncthreads();
    }
    if (tid == 0) {
        float bg = s_nsky[0] > 0 ? s_sky[0] / s_nsky[0] : 0.0f;
        flux[s] = s_ap[0] - s_nap[0] * bg;
        sky_out[s] = bg;
        npix_out[s] = s_nap[0];
    }
}

__global__ void find_peaks(const float *img, int *px, int *py, float *pval, int *count, float thresh,
                           int max_peaks, int nx, int ny) {
    __shared__ float tile[PK_TILE + 2][PK_TILE + 2];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * PK_TILE + tx;
    int y = blockIdx.y * PK_TILE + ty;
    for (int k = ty * PK_TILE + tx; k < (PK_TILE + 2) * (PK_TILE + 2); k += PK_TILE * PK_TILE) {
        int lx = k % (PK_TILE + 2);
        int ly = k / (PK_TILE + 2);
        int gx = min(max(blockIdx.x * PK_TILE + lx - 1, 0), nx - 1);
        int gy = min(max(blockIdx.y * PK_TILE + ly - 1, 0), ny - 1);
        tile[ly][lx] = img[gy * nx + gx];
    }
    __syncthreads();
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
    float v = tile[ty + 1][tx + 1];
    if (v <= thresh) return;
    bool peak = true;
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            if (dx == 0 && dy == 0) continue;
            if (tile[ty + 1 + dy][tx + 1 + dx] >= v) peak = false;
        }
    }
    if (peak) {
        int slot = atomicAdd(count, 1);
        if (slot < max_peaks) {
            px[slot] = x;
            py[slot] = y;
            pval[slot] = v;
        }
    }
}

__global__ void xmatch_nearest(const float *ra_a, const float *dec_a, const float *ra_b, const float *dec_b,
                               int *match, float *sep, float radius, int nb, int na) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= na) return;
    float ra = ra_a[i];
    float dec = dec_a[i];
    float lo = dec - radius;
    float hi = dec + radius;
    int a = 0;
    int b = nb;
    while (a < b) {
        int mid = (a + b) / 2;
        if (dec_b[mid] < lo)
            a = mid + 1;
        else
            b = mid;
    }
    float cosd = cosf(dec * (PI_F / 180.0f));
    float best = radius * radius;
    int bj = -1;
    for (int j = a; j < nb && dec_b[j] <= hi; j++) {
        float dra = ra_b[j] - ra;
        if (dra > 180.0f)
            dra -= 360.0f;
        else if (dra < -180.0f)
            dra += 360.0f;
        dra *= cosd;
        float dd = dec_b[j] - dec;
        float d2 = dra * dra + dd * dd;
        if (d2 < best) {
            best = d2;
            bj = j;
        }
    }
    match[i] = bj;
    sep[i] = bj >= 0 ? sqrtf(best) * 3600.0f : -1.0f;
}

}
