// probe-unseen107: a computational drug-discovery course's CUDA assignments (molecular
// docking and virtual screening), as a student who knows CUDA basics hands them in:
//
// grid_map_score     AutoDock-style scoring of ligand atoms on precomputed affinity grid
//                    maps: a thread an atom (poses one after another, natoms atoms each),
//                    its grid cell from its coordinates, the trilinear interpolation of
//                    its type's affinity map plus its charge times the electrostatic
//                    map (8 corners each); an atom outside the box scores a fixed
//                    penalty; the atom's energy stored and added to its pose's total by
//                    atomicAdd.
// pair_score         Lennard-Jones 12-6 and Coulomb (distance-dependent dielectric 4r)
//                    scoring of ligand atoms against the receptor's pocket atoms: a
//                    thread a ligand atom, the receptor atoms staged through shared
//                    memory a tile of PS_TILE at a time, pairs beyond the cutoff
//                    skipped, the LJ A and B coefficients of the (ligand type,
//                    receptor type) pair from __constant__ tables; the van der Waals and
//                    electrostatic energies stored per atom.
// pose_transform     rigid-body placement of a ligand's poses: a thread an atom of a
//                    pose, the pose's quaternion normalised into a rotation matrix that
//                    turns the reference (centred) coordinates, then the pose's
//                    translation; xyz stored interleaved.
// pose_rmsd          RMSD of each docked pose against the crystal pose (no
//                    superposition), a warp a pose: the lanes' squared deviations summed
//                    by __shfl_down_sync, lane 0 storing the RMSD and counting the poses
//                    under the success cutoff (2 A) by atomicAdd.
// tanimoto_screen    a fingerprint similarity screen: a thread a database molecule (1024-
//                    bit fingerprints, 32 words), its popcount and its intersections with
//                    NQ query fingerprints (__constant__) by __popc, the best Tanimoto
//                    similarity and its query stored, the molecules at or above the
//                    threshold appended to a hit list by atomicAdd.
// best_pose          the best pose of each ligand from Vina-style score terms (5 terms a
//                    pose, structure of arrays, the weights in __constant__): a block a
//                    ligand (ligands own runs of poses of different lengths), each thread
//                    scoring its poses (divided by 1 + w_rot * rotatable bonds) and
//                    keeping its minimum, then a shared-memory tree reduction of
//                    (score, pose) with ties to the smaller pose.

#define GRID_N 64             // grid_map_score: grid points an axis
#define GRID_N3 (GRID_N * GRID_N * GRID_N)
#define OUT_PENALTY 10.0f     // grid_map_score: an atom outside the grid box
#define PS_TILE 128           // pair_score: receptor atoms a shared tile (== blockDim.x)
#define LIG_TYPES 8           // pair_score: ligand atom types
#define REC_TYPES 4           // pair_score: receptor atom types (C, N, O, S)
#define CUTOFF2 64.0f         // pair_score: 8 A cutoff, squared
#define R2_MIN 2.0f           // pair_score: distances clamped to sqrt(2) A (no blow-up in clashes)
#define COUL 83.0f            // pair_score: 332 kcal A / (mol e^2) over the dielectric's 4
#define FP_WORDS 32           // tanimoto_screen: 1024-bit fingerprints
#define NQ 8                  // tanimoto_screen: query fingerprints
#define N_TERMS 5             // best_pose: Vina's terms (gauss1, gauss2, repulsion, hydrophobic, hbond)
#define BP_BLOCK 256          // best_pose: threads a block (a ligand)

// pair_score's LJ coefficients A = 4 eps sigma^12, B = 4 eps sigma^6 by ligand type *
// REC_TYPES + receptor type (set by the host)
__constant__ float c_lj_a[LIG_TYPES * REC_TYPES];
__constant__ float c_lj_b[LIG_TYPES * REC_TYPES];

// tanimoto_screen's queries (set by the host): fingerprints and their bit counts
__constant__ unsigned int c_query[NQ * FP_WORDS];
__constant__ int c_qbits[NQ];

// best_pose's term weights (set by the host)
__constant__ float c_w[N_TERMS];

extern "C" {

// trilinear interpolation in map m at cell (ix, iy, iz), fractions (fx, fy, fz)
__device__ float trilinear(const float *m, int ix, int iy, int iz, float fx, float fy, float fz) {
    int b = (iz * GRID_N + iy) * GRID_N + ix;
    float c000 = m[b];
    float c100 = m[b + 1];
    float c010 = m[b + GRID_N];
    float c110 = m[b + GRID_N + 1];
    float c001 = m[b + GRID_N * GRID_N];
    float c101 = m[b + GRID_N * GRID_N + 1];
    float c011 = m[b + GRID_N * GRID_N + GRID_N];
    float c111 = m[b + GRID_N * GRID_N + GRID_N + 1];
    float c00 = c000 + fx * (c100 - c000);
    float c10 = c010 + fx * (c110 - c010);
    float c01 = c001 + fx * (c101 - c001);
    float c11 = c011 + fx * (c111 - c011);
    float c0 = c00 + fy * (c10 - c00);
    float c1 = c01 + fy * (c11 - c01);
    return c0 + fz * (c1 - c0);
}

// n atoms (x, y, z, type, charge; atom i of pose i / natoms) scored on the grid maps
// (maps: LIG_TYPES maps of GRID_N^3 floats, x fastest; emap: the electrostatic map),
// the grid's first point at (ox, oy, oz), its spacing 1 / inv_h
__global__ void grid_map_score(const float *x, const float *y, const float *z, const int *type, const float *charge,
                               const float *maps, const float *emap, float *atom_e, float *pose_e, float ox, float oy,
                               float oz, float inv_h, int natoms, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float gx = (x[i] - ox) * inv_h;
    float gy = (y[i] - oy) * inv_h;
    float gz = (z[i] - oz) * inv_h;
    float e;
    if (gx < 0.0f || gy < 0.0f || gz < 0.0f || gx >= GRID_N - 1 || gy >= GRID_N - 1 || gz >= GRID_N - 1) {
        e = OUT_PENALTY;
    } else {
        int ix = (int)gx;
        int iy = (int)gy;
        int iz = (int)gz;
        float fx = gx - ix;
        float fy = gy - iy;
        float fz = gz - iz;
        e = trilinear(maps + type[i] * GRID_N3, ix, iy, iz, fx, fy, fz) +
            charge[i] * trilinear(emap, ix, iy, iz, fx, fy, fz);
    }
    atom_e[i] = e;
    atomicAdd(&pose_e[i / natoms], e);
}

// n ligand atoms (lx, ly, lz, charge lq, type lt) against m receptor atoms (rx, ry, rz,
// rq, rt): the LJ and Coulomb sums over the pairs within the cutoff
__global__ void pair_score(const float *lx, const float *ly, const float *lz, const float *lq, const int *lt,
                           const float *rx, const float *ry, const float *rz, const float *rq, const int *rt,
                           float *e_vdw, float *e_elec, int m, int n) {
    __shared__ float sx[PS_TILE];
    __shared__ float sy[PS_TILE];
    __shared__ float sz[PS_TILE];
    __shared__ float sq[PS_TILE];
    __shared__ int st[PS_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = 0.0f, y = 0.0f, z = 0.0f, q = 0.0f;
    int t = 0;
    if (i < n) {
        x = lx[i];
        y = ly[i];
        z = lz[i];
        q = lq[i];
        t = lt[i];
    }
    float ev = 0.0f;
    float ee = 0.0f;
    for (int base = 0; base < m; base += PS_TILE) {
        int j = base + threadIdx.x;
        if (j < m) {
            sx[threadIdx.x] = rx[j];
            sy[threadIdx.x] = ry[j];
            sz[threadIdx.x] = rz[j];
            sq[threadIdx.x] = rq[j];
            st[threadIdx.x] = rt[j];
        }
        __syncthreads();
        int cnt = min(PS_TILE, m - base);
        for (int k = 0; k < cnt; k++) {
            float dx = sx[k] - x;
            float dy = sy[k] - y;
            float dz = sz[k] - z;
            float r2 = dx * dx + dy * dy + dz * dz;
            if (r2 < CUTOFF2) {
                r2 = fmaxf(r2, R2_MIN);
                float ir2 = 1.0f / r2;
                float ir6 = ir2 * ir2 * ir2;
                int p = t * REC_TYPES + st[k];
                ev += (c_lj_a[p] * ir6 - c_lj_b[p]) * ir6;
                ee += q * sq[k] * ir2;
            }
        }
        __syncthreads();
    }
    if (i < n) {
        e_vdw[i] = ev;
        e_elec[i] = COUL * ee;
    }
}

// n atoms of n / natoms poses placed: pose p's quaternion quat[4p..] (w, x, y, z, not
// normalised) and translation trans[3p..] applied to the reference coordinates ref
// (natoms x 3); out interleaved xyz (n x 3)
__global__ void pose_transform(const float *ref, const float *quat, const float *trans, float *out, int natoms,
                               int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int p = i / natoms;
    int a = i % natoms;
    float qw = quat[4 * p];
    float qx = quat[4 * p + 1];
    float qy = quat[4 * p + 2];
    float qz = quat[4 * p + 3];
    float inv = rsqrtf(qw * qw + qx * qx + qy * qy + qz * qz);
    qw *= inv;
    qx *= inv;
    qy *= inv;
    qz *= inv;
    float r00 = 1.0f - 2.0f * (qy * qy + qz * qz);
    float r01 = 2.0f * (qx * qy - qw * qz);
    float r02 = 2.0f * (qx * qz + qw * qy);
    float r10 = 2.0f * (qx * qy + qw * qz);
    float r11 = 1.0f - 2.0f * (qx * qx + qz * qz);
    float r12 = 2.0f * (qy * qz - qw * qx);
    float r20 = 2.0f * (qx * qz - qw * qy);
    float r21 = 2.0f * (qy * qz + qw * qx);
    float r22 = 1.0f - 2.0f * (qx * qx + qy * qy);
    float ax = ref[3 * a];
    float ay = ref[3 * a + 1];
    float az = ref[3 * a + 2];
    out[3 * i] = r00 * ax + r01 * ay + r02 * az + trans[3 * p];
    out[3 * i + 1] = r10 * ax + r11 * ay + r12 * az + trans[3 * p + 1];
    out[3 * i + 2] = r20 * ax + r21 * ay + r22 * az + trans[3 * p + 2];
}

// npose poses (xyz, natoms x 3 floats each) against the crystal pose ref: a warp a pose;
// the RMSD stored, the poses with RMSD < cut counted in *n_good
__global__ void pose_rmsd(const float *poses, const float *ref, float *rmsd, int *n_good, float cut, int natoms,
                          int npose) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (w >= npose) return;
    const float *p = poses + (size_t)w * natoms * 3;
    float s = 0.0f;
    for (int a = lane; a < natoms; a += 32) {
        float dx = p[3 * a] - ref[3 * a];
        float dy = p[3 * a + 1] - ref[3 * a + 1];
        float dz = p[3 * a + 2] - ref[3 * a + 2];
        s += dx * dx + dy * dy + dz * dz;
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);
    if (lane == 0) {
        float r = sqrtf(s / natoms);
        rmsd[w] = r;
        if (r < cut) atomicAdd(n_good, 1);
    }
}

// n database fingerprints (FP_WORDS words each, row-major) against the NQ queries: the
// best Tanimoto similarity (the first query on ties) and its query; molecules with
// best >= thresh appended to hits (the first max_hits of them), *n_hits counting all
__global__ void tanimoto_screen(const unsigned int *db, float *best_sim, int *best_q, int *hits, int *n_hits,
                                float thresh, int max_hits, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int inter[NQ];
    for (int q = 0; q < NQ; q++) inter[q] = 0;
    int bits = 0;
    for (int w = 0; w < FP_WORDS; w++) {
        unsigned int f = db[i * FP_WORDS + w];
        bits += __popc(f);
        for (int q = 0; q < NQ; q++) inter[q] += __popc(f & c_query[q * FP_WORDS + w]);
    }
    float best = -1.0f;
    int bq = 0;
    for (int q = 0; q < NQ; q++) {
        int uni = bits + c_qbits[q] - inter[q];
        float t = uni > 0 ? (float)inter[q] / uni : 0.0f;
        if (t > best) {
            best = t;
            bq = q;
        }
    }
    best_sim[i] = best;
    best_q[i] = bq;
    if (best >= thresh) {
        int slot = atomicAdd(n_hits, 1);
        if (slot < max_hits) hits[slot] = i;
    }
}

// the best pose of each of nlig ligands, a block a ligand: ligand l's poses start[l] ..
// start[l + 1] - 1, pose p's terms at terms[k * n + p], its score sum_k c_w[k] term_k
// over (1 + w_rot * nrot[l]); the lowest score and its pose (the smaller on ties)
__global__ void best_pose(const float *terms, const int *start, const int *nrot, float *best_score, int *best_idx,
                          float w_rot, int n) {
    __shared__ float s_e[BP_BLOCK];
    __shared__ int s_i[BP_BLOCK];
    int lig = blockIdx.x;
    int t = threadIdx.x;
    int beg = start[lig];
    int end = start[lig + 1];
    float norm = 1.0f / (1.0f + w_rot * nrot[lig]);
    float best = 1e30f;
    int bi = -1;
    for (int p = beg + t; p < end; p += blockDim.x) {
        float e = 0.0f;
        for (int k = 0; k < N_TERMS; k++) e += c_w[k] * terms[k * n + p];
        e = e * norm;
        if (e < best) {
            best = e;
            bi = p;
        }
    }
    s_e[t] = best;
    s_i[t] = bi;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            float o = s_e[t + s];
            int oi = s_i[t + s];
            if (o < s_e[t] || (o == s_e[t] && oi < s_i[t])) {
                s_e[t] = o;
                s_i[t] = oi;
            }
        }
        __syncthreads();
    }
    if (t == 0) {
        best_score[lig] = s_e[0];
        best_idx[lig] = s_i[0];
    }
}

}
