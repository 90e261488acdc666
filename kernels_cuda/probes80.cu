// probe-unseen78: a data-compression course's CUDA assignments, as a student who knows
// CUDA basics hands them in:
//   for_unpack          frame-of-reference decoding: frames of FOR_FRAME ints stored as
//                       width[f]-bit offsets from base[f], bit-packed LSB-first from word
//                       word_off[f]; a thread a value reads the one or two words its bits
//                       lie in, shifts, masks and adds the frame's base.
//   delta_zigzag        delta + zigzag encoding of an int time series: a block stages its
//                       256 values and the one before them in shared memory, stores
//                       zigzag(x[i] - x[i-1]) and sums the LEB128 varint bytes those take
//                       (warp shuffles, the warps' sums in shared, one 64-bit atomicAdd a
//                       block) to size the output buffer.
//   rle_block_compact   run-length encoding of a byte stream, scan-less: a block a 256-byte
//                       piece, run heads flagged against the previous byte in shared
//                       memory, each head's slot from __ballot_sync / __popc within its
//                       warp plus the warps' counts (a serial scan by thread 0), the runs
//                       (symbol, length) written into the block's own 256 slots and the
//                       block's run count stored (a later pass would concatenate them).
//   huff_canonical_decode
//                       canonical Huffman decoding (deflate-style, codes up to HUF_MAXLEN
//                       bits, MSB-first): the stream cut into chunks of HUF_CHUNK symbols
//                       whose starting bit offsets the encoder kept, a thread a chunk, the
//                       code-length counts and the sorted symbols staged in shared memory,
//                       each symbol decoded bit by bit (puff's loop: a global word load a
//                       bit, compare against the first code of each length).
//   lz77_window_match   LZ77's longest-match search: a block LZ_TILE positions, the
//                       LZ_WIN bytes before them, the tile and LZ_MAXM bytes after it staged
//                       in shared memory; a thread a position compares against every
//                       distance 1 .. LZ_WIN (byte by byte, stopping at LZ_MAXM), keeping
//                       the longest (the nearest on a tie) and storing (len << 16 | dist),
//                       or 0 for a match shorter than LZ_MINM (a literal).
//   byte_entropy        byte-frequency counting for entropy estimation: a block a chunk of
//                       the file read as 32-bit words, the 4 bytes of each counted into a
//                       256-bin shared histogram by shared atomicAdd, the bins added to the
//                       file's global frequencies and the chunk's order-0 entropy (bits a
//                       byte, -sum p log2 p) summed by a shared tree reduction.

#define FOR_FRAME 128         // for_unpack: values a frame
#define DZ_BLOCK 256          // delta_zigzag: blockDim.x
#define RLE_BLOCK 256         // rle_block_compact: blockDim.x, bytes a block
#define HUF_MAXLEN 15         // huff_canonical_decode: the longest code (blockDim.x > HUF_MAXLEN)
#define HUF_CHUNK 16          // huff_canonical_decode: symbols a chunk (a thread)
#define LZ_TILE 128           // lz77_window_match: blockDim.x, positions a block
#define LZ_WIN 256            // lz77_window_match: the window (the farthest distance)
#define LZ_MAXM 32            // lz77_window_match: the longest match
#define LZ_MINM 3             // lz77_window_match: the shortest match worth coding
#define ENT_BLOCK 256         // byte_entropy: blockDim.x (a thread a bin)

extern "C" {

// frame-of-reference unpacking of n values (frame f = i / FOR_FRAME: width[f] bits, 1..32)
__global__ void for_unpack(const unsigned int *packed, const int *base, const int *width, const int *word_off,
                           int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int f = i / FOR_FRAME;
    int j = i % FOR_FRAME;
    int w = width[f];
    unsigned int bit = (unsigned int)j * w;
    int word = word_off[f] + (bit >> 5);
    int sh = bit & 31;
    unsigned int v = packed[word] >> sh;
    if (sh + w > 32) v |= packed[word + 1] << (32 - sh);
    unsigned int mask = (w == 32) ? 0xffffffffu : ((1u << w) - 1u);
    out[i] = base[f] + (int)(v & mask);
}

// zz[i] = zigzag(x[i] - x[i-1]) (x[-1] taken as 0); *total_bytes += the varint bytes of all
__global__ void delta_zigzag(const int *x, unsigned int *zz, unsigned long long *total_bytes, int n) {
    __shared__ int s_x[DZ_BLOCK + 1];
    __shared__ unsigned int s_warp[DZ_BLOCK / 32];
    int t = threadIdx.x;
    int i = blockIdx.x * DZ_BLOCK + t;
    if (i < n) s_x[t + 1] = x[i];
    if (t == 0) s_x[0] = (i > 0 && i < n) ? x[i - 1] : 0;
    __syncthreads();

    unsigned int bytes = 0;
    if (i < n) {
        int d = s_x[t + 1] - s_x[t];
        unsigned int z = ((unsigned int)d << 1) ^ (unsigned int)(d >> 31);
        zz[i] = z;
        int bits = 32 - __clz(z | 1u);
        bytes = (bits + 6) / 7;
    }
    for (int o = 16; o > 0; o >>= 1) bytes += __shfl_down_sync(0xffffffff, bytes, o);
    if ((t & 31) == 0) s_warp[t >> 5] = bytes;
    __syncthreads();
    if (t == 0) {
        unsigned int sum = 0;
        for (int w = 0; w < DZ_BLOCK / 32; w++) sum += s_warp[w];
        atomicAdd(total_bytes, (unsigned long long)sum);
    }
}

// RLE of n bytes, a block a RLE_BLOCK-byte piece (runs cut at the pieces' edges): the
// block's k-th run at slot blockIdx.x * RLE_BLOCK + k of run_sym / run_len, its count in
// block_runs[blockIdx.x]
__global__ void rle_block_compact(const unsigned char *in, unsigned char *run_sym, unsigned short *run_len,
                                  int *block_runs, int n) {
    __shared__ unsigned char s_in[RLE_BLOCK];
    __shared__ int s_warp[RLE_BLOCK / 32];
    __shared__ int s_start[RLE_BLOCK + 1];
    int t = threadIdx.x;
    int lane = t & 31;
    int warp = t >> 5;
    int base = blockIdx.x * RLE_BLOCK;
    int i = base + t;
    int m = min(RLE_BLOCK, n - base);             // bytes in this piece
    if (i < n) s_in[t] = in[i];
    __syncthreads();

    bool head = (t < m) && (t == 0 || s_in[t] != s_in[t - 1]);
    unsigned int ballot = __ballot_sync(0xffffffff, head);
    if (lane == 0) s_warp[warp] = __popc(ballot);
    __syncthreads();
    if (t == 0) {                                  // the warps' offsets, serially
        int sum = 0;
        for (int w = 0; w < RLE_BLOCK / 32; w++) {
            int c = s_warp[w];
            s_warp[w] = sum;
            sum += c;
        }
        s_start[sum] = m;                          // the end of the last run
        block_runs[blockIdx.x] = sum;
    }
    __syncthreads();
    int k = s_warp[warp] + __popc(ballot & ((1u << lane) - 1u));
    if (head) s_start[k] = t;
    __syncthreads();
    if (head) {
        run_sym[base + k] = s_in[t];
        run_len[base + k] = (unsigned short)(s_start[k + 1] - t);
    }
}

// canonical Huffman decoding of n_chunks chunks of HUF_CHUNK symbols: count[len] codes of
// each length (count[0] unused), sorted_sym the symbols in code order, chunk c's first bit
// at chunk_start[c] of the MSB-first stream
__global__ void huff_canonical_decode(const unsigned int *bits, const int *chunk_start, const int *count,
                                      const unsigned char *sorted_sym, unsigned char *out, int n_chunks) {
    __shared__ int s_count[HUF_MAXLEN + 1];
    __shared__ unsigned char s_sym[256];
    int t = threadIdx.x;
    if (t <= HUF_MAXLEN) s_count[t] = count[t];
    for (int k = t; k < 256; k += blockDim.x) s_sym[k] = sorted_sym[k];
    __syncthreads();

    int c = blockIdx.x * blockDim.x + t;
    if (c >= n_chunks) return;
    unsigned int pos = chunk_start[c];
    for (int k = 0; k < HUF_CHUNK; k++) {
        int code = 0;
        int first = 0;
        int index = 0;
        int sym = 0;
        for (int len = 1; len <= HUF_MAXLEN; len++) {
            unsigned int b = (bits[pos >> 5] >> (31 - (pos & 31))) & 1u;
            pos++;
            code |= b;
            int cnt = s_count[len];
            if (code - first < cnt) {
                sym = s_sym[index + (code - first)];
                break;
            }
            index += cnt;
            first += cnt;
            first <<= 1;
            code <<= 1;
        }
        out[c * HUF_CHUNK + k] = (unsigned char)sym;
    }
}

// the longest match (at most LZ_MAXM bytes, within LZ_WIN bytes back, overlapping allowed)
// at each of n positions of text: match[p] = len << 16 | dist, 0 where len < LZ_MINM
__global__ void lz77_window_match(const unsigned char *text, int *match, int n) {
    __shared__ unsigned char s[LZ_WIN + LZ_TILE + LZ_MAXM];
    int t = threadIdx.x;
    int base = blockIdx.x * LZ_TILE;
    for (int k = t; k < LZ_WIN + LZ_TILE + LZ_MAXM; k += LZ_TILE) {
        int g = base - LZ_WIN + k;
        s[k] = (g >= 0 && g < n) ? text[g] : 0;
    }
    __syncthreads();

    int p = base + t;
    if (p >= n) return;
    int cur = LZ_WIN + t;
    int maxm = min(LZ_MAXM, n - p);
    int best_len = 0;
    int best_dist = 0;
    for (int d = 1; d <= LZ_WIN && d <= p; d++) {
        int len = 0;
        while (len < maxm && s[cur - d + len] == s[cur + len]) len++;
        if (len > best_len) {
            best_len = len;
            best_dist = d;
            if (len == maxm) break;                // can't do better
        }
    }
    if (best_len < LZ_MINM) {
        best_len = 0;
        best_dist = 0;
    }
    match[p] = (best_len << 16) | best_dist;
}

// per chunk of chunk_words 32-bit words (a block each): its byte histogram added to
// freq[256], its order-0 entropy in bits a byte in entropy[blockIdx.x]
__global__ void byte_entropy(const unsigned int *data, unsigned int *freq, float *entropy, int chunk_words) {
    __shared__ unsigned int s_hist[256];
    __shared__ float s_h[ENT_BLOCK];
    int t = threadIdx.x;
    s_hist[t] = 0;
    __syncthreads();

    const unsigned int *p = data + (size_t)blockIdx.x * chunk_words;
    for (int k = t; k < chunk_words; k += ENT_BLOCK) {
        unsigned int w = p[k];
        atomicAdd(&s_hist[w & 0xff], 1u);
        atomicAdd(&s_hist[(w >> 8) & 0xff], 1u);
        atomicAdd(&s_hist[(w >> 16) & 0xff], 1u);
        atomicAdd(&s_hist[w >> 24], 1u);
    }
    __syncthreads();

    unsigned int c = s_hist[t];
    if (c > 0) atomicAdd(&freq[t], c);
    float pr = (float)c / (float)(chunk_words * 4);
    s_h[t] = (c > 0) ? -pr * log2f(pr) : 0.0f;
    __syncthreads();
    for (int s = ENT_BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) s_h[t] += s_h[t + s];
        __syncthreads();
    }
    if (t == 0) entropy[blockIdx.x] = s_h[0];
}

}
