// probe-unseen243: a computational-photography / HDR imaging course's CUDA assignments, as a student
// who knows CUDA basics hands them in (a 12 MP phone camera's pipeline on an outdoor street scene
// of ~25 stops: the sun and its glare, glinting windows and car roofs, sunlit and shaded facades,
// dark doorways; a 12-bit RGGB sensor under a wide lens that vignettes 1.4 stops to the corners):
//  - lsc_wb_raw: the raw front end, black level, lens-shading (vignetting and colour shading)
//    correction and white balance of a burst of raw frames: a 32 x 8 block a 64 x 48 patch, a
//    thread two photosites of a row (a ushort2 load, a float2 store: coalesced), 6 rows a
//    thread; each photosite's gain bilinearly interpolated from Android's 17 x 13 lens-shading
//    map of its CFA channel (a __constant__ table: 8 loads a thread a row, one or two addresses
//    a warp) and a __constant__ RawConfig struct; saturated photosites counted by __ballot_sync
//    / __popc, the others summed for grey-world AWB (__shfl_down_sync, 8 warp partials in shared
//    memory, a barrier, 4 double atomicAdd and 4 int atomicAdd a block);
//  - demosaic_ha_ccm: Hamilton-Adams edge-directed demosaicing of the normalised Bayer frames,
//    a 32 x 8 block a 32 x 32 output tile: the raw tile with a 3-pixel reflect-101 halo staged
//    in shared memory (38 x 38 floats, scattered halo loads), a barrier; green at every site of
//    the tile plus a 1-pixel halo (34 x 34) from the horizontal / vertical gradients and
//    Laplacians (a divergent choice: lanes alternate green and red / blue sites), a barrier;
//    then red and blue by colour-difference interpolation (four CFA phases: a 4-way switch
//    between neighbouring lanes) and the camera -> sRGB colour matrix (__constant__), three
//    float planes stored;
//  - burst_align_l1: HDR+-style burst alignment at the finest pyramid level, a block (128
//    threads) a 16 x 16 tile (tiles overlapping by half) of one alternate frame: the reference
//    tile and a 24 x 24 search window placed by the coarser level's displacement (a short2
//    gather; clamped at the frame's edges) staged in shared int arrays, a barrier; 81 threads
//    each the L1 distance of one displacement (a template over the tile and radius, 256 |a -
//    b| a thread, unrolled; the window read at per-lane offsets: 2-way bank conflicts, the
//    reference broadcast), the minimum (cost, index) packed in 64 bits by __shfl_down_sync,
//    warp minima in shared memory, a barrier; thread 0 fits parabolas through the 3 x 3 costs
//    around the minimum (float divides) for the subpixel displacement, a 16-byte struct store;
//  - mertens_weights: exposure fusion (Mertens et al.) weight maps of an 8-bit RGBA exposure
//    bracket, a 32 x 8 block a tile: per exposure the grey tile with a 1-pixel halo in shared
//    memory (two barriers an exposure), the contrast |Laplacian|, the saturation (an integer
//    variance, sqrtf), the well-exposedness from a __constant__ table indexed by each channel's
//    byte (per-lane addresses: serialised), powf by the weights' exponents (__constant__
//    struct); each weight stored and summed, then re-read and normalised (a read-after-write
//    of global memory by the same thread);
//  - bilateral_grid_splat: building a bilateral grid (Chen, Paris & Durand) of HDR video frames'
//    log luminance for local tone mapping, a 32 x 8 block a 32 x 32 tile: log2f of each pixel,
//    its trilinear splat into the 3 x 3 x 33 cells the tile touches (16-pixel cells, half-stop
//    range cells) by 16 shared float atomicAdd a pixel (a warp's 32 pixels on 2 spatial cells
//    and a few range cells: heavily contended), a barrier, the nonzero cells flushed into the
//    frame's grid by global float atomicAdd (cells on a tile's edge shared with its neighbours);
//  - clahe_tile_lut: contrast-limited adaptive histogram equalisation of 8-bit luma video
//    frames, a block (256 threads) a 252 x 252 tile: uchar4 loads (62 a thread, 252-byte row
//    runs), a 256-bin histogram by shared int atomicAdd (hot bins in the sky and the shadows),
//    a barrier; then a thread a bin: the histogram clipped at the limit and the excess
//    redistributed over the bins under it, pass after pass until nothing exceeds it (a
//    data-dependent loop: the excess by __shfl_xor_sync, the bins under the limit and their
//    ranks by __ballot_sync / __popc, 2 barriers a pass); the CDF by a __shfl_up_sync scan and
//    warp offsets, the tile's 256-byte mapping stored.

#define FULL_MASK 0xffffffffu

#define LSC_W 17                // lsc_wb_raw: the lens-shading map's grid points across ...
#define LSC_H 13                // ... and down (Android's 17 x 13)
#define LSC_BX 64               // photosites a block across (blockDim.x = 32, two a thread)
#define LSC_ROWS 6              // rows a thread (blockDim.y = 8 apart): 48 rows a block

#define DM_T 32                 // demosaic_ha_ccm: an output tile's side (blockDim (32, 8))
#define DM_R 3                  // the raw tile's halo
#define DM_RW (DM_T + 2 * DM_R) // 38: the raw tile's side
#define DM_GW (DM_T + 2)        // 34: the green tile's side (a 1-pixel halo)

#define AL_TS 16                // burst_align_l1: a tile's side
#define AL_STRIDE 8             // tiles overlap by half
#define AL_R 4                  // the search radius (pixels)
#define AL_SW (AL_TS + 2 * AL_R)                    // 24: the search window's side
#define AL_ND (2 * AL_R + 1)                        // 9 displacements a side
#define AL_NC (AL_ND * AL_ND)                       // 81 displacements
#define AL_MAXW 8                                   // warps a block, at most

#define FU_TX 32                // mertens_weights: a block's tile (blockDim (FU_TX, FU_TY))
#define FU_TY 8

#define BG_SS 16                // bilateral_grid_splat: pixels a spatial cell
#define BG_T 32                 // a block's tile side (blockDim (32, 8): 4 rows a thread)
#define BG_NZ 33                // range cells (32 half-stop bins: 16 stops)
#define BG_LC 3                 // spatial cells a tile's splat touches along a side
#define BG_NCELL (BG_LC * BG_LC * BG_NZ)

#define CL_TW 252               // clahe_tile_lut: a tile's width and height (4032 x 3024: 16 x 12 tiles)
#define CL_TH 252
#define CL_BINS 256             // == blockDim.x
#define CL_MAXIT 16             // redistribution passes, at most

// the raw front end's set-up
struct RawConfig {
    float black[4];     // black level per CFA channel (R, Gr, Gb, B), counts
    float wb[4];        // white-balance gains (green 1)
    float white;        // the sensor's saturation (counts)
    float gx_scale;     // lens-shading grid cells a pixel: (LSC_W - 1) / (w - 1)
    float gy_scale;     // (LSC_H - 1) / (h - 1)
    float pad;
};

// a tile's alignment: its displacement into the alternate frame (pixels), the L1 distance at
// the best integer displacement, and flags (1: the minimum on the window's left or right edge,
// 2: on its top or bottom; no subpixel fit along that axis)
struct TileMotion {
    float dx, dy;
    int cost;
    int edge;
};

// exposure fusion's exponents (contrast, saturation, well-exposedness) and the weights' floor
struct FusionParams {
    float wc, ws, we;
    float eps;
};

// the bilateral grid's range axis: log2 luminance of range cell 0, cells a stop
struct GridParams {
    float lmin;
    float inv_sr;
};

__constant__ float c_lsc[4][LSC_H][LSC_W];     // lens-shading gains a CFA channel (set by the host)
__constant__ RawConfig c_raw;
__constant__ float c_ccm[9];                    // camera RGB -> linear sRGB, row-major
__constant__ float c_wexp[256];                 // well-exposedness of a byte: exp(-(v / 255 - 0.5)^2 / 0.08)
__constant__ FusionParams c_fu;
__constant__ GridParams c_bg;

// ---------------------------------------------------------------- helpers

// the lens-shading gain of CFA channel ch at photosite (x, y), bilinear in the map
__device__ float lsc_gain(int ch, int x, int y) {
    float gx = (float)x * c_raw.gx_scale;
    float gy = (float)y * c_raw.gy_scale;
    int ix = min((int)gx, LSC_W - 2);
    int iy = min((int)gy, LSC_H - 2);
    float fx = gx - (float)ix, fy = gy - (float)iy;
    float g00 = c_lsc[ch][iy][ix], g01 = c_lsc[ch][iy][ix + 1];
    float g10 = c_lsc[ch][iy + 1][ix], g11 = c_lsc[ch][iy + 1][ix + 1];
    float top = g00 + fx * (g01 - g00);
    float bot = g10 + fx * (g11 - g10);
    return top + fy * (bot - top);
}

// reflect-101 (keeps a Bayer mosaic's phase): -1 -> 1, n -> n - 2
__device__ int reflect101(int i, int n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * n - 2 - i;
    return i;
}

// the L1 distance between a TS x TS reference tile and the window's tile at (dx, dy)
template <int TS, int R>
__device__ int tile_sad(const int *ref, const int *win, int dx, int dy) {
    const int SW = TS + 2 * R;
    int s = 0;
    for (int y = 0; y < TS; y++) {
        const int *a = ref + y * TS;
        const int *b = win + (y + dy) * SW + dx;
#pragma unroll
        for (int x = 0; x < TS; x++) s += abs(a[x] - b[x]);
    }
    return s;
}

extern "C" {

// ---------------------------------------------------------------- lsc_wb_raw

// raw: nf frames of h x w RGGB photosites (uint16, w even); out[f][y][x] = clamp((raw -
// black) / (white - black) * wb * gain, 0, 1), saturated photosites 1; clip[f][ch] += the
// saturated photosites, sums[f][ch] += the others' values; grid (w / 64, h / 48, nf)
__global__ void lsc_wb_raw(const unsigned short *raw, int w, int h, float *out, unsigned int *clip, double *sums) {
    __shared__ float s_sum[8][2];
    __shared__ unsigned int s_clip[8][2];
    int f = blockIdx.z;
    int x = blockIdx.x * LSC_BX + 2 * threadIdx.x;
    int lane = threadIdx.x, wy = threadIdx.y;
    int ch0 = (threadIdx.y & 1) * 2;                   // a warp's rows have one parity: R Gr or Gb B
    int ch1 = ch0 + 1;
    const unsigned short *src = raw + (size_t)f * h * w;
    float *dst = out + (size_t)f * h * w;
    float sc0 = c_raw.wb[ch0] / (c_raw.white - c_raw.black[ch0]);
    float sc1 = c_raw.wb[ch1] / (c_raw.white - c_raw.black[ch1]);
    float acc0 = 0.0f, acc1 = 0.0f;
    unsigned int n0 = 0, n1 = 0;
    for (int r = 0; r < LSC_ROWS; r++) {
        int y = (blockIdx.y * LSC_ROWS + r) * blockDim.y + threadIdx.y;
        bool sat0 = false, sat1 = false;
        if (x < w && y < h) {
            ushort2 p = *reinterpret_cast<const ushort2 *>(src + (size_t)y * w + x);
            float r0 = (float)p.x, r1 = (float)p.y;
            sat0 = r0 >= c_raw.white;
            sat1 = r1 >= c_raw.white;
            float v0 = (r0 - c_raw.black[ch0]) * sc0 * lsc_gain(ch0, x, y);
            float v1 = (r1 - c_raw.black[ch1]) * sc1 * lsc_gain(ch1, x + 1, y);
            v0 = sat0 ? 1.0f : fminf(fmaxf(v0, 0.0f), 1.0f);
            v1 = sat1 ? 1.0f : fminf(fmaxf(v1, 0.0f), 1.0f);
            if (!sat0) acc0 += v0;
            if (!sat1) acc1 += v1;
            *reinterpret_cast<float2 *>(dst + (size_t)y * w + x) = make_float2(v0, v1);
        }
        n0 += __popc(__ballot_sync(FULL_MASK, sat0));
        n1 += __popc(__ballot_sync(FULL_MASK, sat1));
    }
    for (int o = 16; o > 0; o >>= 1) {
        acc0 += __shfl_down_sync(FULL_MASK, acc0, o);
        acc1 += __shfl_down_sync(FULL_MASK, acc1, o);
    }
    if (lane == 0) {
        s_sum[wy][0] = acc0;
        s_sum[wy][1] = acc1;
        s_clip[wy][0] = n0;
        s_clip[wy][1] = n1;
    }
    __syncthreads();
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    if (tid < 4) {
        int par = tid >> 1, k = tid & 1;
        double s = 0.0;
        unsigned int nc = 0;
        for (int q = par; q < blockDim.y; q += 2) {
            s += (double)s_sum[q][k];
            nc += s_clip[q][k];
        }
        atomicAdd(&sums[f * 4 + tid], s);
        if (nc > 0) atomicAdd(&clip[f * 4 + tid], nc);
    }
}

// ---------------------------------------------------------------- demosaic_ha_ccm

// bayer: nf frames of h x w normalised RGGB floats; rgb: nf frames of 3 planes (R, G, B) of
// h x w linear sRGB: green by Hamilton-Adams, red and blue by bilinear colour differences,
// then c_ccm; grid (ceil(w / 32), ceil(h / 32), nf), blockDim (32, 8)
__global__ void demosaic_ha_ccm(const float *bayer, int w, int h, float *rgb) {
    __shared__ float s_raw[DM_RW][DM_RW];
    __shared__ float s_g[DM_GW][DM_GW];
    int f = blockIdx.z;
    int x0 = blockIdx.x * DM_T, y0 = blockIdx.y * DM_T;
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    int nt = blockDim.x * blockDim.y;
    const float *src = bayer + (size_t)f * h * w;
    for (int i = tid; i < DM_RW * DM_RW; i += nt) {
        int ly = i / DM_RW, lx = i - ly * DM_RW;
        int gy = reflect101(y0 - DM_R + ly, h), gx = reflect101(x0 - DM_R + lx, w);
        s_raw[ly][lx] = src[(size_t)gy * w + gx];
    }
    __syncthreads();
    // green at the tile and a 1-pixel halo: s_g[ly][lx] is photosite (x0 - 1 + lx, y0 - 1 + ly)
    for (int i = tid; i < DM_GW * DM_GW; i += nt) {
        int ly = i / DM_GW, lx = i - ly * DM_GW;
        int ry = ly + DM_R - 1, rx = lx + DM_R - 1;
        int gy = y0 - 1 + ly, gx = x0 - 1 + lx;
        float c = s_raw[ry][rx];
        float g;
        if (((gx + gy) & 1) != 0) {
            g = c;                                          // a green photosite
        } else {
            float gl = s_raw[ry][rx - 1], gr = s_raw[ry][rx + 1];
            float gu = s_raw[ry - 1][rx], gd = s_raw[ry + 1][rx];
            float lh = 2.0f * c - s_raw[ry][rx - 2] - s_raw[ry][rx + 2];
            float lv = 2.0f * c - s_raw[ry - 2][rx] - s_raw[ry + 2][rx];
            float dh = fabsf(gl - gr) + fabsf(lh);
            float dv = fabsf(gu - gd) + fabsf(lv);
            float gh = 0.5f * (gl + gr) + 0.25f * lh;
            float gv = 0.5f * (gu + gd) + 0.25f * lv;
            if (dh < dv) g = gh;
            else if (dv < dh) g = gv;
            else g = 0.5f * (gh + gv);
            g = fminf(fmaxf(g, 0.0f), 1.0f);
        }
        s_g[ly][lx] = g;
    }
    __syncthreads();
    size_t plane = (size_t)h * w;
    float *R = rgb + (size_t)f * 3 * plane;
    float *G = R + plane;
    float *B = G + plane;
    int lx = threadIdx.x;
    int gx = x0 + lx;
    for (int ly = threadIdx.y; ly < DM_T; ly += blockDim.y) {
        int gy = y0 + ly;
        if (gx >= w || gy >= h) continue;
        int ry = ly + DM_R, rx = lx + DM_R;
        int qy = ly + 1, qx = lx + 1;
        float c = s_raw[ry][rx], g = s_g[qy][qx];
        float r, b;
        int phase = ((gy & 1) << 1) | (gx & 1);
        if (phase == 0) {                                   // red: blue from the diagonals
            r = c;
            b = g + 0.25f * ((s_raw[ry - 1][rx - 1] - s_g[qy - 1][qx - 1]) + (s_raw[ry - 1][rx + 1] - s_g[qy - 1][qx + 1]) +
                             (s_raw[ry + 1][rx - 1] - s_g[qy + 1][qx - 1]) + (s_raw[ry + 1][rx + 1] - s_g[qy + 1][qx + 1]));
        } else if (phase == 3) {                            // blue: red from the diagonals
            b = c;
            r = g + 0.25f * ((s_raw[ry - 1][rx - 1] - s_g[qy - 1][qx - 1]) + (s_raw[ry - 1][rx + 1] - s_g[qy - 1][qx + 1]) +
                             (s_raw[ry + 1][rx - 1] - s_g[qy + 1][qx - 1]) + (s_raw[ry + 1][rx + 1] - s_g[qy + 1][qx + 1]));
        } else if (phase == 1) {                            // green in a red row
            r = g + 0.5f * ((s_raw[ry][rx - 1] - s_g[qy][qx - 1]) + (s_raw[ry][rx + 1] - s_g[qy][qx + 1]));
            b = g + 0.5f * ((s_raw[ry - 1][rx] - s_g[qy - 1][qx]) + (s_raw[ry + 1][rx] - s_g[qy + 1][qx]));
        } else {                                            // green in a blue row
            b = g + 0.5f * ((s_raw[ry][rx - 1] - s_g[qy][qx - 1]) + (s_raw[ry][rx + 1] - s_g[qy][qx + 1]));
            r = g + 0.5f * ((s_raw[ry - 1][rx] - s_g[qy - 1][qx]) + (s_raw[ry + 1][rx] - s_g[qy + 1][qx]));
        }
        size_t o = (size_t)gy * w + gx;
        R[o] = c_ccm[0] * r + c_ccm[1] * g + c_ccm[2] * b;
        G[o] = c_ccm[3] * r + c_ccm[4] * g + c_ccm[5] * b;
        B[o] = c_ccm[6] * r + c_ccm[7] * g + c_ccm[8] * b;
    }
}

// ---------------------------------------------------------------- burst_align_l1

// ref: the reference frame (h x w uint16 grey: 2 x 2-binned raw); alt: nf alternate frames;
// coarse[f][ty][tx]: the coarser level's displacement (short2, pixels); out[f][ty][tx]: tile
// (tx, ty) at (tx * AL_STRIDE, ty * AL_STRIDE) displaced by coarse + the best of the 81
// displacements in [-AL_R, AL_R]^2 by L1 (ties: the first in row-major order) + a subpixel
// parabola fit; grid (ntx, nty, nf), blockDim.x a multiple of 32, at most 256
__global__ void burst_align_l1(const unsigned short *ref, const unsigned short *alt, const short2 *coarse,
                               int w, int h, int ntx, int nty, TileMotion *out) {
    __shared__ int s_ref[AL_TS * AL_TS];
    __shared__ int s_win[AL_SW * AL_SW];
    __shared__ int s_cost[AL_NC];
    __shared__ unsigned long long s_best[AL_MAXW];
    int f = blockIdx.z;
    size_t t = ((size_t)f * nty + blockIdx.y) * ntx + blockIdx.x;
    short2 c0 = coarse[t];
    int tx0 = blockIdx.x * AL_STRIDE, ty0 = blockIdx.y * AL_STRIDE;
    int wx0 = tx0 + c0.x - AL_R, wy0 = ty0 + c0.y - AL_R;
    const unsigned short *A = alt + (size_t)f * h * w;
    for (int i = threadIdx.x; i < AL_TS * AL_TS; i += blockDim.x) {
        int y = i / AL_TS, x = i % AL_TS;
        s_ref[i] = ref[(size_t)(ty0 + y) * w + tx0 + x];
    }
    for (int i = threadIdx.x; i < AL_SW * AL_SW; i += blockDim.x) {
        int y = i / AL_SW, x = i % AL_SW;
        int gy = min(max(wy0 + y, 0), h - 1), gx = min(max(wx0 + x, 0), w - 1);
        s_win[i] = A[(size_t)gy * w + gx];
    }
    __syncthreads();
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    unsigned long long best = 0xffffffffffffffffull;
    for (int c = threadIdx.x; c < AL_NC; c += blockDim.x) {
        int dy = c / AL_ND, dx = c - dy * AL_ND;
        int s = tile_sad<AL_TS, AL_R>(s_ref, s_win, dx, dy);
        s_cost[c] = s;
        unsigned long long key = ((unsigned long long)(unsigned int)s << 32) | (unsigned int)c;
        if (key < best) best = key;
    }
    for (int o = 16; o > 0; o >>= 1) {
        unsigned long long v = __shfl_down_sync(FULL_MASK, best, o);
        if (v < best) best = v;
    }
    if (lane == 0) s_best[wid] = best;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long b = s_best[0];
        for (int k = 1; k < (int)(blockDim.x >> 5); k++)
            if (s_best[k] < b) b = s_best[k];
        int c = (int)(b & 0xffffffffull);
        int by = c / AL_ND, bx = c - by * AL_ND;
        float m = (float)s_cost[c];
        float sx = 0.0f, sy = 0.0f;
        int edge = 0;
        if (bx > 0 && bx < AL_ND - 1) {
            float l = (float)s_cost[c - 1], r = (float)s_cost[c + 1];
            float den = l - 2.0f * m + r;
            if (den > 0.0f) sx = 0.5f * (l - r) / den;
        } else {
            edge |= 1;
        }
        if (by > 0 && by < AL_ND - 1) {
            float u = (float)s_cost[c - AL_ND], d = (float)s_cost[c + AL_ND];
            float den = u - 2.0f * m + d;
            if (den > 0.0f) sy = 0.5f * (u - d) / den;
        } else {
            edge |= 2;
        }
        TileMotion tm;
        tm.dx = (float)(c0.x + bx - AL_R) + sx;
        tm.dy = (float)(c0.y + by - AL_R) + sy;
        tm.cost = (int)(b >> 32);
        tm.edge = edge;
        out[t] = tm;
    }
}

// ---------------------------------------------------------------- mertens_weights

// imgs: ne exposures of h x w RGBA8 (sRGB); wgt[e][y][x] = W_e / sum_e W_e, W_e =
// C^wc S^ws E^we + eps: C = |4-neighbour Laplacian| of the grey (R + G + B) / 765 (edges
// replicated), S = the RGB's standard deviation (in 1 / 255), E = c_wexp[R] c_wexp[G]
// c_wexp[B]; grid (ceil(w / FU_TX), ceil(h / FU_TY)), blockDim (FU_TX, FU_TY)
__global__ void mertens_weights(const uchar4 *imgs, int ne, int w, int h, float *wgt) {
    __shared__ float s_l[FU_TY + 2][FU_TX + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * FU_TX + tx;
    int x = blockIdx.x * FU_TX + tx, y = blockIdx.y * FU_TY + ty;
    bool in = x < w && y < h;
    size_t plane = (size_t)w * h;
    size_t p = (size_t)y * w + x;
    float sum = 0.0f;
    for (int e = 0; e < ne; e++) {
        const uchar4 *im = imgs + e * plane;
        for (int i = tid; i < (FU_TY + 2) * (FU_TX + 2); i += FU_TX * FU_TY) {
            int ly = i / (FU_TX + 2), lx = i - ly * (FU_TX + 2);
            int gy = min(max((int)(blockIdx.y * FU_TY) + ly - 1, 0), h - 1);
            int gx = min(max((int)(blockIdx.x * FU_TX) + lx - 1, 0), w - 1);
            uchar4 q = im[(size_t)gy * w + gx];
            s_l[ly][lx] = (float)((int)q.x + (int)q.y + (int)q.z) * (1.0f / 765.0f);
        }
        __syncthreads();
        if (in) {
            uchar4 q = im[p];
            float lap = s_l[ty][tx + 1] + s_l[ty + 2][tx + 1] + s_l[ty + 1][tx] + s_l[ty + 1][tx + 2] -
                        4.0f * s_l[ty + 1][tx + 1];
            float C = fabsf(lap);
            int sm = (int)q.x + (int)q.y + (int)q.z;
            int dr = 3 * (int)q.x - sm, dg = 3 * (int)q.y - sm, db = 3 * (int)q.z - sm;
            float S = sqrtf((float)(dr * dr + dg * dg + db * db)) * (1.0f / (255.0f * 5.19615242f));
            float E = c_wexp[q.x] * c_wexp[q.y] * c_wexp[q.z];
            float W = powf(C, c_fu.wc) * powf(S, c_fu.ws) * powf(E, c_fu.we) + c_fu.eps;
            wgt[e * plane + p] = W;
            sum += W;
        }
        __syncthreads();
    }
    if (in) {
        float inv = 1.0f / sum;
        for (int e = 0; e < ne; e++) wgt[e * plane + p] *= inv;
    }
}

// ---------------------------------------------------------------- bilateral_grid_splat

// lum: nf frames of h x w linear luminance; grid[f][cy][cx][cz] (float2: sum of weight *
// log2 L, sum of weight), gx x gy spatial cells (gx >= (w - 1) / 16 + 2, gy >= (h - 1) / 16 + 2), BG_NZ
// range cells: a pixel's (x / 16, y / 16, clamp((log2 max(L, 2^-20) - lmin) inv_sr, 0,
// BG_NZ - 1)) splatted trilinearly; grid (ceil(w / 32), ceil(h / 32), nf), blockDim (32, 8)
__global__ void bilateral_grid_splat(const float *lum, int w, int h, int gx, int gy, float *grid) {
    __shared__ float s_v[BG_NCELL];
    __shared__ float s_w[BG_NCELL];
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    int nt = blockDim.x * blockDim.y;
    for (int k = tid; k < BG_NCELL; k += nt) {
        s_v[k] = 0.0f;
        s_w[k] = 0.0f;
    }
    __syncthreads();
    int f = blockIdx.z;
    int x = blockIdx.x * BG_T + threadIdx.x;
    int cx0 = blockIdx.x * (BG_T / BG_SS), cy0 = blockIdx.y * (BG_T / BG_SS);
    const float *src = lum + (size_t)f * h * w;
    for (int r = threadIdx.y; r < BG_T; r += blockDim.y) {
        int y = blockIdx.y * BG_T + r;
        if (x >= w || y >= h) continue;
        float L = src[(size_t)y * w + x];
        float l2 = log2f(fmaxf(L, 9.5367431640625e-07f));
        float gz = (l2 - c_bg.lmin) * c_bg.inv_sr;
        gz = fminf(fmaxf(gz, 0.0f), (float)(BG_NZ - 1));
        int iz = min((int)gz, BG_NZ - 2);
        float fz = gz - (float)iz;
        int ix = x / BG_SS, iy = y / BG_SS;
        float fx = (float)(x - ix * BG_SS) * (1.0f / BG_SS);
        float fy = (float)(y - iy * BG_SS) * (1.0f / BG_SS);
        int base = ((iy - cy0) * BG_LC + (ix - cx0)) * BG_NZ + iz;
#pragma unroll
        for (int dy = 0; dy < 2; dy++) {
#pragma unroll
            for (int dx = 0; dx < 2; dx++) {
                float wxy = (dx ? fx : 1.0f - fx) * (dy ? fy : 1.0f - fy);
#pragma unroll
                for (int dz = 0; dz < 2; dz++) {
                    float wt = wxy * (dz ? fz : 1.0f - fz);
                    int k = base + (dy * BG_LC + dx) * BG_NZ + dz;
                    atomicAdd(&s_v[k], wt * l2);
                    atomicAdd(&s_w[k], wt);
                }
            }
        }
    }
    __syncthreads();
    float *G = grid + (size_t)f * gy * gx * BG_NZ * 2;
    for (int k = tid; k < BG_NCELL; k += nt) {
        float wv = s_w[k];
        if (wv != 0.0f) {
            int cz = k % BG_NZ, c = k / BG_NZ;
            int cx = cx0 + c % BG_LC, cy = cy0 + c / BG_LC;
            if (cx < gx && cy < gy) {
                size_t g = (((size_t)cy * gx + cx) * BG_NZ + cz) * 2;
                atomicAdd(&G[g], s_v[k]);
                atomicAdd(&G[g + 1], wv);
            }
        }
    }
}

// ---------------------------------------------------------------- clahe_tile_lut

// y8: nf frames of h x w luma bytes (w a multiple of 4, the frame a whole number of tiles);
// a block a CL_TW x CL_TH tile (blockIdx.x, .y; frame .z), 256 threads: its histogram
// clipped at limit, the excess spread evenly over the bins under the limit (the remainder
// one each to the lowest ones) until none is over it (at most CL_MAXIT passes), then
// lut[f][ty][tx][v] = (255 cdf(v) + N / 2) / N (N the clipped histogram's total);
// passes[f][ty][tx] the passes taken
__global__ void clahe_tile_lut(const unsigned char *y8, int w, int h, int limit, unsigned char *lut, int *passes) {
    __shared__ int s_hist[CL_BINS];
    __shared__ int s_ex[8];
    __shared__ int s_nb[8];
    int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;
    s_hist[tid] = 0;
    __syncthreads();
    int f = blockIdx.z;
    int w4 = w / 4;
    const uchar4 *src = reinterpret_cast<const uchar4 *>(y8 + (size_t)f * h * w);
    int c0 = blockIdx.x * (CL_TW / 4), r0 = blockIdx.y * CL_TH;
    for (int i = tid; i < CL_TH * (CL_TW / 4); i += blockDim.x) {
        int r = i / (CL_TW / 4), c = i - r * (CL_TW / 4);
        uchar4 q = src[(size_t)(r0 + r) * w4 + c0 + c];
        atomicAdd(&s_hist[q.x], 1);
        atomicAdd(&s_hist[q.y], 1);
        atomicAdd(&s_hist[q.z], 1);
        atomicAdd(&s_hist[q.w], 1);
    }
    __syncthreads();
    int hv = s_hist[tid];
    int it = 0;
    while (it < CL_MAXIT) {
        int ex = max(hv - limit, 0);
        hv -= ex;
        for (int o = 16; o > 0; o >>= 1) ex += __shfl_xor_sync(FULL_MASK, ex, o);
        unsigned int below = __ballot_sync(FULL_MASK, hv < limit);
        if (lane == 0) {
            s_ex[wid] = ex;
            s_nb[wid] = __popc(below);
        }
        __syncthreads();
        int E = 0, NB = 0, before = 0;
        for (int k = 0; k < 8; k++) {
            E += s_ex[k];
            NB += s_nb[k];
            if (k < wid) before += s_nb[k];
        }
        __syncthreads();
        if (E == 0 || NB == 0) break;
        it++;
        if (hv < limit) {
            int rank = before + __popc(below & ((1u << lane) - 1u));
            hv += E / NB + (rank < E % NB ? 1 : 0);
        }
    }
    int v = hv;
    for (int o = 1; o < 32; o <<= 1) {
        int u = __shfl_up_sync(FULL_MASK, v, o);
        if (lane >= o) v += u;
    }
    if (lane == 31) s_ex[wid] = v;
    __syncthreads();
    int off = 0, tot = 0;
    for (int k = 0; k < 8; k++) {
        if (k < wid) off += s_ex[k];
        tot += s_ex[k];
    }
    v += off;
    size_t tile = ((size_t)f * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    lut[tile * CL_BINS + tid] = (unsigned char)((v * 255 + tot / 2) / tot);
    if (tid == 0) passes[tile] = it;
}

}  // extern "C"
