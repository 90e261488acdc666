// probe-unseen48 (session 33): more of what CUDA courses and textbooks have students write,
// in forms no probe had tried: SAXPY by a grid-stride loop launched with only two blocks
// of 256 an SM (a quarter of the warps an SM can hold streaming from DRAM), an early
// return for the odd threads before a Newton loop (every warp computes with half its
// lanes), the naive O(n^2) discrete Fourier transform of one signal, a thread a frequency
// (sincosf a term, the signal read by broadcast, a grid of 32 blocks), eigenvalues of
// symmetric tridiagonal 32 x 32 matrices by bisection with Sturm counts (a warp a matrix,
// a lane an eigenvalue, chains of 32 dependent divisions), PMPP's blur of a byte image
// (the in-image pixels of a 5 x 5 window counted and averaged by an integer division), and
// PMPP's tiled 2-D convolution whose halo comes from global memory through the cache (a
// 16 x 16 block loads only its own tile; the edge lanes of every warp take the global
// path). Predicted before their first GPU run.

extern "C" {

// y = a x + y on n floats by a grid-stride loop (the grid is small: each thread many trips)
__global__ void saxpy_gridstride(float a, const float *x, float *y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

#define CB_STEPS 16

// out[i] = the cube root of 1 + |in[i]| by 16 Newton steps r = (2 r + a / r^2) / 3 from
// r = a, for even i only: the odd threads return at once (out[i] untouched), so each warp
// runs the loop with 16 of its 32 lanes
__global__ void cbrt_even_only(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || (i & 1)) return;
    float a = 1.0f + fabsf(in[i]), r = a;
    for (int k = 0; k < CB_STEPS; ++k) r = (2.0f * r + a / (r * r)) * (1.0f / 3.0f);
    out[i] = r;
}

// X[k] = sum over t < n of x[t] e^(-2 pi i k t / n), x and X complex (float2): a thread a
// frequency k, n terms each; the turn (k t) mod n kept in an int (an add and a compare a
// term) so that sincosf's argument stays in (-2 pi, 0]; x[t] the same address in every
// lane of a warp
__global__ void dft_naive(const float2 *x, float2 *X, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    float w = -6.28318530718f / (float)n, re = 0.0f, im = 0.0f;
    int m = 0;
    for (int t = 0; t < n; ++t) {
        float s, c;
        sincosf(w * (float)m, &s, &c);
        float2 v = x[t];
        re += v.x * c - v.y * s;
        im += v.x * s + v.y * c;
        m += k;
        if (m >= n) m -= n;
    }
    X[k] = make_float2(re, im);
}

#define SB_N 32
#define SB_WARPS 8
#define SB_STEPS 24

// eig[32 m + k] = the k-th smallest eigenvalue of the symmetric tridiagonal 32 x 32 matrix m
// (diagonal d[32 m ..], off-diagonal e[32 m ..], its last entry unused): a warp a matrix, a
// lane an eigenvalue; the Gershgorin interval by xor shuffles, then 24 bisections, each a
// Sturm count (how many of q_0 = d_0 - x, q_i = d_i - x - e_{i-1}^2 / q_{i-1} are negative:
// 32 dependent divisions, tiny pivots replaced by -1e-30) with d and e^2 in shared memory,
// read by broadcast; blocks of 256 (8 matrices)
__global__ void sturm_bisect32(const float *d, const float *e, float *eig, int nmat) {
    __shared__ float sd[SB_WARPS][SB_N], se2[SB_WARPS][SB_N];
    int wi = threadIdx.x >> 5, lane = threadIdx.x & 31;
    int m = blockIdx.x * SB_WARPS + wi;
    if (m >= nmat) return;
    float di = d[m * SB_N + lane];
    float ei = lane < SB_N - 1 ? e[m * SB_N + lane] : 0.0f;
    sd[wi][lane] = di;
    se2[wi][lane] = ei * ei;
    float eprev = __shfl_up_sync(0xffffffffu, ei, 1);
    if (lane == 0) eprev = 0.0f;
    float lo = di - fabsf(eprev) - fabsf(ei), hi = di + fabsf(eprev) + fabsf(ei);
    for (int o = 16; o > 0; o >>= 1) {
        lo = fminf(lo, __shfl_xor_sync(0xffffffffu, lo, o));
        hi = fmaxf(hi, __shfl_xor_sync(0xffffffffu, hi, o));
    }
    __syncwarp();
    for (int s = 0; s < SB_STEPS; ++s) {
        float x = 0.5f * (lo + hi);
        float q = sd[wi][0] - x;
        int cnt = q < 0.0f;
        for (int i = 1; i < SB_N; ++i) {
            if (fabsf(q) < 1e-30f) q = -1e-30f;
            q = sd[wi][i] - x - se2[wi][i - 1] / q;
            cnt += q < 0.0f;
        }
        if (cnt > lane) hi = x;
        else lo = x;
    }
    eig[m * SB_N + lane] = 0.5f * (lo + hi);
}

#define BLUR_SIZE 2

// PMPP's blurKernel on a w x h byte image: out(x, y) = the sum of the pixels of the 5 x 5
// window around (x, y) that lie inside the image divided (as ints, truncating) by how many
// they are; a thread a pixel, 25 byte loads each
__global__ void blur_u8(const unsigned char *in, unsigned char *out, int w, int h) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < w && row < h) {
        int pixVal = 0, pixels = 0;
        for (int blurRow = -BLUR_SIZE; blurRow < BLUR_SIZE + 1; ++blurRow) {
            for (int blurCol = -BLUR_SIZE; blurCol < BLUR_SIZE + 1; ++blurCol) {
                int curRow = row + blurRow, curCol = col + blurCol;
                if (curRow >= 0 && curRow < h && curCol >= 0 && curCol < w) {
                    pixVal += in[curRow * w + curCol];
                    ++pixels;
                }
            }
        }
        out[row * w + col] = (unsigned char)(pixVal / pixels);
    }
}

#define CH_T 16
#define CH_R 2

__constant__ float c_filt5[25];

// out(x, y) = sum over fy, fx in [0, 5) of c_filt5[5 fy + fx] in(x + fx - 2, y + fy - 2),
// zeros outside the w x h image (PMPP's tiled convolution with halo cells from the
// cache): a 16 x 16 block loads only its 16 x 16 tile into shared memory; a tap inside
// the tile reads it there, one outside reads global memory
__global__ void conv5x5_cached_halo(const float *in, float *out, int w, int h) {
    __shared__ float tile[CH_T][CH_T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * CH_T + tx, row = blockIdx.y * CH_T + ty;
    tile[ty][tx] = row < h && col < w ? in[row * w + col] : 0.0f;
    __syncthreads();
    if (col >= w || row >= h) return;
    float s = 0.0f;
    for (int fy = 0; fy < 2 * CH_R + 1; ++fy) {
        for (int fx = 0; fx < 2 * CH_R + 1; ++fx) {
            int sy = ty - CH_R + fy, sx = tx - CH_R + fx;
            int y = row - CH_R + fy, x = col - CH_R + fx;
            if (sy >= 0 && sy < CH_T && sx >= 0 && sx < CH_T)
                s += c_filt5[fy * 5 + fx] * tile[sy][sx];
            else if (y >= 0 && y < h && x >= 0 && x < w)
                s += c_filt5[fy * 5 + fx] * in[y * w + x];
        }
    }
    out[row * w + col] = s;
}

}
