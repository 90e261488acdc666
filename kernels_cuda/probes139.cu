// probe-unseen137: a 3-D point-cloud / LiDAR processing course's CUDA assignments, as a
// student who knows CUDA basics hands them in. The data is a simulated 64-beam spinning
// LiDAR's scan (ground plane, building facades, parked cars), points in firing order
// (column by column, the 64 beams of a column consecutive).
//
// voxel_accumulate: voxel-grid downsampling, pass 1: a thread a point, the point's voxel
//   in a cropped box (points outside skipped), its x, y, z added into the voxel's sums by
//   float atomicAdd and its count by an int atomicAdd (the host divides afterwards).
// knn_brute: brute-force k nearest neighbours (KNN_K) of each query point among nr
//   reference points (a map's keypoints), a thread a query, the references staged in
//   shared-memory tiles of KNN_TILE; the K best kept sorted in per-thread arrays by
//   insertion (ties to the lower index).
// normal_pca: surface normals of an organized scan: a thread a point, its NB_K neighbour
//   indices (a 4 x 4 window of the range image, found earlier) gathered, the 3 x 3
//   covariance, its smallest eigenvalue in closed form (the trigonometric solution of the
//   characteristic cubic), the eigenvector as the longest cross product of two rows of
//   C - lambda I, the normal turned toward the sensor and the surface variation stored.
// fps_sample: farthest-point sampling (PointNet++ style), a block a cloud of N points:
//   each of the M - 1 rounds updates every point's distance to the chosen set (kept in a
//   global scratch array) and finds the farthest by a shared-memory tree argmax.
// ransac_plane: RANSAC ground-plane hypotheses, a thread a hypothesis: three hashed
//   points, the plane through them, and its inliers among all np points counted from
//   shared-memory tiles (a degenerate triple counts 0).
// range_project: spherical projection of a scan into an H x W range image (RangeNet++
//   style): a thread a point (float4 x, y, z, intensity), its range, yaw by atan2f and
//   pitch by asinf, the pixel (the row clamped) and a z-buffer by atomicMin on the
//   range's bits (positive floats order as their bits).

#define KNN_K 8               // knn_brute: neighbours a query
#define KNN_TILE 256          // knn_brute: references a shared tile (blockDim.x == KNN_TILE)
#define NB_K 16               // normal_pca: neighbours a point
#define FPS_BLOCK 256         // fps_sample: threads a block (a cloud)
#define RS_TILE 256           // ransac_plane: points a shared tile (blockDim.x == RS_TILE)

extern "C" {

// a 32-bit integer hash (lowbias32) for the random draws
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// voxel grid of nx x ny x nz cubes of side 1 / inv_leaf from (ox, oy, oz); pts xyz
// interleaved; vsum 3 floats a voxel, vcount an int a voxel (both zeroed by the host)
__global__ void voxel_accumulate(const float *pts, float *vsum, int *vcount, float ox, float oy, float oz,
                                 float inv_leaf, int nx, int ny, int nz, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = pts[3 * i];
    float y = pts[3 * i + 1];
    float z = pts[3 * i + 2];
    int ix = (int)floorf((x - ox) * inv_leaf);
    int iy = (int)floorf((y - oy) * inv_leaf);
    int iz = (int)floorf((z - oz) * inv_leaf);
    if (ix < 0 || ix >= nx || iy < 0 || iy >= ny || iz < 0 || iz >= nz) return;   // cropped
    int v = (iz * ny + iy) * nx + ix;
    atomicAdd(&vsum[3 * v], x);
    atomicAdd(&vsum[3 * v + 1], y);
    atomicAdd(&vsum[3 * v + 2], z);
    atomicAdd(&vcount[v], 1);
}

// the KNN_K nearest of nr references (xyz interleaved) to each of nq queries, by squared
// distance ascending: their indices and squared distances (nq x KNN_K, row-major)
__global__ void knn_brute(const float *query, int nq, const float *ref, int nr, int *knn_idx, float *knn_d2) {
    __shared__ float sx[KNN_TILE];
    __shared__ float sy[KNN_TILE];
    __shared__ float sz[KNN_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float qx = 0.0f, qy = 0.0f, qz = 0.0f;
    if (i < nq) {
        qx = query[3 * i];
        qy = query[3 * i + 1];
        qz = query[3 * i + 2];
    }
    float bd[KNN_K];
    int bi[KNN_K];
    for (int k = 0; k < KNN_K; k++) {
        bd[k] = FLT_MAX;
        bi[k] = -1;
    }
    for (int t0 = 0; t0 < nr; t0 += KNN_TILE) {
        int j = t0 + threadIdx.x;
        if (j < nr) {
            sx[threadIdx.x] = ref[3 * j];
            sy[threadIdx.x] = ref[3 * j + 1];
            sz[threadIdx.x] = ref[3 * j + 2];
        }
        __syncthreads();
        int m = min(KNN_TILE, nr - t0);
        if (i < nq) {
            for (int jj = 0; jj < m; jj++) {
                float dx = sx[jj] - qx;
                float dy = sy[jj] - qy;
                float dz = sz[jj] - qz;
                float d = dx * dx + dy * dy + dz * dz;
                if (d < bd[KNN_K - 1]) {
                    int p = KNN_K - 1;
                    while (p > 0 && bd[p - 1] > d) {
                        bd[p] = bd[p - 1];
                        bi[p] = bi[p - 1];
                        p--;
                    }
                    bd[p] = d;
                    bi[p] = t0 + jj;
                }
            }
        }
        __syncthreads();
    }
    if (i < nq) {
        for (int k = 0; k < KNN_K; k++) {
            knn_idx[i * KNN_K + k] = bi[k];
            knn_d2[i * KNN_K + k] = bd[k];
        }
    }
}

// normals (xyz interleaved, toward the sensor at the origin) and surface variation
// lambda_min / trace of n points from their NB_K neighbours' indices (nbr, n x NB_K)
__global__ void normal_pca(const float *pts, const int *nbr, float *normals, float *curv, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float px[NB_K], py[NB_K], pz[NB_K];
    float cx = 0.0f, cy = 0.0f, cz = 0.0f;
    for (int k = 0; k < NB_K; k++) {
        int j = nbr[i * NB_K + k];
        px[k] = pts[3 * j];
        py[k] = pts[3 * j + 1];
        pz[k] = pts[3 * j + 2];
        cx += px[k];
        cy += py[k];
        cz += pz[k];
    }
    cx /= NB_K;
    cy /= NB_K;
    cz /= NB_K;
    float c00 = 0.0f, c01 = 0.0f, c02 = 0.0f, c11 = 0.0f, c12 = 0.0f, c22 = 0.0f;
    for (int k = 0; k < NB_K; k++) {
        float dx = px[k] - cx;
        float dy = py[k] - cy;
        float dz = pz[k] - cz;
        c00 += dx * dx;
        c01 += dx * dy;
        c02 += dx * dz;
        c11 += dy * dy;
        c12 += dy * dz;
        c22 += dz * dz;
    }
    c00 /= NB_K; c01 /= NB_K; c02 /= NB_K; c11 /= NB_K; c12 /= NB_K; c22 /= NB_K;

    // the smallest eigenvalue of the symmetric C (Smith's trigonometric solution)
    float tr = c00 + c11 + c22;
    float q = tr / 3.0f;
    float p1 = c01 * c01 + c02 * c02 + c12 * c12;
    float p2 = (c00 - q) * (c00 - q) + (c11 - q) * (c11 - q) + (c22 - q) * (c22 - q) + 2.0f * p1;
    float p = sqrtf(p2 / 6.0f);
    float lmin = q;
    if (p > 1e-12f) {
        float b00 = (c00 - q) / p, b11 = (c11 - q) / p, b22 = (c22 - q) / p;
        float b01 = c01 / p, b02 = c02 / p, b12 = c12 / p;
        float r = 0.5f * (b00 * (b11 * b22 - b12 * b12) - b01 * (b01 * b22 - b12 * b02)
                          + b02 * (b01 * b12 - b11 * b02));
        r = fminf(fmaxf(r, -1.0f), 1.0f);
        float phi = acosf(r) / 3.0f;
        lmin = q + 2.0f * p * cosf(phi + 2.0943951f);
    }

    // the eigenvector: the longest cross product of two rows of C - lmin I
    float r0x = c00 - lmin, r0y = c01, r0z = c02;
    float r1x = c01, r1y = c11 - lmin, r1z = c12;
    float r2x = c02, r2y = c12, r2z = c22 - lmin;
    float ax = r0y * r1z - r0z * r1y, ay = r0z * r1x - r0x * r1z, az = r0x * r1y - r0y * r1x;
    float bx = r0y * r2z - r0z * r2y, by = r0z * r2x - r0x * r2z, bz = r0x * r2y - r0y * r2x;
    float ex = r1y * r2z - r1z * r2y, ey = r1z * r2x - r1x * r2z, ez = r1x * r2y - r1y * r2x;
    float la = ax * ax + ay * ay + az * az;
    float lb = bx * bx + by * by + bz * bz;
    float le = ex * ex + ey * ey + ez * ez;
    float nx = ax, ny = ay, nz = az, ln = la;
    if (lb > ln) { nx = bx; ny = by; nz = bz; ln = lb; }
    if (le > ln) { nx = ex; ny = ey; nz = ez; ln = le; }
    if (ln > 0.0f) {
        float inv = rsqrtf(ln);
        nx *= inv; ny *= inv; nz *= inv;
    } else {
        nx = 0.0f; ny = 0.0f; nz = 1.0f;
    }
    // toward the sensor: n . (0 - p_i) >= 0
    float sxp = pts[3 * i], syp = pts[3 * i + 1], szp = pts[3 * i + 2];
    if (nx * sxp + ny * syp + nz * szp > 0.0f) {
        nx = -nx; ny = -ny; nz = -nz;
    }
    normals[3 * i] = nx;
    normals[3 * i + 1] = ny;
    normals[3 * i + 2] = nz;
    curv[i] = tr > 0.0f ? lmin / tr : 0.0f;
}

// farthest-point sampling of m of the N points of each cloud (a block a cloud, clouds
// of N points xyz interleaved one after another), starting from point 0; dist the N
// floats a cloud of scratch; the chosen indices (m a cloud) into idx
__global__ void fps_sample(const float *pts, float *dist, int *idx, int N, int m) {
    __shared__ float s_d[FPS_BLOCK];
    __shared__ int s_i[FPS_BLOCK];
    int tid = threadIdx.x;
    const float *p = pts + (size_t)blockIdx.x * N * 3;
    float *d = dist + (size_t)blockIdx.x * N;
    int *out = idx + (size_t)blockIdx.x * m;
    for (int k = tid; k < N; k += blockDim.x) d[k] = 1e10f;
    if (tid == 0) out[0] = 0;
    int last = 0;
    __syncthreads();
    for (int s = 1; s < m; s++) {
        float lx = p[3 * last];
        float ly = p[3 * last + 1];
        float lz = p[3 * last + 2];
        float best = -1.0f;
        int besti = 0;
        for (int k = tid; k < N; k += blockDim.x) {
            float dx = p[3 * k] - lx;
            float dy = p[3 * k + 1] - ly;
            float dz = p[3 * k + 2] - lz;
            float dd = fminf(d[k], dx * dx + dy * dy + dz * dz);
            d[k] = dd;
            if (dd > best) {
                best = dd;
                besti = k;
            }
        }
        s_d[tid] = best;
        s_i[tid] = besti;
        __syncthreads();
        for (int h = blockDim.x / 2; h > 0; h >>= 1) {
            if (tid < h) {
                float od = s_d[tid + h];
                int oi = s_i[tid + h];
                if (od > s_d[tid] || (od == s_d[tid] && oi < s_i[tid])) {
                    s_d[tid] = od;
                    s_i[tid] = oi;
                }
            }
            __syncthreads();
        }
        last = s_i[0];
        if (tid == 0) out[s] = last;
        __syncthreads();
    }
}

// nh plane hypotheses, each through three of the np points (xyz interleaved) drawn by
// hash(seed + 3 h + k) % np; its unit normal and offset (a, b, c, d: a x + b y + c z + d
// = 0) and the number of points within thr of it
__global__ void ransac_plane(const float *pts, int np, float thr, unsigned int seed, float4 *planes, int *inliers,
                             int nh) {
    __shared__ float sx[RS_TILE];
    __shared__ float sy[RS_TILE];
    __shared__ float sz[RS_TILE];
    int h = blockIdx.x * blockDim.x + threadIdx.x;
    bool valid = h < nh;
    float a = 0.0f, b = 0.0f, c = 0.0f, d = 0.0f;
    if (valid) {
        int i0 = hash32(seed + 3u * h) % np;
        int i1 = hash32(seed + 3u * h + 1u) % np;
        int i2 = hash32(seed + 3u * h + 2u) % np;
        float x0 = pts[3 * i0], y0 = pts[3 * i0 + 1], z0 = pts[3 * i0 + 2];
        float ux = pts[3 * i1] - x0, uy = pts[3 * i1 + 1] - y0, uz = pts[3 * i1 + 2] - z0;
        float vx = pts[3 * i2] - x0, vy = pts[3 * i2 + 1] - y0, vz = pts[3 * i2 + 2] - z0;
        a = uy * vz - uz * vy;
        b = uz * vx - ux * vz;
        c = ux * vy - uy * vx;
        float len = sqrtf(a * a + b * b + c * c);
        if (len < 1e-6f) {
            valid = false;                                  // collinear or repeated points
            a = 0.0f; b = 0.0f; c = 0.0f;
        } else {
            a /= len; b /= len; c /= len;
            d = -(a * x0 + b * y0 + c * z0);
        }
    }
    int count = 0;
    for (int t0 = 0; t0 < np; t0 += RS_TILE) {
        int j = t0 + threadIdx.x;
        if (j < np) {
            sx[threadIdx.x] = pts[3 * j];
            sy[threadIdx.x] = pts[3 * j + 1];
            sz[threadIdx.x] = pts[3 * j + 2];
        }
        __syncthreads();
        int m = min(RS_TILE, np - t0);
        if (valid) {
            for (int k = 0; k < m; k++) {
                float e = a * sx[k] + b * sy[k] + c * sz[k] + d;
                if (fabsf(e) < thr) count++;
            }
        }
        __syncthreads();
    }
    if (h < nh) {
        planes[h] = make_float4(a, b, c, d);
        inliers[h] = count;
    }
}

// n points (x, y, z, intensity) into an H x W range image (row 0 the fov_up elevation,
// fov the vertical field of view, radians; column 0 at yaw +pi, going clockwise):
// img holds the smallest range's bits a pixel (the host sets 0x7f7fffff, FLT_MAX)
__global__ void range_project(const float4 *pts, unsigned int *img, float fov_up, float fov, int H, int W, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pt = pts[i];
    float r = sqrtf(pt.x * pt.x + pt.y * pt.y + pt.z * pt.z);
    if (r < 0.1f) return;                                   // no return / the sensor itself
    float yaw = atan2f(pt.y, pt.x);
    float pitch = asinf(pt.z / r);
    float u = 0.5f * (1.0f - yaw / 3.14159265f) * W;
    float v = (fov_up - pitch) / fov * H;
    int col = min(W - 1, max(0, (int)floorf(u)));
    int row = min(H - 1, max(0, (int)floorf(v)));
    atomicMin(&img[row * W + col], __float_as_uint(r));
}

}
