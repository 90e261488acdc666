// probe-unseen108: a traffic and transportation simulation course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//
// nasch_step      one Nagel-Schreckenberg step of an ensemble of single-lane ring roads
//                 (NS_LEN cells each, every ring at its own density, for a fundamental
//                 diagram), a thread a cell: a cell holds its car's velocity or -1; a car
//                 accelerates by one up to NS_VMAX, looks ahead cell by cell for the gap,
//                 slows to it, brakes at random with probability p_brake (a hash of the
//                 cell) and is written at its new cell of the next road (set to -1 by the
//                 host before the launch).
// idm_step        one explicit step of the Intelligent Driver Model on ring roads of
//                 IDM_CARS vehicles each, stored in driving order (vehicle k's leader is
//                 k + 1, the ring's last one's the first), a thread a vehicle: the gap and
//                 the approach rate to the leader, the desired gap s*, the acceleration
//                 with each driver's own desired speed v0 and time headway T (cars and
//                 trucks), then a ballistic update with v >= 0 and positions wrapped to
//                 the ring; double-buffered (x, v in, x_new, v_new out).
// bf_relax        one Bellman-Ford sweep on a road network in CSR form (an intersection's
//                 outgoing links and their travel times in seconds), a thread a vertex:
//                 a reached vertex pushes dist + w to each neighbour by atomicMin into the
//                 next distances (a copy of the current ones, made by the host), and each
//                 block that lowered a distance sets *changed (a __syncthreads_or vote).
// od_aggregate    an origin-destination matrix per time period from trip records (an
//                 array of Trip structs: origin zone, destination zone, departure hour,
//                 distance), a thread a trip: records with an unmatched zone (-1) skipped,
//                 the period from the departure hour (AM peak, midday, PM peak, night),
//                 then an atomicAdd of 1 trip and one of the distance into the period's
//                 n_zones x n_zones matrices.
// signal_queues   a fixed-time two-phase traffic signal at each intersection over a
//                 15-minute analysis period (900 1 s steps), a thread an intersection with
//                 its own cycle and north-south green: each second each of the 4 approaches
//                 gets a Bernoulli arrival (a hash of the intersection, second and
//                 approach), and on green discharges at the saturation flow; the total
//                 queue delay (vehicle-seconds), the longest queue and the departures.
// tt_histogram    a travel-time histogram from matched detector records (entry and exit
//                 timestamps in seconds; exit -1 when the vehicle was not re-identified),
//                 a grid-stride loop: the block's histogram of TT_BINS 15-second bins (the
//                 last catching the longer ones) plus one bin for invalid records in
//                 shared memory by atomicAdd, then added to the global histogram.

#define NS_LEN 4096           // nasch_step: cells a ring road (7.5 m each: 30.7 km)
#define NS_VMAX 5             // nasch_step: the top speed, cells a step
#define IDM_CARS 1024         // idm_step: vehicles a ring road
#define INF_DIST 0x3fffffff   // bf_relax: an unreached vertex's distance
#define N_PERIODS 4           // od_aggregate: AM peak, midday, PM peak, night
#define SIG_LOST 4            // signal_queues: all-red seconds after each phase
#define TT_BINS 256           // tt_histogram: bins of TT_BIN_S seconds (+ one for invalid records)
#define TT_BIN_S 15.0f

struct Trip {
    int origin;        // origin zone (-1: unmatched)
    int dest;          // destination zone (-1: unmatched)
    float depart_h;    // departure time, hours after midnight
    float dist_km;     // trip length
};

extern "C" {

// a 32-bit integer hash (lowbias32), the random numbers of the stochastic kernels
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// a uniform float in [0, 1) from a hash's top 24 bits
__device__ float uniform01(unsigned int h) {
    return (h >> 8) * (1.0f / 16777216.0f);
}

// one Nagel-Schreckenberg step of n_cells / NS_LEN ring roads: road[i] the velocity of
// the car in cell i or -1; road_next (all -1) gets the moved cars
__global__ void nasch_step(const int *road, int *road_next, float p_brake, unsigned int seed, int n_cells) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_cells) return;
    int v = road[i];
    if (v < 0) return;                          // empty cell
    int base = (i / NS_LEN) * NS_LEN;           // the ring's first cell
    int c = i - base;
    v = min(v + 1, NS_VMAX);                    // 1. accelerate
    int d = 1;                                  // 2. slow down to the gap ahead
    while (d <= v && road[base + (c + d) % NS_LEN] < 0) d++;
    v = d - 1;
    if (v > 0 && uniform01(hash32(seed + (unsigned int)i)) < p_brake) v--;   // 3. random braking
    road_next[base + (c + v) % NS_LEN] = v;     // 4. move
}

// one IDM step of n vehicles on ring roads of IDM_CARS vehicles and length ring (m)
__global__ void idm_step(const float *x, const float *v, float *x_new, float *v_new, const float *v0, const float *T,
                         float a_max, float b_comf, float s0, float len, float ring, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int lead = (i % IDM_CARS == IDM_CARS - 1) ? i - (IDM_CARS - 1) : i + 1;
    float xi = x[i];
    float vi = v[i];
    float s = x[lead] - xi;
    if (s < 0.0f) s += ring;                     // the leader is past the ring's end
    s -= len;
    float dv = vi - v[lead];
    float sstar = s0 + fmaxf(0.0f, vi * T[i] + vi * dv / (2.0f * sqrtf(a_max * b_comf)));
    float r = vi / v0[i];
    float r2 = r * r;
    float q = sstar / s;
    float acc = a_max * (1.0f - r2 * r2 - q * q);
    float vn = fmaxf(vi + acc * dt, 0.0f);
    float xn = xi + 0.5f * (vi + vn) * dt;
    if (xn >= ring) xn -= ring;
    x_new[i] = xn;
    v_new[i] = vn;
}

// one Bellman-Ford sweep over a CSR road graph: dist_out (a copy of dist_in) lowered by
// atomicMin; *changed set when any distance went down
__global__ void bf_relax(const int *row_ptr, const int *col, const int *w, const int *dist_in, int *dist_out,
                         int *changed, int nv) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    int improved = 0;
    if (u < nv) {
        int du = dist_in[u];
        if (du < INF_DIST) {
            for (int e = row_ptr[u]; e < row_ptr[u + 1]; e++) {
                int nd = du + w[e];
                int old = atomicMin(&dist_out[col[e]], nd);
                if (nd < old) improved = 1;
            }
        }
    }
    if (__syncthreads_or(improved) && threadIdx.x == 0) *changed = 1;
}

// OD matrices (N_PERIODS of n_zones x n_zones, row = origin) of trip counts and
// vehicle-km from n trip records
__global__ void od_aggregate(const Trip *trips, int *od_count, float *od_vkm, int n_zones, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Trip t = trips[i];
    if (t.origin < 0 || t.dest < 0) return;      // unmatched record
    int period;
    if (t.depart_h >= 6.0f && t.depart_h < 10.0f) period = 0;
    else if (t.depart_h >= 10.0f && t.depart_h < 15.0f) period = 1;
    else if (t.depart_h >= 15.0f && t.depart_h < 19.0f) period = 2;
    else period = 3;
    int cell = (period * n_zones + t.origin) * n_zones + t.dest;
    atomicAdd(&od_count[cell], 1);
    atomicAdd(&od_vkm[cell], t.dist_km);
}

// n fixed-time signals over `seconds` 1 s steps: arrival[4 i + a] approach a's arrival
// probability a second (N, S green together, then E, W), cycle[i] and green_ns[i]
// seconds; sat_flow vehicles a second leave a queue on green
__global__ void signal_queues(const float *arrival, const int *cycle, const int *green_ns, int *delay,
                              int *max_queue, int *served, float sat_flow, unsigned int seed, int seconds, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float lam[4];
    int q[4];
    float credit[4];
    for (int a = 0; a < 4; a++) {
        lam[a] = arrival[4 * i + a];
        q[a] = 0;
        credit[a] = 0.0f;
    }
    int C = cycle[i];
    int g = green_ns[i];
    int total_delay = 0;
    int qmax = 0;
    int out = 0;
    for (int t = 0; t < seconds; t++) {
        int tc = t % C;
        int ns_green = tc < g;
        int ew_green = tc >= g + SIG_LOST && tc < C - SIG_LOST;
        for (int a = 0; a < 4; a++) {
            unsigned int h = hash32(seed + ((unsigned int)i * seconds + t) * 4u + a);
            if (uniform01(h) < lam[a]) q[a]++;
            int green = a < 2 ? ns_green : ew_green;
            if (green && q[a] > 0) {
                credit[a] += sat_flow;
                if (credit[a] >= 1.0f) {
                    q[a]--;
                    credit[a] -= 1.0f;
                    out++;
                }
            } else {
                credit[a] = 0.0f;
            }
            total_delay += q[a];
            qmax = max(qmax, q[a]);
        }
    }
    delay[i] = total_delay;
    max_queue[i] = qmax;
    served[i] = out;
}

// the travel-time histogram of n detector records: hist[TT_BINS] counts the invalid ones
__global__ void tt_histogram(const float *t_in, const float *t_out, unsigned int *hist, int n) {
    __shared__ unsigned int s_hist[TT_BINS + 1];
    for (int k = threadIdx.x; k < TT_BINS + 1; k += blockDim.x) s_hist[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float te = t_out[i];
        float tt = te - t_in[i];
        int b;
        if (te < 0.0f || tt <= 0.0f) {
            b = TT_BINS;                             // not re-identified, or a clock error
        } else {
            b = (int)(tt / TT_BIN_S);
            if (b > TT_BINS - 1) b = TT_BINS - 1;
        }
        atomicAdd(&s_hist[b], 1u);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < TT_BINS + 1; k += blockDim.x) {
        if (s_hist[k] > 0) atomicAdd(&hist[k], s_hist[k]);
    }
}

}
