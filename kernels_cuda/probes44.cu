// probe-unseen42 (session 32): kinds no probe had tried: a softmax's backward pass a warp
// a row, SpMV in diagonal (DIA) format, a 3-D Laplacian marching along z with the column
// in registers, 1024-bit integer additions a warp each with the carries resolved by
// ballots, binary searches over sorted 16-byte keys compared word by word, and quaternion
// rotations of float4 points. Predicted before their first GPU run.

extern "C" {

// dx = y * (dy - sum(dy * y)) for each row of `cols` floats, a warp a row
__global__ void softmax_backward(const float *y, const float *dy, float *dx, int rows, int cols) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float *yr = y + (size_t)row * cols, *dr = dy + (size_t)row * cols;
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += yr[c] * dr[c];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    for (int c = lane; c < cols; c += 32) dx[(size_t)row * cols + c] = yr[c] * (dr[c] - s);
}

// y = A x for A in DIA format: ndiag diagonals at offsets off[d], data[d * n + i] = A[i][i + off[d]]
__global__ void dia_spmv(const float *data, const int *off, int ndiag, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int d = 0; d < ndiag; ++d) {
        int j = i + off[d];
        if (j >= 0 && j < n) s += data[(size_t)d * n + i] * x[j];
    }
    y[i] = s;
}

// out = the 7-point Laplacian of an n^3 grid (zero outside), a thread a (x, y) column
// marching along z with the column's previous, current and next values in registers
__global__ void laplace3d_zmarch(const float *u, float *out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n) return;
    size_t plane = (size_t)n * n, c = (size_t)y * n + x;
    float below = 0.0f, here = u[c];
    for (int z = 0; z < n; ++z) {
        float above = z + 1 < n ? u[c + plane] : 0.0f;
        float s = below + above - 6.0f * here;
        s += x > 0 ? u[c - 1] : 0.0f;
        s += x + 1 < n ? u[c + 1] : 0.0f;
        s += y > 0 ? u[c - n] : 0.0f;
        s += y + 1 < n ? u[c + n] : 0.0f;
        out[c] = s;
        below = here; here = above; c += plane;
    }
}

// c = a + b for 1024-bit unsigned integers (32 words, least significant first), a warp a
// number: each lane adds its word; the lanes whose word overflowed generate a carry and
// those whose sum is all ones pass one on, and adding the two ballots as binary numbers
// resolves the whole chain at once (g + (g | p): its carries are the words' carries in)
__global__ void bigint_add(const unsigned *a, const unsigned *b, unsigned *c, unsigned *carry_out, int count) {
    int num = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (num >= count) return;
    unsigned x = a[num * 32 + lane], y = b[num * 32 + lane], s = x + y;
    unsigned g = __ballot_sync(0xffffffffu, s < x), gp = g | __ballot_sync(0xffffffffu, s == 0xffffffffu);
    unsigned long long t = (unsigned long long)g + gp;
    unsigned in = (unsigned)t ^ g ^ gp;
    c[num * 32 + lane] = s + ((in >> lane) & 1u);
    if (lane == 31) carry_out[num] = (unsigned)(t >> 32);
}

// pos[i] = the first index in keys (sorted 16-byte keys, compared as four big-endian
// words) not less than q[i], by binary search
__global__ void key16_search(const uint4 *keys, int nkeys, const uint4 *q, int *pos, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint4 t = q[i];
    int lo = 0, hi = nkeys;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        uint4 k = keys[mid];
        bool less = k.x != t.x ? k.x < t.x : k.y != t.y ? k.y < t.y : k.z != t.z ? k.z < t.z : k.w < t.w;
        if (less) lo = mid + 1; else hi = mid;
    }
    pos[i] = lo;
}

// p' = q p q* for unit quaternions q (x, y, z, w) a point, points as float4 (w unused)
__global__ void quat_rotate(const float4 *q, const float4 *p, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 r = q[i], v = p[i];
    // t = 2 (r.xyz x v), v' = v + r.w t + r.xyz x t
    float tx = 2.0f * (r.y * v.z - r.z * v.y), ty = 2.0f * (r.z * v.x - r.x * v.z), tz = 2.0f * (r.x * v.y - r.y * v.x);
    out[i] = make_float4(v.x + r.w * tx + (r.y * tz - r.z * ty), v.y + r.w * ty + (r.z * tx - r.x * tz),
                         v.z + r.w * tz + (r.x * ty - r.y * tx), v.w);
}

}
