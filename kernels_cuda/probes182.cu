// probe-unseen180: a supply-chain / logistics optimization course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - route_cost: the costs of a pool of candidate vehicle routes (a sweep heuristic's
//    columns for a set-partitioning VRP), a thread a route (CSR stop lists of varying
//    length): the road distances depot -> stops -> depot gathered from a dense distance
//    matrix, the load from the customers' demands, then the fixed, distance, overtime
//    (driving at a mean speed plus a service time a stop, over the shift) and overload costs;
//  - two_opt_best: every 2-opt move of one long TSP tour (a thread an (i, j) pair on a 2-D
//    grid, the lower triangle idle): the move's delta from 4 Euclidean distances, and the
//    best improving move by an atomicMin of a packed 64-bit key (the delta's order-preserving
//    bits over the pair's index);
//  - demand_aggregate: order lines (store, SKU, quantity) summed into each (warehouse, SKU)'s
//    units by a global atomicAdd, a thread a line (the store's warehouse looked up), SKUs
//    Zipf-distributed; each warehouse's lines and shipped weight (grams, 64-bit) summed in
//    shared memory by the block first, then one global atomicAdd a warehouse a block;
//  - ss_policy_sim: Monte-Carlo of (s, S) inventory policies with lost sales, a thread a
//    (SKU, replication) scenario over a year of days: the SKU's policy and costs a struct,
//    Poisson demand by Knuth's product-of-uniforms method (an LCG a thread) with the mean
//    scaled by a day-of-week profile in __constant__, the orders in transit in a per-thread
//    ring buffer indexed by arrival day; lost sales, orders, holding and the cost out;
//  - safety_stock: safety stock, reorder point and economic order quantity of many SKU-
//    locations, a warp a SKU-location: a year of its daily demand history summed (and
//    squared) by the lanes and reduced by __shfl_down_sync, then lane 0 takes the lead-time
//    demand's sd (demand and supplier lead-time variability), the normal quantile of its
//    ABC class's service level (in __constant__; Acklam's approximation as erfinvf is
//    missing) and Wilson's EOQ;
//  - first_fit_pack: first-fit-decreasing packing of shipments (batches of cartons, sorted by
//    volume, largest first) into roll cages, a thread a batch with its open cages' remaining
//    volumes in a per-thread array: each carton to the first cage it fits (a data-dependent
//    scan), the carton's cage, the cages used and their unused volume out.

#define TO_BLOCK_X 32           // two_opt_best: blockDim (32, 8), j along x, i along y
#define DA_WH 16                // demand_aggregate: warehouses
#define IV_PIPE 16              // ss_policy_sim: in-transit ring buffer (lead times 1 .. IV_PIPE - 1)
#define FF_MAXB 64              // first_fit_pack: cages a batch at most (a batch holds at most FF_MAXB cartons)

// ss_policy_sim's SKU (set by the host), one a SKU
struct SkuPolicy {
    float mu;          // mean daily demand (units)
    int s;             // reorder point: order when the inventory position falls to s
    int S;             // order-up-to level
    int lead;          // lead time (days)
    float hold;        // holding cost a unit a day
    float order;       // fixed cost an order
    float lost;        // cost of a lost sale
};

// ss_policy_sim: the day-of-week profile of demand (Monday first, mean 1)
__constant__ float c_dow[7];
// safety_stock: the target cycle service level of ABC class k (A, B, C, and critical parts)
__constant__ float c_service[4];

// the standard normal quantile of p in (0, 1): Acklam's rational approximation
__device__ float norm_inv(float p) {
    const float a1 = -3.969683028665376e+01f, a2 = 2.209460984245205e+02f, a3 = -2.759285104469687e+02f;
    const float a4 = 1.383577518672690e+02f, a5 = -3.066479806614716e+01f, a6 = 2.506628277459239e+00f;
    const float b1 = -5.447609879822406e+01f, b2 = 1.615858368580409e+02f, b3 = -1.556989798598866e+02f;
    const float b4 = 6.680131188771972e+01f, b5 = -1.328068155288572e+01f;
    const float c1 = -7.784894002430293e-03f, c2 = -3.223964580411365e-01f, c3 = -2.400758277161838e+00f;
    const float c4 = -2.549732539343734e+00f, c5 = 4.374664141464968e+00f, c6 = 2.938163982698783e+00f;
    const float d1 = 7.784695709041462e-03f, d2 = 3.224671290700398e-01f, d3 = 2.445134137142996e+00f;
    const float d4 = 3.754408661907416e+00f;
    const float plow = 0.02425f;
    if (p < plow) {
        float q = sqrtf(-2.0f * logf(p));
        return (((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) / ((((d1 * q + d2) * q + d3) * q + d4) * q + 1.0f);
    }
    if (p > 1.0f - plow) {
        float q = sqrtf(-2.0f * logf(1.0f - p));
        return -(((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) / ((((d1 * q + d2) * q + d3) * q + d4) * q + 1.0f);
    }
    float q = p - 0.5f;
    float r = q * q;
    return (((((a1 * r + a2) * r + a3) * r + a4) * r + a5) * r + a6) * q /
           (((((b1 * r + b2) * r + b3) * r + b4) * r + b5) * r + 1.0f);
}

extern "C" {

// n routes, route r visiting customers stops[off[r] .. off[r + 1]] in order from and back to the
// depot (node 0); dist the nodes x nodes road distances (km, row = from), demand each node's:
// km[r] the distance, load[r] the demand carried, cost[r] = fixed + per_km km + per_ot_h the
// hours over shift_h (km / speed + service_h a stop) + per_over a unit over cap
__global__ void route_cost(const int *off, const int *stops, const float *dist, const int *demand, float *cost,
                           float *km, int *load, int nodes, int cap, float speed, float service_h, float shift_h,
                           float per_km, float fixed, float per_ot_h, float per_over, int n) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    int first = off[r];
    int last = off[r + 1];
    int prev = 0;
    float d = 0.0f;
    int q = 0;
    for (int k = first; k < last; k++) {
        int c = stops[k];
        d += dist[prev * nodes + c];
        q += demand[c];
        prev = c;
    }
    d += dist[prev * nodes];            // back to the depot
    float hours = d / speed + service_h * (last - first);
    float c = fixed + per_km * d;
    if (hours > shift_h) c += per_ot_h * (hours - shift_h);
    if (q > cap) c += per_over * (q - cap);
    cost[r] = c;
    km[r] = d;
    load[r] = q;
}

// the 2-opt moves of the closed tour tour[0 .. n) over cities (x, y): the move (i, j), 0 <= i,
// i + 1 < j < n, replaces edges (t_i, t_i+1) and (t_j, t_j+1) (t_n = t_0) by (t_i, t_j) and
// (t_i+1, t_j+1); *best (host-set to all ones) the least ((delta's ordered bits) << 32 | i n + j)
// over the improving moves (delta < 0)
__global__ void two_opt_best(const int *tour, const float *x, const float *y, unsigned long long *best, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= n || j <= i + 1) return;
    if (i == 0 && j == n - 1) return;   // the two edges share city t_0
    int a = tour[i];
    int b = tour[i + 1];
    int c = tour[j];
    int d = tour[j + 1 < n ? j + 1 : 0];
    float ab = sqrtf((x[a] - x[b]) * (x[a] - x[b]) + (y[a] - y[b]) * (y[a] - y[b]));
    float cd = sqrtf((x[c] - x[d]) * (x[c] - x[d]) + (y[c] - y[d]) * (y[c] - y[d]));
    float ac = sqrtf((x[a] - x[c]) * (x[a] - x[c]) + (y[a] - y[c]) * (y[a] - y[c]));
    float bd = sqrtf((x[b] - x[d]) * (x[b] - x[d]) + (y[b] - y[d]) * (y[b] - y[d]));
    float delta = ac + bd - ab - cd;
    if (delta < 0.0f) {
        unsigned int u = __float_as_uint(delta);
        u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);      // float order as unsigned order
        unsigned long long key = ((unsigned long long)u << 32) | (unsigned int)(i * n + j);
        atomicMin(best, key);
    }
}

// n order lines (store, sku, qty): units[w * nsku + sku] += qty for the store's warehouse w =
// store_wh[store]; wh_lines[w] += 1 and wh_grams[w] += qty sku_grams[sku] (blockDim.x >= DA_WH)
__global__ void demand_aggregate(const int *store, const int *sku, const int *qty, const int *store_wh,
                                 const int *sku_grams, int *units, int *wh_lines, unsigned long long *wh_grams,
                                 int nsku, int n) {
    __shared__ int s_lines[DA_WH];
    __shared__ unsigned long long s_grams[DA_WH];
    if (threadIdx.x < DA_WH) {
        s_lines[threadIdx.x] = 0;
        s_grams[threadIdx.x] = 0;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int w = store_wh[store[i]];
        int s = sku[i];
        int q = qty[i];
        atomicAdd(&units[w * nsku + s], q);
        atomicAdd(&s_lines[w], 1);
        atomicAdd(&s_grams[w], (unsigned long long)(q * sku_grams[s]));
    }
    __syncthreads();
    if (threadIdx.x < DA_WH && s_lines[threadIdx.x] > 0) {
        atomicAdd(&wh_lines[threadIdx.x], s_lines[threadIdx.x]);
        atomicAdd(&wh_grams[threadIdx.x], s_grams[threadIdx.x]);
    }
}

// n scenarios, scenario i the replication i % reps of SKU i / reps's policy over days days, from
// S on hand and nothing in transit, the LCG seeded seed + i: each day the order due arrives,
// Poisson(mu c_dow[day % 7]) demand, what is not on hand lost, the end-of-day stock held, and
// an order of S - position when the position (on hand + in transit) is at most s, arriving
// lead days later; cost = hold (stock-days) + order (orders) + lost (lost units)
__global__ void ss_policy_sim(const SkuPolicy *pol, float *cost, int *lost_units, int *orders, int *demand,
                              int reps, int days, unsigned int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    SkuPolicy p = pol[i / reps];
    unsigned int st = seed + i;
    int pipe[IV_PIPE];
    for (int k = 0; k < IV_PIPE; k++) pipe[k] = 0;
    int on_hand = p.S;
    int transit = 0;
    int held = 0;
    int lost = 0;
    int norders = 0;
    int dem = 0;
    for (int t = 0; t < days; t++) {
        int arrive = pipe[t % IV_PIPE];
        pipe[t % IV_PIPE] = 0;
        on_hand += arrive;
        transit -= arrive;
        // Knuth: the number of uniforms whose running product stays above exp(-mean), less one
        float L = expf(-p.mu * c_dow[t % 7]);
        float prod = 1.0f;
        int k = -1;
        do {
            st = st * 1664525u + 1013904223u;
            prod *= (float)((st >> 8) + 1u) * (1.0f / 16777216.0f);
            k++;
        } while (prod > L);
        dem += k;
        int sold = min(k, on_hand);
        lost += k - sold;
        on_hand -= sold;
        held += on_hand;
        if (on_hand + transit <= p.s) {
            int q = p.S - on_hand - transit;
            pipe[(t + p.lead) % IV_PIPE] += q;
            transit += q;
            norders++;
        }
    }
    cost[i] = p.hold * held + p.order * norders + p.lost * lost;
    lost_units[i] = lost;
    orders[i] = norders;
    demand[i] = dem;
}

// n SKU-locations, a warp each (blockDim.x a multiple of 32), days of daily demand history a
// row of hist: with the demand's mean mu and sample variance var, and its supplier's lead time
// (mean lt_mean, sd lt_sd days): ss = z sqrt(L var + mu^2 sL^2) for z the normal quantile of
// c_service[cls], rop = mu L + ss, eoq = sqrt(2 (365 mu) order_cost / (hold_rate unit_cost))
__global__ void safety_stock(const int *hist, const int *cls, const int *supplier, const float *lt_mean,
                             const float *lt_sd, const float *unit_cost, float *ss, float *rop, float *eoq,
                             float order_cost, float hold_rate, int days, int n) {
    int sku = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (sku >= n) return;                                   // whole warps
    const int *h = hist + (size_t)sku * days;
    float s = 0.0f;
    float s2 = 0.0f;
    for (int d = lane; d < days; d += 32) {
        float v = (float)h[d];
        s += v;
        s2 += v * v;
    }
    for (int o = 16; o > 0; o >>= 1) {
        s += __shfl_down_sync(0xffffffff, s, o);
        s2 += __shfl_down_sync(0xffffffff, s2, o);
    }
    if (lane == 0) {
        float mu = s / days;
        float var = fmaxf((s2 - s * mu) / (days - 1), 0.0f);
        int sp = supplier[sku];
        float L = lt_mean[sp];
        float sL = lt_sd[sp];
        float z = norm_inv(c_service[cls[sku]]);
        float safety = z * sqrtf(L * var + mu * mu * sL * sL);
        ss[sku] = safety;
        rop[sku] = mu * L + safety;
        eoq[sku] = sqrtf(2.0f * 365.0f * mu * order_cost / (hold_rate * unit_cost[sku]));
    }
}

// n batches, batch b the cartons of volumes vol[off[b] .. off[b + 1]] (at most FF_MAXB, each at
// most cap, largest first) packed first-fit into cages of volume cap: cage[k] carton k's cage
// (0-based, in the order opened), ncages[b] the cages used, slack[b] their unused volume
__global__ void first_fit_pack(const int *off, const int *vol, int *cage, int *ncages, int *slack, int cap, int n) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= n) return;
    int room[FF_MAXB];
    int used = 0;
    for (int k = off[b]; k < off[b + 1]; k++) {
        int v = vol[k];
        int c = 0;
        while (c < used && room[c] < v) c++;
        if (c == used) {
            room[c] = cap;
            used++;
        }
        room[c] -= v;
        cage[k] = c;
    }
    int free_vol = 0;
    for (int c = 0; c < used; c++) free_vol += room[c];
    ncages[b] = used;
    slack[b] = free_vol;
}

}
