// probe-unseen143: an X-ray crystallography / scattering course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - structure_factors: F(hkl) = sum_j f_j exp(-B_j s^2 / 4) exp(2 pi i (h x_j + k y_j +
//    l z_j)) of an orthorhombic cell, a thread a reflection, the atoms staged a tile at a
//    time in shared memory, an expf (the Debye-Waller factor) and a sincosf a pair;
//  - debye_scattering: the Debye formula I(q) = sum_i sum_j f_i f_j sin(q r_ij) / (q r_ij)
//    of a nanoparticle, a 2D grid (blockIdx.y the q value, x the atoms i), each thread
//    looping over all atoms j from shared-memory tiles, a block's partial sums reduced in
//    shared memory and added to I[q] by one atomicAdd a block;
//  - density_map: the electron density rho(x, y, z) = (F000 + 2 sum |F| cos(2 pi (hx + ky
//    + lz) - phi)) / V on an NX x NY x NZ grid, a thread a grid point, the reflections
//    (hkl, |F|, phi) in __constant__ memory read by all threads in step;
//  - powder_pattern: a powder-diffraction pattern, a thread a reflection (grid-stride),
//    Bragg's law for 2 theta, the Lorentz-polarization factor, |F|^2 binned into a
//    shared-memory histogram by atomicAdd, then the block's non-empty bins added to the
//    global pattern by atomicAdd;
//  - patterson_hist: a Patterson-style pair-vector histogram, a thread an ordered atom
//    pair (i, j): the difference of their fractional coordinates wrapped into the cell,
//    binned on a PG^3 grid, the weight Z_i Z_j added by an integer atomicAdd;
//  - index_spots: indexing observed reflections against a unit cell: a thread a spot,
//    its scattering vector (float3) times the inverse orientation matrix (UB)^-1 from
//    __constant__ memory, rounded to integer hkl, the residual tested against a
//    tolerance, the indexed spots counted in shared memory and one atomicAdd a block.

#define TWO_PI 6.28318531f
#define SF_TILE 256          // structure_factors: atoms a shared-memory tile (== blockDim.x)
#define DB_TILE 256          // debye_scattering: atoms a shared-memory tile (== blockDim.x)
#define MAX_REFL 1024        // density_map: the most reflections in constant memory
#define PW_BINS 2048         // powder_pattern: bins of the pattern
#define PG 32                // patterson_hist: the grid's cells along each axis

// density_map's reflections (set by the host): h, k, l, |F| and phi (radians)
__constant__ int c_h[MAX_REFL];
__constant__ int c_k[MAX_REFL];
__constant__ int c_l[MAX_REFL];
__constant__ float c_F[MAX_REFL];
__constant__ float c_phi[MAX_REFL];

// index_spots' inverse orientation matrix (UB)^-1 (row-major 3 x 3, set by the host)
__constant__ float c_ubinv[9];

extern "C" {

// structure factors of nref reflections (hkl row-major nref x 3) from natoms atoms
// (fractional x, y, z, scattering factor f and B in A^2) of an a x b x c orthorhombic cell
__global__ void structure_factors(const int *hkl, const float *ax, const float *ay, const float *az,
                                  const float *af, const float *aB, float *Fre, float *Fim, float a, float b,
                                  float c, int natoms, int nref) {
    __shared__ float sx[SF_TILE];
    __shared__ float sy[SF_TILE];
    __shared__ float sz[SF_TILE];
    __shared__ float sf[SF_TILE];
    __shared__ float sB[SF_TILE];
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    float h = 0.0f, k = 0.0f, l = 0.0f;
    if (r < nref) {
        h = (float)hkl[3 * r];
        k = (float)hkl[3 * r + 1];
        l = (float)hkl[3 * r + 2];
    }
    // s^2 / 4 = (sin(theta) / lambda)^2 = 1 / (4 d^2)
    float s2 = 0.25f * ((h / a) * (h / a) + (k / b) * (k / b) + (l / c) * (l / c));
    float re = 0.0f, im = 0.0f;
    for (int t = 0; t < natoms; t += SF_TILE) {
        int j = t + threadIdx.x;
        if (j < natoms) {
            sx[threadIdx.x] = ax[j];
            sy[threadIdx.x] = ay[j];
            sz[threadIdx.x] = az[j];
            sf[threadIdx.x] = af[j];
            sB[threadIdx.x] = aB[j];
        }
        __syncthreads();
        int m = min(SF_TILE, natoms - t);
        for (int jj = 0; jj < m; jj++) {
            float fj = sf[jj] * expf(-sB[jj] * s2);
            float s, co;
            sincosf(TWO_PI * (h * sx[jj] + k * sy[jj] + l * sz[jj]), &s, &co);
            re += fj * co;
            im += fj * s;
        }
        __syncthreads();
    }
    if (r < nref) {
        Fre[r] = re;
        Fim[r] = im;
    }
}

// the Debye scattering of n atoms (Cartesian x, y, z in A, scattering factor f) at the
// q values q[blockIdx.y] (1/A): I[q] += the block's share of sum_i sum_j f_i f_j sinc(q r_ij)
__global__ void debye_scattering(const float *x, const float *y, const float *z, const float *f, const float *q,
                                 float *I, int n) {
    __shared__ float sx[DB_TILE];
    __shared__ float sy[DB_TILE];
    __shared__ float sz[DB_TILE];
    __shared__ float sf[DB_TILE];
    __shared__ float red[DB_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float qv = q[blockIdx.y];
    float xi = 0.0f, yi = 0.0f, zi = 0.0f, fi = 0.0f;
    if (i < n) {
        xi = x[i];
        yi = y[i];
        zi = z[i];
        fi = f[i];
    }
    float sum = 0.0f;
    for (int t = 0; t < n; t += DB_TILE) {
        int j = t + threadIdx.x;
        if (j < n) {
            sx[threadIdx.x] = x[j];
            sy[threadIdx.x] = y[j];
            sz[threadIdx.x] = z[j];
            sf[threadIdx.x] = f[j];
        }
        __syncthreads();
        int m = min(DB_TILE, n - t);
        for (int jj = 0; jj < m; jj++) {
            float dx = xi - sx[jj];
            float dy = yi - sy[jj];
            float dz = zi - sz[jj];
            float r = sqrtf(dx * dx + dy * dy + dz * dz);
            float qr = qv * r;
            float sinc = 1.0f;
            if (qr > 1e-6f) sinc = sinf(qr) / qr;
            sum += sf[jj] * sinc;
        }
        __syncthreads();
    }
    red[threadIdx.x] = fi * sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(&I[blockIdx.y], red[0]);
}

// the electron density on an nx x ny x nz grid (x fastest) from nref reflections in
// constant memory (each standing for itself and its Friedel mate), F000 and the cell volume
__global__ void density_map(float *rho, float F000, float volume, int nref, int nx, int ny, int nz) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= nx * ny * nz) return;
    int ix = idx % nx;
    int iy = (idx / nx) % ny;
    int iz = idx / (nx * ny);
    float x = (float)ix / nx;
    float y = (float)iy / ny;
    float z = (float)iz / nz;
    float sum = 0.0f;
    for (int r = 0; r < nref; r++) {
        float arg = TWO_PI * (c_h[r] * x + c_k[r] * y + c_l[r] * z) - c_phi[r];
        sum += c_F[r] * cosf(arg);
    }
    rho[idx] = (F000 + 2.0f * sum) / volume;
}

// a powder pattern of n reflections (hkl row-major n x 3, intensities |F|^2 times the
// multiplicity) of an a x b x c orthorhombic cell at wavelength lambda: 2 theta (degrees)
// binned from tth0 in steps of dtth into PW_BINS bins, weighted by the Lorentz-
// polarization factor (1 + cos^2 2theta) / (sin^2 theta cos theta)
__global__ void powder_pattern(const int *hkl, const float *I, float *pattern, float a, float b, float c,
                               float lambda, float tth0, float dtth, int n) {
    __shared__ float hist[PW_BINS];
    for (int k = threadIdx.x; k < PW_BINS; k += blockDim.x) hist[k] = 0.0f;
    __syncthreads();
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
        float h = (float)hkl[3 * r];
        float k = (float)hkl[3 * r + 1];
        float l = (float)hkl[3 * r + 2];
        float dstar = sqrtf((h / a) * (h / a) + (k / b) * (k / b) + (l / c) * (l / c));
        float sth = 0.5f * lambda * dstar;
        if (sth >= 1.0f || sth <= 0.0f) continue;            // not reachable at this wavelength
        float theta = asinf(sth);
        float tth = 2.0f * theta * (180.0f / 3.14159265f);
        int bin = (int)((tth - tth0) / dtth);
        if (tth < tth0 || bin >= PW_BINS) continue;
        float c2 = cosf(2.0f * theta);
        float lp = (1.0f + c2 * c2) / (sth * sth * cosf(theta));
        atomicAdd(&hist[bin], I[r] * lp);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < PW_BINS; k += blockDim.x) {
        if (hist[k] != 0.0f) atomicAdd(&pattern[k], hist[k]);
    }
}

// a Patterson pair-vector histogram of n atoms (fractional x, y, z; atomic numbers Z): a
// thread the ordered pair (i, j) = (p / n, p % n); the vector x_j - x_i wrapped into [0, 1)
// binned on a PG^3 grid (u fastest), Z_i Z_j added to its cell
__global__ void patterson_hist(const float *x, const float *y, const float *z, const int *Z, unsigned int *P,
                               int n) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n * n) return;
    int i = p / n;
    int j = p % n;
    float u = x[j] - x[i];
    float v = y[j] - y[i];
    float w = z[j] - z[i];
    u -= floorf(u);
    v -= floorf(v);
    w -= floorf(w);
    int iu = min((int)(u * PG), PG - 1);
    int iv = min((int)(v * PG), PG - 1);
    int iw = min((int)(w * PG), PG - 1);
    atomicAdd(&P[(iw * PG + iv) * PG + iu], (unsigned int)(Z[i] * Z[j]));
}

// indexing n spots (scattering vectors in 1/A): hkl = round((UB)^-1 q), the residual
// |(UB)^-1 q - hkl|; a spot is indexed when the residual is under tol (its hkl stored,
// else 0 0 0); the residuals stored and the indexed spots counted into *count
__global__ void index_spots(const float3 *qobs, int *hkl, float *resid, int *count, float tol, int n) {
    __shared__ int block_count;
    if (threadIdx.x == 0) block_count = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float3 q = qobs[i];
        float hf = c_ubinv[0] * q.x + c_ubinv[1] * q.y + c_ubinv[2] * q.z;
        float kf = c_ubinv[3] * q.x + c_ubinv[4] * q.y + c_ubinv[5] * q.z;
        float lf = c_ubinv[6] * q.x + c_ubinv[7] * q.y + c_ubinv[8] * q.z;
        float h = roundf(hf);
        float k = roundf(kf);
        float l = roundf(lf);
        float res = sqrtf((hf - h) * (hf - h) + (kf - k) * (kf - k) + (lf - l) * (lf - l));
        resid[i] = res;
        if (res < tol) {
            hkl[3 * i] = (int)h;
            hkl[3 * i + 1] = (int)k;
            hkl[3 * i + 2] = (int)l;
            atomicAdd(&block_count, 1);
        } else {
            hkl[3 * i] = 0;
            hkl[3 * i + 1] = 0;
            hkl[3 * i + 2] = 0;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(count, block_count);
}

}
