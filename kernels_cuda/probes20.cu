// probe-unseen19 (session 18): kernel kinds no probe had tried: a work-efficient
// (Blelloch) scan in shared memory with its bank conflicts, a CSR SpMV with one thread a
// row of skewed lengths, a bitonic sort of 1024 keys a block in shared memory, a GEMV
// with one thread a row (every lane on its own line, each line re-read 8 times), a
// per-thread insertion sort in a local array indexed at run time, a byte pattern search
// with early exit, a batched tridiagonal (Thomas) solve with divisions on a dependent
// chain, and Box-Muller normals (logf, sqrtf, sincosf).
// Predicted before their first GPU run.

extern "C" {

// exclusive scan of each block's 1024 ints (512 threads, two elements a thread), the
// textbook up-sweep / down-sweep with no padding: strides of 2^d words conflict in banks
__global__ void blelloch_scan(const int *in, int *out, int n) {
    __shared__ int t[1024];
    int tid = threadIdx.x;
    int base = blockIdx.x * 1024;
    t[2 * tid] = base + 2 * tid < n ? in[base + 2 * tid] : 0;
    t[2 * tid + 1] = base + 2 * tid + 1 < n ? in[base + 2 * tid + 1] : 0;
    int offset = 1;
    for (int d = 512; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            t[bi] += t[ai];
        }
        offset *= 2;
    }
    if (tid == 0) t[1023] = 0;
    for (int d = 1; d < 1024; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            int v = t[ai];
            t[ai] = t[bi];
            t[bi] += v;
        }
    }
    __syncthreads();
    if (base + 2 * tid < n) out[base + 2 * tid] = t[2 * tid];
    if (base + 2 * tid + 1 < n) out[base + 2 * tid + 1] = t[2 * tid + 1];
}

// y = A x, A in CSR, one thread a row (rows of very different lengths in one warp)
__global__ void spmv_csr_scalar(const int *row_ptr, const int *col, const float *val,
                                const float *x, float *y, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float s = 0.0f;
        for (int j = row_ptr[r]; j < row_ptr[r + 1]; j++) s += val[j] * x[col[j]];
        y[r] = s;
    }
}

// each block sorts its 1024 keys ascending in shared memory (512 threads, one
// compare-exchange a thread a step, 55 steps)
__global__ void bitonic_sort_1024(unsigned *keys) {
    __shared__ unsigned s[1024];
    int tid = threadIdx.x;
    unsigned *k = keys + blockIdx.x * 1024;
    s[tid] = k[tid];
    s[tid + 512] = k[tid + 512];
    for (int size = 2; size <= 1024; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            __syncthreads();
            int i = 2 * tid - (tid & (stride - 1));
            int j = i + stride;
            bool up = (i & size) == 0;
            unsigned a = s[i], b = s[j];
            if ((a > b) == up) {
                s[i] = b;
                s[j] = a;
            }
        }
    }
    __syncthreads();
    k[tid] = s[tid];
    k[tid + 512] = s[tid + 512];
}

// y = A x with one thread a row of a row-major A: a warp's load touches 32 lines, and
// each line serves the next 8 columns if it is still in L1
__global__ void gemv_row_thread(const float *A, const float *x, float *y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        const float *a = A + (size_t)r * cols;
        float s = 0.0f;
        for (int j = 0; j < cols; j++) s += a[j] * x[j];
        y[r] = s;
    }
}

// each thread sorts its 16 floats (element k of thread i at k * n + i) by insertion in a
// local array: the indices depend on the data, so the array lives in local memory
__global__ void insertion_sort16(float *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a[16];
    for (int k = 0; k < 16; k++) a[k] = v[k * n + i];
    for (int k = 1; k < 16; k++) {
        float key = a[k];
        int j = k - 1;
        while (j >= 0 && a[j] > key) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = key;
    }
    for (int k = 0; k < 16; k++) v[k * n + i] = a[k];
}

// how many positions of the text start the pattern: each thread compares from its
// position until the first mismatch; a warp's matches are counted with one atomicAdd
__global__ void pattern_count(const unsigned char *text, const unsigned char *pat, int m,
                              int n, unsigned *count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int hit = 0;
    if (i + m <= n) {
        int k = 0;
        while (k < m && text[i + k] == pat[k]) k++;
        hit = k == m;
    }
    unsigned b = __ballot_sync(0xffffffffu, hit);
    if ((threadIdx.x & 31) == 0 && b) atomicAdd(count, __popc(b));
}

// batched tridiagonal systems, one a thread, m equations, interleaved (equation k of
// system s at k * ns + s): a_k x_{k-1} + b_k x_k + c_k x_{k+1} = d_k
__global__ void thomas_batch(const float *a, const float *b, const float *c, const float *d,
                             float *cp, float *dp, float *x, int m, int ns) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= ns) return;
    float cprev = c[s] / b[s];
    float dprev = d[s] / b[s];
    cp[s] = cprev;
    dp[s] = dprev;
    for (int k = 1; k < m; k++) {
        int e = k * ns + s;
        float den = b[e] - a[e] * cprev;
        cprev = c[e] / den;
        dprev = (d[e] - a[e] * dprev) / den;
        cp[e] = cprev;
        dp[e] = dprev;
    }
    float xk = dprev;
    x[(m - 1) * ns + s] = xk;
    for (int k = m - 2; k >= 0; k--) {
        int e = k * ns + s;
        xk = dp[e] - cp[e] * xk;
        x[e] = xk;
    }
}

// two standard normals a thread from two uniforms (Box-Muller)
__global__ void box_muller(const unsigned *bits, float *out, int npairs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < npairs) {
        float u1 = ((bits[2 * i] >> 8) + 1) * (1.0f / 16777216.0f);
        float u2 = (bits[2 * i + 1] >> 8) * (1.0f / 16777216.0f);
        float r = sqrtf(-2.0f * logf(u1));
        float sn, cs;
        sincosf(6.2831853f * u2, &sn, &cs);
        out[2 * i] = r * cs;
        out[2 * i + 1] = r * sn;
    }
}

}
