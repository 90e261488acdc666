// probe-unseen214: a queueing-theory / discrete-event simulation course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - mg1_lindley: M/G/1 replications by the Lindley recursion, a thread a replication (a
//    sweep of loads): exponential interarrival times by inversion (-logf(u) / lambda) of a
//    per-thread xorshift32 stream, service times from an empirical inverse CDF in a
//    __constant__ table (floorf and linear interpolation), the waits after a warm-up
//    summed in double, the fraction over a threshold and the largest wait;
//  - mmc_crn: M/M/c (and M/G/c) replications with common random numbers, a thread a
//    configuration (c servers, arrival and service rates): each server's next free time in
//    a per-thread local array, each customer to the earliest free server by a linear scan
//    (c differs from lane to lane: a divergent loop), the same unit interarrival and
//    service draws read by every thread, scaled by its rates;
//  - erlang_staffing: call-centre staffing by the Erlang C formula, a thread a
//    (queue, 15-minute interval): the Erlang B recursion in double from one agent up until
//    the service level (calls answered within the target time) and the occupancy cap of
//    the queue's class (a __constant__ table of structs) are met; the agents (short), the
//    service level and the average speed of answer stored;
//  - wait_hist: histogram of the waiting times of a simulation's customers (4 classes, 64
//    log-spaced bins, 4 a doubling) privatised in shared memory: zero waits counted by a
//    ballot and __popc a class, the others binned by log2f / floorf and added by shared int
//    atomics, the waits summed by shared float atomics and their maxima by atomicMax on
//    the float's bits; a block-uniform grid-stride loop; flushed by global atomics;
//  - token_bucket: a token-bucket shaper with a delay bound over per-flow packet traces
//    (8-byte packet structs with a 16-bit length and an 8-bit DSCP, CSR by flow), a thread
//    a flow: tokens refilled at the bucket's rate up to its depth, a packet sent when the
//    tokens cover it or else held until they do, dropped if it would wait past the bound;
//    per-packet delays, per-flow sent bytes and drops, global atomics on the totals and the
//    per-DSCP-class drops;
//  - lindley_scan: the Lindley recursion of one long G/G/1 sample path a block, made
//    parallel as a scan of max-plus pairs (w -> max(c, w + s)): __shfl_up_sync steps within
//    a warp, the warps' totals through shared memory and __syncthreads, the carry (the last
//    wait of the chunk) from chunk to chunk; each wait stored, the waiting customers
//    counted by __syncthreads_count, the waits summed by shuffles and a shared atomic.

#define MG1_ICDF 256            // mg1_lindley: the service inverse CDF's intervals (MG1_ICDF + 1 knots)

#define MMC_MAXC 32             // mmc_crn: servers at most

#define ES_CLASSES 8            // erlang_staffing: service-level classes
#define ES_MAXAGENTS 30000      // give up past this many agents

#define WH_CLASSES 4            // wait_hist: customer classes
#define WH_BINS 64              // bins a class: 0 zero waits, 1 .. 63 log-spaced
#define WH_PER_OCT 4            // bins a doubling

#define TB_CLASSES 8            // token_bucket: DSCP classes (dscp >> 3)

#define LS_BLOCK 256            // lindley_scan: threads a block
#define LS_WARPS (LS_BLOCK / 32)

struct MmcConfig {
    float lam;                  // arrival rate
    float mu;                   // service rate a server
    int c;                      // servers (1 .. MMC_MAXC)
};

struct StaffTarget {
    float sl;                   // share of calls answered within t_ans at least
    float t_ans;                // target answer time, seconds
    float max_occ;              // agents' occupancy at most
};

struct Packet {
    float t;                    // arrival time, seconds from the flow's start
    unsigned short len;         // bytes
    unsigned char dscp;         // DiffServ code point
    unsigned char flags;
};

struct Bucket {
    float rate;                 // tokens (bytes) a second
    float depth;                // bucket size, bytes
    float max_delay;            // a packet held longer is dropped, seconds
};

// the service time's inverse CDF at u = i / MG1_ICDF, set by the host
__constant__ float c_svc_icdf[MG1_ICDF + 1];

// the service-level targets of each class of queue, set by the host
__constant__ StaffTarget c_targets[ES_CLASSES];

__device__ unsigned int xorshift32(unsigned int &s) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
}

// uniform in (0, 1): the top 23 bits and a half
__device__ float uniform01(unsigned int &s) {
    return ((xorshift32(s) >> 9) + 0.5f) * (1.0f / 8388608.0f);
}

extern "C" {

// nrep replications of ncust customers from an empty M/G/1 queue, replication r at arrival
// rate lam[r] from the xorshift32 seed seed[r]; over the customers from warmup on: the mean
// wait, the share that waited over tau, the largest wait
__global__ void mg1_lindley(const float *lam, const unsigned int *seed, int ncust, int warmup, float tau,
                            float *mean_wait, float *p_over, float *max_wait, int nrep) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrep) return;
    unsigned int s = seed[r];
    float rate = lam[r];
    float w = 0.0f;             // the current customer's wait
    float svc = 0.0f;           // the previous customer's service time
    float wmax = 0.0f;
    double sum = 0.0;
    int over = 0;
    for (int k = 0; k < ncust; k++) {
        float a = -logf(uniform01(s)) / rate;
        w = fmaxf(0.0f, w + svc - a);
        float u = uniform01(s) * MG1_ICDF;
        int j = (int)floorf(u);
        float f = u - j;
        svc = c_svc_icdf[j] + f * (c_svc_icdf[j + 1] - c_svc_icdf[j]);
        if (k >= warmup) {
            sum += w;
            if (w > tau) over++;
            wmax = fmaxf(wmax, w);
        }
    }
    int m = ncust - warmup;
    mean_wait[r] = (float)(sum / m);
    p_over[r] = (float)over / m;
    max_wait[r] = wmax;
}

// ncfg configurations of a c-server FIFO queue fed the same ncust customers: unit
// interarrival times ea[k] and service requirements es[k], scaled by each configuration's
// rates; over the customers from warmup on: the mean wait, the share that waited, and the
// servers' utilisation (the service time given over c times the time it was given in)
__global__ void mmc_crn(const MmcConfig *cfg, const float *ea, const float *es, int ncust, int warmup,
                        float *mean_wait, float *p_wait, float *util, int ncfg) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ncfg) return;
    MmcConfig cf = cfg[i];
    float free_at[MMC_MAXC];
    for (int j = 0; j < cf.c; j++) free_at[j] = 0.0f;
    float t = 0.0f, t0 = 0.0f, busy = 0.0f;
    double sumw = 0.0;
    int waited = 0;
    for (int k = 0; k < ncust; k++) {
        t += ea[k] / cf.lam;
        int best = 0;
        for (int j = 1; j < cf.c; j++) {
            if (free_at[j] < free_at[best]) best = j;
        }
        float start = fmaxf(t, free_at[best]);
        float svc = es[k] / cf.mu;
        free_at[best] = start + svc;
        if (k == warmup) t0 = t;
        if (k >= warmup) {
            sumw += start - t;
            if (start > t) waited++;
            busy += svc;
        }
    }
    int m = ncust - warmup;
    mean_wait[i] = (float)(sumw / m);
    p_wait[i] = (float)waited / m;
    util[i] = busy / (cf.c * (t - t0));
}

// n (queue, interval) pairs: load[i] Erlangs offered, aht[i] the average handling time
// (seconds), cls[i] the queue's service-level class; the fewest agents meeting the class's
// service level and occupancy cap, the service level and the average speed of answer
// (seconds) they give
__global__ void erlang_staffing(const float *load, const float *aht, const unsigned char *cls, short *agents,
                                float *sl_out, float *asa_out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double A = load[i];
    double h = aht[i];
    StaffTarget tg = c_targets[cls[i]];
    double T = tg.t_ans / h;    // the target answer time in handling times
    double B = 1.0;             // Erlang B with c agents
    double sl = 0.0, asa = 0.0;
    int c = 0;
    while (c < ES_MAXAGENTS) {
        c++;
        B = A * B / (c + A * B);
        if (c > A) {
            double C = c * B / (c - A * (1.0 - B));     // Erlang C: the chance a call waits
            sl = 1.0 - C * exp(-(c - A) * T);
            asa = C * h / (c - A);
            if (sl >= tg.sl && A <= tg.max_occ * c) break;
        }
    }
    agents[i] = (short)c;
    sl_out[i] = (float)sl;
    asa_out[i] = (float)asa;
}

// n customers' waits (seconds) and classes; hist[k][0] += class k's zero waits,
// hist[k][b] += its waits w with b = 1 + floor(WH_PER_OCT log2(w / w0)) (clamped to
// 1 .. WH_BINS - 1); sum_w[k] += the waits; max_bits[k] = max of the waits' bits
__global__ void wait_hist(const float *wait, const unsigned char *cls, int n, float w0, int *hist, float *sum_w,
                          int *max_bits) {
    __shared__ int s_hist[WH_CLASSES * WH_BINS];
    __shared__ float s_sum[WH_CLASSES];
    __shared__ int s_max[WH_CLASSES];
    for (int j = threadIdx.x; j < WH_CLASSES * WH_BINS; j += blockDim.x) s_hist[j] = 0;
    if (threadIdx.x < WH_CLASSES) {
        s_sum[threadIdx.x] = 0.0f;
        s_max[threadIdx.x] = 0;
    }
    __syncthreads();
    int lane = threadIdx.x % 32;
    for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        int i = base + threadIdx.x;
        bool valid = i < n;
        float w = valid ? wait[i] : 0.0f;
        int k = valid ? cls[i] : 0;
        for (int c = 0; c < WH_CLASSES; c++) {
            unsigned int zero = __ballot_sync(0xffffffff, valid && w == 0.0f && k == c);
            if (lane == 0 && zero != 0) atomicAdd(&s_hist[c * WH_BINS], __popc(zero));
        }
        if (valid && w > 0.0f) {
            int b = 1 + (int)floorf(log2f(w / w0) * WH_PER_OCT);
            b = min(max(b, 1), WH_BINS - 1);
            atomicAdd(&s_hist[k * WH_BINS + b], 1);
            atomicAdd(&s_sum[k], w);
            atomicMax(&s_max[k], __float_as_int(w));
        }
    }
    __syncthreads();
    for (int j = threadIdx.x; j < WH_CLASSES * WH_BINS; j += blockDim.x)
        if (s_hist[j] != 0) atomicAdd(&hist[j], s_hist[j]);
    if (threadIdx.x < WH_CLASSES) {
        atomicAdd(&sum_w[threadIdx.x], s_sum[threadIdx.x]);
        atomicMax(&max_bits[threadIdx.x], s_max[threadIdx.x]);
    }
}

// nflows flows, flow f's packets pkts[start[f] .. start[f + 1] - 1] in arrival order,
// shaped by bucket bk[f] (full at the flow's start): delay[p] the packet's wait in the
// shaper (-1 dropped); sent[f], drops[f] the flow's bytes sent and packets dropped;
// class_drops[dscp >> 3] += drops, *tot_bytes += bytes sent
__global__ void token_bucket(const Packet *pkts, const int *start, const Bucket *bk, float *delay,
                             unsigned long long *sent, int *drops, int *class_drops,
                             unsigned long long *tot_bytes, int nflows) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= nflows) return;
    Bucket b = bk[f];
    float tokens = b.depth;     // tokens at time `last`
    float last = 0.0f;
    float dep = 0.0f;           // the previous packet's departure
    unsigned long long bytes = 0;
    int dropped = 0;
    for (int p = start[f]; p < start[f + 1]; p++) {
        Packet pk = pkts[p];
        float s = fmaxf(pk.t, dep);             // at the head of the line
        float tok = fminf(b.depth, tokens + b.rate * (s - last));
        float len = (float)pk.len;
        float d = s;
        if (tok >= len) {
            tok -= len;
        } else {
            d = s + (len - tok) / b.rate;       // wait for the missing tokens
            tok = 0.0f;
        }
        if (d - pk.t > b.max_delay) {
            delay[p] = -1.0f;
            dropped++;
            atomicAdd(&class_drops[pk.dscp >> 3], 1);
            continue;
        }
        tokens = tok;
        last = d;
        dep = d;
        delay[p] = d - pk.t;
        bytes += pk.len;
    }
    sent[f] = bytes;
    drops[f] = dropped;
    atomicAdd(tot_bytes, bytes);
}

// gridDim.x G/G/1 sample paths of ncust customers, a block each: inter[k] the time from
// customer k - 1's arrival to k's, svc[k] k's service time (path rep's at rep * ncust);
// wait[k] the Lindley waits (customer 0 finds the queue empty), mean_wait[rep] their mean,
// nwait[rep] the customers who waited
__global__ void lindley_scan(const float *inter, const float *svc, int ncust, float *wait, float *mean_wait,
                             int *nwait) {
    __shared__ float s_s[LS_WARPS], s_c[LS_WARPS];
    __shared__ float s_carry;
    __shared__ float s_total;
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    size_t off = (size_t)blockIdx.x * ncust;
    const float *a = inter + off;
    const float *sv = svc + off;
    float *w_out = wait + off;
    if (threadIdx.x == 0) s_total = 0.0f;
    __syncthreads();
    float carry = 0.0f;         // the wait of the customer before the chunk
    float mysum = 0.0f;
    int waited = 0;
    for (int k0 = 0; k0 < ncust; k0 += blockDim.x) {
        int k = k0 + threadIdx.x;
        // w -> max(0, w + x): as a pair (s, c), w -> max(c, w + s)
        float x = (k > 0 && k < ncust) ? sv[k - 1] - a[k] : 0.0f;
        float s = x, c = fmaxf(x, 0.0f);
        for (int o = 1; o < 32; o *= 2) {
            float ps = __shfl_up_sync(0xffffffff, s, o);
            float pc = __shfl_up_sync(0xffffffff, c, o);
            if (lane >= o) {
                c = fmaxf(c, pc + s);
                s = ps + s;
            }
        }
        if (lane == 31) {
            s_s[warp] = s;
            s_c[warp] = c;
        }
        __syncthreads();
        // the earlier warps' pairs, then this thread's
        float S = 0.0f, C = 0.0f;
        for (int j = 0; j < warp; j++) {
            C = fmaxf(s_c[j], C + s_s[j]);
            S = S + s_s[j];
        }
        C = fmaxf(c, C + s);
        S = S + s;
        float w = fmaxf(C, carry + S);
        if (k < ncust) {
            w_out[k] = w;
            mysum += w;
        }
        waited += __syncthreads_count(k < ncust && w > 0.0f);
        if (threadIdx.x == blockDim.x - 1) s_carry = w;
        __syncthreads();
        carry = s_carry;
    }
    for (int o = 16; o > 0; o /= 2) mysum += __shfl_down_sync(0xffffffff, mysum, o);
    if (lane == 0) atomicAdd(&s_total, mysum);
    __syncthreads();
    if (threadIdx.x == 0) {
        mean_wait[blockIdx.x] = s_total / ncust;
        nwait[blockIdx.x] = waited;
    }
}

}
