// Kernels written in session 10 to test the timing model on structs and switch, which
// simt learned to emulate in that session (family probe-unseen10): one step of particle
// motion stored as an array of structs and as a structure of arrays (the course's
// coalescing lesson), a per-element interpreter whose switch on a random opcode diverges
// inside every warp, and a classification of points into an enum of quadrants counted
// with shared-memory atomics.
extern "C" {

struct Particle { float x, y, z, vx, vy, vz; };

// p += v dt for every particle, the particles an array of 24-byte structs
__global__ void particles_aos(Particle *p, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Particle q = p[i];
    q.x += q.vx * dt;
    q.y += q.vy * dt;
    q.z += q.vz * dt;
    p[i] = q;
}

// the same step, each member in an array of its own
__global__ void particles_soa(float *x, float *y, float *z, const float *vx, const float *vy,
                              const float *vz, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    x[i] += vx[i] * dt;
    y[i] += vy[i] * dt;
    z[i] += vz[i] * dt;
}

// out[i] = op[i] applied to (a[i], b[i]): eight operations, chosen per element
__global__ void opcode_switch(const unsigned char *op, const float *a, const float *b,
                              float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], r;
    switch (op[i] & 7) {
    case 0: r = x + y; break;
    case 1: r = x - y; break;
    case 2: r = x * y; break;
    case 3: r = x / (y + 1.0f); break;
    case 4: r = fmaxf(x, y); break;
    case 5: r = sqrtf(x * x + y * y); break;
    case 6: r = expf(-x); break;
    default: r = 0.0f;
    }
    out[i] = r;
}

typedef enum { Q_NE, Q_NW, Q_SW, Q_SE } Quadrant;

// counts[q] = the points in quadrant q: an enum switch per point, shared counters per block
__global__ void quadrant_count(const float *x, const float *y, unsigned int *counts, int n) {
    __shared__ unsigned int c[4];
    if (threadIdx.x < 4) c[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        Quadrant q = x[i] >= 0.0f ? (y[i] >= 0.0f ? Q_NE : Q_SE) : (y[i] >= 0.0f ? Q_NW : Q_SW);
        atomicAdd(&c[q], 1u);
    }
    __syncthreads();
    if (threadIdx.x < 4) atomicAdd(&counts[threadIdx.x], c[threadIdx.x]);
}

}
