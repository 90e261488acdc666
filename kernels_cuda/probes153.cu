// probe-unseen151: a discrete element method (granular mechanics) course's CUDA
// assignments, as a student who knows CUDA basics hands them in. Grains are spheres of
// glass beads (SI units: m, kg, s) with a reduced Young's modulus, as DEM codes use to
// afford a larger time step; positions are float4s (x, y, z, radius).
//  - contact_detect: each particle's contacts over the 27 neighbour cells of a cell list
//    (particles sorted by cell, cell_start/cell_end, -1 for an empty cell), the partners'
//    indices stored in a per-particle list of MAX_CONTACTS slots, the count (overflow
//    included) in ncontact;
//  - hertz_mindlin: the Hertz-Mindlin contact force of each pair of a contact list (i < j):
//    the Hertz normal force with its viscous damping, the Mindlin tangential spring from
//    the contact's history (the tangential displacement, rotated into the tangent plane,
//    advanced by the slip and capped by Coulomb's law), both added to the two grains'
//    forces and torques by atomicAdd; an opened contact's history cleared;
//  - verlet_step: the kick-drift of velocity Verlet (leapfrog form) for an array of Grain
//    structs: velocity and position, angular velocity and the orientation quaternion
//    (renormalised), the force and torque cleared for the next step's contact kernels;
//  - drum_walls: a rotating drum's walls, N_WALLS planes in __constant__ memory (its
//    cylinder as a polygon of liners and the two end caps, each a point and an inward
//    normal): every grain tests every wall, and a touching one adds the Hertz normal force
//    with damping and Coulomb friction against the moving wall to its force and torque;
//  - stress_profile: the Love-Weber stress (sum of f (x) l over the contacts, f the contact
//    force on j, l the branch vector i -> j) in horizontal layers by the contact's midpoint
//    height (the Janssen profile of a silo's bed), six components a layer accumulated by
//    shared-memory atomicAdd, a grid-stride loop, then added into the global profile;
//  - granular_energy: the translational, rotational and potential energies of all grains
//    in double, summed by warp shuffles and the warps' partial sums in shared memory, a
//    block's three sums added to the totals by double atomicAdd.

#define MAX_CONTACTS 16                 // contact_detect: slots of a particle's contact list
#define RHO 2500.0f                     // glass, kg/m^3
#define FOUR_THIRDS_PI 4.18879020f
#define E_STAR 2.6666667e7f             // E / (2 (1 - nu^2)), E = 5e7 Pa, nu = 0.25
#define G_STAR 5.7142857e6f             // G / (2 (2 - nu)), G = E / (2 (1 + nu))
#define DAMP 0.0611960f                 // 2 sqrt(5/6) |beta|, beta = ln e / sqrt(ln^2 e + pi^2), e = 0.9
#define MU 0.5f                         // grain-grain friction coefficient
#define MU_WALL 0.4f                    // grain-wall friction coefficient
#define N_WALLS 182                     // drum_walls: 180 liners and 2 end caps
#define SP_BINS 64                      // stress_profile: layers
#define EN_BLOCK 512                    // granular_energy: blockDim.x

struct Grain {
    float x, y, z;                      // position (m)
    float vx, vy, vz;                   // velocity (m/s)
    float wx, wy, wz;                   // angular velocity (rad/s)
    float q0, q1, q2, q3;               // orientation quaternion
    float fx, fy, fz;                   // force (N), summed by the contact kernels
    float tx, ty, tz;                   // torque (N m)
    float radius, inv_mass, inv_inertia;
};

struct Wall {
    float px, py, pz;                   // a point of the wall
    float nx, ny, nz;                   // its unit normal, into the drum
};

// drum_walls's walls (set by the host)
__constant__ Wall c_walls[N_WALLS];

extern "C" {

// the cell coordinate of x along one axis (clamped into the grid)
__device__ int cell_of(float x, float inv_h, int g) {
    int c = (int)(x * inv_h);
    if (c < 0) c = 0;
    if (c > g - 1) c = g - 1;
    return c;
}

// the contacts (overlapping spheres) of each of n particles sorted by cell (cells of side
// 1 / inv_h, gx * gy * gz of them, x fastest; cell c's particles in [cell_start[c],
// cell_end[c]), cell_start[c] = -1 if empty): contacts[i * MAX_CONTACTS + k] the k-th
// partner found, ncontact[i] how many (may exceed MAX_CONTACTS: the rest not stored)
__global__ void contact_detect(const float4 *pos, const int *cell_start, const int *cell_end, int *ncontact,
                               int *contacts, int gx, int gy, int gz, float inv_h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i];
    int cx = cell_of(p.x, inv_h, gx);
    int cy = cell_of(p.y, inv_h, gy);
    int cz = cell_of(p.z, inv_h, gz);
    int cnt = 0;
    for (int oz = -1; oz <= 1; oz++) {
        int z = cz + oz;
        if (z < 0 || z >= gz) continue;
        for (int oy = -1; oy <= 1; oy++) {
            int y = cy + oy;
            if (y < 0 || y >= gy) continue;
            for (int ox = -1; ox <= 1; ox++) {
                int x = cx + ox;
                if (x < 0 || x >= gx) continue;
                int c = (z * gy + y) * gx + x;
                int s = cell_start[c];
                if (s < 0) continue;
                int e = cell_end[c];
                for (int j = s; j < e; j++) {
                    if (j == i) continue;
                    float4 q = pos[j];
                    float dx = q.x - p.x;
                    float dy = q.y - p.y;
                    float dz = q.z - p.z;
                    float rs = p.w + q.w;
                    if (dx * dx + dy * dy + dz * dz < rs * rs) {
                        if (cnt < MAX_CONTACTS) contacts[i * MAX_CONTACTS + cnt] = j;
                        cnt++;
                    }
                }
            }
        }
    }
    ncontact[i] = cnt;
}

// the Hertz-Mindlin forces of m contacts ci[k] < cj[k] (velocities and angular velocities
// float4s, w unused): hist[3k..3k+2] contact k's tangential displacement, updated; the
// forces and torques (3 floats a grain) added to both grains by atomicAdd
__global__ void hertz_mindlin(const float4 *pos, const float4 *vel, const float4 *omega, const int *ci,
                              const int *cj, float *hist, float *force, float *torque, float dt, int m) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m) return;
    int i = ci[k];
    int j = cj[k];
    float4 pi = pos[i];
    float4 pj = pos[j];
    float dx = pj.x - pi.x;
    float dy = pj.y - pi.y;
    float dz = pj.z - pi.z;
    float dist = sqrtf(dx * dx + dy * dy + dz * dz);
    float delta = pi.w + pj.w - dist;
    if (delta <= 0.0f) {               // no longer touching: the history starts again
        hist[3 * k] = 0.0f;
        hist[3 * k + 1] = 0.0f;
        hist[3 * k + 2] = 0.0f;
        return;
    }
    float nx = dx / dist;              // the normal, from i to j
    float ny = dy / dist;
    float nz = dz / dist;
    float reff = pi.w * pj.w / (pi.w + pj.w);
    float mi = RHO * FOUR_THIRDS_PI * pi.w * pi.w * pi.w;
    float mj = RHO * FOUR_THIRDS_PI * pj.w * pj.w * pj.w;
    float meff = mi * mj / (mi + mj);
    float sq = sqrtf(reff * delta);
    float sn = 2.0f * E_STAR * sq;     // normal and tangential stiffness
    float st = 8.0f * G_STAR * sq;

    // velocity of i's surface relative to j's at the contact point
    float4 vi = vel[i];
    float4 vj = vel[j];
    float4 wi = omega[i];
    float4 wj = omega[j];
    float ax = pi.w * nx, ay = pi.w * ny, az = pi.w * nz;        // i's centre -> contact
    float bx = -pj.w * nx, by = -pj.w * ny, bz = -pj.w * nz;     // j's centre -> contact
    float vrx = (vi.x + wi.y * az - wi.z * ay) - (vj.x + wj.y * bz - wj.z * by);
    float vry = (vi.y + wi.z * ax - wi.x * az) - (vj.y + wj.z * bx - wj.x * bz);
    float vrz = (vi.z + wi.x * ay - wi.y * ax) - (vj.z + wj.x * by - wj.y * bx);
    float vn = vrx * nx + vry * ny + vrz * nz;                    // > 0: approaching
    float vtx = vrx - vn * nx;
    float vty = vry - vn * ny;
    float vtz = vrz - vn * nz;

    // normal force on j (on i the opposite): Hertz spring and damping
    float fn = 2.0f / 3.0f * sn * delta + DAMP * sqrtf(sn * meff) * vn;

    // tangential spring: the old displacement into the tangent plane, plus this step's slip
    float hx = hist[3 * k];
    float hy = hist[3 * k + 1];
    float hz = hist[3 * k + 2];
    float hn = hx * nx + hy * ny + hz * nz;
    hx = hx - hn * nx + vtx * dt;
    hy = hy - hn * ny + vty * dt;
    hz = hz - hn * nz + vtz * dt;
    float gt = DAMP * sqrtf(st * meff);
    float ftx = -st * hx - gt * vtx;   // on i
    float fty = -st * hy - gt * vty;
    float ftz = -st * hz - gt * vtz;
    float ftm = sqrtf(ftx * ftx + fty * fty + ftz * ftz);
    float flim = MU * fmaxf(fn, 0.0f);
    if (ftm > flim) {                  // sliding: Coulomb's limit
        float s = flim / ftm;
        ftx *= s;
        fty *= s;
        ftz *= s;
        hx *= s;
        hy *= s;
        hz *= s;
    }
    hist[3 * k] = hx;
    hist[3 * k + 1] = hy;
    hist[3 * k + 2] = hz;

    float fx = -fn * nx + ftx;         // the total force on i
    float fy = -fn * ny + fty;
    float fz = -fn * nz + ftz;
    atomicAdd(&force[3 * i], fx);
    atomicAdd(&force[3 * i + 1], fy);
    atomicAdd(&force[3 * i + 2], fz);
    atomicAdd(&force[3 * j], -fx);
    atomicAdd(&force[3 * j + 1], -fy);
    atomicAdd(&force[3 * j + 2], -fz);
    // torques: (contact - centre) x tangential force
    atomicAdd(&torque[3 * i], ay * ftz - az * fty);
    atomicAdd(&torque[3 * i + 1], az * ftx - ax * ftz);
    atomicAdd(&torque[3 * i + 2], ax * fty - ay * ftx);
    atomicAdd(&torque[3 * j], -(by * ftz - bz * fty));
    atomicAdd(&torque[3 * j + 1], -(bz * ftx - bx * ftz));
    atomicAdd(&torque[3 * j + 2], -(bx * fty - by * ftx));
}

// one leapfrog step of n grains under gravity (gx, gy, gz): v += dt a, x += dt v,
// w += dt T / I, q += dt (0, w) q / 2 renormalised, the force and torque cleared
__global__ void verlet_step(Grain *g, float dt, float gx, float gy, float gz, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Grain p = g[i];
    p.vx += dt * (p.fx * p.inv_mass + gx);
    p.vy += dt * (p.fy * p.inv_mass + gy);
    p.vz += dt * (p.fz * p.inv_mass + gz);
    p.x += dt * p.vx;
    p.y += dt * p.vy;
    p.z += dt * p.vz;
    p.wx += dt * p.tx * p.inv_inertia;
    p.wy += dt * p.ty * p.inv_inertia;
    p.wz += dt * p.tz * p.inv_inertia;
    float dq0 = -0.5f * (p.wx * p.q1 + p.wy * p.q2 + p.wz * p.q3);
    float dq1 = 0.5f * (p.wx * p.q0 + p.wy * p.q3 - p.wz * p.q2);
    float dq2 = 0.5f * (p.wy * p.q0 + p.wz * p.q1 - p.wx * p.q3);
    float dq3 = 0.5f * (p.wz * p.q0 + p.wx * p.q2 - p.wy * p.q1);
    p.q0 += dt * dq0;
    p.q1 += dt * dq1;
    p.q2 += dt * dq2;
    p.q3 += dt * dq3;
    float inv = rsqrtf(p.q0 * p.q0 + p.q1 * p.q1 + p.q2 * p.q2 + p.q3 * p.q3);
    p.q0 *= inv;
    p.q1 *= inv;
    p.q2 *= inv;
    p.q3 *= inv;
    p.fx = 0.0f;
    p.fy = 0.0f;
    p.fz = 0.0f;
    p.tx = 0.0f;
    p.ty = 0.0f;
    p.tz = 0.0f;
    g[i] = p;
}

// the drum's walls on n grains (the drum turning at spin rad/s about the z axis): every
// wall a grain overlaps adds its Hertz normal force (with damping) and Coulomb friction
// against the wall's surface velocity to force[i] and torque[i] (w unused)
__global__ void drum_walls(const float4 *pos, const float4 *vel, const float4 *omega, float4 *force, float4 *torque,
                           float spin, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i];
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    float tx = 0.0f, ty = 0.0f, tz = 0.0f;
    int hits = 0;
    for (int k = 0; k < N_WALLS; k++) {
        Wall w = c_walls[k];
        float s = (p.x - w.px) * w.nx + (p.y - w.py) * w.ny + (p.z - w.pz) * w.nz;   // centre to wall
        float delta = p.w - s;
        if (delta > 0.0f) {
            hits++;
            float4 v = vel[i];
            float4 om = omega[i];
            float m = RHO * FOUR_THIRDS_PI * p.w * p.w * p.w;
            float sn = 2.0f * E_STAR * sqrtf(p.w * delta);
            float ax = -p.w * w.nx, ay = -p.w * w.ny, az = -p.w * w.nz;     // centre -> contact
            float cx = p.x + ax, cy = p.y + ay;
            // the grain's surface velocity at the contact, relative to the wall's (spin x c)
            float vrx = v.x + om.y * az - om.z * ay + spin * cy;
            float vry = v.y + om.z * ax - om.x * az - spin * cx;
            float vrz = v.z + om.x * ay - om.y * ax;
            float vn = vrx * w.nx + vry * w.ny + vrz * w.nz;              // < 0: approaching
            float fn = 2.0f / 3.0f * sn * delta - DAMP * sqrtf(sn * m) * vn;
            fn = fmaxf(fn, 0.0f);
            fx += fn * w.nx;
            fy += fn * w.ny;
            fz += fn * w.nz;
            float vtx = vrx - vn * w.nx;
            float vty = vry - vn * w.ny;
            float vtz = vrz - vn * w.nz;
            float vt = sqrtf(vtx * vtx + vty * vty + vtz * vtz);
            if (vt > 1e-9f) {
                float f = MU_WALL * fn / vt;
                float ftx = -f * vtx, fty = -f * vty, ftz = -f * vtz;
                fx += ftx;
                fy += fty;
                fz += ftz;
                tx += ay * ftz - az * fty;
                ty += az * ftx - ax * ftz;
                tz += ax * fty - ay * ftx;
            }
        }
    }
    if (hits > 0) {
        float4 f = force[i];
        f.x += fx;
        f.y += fy;
        f.z += fz;
        force[i] = f;
        float4 t = torque[i];
        t.x += tx;
        t.y += ty;
        t.z += tz;
        torque[i] = t;
    }
}

// the Love-Weber stress of m contacts ci[k] -> cj[k] (fc[k] the force on cj[k], w unused)
// in SP_BINS layers of height 1 / inv_dz from z0 by the contact's midpoint height (the
// lowest and highest layers take those beyond): sigma[6 b ..] += xx, yy, zz, xy, xz, yz of
// f (x) l, symmetrised
__global__ void stress_profile(const float4 *pos, const int *ci, const int *cj, const float4 *fc, float *sigma,
                               float z0, float inv_dz, int m) {
    __shared__ float s_sig[6 * SP_BINS];
    for (int b = threadIdx.x; b < 6 * SP_BINS; b += blockDim.x) s_sig[b] = 0.0f;
    __syncthreads();
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < m; k += blockDim.x * gridDim.x) {
        float4 a = pos[ci[k]];
        float4 b = pos[cj[k]];
        float4 f = fc[k];
        float lx = b.x - a.x;
        float ly = b.y - a.y;
        float lz = b.z - a.z;
        float zc = 0.5f * (a.z + b.z);
        int bin = (int)((zc - z0) * inv_dz);
        if (bin < 0) bin = 0;
        if (bin > SP_BINS - 1) bin = SP_BINS - 1;
        atomicAdd(&s_sig[6 * bin], f.x * lx);
        atomicAdd(&s_sig[6 * bin + 1], f.y * ly);
        atomicAdd(&s_sig[6 * bin + 2], f.z * lz);
        atomicAdd(&s_sig[6 * bin + 3], 0.5f * (f.x * ly + f.y * lx));
        atomicAdd(&s_sig[6 * bin + 4], 0.5f * (f.x * lz + f.z * lx));
        atomicAdd(&s_sig[6 * bin + 5], 0.5f * (f.y * lz + f.z * ly));
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 6 * SP_BINS; b += blockDim.x)
        if (s_sig[b] != 0.0f) atomicAdd(&sigma[b], s_sig[b]);
}

// the translational, rotational and potential (height y, gravity grav) energies of n
// grains (radius in pos.w, density RHO) in double: energy[0], [1], [2] += the block's sums
// (blockDim.x == EN_BLOCK)
__global__ void granular_energy(const float4 *pos, const float4 *vel, const float4 *omega, double *energy,
                                float grav, int n) {
    __shared__ double s_part[3][EN_BLOCK / 32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    double et = 0.0, er = 0.0, ep = 0.0;
    if (i < n) {
        float4 p = pos[i];
        float4 v = vel[i];
        float4 w = omega[i];
        double r = p.w;
        double m = 2500.0 * 4.0 / 3.0 * 3.141592653589793 * r * r * r;
        et = 0.5 * m * (v.x * v.x + v.y * v.y + v.z * v.z);
        er = 0.5 * (0.4 * m * r * r) * (w.x * w.x + w.y * w.y + w.z * w.z);
        ep = m * grav * p.y;
    }
    for (int off = 16; off > 0; off >>= 1) {
        et += __shfl_down_sync(0xffffffff, et, off);
        er += __shfl_down_sync(0xffffffff, er, off);
        ep += __shfl_down_sync(0xffffffff, ep, off);
    }
    if (lane == 0) {
        s_part[0][warp] = et;
        s_part[1][warp] = er;
        s_part[2][warp] = ep;
    }
    __syncthreads();
    if (warp == 0) {
        int nw = blockDim.x / 32;
        et = lane < nw ? s_part[0][lane] : 0.0;
        er = lane < nw ? s_part[1][lane] : 0.0;
        ep = lane < nw ? s_part[2][lane] : 0.0;
        for (int off = 16; off > 0; off >>= 1) {
            et += __shfl_down_sync(0xffffffff, et, off);
            er += __shfl_down_sync(0xffffffff, er, off);
            ep += __shfl_down_sync(0xffffffff, ep, off);
        }
        if (lane == 0) {
            atomicAdd(&energy[0], et);
            atomicAdd(&energy[1], er);
            atomicAdd(&energy[2], ep);
        }
    }
}

}
