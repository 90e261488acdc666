// probe-unseen69: a computational-chemistry / molecular-simulation course's CUDA
// assignments, as a student who knows CUDA basics hands them in: the radial distribution
// function g(r) of a Lennard-Jones liquid, a thread an atom looping over all atoms staged
// through a shared tile of RDF_TILE positions (minimum image by rintf), the pairs within
// r_max binned into a shared-memory histogram by atomicAdd and the block's histogram added
// to the global one at the end; Lennard-Jones forces and energies of a four-type mixture
// over a padded Verlet neighbour list (row-major, max_nb slots an atom), a thread an atom,
// the pairs beyond the cutoff skipped, the epsilon/sigma^2 of each type pair read from a
// __constant__ struct table; the Ewald structure factor S(k) = sum_j q_j exp(i k.r_j) of
// a water box, a block a k-vector, its threads striding over the atoms with sincosf and
// the sums reduced by __shfl_down_sync within warps, then across the block's warps through
// shared memory; one Metropolis Monte Carlo trial move in each of many independent small
// LJ systems, a block a system, the energy change of the displaced atom against all the
// others summed in double and reduced by a shared-memory tree, thread 0 accepting or
// rejecting with exp(-beta dE); the electrostatic potential of a water box on a 3-D grid by
// direct Coulomb summation (the classic DCS kernel), a thread a grid point looping over the
// atoms held in a __constant__ float4 array; and the harmonic angle term of a bead-spring
// copolymer melt, a thread an angle (i, j, k, type) gathering three positions, acosf, the
// force constants by angle type from a __constant__ struct table, the three atoms' forces
// scattered by float atomicAdd.

#define RDF_TILE 256          // rdf_hist: positions a shared tile (blockDim.x == RDF_TILE)
#define RDF_BINS 256          // rdf_hist: the histogram's bins
#define LJ_NTYPES 4           // lj_nlist: atom types
#define SK_WARPS 8            // structure_factor: at most 8 warps a block (blockDim.x <= 256)
#define MC_BLOCK 128          // mc_trial: threads a block (a system), a power of two
#define DCS_MAX_ATOMS 4000    // coulomb_grid: atoms the __constant__ array holds (64000 bytes)
#define ANG_NTYPES 4          // angle_forces: angle types

// lj_nlist's parameters of each type pair (ti * LJ_NTYPES + tj): epsilon and sigma^2
struct LJPair {
    float eps;
    float sig2;
};
__constant__ LJPair c_lj[LJ_NTYPES * LJ_NTYPES];

// coulomb_grid's atoms: x, y, z and the charge q (set by the host)
__constant__ float4 c_atoms[DCS_MAX_ATOMS];

// angle_forces' parameters of each angle type: E = k (theta - theta0)^2
struct AngleParam {
    float k;
    float theta0;
};
__constant__ AngleParam c_ang[ANG_NTYPES];

extern "C" {

// histogram of the pair distances of n atoms (x, y, z in pos[i], w unused) in a periodic
// cubic box of side box: hist[int(r * inv_dr)] += 1 for every ordered pair i != j with
// r^2 < rmax2 (each pair counted twice), r by the minimum image; blockDim.x == RDF_TILE
__global__ void rdf_hist(const float4 *pos, unsigned int *hist, float box, float inv_dr, float rmax2, int n) {
    __shared__ float4 s_pos[RDF_TILE];
    __shared__ unsigned int s_hist[RDF_BINS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int b = threadIdx.x; b < RDF_BINS; b += blockDim.x) s_hist[b] = 0;
    float4 p = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (i < n) p = pos[i];
    float inv_box = 1.0f / box;
    for (int t = 0; t < n; t += RDF_TILE) {
        if (t + threadIdx.x < n) s_pos[threadIdx.x] = pos[t + threadIdx.x];
        __syncthreads();
        if (i < n) {
            for (int k = 0; k < RDF_TILE && t + k < n; k++) {
                if (t + k == i) continue;
                float dx = s_pos[k].x - p.x;
                float dy = s_pos[k].y - p.y;
                float dz = s_pos[k].z - p.z;
                dx = dx - box * rintf(dx * inv_box);
                dy = dy - box * rintf(dy * inv_box);
                dz = dz - box * rintf(dz * inv_box);
                float r2 = dx * dx + dy * dy + dz * dz;
                if (r2 < rmax2) {
                    int bin = (int)(sqrtf(r2) * inv_dr);
                    if (bin < RDF_BINS) atomicAdd(&s_hist[bin], 1u);
                }
            }
        }
        __syncthreads();
    }
    for (int b = threadIdx.x; b < RDF_BINS; b += blockDim.x) {
        if (s_hist[b] > 0) atomicAdd(&hist[b], s_hist[b]);
    }
}

// Lennard-Jones forces on n atoms (x, y, z and the type as a float in pos[i].w) from their
// neighbours nlist[i * max_nb + k], k < nnb[i], in a periodic box: the pairs with r^2 <
// rc2 add 24 eps (2 (s/r)^12 - (s/r)^6) / r^2 * d to the force and half their
// 4 eps ((s/r)^12 - (s/r)^6) to the atom's energy; force[i] = (fx, fy, fz, energy)
__global__ void lj_nlist(const float4 *pos, const int *nlist, const int *nnb, float4 *force, float box, float rc2,
                         int max_nb, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    int ti = (int)pi.w;
    float fx = 0.0f, fy = 0.0f, fz = 0.0f, e = 0.0f;
    int cnt = nnb[i];
    for (int k = 0; k < cnt; k++) {
        int j = nlist[i * max_nb + k];
        float4 pj = pos[j];
        float dx = pi.x - pj.x;
        float dy = pi.y - pj.y;
        float dz = pi.z - pj.z;
        dx -= box * rintf(dx / box);
        dy -= box * rintf(dy / box);
        dz -= box * rintf(dz / box);
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < rc2) {
            LJPair lj = c_lj[ti * LJ_NTYPES + (int)pj.w];
            float sr2 = lj.sig2 / r2;
            float sr6 = sr2 * sr2 * sr2;
            float fr = 24.0f * lj.eps * sr6 * (2.0f * sr6 - 1.0f) / r2;
            fx += fr * dx;
            fy += fr * dy;
            fz += fr * dz;
            e += 4.0f * lj.eps * sr6 * (sr6 - 1.0f);
        }
    }
    force[i] = make_float4(fx, fy, fz, 0.5f * e);
}

// S(k) = (sum_j q_j cos(k.r_j), sum_j q_j sin(k.r_j)) over natoms atoms (x, y, z, q in
// xyzq[j]) for each k-vector kvec[blockIdx.x] (kx, ky, kz, unused); blockDim.x a multiple
// of 32, at most 32 * SK_WARPS
__global__ void structure_factor(const float4 *xyzq, const float4 *kvec, float2 *sk, int natoms) {
    __shared__ float s_re[SK_WARPS];
    __shared__ float s_im[SK_WARPS];
    float4 kv = kvec[blockIdx.x];
    float re = 0.0f, im = 0.0f;
    for (int j = threadIdx.x; j < natoms; j += blockDim.x) {
        float4 a = xyzq[j];
        float s, c;
        sincosf(kv.x * a.x + kv.y * a.y + kv.z * a.z, &s, &c);
        re += a.w * c;
        im += a.w * s;
    }
    for (int off = 16; off > 0; off >>= 1) {
        re += __shfl_down_sync(0xffffffff, re, off);
        im += __shfl_down_sync(0xffffffff, im, off);
    }
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    if (lane == 0) {
        s_re[warp] = re;
        s_im[warp] = im;
    }
    __syncthreads();
    if (warp == 0) {
        int nwarps = blockDim.x / 32;
        re = lane < nwarps ? s_re[lane] : 0.0f;
        im = lane < nwarps ? s_im[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) {
            re += __shfl_down_sync(0xffffffff, re, off);
            im += __shfl_down_sync(0xffffffff, im, off);
        }
        if (lane == 0) sk[blockIdx.x] = make_float2(re, im);
    }
}

// one Metropolis trial move in each of the systems (blockIdx.x), natoms LJ atoms (epsilon =
// sigma = 1) each at pos[sys * natoms ..]: atom who[sys] to newpos[sys]; dE (double) sums
// the cut (r^2 < rc2) LJ energies against the other atoms at the new position minus those
// at the old one; accepted when dE <= 0 or rnd[sys] < exp(-beta dE), then pos updated and
// accepted[sys] += 1; blockDim.x == MC_BLOCK
__global__ void mc_trial(float4 *pos, const int *who, const float4 *newpos, const float *rnd, int *accepted,
                         float box, float rc2, float beta, int natoms) {
    __shared__ double s_de[MC_BLOCK];
    int sys = blockIdx.x;
    float4 *p = pos + (size_t)sys * natoms;
    int m = who[sys];
    float4 po = p[m];
    float4 pn = newpos[sys];
    double de = 0.0;
    for (int j = threadIdx.x; j < natoms; j += blockDim.x) {
        if (j == m) continue;
        float4 q = p[j];
        float dx = q.x - pn.x;
        float dy = q.y - pn.y;
        float dz = q.z - pn.z;
        dx -= box * rintf(dx / box);
        dy -= box * rintf(dy / box);
        dz -= box * rintf(dz / box);
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < rc2) {
            double ir6 = 1.0 / ((double)r2 * r2 * r2);
            de += 4.0 * ir6 * (ir6 - 1.0);
        }
        dx = q.x - po.x;
        dy = q.y - po.y;
        dz = q.z - po.z;
        dx -= box * rintf(dx / box);
        dy -= box * rintf(dy / box);
        dz -= box * rintf(dz / box);
        r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < rc2) {
            double ir6 = 1.0 / ((double)r2 * r2 * r2);
            de -= 4.0 * ir6 * (ir6 - 1.0);
        }
    }
    s_de[threadIdx.x] = de;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) s_de[threadIdx.x] += s_de[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        double dE = s_de[0];
        if (dE <= 0.0 || rnd[sys] < exp(-beta * dE)) {
            p[m] = pn;
            accepted[sys] += 1;
        }
    }
}

// the Coulomb potential sum_a q_a / |g - r_a| of natoms atoms (c_atoms) at the points g =
// spacing * (x, y, z) of an nx x ny x nz grid (x fastest), a thread a point, z =
// blockIdx.z; natoms <= DCS_MAX_ATOMS
__global__ void coulomb_grid(float *pot, float spacing, int natoms, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    float gx = x * spacing;
    float gy = y * spacing;
    float gz = z * spacing;
    float v = 0.0f;
    for (int a = 0; a < natoms; a++) {
        float dx = gx - c_atoms[a].x;
        float dy = gy - c_atoms[a].y;
        float dz = gz - c_atoms[a].z;
        v += c_atoms[a].w * rsqrtf(dx * dx + dy * dy + dz * dz);
    }
    pot[(z * ny + y) * nx + x] = v;
}

// the harmonic angle term of nangles angles (i, j, k, type in angles[a], j the vertex)
// over atoms pos[] (x, y, z, unused) in a periodic box (minimum image): energy[a] = K
// (theta - theta0)^2 with K, theta0 = c_ang[type], and the forces on i, j and k added to
// force[3 * atom + 0..2] by atomicAdd
__global__ void angle_forces(const float4 *pos, const int4 *angles, float *force, float *energy, float box,
                             int nangles) {
    int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= nangles) return;
    int4 ang = angles[a];
    float4 pi = pos[ang.x];
    float4 pj = pos[ang.y];
    float4 pk = pos[ang.z];
    float x1 = pi.x - pj.x, y1 = pi.y - pj.y, z1 = pi.z - pj.z;
    float x2 = pk.x - pj.x, y2 = pk.y - pj.y, z2 = pk.z - pj.z;
    x1 -= box * rintf(x1 / box);
    y1 -= box * rintf(y1 / box);
    z1 -= box * rintf(z1 / box);
    x2 -= box * rintf(x2 / box);
    y2 -= box * rintf(y2 / box);
    z2 -= box * rintf(z2 / box);
    float r1s = x1 * x1 + y1 * y1 + z1 * z1;
    float r2s = x2 * x2 + y2 * y2 + z2 * z2;
    float r12 = sqrtf(r1s * r2s);
    float c = (x1 * x2 + y1 * y2 + z1 * z2) / r12;
    if (c > 1.0f) c = 1.0f;
    if (c < -1.0f) c = -1.0f;
    float s = sqrtf(1.0f - c * c);
    if (s < 0.001f) s = 0.001f;
    AngleParam prm = c_ang[ang.w];
    float dth = acosf(c) - prm.theta0;
    energy[a] = prm.k * dth * dth;
    float g = 2.0f * prm.k * dth / s;       // f_i = -dE/dc dc/dr_i = (2 K dtheta / sin theta) dc/dr_i
    float f1x = g * (x2 / r12 - c * x1 / r1s);
    float f1y = g * (y2 / r12 - c * y1 / r1s);
    float f1z = g * (z2 / r12 - c * z1 / r1s);
    float f3x = g * (x1 / r12 - c * x2 / r2s);
    float f3y = g * (y1 / r12 - c * y2 / r2s);
    float f3z = g * (z1 / r12 - c * z2 / r2s);
    atomicAdd(&force[3 * ang.x + 0], f1x);
    atomicAdd(&force[3 * ang.x + 1], f1y);
    atomicAdd(&force[3 * ang.x + 2], f1z);
    atomicAdd(&force[3 * ang.y + 0], -f1x - f3x);
    atomicAdd(&force[3 * ang.y + 1], -f1y - f3y);
    atomicAdd(&force[3 * ang.y + 2], -f1z - f3z);
    atomicAdd(&force[3 * ang.z + 0], f3x);
    atomicAdd(&force[3 * ang.z + 1], f3y);
    atomicAdd(&force[3 * ang.z + 2], f3z);
}

}
