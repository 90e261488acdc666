// probe-unseen245: a data-compression course's CUDA assignments, as a student who knows CUDA
// basics hands them in (the course's corpora: synthetic English prose, 8-bit photographs'
// prediction residuals, a web collection's inverted index, a monitoring system's metrics):
//  - rans_decode_warp: 32-way interleaved rANS decoding (12-bit probabilities, a 32-bit
//    state, 16-bit renormalisation) of JPEG-LS-style (MED predictor) residuals of 8-bit
//    greyscale photographs: a warp a chunk of 8192 symbols, each lane its own state; a block
//    first stages the 4096-slot decoding table (symbol, frequency, slot bias packed in a
//    uint32) in shared memory (a barrier), then 256 steps a lane: a shared gather at the
//    state's low 12 bits (random slots: bank conflicts), a byte store (a warp's 32
//    contiguous bytes), the state update (an integer multiply-add), and the lanes whose state
//    fell under 2^16 read the chunk's next 16-bit words in lane order: __ballot_sync, a
//    __popc of the lanes below for each lane's word and of the whole ballot to advance the
//    stream pointer (a coalesced 2-byte gather, ~32% of the lanes a step); a chunk's lanes
//    must end on the encoder's initial state (counted by a last ballot);
//  - lz77_chain_match: deflate's longest_match on every position of a text at once (a
//    thread a position): gzip's 15-bit hash chains (prev[], built on the host), walked up to
//    max_chain links within the 32 KB window (a __constant__ struct of gzip -5's
//    parameters: max_chain, good_length, nice_length, the window), a link rejected by two
//    byte compares (the byte at the best length so far, the first byte), a candidate
//    compared byte by byte (a data-dependent loop up to 258), the chain cut to a quarter
//    once a good match is found, a 4-byte struct (length, distance) stored; gathers into a
//    32 KB window behind each lane (L1 / L2 hits), long divergent loops; the block's
//    matches, matched bytes and links walked counted by shared atomicAdd on 3 words (every
//    lane on the same address) and added into the totals by 64-bit global atomicAdd;
//  - mtf_rank_entropy: bzip2's move-to-front stage on the Schindler transform (a BWT over 5
//    bytes of context, in 1 MB blocks) of English text: a warp a 1 KB chunk, its 256-byte
//    recency list in registers (8 entries a lane, the bytes of a 64-bit word; initially
//    the symbols in use, as bzip2); 32 bytes read at a time (coalesced) and taken one by one
//    by __shfl_sync; the head compared (rank 0 for ~32% of the bytes: a warp-uniform
//    branch), else the lane holding the byte found by the zero-byte trick on 64-bit words,
//    __ballot_sync and __ffs / __ffsll, the rank broadcast by a shuffle and the list
//    shifted (64-bit shifts, the lanes' top bytes passed on by __shfl_up_sync, a mask merge
//    at the owner: divergent); the 32 ranks stored together (coalesced) and counted in a
//    shared histogram by shared atomicAdd (ranks 0 and 1 hot: ~10 and ~4 lanes an address);
//    then the block's order-0 cost of its ranks, sum h log2(N / h) (log2f, a float shuffle
//    reduction, a barrier), stored, and the bins added to the file's histogram by global
//    atomicAdd;
//  - huff_encode_block: canonical Huffman encoding of English text (code lengths limited to
//    15, the code book a __constant__ struct table: per-lane symbols, serialised): a block
//    2048 bytes, 8 a thread (one 8-byte load), each thread's bit count, a block exclusive
//    scan (a template over the warps: __shfl_up_sync within warps, the warp totals in
//    shared memory, two barriers), the codes ORed MSB-first into a shared word buffer at
//    their bit offsets by shared atomicOr (two when a code straddles a word: neighbouring
//    lanes share words), a barrier, the block's words stored (coalesced) and its bit count;
//  - gorilla_xor_encode: Facebook Gorilla's XOR compression of float64 metrics (a 2-hour
//    block of 120 one-minute points a series; gauges in 0.1 and 0.01 steps, monotonic
//    counters, latencies, constants): a thread a series, the points read time-major (a
//    warp's 256 contiguous bytes a point), each XORed with the last (double bits by
//    __double_as_longlong), the 3 cases of Gorilla's control bits (0 for a repeat, 10 and
//    the meaningful bits inside the previous window, 11 with __clzll / __ffsll's new window:
//    divergent), a 64-bit bit writer struct in registers flushing to the series' own output
//    region (8-byte stores, lanes a region apart: uncoalesced), the series' bit count stored;
//  - pfor_pack_frames: PForDelta (NewPFD) packing of an inverted index's d-gaps (docid
//    gaps - 1 of Zipf-distributed terms over 33M documents, bursty by site): a warp a
//    128-value frame (a uint4 a lane: coalesced), the frame's widest value by a shuffle
//    max, then for every narrower width b the values over b bits counted by 4
//    __ballot_sync / __popc (a loop of a data-dependent, warp-uniform trip count) and the
//    cheapest b by its cost (128 b bits + 40 a patch); the low b bits ORed into the warp's
//    shared word buffer by shared atomicOr (several lanes a word for narrow b; __syncwarp),
//    4b words stored; the exceptions (their high bits and positions) compacted by a shuffle
//    scan and one global atomicAdd a frame on a single counter (contended by every warp),
//    a frame header struct.

#define FULL_MASK 0xffffffffu

#define RANS_BITS 12                 // rans_decode_warp: probability bits (M = 4096)
#define RANS_M (1 << RANS_BITS)
#define RANS_L (1u << 16)            // the state's lower bound (16-bit renormalisation)
#define RANS_STEPS 256               // symbols a lane a chunk
#define RANS_CHUNK (32 * RANS_STEPS) // symbols a warp

#define LZ_MIN 3                     // lz77_chain_match: deflate's shortest match
#define LZ_MAX 258                   // and longest

#define MTF_WARPS 4                  // mtf_rank_entropy: warps a block (chunks)
#define MTF_CHUNK 1024               // bytes a warp (the host's chunk argument, a multiple of 32)

#define HUF_BLOCK 256                // huff_encode_block: blockDim.x
#define HUF_ITEMS 8                  // bytes a thread (one 8-byte load)
#define HUF_MAXLEN 15                // the longest code
#define HUF_SYMS (HUF_BLOCK * HUF_ITEMS)
#define HUF_CAPW (HUF_SYMS * HUF_MAXLEN / 32)   // a block's output words, at most

#define GOR_BLOCK 128                // gorilla_xor_encode: blockDim.x

#define PF_FRAME 128                 // pfor_pack_frames: values a frame (a warp)
#define PF_WARPS 8                   // warps a block
#define PF_EXC_BITS 40               // an exception's cost: its high bits (32) and position (8)

// gzip's match-finding parameters (deflate level 5: 32, 8, 32)
struct LzParams {
    int max_chain;      // links walked at most
    int good_len;       // a match this long cuts the rest of the chain to a quarter
    int nice_len;       // a match this long stops the search
    int max_dist;       // the window (32768 - 262)
};

// a position's longest match (len 0: a literal)
struct LzMatch {
    unsigned short len;
    unsigned short dist;
};

// a canonical Huffman code word (MSB-first), len 0 for a symbol that never occurs
struct HufCode {
    unsigned short code;
    unsigned char len;
    unsigned char pad;
};

// a PFor frame's header: the width, the exceptions and where they start
struct PforHeader {
    unsigned char b;
    unsigned char nexc;
    unsigned short pad;
    unsigned int exc_off;
};

// a series' bit writer (MSB-first into 64-bit words)
struct BitWriter {
    unsigned long long acc;   // the bits not yet stored (fill of them, right-aligned)
    int fill;
    int nw;                   // words stored
};

__constant__ LzParams c_lz;                 // set by the host
__constant__ HufCode c_huf[256];            // set by the host

// ---------------------------------------------------------------- helpers

// the nb low bits of v (nb 0 .. 64) appended to the writer, full words stored to dst
__device__ void bw_put(BitWriter *w, unsigned long long *dst, unsigned long long v, int nb) {
    if (nb < 64) v &= (1ull << nb) - 1ull;
    int room = 64 - w->fill;
    if (nb < room) {
        w->acc = (w->acc << nb) | v;
        w->fill += nb;
    } else {
        int rest = nb - room;
        unsigned long long hi = v >> rest;
        unsigned long long word = room == 64 ? hi : ((w->acc << room) | hi);
        dst[w->nw] = word;
        w->nw++;
        w->acc = rest > 0 ? (v & ((1ull << rest) - 1ull)) : 0ull;
        w->fill = rest;
    }
}

// a block exclusive prefix sum of v over NWARPS warps; *total the block's sum
template <int NWARPS>
__device__ int block_exclusive_scan(int v, int *s_warp, int *total) {
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    int x = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        int y = __shfl_up_sync(FULL_MASK, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) s_warp[wid] = x;
    __syncthreads();
    if (wid == 0) {
        int t = lane < NWARPS ? s_warp[lane] : 0;
#pragma unroll
        for (int o = 1; o < NWARPS; o <<= 1) {
            int y = __shfl_up_sync(FULL_MASK, t, o);
            if (lane >= o) t += y;
        }
        if (lane < NWARPS) s_warp[lane] = t;      // inclusive warp totals
    }
    __syncthreads();
    *total = s_warp[NWARPS - 1];
    return x - v + (wid > 0 ? s_warp[wid - 1] : 0);
}

extern "C" {

// ---------------------------------------------------------------- rans_decode_warp

// tab[slot] = sym | (freq - 1) << 8 | (slot - cum[sym]) << 20; chunk c (a warp): lane l's
// initial state state0[c * 32 + l], its 16-bit words from words + woff[c] (in decode order,
// the lanes of a step in lane order); out[c * RANS_CHUNK + t * 32 + l] = symbol t of lane l;
// bad[c] = the lanes not ending on RANS_L
__global__ void rans_decode_warp(const unsigned int *tab, const unsigned int *state0, const unsigned short *words,
                                 const unsigned int *woff, int nchunks, unsigned char *out, int *bad) {
    __shared__ unsigned int s_tab[RANS_M];
    for (int i = threadIdx.x; i < RANS_M; i += blockDim.x) s_tab[i] = tab[i];
    __syncthreads();
    int c = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (c >= nchunks) return;
    unsigned int x = state0[c * 32 + lane];
    const unsigned short *in = words + woff[c];
    unsigned char *o = out + (size_t)c * RANS_CHUNK;
    unsigned int below = (1u << lane) - 1u;
    for (int t = 0; t < RANS_STEPS; t++) {
        unsigned int e = s_tab[x & (RANS_M - 1)];
        o[t * 32 + lane] = (unsigned char)(e & 0xffu);
        unsigned int freq = ((e >> 8) & 0xfffu) + 1u;
        x = freq * (x >> RANS_BITS) + (e >> 20);
        bool need = x < RANS_L;
        unsigned int bal = __ballot_sync(FULL_MASK, need);
        if (need) x = (x << 16) | (unsigned int)in[__popc(bal & below)];
        in += __popc(bal);
    }
    unsigned int wrong = __ballot_sync(FULL_MASK, x != RANS_L);
    if (lane == 0) bad[c] = __popc(wrong);
}

// ---------------------------------------------------------------- lz77_chain_match

// buf: n bytes; prev[i]: the last j < i with the same hash of buf[j .. j + 2] (-1: none);
// out[i] = the longest match of buf[i ..] at a distance <= max_dist found within max_chain
// links (the nearest of equal lengths), len 0 if shorter than LZ_MIN; stats += (matches,
// matched bytes, links walked)
__global__ void lz77_chain_match(const unsigned char *buf, const int *prev, int n, LzMatch *out,
                                 unsigned long long *stats) {
    __shared__ unsigned int s_cnt[3];
    if (threadIdx.x < 3) s_cnt[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int limit = min(n - i, LZ_MAX);
        int best = LZ_MIN - 1, bdist = 0, links = 0;
        if (limit >= LZ_MIN) {
            int chain = c_lz.max_chain;
            bool cut = false;
            int j = prev[i];
            while (j >= 0 && i - j <= c_lz.max_dist && chain > 0) {
                chain--;
                links++;
                if (buf[j + best] == buf[i + best] && buf[j] == buf[i]) {
                    int len = 1;
                    while (len < limit && buf[j + len] == buf[i + len]) len++;
                    if (len > best) {
                        best = len;
                        bdist = i - j;
                        if (len >= c_lz.nice_len || len == limit) break;
                        if (!cut && len >= c_lz.good_len) {
                            chain >>= 2;
                            cut = true;
                        }
                    }
                }
                j = prev[j];
            }
        }
        LzMatch m;
        if (best >= LZ_MIN) {
            m.len = (unsigned short)best;
            m.dist = (unsigned short)bdist;
            atomicAdd(&s_cnt[0], 1u);
            atomicAdd(&s_cnt[1], (unsigned int)best);
        } else {
            m.len = 0;
            m.dist = 0;
        }
        out[i] = m;
        atomicAdd(&s_cnt[2], (unsigned int)links);
    }
    __syncthreads();
    if (threadIdx.x < 3) atomicAdd(&stats[threadIdx.x], (unsigned long long)s_cnt[threadIdx.x]);
}

// ---------------------------------------------------------------- mtf_rank_entropy

// in: nchunks chunks of chunk bytes (a multiple of 32); each chunk move-to-front coded from the list init
// (bzip2's: the symbols in use, then the rest; 256 bytes): rk[i] = the rank of in[i];
// blk_bits[block] = sum over ranks r of h_r log2(N / h_r), h the block's rank histogram,
// N its bytes; ghist[r] += h_r.  A warp a chunk: the list in registers, lane l holding
// entries 8 l .. 8 l + 7 as the bytes of a 64-bit word (entry 8 l + j in bits 8 j ..)
__global__ void mtf_rank_entropy(const unsigned char *in, const unsigned char *init, int nchunks, int chunk,
                                 unsigned char *rk, float *blk_bits, unsigned int *ghist) {
    __shared__ unsigned int s_hist[256];
    __shared__ float s_part[MTF_WARPS];
    int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;
    for (int k = tid; k < 256; k += blockDim.x) s_hist[k] = 0u;
    __syncthreads();
    int c = blockIdx.x * MTF_WARPS + wid;
    if (c < nchunks) {
        unsigned long long v = reinterpret_cast<const unsigned long long *>(init)[lane];
        const unsigned char *p = in + (size_t)c * chunk;
        unsigned char *q = rk + (size_t)c * chunk;
        for (int i0 = 0; i0 < chunk; i0 += 32) {
            unsigned int mine = p[i0 + lane];
            unsigned int myrank = 0u;
            for (int j = 0; j < 32; j++) {
                unsigned int b = __shfl_sync(FULL_MASK, mine, j);
                unsigned int head = __shfl_sync(FULL_MASK, (unsigned int)(v & 0xffull), 0);
                unsigned int r = 0u;
                if (head != b) {
                    // the lane holding b: a zero byte of v ^ b..b (the lowest flagged is exact)
                    unsigned long long x = v ^ (0x0101010101010101ull * (unsigned long long)b);
                    unsigned long long z = (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
                    unsigned int bal = __ballot_sync(FULL_MASK, z != 0ull);
                    int owner = __ffs((int)bal) - 1;
                    int pos = z != 0ull ? (__ffsll((long long)z) - 1) >> 3 : 0;
                    pos = __shfl_sync(FULL_MASK, pos, owner);
                    r = (unsigned int)(owner * 8 + pos);
                    // entries 0 .. r - 1 move up one, b to the front
                    unsigned long long up = __shfl_up_sync(FULL_MASK, v >> 56, 1);
                    if (lane == 0) up = (unsigned long long)b;
                    unsigned long long sh = (v << 8) | up;
                    if (lane < owner) {
                        v = sh;
                    } else if (lane == owner) {
                        unsigned long long m = pos == 7 ? ~0ull : (1ull << (8 * pos + 8)) - 1ull;
                        v = (sh & m) | (v & ~m);
                    }
                }
                if (lane == j) myrank = r;
            }
            q[i0 + lane] = (unsigned char)myrank;
            atomicAdd(&s_hist[myrank], 1u);
        }
    }
    __syncthreads();
    int nb = min(nchunks - (int)blockIdx.x * MTF_WARPS, MTF_WARPS) * chunk;
    float part = 0.0f;
    for (int k = tid; k < 256; k += blockDim.x) {
        unsigned int h = s_hist[k];
        if (h > 0u) {
            part += (float)h * log2f((float)nb / (float)h);
            atomicAdd(&ghist[k], h);
        }
    }
    for (int o = 16; o > 0; o >>= 1) part += __shfl_down_sync(FULL_MASK, part, o);
    if (lane == 0) s_part[wid] = part;
    __syncthreads();
    if (tid == 0) {
        float sum = 0.0f;
        for (int w = 0; w < MTF_WARPS; w++) sum += s_part[w];
        blk_bits[blockIdx.x] = sum;
    }
}

// ---------------------------------------------------------------- huff_encode_block

// in: n bytes (n a multiple of HUF_ITEMS); block k's HUF_SYMS bytes Huffman coded from
// c_huf, MSB-first, into out[k * HUF_CAPW ...]: its ceil(bits / 32) words (the last
// zero-padded), blk_bits[k] = bits
__global__ void huff_encode_block(const unsigned char *in, int n, unsigned int *out, unsigned int *blk_bits) {
    __shared__ unsigned int s_buf[HUF_CAPW];
    __shared__ int s_warp[HUF_BLOCK / 32];
    int tid = threadIdx.x;
    for (int k = tid; k < HUF_CAPW; k += HUF_BLOCK) s_buf[k] = 0u;
    size_t g = (size_t)blockIdx.x * HUF_BLOCK + tid;
    unsigned int sym[HUF_ITEMS];
    int mybits = 0;
    if ((g + 1) * HUF_ITEMS <= (size_t)n) {
        uint2 pk = reinterpret_cast<const uint2 *>(in)[g];
#pragma unroll
        for (int k = 0; k < HUF_ITEMS; k++) {
            unsigned int wd = k < 4 ? pk.x : pk.y;
            sym[k] = (wd >> (8 * (k & 3))) & 0xffu;
            mybits += c_huf[sym[k]].len;
        }
    } else {
#pragma unroll
        for (int k = 0; k < HUF_ITEMS; k++) sym[k] = 256u;
    }
    int total;
    int pos = block_exclusive_scan<HUF_BLOCK / 32>(mybits, s_warp, &total);
#pragma unroll
    for (int k = 0; k < HUF_ITEMS; k++) {
        if (sym[k] < 256u) {
            HufCode hc = c_huf[sym[k]];
            int len = hc.len;
            unsigned int code = hc.code;
            int wd = pos >> 5, sh = pos & 31;
            if (sh + len <= 32) {
                atomicOr(&s_buf[wd], code << (32 - sh - len));
            } else {
                int spill = sh + len - 32;
                atomicOr(&s_buf[wd], code >> spill);
                atomicOr(&s_buf[wd + 1], code << (32 - spill));
            }
            pos += len;
        }
    }
    __syncthreads();
    int nw = (total + 31) >> 5;
    unsigned int *dst = out + (size_t)blockIdx.x * HUF_CAPW;
    for (int k = tid; k < nw; k += HUF_BLOCK) dst[k] = s_buf[k];
    if (tid == 0) blk_bits[blockIdx.x] = (unsigned int)total;
}

// ---------------------------------------------------------------- gorilla_xor_encode

// vals: npts points (time-major: vals[t * nseries + s]) of nseries float64 series; series s
// Gorilla-coded into out[s * cap ...] (64-bit words, MSB-first, the last zero-padded):
// the first value's 64 bits, then for each point its XOR x with the one before: '0' if
// x == 0; '10' and the bits of x inside the previous window if its leading zeros (capped
// at 31) and trailing zeros cover it; else '11', 5 bits of leading zeros, 6 of the
// meaningful length (64 as 0) and the meaningful bits; nbits[s] = the series' bits
__global__ void gorilla_xor_encode(const double *vals, int nseries, int npts, unsigned long long *out, int cap,
                                   unsigned int *nbits) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nseries) return;
    unsigned long long *dst = out + (size_t)s * cap;
    BitWriter w;
    w.acc = 0ull;
    w.fill = 0;
    w.nw = 0;
    unsigned long long prev = (unsigned long long)__double_as_longlong(vals[s]);
    bw_put(&w, dst, prev, 64);
    int plz = -1, ptz = 0;
    unsigned int bits = 64;
    for (int t = 1; t < npts; t++) {
        unsigned long long v = (unsigned long long)__double_as_longlong(vals[(size_t)t * nseries + s]);
        unsigned long long x = v ^ prev;
        prev = v;
        // the control bits (and a new window's lengths), then the meaningful bits
        unsigned long long hv = 0ull, pv = 0ull;
        int hb = 1, pb = 0;
        if (x != 0ull) {
            int lz = __clzll((long long)x);
            int tz = __ffsll((long long)x) - 1;
            if (lz > 31) lz = 31;
            if (plz >= 0 && lz >= plz && tz >= ptz) {
                hv = 2ull;
                hb = 2;
                pv = x >> ptz;
                pb = 64 - plz - ptz;
            } else {
                int mb = 64 - lz - tz;
                hv = (3ull << 11) | ((unsigned long long)lz << 6) | (unsigned long long)(mb & 63);
                hb = 13;
                pv = x >> tz;
                pb = mb;
                plz = lz;
                ptz = tz;
            }
        }
        bw_put(&w, dst, hv, hb);
        bw_put(&w, dst, pv, pb);
        bits += hb + pb;
    }
    if (w.fill > 0) dst[w.nw] = w.acc << (64 - w.fill);
    nbits[s] = bits;
}

// ---------------------------------------------------------------- pfor_pack_frames

// gaps: nframes frames of PF_FRAME values; frame f (a warp): b the width of least cost
// PF_FRAME b + PF_EXC_BITS (values >= 2^b), the values' low b bits packed LSB-first into
// packed[f * PF_FRAME ...] (4 b words); each exception's high bits (v >> b) and index in the
// frame at exc_val / exc_pos[hdr[f].exc_off ...] in index order, the frames' exception runs
// placed by atomicAdd on *exc_count
__global__ void pfor_pack_frames(const unsigned int *gaps, int nframes, unsigned int *packed, PforHeader *hdr,
                                 unsigned int *exc_val, unsigned char *exc_pos, unsigned int *exc_count) {
    __shared__ unsigned int s_pack[PF_WARPS][PF_FRAME];
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    int f = blockIdx.x * PF_WARPS + wid;
    if (f >= nframes) return;
    uint4 v4 = reinterpret_cast<const uint4 *>(gaps)[(size_t)f * 32 + lane];
    unsigned int e[4] = {v4.x, v4.y, v4.z, v4.w};
    int wmax = 0;
#pragma unroll
    for (int k = 0; k < 4; k++) wmax = max(wmax, 32 - __clz((int)e[k]));
    for (int o = 16; o > 0; o >>= 1) wmax = max(wmax, __shfl_xor_sync(FULL_MASK, wmax, o));
    int b = wmax, cost = PF_FRAME * wmax;
    for (int bb = 0; bb < wmax; bb++) {
        int over = 0;
#pragma unroll
        for (int k = 0; k < 4; k++) over += __popc(__ballot_sync(FULL_MASK, (e[k] >> bb) != 0u));
        int cst = PF_FRAME * bb + over * PF_EXC_BITS;
        if (cst < cost) {
            cost = cst;
            b = bb;
        }
    }
    for (int k = lane; k < PF_FRAME; k += 32) s_pack[wid][k] = 0u;
    __syncwarp();
    if (b > 0) {
        unsigned int mask = b == 32 ? 0xffffffffu : (1u << b) - 1u;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            unsigned int lo = e[k] & mask;
            int bit = (lane * 4 + k) * b;
            int wd = bit >> 5, sh = bit & 31;
            atomicOr(&s_pack[wid][wd], lo << sh);
            if (sh + b > 32) atomicOr(&s_pack[wid][wd + 1], lo >> (32 - sh));
        }
    }
    __syncwarp();
    for (int k = lane; k < 4 * b; k += 32) packed[(size_t)f * PF_FRAME + k] = s_pack[wid][k];
    int mine = 0;
    if (b < 32) {
#pragma unroll
        for (int k = 0; k < 4; k++) mine += (e[k] >> b) != 0u ? 1 : 0;
    }
    int incl = mine;
    for (int o = 1; o < 32; o <<= 1) {
        int y = __shfl_up_sync(FULL_MASK, incl, o);
        if (lane >= o) incl += y;
    }
    int tot = __shfl_sync(FULL_MASK, incl, 31);
    unsigned int base = 0u;
    if (lane == 0 && tot > 0) base = atomicAdd(exc_count, (unsigned int)tot);
    base = __shfl_sync(FULL_MASK, base, 0);
    if (mine > 0) {
        unsigned int o = base + (unsigned int)(incl - mine);
#pragma unroll
        for (int k = 0; k < 4; k++) {
            if ((e[k] >> b) != 0u) {
                exc_val[o] = e[k] >> b;
                exc_pos[o] = (unsigned char)(lane * 4 + k);
                o++;
            }
        }
    }
    if (lane == 0) {
        PforHeader h;
        h.b = (unsigned char)b;
        h.nexc = (unsigned char)tot;
        h.pad = 0;
        h.exc_off = base;
        hdr[f] = h;
    }
}

}  // extern "C"
