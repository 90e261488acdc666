// probe-unseen106: a computer-architecture course's CUDA assignments (simulating hardware
// in software), as a student who knows CUDA basics hands them in:
//
// cache_sim_lru   a 16-set, 4-way, 64-byte-line write-back cache with LRU replacement,
//                 a thread a memory trace (the traces row-major, len words each; bit 0 of
//                 an address marks a write): the tags, last-use times and dirty bits in
//                 per-thread arrays; hits, misses and writebacks counted per trace.
// gshare_train    gshare branch predictors trained over branch traces, a thread a trace
//                 (records interleaved: record k of trace t at k * n + t, the PC with bit
//                 0 the outcome): each thread's 512 two-bit counters in its own row of a
//                 shared-memory table, 9 bits of global history XORed with the PC; the
//                 mispredictions and the final history stored.
// reuse_hist      a histogram of reuse times over one trace of cache-line addresses, a
//                 thread an access: the block's 256 accesses and the 256 before them
//                 staged in shared memory, each thread scanning back for the last access
//                 to its line (at most RD_WIN back), the distance's ceil(log2) binned by
//                 shared-memory atomics, the block's bins added to the global histogram.
// tlb_translate   a batch of virtual-to-physical translations: a 64-set, 4-way TLB
//                 staged in shared memory; a miss walks a two-level page table in global
//                 memory (directory, then the page table); the physical address and the
//                 outcome (0 hit, 1 walk, 2 page fault) stored per address.
// instr_mix       the instruction mix of a decoded RV32IM trace: each word's opcode (and
//                 funct7 for OP) classified by a switch, counted per class and per
//                 destination register by shared-memory atomics in a grid-stride loop,
//                 then added to global counters by one atomicAdd a bin a block.
// scoreboard_sim  a design-space sweep of an in-order scoreboarded pipeline: a thread a
//                 configuration (its latencies, the load-miss and branch-mispredict
//                 penalties), all threads running the same program of len instructions;
//                 register ready times in a per-thread array, an unpipelined divider;
//                 total cycles and stall cycles stored.

#define CS_SETS 16            // cache_sim_lru: sets
#define CS_WAYS 4             // cache_sim_lru: ways a set
#define CS_LINE_BITS 6        // cache_sim_lru: 64-byte lines

#define GS_BITS 9             // gshare_train: history bits (and the table's index bits)
#define GS_PHT (1 << GS_BITS) // gshare_train: counters a predictor
#define GS_BLOCK 64           // gshare_train: threads a block (blockDim.x == GS_BLOCK)

#define RD_BLOCK 256          // reuse_hist: threads a block (blockDim.x == RD_BLOCK)
#define RD_WIN 256            // reuse_hist: how far back a thread looks
#define RD_BINS 10            // reuse_hist: bins 0..8 ceil(log2 d) for d = 1..256, bin 9 no reuse in the window

#define TLB_SETS 64           // tlb_translate: TLB sets
#define TLB_WAYS 4            // tlb_translate: ways a set
#define PAGE_BITS 12          // tlb_translate: 4 KiB pages
#define PT_BITS 10            // tlb_translate: a page table maps 2^10 pages (the directory's 2^10 entries the rest)

#define IM_CLASSES 12         // instr_mix: instruction classes

#define SB_REGS 32            // scoreboard_sim: architectural registers
#define SB_OPS 8              // scoreboard_sim: op classes (a configuration: SB_OPS latencies + 2 penalties)

extern "C" {

// ---- a set-associative cache with LRU, a thread a trace ----

__global__ void cache_sim_lru(const unsigned int *trace, int *hits, int *misses, int *writebacks, int len, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned int tag[CS_SETS * CS_WAYS];
    int last[CS_SETS * CS_WAYS];
    unsigned char dirty[CS_SETS * CS_WAYS];
    for (int k = 0; k < CS_SETS * CS_WAYS; k++) {
        tag[k] = 0xffffffffu;          // invalid
        last[k] = -1;
        dirty[k] = 0;
    }
    int h = 0;
    int m = 0;
    int wb = 0;
    const unsigned int *tr = trace + (size_t)t * len;
    for (int k = 0; k < len; k++) {
        unsigned int a = tr[k];
        int is_write = a & 1;
        unsigned int line = a >> CS_LINE_BITS;
        int set = line % CS_SETS;
        unsigned int tg = line / CS_SETS;
        int base = set * CS_WAYS;
        int way = -1;
        for (int w = 0; w < CS_WAYS; w++) {
            if (tag[base + w] == tg) {
                way = w;
                break;
            }
        }
        if (way >= 0) {
            h++;
        } else {
            m++;
            way = 0;                   // the least recently used way (invalid ways first)
            for (int w = 1; w < CS_WAYS; w++) {
                if (last[base + w] < last[base + way]) way = w;
            }
            if (dirty[base + way]) wb++;
            tag[base + way] = tg;
            dirty[base + way] = 0;
        }
        last[base + way] = k;
        if (is_write) dirty[base + way] = 1;
    }
    hits[t] = h;
    misses[t] = m;
    writebacks[t] = wb;
}

// ---- gshare predictors, a thread a branch trace ----

__global__ void gshare_train(const unsigned int *trace, int *mispred, unsigned int *hist_out, int len, int n) {
    __shared__ unsigned char pht[GS_BLOCK][GS_PHT];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    for (int k = 0; k < GS_PHT; k++) pht[threadIdx.x][k] = 2;     // weakly taken
    unsigned int hist = 0;
    int miss = 0;
    for (int k = 0; k < len; k++) {
        unsigned int r = trace[(size_t)k * n + t];
        unsigned int pc = r & ~1u;
        int taken = r & 1;
        unsigned int idx = ((pc >> 2) ^ hist) & (GS_PHT - 1);
        unsigned char c = pht[threadIdx.x][idx];
        int pred = c >= 2;
        if (pred != taken) miss++;
        if (taken) {
            if (c < 3) c++;
        } else {
            if (c > 0) c--;
        }
        pht[threadIdx.x][idx] = c;
        hist = ((hist << 1) | taken) & (GS_PHT - 1);
    }
    mispred[t] = miss;
    hist_out[t] = hist;
}

// ---- reuse-time histogram, a thread an access ----

__global__ void reuse_hist(const unsigned int *trace, unsigned int *hist, int n) {
    __shared__ unsigned int s_tr[RD_WIN + RD_BLOCK];
    __shared__ unsigned int s_hist[RD_BINS];
    int tid = threadIdx.x;
    int start = blockIdx.x * RD_BLOCK;
    if (tid < RD_BINS) s_hist[tid] = 0;
    for (int k = tid; k < RD_WIN + RD_BLOCK; k += RD_BLOCK) {
        int g = start - RD_WIN + k;
        s_tr[k] = (g >= 0 && g < n) ? trace[g] : 0xffffffffu;    // no line has this address
    }
    __syncthreads();
    int i = start + tid;
    if (i < n) {
        unsigned int a = s_tr[RD_WIN + tid];
        int bin = RD_BINS - 1;
        for (int d = 1; d <= RD_WIN; d++) {
            if (s_tr[RD_WIN + tid - d] == a) {
                bin = 32 - __clz(d - 1);      // ceil(log2 d)
                break;
            }
        }
        atomicAdd(&s_hist[bin], 1u);
    }
    __syncthreads();
    if (tid < RD_BINS) atomicAdd(&hist[tid], s_hist[tid]);
}

// ---- TLB lookups with page-table walks ----

__global__ void tlb_translate(const unsigned int *va, const unsigned int *tlb_vpn, const unsigned int *tlb_ppn,
                              const int *pdir, const unsigned int *ptab, unsigned int *pa, unsigned char *status,
                              int n) {
    __shared__ unsigned int s_vpn[TLB_SETS * TLB_WAYS];
    __shared__ unsigned int s_ppn[TLB_SETS * TLB_WAYS];
    for (int k = threadIdx.x; k < TLB_SETS * TLB_WAYS; k += blockDim.x) {
        s_vpn[k] = tlb_vpn[k];
        s_ppn[k] = tlb_ppn[k];
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int v = va[i];
    unsigned int vpn = v >> PAGE_BITS;
    unsigned int off = v & ((1u << PAGE_BITS) - 1);
    int set = vpn & (TLB_SETS - 1);
    int hit = -1;
    for (int w = 0; w < TLB_WAYS; w++) {
        if (s_vpn[set * TLB_WAYS + w] == vpn) hit = w;
    }
    unsigned int p;
    unsigned char st;
    if (hit >= 0) {
        p = (s_ppn[set * TLB_WAYS + hit] << PAGE_BITS) | off;
        st = 0;
    } else {
        int pt = pdir[vpn >> PT_BITS];                // -1: no page table there
        unsigned int pte = 0;
        if (pt >= 0) pte = ptab[pt * (1 << PT_BITS) + (vpn & ((1 << PT_BITS) - 1))];
        if (pte & 1) {                                // valid: the frame number in the top 20 bits
            p = (pte & ~((1u << PAGE_BITS) - 1)) | off;
            st = 1;
        } else {
            p = 0xffffffffu;
            st = 2;
        }
    }
    pa[i] = p;
    status[i] = st;
}

// ---- RV32IM instruction mix ----

enum InstrClass { C_LUI, C_AUIPC, C_JAL, C_JALR, C_BRANCH, C_LOAD, C_STORE, C_ALUI, C_ALU, C_MULDIV, C_SYSTEM,
                  C_ILLEGAL };

__global__ void instr_mix(const unsigned int *code, unsigned int *class_cnt, unsigned int *rd_cnt, int n) {
    __shared__ unsigned int s_cls[IM_CLASSES];
    __shared__ unsigned int s_rd[32];
    if (threadIdx.x < IM_CLASSES) s_cls[threadIdx.x] = 0;
    if (threadIdx.x < 32) s_rd[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned int w = code[i];
        unsigned int op = w & 0x7f;
        unsigned int rd = (w >> 7) & 31;
        unsigned int f7 = w >> 25;
        int c;
        int writes_rd = 1;
        switch (op) {
        case 0x37: c = C_LUI; break;
        case 0x17: c = C_AUIPC; break;
        case 0x6f: c = C_JAL; break;
        case 0x67: c = C_JALR; break;
        case 0x63: c = C_BRANCH; writes_rd = 0; break;
        case 0x03: c = C_LOAD; break;
        case 0x23: c = C_STORE; writes_rd = 0; break;
        case 0x13: c = C_ALUI; break;
        case 0x33: c = (f7 == 1) ? C_MULDIV : C_ALU; break;
        case 0x73: c = C_SYSTEM; writes_rd = 0; break;
        default: c = C_ILLEGAL; writes_rd = 0; break;
        }
        atomicAdd(&s_cls[c], 1u);
        if (writes_rd && rd != 0) atomicAdd(&s_rd[rd], 1u);
    }
    __syncthreads();
    if (threadIdx.x < IM_CLASSES) atomicAdd(&class_cnt[threadIdx.x], s_cls[threadIdx.x]);
    if (threadIdx.x < 32) atomicAdd(&rd_cnt[threadIdx.x], s_rd[threadIdx.x]);
}

// ---- a scoreboarded in-order pipeline, a thread a configuration ----

#define OP_ALU 0
#define OP_MUL 1
#define OP_DIV 2
#define OP_LOAD 3
#define OP_STORE 4
#define OP_BRANCH 5
#define OP_FPU 6
#define OP_NOP 7

// an instruction: op (bits 0-2), rd (3-7), rs1 (8-12), rs2 (13-17), the load misses (bit
// 18), the branch is mispredicted (bit 19); cfg row t: SB_OPS latencies, the miss penalty,
// the mispredict penalty
__global__ void scoreboard_sim(const unsigned int *prog, const int *cfg, int *cycles, int *stalls, int len, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int lat[SB_OPS];
    for (int k = 0; k < SB_OPS; k++) lat[k] = cfg[t * (SB_OPS + 2) + k];
    int miss_pen = cfg[t * (SB_OPS + 2) + SB_OPS];
    int br_pen = cfg[t * (SB_OPS + 2) + SB_OPS + 1];
    int ready[SB_REGS];
    for (int r = 0; r < SB_REGS; r++) ready[r] = 0;
    int cycle = 0;
    int stall = 0;
    int div_free = 0;
    for (int k = 0; k < len; k++) {
        unsigned int ins = prog[k];
        int op = ins & 7;
        int rd = (ins >> 3) & 31;
        int rs1 = (ins >> 8) & 31;
        int rs2 = (ins >> 13) & 31;
        int l = lat[op];
        if (op == OP_LOAD && ((ins >> 18) & 1)) l += miss_pen;
        int issue = cycle + 1;
        issue = max(issue, ready[rs1]);
        issue = max(issue, ready[rs2]);
        if (op == OP_DIV) {                          // one divider, not pipelined
            issue = max(issue, div_free);
            div_free = issue + l;
        }
        stall += issue - cycle - 1;
        cycle = issue;
        if (rd != 0) ready[rd] = issue + l;
        if (op == OP_BRANCH && ((ins >> 19) & 1)) cycle += br_pen;
    }
    int done = cycle;
    for (int r = 0; r < SB_REGS; r++) done = max(done, ready[r]);
    cycles[t] = done;
    stalls[t] = stall;
}

}
