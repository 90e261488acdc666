// probe-unseen41 (session 32): kinds no probe had tried: a jump-flooding step of a Voronoi
// diagram (nine int2 seeds read k pixels apart), FNV-1a hashes of variable-length strings
// (a lane a string, byte by byte), stereo matching by 3x3 sums of absolute differences
// over 32 disparities (__usad), Sobol points by Gray code (__ffs and lane-varying
// __constant__ direction numbers), neighbour counts in a uniform grid of sorted particles
// (27 cells a particle), and polynomial products mod p (64-bit remainders, a triangle of
// trip counts over few threads). Predicted before their first GPU run.

extern "C" {

// one jump-flooding step on an n x n grid: each pixel keeps the nearest of the seeds it
// and its eight neighbours k pixels away hold ((-1, -1): none)
__global__ void jump_flood(const int2 *in, int2 *out, int n, int k) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n) return;
    int2 best = in[y * n + x];
    int bd = best.x < 0 ? 0x7fffffff : (best.x - x) * (best.x - x) + (best.y - y) * (best.y - y);
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int qx = x + dx * k, qy = y + dy * k;
            if ((dx | dy) == 0 || qx < 0 || qy < 0 || qx >= n || qy >= n) continue;
            int2 s = in[qy * n + qx];
            if (s.x < 0) continue;
            int d = (s.x - x) * (s.x - x) + (s.y - y) * (s.y - y);
            if (d < bd) { bd = d; best = s; }
        }
    out[y * n + x] = best;
}

// h[i] = FNV-1a (32-bit) of the bytes buf[off[i] .. off[i + 1])
__global__ void fnv_strings(const unsigned char *buf, const int *off, unsigned *h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = 2166136261u;
    for (int j = off[i]; j < off[i + 1]; ++j) v = (v ^ buf[j]) * 16777619u;
    h[i] = v;
}

// disp = the disparity d < 32 whose 3x3 window of |L(x, y) - R(x - d, y)| sums least
// (columns clamped at the edges; the first of equal sums)
__global__ void stereo_sad(const unsigned char *L, const unsigned char *R, unsigned char *disp, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    unsigned best = 0xffffffffu;
    int bd = 0;
    for (int d = 0; d < 32; ++d) {
        unsigned s = 0u;
        for (int j = -1; j <= 1; ++j) {
            int yy = min(max(y + j, 0), h - 1);
            for (int i = -1; i <= 1; ++i) {
                int xl = min(max(x + i, 0), w - 1), xr = min(max(x + i - d, 0), w - 1);
                s = __usad(L[yy * w + xl], R[yy * w + xr], s);
            }
        }
        if (s < best) { best = s; bd = d; }
    }
    disp[y * w + x] = (unsigned char)bd;
}

__constant__ unsigned c_sobol[4 * 32];     // direction numbers, 32 a dimension

// out[dim * n + i] = the i-th Sobol point's coordinate dim (as a 32-bit fraction): the XOR
// of the direction numbers of the set bits of i's Gray code
__global__ void sobol_points(unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, dim = blockIdx.y;
    if (i >= n) return;
    unsigned g = (unsigned)i ^ ((unsigned)i >> 1), x = 0u;
    while (g) {
        x ^= c_sobol[32 * dim + __ffs(g) - 1];
        g &= g - 1u;
    }
    out[dim * n + i] = x;
}

// cnt[i] = how many particles (itself included) lie within r of particle i: particles
// sorted by cell of a g^3 grid over the unit cube, cell c holding [start[c], end[c])
__global__ void grid_neighbors(const float4 *p, const int *start, const int *end, int *cnt, int n, int g, float r2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 q = p[i];
    int cx = min((int)(q.x * g), g - 1), cy = min((int)(q.y * g), g - 1), cz = min((int)(q.z * g), g - 1);
    int c = 0;
    for (int z = max(cz - 1, 0); z <= min(cz + 1, g - 1); ++z)
        for (int y = max(cy - 1, 0); y <= min(cy + 1, g - 1); ++y)
            for (int x = max(cx - 1, 0); x <= min(cx + 1, g - 1); ++x) {
                int cell = (z * g + y) * g + x;
                for (int j = start[cell]; j < end[cell]; ++j) {
                    float4 o = p[j];
                    float dx = o.x - q.x, dy = o.y - q.y, dz = o.z - q.z;
                    if (dx * dx + dy * dy + dz * dz <= r2) ++c;
                }
            }
    cnt[i] = c;
}

// c = a * b mod p for polynomials of n coefficients: a thread a coefficient of the
// product, a 64-bit remainder a term
__global__ void polymul_mod(const unsigned *a, const unsigned *b, unsigned *c, int n, unsigned p) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= 2 * n - 1) return;
    unsigned long long acc = 0ull;
    for (int i = max(0, k - n + 1); i <= min(k, n - 1); ++i)
        acc = (acc + (unsigned long long)a[i] * b[k - i]) % p;
    c[k] = (unsigned)acc;
}

}
