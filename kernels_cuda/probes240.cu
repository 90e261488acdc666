// probe-unseen238: a digital-typography / font-rendering course's CUDA assignments, as a
// student who knows CUDA basics hands them in (a geometric sans-serif "variable font" of
// TrueType-style quadratic Bezier outlines, 2048 units per em, laid out into pages, books,
// screens and a signed-distance-field atlas):
//  - flatten_quads: the outlines' quadratic Beziers flattened into line segments, a thread a
//    curve: the curve's 24-byte Quad struct, its segment count from its flatness (the
//    chord's distance |p0 - 2c + p1| / 4 over the tolerance: two sqrtf, ceilf, clamped to
//    MAX_SUB), the warp's counts scanned by __shfl_up_sync, one atomicAdd a warp on the
//    global segment counter (lane 31) and the base broadcast by __shfl_sync, then each
//    thread evaluates its curve at k uniform t (a divide, Bernstein weights) and stores k
//    float4 segments (a run a thread: scattered across a warp) and its first index;
//  - sdf_glyph_tiles: a glyph atlas's signed distance fields, a block a 64 x 64 cell (256
//    threads, 16 texels a thread in registers, #pragma unroll): the glyph's flattened
//    segments (CSR) staged through shared memory in chunks of SEG_CHUNK float4 (barriers),
//    every texel against every segment (a broadcast shared load, the clamped projection:
//    a divide a segment, the squared distance's minimum) and the nonzero winding number by
//    the crossings of a ray to +x (a divide where a row crosses: warp-uniform rows), then
//    sqrtf, the sign from the winding and an 8-bit store (spread px -> 0..255);
//  - coverage_accumulate: font-rs's exact-area coverage accumulation of a page's
//    flattened outlines, a thread a line segment: a float divide for dx/dy, a loop over the
//    rows it crosses (trip counts from 1 to hundreds: divergent), floorf / ceilf of its
//    span in the row and the signed area deposited by float atomicAdd into the
//    accumulation buffer (2 to a row's width of cells a row: contended where contours meet);
//  - coverage_resolve: the accumulation buffer's rows prefix-summed into 8-bit coverage, a
//    block a row (256 threads, a float4 of 4 cells a thread a 1024-cell chunk): a serial
//    scan of the 4, a Blelloch up-sweep / down-sweep over the 256 thread totals in shared
//    memory (unpadded: bank conflicts; 16 barriers a chunk), the carry in a register,
//    min(|a|, 1) -> a uchar4 store; the row's ink (sum of coverage) by a shared tree
//    reduction and one double atomicAdd a block onto its page's total;
//  - lcd_filter_blend: subpixel (LCD) text rendering, a thread an RGB pixel of a screen: the
//    3x horizontally oversampled 8-bit coverage staged in a shared tile with a 2-subpixel
//    halo (byte loads, coalesced), FreeType's 5-tap FIR filter (__constant__ weights, a
//    template with #pragma unroll) for R, G and B, a warp with no ink (__ballot_sync == 0)
//    copies its background, the others blend the text colour in linear light through two
//    __constant__ tables (sRGB -> 16-bit linear, 12-bit linear -> sRGB: per-lane addresses,
//    serialised) with an integer divide by 255, uchar4 loads and stores;
//  - hint_glyph_runs: hinting and placing a book's glyph runs, a warp a glyph instance (a
//    20-byte GlyphRun struct, one address a warp): the size's 16.16 scale (a 64-bit
//    divide), the __constant__ blue zones (descender, baseline, x-height, ascender: struct
//    table) scaled by FreeType's FT_MulFix (64-bit multiply, round half away from zero) and
//    snapped to the pixel grid, then the lanes stride over the glyph's int16 short2 points:
//    points in a zone snapped (overshoots suppressed under half a pixel), the others
//    interpolated between the snapped zones (a 64-bit divide), x scaled, all placed at the
//    pen (26.6 fixed point), an int2 store a point, and the instance's control box by
//    __shfl_xor_sync min / max, an int4 from lane 0.

#define FULL_MASK 0xffffffffu

#define MAX_SUB 16              // flatten_quads: segments a curve, at most
#define SDF_CELL 64             // sdf_glyph_tiles: texels a side of an atlas cell
#define SDF_THREADS 256         // sdf_glyph_tiles: blockDim.x
#define SDF_PER_THREAD 16       // texels a thread (SDF_CELL^2 / SDF_THREADS)
#define SEG_CHUNK 256           // segments staged in shared memory at a time (4 KB)
#define RES_THREADS 256         // coverage_resolve: blockDim.x ...
#define RES_CHUNK 1024          // ... cells a pass (a float4 a thread)
#define LCD_TW 64               // lcd_filter_blend: pixels a tile row (blockDim.x)
#define LCD_TH 4                // rows a tile (blockDim.y)
#define LCD_TAPS 5              // FreeType's default LCD filter
#define LCD_HALO 2              // subpixels each side (LCD_TAPS / 2)
#define NZONES 4                // hint_glyph_runs: blue zones

// a TrueType quadratic Bezier: on-curve p0, off-curve control c, on-curve p1
struct Quad {
    float2 p0, c, p1;
};

// a blue zone, in font units: its reference height and its overshoot's
struct BlueZone {
    int ref, shoot;
};

// a glyph instance of a laid-out text
struct GlyphRun {
    int glyph;      // index into the glyph table
    int first;      // its first point in the output
    int pen_x;      // the pen position, 26.6 (x subpixel, y on a whole pixel)
    int pen_y;
    int ppem;       // its size, pixels an em
};

// lcd_filter_blend: FreeType's FT_LCD_FILTER_DEFAULT (sums to 256)
__constant__ int c_fir[LCD_TAPS] = {0x08, 0x4D, 0x56, 0x4D, 0x08};
// lcd_filter_blend: sRGB -> linear (0..65535), linear >> 4 -> sRGB (set by the host)
__constant__ unsigned short c_lin[256];
__constant__ unsigned char c_srgb[4096];
// hint_glyph_runs: the font's blue zones, ascending (set by the host)
__constant__ BlueZone c_zones[NZONES];

// ---------------------------------------------------------------- helpers

// FreeType's FT_MulFix: a * b / 65536, rounded half away from zero
__device__ int mulfix(int a, int b) {
    long long p = (long long)a * (long long)b;
    long long m = p < 0 ? -p : p;
    int c = (int)((m + 0x8000) >> 16);
    return p < 0 ? -c : c;
}

// the FIR filter over a shared row of subpixels, centred on i
template <int TAPS>
__device__ int lcd_fir(const unsigned char *s, int i) {
    int acc = 0;
#pragma unroll
    for (int t = 0; t < TAPS; t++) acc += c_fir[t] * (int)s[i + t - TAPS / 2];
    return (acc + 128) >> 8;
}

// one channel of the text colour over the background at coverage a (0..255), in linear light
__device__ unsigned char blend_linear(unsigned char bgc, unsigned char fgc, int a) {
    int lb = c_lin[bgc];
    int lf = c_lin[fgc];
    int v = (lf - lb) * a;
    int l = lb + (v >= 0 ? (v + 127) / 255 : (v - 127) / 255);
    return c_srgb[l >> 4];
}

extern "C" {

// ---------------------------------------------------------------- flatten_quads

// nq curves q (pixels); each into k = clamp(ceil(sqrt(|p0 - 2c + p1| / 4 / tol)), 1,
// MAX_SUB) segments (x0, y0, x1, y1) at t = j / k, stored from first[i] on (allocated by a
// warp-aggregated atomicAdd on *count); curves that would pass cap are left out (the host
// sees *count > cap)
__global__ void flatten_quads(const Quad *q, int nq, float tol, float4 *seg, int cap, int *count, int *first) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int k = 0;
    Quad a;
    if (i < nq) {
        a = q[i];
        float dx = a.p0.x - 2.0f * a.c.x + a.p1.x;
        float dy = a.p0.y - 2.0f * a.c.y + a.p1.y;
        float dev = 0.25f * sqrtf(dx * dx + dy * dy);      // the chord's distance to the curve, at most
        k = (int)ceilf(sqrtf(dev / tol));
        k = max(1, min(k, MAX_SUB));
    }
    // the warp's inclusive scan of the counts
    int incl = k;
    for (int o = 1; o < 32; o <<= 1) {
        int v = __shfl_up_sync(FULL_MASK, incl, o);
        if (lane >= o) incl += v;
    }
    int base = 0;
    if (lane == 31 && incl > 0) base = atomicAdd(count, incl);
    base = __shfl_sync(FULL_MASK, base, 31);
    if (i >= nq) return;
    int off = base + incl - k;
    first[i] = off;
    if (off + k > cap) return;
    float2 prev = a.p0;
    for (int j = 1; j <= k; j++) {
        float t = (float)j / (float)k;
        float s = 1.0f - t;
        float2 p;
        p.x = s * s * a.p0.x + 2.0f * s * t * a.c.x + t * t * a.p1.x;
        p.y = s * s * a.p0.y + 2.0f * s * t * a.c.y + t * t * a.p1.y;
        if (j == k) p = a.p1;                               // the end exact: contours stay closed
        seg[off + j - 1] = make_float4(prev.x, prev.y, p.x, p.y);
        prev = p;
    }
}

// ---------------------------------------------------------------- sdf_glyph_tiles

// glyph g's segments (cell pixels, y down) are seg[start[g] .. start[g+1]); its cell of
// SDF_CELL^2 texels (centres at +0.5) gets 255 clamp(0.5 + 0.5 sd / spread, 0, 1) rounded,
// sd the distance to the outline, positive inside (nonzero winding)
__global__ void sdf_glyph_tiles(const float4 *seg, const int *start, float spread, unsigned char *atlas) {
    __shared__ float4 s_seg[SEG_CHUNK];
    int g = blockIdx.x;
    int s0 = start[g], s1 = start[g + 1];
    float d2[SDF_PER_THREAD];
    int wind[SDF_PER_THREAD];
#pragma unroll
    for (int k = 0; k < SDF_PER_THREAD; k++) {
        d2[k] = 1e30f;
        wind[k] = 0;
    }
    float px = (float)(threadIdx.x % SDF_CELL) + 0.5f;
    float py0 = (float)(threadIdx.x / SDF_CELL) + 0.5f;
    const float rows = (float)(SDF_THREADS / SDF_CELL);      // texel k's row: py0 + 4 k
    for (int c = s0; c < s1; c += SEG_CHUNK) {
        int m = min(SEG_CHUNK, s1 - c);
        for (int j = threadIdx.x; j < m; j += blockDim.x) s_seg[j] = seg[c + j];
        __syncthreads();
        for (int j = 0; j < m; j++) {
            float4 e = s_seg[j];
            float ex = e.z - e.x, ey = e.w - e.y;
            float inv = 1.0f / fmaxf(ex * ex + ey * ey, 1e-12f);
            int dir = ey > 0.0f ? 1 : -1;
#pragma unroll
            for (int k = 0; k < SDF_PER_THREAD; k++) {
                float py = py0 + rows * (float)k;
                float wx = px - e.x, wy = py - e.y;
                float t = fminf(fmaxf((wx * ex + wy * ey) * inv, 0.0f), 1.0f);
                float qx = wx - t * ex, qy = wy - t * ey;
                d2[k] = fminf(d2[k], qx * qx + qy * qy);
                if ((e.y <= py) != (e.w <= py)) {            // the segment crosses the texel's row
                    float xc = e.x + (py - e.y) * ex / ey;
                    if (xc > px) wind[k] += dir;
                }
            }
        }
        __syncthreads();
    }
    unsigned char *cell = atlas + (size_t)g * SDF_CELL * SDF_CELL;
#pragma unroll
    for (int k = 0; k < SDF_PER_THREAD; k++) {
        float d = sqrtf(d2[k]);
        float sd = wind[k] != 0 ? d : -d;
        float v = fminf(fmaxf(0.5f + 0.5f * sd / spread, 0.0f), 1.0f);
        cell[threadIdx.x + k * SDF_THREADS] = (unsigned char)(v * 255.0f + 0.5f);
    }
}

// ---------------------------------------------------------------- coverage_accumulate

// font-rs: nseg line segments (x0, y0, x1, y1) in pixels (inside [0, W - 1) x [0, H)) add
// their signed area into acc (H rows of W floats); a row's prefix sum is then the
// coverage (nonzero winding: |.| clamped to 1)
__global__ void coverage_accumulate(const float4 *seg, int nseg, int W, int H, float *acc) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nseg) return;
    float4 e = seg[i];
    float x0 = e.x, y0 = e.y, x1 = e.z, y1 = e.w;
    if (fabsf(y0 - y1) <= 1.1920929e-7f) return;            // horizontal: no area
    float dir = 1.0f;
    if (y0 > y1) {
        float t = x0; x0 = x1; x1 = t;
        t = y0; y0 = y1; y1 = t;
        dir = -1.0f;
    }
    float dxdy = (x1 - x0) / (y1 - y0);
    float x = x0;
    if (y0 < 0.0f) x -= y0 * dxdy;
    int ystart = y0 < 0.0f ? 0 : (int)y0;
    int yend = min(H, (int)ceilf(y1));
    for (int y = ystart; y < yend; y++) {
        float *row = acc + (size_t)y * W;
        float dy = fminf((float)(y + 1), y1) - fmaxf((float)y, y0);
        float xnext = x + dxdy * dy;
        float d = dy * dir;
        float xa = fminf(x, xnext), xb = fmaxf(x, xnext);
        float xaf = floorf(xa);
        int xai = (int)xaf;
        float xbc = ceilf(xb);
        int xbi = (int)xbc;
        if (xbi <= xai + 1) {
            float xmf = 0.5f * (x + xnext) - xaf;
            atomicAdd(&row[xai], d - d * xmf);
            atomicAdd(&row[xai + 1], d * xmf);
        } else {
            float s = 1.0f / (xb - xa);
            float xf = xa - xaf;
            float a0 = 0.5f * s * (1.0f - xf) * (1.0f - xf);
            float xbf = xb - xbc + 1.0f;
            float am = 0.5f * s * xbf * xbf;
            atomicAdd(&row[xai], d * a0);
            if (xbi == xai + 2) {
                atomicAdd(&row[xai + 1], d * (1.0f - a0 - am));
            } else {
                float a1 = s * (1.5f - xf);
                atomicAdd(&row[xai + 1], d * (a1 - a0));
                for (int xi = xai + 2; xi < xbi - 1; xi++) atomicAdd(&row[xi], d * s);
                float a2 = a1 + (float)(xbi - xai - 3) * s;
                atomicAdd(&row[xbi - 1], d * (1.0f - a2 - am));
            }
            atomicAdd(&row[xbi], d * am);
        }
        x = xnext;
    }
}

// ---------------------------------------------------------------- coverage_resolve

// acc: pages of H rows of W floats (W a multiple of 4), a block a row: alpha = 255
// min(|prefix sum|, 1) rounded; ink[page] += the row's sum of min(|prefix sum|, 1)
__global__ void coverage_resolve(const float *acc, int W, int H, unsigned char *alpha, double *ink) {
    __shared__ float t[RES_THREADS];
    __shared__ float s_total;
    int tid = threadIdx.x;
    int y = blockIdx.x;
    const float4 *row = (const float4 *)(acc + (size_t)y * W);
    uchar4 *out = (uchar4 *)(alpha + (size_t)y * W);
    float carry = 0.0f;
    float mine = 0.0f;                                       // this thread's ink
    for (int c = 0; c < W; c += RES_CHUNK) {
        int q = c / 4 + tid;                                 // the thread's float4
        float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (4 * q < W) v = row[q];
        v.y += v.x;
        v.z += v.y;
        v.w += v.z;
        t[tid] = v.w;
        // Blelloch: up-sweep
        for (int d = 1; d < RES_THREADS; d <<= 1) {
            __syncthreads();
            int bi = (2 * tid + 2) * d - 1;
            if (bi < RES_THREADS) t[bi] += t[bi - d];
        }
        __syncthreads();
        if (tid == 0) {
            s_total = t[RES_THREADS - 1];
            t[RES_THREADS - 1] = 0.0f;
        }
        // down-sweep
        for (int d = RES_THREADS / 2; d >= 1; d >>= 1) {
            __syncthreads();
            int bi = (2 * tid + 2) * d - 1;
            if (bi < RES_THREADS) {
                float a = t[bi - d];
                t[bi - d] = t[bi];
                t[bi] += a;
            }
        }
        __syncthreads();
        float pre = carry + t[tid];
        float c0 = fminf(fabsf(pre + v.x), 1.0f);
        float c1 = fminf(fabsf(pre + v.y), 1.0f);
        float c2 = fminf(fabsf(pre + v.z), 1.0f);
        float c3 = fminf(fabsf(pre + v.w), 1.0f);
        if (4 * q < W) {
            mine += c0 + c1 + c2 + c3;
            out[q] = make_uchar4((unsigned char)(c0 * 255.0f + 0.5f), (unsigned char)(c1 * 255.0f + 0.5f),
                                 (unsigned char)(c2 * 255.0f + 0.5f), (unsigned char)(c3 * 255.0f + 0.5f));
        }
        carry += s_total;
    }
    // the row's ink: a shared tree
    __syncthreads();
    t[tid] = mine;
    __syncthreads();
    for (int s = RES_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) t[tid] += t[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(&ink[y / H], (double)t[0]);
}

// ---------------------------------------------------------------- lcd_filter_blend

// cov3: H rows of 3 W subpixel coverages (R, G, B of each pixel in turn); bg, out: H rows
// of W RGBA pixels; the text colour fg over bg through the LCD filter, in linear light
__global__ void lcd_filter_blend(const unsigned char *cov3, const uchar4 *bg, int W, int H, uchar4 fg,
                                 uchar4 *out) {
    __shared__ unsigned char s_cov[LCD_TH][3 * LCD_TW + 2 * LCD_HALO];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * LCD_TW + tx;
    int y = blockIdx.y * LCD_TH + ty;
    int sx0 = blockIdx.x * 3 * LCD_TW - LCD_HALO;            // the tile's first subpixel
    for (int j = tx; j < 3 * LCD_TW + 2 * LCD_HALO; j += LCD_TW) {
        int sx = sx0 + j;
        unsigned char v = 0;
        if (y < H && sx >= 0 && sx < 3 * W) v = cov3[(size_t)y * 3 * W + sx];
        s_cov[ty][j] = v;
    }
    __syncthreads();
    bool in = x < W && y < H;
    int r = lcd_fir<LCD_TAPS>(s_cov[ty], 3 * tx + LCD_HALO);
    int g = lcd_fir<LCD_TAPS>(s_cov[ty], 3 * tx + 1 + LCD_HALO);
    int b = lcd_fir<LCD_TAPS>(s_cov[ty], 3 * tx + 2 + LCD_HALO);
    bool ink = in && (r | g | b) != 0;
    unsigned int any = __ballot_sync(FULL_MASK, ink);
    if (!in) return;
    uchar4 p = bg[(size_t)y * W + x];
    if (any != 0 && ink) {
        p.x = blend_linear(p.x, fg.x, r);
        p.y = blend_linear(p.y, fg.y, g);
        p.z = blend_linear(p.z, fg.z, b);
    }
    out[(size_t)y * W + x] = p;
}

// ---------------------------------------------------------------- hint_glyph_runs

// a warp a run: the points of glyph runs[w].glyph (pts[gfirst[g] .. gfirst[g+1]), font
// units) scaled to runs[w].ppem, y fitted to the blue zones' pixel grid, placed at the pen
// (26.6, y down) into out[first ..]; bbox[w] = their (x min, y min, x max, y max)
__global__ void hint_glyph_runs(const GlyphRun *runs, int nruns, const short2 *pts, const int *gfirst, int upm,
                                int fuzz, int2 *out, int4 *bbox) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (w >= nruns) return;                                  // whole warps
    GlyphRun r = runs[w];
    int scale = (int)(((long long)r.ppem * 64 * 65536) / upm);   // 26.6 a font unit, 16.16
    int snap[NZONES];
    int keep_os[NZONES];
#pragma unroll
    for (int z = 0; z < NZONES; z++) {
        int rz = mulfix(c_zones[z].ref, scale);
        snap[z] = (rz + 32) & ~63;
        int o = mulfix(c_zones[z].shoot - c_zones[z].ref, scale);
        keep_os[z] = (o <= -32 || o >= 32);                  // overshoots under half a pixel suppressed
    }
    int p0 = gfirst[r.glyph];
    int np = gfirst[r.glyph + 1] - p0;
    int xmin = 0x7fffffff, ymin = 0x7fffffff, xmax = -0x7fffffff - 1, ymax = -0x7fffffff - 1;
    for (int j = lane; j < np; j += 32) {
        short2 p = pts[p0 + j];
        int fy = p.y;
        int y26 = 0;
        bool done = false;
#pragma unroll
        for (int z = 0; z < NZONES; z++) {
            int ref = c_zones[z].ref, sh = c_zones[z].shoot;
            int lo = min(ref, sh) - fuzz, hi = max(ref, sh) + fuzz;
            if (!done && fy >= lo && fy <= hi) {
                int d = mulfix(fy - ref, scale);
                y26 = snap[z] + (keep_os[z] ? ((d + 32) & ~63) : 0);
                done = true;
            }
        }
        if (!done) {
            if (fy < c_zones[0].ref) {
                y26 = snap[0] + mulfix(fy - c_zones[0].ref, scale);
            } else if (fy >= c_zones[NZONES - 1].ref) {
                y26 = snap[NZONES - 1] + mulfix(fy - c_zones[NZONES - 1].ref, scale);
            } else {
#pragma unroll
                for (int z = 0; z < NZONES - 1; z++) {
                    int ra = c_zones[z].ref, rb = c_zones[z + 1].ref;
                    if (fy >= ra && fy < rb)
                        y26 = snap[z] + (int)((long long)(fy - ra) * (snap[z + 1] - snap[z]) / (rb - ra));
                }
            }
        }
        int X = r.pen_x + mulfix(p.x, scale);
        int Y = r.pen_y - y26;
        out[r.first + j] = make_int2(X, Y);
        xmin = min(xmin, X);
        xmax = max(xmax, X);
        ymin = min(ymin, Y);
        ymax = max(ymax, Y);
    }
    for (int o = 16; o > 0; o >>= 1) {
        xmin = min(xmin, __shfl_xor_sync(FULL_MASK, xmin, o));
        ymin = min(ymin, __shfl_xor_sync(FULL_MASK, ymin, o));
        xmax = max(xmax, __shfl_xor_sync(FULL_MASK, xmax, o));
        ymax = max(ymax, __shfl_xor_sync(FULL_MASK, ymax, o));
    }
    if (lane == 0) bbox[w] = make_int4(xmin, ymin, xmax, ymax);
}

}
