// probe-unseen155: a fracture mechanics / peridynamics course's CUDA assignments, as a student
// who knows CUDA basics hands them in. The model: bond-based peridynamics (Silling's PMB
// material) of a glass plate with a pre-crack and a hole, discretised on a jittered cubic
// lattice (spacing dx, horizon delta = 3 dx), the nodes numbered cell by cell (cells of side
// delta), each node's bonds in a fixed-stride neighbour list (PD_MAX_NB slots a node, as
// LAMMPS' partner[i][jj]) with a bond-broken byte beside each:
//  - pd_build_neighbors: the horizon neighbour lists built from the cell grid, a 32-thread
//    block a cell: the 27 surrounding cells' nodes staged in shared memory, then each of the
//    cell's nodes tests them all against the horizon; the bonds crossing the pre-crack (the
//    plane y = crack_y for x < crack_a) marked broken;
//  - pd_bond_force: the PMB force density of each node, a thread a node over its bonds:
//    neighbour positions and displacements gathered, each bond's stretch, bonds stretched past
//    the critical stretch s0 broken (for good), the intact bonds' pair forces summed;
//  - pd_damage: each node's damage index (broken bonds / bonds), a 10-bin damage histogram
//    by shared-memory atomics (nearly every node in bin 0), and the crack tip (the damaged
//    node furthest along x) by a 64-bit atomicMax on (x's bits, node);
//  - pd_verlet: a velocity-Verlet step of the nodes' 64-byte AoS records: the new
//    acceleration from the force density, the velocity's second half-kick, the next
//    displacement; the nodes of the loading grips (bc 1, 2) moved at the grip velocity;
//  - pd_strain_energy: the PMB strain energy density of each node, a warp a node (its lanes
//    over the bonds, the neighbour list row read coalesced), a __shfl_down_sync sum, and the
//    plate's total energy by a shared stage and a double atomicAdd a block;
//  - williams_field: the Williams series displacement field about a crack tip (plane strain,
//    WM_TERMS mode I and mode II terms with coefficients in __constant__), in double, a
//    thread a node: the K-dominated initial state of the plate.

#define PD_MAX_NB 128         // bond slots a node in the neighbour list
#define NB_CELL_MAX 32        // pd_build_neighbors: nodes a cell at most (blockDim.x)
#define DMG_BINS 10           // pd_damage: histogram bins of damage in [0, 1]
#define TIP_DAMAGE 0.25f      // pd_damage: a node this damaged is on the crack
#define SE_BLOCK 256          // pd_strain_energy: blockDim.x (8 nodes a block)
#define WM_TERMS 10           // williams_field: terms of each mode

struct PDNode {
    float x, y, z;            // reference position (m)
    float ux, uy, uz;         // displacement (m)
    float vx, vy, vz;         // velocity (m/s)
    float ax, ay, az;         // acceleration of the last step (m/s^2)
    float fx, fy, fz;         // force density (N/m^3) from pd_bond_force
    int bc;                   // 0 free, 1 top grip, 2 bottom grip
};

// williams_field's coefficients (set by the host): a_n (mode I) and b_n (mode II), n = 1 .. WM_TERMS
__constant__ double c_wa[WM_TERMS];
__constant__ double c_wb[WM_TERMS];

extern "C" {

// the neighbour lists of the nodes of cell blockIdx.x (cells ncx x ncy x ncz, x fastest; the
// nodes X (w: volume) sorted by cell, cell c's at cell_start[c] .. cell_start[c + 1]): node i's
// bonds to the nodes j within delta at nbr[i * PD_MAX_NB + k], k < nnb[i], broken[...] = 1 for
// the bonds crossing the pre-crack (blockDim.x NB_CELL_MAX)
__global__ void pd_build_neighbors(const float4 *X, const int *cell_start, int *nnb, int *nbr, unsigned char *broken,
                                   int ncx, int ncy, int ncz, float delta, float crack_y, float crack_a) {
    __shared__ float4 s_pos[27 * NB_CELL_MAX];
    __shared__ int s_id[27 * NB_CELL_MAX];
    int c = blockIdx.x;
    int t = threadIdx.x;
    int cx = c % ncx;
    int cy = (c / ncx) % ncy;
    int cz = c / (ncx * ncy);
    int m = 0;
    for (int oz = -1; oz <= 1; oz++) {
        for (int oy = -1; oy <= 1; oy++) {
            for (int ox = -1; ox <= 1; ox++) {
                int x = cx + ox;
                int y = cy + oy;
                int z = cz + oz;
                if (x < 0 || x >= ncx || y < 0 || y >= ncy || z < 0 || z >= ncz) continue;
                int cc = (z * ncy + y) * ncx + x;
                int s = cell_start[cc];
                int cnt = cell_start[cc + 1] - s;
                if (t < cnt) {
                    s_pos[m + t] = X[s + t];
                    s_id[m + t] = s + t;
                }
                m += cnt;
            }
        }
    }
    __syncthreads();
    int first = cell_start[c];
    if (t >= cell_start[c + 1] - first) return;
    int i = first + t;
    float4 p = X[i];
    float d2 = delta * delta;
    int k = 0;
    for (int q = 0; q < m; q++) {
        int j = s_id[q];
        if (j == i) continue;
        float4 o = s_pos[q];
        float dx = o.x - p.x;
        float dy = o.y - p.y;
        float dz = o.z - p.z;
        if (dx * dx + dy * dy + dz * dz > d2) continue;
        unsigned char b = 0;
        if ((p.y - crack_y) * (o.y - crack_y) < 0.0f) {
            // where the bond crosses the crack's plane
            float xc = p.x + (crack_y - p.y) / dy * dx;
            if (xc < crack_a) b = 1;
        }
        if (k < PD_MAX_NB) {
            nbr[i * PD_MAX_NB + k] = j;
            broken[i * PD_MAX_NB + k] = b;
        }
        k++;
    }
    nnb[i] = k;
}

// the PMB force density F (w 0) of n nodes (reference positions X, w the volume;
// displacements U): c s V_j (xi + eta) / |xi + eta| summed over the intact bonds (stretch s),
// a bond first stretched past s0 marked broken and left out
__global__ void pd_bond_force(const float4 *X, const float4 *U, const int *nnb, const int *nbr,
                              unsigned char *broken, float4 *F, float c, float s0, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 xi = X[i];
    float4 ui = U[i];
    float fx = 0.0f;
    float fy = 0.0f;
    float fz = 0.0f;
    int m = nnb[i];
    for (int k = 0; k < m; k++) {
        int b = i * PD_MAX_NB + k;
        if (broken[b]) continue;
        int j = nbr[b];
        float4 xj = X[j];
        float4 uj = U[j];
        float ex = xj.x - xi.x;
        float ey = xj.y - xi.y;
        float ez = xj.z - xi.z;
        float rx = ex + (uj.x - ui.x);
        float ry = ey + (uj.y - ui.y);
        float rz = ez + (uj.z - ui.z);
        float l0 = sqrtf(ex * ex + ey * ey + ez * ez);
        float l = sqrtf(rx * rx + ry * ry + rz * rz);
        float s = (l - l0) / l0;
        if (s > s0) {
            broken[b] = 1;
            continue;
        }
        float t = c * s * xj.w / l;
        fx += t * rx;
        fy += t * ry;
        fz += t * rz;
    }
    F[i] = make_float4(fx, fy, fz, 0.0f);
}

// the damage phi of n nodes (broken bonds / bonds, 0 for a node without bonds); hist[b] +=
// the nodes with phi in [b / DMG_BINS, (b + 1) / DMG_BINS) (phi = 1 in the last bin); *tip =
// the largest (x's bits << 32 | node) of the nodes with phi >= TIP_DAMAGE (x > 0)
__global__ void pd_damage(const float4 *X, const int *nnb, const unsigned char *broken, float *phi, int *hist,
                          unsigned long long *tip, int n) {
    __shared__ int s_hist[DMG_BINS];
    if (threadIdx.x < DMG_BINS) s_hist[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int m = nnb[i];
        int nb = 0;
        for (int k = 0; k < m; k++) nb += broken[i * PD_MAX_NB + k];
        float d = m > 0 ? (float)nb / (float)m : 0.0f;
        phi[i] = d;
        int bin = min((int)(d * DMG_BINS), DMG_BINS - 1);
        atomicAdd(&s_hist[bin], 1);
        if (d >= TIP_DAMAGE) {
            unsigned long long key = ((unsigned long long)__float_as_uint(X[i].x) << 32) | (unsigned int)i;
            atomicMax(tip, key);
        }
    }
    __syncthreads();
    if (threadIdx.x < DMG_BINS && s_hist[threadIdx.x] > 0) atomicAdd(&hist[threadIdx.x], s_hist[threadIdx.x]);
}

// a velocity-Verlet step (dt) of n nodes of density rho: a = f / rho, v += dt (a_old + a) / 2,
// u += dt v + dt^2 a / 2; the grips' nodes (bc 1 up, 2 down) at velocity vgrip along y
__global__ void pd_verlet(PDNode *nodes, float rho, float dt, float vgrip, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    PDNode p = nodes[i];
    if (p.bc != 0) {
        p.vx = 0.0f;
        p.vy = p.bc == 1 ? vgrip : -vgrip;
        p.vz = 0.0f;
        p.ax = 0.0f;
        p.ay = 0.0f;
        p.az = 0.0f;
    } else {
        float ax = p.fx / rho;
        float ay = p.fy / rho;
        float az = p.fz / rho;
        p.vx += 0.5f * dt * (p.ax + ax);
        p.vy += 0.5f * dt * (p.ay + ay);
        p.vz += 0.5f * dt * (p.az + az);
        p.ax = ax;
        p.ay = ay;
        p.az = az;
    }
    p.ux += dt * p.vx + 0.5f * dt * dt * p.ax;
    p.uy += dt * p.vy + 0.5f * dt * dt * p.ay;
    p.uz += dt * p.vz + 0.5f * dt * dt * p.az;
    nodes[i] = p;
}

// the PMB strain energy density W of n nodes, 1/2 sum over the intact bonds of c s^2 |xi| / 2
// V_j, a warp a node; *total += sum W_i V_i (blockDim.x SE_BLOCK)
__global__ void pd_strain_energy(const float4 *X, const float4 *U, const int *nnb, const int *nbr,
                                 const unsigned char *broken, float *W, double *total, float c, int n) {
    __shared__ float s_e[SE_BLOCK / 32];
    int lane = threadIdx.x & 31;
    int w = threadIdx.x >> 5;
    int i = blockIdx.x * (SE_BLOCK / 32) + w;
    float acc = 0.0f;
    float vi = 0.0f;
    if (i < n) {
        float4 xi = X[i];
        float4 ui = U[i];
        vi = xi.w;
        int m = nnb[i];
        for (int k = lane; k < m; k += 32) {
            int b = i * PD_MAX_NB + k;
            if (broken[b]) continue;
            int j = nbr[b];
            float4 xj = X[j];
            float4 uj = U[j];
            float ex = xj.x - xi.x;
            float ey = xj.y - xi.y;
            float ez = xj.z - xi.z;
            float rx = ex + (uj.x - ui.x);
            float ry = ey + (uj.y - ui.y);
            float rz = ez + (uj.z - ui.z);
            float l0 = sqrtf(ex * ex + ey * ey + ez * ez);
            float s = (sqrtf(rx * rx + ry * ry + rz * rz) - l0) / l0;
            acc += 0.25f * c * s * s * l0 * xj.w;
        }
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffff, acc, o);
    if (lane == 0) {
        if (i < n) W[i] = acc;
        s_e[w] = acc * vi;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double e = 0.0;
        for (int k = 0; k < SE_BLOCK / 32; k++) e += s_e[k];
        atomicAdd(total, e);
    }
}

// the plane-strain Williams series displacement (ux, uy, 0, 0) in U of n nodes X about the
// crack tip (xt, yt) (the crack along -x), shear modulus mu, Kolosov constant kappa:
// sum over n of r^(n/2) / (2 mu) times a_n [(kappa + n/2 + (-1)^n) cos(n th/2) - n/2 cos((n/2 - 2) th)]
// - b_n [(kappa + n/2 - (-1)^n) sin(n th/2) - n/2 sin((n/2 - 2) th)] for ux, and
// a_n [(kappa - n/2 - (-1)^n) sin(n th/2) + n/2 sin((n/2 - 2) th)]
// + b_n [(kappa - n/2 + (-1)^n) cos(n th/2) + n/2 cos((n/2 - 2) th)] for uy
__global__ void williams_field(const float4 *X, float4 *U, double xt, double yt, double mu, double kappa, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = X[i];
    double dx = p.x - xt;
    double dy = p.y - yt;
    double r = sqrt(dx * dx + dy * dy);
    double th = atan2(dy, dx);
    double ux = 0.0;
    double uy = 0.0;
    for (int k = 1; k <= WM_TERMS; k++) {
        double h = 0.5 * k;
        double rp = pow(r, h) / (2.0 * mu);
        double sg = (k % 2 == 0) ? 1.0 : -1.0;
        double c1 = cos(h * th);
        double s1 = sin(h * th);
        double c2 = cos((h - 2.0) * th);
        double s2 = sin((h - 2.0) * th);
        double a = c_wa[k - 1];
        double b = c_wb[k - 1];
        ux += rp * (a * ((kappa + h + sg) * c1 - h * c2) - b * ((kappa + h - sg) * s1 - h * s2));
        uy += rp * (a * ((kappa - h - sg) * s1 + h * s2) + b * ((kappa - h + sg) * c1 + h * c2));
    }
    U[i] = make_float4((float)ux, (float)uy, 0.0f, 0.0f);
}

}
