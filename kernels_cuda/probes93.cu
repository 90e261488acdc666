// probe-unseen91: a video-coding course's CUDA assignments (an H.264/HEVC/JPEG encoder
// built piece by piece), as a student who knows CUDA basics hands them in:
//  - me_sad_fullsearch: block motion estimation, full search of the +-ME_R window for
//    each 8x8 block of the current frame in the reference frame (the window clamped at
//    the picture's borders, as with unrestricted motion vectors): a block of 16 x 16
//    threads an 8x8 block, the block and its 23 x 23 reference window staged in shared
//    memory, a thread a candidate vector computing SAD + lambda (|mvx| + |mvy|), the best
//    (cost, candidate) by a shared-memory tree minimum;
//  - dct8x8_fwd: HEVC's 8x8 integer forward DCT of a residual frame, a 16 x 16 tile (four
//    8x8 blocks) a thread block in shared memory, the rows' transform (shift 2) then the
//    columns' (shift 9), the basis matrix in __constant__ memory;
//  - quant_deadzone: scalar quantization with a dead zone (rounding offset dz < 1/2) of
//    8x8 blocks of coefficients stored block after block, a per-position step (a JPEG
//    luminance table: reciprocal multipliers and the steps in global memory), the levels
//    and the dequantized coefficients stored, a thread a coefficient;
//  - deblock_vedge_luma: H.264's luma deblocking filter across the vertical edges of the
//    8x8 block grid (the first pass of the loop filter), a thread a line of an edge:
//    boundary strength and QP per block, alpha / beta / tc0 from the standard's
//    __constant__ tables, the per-line filterSamplesFlag, the normal filter (bS < 4) or
//    the strong one (bS 4), in place;
//  - intra4x4_mode_decision: H.264's nine intra 4x4 prediction modes from the block's
//    neighbours (the original frame's, as a fast encoder's decision uses them; modes
//    whose neighbours fall outside the picture skipped), each mode's residual costed by
//    the 4x4 Hadamard SATD, the cheapest mode and its cost stored, a thread a 4x4 block;
//  - jpeg_symbol_stats: the symbol statistics for building JPEG's Huffman tables, a
//    thread an 8x8 block of quantized levels (block after block): the DC difference's
//    size category, then the AC coefficients in zigzag order (a __constant__ table) as
//    (run, size) symbols with ZRL for runs of 16 and EOB, counted in shared-memory
//    histograms by atomicAdd, flushed with one global atomicAdd a nonzero bin a block;
//    each block's count of nonzero levels stored.

#define ME_B 8                        // me_sad_fullsearch: the block's side
#define ME_R 8                        // candidates dx, dy in [-ME_R, ME_R - 1] (blockDim 16 x 16)
#define ME_WIN (ME_B + 2 * ME_R - 1)  // the reference window's side, 23
#define DCT_TILE 16                   // dct8x8_fwd: blockDim = (DCT_TILE, DCT_TILE)
#define IP_NMODES 9                   // intra4x4_mode_decision: H.264's intra 4x4 modes
#define SS_AC_BINS 256                // jpeg_symbol_stats: (run << 4) | size
#define SS_DC_BINS 16                 // DC difference size categories

// HEVC's 8x8 DCT basis (row u: the u-th basis function, scaled by 64 sqrt(8))
__constant__ int c_dct8[64] = {
    64,  64,  64,  64,  64,  64,  64,  64,
    89,  75,  50,  18, -18, -50, -75, -89,
    83,  36, -36, -83, -83, -36,  36,  83,
    75, -18, -89, -50,  50,  89,  18, -75,
    64, -64, -64,  64,  64, -64, -64,  64,
    50, -89,  18,  75, -75, -18,  89, -50,
    36, -83,  83, -36, -36,  83, -83,  36,
    18, -50,  75, -89,  89, -75,  50, -18};

// H.264's deblocking thresholds by indexA = indexB = the edge's average QP (Table 8-16, 8-17)
__constant__ unsigned char c_alpha[52] = {
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   4,   4,
    5,   6,   7,   8,   9,   10,  12,  13,  15,  17,  20,  22,  25,  28,  32,  36,  40,  45,
    50,  56,  63,  71,  80,  90,  101, 113, 127, 144, 162, 182, 203, 226, 255, 255};
__constant__ unsigned char c_beta[52] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,  2,  2,  3,  3,  3,  3,  4,  4,  4,
    6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18};
// tc0 by indexA and bS 1, 2, 3 (flattened [52][3])
__constant__ unsigned char c_tc0[52 * 3] = {
    0, 0, 0,  0, 0, 0,  0, 0, 0,  0, 0, 0,  0, 0, 0,  0, 0, 0,  0, 0, 0,  0, 0, 0,  0, 0, 0,
    0, 0, 0,  0, 0, 0,  0, 0, 0,  0, 0, 0,  0, 0, 0,  0, 0, 0,  0, 0, 0,  0, 0, 0,  0, 0, 1,
    0, 0, 1,  0, 0, 1,  0, 0, 1,  0, 1, 1,  0, 1, 1,  1, 1, 1,  1, 1, 1,  1, 1, 1,  1, 1, 1,
    1, 1, 2,  1, 1, 2,  1, 1, 2,  1, 1, 2,  1, 2, 3,  1, 2, 3,  2, 2, 3,  2, 2, 4,  2, 3, 4,
    2, 3, 4,  3, 3, 5,  3, 4, 6,  3, 4, 6,  4, 5, 7,  4, 5, 8,  4, 6, 9,  5, 7, 10, 6, 8, 11,
    6, 8, 13, 7, 10, 14, 8, 11, 16, 9, 12, 18, 10, 13, 20, 11, 15, 23, 13, 17, 25};

// JPEG's zigzag scan: the natural (row-major) index of the k-th coefficient
__constant__ int c_zigzag[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

extern "C" {

__device__ int clip3(int lo, int hi, int v) {
    return v < lo ? lo : (v > hi ? hi : v);
}

// the best motion vector of each 8x8 block of cur (w x h bytes) in ref: candidates
// (dx, dy) in [-ME_R, ME_R)^2, cost SAD + lambda (|dx| + |dy|), ties to the lowest
// candidate index (dy + ME_R) 16 + dx + ME_R; grid (w / 8, h / 8), block (16, 16)
__global__ void me_sad_fullsearch(const unsigned char *cur, const unsigned char *ref, short *mv, int *best_cost,
                                  int w, int h, int lambda) {
    __shared__ unsigned char s_cur[ME_B * ME_B];
    __shared__ unsigned char s_ref[ME_WIN * ME_WIN];
    __shared__ int s_key[256];
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    int x0 = blockIdx.x * ME_B;
    int y0 = blockIdx.y * ME_B;
    if (t < ME_B * ME_B) s_cur[t] = cur[(y0 + t / ME_B) * w + x0 + t % ME_B];
    for (int k = t; k < ME_WIN * ME_WIN; k += 256) {
        int ry = min(max(y0 - ME_R + k / ME_WIN, 0), h - 1);
        int rx = min(max(x0 - ME_R + k % ME_WIN, 0), w - 1);
        s_ref[k] = ref[ry * w + rx];
    }
    __syncthreads();

    int dx = threadIdx.x;
    int dy = threadIdx.y;
    int sad = 0;
    for (int y = 0; y < ME_B; y++)
        for (int x = 0; x < ME_B; x++)
            sad += abs((int)s_cur[y * ME_B + x] - (int)s_ref[(dy + y) * ME_WIN + dx + x]);
    int cost = sad + lambda * (abs(dx - ME_R) + abs(dy - ME_R));
    s_key[t] = cost * 256 + t;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (t < s) s_key[t] = min(s_key[t], s_key[t + s]);
        __syncthreads();
    }
    if (t == 0) {
        int b = blockIdx.y * gridDim.x + blockIdx.x;
        int c = s_key[0] & 255;
        mv[2 * b] = (short)(c % 16 - ME_R);
        mv[2 * b + 1] = (short)(c / 16 - ME_R);
        best_cost[b] = s_key[0] >> 8;
    }
}

// HEVC's forward 8x8 DCT of each 8x8 block of a w-wide residual frame (row-major), in
// place of the frame's layout: tmp = (X C^T + 2) >> 2, coef = (C tmp + 256) >> 9; grid (w
// / 16, h / 16), block (16, 16)
__global__ void dct8x8_fwd(const short *res, short *coef, int w) {
    __shared__ short s_in[DCT_TILE][DCT_TILE];
    __shared__ int s_tmp[DCT_TILE][DCT_TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * DCT_TILE + tx;
    int y = blockIdx.y * DCT_TILE + ty;
    s_in[ty][tx] = res[y * w + x];
    __syncthreads();

    // the rows: coefficient u of the 8 samples of row ty in this thread's 8x8 block
    int u = tx % 8;
    int bx = tx - u;
    int sum = 0;
    for (int k = 0; k < 8; k++) sum += c_dct8[u * 8 + k] * s_in[ty][bx + k];
    s_tmp[ty][tx] = (sum + 2) >> 2;
    __syncthreads();

    // the columns: coefficient v of column tx
    int v = ty % 8;
    int by = ty - v;
    sum = 0;
    for (int k = 0; k < 8; k++) sum += c_dct8[v * 8 + k] * s_tmp[by + k][tx];
    coef[y * w + x] = (short)((sum + 256) >> 9);
}

// dead-zone quantization of n coefficients (8x8 blocks of 64, natural order): level =
// sign(c) min((|c| mf[pos] + dz) >> qbits, 2047), recon = level qstep[pos], pos = i % 64
__global__ void quant_deadzone(const int *coef, const int *mf, const int *qstep, short *level, int *recon,
                               int qbits, int dz, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c = coef[i];
    int pos = i & 63;
    int l = (abs(c) * mf[pos] + dz) >> qbits;
    if (l > 2047) l = 2047;
    if (c < 0) l = -l;
    level[i] = (short)l;
    recon[i] = l * qstep[pos];
}

// H.264's luma filter across the vertical edges x = 8 e (e >= 1) of a w x h frame, a
// thread a line y of an edge (thread i: y = i / (w / 8), e = i % (w / 8)); bs and qp per
// 8x8 block (row-major, w / 8 a row), the edge's strength its right-hand block's
__global__ void deblock_vedge_luma(unsigned char *img, const unsigned char *bs, const unsigned char *qp, int w,
                                   int h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int nbx = w / 8;
    if (i >= nbx * h) return;
    int e = i % nbx;
    int y = i / nbx;
    if (e == 0) return;                     // the picture's left border is not filtered
    int blk = (y / 8) * nbx + e;
    int s = bs[blk];
    if (s == 0) return;
    int qpav = (qp[blk - 1] + qp[blk] + 1) >> 1;
    int alpha = c_alpha[qpav];
    int beta = c_beta[qpav];
    unsigned char *pix = img + y * w + e * 8;     // q0; p0 is pix[-1]
    int p0 = pix[-1], p1 = pix[-2], p2 = pix[-3], p3 = pix[-4];
    int q0 = pix[0], q1 = pix[1], q2 = pix[2], q3 = pix[3];
    if (abs(p0 - q0) >= alpha || abs(p1 - p0) >= beta || abs(q1 - q0) >= beta) return;
    int ap = abs(p2 - p0) < beta;
    int aq = abs(q2 - q0) < beta;
    if (s < 4) {
        int tc0 = c_tc0[qpav * 3 + s - 1];
        int tc = tc0 + ap + aq;
        int delta = clip3(-tc, tc, (4 * (q0 - p0) + (p1 - q1) + 4) >> 3);
        pix[-1] = (unsigned char)clip3(0, 255, p0 + delta);
        pix[0] = (unsigned char)clip3(0, 255, q0 - delta);
        if (ap) pix[-2] = (unsigned char)(p1 + clip3(-tc0, tc0, (p2 + ((p0 + q0 + 1) >> 1) - 2 * p1) >> 1));
        if (aq) pix[1] = (unsigned char)(q1 + clip3(-tc0, tc0, (q2 + ((p0 + q0 + 1) >> 1) - 2 * q1) >> 1));
    } else {
        int strong = abs(p0 - q0) < ((alpha >> 2) + 2);
        if (ap && strong) {
            pix[-1] = (unsigned char)((p2 + 2 * p1 + 2 * p0 + 2 * q0 + q1 + 4) >> 3);
            pix[-2] = (unsigned char)((p2 + p1 + p0 + q0 + 2) >> 2);
            pix[-3] = (unsigned char)((2 * p3 + 3 * p2 + p1 + p0 + q0 + 4) >> 3);
        } else {
            pix[-1] = (unsigned char)((2 * p1 + p0 + q1 + 2) >> 2);
        }
        if (aq && strong) {
            pix[0] = (unsigned char)((p1 + 2 * p0 + 2 * q0 + 2 * q1 + q2 + 4) >> 3);
            pix[1] = (unsigned char)((p0 + q0 + q1 + q2 + 2) >> 2);
            pix[2] = (unsigned char)((2 * q3 + 3 * q2 + q1 + q0 + p0 + 4) >> 3);
        } else {
            pix[0] = (unsigned char)((2 * q1 + q0 + p1 + 2) >> 2);
        }
    }
}

// the prediction of pixel (x, y) of a 4x4 block in intra mode `mode` (H.264 8.3.1.2):
// top[1 + k] = p[k, -1] (k = 0 .. 7), left[1 + k] = p[-1, k] (k = 0 .. 3), top[0] =
// left[0] = p[-1, -1]
#define PT(k) top[(k) + 1]
#define PL(k) left[(k) + 1]
__device__ int pred4x4(int mode, int x, int y, const int *top, const int *left, int dc) {
    int z;
    switch (mode) {
    case 0:                                             // vertical
        return PT(x);
    case 1:                                             // horizontal
        return PL(y);
    case 2:                                             // DC
        return dc;
    case 3:                                             // diagonal down-left
        if (x == 3 && y == 3) return (PT(6) + 3 * PT(7) + 2) >> 2;
        return (PT(x + y) + 2 * PT(x + y + 1) + PT(x + y + 2) + 2) >> 2;
    case 4:                                             // diagonal down-right
        if (x > y) return (PT(x - y - 2) + 2 * PT(x - y - 1) + PT(x - y) + 2) >> 2;
        if (x < y) return (PL(y - x - 2) + 2 * PL(y - x - 1) + PL(y - x) + 2) >> 2;
        return (PT(0) + 2 * PT(-1) + PL(0) + 2) >> 2;
    case 5:                                             // vertical-right
        z = 2 * x - y;
        if (z >= 0 && (z & 1) == 0) return (PT(x - (y >> 1) - 1) + PT(x - (y >> 1)) + 1) >> 1;
        if (z > 0) return (PT(x - (y >> 1) - 2) + 2 * PT(x - (y >> 1) - 1) + PT(x - (y >> 1)) + 2) >> 2;
        if (z == -1) return (PL(0) + 2 * PL(-1) + PT(0) + 2) >> 2;
        return (PL(y - 1) + 2 * PL(y - 2) + PL(y - 3) + 2) >> 2;
    case 6:                                             // horizontal-down
        z = 2 * y - x;
        if (z >= 0 && (z & 1) == 0) return (PL(y - (x >> 1) - 1) + PL(y - (x >> 1)) + 1) >> 1;
        if (z > 0) return (PL(y - (x >> 1) - 2) + 2 * PL(y - (x >> 1) - 1) + PL(y - (x >> 1)) + 2) >> 2;
        if (z == -1) return (PL(0) + 2 * PL(-1) + PT(0) + 2) >> 2;
        return (PT(x - 1) + 2 * PT(x - 2) + PT(x - 3) + 2) >> 2;
    case 7:                                             // vertical-left
        if ((y & 1) == 0) return (PT(x + (y >> 1)) + PT(x + (y >> 1) + 1) + 1) >> 1;
        return (PT(x + (y >> 1)) + 2 * PT(x + (y >> 1) + 1) + PT(x + (y >> 1) + 2) + 2) >> 2;
    default:                                            // horizontal-up
        z = x + 2 * y;
        if (z > 5) return PL(3);
        if (z == 5) return (PL(2) + 3 * PL(3) + 2) >> 2;
        if ((z & 1) == 0) return (PL(y + (x >> 1)) + PL(y + (x >> 1) + 1) + 1) >> 1;
        return (PL(y + (x >> 1)) + 2 * PL(y + (x >> 1) + 1) + PL(y + (x >> 1) + 2) + 2) >> 2;
    }
}

// the 4x4 Hadamard SATD of a residual d (row-major): sum |H d H| / 2
__device__ int satd4x4(const int *d) {
    int m[16];
    for (int y = 0; y < 4; y++) {
        int s01 = d[y * 4 + 0] + d[y * 4 + 1];
        int d01 = d[y * 4 + 0] - d[y * 4 + 1];
        int s23 = d[y * 4 + 2] + d[y * 4 + 3];
        int d23 = d[y * 4 + 2] - d[y * 4 + 3];
        m[y * 4 + 0] = s01 + s23;
        m[y * 4 + 1] = s01 - s23;
        m[y * 4 + 2] = d01 + d23;
        m[y * 4 + 3] = d01 - d23;
    }
    int sum = 0;
    for (int x = 0; x < 4; x++) {
        int s01 = m[0 * 4 + x] + m[1 * 4 + x];
        int d01 = m[0 * 4 + x] - m[1 * 4 + x];
        int s23 = m[2 * 4 + x] + m[3 * 4 + x];
        int d23 = m[2 * 4 + x] - m[3 * 4 + x];
        sum += abs(s01 + s23) + abs(s01 - s23) + abs(d01 + d23) + abs(d01 - d23);
    }
    return sum >> 1;
}

// the cheapest of the available intra 4x4 modes (SATD cost, ties to the lower mode) of
// each 4x4 block of a w x h frame (thread i: block column i % (w / 4), row i / (w / 4));
// the top-right neighbours replaced by p[3, -1] past the picture's right edge
__global__ void intra4x4_mode_decision(const unsigned char *img, unsigned char *best_mode, int *best_cost, int w,
                                       int h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int nbx = w / 4;
    if (i >= nbx * (h / 4)) return;
    int x0 = (i % nbx) * 4;
    int y0 = (i / nbx) * 4;
    int cur[16];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) cur[y * 4 + x] = img[(y0 + y) * w + x0 + x];
    bool has_top = y0 > 0;
    bool has_left = x0 > 0;
    bool has_tr = has_top && x0 + 4 < w;
    int top[9];
    int left[5];
    top[0] = (has_top && has_left) ? img[(y0 - 1) * w + x0 - 1] : 128;
    left[0] = top[0];
    for (int x = 0; x < 4; x++) top[1 + x] = has_top ? img[(y0 - 1) * w + x0 + x] : 128;
    for (int x = 4; x < 8; x++) top[1 + x] = has_tr ? img[(y0 - 1) * w + x0 + x] : top[4];
    for (int y = 0; y < 4; y++) left[1 + y] = has_left ? img[(y0 + y) * w + x0 - 1] : 128;
    int st = top[1] + top[2] + top[3] + top[4];
    int sl = left[1] + left[2] + left[3] + left[4];
    int dc;
    if (has_top && has_left) dc = (st + sl + 4) >> 3;
    else if (has_top) dc = (st + 2) >> 2;
    else if (has_left) dc = (sl + 2) >> 2;
    else dc = 128;

    int best = 0x7fffffff;
    int best_m = 0;
    for (int mode = 0; mode < IP_NMODES; mode++) {
        bool ok;
        switch (mode) {
        case 0: case 3: case 7: ok = has_top; break;
        case 1: case 8: ok = has_left; break;
        case 2: ok = true; break;
        default: ok = has_top && has_left; break;
        }
        if (!ok) continue;
        int d[16];
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++) d[y * 4 + x] = cur[y * 4 + x] - pred4x4(mode, x, y, top, left, dc);
        int cost = satd4x4(d);
        if (cost < best) {
            best = cost;
            best_m = mode;
        }
    }
    best_mode[i] = (unsigned char)best_m;
    best_cost[i] = best;
}

// JPEG's Huffman symbol statistics of nblocks 8x8 blocks of quantized levels (64 a block,
// natural order, block after block), a thread a block: dc_hist[size of (DC - the previous
// block's DC)] and ac_hist[(run << 4) | size] (0xF0 a run of 16 zeros, 0x00 EOB) by
// shared atomics, flushed to global; nnz[b] = the block's nonzero levels
__global__ void jpeg_symbol_stats(const short *lev, int *ac_hist, int *dc_hist, unsigned char *nnz, int nblocks) {
    __shared__ int s_ac[SS_AC_BINS];
    __shared__ int s_dc[SS_DC_BINS];
    for (int k = threadIdx.x; k < SS_AC_BINS; k += blockDim.x) s_ac[k] = 0;
    if (threadIdx.x < SS_DC_BINS) s_dc[threadIdx.x] = 0;
    __syncthreads();

    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < nblocks) {
        const short *blk = lev + b * 64;
        int prev = b > 0 ? lev[(b - 1) * 64] : 0;
        int diff = abs(blk[0] - prev);
        int size = diff ? 32 - __clz(diff) : 0;
        atomicAdd(&s_dc[size], 1);
        int count = blk[0] != 0;
        int run = 0;
        for (int k = 1; k < 64; k++) {
            int v = blk[c_zigzag[k]];
            if (v == 0) {
                run++;
            } else {
                while (run > 15) {
                    atomicAdd(&s_ac[0xF0], 1);
                    run -= 16;
                }
                int sz = 32 - __clz(abs(v));
                atomicAdd(&s_ac[(run << 4) | sz], 1);
                run = 0;
                count++;
            }
        }
        if (run > 0) atomicAdd(&s_ac[0x00], 1);
        nnz[b] = (unsigned char)count;
    }
    __syncthreads();
    for (int k = threadIdx.x; k < SS_AC_BINS; k += blockDim.x)
        if (s_ac[k]) atomicAdd(&ac_hist[k], s_ac[k]);
    if (threadIdx.x < SS_DC_BINS && s_dc[threadIdx.x]) atomicAdd(&dc_hist[threadIdx.x], s_dc[threadIdx.x]);
}

}
