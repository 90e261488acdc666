// probe-unseen211: a computed-tomography / image-reconstruction course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - fan_joseph_fwd: the forward projector of a third-generation fan-beam scanner
//    (equiangular detector, quarter-detector offset) by Joseph's method, a warp a ray:
//    the lanes stride over the columns (or rows) of the ray's dominant axis, each sample
//    the linear interpolation of two neighbouring pixels, the partial sums reduced by
//    __shfl_down_sync; each view's source position from a __constant__ table of structs;
//  - fdk_weight_ramp: the filtering step of FDK cone-beam reconstruction, a block a
//    detector row: the row times the cone-beam cosine weight D / sqrt(D^2 + u^2 + v^2)
//    staged in shared memory with the Ram-Lak kernel (Kak & Slaney's band-limited
//    h: 1 / 4 tau^2 at 0, -1 / (pi k tau)^2 at odd k, 0 at even k), __syncthreads, then
//    each thread's bin convolved with the whole row over the odd taps only, in double;
//    the geometry a struct passed by value;
//  - ossart_subset: one sub-iteration of OS-SART (ordered-subsets simultaneous ART) on a
//    parallel-beam sinogram, a warp a ray of the subset's views (as in the projector):
//    Joseph's weights along the ray walked twice by the lanes, first for the ray sum and
//    the ray length (a __shfl_xor_sync butterfly gives every lane the totals), then to
//    spread the normalised residual and the weights over the image by float atomicAdd into
//    a correction and a weight image (the update itself another kernel);
//  - tv3d_step: a gradient-descent step of smoothed total-variation denoising of a CT
//    volume (isotropic TV of forward differences, Neumann edges), a block a 32 x 8 tile of
//    a slice: the slice and the ones above and below with a 1-voxel halo staged in shared
//    memory (clamped indices), __syncthreads, the TV gradient from 4 gradient norms
//    (sqrtf) and the data term; the energy reduced by __shfl_down_sync and added by one
//    double atomicAdd a warp;
//  - li_mar: linear-interpolation metal artifact reduction of a sinogram of raw 16-bit
//    detector counts, a warp a detector row in a grid-stride loop: the counts to line
//    integrals (logf), the metal trace (line integrals over a threshold) as a bit mask by
//    __ballot_sync into shared memory, each metal bin replaced by the linear interpolation
//    between its nearest non-metal neighbours found by __clz / __ffs over the mask words,
//    the metal bins counted by shared and global int atomics;
//  - de_decompose: dual-energy basis-material decomposition, a thread a detector
//    reading of both spectra: the water and bone path lengths solving the polychromatic
//    model -log sum_E S(E) exp(-mu_w(E) t_w - mu_b(E) t_b) = p at 80 and 140 kVp by Newton's
//    method in double, the attenuation factors of the energy bins in a per-thread array,
//    the spectra and attenuation coefficients a __constant__ table of structs, a
//    data-dependent number of iterations.

#define FP_N 512                // fan_joseph_fwd: image N x N pixels
#define FP_NDET 768             // detector channels
#define FP_MAXV 2048            // views at most (the constant table)
#define FP_PI 3.14159265358979f

#define FK_NU 512               // fdk_weight_ramp: detector columns (= blockDim.x)
#define FK_PI2 9.8696044f       // pi^2

#define SA_N 512                // ossart_subset: image N x N pixels
#define SA_NDET 768             // detector bins a view
#define SA_MAXV 2048            // views at most

#define TV_BX 32                // tv3d_step: block tile (blockDim.x, blockDim.y)
#define TV_BY 8

#define MR_NDET 768             // li_mar: detector channels a row (a multiple of 32)
#define MR_NW (MR_NDET / 32)    // mask words a row
#define MR_WARPS 8              // warps a block (blockDim.x = 256)

#define DE_NE 16                // de_decompose: energy bins
#define DE_MAXIT 12             // Newton iterations at most
#define DE_TOL 1e-6             // a step moving (t_w, t_b) less than this (|.|_1, cm): converged
#define DE_TWMAX 80.0           // clamps keeping a noisy reading's iterate finite (cm)
#define DE_TBMIN (-10.0)
#define DE_TBMAX 30.0

struct FanView {
    float sx, sy;               // source position (pixels, image centre at 0)
    float beta;                 // source angle (radians)
    float pad;
};

struct ConeGeom {
    float dsd;                  // source-detector distance (cm)
    float du, dv;               // detector pixel pitch (cm)
    float cu, cv;               // the central ray's column and row (pixels)
    float tau;                  // the ramp's sampling interval (the pitch at the isocentre, cm)
    int nv;                     // detector rows
};

struct SpecBin {
    float s_lo, s_hi;           // the detected 80 and 140 kVp spectra's weight of the bin (each sums to 1)
    float mu_w, mu_b;           // water and cortical bone attenuation at the bin's energy (1/cm)
};

__constant__ FanView c_fan[FP_MAXV];
__constant__ float c_cos[SA_MAXV];
__constant__ float c_sin[SA_MAXV];
__constant__ SpecBin c_spec[DE_NE];

extern "C" {

// img: FP_N x FP_N attenuation (1/cm), pixel (i, j) centred at x = j - (N - 1) / 2, y = i -
// (N - 1) / 2 (pixels of pix cm); sino[v * FP_NDET + d]: the line integral of the ray from
// source v at fan angle (d - (NDET - 1) / 2 + 1/4) dgam, nviews views
__global__ void fan_joseph_fwd(const float *img, float *sino, int nviews, float dgam, float pix) {
    int ray = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (ray >= nviews * FP_NDET) return;
    int v = ray / FP_NDET;
    int d = ray % FP_NDET;
    FanView g = c_fan[v];
    float gam = ((float)d - 0.5f * (FP_NDET - 1) + 0.25f) * dgam;
    float psi = g.beta + FP_PI + gam;           // the ray's direction, from the source through the centre
    float dx = cosf(psi), dy = sinf(psi);
    float c = 0.5f * (FP_N - 1);
    float acc = 0.0f;
    if (fabsf(dx) >= fabsf(dy)) {
        // one sample a column
        float slope = dy / dx;
        for (int j = lane; j < FP_N; j += 32) {
            float y = g.sy + ((float)j - c - g.sx) * slope + c;
            float fy = floorf(y);
            int i0 = (int)fy;
            float w = y - fy;
            if (i0 >= 0 && i0 < FP_N) acc += (1.0f - w) * img[i0 * FP_N + j];
            if (i0 + 1 >= 0 && i0 + 1 < FP_N) acc += w * img[(i0 + 1) * FP_N + j];
        }
        acc *= pix / fabsf(dx);
    } else {
        // one sample a row
        float slope = dx / dy;
        for (int i = lane; i < FP_N; i += 32) {
            float x = g.sx + ((float)i - c - g.sy) * slope + c;
            float fx = floorf(x);
            int j0 = (int)fx;
            float w = x - fx;
            if (j0 >= 0 && j0 < FP_N) acc += (1.0f - w) * img[i * FP_N + j0];
            if (j0 + 1 >= 0 && j0 + 1 < FP_N) acc += w * img[i * FP_N + j0 + 1];
        }
        acc *= pix / fabsf(dy);
    }
    for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffff, acc, o);
    if (lane == 0) sino[ray] = acc;
}

// proj / filt: rows of FK_NU detector columns (row r is detector row r % g.nv of projection
// r / g.nv), a block a row: filt = tau * (the cosine-weighted row convolved with h)
__global__ void fdk_weight_ramp(const float *proj, float *filt, ConeGeom g) {
    __shared__ float s_p[FK_NU];
    __shared__ float s_h[FK_NU];
    int row = blockIdx.x;
    int u = threadIdx.x;
    int v = row % g.nv;
    float uu = ((float)u - g.cu) * g.du;
    float vv = ((float)v - g.cv) * g.dv;
    float w = g.dsd / sqrtf(g.dsd * g.dsd + uu * uu + vv * vv);
    s_p[u] = proj[(size_t)row * FK_NU + u] * w;
    if (u == 0)
        s_h[u] = 1.0f / (4.0f * g.tau * g.tau);
    else if (u % 2 == 1)
        s_h[u] = -1.0f / (FK_PI2 * (float)(u * u) * g.tau * g.tau);
    else
        s_h[u] = 0.0f;
    __syncthreads();
    double acc = (double)s_p[u] * (double)s_h[0];
    // h is 0 at even distances: only the bins an odd distance away
    for (int j = 1 - u % 2; j < FK_NU; j += 2) {
        int k = abs(u - j);
        acc += (double)s_p[j] * (double)s_h[k];
    }
    filt[(size_t)row * FK_NU + u] = (float)(acc * g.tau);
}

// img: SA_N x SA_N (1/cm, pixels of pix cm, centred as in fan_joseph_fwd); sino[v * SA_NDET + d]:
// the line integral along x cos(theta_v) + y sin(theta_v) = (d - (NDET - 1) / 2) ds (pixels);
// the subset: views sub, sub + nsub, ... (nvs of them), a warp a ray; corr += a_ij res_i,
// wsum += a_ij
__global__ void ossart_subset(const float *img, const float *sino, float *corr, float *wsum, int sub, int nsub,
                              int nvs, float ds, float pix) {
    int ray = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (ray >= nvs * SA_NDET) return;
    int v = sub + (ray / SA_NDET) * nsub;
    int d = ray % SA_NDET;
    float cs = c_cos[v], sn = c_sin[v];
    float s = ((float)d - 0.5f * (SA_NDET - 1)) * ds;
    float c = 0.5f * (SA_N - 1);
    // the ray's direction is (-sn, cs): one sample a column when |sn| >= |cs|
    int by_col = fabsf(sn) >= fabsf(cs);
    float step = by_col ? pix / fabsf(sn) : pix / fabsf(cs);      // cm a sample
    float sum = 0.0f, len = 0.0f;
    for (int k = lane; k < SA_N; k += 32) {
        float q = (float)k - c;
        float f = by_col ? (s - q * cs) / sn + c : (s - q * sn) / cs + c;
        float ff = floorf(f);
        int m = (int)ff;
        float w = f - ff;
        if (m >= 0 && m < SA_N) {
            int p = by_col ? m * SA_N + k : k * SA_N + m;
            sum += (1.0f - w) * step * img[p];
            len += (1.0f - w) * step;
        }
        if (m + 1 >= 0 && m + 1 < SA_N) {
            int p = by_col ? (m + 1) * SA_N + k : k * SA_N + m + 1;
            sum += w * step * img[p];
            len += w * step;
        }
    }
    // every lane gets the ray's totals
    for (int o = 16; o > 0; o /= 2) {
        sum += __shfl_xor_sync(0xffffffff, sum, o);
        len += __shfl_xor_sync(0xffffffff, len, o);
    }
    if (len <= 0.0f) return;            // the ray misses the image
    float res = (sino[v * SA_NDET + d] - sum) / len;
    for (int k = lane; k < SA_N; k += 32) {
        float q = (float)k - c;
        float f = by_col ? (s - q * cs) / sn + c : (s - q * sn) / cs + c;
        float ff = floorf(f);
        int m = (int)ff;
        float w = f - ff;
        if (m >= 0 && m < SA_N) {
            int p = by_col ? m * SA_N + k : k * SA_N + m;
            atomicAdd(&corr[p], (1.0f - w) * step * res);
            atomicAdd(&wsum[p], (1.0f - w) * step);
        }
        if (m + 1 >= 0 && m + 1 < SA_N) {
            int p = by_col ? (m + 1) * SA_N + k : k * SA_N + m + 1;
            atomicAdd(&corr[p], w * step * res);
            atomicAdd(&wsum[p], w * step);
        }
    }
}

// u, f, unew: nz slices of ny x nx voxels (x fastest); unew = u - dt (lam (u - f) + dTV/du),
// TV = sum sqrt(|forward differences|^2 + eps2) (edges replicated); *energy += sum of
// sqrt(|grad u|^2 + eps2) + lam / 2 (u - f)^2; grid (nx / 32, ny / 8, nz), block (32, 8)
__global__ void tv3d_step(const float *u, const float *f, float *unew, double *energy, int nx, int ny, int nz,
                          float lam, float dt, float eps2) {
    __shared__ float s[3][TV_BY + 2][TV_BX + 2];
    int x0 = blockIdx.x * TV_BX, y0 = blockIdx.y * TV_BY, z = blockIdx.z;
    for (int k = 0; k < 3; k++) {
        int zz = min(max(z + k - 1, 0), nz - 1);
        for (int i = threadIdx.y; i < TV_BY + 2; i += TV_BY) {
            for (int j = threadIdx.x; j < TV_BX + 2; j += TV_BX) {
                int gy = min(max(y0 + i - 1, 0), ny - 1);
                int gx = min(max(x0 + j - 1, 0), nx - 1);
                s[k][i][j] = u[((size_t)zz * ny + gy) * nx + gx];
            }
        }
    }
    __syncthreads();
    int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
    int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    float e = 0.0f;
    if (x < nx && y < ny) {
        float c = s[1][ty][tx];
        float xp = s[1][ty][tx + 1], xm = s[1][ty][tx - 1];
        float yp = s[1][ty + 1][tx], ym = s[1][ty - 1][tx];
        float zp = s[2][ty][tx], zm = s[0][ty][tx];
        // the gradient norms at the voxel and at its -x, -y, -z neighbours
        float n0 = sqrtf((xp - c) * (xp - c) + (yp - c) * (yp - c) + (zp - c) * (zp - c) + eps2);
        float a = s[1][ty + 1][tx - 1] - xm, b = s[2][ty][tx - 1] - xm;
        float nxm = sqrtf((c - xm) * (c - xm) + a * a + b * b + eps2);
        a = s[1][ty - 1][tx + 1] - ym;
        b = s[2][ty - 1][tx] - ym;
        float nym = sqrtf(a * a + (c - ym) * (c - ym) + b * b + eps2);
        a = s[0][ty][tx + 1] - zm;
        b = s[0][ty + 1][tx] - zm;
        float nzm = sqrtf(a * a + b * b + (c - zm) * (c - zm) + eps2);
        float grad = (3.0f * c - xp - yp - zp) / n0 + (c - xm) / nxm + (c - ym) / nym + (c - zm) / nzm;
        size_t idx = ((size_t)z * ny + y) * nx + x;
        float r = c - f[idx];
        unew[idx] = c - dt * (lam * r + grad);
        e = n0 + 0.5f * lam * r * r;
    }
    for (int o = 16; o > 0; o /= 2) e += __shfl_down_sync(0xffffffff, e, o);
    if ((threadIdx.y * TV_BX + threadIdx.x) % 32 == 0) atomicAdd(energy, (double)e);
}

// raw: nrows rows of MR_NDET counts (row = view * nslice + slice); proj = log(i0 / max(raw,
// 1)) with the metal trace (values over pmetal) replaced by linear interpolation between
// the nearest non-metal bins of the row (the nearer one's value past either end; a row of
// metal only is left as measured); nmetal[view] += metal bins, *total += all of them
__global__ void li_mar(const unsigned short *raw, float *proj, int *nmetal, int *total, int nrows, int nslice,
                       float i0, float pmetal) {
    __shared__ unsigned int s_mask[MR_WARPS][MR_NW];
    __shared__ int s_count;
    if (threadIdx.x == 0) s_count = 0;
    __syncthreads();
    int lane = threadIdx.x % 32;
    int w = threadIdx.x / 32;
    for (int row = blockIdx.x * MR_WARPS + w; row < nrows; row += gridDim.x * MR_WARPS) {
        const unsigned short *r = raw + (size_t)row * MR_NDET;
        float *p = proj + (size_t)row * MR_NDET;
        for (int c = 0; c < MR_NW; c++) {
            int b = c * 32 + lane;
            float pv = logf(i0 / fmaxf((float)r[b], 1.0f));
            int metal = pv > pmetal;
            unsigned int m = __ballot_sync(0xffffffff, metal);
            if (lane == 0) s_mask[w][c] = m;
            if (metal) atomicAdd(&s_count, 1);
            p[b] = pv;
        }
        __syncwarp();
        for (int c = 0; c < MR_NW; c++) {
            unsigned int m = s_mask[w][c];
            if (((m >> lane) & 1) == 0) continue;
            int b = c * 32 + lane;
            // the nearest non-metal bin to the left: the highest clear bit below this one
            int left = -1;
            int cl = c;
            unsigned int bits = ~m & ((1u << lane) - 1);
            while (bits == 0 && cl > 0) {
                cl--;
                bits = ~s_mask[w][cl];
            }
            if (bits != 0) left = cl * 32 + 31 - __clz(bits);
            // to the right: the lowest clear bit above it
            int right = -1;
            int cr = c;
            bits = ~m & (0xfffffffeu << lane);
            while (bits == 0 && cr < MR_NW - 1) {
                cr++;
                bits = ~s_mask[w][cr];
            }
            if (bits != 0) right = cr * 32 + __ffs(bits) - 1;
            if (left < 0 && right < 0) continue;
            float pl = 0.0f, pr = 0.0f;
            if (left >= 0) pl = logf(i0 / fmaxf((float)r[left], 1.0f));
            if (right >= 0) pr = logf(i0 / fmaxf((float)r[right], 1.0f));
            if (left < 0)
                p[b] = pr;
            else if (right < 0)
                p[b] = pl;
            else
                p[b] = pl + (pr - pl) * (float)(b - left) / (float)(right - left);
        }
        if (lane == 0) {
            int cnt = 0;
            for (int c = 0; c < MR_NW; c++) cnt += __popc(s_mask[w][c]);
            if (cnt > 0) atomicAdd(&nmetal[row / nslice], cnt);
        }
        __syncwarp();
    }
    __syncthreads();
    if (threadIdx.x == 0 && s_count > 0) atomicAdd(total, s_count);
}

// p_lo / p_hi: n readings' line integrals at 80 and 140 kVp; tw / tb: the water and bone
// path lengths (cm) by Newton's method from (p_lo / mu_w's low-spectrum mean, 0);
// iters[i]: the iterations to convergence, 0 when DE_MAXIT were not enough
__global__ void de_decompose(const float *p_lo, const float *p_hi, float *tw_out, float *tb_out,
                             unsigned char *iters, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double pl = p_lo[i], ph = p_hi[i];
    double mw = 0.0;
    for (int e = 0; e < DE_NE; e++) mw += (double)c_spec[e].s_lo * c_spec[e].mu_w;
    double tw = pl / mw, tb = 0.0;
    int it = 0;
    int done = 0;
    while (it < DE_MAXIT && !done) {
        double att[DE_NE];
        for (int e = 0; e < DE_NE; e++) att[e] = exp(-(c_spec[e].mu_w * tw + c_spec[e].mu_b * tb));
        double sl = 0.0, sh = 0.0, lw = 0.0, lb = 0.0, hw = 0.0, hb = 0.0;
        for (int e = 0; e < DE_NE; e++) {
            double al = c_spec[e].s_lo * att[e];
            double ah = c_spec[e].s_hi * att[e];
            sl += al;
            sh += ah;
            lw += al * c_spec[e].mu_w;
            lb += al * c_spec[e].mu_b;
            hw += ah * c_spec[e].mu_w;
            hb += ah * c_spec[e].mu_b;
        }
        // residuals of the model and its Jacobian (d(-log s)/dt = mean mu under the hardened spectrum)
        double fl = -log(sl) - pl, fh = -log(sh) - ph;
        double j11 = lw / sl, j12 = lb / sl, j21 = hw / sh, j22 = hb / sh;
        double det = j11 * j22 - j12 * j21;
        double dw = (fl * j22 - fh * j12) / det;
        double db = (j11 * fh - j21 * fl) / det;
        double nw = fmin(fmax(tw - dw, 0.0), DE_TWMAX);
        double nb = fmin(fmax(tb - db, DE_TBMIN), DE_TBMAX);
        it++;
        if (fabs(nw - tw) + fabs(nb - tb) < DE_TOL) done = 1;
        tw = nw;
        tb = nb;
    }
    tw_out[i] = (float)tw;
    tb_out[i] = (float)tb;
    iters[i] = done ? (unsigned char)it : 0;
}

}
