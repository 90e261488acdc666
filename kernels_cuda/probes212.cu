// probe-unseen210: a genome-assembly / sequence-analysis course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - kmer_count_cas: k-mer counting (k = 31) into an open-addressing hash table, a thread a
//    k-mer of a read: its 31 ASCII bases read one by one into the forward and
//    reverse-complement 2-bit k-mers (64-bit), the canonical one (the smaller) hashed by
//    MurmurHash3's 64-bit finaliser, inserted by atomicCAS with linear probing, its count
//    bumped by atomicAdd; k-mers with an N are skipped; a global counter of the distinct
//    k-mers;
//  - minimizer_sketch: (w, k) minimizers of a genome (k = 15, w = 10, minimap2's invertible
//    integer hash of the canonical k-mer), a block 256 consecutive windows: the tile of bases
//    staged in shared memory, every k-mer's hash into a shared array, __syncthreads, each
//    window's leftmost smallest hash, __syncthreads, a window whose minimizer differs from
//    the previous window's appends (hash, position) to the sketch through a global
//    atomicAdd on the sketch's length;
//  - banded_sw: banded Smith-Waterman (affine gaps, BWA-MEM's scores) of each read against
//    the reference window its seed points at, a thread a read: the band's H and E rows in
//    short local arrays, the substitution score from a 5 x 5 __constant__ matrix indexed by
//    the two bases, the best cell kept; the result a small struct;
//  - qual_filter: FASTQ read-quality filtering, a warp a read in a grid-stride loop over
//    reads: a sliding-window (4 bases, mean Q20) 3' trim found by __ballot_sync / __ffs, the
//    expected errors of the kept bases summed in double from a __constant__ table of Phred
//    error probabilities and reduced by __shfl_down_sync (with the N and GC counts), the
//    keep / drop decision, an effective quality by log10f; a block's quality histogram and
//    per-cycle quality sums by shared int / float atomics, flushed by global atomics;
//  - kspec_correct: error correction by the k-mer spectrum (k = 13, counts of every
//    canonical 13-mer in a direct-address byte table), a thread a read: the read copied
//    into a local array of base codes, the k-mer rolled along it, its reverse complement
//    by bit swaps and __byte_perm, a weak k-mer after a solid one blames its last base: the
//    other three bases tried, the one giving the most frequent solid k-mer substituted;
//  - dbg_edges: de Bruijn graph construction from a hash table of solid canonical 31-mers
//    (structs of key and count), a grid-stride loop over the table's slots: for each node
//    its 4 successors and 4 predecessors made canonical (64-bit reverse complement by bit
//    swaps) and looked up by linear probing, the in / out edges as a byte of two 4-bit
//    masks, the nodes counted by kind (1-in-1-out, branching, dead end) by __popc, warp
//    shuffles, shared and global atomics.

#define KC_K 31                 // kmer_count_cas / dbg_edges: k
#define KC_EMPTY 0xFFFFFFFFFFFFFFFFull

#define MZ_K 15                 // minimizer_sketch: k
#define MZ_W 10                 // k-mers a window
#define MZ_BLOCK 256            // windows a block (blockDim.x)
#define MZ_NK (MZ_BLOCK + MZ_W)             // k-mers in the tile (the window before the block's too)
#define MZ_TILE (MZ_NK + MZ_K - 1)          // bases in the tile
#define MZ_INVALID 0xFFFFFFFFu

#define SW_HB 8                 // banded_sw: half band (diagonals either side)
#define SW_BW (2 * SW_HB + 1)   // diagonals in the band
#define SW_GO 6                 // gap open (a gap of length l costs SW_GO + l * SW_GE)
#define SW_GE 1                 // gap extension
#define SW_NEG (-1000)

#define QF_LEN 150              // qual_filter: read length
#define QF_WIN 4                // sliding window
#define QF_WQ 20                // the window's mean quality at least
#define QF_MINLEN 50            // a kept read's bases at least
#define QF_MAXEE 2.0            // expected errors at most
#define QF_MAXN 3               // N bases at most

#define EC_K 13                 // kspec_correct: k
#define EC_MAXLEN 150           // reads this long at most
#define EC_SOLID 4              // a k-mer seen this often is trusted
#define EC_MAXFIX 4             // corrections a read at most

struct AlnHit {
    int score;                  // best local score (0: none)
    short qend;                 // read position of the best cell (-1: none)
    short tend;                 // window position of the best cell
};

struct KmerNode {
    unsigned long long kmer;    // canonical 2-bit k-mer, KC_EMPTY for a free slot
    unsigned int count;         // times seen in the reads
    unsigned int id;            // node number
};

// BWA-MEM's scores: match 1, mismatch -4, N -1; set by the host
__constant__ signed char c_sub[5][5];

// Phred quality -> error probability, set by the host
__constant__ float c_perr[64];

__device__ unsigned long long mix64(unsigned long long k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

// reverse complement of a 2-bit k-mer of KC_K bases in the low bits
__device__ unsigned long long revcomp31(unsigned long long x) {
    x = ~x;
    x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((x & 0x0F0F0F0F0F0F0F0Full) << 4);
    x = ((x >> 8) & 0x00FF00FF00FF00FFull) | ((x & 0x00FF00FF00FF00FFull) << 8);
    x = ((x >> 16) & 0x0000FFFF0000FFFFull) | ((x & 0x0000FFFF0000FFFFull) << 16);
    x = (x >> 32) | (x << 32);
    return x >> (64 - 2 * KC_K);
}

// reverse complement of a 13-mer in the low 26 bits
__device__ unsigned int revcomp13(unsigned int x) {
    x = ~x;
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    x = __byte_perm(x, 0, 0x0123);
    return x >> (32 - 2 * EC_K);
}

__device__ int base_code(unsigned char c) {
    switch (c) {
    case 'A': return 0;
    case 'C': return 1;
    case 'G': return 2;
    case 'T': return 3;
    default: return 4;
    }
}

// minimap2's invertible hash of a 2k-bit key
__device__ unsigned int mz_hash(unsigned long long key) {
    unsigned long long mask = (1ull << (2 * MZ_K)) - 1;
    key = (~key + (key << 21)) & mask;
    key = key ^ (key >> 24);
    key = ((key + (key << 3)) + (key << 8)) & mask;
    key = key ^ (key >> 14);
    key = ((key + (key << 2)) + (key << 4)) & mask;
    key = key ^ (key >> 28);
    key = (key + (key << 31)) & mask;
    return (unsigned int)key;
}

// slot of `key` in the table (mask + 1 slots), -1 if absent
__device__ int dbg_find(const KmerNode *table, unsigned long long key, unsigned int mask) {
    unsigned int h = (unsigned int)(mix64(key) & mask);
    while (true) {
        unsigned long long k = table[h].kmer;
        if (k == key) return (int)h;
        if (k == KC_EMPTY) return -1;
        h = (h + 1) & mask;
    }
}

extern "C" {

// reads: nreads reads of len ASCII bases, a thread a k-mer position (len - KC_K + 1 a
// read); keys / counts: the table (mask + 1 slots, keys KC_EMPTY when free); *ndistinct +=
// the k-mers inserted for the first time
__global__ void kmer_count_cas(const unsigned char *reads, int len, unsigned long long *keys, unsigned int *counts,
                               unsigned int mask, int *ndistinct, int nreads) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int per_read = len - KC_K + 1;
    if (t >= nreads * per_read) return;
    int r = t / per_read;
    int p = t % per_read;
    const unsigned char *s = reads + (size_t)r * len + p;
    unsigned long long fwd = 0, rev = 0;
    for (int i = 0; i < KC_K; i++) {
        int c = base_code(s[i]);
        if (c > 3) return;      // an N: no k-mer here
        fwd = (fwd << 2) | c;
        rev = rev | ((unsigned long long)(3 - c) << (2 * i));
    }
    unsigned long long key = fwd < rev ? fwd : rev;
    unsigned int h = (unsigned int)(mix64(key) & mask);
    while (true) {
        unsigned long long prev = atomicCAS(&keys[h], KC_EMPTY, key);
        if (prev == KC_EMPTY) {
            atomicAdd(ndistinct, 1);
            atomicAdd(&counts[h], 1u);
            break;
        }
        if (prev == key) {
            atomicAdd(&counts[h], 1u);
            break;
        }
        h = (h + 1) & mask;
    }
}

// seq: n ASCII bases; the sketch: (hash << 32 | position) of every minimizer appended to
// out (cap entries at most), *count its length
__global__ void minimizer_sketch(const unsigned char *seq, int n, unsigned long long *out, int cap, int *count) {
    __shared__ unsigned char s_seq[MZ_TILE];
    __shared__ unsigned int s_hash[MZ_NK];
    __shared__ int s_arg[MZ_BLOCK + 1];
    int w0 = blockIdx.x * MZ_BLOCK;        // the block's first window = its first k-mer
    int t = threadIdx.x;
    for (int i = t; i < MZ_TILE; i += blockDim.x) {
        int g = w0 - 1 + i;
        s_seq[i] = (g >= 0 && g < n) ? seq[g] : 'N';
    }
    __syncthreads();
    // tile k-mer j starts at base w0 - 1 + j
    for (int j = t; j < MZ_NK; j += blockDim.x) {
        unsigned long long fwd = 0, rev = 0;
        int bad = 0;
        for (int b = 0; b < MZ_K; b++) {
            int c = base_code(s_seq[j + b]);
            if (c > 3) bad = 1;
            c &= 3;
            fwd = (fwd << 2) | c;
            rev = rev | ((unsigned long long)(3 - c) << (2 * b));
        }
        unsigned long long key = fwd < rev ? fwd : rev;
        s_hash[j] = bad ? MZ_INVALID : mz_hash(key);
    }
    __syncthreads();
    // tile window v (k-mers v .. v + MZ_W - 1) is window w0 - 1 + v; its leftmost minimum
    for (int v = t; v <= MZ_BLOCK; v += blockDim.x) {
        unsigned int best = MZ_INVALID;
        int arg = -1;
        for (int j = 0; j < MZ_W; j++) {
            if (s_hash[v + j] < best) {
                best = s_hash[v + j];
                arg = w0 - 1 + v + j;
            }
        }
        s_arg[v] = arg;
    }
    __syncthreads();
    int win = w0 + t;
    int nwin = n - MZ_K - MZ_W + 2;
    if (win >= nwin) return;
    int cur = s_arg[t + 1];
    int prev = win == 0 ? -1 : s_arg[t];
    if (cur >= 0 && cur != prev) {
        int idx = atomicAdd(count, 1);
        if (idx < cap) out[idx] = ((unsigned long long)s_hash[cur - w0 + 1] << 32) | (unsigned int)cur;
    }
}

// reads: nreads reads of len base codes (0..3, 4 = N); read r against ref[wstart[r] ..
// wstart[r] + len + 2 SW_HB - 1], cells (i, i + d) for d in 0 .. 2 SW_HB
__global__ void banded_sw(const unsigned char *reads, int len, const unsigned char *ref, const int *wstart,
                          AlnHit *hits, int nreads) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nreads) return;
    const unsigned char *q = reads + (size_t)r * len;
    const unsigned char *t = ref + wstart[r];
    short H[SW_BW], E[SW_BW];
    for (int d = 0; d < SW_BW; d++) {
        H[d] = 0;
        E[d] = SW_NEG;
    }
    int best = 0, bq = -1, bt = -1;
    for (int i = 0; i < len; i++) {
        int qc = q[i];
        int hleft = 0, f = SW_NEG;
        for (int d = 0; d < SW_BW; d++) {
            int j = i + d;
            int diag = H[d];
            int up = d + 1 < SW_BW ? H[d + 1] : 0;
            int eup = d + 1 < SW_BW ? E[d + 1] : SW_NEG;
            int e = max(up - SW_GO - SW_GE, eup - SW_GE);
            f = max(hleft - SW_GO - SW_GE, f - SW_GE);
            int h = max(0, diag + c_sub[qc][t[j]]);
            h = max(h, max(e, f));
            H[d] = (short)h;
            E[d] = (short)e;
            hleft = h;
            if (h > best) {
                best = h;
                bq = i;
                bt = j;
            }
        }
    }
    AlnHit res;
    res.score = best;
    res.qend = (short)bq;
    res.tend = (short)bt;
    hits[r] = res;
}

// seq / qual: nreads FASTQ records of QF_LEN bases (ASCII, Phred+33); per read the kept
// length, pass flag and effective quality; stats[0..2] += passed reads, their kept bases and
// GC bases; qhist[q] += bases of quality q; cyc_q[p] += the qualities at cycle p
__global__ void qual_filter(const unsigned char *seq, const unsigned char *qual, unsigned char *keep_len,
                            unsigned char *pass, float *eff_q, int *stats, int *qhist, float *cyc_q, int nreads) {
    __shared__ int s_hist[64];
    __shared__ float s_cyc[QF_LEN];
    for (int i = threadIdx.x; i < 64; i += blockDim.x) s_hist[i] = 0;
    for (int i = threadIdx.x; i < QF_LEN; i += blockDim.x) s_cyc[i] = 0.0f;
    __syncthreads();
    int lane = threadIdx.x % 32;
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int nwarps = gridDim.x * blockDim.x / 32;
    for (int r = warp; r < nreads; r += nwarps) {
        const unsigned char *s = seq + (size_t)r * QF_LEN;
        const unsigned char *q = qual + (size_t)r * QF_LEN;
        // the first window of mean quality under QF_WQ: the read is cut where it starts
        int cut = QF_LEN;
        for (int base = 0; base < QF_LEN; base += 32) {
            int p = base + lane;
            int bad = 0;
            if (p < QF_LEN) {
                int qv = q[p] - 33;
                atomicAdd(&s_hist[qv], 1);
                atomicAdd(&s_cyc[p], (float)qv);
                if (p <= QF_LEN - QF_WIN) {
                    int sum = 0;
                    for (int k = 0; k < QF_WIN; k++) sum += q[p + k] - 33;
                    bad = sum < QF_WQ * QF_WIN;
                }
            }
            unsigned int b = __ballot_sync(0xffffffff, bad);
            if (b != 0 && cut == QF_LEN) cut = base + __ffs(b) - 1;
        }
        double ee = 0.0;
        int nn = 0, gc = 0;
        for (int p = lane; p < cut; p += 32) {
            ee += c_perr[q[p] - 33];
            unsigned char c = s[p];
            if (c == 'N') nn++;
            if (c == 'G' || c == 'C') gc++;
        }
        for (int o = 16; o > 0; o /= 2) {
            ee += __shfl_down_sync(0xffffffff, ee, o);
            nn += __shfl_down_sync(0xffffffff, nn, o);
            gc += __shfl_down_sync(0xffffffff, gc, o);
        }
        if (lane == 0) {
            int ok = cut >= QF_MINLEN && ee <= QF_MAXEE && nn <= QF_MAXN;
            keep_len[r] = (unsigned char)cut;
            pass[r] = (unsigned char)ok;
            eff_q[r] = cut > 0 ? -10.0f * log10f(fmaxf((float)(ee / cut), 1e-6f)) : 0.0f;
            if (ok) {
                atomicAdd(&stats[0], 1);
                atomicAdd(&stats[1], cut);
                atomicAdd(&stats[2], gc);
            }
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 64; i += blockDim.x)
        if (s_hist[i] != 0) atomicAdd(&qhist[i], s_hist[i]);
    for (int i = threadIdx.x; i < QF_LEN; i += blockDim.x) atomicAdd(&cyc_q[i], s_cyc[i]);
}

// reads: nreads reads of len (at most EC_MAXLEN) ASCII bases; counts[c]: times the
// canonical 13-mer c was seen (saturated at 255); out the corrected reads, nfix[r] the
// read's corrections, *total += all of them
__global__ void kspec_correct(const unsigned char *reads, int len, const unsigned char *counts, unsigned char *out,
                              unsigned char *nfix, int *total, int nreads) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nreads) return;
    unsigned char s[EC_MAXLEN];
    for (int i = 0; i < len; i++) s[i] = (unsigned char)base_code(reads[(size_t)r * len + i]);
    const unsigned int kmask = (1u << (2 * EC_K)) - 1;
    int fixes = 0;
    int prev_solid = 0;
    unsigned int km = 0;        // the k-mer ending at base i
    int last_n = -1;            // the last N's position
    for (int i = 0; i < len; i++) {
        if (s[i] > 3) last_n = i;
        km = ((km << 2) | (s[i] & 3)) & kmask;
        if (i < EC_K - 1) continue;
        int bad = last_n > i - EC_K;
        int solid = 0;
        if (!bad) {
            unsigned int rc = revcomp13(km);
            solid = counts[min(km, rc)] >= EC_SOLID;
        }
        if (!solid && prev_solid && fixes < EC_MAXFIX) {
            // the k-mer before this one was trusted: blame the new base
            int bestc = -1, bestn = 0;
            for (int c = 0; c < 4; c++) {
                if (c == s[i]) continue;
                unsigned int alt = (km & ~3u) | c;
                unsigned int rc = revcomp13(alt);
                int cnt = counts[min(alt, rc)];
                if (cnt >= EC_SOLID && cnt > bestn) {
                    bestn = cnt;
                    bestc = c;
                }
            }
            if (bestc >= 0) {
                s[i] = (unsigned char)bestc;
                km = (km & ~3u) | bestc;
                last_n = -1;    // the k-mer before had no N: an N here was the only one
                fixes++;
                solid = 1;
            }
        }
        prev_solid = solid;
    }
    for (int i = 0; i < len; i++) out[(size_t)r * len + i] = "ACGTN"[s[i]];
    nfix[r] = (unsigned char)fixes;
    if (fixes > 0) atomicAdd(total, fixes);
}

// table: mask + 1 slots of solid canonical KC_K-mers (kmer KC_EMPTY: free); nodes seen fewer
// than minc times are left out of the graph; edges[slot] = in << 4 | out (bit b: the
// neighbour through base b); stats[0..3] += nodes, 1-in-1-out nodes, branching nodes (a
// degree over 1), dead ends (a degree 0)
__global__ void dbg_edges(const KmerNode *table, unsigned int mask, unsigned int minc, unsigned char *edges,
                          int *stats) {
    __shared__ int s_stats[4];
    if (threadIdx.x < 4) s_stats[threadIdx.x] = 0;
    __syncthreads();
    const unsigned long long kmask = (1ull << (2 * KC_K)) - 1;
    int nodes = 0, simple = 0, branch = 0, dead = 0;
    for (unsigned int slot = blockIdx.x * blockDim.x + threadIdx.x; slot <= mask; slot += gridDim.x * blockDim.x) {
        KmerNode nd = table[slot];
        if (nd.kmer == KC_EMPTY || nd.count < minc) {
            edges[slot] = 0;
            continue;
        }
        unsigned int in = 0, out = 0;
        for (int b = 0; b < 4; b++) {
            unsigned long long nx = ((nd.kmer << 2) | b) & kmask;
            unsigned long long rc = revcomp31(nx);
            int h = dbg_find(table, nx < rc ? nx : rc, mask);
            if (h >= 0 && table[h].count >= minc) out |= 1u << b;
            unsigned long long pv = (nd.kmer >> 2) | ((unsigned long long)b << (2 * KC_K - 2));
            rc = revcomp31(pv);
            h = dbg_find(table, pv < rc ? pv : rc, mask);
            if (h >= 0 && table[h].count >= minc) in |= 1u << b;
        }
        edges[slot] = (unsigned char)((in << 4) | out);
        int din = __popc(in), dout = __popc(out);
        nodes++;
        if (din == 1 && dout == 1) simple++;
        if (din > 1 || dout > 1) branch++;
        if (din == 0 || dout == 0) dead++;
    }
    for (int o = 16; o > 0; o /= 2) {
        nodes += __shfl_down_sync(0xffffffff, nodes, o);
        simple += __shfl_down_sync(0xffffffff, simple, o);
        branch += __shfl_down_sync(0xffffffff, branch, o);
        dead += __shfl_down_sync(0xffffffff, dead, o);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&s_stats[0], nodes);
        atomicAdd(&s_stats[1], simple);
        atomicAdd(&s_stats[2], branch);
        atomicAdd(&s_stats[3], dead);
    }
    __syncthreads();
    if (threadIdx.x < 4) atomicAdd(&stats[threadIdx.x], s_stats[threadIdx.x]);
}

}
