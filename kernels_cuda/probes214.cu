// probe-unseen212: a photogrammetry / multi-view computer-vision course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - stereo_census: census-transform stereo block matching on a rectified pair, a block
//    64 x 4 pixels: the left and right image tiles (with the census window's halo and,
//    for the right image, the disparity range to the left) staged in shared memory,
//    __syncthreads, the right pixels' 9 x 7 census (62 bits in an unsigned long long)
//    into shared memory, __syncthreads, then each thread its pixel's census, the Hamming
//    costs of the 128 disparities by __popcll into a local byte array, winner takes all,
//    OpenCV's uniqueness check, a parabola through the three costs around the minimum for
//    the subpixel disparity (floorf), 16-bit fixed-point disparities out (x 16, -16 when
//    rejected);
//  - fast9: FAST-9 corner detection on a batch of views (a blockIdx.z a view), a thread a
//    pixel: the high-speed test on the circle's 4 compass pixels, then the 16 pixels of
//    the Bresenham circle through a __constant__ offset table into bright / dark bit masks,
//    9 contiguous found by doubling the mask and ANDing 8 shifts, the corner's score (the
//    larger sum of the arc's differences) and the corner appended as a struct to a global
//    list through an atomicAdd on its length;
//  - orb_match: brute-force matching of 256-bit ORB descriptors between the image pairs of
//    a set, a warp a query descriptor: the lanes stride over the pair's other image's
//    descriptors, the Hamming distance by 8 __popc, each lane's best and second best,
//    merged by __shfl_xor_sync, Lowe's ratio test and a distance threshold, a block's
//    histogram of best distances by shared atomics, the matches counted by a global one;
//  - ransac_homog: RANSAC homography scoring, a block a hypothesis: thread 0 gathers the
//    hypothesis' 4 matches (structs), builds the 8 x 9 DLT system in a local double array
//    and solves it by Gaussian elimination with partial pivoting, the 9 entries through
//    shared memory, then every thread transfers a share of the matches (float), MSAC's
//    truncated squared error summed in a shared float by atomicAdd, the inliers counted
//    by __ballot_sync / __popc and a shared int atomic, the best hypothesis (most inliers)
//    kept by a 64-bit global atomicMax;
//  - ba_residuals: bundle-adjustment reprojection residuals in BAL's camera model (Ceres'
//    angle-axis rotation, -P / P.z, two radial distortion terms, a focal length), double
//    precision, a grid-stride loop over the observations (structs, sorted by camera): the
//    camera's 9 and the point's 3 parameters gathered, sqrt / sin / cos, the residuals
//    stored, the Huber loss summed by __shfl_down_sync and a double atomicAdd a warp;
//  - pyr_down: one Gaussian pyramid level of a batch of 8-bit views (OpenCV's pyrDown: the
//    5 x 5 binomial kernel from a __constant__ table, reflect-101 borders, every second
//    pixel), a thread an output pixel reading its 25 inputs straight from global memory.

#define CS_BX 64                // stereo_census: block width (pixels)
#define CS_BY 4                 // block height
#define CS_HW 4                 // census window half width (9 columns)
#define CS_HH 3                 // census window half height (7 rows)
#define CS_D 128                // disparities 0 .. CS_D - 1
#define CS_TW (CS_BX + CS_D - 1)            // right census columns a block needs
#define CS_LW (CS_BX + 2 * CS_HW)           // left tile width (bytes)
#define CS_RW (CS_TW + 2 * CS_HW)           // right tile width
#define CS_TH (CS_BY + 2 * CS_HH)           // tile height
#define CS_UNIQ 15              // uniqueness ratio (%)
#define CS_INVALID (-16)

#define FAST_T 20               // fast9: intensity threshold

#define OM_WORDS 8              // orb_match: 256-bit descriptors as 8 words
#define OM_MAXD 64              // a match's distance at most
#define OM_RATIO 0.8f           // Lowe's ratio
#define OM_BINS 257             // distances 0 .. 256

#define RH_T2 9.0f              // ransac_homog: (3 px)^2, the inlier threshold
#define RH_BAD 1e30f            // a degenerate sample's cost

#define BA_DELTA 2.0            // ba_residuals: Huber threshold (pixels)

struct Corner {
    unsigned short x, y;
    unsigned short view;
    unsigned short score;
};

struct Match {
    float x1, y1;               // in the first image
    float x2, y2;               // in the second
};

struct BAObs {
    int cam;
    int point;
    double u, v;                // the observed image point (pixels, centred)
};

// the Bresenham circle of radius 3 (dx, dy), clockwise from the top
__constant__ int c_circle[16][2];

// the 5 x 5 binomial kernel (1 4 6 4 1)^T (1 4 6 4 1), sums to 256
__constant__ int c_gauss[5][5];

// 9 x 7 census of the tile pixel (cx, cy): bit set where the neighbour is darker
__device__ unsigned long long census97(const unsigned char *tile, int pitch, int cx, int cy) {
    unsigned char c = tile[cy * pitch + cx];
    unsigned long long bits = 0;
    for (int dy = -CS_HH; dy <= CS_HH; dy++) {
        for (int dx = -CS_HW; dx <= CS_HW; dx++) {
            if (dx == 0 && dy == 0) continue;
            bits = (bits << 1) | (tile[(cy + dy) * pitch + cx + dx] < c ? 1ull : 0ull);
        }
    }
    return bits;
}

__device__ int clampi(int v, int lo, int hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

extern "C" {

// left / right: a rectified pair of w x h 8-bit images; disp: the left image's disparities
// x 16 (CS_INVALID where rejected); block (CS_BX, CS_BY)
__global__ void stereo_census(const unsigned char *left, const unsigned char *right, int w, int h, short *disp) {
    __shared__ unsigned char s_l[CS_TH * CS_LW];
    __shared__ unsigned char s_r[CS_TH * CS_RW];
    __shared__ unsigned long long s_rc[CS_BY][CS_TW];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * CS_BX + tx;
    int x0 = blockIdx.x * CS_BX, y0 = blockIdx.y * CS_BY;
    // the tiles, clamped at the image's edges
    for (int i = tid; i < CS_TH * CS_LW; i += CS_BX * CS_BY) {
        int r = i / CS_LW, c = i % CS_LW;
        int gx = clampi(x0 - CS_HW + c, 0, w - 1);
        int gy = clampi(y0 - CS_HH + r, 0, h - 1);
        s_l[i] = left[gy * w + gx];
    }
    for (int i = tid; i < CS_TH * CS_RW; i += CS_BX * CS_BY) {
        int r = i / CS_RW, c = i % CS_RW;
        int gx = clampi(x0 - (CS_D - 1) - CS_HW + c, 0, w - 1);
        int gy = clampi(y0 - CS_HH + r, 0, h - 1);
        s_r[i] = right[gy * w + gx];
    }
    __syncthreads();
    // right census column j is image column x0 - (CS_D - 1) + j
    for (int j = tx; j < CS_TW; j += CS_BX)
        s_rc[ty][j] = census97(s_r, CS_RW, j + CS_HW, ty + CS_HH);
    __syncthreads();
    int x = x0 + tx, y = y0 + ty;
    if (x >= w || y >= h) return;
    unsigned long long cl = census97(s_l, CS_LW, tx + CS_HW, ty + CS_HH);
    unsigned char cost[CS_D];
    int maxd = min(CS_D - 1, x);          // the right pixel x - d inside the image
    int best = 255, bd = 0;
    for (int d = 0; d <= maxd; d++) {
        int c = __popcll(cl ^ s_rc[ty][tx + CS_D - 1 - d]);
        cost[d] = (unsigned char)c;
        if (c < best) {
            best = c;
            bd = d;
        }
    }
    // OpenCV's uniqueness check: no other disparity (past the neighbours) nearly as good
    int ok = 1;
    for (int d = 0; d <= maxd; d++) {
        if (abs(d - bd) > 1 && cost[d] * 100 < best * (100 + CS_UNIQ)) {
            ok = 0;
            break;
        }
    }
    short out = CS_INVALID;
    if (ok) {
        float sub = (float)bd;
        if (bd > 0 && bd < maxd) {
            int cm = cost[bd - 1], cp = cost[bd + 1];
            int den = cm + cp - 2 * best;
            if (den > 0) sub += (float)(cm - cp) / (2.0f * den);
        }
        out = (short)floorf(sub * 16.0f + 0.5f);
    }
    disp[y * w + x] = out;
}

// img: nviews w x h 8-bit views one after another (blockIdx.z the view); corners: the list
// (cap entries at most), *count its length
__global__ void fast9(const unsigned char *img, int w, int h, Corner *corners, int cap, int *count) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int v = blockIdx.z;
    if (x < 3 || y < 3 || x >= w - 3 || y >= h - 3) return;
    const unsigned char *im = img + (size_t)v * w * h;
    int p = im[y * w + x];
    int hi = p + FAST_T, lo = p - FAST_T;
    // high-speed test: an arc of 9 holds at least 2 of the 4 compass pixels
    int a = im[(y - 3) * w + x], b = im[(y + 3) * w + x];
    int c = im[y * w + x + 3], d = im[y * w + x - 3];
    int nb = (a > hi) + (b > hi) + (c > hi) + (d > hi);
    int nd = (a < lo) + (b < lo) + (c < lo) + (d < lo);
    if (nb < 2 && nd < 2) return;
    unsigned int bright = 0, dark = 0;
    int sb = 0, sd = 0;
    for (int k = 0; k < 16; k++) {
        int q = im[(y + c_circle[k][1]) * w + x + c_circle[k][0]];
        if (q > hi) {
            bright |= 1u << k;
            sb += q - hi;
        } else if (q < lo) {
            dark |= 1u << k;
            sd += lo - q;
        }
    }
    // 9 contiguous of the 16 (around the circle): the mask twice, ANDed with 8 shifts
    unsigned int mb = bright | (bright << 16), md = dark | (dark << 16);
    unsigned int rb = mb, rd = md;
    for (int k = 1; k < 9; k++) {
        rb &= mb >> k;
        rd &= md >> k;
    }
    if (rb == 0 && rd == 0) return;
    int score = max(rb ? sb : 0, rd ? sd : 0);
    int idx = atomicAdd(count, 1);
    if (idx < cap) {
        Corner cn;
        cn.x = (unsigned short)x;
        cn.y = (unsigned short)y;
        cn.view = (unsigned short)v;
        cn.score = (unsigned short)score;
        corners[idx] = cn;
    }
}

// qdesc / tdesc: npairs x nper descriptors (8 words each) of the pairs' first and second
// images; query q (a warp) is matched against its pair's nper second-image descriptors:
// match[q] the best one's index (-1: none passes), dist[q] its distance; hist[d] += the
// queries whose best distance is d; *nmatch += the matches
__global__ void orb_match(const unsigned int *qdesc, const unsigned int *tdesc, int nper, int npairs, int *match,
                          unsigned char *dist, int *hist, int *nmatch) {
    __shared__ int s_hist[OM_BINS];
    for (int i = threadIdx.x; i < OM_BINS; i += blockDim.x) s_hist[i] = 0;
    __syncthreads();
    int q = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (q < nper * npairs) {
        int pair = q / nper;
        unsigned int qd[OM_WORDS];
        for (int k = 0; k < OM_WORDS; k++) qd[k] = qdesc[(size_t)q * OM_WORDS + k];
        const unsigned int *base = tdesc + (size_t)pair * nper * OM_WORDS;
        int best = 1000, second = 1000, bi = -1;
        for (int j = lane; j < nper; j += 32) {
            const unsigned int *t = base + (size_t)j * OM_WORDS;
            int dd = 0;
            for (int k = 0; k < OM_WORDS; k++) dd += __popc(qd[k] ^ t[k]);
            if (dd < best) {
                second = best;
                best = dd;
                bi = j;
            } else if (dd < second) {
                second = dd;
            }
        }
        // the warp's best two: each step merges two lanes' (best, index, second)
        for (int o = 16; o > 0; o /= 2) {
            int ob = __shfl_xor_sync(0xffffffff, best, o);
            int os = __shfl_xor_sync(0xffffffff, second, o);
            int oi = __shfl_xor_sync(0xffffffff, bi, o);
            if (ob < best || (ob == best && oi < bi)) {
                second = min(best, os);
                best = ob;
                bi = oi;
            } else {
                second = min(second, ob);
            }
        }
        if (lane == 0) {
            int ok = best <= OM_MAXD && (float)best < OM_RATIO * (float)second;
            match[q] = ok ? bi : -1;
            dist[q] = (unsigned char)min(best, 255);
            atomicAdd(&s_hist[min(best, OM_BINS - 1)], 1);
            if (ok) atomicAdd(nmatch, 1);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < OM_BINS; i += blockDim.x)
        if (s_hist[i] != 0) atomicAdd(&hist[i], s_hist[i]);
}

// m: nm putative matches; samples: 4 match indices a hypothesis; hypothesis blockIdx.x:
// H (9 floats, h33 = 1; zeros when the sample is degenerate), its MSAC cost (sum of
// min(e^2, RH_T2) over the matches) and inliers (e^2 < RH_T2); *best = max over the
// hypotheses of inliers << 32 | (0xFFFFFFFF - hypothesis)
__global__ void ransac_homog(const Match *m, int nm, const int *samples, float *hyp, float *cost, int *ninl,
                             unsigned long long *best) {
    __shared__ float s_h[9];
    __shared__ int s_ok;
    __shared__ int s_inl;
    __shared__ float s_cost;
    int hy = blockIdx.x;
    if (threadIdx.x == 0) {
        s_inl = 0;
        s_cost = 0.0f;
        double A[8][9];
        for (int k = 0; k < 4; k++) {
            Match p = m[samples[4 * hy + k]];
            double x = p.x1, y = p.y1, u = p.x2, v = p.y2;
            double *r0 = A[2 * k], *r1 = A[2 * k + 1];
            r0[0] = x; r0[1] = y; r0[2] = 1.0; r0[3] = 0.0; r0[4] = 0.0; r0[5] = 0.0;
            r0[6] = -u * x; r0[7] = -u * y; r0[8] = u;
            r1[0] = 0.0; r1[1] = 0.0; r1[2] = 0.0; r1[3] = x; r1[4] = y; r1[5] = 1.0;
            r1[6] = -v * x; r1[7] = -v * y; r1[8] = v;
        }
        int ok = 1;
        for (int c = 0; c < 8; c++) {
            int piv = c;
            double big = fabs(A[c][c]);
            for (int r = c + 1; r < 8; r++) {
                if (fabs(A[r][c]) > big) {
                    big = fabs(A[r][c]);
                    piv = r;
                }
            }
            if (big < 1e-9) {
                ok = 0;
                break;
            }
            if (piv != c) {
                for (int k = c; k < 9; k++) {
                    double t = A[c][k];
                    A[c][k] = A[piv][k];
                    A[piv][k] = t;
                }
            }
            for (int r = c + 1; r < 8; r++) {
                double f = A[r][c] / A[c][c];
                for (int k = c; k < 9; k++) A[r][k] -= f * A[c][k];
            }
        }
        double hh[8];
        if (ok) {
            for (int c = 7; c >= 0; c--) {
                double s = A[c][8];
                for (int k = c + 1; k < 8; k++) s -= A[c][k] * hh[k];
                hh[c] = s / A[c][c];
            }
        }
        for (int k = 0; k < 8; k++) s_h[k] = ok ? (float)hh[k] : 0.0f;
        s_h[8] = ok ? 1.0f : 0.0f;
        s_ok = ok;
    }
    __syncthreads();
    if (threadIdx.x < 9) hyp[9 * hy + threadIdx.x] = s_h[threadIdx.x];
    if (!s_ok) {
        if (threadIdx.x == 0) {
            cost[hy] = RH_BAD;
            ninl[hy] = 0;
        }
        return;
    }
    float h0 = s_h[0], h1 = s_h[1], h2 = s_h[2], h3 = s_h[3], h4 = s_h[4], h5 = s_h[5];
    float h6 = s_h[6], h7 = s_h[7], h8 = s_h[8];
    float c = 0.0f;
    int lane = threadIdx.x % 32;
    for (int i0 = 0; i0 < nm; i0 += blockDim.x) {
        int i = i0 + threadIdx.x;
        int inl = 0;
        if (i < nm) {
            Match p = m[i];
            float e2 = RH_T2;
            float w = h6 * p.x1 + h7 * p.y1 + h8;
            if (fabsf(w) > 1e-6f) {
                float u = (h0 * p.x1 + h1 * p.y1 + h2) / w;
                float v = (h3 * p.x1 + h4 * p.y1 + h5) / w;
                float du = u - p.x2, dv = v - p.y2;
                e2 = fminf(du * du + dv * dv, RH_T2);
            }
            inl = e2 < RH_T2;
            c += e2;
        }
        unsigned int b = __ballot_sync(0xffffffff, inl);
        if (lane == 0) atomicAdd(&s_inl, __popc(b));
    }
    atomicAdd(&s_cost, c);
    __syncthreads();
    if (threadIdx.x == 0) {
        cost[hy] = s_cost;
        ninl[hy] = s_inl;
        atomicMax(best, ((unsigned long long)s_inl << 32) | (0xFFFFFFFFu - (unsigned int)hy));
    }
}

// cams: 9 doubles a camera (angle-axis rotation, translation, focal length, k1, k2), pts: 3
// a point, obs: nobs observations; res[2 i], res[2 i + 1]: observation i's residual
// (predicted - observed); *cost += the Huber losses, *nout += the residuals past BA_DELTA
__global__ void ba_residuals(const double *cams, const double *pts, const BAObs *obs, int nobs, double *res,
                             double *cost, int *nout) {
    double acc = 0.0;
    int outl = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nobs; i += gridDim.x * blockDim.x) {
        BAObs o = obs[i];
        const double *c = cams + 9 * o.cam;
        const double *X = pts + 3 * o.point;
        double px = X[0], py = X[1], pz = X[2];
        double r0 = c[0], r1 = c[1], r2 = c[2];
        double th2 = r0 * r0 + r1 * r1 + r2 * r2;
        double P0, P1, P2;
        if (th2 > 2.220446049250313e-16) {
            // Rodrigues: X cos + (w x X) sin + w (w . X)(1 - cos)
            double th = sqrt(th2);
            double ct = cos(th), st = sin(th);
            double w0 = r0 / th, w1 = r1 / th, w2 = r2 / th;
            double cx = w1 * pz - w2 * py, cy = w2 * px - w0 * pz, cz = w0 * py - w1 * px;
            double tmp = (w0 * px + w1 * py + w2 * pz) * (1.0 - ct);
            P0 = px * ct + cx * st + w0 * tmp;
            P1 = py * ct + cy * st + w1 * tmp;
            P2 = pz * ct + cz * st + w2 * tmp;
        } else {
            // near zero: X + r x X
            P0 = px + (r1 * pz - r2 * py);
            P1 = py + (r2 * px - r0 * pz);
            P2 = pz + (r0 * py - r1 * px);
        }
        P0 += c[3];
        P1 += c[4];
        P2 += c[5];
        double xp = -P0 / P2, yp = -P1 / P2;
        double rr = xp * xp + yp * yp;
        double dist = 1.0 + rr * (c[7] + c[8] * rr);
        double ex = c[6] * dist * xp - o.u;
        double ey = c[6] * dist * yp - o.v;
        res[2 * i] = ex;
        res[2 * i + 1] = ey;
        double s = ex * ex + ey * ey;
        if (s <= BA_DELTA * BA_DELTA) {
            acc += s;
        } else {
            acc += 2.0 * BA_DELTA * sqrt(s) - BA_DELTA * BA_DELTA;
            outl++;
        }
    }
    for (int o = 16; o > 0; o /= 2) {
        acc += __shfl_down_sync(0xffffffff, acc, o);
        outl += __shfl_down_sync(0xffffffff, outl, o);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(cost, acc);
        atomicAdd(nout, outl);
    }
}

// src: nviews w x h 8-bit views (blockIdx.z the view); dst: their (w + 1) / 2 x (h + 1) / 2
// next pyramid level
__global__ void pyr_down(const unsigned char *src, int w, int h, unsigned char *dst) {
    int dw = (w + 1) / 2, dh = (h + 1) / 2;
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int v = blockIdx.z;
    if (x >= dw || y >= dh) return;
    const unsigned char *im = src + (size_t)v * w * h;
    int sum = 0;
    for (int ky = -2; ky <= 2; ky++) {
        int sy = 2 * y + ky;
        if (sy < 0) sy = -sy;
        if (sy >= h) sy = 2 * h - 2 - sy;
        for (int kx = -2; kx <= 2; kx++) {
            int sx = 2 * x + kx;
            if (sx < 0) sx = -sx;
            if (sx >= w) sx = 2 * w - 2 - sx;
            sum += c_gauss[ky + 2][kx + 2] * im[sy * w + sx];
        }
    }
    dst[(size_t)v * dw * dh + y * dw + x] = (unsigned char)((sum + 128) >> 8);
}

}
