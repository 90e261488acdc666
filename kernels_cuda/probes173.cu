// probe-unseen171: a neuroimaging (fMRI and diffusion MRI) course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - glm_ols: the first-level general linear model of a task fMRI run, a thread a voxel: the
//    voxel's time series (time-major, a volume's masked voxels contiguous) projected on the
//    design's pseudo-inverse held in __constant__ (the betas in a per-thread array), a second
//    pass over the series for the residual sum of squares against the design (also in
//    __constant__), the t statistic of a contrast of the betas;
//  - seed_corr: seed-based functional connectivity of a resting-state run, a warp a
//    grayordinate (its time series contiguous): the seed's series (demeaned, unit norm) staged
//    in shared memory, the voxel's mean by a __shfl_xor_sync all-reduce, then the demeaned
//    cross and square sums the same way; Pearson's r and its Fisher z (atanhf);
//  - dti_wls: the diffusion-tensor fit of a diffusion MRI scan, a thread a voxel: S0 the mean
//    of the b = 0 volumes, each diffusion-weighted volume's log attenuation (logf) added to
//    the 6 x 6 normal equations of the weighted (S^2) least-squares fit (per-thread arrays),
//    solved by Cholesky; the tensor, its fractional anisotropy and mean diffusivity;
//  - track_det: deterministic (Euler, nearest-voxel) streamline tractography, a thread a seed:
//    walks both ways through the principal-direction field (a Fibre struct a voxel) in steps
//    of half a voxel, the direction flipped to the previous one's side, stopping outside the
//    volume, where FA falls under a threshold, at a turn sharper than the angle limit or at
//    the step limit; the streamline's steps and its two end voxels (for a connectome);
//  - smooth_y: the y pass of a separable 3-D Gaussian smoothing (FWHM 6 mm at 2 mm voxels)
//    of a 4-D BOLD run, 32 x 8 blocks each staging its rows with an SM_R halo in shared
//    memory (zero outside the volume), the 9 weights in __constant__;
//  - roi_sums: the region-of-interest time series of a parcellated run (atlas labels of the
//    masked voxels, 400 parcels, 0 unlabelled): a block a chunk of voxels of one volume, the
//    parcels' sums in shared memory by atomicAdd (a warp's labelled lanes on ~4 parcels: contended),
//    then the block's non-zero sums added to the global time series by atomicAdd.

#define GLM_P 8               // glm_ols: the design's regressors
#define GLM_TMAX 400          // the longest run (volumes) the constant arrays hold
#define FC_TMAX 1200          // seed_corr: the longest run (the shared seed series)
#define DT_NGMAX 128          // dti_wls: the most volumes (b = 0 and diffusion-weighted)
#define DT_B0 50.0f           // a volume with b under this is a b = 0 volume
#define SM_R 4                // smooth_y: the Gaussian's radius (voxels)
#define SM_BX 32              // blockDim.x
#define SM_BY 8               // blockDim.y
#define ROI_NP 400            // roi_sums: parcels (labels 1 .. ROI_NP)
#define ROI_CHUNK 16384       // voxels a block

// glm_ols's design (set by the host): X at t * GLM_P + p, its pseudo-inverse (X'X)^-1 X'
// transposed at t * GLM_P + p, the contrast
__constant__ float c_X[GLM_TMAX * GLM_P];
__constant__ float c_pinv[GLM_TMAX * GLM_P];
__constant__ float c_con[GLM_P];
// dti_wls's gradient table (set by the host): b-value (s/mm^2) and unit direction of each volume
__constant__ float c_bval[DT_NGMAX];
__constant__ float c_bvec[3 * DT_NGMAX];
// smooth_y's weights (set by the host), normalised to sum 1
__constant__ float c_gauss[2 * SM_R + 1];

// a voxel of track_det's direction field: the principal eigenvector and the FA
struct Fibre {
    float x, y, z;
    float fa;
};

extern "C" {

// V voxels' series Y (T x V, time-major): beta (GLM_P x V) the least-squares fit on c_X,
// tstat the contrast c_con' beta over its standard error (cvar = c' (X'X)^-1 c), 0 for a
// voxel fit exactly
__global__ void glm_ols(const float *Y, float *beta, float *tstat, int T, float cvar, int V) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= V) return;
    float b[GLM_P];
    for (int p = 0; p < GLM_P; p++) b[p] = 0.0f;
    for (int t = 0; t < T; t++) {
        float y = Y[t * V + v];
        for (int p = 0; p < GLM_P; p++) b[p] += c_pinv[t * GLM_P + p] * y;
    }
    float rss = 0.0f;
    for (int t = 0; t < T; t++) {
        float r = Y[t * V + v];
        for (int p = 0; p < GLM_P; p++) r -= c_X[t * GLM_P + p] * b[p];
        rss += r * r;
    }
    float con = 0.0f;
    for (int p = 0; p < GLM_P; p++) {
        beta[p * V + v] = b[p];
        con += c_con[p] * b[p];
    }
    float sigma2 = rss / (T - GLM_P);
    tstat[v] = sigma2 > 0.0f ? con / sqrtf(sigma2 * cvar) : 0.0f;
}

// V grayordinates' series Y (V x T, a voxel's contiguous) against the seed's (demeaned, norm 1):
// r the correlation, z = atanh(r) (blockDim.x a multiple of 32, a warp a voxel)
__global__ void seed_corr(const float *Y, const float *seed, float *r, float *z, int T, int V) {
    __shared__ float s[FC_TMAX];
    for (int t = threadIdx.x; t < T; t += blockDim.x) s[t] = seed[t];
    __syncthreads();
    int lane = threadIdx.x & 31;
    int v = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (v >= V) return;
    const float *y = Y + v * T;
    float sum = 0.0f;
    for (int t = lane; t < T; t += 32) sum += y[t];
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, o);
    float mean = sum / T;
    float sxy = 0.0f;
    float syy = 0.0f;
    for (int t = lane; t < T; t += 32) {
        float d = y[t] - mean;
        sxy += d * s[t];
        syy += d * d;
    }
    for (int o = 16; o > 0; o >>= 1) {
        sxy += __shfl_xor_sync(0xffffffff, sxy, o);
        syy += __shfl_xor_sync(0xffffffff, syy, o);
    }
    if (lane == 0) {
        float c = syy > 0.0f ? sxy / sqrtf(syy) : 0.0f;
        r[v] = c;
        z[v] = atanhf(c);
    }
}

// V voxels' signals S (ng x V, a volume's voxels contiguous) with the gradient table c_bval,
// c_bvec: D (6 x V: Dxx, Dyy, Dzz, Dxy, Dxz, Dyz in mm^2/s) the weighted least-squares fit of
// log(S0 / S) = b g' D g, fa and md (all 0 where S0 < 1)
__global__ void dti_wls(const float *S, float *D, float *fa, float *md, int ng, int V) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= V) return;
    float s0 = 0.0f;
    int n0 = 0;
    for (int g = 0; g < ng; g++) {
        if (c_bval[g] < DT_B0) {
            s0 += S[g * V + v];
            n0++;
        }
    }
    s0 /= n0;
    float x[6];
    if (s0 < 1.0f) {
        for (int k = 0; k < 6; k++) D[k * V + v] = 0.0f;
        fa[v] = 0.0f;
        md[v] = 0.0f;
        return;
    }
    float A[6][6];
    float rhs[6];
    for (int i = 0; i < 6; i++) {
        rhs[i] = 0.0f;
        for (int j = 0; j < 6; j++) A[i][j] = 0.0f;
    }
    for (int g = 0; g < ng; g++) {
        float b = c_bval[g];
        if (b < DT_B0) continue;
        float sg = fmaxf(S[g * V + v], 1.0f);
        float y = logf(s0 / sg);
        float w = sg * sg;
        float gx = c_bvec[3 * g];
        float gy = c_bvec[3 * g + 1];
        float gz = c_bvec[3 * g + 2];
        float row[6] = {b * gx * gx, b * gy * gy, b * gz * gz, 2.0f * b * gx * gy, 2.0f * b * gx * gz,
                        2.0f * b * gy * gz};
        for (int i = 0; i < 6; i++) {
            rhs[i] += w * row[i] * y;
            for (int j = 0; j <= i; j++) A[i][j] += w * row[i] * row[j];
        }
    }
    // Cholesky: A = L L' (L in A's lower triangle)
    for (int j = 0; j < 6; j++) {
        float d = A[j][j];
        for (int k = 0; k < j; k++) d -= A[j][k] * A[j][k];
        d = sqrtf(d);
        A[j][j] = d;
        for (int i = j + 1; i < 6; i++) {
            float t = A[i][j];
            for (int k = 0; k < j; k++) t -= A[i][k] * A[j][k];
            A[i][j] = t / d;
        }
    }
    for (int i = 0; i < 6; i++) {          // L u = rhs
        float t = rhs[i];
        for (int k = 0; k < i; k++) t -= A[i][k] * x[k];
        x[i] = t / A[i][i];
    }
    for (int i = 5; i >= 0; i--) {         // L' x = u
        float t = x[i];
        for (int k = i + 1; k < 6; k++) t -= A[k][i] * x[k];
        x[i] = t / A[i][i];
    }
    for (int k = 0; k < 6; k++) D[k * V + v] = x[k];
    float m = (x[0] + x[1] + x[2]) / 3.0f;
    float off = 2.0f * (x[3] * x[3] + x[4] * x[4] + x[5] * x[5]);
    float dev = (x[0] - m) * (x[0] - m) + (x[1] - m) * (x[1] - m) + (x[2] - m) * (x[2] - m) + off;
    float all = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + off;
    md[v] = m;
    fa[v] = all > 0.0f ? sqrtf(1.5f * dev / all) : 0.0f;
}

// the voxel index of position (px, py, pz) (voxel units, voxel i spanning [i, i + 1)) in an
// nx x ny x nz volume (x fastest), -1 outside
__device__ int voxel_of(float px, float py, float pz, int nx, int ny, int nz) {
    int ix = (int)floorf(px);
    int iy = (int)floorf(py);
    int iz = (int)floorf(pz);
    if (ix < 0 || ix >= nx || iy < 0 || iy >= ny || iz < 0 || iz >= nz) return -1;
    return (iz * ny + iy) * nx + ix;
}

// n streamlines from seeds (x, y, z each, voxel units) through field: len the steps taken both
// ways, end0 / end1 the voxels the forward / backward walks stopped in (-1 outside)
__global__ void track_det(const Fibre *field, const float *seed, int *len, int *end0, int *end1, int nx, int ny,
                          int nz, float step, float fa_min, float cos_min, int max_steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int total = 0;
    for (int dir = 0; dir < 2; dir++) {
        float px = seed[3 * i];
        float py = seed[3 * i + 1];
        float pz = seed[3 * i + 2];
        int vox = voxel_of(px, py, pz, nx, ny, nz);
        Fibre f0 = field[vox];                // (a seed is inside the volume)
        float sg = dir == 0 ? 1.0f : -1.0f;
        float qx = sg * f0.x;                 // the previous step's direction
        float qy = sg * f0.y;
        float qz = sg * f0.z;
        for (int s = 0; s < max_steps; s++) {
            if (vox < 0) break;
            Fibre f = field[vox];
            if (f.fa < fa_min) break;
            float dx = f.x;
            float dy = f.y;
            float dz = f.z;
            float c = dx * qx + dy * qy + dz * qz;
            if (c < 0.0f) {
                dx = -dx;
                dy = -dy;
                dz = -dz;
                c = -c;
            }
            if (c < cos_min) break;
            px += step * dx;
            py += step * dy;
            pz += step * dz;
            qx = dx;
            qy = dy;
            qz = dz;
            total++;
            vox = voxel_of(px, py, pz, nx, ny, nz);
        }
        if (dir == 0) end0[i] = vox;
        else end1[i] = vox;
    }
    len[i] = total;
}

// the y pass of the Gaussian smoothing of nx x ny slices (x fastest; slice blockIdx.z of in,
// out, the volumes' slices one after the other), zero outside the volume (blockDim SM_BX x SM_BY)
__global__ void smooth_y(const float *in, float *out, int nx, int ny) {
    __shared__ float tile[SM_BY + 2 * SM_R][SM_BX];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * SM_BX + tx;
    int y0 = blockIdx.y * SM_BY;
    int base = blockIdx.z * nx * ny;
    for (int r = ty; r < SM_BY + 2 * SM_R; r += SM_BY) {
        int y = y0 + r - SM_R;
        float v = 0.0f;
        if (x < nx && y >= 0 && y < ny) v = in[base + y * nx + x];
        tile[r][tx] = v;
    }
    __syncthreads();
    int y = y0 + ty;
    if (x >= nx || y >= ny) return;
    float s = 0.0f;
    for (int k = 0; k <= 2 * SM_R; k++) s += c_gauss[k] * tile[ty + k][tx];
    out[base + y * nx + x] = s;
}

// the parcels' sums of V voxels' series Y (T x V, time-major) by label (0 .. ROI_NP, 0 not
// summed): sums[t * ROI_NP + l - 1] += the voxels of parcel l at volume t (blockIdx.y = t)
__global__ void roi_sums(const float *Y, const int *label, float *sums, int V) {
    __shared__ float h[ROI_NP];
    for (int l = threadIdx.x; l < ROI_NP; l += blockDim.x) h[l] = 0.0f;
    __syncthreads();
    int t = blockIdx.y;
    int start = blockIdx.x * ROI_CHUNK;
    int end = min(start + ROI_CHUNK, V);
    for (int v = start + threadIdx.x; v < end; v += blockDim.x) {
        int l = label[v];
        if (l > 0) atomicAdd(&h[l - 1], Y[t * V + v]);
    }
    __syncthreads();
    for (int l = threadIdx.x; l < ROI_NP; l += blockDim.x)
        if (h[l] != 0.0f) atomicAdd(&sums[t * ROI_NP + l], h[l]);
}

}
