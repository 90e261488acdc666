// probe-unseen185: a robotics (SLAM and motion planning) course's CUDA assignments, as a student
// who knows CUDA basics hands them in:
//  - occ3d_update: a 3-D log-odds occupancy voxel map (OctoMap-like, but a dense grid) updated
//    from a batch of spinning-lidar scans, a thread a beam: Amanatides-Woo voxel traversal from
//    the scan's sensor origin to the beam's end, L_FREE added to each voxel crossed and L_OCC to
//    the end voxel of a return (L_FREE for a max-range beam) by float atomicAdd, beams without a
//    measurement skipped, voxels outside the grid skipped;
//  - pf_likelihood: Monte Carlo localisation's measurement update, a thread a particle: the
//    laser scan's beam ends (sensor frame) moved to the particle's pose and looked up in a
//    precomputed log-likelihood field (the likelihood-field sensor model), the log-weight the sum
//    over beams, ends off the map costing a fixed log-probability;
//  - csm_score: a correlative scan matcher's exhaustive (theta, x, y) search window around a
//    pose guess, a 16 x 16 block a tile of translations at one rotation: the block rotates the
//    scan once into integer cells in shared memory, __syncthreads, then each thread sums the
//    blurred-map lookup table (bytes) at the scan's cells shifted by its translation;
//  - edge_collide: RRT edge validation for a spherical drone, a thread an edge: samples at
//    most res apart from one end to the other, each against the environment's oriented boxes (a
//    struct array in __constant__: centre, half extents, rotation), the first sample within the
//    drone's radius of a box reported (the loop stopping there);
//  - dubins_path: PRM edge costs for a car-like robot, a thread an edge: the shortest of the six
//    Dubins words (LSL, LSR, RSL, RSR, RLR, LRL) between the two nodes' poses, in double (the
//    well-known dubins.c formulas), its length and word;
//  - icp_reduce: one Gauss-Newton step of KinectFusion's point-to-plane ICP, a thread a pixel of
//    the new depth frame: its vertex moved by the pose estimate and projected into the previous
//    frame (projective data association), pairs kept by distance and normal angle, the 6 x 6
//    normal equations' upper triangle, J^T r, r^2 and the inlier count accumulated in a
//    per-thread array of doubles, reduced by __shfl_down_sync within warps and through shared
//    memory across the block's warps, then one double atomicAdd a value a block.

#define L_FREE -0.40625f      // occ3d_update: log-odds of a voxel a beam crossed (log(0.4 / 0.6), a multiple of 1/32)
#define L_OCC 0.84375f        // and of a return's end voxel (log(0.7 / 0.3))
#define CSM_TILE 16           // csm_score: blockDim.x == blockDim.y; the window's side a multiple of it
#define CSM_MAXB 1088         // the most scan points (a 1081-beam scan)
#define OBB_MAX 128           // edge_collide: the most boxes
#define TWO_PI 6.283185307179586
#define ICP_NS 29             // icp_reduce: 21 (J^T J's upper triangle) + 6 (J^T r) + r^2 + the inliers
#define ICP_BLOCK 512         // blockDim.x

struct Obb {
    float cx, cy, cz;         // centre (m)
    float hx, hy, hz;         // half extents along the box's axes
    float r[9];               // rotation, row-major: world = R local (the box's axes the columns)
};

// edge_collide's environment (set by the host)
__constant__ Obb c_obb[OBB_MAX];

// dubins.c's mod2pi: theta - 2 pi floor(theta / 2 pi)
__device__ double mod2pi(double theta) {
    return theta - TWO_PI * floor(theta / TWO_PI);
}

extern "C" {

// n beams: ends pts[i] (x, y, z; w 1 a return, 0 a max-range beam, -1 no measurement), from the
// origin of scan i / per_scan (origin[3 s .. 3 s + 2]); the nx x ny x nz grid (x fastest) of
// voxels of side 1 / inv_res from (gx0, gy0, gz0): each voxel the beam crosses += L_FREE, its end
// voxel += L_OCC (a return) or L_FREE
__global__ void occ3d_update(const float4 *pts, const float *origin, float *logodds, int per_scan, float gx0,
                             float gy0, float gz0, float inv_res, int nx, int ny, int nz, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pts[i];
    if (p.w < 0.0f) return;
    int s = i / per_scan;
    // in voxel units
    float ox = (origin[3 * s] - gx0) * inv_res;
    float oy = (origin[3 * s + 1] - gy0) * inv_res;
    float oz = (origin[3 * s + 2] - gz0) * inv_res;
    float ex = (p.x - gx0) * inv_res;
    float ey = (p.y - gy0) * inv_res;
    float ez = (p.z - gz0) * inv_res;
    int ix = (int)floorf(ox);
    int iy = (int)floorf(oy);
    int iz = (int)floorf(oz);
    int jx = (int)floorf(ex);
    int jy = (int)floorf(ey);
    int jz = (int)floorf(ez);
    float dx = ex - ox;
    float dy = ey - oy;
    float dz = ez - oz;
    int sx = dx > 0.0f ? 1 : -1;
    int sy = dy > 0.0f ? 1 : -1;
    int sz = dz > 0.0f ? 1 : -1;
    // the ray's parameter (0 at the origin, 1 at the end) at the next voxel boundary on each axis,
    // and its increase from one boundary to the next
    float tdx = dx != 0.0f ? fabsf(1.0f / dx) : FLT_MAX;
    float tdy = dy != 0.0f ? fabsf(1.0f / dy) : FLT_MAX;
    float tdz = dz != 0.0f ? fabsf(1.0f / dz) : FLT_MAX;
    float tmx = dx > 0.0f ? (ix + 1 - ox) / dx : (dx < 0.0f ? (ix - ox) / dx : FLT_MAX);
    float tmy = dy > 0.0f ? (iy + 1 - oy) / dy : (dy < 0.0f ? (iy - oy) / dy : FLT_MAX);
    float tmz = dz > 0.0f ? (iz + 1 - oz) / dz : (dz < 0.0f ? (iz - oz) / dz : FLT_MAX);
    int steps = abs(jx - ix) + abs(jy - iy) + abs(jz - iz);
    for (int k = 0; k < steps; k++) {
        if (ix >= 0 && ix < nx && iy >= 0 && iy < ny && iz >= 0 && iz < nz)
            atomicAdd(&logodds[(iz * ny + iy) * nx + ix], L_FREE);
        if (tmx < tmy && tmx < tmz) {
            ix += sx;
            tmx += tdx;
        } else if (tmy < tmz) {
            iy += sy;
            tmy += tdy;
        } else {
            iz += sz;
            tmz += tdz;
        }
    }
    if (jx >= 0 && jx < nx && jy >= 0 && jy < ny && jz >= 0 && jz < nz)
        atomicAdd(&logodds[(jz * ny + jy) * nx + jx], p.w > 0.0f ? L_OCC : L_FREE);
}

// n particles (px, py, pth) score a scan of nb beam ends (bx, by: the sensor frame, metres; the
// sensor at (sx, sy) on the robot) against the log-likelihood field logp (W x H cells of side
// 1 / inv_res from (ox, oy), row-major): logw[i] = the sum of logp at the ends' cells, log_out
// for an end off the map
__global__ void pf_likelihood(const float *px, const float *py, const float *pth, const float *bx,
                              const float *by, int nb, const float *logp, int W, int H, float ox, float oy,
                              float inv_res, float sx, float sy, float log_out, float *logw, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float th = pth[i];
    float c = cosf(th);
    float s = sinf(th);
    // the sensor's position in the map
    float lx = px[i] + c * sx - s * sy;
    float ly = py[i] + s * sx + c * sy;
    float sum = 0.0f;
    for (int k = 0; k < nb; k++) {
        float ex = lx + c * bx[k] - s * by[k];
        float ey = ly + s * bx[k] + c * by[k];
        int cx = (int)floorf((ex - ox) * inv_res);
        int cy = (int)floorf((ey - oy) * inv_res);
        if (cx >= 0 && cx < W && cy >= 0 && cy < H)
            sum += logp[cy * W + cx];
        else
            sum += log_out;
    }
    logw[i] = sum;
}

// the (theta, x, y) window of a correlative scan matcher: rotation r = blockIdx.y (theta0 +
// r dtheta), translation (ix, iy) of the win x win window (blockIdx.x its CSM_TILE x CSM_TILE
// tile, row-major): score[(r win + iy) win + ix] = the sum of table (W x H bytes, row-major) at
// the cells of the nb scan points (bx, by: sensor frame, metres) rotated by theta, put at the
// guess (gx, gy: cells from the table's origin) and shifted by (ix - win / 2, iy - win / 2)
// cells, points off the table scoring 0
__global__ void csm_score(const float *bx, const float *by, int nb, const unsigned char *table, int W, int H,
                          float gx, float gy, float theta0, float dtheta, float inv_res, int win, int *score) {
    __shared__ int qx[CSM_MAXB];
    __shared__ int qy[CSM_MAXB];
    int tid = threadIdx.y * CSM_TILE + threadIdx.x;
    float th = theta0 + blockIdx.y * dtheta;
    float c = cosf(th);
    float s = sinf(th);
    for (int k = tid; k < nb; k += CSM_TILE * CSM_TILE) {
        qx[k] = (int)floorf(gx + (c * bx[k] - s * by[k]) * inv_res);
        qy[k] = (int)floorf(gy + (s * bx[k] + c * by[k]) * inv_res);
    }
    __syncthreads();
    int tiles = win / CSM_TILE;
    int ix = (blockIdx.x % tiles) * CSM_TILE + threadIdx.x;
    int iy = (blockIdx.x / tiles) * CSM_TILE + threadIdx.y;
    int ox = ix - win / 2;
    int oy = iy - win / 2;
    int sum = 0;
    for (int k = 0; k < nb; k++) {
        int cx = qx[k] + ox;
        int cy = qy[k] + oy;
        if (cx >= 0 && cx < W && cy >= 0 && cy < H) sum += table[cy * W + cx];
    }
    score[(blockIdx.y * win + iy) * win + ix] = sum;
}

// n RRT edges from (ax, ay, az) to (bx, by, bz): the samples a + (b - a) k / (ns - 1), k = 0 ..
// ns - 1, ns = max(ceil(|b - a| / res), 1) + 1, checked in order against the nobb boxes c_obb;
// hit[i] = the first sample within radius of a box (-1 if none)
__global__ void edge_collide(const float *ax, const float *ay, const float *az, const float *bx, const float *by,
                             const float *bz, float res, float radius, int nobb, int *hit, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x0 = ax[i];
    float y0 = ay[i];
    float z0 = az[i];
    float dx = bx[i] - x0;
    float dy = by[i] - y0;
    float dz = bz[i] - z0;
    float len = sqrtf(dx * dx + dy * dy + dz * dz);
    int ns = max((int)ceilf(len / res), 1) + 1;
    float r2 = radius * radius;
    int first = -1;
    for (int k = 0; k < ns && first < 0; k++) {
        float t = (float)k / (float)(ns - 1);
        float px = x0 + t * dx;
        float py = y0 + t * dy;
        float pz = z0 + t * dz;
        for (int j = 0; j < nobb; j++) {
            float ux = px - c_obb[j].cx;
            float uy = py - c_obb[j].cy;
            float uz = pz - c_obb[j].cz;
            // in the box's frame: R^T u
            float lx = c_obb[j].r[0] * ux + c_obb[j].r[3] * uy + c_obb[j].r[6] * uz;
            float ly = c_obb[j].r[1] * ux + c_obb[j].r[4] * uy + c_obb[j].r[7] * uz;
            float lz = c_obb[j].r[2] * ux + c_obb[j].r[5] * uy + c_obb[j].r[8] * uz;
            // the distance from the box
            float qx = fmaxf(fabsf(lx) - c_obb[j].hx, 0.0f);
            float qy = fmaxf(fabsf(ly) - c_obb[j].hy, 0.0f);
            float qz = fmaxf(fabsf(lz) - c_obb[j].hz, 0.0f);
            if (qx * qx + qy * qy + qz * qz < r2) {
                first = k;
                break;
            }
        }
    }
    hit[i] = first;
}

// n PRM edges between the nodes' poses (x, y, th): from[i] -> to[i]; len[i] the shortest Dubins
// path's length (turning radius rho), word[i] its word (0 LSL, 1 LSR, 2 RSL, 3 RSR, 4 RLR, 5 LRL)
__global__ void dubins_path(const float *x, const float *y, const float *th, const int *from, const int *to,
                            double rho, double *len, int *word, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a = from[i];
    int b = to[i];
    double dx = (double)x[b] - (double)x[a];
    double dy = (double)y[b] - (double)y[a];
    double d = sqrt(dx * dx + dy * dy) / rho;
    double phi = mod2pi(atan2(dy, dx));
    double al = mod2pi((double)th[a] - phi);
    double be = mod2pi((double)th[b] - phi);
    double sa = sin(al);
    double ca = cos(al);
    double sb = sin(be);
    double cb = cos(be);
    double cab = cos(al - be);
    double dsq = d * d;
    double best = 1e300;
    int bw = -1;
    double t, p, q, p2, tmp;
    // LSL
    p2 = 2.0 + dsq - 2.0 * cab + 2.0 * d * (sa - sb);
    if (p2 >= 0.0) {
        tmp = atan2(cb - ca, d + sa - sb);
        t = mod2pi(tmp - al);
        p = sqrt(p2);
        q = mod2pi(be - tmp);
        if (t + p + q < best) {
            best = t + p + q;
            bw = 0;
        }
    }
    // LSR
    p2 = -2.0 + dsq + 2.0 * cab + 2.0 * d * (sa + sb);
    if (p2 >= 0.0) {
        p = sqrt(p2);
        tmp = atan2(-ca - cb, d + sa + sb) - atan2(-2.0, p);
        t = mod2pi(tmp - al);
        q = mod2pi(tmp - mod2pi(be));
        if (t + p + q < best) {
            best = t + p + q;
            bw = 1;
        }
    }
    // RSL
    p2 = -2.0 + dsq + 2.0 * cab - 2.0 * d * (sa + sb);
    if (p2 >= 0.0) {
        p = sqrt(p2);
        tmp = atan2(ca + cb, d - sa - sb) - atan2(2.0, p);
        t = mod2pi(al - tmp);
        q = mod2pi(be - tmp);
        if (t + p + q < best) {
            best = t + p + q;
            bw = 2;
        }
    }
    // RSR
    p2 = 2.0 + dsq - 2.0 * cab + 2.0 * d * (sb - sa);
    if (p2 >= 0.0) {
        tmp = atan2(ca - cb, d - sa + sb);
        t = mod2pi(al - tmp);
        p = sqrt(p2);
        q = mod2pi(tmp - be);
        if (t + p + q < best) {
            best = t + p + q;
            bw = 3;
        }
    }
    // RLR
    tmp = (6.0 - dsq + 2.0 * cab + 2.0 * d * (sa - sb)) / 8.0;
    if (fabs(tmp) <= 1.0) {
        p = mod2pi(TWO_PI - acos(tmp));
        t = mod2pi(al - atan2(ca - cb, d - sa + sb) + mod2pi(p / 2.0));
        q = mod2pi(al - be - t + mod2pi(p));
        if (t + p + q < best) {
            best = t + p + q;
            bw = 4;
        }
    }
    // LRL
    tmp = (6.0 - dsq + 2.0 * cab + 2.0 * d * (sb - sa)) / 8.0;
    if (fabs(tmp) <= 1.0) {
        p = mod2pi(TWO_PI - acos(tmp));
        t = mod2pi(-al - atan2(ca - cb, d + sa - sb) + p / 2.0);
        q = mod2pi(mod2pi(be) - al - t + mod2pi(p));
        if (t + p + q < best) {
            best = t + p + q;
            bw = 5;
        }
    }
    len[i] = best * rho;
    word[i] = bw;
}

// one point-to-plane ICP step over the w x h pixels of the new frame's vertex and normal maps
// vcur, ncur (camera frame, x y z a pixel; z <= 0 no depth): a vertex moved to the world by the
// estimate T ([R | t], 12 floats row-major), into the previous camera by Tinv, projected (fx, fy,
// cx, cy) to the nearest pixel j of the previous frame's maps vprev, nprev (world frame; a zero
// normal no data); a pair within dist_th whose normals' cosine exceeds cos_th adds, with the
// residual r = n . (p - m) and J = (p x n, n), J^T J's upper triangle (row by row), J^T r, r^2
// and 1 to sums[0 .. ICP_NS - 1] (blockDim.x ICP_BLOCK)
__global__ void icp_reduce(const float *vcur, const float *ncur, const float *vprev, const float *nprev,
                           const float *T, const float *Tinv, float fx, float fy, float cx, float cy, int w, int h,
                           float dist_th, float cos_th, double *sums) {
    __shared__ double part[ICP_BLOCK / 32][ICP_NS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double acc[ICP_NS];
    for (int k = 0; k < ICP_NS; k++) acc[k] = 0.0;
    if (i < w * h && vcur[3 * i + 2] > 0.0f) {
        float x = vcur[3 * i];
        float y = vcur[3 * i + 1];
        float z = vcur[3 * i + 2];
        float px = T[0] * x + T[1] * y + T[2] * z + T[3];
        float py = T[4] * x + T[5] * y + T[6] * z + T[7];
        float pz = T[8] * x + T[9] * y + T[10] * z + T[11];
        float qx = Tinv[0] * px + Tinv[1] * py + Tinv[2] * pz + Tinv[3];
        float qy = Tinv[4] * px + Tinv[5] * py + Tinv[6] * pz + Tinv[7];
        float qz = Tinv[8] * px + Tinv[9] * py + Tinv[10] * pz + Tinv[11];
        int u = __float2int_rn(fx * qx / qz + cx);
        int v = __float2int_rn(fy * qy / qz + cy);
        if (qz > 0.0f && u >= 0 && u < w && v >= 0 && v < h) {
            int j = v * w + u;
            float nx = nprev[3 * j];
            float ny = nprev[3 * j + 1];
            float nz = nprev[3 * j + 2];
            float ddx = px - vprev[3 * j];
            float ddy = py - vprev[3 * j + 1];
            float ddz = pz - vprev[3 * j + 2];
            // the new normal in the world
            float mx = T[0] * ncur[3 * i] + T[1] * ncur[3 * i + 1] + T[2] * ncur[3 * i + 2];
            float my = T[4] * ncur[3 * i] + T[5] * ncur[3 * i + 1] + T[6] * ncur[3 * i + 2];
            float mz = T[8] * ncur[3 * i] + T[9] * ncur[3 * i + 1] + T[10] * ncur[3 * i + 2];
            bool valid = nx != 0.0f || ny != 0.0f || nz != 0.0f;
            if (valid && ddx * ddx + ddy * ddy + ddz * ddz < dist_th * dist_th && mx * nx + my * ny + mz * nz > cos_th) {
                float r = nx * ddx + ny * ddy + nz * ddz;
                float J[6] = {py * nz - pz * ny, pz * nx - px * nz, px * ny - py * nx, nx, ny, nz};
                int k = 0;
                for (int a = 0; a < 6; a++)
                    for (int b = a; b < 6; b++) acc[k++] = (double)J[a] * (double)J[b];
                for (int a = 0; a < 6; a++) acc[21 + a] = (double)J[a] * (double)r;
                acc[27] = (double)r * (double)r;
                acc[28] = 1.0;
            }
        }
    }
    // the block's sums: each warp's by shuffles, then the warps' through shared memory
    for (int k = 0; k < ICP_NS; k++)
        for (int o = 16; o > 0; o >>= 1) acc[k] += __shfl_down_sync(0xffffffff, acc[k], o);
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    if (lane == 0)
        for (int k = 0; k < ICP_NS; k++) part[warp][k] = acc[k];
    __syncthreads();
    if (threadIdx.x < ICP_NS) {
        double s = 0.0;
        for (int wi = 0; wi < ICP_BLOCK / 32; wi++) s += part[wi][threadIdx.x];
        atomicAdd(&sums[threadIdx.x], s);
    }
}

}
