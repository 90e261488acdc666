// probe-unseen147: a neural-rendering / volume-rendering course's CUDA assignments (NeRF and
// Instant-NGP from scratch), as a student who knows CUDA basics hands them in:
//   nerf_posenc       NeRF's positional encoding of 3-D points, a thread a point: the point
//                     and sin/cos of 2^l x for PE_FREQS frequencies, 63 floats a point stored
//                     row-major (n x 63, as the PyTorch model expects);
//   hashgrid_encode   an Instant-NGP multiresolution hash encoding, a thread a point: 16
//                     levels, each the 8 corners of the point's cell (dense indexing on the
//                     coarse levels, the spatial hash on the fine ones) gathered from a table
//                     of 2^17 float2 features a level and blended trilinearly; n x 16 float2 out;
//   render_rays       volume rendering of a batch of random training rays through a 128^3
//                     float4 (rgb, sigma) grid: fixed-step samples between near and far,
//                     nearest-voxel lookups, samples outside the unit cube or of zero
//                     density skipped, front-to-back alpha compositing stopped once the
//                     transmittance drops under 1e-3; rgb, depth and opacity a ray;
//   nerf_mlp          an Instant-NGP-style tiny per-sample density MLP (32 -> 32 ReLU -> 16) on
//                     hash-encoded features, a thread a sample, the weights staged in shared
//                     memory by the block; out[0] = exp(o0) (sigma), out[1..15] the geometry
//                     features the colour network takes;
//   occupancy_update  Instant-NGP's occupancy-grid update: each sample's density folded into
//                     its 128^3 cell by atomicMax on the float's bits, and the cell's bit of
//                     an occupancy bitfield set by atomicOr when the density passes a threshold;
//   ray_weights_pdf   NeRF's per-ray sample weights for hierarchical sampling, a block a ray of
//                     WN_S samples: deltas, an exclusive Hillis-Steele scan of sigma * delta in
//                     shared memory for the transmittance, weights, their sum by a shared tree
//                     reduction, the normalised pdf (w + 1e-5) / sum and its inclusive scan (cdf).

#define PE_FREQS 10
#define PE_DIM (3 + 3 * 2 * PE_FREQS)   // 63 floats a point

#define HG_LEVELS 16
#define HG_LOG2_T 17
#define HG_T (1 << HG_LOG2_T)            // table entries a level

#define RM_RES 128                       // render_rays: the grid is RM_RES^3 float4

#define MLP_IN 32
#define MLP_HID 32
#define MLP_OUT 16

#define OCC_RES 128                      // occupancy grid: OCC_RES^3 cells

#define WN_S 128                         // ray_weights_pdf: samples a ray = threads a block

__constant__ float c_hg_scale[HG_LEVELS];   // level l: position * scale + 0.5
__constant__ int c_hg_res[HG_LEVELS];       // level l: the grid's vertices an axis

extern "C" {

// ---- positional encoding ----
__global__ void nerf_posenc(const float *x, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float p[3];
    for (int d = 0; d < 3; d++) p[d] = x[3 * i + d];
    float *o = out + i * PE_DIM;
    for (int d = 0; d < 3; d++) o[d] = p[d];
    float freq = 1.0f;
    for (int l = 0; l < PE_FREQS; l++) {
        for (int d = 0; d < 3; d++) {
            o[3 + 6 * l + d] = sinf(freq * p[d]);
            o[6 + 6 * l + d] = cosf(freq * p[d]);
        }
        freq *= 2.0f;
    }
}

// ---- multiresolution hash encoding ----
__device__ unsigned int grid_index(int x, int y, int z, int res) {
    if ((long long)res * res * res <= HG_T)               // coarse level: the grid fits, no hashing
        return (unsigned int)(x + y * res + z * res * res);
    unsigned int h = (unsigned int)x ^ ((unsigned int)y * 2654435761u) ^ ((unsigned int)z * 805459861u);
    return h & (HG_T - 1);
}

__global__ void hashgrid_encode(const float *pos, const float2 *table, float2 *feat, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float px = pos[3 * i], py = pos[3 * i + 1], pz = pos[3 * i + 2];
    for (int l = 0; l < HG_LEVELS; l++) {
        float s = c_hg_scale[l];
        int res = c_hg_res[l];
        float fx = px * s + 0.5f, fy = py * s + 0.5f, fz = pz * s + 0.5f;
        float gx = floorf(fx), gy = floorf(fy), gz = floorf(fz);
        int ix = (int)gx, iy = (int)gy, iz = (int)gz;
        float wx = fx - gx, wy = fy - gy, wz = fz - gz;
        float2 acc = make_float2(0.0f, 0.0f);
        for (int c = 0; c < 8; c++) {
            int cx = c & 1, cy = (c >> 1) & 1, cz = (c >> 2) & 1;
            float w = (cx ? wx : 1.0f - wx) * (cy ? wy : 1.0f - wy) * (cz ? wz : 1.0f - wz);
            float2 v = table[l * HG_T + grid_index(ix + cx, iy + cy, iz + cz, res)];
            acc.x += w * v.x;
            acc.y += w * v.y;
        }
        feat[i * HG_LEVELS + l] = acc;
    }
}

// ---- volume rendering of a ray batch ----
__global__ void render_rays(const float *rays_o, const float *rays_d, const float4 *grid, float near, float far,
                            int n_samples, float *rgb, float *depth, float *opacity, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float ox = rays_o[3 * i], oy = rays_o[3 * i + 1], oz = rays_o[3 * i + 2];
    float dx = rays_d[3 * i], dy = rays_d[3 * i + 1], dz = rays_d[3 * i + 2];
    float dt = (far - near) / n_samples;
    float T = 1.0f;
    float r = 0.0f, g = 0.0f, b = 0.0f, dep = 0.0f;
    for (int k = 0; k < n_samples; k++) {
        float t = near + (k + 0.5f) * dt;
        float x = ox + t * dx, y = oy + t * dy, z = oz + t * dz;
        if (x < 0.0f || x >= 1.0f || y < 0.0f || y >= 1.0f || z < 0.0f || z >= 1.0f) continue;
        int gx = (int)(x * RM_RES), gy = (int)(y * RM_RES), gz = (int)(z * RM_RES);
        float4 v = grid[(gz * RM_RES + gy) * RM_RES + gx];
        if (v.w <= 0.0f) continue;
        float alpha = 1.0f - expf(-v.w * dt);
        float w = T * alpha;
        r += w * v.x;
        g += w * v.y;
        b += w * v.z;
        dep += w * t;
        T *= 1.0f - alpha;
        if (T < 1e-3f) break;
    }
    rgb[3 * i] = r;
    rgb[3 * i + 1] = g;
    rgb[3 * i + 2] = b;
    depth[i] = dep;
    opacity[i] = 1.0f - T;
}

// ---- tiny per-sample MLP ----
__global__ void nerf_mlp(const float *feat, const float *W1, const float *b1, const float *W2, const float *b2,
                         float *out, int n) {
    __shared__ float sW1[MLP_HID * MLP_IN];
    __shared__ float sW2[MLP_OUT * MLP_HID];
    __shared__ float sb1[MLP_HID], sb2[MLP_OUT];
    int tid = threadIdx.x;
    for (int k = tid; k < MLP_HID * MLP_IN; k += blockDim.x) sW1[k] = W1[k];
    for (int k = tid; k < MLP_OUT * MLP_HID; k += blockDim.x) sW2[k] = W2[k];
    if (tid < MLP_HID) sb1[tid] = b1[tid];
    if (tid < MLP_OUT) sb2[tid] = b2[tid];
    __syncthreads();

    int i = blockIdx.x * blockDim.x + tid;
    if (i >= n) return;
    float x[MLP_IN];
    for (int k = 0; k < MLP_IN; k++) x[k] = feat[i * MLP_IN + k];
    float h[MLP_HID];
    for (int j = 0; j < MLP_HID; j++) {
        float s = sb1[j];
        for (int k = 0; k < MLP_IN; k++) s += sW1[j * MLP_IN + k] * x[k];
        h[j] = fmaxf(s, 0.0f);
    }
    for (int j = 0; j < MLP_OUT; j++) {
        float s = sb2[j];
        for (int k = 0; k < MLP_HID; k++) s += sW2[j * MLP_HID + k] * h[k];
        out[i * MLP_OUT + j] = (j == 0) ? expf(s) : s;      // density (exp activation), then geometry features
    }
}

// ---- occupancy grid update ----
__global__ void occupancy_update(const float *pts, const float *sigma, unsigned int *density_bits,
                                 unsigned int *occ_bits, float thresh, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = pts[3 * i], y = pts[3 * i + 1], z = pts[3 * i + 2];
    if (x < 0.0f || x >= 1.0f || y < 0.0f || y >= 1.0f || z < 0.0f || z >= 1.0f) return;
    int gx = (int)(x * OCC_RES), gy = (int)(y * OCC_RES), gz = (int)(z * OCC_RES);
    int cell = (gz * OCC_RES + gy) * OCC_RES + gx;
    float s = sigma[i];
    atomicMax(&density_bits[cell], __float_as_uint(s));     // s >= 0: the bits order as the floats
    if (s > thresh) atomicOr(&occ_bits[cell >> 5], 1u << (cell & 31));
}

// ---- per-ray weights, pdf and cdf for hierarchical sampling ----
__global__ void ray_weights_pdf(const float *sigma, const float *t_vals, float *weights, float *cdf, int n) {
    __shared__ float s_a[WN_S];
    __shared__ float s_b[WN_S];
    int k = threadIdx.x;
    int idx = blockIdx.x * WN_S + k;
    float t = t_vals[idx];
    float delta = (k < WN_S - 1) ? t_vals[idx + 1] - t : 1e10f;
    float tau = sigma[idx] * delta;

    // inclusive scan of tau (Hillis-Steele, reading s_a, writing s_b, then copying back)
    s_a[k] = tau;
    __syncthreads();
    for (int off = 1; off < WN_S; off <<= 1) {
        float v = s_a[k];
        if (k >= off) v += s_a[k - off];
        s_b[k] = v;
        __syncthreads();
        s_a[k] = s_b[k];
        __syncthreads();
    }
    float excl = (k > 0) ? s_a[k - 1] : 0.0f;
    float T = expf(-excl);
    float alpha = 1.0f - expf(-tau);
    float w = T * alpha;
    weights[idx] = w;
    __syncthreads();

    // the ray's sum of w + 1e-5 by a tree reduction
    float wp = w + 1e-5f;
    s_b[k] = wp;
    __syncthreads();
    for (int s = WN_S / 2; s > 0; s >>= 1) {
        if (k < s) s_b[k] += s_b[k + s];
        __syncthreads();
    }
    float pdf = wp / s_b[0];
    __syncthreads();

    // cdf: inclusive scan of the pdf
    s_a[k] = pdf;
    __syncthreads();
    for (int off = 1; off < WN_S; off <<= 1) {
        float v = s_a[k];
        if (k >= off) v += s_a[k - off];
        s_b[k] = v;
        __syncthreads();
        s_a[k] = s_b[k];
        __syncthreads();
    }
    cdf[idx] = s_a[k];
}

}
