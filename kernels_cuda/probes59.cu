// probe-unseen57: a computer-graphics and game-physics course's CUDA assignments (real-time
// rendering, physics engine programming), as a student who knows CUDA basics hands them in:
// z-buffer rasterization of many small triangles, a thread a triangle walking its bounding
// box with edge functions and resolving visibility by a 64-bit atomicMin on (depth bits <<
// 32 | triangle id) a pixel, back faces culled; linear blend skinning, a thread a vertex
// blending 4 of 64 bone matrices (3 x 4, the palette staged in shared memory) and
// transforming its position and normal (float3 arrays, int4 indices, float4 weights); a
// cloth mass-spring step on an N x N grid, a thread a particle summing the Hooke and
// damping forces of its 8 structural and shear springs and taking a Verlet step into a
// second buffer, two corners pinned; SPH pressure and viscosity forces (Mueller et al.
// 2003), the particles sorted by a spatial hash of their cells (Teschner's primes), a thread
// a particle visiting the 27 buckets around it with spiky-gradient and viscosity-Laplacian
// kernels; sweep-and-prune broad phase, boxes (structs of two float3) sorted by their lower
// x, a thread a box scanning forward while the x intervals overlap and appending the pairs
// that also overlap in y and z through an atomicAdd on one counter (capped); and a
// shadow-map lookup with 5 x 5 percentage-closer filtering, a thread a pixel of a G-buffer
// of world positions projected by the light's matrix in __constant__ memory, 25 depth
// comparisons against a float shadow map in global memory.

#define SK_BONES 64          // lbs_skin: bones in the palette
#define PCF_R 2              // shadow_pcf: a (2 PCF_R + 1)^2 kernel

struct AABB {
    float3 lo, hi;
};

__constant__ float c_light_vp[16];   // shadow_pcf: the light's view-projection, row-major

extern "C" {

// z-buffer rasterization: triangle t is verts[3 t .. 3 t + 2] in screen space (x, y in
// pixels, z the depth in [0, 1)); counter-clockwise (positive area) triangles are drawn,
// the others culled.  Pixel (x, y) is covered when its centre (x + 0.5, y + 0.5) is on or
// inside all three edges; the depth interpolated there, as float bits, over the triangle's
// id goes into zbuf[y width + x] by atomicMin (cleared to all ones), so the nearest
// fragment wins and ties go to the lower id
__global__ void zbuffer_raster(const float3 *verts, unsigned long long *zbuf, int ntri, int width, int height) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ntri) return;
    float3 a = verts[3 * t], b = verts[3 * t + 1], c = verts[3 * t + 2];
    float area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
    if (area <= 0.0f) return;                        // back-facing or degenerate
    float inv_area = 1.0f / area;
    int x0 = max((int)floorf(fminf(a.x, fminf(b.x, c.x))), 0);
    int x1 = min((int)ceilf(fmaxf(a.x, fmaxf(b.x, c.x))), width - 1);
    int y0 = max((int)floorf(fminf(a.y, fminf(b.y, c.y))), 0);
    int y1 = min((int)ceilf(fmaxf(a.y, fmaxf(b.y, c.y))), height - 1);
    for (int y = y0; y <= y1; ++y) {
        float py = y + 0.5f;
        for (int x = x0; x <= x1; ++x) {
            float px = x + 0.5f;
            float w0 = (c.x - b.x) * (py - b.y) - (c.y - b.y) * (px - b.x);
            float w1 = (a.x - c.x) * (py - c.y) - (a.y - c.y) * (px - c.x);
            float w2 = (b.x - a.x) * (py - a.y) - (b.y - a.y) * (px - a.x);
            if (w0 >= 0.0f && w1 >= 0.0f && w2 >= 0.0f) {
                float z = (w0 * a.z + w1 * b.z + w2 * c.z) * inv_area;
                unsigned long long key = ((unsigned long long)__float_as_uint(z) << 32) | (unsigned)t;
                atomicMin(&zbuf[y * width + x], key);
            }
        }
    }
}

// linear blend skinning: vertex v has bones bone_idx[v] with weights bone_w[v]; bone k's
// 3 x 4 matrix (row-major, rotation | translation) is bones[12 k .. 12 k + 11]; the blended
// matrix M = sum w_j B_j moves the position (out_pos = M (p, 1)) and the normal (out_nrm =
// the normalized M (n, 0))
__global__ void lbs_skin(const float3 *pos, const float3 *nrm, const int4 *bone_idx, const float4 *bone_w,
                         const float *bones, float3 *out_pos, float3 *out_nrm, int nverts) {
    __shared__ float s_bones[SK_BONES * 12];
    for (int k = threadIdx.x; k < SK_BONES * 12; k += blockDim.x) s_bones[k] = bones[k];
    __syncthreads();
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= nverts) return;
    int4 bi = bone_idx[v];
    float4 bw = bone_w[v];
    int ids[4] = {bi.x, bi.y, bi.z, bi.w};
    float ws[4] = {bw.x, bw.y, bw.z, bw.w};
    float m[12];
    for (int k = 0; k < 12; ++k) m[k] = 0.0f;
    for (int j = 0; j < 4; ++j) {
        const float *B = &s_bones[ids[j] * 12];
        for (int k = 0; k < 12; ++k) m[k] += ws[j] * B[k];
    }
    float3 p = pos[v], n = nrm[v];
    out_pos[v] = make_float3(m[0] * p.x + m[1] * p.y + m[2] * p.z + m[3],
                             m[4] * p.x + m[5] * p.y + m[6] * p.z + m[7],
                             m[8] * p.x + m[9] * p.y + m[10] * p.z + m[11]);
    float nx = m[0] * n.x + m[1] * n.y + m[2] * n.z;
    float ny = m[4] * n.x + m[5] * n.y + m[6] * n.z;
    float nz = m[8] * n.x + m[9] * n.y + m[10] * n.z;
    float inv = rsqrtf(nx * nx + ny * ny + nz * nz);
    out_nrm[v] = make_float3(nx * inv, ny * inv, nz * inv);
}

// one step of a mass-spring cloth of nx x ny particles (row-major, xyz of float4, w kept):
// particle (x, y) is tied to its 8 neighbours by springs of rest length rest (structural)
// or rest sqrt 2 (shear); a spring adds ks (len - L0) + kd (v_j - v_i).dir along dir, the
// unit vector to the neighbour, velocities (pos - prev) / dt, plus gravity; position Verlet
// with a little drag: out = pos + 0.99 (pos - prev) + f dt^2 / mass.  The corners (0, 0) and
// (nx - 1, 0) are pinned (copied)
__global__ void cloth_step(const float4 *pos, const float4 *prev, float4 *out, int nx, int ny, float rest, float ks,
                           float kd, float dt, float mass) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    float4 p = pos[i];
    if (y == 0 && (x == 0 || x == nx - 1)) {
        out[i] = p;
        return;
    }
    float4 q = prev[i];
    float inv_dt = 1.0f / dt;
    float vx = (p.x - q.x) * inv_dt, vy = (p.y - q.y) * inv_dt, vz = (p.z - q.z) * inv_dt;
    float fx = 0.0f, fy = -9.81f * mass, fz = 0.0f;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            if (dx == 0 && dy == 0) continue;
            int xx = x + dx, yy = y + dy;
            if (xx < 0 || xx >= nx || yy < 0 || yy >= ny) continue;
            int j = yy * nx + xx;
            float4 pj = pos[j], qj = prev[j];
            float ex = pj.x - p.x, ey = pj.y - p.y, ez = pj.z - p.z;
            float len = sqrtf(ex * ex + ey * ey + ez * ez);
            float L0 = (dx != 0 && dy != 0) ? rest * 1.41421356f : rest;
            ex /= len;
            ey /= len;
            ez /= len;
            float rvx = (pj.x - qj.x) * inv_dt - vx, rvy = (pj.y - qj.y) * inv_dt - vy, rvz = (pj.z - qj.z) * inv_dt - vz;
            float s = ks * (len - L0) + kd * (rvx * ex + rvy * ey + rvz * ez);
            fx += s * ex;
            fy += s * ey;
            fz += s * ez;
        }
    }
    float k = dt * dt / mass;
    out[i] = make_float4(p.x + 0.99f * (p.x - q.x) + fx * k, p.y + 0.99f * (p.y - q.y) + fy * k,
                         p.z + 0.99f * (p.z - q.z) + fz * k, p.w);
}

// the spatial hash of cell (cx, cy, cz), Teschner et al.'s three primes
__device__ unsigned cell_hash(int cx, int cy, int cz, unsigned mask) {
    return (((unsigned)cx * 73856093u) ^ ((unsigned)cy * 19349663u) ^ ((unsigned)cz * 83492791u)) & mask;
}

// SPH pressure and viscosity accelerations (Mueller et al. 2003): particles sorted by the
// hash of their cell (cells of side h, mask + 1 buckets), bucket b holding [start[b],
// end[b]) (start -1 when empty); particle i visits the 27 buckets of the cells around its
// own and, for each other particle j there within h (r > 0), adds
// -m (p_i + p_j) / (2 rho_j) grad W_spiky and visc m (v_j - v_i) / rho_j lap W_visc; acc[i]
// = that sum / rho_i plus gravity (w unused).  A bucket holding two of the 27 cells (a hash
// collision) is visited twice
__global__ void sph_forces(const float4 *pos, const float4 *vel, const float *rho, const float *prs,
                           const int *start, const int *end, float4 *acc, int n, float h, float mass, float visc,
                           unsigned mask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i], vi = vel[i];
    float pri = prs[i];
    float h2 = h * h;
    float h6 = h2 * h2 * h2;
    float spiky = -45.0f / (3.14159265f * h6);
    float vlap = 45.0f / (3.14159265f * h6);
    int cx = (int)floorf(pi.x / h), cy = (int)floorf(pi.y / h), cz = (int)floorf(pi.z / h);
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                unsigned b = cell_hash(cx + dx, cy + dy, cz + dz, mask);
                int s = start[b];
                if (s < 0) continue;
                int e = end[b];
                for (int j = s; j < e; ++j) {
                    if (j == i) continue;
                    float4 pj = pos[j];
                    float rx = pi.x - pj.x, ry = pi.y - pj.y, rz = pi.z - pj.z;
                    float r2 = rx * rx + ry * ry + rz * rz;
                    if (r2 < h2 && r2 > 0.0f) {
                        float r = sqrtf(r2);
                        float hr = h - r;
                        float rhoj = rho[j];
                        float fp = -mass * (pri + prs[j]) / (2.0f * rhoj) * spiky * hr * hr / r;
                        ax += fp * rx;
                        ay += fp * ry;
                        az += fp * rz;
                        float4 vj = vel[j];
                        float fv = visc * mass / rhoj * vlap * hr;
                        ax += fv * (vj.x - vi.x);
                        ay += fv * (vj.y - vi.y);
                        az += fv * (vj.z - vi.z);
                    }
                }
            }
    float inv_rho = 1.0f / rho[i];
    acc[i] = make_float4(ax * inv_rho, ay * inv_rho - 9.81f, az * inv_rho, 0.0f);
}

// sweep and prune: boxes sorted by lo.x; box i scans j = i + 1, ... while box j's x interval
// starts within box i's and appends (i, j) to pairs when the boxes overlap in y and z too:
// the slot from atomicAdd on npairs, the pair written only below cap (npairs counts them all)
__global__ void sap_pairs(const AABB *boxes, int n, int2 *pairs, int *npairs, int cap) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    AABB a = boxes[i];
    for (int j = i + 1; j < n; ++j) {
        AABB b = boxes[j];
        if (b.lo.x > a.hi.x) break;
        if (a.lo.y <= b.hi.y && b.lo.y <= a.hi.y && a.lo.z <= b.hi.z && b.lo.z <= a.hi.z) {
            int k = atomicAdd(npairs, 1);
            if (k < cap) pairs[k] = make_int2(i, j);
        }
    }
}

// shadow mapping with percentage-closer filtering: pixel (x, y) of a width x height G-buffer
// holds its world position (w 0 for the sky: fully lit); the light's view-projection takes it
// to clip space, then to texel (u, v) and depth d in [0, 1]; outside the map it is lit,
// inside vis = the fraction of the (2 PCF_R + 1)^2 texels around floor(u, v) (clamped to the
// map) with d - bias <= their depth
__global__ void shadow_pcf(const float4 *gpos, const float *shadow, float *vis, int width, int height, int smsize,
                           float bias) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int p = y * width + x;
    float4 w = gpos[p];
    if (w.w == 0.0f) {
        vis[p] = 1.0f;
        return;
    }
    float cx = c_light_vp[0] * w.x + c_light_vp[1] * w.y + c_light_vp[2] * w.z + c_light_vp[3];
    float cy = c_light_vp[4] * w.x + c_light_vp[5] * w.y + c_light_vp[6] * w.z + c_light_vp[7];
    float cz = c_light_vp[8] * w.x + c_light_vp[9] * w.y + c_light_vp[10] * w.z + c_light_vp[11];
    float cw = c_light_vp[12] * w.x + c_light_vp[13] * w.y + c_light_vp[14] * w.z + c_light_vp[15];
    float inv = 1.0f / cw;
    float u = (cx * inv * 0.5f + 0.5f) * smsize;
    float v = (cy * inv * 0.5f + 0.5f) * smsize;
    float d = cz * inv * 0.5f + 0.5f;
    if (u < 0.0f || u >= smsize || v < 0.0f || v >= smsize) {
        vis[p] = 1.0f;
        return;
    }
    int tx = (int)u, ty = (int)v;
    int lit = 0;
    for (int dy = -PCF_R; dy <= PCF_R; ++dy)
        for (int dx = -PCF_R; dx <= PCF_R; ++dx) {
            int sx = min(max(tx + dx, 0), smsize - 1);
            int sy = min(max(ty + dy, 0), smsize - 1);
            if (d - bias <= shadow[sy * smsize + sx]) ++lit;
        }
    vis[p] = lit * (1.0f / ((2 * PCF_R + 1) * (2 * PCF_R + 1)));
}

}
