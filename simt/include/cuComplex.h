/* simt's cuComplex.h: CUDA's single- and double-precision complex numbers, written for
 * simt.  The types are CUDA's (cuFloatComplex is float2, cuDoubleComplex is double2, so
 * arrays of them have the layout cudaMalloc'd complex data has) and every function
 * computes with CUDA's formulas in CUDA's order, so results are CUDA's bit for bit:
 *
 *   cuCmulf(x, y)  re = xr*yr - xi*yi,  im = xr*yi + xi*yr
 *   cuCdivf(x, y)  scaled by s = |yr| + |yi| first (no overflow for huge y), then
 *                  re = (xr'*yr' + xi'*yi') / (yr'^2 + yi'^2), im = (xi'*yr' - xr'*yi') / ...,
 *                  the division by the norm as one reciprocal and two products
 *   cuCabsf(x)     v * sqrt(1 + (w/v)^2), v the larger magnitude and w the smaller;
 *                  v + w where v is 0 or v or w is above FLT_MAX (an infinity; a NaN
 *                  part makes v NaN, so |inf + NaN i| is NaN, where C99's cabs gives inf)
 *   cuCfmaf(x,y,d) x*y + d: re = xr*yr + dr, then - xi*yi; im = xr*yi + di, then + xi*yr
 *
 * Contraction: nvcc (-fmad=true, its default) fuses a*b + c and a*b - c into one FFMA or
 * DFMA, and of a sum or difference of two products it fuses the first (xr*yr - xi*yi is
 * fma(xr, yr, -(xi*yi))).  simt contracts each expression the same way (lower.py's
 * try_fma), so each formula below is one expression where CUDA's is; cuCfmaf's
 * "-(xi*yi) + re" is spelled "re - xi*yi", the same single rounding fma(-xi, yi, re).
 * A fused operation rounds once, in double too (simt.ops._dfma).  Division and sqrt are
 * IEEE (CUDA's -prec-div=true, -prec-sqrt=true defaults).  Every
 * function was compared on an H100 with CUDA's own header, one kernel per function over
 * 8192 values each (infinities, NaN, zeros, huge and tiny magnitudes): the same bits.
 *
 * What can differ from the GPU, all outside these formulas:
 *  - the GPU's compiler contracts after inlining and common-subexpression elimination.
 *    A product that two calls in one kernel share (cuCmulf(x, y) and cuCfmaf(x, y, d):
 *    both compute xr*yr) has a use that is no addition, and nvcc then fuses neither use;
 *    simt fuses each call's.  A product made outside a call and added inside it
 *    (cuCaddf(make_cuFloatComplex(a * b, 0.0f), z)) is fused by nvcc, not by simt, as
 *    for a product kept in a local anywhere;
 *  - a NaN's bits: simt keeps numpy's, the GPU makes its canonical 0x7fffffff;
 *  - under --use_fast_math (or CuPy's -ftz=true, with which --real compiles: subnormal
 *    floats read as zero) the GPU's floats differ; simt computes nvcc's defaults.
 *
 * The functions are __host__ __device__ static __inline__, as CUDA's are.  Under --real
 * the file goes to NVRTC with CUDA's own header instead. */
#ifndef SIMT_CUCOMPLEX_H
#define SIMT_CUCOMPLEX_H

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

/* ---- single precision ---- */
__host__ __device__ static __inline__ float cuCrealf(cuFloatComplex z) { return z.x; }
__host__ __device__ static __inline__ float cuCimagf(cuFloatComplex z) { return z.y; }

__host__ __device__ static __inline__ cuFloatComplex make_cuFloatComplex(float re, float im) {
    cuFloatComplex z;
    z.x = re;
    z.y = im;
    return z;
}

__host__ __device__ static __inline__ cuFloatComplex cuConjf(cuFloatComplex z) {
    return make_cuFloatComplex(z.x, -z.y);
}

__host__ __device__ static __inline__ cuFloatComplex cuCaddf(cuFloatComplex a, cuFloatComplex b) {
    return make_cuFloatComplex(a.x + b.x, a.y + b.y);
}

__host__ __device__ static __inline__ cuFloatComplex cuCsubf(cuFloatComplex a, cuFloatComplex b) {
    return make_cuFloatComplex(a.x - b.x, a.y - b.y);
}

__host__ __device__ static __inline__ cuFloatComplex cuCmulf(cuFloatComplex a, cuFloatComplex b) {
    return make_cuFloatComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__host__ __device__ static __inline__ cuFloatComplex cuCdivf(cuFloatComplex a, cuFloatComplex b) {
    float scale = fabsf(b.x) + fabsf(b.y);
    float inv = 1.0f / scale;
    float ar = a.x * inv, ai = a.y * inv;
    float br = b.x * inv, bi = b.y * inv;
    float norm = br * br + bi * bi;
    inv = 1.0f / norm;
    return make_cuFloatComplex((ar * br + ai * bi) * inv, (ai * br - ar * bi) * inv);
}

__host__ __device__ static __inline__ float cuCabsf(cuFloatComplex z) {
    float p = fabsf(z.x), q = fabsf(z.y);
    float big, small;
    if (p > q) {
        big = p;
        small = q;
    } else {
        big = q;
        small = p;
    }
    float r = small / big;
    r = 1.0f + r * r;
    r = big * sqrtf(r);
    if (big == 0.0f || big > 3.402823466e38f || small > 3.402823466e38f) {
        r = big + small;
    }
    return r;
}

/* ---- double precision ---- */
__host__ __device__ static __inline__ double cuCreal(cuDoubleComplex z) { return z.x; }
__host__ __device__ static __inline__ double cuCimag(cuDoubleComplex z) { return z.y; }

__host__ __device__ static __inline__ cuDoubleComplex make_cuDoubleComplex(double re, double im) {
    cuDoubleComplex z;
    z.x = re;
    z.y = im;
    return z;
}

__host__ __device__ static __inline__ cuDoubleComplex cuConj(cuDoubleComplex z) {
    return make_cuDoubleComplex(z.x, -z.y);
}

__host__ __device__ static __inline__ cuDoubleComplex cuCadd(cuDoubleComplex a, cuDoubleComplex b) {
    return make_cuDoubleComplex(a.x + b.x, a.y + b.y);
}

__host__ __device__ static __inline__ cuDoubleComplex cuCsub(cuDoubleComplex a, cuDoubleComplex b) {
    return make_cuDoubleComplex(a.x - b.x, a.y - b.y);
}

__host__ __device__ static __inline__ cuDoubleComplex cuCmul(cuDoubleComplex a, cuDoubleComplex b) {
    return make_cuDoubleComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__host__ __device__ static __inline__ cuDoubleComplex cuCdiv(cuDoubleComplex a, cuDoubleComplex b) {
    double scale = fabs(b.x) + fabs(b.y);
    double inv = 1.0 / scale;
    double ar = a.x * inv, ai = a.y * inv;
    double br = b.x * inv, bi = b.y * inv;
    double norm = br * br + bi * bi;
    inv = 1.0 / norm;
    return make_cuDoubleComplex((ar * br + ai * bi) * inv, (ai * br - ar * bi) * inv);
}

__host__ __device__ static __inline__ double cuCabs(cuDoubleComplex z) {
    double p = fabs(z.x), q = fabs(z.y);
    double big, small;
    if (p > q) {
        big = p;
        small = q;
    } else {
        big = q;
        small = p;
    }
    double r = small / big;
    r = 1.0 + r * r;
    r = big * sqrt(r);
    if (big == 0.0 || big > 1.79769313486231570e+308 || small > 1.79769313486231570e+308) {
        r = big + small;
    }
    return r;
}

/* ---- the rest ---- */
__host__ __device__ static __inline__ cuComplex make_cuComplex(float re, float im) {
    return make_cuFloatComplex(re, im);
}

__host__ __device__ static __inline__ cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex z) {
    return make_cuDoubleComplex((double)z.x, (double)z.y);
}

__host__ __device__ static __inline__ cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex z) {
    return make_cuFloatComplex((float)z.x, (float)z.y);
}

/* x * y + d, with CUDA's order of the four fused steps */
__host__ __device__ static __inline__ cuFloatComplex cuCfmaf(cuFloatComplex x, cuFloatComplex y,
                                                             cuFloatComplex d) {
    float re = x.x * y.x + d.x;
    float im = x.x * y.y + d.y;
    re = re - x.y * y.y;
    im = x.y * y.x + im;
    return make_cuFloatComplex(re, im);
}

__host__ __device__ static __inline__ cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y,
                                                             cuDoubleComplex d) {
    double re = x.x * y.x + d.x;
    double im = x.x * y.y + d.y;
    re = re - x.y * y.y;
    im = x.y * y.x + im;
    return make_cuDoubleComplex(re, im);
}

#endif /* SIMT_CUCOMPLEX_H */
