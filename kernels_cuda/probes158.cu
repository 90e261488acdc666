// probe-unseen156: a procedural terrain / game-world generation course's CUDA assignments,
// as a student who knows CUDA basics hands them in. Heights are floats in [0, 1] (the map's
// relief) except where a kernel says otherwise; maps are row-major.
//  - fbm_heightmap: a height map of fractal Brownian motion, octaves of 2-D Perlin gradient
//    noise (Ken Perlin's improved noise: the doubled permutation table in __constant__,
//    8 gradient directions by a switch, quintic fade), mapped to [0, 1] and redistributed by
//    a power (valleys flattened), a thread a pixel in 16 x 16 blocks;
//  - droplet_erosion: hydraulic erosion by rain droplets (Beyer 2015 / Lague's particle
//    model), a thread a droplet walking downhill on the bilinearly interpolated terrain with
//    inertia for up to ER_LIFE steps: its sediment capacity from its speed, water and the
//    height it lost, eroding or depositing at the 4 corners of its cell by atomicAdd into a
//    height-change map (the terrain itself fixed during the pass), stopping when it leaves
//    the map or comes to rest;
//  - thermal_erosion: one step of thermal erosion (Musgrave et al. 1989) on the 8-neighbour
//    grid: a cell with neighbours lower by more than the talus threshold sends c (d_max -
//    talus) of material to them in proportion to their drops; a 16 x 16 block stages its tile
//    with 2 rings of halo in shared memory, works out each cell's sending factor for the tile
//    and 1 ring, then each cell's new height (what it sends, what its higher neighbours send
//    it), two __syncthreads;
//  - biome_classify: the biomes of an equirectangular world map, a thread a cell: ocean by
//    depth, beach, ice, else a Whittaker diagram (temperature from latitude and elevation
//    lapse rate, moisture) looked up in a __constant__ table; each block's biome histogram by
//    shared-memory atomicAdd, added into the global one;
//  - worley_f1f2: cellular (Worley 1996) noise, a thread a pixel: the feature points of the
//    pixel's cell and its 8 neighbours, their count from a Poisson table in __constant__ and
//    their places from a 64-bit splitmix hash of the cell, the distances to the nearest and
//    second nearest point (F1, F2) and the nearest point's id (the Voronoi region);
//  - lod_chunk_error: geomipmapping's geometric error of a terrain's chunks, a block a chunk:
//    for each level l the largest vertical distance of the chunk's vertices from the mesh
//    simplified to a vertex every 2^l (cells split along the diagonal), a warp shuffle max
//    reduction and a shared-memory one across the warps.

#define PN_TABLE 256          // fbm_heightmap: the permutation's size (c_perm holds it twice)
#define ER_LIFE 30            // droplet_erosion: a droplet's most steps
#define ER_INERTIA 0.05f      // how much of its direction a droplet keeps
#define ER_CAP 4.0f           // sediment capacity a unit of height lost, speed and water
#define ER_MINCAP 0.01f       // the smallest capacity
#define ER_ERODE 0.3f         // the share of the spare capacity eroded a step
#define ER_DEPOSIT 0.3f       // the share of the excess sediment deposited a step
#define ER_EVAP 0.01f         // water evaporated a step
#define ER_GRAVITY 4.0f
#define TE_TILE 16            // thermal_erosion: blockDim.x == blockDim.y
#define TE_H (TE_TILE + 4)    // the heights staged: the tile and 2 rings
#define TE_F (TE_TILE + 2)    // the sending factors: the tile and 1 ring
#define BI_NT 8               // biome_classify: temperature bins of the Whittaker table
#define BI_NM 8               // moisture bins
#define BI_NBIOME 16          // biome ids
#define BI_DEEP 0             // biome ids outside the table: deep ocean, ocean, beach, ice
#define BI_OCEAN 1
#define BI_BEACH 2
#define BI_ICE 3
#define BI_TEQ 30.0f          // sea-level temperature at the equator (C)
#define BI_TGRAD 0.5f         // its fall a degree of latitude (C)
#define BI_LAPSE 6.5f         // a km of elevation (C)
#define BI_TICE (-10.0f)      // ice below this temperature
#define BI_TMIN (-10.0f)      // the table's temperature bins from BI_TMIN, BI_TSTEP wide
#define BI_TSTEP 5.0f
#define BI_DEEPKM 0.2f        // ocean deeper than this (km) is deep ocean
#define BI_BEACHKM 0.01f      // land lower than this (km) above warm seas is beach
#define WO_MAXPTS 8           // worley_f1f2: a cell's most feature points
#define LOD_CH 64             // lod_chunk_error: a chunk's side (cells)
#define LOD_LEVELS 6          // levels 1 .. LOD_LEVELS (a vertex every 2, 4, .., 64)
#define LOD_BLOCK 256         // blockDim.x

// fbm_heightmap's permutation of 0 .. PN_TABLE - 1, twice (set by the host)
__constant__ int c_perm[2 * PN_TABLE];
// biome_classify's Whittaker table: the biome of temperature bin t, moisture bin m at t * BI_NM + m
__constant__ int c_whittaker[BI_NT * BI_NM];
// worley_f1f2: the probability that a cell holds at most k + 1 points (fewer than 1 read as 1)
__constant__ float c_poisson_cdf[WO_MAXPTS - 1];

__device__ float pn_fade(float t) {
    return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f);
}

__device__ float pn_grad(int h, float x, float y) {
    switch (h & 7) {
    case 0: return x + y;
    case 1: return -x + y;
    case 2: return x - y;
    case 3: return -x - y;
    case 4: return x;
    case 5: return -x;
    case 6: return y;
    default: return -y;
    }
}

// improved Perlin noise at (x, y), in [-1, 1]
__device__ float perlin2(float x, float y) {
    float x0 = floorf(x);
    float y0 = floorf(y);
    int X = (int)x0 & (PN_TABLE - 1);
    int Y = (int)y0 & (PN_TABLE - 1);
    float xf = x - x0;
    float yf = y - y0;
    float u = pn_fade(xf);
    float v = pn_fade(yf);
    int A = c_perm[X] + Y;
    int B = c_perm[X + 1] + Y;
    float n00 = pn_grad(c_perm[A], xf, yf);
    float n10 = pn_grad(c_perm[B], xf - 1.0f, yf);
    float n01 = pn_grad(c_perm[A + 1], xf, yf - 1.0f);
    float n11 = pn_grad(c_perm[B + 1], xf - 1.0f, yf - 1.0f);
    float nx0 = n00 + u * (n10 - n00);
    float nx1 = n01 + u * (n11 - n01);
    return nx0 + v * (nx1 - nx0);
}

// splitmix64's finaliser
__device__ unsigned long long wo_mix(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

extern "C" {

// a W x H height map: pixel (x, y) of the world at (x + ox, y + oy) sampled at freq, octaves
// octaves of Perlin noise (each lacunarity times the last's frequency, gain times its
// amplitude), their weighted mean mapped to [0, 1] and raised to the power redist
__global__ void fbm_heightmap(float *height, int W, int H, float ox, float oy, float freq, int octaves,
                              float lacunarity, float gain, float redist) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    float px = (x + ox) * freq;
    float py = (y + oy) * freq;
    float sum = 0.0f;
    float amp = 1.0f;
    float norm = 0.0f;
    for (int o = 0; o < octaves; o++) {
        sum += amp * perlin2(px, py);
        norm += amp;
        px *= lacunarity;
        py *= lacunarity;
        amp *= gain;
    }
    float e = 0.5f * (sum / norm + 1.0f);
    height[y * W + x] = powf(fmaxf(e, 0.0f), redist);
}

// n droplets starting at pos[i] (x, y in cells, 0 <= x < W - 1, 0 <= y < H - 1) on the W x H
// terrain height; the heights they erode (negative) and deposit added into delta
__global__ void droplet_erosion(const float *height, float *delta, const float2 *pos, int W, int H, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = pos[i].x;
    float y = pos[i].y;
    float dx = 0.0f;
    float dy = 0.0f;
    float speed = 1.0f;
    float water = 1.0f;
    float sediment = 0.0f;
    for (int life = 0; life < ER_LIFE; life++) {
        int cx = (int)x;
        int cy = (int)y;
        float fx = x - cx;
        float fy = y - cy;
        int c = cy * W + cx;
        // the height and gradient under the droplet, bilinearly
        float h00 = height[c];
        float h10 = height[c + 1];
        float h01 = height[c + W];
        float h11 = height[c + W + 1];
        float gx = (h10 - h00) * (1.0f - fy) + (h11 - h01) * fy;
        float gy = (h01 - h00) * (1.0f - fx) + (h11 - h10) * fx;
        float h = h00 * (1.0f - fx) * (1.0f - fy) + h10 * fx * (1.0f - fy) + h01 * (1.0f - fx) * fy + h11 * fx * fy;
        // downhill, keeping some of the last direction
        dx = dx * ER_INERTIA - gx * (1.0f - ER_INERTIA);
        dy = dy * ER_INERTIA - gy * (1.0f - ER_INERTIA);
        float len = sqrtf(dx * dx + dy * dy);
        if (len == 0.0f) break;                     // at rest
        dx /= len;
        dy /= len;
        x += dx;
        y += dy;
        if (x < 0.0f || x >= W - 1 || y < 0.0f || y >= H - 1) break;     // off the map
        int nx = (int)x;
        int ny = (int)y;
        float gfx = x - nx;
        float gfy = y - ny;
        int nc = ny * W + nx;
        float hn = height[nc] * (1.0f - gfx) * (1.0f - gfy) + height[nc + 1] * gfx * (1.0f - gfy) +
                   height[nc + W] * (1.0f - gfx) * gfy + height[nc + W + 1] * gfx * gfy;
        float dh = hn - h;
        float cap = fmaxf(-dh * speed * water * ER_CAP, ER_MINCAP);
        if (sediment > cap || dh > 0.0f) {
            // uphill: fill the pit behind it (at most its sediment); else drop some of the excess
            float dep = dh > 0.0f ? fminf(dh, sediment) : (sediment - cap) * ER_DEPOSIT;
            sediment -= dep;
            atomicAdd(&delta[c], dep * (1.0f - fx) * (1.0f - fy));
            atomicAdd(&delta[c + 1], dep * fx * (1.0f - fy));
            atomicAdd(&delta[c + W], dep * (1.0f - fx) * fy);
            atomicAdd(&delta[c + W + 1], dep * fx * fy);
        } else {
            // erode some of the spare capacity, never more than the drop
            float ero = fminf((cap - sediment) * ER_ERODE, -dh);
            sediment += ero;
            atomicAdd(&delta[c], -ero * (1.0f - fx) * (1.0f - fy));
            atomicAdd(&delta[c + 1], -ero * fx * (1.0f - fy));
            atomicAdd(&delta[c + W], -ero * (1.0f - fx) * fy);
            atomicAdd(&delta[c + W + 1], -ero * fx * fy);
        }
        speed = sqrtf(fmaxf(speed * speed - dh * ER_GRAVITY, 0.0f));
        water *= 1.0f - ER_EVAP;
    }
}

// one step of thermal erosion of the nx x ny heights h into h2: material moves to the lower
// of the 8 neighbours (inside the map) where the drop exceeds talus (blockDim TE_TILE x TE_TILE)
__global__ void thermal_erosion(const float *h, float *h2, int nx, int ny, float talus, float c) {
    __shared__ float sh[TE_H][TE_H];
    __shared__ float sf[TE_F][TE_F];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x0 = blockIdx.x * TE_TILE - 2;
    int y0 = blockIdx.y * TE_TILE - 2;
    for (int yy = ty; yy < TE_H; yy += TE_TILE) {
        for (int xx = tx; xx < TE_H; xx += TE_TILE) {
            int gx = x0 + xx;
            int gy = y0 + yy;
            float v = 0.0f;
            if (gx >= 0 && gx < nx && gy >= 0 && gy < ny) v = h[gy * nx + gx];
            sh[yy][xx] = v;
        }
    }
    __syncthreads();
    // each cell's sending factor: c (d_max - talus) / (the sum of its drops over talus)
    for (int k = ty * TE_TILE + tx; k < TE_F * TE_F; k += TE_TILE * TE_TILE) {
        int fy = k / TE_F;
        int fx = k % TE_F;
        int gx = x0 + 1 + fx;
        int gy = y0 + 1 + fy;
        float f = 0.0f;
        if (gx >= 0 && gx < nx && gy >= 0 && gy < ny) {
            float hc = sh[fy + 1][fx + 1];
            float dmax = 0.0f;
            float dtot = 0.0f;
            for (int dy = -1; dy <= 1; dy++) {
                for (int dx = -1; dx <= 1; dx++) {
                    if ((dx == 0 && dy == 0) || gx + dx < 0 || gx + dx >= nx || gy + dy < 0 || gy + dy >= ny)
                        continue;
                    float d = hc - sh[fy + 1 + dy][fx + 1 + dx];
                    if (d > talus) {
                        dtot += d;
                        dmax = fmaxf(dmax, d);
                    }
                }
            }
            if (dtot > 0.0f) f = c * (dmax - talus) / dtot;
        }
        sf[fy][fx] = f;
    }
    __syncthreads();
    int x = blockIdx.x * TE_TILE + tx;
    int y = blockIdx.y * TE_TILE + ty;
    if (x >= nx || y >= ny) return;
    float hc = sh[ty + 2][tx + 2];
    float fc = sf[ty + 1][tx + 1];
    float dh = 0.0f;
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            if ((dx == 0 && dy == 0) || x + dx < 0 || x + dx >= nx || y + dy < 0 || y + dy >= ny) continue;
            float d = hc - sh[ty + 2 + dy][tx + 2 + dx];
            if (d > talus) dh -= fc * d;                                      // sent down to it
            else if (-d > talus) dh += sf[ty + 1 + dy][tx + 1 + dx] * -d;     // received from it
        }
    }
    h2[y * nx + x] = hc + dh;
}

// the biomes of a W x H equirectangular world (row 0 at the north pole): heights in [0, 1],
// sea level sea, elevation (h - sea) * km_per_unit km; moisture in [0, 1]; hist[b] += the
// cells of biome b (blockDim.x >= BI_NBIOME)
__global__ void biome_classify(const float *height, const float *moisture, unsigned char *biome,
                               unsigned int *hist, int W, int H, float sea, float km_per_unit) {
    __shared__ unsigned int sh[BI_NBIOME];
    if (threadIdx.x < BI_NBIOME) sh[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < W * H) {
        int y = i / W;
        float lat = 90.0f - 180.0f * (y + 0.5f) / H;
        float elev = (height[i] - sea) * km_per_unit;
        float t = BI_TEQ - BI_TGRAD * fabsf(lat) - BI_LAPSE * fmaxf(elev, 0.0f);
        int b;
        if (elev < 0.0f) {
            b = elev < -BI_DEEPKM ? BI_DEEP : BI_OCEAN;
        } else if (t < BI_TICE) {
            b = BI_ICE;
        } else if (elev < BI_BEACHKM && t > 0.0f) {
            b = BI_BEACH;
        } else {
            int ti = min(max((int)((t - BI_TMIN) / BI_TSTEP), 0), BI_NT - 1);
            int mi = min((int)(moisture[i] * BI_NM), BI_NM - 1);
            b = c_whittaker[ti * BI_NM + mi];
        }
        biome[i] = (unsigned char)b;
        atomicAdd(&sh[b], 1u);
    }
    __syncthreads();
    if (threadIdx.x < BI_NBIOME && sh[threadIdx.x] > 0) atomicAdd(&hist[threadIdx.x], sh[threadIdx.x]);
}

// W x H pixels of Worley noise, cells of 1 / inv_cell pixels: f1, f2 the distances (in
// cells) from the pixel's centre to the nearest and second nearest feature point, id the
// nearest point's hash (low 32 bits)
__global__ void worley_f1f2(float *f1, float *f2, unsigned int *id, int W, int H, float inv_cell,
                            unsigned long long seed) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    float px = (x + 0.5f) * inv_cell;
    float py = (y + 0.5f) * inv_cell;
    int cx = (int)floorf(px);
    int cy = (int)floorf(py);
    float d1 = FLT_MAX;
    float d2 = FLT_MAX;
    unsigned int best = 0;
    for (int j = -1; j <= 1; j++) {
        for (int i = -1; i <= 1; i++) {
            int gx = cx + i;
            int gy = cy + j;
            unsigned long long hsh =
                wo_mix(seed ^ (((unsigned long long)(unsigned int)gx << 32) | (unsigned int)gy));
            float u = (float)(hsh >> 40) * (1.0f / 16777216.0f);
            int cnt = 1;
            while (cnt < WO_MAXPTS && u > c_poisson_cdf[cnt - 1]) cnt++;
            for (int k = 0; k < cnt; k++) {
                hsh = wo_mix(hsh + 0x9E3779B97F4A7C15ULL);
                float fx = gx + (float)(hsh >> 40) * (1.0f / 16777216.0f);
                float fy = gy + (float)((hsh >> 16) & 0xFFFFFFULL) * (1.0f / 16777216.0f);
                float ddx = fx - px;
                float ddy = fy - py;
                float d = ddx * ddx + ddy * ddy;
                if (d < d1) {
                    d2 = d1;
                    d1 = d;
                    best = (unsigned int)hsh;
                } else if (d < d2) {
                    d2 = d;
                }
            }
        }
    }
    int p = y * W + x;
    f1[p] = sqrtf(d1);
    f2[p] = sqrtf(d2);
    id[p] = best;
}

// the (N + 1) x (N + 1) vertex heights (N a multiple of LOD_CH), a block a chunk of LOD_CH x
// LOD_CH cells (gridDim N / LOD_CH x N / LOD_CH, blockDim.x LOD_BLOCK): err[chunk * LOD_LEVELS
// + l - 1] the largest |height - the level-l mesh's height| over the chunk's vertices
__global__ void lod_chunk_error(const float *height, float *err, int N) {
    __shared__ float wmax[LOD_BLOCK / 32];
    int stride = N + 1;
    int x0 = blockIdx.x * LOD_CH;
    int y0 = blockIdx.y * LOD_CH;
    int chunk = blockIdx.y * gridDim.x + blockIdx.x;
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    for (int l = 1; l <= LOD_LEVELS; l++) {
        int s = 1 << l;
        float inv = 1.0f / s;
        float e = 0.0f;
        for (int v = threadIdx.x; v < (LOD_CH + 1) * (LOD_CH + 1); v += LOD_BLOCK) {
            int vx = v % (LOD_CH + 1);
            int vy = v / (LOD_CH + 1);
            int ax = min(vx / s * s, LOD_CH - s);       // the coarse cell's corner
            int ay = min(vy / s * s, LOD_CH - s);
            float fx = (vx - ax) * inv;
            float fy = (vy - ay) * inv;
            const float *q = height + (y0 + ay) * stride + x0 + ax;
            float h00 = q[0];
            float h10 = q[s];
            float h01 = q[s * stride];
            float h11 = q[s * stride + s];
            float hs;
            if (fx >= fy) hs = h00 + (h10 - h00) * fx + (h11 - h10) * fy;
            else hs = h00 + (h11 - h01) * fx + (h01 - h00) * fy;
            e = fmaxf(e, fabsf(height[(y0 + vy) * stride + x0 + vx] - hs));
        }
        for (int o = 16; o > 0; o >>= 1) e = fmaxf(e, __shfl_down_sync(0xffffffff, e, o));
        if (lane == 0) wmax[warp] = e;
        __syncthreads();
        if (threadIdx.x == 0) {
            float m = wmax[0];
            for (int w = 1; w < LOD_BLOCK / 32; w++) m = fmaxf(m, wmax[w]);
            err[chunk * LOD_LEVELS + l - 1] = m;
        }
        __syncthreads();
    }
}

}
