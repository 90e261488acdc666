// probe-unseen30 (session 29): kinds no probe had tried: SHA-256 of one-block messages (a
// thread a message, 64 rounds, the schedule in a local array, K in __constant__), im2col
// for a 3x3 convolution (a thread an output element, / and % by run-time dimensions),
// triangle counting by merge walks over sorted CSR adjacency lists, a Jacobi sweep whose
// residual is an xor-shuffle max and one integer atomicMax a warp on the float's bits, a
// sparse times dense product with a warp a sparse row (a lane a dense column), and the
// even-odd point-in-polygon test against a 64-vertex polygon in __constant__ memory
// (two float arrays: simt takes no __constant__ float2 array).
// Predicted before their first GPU run.

extern "C" {

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

__constant__ unsigned int c_k[64];      // SHA-256 round constants, set by the host

// digest[8i..8i+7] = the SHA-256 state after compressing message i (16 big-endian words,
// one 512-bit block the host has already padded) from the standard initial hash value
__global__ void sha256_msgs(const unsigned *msg, unsigned *digest, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned *m = msg + (size_t)i * 16;
    unsigned w[64];
#pragma unroll
    for (int t = 0; t < 16; ++t) w[t] = m[t];
#pragma unroll
    for (int t = 16; t < 64; ++t) {
        unsigned s0 = ROTR(w[t - 15], 7) ^ ROTR(w[t - 15], 18) ^ (w[t - 15] >> 3);
        unsigned s1 = ROTR(w[t - 2], 17) ^ ROTR(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    unsigned a = 0x6a09e667u, b = 0xbb67ae85u, c = 0x3c6ef372u, d = 0xa54ff53au;
    unsigned e = 0x510e527fu, f = 0x9b05688cu, g = 0x1f83d9abu, h = 0x5be0cd19u;
#pragma unroll
    for (int t = 0; t < 64; ++t) {
        unsigned S1 = ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25);
        unsigned ch = (e & f) ^ (~e & g);
        unsigned t1 = h + S1 + ch + c_k[t] + w[t];
        unsigned S0 = ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22);
        unsigned maj = (a & b) ^ (a & c) ^ (b & c);
        unsigned t2 = S0 + maj;
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    unsigned *o = digest + (size_t)i * 8;
    o[0] = a + 0x6a09e667u;
    o[1] = b + 0xbb67ae85u;
    o[2] = c + 0x3c6ef372u;
    o[3] = d + 0xa54ff53au;
    o[4] = e + 0x510e527fu;
    o[5] = f + 0x9b05688cu;
    o[6] = g + 0x1f83d9abu;
    o[7] = h + 0x5be0cd19u;
}

// col = im2col of the image im (ch channels of h x w) for a 3x3 convolution, padding 1,
// stride 1: row (c * 9 + ky * 3 + kx), column (y * w + x) holds im[c][y + ky - 1][x + kx - 1],
// 0 outside the image; a thread an element of col
__global__ void im2col3x3(const float *im, float *col, int ch, int h, int w) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= ch * 9 * h * w) return;
    int x = idx % w;
    int y = idx / w % h;
    int row = idx / (w * h);
    int kx = row % 3, ky = row / 3 % 3, c = row / 9;
    int ix = x + kx - 1, iy = y + ky - 1;
    float v = 0.f;
    if (ix >= 0 && ix < w && iy >= 0 && iy < h) v = im[(c * h + iy) * w + ix];
    col[idx] = v;
}

// *count += the triangles of an undirected graph (CSR: row_ptr, col; adjacency lists
// sorted, each edge stored both ways; src[e] = the row of entry e): a thread a stored
// edge (u, v), those with u < v counting the w > v adjacent to both by a merge walk over
// the two lists, then one atomicAdd if they found any
__global__ void triangle_count(const int *row_ptr, const int *col, const int *src,
                               unsigned long long *count, int nnz) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nnz) return;
    int u = src[e], v = col[e];
    if (u >= v) return;
    int i = row_ptr[u], iend = row_ptr[u + 1];
    int j = row_ptr[v], jend = row_ptr[v + 1];
    unsigned long long t = 0;
    while (i < iend && j < jend) {
        int a = col[i], b = col[j];
        if (a < b) {
            ++i;
        } else if (a > b) {
            ++j;
        } else {
            if (a > v) ++t;
            ++i;
            ++j;
        }
    }
    if (t) atomicAdd(count, t);
}

// unew = one Jacobi sweep of Laplace's equation on the n x n grid u (each interior point
// the mean of its four neighbours, the boundary copied); *res = max |unew - u|, reduced
// per warp by xor shuffles, then an atomicMax a warp on the float's bits as an int (the
// values are >= 0, so their order is the ints' order)
__global__ void jacobi_residual(const float *u, float *unew, float *res, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    float d = 0.f;
    if (x < n && y < n) {
        int i = y * n + x;
        float v = u[i];
        if (x > 0 && x < n - 1 && y > 0 && y < n - 1) {
            float nv = 0.25f * (u[i - 1] + u[i + 1] + u[i - n] + u[i + n]);
            d = fabsf(nv - v);
            v = nv;
        }
        unew[i] = v;
    }
    for (int o = 16; o > 0; o >>= 1) d = fmaxf(d, __shfl_xor_sync(0xffffffffu, d, o));
    if (((threadIdx.y * blockDim.x + threadIdx.x) & 31) == 0) atomicMax((int *)res, __float_as_int(d));
}

#define SPMM_COLS 32
// y = A x: A sparse (CSR: row_ptr, col, val, rows rows), x and y dense, row-major, 32
// columns; a warp a row of A, lane j computing y[r][j]: every lane loads each nonzero's
// value and column (the same address across the warp), then gathers that row of x
__global__ void spmm_csr_warp(const int *row_ptr, const int *col, const float *val,
                              const float *x, float *y, int rows) {
    int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (r >= rows) return;
    float acc = 0.f;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k)
        acc += val[k] * x[(size_t)col[k] * SPMM_COLS + lane];
    y[(size_t)r * SPMM_COLS + lane] = acc;
}

#define POLY_N 64
__constant__ float c_px[POLY_N], c_py[POLY_N];     // the polygon's vertices, set by the host

// inside[i] = 1 if pts[i] is inside the polygon (c_px[k], c_py[k]) by the even-odd rule,
// else 0: the crossing test against each of its 64 edges (W. R. Franklin's pnpoly)
__global__ void point_in_polygon(const float2 *pts, unsigned char *inside, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float px = pts[i].x, py = pts[i].y;
    bool in = false;
    for (int k = 0, j = POLY_N - 1; k < POLY_N; j = k++) {
        float xi = c_px[k], yi = c_py[k];
        float xj = c_px[j], yj = c_py[j];
        if (((yi > py) != (yj > py)) && (px < (xj - xi) * (py - yi) / (yj - yi) + xi)) in = !in;
    }
    inside[i] = in ? 1 : 0;
}

}
