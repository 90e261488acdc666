// probe-unseen38 (session 31): kinds no probe had tried: a 32x32 bit-matrix transpose by
// 32 ballots a warp, a Gray-Scott reaction-diffusion step (two fields, 5-point Laplacians),
// RGB to planar YUV 4:2:0 (chroma averaged over 2x2 pixels), trapezoid integration of
// sinf(x) expf(-x) with a block tree and one double atomicAdd a block, and a softmax down
// the columns (a thread a column walking its rows). Predicted before their first GPU run.

extern "C" {

// each warp transposes the 32 x 32 bit matrix of its 32 words (row r = word r, column c =
// bit c): out word c of the warp's tile holds bit c of every row, by one ballot a column
__global__ void bitmat_transpose(const unsigned *in, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    unsigned row = i < n ? in[i] : 0u, mine = 0u;
#pragma unroll
    for (int c = 0; c < 32; ++c) {
        unsigned col = __ballot_sync(0xffffffffu, (row >> c) & 1u);
        if (lane == c) mine = col;
    }
    if (i < n) out[i] = mine;
}

// one explicit Gray-Scott step on an n x n periodic grid
__global__ void gray_scott(const float *u, const float *v, float *u2, float *v2, int n, float du, float dv,
                           float f, float k, float dt) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n) return;
    int xm = x == 0 ? n - 1 : x - 1, xp = x == n - 1 ? 0 : x + 1;
    int ym = y == 0 ? n - 1 : y - 1, yp = y == n - 1 ? 0 : y + 1;
    int c = y * n + x;
    float uc = u[c], vc = v[c];
    float lu = u[y * n + xm] + u[y * n + xp] + u[ym * n + x] + u[yp * n + x] - 4.0f * uc;
    float lv = v[y * n + xm] + v[y * n + xp] + v[ym * n + x] + v[yp * n + x] - 4.0f * vc;
    float uvv = uc * vc * vc;
    u2[c] = uc + dt * (du * lu - uvv + f * (1.0f - uc));
    v2[c] = vc + dt * (dv * lv + uvv - (f + k) * vc);
}

// a w x h RGB image (3 bytes a pixel) to planar YUV 4:2:0: a thread a 2x2 block writes its
// four Y bytes and one U and one V byte (BT.601, integer arithmetic)
__global__ void rgb_to_yuv420(const unsigned char *rgb, unsigned char *yp, unsigned char *up, unsigned char *vp,
                              int w, int h) {
    int bx = blockIdx.x * blockDim.x + threadIdx.x, by = blockIdx.y * blockDim.y + threadIdx.y;
    if (2 * bx >= w || 2 * by >= h) return;
    int su = 0, sv = 0;
    for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) {
            int p = (2 * by + dy) * w + 2 * bx + dx;
            int r = rgb[3 * p], g = rgb[3 * p + 1], b = rgb[3 * p + 2];
            yp[p] = (unsigned char)(((66 * r + 129 * g + 25 * b + 128) >> 8) + 16);
            su += ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128;
            sv += ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128;
        }
    int q = by * (w / 2) + bx;
    up[q] = (unsigned char)((su + 2) >> 2);
    vp[q] = (unsigned char)((sv + 2) >> 2);
}

// *total += the trapezoid rule for sinf(x) expf(-x) over [0, b] with n intervals: a thread
// a grid-stride share, a shared tree a block, one double atomicAdd a block
__global__ void trapz_integrate(double *total, int n, float b) {
    __shared__ float part[256];
    float hstep = b / n, s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float x0 = i * hstep, x1 = x0 + hstep;
        s += 0.5f * hstep * (sinf(x0) * expf(-x0) + sinf(x1) * expf(-x1));
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int o = blockDim.x / 2; o > 0; o >>= 1) {
        if (threadIdx.x < o) part[threadIdx.x] += part[threadIdx.x + o];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(total, (double)part[0]);
}

// softmax of each column of a rows x cols row-major matrix: a thread a column, three
// passes down its rows (max, sum of exponentials, normalize)
__global__ void col_softmax(const float *a, float *out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float m = -INFINITY;
    for (int r = 0; r < rows; ++r) m = fmaxf(m, a[(size_t)r * cols + c]);
    float s = 0.0f;
    for (int r = 0; r < rows; ++r) s += expf(a[(size_t)r * cols + c] - m);
    float inv = 1.0f / s;
    for (int r = 0; r < rows; ++r) out[(size_t)r * cols + c] = expf(a[(size_t)r * cols + c] - m) * inv;
}

}
