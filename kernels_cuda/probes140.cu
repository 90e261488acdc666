// probe-unseen138: a cheminformatics course's CUDA assignments, as a student who knows
// CUDA basics hands them in (fingerprints are 1024-bit, FP_WORDS 64-bit words, bit b of
// a fingerprint is bit b % 64 of word b / 64):
//  - tanimoto_query: the Tanimoto similarity of one query fingerprint (in __constant__
//    memory) to every fingerprint of a database, a thread a fingerprint, __popcll of the
//    words and of their ANDs, c / (a + b - c) stored;
//  - substruct_screen: substructure pre-screening, NQ query masks (staged in shared
//    memory) tested against every database fingerprint ((fp & q) == q, word by word,
//    leaving a query at its first failing word); a match sets the molecule's bit in a
//    byte mask and appends the molecule to the query's hit list by atomicAdd;
//  - minhash_sig: MinHash signatures of molecules given as lists of ECFP feature ids
//    (CSR), a block a molecule and a thread a hash function h_k(x) = (a_k x + b_k) mod
//    (2^31 - 1) in 64-bit integers, the molecule's features staged in shared memory;
//  - mol_descriptors: descriptors from atom lists (CSR: atomic numbers and coordinates),
//    a thread a molecule: the molecular weight from a __constant__ table of masses, the
//    heavy-atom and hetero-atom counts, the centroid and the radius of gyration (a second
//    pass over the atoms);
//  - butina_counts: the neighbour counts of Butina clustering, for every fingerprint the
//    number of others with Tanimoto >= cutoff (all pairs), a 2-D grid of row x column
//    tiles, the column tile's fingerprints staged in shared memory, a thread a row with
//    its fingerprint in registers, the tile's count added by atomicAdd;
//  - shape_overlap: the 3-D shape overlap of Gaussian atoms (Grant & Pickup, p = 2.7)
//    between a reference molecule (in shared memory) and many conformers (up to
//    CONF_ATOMS atoms each, float4 x, y, z, alpha), a thread a conformer, an expf, a
//    division and a sqrtf a pair of atoms.

#define FP_WORDS 16           // 64-bit words of a 1024-bit fingerprint
#define NQ 8                  // substruct_screen: the query masks
#define MH_HASHES 128         // minhash_sig: hash functions (blockDim.x == MH_HASHES)
#define MH_MAX_FEAT 128       // minhash_sig: the most features a molecule
#define MAX_Z 64              // mol_descriptors: the mass table's size (atomic numbers < MAX_Z)
#define BT_ROWS 128           // butina_counts: rows (threads) a block (blockDim.x == BT_ROWS)
#define BT_COLS 32            // butina_counts: the columns' fingerprints a block stages in shared memory
#define REF_MAX 64            // shape_overlap: the most atoms of the reference
#define CONF_ATOMS 32         // shape_overlap: atom slots a conformer

// tanimoto_query's query fingerprint (set by the host)
__constant__ unsigned long long c_query[FP_WORDS];

// mol_descriptors' atomic masses by atomic number (set by the host)
__constant__ float c_mass[MAX_Z];

extern "C" {

// Tanimoto similarity of the query to n fingerprints (fp row-major n x FP_WORDS)
__global__ void tanimoto_query(const unsigned long long *fp, float *sim, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a = 0;
    int b = 0;
    int c = 0;
    for (int w = 0; w < FP_WORDS; w++) {
        unsigned long long x = fp[i * FP_WORDS + w];
        unsigned long long q = c_query[w];
        a += __popcll(q);
        b += __popcll(x);
        c += __popcll(x & q);
    }
    int u = a + b - c;
    sim[i] = u > 0 ? (float)c / (float)u : 0.0f;
}

// substructure screen of n fingerprints against NQ query masks (queries NQ x FP_WORDS):
// match[i] bit q set when every bit of query q is in fingerprint i; the matches of query
// q counted in n_hits[q] and their indices appended to hit_list[q * cap ..] (the first
// cap of them kept)
__global__ void substruct_screen(const unsigned long long *fp, const unsigned long long *queries,
                                 unsigned char *match, unsigned int *n_hits, int *hit_list, int cap, int n) {
    __shared__ unsigned long long sq[NQ * FP_WORDS];
    for (int k = threadIdx.x; k < NQ * FP_WORDS; k += blockDim.x) sq[k] = queries[k];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned char m = 0;
    for (int q = 0; q < NQ; q++) {
        bool ok = true;
        for (int w = 0; w < FP_WORDS; w++) {
            unsigned long long need = sq[q * FP_WORDS + w];
            if ((fp[i * FP_WORDS + w] & need) != need) {
                ok = false;
                break;
            }
        }
        if (ok) {
            m |= (unsigned char)(1 << q);
            unsigned int pos = atomicAdd(&n_hits[q], 1u);
            if (pos < (unsigned int)cap) hit_list[q * cap + pos] = i;
        }
    }
    match[i] = m;
}

// MinHash signatures of n molecules (features feat[start[m] .. start[m + 1]], at most
// MH_MAX_FEAT), a block a molecule: sig[m * MH_HASHES + k] the least (a[k] f + b[k]) mod
// (2^31 - 1) over the molecule's features f (0xffffffff for none)
__global__ void minhash_sig(const int *start, const unsigned int *feat, const unsigned int *ha,
                            const unsigned int *hb, unsigned int *sig, int n) {
    __shared__ unsigned int s_feat[MH_MAX_FEAT];
    int m = blockIdx.x;
    int k = threadIdx.x;
    int s = start[m];
    int cnt = start[m + 1] - s;
    for (int j = k; j < cnt; j += blockDim.x) s_feat[j] = feat[s + j];
    __syncthreads();
    unsigned long long a = ha[k];
    unsigned long long b = hb[k];
    unsigned int best = 0xffffffffu;
    for (int j = 0; j < cnt; j++) {
        unsigned long long h = (a * s_feat[j] + b) % 2147483647ull;
        if ((unsigned int)h < best) best = (unsigned int)h;
    }
    sig[m * MH_HASHES + k] = best;
}

// descriptors of n molecules from their atoms (start[m] .. start[m + 1] in Z, x, y, z):
// the molecular weight, the heavy atoms (Z > 1), the hetero atoms (heavy, not carbon) and
// the radius of gyration about the centroid
__global__ void mol_descriptors(const int *start, const unsigned char *Z, const float *x, const float *y,
                                const float *z, float *mw, int *n_heavy, int *n_hetero, float *rgyr, int n) {
    int m = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= n) return;
    int s = start[m];
    int e = start[m + 1];
    float w = 0.0f;
    int heavy = 0;
    int het = 0;
    float cx = 0.0f, cy = 0.0f, cz = 0.0f;
    for (int k = s; k < e; k++) {
        int an = Z[k];
        w += c_mass[an];
        if (an > 1) {
            heavy++;
            if (an != 6) het++;
        }
        cx += x[k];
        cy += y[k];
        cz += z[k];
    }
    int cnt = e - s;
    float rg = 0.0f;
    if (cnt > 0) {
        cx /= cnt;
        cy /= cnt;
        cz /= cnt;
        float r2 = 0.0f;
        for (int k = s; k < e; k++) {
            float dx = x[k] - cx;
            float dy = y[k] - cy;
            float dz = z[k] - cz;
            r2 += dx * dx + dy * dy + dz * dz;
        }
        rg = sqrtf(r2 / cnt);
    }
    mw[m] = w;
    n_heavy[m] = heavy;
    n_hetero[m] = het;
    rgyr[m] = rg;
}

// Butina neighbour counts: n_nbrs[i] (zeroed by the host) the number of j != i with
// Tanimoto(fp i, fp j) >= cutoff (bitcount[] each fingerprint's bits); a 2-D grid, block
// (x, y) the rows x BT_ROWS .. and the columns y BT_COLS .. (staged in shared memory), a
// thread a row with its fingerprint in registers, its count of the tile added atomically
__global__ void butina_counts(const unsigned long long *fp, const int *bitcount, int *n_nbrs, float cutoff,
                              int n) {
    __shared__ unsigned long long s_fp[BT_COLS * FP_WORDS];
    __shared__ int s_cnt[BT_COLS];
    int i = blockIdx.x * BT_ROWS + threadIdx.x;
    int j0 = blockIdx.y * BT_COLS;
    for (int k = threadIdx.x; k < BT_COLS * FP_WORDS; k += blockDim.x) {
        int j = j0 + k / FP_WORDS;
        s_fp[k] = j < n ? fp[j0 * FP_WORDS + k] : 0ull;
    }
    if (threadIdx.x < BT_COLS) s_cnt[threadIdx.x] = j0 + threadIdx.x < n ? bitcount[j0 + threadIdx.x] : 0;
    __syncthreads();
    if (i >= n) return;
    unsigned long long my[FP_WORDS];
    for (int w = 0; w < FP_WORDS; w++) my[w] = fp[i * FP_WORDS + w];
    int mc = bitcount[i];
    int count = 0;
    for (int jj = 0; jj < BT_COLS && j0 + jj < n; jj++) {
        int c = 0;
        for (int w = 0; w < FP_WORDS; w++) c += __popcll(my[w] & s_fp[jj * FP_WORDS + w]);
        int u = mc + s_cnt[jj] - c;
        if (j0 + jj != i && u > 0 && (float)c / (float)u >= cutoff) count++;
    }
    if (count > 0) atomicAdd(&n_nbrs[i], count);
}

// Gaussian shape overlap of n conformers (conf[c * CONF_ATOMS + a], n_atoms[c] used) with
// the reference's n_ref atoms: the sum over atom pairs of p^2 (pi / (ai + aj))^(3/2)
// exp(-ai aj r^2 / (ai + aj)), p = 2.7 (x, y, z, alpha in a float4)
__global__ void shape_overlap(const float4 *ref, int n_ref, const float4 *conf, const int *n_atoms,
                              float *overlap, int n) {
    __shared__ float4 s_ref[REF_MAX];
    for (int k = threadIdx.x; k < n_ref; k += blockDim.x) s_ref[k] = ref[k];
    __syncthreads();
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n) return;
    int na = n_atoms[c];
    float v = 0.0f;
    for (int i = 0; i < na; i++) {
        float4 a = conf[c * CONF_ATOMS + i];
        for (int j = 0; j < n_ref; j++) {
            float4 b = s_ref[j];
            float dx = a.x - b.x;
            float dy = a.y - b.y;
            float dz = a.z - b.z;
            float r2 = dx * dx + dy * dy + dz * dz;
            float sa = a.w + b.w;
            float p = 3.14159265f / sa;
            v += 7.29f * p * sqrtf(p) * expf(-a.w * b.w * r2 / sa);
        }
    }
    overlap[c] = v;
}

}
