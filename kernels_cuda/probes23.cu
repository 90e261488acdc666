// probe-unseen22 (session 21): kernels written with the intrinsics simt learned this
// session (__syncthreads_count / __syncthreads_or, __dp4a, __funnelshift_l) and kinds no
// probe had tried: run labelling in shared memory until no label changes, a count by
// block votes, an int8 matrix-vector product, ChaCha20 keystream blocks, a matrix sum
// indexed the wrong way round (threadIdx.x along the rows), 2 x 2 max pooling, rays cast
// at spheres in __constant__ memory, a COO sparse matrix-vector product with float
// atomics, and the tutorial's array reversal through dynamic shared memory.
// Predicted before their first GPU run.

__constant__ float sph_x[32], sph_y[32], sph_z[32], sph_r[32];

extern "C" {

// each block labels the runs of equal bytes in its 256 elements: every element takes the
// smallest label among its equal neighbours until no label changes anywhere in the block
// (as many rounds as the block's longest run)
__global__ void label_runs(const unsigned char *v, int *label, int n) {
    __shared__ int lab[256];
    __shared__ unsigned char val[256];
    int t = threadIdx.x, i = blockIdx.x * 256 + t;
    val[t] = i < n ? v[i] : 0;
    lab[t] = t;
    __syncthreads();
    int changed = 1;
    while (__syncthreads_or(changed)) {
        changed = 0;
        int m = lab[t];
        if (t > 0 && val[t - 1] == val[t]) m = min(m, lab[t - 1]);
        if (t < 255 && val[t + 1] == val[t]) m = min(m, lab[t + 1]);
        __syncthreads();
        if (m < lab[t]) { lab[t] = m; changed = 1; }
    }
    if (i < n) label[i] = blockIdx.x * 256 + lab[t];
}

// how many of x exceed thr: a block vote a trip (__syncthreads_count), one atomic a block
__global__ void count_votes(const float *x, float thr, unsigned *total, int n) {
    unsigned mine = 0;
    for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        int i = base + threadIdx.x;
        mine += __syncthreads_count(i < n && x[i] > thr);
    }
    if (threadIdx.x == 0) atomicAdd(total, mine);
}

// y = A x for int8 A (rows x 4 * cols4) and x, four bytes a __dp4a, a warp a row
__global__ void gemv_dp4a(const int *A, const int *x, int *y, int rows, int cols4) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (warp >= rows) return;
    const int *row = A + (size_t)warp * cols4;
    int acc = 0;
    for (int k = lane; k < cols4; k += 32) acc = __dp4a(row[k], x[k], acc);
    for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffff, acc, o);
    if (lane == 0) y[warp] = acc;
}

#define ROTL(a, b) __funnelshift_l((a), (a), (b))
#define QR(a, b, c, d) \
    a += b; d ^= a; d = ROTL(d, 16); c += d; b ^= c; b = ROTL(b, 12); \
    a += b; d ^= a; d = ROTL(d, 8);  c += d; b ^= c; b = ROTL(b, 7);

// ChaCha20 (RFC 8439): keystream block number `id` a thread, nonce zero; word k of every
// block is stored together (out[k * nblocks + id])
__global__ void chacha20(const unsigned *key, unsigned *out, int nblocks) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= nblocks) return;
    unsigned s[16], x[16];
    s[0] = 0x61707865u; s[1] = 0x3320646eu; s[2] = 0x79622d32u; s[3] = 0x6b206574u;
    for (int k = 0; k < 8; k++) s[4 + k] = key[k];
    s[12] = id; s[13] = 0; s[14] = 0; s[15] = 0;
    for (int k = 0; k < 16; k++) x[k] = s[k];
    for (int r = 0; r < 10; r++) {
        QR(x[0], x[4], x[8], x[12]) QR(x[1], x[5], x[9], x[13])
        QR(x[2], x[6], x[10], x[14]) QR(x[3], x[7], x[11], x[15])
        QR(x[0], x[5], x[10], x[15]) QR(x[1], x[6], x[11], x[12])
        QR(x[2], x[7], x[8], x[13]) QR(x[3], x[4], x[9], x[14])
    }
    for (int k = 0; k < 16; k++) out[(size_t)k * nblocks + id] = x[k] + s[k];
}

// C = A + B for N x N row-major matrices with threadIdx.x along the rows: a warp's 32
// lanes touch 16 rows (the course's coalescing mistake)
__global__ void matadd_rows_x(const float *A, const float *B, float *C, int N) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < N) C[r * N + c] = A[r * N + c] + B[r * N + c];
}

// 2 x 2 max pooling of a 2W x 2W image into W x W
__global__ void maxpool2(const float *in, float *out, int W) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= W) return;
    int Wi = 2 * W;
    const float *p = in + (size_t)(2 * y) * Wi + 2 * x;
    out[y * W + x] = fmaxf(fmaxf(p[0], p[1]), fmaxf(p[Wi], p[Wi + 1]));
}

// a ray from the origin through each pixel against ns spheres; the nearest hit is shaded
// by the cosine to a light direction
__global__ void raycast(float *img, int W, int H, int ns) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    float dx = (x - 0.5f * W) / W, dy = (y - 0.5f * H) / H, dz = 1.0f;
    float inv = rsqrtf(dx * dx + dy * dy + dz * dz);
    dx *= inv; dy *= inv; dz *= inv;
    float best = 1e30f;
    int hit = -1;
    for (int s = 0; s < ns; s++) {
        float b = dx * sph_x[s] + dy * sph_y[s] + dz * sph_z[s];
        float c = sph_x[s] * sph_x[s] + sph_y[s] * sph_y[s] + sph_z[s] * sph_z[s] - sph_r[s] * sph_r[s];
        float disc = b * b - c;
        if (disc > 0.0f) {
            float t = b - sqrtf(disc);
            if (t > 0.0f && t < best) { best = t; hit = s; }
        }
    }
    float shade = 0.0f;
    if (hit >= 0) {
        float nx = (best * dx - sph_x[hit]) / sph_r[hit];
        float ny = (best * dy - sph_y[hit]) / sph_r[hit];
        float nz = (best * dz - sph_z[hit]) / sph_r[hit];
        shade = fmaxf(0.0f, -0.48f * nx + 0.6f * ny - 0.64f * nz);
    }
    img[y * W + x] = shade;
}

// y += A x for A in coordinate form sorted by row: a thread a nonzero, a float atomicAdd
__global__ void coo_spmv(const int *row, const int *col, const float *val, const float *x,
                         float *y, int nnz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nnz) atomicAdd(&y[row[i]], val[i] * x[col[i]]);
}

// the whole array reversed: each block reverses its chunk through dynamic shared memory
// and writes it to the mirrored chunk
__global__ void reverse_blocks(const int *in, int *out) {
    extern __shared__ int s[];
    int t = threadIdx.x, b = blockDim.x;
    s[b - 1 - t] = in[blockIdx.x * b + t];
    __syncthreads();
    out[(gridDim.x - 1 - blockIdx.x) * b + t] = s[t];
}

}
