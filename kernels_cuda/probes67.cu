// probe-unseen65: a robotics course's CUDA assignments (probabilistic robotics, mapping,
// manipulation), as a student who knows CUDA basics hands them in: the measurement update
// of a particle filter localizing against 32 known landmarks, a thread a particle (x, y,
// theta) predicting each landmark's range (sqrtf) and bearing (atan2f, wrapped into
// [-pi, pi] by while loops) and scoring them against the measured ones (in __constant__
// memory) with a Gaussian log-likelihood, its weight expf'd and stored, the weights summed
// by a __shfl_down_sync tree a warp and one float atomicAdd a warp; systematic resampling,
// a thread an output particle binary-searching its point (u0 + i) / n in the weights' CDF
// (dependent loads) and copying the chosen particle's state (gathers); an occupancy-grid
// update from lidar scans, a thread a beam walking Bresenham's line from its scan's sensor
// cell to its hit cell through a 2-D grid of integer log-odds, an atomicAdd of the free
// increment on every cell it passes and of the occupied one on the hit cell; ICP's
// correspondence step, a thread a source point finding its nearest target point by brute
// force, the targets staged through shared memory a block-sized tile at a time; a voxel-grid
// downsample, a thread a point (float3) hashing itself to its voxel of a dense 3-D grid and
// adding its coordinates and a count there with four global atomicAdds (the centroids the
// next pass would divide out); and the forward kinematics and geometric Jacobian of a 7-DOF
// arm (standard Denavit-Hartenberg parameters in __constant__ memory), a thread a joint
// configuration: sincosf a joint, 3x3 rotation products, the end effector's 3x4 pose and
// the 6x7 Jacobian (cross products) stored per configuration.

#define PF_LM 32              // pf_weight: landmarks (and measurements, one a landmark)
#define PI_F 3.14159265358979f
#define OG_FREE -4            // occgrid_update: log-odds (x10) added to a cell a beam passes through
#define OG_OCC 9              // and to the cell it ends in
#define ICP_TILE 256          // icp_nearest: targets a shared tile (== blockDim.x)
#define FK_DOF 7              // fk_jacobian: the arm's joints

extern "C" {

// the landmarks' positions and their measured ranges and bearings (set by the host)
__constant__ float c_lm_x[PF_LM];
__constant__ float c_lm_y[PF_LM];
__constant__ float c_z_r[PF_LM];
__constant__ float c_z_b[PF_LM];

// the arm's DH parameters: a, d, cos(alpha), sin(alpha) of each joint (set by the host)
__constant__ float c_dh_a[FK_DOF];
__constant__ float c_dh_d[FK_DOF];
__constant__ float c_dh_ca[FK_DOF];
__constant__ float c_dh_sa[FK_DOF];

// w[i] = exp(-1/2 sum_k ((z_r[k] - r_k)^2 / var_r + (wrap(z_b[k] - b_k))^2 / var_b)), r_k
// and b_k the range and bearing of landmark k seen from particle i; *wsum += the weights;
// blockDim.x a multiple of 32
__global__ void pf_weight(const float *px, const float *py, const float *pth, float *w, float *wsum,
                          float inv_var_r, float inv_var_b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float wi = 0.0f;
    if (i < n) {
        float x = px[i];
        float y = py[i];
        float th = pth[i];
        float ll = 0.0f;
        for (int k = 0; k < PF_LM; k++) {
            float dx = c_lm_x[k] - x;
            float dy = c_lm_y[k] - y;
            float r = sqrtf(dx * dx + dy * dy);
            float b = atan2f(dy, dx) - th;
            float er = c_z_r[k] - r;
            float eb = c_z_b[k] - b;
            while (eb > PI_F) eb -= 2.0f * PI_F;
            while (eb < -PI_F) eb += 2.0f * PI_F;
            ll += er * er * inv_var_r + eb * eb * inv_var_b;
        }
        wi = expf(-0.5f * ll);
        w[i] = wi;
    }
    for (int off = 16; off > 0; off >>= 1) wi += __shfl_down_sync(0xffffffffu, wi, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(wsum, wi);
}

// parent[i] = the first j with cdf[j] >= (u0 + i) / n (n - 1 if none), and particle i of
// the new set (qx, qy, qth) a copy of particle parent[i] of the old one
__global__ void systematic_resample(const float *cdf, const float *px, const float *py, const float *pth,
                                    float *qx, float *qy, float *qth, int *parent, float u0, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float u = (u0 + (float)i) / (float)n;
    int lo = 0;
    int hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (cdf[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    parent[i] = lo;
    qx[i] = px[lo];
    qy[i] = py[lo];
    qth[i] = pth[lo];
}

// beam i of scan i / beams (sensor at org[scan], hit at hit[i], world coordinates): every
// cell of Bresenham's line from the sensor's cell to the hit's cell gets OG_FREE, the hit's
// cell OG_OCC; cells (x, y) at grid[y * width + x], (ox, oy) the world position of cell
// (0, 0)'s corner, inv_res cells a metre; beams with an end outside the grid are dropped
__global__ void occgrid_update(const float2 *hit, const float2 *org, int *grid, int beams, float ox, float oy,
                               float inv_res, int width, int height, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 s = org[i / beams];
    float2 e = hit[i];
    int x0 = (int)floorf((s.x - ox) * inv_res);
    int y0 = (int)floorf((s.y - oy) * inv_res);
    int x1 = (int)floorf((e.x - ox) * inv_res);
    int y1 = (int)floorf((e.y - oy) * inv_res);
    if (x0 < 0 || y0 < 0 || x0 >= width || y0 >= height) return;
    if (x1 < 0 || y1 < 0 || x1 >= width || y1 >= height) return;
    int dx = abs(x1 - x0);
    int dy = -abs(y1 - y0);
    int sx = x0 < x1 ? 1 : -1;
    int sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    int x = x0;
    int y = y0;
    while (x != x1 || y != y1) {
        atomicAdd(&grid[y * width + x], OG_FREE);
        int e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            x += sx;
        }
        if (e2 <= dx) {
            err += dx;
            y += sy;
        }
    }
    atomicAdd(&grid[y1 * width + x1], OG_OCC);
}

// nn[i] = the index of the target point nearest source point i (the first of equals),
// d2[i] its squared distance; blockDim.x == ICP_TILE
__global__ void icp_nearest(const float3 *src, int n, const float3 *dst, int m, int *nn, float *d2) {
    __shared__ float3 tile[ICP_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float3 p = make_float3(0.0f, 0.0f, 0.0f);
    if (i < n) p = src[i];
    float best = 3.402823466e38f;
    int besti = -1;
    for (int t0 = 0; t0 < m; t0 += ICP_TILE) {
        int j = t0 + threadIdx.x;
        if (j < m) tile[threadIdx.x] = dst[j];
        __syncthreads();
        int cnt = min(ICP_TILE, m - t0);
        for (int k = 0; k < cnt; k++) {
            float dx = tile[k].x - p.x;
            float dy = tile[k].y - p.y;
            float dz = tile[k].z - p.z;
            float d = dx * dx + dy * dy + dz * dz;
            if (d < best) {
                best = d;
                besti = t0 + k;
            }
        }
        __syncthreads();
    }
    if (i < n) {
        nn[i] = besti;
        d2[i] = best;
    }
}

// point i falls in voxel (ix, iy, iz) = floor((p - (minx, miny, minz)) * inv_leaf) of a
// gx x gy x gz grid (voxel (iz * gy + iy) * gx + ix): its coordinates added to the voxel's
// sums, 1 to its count; points outside the grid dropped
__global__ void voxel_accumulate(const float3 *pts, float *sx, float *sy, float *sz, int *cnt, float minx,
                                 float miny, float minz, float inv_leaf, int gx, int gy, int gz, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 p = pts[i];
    int ix = (int)floorf((p.x - minx) * inv_leaf);
    int iy = (int)floorf((p.y - miny) * inv_leaf);
    int iz = (int)floorf((p.z - minz) * inv_leaf);
    if (ix < 0 || iy < 0 || iz < 0 || ix >= gx || iy >= gy || iz >= gz) return;
    int v = (iz * gy + iy) * gx + ix;
    atomicAdd(&sx[v], p.x);
    atomicAdd(&sy[v], p.y);
    atomicAdd(&sz[v], p.z);
    atomicAdd(&cnt[v], 1);
}

// configuration i (q[7 i .. 7 i + 6], radians): pose[12 i ..] = the end effector's [R | t]
// (3 x 4, row-major) in the base frame, jac[42 i ..] = the 6 x 7 geometric Jacobian
// (row-major: linear velocity rows, then angular), T_j = Rz(q_j) Tz(d_j) Tx(a_j) Rx(alpha_j)
__global__ void fk_jacobian(const float *q, float *pose, float *jac, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float R[3][3] = {{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f}};
    float t[3] = {0.0f, 0.0f, 0.0f};
    float z[FK_DOF][3];
    float o[FK_DOF][3];
    for (int j = 0; j < FK_DOF; j++) {
        for (int r = 0; r < 3; r++) {
            z[j][r] = R[r][2];
            o[j][r] = t[r];
        }
        float s, c;
        sincosf(q[i * FK_DOF + j], &s, &c);
        float ca = c_dh_ca[j], sa = c_dh_sa[j], a = c_dh_a[j], d = c_dh_d[j];
        float A[3][3] = {{c, -s * ca, s * sa}, {s, c * ca, -c * sa}, {0.0f, sa, ca}};
        float p[3] = {a * c, a * s, d};
        float Rn[3][3];
        for (int r = 0; r < 3; r++) {
            for (int k = 0; k < 3; k++)
                Rn[r][k] = R[r][0] * A[0][k] + R[r][1] * A[1][k] + R[r][2] * A[2][k];
            t[r] += R[r][0] * p[0] + R[r][1] * p[1] + R[r][2] * p[2];
        }
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 3; k++) R[r][k] = Rn[r][k];
    }
    for (int r = 0; r < 3; r++) {
        for (int k = 0; k < 3; k++) pose[i * 12 + r * 4 + k] = R[r][k];
        pose[i * 12 + r * 4 + 3] = t[r];
    }
    for (int j = 0; j < FK_DOF; j++) {
        float ex = t[0] - o[j][0], ey = t[1] - o[j][1], ez = t[2] - o[j][2];
        jac[i * 42 + 0 * FK_DOF + j] = z[j][1] * ez - z[j][2] * ey;
        jac[i * 42 + 1 * FK_DOF + j] = z[j][2] * ex - z[j][0] * ez;
        jac[i * 42 + 2 * FK_DOF + j] = z[j][0] * ey - z[j][1] * ex;
        jac[i * 42 + 3 * FK_DOF + j] = z[j][0];
        jac[i * 42 + 4 * FK_DOF + j] = z[j][1];
        jac[i * 42 + 5 * FK_DOF + j] = z[j][2];
    }
}

}
