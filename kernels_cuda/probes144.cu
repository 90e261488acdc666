// probe-unseen142: a cellular-automata / complex-systems course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - life_step: one generation of Conway's Game of Life on a periodic w x h byte grid
//    (0 dead, 1 alive), a thread a cell (2-D blocks), the 8 neighbours read straight from
//    global memory with % wraps;
//  - life_bits: Game of Life bit-packed, 32 cells of a row in one unsigned int (bit b is
//    cell 32 wx + b), a thread a word: the 9 words around it loaded (wrapped), words whose
//    3 x 3 neighbourhood is all dead skipped (the grid is patchy: dead regions cost
//    little), otherwise a loop over the 32 bits counting neighbours bit by bit;
//  - gray_scott: one explicit Euler step of Gray-Scott reaction-diffusion (u, v floats,
//    periodic), a TILE x TILE block staging u and v with a one-cell halo in shared memory
//    (the border threads load the halo), the 5-point Laplacian from shared memory;
//  - sandpile_topple: one parallel toppling step of the abelian sandpile (open boundary:
//    grains falling off the edge are lost), a thread a cell: a cell holding 4 or more
//    grains gives one to each neighbour by atomicAdd on the output (a copy of the input)
//    and atomicAdd(-4) on itself; the block counts its toppling cells in shared memory
//    and adds them to a global counter;
//  - hpp_step: one step of the HPP lattice gas on a periodic byte grid (bits E, N, W, S
//    the particles moving that way; N is y - 1), collision (a head-on pair E+W <-> N+S
//    turns 90 degrees) then streaming, written as a gather: a thread a cell collides its
//    4 neighbours and takes the one bit each sends it;
//  - eca_rules: 1-D elementary cellular automata over all 256 Wolfram rules, a block a
//    (rule, initial row) pair (rule = (first_rule + blockIdx.x) % 256), the ECA_W-cell ring in shared
//    memory (two rows, ping-pong), ECA_STEPS steps each a barrier; the final row stored and
//    the live cells over all steps (the space-time density) counted per block.

#define TILE 16             // gray_scott: the tile (blockDim 16 x 16)
#define ECA_W 512           // eca_rules: cells in a ring
#define ECA_STEPS 128       // eca_rules: steps

#define HPP_E 1
#define HPP_N 2
#define HPP_W 4
#define HPP_S 8

extern "C" {

// one Game of Life generation on a periodic w x h byte grid
__global__ void life_step(const unsigned char *in, unsigned char *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int xl = (x + w - 1) % w;
    int xr = (x + 1) % w;
    int yu = (y + h - 1) % h;
    int yd = (y + 1) % h;
    int cnt = in[yu * w + xl] + in[yu * w + x] + in[yu * w + xr]
            + in[y * w + xl] + in[y * w + xr]
            + in[yd * w + xl] + in[yd * w + x] + in[yd * w + xr];
    unsigned char c = in[y * w + x];
    out[y * w + x] = (cnt == 3 || (c && cnt == 2)) ? 1 : 0;
}

// the live cells among bit b's left neighbour, itself and its right neighbour in a row whose
// words are l (to the left), c and r (to the right)
__device__ int row_count(unsigned int l, unsigned int c, unsigned int r, int b) {
    int left = b == 0 ? (l >> 31) & 1 : (c >> (b - 1)) & 1;
    int mid = (c >> b) & 1;
    int right = b == 31 ? r & 1 : (c >> (b + 1)) & 1;
    return left + mid + right;
}

// one Game of Life generation on a periodic grid of h rows of ww words (32 cells each)
__global__ void life_bits(const unsigned int *in, unsigned int *out, int ww, int h) {
    int wx = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (wx >= ww || y >= h) return;
    int xl = (wx + ww - 1) % ww;
    int xr = (wx + 1) % ww;
    int yu = (y + h - 1) % h;
    int yd = (y + 1) % h;
    unsigned int ul = in[yu * ww + xl], uc = in[yu * ww + wx], ur = in[yu * ww + xr];
    unsigned int ml = in[y * ww + xl], mc = in[y * ww + wx], mr = in[y * ww + xr];
    unsigned int dl = in[yd * ww + xl], dc = in[yd * ww + wx], dr = in[yd * ww + xr];
    // nothing alive nearby: the word stays dead
    if ((ul | uc | ur | ml | mc | mr | dl | dc | dr) == 0) {
        out[y * ww + wx] = 0;
        return;
    }
    unsigned int res = 0;
    for (int b = 0; b < 32; b++) {
        int alive = (mc >> b) & 1;
        int cnt = row_count(ul, uc, ur, b) + row_count(ml, mc, mr, b) + row_count(dl, dc, dr, b) - alive;
        if (cnt == 3 || (alive && cnt == 2)) res |= 1u << b;
    }
    out[y * ww + wx] = res;
}

// one Gray-Scott step on a periodic n x n grid (n a multiple of TILE):
// u' = u + dt (du lap(u) - u v^2 + f (1 - u)), v' = v + dt (dv lap(v) + u v^2 - (f + k) v)
__global__ void gray_scott(const float *u, const float *v, float *u_out, float *v_out, float du, float dv,
                           float f, float k, float dt, int n) {
    __shared__ float su[TILE + 2][TILE + 2];
    __shared__ float sv[TILE + 2][TILE + 2];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * TILE + tx;
    int y = blockIdx.y * TILE + ty;
    int xl = (x + n - 1) % n;
    int xr = (x + 1) % n;
    int yu = (y + n - 1) % n;
    int yd = (y + 1) % n;
    su[ty + 1][tx + 1] = u[y * n + x];
    sv[ty + 1][tx + 1] = v[y * n + x];
    if (tx == 0) {
        su[ty + 1][0] = u[y * n + xl];
        sv[ty + 1][0] = v[y * n + xl];
    }
    if (tx == TILE - 1) {
        su[ty + 1][TILE + 1] = u[y * n + xr];
        sv[ty + 1][TILE + 1] = v[y * n + xr];
    }
    if (ty == 0) {
        su[0][tx + 1] = u[yu * n + x];
        sv[0][tx + 1] = v[yu * n + x];
    }
    if (ty == TILE - 1) {
        su[TILE + 1][tx + 1] = u[yd * n + x];
        sv[TILE + 1][tx + 1] = v[yd * n + x];
    }
    __syncthreads();
    float uc = su[ty + 1][tx + 1];
    float vc = sv[ty + 1][tx + 1];
    float lap_u = su[ty][tx + 1] + su[ty + 2][tx + 1] + su[ty + 1][tx] + su[ty + 1][tx + 2] - 4.0f * uc;
    float lap_v = sv[ty][tx + 1] + sv[ty + 2][tx + 1] + sv[ty + 1][tx] + sv[ty + 1][tx + 2] - 4.0f * vc;
    float uvv = uc * vc * vc;
    u_out[y * n + x] = uc + dt * (du * lap_u - uvv + f * (1.0f - uc));
    v_out[y * n + x] = vc + dt * (dv * lap_v + uvv - (f + k) * vc);
}

// one toppling step of the abelian sandpile on an n x n grid (open boundary); out holds a
// copy of in when called; *n_topple counts the cells that toppled
__global__ void sandpile_topple(const int *in, int *out, int *n_topple, int n) {
    __shared__ int block_count;
    if (threadIdx.x == 0 && threadIdx.y == 0) block_count = 0;
    __syncthreads();
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < n && y < n) {
        int i = y * n + x;
        if (in[i] >= 4) {
            atomicAdd(&out[i], -4);
            if (x > 0) atomicAdd(&out[i - 1], 1);
            if (x < n - 1) atomicAdd(&out[i + 1], 1);
            if (y > 0) atomicAdd(&out[i - n], 1);
            if (y < n - 1) atomicAdd(&out[i + n], 1);
            atomicAdd(&block_count, 1);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0 && block_count > 0) atomicAdd(n_topple, block_count);
}

// the HPP collision: a head-on pair turns 90 degrees, anything else passes through
__device__ unsigned char hpp_collide(unsigned char c) {
    if (c == (HPP_E | HPP_W)) return HPP_N | HPP_S;
    if (c == (HPP_N | HPP_S)) return HPP_E | HPP_W;
    return c;
}

// one HPP step (collide, then stream) on a periodic n x n byte grid
__global__ void hpp_step(const unsigned char *in, unsigned char *out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n) return;
    int xl = (x + n - 1) % n;
    int xr = (x + 1) % n;
    int yu = (y + n - 1) % n;
    int yd = (y + 1) % n;
    unsigned char c = 0;
    c |= hpp_collide(in[y * n + xl]) & HPP_E;     // moving east from the left
    c |= hpp_collide(in[y * n + xr]) & HPP_W;     // moving west from the right
    c |= hpp_collide(in[yd * n + x]) & HPP_N;     // moving north (up) from below
    c |= hpp_collide(in[yu * n + x]) & HPP_S;     // moving south (down) from above
    out[y * n + x] = c;
}

// ECA_STEPS steps of elementary CA rule (first_rule + blockIdx.x) % 256 on a ring of ECA_W cells, starting
// from row blockIdx.x / 256 of init (bytes 0/1); the final row stored in rows[blockIdx.x]
// and the live cells of the ECA_STEPS rows after the start summed into live[blockIdx.x]
__global__ void eca_rules(const unsigned char *init, unsigned char *rows, int *live, int first_rule) {
    __shared__ unsigned char s_row[2][ECA_W];
    __shared__ int s_live;
    int rule = (first_rule + blockIdx.x) % 256;
    int start = blockIdx.x / 256;
    for (int k = threadIdx.x; k < ECA_W; k += blockDim.x) s_row[0][k] = init[start * ECA_W + k];
    if (threadIdx.x == 0) s_live = 0;
    __syncthreads();
    int my_live = 0;
    for (int s = 0; s < ECA_STEPS; s++) {
        int cur = s % 2;
        int nxt = 1 - cur;
        for (int k = threadIdx.x; k < ECA_W; k += blockDim.x) {
            int l = s_row[cur][(k + ECA_W - 1) % ECA_W];
            int c = s_row[cur][k];
            int r = s_row[cur][(k + 1) % ECA_W];
            int idx = (l << 2) | (c << 1) | r;
            unsigned char bit = (rule >> idx) & 1;
            s_row[nxt][k] = bit;
            my_live += bit;
        }
        __syncthreads();
    }
    for (int k = threadIdx.x; k < ECA_W; k += blockDim.x) rows[blockIdx.x * ECA_W + k] = s_row[ECA_STEPS % 2][k];
    atomicAdd(&s_live, my_live);
    __syncthreads();
    if (threadIdx.x == 0) live[blockIdx.x] = s_live;
}

}
