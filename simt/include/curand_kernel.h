/* simt's curand_kernel.h: cuRAND's device API for the XORWOW generator (curandState,
 * the default) and Philox4_32_10, written for simt (simt/curand.py says what it covers).
 * The states are laid out as cuRAND lays them out and the generators give cuRAND's bits:
 * XORWOW is Marsaglia's xorshift with a Weyl sequence; curand_init salts the seed and
 * jumps 2^67 draws a subsequence by GF(2) matrix powers, a base-4 digit at a time, as
 * cuRAND does (each step is __simt_xorwow_matvec, one output word of a precomputed matrix
 * times the 160-bit state, priced as the GPU's table walk).  Philox4x32-10 is Salmon et
 * al.'s counter-based generator.  Under --real the file goes to NVRTC with CUDA's own
 * header instead. */
#ifndef SIMT_CURAND_KERNEL_H
#define SIMT_CURAND_KERNEL_H

#define CURAND_2POW32_INV (2.3283064e-10f)
#define CURAND_2POW32_INV_DOUBLE (2.3283064365386963e-10)
#define CURAND_2POW53_INV_DOUBLE (1.1102230246251565e-16)
#define CURAND_2POW32_INV_2PI (2.3283064e-10f * 6.2831855f)
#define CURAND_PI_DOUBLE (3.1415926535897932)
#define EXTRA_FLAG_NORMAL 0x00000001
#define EXTRA_FLAG_LOG_NORMAL 0x00000002

struct curandStateXORWOW {
    unsigned int d, v[5];
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;

struct curandStatePhilox4_32_10 {
    uint4 ctr;
    uint4 output;
    uint2 key;
    unsigned int STATE;
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

/* ---- conversions of random words to distributions (shared by both generators) ---- */
static __device__ float __curand_u01(unsigned int x) {
    return x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2.0f);
}
static __device__ float4 __curand_u01_4(uint4 x) {
    return make_float4(__curand_u01(x.x), __curand_u01(x.y), __curand_u01(x.z), __curand_u01(x.w));
}
static __device__ double __curand_u01_double(unsigned int x) {       /* one word */
    return x * CURAND_2POW32_INV_DOUBLE + CURAND_2POW32_INV_DOUBLE;
}
static __device__ double __curand_u01_double_hq(unsigned int x, unsigned int y) {
    unsigned long long z = (unsigned long long)x ^ ((unsigned long long)y << 21);
    return z * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
}
static __device__ float2 __curand_box_muller(unsigned int x, unsigned int y) {
    float u = x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2);
    float v = y * CURAND_2POW32_INV_2PI + (CURAND_2POW32_INV_2PI / 2);
    float s = sqrtf(-2.0f * logf(u));
    float2 r;
    __sincosf(v, &r.x, &r.y);
    r.x *= s;
    r.y *= s;
    return r;
}
static __device__ double2 __curand_box_muller_double(unsigned int x0, unsigned int x1,
                                                     unsigned int y0, unsigned int y1) {
    unsigned long long zx = (unsigned long long)x0 ^ ((unsigned long long)x1 << 21);
    unsigned long long zy = (unsigned long long)y0 ^ ((unsigned long long)y1 << 21);
    double u = zx * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
    double v = zy * (CURAND_2POW53_INV_DOUBLE * 2.0) + CURAND_2POW53_INV_DOUBLE;
    double s = sqrt(-2.0 * log(u));
    double2 r;
    sincospi(v, &r.x, &r.y);
    r.x *= s;
    r.y *= s;
    return r;
}

/* ---- XORWOW ---- */
static __device__ unsigned int __curand_xorwow_curand(curandStateXORWOW_t &st) {
    unsigned int t = st.v[0] ^ (st.v[0] >> 2);
    st.v[0] = st.v[1];
    st.v[1] = st.v[2];
    st.v[2] = st.v[3];
    st.v[3] = st.v[4];
    st.v[4] = (st.v[4] ^ (st.v[4] << 4)) ^ (t ^ (t << 1));
    st.d += 362437;
    return st.v[4] + st.d;
}
/* v <- A^(n * step) v: table 0 jumps subsequences (step 2^67), table 1 draws (step 1);
 * digit m of n in base 4 applies the table's m-th matrix (A^(step * 4^m)) that many times */
static __device__ void __curand_xorwow_jump(curandStateXORWOW_t &st, unsigned long long n, int table) {
    unsigned int v0 = st.v[0], v1 = st.v[1], v2 = st.v[2], v3 = st.v[3], v4 = st.v[4];
    for (int m = 0; n != 0ull; ++m, n >>= 2) {
        for (unsigned int t = 0; t < (unsigned int)(n & 3ull); ++t) {
            unsigned int a0 = __simt_xorwow_matvec(v0, v1, v2, v3, v4, m, 0, table);
            unsigned int a1 = __simt_xorwow_matvec(v0, v1, v2, v3, v4, m, 1, table);
            unsigned int a2 = __simt_xorwow_matvec(v0, v1, v2, v3, v4, m, 2, table);
            unsigned int a3 = __simt_xorwow_matvec(v0, v1, v2, v3, v4, m, 3, table);
            unsigned int a4 = __simt_xorwow_matvec(v0, v1, v2, v3, v4, m, 4, table);
            v0 = a0; v1 = a1; v2 = a2; v3 = a3; v4 = a4;
        }
    }
    st.v[0] = v0; st.v[1] = v1; st.v[2] = v2; st.v[3] = v3; st.v[4] = v4;
}
static __device__ void __curand_xorwow_skipahead(unsigned long long n, curandStateXORWOW_t &st) {
    __curand_xorwow_jump(st, n, 1);
    st.d += 362437u * (unsigned int)n;
}
static __device__ void __curand_xorwow_skipahead_sequence(unsigned long long n, curandStateXORWOW_t &st) {
    __curand_xorwow_jump(st, n, 0);     /* d moves by a multiple of 2^32: unchanged */
}
static __device__ void __curand_xorwow_init(unsigned long long seed, unsigned long long subsequence,
                                            unsigned long long offset, curandStateXORWOW_t &st) {
    unsigned int t0 = 1099087573u * ((unsigned int)seed ^ 0xaad26b49u);
    unsigned int t1 = 2591861531u * ((unsigned int)(seed >> 32) ^ 0xf7dcefddu);
    st.d = 6615241u + t1 + t0;
    st.v[0] = 123456789u + t0;
    st.v[1] = 362436069u ^ t0;
    st.v[2] = 521288629u + t1;
    st.v[3] = 88675123u ^ t1;
    st.v[4] = 5783321u + t0;
    __curand_xorwow_skipahead_sequence(subsequence, st);
    __curand_xorwow_skipahead(offset, st);
    st.boxmuller_flag = 0;
    st.boxmuller_flag_double = 0;
    st.boxmuller_extra = 0.f;
    st.boxmuller_extra_double = 0.;
}
static __device__ float __curand_xorwow_uniform(curandStateXORWOW_t &st) {
    return __curand_u01(__curand_xorwow_curand(st));
}
static __device__ double __curand_xorwow_uniform_double(curandStateXORWOW_t &st) {
    unsigned int x = __curand_xorwow_curand(st);
    unsigned int y = __curand_xorwow_curand(st);
    return __curand_u01_double_hq(x, y);
}
static __device__ float2 __curand_xorwow_normal2(curandStateXORWOW_t &st) {
    unsigned int x = __curand_xorwow_curand(st);
    unsigned int y = __curand_xorwow_curand(st);
    return __curand_box_muller(x, y);
}
static __device__ float __curand_xorwow_normal(curandStateXORWOW_t &st) {
    if (st.boxmuller_flag != EXTRA_FLAG_NORMAL) {
        float2 v = __curand_xorwow_normal2(st);
        st.boxmuller_extra = v.y;
        st.boxmuller_flag = EXTRA_FLAG_NORMAL;
        return v.x;
    }
    st.boxmuller_flag = 0;
    return st.boxmuller_extra;
}
static __device__ double2 __curand_xorwow_normal2_double(curandStateXORWOW_t &st) {
    unsigned int x0 = __curand_xorwow_curand(st);
    unsigned int x1 = __curand_xorwow_curand(st);
    unsigned int y0 = __curand_xorwow_curand(st);
    unsigned int y1 = __curand_xorwow_curand(st);
    return __curand_box_muller_double(x0, x1, y0, y1);
}
static __device__ double __curand_xorwow_normal_double(curandStateXORWOW_t &st) {
    if (st.boxmuller_flag_double != EXTRA_FLAG_NORMAL) {
        double2 v = __curand_xorwow_normal2_double(st);
        st.boxmuller_extra_double = v.y;
        st.boxmuller_flag_double = EXTRA_FLAG_NORMAL;
        return v.x;
    }
    st.boxmuller_flag_double = 0;
    return st.boxmuller_extra_double;
}
static __device__ float __curand_xorwow_log_normal(curandStateXORWOW_t &st, float mean, float stddev) {
    if (st.boxmuller_flag != EXTRA_FLAG_LOG_NORMAL) {
        float2 v = __curand_xorwow_normal2(st);
        st.boxmuller_extra = expf(mean + (stddev * v.y));
        st.boxmuller_flag = EXTRA_FLAG_LOG_NORMAL;
        return expf(mean + (stddev * v.x));
    }
    st.boxmuller_flag = 0;
    return st.boxmuller_extra;
}

/* ---- Philox4x32-10 ---- */
static __device__ uint4 __curand_philox_round(uint4 c, uint2 k) {
    unsigned int hi0 = __umulhi(0xD2511F53u, c.x), lo0 = 0xD2511F53u * c.x;
    unsigned int hi1 = __umulhi(0xCD9E8D57u, c.z), lo1 = 0xCD9E8D57u * c.z;
    return make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
}
static __device__ uint4 __curand_philox_block(uint4 c, uint2 k) {
    for (int r = 0; r < 9; ++r) {
        c = __curand_philox_round(c, k);
        k.x += 0x9E3779B9u;
        k.y += 0xBB67AE85u;
    }
    return __curand_philox_round(c, k);
}
static __device__ void __curand_philox_incr(curandStatePhilox4_32_10_t &st) {
    if (++st.ctr.x) return;
    if (++st.ctr.y) return;
    if (++st.ctr.z) return;
    ++st.ctr.w;
}
static __device__ void __curand_philox_incr_n(curandStatePhilox4_32_10_t &st, unsigned long long n) {
    unsigned int nlo = (unsigned int)n, nhi = (unsigned int)(n >> 32);
    st.ctr.x += nlo;
    if (st.ctr.x < nlo) nhi++;
    st.ctr.y += nhi;
    if (nhi <= st.ctr.y) return;
    if (++st.ctr.z) return;
    ++st.ctr.w;
}
static __device__ void __curand_philox_incr_hi(curandStatePhilox4_32_10_t &st, unsigned long long n) {
    unsigned int nlo = (unsigned int)n, nhi = (unsigned int)(n >> 32);
    st.ctr.z += nlo;
    if (st.ctr.z < nlo) nhi++;
    st.ctr.w += nhi;
}
static __device__ void __curand_philox_skipahead(unsigned long long n, curandStatePhilox4_32_10_t &st) {
    st.STATE += (unsigned int)(n & 3ull);
    n /= 4;
    if (st.STATE > 3) {
        n += 1;
        st.STATE -= 4;
    }
    __curand_philox_incr_n(st, n);
    st.output = __curand_philox_block(st.ctr, st.key);
}
static __device__ void __curand_philox_skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t &st) {
    __curand_philox_incr_hi(st, n);
    st.output = __curand_philox_block(st.ctr, st.key);
}
static __device__ void __curand_philox_init(unsigned long long seed, unsigned long long subsequence,
                                            unsigned long long offset, curandStatePhilox4_32_10_t &st) {
    st.ctr = make_uint4(0, 0, 0, 0);
    st.key.x = (unsigned int)seed;
    st.key.y = (unsigned int)(seed >> 32);
    st.STATE = 0;
    st.boxmuller_flag = 0;
    st.boxmuller_flag_double = 0;
    st.boxmuller_extra = 0.f;
    st.boxmuller_extra_double = 0.;
    __curand_philox_skipahead_sequence(subsequence, st);
    __curand_philox_skipahead(offset, st);
}
static __device__ unsigned int __curand_philox_curand(curandStatePhilox4_32_10_t &st) {
    unsigned int r;
    switch (st.STATE++) {
    case 1: r = st.output.y; break;
    case 2: r = st.output.z; break;
    case 3: r = st.output.w; break;
    default: r = st.output.x; break;
    }
    if (st.STATE == 4) {
        __curand_philox_incr(st);
        st.output = __curand_philox_block(st.ctr, st.key);
        st.STATE = 0;
    }
    return r;
}
static __device__ uint4 __curand_philox_curand4(curandStatePhilox4_32_10_t &st) {
    uint4 t = st.output;
    __curand_philox_incr(st);
    st.output = __curand_philox_block(st.ctr, st.key);
    uint4 o = st.output;
    switch (st.STATE) {
    case 1: return make_uint4(t.y, t.z, t.w, o.x);
    case 2: return make_uint4(t.z, t.w, o.x, o.y);
    case 3: return make_uint4(t.w, o.x, o.y, o.z);
    default: return t;
    }
}
static __device__ float __curand_philox_uniform(curandStatePhilox4_32_10_t &st) {
    return __curand_u01(__curand_philox_curand(st));
}
static __device__ float4 __curand_philox_uniform4(curandStatePhilox4_32_10_t &st) {
    return __curand_u01_4(__curand_philox_curand4(st));
}
static __device__ double __curand_philox_uniform_double(curandStatePhilox4_32_10_t &st) {
    return __curand_u01_double(__curand_philox_curand(st));
}
static __device__ double2 __curand_philox_uniform2_double(curandStatePhilox4_32_10_t &st) {
    uint4 x = __curand_philox_curand4(st);
    return make_double2(__curand_u01_double_hq(x.x, x.y), __curand_u01_double_hq(x.z, x.w));
}
static __device__ float2 __curand_philox_normal2(curandStatePhilox4_32_10_t &st) {
    unsigned int x = __curand_philox_curand(st);
    unsigned int y = __curand_philox_curand(st);
    return __curand_box_muller(x, y);
}
static __device__ float4 __curand_philox_normal4(curandStatePhilox4_32_10_t &st) {
    uint4 x = __curand_philox_curand4(st);
    float2 a = __curand_box_muller(x.x, x.y), b = __curand_box_muller(x.z, x.w);
    return make_float4(a.x, a.y, b.x, b.y);
}
static __device__ float __curand_philox_normal(curandStatePhilox4_32_10_t &st) {
    if (st.boxmuller_flag != EXTRA_FLAG_NORMAL) {
        float2 v = __curand_philox_normal2(st);
        st.boxmuller_extra = v.y;
        st.boxmuller_flag = EXTRA_FLAG_NORMAL;
        return v.x;
    }
    st.boxmuller_flag = 0;
    return st.boxmuller_extra;
}
static __device__ double2 __curand_philox_normal2_double(curandStatePhilox4_32_10_t &st) {
    uint4 x = __curand_philox_curand4(st);
    return __curand_box_muller_double(x.x, x.y, x.z, x.w);
}
static __device__ double __curand_philox_normal_double(curandStatePhilox4_32_10_t &st) {
    if (st.boxmuller_flag_double != EXTRA_FLAG_NORMAL) {
        double2 v = __curand_philox_normal2_double(st);
        st.boxmuller_extra_double = v.y;
        st.boxmuller_flag_double = EXTRA_FLAG_NORMAL;
        return v.x;
    }
    st.boxmuller_flag_double = 0;
    return st.boxmuller_extra_double;
}
static __device__ float __curand_philox_log_normal(curandStatePhilox4_32_10_t &st, float mean, float stddev) {
    if (st.boxmuller_flag != EXTRA_FLAG_LOG_NORMAL) {
        float2 v = __curand_philox_normal2(st);
        st.boxmuller_extra = expf(mean + (stddev * v.y));
        st.boxmuller_flag = EXTRA_FLAG_LOG_NORMAL;
        return expf(mean + (stddev * v.x));
    }
    st.boxmuller_flag = 0;
    return st.boxmuller_extra;
}

#endif
