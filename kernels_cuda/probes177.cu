// probe-unseen175: an additive manufacturing / 3-D printing process simulation course's CUDA
// assignments, as a student who knows CUDA basics hands them in:
//  - melt_pool_step: one explicit step of the heat equation on the 3-D voxel grid of a laser
//    powder-bed fusion melt pool (Ti-6Al-4V), a thread a voxel (3-D blocks): a 7-point stencil
//    (insulated sides and top, the build plate's fixed temperature below), the conductivity
//    k(T) interpolated in a table in __constant__ (powder conducting a small fraction of it),
//    a moving Gaussian laser spot absorbed with depth (Beer-Lambert; an expf a voxel), the
//    top surface's radiation loss, powder voxels heated past the liquidus marked consolidated;
//  - voxelize_parity: a build's triangle meshes voxelised by ray parity, a thread a vertical
//    ray (a column of 64 voxel layers): every triangle tested by 2-D edge functions, the
//    height of each crossing interpolated, and the voxels above the crossing toggled in the
//    column's 64-bit occupancy mask (inside = an odd number of crossings below the centre);
//  - hatch_layers: the scan-path hatching of every layer of a part, a thread a hatch line
//    (a block a quarter of a layer's lines, the hatch direction turned 67 degrees a layer):
//    the layer's contour edges staged, rotated into the hatch frame, through shared memory a
//    chunk at a time, the line's crossings with them kept in a per-thread array, sorted by
//    insertion, paired into scan vectors and written zigzag (odd lines run backwards);
//  - powder_porosity: the packing statistics of a DEM powder bed (particles in the DEM
//    code's bin-sorted order, struct Particle), a thread a particle: its volume and a count
//    added to its porosity cell's running sums and a count to its layer's particle size
//    distribution, all by global atomicAdd (particles above the grid, spatter, dropped);
//  - inherent_stress: a layer-by-layer inherent strain model of residual stress, a thread a
//    voxel column marching from the top layer down, each layer's 3 x 3 neighbourhood mean
//    strain from a tile staged with its halo in shared memory, the shrinkage of the layers
//    above (decaying geometrically with distance) relieving the layer's own;
//  - overhang_detect: a support-structure overhang detector on an indexed triangle mesh, a
//    thread a facet: its normal from a cross product, facets facing down steeper than the
//    critical angle (and not lying on the build plate; degenerate facets and slivers skipped) compacted
//    into a list by an atomic counter, the support volume under them summed in double by a
//    warp shuffle reduction and an atomicAdd a warp.

#define MP_NK 32              // melt_pool_step: conductivity table entries (c_kT)
#define MP_T0 300.0f          // the temperature of entry 0 (K)
#define MP_DT 100.0f          // and between entries
#define VX_LAYERS 64          // voxelize_parity: voxel layers a column (one 64-bit mask)
#define HT_BLOCK 128          // hatch_layers: blockDim.x
#define HT_MAXX 32            // crossings a line keeps
#define HT_MAXSEG 16          // scan vectors a line writes
#define HT_ROT_DEG 67         // the hatch direction's turn a layer (degrees)
#define PP_BINS 16            // powder_porosity: size distribution bins, 5 um of diameter each
#define IS_TX 32              // inherent_stress: blockDim.x
#define IS_TY 8               // blockDim.y

// melt_pool_step's thermal conductivity (W/m/K) at MP_T0 + j MP_DT (set by the host)
__constant__ float c_kT[MP_NK];

struct Tri {                  // a triangle's vertices a, b, c (mm)
    float ax, ay, az;
    float bx, by, bz;
    float cx, cy, cz;
};

struct Edge {                 // a contour edge from (x0, y0) to (x1, y1) (mm)
    float x0, y0, x1, y1;
};

struct Particle {             // a powder particle's centre and radius (um)
    float x, y, z, r;
};

extern "C" {

// one step (dt, s) of T (K) on an nx x ny x nz grid of voxels of side h (m; x fastest, z up, the
// top surface at z = nz h) into T2: rho_c dT/dt = k(T) lap T + q - radiation, k from c_kT (times
// powder_k where state is 0, powder), q the laser (absorbed power P_abs, W; 1/e^2 radius w,
// absorption length delta, m) centred at (lx, ly) on the top surface; the plate under z = 0 at
// T_plate; powder voxels ending above T_liq get state 1 (consolidated)
__global__ void melt_pool_step(const float *T, float *T2, unsigned char *state, int nx, int ny, int nz, float h,
                               float dt, float rho_c, float powder_k, float lx, float ly, float P_abs, float w,
                               float delta, float T_plate, float T_liq, float eps_sigma, float T_amb) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    int plane = nx * ny;
    int i = z * plane + y * nx + x;
    float t = T[i];
    float tw = x > 0 ? T[i - 1] : t;                 // insulated sides: a missing neighbour is the voxel itself
    float te = x < nx - 1 ? T[i + 1] : t;
    float ts = y > 0 ? T[i - nx] : t;
    float tn = y < ny - 1 ? T[i + nx] : t;
    float tb = z > 0 ? T[i - plane] : T_plate;       // the build plate below
    float tt = z < nz - 1 ? T[i + plane] : t;
    // conductivity: the table interpolated linearly, clamped at its ends
    float u = (t - MP_T0) * (1.0f / MP_DT);
    u = fminf(fmaxf(u, 0.0f), (float)(MP_NK - 1));
    int j = min((int)u, MP_NK - 2);
    float f = u - j;
    float k = c_kT[j] + f * (c_kT[j + 1] - c_kT[j]);
    unsigned char s = state[i];
    if (s == 0) k *= powder_k;
    float lap = (tw + te + ts + tn + tb + tt - 6.0f * t) / (h * h);
    // the laser: a Gaussian spot on the surface, absorbed exponentially with depth
    float px = (x + 0.5f) * h - lx;
    float py = (y + 0.5f) * h - ly;
    float depth = (nz - z - 0.5f) * h;
    float q = 2.0f * P_abs / (3.14159265f * w * w * delta) *
              expf(-2.0f * (px * px + py * py) / (w * w) - depth / delta);
    float heat = k * lap + q;
    if (z == nz - 1) heat -= eps_sigma * (t * t * t * t - T_amb * T_amb * T_amb * T_amb) / h;
    float tnew = t + dt * heat / rho_c;
    T2[i] = tnew;
    if (s == 0 && tnew > T_liq) state[i] = 1;
}

// the nx x ny columns of vertical rays at (x0 + (ix + 0.5) dxy, y0 + (iy + 0.5) dxy) against ntri
// triangles: mask[iy * nx + ix] bit k set where the voxel centred at z0 + (k + 0.5) dz is inside
// (an odd number of crossings below it), hits[...] the crossings
__global__ void voxelize_parity(const struct Tri *tri, int ntri, unsigned long long *mask, int *hits, float x0,
                                float y0, float dxy, float z0, float dz, int nx, int ny) {
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix >= nx || iy >= ny) return;
    float px = x0 + (ix + 0.5f) * dxy;
    float py = y0 + (iy + 0.5f) * dxy;
    unsigned long long m = 0;
    int nh = 0;
    for (int t = 0; t < ntri; t++) {
        struct Tri T = tri[t];
        // edge functions: the ray is inside when it is on the same side of all three edges
        float w0 = (T.bx - T.ax) * (py - T.ay) - (T.by - T.ay) * (px - T.ax);
        float w1 = (T.cx - T.bx) * (py - T.by) - (T.cy - T.by) * (px - T.bx);
        float w2 = (T.ax - T.cx) * (py - T.cy) - (T.ay - T.cy) * (px - T.cx);
        bool in = (w0 > 0.0f && w1 > 0.0f && w2 > 0.0f) || (w0 < 0.0f && w1 < 0.0f && w2 < 0.0f);
        if (!in) continue;
        // the crossing's height: the vertices' heights weighted by the barycentric coordinates
        float zh = (w1 * T.az + w2 * T.bz + w0 * T.cz) / (w0 + w1 + w2);
        nh++;
        // the first voxel whose centre lies above the crossing, and all above it, flip
        float kf = floorf((zh - z0) / dz - 0.5f) + 1.0f;
        if (kf < (float)VX_LAYERS) {
            int k = kf < 0.0f ? 0 : (int)kf;
            m ^= ~0ULL << k;
        }
    }
    mask[iy * nx + ix] = m;
    hits[iy * nx + ix] = nh;
}

// the hatch lines of layer blockIdx.y (lines of them, spacing apart, across the direction turned
// HT_ROT_DEG a layer, centred on (cx, cy)) clipped against the layer's contour edges eoff[layer]
// .. eoff[layer + 1]: nseg[line] scan vectors, segs[(line * HT_MAXSEG + s) * 4 ..] their start and
// end points (line = layer * lines + j); blockDim.x == HT_BLOCK
__global__ void hatch_layers(const struct Edge *edges, const int *eoff, float *segs, int *nseg, float cx, float cy,
                             float spacing, int lines) {
    __shared__ float sua[HT_BLOCK];
    __shared__ float sva[HT_BLOCK];
    __shared__ float sub[HT_BLOCK];
    __shared__ float svb[HT_BLOCK];
    int layer = blockIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    bool active = j < lines;
    float th = (float)((layer * HT_ROT_DEG) % 180) * (3.14159265f / 180.0f);
    float c = cosf(th);
    float s = sinf(th);
    float v = (j + 0.5f - 0.5f * lines) * spacing;   // the line's offset across the hatch direction
    float xs[HT_MAXX];
    int nx = 0;
    int e0 = eoff[layer];
    int e1 = eoff[layer + 1];
    for (int base = e0; base < e1; base += HT_BLOCK) {
        // a chunk of the layer's edges in the hatch frame (u along the lines, v across)
        int e = base + threadIdx.x;
        if (e < e1) {
            struct Edge E = edges[e];
            float ax = E.x0 - cx;
            float ay = E.y0 - cy;
            float bx = E.x1 - cx;
            float by = E.y1 - cy;
            sua[threadIdx.x] = ax * c + ay * s;
            sva[threadIdx.x] = -ax * s + ay * c;
            sub[threadIdx.x] = bx * c + by * s;
            svb[threadIdx.x] = -bx * s + by * c;
        }
        __syncthreads();
        int cnt = min(HT_BLOCK, e1 - base);
        if (active) {
            for (int k = 0; k < cnt; k++) {
                float va = sva[k];
                float vb = svb[k];
                if ((va <= v) != (vb <= v)) {
                    float u = sua[k] + (v - va) * (sub[k] - sua[k]) / (vb - va);
                    if (nx < HT_MAXX) xs[nx++] = u;
                }
            }
        }
        __syncthreads();
    }
    if (!active) return;
    for (int a = 1; a < nx; a++) {
        float key = xs[a];
        int b = a - 1;
        while (b >= 0 && xs[b] > key) {
            xs[b + 1] = xs[b];
            b--;
        }
        xs[b + 1] = key;
    }
    int ns = min(nx / 2, HT_MAXSEG);
    int line = layer * lines + j;
    float *out = segs + line * HT_MAXSEG * 4;
    for (int q = 0; q < ns; q++) {
        int p = (j & 1) ? ns - 1 - q : q;
        float ua = xs[2 * p];
        float ub = xs[2 * p + 1];
        if (j & 1) {
            float tmp = ua;
            ua = ub;
            ub = tmp;
        }
        out[4 * q + 0] = cx + ua * c - v * s;
        out[4 * q + 1] = cy + ua * s + v * c;
        out[4 * q + 2] = cx + ub * c - v * s;
        out[4 * q + 3] = cy + ub * s + v * c;
    }
    nseg[line] = ns;
}

// n particles (um) binned into gx x gy x gz porosity cells of side 1 / inv_cell um (x fastest):
// solid[cell] += the particle's volume, count[cell] += 1, psd[layer * PP_BINS + bin] += 1 for
// its diameter's 5 um bin (the last one open); particles outside the grid dropped
__global__ void powder_porosity(const struct Particle *p, float *solid, int *count, int *psd, float inv_cell, int gx,
                                int gy, int gz, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    struct Particle q = p[i];
    int cx = (int)floorf(q.x * inv_cell);
    int cy = (int)floorf(q.y * inv_cell);
    int cz = (int)floorf(q.z * inv_cell);
    if (cx < 0 || cx >= gx || cy < 0 || cy >= gy || cz < 0 || cz >= gz) return;
    int cell = (cz * gy + cy) * gx + cx;
    atomicAdd(&solid[cell], 4.18879020f * q.r * q.r * q.r);
    atomicAdd(&count[cell], 1);
    int bin = min((int)(q.r * 0.4f), PP_BINS - 1);     // diameter / 5 um
    atomicAdd(&psd[cz * PP_BINS + bin], 1);
}

// the residual stress sigma (MPa) of an nx x ny x nz voxel grid (x fastest, layer z built after
// z - 1) from the inherent strains eps (0: powder): marching down from the top layer, S holds
// the shrinkage of the layers above, each layer's 3 x 3 mean strain (zero outside the grid)
// weighted r^distance; sigma = E (eps - beta S) in the part, 0 in the powder
// (blockDim IS_TX x IS_TY)
__global__ void inherent_stress(const float *eps, float *sigma, int nx, int ny, int nz, float E, float r,
                                float beta) {
    __shared__ float tile[IS_TY + 2][IS_TX + 2];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * IS_TX + tx;
    int y = blockIdx.y * IS_TY + ty;
    bool in = x < nx && y < ny;
    int plane = nx * ny;
    float S = 0.0f;
    for (int k = nz - 1; k >= 0; k--) {
        const float *e = eps + k * plane;
        for (int yy = ty; yy < IS_TY + 2; yy += IS_TY) {
            for (int xx = tx; xx < IS_TX + 2; xx += IS_TX) {
                int gx = blockIdx.x * IS_TX + xx - 1;
                int gy = blockIdx.y * IS_TY + yy - 1;
                float val = 0.0f;
                if (gx >= 0 && gx < nx && gy >= 0 && gy < ny) val = e[gy * nx + gx];
                tile[yy][xx] = val;
            }
        }
        __syncthreads();
        if (in) {
            float ek = tile[ty + 1][tx + 1];
            float A = (tile[ty][tx] + tile[ty][tx + 1] + tile[ty][tx + 2] + tile[ty + 1][tx] + ek +
                       tile[ty + 1][tx + 2] + tile[ty + 2][tx] + tile[ty + 2][tx + 1] + tile[ty + 2][tx + 2]) /
                      9.0f;
            sigma[k * plane + y * nx + x] = ek > 0.0f ? E * (ek - beta * S) : 0.0f;
            S = r * (S + A);
        }
        __syncthreads();
    }
}

// n facets (vertex indices tri[3 t ..], vertices v[3 i ..] in mm, z up) of a part on the plate at
// z_plate: facets whose unit normal's z < -cos_crit, not degenerate (the sine of the angle at the
// first vertex under 1e-6) and not all within eps of the plate, listed (list[0 .. *count)), *support_vol += the volume between them and the plate
// (projected area x the centroid's height; blockDim.x a multiple of 32)
__global__ void overhang_detect(const float *v, const int *tri, int *list, int *count, double *support_vol,
                                float cos_crit, float z_plate, float eps, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    double vol = 0.0;
    if (t < n) {
        int a = tri[3 * t];
        int b = tri[3 * t + 1];
        int c = tri[3 * t + 2];
        float ax = v[3 * a], ay = v[3 * a + 1], az = v[3 * a + 2];
        float bx = v[3 * b], by = v[3 * b + 1], bz = v[3 * b + 2];
        float cx = v[3 * c], cy = v[3 * c + 1], cz = v[3 * c + 2];
        float ux = bx - ax, uy = by - ay, uz = bz - az;
        float wx = cx - ax, wy = cy - ay, wz = cz - az;
        float nx = uy * wz - uz * wy;
        float ny = uz * wx - ux * wz;
        float nz = ux * wy - uy * wx;
        float len = sqrtf(nx * nx + ny * ny + nz * nz);     // twice the facet's area
        // degenerate facets and slivers: the sine of the angle at a under 1e-6
        float scale = sqrtf(ux * ux + uy * uy + uz * uz) * sqrtf(wx * wx + wy * wy + wz * wz);
        float zmax = fmaxf(az, fmaxf(bz, cz));
        if (len > 1e-6f * scale && zmax > z_plate + eps && nz / len < -cos_crit) {
            int slot = atomicAdd(count, 1);
            list[slot] = t;
            double zc = ((double)az + (double)bz + (double)cz) / 3.0;
            vol = -0.5 * (double)nz * (zc - (double)z_plate);
        }
    }
    for (int o = 16; o > 0; o >>= 1) vol += __shfl_down_sync(0xffffffff, vol, o);
    if ((threadIdx.x & 31) == 0 && vol != 0.0) atomicAdd(support_vol, vol);
}

}
