// probe-unseen39 (session 32): kinds no probe had tried: Euclid's gcd by unsigned
// remainders (a data-dependent loop a lane), AES-128 encryption by one T-table in shared
// memory (random shared lookups, round keys in __constant__), rotary position embeddings
// (powf and sincosf a pair), a depthwise 3x3 convolution over NCHW channels, one
// min-label propagation pass over a random graph's edges (atomicMin into a second label
// array), and a histogram whose warps first group equal keys with __match_any_sync and
// add each group's count once. Predicted before their first GPU run.

extern "C" {

// g[i] = gcd(a[i], b[i]) by Euclid's remainders
__global__ void gcd_pairs(const unsigned *a, const unsigned *b, unsigned *g, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    while (y != 0u) {
        unsigned t = x % y;
        x = y;
        y = t;
    }
    g[i] = x;
}

__constant__ unsigned c_rk[44];           // AES-128's expanded key, big-endian words

// AES-128 in ECB mode, a thread a 16-byte block: the T-table Te0 and the S-box in shared
// memory (Te1..Te3 are Te0 rotated), nine full rounds and the last without MixColumns
__global__ void aes128_ttable(const uint4 *in, uint4 *out, const unsigned *te0, const unsigned *sbox, int n) {
    __shared__ unsigned t0[256], sb[256];
    t0[threadIdx.x] = te0[threadIdx.x];
    sb[threadIdx.x] = sbox[threadIdx.x];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint4 p = in[i];
    unsigned s0 = __byte_perm(p.x, 0, 0x0123) ^ c_rk[0], s1 = __byte_perm(p.y, 0, 0x0123) ^ c_rk[1];
    unsigned s2 = __byte_perm(p.z, 0, 0x0123) ^ c_rk[2], s3 = __byte_perm(p.w, 0, 0x0123) ^ c_rk[3];
    for (int r = 1; r < 10; ++r) {
        unsigned u0 = t0[s0 >> 24] ^ __funnelshift_r(t0[(s1 >> 16) & 0xff], t0[(s1 >> 16) & 0xff], 8)
                    ^ __funnelshift_r(t0[(s2 >> 8) & 0xff], t0[(s2 >> 8) & 0xff], 16)
                    ^ __funnelshift_r(t0[s3 & 0xff], t0[s3 & 0xff], 24) ^ c_rk[4 * r];
        unsigned u1 = t0[s1 >> 24] ^ __funnelshift_r(t0[(s2 >> 16) & 0xff], t0[(s2 >> 16) & 0xff], 8)
                    ^ __funnelshift_r(t0[(s3 >> 8) & 0xff], t0[(s3 >> 8) & 0xff], 16)
                    ^ __funnelshift_r(t0[s0 & 0xff], t0[s0 & 0xff], 24) ^ c_rk[4 * r + 1];
        unsigned u2 = t0[s2 >> 24] ^ __funnelshift_r(t0[(s3 >> 16) & 0xff], t0[(s3 >> 16) & 0xff], 8)
                    ^ __funnelshift_r(t0[(s0 >> 8) & 0xff], t0[(s0 >> 8) & 0xff], 16)
                    ^ __funnelshift_r(t0[s1 & 0xff], t0[s1 & 0xff], 24) ^ c_rk[4 * r + 2];
        unsigned u3 = t0[s3 >> 24] ^ __funnelshift_r(t0[(s0 >> 16) & 0xff], t0[(s0 >> 16) & 0xff], 8)
                    ^ __funnelshift_r(t0[(s1 >> 8) & 0xff], t0[(s1 >> 8) & 0xff], 16)
                    ^ __funnelshift_r(t0[s2 & 0xff], t0[s2 & 0xff], 24) ^ c_rk[4 * r + 3];
        s0 = u0; s1 = u1; s2 = u2; s3 = u3;
    }
    unsigned o0 = (sb[s0 >> 24] << 24) ^ (sb[(s1 >> 16) & 0xff] << 16) ^ (sb[(s2 >> 8) & 0xff] << 8) ^ sb[s3 & 0xff] ^ c_rk[40];
    unsigned o1 = (sb[s1 >> 24] << 24) ^ (sb[(s2 >> 16) & 0xff] << 16) ^ (sb[(s3 >> 8) & 0xff] << 8) ^ sb[s0 & 0xff] ^ c_rk[41];
    unsigned o2 = (sb[s2 >> 24] << 24) ^ (sb[(s3 >> 16) & 0xff] << 16) ^ (sb[(s0 >> 8) & 0xff] << 8) ^ sb[s1 & 0xff] ^ c_rk[42];
    unsigned o3 = (sb[s3 >> 24] << 24) ^ (sb[(s0 >> 16) & 0xff] << 16) ^ (sb[(s1 >> 8) & 0xff] << 8) ^ sb[s2 & 0xff] ^ c_rk[43];
    out[i] = make_uint4(__byte_perm(o0, 0, 0x0123), __byte_perm(o1, 0, 0x0123), __byte_perm(o2, 0, 0x0123),
                        __byte_perm(o3, 0, 0x0123));
}

// rotary position embedding in place on x[tokens][heads][d] (interleaved pairs): the pair
// j of a row at position t turns by the angle t * base^(-2j/d)
__global__ void rope_pairs(float2 *x, int tokens, int heads, int d, float base) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, half = d / 2;
    if (i >= tokens * heads * half) return;
    int j = i % half, t = i / (heads * half);
    float s, c;
    sincosf((float)t * powf(base, -2.0f * (float)j / (float)d), &s, &c);
    float2 v = x[i];
    x[i] = make_float2(v.x * c - v.y * s, v.x * s + v.y * c);
}

// a depthwise 3x3 convolution with zero padding: channel blockIdx.z of an NCHW image
// (one image) by its own nine weights
__global__ void depthwise3x3(const float *in, const float *w, float *out, int h, int wd) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.z;
    if (x >= wd || y >= h) return;
    const float *p = in + (size_t)c * h * wd;
    const float *k = w + 9 * c;
    float acc = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int yy = y + dy, xx = x + dx;
            if (yy >= 0 && yy < h && xx >= 0 && xx < wd) acc += k[(dy + 1) * 3 + dx + 1] * p[yy * wd + xx];
        }
    out[(size_t)c * h * wd + y * wd + x] = acc;
}

// one min-label propagation pass (connected components): along each edge the larger
// label of its ends takes the smaller one, read from lab and written to lab2 (a copy of lab)
__global__ void cc_min_pass(const int *src, const int *dst, const int *lab, int *lab2, int m) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    int u = src[e], v = dst[e];
    int lu = lab[u], lv = lab[v];
    if (lu < lv) atomicMin(&lab2[v], lu);
    else if (lv < lu) atomicMin(&lab2[u], lv);
}

// hist[key]++ for every key, a warp adding each distinct key's count once: the lanes that
// hold the same key find each other with __match_any_sync and the lowest adds their number
__global__ void match_hist(const unsigned *keys, unsigned *hist, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned k = keys[i];                              // n is a multiple of the block
    unsigned peers = __match_any_sync(0xffffffffu, k);
    if ((threadIdx.x & 31) == __ffs(peers) - 1) atomicAdd(&hist[k], __popc(peers));
}

}
