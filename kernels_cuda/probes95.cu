// probe-unseen93: an evolutionary-computation / metaheuristics course's CUDA assignments,
// as a student who knows CUDA basics hands them in. Every stochastic kernel keeps a
// per-thread xorshift32 generator whose state lives in a global array (loaded at the
// start, stored back at the end, as the course's RNG handout does).
//
// - tsp_fitness: the GA's fitness evaluation on a population of TSP tours (permutations
//   of TSP_N cities, stored tour after tour), a thread an individual; the cities'
//   coordinates staged in shared memory, the closed tour's Euclidean length stored, and
//   each block's shortest tour found by a shared-memory tree reduction.
// - pso_update: one particle-swarm velocity and position update over the flat array of
//   all particles' coordinates (particle after particle, `dim` each), a thread a
//   coordinate: inertia, cognitive and social pulls with two fresh uniforms, the velocity
//   clamped to +-vmax, the position kept inside the box (a wall stops the velocity).
// - ga_breed: a real-coded GA's breeding step, a thread a child: two tournaments of
//   GA_TOUR random individuals (minimization), arithmetic crossover with probability
//   p_cross, then per gene a Gaussian mutation (Box-Muller) with probability p_mut,
//   clamped to the search box.
// - sa_schwefel: parallel simulated-annealing chains on the SA_DIM-dimensional Schwefel
//   function, a thread a chain, the point in a per-thread array: each move perturbs one
//   random coordinate, the change of the (separable) objective needs one sinf(sqrtf) term
//   before and after, Metropolis acceptance with expf on a geometric cooling schedule;
//   the point, its value and the best value seen stored.
// - aco_deposit: ant-colony pheromone deposit, a thread an ant: the ant adds Q / L (L its
//   tour's length) to both directions of every edge of its closed tour with atomicAdd
//   on the ACO_N x ACO_N pheromone matrix (evaporation is a separate kernel).
// - aco_construct: ant-colony tour construction on AC_N = 32 cities, a thread an ant:
//   the choice_info matrix (tau^alpha eta^beta, computed by the host) and the distances
//   staged in shared memory, the visited cities in a bitmask, each step a roulette wheel
//   (the sum over the unvisited cities, a uniform draw, then a scan to where the running
//   sum reaches it); the tour and its length stored.

#define TSP_N 64        // tsp_fitness: cities a tour
#define TSP_BLOCK 256   // tsp_fitness: threads a block (the reduction's shared array)
#define GA_DIM 16       // ga_breed: genes an individual
#define GA_TOUR 3       // ga_breed: tournament size
#define SA_DIM 8        // sa_schwefel: dimensions
#define ACO_N 128       // aco_deposit: cities
#define AC_N 32         // aco_construct: cities (the visited set fits a 32-bit mask)

extern "C" {

// Marsaglia's xorshift32: advances the state, returns it
__device__ unsigned int xorshift32(unsigned int *state) {
    unsigned int x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

// a uniform float in [0, 1) from the draw's top 24 bits
__device__ float rand01(unsigned int *state) {
    return (xorshift32(state) >> 8) * (1.0f / 16777216.0f);
}

// lengths of pop closed tours (tours[i * TSP_N + k]: the k-th city of tour i) over the
// cities (cx, cy); block_best[b] the shortest tour of block b
__global__ void tsp_fitness(const int *tours, const float *cx, const float *cy, float *length,
                            float *block_best, int pop) {
    __shared__ float sx[TSP_N];
    __shared__ float sy[TSP_N];
    __shared__ float sbest[TSP_BLOCK];
    int t = threadIdx.x;
    if (t < TSP_N) {
        sx[t] = cx[t];
        sy[t] = cy[t];
    }
    __syncthreads();

    int i = blockIdx.x * blockDim.x + t;
    float len = 3.4e38f;
    if (i < pop) {
        const int *tour = tours + i * TSP_N;
        int first = tour[0];
        int prev = first;
        len = 0.0f;
        for (int k = 1; k < TSP_N; k++) {
            int c = tour[k];
            float dx = sx[c] - sx[prev];
            float dy = sy[c] - sy[prev];
            len += sqrtf(dx * dx + dy * dy);
            prev = c;
        }
        float dx = sx[first] - sx[prev];
        float dy = sy[first] - sy[prev];
        len += sqrtf(dx * dx + dy * dy);
        length[i] = len;
    }

    // the block's shortest tour
    sbest[t] = len;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sbest[t] = fminf(sbest[t], sbest[t + s]);
        __syncthreads();
    }
    if (t == 0) block_best[blockIdx.x] = sbest[0];
}

// one PSO step on total = particles * dim coordinates (coordinate d of particle p at
// p * dim + d), a thread a coordinate with its own RNG state
__global__ void pso_update(float *x, float *v, const float *pbest, const float *gbest, unsigned int *rng_state,
                           float w, float c1, float c2, float vmax, float xmin, float xmax, int dim, int total) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    int d = i % dim;
    unsigned int s = rng_state[i];
    float r1 = rand01(&s);
    float r2 = rand01(&s);
    float xi = x[i];
    float vi = w * v[i] + c1 * r1 * (pbest[i] - xi) + c2 * r2 * (gbest[d] - xi);
    if (vi > vmax) vi = vmax;
    if (vi < -vmax) vi = -vmax;
    xi = xi + vi;
    if (xi < xmin) {
        xi = xmin;
        vi = 0.0f;
    } else if (xi > xmax) {
        xi = xmax;
        vi = 0.0f;
    }
    x[i] = xi;
    v[i] = vi;
    rng_state[i] = s;
}

// the fittest (lowest fitness) of GA_TOUR random individuals, the first drawn on ties
__device__ int tournament(const float *fitness, int n, unsigned int *s) {
    int best = xorshift32(s) % n;
    for (int k = 1; k < GA_TOUR; k++) {
        int c = xorshift32(s) % n;
        if (fitness[c] < fitness[best]) best = c;
    }
    return best;
}

// n children (GA_DIM genes each, row-major) from the population pop with fitnesses
// fitness: two tournaments, arithmetic crossover (alpha a + (1 - alpha) b) with
// probability p_cross (else a copy of the first parent), then each gene mutated with
// probability p_mut by sigma times a Box-Muller normal and clamped to [lo, hi]
__global__ void ga_breed(const float *pop, const float *fitness, float *children, unsigned int *rng_state,
                         float p_cross, float p_mut, float sigma, float lo, float hi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int s = rng_state[i];
    int p1 = tournament(fitness, n, &s);
    int p2 = tournament(fitness, n, &s);
    float alpha = rand01(&s);
    bool cross = rand01(&s) < p_cross;
    for (int d = 0; d < GA_DIM; d++) {
        float a = pop[p1 * GA_DIM + d];
        float b = pop[p2 * GA_DIM + d];
        float g = a;
        if (cross) g = alpha * a + (1.0f - alpha) * b;
        if (rand01(&s) < p_mut) {
            float u1 = ((xorshift32(&s) >> 8) + 1) * (1.0f / 16777216.0f);   // (0, 1]
            float u2 = rand01(&s);
            float z = sqrtf(-2.0f * logf(u1)) * cosf(6.28318531f * u2);
            g = g + sigma * z;
            g = fminf(fmaxf(g, lo), hi);
        }
        children[i * GA_DIM + d] = g;
    }
    rng_state[i] = s;
}

// one term of Schwefel's function f(x) = 418.9829 D - sum_d x_d sin(sqrt(|x_d|))
__device__ float schwefel_term(float x) {
    return -x * sinf(sqrtf(fabsf(x)));
}

// iters Metropolis moves of n annealing chains (x row-major n x SA_DIM in [-500, 500]):
// move: coordinate xorshift % SA_DIM, a step uniform in +-step, clamped to the box;
// accepted when the change df <= 0 or a uniform < exp(-df / T); T from t0, times cool a
// move; the point, f and the best f seen stored
__global__ void sa_schwefel(float *x, float *f_out, float *f_best, unsigned int *rng_state, float t0, float cool,
                            float step, int iters, int n) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n) return;
    float p[SA_DIM];
    float f = 418.9829f * SA_DIM;
    for (int d = 0; d < SA_DIM; d++) {
        p[d] = x[c * SA_DIM + d];
        f += schwefel_term(p[d]);
    }
    unsigned int s = rng_state[c];
    float best = f;
    float T = t0;
    for (int it = 0; it < iters; it++) {
        int d = xorshift32(&s) % SA_DIM;
        float xn = p[d] + step * (2.0f * rand01(&s) - 1.0f);
        xn = fminf(fmaxf(xn, -500.0f), 500.0f);
        float df = schwefel_term(xn) - schwefel_term(p[d]);
        if (df <= 0.0f || rand01(&s) < expf(-df / T)) {
            p[d] = xn;
            f += df;
            if (f < best) best = f;
        }
        T *= cool;
    }
    for (int d = 0; d < SA_DIM; d++) x[c * SA_DIM + d] = p[d];
    f_out[c] = f;
    f_best[c] = best;
    rng_state[c] = s;
}

// each of n_ants closed tours (tours[a * ACO_N + k]) deposits Q / len[a] on both
// directions of each of its edges
__global__ void aco_deposit(const int *tours, const float *len, float *tau, float Q, int n_ants) {
    int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= n_ants) return;
    float dep = Q / len[a];
    for (int k = 0; k < ACO_N; k++) {
        int i = tours[a * ACO_N + k];
        int j = tours[a * ACO_N + (k + 1) % ACO_N];
        atomicAdd(&tau[i * ACO_N + j], dep);
        atomicAdd(&tau[j * ACO_N + i], dep);
    }
}

// n_ants ants build tours on AC_N cities: start xorshift % AC_N, then each step the next
// city by a roulette wheel over the unvisited cities weighted by choice[cur][j]; the
// tour (tours[a * AC_N + k]) and its closed length over dist
__global__ void aco_construct(const float *choice, const float *dist, int *tours, float *len,
                              unsigned int *rng_state, int n_ants) {
    __shared__ float s_choice[AC_N * AC_N];
    __shared__ float s_dist[AC_N * AC_N];
    for (int k = threadIdx.x; k < AC_N * AC_N; k += blockDim.x) {
        s_choice[k] = choice[k];
        s_dist[k] = dist[k];
    }
    __syncthreads();
    int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= n_ants) return;
    unsigned int s = rng_state[a];
    int start = xorshift32(&s) % AC_N;
    unsigned int visited = 1u << start;
    int cur = start;
    float L = 0.0f;
    tours[a * AC_N] = start;
    for (int step = 1; step < AC_N; step++) {
        float total = 0.0f;
        for (int j = 0; j < AC_N; j++) {
            if (!(visited & (1u << j))) total += s_choice[cur * AC_N + j];
        }
        float r = rand01(&s) * total;
        int next = -1;
        float acc = 0.0f;
        for (int j = 0; j < AC_N; j++) {
            if (!(visited & (1u << j))) {
                acc += s_choice[cur * AC_N + j];
                next = j;
                if (acc >= r) break;
            }
        }
        visited |= 1u << next;
        tours[a * AC_N + step] = next;
        L += s_dist[cur * AC_N + next];
        cur = next;
    }
    L += s_dist[cur * AC_N + start];
    len[a] = L;
    rng_state[a] = s;
}

}
