// probe-unseen217: a compilers / programming-languages course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - dfa_lex_chunks: parallel lexing of C source with a DFA, a thread a 256-byte chunk of
//    the text: since the state at the chunk's start is not known yet, the thread runs the
//    DFA from every one of its LX_STATES states at once (the states in a per-thread local
//    array), the character classes and the transition table (the high bit a "a token
//    starts here" flag) in __constant__ memory; per chunk and start state the end state
//    and the tokens begun, for a later pass that composes the chunks' maps in order;
//  - bracket_depth: bracket nesting depth by a prefix scan, a block 512 characters: each
//    '(' '[' '{' +1 and each ')' ']' '}' -1, a Hillis-Steele scan of (sum, lowest prefix)
//    pairs double-buffered in shared memory with __syncthreads, the depth relative to the
//    block's start stored as a short, the block's total and lowest depth for the second
//    pass; each bracket kind counted by __ballot_sync / __popc into shared counters,
//    flushed by global atomics;
//  - symtab_insert: interning the identifiers of a token stream into a global symbol
//    table, a grid-stride loop over the occurrences: the name's 64-bit FNV-1a hash over
//    its bytes, open addressing with linear probing by atomicCAS on the 64-bit keys, the
//    symbol's occurrence count by atomicAdd (the common names hot: contended), its first
//    occurrence by atomicMin, the longest probe sequence by atomicMax;
//  - bytecode_vm: an autograder's batch of test cases of a stack-machine bytecode (gcd,
//    digit reversal, digit sums, integer square roots, Fibonacci, popcount, primality,
//    modular powers), a thread a test case: fetch, decode and a switch on the opcode, the operand
//    stack and the locals in per-thread local arrays, loops of data-dependent length;
//  - liveness: live-variable analysis of a program's functions, a block a function (up
//    to 64 basic blocks x 128 variables: a thread a 32-bit word of a block's sets): the
//    backward dataflow equations iterated (Jacobi, in shared memory) until no set changes
//    (__syncthreads_or), the register pressure (live variables, __popc and shuffles)
//    and each variable's spill cost (10^loop depth a use or def, iterating the set bits
//    with __ffs, shared float atomics);
//  - const_fold: constant folding over expression trees stored as arrays of node structs
//    in post order, a thread a tree in a grid-stride loop: a node is constant when its
//    children are, its value computed in double (+ - * /, fmin, fmax, pow, sqrt, exp,
//    floor, fabs); divisions by zero, square roots of negatives and non-finite results
//    left unfolded; the folded operations counted by a warp shuffle reduction and a global
//    atomicAdd.

#define LX_STATES 12            // dfa_lex_chunks: DFA states
#define LX_CLASSES 16           // character classes
#define LX_CHUNK 256            // bytes a thread
#define LX_BEGIN 0x80           // transition flag: a token begins at this character

#define BD_BLOCK 512            // bracket_depth: characters (threads) a block

#define VM_STACK 16             // bytecode_vm: operand stack slots
#define VM_LOCALS 4             // local variables
#define VM_MAX_STEPS 20000      // a test case stopped after this many instructions
#define VM_ERROR (-2147483647 - 1)   // result of a failed test case

#define OP_HALT 0
#define OP_PUSH 1
#define OP_LOAD 2
#define OP_STORE 3
#define OP_ADD 4
#define OP_SUB 5
#define OP_MUL 6
#define OP_DIV 7
#define OP_MOD 8
#define OP_LT 9
#define OP_EQ 10
#define OP_AND 11
#define OP_SHR 12
#define OP_JMP 13
#define OP_JZ 14
#define OP_JNZ 15
#define OP_DUP 16
#define OP_POP 17

#define LV_MAXB 64              // liveness: basic blocks a function at most
#define LV_WORDS 4              // 32-bit words a set: 128 variables
#define LV_BLOCK (LV_MAXB * LV_WORDS)

#define EX_CONST 0              // const_fold: node kinds
#define EX_VAR 1
#define EX_NEG 2                // unary
#define EX_SQRT 3
#define EX_EXP 4
#define EX_FABS 5
#define EX_FLOOR 6
#define EX_ADD 7                // binary
#define EX_SUB 8
#define EX_MUL 9
#define EX_DIV 10
#define EX_MIN 11
#define EX_MAX 12
#define EX_POW 13

struct ExprNode {
    int left;                   // children (node indices), -1 none
    int right;
    double value;               // EX_CONST: the literal
    unsigned char op;
    unsigned char var;          // EX_VAR: the variable
    short line;                 // source line
};

// the lexer's character classes and transitions (next state | LX_BEGIN), set by the host
__constant__ unsigned char c_lx_class[256];
__constant__ unsigned char c_lx_delta[LX_STATES * LX_CLASSES];

__device__ int bracket_kind(unsigned char ch) {
    switch (ch) {
    case '(': return 0;
    case ')': return 1;
    case '[': return 2;
    case ']': return 3;
    case '{': return 4;
    case '}': return 5;
    default: return -1;
    }
}

__device__ unsigned long long fnv1a64(const unsigned char *s, int len) {
    unsigned long long h = 14695981039346656037ull;
    for (int k = 0; k < len; k++) {
        h ^= s[k];
        h *= 1099511628211ull;
    }
    return h;
}

extern "C" {

// text[0 .. n - 1] in chunks of LX_CHUNK bytes; for chunk c and start state s:
// end_state[c * LX_STATES + s] the DFA's state after the chunk, ntok[...] the tokens that
// begin in it
__global__ void dfa_lex_chunks(const unsigned char *text, int n, unsigned char *end_state, unsigned short *ntok,
                               int nchunks) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= nchunks) return;
    int st[LX_STATES];
    int cnt[LX_STATES];
    for (int s = 0; s < LX_STATES; s++) {
        st[s] = s;
        cnt[s] = 0;
    }
    int begin = c * LX_CHUNK;
    int end = min(begin + LX_CHUNK, n);
    for (int i = begin; i < end; i++) {
        int cls = c_lx_class[text[i]];
        for (int s = 0; s < LX_STATES; s++) {
            int t = c_lx_delta[st[s] * LX_CLASSES + cls];
            cnt[s] += t >> 7;
            st[s] = t & 0x7f;
        }
    }
    for (int s = 0; s < LX_STATES; s++) {
        end_state[c * LX_STATES + s] = (unsigned char)st[s];
        ntok[c * LX_STATES + s] = (unsigned short)cnt[s];
    }
}

// depth[i]: the bracket depth after text[i] relative to the start of its block's
// BD_BLOCK characters; blk_sum[b], blk_min[b] block b's total and lowest such depth;
// kind_count[k] += the brackets of kind k ("()[]{}"[k])
__global__ void bracket_depth(const unsigned char *text, int n, short *depth, int *blk_sum, int *blk_min,
                              int *kind_count) {
    __shared__ int s_sum[2][BD_BLOCK];
    __shared__ int s_min[2][BD_BLOCK];
    __shared__ int s_cnt[6];
    int tid = threadIdx.x;
    int lane = tid % 32;
    int i = blockIdx.x * BD_BLOCK + tid;
    if (tid < 6) s_cnt[tid] = 0;
    int kind = -1;
    if (i < n) kind = bracket_kind(text[i]);
    int x = 0;
    if (kind >= 0) x = (kind % 2 == 0) ? 1 : -1;
    s_sum[0][tid] = x;
    s_min[0][tid] = x;
    __syncthreads();
    for (int k = 0; k < 6; k++) {
        unsigned int m = __ballot_sync(0xffffffff, kind == k);
        if (lane == 0 && m != 0) atomicAdd(&s_cnt[k], __popc(m));
    }
    int in = 0;
    for (int off = 1; off < BD_BLOCK; off *= 2) {
        int s = s_sum[in][tid];
        int m = s_min[in][tid];
        if (tid >= off) {
            int ps = s_sum[in][tid - off];
            int pm = s_min[in][tid - off];
            m = min(pm, ps + m);
            s = ps + s;
        }
        s_sum[1 - in][tid] = s;
        s_min[1 - in][tid] = m;
        __syncthreads();
        in = 1 - in;
    }
    if (i < n) depth[i] = (short)s_sum[in][tid];
    if (tid == BD_BLOCK - 1) {
        blk_sum[blockIdx.x] = s_sum[in][tid];
        blk_min[blockIdx.x] = s_min[in][tid];
    }
    if (tid < 6 && s_cnt[tid] != 0) atomicAdd(&kind_count[tid], s_cnt[tid]);
}

// ntok identifier occurrences, occurrence i the name pool[off[i] .. off[i] + len[i] - 1];
// keys[] (mask + 1 slots, 0 empty) the symbol table: slot_of[i] the symbol's slot,
// count[slot] its occurrences, first_tok[slot] its first occurrence (INT_MAX before),
// *max_probe the most slots any insertion stepped past its home slot
__global__ void symtab_insert(const unsigned char *pool, const int *off, const unsigned char *len, int ntok,
                              unsigned long long *keys, int *count, int *first_tok, int *slot_of, unsigned int mask,
                              int *max_probe) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < ntok; i += gridDim.x * blockDim.x) {
        unsigned long long h = fnv1a64(pool + off[i], len[i]);
        if (h == 0ull) h = 1ull;                // 0 marks an empty slot
        unsigned int slot = (unsigned int)(h ^ (h >> 32)) & mask;
        int probes = 0;
        while (true) {
            unsigned long long prev = atomicCAS(&keys[slot], 0ull, h);
            if (prev == 0ull || prev == h) break;
            slot = (slot + 1) & mask;
            probes++;
        }
        atomicAdd(&count[slot], 1);
        atomicMin(&first_tok[slot], i);
        slot_of[i] = slot;
        if (probes > 0) atomicMax(max_probe, probes);
    }
}

// ncases test cases: case t runs program prog[t] (code from prog_start[prog[t]]) with
// locals 0, 1 = arg_a[t], arg_b[t]; result[t] the stack's top at OP_HALT (VM_ERROR on a
// division by zero, a stack overflow or running out of steps), steps[t] the instructions run
__global__ void bytecode_vm(const unsigned int *code, const int *prog_start, const unsigned char *prog,
                            const int *arg_a, const int *arg_b, int *result, int *steps, int ncases) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ncases) return;
    int stack[VM_STACK];
    int loc[VM_LOCALS];
    loc[0] = arg_a[t];
    loc[1] = arg_b[t];
    loc[2] = 0;
    loc[3] = 0;
    int sp = 0;
    int pc = prog_start[prog[t]];
    int n = 0;
    int res = VM_ERROR;
    bool running = true;
    while (running && n < VM_MAX_STEPS) {
        unsigned int ins = code[pc];
        pc++;
        n++;
        int op = ins & 0xff;
        int arg = (int)ins >> 8;
        int a, b;
        switch (op) {
        case OP_HALT:
            res = sp > 0 ? stack[sp - 1] : 0;
            running = false;
            break;
        case OP_PUSH:
        case OP_LOAD:
        case OP_DUP:
            if (sp >= VM_STACK) {
                running = false;
                break;
            }
            if (op == OP_PUSH) stack[sp] = arg;
            else if (op == OP_LOAD) stack[sp] = loc[arg];
            else stack[sp] = stack[sp - 1];
            sp++;
            break;
        case OP_STORE:
            sp--;
            loc[arg] = stack[sp];
            break;
        case OP_POP:
            sp--;
            break;
        case OP_JMP:
            pc = arg;
            break;
        case OP_JZ:
            sp--;
            if (stack[sp] == 0) pc = arg;
            break;
        case OP_JNZ:
            sp--;
            if (stack[sp] != 0) pc = arg;
            break;
        default:                                // the binary operators
            b = stack[sp - 1];
            a = stack[sp - 2];
            sp--;
            if ((op == OP_DIV || op == OP_MOD) && b == 0) {
                running = false;
                break;
            }
            if (op == OP_ADD) a = a + b;
            else if (op == OP_SUB) a = a - b;
            else if (op == OP_MUL) a = a * b;
            else if (op == OP_DIV) a = a / b;
            else if (op == OP_MOD) a = a % b;
            else if (op == OP_LT) a = a < b;
            else if (op == OP_EQ) a = a == b;
            else if (op == OP_AND) a = a & b;
            else if (op == OP_SHR) a = a >> b;
            stack[sp - 1] = a;
            break;
        }
    }
    result[t] = res;
    steps[t] = n;
}

// a block a function f: its basic blocks fstart[f] .. fstart[f + 1] - 1 (LV_MAXB at most),
// block b's successors succ[2 b], succ[2 b + 1] (the function's block numbers, -1 none),
// its use / def sets (LV_WORDS words each from b * LV_WORDS) and loop depth; live_in /
// live_out the least solution of in = use | (out & ~def), out = the successors' ins;
// iters[f] the rounds it took, max_live[f] the most variables live out of a block,
// spill_cost[f * 128 + v] the sum over v's blocks that use or define it of 10^depth
__global__ void liveness(const int *fstart, const signed char *succ, const unsigned int *use, const unsigned int *def,
                         const unsigned char *loop_depth, unsigned int *live_in, unsigned int *live_out, int *iters,
                         int *max_live, float *spill_cost) {
    __shared__ unsigned int s_in[LV_BLOCK];
    __shared__ unsigned int s_out[LV_BLOCK];
    __shared__ float s_cost[LV_WORDS * 32];
    __shared__ int s_max;
    int f = blockIdx.x;
    int tid = threadIdx.x;
    int b0 = fstart[f];
    int nb = fstart[f + 1] - b0;
    int b = tid / LV_WORDS;
    int w = tid % LV_WORDS;
    bool act = b < nb;
    unsigned int u = 0, d = 0;
    int s0 = -1, s1 = -1;
    if (act) {
        u = use[(b0 + b) * LV_WORDS + w];
        d = def[(b0 + b) * LV_WORDS + w];
        s0 = succ[2 * (b0 + b)];
        s1 = succ[2 * (b0 + b) + 1];
    }
    s_in[tid] = u;
    s_out[tid] = 0;
    if (tid < LV_WORDS * 32) s_cost[tid] = 0.0f;
    if (tid == 0) s_max = 0;
    __syncthreads();
    int it = 0;
    int changed = 1;
    while (changed) {
        unsigned int out = 0;
        if (s0 >= 0) out |= s_in[s0 * LV_WORDS + w];
        if (s1 >= 0) out |= s_in[s1 * LV_WORDS + w];
        unsigned int in = u | (out & ~d);
        int ch = (in != s_in[tid]) || (out != s_out[tid]);
        __syncthreads();
        s_in[tid] = in;
        s_out[tid] = out;
        it++;
        changed = __syncthreads_or(ch);
    }
    // register pressure: the variables live out of each block, the 4 words of a block in
    // 4 consecutive lanes
    int live = __popc(s_out[tid]);
    live += __shfl_xor_sync(0xffffffff, live, 1);
    live += __shfl_xor_sync(0xffffffff, live, 2);
    if (act && w == 0) atomicMax(&s_max, live);
    // spill costs
    if (act) {
        float wgt = powf(10.0f, (float)loop_depth[b0 + b]);
        unsigned int bits = u | d;
        while (bits != 0) {
            int v = __ffs(bits) - 1;
            bits &= bits - 1;
            atomicAdd(&s_cost[w * 32 + v], wgt);
        }
        live_in[(b0 + b) * LV_WORDS + w] = s_in[tid];
        live_out[(b0 + b) * LV_WORDS + w] = s_out[tid];
    }
    __syncthreads();
    if (tid < LV_WORDS * 32) spill_cost[f * LV_WORDS * 32 + tid] = s_cost[tid];
    if (tid == 0) {
        iters[f] = it;
        max_live[f] = s_max;
    }
}

// ntrees expression trees, tree t the nodes tree_start[t] .. tree_start[t + 1] - 1 in post
// order (children before their parents); val[k], is_const[k] node k's folded value and
// whether it is a compile-time constant; *nfolded += the operations folded
__global__ void const_fold(const ExprNode *nodes, const int *tree_start, int ntrees, double *val,
                           unsigned char *is_const, int *nfolded) {
    int folded = 0;
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < ntrees; t += gridDim.x * blockDim.x) {
        for (int k = tree_start[t]; k < tree_start[t + 1]; k++) {
            ExprNode nd = nodes[k];
            bool c = false;
            double v = 0.0;
            if (nd.op == EX_CONST) {
                c = true;
                v = nd.value;
            } else if (nd.op >= EX_NEG && nd.op <= EX_FLOOR) {
                if (is_const[nd.left]) {
                    double a = val[nd.left];
                    c = true;
                    switch (nd.op) {
                    case EX_NEG: v = -a; break;
                    case EX_SQRT:
                        if (a >= 0.0) v = sqrt(a);
                        else c = false;
                        break;
                    case EX_EXP: v = exp(a); break;
                    case EX_FABS: v = fabs(a); break;
                    default: v = floor(a); break;
                    }
                }
            } else if (nd.op >= EX_ADD) {
                if (is_const[nd.left] && is_const[nd.right]) {
                    double a = val[nd.left];
                    double b = val[nd.right];
                    c = true;
                    switch (nd.op) {
                    case EX_ADD: v = a + b; break;
                    case EX_SUB: v = a - b; break;
                    case EX_MUL: v = a * b; break;
                    case EX_DIV:
                        if (b != 0.0) v = a / b;
                        else c = false;
                        break;
                    case EX_MIN: v = fmin(a, b); break;
                    case EX_MAX: v = fmax(a, b); break;
                    default: v = pow(a, b); break;
                    }
                }
            }
            if (c && !isfinite(v)) {
                c = false;
                v = 0.0;
            }
            if (c && nd.op >= EX_NEG) folded++;
            val[k] = v;
            is_const[k] = c ? 1 : 0;
        }
    }
    for (int o = 16; o > 0; o /= 2) folded += __shfl_down_sync(0xffffffff, folded, o);
    if (threadIdx.x % 32 == 0) atomicAdd(nfolded, folded);
}

}
