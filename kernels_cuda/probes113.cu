// probe-unseen111: a geometry-processing course's CUDA assignments (triangle meshes), as a
// student who knows CUDA basics hands them in. Every mesh is an indexed triangle mesh:
// positions AoS (x, y, z floats a vertex), faces as three int vertex indices, the vertex
// adjacency in CSR (row_ptr, then each vertex's neighbours in counter-clockwise order
// around it, as a half-edge walk lists them).
//   vertex_normals_accum: area-weighted vertex normals, a thread a face: the face's cross
//     product added to its three vertices' normals with 9 float atomicAdds;
//   laplacian_smooth: one step of uniform ("umbrella") Laplacian smoothing over the CSR
//     adjacency, a thread a vertex: p += lambda (mean of the neighbours - p);
//   qem_edge_cost: Garland-Heckbert quadric error of collapsing each edge, a thread an edge:
//     the endpoints' quadrics summed in double, the optimal position by Cramer's rule, or,
//     when the 3x3 system is (nearly) singular, the best of the endpoints and the midpoint;
//   bbox_centroid: the bounding box and centroid of the vertices, a grid-stride loop then a
//     shared-memory tree reduction of float3 min / max / sum, a block's partials stored;
//   weld_hash: welding a triangle soup (STL: each face's corners stored separately):
//     positions quantized to a grid cell, the cell's 63-bit key inserted into an
//     open-addressing hash table by 64-bit atomicCAS with linear probing, each corner's
//     slot stored and the lowest corner index a slot kept by atomicMin (the welded vertex);
//   cotan_curvature: discrete mean curvature (cotangent Laplacian over the ordered one-ring)
//     and Gaussian curvature (angle defect), both over the barycentric area, a thread a vertex.

#define BB_BLOCK 256                 // bbox_centroid: threads a block (the shared arrays)
#define QEM_EPS 1e-4                 // qem_edge_cost: |det| < QEM_EPS trace^3 counts as singular
#define WELD_EMPTY 0xffffffffffffffffull   // weld_hash: an empty slot's key
#define TWO_PI 6.28318531f

extern "C" {

// ---- per-vertex normals from faces (atomics) ----

__global__ void vertex_normals_accum(const float *pos, const int *faces, float *nrm, int nf) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= nf) return;
    int a = faces[3 * f];
    int b = faces[3 * f + 1];
    int c = faces[3 * f + 2];
    float ax = pos[3 * a], ay = pos[3 * a + 1], az = pos[3 * a + 2];
    float e1x = pos[3 * b] - ax, e1y = pos[3 * b + 1] - ay, e1z = pos[3 * b + 2] - az;
    float e2x = pos[3 * c] - ax, e2y = pos[3 * c + 1] - ay, e2z = pos[3 * c + 2] - az;
    // the cross product: its length is twice the face's area (area weighting for free)
    float nx = e1y * e2z - e1z * e2y;
    float ny = e1z * e2x - e1x * e2z;
    float nz = e1x * e2y - e1y * e2x;
    atomicAdd(&nrm[3 * a], nx);
    atomicAdd(&nrm[3 * a + 1], ny);
    atomicAdd(&nrm[3 * a + 2], nz);
    atomicAdd(&nrm[3 * b], nx);
    atomicAdd(&nrm[3 * b + 1], ny);
    atomicAdd(&nrm[3 * b + 2], nz);
    atomicAdd(&nrm[3 * c], nx);
    atomicAdd(&nrm[3 * c + 1], ny);
    atomicAdd(&nrm[3 * c + 2], nz);
}

// ---- uniform Laplacian smoothing over CSR ----

__global__ void laplacian_smooth(const float *pos, const int *row_ptr, const int *nbr, float *out, float lambda,
                                 int nv) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= nv) return;
    int s = row_ptr[v];
    int e = row_ptr[v + 1];
    float cx = 0.0f, cy = 0.0f, cz = 0.0f;
    for (int k = s; k < e; k++) {
        int u = nbr[k];
        cx += pos[3 * u];
        cy += pos[3 * u + 1];
        cz += pos[3 * u + 2];
    }
    float inv = 1.0f / (float)(e - s);
    float px = pos[3 * v], py = pos[3 * v + 1], pz = pos[3 * v + 2];
    out[3 * v] = px + lambda * (cx * inv - px);
    out[3 * v + 1] = py + lambda * (cy * inv - py);
    out[3 * v + 2] = pz + lambda * (cz * inv - pz);
}

// ---- quadric error metric: edge-collapse cost ----

// v^T Q v of the quadric q (a2 ab ac ad b2 bc bd c2 cd d2) at (x, y, z, 1)
__device__ double quadric_eval(const double *q, double x, double y, double z) {
    return q[0] * x * x + 2.0 * q[1] * x * y + 2.0 * q[2] * x * z + 2.0 * q[3] * x
         + q[4] * y * y + 2.0 * q[5] * y * z + 2.0 * q[6] * y
         + q[7] * z * z + 2.0 * q[8] * z + q[9];
}

__global__ void qem_edge_cost(const float *Q, const float *pos, const int *edges, float *cost, float *target,
                              int ne) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= ne) return;
    int i = edges[2 * e];
    int j = edges[2 * e + 1];
    double q[10];
    for (int k = 0; k < 10; k++) q[k] = (double)Q[10 * i + k] + (double)Q[10 * j + k];

    // the 3x3 system [a b c; b d f; c f g] x = -[q3 q6 q8]
    double a = q[0], b = q[1], c = q[2], d = q[4], f = q[5], g = q[7];
    double m0 = d * g - f * f;
    double m1 = b * g - f * c;
    double m2 = b * f - d * c;
    double det = a * m0 - b * m1 + c * m2;
    double tr = a + d + g;
    double x, y, z, best;
    if (fabs(det) > QEM_EPS * tr * tr * tr) {
        double r0 = -q[3], r1 = -q[6], r2 = -q[8];
        x = (r0 * m0 - b * (r1 * g - f * r2) + c * (r1 * f - d * r2)) / det;
        y = (a * (r1 * g - f * r2) - r0 * m1 + c * (b * r2 - r1 * c)) / det;
        z = (a * (d * r2 - r1 * f) - b * (b * r2 - r1 * c) + r0 * m2) / det;
        best = quadric_eval(q, x, y, z);
    } else {
        // singular: try the two endpoints and the midpoint
        double xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2];
        double xj = pos[3 * j], yj = pos[3 * j + 1], zj = pos[3 * j + 2];
        x = xi; y = yi; z = zi;
        best = quadric_eval(q, xi, yi, zi);
        double cj = quadric_eval(q, xj, yj, zj);
        if (cj < best) { best = cj; x = xj; y = yj; z = zj; }
        double xm = 0.5 * (xi + xj), ym = 0.5 * (yi + yj), zm = 0.5 * (zi + zj);
        double cm = quadric_eval(q, xm, ym, zm);
        if (cm < best) { best = cm; x = xm; y = ym; z = zm; }
    }
    cost[e] = (float)best;
    target[3 * e] = (float)x;
    target[3 * e + 1] = (float)y;
    target[3 * e + 2] = (float)z;
}

// ---- bounding box and centroid: grid-stride loop + shared-memory reduction ----

__global__ void bbox_centroid(const float *pos, float *partial, int nv) {
    __shared__ float3 s_min[BB_BLOCK];
    __shared__ float3 s_max[BB_BLOCK];
    __shared__ float3 s_sum[BB_BLOCK];
    int t = threadIdx.x;
    float3 mn = make_float3(FLT_MAX, FLT_MAX, FLT_MAX);
    float3 mx = make_float3(-FLT_MAX, -FLT_MAX, -FLT_MAX);
    float3 sm = make_float3(0.0f, 0.0f, 0.0f);
    for (int v = blockIdx.x * blockDim.x + t; v < nv; v += gridDim.x * blockDim.x) {
        float x = pos[3 * v], y = pos[3 * v + 1], z = pos[3 * v + 2];
        mn.x = fminf(mn.x, x); mn.y = fminf(mn.y, y); mn.z = fminf(mn.z, z);
        mx.x = fmaxf(mx.x, x); mx.y = fmaxf(mx.y, y); mx.z = fmaxf(mx.z, z);
        sm.x += x; sm.y += y; sm.z += z;
    }
    s_min[t] = mn;
    s_max[t] = mx;
    s_sum[t] = sm;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            s_min[t].x = fminf(s_min[t].x, s_min[t + s].x);
            s_min[t].y = fminf(s_min[t].y, s_min[t + s].y);
            s_min[t].z = fminf(s_min[t].z, s_min[t + s].z);
            s_max[t].x = fmaxf(s_max[t].x, s_max[t + s].x);
            s_max[t].y = fmaxf(s_max[t].y, s_max[t + s].y);
            s_max[t].z = fmaxf(s_max[t].z, s_max[t + s].z);
            s_sum[t].x += s_sum[t + s].x;
            s_sum[t].y += s_sum[t + s].y;
            s_sum[t].z += s_sum[t + s].z;
        }
        __syncthreads();
    }
    if (t == 0) {
        float *o = partial + 9 * blockIdx.x;
        o[0] = s_min[0].x; o[1] = s_min[0].y; o[2] = s_min[0].z;
        o[3] = s_max[0].x; o[4] = s_max[0].y; o[5] = s_max[0].z;
        o[6] = s_sum[0].x; o[7] = s_sum[0].y; o[8] = s_sum[0].z;
    }
}

// ---- vertex welding by hashing quantized positions ----

// MurmurHash3's 64-bit finalizer
__device__ unsigned long long fmix64(unsigned long long k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

__global__ void weld_hash(const float *pos, unsigned long long *keys, int *rep, int *slot_of, float ox, float oy,
                          float oz, float inv_cell, unsigned int cap_mask, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    // the grid cell (21 bits an axis)
    unsigned int qx = (unsigned int)floorf((pos[3 * v] - ox) * inv_cell);
    unsigned int qy = (unsigned int)floorf((pos[3 * v + 1] - oy) * inv_cell);
    unsigned int qz = (unsigned int)floorf((pos[3 * v + 2] - oz) * inv_cell);
    unsigned long long key = ((unsigned long long)qx << 42) | ((unsigned long long)qy << 21) | qz;
    unsigned int h = (unsigned int)fmix64(key) & cap_mask;
    while (true) {
        unsigned long long prev = atomicCAS(&keys[h], WELD_EMPTY, key);
        if (prev == WELD_EMPTY || prev == key) break;
        h = (h + 1) & cap_mask;
    }
    atomicMin(&rep[h], v);
    slot_of[v] = h;
}

// ---- discrete curvatures: cotangent Laplacian and angle defect ----

__global__ void cotan_curvature(const float *pos, const int *row_ptr, const int *ring, float *H, float *K, int nv) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= nv) return;
    float px = pos[3 * v], py = pos[3 * v + 1], pz = pos[3 * v + 2];
    int s = row_ptr[v];
    int e = row_ptr[v + 1];
    float hx = 0.0f, hy = 0.0f, hz = 0.0f;
    float area = 0.0f;
    float angle = 0.0f;
    for (int k = s; k < e; k++) {
        int ia = ring[k];
        int ib = ring[k + 1 < e ? k + 1 : s];     // the next neighbour: the face (v, a, b)
        float ax = pos[3 * ia] - px, ay = pos[3 * ia + 1] - py, az = pos[3 * ia + 2] - pz;
        float bx = pos[3 * ib] - px, by = pos[3 * ib + 1] - py, bz = pos[3 * ib + 2] - pz;
        float dx = bx - ax, dy = by - ay, dz = bz - az;
        float cx = ay * bz - az * by;
        float cy = az * bx - ax * bz;
        float cz = ax * by - ay * bx;
        float cr = sqrtf(cx * cx + cy * cy + cz * cz);    // twice the face's area
        angle += atan2f(cr, ax * bx + ay * by + az * bz);
        float cot_a = -(ax * dx + ay * dy + az * dz) / cr;   // the angle at a, opposite the edge v-b
        float cot_b = (bx * dx + by * dy + bz * dz) / cr;    // the angle at b, opposite the edge v-a
        hx += cot_a * bx + cot_b * ax;
        hy += cot_a * by + cot_b * ay;
        hz += cot_a * bz + cot_b * az;
        area += cr / 6.0f;                                    // a third of the face's area
    }
    H[v] = sqrtf(hx * hx + hy * hy + hz * hz) / (4.0f * area);
    K[v] = (TWO_PI - angle) / area;
}

}
