// probe-unseen61: a text-processing course's CUDA assignments (validating, tokenising,
// matching and compressing text and data files), as a student who knows CUDA basics hands
// them in: UTF-8 validation, a thread a 64-byte chunk, which first skips the continuation
// bytes at its chunk's start (checking that a lead byte up to 3 bytes before covers them),
// then decodes every sequence that starts in its chunk, reading past the chunk's end as
// needed, and writes 1 if all are well formed (no overlong forms, surrogates or code points
// past U+10FFFF), 0 if not; a DFA run over the lines of a text, a thread a line (found
// through a line-offsets array), the transition table (unsigned char [states][128], built on
// the host by subset construction from a regular expression) and the accepting flags copied
// into shared memory by the block, stopping at the first accepting state; the field starts
// of a CSV file (quotes ignored: a comma inside a quoted field counts), a warp a 256-byte
// segment, a lane a byte in 8 rounds, __ballot_sync of "the byte before is a comma or a
// newline", __popc for the count and the lanes' ranks, one atomicAdd a warp for its base in
// the output; a word count, a thread a byte flagging a non-space byte after a space (or at
// the start), a __shfl_down_sync reduction and one atomicAdd a warp into a global counter;
// the Levenshtein distance of pairs of short strings (up to 32 bytes each), a thread a pair,
// the classic two-row dynamic programme in two int[33] local arrays; and run-length
// encoding, a thread a byte: a run's first byte (it differs from the byte before) takes its
// run's index from the exclusive prefix of the run-start flags (computed on the host),
// scans forward to the run's end and writes the (value, length) pair.

#define UTF8_CHUNK 64          // utf8_validate: bytes a thread
#define DFA_MAX_STATES 32      // dfa_match_lines: the largest DFA the shared table holds
#define CSV_ROUNDS 8           // csv_field_starts: a warp's segment is 32 * 8 bytes
#define LEV_MAX 32             // levenshtein_short: the longest string, and each string's slot

extern "C" {

// UTF-8 validation of s[0 .. n - 1], thread c the chunk s[64 c .. 64 c + 63] (the last one
// shorter): ok[c] = 1 when the continuation bytes at the chunk's start (if any) are covered
// by the sequence of the lead byte before them (at most 3 bytes back) and every sequence
// whose lead byte lies in the chunk is a well-formed encoding, 0 otherwise
__global__ void utf8_validate(const unsigned char *s, int n, unsigned char *ok, int nchunks) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= nchunks) return;
    int start = c * UTF8_CHUNK;
    int end = min(start + UTF8_CHUNK, n);
    int p = start;
    while (p < end && (s[p] & 0xC0) == 0x80) p++;       // the tail of the chunk before's last sequence
    int good = 1;
    if (p > start) {
        int q = start - 1;
        while (q >= 0 && q > start - 4 && (s[q] & 0xC0) == 0x80) q--;
        if (q < 0 || q <= start - 4) {
            good = 0;                                   // no lead byte close enough
        } else {
            unsigned char b = s[q];
            int len = b >= 0xF0 ? 4 : (b >= 0xE0 ? 3 : (b >= 0xC0 ? 2 : 1));
            if (q + len < p) good = 0;                  // more continuation bytes than it takes
        }
    }
    while (good && p < end) {
        unsigned int b0 = s[p];
        if (b0 < 0x80) {
            p++;
            continue;
        }
        int len;
        unsigned int cp, lo;
        if ((b0 & 0xE0) == 0xC0) {
            len = 2; cp = b0 & 0x1F; lo = 0x80;
        } else if ((b0 & 0xF0) == 0xE0) {
            len = 3; cp = b0 & 0x0F; lo = 0x800;
        } else if ((b0 & 0xF8) == 0xF0) {
            len = 4; cp = b0 & 0x07; lo = 0x10000;
        } else {
            good = 0;                                   // a stray continuation byte or 0xF8 .. 0xFF
            break;
        }
        if (p + len > n) {
            good = 0;                                   // cut off by the end of the text
            break;
        }
        for (int k = 1; k < len; k++) {
            unsigned int b = s[p + k];
            if ((b & 0xC0) != 0x80) {
                good = 0;
                break;
            }
            cp = (cp << 6) | (b & 0x3F);
        }
        if (!good) break;
        if (cp < lo || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            good = 0;                                   // overlong, past U+10FFFF, or a surrogate
            break;
        }
        p += len;
    }
    ok[c] = good;
}

// DFA matching, thread i the line text[line_off[i] .. line_off[i + 1] - 2] (the '\n' at
// line_off[i + 1] - 1 left out): from state 0, state = delta[state][byte & 127] a byte,
// match[i] = 1 as soon as an accepting state is reached (accepting states are absorbing),
// 0 if none is by the line's end
__global__ void dfa_match_lines(const unsigned char *text, const int *line_off, int nlines,
                                const unsigned char *delta, const unsigned char *accept, int nstates,
                                unsigned char *match) {
    __shared__ unsigned char s_delta[DFA_MAX_STATES * 128];
    __shared__ unsigned char s_acc[DFA_MAX_STATES];
    for (int t = threadIdx.x; t < nstates * 128; t += blockDim.x) s_delta[t] = delta[t];
    for (int t = threadIdx.x; t < nstates; t += blockDim.x) s_acc[t] = accept[t];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nlines) return;
    int beg = line_off[i];
    int end = line_off[i + 1] - 1;
    int state = 0;
    unsigned char m = s_acc[0];
    for (int p = beg; p < end && !m; p++) {
        state = s_delta[state * 128 + (text[p] & 0x7F)];
        m = s_acc[state];
    }
    match[i] = m;
}

// CSV field starts: byte p starts a field when p == 0 or byte p - 1 is ',' or '\n' (quotes
// are not looked at).  Warp w takes bytes 256 w .. 256 w + 255, lane l byte 256 w + 32 r + l
// in round r; one atomicAdd on count reserves the warp's places in starts, where its field
// starts go in increasing order (the warps' blocks of places in any order)
__global__ void csv_field_starts(const unsigned char *s, int n, int *starts, int *count) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    int seg = warp * 32 * CSV_ROUNDS;
    if (seg >= n) return;                               // whole warps past the end
    unsigned int masks[CSV_ROUNDS];
    int total = 0;
    for (int r = 0; r < CSV_ROUNDS; r++) {
        int p = seg + r * 32 + lane;
        int flag = 0;
        if (p < n) flag = (p == 0) || s[p - 1] == ',' || s[p - 1] == '\n';
        masks[r] = __ballot_sync(0xffffffffu, flag);
        total += __popc(masks[r]);
    }
    int base = 0;
    if (lane == 0) base = atomicAdd(count, total);
    base = __shfl_sync(0xffffffffu, base, 0);
    unsigned int below = (1u << lane) - 1;
    for (int r = 0; r < CSV_ROUNDS; r++) {
        if (masks[r] & (1u << lane))
            starts[base + __popc(masks[r] & below)] = seg + r * 32 + lane;
        base += __popc(masks[r]);
    }
}

// word count: a word is a maximal run of bytes other than ' ', '\t', '\n', '\v', '\f' and
// '\r'; thread i counts 1 when byte i starts one, the warp sums by shuffles and lane 0 adds
// the sum to *count
__global__ void word_count_warp(const unsigned char *s, int n, unsigned int *count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = 0;
    if (i < n) {
        unsigned char c = s[i];
        int sp = (c == ' ') || (c >= 9 && c <= 13);
        int prev_sp = 1;
        if (i > 0) {
            unsigned char d = s[i - 1];
            prev_sp = (d == ' ') || (d >= 9 && d <= 13);
        }
        v = (!sp && prev_sp) ? 1 : 0;
    }
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(count, (unsigned int)v);
}

// Levenshtein distance of pair i: a[32 i ..] (alen[i] bytes) and b[32 i ..] (blen[i]
// bytes), unit costs for insertion, deletion and substitution, by rows of the DP table
__global__ void levenshtein_short(const unsigned char *a, const int *alen, const unsigned char *b,
                                  const int *blen, int *dist, int npairs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npairs) return;
    const unsigned char *x = a + i * LEV_MAX;
    const unsigned char *y = b + i * LEV_MAX;
    int m = alen[i];
    int n = blen[i];
    int prev[LEV_MAX + 1];
    int cur[LEV_MAX + 1];
    for (int j = 0; j <= n; j++) prev[j] = j;
    for (int k = 1; k <= m; k++) {
        cur[0] = k;
        unsigned char c = x[k - 1];
        for (int j = 1; j <= n; j++) {
            int cost = (c == y[j - 1]) ? 0 : 1;
            cur[j] = min(min(prev[j] + 1, cur[j - 1] + 1), prev[j - 1] + cost);
        }
        for (int j = 0; j <= n; j++) prev[j] = cur[j];
    }
    dist[i] = prev[n];
}

// run-length encoding of s[0 .. n - 1]: a run starts at i when i == 0 or s[i] != s[i - 1];
// run_idx is the exclusive prefix sum of those flags, so a start's run is run_idx[i];
// vals[r] = its byte, lens[r] = its length (found by scanning to the next different byte)
__global__ void rle_encode_runs(const unsigned char *s, const int *run_idx, int n,
                                unsigned char *vals, int *lens) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned char v = s[i];
    if (i > 0 && s[i - 1] == v) return;                 // inside a run
    int j = i + 1;
    while (j < n && s[j] == v) j++;
    int r = run_idx[i];
    vals[r] = v;
    lens[r] = j - i;
}

}
