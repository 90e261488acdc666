// probe-unseen204: a crowd-simulation / pedestrian-dynamics course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - door_flow: the flow through a hall's doors counted from a tracked trajectory data set
//    (positions as short2 in centimetres, frame-major, SHRT_MIN for a track slot with nobody
//    in it), a grid-stride loop over (frame, slot) pairs: the step from frame f to f + 1 tested
//    against each door segment (in __constant__ memory) by integer orientation tests, an
//    outward crossing added to the door's per-second bin of a shared-memory histogram, an
//    inward one to the door's counter-flow count (shared int atomics), the crossings of a warp
//    counted by __ballot_sync and __popc; the block's histogram added to global memory;
//  - social_force: one explicit step of Helbing's social-force model for a crowd sorted by
//    the cells of a cell list (cell size = the interaction cut-off), a thread a pedestrian
//    (a struct): the driving force towards its goal (the goals in __constant__ memory), the
//    exponential repulsion, body force and sliding friction of the pedestrians in its 3 x 3
//    cells and of the walls (segments in __constant__ memory), then the velocity (capped at
//    1.3 v0) and the position updated by semi-implicit Euler into a second array of structs;
//  - floor_field: the static floor field of a cellular-automaton evacuation model (a chamfer
//    5-7 distance to the exits in 16-bit integers, walls 65535) relaxed on a floor plan of
//    8-bit cell types: a 16 x 16 tile and its one-cell halo loaded into shared memory, FF_ITERS
//    Jacobi sweeps of the 8-neighbour minimum inside the tile (the halo held fixed, a register
//    and two __syncthreads a sweep), the tile written back and the blocks that changed
//    anything counted (__syncthreads_or and a global atomicAdd);
//  - density_splat: the density and velocity fields of a crowd on a 0.5 m grid (Helbing's
//    Gaussian-weighted local density), a grid-stride loop, a thread a pedestrian: its weight
//    exp(-d^2 / R^2) / (pi R^2) on the grid nodes within 1.2 m added to the density, rho vx and
//    rho vy grids by global float atomicAdds (pedestrians sorted by cell: neighbouring lanes
//    hit the same nodes);
//  - ca_move: the movement step of the Burstedde-Kirchner floor-field cellular automaton, a
//    thread an agent: the transition weights to its 3 x 3 Moore neighbourhood exp(-kS dS + kD D)
//    (the static field in float, the dynamic field's bosons in bytes, 0 for walls and occupied
//    cells) in a per-thread local array, the target drawn with a hash random number (integer
//    bit mixing), the target cell claimed by an atomicMin of a random priority and the agent's
//    id (the conflict's winner is the lowest key);
//  - fd_measure: the fundamental diagram's Method B measurement of a corridor experiment, a
//    block a frame: each pedestrian's speed by a central difference over frames f - 1 and
//    f + 1 (float2 positions in metres, NaN when absent), counted and summed (in double) for
//    each measurement area of a __constant__ table, per-thread local arrays reduced by
//    __shfl_down_sync a warp, per-warp partials in shared memory, the last reduction by the
//    first warp; the density and mean speed of each area written in double.

#define FLOW_NDOOR 4             // door_flow: doors
#define FLOW_BIN 25              // frames a flow bin (25 fps: a second)
#define FLOW_MAXBIN 512          // bins at most (12800 frames)
#define FLOW_ABSENT (-32768)     // x of an empty track slot

#define SF_NWALL 16              // social_force: wall segments
#define SF_NGOAL 8               // exits (goals)
#define SF_CELL 1.2f             // m: the cell list's cell and the interaction cut-off
#define SF_A 2000.0f             // N: the repulsion's strength
#define SF_B 0.08f               // m: its range
#define SF_K 120000.0f           // kg / s^2: body force
#define SF_KAPPA 240000.0f       // kg / (m s): sliding friction
#define SF_TAU 0.5f              // s: the relaxation time
#define SF_MASS 80.0f            // kg
#define SF_DT 0.01f              // s

#define FF_TILE 16               // floor_field: the tile (and block) edge
#define FF_ITERS 16              // sweeps a launch
#define FF_FREE 0
#define FF_WALL 1
#define FF_EXIT 2
#define FF_INF 65535

#define DS_H 0.5f                // density_splat: the grid's spacing (m)
#define DS_R 0.7f                // m: the Gaussian's radius R
#define DS_CUT 1.2f              // m: the weights' cut-off
#define DS_REACH 2               // nodes each side of the pedestrian's own

#define CA_KS 3.0f               // ca_move: coupling to the static field (1/m)
#define CA_KD 0.15f              // coupling to the dynamic field (1/boson)
#define CA_FREE 0
#define CA_WALL 1
#define CA_AGENT 2
#define CA_EXIT 3

#define FD_NAREA 6               // fd_measure: measurement areas
#define FD_DT 0.04f              // s between frames (25 fps)

// door_flow: door k runs from (c_door[4k], c_door[4k+1]) to (c_door[4k+2], c_door[4k+3]) in
// cm, the outside on its left (a positive orientation)
__constant__ int c_door[4 * FLOW_NDOOR];

// social_force: walls (ax, ay, bx, by in m) and the goals (x, y)
__constant__ float c_wall[4 * SF_NWALL];
__constant__ float c_goal[2 * SF_NGOAL];

// fd_measure: areas (x0, y0, x1, y1 in m)
__constant__ float c_area[4 * FD_NAREA];

struct Ped {
    float x, y;      // m
    float vx, vy;    // m/s
    float r;         // body radius (m)
    float v0;        // desired speed (m/s)
    int goal;        // index into c_goal
};

// (b - a) x (p - a): > 0 when p is left of a -> b
__device__ int orient(int ax, int ay, int bx, int by, int px, int py) {
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

// the repulsion, body force and sliding friction on a body at distance d (> 0) along the unit
// normal (nx, ny), radii sum rr, relative tangential velocity dvt; added to (fx, fy)
__device__ void contact_force(float d, float nx, float ny, float rr, float dvt, float *fx, float *fy) {
    float overlap = rr - d;
    float f = SF_A * expf(overlap / SF_B);
    if (overlap > 0.0f) {
        f += SF_K * overlap;
        float ft = SF_KAPPA * overlap * dvt;
        *fx += ft * -ny;
        *fy += ft * nx;
    }
    *fx += f * nx;
    *fy += f * ny;
}

__device__ unsigned int mix32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

extern "C" {

// traj[f * nslot + s]: slot s's position at frame f (cm); the (frame, slot) pairs i < npairs
// (= (frames - 1) * nslot): the step traj[i] -> traj[i + nslot]; flow[d * FLOW_MAXBIN + b]
// += the outward crossings of door d in frames b * FLOW_BIN .., back[d] += the inward ones,
// *ncross += all of them
__global__ void door_flow(const short2 *traj, int nslot, int *flow, int *back, int *ncross, int npairs) {
    __shared__ int s_flow[FLOW_NDOOR * FLOW_MAXBIN];
    __shared__ int s_back[FLOW_NDOOR];
    for (int k = threadIdx.x; k < FLOW_NDOOR * FLOW_MAXBIN; k += blockDim.x) s_flow[k] = 0;
    if (threadIdx.x < FLOW_NDOOR) s_back[threadIdx.x] = 0;
    __syncthreads();
    for (int base = blockIdx.x * blockDim.x; base < npairs; base += blockDim.x * gridDim.x) {
        int i = base + threadIdx.x;
        int crossed = 0;
        if (i < npairs) {
            short2 p = traj[i];
            short2 q = traj[i + nslot];
            if (p.x != FLOW_ABSENT && q.x != FLOW_ABSENT) {
                int f = i / nslot;
                for (int d = 0; d < FLOW_NDOOR; d++) {
                    int ax = c_door[4 * d], ay = c_door[4 * d + 1];
                    int bx = c_door[4 * d + 2], by = c_door[4 * d + 3];
                    int s0 = orient(ax, ay, bx, by, p.x, p.y) > 0;
                    int s1 = orient(ax, ay, bx, by, q.x, q.y) > 0;
                    if (s0 != s1) {
                        int o3 = orient(p.x, p.y, q.x, q.y, ax, ay);
                        int o4 = orient(p.x, p.y, q.x, q.y, bx, by);
                        if ((o3 > 0) != (o4 > 0)) {
                            crossed = 1;
                            if (s1)
                                atomicAdd(&s_flow[d * FLOW_MAXBIN + f / FLOW_BIN], 1);
                            else
                                atomicAdd(&s_back[d], 1);
                        }
                    }
                }
            }
        }
        unsigned int votes = __ballot_sync(0xffffffff, crossed);
        if ((threadIdx.x & 31) == 0 && votes) atomicAdd(ncross, __popc(votes));
    }
    __syncthreads();
    for (int k = threadIdx.x; k < FLOW_NDOOR * FLOW_MAXBIN; k += blockDim.x) {
        if (s_flow[k]) atomicAdd(&flow[k], s_flow[k]);
    }
    if (threadIdx.x < FLOW_NDOOR && s_back[threadIdx.x]) atomicAdd(&back[threadIdx.x], s_back[threadIdx.x]);
}

// n pedestrians sorted by cell (cell = cy * ncx + cx of floor(x / SF_CELL), floor(y / SF_CELL));
// cell c's pedestrians in[cell_start[c] .. cell_start[c + 1] - 1]; out[i] pedestrian i after
// one step of SF_DT
__global__ void social_force(const Ped *in, Ped *out, const int *cell_start, int ncx, int ncy, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Ped me = in[i];
    // the driving force
    float gx = c_goal[2 * me.goal] - me.x;
    float gy = c_goal[2 * me.goal + 1] - me.y;
    float gl = sqrtf(gx * gx + gy * gy) + 1e-6f;
    float fx = SF_MASS * (me.v0 * gx / gl - me.vx) / SF_TAU;
    float fy = SF_MASS * (me.v0 * gy / gl - me.vy) / SF_TAU;
    // the other pedestrians in the 3 x 3 cells around
    int cx = (int)floorf(me.x / SF_CELL);
    int cy = (int)floorf(me.y / SF_CELL);
    cx = min(max(cx, 0), ncx - 1);
    cy = min(max(cy, 0), ncy - 1);
    for (int dy = -1; dy <= 1; dy++) {
        int y = cy + dy;
        if (y < 0 || y >= ncy) continue;
        for (int dx = -1; dx <= 1; dx++) {
            int x = cx + dx;
            if (x < 0 || x >= ncx) continue;
            int c = y * ncx + x;
            for (int j = cell_start[c]; j < cell_start[c + 1]; j++) {
                if (j == i) continue;
                Ped o = in[j];
                float ex = me.x - o.x;
                float ey = me.y - o.y;
                float d2 = ex * ex + ey * ey;
                if (d2 >= SF_CELL * SF_CELL || d2 == 0.0f) continue;
                float d = sqrtf(d2);
                float nx = ex / d, ny = ey / d;
                float dvt = (o.vx - me.vx) * -ny + (o.vy - me.vy) * nx;
                contact_force(d, nx, ny, me.r + o.r, dvt, &fx, &fy);
            }
        }
    }
    // the walls
    for (int w = 0; w < SF_NWALL; w++) {
        float ax = c_wall[4 * w], ay = c_wall[4 * w + 1];
        float bx = c_wall[4 * w + 2], by = c_wall[4 * w + 3];
        float sx = bx - ax, sy = by - ay;
        float t = ((me.x - ax) * sx + (me.y - ay) * sy) / (sx * sx + sy * sy);
        t = fminf(fmaxf(t, 0.0f), 1.0f);
        float ex = me.x - (ax + t * sx);
        float ey = me.y - (ay + t * sy);
        float d2 = ex * ex + ey * ey;
        if (d2 >= SF_CELL * SF_CELL || d2 == 0.0f) continue;
        float d = sqrtf(d2);
        float nx = ex / d, ny = ey / d;
        float dvt = -(me.vx * -ny + me.vy * nx);    // a wall does not move
        contact_force(d, nx, ny, me.r, dvt, &fx, &fy);
    }
    // semi-implicit Euler, the speed capped at 1.3 v0
    float vx = me.vx + fx / SF_MASS * SF_DT;
    float vy = me.vy + fy / SF_MASS * SF_DT;
    float sp = sqrtf(vx * vx + vy * vy);
    float vmax = 1.3f * me.v0;
    if (sp > vmax) {
        vx *= vmax / sp;
        vy *= vmax / sp;
    }
    me.vx = vx;
    me.vy = vy;
    me.x += vx * SF_DT;
    me.y += vy * SF_DT;
    out[i] = me;
}

// a w x w floor plan: type[] FF_FREE / FF_WALL / FF_EXIT, field[] the current distances
// (chamfer 5-7 units, FF_INF unknown); fout[] after FF_ITERS sweeps inside each tile, *nchanged
// += the blocks whose tile changed
__global__ void floor_field(const unsigned char *type, const unsigned short *field, unsigned short *fout,
                            int *nchanged, int w) {
    __shared__ unsigned short s_f[FF_TILE + 2][FF_TILE + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x0 = blockIdx.x * FF_TILE - 1, y0 = blockIdx.y * FF_TILE - 1;
    // the tile and its halo (outside the plan: FF_INF)
    for (int k = ty * FF_TILE + tx; k < (FF_TILE + 2) * (FF_TILE + 2); k += FF_TILE * FF_TILE) {
        int ly = k / (FF_TILE + 2), lx = k % (FF_TILE + 2);
        int gx = x0 + lx, gy = y0 + ly;
        unsigned short v = FF_INF;
        if (gx >= 0 && gx < w && gy >= 0 && gy < w) v = field[gy * w + gx];
        s_f[ly][lx] = v;
    }
    int gx = x0 + 1 + tx, gy = y0 + 1 + ty;
    int inside = gx < w && gy < w;
    int free_cell = inside && type[gy * w + gx] == FF_FREE;
    __syncthreads();
    int start = s_f[ty + 1][tx + 1];
    int cur = start;
    for (int it = 0; it < FF_ITERS; it++) {
        if (free_cell) {
            int best = cur;
            best = min(best, s_f[ty][tx + 1] + 5);
            best = min(best, s_f[ty + 2][tx + 1] + 5);
            best = min(best, s_f[ty + 1][tx] + 5);
            best = min(best, s_f[ty + 1][tx + 2] + 5);
            best = min(best, s_f[ty][tx] + 7);
            best = min(best, s_f[ty][tx + 2] + 7);
            best = min(best, s_f[ty + 2][tx] + 7);
            best = min(best, s_f[ty + 2][tx + 2] + 7);
            cur = best;
        }
        __syncthreads();
        s_f[ty + 1][tx + 1] = (unsigned short)cur;
        __syncthreads();
    }
    if (inside) fout[gy * w + gx] = (unsigned short)cur;
    int any = __syncthreads_or(cur != start);
    if (tx == 0 && ty == 0 && any) atomicAdd(nchanged, 1);
}

// n pedestrians (pos, vel: float2 as x, y in m, m/s) on a gw x gh grid of spacing DS_H (node
// (i, j) at ((i + 0.5) DS_H, (j + 0.5) DS_H)): rho += the Gaussian density, rvx, rvy += rho vx,
// rho vy
__global__ void density_splat(const float2 *pos, const float2 *vel, float *rho, float *rvx, float *rvy, int gw,
                              int gh, int n) {
    const float norm = 1.0f / (3.14159265f * DS_R * DS_R);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float2 p = pos[i];
        float2 v = vel[i];
        int cx = (int)floorf(p.x / DS_H);
        int cy = (int)floorf(p.y / DS_H);
        for (int dy = -DS_REACH; dy <= DS_REACH; dy++) {
            int y = cy + dy;
            if (y < 0 || y >= gh) continue;
            for (int dx = -DS_REACH; dx <= DS_REACH; dx++) {
                int x = cx + dx;
                if (x < 0 || x >= gw) continue;
                float ex = (x + 0.5f) * DS_H - p.x;
                float ey = (y + 0.5f) * DS_H - p.y;
                float d2 = ex * ex + ey * ey;
                if (d2 > DS_CUT * DS_CUT) continue;
                float wgt = norm * expf(-d2 / (DS_R * DS_R));
                int k = y * gw + x;
                atomicAdd(&rho[k], wgt);
                atomicAdd(&rvx[k], wgt * v.x);
                atomicAdd(&rvy[k], wgt * v.y);
            }
        }
    }
}

// n agents on a w x h lattice: agent a on cell[a]; S the static field (m to the nearest exit),
// D the dynamic field (bosons), occ the cell types (CA_AGENT where an agent is); target[a] the
// cell it wants (its own to stay), claim[target] = min(claim, priority << 22 | a) for a move
__global__ void ca_move(const int *cell, const float *S, const unsigned char *D, const unsigned char *occ,
                        unsigned int *claim, int *target, int w, int h, unsigned int step, int n) {
    int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= n) return;
    int c = cell[a];
    int x = c % w, y = c / w;
    float s0 = S[c];
    float p[9];
    int cand[9];
    float sum = 0.0f;
    int k = 0;
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            int nx = x + dx, ny = y + dy;
            float wgt = 0.0f;
            int cc = c;
            if (nx >= 0 && nx < w && ny >= 0 && ny < h) {
                cc = ny * w + nx;
                unsigned char o = occ[cc];
                if ((dx == 0 && dy == 0) || o == CA_FREE || o == CA_EXIT)
                    wgt = expf(-CA_KS * (S[cc] - s0) + CA_KD * D[cc]);
            }
            p[k] = wgt;
            cand[k] = cc;
            sum += wgt;
            k++;
        }
    }
    unsigned int r = mix32(a * 0x9E3779B9U ^ step);
    float u = (r >> 8) * (1.0f / 16777216.0f) * sum;
    int pick = 4;                       // the agent's own cell
    float acc = 0.0f;
    for (k = 0; k < 9; k++) {
        acc += p[k];
        if (u < acc) {
            pick = k;
            break;
        }
    }
    int t = cand[pick];
    target[a] = t;
    if (t != c) {
        unsigned int prio = mix32(r) >> 22;
        atomicMin(&claim[t], (prio << 22) | (unsigned int)a);
    }
}

// pos[f * nslot + s]: slot s at frame f (x, y in m, NaN when absent), nframes frames; block b
// measures frame f = b + 1: count[f * FD_NAREA + k] the pedestrians in area k with a speed,
// rho[..] their density (1/m^2), vmean[..] their mean speed (m/s)
__global__ void fd_measure(const float2 *pos, int nslot, int nframes, int *count, double *rho, double *vmean) {
    __shared__ int s_cnt[FD_NAREA][32];
    __shared__ double s_sum[FD_NAREA][32];
    int f = blockIdx.x + 1;
    if (f >= nframes - 1) return;
    int cnt[FD_NAREA];
    double sum[FD_NAREA];
    for (int k = 0; k < FD_NAREA; k++) {
        cnt[k] = 0;
        sum[k] = 0.0;
    }
    for (int s = threadIdx.x; s < nslot; s += blockDim.x) {
        float2 p = pos[f * nslot + s];
        if (isnan(p.x)) continue;
        float2 pa = pos[(f - 1) * nslot + s];
        float2 pb = pos[(f + 1) * nslot + s];
        if (isnan(pa.x) || isnan(pb.x)) continue;
        float dx = pb.x - pa.x, dy = pb.y - pa.y;
        float v = sqrtf(dx * dx + dy * dy) / (2.0f * FD_DT);
        for (int k = 0; k < FD_NAREA; k++) {
            if (p.x >= c_area[4 * k] && p.x < c_area[4 * k + 2] && p.y >= c_area[4 * k + 1] &&
                p.y < c_area[4 * k + 3]) {
                cnt[k]++;
                sum[k] += v;
            }
        }
    }
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int k = 0; k < FD_NAREA; k++) {
        for (int o = 16; o > 0; o >>= 1) {
            cnt[k] += __shfl_down_sync(0xffffffff, cnt[k], o);
            sum[k] += __shfl_down_sync(0xffffffff, sum[k], o);
        }
        if (lane == 0) {
            s_cnt[k][warp] = cnt[k];
            s_sum[k][warp] = sum[k];
        }
    }
    __syncthreads();
    if (warp == 0) {
        int nw = blockDim.x / 32;
        for (int k = 0; k < FD_NAREA; k++) {
            int c = lane < nw ? s_cnt[k][lane] : 0;
            double t = lane < nw ? s_sum[k][lane] : 0.0;
            for (int o = 16; o > 0; o >>= 1) {
                c += __shfl_down_sync(0xffffffff, c, o);
                t += __shfl_down_sync(0xffffffff, t, o);
            }
            if (lane == 0) {
                double area = (double)(c_area[4 * k + 2] - c_area[4 * k]) * (c_area[4 * k + 3] - c_area[4 * k + 1]);
                count[f * FD_NAREA + k] = c;
                rho[f * FD_NAREA + k] = c / area;
                vmean[f * FD_NAREA + k] = c > 0 ? t / c : 0.0;
            }
        }
    }
}

}
