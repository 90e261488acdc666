// probe-unseen58: a computer-vision course's CUDA assignments (feature detection, motion,
// stereo matching, segmentation, geometry), as a student who knows CUDA basics hands them
// in: the Harris corner response, a thread a pixel of a float image computing Sobel
// gradients at the 25 pixels of its 5 x 5 window straight from global memory and summing
// the structure tensor, R = det - k trace^2; Lucas-Kanade optical flow, a thread a pixel
// of two float frames summing central-difference gradients and the temporal difference
// over a 5 x 5 window and solving the 2 x 2 system in closed form (no flow where the
// determinant is tiny); the 5 x 5 census transform of a uint8 image, a 16 x 16 block
// staging its tile and a 2-pixel clamped halo in shared memory, a thread a pixel packing
// its 24 comparisons into a uint32; Canny non-maximum suppression, a thread a pixel
// quantizing the gradient direction into 4 sectors and comparing the magnitude with the two
// neighbours along it; a union-find connected-component labelling pass on a binary image,
// a thread a foreground pixel following the parent links of itself and its left and up
// neighbours to their roots and linking them by atomicMin (the host repeats it until
// nothing changes); and a perspective warp of an RGBA (uchar4) image by a homography in
// __constant__ memory with bilinear sampling, pixels that map outside the source zeroed.

#define CT_B 16              // census5x5: the block's side
#define CT_R 2               // census5x5: the window's radius
#define CT_T (CT_B + 2 * CT_R)

__constant__ float c_homog[9];      // warp_perspective: destination -> source, row-major

// Sobel gradients of img at (x, y), which must be an inner pixel
__device__ void sobel_at(const float *img, int w, int x, int y, float *gx, float *gy) {
    const float *r0 = img + (y - 1) * w + x;
    const float *r1 = img + y * w + x;
    const float *r2 = img + (y + 1) * w + x;
    *gx = (r0[1] + 2.0f * r1[1] + r2[1]) - (r0[-1] + 2.0f * r1[-1] + r2[-1]);
    *gy = (r2[-1] + 2.0f * r2[0] + r2[1]) - (r0[-1] + 2.0f * r0[0] + r0[1]);
}

// the union-find root of pixel i: follow the parent links until a pixel is its own parent
__device__ int find_root(const int *label, int i) {
    int r = i;
    while (label[r] != r) r = label[r];
    return r;
}

extern "C" {

// Harris corner response: pixel (x, y) sums Ix^2, Iy^2 and Ix Iy (Sobel gradients) over
// the 5 x 5 window around it and writes R = det(M) - k trace(M)^2; the pixels within 3 of
// the border (whose window's gradients would leave the image) get 0
__global__ void harris_response(const float *img, float *resp, int w, int h, float k) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    if (x < 3 || y < 3 || x >= w - 3 || y >= h - 3) {
        resp[y * w + x] = 0.0f;
        return;
    }
    float sxx = 0.0f, syy = 0.0f, sxy = 0.0f;
    for (int dy = -2; dy <= 2; dy++) {
        for (int dx = -2; dx <= 2; dx++) {
            float gx, gy;
            sobel_at(img, w, x + dx, y + dy, &gx, &gy);
            sxx += gx * gx;
            syy += gy * gy;
            sxy += gx * gy;
        }
    }
    float det = sxx * syy - sxy * sxy;
    float tr = sxx + syy;
    resp[y * w + x] = det - k * tr * tr;
}

// Lucas-Kanade optical flow: pixel (x, y) sums Ix^2, Iy^2, Ix Iy, Ix It and Iy It over its
// 5 x 5 window (Ix, Iy central differences of frame 0, It = frame 1 - frame 0) and solves
// [Sxx Sxy; Sxy Syy] (u, v) = -(Sxt, Syt) by Cramer's rule; flow 0 where the determinant is
// below min_det and for the pixels within 3 of the border
__global__ void lk_flow(const float *I0, const float *I1, float *u, float *v, int w, int h, float min_det) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int i = y * w + x;
    if (x < 3 || y < 3 || x >= w - 3 || y >= h - 3) {
        u[i] = 0.0f;
        v[i] = 0.0f;
        return;
    }
    float sxx = 0.0f, syy = 0.0f, sxy = 0.0f, sxt = 0.0f, syt = 0.0f;
    for (int dy = -2; dy <= 2; dy++) {
        for (int dx = -2; dx <= 2; dx++) {
            int j = (y + dy) * w + (x + dx);
            float ix = (I0[j + 1] - I0[j - 1]) * 0.5f;
            float iy = (I0[j + w] - I0[j - w]) * 0.5f;
            float it = I1[j] - I0[j];
            sxx += ix * ix;
            syy += iy * iy;
            sxy += ix * iy;
            sxt += ix * it;
            syt += iy * it;
        }
    }
    float det = sxx * syy - sxy * sxy;
    if (det < min_det) {
        u[i] = 0.0f;
        v[i] = 0.0f;
        return;
    }
    u[i] = (sxy * syt - syy * sxt) / det;
    v[i] = (sxy * sxt - sxx * syt) / det;
}

// census transform 5 x 5: the block stages its 16 x 16 pixels and a 2-pixel halo (clamped
// at the image's edges) in shared memory; pixel (x, y)'s signature has a bit a neighbour,
// row by row (dy, then dx, from -2 to 2, the centre skipped), the first the most
// significant, set when the neighbour is darker than the centre
__global__ void census5x5(const unsigned char *img, unsigned *out, int w, int h) {
    __shared__ unsigned char tile[CT_T][CT_T];
    int x0 = blockIdx.x * CT_B - CT_R, y0 = blockIdx.y * CT_B - CT_R;
    for (int t = threadIdx.y * CT_B + threadIdx.x; t < CT_T * CT_T; t += CT_B * CT_B) {
        int ty = t / CT_T, tx = t % CT_T;
        int gx = min(max(x0 + tx, 0), w - 1);
        int gy = min(max(y0 + ty, 0), h - 1);
        tile[ty][tx] = img[gy * w + gx];
    }
    __syncthreads();
    int x = blockIdx.x * CT_B + threadIdx.x;
    int y = blockIdx.y * CT_B + threadIdx.y;
    if (x >= w || y >= h) return;
    unsigned char c = tile[threadIdx.y + CT_R][threadIdx.x + CT_R];
    unsigned sig = 0;
    for (int dy = -CT_R; dy <= CT_R; dy++) {
        for (int dx = -CT_R; dx <= CT_R; dx++) {
            if (dx == 0 && dy == 0) continue;
            unsigned char p = tile[threadIdx.y + CT_R + dy][threadIdx.x + CT_R + dx];
            sig = (sig << 1) | (p < c ? 1u : 0u);
        }
    }
    out[y * w + x] = sig;
}

// Canny non-maximum suppression: the gradient direction (radians, from atan2(gy, gx), y
// down) folded into [0, pi) picks the neighbours along it: horizontal below pi/8 or from
// 7 pi/8, the diagonal (x + 1, y + 1)-(x - 1, y - 1) below 3 pi/8, vertical below 5 pi/8,
// the other diagonal otherwise; the magnitude is kept when no smaller than both, else 0;
// the border pixels get 0
__global__ void canny_nms(const float *mag, const float *dir, float *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[i] = 0.0f;
        return;
    }
    float m = mag[i];
    float a = dir[i];
    if (a < 0.0f) a += 3.14159265f;
    float n1, n2;
    if (a < 0.39269908f || a >= 2.74889357f) {
        n1 = mag[i - 1];
        n2 = mag[i + 1];
    } else if (a < 1.17809725f) {
        n1 = mag[i - w - 1];
        n2 = mag[i + w + 1];
    } else if (a < 1.96349541f) {
        n1 = mag[i - w];
        n2 = mag[i + w];
    } else {
        n1 = mag[i - w + 1];
        n2 = mag[i + w - 1];
    }
    out[i] = (m >= n1 && m >= n2) ? m : 0.0f;
}

// one pass of union-find labelling: label[i] is pixel i's parent (i itself for a root, -1
// off the foreground, always no more than i); a foreground pixel finds its root and those
// of its left and up neighbours (when foreground) and hangs the larger root under the
// smaller by atomicMin.  After a pass that changes nothing every foreground pixel's root is
// the smallest index of its 4-connected component
__global__ void uf_link(const unsigned char *fg, int *label, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int i = y * w + x;
    if (!fg[i]) return;
    int r = find_root(label, i);
    if (x > 0 && fg[i - 1]) {
        int q = find_root(label, i - 1);
        if (q != r) {
            atomicMin(&label[max(q, r)], min(q, r));
            r = min(q, r);
        }
    }
    if (y > 0 && fg[i - w]) {
        int q = find_root(label, i - w);
        if (q != r) atomicMin(&label[max(q, r)], min(q, r));
    }
}

// perspective warp: destination pixel (x, y) maps to the source through the homography,
// (sx, sy) = (H (x, y, 1))_xy / (H (x, y, 1))_z, and takes the bilinear blend of the 4
// source pixels around it, channel by channel, rounded; pixels mapping outside
// [0, sw - 1] x [0, sh - 1] are 0
__global__ void warp_perspective(const uchar4 *src, uchar4 *dst, int sw, int sh, int dw, int dh) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dw || y >= dh) return;
    float fx = (float)x, fy = (float)y;
    float wz = c_homog[6] * fx + c_homog[7] * fy + c_homog[8];
    float sx = (c_homog[0] * fx + c_homog[1] * fy + c_homog[2]) / wz;
    float sy = (c_homog[3] * fx + c_homog[4] * fy + c_homog[5]) / wz;
    if (!(sx >= 0.0f && sy >= 0.0f && sx <= sw - 1 && sy <= sh - 1)) {
        dst[y * dw + x] = make_uchar4(0, 0, 0, 0);
        return;
    }
    int x0 = (int)sx, y0 = (int)sy;
    int x1 = min(x0 + 1, sw - 1), y1 = min(y0 + 1, sh - 1);
    float ax = sx - x0, ay = sy - y0;
    uchar4 p00 = src[y0 * sw + x0], p01 = src[y0 * sw + x1];
    uchar4 p10 = src[y1 * sw + x0], p11 = src[y1 * sw + x1];
    float w00 = (1.0f - ax) * (1.0f - ay), w01 = ax * (1.0f - ay);
    float w10 = (1.0f - ax) * ay, w11 = ax * ay;
    float r = w00 * p00.x + w01 * p01.x + w10 * p10.x + w11 * p11.x;
    float g = w00 * p00.y + w01 * p01.y + w10 * p10.y + w11 * p11.y;
    float b = w00 * p00.z + w01 * p01.z + w10 * p10.z + w11 * p11.z;
    float a = w00 * p00.w + w01 * p01.w + w10 * p10.w + w11 * p11.w;
    dst[y * dw + x] = make_uchar4((unsigned char)(r + 0.5f), (unsigned char)(g + 0.5f),
                                  (unsigned char)(b + 0.5f), (unsigned char)(a + 0.5f));
}

}
