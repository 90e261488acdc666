// probe-unseen193: a precision agriculture / crop modelling course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - veg_indices: NDVI, GNDVI, NDRE and SAVI of a 4-band multispectral drone orthomosaic
//    (green, red, red edge, NIR planes of uint16 digital numbers, reflectance x 10^4), a
//    thread a pixel, the ratio indices from the integer band differences, SAVI from
//    reflectances; pixels outside the mosaic's footprint (any band 0) set to nodata;
//  - crop_season: a season of a SIMPLE-type maize model (Zhao et al. 2019), a thread a field
//    cell: from the cell's sowing day, daily thermal time (the 86/50 method), a canopy's
//    radiation interception rising and senescing with thermal time (two logistics),
//    Priestley-Taylor potential evapotranspiration, a soil-water bucket (drainage over the
//    cell's capacity, stress under half of it), heat stress, radiation-use-efficiency growth,
//    until the cell's hybrid reaches maturity; the farm's 180 days of weather in __constant__;
//  - zonal_yield: per-management-zone statistics of a combine's cleaned yield map (uint16
//    kg/ha, 0 where no yield was logged) over an int zone raster (-1 outside the fields): the
//    count, sum and sum of squares (64-bit) and the min and max of each zone accumulated by
//    shared-memory atomics in a grid-stride loop, then added into the global totals by
//    atomics a block;
//  - fcm_step: one iteration of fuzzy c-means (m = 2) delineating management zones from 4
//    standardised-by-weight attribute rasters (shallow and deep soil ECa, elevation, NDVI),
//    a thread a pixel: its weighted distances to the 5 cluster centres (staged in shared
//    memory), memberships, its zone (the largest membership), and the 26 sums the next
//    centres and the objective need, reduced by warp shuffles, then across the block's warps
//    in shared memory, and added by one atomicAdd a sum a block;
//  - et0_month: a month of FAO-56 Penman-Monteith reference evapotranspiration on a 250 m
//    grid, a thread a cell (2-D blocks): each day's weather (a struct) from the cell's coarse
//    (4 km) weather cell, extraterrestrial radiation from the cell's latitude and the day of
//    year, net radiation, the vapour-pressure terms; the month's ET0 and the crop's ETc (the
//    cell's land cover's crop coefficient from __constant__) summed;
//  - irrig_search: an exhaustive search of the 256 irrigation schedules (8 opportunities, each
//    on or off) of each of many centre-pivot fields, a block a field, a thread a schedule:
//    a daily FAO-56 root-zone depletion balance over the season with the field's ETc and
//    rain (the field's soil and economics a struct), the stages' actual and maximum ET kept
//    in per-thread arrays, the Stewart multiplicative yield response (FAO-33 Ky by stage)
//    and the profit; the best schedule found by a shared-memory argmax tree (lowest
//    schedule on ties).

#define VI_SCALE 1.0e-4f        // veg_indices: reflectance a digital number
#define VI_L 0.5f               // SAVI's soil brightness factor
#define VI_NODATA -9999.0f      // outside the mosaic
#define CG_DAYS 180             // crop_season: days of weather (from April 15)
#define CG_TBASE 10.0f          // 86/50 method: Tmin and Tmax held within 10 .. 30 C
#define CG_TCAP 30.0f
#define CG_FMAX 0.95f           // the largest fraction of radiation intercepted
#define CG_I50A 480.0f          // thermal time to half the largest interception (canopy growth)
#define CG_I50B 360.0f          // thermal time before maturity of half of it (senescence)
#define CG_RUE 1.9f             // g of biomass a MJ of intercepted solar radiation
#define CG_THEAT 34.0f          // growth falls linearly from Tmax 34 C
#define CG_TEXT 44.0f           // to none at 44 C
#define CG_PSTRESS 0.5f         // water stress below this fraction of the capacity
#define CG_GAMMA 0.0666f        // psychrometric constant (kPa / C)
#define CG_HI 0.5f              // harvest index
#define ZS_MAX 1024             // zonal_yield: zones at most
#define FC_C 5                  // fcm_step: clusters
#define FC_A 4                  // attributes
#define FC_NACC (FC_C * FC_A + FC_C + 1)   // sums: u^2 x (C x A), u^2 (C), the objective
#define FC_WARPS 8              // blockDim.x == 32 FC_WARPS
#define FC_NODATA -9999.0f      // outside the field (in the first attribute)
#define ET_R 16                 // et0_month: 250 m cells a 4 km weather cell, each axis
#define ET_PI 3.14159265f
#define ET_SIGMA 4.903e-9f      // Stefan-Boltzmann (MJ / K^4 / m^2 / day)
#define ET_GSC 0.0820f          // solar constant (MJ / m^2 / min)
#define IR_DAYS 120             // irrig_search: the season's days
#define IR_OPP 8                // irrigation opportunities; blockDim.x == 2^IR_OPP
#define IR_FIRST 20             // the first on this day,
#define IR_EVERY 10             // then every 10 days
#define IR_STAGES 4             // FAO-56 stages: initial, development, mid-season, late

// crop_season's weather (set by the host): the farm's daily max and min temperature (C), solar
// radiation (MJ / m^2) and rain (mm)
__constant__ float c_tmax[CG_DAYS];
__constant__ float c_tmin[CG_DAYS];
__constant__ float c_srad[CG_DAYS];
__constant__ float c_rain[CG_DAYS];
// et0_month's crop coefficients of the 8 land-cover classes (set by the host)
__constant__ float c_kc[8];
// irrig_search's stages (set by the host): the first day of each stage after the first, and
// each stage's yield response factor Ky
__constant__ int c_stage_start[IR_STAGES];
__constant__ float c_ky[IR_STAGES];

struct DayWx {                  // et0_month: a coarse cell's day of weather
    float tmax, tmin;           // C
    float rhmax, rhmin;         // %
    float u10;                  // wind at 10 m (m/s)
    float srad;                 // MJ / m^2
};

struct Field {                  // irrig_search: a field's soil and economics
    float taw;                  // total available water of the root zone (mm)
    float p;                    // depletion fraction before stress
    float dr0;                  // the root zone's depletion at the season's start (mm)
    float ymax;                 // attainable yield (t/ha)
    float depth;                // net depth of an application (mm)
    float price;                // crop price ($/t)
    float cost;                 // an application's cost ($/ha)
};

extern "C" {

// img: the green, red, red-edge and NIR planes (npix each) of a mosaic; ndvi, gndvi, ndre, savi
// each pixel's indices (VI_NODATA where any band is 0)
__global__ void veg_indices(const unsigned short *img, float *ndvi, float *gndvi, float *ndre, float *savi,
                            int npix) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npix) return;
    int g = img[i];
    int r = img[npix + i];
    int re = img[2 * npix + i];
    int nir = img[3 * npix + i];
    if (g == 0 || r == 0 || re == 0 || nir == 0) {
        ndvi[i] = VI_NODATA;
        gndvi[i] = VI_NODATA;
        ndre[i] = VI_NODATA;
        savi[i] = VI_NODATA;
        return;
    }
    // the normalised differences do not depend on the scale: integer sums and differences
    ndvi[i] = (float)(nir - r) / (float)(nir + r);
    gndvi[i] = (float)(nir - g) / (float)(nir + g);
    ndre[i] = (float)(nir - re) / (float)(nir + re);
    float R = r * VI_SCALE;
    float N = nir * VI_SCALE;
    savi[i] = (1.0f + VI_L) * (N - R) / (N + R + VI_L);
}

// a season of n cells: cell i sown on day sow[i], its hybrid maturing at tsum[i] degree-days,
// its soil holding awc[i] mm (full at sowing); yield (kg/ha of grain) and the day it matured
// (-1 if it did not by day CG_DAYS - 1)
__global__ void crop_season(const int *sow, const float *tsum, const float *awc, float *yield, int *mat_day,
                            int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float ts = tsum[i];
    float cap = awc[i];
    float sw = cap;
    float tt = 0.0f;
    float bio = 0.0f;
    int mday = -1;
    for (int d = sow[i]; d < CG_DAYS; d++) {
        float tmax = c_tmax[d];
        float tmin = c_tmin[d];
        float srad = c_srad[d];
        // thermal time, 86/50 method
        float tx = fminf(fmaxf(tmax, CG_TBASE), CG_TCAP);
        float tn = fminf(fmaxf(tmin, CG_TBASE), CG_TCAP);
        tt += 0.5f * (tx + tn) - CG_TBASE;
        // fraction of radiation intercepted: canopy growth, then senescence before maturity
        float fgrow = CG_FMAX / (1.0f + expf(-0.01f * (tt - CG_I50A)));
        float fsen = CG_FMAX / (1.0f + expf(0.01f * (tt - (ts - CG_I50B))));
        float fsol = fminf(fgrow, fsen);
        // Priestley-Taylor potential ET (mm), net radiation taken as 0.6 of the solar
        float tm = 0.5f * (tmax + tmin);
        float es = 0.6108f * expf(17.27f * tm / (tm + 237.3f));
        float delta = 4098.0f * es / ((tm + 237.3f) * (tm + 237.3f));
        float pet = 1.26f * delta / (delta + CG_GAMMA) * 0.6f * srad / 2.45f;
        // the bucket: rain in, drainage over the capacity, crop transpiration and soil evaporation out
        sw += c_rain[d];
        if (sw > cap) sw = cap;
        float ws = 1.0f;
        if (sw < CG_PSTRESS * cap) ws = sw / (CG_PSTRESS * cap);
        float tr = fsol * pet * ws;
        float ev = (1.0f - fsol) * pet * sw / cap;
        sw -= tr + ev;
        if (sw < 0.0f) sw = 0.0f;
        // heat stress
        float fh = 1.0f;
        if (tmax > CG_THEAT) fh = fmaxf(1.0f - (tmax - CG_THEAT) / (CG_TEXT - CG_THEAT), 0.0f);
        bio += CG_RUE * fsol * srad * fminf(ws, fh);
        if (tt >= ts) {
            mday = d;
            break;
        }
    }
    yield[i] = bio * CG_HI * 10.0f;     // g / m^2 to kg / ha
    mat_day[i] = mday;
}

// statistics of the npix yields yld (kg/ha; 0: none) by zone (0 .. nzones - 1; -1: none):
// cnt, sum, sumsq added to, zmin and zmax (INT_MAX and 0 at first) lowered and raised
__global__ void zonal_yield(const unsigned short *yld, const int *zone, int npix, int nzones, unsigned int *cnt,
                            unsigned long long *sum, unsigned long long *sumsq, int *zmin, int *zmax) {
    __shared__ unsigned int s_cnt[ZS_MAX];
    __shared__ unsigned long long s_sum[ZS_MAX];
    __shared__ unsigned long long s_sq[ZS_MAX];
    __shared__ int s_min[ZS_MAX];
    __shared__ int s_max[ZS_MAX];
    for (int z = threadIdx.x; z < nzones; z += blockDim.x) {
        s_cnt[z] = 0;
        s_sum[z] = 0;
        s_sq[z] = 0;
        s_min[z] = INT_MAX;
        s_max[z] = 0;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < npix; i += gridDim.x * blockDim.x) {
        int z = zone[i];
        unsigned int y = yld[i];
        if (z < 0 || y == 0) continue;
        atomicAdd(&s_cnt[z], 1u);
        atomicAdd(&s_sum[z], (unsigned long long)y);
        atomicAdd(&s_sq[z], (unsigned long long)(y * y));
        atomicMin(&s_min[z], (int)y);
        atomicMax(&s_max[z], (int)y);
    }
    __syncthreads();
    for (int z = threadIdx.x; z < nzones; z += blockDim.x) {
        if (s_cnt[z] > 0) {
            atomicAdd(&cnt[z], s_cnt[z]);
            atomicAdd(&sum[z], s_sum[z]);
            atomicAdd(&sumsq[z], s_sq[z]);
            atomicMin(&zmin[z], s_min[z]);
            atomicMax(&zmax[z], s_max[z]);
        }
    }
}

// x: FC_A attribute planes of npix pixels; cen: the FC_C centres (FC_A values each), wgt the
// attributes' weights; label: each pixel's zone (255 outside the field); acc += the sums
// u^2 x (centre k, attribute a at k * FC_A + a), u^2 (FC_C A + k), u^2 d^2 (the last)
__global__ void fcm_step(const float *x, const float *cen, const float *wgt, unsigned char *label, float *acc,
                         int npix) {
    __shared__ float s_cen[FC_C * FC_A];
    __shared__ float s_w[FC_A];
    __shared__ float s_part[FC_WARPS][FC_NACC];
    if (threadIdx.x < FC_C * FC_A) s_cen[threadIdx.x] = cen[threadIdx.x];
    if (threadIdx.x < FC_A) s_w[threadIdx.x] = wgt[threadIdx.x];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v[FC_NACC];
    for (int j = 0; j < FC_NACC; j++) v[j] = 0.0f;
    if (i < npix) {
        float xa[FC_A];
        for (int a = 0; a < FC_A; a++) xa[a] = x[a * npix + i];
        if (xa[0] == FC_NODATA) {
            label[i] = 255;
        } else {
            float d2[FC_C];
            float isum = 0.0f;
            for (int k = 0; k < FC_C; k++) {
                float d = 0.0f;
                for (int a = 0; a < FC_A; a++) {
                    float t = xa[a] - s_cen[k * FC_A + a];
                    d += s_w[a] * t * t;
                }
                d2[k] = fmaxf(d, 1e-12f);
                isum += 1.0f / d2[k];
            }
            int best = 0;
            float ubest = -1.0f;
            for (int k = 0; k < FC_C; k++) {
                float u = 1.0f / d2[k] / isum;
                if (u > ubest) {
                    ubest = u;
                    best = k;
                }
                float um = u * u;
                for (int a = 0; a < FC_A; a++) v[k * FC_A + a] = um * xa[a];
                v[FC_C * FC_A + k] = um;
                v[FC_NACC - 1] += um * d2[k];
            }
            label[i] = (unsigned char)best;
        }
    }
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    for (int j = 0; j < FC_NACC; j++)
        for (int o = 16; o > 0; o >>= 1) v[j] += __shfl_down_sync(0xffffffff, v[j], o);
    if (lane == 0)
        for (int j = 0; j < FC_NACC; j++) s_part[warp][j] = v[j];
    __syncthreads();
    if (threadIdx.x < FC_NACC) {
        float s = 0.0f;
        for (int w = 0; w < FC_WARPS; w++) s += s_part[w][threadIdx.x];
        atomicAdd(&acc[threadIdx.x], s);
    }
}

// ndays days of reference ET0 (mm) on an nx x ny grid (row-major; rows from lat0 southwards,
// res degrees a cell) from the weather wx[d * ncoarse + coarse cell] of the ET_R x ET_R-cell
// coarse grid; elev (m), crop (land-cover class); et0_sum and etc_sum the month's totals
__global__ void et0_month(const DayWx *wx, const float *elev, const unsigned char *crop, float *et0_sum,
                          float *etc_sum, int nx, int ny, float lat0, float res, int doy0, int ndays) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    int wc = (nx + ET_R - 1) / ET_R;
    int ncoarse = wc * ((ny + ET_R - 1) / ET_R);
    int c = (y / ET_R) * wc + x / ET_R;
    float z = elev[i];
    float kc = c_kc[crop[i]];
    float phi = (lat0 - (y + 0.5f) * res) * (ET_PI / 180.0f);
    float P = 101.3f * powf((293.0f - 0.0065f * z) / 293.0f, 5.26f);    // kPa
    float gam = 0.000665f * P;
    float s = 0.0f;
    float se = 0.0f;
    for (int d = 0; d < ndays; d++) {
        DayWx w = wx[d * ncoarse + c];
        float tmean = 0.5f * (w.tmax + w.tmin);
        float esmax = 0.6108f * expf(17.27f * w.tmax / (w.tmax + 237.3f));
        float esmin = 0.6108f * expf(17.27f * w.tmin / (w.tmin + 237.3f));
        float es = 0.5f * (esmax + esmin);
        float ea = 0.5f * (esmin * w.rhmax / 100.0f + esmax * w.rhmin / 100.0f);
        float delta = 4098.0f * (0.6108f * expf(17.27f * tmean / (tmean + 237.3f))) /
                      ((tmean + 237.3f) * (tmean + 237.3f));
        float u2 = w.u10 * 4.87f / logf(67.8f * 10.0f - 5.42f);
        // extraterrestrial radiation (FAO-56 eq. 21)
        float J = (float)(doy0 + d);
        float dr = 1.0f + 0.033f * cosf(2.0f * ET_PI * J / 365.0f);
        float dec = 0.409f * sinf(2.0f * ET_PI * J / 365.0f - 1.39f);
        float ws = acosf(-tanf(phi) * tanf(dec));
        float Ra = 24.0f * 60.0f / ET_PI * ET_GSC * dr *
                   (ws * sinf(phi) * sinf(dec) + cosf(phi) * cosf(dec) * sinf(ws));
        float Rso = (0.75f + 2e-5f * z) * Ra;
        float Rns = 0.77f * w.srad;
        float tk4 = 0.5f * (powf(w.tmax + 273.16f, 4.0f) + powf(w.tmin + 273.16f, 4.0f));
        float Rnl = ET_SIGMA * tk4 * (0.34f - 0.14f * sqrtf(ea)) * (1.35f * fminf(w.srad / Rso, 1.0f) - 0.35f);
        float Rn = Rns - Rnl;
        float et0 = (0.408f * delta * Rn + gam * 900.0f / (tmean + 273.0f) * u2 * (es - ea)) /
                    (delta + gam * (1.0f + 0.34f * u2));
        et0 = fmaxf(et0, 0.0f);
        s += et0;
        se += kc * et0;
    }
    et0_sum[i] = s;
    etc_sum[i] = se;
}

// fields: a block a field, a thread a schedule (bit k: irrigate on day IR_FIRST + k IR_EVERY);
// etc and rain: the fields' daily crop ET and rain (mm), IR_DAYS a field; best_sched and
// best_profit: each field's most profitable schedule ($/ha)
__global__ void irrig_search(const Field *fields, const float *etc, const float *rain, int *best_sched,
                             float *best_profit) {
    __shared__ float s_val[1 << IR_OPP];
    __shared__ int s_idx[1 << IR_OPP];
    int f = blockIdx.x;
    int s = threadIdx.x;
    Field fp = fields[f];
    float eta[IR_STAGES];
    float etm[IR_STAGES];
    for (int k = 0; k < IR_STAGES; k++) {
        eta[k] = 0.0f;
        etm[k] = 0.0f;
    }
    float dr = fp.dr0;
    float raw = fp.p * fp.taw;
    int nirr = 0;
    int stage = 0;
    for (int d = 0; d < IR_DAYS; d++) {
        if (stage < IR_STAGES - 1 && d == c_stage_start[stage + 1]) stage++;
        float e = etc[f * IR_DAYS + d];
        float in = rain[f * IR_DAYS + d];
        int k = (d - IR_FIRST) / IR_EVERY;
        if (d >= IR_FIRST && (d - IR_FIRST) % IR_EVERY == 0 && k < IR_OPP && ((s >> k) & 1)) {
            in += fp.depth;
            nirr++;
        }
        dr -= in;
        if (dr < 0.0f) dr = 0.0f;              // the excess percolates
        float ks = 1.0f;
        if (dr > raw) ks = (fp.taw - dr) / (fp.taw - raw);
        float ea = ks * e;
        dr += ea;
        if (dr > fp.taw) dr = fp.taw;
        eta[stage] += ea;
        etm[stage] += e;
    }
    float y = 1.0f;
    for (int k = 0; k < IR_STAGES; k++) y *= 1.0f - c_ky[k] * (1.0f - eta[k] / etm[k]);
    y = fmaxf(y, 0.0f);
    s_val[s] = fp.price * fp.ymax * y - fp.cost * nirr;
    s_idx[s] = s;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (s < h) {
            float a = s_val[s];
            float b = s_val[s + h];
            if (b > a || (b == a && s_idx[s + h] < s_idx[s])) {
                s_val[s] = b;
                s_idx[s] = s_idx[s + h];
            }
        }
        __syncthreads();
    }
    if (s == 0) {
        best_sched[f] = s_idx[0];
        best_profit[f] = s_val[0];
    }
}

}
