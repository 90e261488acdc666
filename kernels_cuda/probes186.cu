// probe-unseen184: a financial market microstructure / high-frequency data course's CUDA
// assignments, as a student who knows CUDA basics hands them in (US equities, one trading day
// 9:30-16:00, prices in integer ticks of one cent, timestamps in nanoseconds since the open):
//  - ohlcv_bars: one-minute OHLCV bars of every (symbol, minute) from the day's consolidated
//    trade tape (time order, all symbols interleaved), a thread a trade: extended-hours prints
//    dropped, high and low by atomicMax / atomicMin on the integer prices, open and close as
//    the smallest and largest 64-bit key (trade index << 32 | price) by atomicMin / atomicMax,
//    volume, notional (for the VWAP) and the trade count by atomicAdd;
//  - book_imbalance: signals from 10-level L2 order-book snapshots held as struct-of-arrays
//    (level l of snapshot i at l * n + i), a thread a snapshot: the microprice (the touch's
//    prices weighted by the opposite side's size), the touch's order-flow imbalance, a
//    depth-weighted imbalance over the 10 levels (the level weights in __constant__) and the
//    book's size-weighted mid (each side's VWAP over its 10 levels, averaged);
//  - realized_var: realized variance and bipower variation (Barndorff-Nielsen & Shephard) of
//    each symbol's trade-to-trade log returns, a warp a symbol over its trades (sorted by
//    symbol, then time; CSR offsets), the returns by log1pf of the relative tick change, the
//    sums and the count of price changes reduced by __shfl_down_sync;
//  - lee_ready: Lee-Ready trade classification: a thread a trade (Trade structs sorted by
//    symbol, then time) finds the prevailing quote, the symbol's last quote at or before the
//    trade's time less a lag, by binary search of the 64-bit quote timestamps; above the
//    quote's midpoint a buy, below a sell, at the midpoint (or with no valid quote: none yet,
//    or a locked / crossed one) the tick test, a walk back over the symbol's earlier trades to
//    the last different price;
//  - rolling_zscore: the rolling z-score of many pairs' spread series (a pairs-trading
//    signal; time-major, series j's point t at t * nser + j), a thread a series sliding its
//    window along it with running sums in double;
//  - xcorr_lags: lead-lag cross-correlations of pairs of symbols' one-second returns at lags
//    -XC_MAXLAG .. XC_MAXLAG, a block a pair (i, j), i < j: the second series staged in
//    shared-memory tiles with a halo of XC_MAXLAG each side, each thread's products for
//    every lag in a per-thread array, then a shared-memory tree reduction of the lags and the
//    two sums of squares.

#define BAR_MINUTES 390                // ohlcv_bars: minutes of the regular session
#define NS_PER_MIN 60000000000LL
#define BOOK_LEVELS 10                 // book_imbalance: the levels of each side
#define XC_TILE 256                    // xcorr_lags: blockDim.x
#define XC_MAXLAG 10                   // its largest lag (points)
#define XC_NLAG (2 * XC_MAXLAG + 1)

// book_imbalance's depth weights (set by the host): level l's weight in the depth imbalance
__constant__ float c_lvl_w[BOOK_LEVELS];

// lee_ready's trades: timestamp (ns since the open), price (ticks), size (shares)
struct Trade {
    long long ts;
    int price;
    int size;
};

extern "C" {

// n trades (ts ns since the open, symbol, price ticks, size shares) in time order; bar
// sym * BAR_MINUTES + minute: open_key / close_key the smallest / largest (i << 32 | price)
// (set to ~0 / 0 by the host), hi / lo (0 / INT_MAX), volume, notional (price * size, ticks
// x shares) and count (0)
__global__ void ohlcv_bars(const long long *ts, const int *sym, const int *price, const int *size,
                           unsigned long long *open_key, unsigned long long *close_key, int *hi, int *lo,
                           unsigned long long *volume, unsigned long long *notional, int *count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long t = ts[i];
    if (t < 0 || t >= BAR_MINUTES * NS_PER_MIN) return;      // pre-market or after-hours print
    int bar = sym[i] * BAR_MINUTES + (int)(t / NS_PER_MIN);
    int p = price[i];
    int q = size[i];
    unsigned long long key = ((unsigned long long)i << 32) | (unsigned int)p;
    atomicMin(&open_key[bar], key);
    atomicMax(&close_key[bar], key);
    atomicMax(&hi[bar], p);
    atomicMin(&lo[bar], p);
    atomicAdd(&volume[bar], (unsigned long long)q);
    atomicAdd(&notional[bar], (unsigned long long)p * (unsigned long long)q);
    atomicAdd(&count[bar], 1);
}

// n snapshots of a 10-level book (prices in ticks, sizes in shares; level l of snapshot i at
// l * n + i, level 0 the touch): micro = (bid0 ask_sz0 + ask0 bid_sz0) / (bid_sz0 + ask_sz0),
// obi1 = (bid_sz0 - ask_sz0) / (bid_sz0 + ask_sz0), obi_depth the same with each side's sizes
// summed with weights c_lvl_w, wmid = (bid VWAP + ask VWAP) / 2 over the 10 levels
__global__ void book_imbalance(const int *bid_px, const int *bid_sz, const int *ask_px, const int *ask_sz,
                               float *micro, float *obi1, float *obi_depth, float *wmid, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float bp = (float)bid_px[i];
    float ap = (float)ask_px[i];
    float bs = (float)bid_sz[i];
    float as = (float)ask_sz[i];
    micro[i] = (bp * as + ap * bs) / (bs + as);
    obi1[i] = (bs - as) / (bs + as);
    float wb = 0.0f, wa = 0.0f;            // weighted depth
    float vb = 0.0f, va = 0.0f;            // price x size
    float qb = 0.0f, qa = 0.0f;            // size
    for (int l = 0; l < BOOK_LEVELS; l++) {
        float sb = (float)bid_sz[l * n + i];
        float sa = (float)ask_sz[l * n + i];
        wb += c_lvl_w[l] * sb;
        wa += c_lvl_w[l] * sa;
        vb += (float)bid_px[l * n + i] * sb;
        va += (float)ask_px[l * n + i] * sa;
        qb += sb;
        qa += sa;
    }
    obi_depth[i] = (wb - wa) / (wb + wa);
    wmid[i] = 0.5f * (vb / qb + va / qa);
}

// symbol s's trades at off[s] .. off[s + 1] (prices in ticks, time order), r_k = log(p_k / p_k-1):
// rv[s] = sum r_k^2, bv[s] = pi / 2 sum |r_k| |r_k-1|, nchg[s] = the returns that are not 0
// (a warp a symbol: blockDim.x a multiple of 32)
__global__ void realized_var(const int *off, const int *price, float *rv, float *bv, int *nchg, int nsym) {
    int s = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (s >= nsym) return;                 // the whole warp
    int a = off[s];
    int b = off[s + 1];
    float s2 = 0.0f, sb = 0.0f;
    int chg = 0;
    for (int k = a + 1 + lane; k < b; k += 32) {
        int p0 = price[k - 1];
        int p1 = price[k];
        float r = log1pf((float)(p1 - p0) / (float)p0);
        s2 += r * r;
        if (k >= a + 2) {
            int pm = price[k - 2];
            float rp = log1pf((float)(p0 - pm) / (float)pm);
            sb += fabsf(r) * fabsf(rp);
        }
        if (p1 != p0) chg++;
    }
    for (int o = 16; o > 0; o >>= 1) {
        s2 += __shfl_down_sync(0xffffffff, s2, o);
        sb += __shfl_down_sync(0xffffffff, sb, o);
        chg += __shfl_down_sync(0xffffffff, chg, o);
    }
    if (lane == 0) {
        rv[s] = s2;
        bv[s] = 1.5707963f * sb;
        nchg[s] = chg;
    }
}

// n trades (sorted by symbol tsym, then time; symbol s's at toff[s] .. toff[s + 1]); symbol s's
// quotes at qoff[s] .. qoff[s + 1] (time order qts, bid, ask in ticks): sign[i] = +1 (buy), -1
// (sell) or 0 (unclassified) by Lee-Ready with the quote in force at ts - lag
__global__ void lee_ready(const Trade *tr, const int *tsym, const int *toff, const long long *qts, const int *bid,
                          const int *ask, const int *qoff, int *sign, long long lag, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Trade t = tr[i];
    int s = tsym[i];
    long long target = t.ts - lag;
    // the first of the symbol's quotes after target
    int lo = qoff[s];
    int hi = qoff[s + 1];
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (qts[mid] <= target)
            lo = mid + 1;
        else
            hi = mid;
    }
    int k = lo - 1;                        // the prevailing quote
    int d = 0;
    if (k >= qoff[s] && bid[k] < ask[k]) {
        int twice_mid = bid[k] + ask[k];
        if (2 * t.price > twice_mid) d = 1;
        else if (2 * t.price < twice_mid) d = -1;
    }
    if (d == 0) {                          // tick test
        int first = toff[s];
        for (int j = i - 1; j >= first; j--) {
            int pj = tr[j].price;
            if (pj != t.price) {
                d = t.price > pj ? 1 : -1;
                break;
            }
        }
    }
    sign[i] = d;
}

// z[t * nser + j] = (x_t - mean) / sd of series j's window x_t-w+1 .. x_t (sd with w - 1), 0 for
// t < w - 1 and for windows without variance
__global__ void rolling_zscore(const float *x, float *z, int T, int nser, int w) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= nser) return;
    double s = 0.0, ss = 0.0;
    for (int t = 0; t < T; t++) {
        float v = x[t * nser + j];
        s += v;
        ss += (double)v * v;
        if (t >= w) {
            float old = x[(t - w) * nser + j];
            s -= old;
            ss -= (double)old * old;
        }
        float out = 0.0f;
        if (t >= w - 1) {
            double mean = s / w;
            double var = (ss - s * mean) / (w - 1);
            if (var > 0.0) out = (float)((v - mean) / sqrt(var));
        }
        z[t * nser + j] = out;
    }
}

// symbols' return series of T points (symbol s's at s * T): for i = blockIdx.y < j = blockIdx.x,
// rho[(i * nsym + j) * XC_NLAG + XC_MAXLAG + L] = sum_t r_i[t] r_j[t + L] / sqrt(sum r_i^2 sum r_j^2)
// for L in -XC_MAXLAG .. XC_MAXLAG (r_j taken as 0 outside 0 .. T - 1); blockDim.x == XC_TILE
__global__ void xcorr_lags(const float *r, float *rho, int T, int nsym) {
    __shared__ float sb[XC_TILE + 2 * XC_MAXLAG];
    __shared__ float red[XC_NLAG + 2][XC_TILE];
    int i = blockIdx.y;
    int j = blockIdx.x;
    if (j <= i) return;                    // each pair once
    const float *a = r + i * T;
    const float *b = r + j * T;
    int tid = threadIdx.x;
    float acc[XC_NLAG];
    for (int l = 0; l < XC_NLAG; l++) acc[l] = 0.0f;
    float saa = 0.0f, sbb = 0.0f;
    for (int t0 = 0; t0 < T; t0 += XC_TILE) {
        for (int k = tid; k < XC_TILE + 2 * XC_MAXLAG; k += XC_TILE) {
            int tb = t0 - XC_MAXLAG + k;
            sb[k] = (tb >= 0 && tb < T) ? b[tb] : 0.0f;
        }
        __syncthreads();
        int t = t0 + tid;
        float av = t < T ? a[t] : 0.0f;
        float bv = sb[tid + XC_MAXLAG];
        saa += av * av;
        sbb += bv * bv;
        for (int l = 0; l < XC_NLAG; l++) acc[l] += av * sb[tid + l];
        __syncthreads();
    }
    for (int l = 0; l < XC_NLAG; l++) red[l][tid] = acc[l];
    red[XC_NLAG][tid] = saa;
    red[XC_NLAG + 1][tid] = sbb;
    __syncthreads();
    for (int st = XC_TILE / 2; st > 0; st >>= 1) {
        if (tid < st)
            for (int l = 0; l < XC_NLAG + 2; l++) red[l][tid] += red[l][tid + st];
        __syncthreads();
    }
    if (tid < XC_NLAG) {
        float d = sqrtf(red[XC_NLAG][0] * red[XC_NLAG + 1][0]);
        rho[(i * nsym + j) * XC_NLAG + tid] = d > 0.0f ? red[tid][0] / d : 0.0f;
    }
}

}
