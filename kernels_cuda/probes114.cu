// probe-unseen112: an operating-systems / systems-programming course's CUDA assignments
// (parallel runtime data structures of a kernel's memory manager and storage stack), as a
// student who knows CUDA basics hands them in:
//  - frame_alloc_bitmap: a bitmap page-frame allocator, a thread a request: it hashes
//    its id to a start word of the free bitmap (bit set = frame in use), then scans
//    words forward (at most PA_MAX_PROBE) for a clear bit, claiming the lowest one by
//    atomicOr and retrying within the word when another thread got there first;
//  - freelist_move: per-CPU lock-free free lists (Treiber stacks of node indices), a
//    block one CPU: each thread pops a node from its CPU's free list with an atomicCAS
//    loop on the head and pushes it on the CPU's in-use list with another CAS loop;
//  - cdc_rabin_cuts: content-defined chunking for deduplication, a thread a CDC_SEG-byte
//    segment: a Rabin-Karp rolling hash (base RK_BASE mod RK_PRIME, 64-bit arithmetic)
//    over a CDC_WIN-byte window (warmed up on the bytes before the segment), a candidate
//    cut after every byte whose hash has its low bits (mask) zero, appended to a global
//    list by atomicAdd (the host sorts them and applies min/max chunk sizes);
//  - adler32_pages: the Adler-32 checksum of every 4 KiB page of a memory image, a block
//    a page: each thread's byte sums and position-weighted sums of 4 words (coalesced),
//    a shared-memory tree reduction of both, thread 0 taking them mod 65521;
//  - pte_radix_count: the counting pass of an LSD radix sort of x86-64 page-table entries
//    by physical frame number (8-bit digit at `shift`), present entries only: each block
//    a tile of PTE_PER_THREAD entries a thread, counted in a shared histogram by shared
//    atomicAdd, the block's histogram stored digit-major for the scan that follows;
//  - clock_age_sweep: one sweep of an aging (clock) page-replacement policy over the frame
//    table (an array of 16-byte Frame structs), a thread a frame: free and pinned frames
//    skipped, the age byte shifted right with the reference bit brought in at the top,
//    the reference bit cleared; frames not referenced for 8 sweeps become victims (clean:
//    the evict list, dirty: the write-back list; mapped more than once: kept), appended
//    with warp-aggregated atomics (__ballot_sync, __popc, __shfl_sync).

#define PA_MAX_PROBE 64       // frame_alloc_bitmap: bitmap words scanned before giving up
#define CDC_SEG 256           // cdc_rabin_cuts: bytes a thread
#define CDC_WIN 48            // cdc_rabin_cuts: the rolling hash's window (bytes)
#define RK_BASE 257ull        // cdc_rabin_cuts: the polynomial's base
#define RK_PRIME 1000000007ull  // cdc_rabin_cuts: the modulus
#define ADLER_PAGE 4096       // adler32_pages: bytes a page (a block a page)
#define ADLER_BLOCK 256       // adler32_pages: threads a block
#define ADLER_MOD 65521u
#define PTE_RADIX 256         // pte_radix_count: buckets (8-bit digits)
#define PTE_PER_THREAD 16     // pte_radix_count: entries a thread (a block's tile: 16 x blockDim)
#define PTE_PRESENT 1ull
#define PTE_PFN_MASK 0x000ffffffffff000ull

// frame flags (clock_age_sweep)
#define F_REF 1u
#define F_DIRTY 2u
#define F_PINNED 4u
#define F_FREE 8u

extern "C" {

// a frame-table entry: 16 bytes
struct Frame {
    unsigned int flags;     // F_REF | F_DIRTY | F_PINNED | F_FREE
    unsigned int age;       // 8-bit aging counter (reference history, newest at bit 7)
    int owner;              // the owning process (unused by the sweep)
    int mapcount;           // page-table entries mapping the frame
};

// a 32-bit integer hash (lowbias32)
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// n frame requests against a bitmap of nwords 32-bit words (bit b of word w: frame 32 w +
// b, set when in use); request i starts at word hash32(seed + i) % nwords, takes the lowest
// clear bit of the first word with one (atomicOr, retrying in the word if the bit was
// taken meanwhile), scanning at most PA_MAX_PROBE words (wrapping); its frame, or -1
__global__ void frame_alloc_bitmap(unsigned int *bitmap, int nwords, int *frame_out, unsigned int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int w = hash32(seed + (unsigned int)i) % (unsigned int)nwords;
    int got = -1;
    for (int p = 0; p < PA_MAX_PROBE && got < 0; p++) {
        unsigned int word = bitmap[w];
        while (word != 0xffffffffu) {
            int bit = __ffs(~word) - 1;
            unsigned int m = 1u << bit;
            unsigned int old = atomicOr(&bitmap[w], m);
            if ((old & m) == 0) {
                got = w * 32 + bit;
                break;
            }
            word = old;                 // someone took it: look again at what is free now
        }
        w++;
        if (w == nwords) w = 0;
    }
    frame_out[i] = got;
}

// per-CPU free lists, a block a CPU (list blockIdx.x): each thread pops a node from
// free_head[cpu] (links in free_next, -1 ends a list) with an atomicCAS loop and pushes it
// on used_head[cpu] (links in used_next); the node (or -1 if the list ran dry) in got[i]
__global__ void freelist_move(int *free_head, const int *free_next, int *used_head, int *used_next, int *got,
                              int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int cpu = blockIdx.x;
    // pop
    int old = free_head[cpu];
    while (old != -1) {
        int nx = free_next[old];
        int prev = atomicCAS(&free_head[cpu], old, nx);
        if (prev == old) break;
        old = prev;
    }
    got[i] = old;
    if (old == -1) return;
    // push
    int h = used_head[cpu];
    while (true) {
        used_next[old] = h;
        int prev = atomicCAS(&used_head[cpu], h, old);
        if (prev == h) break;
        h = prev;
    }
}

// candidate chunk boundaries of n bytes: thread t covers bytes [t CDC_SEG, (t + 1)
// CDC_SEG); the Rabin-Karp hash of the CDC_WIN bytes ending at j (fewer at the start of
// the data), H = sum d[j - k] RK_BASE^k mod RK_PRIME, rolled a byte at a time (pw =
// RK_BASE^(CDC_WIN - 1) mod RK_PRIME, from the host); a cut after byte j (position j + 1)
// when (H & mask) == 0, appended to cuts (at most max_cuts stored, all counted)
__global__ void cdc_rabin_cuts(const unsigned char *data, unsigned int mask, unsigned long long pw, int *cuts,
                               int *ncuts, int max_cuts, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int start = t * CDC_SEG;
    if (start >= n) return;
    int end = min(start + CDC_SEG, n);
    int j0 = max(start - (CDC_WIN - 1), 0);
    unsigned long long h = 0;
    for (int j = j0; j < end; j++) {
        if (j - CDC_WIN >= j0) {
            unsigned long long out = data[j - CDC_WIN];
            h = (h + RK_PRIME - (out * pw) % RK_PRIME) % RK_PRIME;
        }
        h = (h * RK_BASE + data[j]) % RK_PRIME;
        if (j >= start && (h & mask) == 0) {
            int slot = atomicAdd(ncuts, 1);
            if (slot < max_cuts) cuts[slot] = j + 1;
        }
    }
}

// the Adler-32 of each of npages ADLER_PAGE-byte pages (mem as little-endian words), a
// block of ADLER_BLOCK threads a page: A = 1 + sum d, B = ADLER_PAGE + sum (ADLER_PAGE - p)
// d_p, both mod 65521 (the sums fit 32 bits before the mod); (B << 16) | A stored
__global__ void adler32_pages(const unsigned int *mem, unsigned int *sums, int npages) {
    __shared__ unsigned int s_a[ADLER_BLOCK];
    __shared__ unsigned int s_b[ADLER_BLOCK];
    int page = blockIdx.x;
    int t = threadIdx.x;
    const unsigned int *p = mem + (size_t)page * (ADLER_PAGE / 4);
    unsigned int a = 0;
    unsigned int b = 0;
    for (int k = t; k < ADLER_PAGE / 4; k += ADLER_BLOCK) {
        unsigned int w = p[k];
        for (int q = 0; q < 4; q++) {
            unsigned int d = (w >> (8 * q)) & 0xffu;
            a += d;
            b += (ADLER_PAGE - (4 * k + q)) * d;
        }
    }
    s_a[t] = a;
    s_b[t] = b;
    __syncthreads();
    for (int s = ADLER_BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) {
            s_a[t] += s_a[t + s];
            s_b[t] += s_b[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        unsigned int A = (1u + s_a[0]) % ADLER_MOD;
        unsigned int B = (ADLER_PAGE + s_b[0]) % ADLER_MOD;
        sums[page] = (B << 16) | A;
    }
}

// the digit counts of n page-table entries for one LSD radix pass: digit (pfn >> shift) &
// 255 of each present entry's frame number (bits 12..51); block b counts entries [b T,
// (b + 1) T), T = PTE_PER_THREAD blockDim.x, in a shared histogram and stores it at
// counts[d gridDim.x + b] (digit-major, ready for the exclusive scan)
__global__ void pte_radix_count(const unsigned long long *pte, unsigned int *counts, int shift, int n) {
    __shared__ unsigned int s_hist[PTE_RADIX];
    for (int k = threadIdx.x; k < PTE_RADIX; k += blockDim.x) s_hist[k] = 0;
    __syncthreads();
    int base = blockIdx.x * blockDim.x * PTE_PER_THREAD;
    for (int k = 0; k < PTE_PER_THREAD; k++) {
        int idx = base + k * blockDim.x + threadIdx.x;
        if (idx < n) {
            unsigned long long e = pte[idx];
            if (e & PTE_PRESENT) {
                unsigned long long pfn = (e & PTE_PFN_MASK) >> 12;
                unsigned int d = (unsigned int)(pfn >> shift) & (PTE_RADIX - 1);
                atomicAdd(&s_hist[d], 1u);
            }
        }
    }
    __syncthreads();
    for (int k = threadIdx.x; k < PTE_RADIX; k += blockDim.x) counts[k * gridDim.x + blockIdx.x] = s_hist[k];
}

// one aging sweep over n frames: for a frame neither free nor pinned, age = (age >> 1) |
// (referenced ? 0x80 : 0) and the reference bit cleared; a frame whose age becomes 0 and
// that is mapped at most once is a victim: clean ones appended to evict, dirty ones to
// wback (their frame numbers), a warp's victims taking consecutive slots by one atomicAdd
// on each counter (blockDim.x a multiple of 32)
__global__ void clock_age_sweep(Frame *frames, int *evict, int *n_evict, int *wback, int *n_wback, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    bool ev = false;
    bool wb = false;
    if (i < n) {
        unsigned int flags = frames[i].flags;
        if ((flags & (F_FREE | F_PINNED)) == 0) {
            unsigned int age = (frames[i].age >> 1) | ((flags & F_REF) ? 0x80u : 0u);
            flags &= ~F_REF;
            frames[i].flags = flags;
            frames[i].age = age;
            if (age == 0 && frames[i].mapcount <= 1) {
                if (flags & F_DIRTY)
                    wb = true;
                else
                    ev = true;
            }
        }
    }
    unsigned int me = __ballot_sync(0xffffffffu, ev);
    unsigned int mw = __ballot_sync(0xffffffffu, wb);
    int be = 0;
    int bw = 0;
    if (lane == 0) {
        if (me) be = atomicAdd(n_evict, __popc(me));
        if (mw) bw = atomicAdd(n_wback, __popc(mw));
    }
    be = __shfl_sync(0xffffffffu, be, 0);
    bw = __shfl_sync(0xffffffffu, bw, 0);
    unsigned int below = (1u << lane) - 1u;
    if (ev) evict[be + __popc(me & below)] = i;
    if (wb) wback[bw + __popc(mw & below)] = i;
}

}
