// probe-unseen124: a scientific-visualization course's CUDA assignments, as a student who
// knows CUDA basics hands them in:
//  - marching_squares: iso-contours of a 2-D scalar field, a thread a cell (16 x 16
//    blocks): the cell's four corners classified against the iso value into a 4-bit case,
//    the case's segments (0, 1 or 2, saddles split one fixed way) read from an edge table
//    in __constant__ memory, each segment's end points linearly interpolated on its edges,
//    and the cell's segments appended to one global list through an atomicAdd on a
//    counter (with the cell's index beside each segment);
//  - mc_classify: the first pass of marching cubes (as in the CUDA samples' classifyVoxel),
//    a thread a voxel of a 3-D volume (8 x 8 x 4 blocks): its 8 corners compared with the
//    iso value into an 8-bit cube index, the number of vertices its triangles need looked
//    up in a 256-entry __constant__ table, the count and an occupied flag stored per voxel
//    for the scan and compaction that follow;
//  - raycast_composite: direct volume rendering, a thread a pixel of an orthographic
//    camera (a struct by value): the ray clipped to the volume's box by the slab test, then
//    marched at a fixed step, each sample trilinearly interpolated from the 8 voxels
//    around it, mapped to an opacity by a linear ramp transfer function, composited front
//    to back, the ray stopped early once its opacity passes 0.95;
//  - streamline_rk4: streamlines of a steady 2-D vector field on a grid (float2), a thread
//    a seed: up to SL_STEPS classical RK4 steps, the field bilinearly interpolated at each
//    stage, the line's points stored in the seed's row of the output, stopped when it
//    leaves the grid, its length stored;
//  - tf_colormap: transfer-function colour mapping, a thread a sample: the scalar
//    normalized to the colour map's range, the 256-entry RGBA table (uchar4) staged in
//    shared memory, the two neighbouring entries linearly interpolated, an RGBA byte
//    quadruple stored;
//  - histeq_hist: the histogram pass of a histogram equalization of an 8-bit image, a
//    grid-stride loop a thread, the block's 256 bins privatized in shared memory
//    (shared atomicAdd a pixel) and added to the global histogram at the end.

#define SL_STEPS 128          // streamline_rk4: the most points a line
#define LUT_SIZE 256          // tf_colormap: colour map entries
#define HIST_BINS 256         // histeq_hist: bins (8-bit pixels)

// marching_squares: corner bits 1 (x, y), 2 (x+1, y), 4 (x+1, y+1), 8 (x, y+1) set where
// the value is above iso; edges 0 bottom, 1 right, 2 top, 3 left; up to two segments a
// case as pairs of edges, -1 where there is none
__constant__ int c_ms_edges[16 * 4] = {
    -1, -1, -1, -1,   3, 0, -1, -1,   0, 1, -1, -1,   3, 1, -1, -1,
     1, 2, -1, -1,    3, 0, 1, 2,     0, 2, -1, -1,   3, 2, -1, -1,
     2, 3, -1, -1,    0, 2, -1, -1,   0, 1, 2, 3,     1, 2, -1, -1,
     1, 3, -1, -1,    0, 1, -1, -1,   3, 0, -1, -1,   -1, -1, -1, -1};

// mc_classify: the vertices (3 a triangle) of each marching-cubes case (numVertsTable)
__constant__ unsigned char c_num_verts[256] = {
    0, 3, 3, 6, 3, 6, 6, 9, 3, 6, 6, 9, 6, 9, 9, 6, 3, 6, 6, 9, 6, 9, 9, 12, 6, 9, 9, 12, 9, 12, 12, 9,
    3, 6, 6, 9, 6, 9, 9, 12, 6, 9, 9, 12, 9, 12, 12, 9, 6, 9, 9, 6, 9, 12, 12, 9, 9, 12, 12, 9, 12, 15, 15, 6,
    3, 6, 6, 9, 6, 9, 9, 12, 6, 9, 9, 12, 9, 12, 12, 9, 6, 9, 9, 12, 9, 12, 12, 15, 9, 12, 12, 15, 12, 15, 15, 12,
    6, 9, 9, 12, 9, 12, 6, 9, 9, 12, 12, 15, 12, 15, 9, 6, 9, 12, 12, 9, 12, 15, 9, 6, 12, 15, 15, 12, 15, 6, 12, 3,
    3, 6, 6, 9, 6, 9, 9, 12, 6, 9, 9, 12, 9, 12, 12, 9, 6, 9, 9, 12, 9, 12, 12, 15, 9, 6, 12, 9, 12, 9, 15, 6,
    6, 9, 9, 12, 9, 12, 12, 15, 9, 12, 12, 15, 12, 15, 15, 12, 9, 12, 12, 9, 12, 15, 15, 12, 12, 9, 15, 6, 15, 12, 6, 3,
    6, 9, 9, 12, 9, 12, 12, 15, 9, 12, 12, 15, 6, 9, 9, 6, 9, 12, 12, 15, 12, 15, 15, 6, 12, 9, 15, 12, 9, 6, 12, 3,
    9, 12, 12, 15, 12, 15, 9, 12, 12, 15, 15, 6, 9, 12, 6, 3, 6, 9, 9, 6, 9, 12, 6, 3, 9, 6, 12, 3, 6, 3, 3, 0};

// raycast_composite's orthographic camera: pixel (px, py)'s ray starts at origin +
// (px - W/2 + 1/2) right + (py - H/2 + 1/2) up and runs along dir (unit length)
struct Camera {
    float3 origin;
    float3 right;
    float3 up;
    float3 dir;
};

extern "C" {

// ---- marching squares ----

__device__ float edge_t(float a, float b, float iso) {
    return (iso - a) / (b - a);
}

// the point where the contour crosses edge e of cell (x, y), corner values v0..v3
__device__ float2 edge_point(int e, int x, int y, float v0, float v1, float v2, float v3, float iso) {
    float fx = (float)x;
    float fy = (float)y;
    if (e == 0) return make_float2(fx + edge_t(v0, v1, iso), fy);
    if (e == 1) return make_float2(fx + 1.0f, fy + edge_t(v1, v2, iso));
    if (e == 2) return make_float2(fx + edge_t(v3, v2, iso), fy + 1.0f);
    return make_float2(fx, fy + edge_t(v0, v3, iso));
}

// the iso-contour of the w x h field f (row-major) as segments (x0, y0, x1, y1) appended
// to segs (at most max_segs), the cell index (y (w - 1) + x) of each in seg_cell
__global__ void marching_squares(const float *f, float4 *segs, int *seg_cell, int *seg_count, float iso, int w,
                                 int h, int max_segs) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w - 1 || y >= h - 1) return;
    float v0 = f[y * w + x];
    float v1 = f[y * w + x + 1];
    float v2 = f[(y + 1) * w + x + 1];
    float v3 = f[(y + 1) * w + x];
    int c = 0;
    if (v0 > iso) c |= 1;
    if (v1 > iso) c |= 2;
    if (v2 > iso) c |= 4;
    if (v3 > iso) c |= 8;
    if (c == 0 || c == 15) return;
    int ns = (c == 5 || c == 10) ? 2 : 1;
    int slot = atomicAdd(seg_count, ns);
    for (int s = 0; s < ns; s++) {
        if (slot + s >= max_segs) break;
        float2 p = edge_point(c_ms_edges[c * 4 + 2 * s], x, y, v0, v1, v2, v3, iso);
        float2 q = edge_point(c_ms_edges[c * 4 + 2 * s + 1], x, y, v0, v1, v2, v3, iso);
        segs[slot + s] = make_float4(p.x, p.y, q.x, q.y);
        seg_cell[slot + s] = y * (w - 1) + x;
    }
}

// ---- marching cubes: classify voxels ----

// the vertices each voxel (cell between 8 samples) of the nx x ny x nz volume (x fastest)
// will emit and whether it emits any; voxels numbered (z (ny-1) + y) (nx-1) + x
__global__ void mc_classify(const float *vol, unsigned int *voxel_verts, unsigned int *voxel_occupied, float iso,
                            int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
    int sy = nx;
    int sz = nx * ny;
    int i = z * sz + y * sy + x;
    float f0 = vol[i];
    float f1 = vol[i + 1];
    float f2 = vol[i + sy + 1];
    float f3 = vol[i + sy];
    float f4 = vol[i + sz];
    float f5 = vol[i + sz + 1];
    float f6 = vol[i + sz + sy + 1];
    float f7 = vol[i + sz + sy];
    unsigned int cube = (unsigned int)(f0 < iso);
    cube |= (unsigned int)(f1 < iso) << 1;
    cube |= (unsigned int)(f2 < iso) << 2;
    cube |= (unsigned int)(f3 < iso) << 3;
    cube |= (unsigned int)(f4 < iso) << 4;
    cube |= (unsigned int)(f5 < iso) << 5;
    cube |= (unsigned int)(f6 < iso) << 6;
    cube |= (unsigned int)(f7 < iso) << 7;
    unsigned int nv = c_num_verts[cube];
    int v = (z * (ny - 1) + y) * (nx - 1) + x;
    voxel_verts[v] = nv;
    voxel_occupied[v] = (nv > 0);
}

// ---- volume ray casting ----

// the dim^3 volume (x fastest) trilinearly interpolated at (x, y, z), clamped inside
__device__ float sample_volume(const float *vol, int dim, float x, float y, float z) {
    float hi = dim - 1.001f;
    x = fminf(fmaxf(x, 0.0f), hi);
    y = fminf(fmaxf(y, 0.0f), hi);
    z = fminf(fmaxf(z, 0.0f), hi);
    int x0 = (int)x;
    int y0 = (int)y;
    int z0 = (int)z;
    float fx = x - x0;
    float fy = y - y0;
    float fz = z - z0;
    int i = (z0 * dim + y0) * dim + x0;
    int sy = dim;
    int sz = dim * dim;
    float c00 = vol[i] * (1.0f - fx) + vol[i + 1] * fx;
    float c10 = vol[i + sy] * (1.0f - fx) + vol[i + sy + 1] * fx;
    float c01 = vol[i + sz] * (1.0f - fx) + vol[i + sz + 1] * fx;
    float c11 = vol[i + sz + sy] * (1.0f - fx) + vol[i + sz + sy + 1] * fx;
    float c0 = c00 * (1.0f - fy) + c10 * fy;
    float c1 = c01 * (1.0f - fy) + c11 * fy;
    return c0 * (1.0f - fz) + c1 * fz;
}

// one axis of the slab test: narrows [*tnear, *tfar] to where o + t d lies in [0, hi]
__device__ void slab(float o, float d, float hi, float *tnear, float *tfar) {
    if (fabsf(d) < 1e-8f) {
        if (o < 0.0f || o > hi) *tfar = -1.0f;       // parallel to the slab and outside it
        return;
    }
    float t1 = (0.0f - o) / d;
    float t2 = (hi - o) / d;
    *tnear = fmaxf(*tnear, fminf(t1, t2));
    *tfar = fminf(*tfar, fmaxf(t1, t2));
}

// the width x height image of the dim^3 volume: a pixel's ray through [0, dim-1]^3
// sampled every `step`, opacity a = clamp((s - lo) / (hi - lo), 0, 1) * opacity_scale,
// emission the sample itself, composited front to back until the opacity passes 0.95
__global__ void raycast_composite(const float *vol, int dim, Camera cam, float step, float tf_lo, float tf_hi,
                                  float opacity_scale, float *color, float *alpha, int width, int height) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) return;
    float sx = px - 0.5f * width + 0.5f;
    float sy = py - 0.5f * height + 0.5f;
    float ox = cam.origin.x + sx * cam.right.x + sy * cam.up.x;
    float oy = cam.origin.y + sx * cam.right.y + sy * cam.up.y;
    float oz = cam.origin.z + sx * cam.right.z + sy * cam.up.z;
    float dx = cam.dir.x;
    float dy = cam.dir.y;
    float dz = cam.dir.z;
    float hi = dim - 1.0f;
    float tnear = 0.0f;
    float tfar = 1e30f;
    slab(ox, dx, hi, &tnear, &tfar);
    slab(oy, dy, hi, &tnear, &tfar);
    slab(oz, dz, hi, &tnear, &tfar);
    float C = 0.0f;
    float A = 0.0f;
    for (float t = tnear; t <= tfar; t += step) {
        float s = sample_volume(vol, dim, ox + t * dx, oy + t * dy, oz + t * dz);
        float a = (s - tf_lo) / (tf_hi - tf_lo);
        a = fminf(fmaxf(a, 0.0f), 1.0f) * opacity_scale;
        C += (1.0f - A) * a * s;
        A += (1.0f - A) * a;
        if (A > 0.95f) break;                          // early ray termination
    }
    color[py * width + px] = C;
    alpha[py * width + px] = A;
}

// ---- streamlines ----

// the g x g vector field (row-major, x fastest) bilinearly interpolated at (x, y), clamped inside
__device__ float2 sample_field(const float2 *v, int g, float x, float y) {
    x = fminf(fmaxf(x, 0.0f), g - 1.001f);
    y = fminf(fmaxf(y, 0.0f), g - 1.001f);
    int x0 = (int)x;
    int y0 = (int)y;
    float fx = x - x0;
    float fy = y - y0;
    float2 a = v[y0 * g + x0];
    float2 b = v[y0 * g + x0 + 1];
    float2 c = v[(y0 + 1) * g + x0];
    float2 d = v[(y0 + 1) * g + x0 + 1];
    float2 r;
    r.x = (1.0f - fy) * ((1.0f - fx) * a.x + fx * b.x) + fy * ((1.0f - fx) * c.x + fx * d.x);
    r.y = (1.0f - fy) * ((1.0f - fx) * a.y + fx * b.y) + fy * ((1.0f - fx) * c.y + fx * d.y);
    return r;
}

// n streamlines from seeds through the g x g field, RK4 steps of h: line i's points in
// lines[i SL_STEPS ..], stopped before a point outside [0, g-1]^2, its length in lengths[i]
__global__ void streamline_rk4(const float2 *field, int g, const float2 *seeds, float2 *lines, int *lengths,
                               float h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = seeds[i].x;
    float y = seeds[i].y;
    float lim = g - 1.0f;
    int s = 0;
    while (s < SL_STEPS) {
        if (x < 0.0f || y < 0.0f || x > lim || y > lim) break;
        lines[i * SL_STEPS + s] = make_float2(x, y);
        s++;
        float2 k1 = sample_field(field, g, x, y);
        float2 k2 = sample_field(field, g, x + 0.5f * h * k1.x, y + 0.5f * h * k1.y);
        float2 k3 = sample_field(field, g, x + 0.5f * h * k2.x, y + 0.5f * h * k2.y);
        float2 k4 = sample_field(field, g, x + h * k3.x, y + h * k3.y);
        x += h / 6.0f * (k1.x + 2.0f * k2.x + 2.0f * k3.x + k4.x);
        y += h / 6.0f * (k1.y + 2.0f * k2.y + 2.0f * k3.y + k4.y);
    }
    lengths[i] = s;
}

// ---- transfer-function colour mapping ----

// n scalars mapped to RGBA through the LUT_SIZE-entry colour map lut over [vmin, vmax]
__global__ void tf_colormap(const float *scalars, const uchar4 *lut, uchar4 *rgba, float vmin, float vmax, int n) {
    __shared__ uchar4 s_lut[LUT_SIZE];
    for (int k = threadIdx.x; k < LUT_SIZE; k += blockDim.x) s_lut[k] = lut[k];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float t = (scalars[i] - vmin) / (vmax - vmin);
    t = fminf(fmaxf(t, 0.0f), 1.0f) * (LUT_SIZE - 1);
    int j = (int)t;
    if (j > LUT_SIZE - 2) j = LUT_SIZE - 2;
    float f = t - j;
    uchar4 a = s_lut[j];
    uchar4 b = s_lut[j + 1];
    uchar4 out;
    out.x = (unsigned char)(a.x + f * (b.x - a.x) + 0.5f);
    out.y = (unsigned char)(a.y + f * (b.y - a.y) + 0.5f);
    out.z = (unsigned char)(a.z + f * (b.z - a.z) + 0.5f);
    out.w = (unsigned char)(a.w + f * (b.w - a.w) + 0.5f);
    rgba[i] = out;
}

// ---- histogram equalization: the histogram ----

// the HIST_BINS-bin histogram of n 8-bit pixels added into hist
__global__ void histeq_hist(const unsigned char *img, unsigned int *hist, int n) {
    __shared__ unsigned int s_hist[HIST_BINS];
    for (int k = threadIdx.x; k < HIST_BINS; k += blockDim.x) s_hist[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&s_hist[img[i]], 1u);
    __syncthreads();
    for (int k = threadIdx.x; k < HIST_BINS; k += blockDim.x)
        if (s_hist[k] > 0) atomicAdd(&hist[k], s_hist[k]);
}

}
