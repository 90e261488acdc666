// probe-unseen56: an HPC course's homework set on irregular and memory-bound kernels, as a
// competent graduate student hands it in, each kernel's time set by a different limit: the
// numeric phase of a hash-based SpGEMM (C = A A), a warp a row of C accumulating the
// products of its row in an open-addressing hash table in shared memory (atomicCAS on the
// keys, linear probing, float atomicAdd on the values), then compacting the table into C's
// row (offsets from the symbolic phase) by __ballot_sync; the edge loop of a finite-volume
// residual on an unstructured 2-D mesh (vertices numbered at random), a thread an edge
// gathering its two end values, a Rusanov flux for Burgers' equation and two float
// atomicAdds into the residual (random atomics into 4 MiB); multi-pattern matching of 64
// DNA patterns (4-8 bases) by an Aho-Corasick automaton, its transition table and the text
// tile in shared memory (the tile padded a word a thread's chunk, no bank conflicts), a
// thread running the automaton over 128 bases (a dependent shared load a base, the output
// links followed on a match); random walks with restart on a power-law graph in CSR, a
// thread a walker taking up to 32 steps (a dependent row_ptr and adj gather a step, a
// 32-bit modulo, ending early at a dangling vertex) and counting its visits by atomicAdd;
// Lennard-Jones forces from a Verlet neighbour list (transposed for coalescing, 72-86
// neighbours an atom), float4 positions gathered, minimum image in a periodic box, the
// cutoff tested a pair; and the staggered Dirac operator on a 32^4 periodic lattice, a
// thread a site reading its 8 SU(3) links (float2 3 x 3, 72 bytes each, array of structs)
// and 8 neighbouring colour vectors, staggered phases from the coordinates.

#define SG_WARPS 8           // spgemm_hash_warp: warps (rows) a block
#define SG_HASH 256          // hash slots a warp (a row of A A has at most 144 products)
#define AC_BLOCK 256
#define AC_CHUNK 128         // text bytes a thread
#define AC_WORDS 32          // AC_CHUNK / 4
#define AC_PAD 33            // shared words a thread's chunk (a word of padding)
#define AC_TILE (AC_BLOCK * AC_CHUNK)
#define AC_MAXSTATES 520
#define AC_NPAT 64

extern "C" {

// numeric phase of C = A A (A n x n in CSR, C's row offsets c_ptr from the symbolic
// phase): warp w of block b builds row r = 8 b + w of C in its own hash table of SG_HASH
// slots (key -1 empty): lanes take the entries of row k of A for each entry (r, k), insert
// column j by atomicCAS with linear probing from (j * 2654435761) mod SG_HASH and add
// A[r,k] A[k,j] to the slot's value by atomicAdd; the occupied slots are then written to
// C's row in slot order, positions by __ballot_sync and __popc
__global__ void spgemm_hash_warp(const int *a_ptr, const int *a_col, const float *a_val, const int *c_ptr,
                                 int *c_col, float *c_val, int nrows) {
    __shared__ int hkey[SG_WARPS][SG_HASH];
    __shared__ float hval[SG_WARPS][SG_HASH];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int row = blockIdx.x * SG_WARPS + w;
    if (row >= nrows) return;                        // the whole warp
    for (int k = lane; k < SG_HASH; k += 32) {
        hkey[w][k] = -1;
        hval[w][k] = 0.0f;
    }
    __syncwarp();
    for (int ea = a_ptr[row]; ea < a_ptr[row + 1]; ++ea) {
        int k = a_col[ea];
        float av = a_val[ea];
        for (int eb = a_ptr[k] + lane; eb < a_ptr[k + 1]; eb += 32) {
            int col = a_col[eb];
            float p = av * a_val[eb];
            unsigned h = ((unsigned)col * 2654435761u) & (SG_HASH - 1);
            while (true) {
                int old = atomicCAS(&hkey[w][h], -1, col);
                if (old == -1 || old == col) {
                    atomicAdd(&hval[w][h], p);
                    break;
                }
                h = (h + 1) & (SG_HASH - 1);
            }
        }
    }
    __syncwarp();
    int pos = c_ptr[row];
    for (int k = lane; k < SG_HASH; k += 32) {
        int col = hkey[w][k];
        unsigned m = __ballot_sync(0xffffffffu, col >= 0);
        if (col >= 0) {
            int q = pos + __popc(m & ((1u << lane) - 1u));
            c_col[q] = col;
            c_val[q] = hval[w][k];
        }
        pos += __popc(m);
    }
}

// residual of Burgers' equation u_t + div (u^2/2, u^2/2) = 0 on an unstructured mesh,
// edge loop: edge e joins vertices i = edges[e].x and j = edges[e].y through a dual face of
// normal normals[e] (from i to j); the Rusanov flux
// F = (f(u_i) + f(u_j)).n / 2 - max(|u_i|, |u_j|) |s| (u_j - u_i) / 2, f(u).n = s u^2 / 2
// with s = n.x + n.y, leaves i (res[i] -= F) and enters j (res[j] += F)
__global__ void edge_flux(const int2 *edges, const float2 *normals, const float *u, float *res, int nedges) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nedges) return;
    int2 ij = edges[e];
    float2 nv = normals[e];
    float ui = u[ij.x], uj = u[ij.y];
    float s = nv.x + nv.y;
    float flux = 0.25f * (ui * ui + uj * uj) * s - 0.5f * fmaxf(fabsf(ui), fabsf(uj)) * fabsf(s) * (uj - ui);
    atomicAdd(&res[ij.x], -flux);
    atomicAdd(&res[ij.y], flux);
}

// 2-bit code of a base's ASCII byte (bits 1-2): A 0, C 1, T 2, G 3
__device__ __forceinline__ int ac_code(unsigned byte) {
    return (int)((byte >> 1) & 3u);
}

// occurrences of 64 DNA patterns (lengths 4 to 8) in text (nwords 32-bit words of ASCII
// bases, a multiple of AC_TILE / 4) by an Aho-Corasick automaton of nstates states: go[4 s +
// c] the next state, term[s] the pattern ending at s (-1 none), dlink[s] the nearest proper
// suffix state ending a pattern (-1 none).  Block b stages its 32 KiB tile (thread t's
// chunk of 128 bases at word 33 t) and the tables in shared memory; thread t first runs the
// automaton over the 7 bases before its chunk (the previous chunk's, or the 8 bytes before
// the tile), then over its chunk, counting every pattern ending in the chunk:
// pat_count[p] += its occurrences, chunk_count[g] = the thread's
__global__ void aho_corasick_dna(const unsigned *text, const int *go, const int *term, const int *dlink,
                                 int nstates, unsigned *pat_count, unsigned *chunk_count, int nwords) {
    __shared__ unsigned s_text[AC_BLOCK * AC_PAD];
    __shared__ int s_go[AC_MAXSTATES * 4];
    __shared__ int s_term[AC_MAXSTATES];
    __shared__ int s_dlink[AC_MAXSTATES];
    __shared__ unsigned s_cnt[AC_NPAT];
    __shared__ unsigned s_halo[2];
    int t = threadIdx.x;
    for (int k = t; k < nstates * 4; k += AC_BLOCK) s_go[k] = go[k];
    for (int k = t; k < nstates; k += AC_BLOCK) {
        s_term[k] = term[k];
        s_dlink[k] = dlink[k];
    }
    if (t < AC_NPAT) s_cnt[t] = 0u;
    size_t wbase = (size_t)blockIdx.x * (AC_TILE / 4);
    for (int k = t; k < AC_TILE / 4; k += AC_BLOCK) s_text[(k / AC_WORDS) * AC_PAD + k % AC_WORDS] = text[wbase + k];
    if (t < 2) s_halo[t] = blockIdx.x > 0 ? text[wbase - 2 + t] : 0u;
    __syncthreads();

    int st = 0;
    if (t > 0 || blockIdx.x > 0) {                   // the text's first chunk starts at the root
        unsigned w0 = t > 0 ? s_text[(t - 1) * AC_PAD + AC_WORDS - 2] : s_halo[0];
        unsigned w1 = t > 0 ? s_text[(t - 1) * AC_PAD + AC_WORDS - 1] : s_halo[1];
        for (int b = 1; b < 4; ++b) st = s_go[st * 4 + ac_code(w0 >> (8 * b))];
        for (int b = 0; b < 4; ++b) st = s_go[st * 4 + ac_code(w1 >> (8 * b))];
    }
    unsigned found = 0u;
    for (int k = 0; k < AC_WORDS; ++k) {
        unsigned wd = s_text[t * AC_PAD + k];
        for (int b = 0; b < 4; ++b) {
            st = s_go[st * 4 + ac_code(wd >> (8 * b))];
            for (int q = s_term[st] >= 0 ? st : s_dlink[st]; q >= 0; q = s_dlink[q]) {
                atomicAdd(&s_cnt[s_term[q]], 1u);
                ++found;
            }
        }
    }
    chunk_count[blockIdx.x * AC_BLOCK + t] = found;
    __syncthreads();
    if (t < AC_NPAT && s_cnt[t] > 0u) atomicAdd(&pat_count[t], s_cnt[t]);
}

// a 32-bit integer hash (lowbias32)
__device__ __forceinline__ unsigned rw_hash(unsigned x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// random walks with restart on a graph in CSR: walker w starts at start[w] with an xorshift32
// state rw_hash(seed ^ w) (1 where that is 0) and takes up to steps steps; a step ends the
// walk at a vertex without out-edges, else draws r: with the low byte of r below restart
// the walker goes back to its start, otherwise to neighbour (r >> 8) mod degree; each vertex
// stepped to gets visits[v] += 1; end[w] and len[w] the last vertex and the steps taken
__global__ void random_walk_restart(const int *row_ptr, const int *adj, const int *start, int *end, int *len,
                                    unsigned *visits, int nwalk, int steps, unsigned seed, unsigned restart) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nwalk) return;
    int s = start[w], v = s, k = 0;
    unsigned r = rw_hash(seed ^ (unsigned)w);
    if (r == 0u) r = 1u;
    for (; k < steps; ++k) {
        int b = row_ptr[v], d = row_ptr[v + 1] - b;
        if (d == 0) break;
        r ^= r << 13;
        r ^= r >> 17;
        r ^= r << 5;
        v = (r & 0xffu) < restart ? s : adj[b + (int)((r >> 8) % (unsigned)d)];
        atomicAdd(&visits[v], 1u);
    }
    end[w] = v;
    len[w] = k;
}

// Lennard-Jones forces (epsilon = sigma = 1) in a periodic cubic box: atom i's numneigh[i]
// neighbours are neigh[k natoms + i], k < numneigh[i] (a Verlet list, transposed); each
// pair within the cutoff (r^2 < cutsq, minimum image) adds 48 (r^-12 - r^-6 / 2) / r^2 times
// the separation to the force and 2 (r^-12 - r^-6) to the energy; force[i] = (fx, fy, fz,
// the atom's half of its pair energies)
__global__ void lj_forces(const float4 *pos, const int *neigh, const int *numneigh, float4 *force, int natoms,
                          float box, float cutsq) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= natoms) return;
    float4 pi = pos[i];
    float inv_box = 1.0f / box;
    float fx = 0.0f, fy = 0.0f, fz = 0.0f, pe = 0.0f;
    int nn = numneigh[i];
    for (int k = 0; k < nn; ++k) {
        int j = neigh[k * natoms + i];
        float4 pj = __ldg(&pos[j]);
        float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
        dx -= box * rintf(dx * inv_box);
        dy -= box * rintf(dy * inv_box);
        dz -= box * rintf(dz * inv_box);
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < cutsq) {
            float sr2 = 1.0f / r2;
            float sr6 = sr2 * sr2 * sr2;
            float f = 48.0f * sr6 * (sr6 - 0.5f) * sr2;
            fx += f * dx;
            fy += f * dy;
            fz += f * dz;
            pe += 2.0f * sr6 * (sr6 - 1.0f);
        }
    }
    force[i] = make_float4(fx, fy, fz, pe);
}

__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// conj(a) b
__device__ __forceinline__ float2 cmulc(float2 a, float2 b) {
    return make_float2(a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x);
}

// out = D chi, the staggered Dirac operator on an L^4 periodic lattice (site x = x0 + L x1 +
// L^2 x2 + L^3 x3): D chi(x) = 1/2 sum_mu eta_mu(x) (U_mu(x) chi(x + mu) - U_mu(x - mu)^+
// chi(x - mu)), eta_mu(x) = (-1)^(x0 + .. + x_{mu-1}); link U_mu(x) is the 3 x 3 complex
// matrix U[(4 x + mu) 9 + 3 a + b], chi and out 3 complex numbers a site
__global__ void staggered_dslash(const float2 *U, const float2 *chi, float2 *out, int L) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int vol = L * L * L * L;
    if (x >= vol) return;
    float2 acc0 = make_float2(0.0f, 0.0f), acc1 = acc0, acc2 = acc0;
    int rest = x, stride = 1, parity = 0;
    for (int mu = 0; mu < 4; ++mu) {
        int c = rest % L;
        rest /= L;
        float eta = (parity & 1) ? -1.0f : 1.0f;
        int fwd = c + 1 == L ? x - (L - 1) * stride : x + stride;
        int bwd = c == 0 ? x + (L - 1) * stride : x - stride;
        const float2 *Uf = U + (4 * x + mu) * 9;
        const float2 *Ub = U + (4 * bwd + mu) * 9;
        float2 f0 = chi[3 * fwd], f1 = chi[3 * fwd + 1], f2 = chi[3 * fwd + 2];
        float2 b0 = chi[3 * bwd], b1 = chi[3 * bwd + 1], b2 = chi[3 * bwd + 2];
        float2 r[3];
        for (int a = 0; a < 3; ++a) {
            float2 p0 = cmul(Uf[3 * a], f0), p1 = cmul(Uf[3 * a + 1], f1), p2 = cmul(Uf[3 * a + 2], f2);
            float2 q0 = cmulc(Ub[a], b0), q1 = cmulc(Ub[3 + a], b1), q2 = cmulc(Ub[6 + a], b2);
            r[a] = make_float2(eta * ((p0.x + p1.x + p2.x) - (q0.x + q1.x + q2.x)),
                               eta * ((p0.y + p1.y + p2.y) - (q0.y + q1.y + q2.y)));
        }
        acc0.x += r[0].x;
        acc0.y += r[0].y;
        acc1.x += r[1].x;
        acc1.y += r[1].y;
        acc2.x += r[2].x;
        acc2.y += r[2].y;
        parity += c;
        stride *= L;
    }
    out[3 * x] = make_float2(0.5f * acc0.x, 0.5f * acc0.y);
    out[3 * x + 1] = make_float2(0.5f * acc1.x, 0.5f * acc1.y);
    out[3 * x + 2] = make_float2(0.5f * acc2.x, 0.5f * acc2.y);
}

}
