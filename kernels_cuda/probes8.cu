// Kernels written in session 9 to test the timing model on more course-typical code it
// was not built against (family probe-unseen7): a vector sum through float4 (16-byte
// accesses), a binary search of each query in a sorted table (a chain of dependent
// gathers), primality by trial division (an integer-remainder loop whose trip count
// depends on the data), inserting keys into an open-addressing hash table with atomicCAS
// (linear probing), a bilinear image upscale, and a degree-15 polynomial by Horner's rule
// with its coefficients in global memory (the same address in every lane).
extern "C" {

// c = a + b, four floats a thread
__global__ void vec4_add(const float4 *a, const float4 *b, float4 *c, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 x = a[i], y = b[i];
        c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}

// out[i] = the first index of the sorted table whose value is not less than q[i]
__global__ void search_sorted(const int *table, int m, const int *q, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int key = q[i];
    int lo = 0, hi = m;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (table[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    out[i] = lo;
}

// flags[i] = 1 if i is prime, by trial division with odd divisors up to sqrt(i)
__global__ void prime_flags(unsigned char *flags, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int prime = i >= 2 && (i == 2 || (i & 1));
    for (unsigned d = 3; prime && d * d <= i; d += 2)
        if (i % d == 0) prime = 0;
    flags[i] = (unsigned char)prime;
}

// insert each key into a table of cap slots (a power of two, EMPTY = 0xffffffff),
// probing linearly from a multiplicative hash
__global__ void hash_insert(const unsigned *keys, unsigned *table, unsigned cap, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned k = keys[i];
    unsigned h = (k * 2654435761u) & (cap - 1);
    while (true) {
        unsigned prev = atomicCAS(&table[h], 0xffffffffu, k);
        if (prev == 0xffffffffu || prev == k) break;
        h = (h + 1) & (cap - 1);
    }
}

// upscale a w x h float image to 2w x 2h by bilinear interpolation (pixel centres aligned)
__global__ void resize_bilinear(const float *in, float *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int W = 2 * w, H = 2 * h;
    if (x >= W || y >= H) return;
    float sx = fminf(fmaxf((x + 0.5f) * 0.5f - 0.5f, 0.0f), (float)(w - 1));
    float sy = fminf(fmaxf((y + 0.5f) * 0.5f - 0.5f, 0.0f), (float)(h - 1));
    int x0 = (int)sx, y0 = (int)sy;
    int x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1);
    float fx = sx - x0, fy = sy - y0;
    float top = in[y0 * w + x0] * (1.0f - fx) + in[y0 * w + x1] * fx;
    float bot = in[y1 * w + x0] * (1.0f - fx) + in[y1 * w + x1] * fx;
    out[y * W + x] = top * (1.0f - fy) + bot * fy;
}

// y[i] = c[0] + c[1] x + ... + c[15] x^15 by Horner's rule
__global__ void poly_horner(const float *x, const float *c, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], acc = c[15];
    for (int k = 14; k >= 0; k--)
        acc = acc * v + c[k];
    y[i] = acc;
}

}
