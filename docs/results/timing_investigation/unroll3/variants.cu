// Variants of probes236.cu's dm_probe_update (and of probes22.cu's integral_rows) to see
// what keeps nvcc from hoisting the unrolled trips' loads.  Compiled only (sm_90 SASS):
// unroll3/variants.sh.
#include <cuda_runtime.h>

struct ScanPos {
    int x, y;
};
__constant__ ScanPos c_pos[1024];

// v0: the probe as it is
__global__ void v0_orig(const float2 *psi, const float2 *obj, int n, int W, int nscan, double reg,
                        float2 *probe) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n * n) return;
    int y = k / n, x = k % n;
    double nr = 0.0, ni = 0.0, den = 0.0;
    for (int j = 0; j < nscan; j++) {
        ScanPos p = c_pos[j];
        float2 o = obj[(p.y + y) * W + p.x + x];
        float2 s = psi[j * n * n + k];
        nr += (double)o.x * s.x + (double)o.y * s.y;
        ni += (double)o.x * s.y - (double)o.y * s.x;
        den += (double)o.x * o.x + (double)o.y * o.y;
    }
    double d = den + reg;
    probe[k] = make_float2((float)(nr / d), (float)(ni / d));
}

// v1: the same in float
__global__ void v1_float(const float2 *psi, const float2 *obj, int n, int W, int nscan, float reg,
                         float2 *probe) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n * n) return;
    int y = k / n, x = k % n;
    float nr = 0.0f, ni = 0.0f, den = 0.0f;
    for (int j = 0; j < nscan; j++) {
        ScanPos p = c_pos[j];
        float2 o = obj[(p.y + y) * W + p.x + x];
        float2 s = psi[j * n * n + k];
        nr += o.x * s.x + o.y * s.y;
        ni += o.x * s.y - o.y * s.x;
        den += o.x * o.x + o.y * o.y;
    }
    float d = den + reg;
    probe[k] = make_float2(nr / d, ni / d);
}

// v2: double, the positions from a global array instead of __constant__
__global__ void v2_gpos(const float2 *psi, const float2 *obj, const int2 *pos, int n, int W, int nscan,
                        double reg, float2 *probe) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n * n) return;
    int y = k / n, x = k % n;
    double nr = 0.0, ni = 0.0, den = 0.0;
    for (int j = 0; j < nscan; j++) {
        int2 p = pos[j];
        float2 o = obj[(p.y + y) * W + p.x + x];
        float2 s = psi[j * n * n + k];
        nr += (double)o.x * s.x + (double)o.y * s.y;
        ni += (double)o.x * s.y - (double)o.y * s.x;
        den += (double)o.x * o.x + (double)o.y * o.y;
    }
    double d = den + reg;
    probe[k] = make_float2((float)(nr / d), (float)(ni / d));
}

// v3: double, no __constant__ table: a fixed shift per position
__global__ void v3_noconst(const float2 *psi, const float2 *obj, int n, int W, int nscan, double reg,
                           float2 *probe) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n * n) return;
    int y = k / n, x = k % n;
    double nr = 0.0, ni = 0.0, den = 0.0;
    for (int j = 0; j < nscan; j++) {
        float2 o = obj[(j + y) * W + j + x];
        float2 s = psi[j * n * n + k];
        nr += (double)o.x * s.x + (double)o.y * s.y;
        ni += (double)o.x * s.y - (double)o.y * s.x;
        den += (double)o.x * o.x + (double)o.y * o.y;
    }
    double d = den + reg;
    probe[k] = make_float2((float)(nr / d), (float)(ni / d));
}

// v4: double, one accumulator (den)
__global__ void v4_oneacc(const float2 *psi, const float2 *obj, int n, int W, int nscan, double reg,
                          float2 *probe) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n * n) return;
    int y = k / n, x = k % n;
    double den = 0.0;
    for (int j = 0; j < nscan; j++) {
        ScanPos p = c_pos[j];
        float2 o = obj[(p.y + y) * W + p.x + x];
        float2 s = psi[j * n * n + k];
        den += (double)o.x * s.x + (double)o.y * s.y;
    }
    probe[k] = make_float2((float)den, (float)reg);
}

// v5: the inputs in double (no conversions)
__global__ void v5_d2(const double2 *psi, const double2 *obj, int n, int W, int nscan, double reg,
                      float2 *probe) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n * n) return;
    int y = k / n, x = k % n;
    double nr = 0.0, ni = 0.0, den = 0.0;
    for (int j = 0; j < nscan; j++) {
        ScanPos p = c_pos[j];
        double2 o = obj[(p.y + y) * W + p.x + x];
        double2 s = psi[j * n * n + k];
        nr += o.x * s.x + o.y * s.y;
        ni += o.x * s.y - o.y * s.x;
        den += o.x * o.x + o.y * o.y;
    }
    double d = den + reg;
    probe[k] = make_float2((float)(nr / d), (float)(ni / d));
}

// v6: the original with __launch_bounds__(256, 1) (room for more registers)
__global__ void __launch_bounds__(256, 1) v6_lb(const float2 *psi, const float2 *obj, int n, int W, int nscan,
                                                double reg, float2 *probe) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n * n) return;
    int y = k / n, x = k % n;
    double nr = 0.0, ni = 0.0, den = 0.0;
    for (int j = 0; j < nscan; j++) {
        ScanPos p = c_pos[j];
        float2 o = obj[(p.y + y) * W + p.x + x];
        float2 s = psi[j * n * n + k];
        nr += (double)o.x * s.x + (double)o.y * s.y;
        ni += (double)o.x * s.y - (double)o.y * s.x;
        den += (double)o.x * o.x + (double)o.y * o.y;
    }
    double d = den + reg;
    probe[k] = make_float2((float)(nr / d), (float)(ni / d));
}

// v7: double, the conversions kept but the sums in float: (float)((double)a * b)
__global__ void v7_f32acc(const float2 *psi, const float2 *obj, int n, int W, int nscan, double reg,
                          float2 *probe) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n * n) return;
    int y = k / n, x = k % n;
    float nr = 0.0f, ni = 0.0f, den = 0.0f;
    for (int j = 0; j < nscan; j++) {
        ScanPos p = c_pos[j];
        float2 o = obj[(p.y + y) * W + p.x + x];
        float2 s = psi[j * n * n + k];
        nr += (float)((double)o.x * s.x + (double)o.y * s.y);
        ni += (float)((double)o.x * s.y - (double)o.y * s.x);
        den += (float)((double)o.x * o.x + (double)o.y * o.y);
    }
    double d = den + reg;
    probe[k] = make_float2((float)(nr / d), (float)(ni / d));
}

// integral_rows (probes22.cu) as it is, and with __restrict__ pointers
__global__ void ir_orig(const float *img, float *out, int rows, int cols) {
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

__global__ void ir_restrict(const float *__restrict__ img, float *__restrict__ out, int rows, int cols) {
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
