// probe-unseen194: a computational topology / topological data analysis course's CUDA
// assignments, as a student who knows CUDA basics hands them in:
//  - rips_edge_list: the 1-skeleton of a Vietoris-Rips complex of a point cloud in 64
//    dimensions, a 16 x 16 block a tile of the pairwise distance matrix (the upper triangle's
//    tiles only): the tile's 16 row and 16 column points staged in shared memory (rows
//    padded by one float), a thread a pair (i < j) summing 64 squared differences, each pair
//    closer than eps appended to an edge list (i, j, distance) through one atomicAdd counter;
//  - rips_components_uf: the connected components (0-th Betti number, single-linkage clusters)
//    of a Rips graph from its edge list sorted by length (the filtration's order), a thread
//    an edge: union-find over the points' parent pointers, the roots found with path halving
//    by atomicCAS, the larger root hung under the smaller by atomicCAS (retried when another
//    thread got there first), so every point ends in a tree whose root is its component's
//    smallest point;
//  - landscape_eval: persistence landscapes lambda_1 .. lambda_8 of many persistence diagrams
//    (struct pairs (birth, death), CSR by diagram) at 256 sample points, a block a diagram
//    and a thread a sample point: the diagram's pairs staged through shared memory a chunk at
//    a time, each pair's tent function min(t - b, d - t) kept when among the 8 largest so far
//    by insertion into a per-thread array;
//  - ecc_cubical: the Euler characteristic curve of a 3-D 12-bit scalar field (a CT scan of a
//    porous rock) under the lower-star filtration of its cubical complex, a thread a voxel:
//    the cells it is the lowest corner of (itself, 3 edges, 3 squares, a cube) each entering
//    at the largest of its corners' values, +1 or -1 by dimension into a shared-memory
//    histogram of the 256 value bins (shared atomicAdd), the block's non-zero bins added to
//    the global curve by atomicAdd (the curve is the histogram's prefix sum);
//  - fps_step: a step of farthest-point (maxmin) landmark selection for a witness complex on a
//    3-D point cloud (a struct of 3 floats a point): each point's distance to the landmark set
//    updated with the newest landmark, the block's farthest point (ties: the smaller index)
//    found by a __shfl_down_sync argmax within each warp and then over the warps' winners in
//    shared memory, written a block for a second pass;
//  - persistence_image: persistence images (Adams et al. 2017) of many persistence diagrams, a
//    32 x 32 block a diagram and a thread a pixel of the (birth, persistence) plane: the
//    diagram's pairs staged through shared memory (birth, persistence and the linear weight
//    min(persistence / pmax, 1)), each pair's Gaussian of width sigma at the pixel's centre
//    (an expf) summed.

#define RP_DIM 64              // rips_edge_list: the points' dimension
#define RP_TILE 16             // blockDim.x == blockDim.y
#define LS_LEVELS 8            // landscape_eval: the landscapes computed, lambda_1 .. lambda_8
#define LS_CHUNK 256           // blockDim.x: the sample points, and the pairs staged at a time
#define EC_BINS 256            // ecc_cubical: the filtration's value bins (12-bit values >> EC_SHIFT)
#define EC_SHIFT 4
#define FP_WARPS 32            // fps_step: blockDim.x <= 32 FP_WARPS
#define PI_RES 32              // persistence_image: the image's side, blockDim 32 x 32
#define PI_CHUNK (PI_RES * PI_RES)

struct PPair {                 // a persistence pair
    float birth;
    float death;
};

struct Point3 {
    float x, y, z;
};

// the root of x's tree, halving the path on the way (parent[v] <= v always, so an atomicCAS
// from a parent to the grandparent never loses a link another thread made)
__device__ int uf_find(int *parent, int x) {
    while (true) {
        int p = parent[x];
        if (p == x) return x;
        int g = parent[p];
        if (g != p) atomicCAS(&parent[x], p, g);
        x = g;
    }
}

extern "C" {

// the pairs i < j of the n points X (RP_DIM floats each, row-major) closer than sqrt(eps2):
// k = atomicAdd(count, 1), and when k < cap, eu[k] = i, ev[k] = j, ed[k] = the distance
// (blockDim RP_TILE x RP_TILE, grid ceil(n / RP_TILE) squared)
__global__ void rips_edge_list(const float *X, float eps2, int *eu, int *ev, float *ed, int *count, int cap,
                               int n) {
    __shared__ float sa[RP_TILE][RP_DIM + 1];
    __shared__ float sb[RP_TILE][RP_DIM + 1];
    if (blockIdx.x < blockIdx.y) return;              // below the diagonal: no pair i < j
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int i0 = blockIdx.y * RP_TILE;
    int j0 = blockIdx.x * RP_TILE;
    for (int k = ty * RP_TILE + tx; k < RP_TILE * RP_DIM; k += RP_TILE * RP_TILE) {
        int r = k / RP_DIM;
        int c = k % RP_DIM;
        sa[r][c] = i0 + r < n ? X[(i0 + r) * RP_DIM + c] : 0.0f;
        sb[r][c] = j0 + r < n ? X[(j0 + r) * RP_DIM + c] : 0.0f;
    }
    __syncthreads();
    int i = i0 + ty;
    int j = j0 + tx;
    if (i >= j || j >= n) return;
    float s = 0.0f;
    for (int k = 0; k < RP_DIM; k++) {
        float d = sa[ty][k] - sb[tx][k];
        s += d * d;
    }
    if (s < eps2) {
        int k = atomicAdd(count, 1);
        if (k < cap) {
            eu[k] = i;
            ev[k] = j;
            ed[k] = sqrtf(s);
        }
    }
}

// the m edges (eu[e], ev[e]) merged into the union-find forest parent (parent[v] == v for
// every v at first): afterwards each point's root is the smallest point of its component
__global__ void rips_components_uf(const int *eu, const int *ev, int *parent, int m) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    int a = eu[e];
    int b = ev[e];
    while (true) {
        a = uf_find(parent, a);
        b = uf_find(parent, b);
        if (a == b) return;
        if (a > b) {
            int t = a;
            a = b;
            b = t;
        }
        if (atomicCAS(&parent[b], b, a) == b) return;    // b was still a root: hung under a
    }
}

// landscapes of the diagrams g (pairs[off[g] .. off[g + 1])): land[(g LS_LEVELS + k) LS_CHUNK + s]
// = lambda_{k+1}(t_s), the (k+1)-th largest of max(0, min(t - birth, death - t)) over the pairs,
// at t_s = (s + 1/2) dt (blockDim.x == LS_CHUNK, a block a diagram)
__global__ void landscape_eval(const int *off, const PPair *pairs, float *land, float dt) {
    __shared__ PPair sp[LS_CHUNK];
    int g = blockIdx.x;
    int s = threadIdx.x;
    float t = ((float)s + 0.5f) * dt;
    float top[LS_LEVELS];
    for (int k = 0; k < LS_LEVELS; k++) top[k] = 0.0f;
    int p0 = off[g];
    int p1 = off[g + 1];
    for (int c = p0; c < p1; c += LS_CHUNK) {
        if (c + s < p1) sp[s] = pairs[c + s];
        __syncthreads();
        int cnt = min(LS_CHUNK, p1 - c);
        for (int q = 0; q < cnt; q++) {
            float v = fminf(t - sp[q].birth, sp[q].death - t);
            if (v > top[LS_LEVELS - 1]) {
                int k = LS_LEVELS - 1;
                while (k > 0 && top[k - 1] < v) {
                    top[k] = top[k - 1];
                    k--;
                }
                top[k] = v;
            }
        }
        __syncthreads();
    }
    for (int k = 0; k < LS_LEVELS; k++) land[(g * LS_LEVELS + k) * LS_CHUNK + s] = top[k];
}

// the Euler characteristic's changes of the nx x ny x nz field f (x fastest) by value bin:
// hist[b] += the vertices, squares minus the edges, cubes entering at bin b (a cell enters at
// its corners' largest value >> EC_SHIFT); chi(bin b) = hist[0] + ... + hist[b]
// (blockDim.z == 1, grid.z == nz)
__global__ void ecc_cubical(const unsigned short *f, int *hist, int nx, int ny, int nz) {
    __shared__ int h[EC_BINS];
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    for (int b = tid; b < EC_BINS; b += blockDim.x * blockDim.y) h[b] = 0;
    __syncthreads();
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z;
    if (x < nx && y < ny) {
        int i = (z * ny + y) * nx + x;
        int sy = nx;
        int sz = nx * ny;
        bool bx = x + 1 < nx;
        bool by = y + 1 < ny;
        bool bz = z + 1 < nz;
        int v000 = f[i];
        int v100 = bx ? f[i + 1] : 0;
        int v010 = by ? f[i + sy] : 0;
        int v001 = bz ? f[i + sz] : 0;
        int v110 = bx && by ? f[i + 1 + sy] : 0;
        int v101 = bx && bz ? f[i + 1 + sz] : 0;
        int v011 = by && bz ? f[i + sy + sz] : 0;
        int v111 = bx && by && bz ? f[i + 1 + sy + sz] : 0;
        atomicAdd(&h[v000 >> EC_SHIFT], 1);
        if (bx) atomicAdd(&h[max(v000, v100) >> EC_SHIFT], -1);
        if (by) atomicAdd(&h[max(v000, v010) >> EC_SHIFT], -1);
        if (bz) atomicAdd(&h[max(v000, v001) >> EC_SHIFT], -1);
        if (bx && by) atomicAdd(&h[max(max(v000, v100), max(v010, v110)) >> EC_SHIFT], 1);
        if (bx && bz) atomicAdd(&h[max(max(v000, v100), max(v001, v101)) >> EC_SHIFT], 1);
        if (by && bz) atomicAdd(&h[max(max(v000, v010), max(v001, v011)) >> EC_SHIFT], 1);
        if (bx && by && bz) {
            int c = max(max(max(v000, v100), max(v010, v110)), max(max(v001, v101), max(v011, v111)));
            atomicAdd(&h[c >> EC_SHIFT], -1);
        }
    }
    __syncthreads();
    for (int b = tid; b < EC_BINS; b += blockDim.x * blockDim.y)
        if (h[b] != 0) atomicAdd(&hist[b], h[b]);
}

// a farthest-point step: mind[i] = min(mind[i], |pts[i] - pts[last]|^2) for the n points; the
// block's largest mind and its point (the smallest such index) in bmax[blockIdx.x],
// barg[blockIdx.x] (blockDim.x a multiple of 32)
__global__ void fps_step(const Point3 *pts, float *mind, int last, float *bmax, int *barg, int n) {
    __shared__ float wmax[FP_WARPS];
    __shared__ int warg[FP_WARPS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    Point3 L = pts[last];
    float m = -1.0f;
    int arg = INT_MAX;
    if (i < n) {
        Point3 p = pts[i];
        float dx = p.x - L.x;
        float dy = p.y - L.y;
        float dz = p.z - L.z;
        m = fminf(mind[i], dx * dx + dy * dy + dz * dz);
        mind[i] = m;
        arg = i;
    }
    for (int o = 16; o > 0; o >>= 1) {
        float om = __shfl_down_sync(0xffffffff, m, o);
        int oa = __shfl_down_sync(0xffffffff, arg, o);
        if (om > m || (om == m && oa < arg)) {
            m = om;
            arg = oa;
        }
    }
    if (lane == 0) {
        wmax[warp] = m;
        warg[warp] = arg;
    }
    __syncthreads();
    if (warp == 0) {
        int nw = blockDim.x >> 5;
        m = lane < nw ? wmax[lane] : -1.0f;
        arg = lane < nw ? warg[lane] : INT_MAX;
        for (int o = 16; o > 0; o >>= 1) {
            float om = __shfl_down_sync(0xffffffff, m, o);
            int oa = __shfl_down_sync(0xffffffff, arg, o);
            if (om > m || (om == m && oa < arg)) {
                m = om;
                arg = oa;
            }
        }
        if (lane == 0) {
            bmax[blockIdx.x] = m;
            barg[blockIdx.x] = arg;
        }
    }
}

// persistence images of the diagrams g (pairs[off[g] .. off[g + 1])): pixel (px, py) of
// img[g PI_CHUNK + py PI_RES + px], centred at x = (px + 1/2) bw (birth), y = (py + 1/2) pw
// (persistence), is norm sum over the pairs of min(pers / pmax, 1) exp(-((x - b)^2 + (y -
// pers)^2) inv2s2) (blockDim PI_RES x PI_RES, a block a diagram)
__global__ void persistence_image(const int *off, const PPair *pairs, float *img, float bw, float pw, float pmax,
                                  float inv2s2, float norm) {
    __shared__ float sb[PI_CHUNK];
    __shared__ float sp[PI_CHUNK];
    __shared__ float sw[PI_CHUNK];
    int g = blockIdx.x;
    int tid = threadIdx.y * PI_RES + threadIdx.x;
    float x = ((float)threadIdx.x + 0.5f) * bw;
    float y = ((float)threadIdx.y + 0.5f) * pw;
    int p0 = off[g];
    int p1 = off[g + 1];
    float acc = 0.0f;
    for (int c = p0; c < p1; c += PI_CHUNK) {
        if (c + tid < p1) {
            PPair q = pairs[c + tid];
            float pers = q.death - q.birth;
            sb[tid] = q.birth;
            sp[tid] = pers;
            sw[tid] = fminf(pers / pmax, 1.0f);
        }
        __syncthreads();
        int cnt = min(PI_CHUNK, p1 - c);
        for (int q = 0; q < cnt; q++) {
            float dx = x - sb[q];
            float dy = y - sp[q];
            acc += sw[q] * expf(-(dx * dx + dy * dy) * inv2s2);
        }
        __syncthreads();
    }
    img[g * PI_CHUNK + tid] = norm * acc;
}

}
