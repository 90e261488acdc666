// probe-unseen21 (session 19): more kernel kinds no probe had tried: a merge-path merge
// of two sorted arrays, alpha blending of RGBA bytes through uchar4, a counting-sort
// scatter (atomicAdd with its result on 256 contended offsets, then scattered stores), a
// 1024-point radix-2 FFT a block in shared memory (bit reversal, __sincosf twiddles),
// running sums along image rows with one thread a row, a rule-110 cellular automaton step
// on packed bits, and a segmented sum by key with warp shuffles.
// Predicted before their first GPU run.

extern "C" {

// C = merge(A, B), A and B sorted, na = nb = n / 2; each thread writes 8 outputs from the
// point where its diagonal crosses the merge path (a binary search)
__global__ void merge_path(const int *A, const int *B, int *C, int na, int nb) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int diag = t * 8;
    if (diag >= na + nb) return;
    int lo = max(0, diag - nb), hi = min(diag, na);
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (A[mid] <= B[diag - mid - 1]) lo = mid + 1;
        else hi = mid;
    }
    int i = lo, j = diag - lo;
    for (int k = 0; k < 8 && diag + k < na + nb; k++) {
        bool takeA = j >= nb || (i < na && A[i] <= B[j]);
        C[diag + k] = takeA ? A[i] : B[j];
        if (takeA) i++; else j++;
    }
}

// out = a * alpha + b * (1 - alpha), per channel, RGBA pixels as uchar4
__global__ void alpha_blend(const uchar4 *a, const uchar4 *b, uchar4 *out, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uchar4 p = a[i], q = b[i];
        float w = 1.0f - alpha;
        out[i] = make_uchar4((unsigned char)(p.x * alpha + q.x * w + 0.5f),
                             (unsigned char)(p.y * alpha + q.y * w + 0.5f),
                             (unsigned char)(p.z * alpha + q.z * w + 0.5f),
                             (unsigned char)(p.w * alpha + q.w * w + 0.5f));
    }
}

// the scatter of a counting sort: each key takes the next slot of its digit's range
__global__ void counting_scatter(const unsigned int *keys, unsigned int *offsets, unsigned int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int k = keys[i];
        unsigned int pos = atomicAdd(&offsets[k & 255], 1u);
        out[pos] = k;
    }
}

// in-place radix-2 FFT of 1024 complex floats a block (512 threads, one butterfly each a
// stage), loaded in bit-reversed order
__global__ void fft1024(float2 *data) {
    __shared__ float2 s[1024];
    int tid = threadIdx.x;
    float2 *d = data + blockIdx.x * 1024;
    s[__brev(tid) >> 22] = d[tid];
    s[__brev(tid + 512) >> 22] = d[tid + 512];
    for (int half = 1; half < 1024; half *= 2) {
        __syncthreads();
        int group = tid / half, pos = tid % half;
        int i0 = group * 2 * half + pos, i1 = i0 + half;
        float sn, cs;
        __sincosf(-3.14159265f * pos / half, &sn, &cs);
        float2 u = s[i0], v = s[i1];
        float2 tv = make_float2(v.x * cs - v.y * sn, v.x * sn + v.y * cs);
        s[i0] = make_float2(u.x + tv.x, u.y + tv.y);
        s[i1] = make_float2(u.x - tv.x, u.y - tv.y);
    }
    __syncthreads();
    d[tid] = s[tid];
    d[tid + 512] = s[tid + 512];
}

// running sums along each row of a rows x cols image, one thread a row (each lane on its
// own row: every load of a warp touches 32 lines)
__global__ void integral_rows(const float *img, float *out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float s = 0.0f;
        const float *p = img + (size_t)r * cols;
        float *q = out + (size_t)r * cols;
        for (int c = 0; c < cols; c++) {
            s += p[c];
            q[c] = s;
        }
    }
}

// one step of rule 110 on n words of 32 cells (cell j of word i is bit j), the ends dead
__global__ void rule110(const unsigned int *cur, unsigned int *next, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int c = cur[i];
        unsigned int lw = i > 0 ? cur[i - 1] : 0u, rw = i + 1 < n ? cur[i + 1] : 0u;
        unsigned int l = (c << 1) | (lw >> 31);      // left neighbour of bit j: bit j - 1
        unsigned int r = (c >> 1) | (rw << 31);      // right neighbour: bit j + 1
        // rule 110 on (l, c, r): 0 for 111, 100 and 000, 1 otherwise
        next[i] = (c & ~(l & r)) | (~c & r);
    }
}

// sums of values by key (keys sorted, runs of any length): each warp adds up the runs in
// its 32 values with shuffles and the run's last lane adds it to out[key]
__global__ void segmented_sum(const int *keys, const float *vals, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int k = i < n ? keys[i] : -1;
    float v = i < n ? vals[i] : 0.0f;
    for (int off = 1; off < 32; off *= 2) {
        float up = __shfl_up_sync(0xffffffffu, v, off);
        int ku = __shfl_up_sync(0xffffffffu, k, off);
        if (lane >= off && ku == k) v += up;
    }
    int kn = __shfl_down_sync(0xffffffffu, k, 1);
    if (i < n && (lane == 31 || kn != k)) atomicAdd(&out[k], v);
}

}
