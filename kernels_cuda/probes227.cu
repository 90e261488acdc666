// probe-unseen225: a molecular docking / virtual screening course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - gridmap_score: AutoDock-style scoring of a GA population's poses on precomputed
//    receptor grid maps: a thread a (pose, ligand atom) in a grid-stride loop, the pose a
//    struct (translation, quaternion) turned into a rotation matrix by every thread, the
//    atom's reference coordinates, type and charge from __constant__ tables, the atom's
//    grid cell by floorf, trilinear interpolation of its type's map, the electrostatic map
//    (times the charge) and the desolvation map (times |charge|): 24 gathered loads; an
//    atom off the grid costs a fixed penalty; the pose's energy by a global float atomicAdd
//    (about 24 threads a pose);
//  - intra_energy: the intramolecular energy of docked conformers of a compound library, a
//    block a pose: the pose's atoms, charges and types in shared memory, __syncthreads, a
//    thread an atom i looping over j > i (a triangular, divergent loop) skipping the pairs
//    closer than 4 bonds by a 64-bit exclusion mask, a cutoff, Lennard-Jones 12-6 from a
//    __constant__ type-pair table (clamped by fminf) and Coulomb with Mehler and Solmajer's
//    distance-dependent dielectric (expf, sqrtf, a divide), summed in double; a double warp
//    shuffle reduction, shared memory, the pose's energy stored and added to its compound's
//    total by a global double atomicAdd;
//  - ga_generation: one generation of a Lamarckian GA's global search, a block of 256 a run
//    of 150 individuals: the energies in shared memory, the elite by a shared-memory tree
//    argmin, then a thread an offspring: two binary tournaments (a per-thread xorshift RNG
//    seeded by an integer hash), two-point crossover of the parents' genes (gathered rows
//    of 15 floats) into a per-thread local array, Cauchy mutations (tanf), translation
//    clamped to the box, the quaternion renormalised, torsions wrapped by floorf;
//  - rmsd_matrix: the all-pairs RMSD of docked poses (same frame, no superposition) for
//    clustering, a block of 16 x 16 threads a 16 x 16 tile of pairs, the two tiles' poses in
//    shared memory (rows of 96 floats: bank conflicts), the RMSD stored as 16-bit centi-A,
//    each pose's neighbours within 2 A counted by shared then global int atomics;
//  - tanimoto_screen: similarity search of a compound library's 1024-bit ECFP4-like
//    fingerprints against 8 query fingerprints in __constant__ memory, a thread a compound in
//    a grid-stride loop: its 32 words in a per-thread array, __popc of the AND with every
//    query word, the Tanimoto coefficient, the best query stored (a float and a byte), hits
//    counted per query and the best similarity histogrammed by contended shared atomics,
//    flushed by global atomics;
//  - ro5_filter: Lipinski's rule of five and Veber's rules over a library stored as packed
//    8-bit atoms (element, H count, heavy degree in bit fields) and bonds (two 16-bit local
//    indices in a word, an 8-bit flag byte), a warp a molecule: masses, Crippen-like logP
//    and TPSA contributions from __constant__ tables indexed by the atom (divergent
//    constant addresses), donors, acceptors and rotatable bonds counted by __ballot_sync /
//    __popc, sums by __shfl_xor_sync, a 16-byte descriptor struct stored by lane 0 and the
//    passing molecules appended to a list by one global atomicAdd on a counter.

#define FULL_MASK 0xffffffffu

#define GM_MAXATOM 64           // gridmap_score: ligand atoms at most
#define GM_NTYPE 6              // the ligand atom types with a map: C A N OA HD S
#define GM_EMAP GM_NTYPE        // the electrostatic map's index
#define GM_DMAP (GM_NTYPE + 1)  // the desolvation map's index
#define GM_OUTSIDE 1000.0f      // the energy of an atom off the grid, kcal/mol

#define IE_MAXATOM 64           // intra_energy: atoms a pose at most (one thread each)
#define IE_NTYPE 6
#define IE_CUTOFF2 64.0f        // 8 A non-bonded cutoff
#define IE_RMIN2 1.0f           // pairs closer than 1 A taken as 1 A apart
#define IE_ECLAMP 1000.0f       // a pair's Lennard-Jones energy clamped, kcal/mol
#define IE_COULOMB 332.06363f   // kcal A / (mol e^2)

#define GA_POP 150              // ga_generation: individuals a run
#define GA_BLOCK 256            // threads a block (a power of two for the tree argmin)
#define GA_MAXG 32              // genes at most: 3 translation, 4 quaternion, torsions
#define GA_PCROSS 0.8f
#define GA_PMUT 0.02f           // a gene's mutation probability
#define GA_TOURN 0.6f           // the fitter of two wins a tournament with this probability
#define GA_TSCALE 1.0f          // the Cauchy deviates' scales: translation (A), quaternion, torsion (deg)
#define GA_QSCALE 0.1f
#define GA_ASCALE 30.0f
#define GA_PI 3.14159265f

#define RM_TILE 16              // rmsd_matrix: a block's tile of poses (16 x 16 threads)
#define RM_MAXATOM 32           // atoms a pose at most
#define RM_CUT 2.0f             // the clustering cutoff, A

#define TS_WORDS 32             // tanimoto_screen: 1024-bit fingerprints
#define TS_NQ 8                 // query compounds
#define TS_BINS 64              // the best similarity's histogram
#define TS_HIT 0.7f             // a hit: similarity 0.7 or more

#define RO_NEL 16               // ro5_filter: element codes (4 bits)
#define RO_EL_N 1
#define RO_EL_O 2

struct Pose {
    float tx, ty, tz;           // the ligand's centre, A
    float qw, qx, qy, qz;       // its orientation: a quaternion, not unit after mutation
};

struct MolDesc {
    float mw;                   // molecular weight, Da
    float logp;                 // Crippen-like logP
    float tpsa;                 // topological polar surface area, A^2
    unsigned char hbd, hba;     // H-bond donors (N, O with an H), acceptors (N, O)
    unsigned char rotb;         // rotatable bonds
    unsigned char nviol;        // rule-of-five violations
};

// gridmap_score: the ligand's atoms about its centre (A), their charges and map types
__constant__ float c_lig_xyz[GM_MAXATOM][3];
__constant__ float c_lig_charge[GM_MAXATOM];
__constant__ int c_lig_type[GM_MAXATOM];

// intra_energy: Lennard-Jones 12-6 coefficients of each pair of types, E = A / r^12 - B / r^6
__constant__ float c_lj_a[IE_NTYPE][IE_NTYPE];
__constant__ float c_lj_b[IE_NTYPE][IE_NTYPE];

// tanimoto_screen: the queries' fingerprints and their bit counts
__constant__ unsigned int c_query[TS_NQ][TS_WORDS];
__constant__ int c_qbits[TS_NQ];

// ro5_filter: average atomic masses by element, logP and TPSA contributions by element * 4 + H count
__constant__ float c_mass[RO_NEL];
__constant__ float c_logp[RO_NEL * 4];
__constant__ float c_tpsa[RO_NEL * 4];

// ---------------------------------------------------------------- gridmap_score

// trilinear interpolation in the npts^3 map at cell (ix, iy, iz), fractions (fx, fy, fz)
__device__ float trilinear(const float *map, int npts, int ix, int iy, int iz, float fx, float fy, float fz) {
    int base = (iz * npts + iy) * npts + ix;
    int sy = npts, sz = npts * npts;
    float c000 = map[base], c100 = map[base + 1];
    float c010 = map[base + sy], c110 = map[base + sy + 1];
    float c001 = map[base + sz], c101 = map[base + sz + 1];
    float c011 = map[base + sz + sy], c111 = map[base + sz + sy + 1];
    float c00 = c000 * (1.0f - fx) + c100 * fx;
    float c10 = c010 * (1.0f - fx) + c110 * fx;
    float c01 = c001 * (1.0f - fx) + c101 * fx;
    float c11 = c011 * (1.0f - fx) + c111 * fx;
    float c0 = c00 * (1.0f - fy) + c10 * fy;
    float c1 = c01 * (1.0f - fy) + c11 * fy;
    return c0 * (1.0f - fz) + c1 * fz;
}

extern "C" {

// npose poses of one natom-atom ligand; maps: GM_NTYPE + 2 maps of npts^3 floats (x fastest),
// point (0, 0, 0) at (ox, oy, oz), spacing 1 / inv_h; energy[p] += each atom's energy: its
// type's map + charge * the electrostatic map + |charge| * the desolvation map, interpolated,
// or GM_OUTSIDE off the grid (energy zeroed before)
__global__ void gridmap_score(const Pose *poses, int npose, int natom, const float *maps, int npts,
                              float ox, float oy, float oz, float inv_h, float *energy) {
    int total = npose * natom;
    int msize = npts * npts * npts;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
        int p = i / natom;
        int a = i % natom;
        Pose ps = poses[p];
        float len = sqrtf(ps.qw * ps.qw + ps.qx * ps.qx + ps.qy * ps.qy + ps.qz * ps.qz);
        float w = ps.qw / len, x = ps.qx / len, y = ps.qy / len, z = ps.qz / len;
        float r00 = 1.0f - 2.0f * (y * y + z * z), r01 = 2.0f * (x * y - w * z), r02 = 2.0f * (x * z + w * y);
        float r10 = 2.0f * (x * y + w * z), r11 = 1.0f - 2.0f * (x * x + z * z), r12 = 2.0f * (y * z - w * x);
        float r20 = 2.0f * (x * z - w * y), r21 = 2.0f * (y * z + w * x), r22 = 1.0f - 2.0f * (x * x + y * y);
        float ax = c_lig_xyz[a][0], ay = c_lig_xyz[a][1], az = c_lig_xyz[a][2];
        float px = r00 * ax + r01 * ay + r02 * az + ps.tx;
        float py = r10 * ax + r11 * ay + r12 * az + ps.ty;
        float pz = r20 * ax + r21 * ay + r22 * az + ps.tz;
        float gx = (px - ox) * inv_h, gy = (py - oy) * inv_h, gz = (pz - oz) * inv_h;
        float e;
        if (gx < 0.0f || gy < 0.0f || gz < 0.0f || gx >= npts - 1 || gy >= npts - 1 || gz >= npts - 1) {
            e = GM_OUTSIDE;
        } else {
            int ix = (int)floorf(gx), iy = (int)floorf(gy), iz = (int)floorf(gz);
            float fx = gx - ix, fy = gy - iy, fz = gz - iz;
            int t = c_lig_type[a];
            float q = c_lig_charge[a];
            e = trilinear(maps + t * msize, npts, ix, iy, iz, fx, fy, fz);
            e += q * trilinear(maps + GM_EMAP * msize, npts, ix, iy, iz, fx, fy, fz);
            e += fabsf(q) * trilinear(maps + GM_DMAP * msize, npts, ix, iy, iz, fx, fy, fz);
        }
        atomicAdd(&energy[p], e);
    }
}

}

// ---------------------------------------------------------------- intra_energy

// Mehler and Solmajer's sigmoidal distance-dependent dielectric
__device__ float ms_dielectric(float r) {
    const float A = -8.5525f, B = 86.9525f, lambda = 0.003627f, k = 7.7839f;
    return A + B / (1.0f + k * expf(-lambda * B * r));
}

extern "C" {

// pose p's atoms are xyz[3 (pose_off[p] .. pose_off[p + 1] - 1)] (64 at most), a conformer of
// compound pose_lig[p] whose atom data start at lig_off[compound]: types, charges and the
// exclusion masks (bit j of atom i's: the pair (i, j) is 1-2, 1-3 or 1-4 bonded);
// energy[p] = the sum over the other pairs i < j closer than 8 A of the Lennard-Jones
// (clamped) and Coulomb energies; lig_total[compound] += it
__global__ void intra_energy(const float *xyz, const int *pose_off, const int *pose_lig, const int *lig_off,
                             const unsigned char *ltype, const float *lcharge, const unsigned long long *lexcl,
                             float *energy, double *lig_total) {
    __shared__ float s_x[IE_MAXATOM], s_y[IE_MAXATOM], s_z[IE_MAXATOM], s_q[IE_MAXATOM];
    __shared__ int s_t[IE_MAXATOM];
    __shared__ double s_part[IE_MAXATOM / 32];
    int p = blockIdx.x, i = threadIdx.x;
    int off = pose_off[p], n = pose_off[p + 1] - off;
    int l = pose_lig[p], loff = lig_off[l];
    if (i < n) {
        s_x[i] = xyz[3 * (off + i)];
        s_y[i] = xyz[3 * (off + i) + 1];
        s_z[i] = xyz[3 * (off + i) + 2];
        s_q[i] = lcharge[loff + i];
        s_t[i] = ltype[loff + i];
    }
    __syncthreads();
    double e = 0.0;
    if (i < n) {
        unsigned long long ex = lexcl[loff + i];
        float xi = s_x[i], yi = s_y[i], zi = s_z[i], qi = s_q[i];
        int ti = s_t[i];
        for (int j = i + 1; j < n; j++) {
            if ((ex >> j) & 1ULL) continue;
            float dx = s_x[j] - xi, dy = s_y[j] - yi, dz = s_z[j] - zi;
            float r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= IE_CUTOFF2) continue;
            r2 = fmaxf(r2, IE_RMIN2);
            float r = sqrtf(r2);
            float ir6 = 1.0f / (r2 * r2 * r2);
            int tj = s_t[j];
            float elj = c_lj_a[ti][tj] * ir6 * ir6 - c_lj_b[ti][tj] * ir6;
            elj = fminf(elj, IE_ECLAMP);
            float eel = IE_COULOMB * qi * s_q[j] / (r * ms_dielectric(r));
            e += (double)elj + (double)eel;
        }
    }
    for (int o = 16; o > 0; o /= 2) e += __shfl_down_sync(FULL_MASK, e, o);
    if (i % 32 == 0) s_part[i / 32] = e;
    __syncthreads();
    if (i == 0) {
        double tot = 0.0;
        for (int w = 0; w < blockDim.x / 32; w++) tot += s_part[w];
        energy[p] = (float)tot;
        atomicAdd(&lig_total[l], tot);
    }
}

}

// ---------------------------------------------------------------- ga_generation

// lowbias32 (C. Wellons): a 32-bit integer hash
__device__ unsigned int ga_hash(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// Marsaglia's xorshift32
__device__ unsigned int xorshift(unsigned int &s) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
}

// uniform in [0, 1): the top 24 bits
__device__ float uniform01(unsigned int &s) {
    return (xorshift(s) >> 8) * (1.0f / 16777216.0f);
}

// a binary tournament: two individuals drawn, the fitter (lower energy; the first on a tie)
// wins with probability GA_TOURN
__device__ int tournament(unsigned int &s, const float *e) {
    int a = xorshift(s) % GA_POP;
    int b = xorshift(s) % GA_POP;
    int better = a, worse = b;
    if (e[b] < e[a]) {
        better = b;
        worse = a;
    }
    return uniform01(s) < GA_TOURN ? better : worse;
}

extern "C" {

// a block a run: genes[(run * GA_POP + k) * ngene + g] the population (3 translation genes,
// 4 quaternion, ngene - 7 torsions in degrees), energy[run * GA_POP + k] their energies;
// child[...] the next generation: individual 0 the elite (the lowest energy, the first on a
// tie) copied, the others from two tournaments, two-point crossover (probability GA_PCROSS:
// genes c1 .. c2 - 1 from the second parent), a Cauchy mutation of each gene with probability
// GA_PMUT, translation clamped to [lo, hi], the quaternion normalised, torsions in [-180, 180)
__global__ void ga_generation(const float *genes, const float *energy, int ngene, unsigned int seed, float lo,
                              float hi, float *child) {
    __shared__ float s_e[GA_POP];
    __shared__ float s_best[GA_BLOCK];
    __shared__ int s_arg[GA_BLOCK];
    int run = blockIdx.x, t = threadIdx.x;
    const float *g = genes + (size_t)run * GA_POP * ngene;
    float *c = child + (size_t)run * GA_POP * ngene;
    if (t < GA_POP) {
        float v = energy[run * GA_POP + t];
        s_e[t] = v;
        s_best[t] = v;
    } else {
        s_best[t] = 3.0e38f;
    }
    s_arg[t] = t;
    __syncthreads();
    for (int s = GA_BLOCK / 2; s > 0; s >>= 1) {
        if (t < s && s_best[t + s] < s_best[t]) {
            s_best[t] = s_best[t + s];
            s_arg[t] = s_arg[t + s];
        }
        __syncthreads();
    }
    int elite = s_arg[0];
    if (t >= GA_POP) return;
    float kid[GA_MAXG];
    if (t == 0) {
        for (int k = 0; k < ngene; k++) kid[k] = g[elite * ngene + k];
    } else {
        unsigned int st = ga_hash(seed ^ ga_hash(run * GA_POP + t));
        if (st == 0) st = 1;
        int p1 = tournament(st, s_e);
        int p2 = tournament(st, s_e);
        int c1 = 0, c2 = 0;
        if (uniform01(st) < GA_PCROSS) {
            c1 = xorshift(st) % (ngene + 1);
            c2 = xorshift(st) % (ngene + 1);
            if (c1 > c2) {
                int tmp = c1;
                c1 = c2;
                c2 = tmp;
            }
        }
        for (int k = 0; k < ngene; k++) {
            if (k >= c1 && k < c2) kid[k] = g[p2 * ngene + k];
            else kid[k] = g[p1 * ngene + k];
        }
        for (int k = 0; k < ngene; k++) {
            if (uniform01(st) < GA_PMUT) {
                float dev = tanf(GA_PI * (uniform01(st) - 0.5f));
                if (k < 3) kid[k] += GA_TSCALE * dev;
                else if (k < 7) kid[k] += GA_QSCALE * dev;
                else kid[k] += GA_ASCALE * dev;
            }
        }
        for (int k = 0; k < 3; k++) kid[k] = fminf(fmaxf(kid[k], lo), hi);
        float qn = sqrtf(kid[3] * kid[3] + kid[4] * kid[4] + kid[5] * kid[5] + kid[6] * kid[6]);
        for (int k = 3; k < 7; k++) kid[k] = kid[k] / qn;
        for (int k = 7; k < ngene; k++) kid[k] = kid[k] - 360.0f * floorf((kid[k] + 180.0f) / 360.0f);
    }
    for (int k = 0; k < ngene; k++) c[t * ngene + k] = kid[k];
}

// ---------------------------------------------------------------- rmsd_matrix

// npose poses of natom atoms (xyz[(p * natom + a) * 3 + c]), a block of 16 x 16 threads the
// pairs (i0 + ty, j0 + tx): rmsd[i * npose + j] = the RMSD in hundredths of an A, rounded,
// saturated at 65535; nbr[i] += the poses j != i closer than RM_CUT
__global__ void rmsd_matrix(const float *xyz, int npose, int natom, unsigned short *rmsd, int *nbr) {
    __shared__ float s_a[RM_TILE][RM_MAXATOM * 3];
    __shared__ float s_b[RM_TILE][RM_MAXATOM * 3];
    __shared__ int s_cnt[RM_TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * RM_TILE + tx;
    int i0 = blockIdx.y * RM_TILE, j0 = blockIdx.x * RM_TILE;
    int m = natom * 3;
    for (int k = t; k < RM_TILE * m; k += RM_TILE * RM_TILE) {
        int r = k / m, col = k % m;
        s_a[r][col] = (i0 + r < npose) ? xyz[(size_t)(i0 + r) * m + col] : 0.0f;
        s_b[r][col] = (j0 + r < npose) ? xyz[(size_t)(j0 + r) * m + col] : 0.0f;
    }
    if (t < RM_TILE) s_cnt[t] = 0;
    __syncthreads();
    int i = i0 + ty, j = j0 + tx;
    if (i < npose && j < npose) {
        float d2 = 0.0f;
        for (int k = 0; k < m; k++) {
            float d = s_a[ty][k] - s_b[tx][k];
            d2 += d * d;
        }
        float r = sqrtf(d2 / natom);
        rmsd[(size_t)i * npose + j] = (unsigned short)fminf(r * 100.0f + 0.5f, 65535.0f);
        if (r < RM_CUT && i != j) atomicAdd(&s_cnt[ty], 1);
    }
    __syncthreads();
    if (t < RM_TILE && i0 + t < npose && s_cnt[t] > 0) atomicAdd(&nbr[i0 + t], s_cnt[t]);
}

// ---------------------------------------------------------------- tanimoto_screen

// n fingerprints of TS_WORDS words (fp[i * 32 + w]); best[i], best_q[i]: the highest Tanimoto
// similarity to a query and that query (the first on a tie; two empty fingerprints: 1);
// hits[q] += the compounds with similarity >= TS_HIT to query q, hist[min(63, (int)(best * 64))] += 1
__global__ void tanimoto_screen(const unsigned int *fp, int n, float *best, unsigned char *best_q, int *hist,
                                int *hits) {
    __shared__ int s_hist[TS_BINS];
    __shared__ int s_hits[TS_NQ];
    for (int k = threadIdx.x; k < TS_BINS; k += blockDim.x) s_hist[k] = 0;
    if (threadIdx.x < TS_NQ) s_hits[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned int f[TS_WORDS];
        int nb = 0;
        for (int w = 0; w < TS_WORDS; w++) {
            f[w] = fp[(size_t)i * TS_WORDS + w];
            nb += __popc(f[w]);
        }
        float bs = -1.0f;
        int bq = 0;
        for (int q = 0; q < TS_NQ; q++) {
            int common = 0;
            for (int w = 0; w < TS_WORDS; w++) common += __popc(f[w] & c_query[q][w]);
            int uni = nb + c_qbits[q] - common;
            float s = uni > 0 ? (float)common / (float)uni : 1.0f;
            if (s >= TS_HIT) atomicAdd(&s_hits[q], 1);
            if (s > bs) {
                bs = s;
                bq = q;
            }
        }
        best[i] = bs;
        best_q[i] = (unsigned char)bq;
        int b = (int)(bs * TS_BINS);
        if (b > TS_BINS - 1) b = TS_BINS - 1;
        atomicAdd(&s_hist[b], 1);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < TS_BINS; k += blockDim.x)
        if (s_hist[k] > 0) atomicAdd(&hist[k], s_hist[k]);
    if (threadIdx.x < TS_NQ && s_hits[threadIdx.x] > 0) atomicAdd(&hits[threadIdx.x], s_hits[threadIdx.x]);
}

// ---------------------------------------------------------------- ro5_filter

// nmol molecules, a warp each: atoms[atom_off[m] .. atom_off[m + 1] - 1] (bits 0-3 the element,
// 4-5 the H count, 6-7 the heavy-atom degree - 1), bonds[bond_off[m] ..] (the two atoms'
// indices within the molecule, a | b << 16) with flags (bits 0-1 the order: 1 single, 2 double,
// 3 aromatic; bit 2 in a ring; bit 3 an amide C-N); desc[m] its descriptors; the molecules with
// at most one rule-of-five violation, 10 rotatable bonds or fewer and a TPSA of 140 or less
// appended to kept (*nkept their count)
__global__ void ro5_filter(const unsigned char *atoms, const int *atom_off, const unsigned int *bonds,
                           const unsigned char *bond_flags, const int *bond_off, int nmol, MolDesc *desc, int *kept,
                           int *nkept) {
    int m = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (m >= nmol) return;
    int a0 = atom_off[m], a1 = atom_off[m + 1];
    float mw = 0.0f, logp = 0.0f, tpsa = 0.0f;
    int hbd = 0, hba = 0, rotb = 0;
    for (int base = a0; base < a1; base += 32) {
        int a = base + lane;
        bool donor = false, acceptor = false;
        if (a < a1) {
            unsigned char v = atoms[a];
            int el = v & 15, nh = (v >> 4) & 3;
            mw += c_mass[el] + 1.008f * nh;
            logp += c_logp[el * 4 + nh];
            tpsa += c_tpsa[el * 4 + nh];
            acceptor = el == RO_EL_N || el == RO_EL_O;
            donor = acceptor && nh > 0;
        }
        hbd += __popc(__ballot_sync(FULL_MASK, donor));
        hba += __popc(__ballot_sync(FULL_MASK, acceptor));
    }
    int b0 = bond_off[m], b1 = bond_off[m + 1];
    for (int base = b0; base < b1; base += 32) {
        int b = base + lane;
        bool rot = false;
        if (b < b1) {
            unsigned int ab = bonds[b];
            unsigned char f = bond_flags[b];
            int da = (atoms[a0 + (ab & 0xffff)] >> 6) + 1;
            int db = (atoms[a0 + (ab >> 16)] >> 6) + 1;
            rot = (f & 3) == 1 && !(f & 4) && !(f & 8) && da > 1 && db > 1;
        }
        rotb += __popc(__ballot_sync(FULL_MASK, rot));
    }
    for (int o = 16; o > 0; o /= 2) {
        mw += __shfl_xor_sync(FULL_MASK, mw, o);
        logp += __shfl_xor_sync(FULL_MASK, logp, o);
        tpsa += __shfl_xor_sync(FULL_MASK, tpsa, o);
    }
    if (lane == 0) {
        int nv = (mw > 500.0f) + (logp > 5.0f) + (hbd > 5) + (hba > 10);
        MolDesc d;
        d.mw = mw;
        d.logp = logp;
        d.tpsa = tpsa;
        d.hbd = (unsigned char)hbd;
        d.hba = (unsigned char)hba;
        d.rotb = (unsigned char)rotb;
        d.nviol = (unsigned char)nv;
        desc[m] = d;
        if (nv <= 1 && rotb <= 10 && tpsa <= 140.0f) {
            int k = atomicAdd(nkept, 1);
            kept[k] = m;
        }
    }
}

}
