// probe-unseen83: a computational-geometry course's CUDA assignments, as a student who
// knows CUDA basics hands them in:
//  - pip_raycast: point-in-polygon by ray casting (W. R. Franklin's PNPOLY crossing test)
//    of many query points against one non-convex polygon of a few hundred vertices, the
//    polygon staged in shared memory, a thread a query point;
//  - nearest_site_grid: nearest-site search over a uniform grid of buckets (the sites
//    counting-sorted by cell on the host, cell_start the CSR of the cells), a thread a
//    query scanning its own cell and the 8 around it;
//  - seg_intersect_count: counting proper segment-segment intersections among n segments
//    with integer endpoints by orientation predicates, all pairs in 2-D tiles of SEG_TILE
//    (the j tile staged in shared memory, the blocks below the diagonal exiting), each
//    hit counted for both segments with atomicAdd and the total in one global counter;
//  - poly_area_centroid: signed areas and centroids of many small polygons by the
//    shoelace formula, a thread an edge (relative to its polygon's first vertex), the
//    cross products and the centroid moments folded into the polygon's sums by atomicAdd;
//  - delaunay_incircle: the Delaunay test of a triangle mesh, a thread a triangle: for
//    each of its 3 neighbours the apex across the shared edge is found and the in-circle
//    determinant evaluated in double (integer coordinates: exact), the illegal edges
//    flagged and counted by a warp reduction and one atomicAdd a warp;
//  - edt_columns: the first (column) pass of an exact Euclidean distance transform
//    (Meijster et al.), a thread a column: a forward scan for the distance to the nearest
//    feature above and a backward scan taking the one below.

#define PIP_MAX_V 512          // pip_raycast: the most polygon vertices (shared memory)
#define SEG_TILE 128           // seg_intersect_count: segments a tile (blockDim.x == SEG_TILE)

extern "C" {

// ---- point in polygon ----

// inside[i] = 1 when point (px[i], py[i]) lies inside the polygon (vx, vy) of nv vertices
// (even-odd rule: a horizontal ray to +x crosses an odd number of edges)
__global__ void pip_raycast(const float *px, const float *py, const float *vx, const float *vy, int nv,
                            unsigned char *inside, int n) {
    __shared__ float sx[PIP_MAX_V];
    __shared__ float sy[PIP_MAX_V];
    for (int k = threadIdx.x; k < nv; k += blockDim.x) {
        sx[k] = vx[k];
        sy[k] = vy[k];
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = px[i];
    float y = py[i];
    int c = 0;
    for (int a = 0, b = nv - 1; a < nv; b = a++) {
        float xa = sx[a];
        float ya = sy[a];
        float xb = sx[b];
        float yb = sy[b];
        if (((ya > y) != (yb > y)) && (x < (xb - xa) * (y - ya) / (yb - ya) + xa)) c = !c;
    }
    inside[i] = c;
}

// ---- nearest site on a uniform grid ----

// for each query point in [0, 1)^2, the nearest of the sites in its grid cell and the 8
// cells around it (G x G cells; the sites sorted by cell, cell c's in cell_start[c] ..
// cell_start[c + 1] - 1): its index in the sorted arrays (-1 if none) and squared distance
__global__ void nearest_site_grid(const float *qx, const float *qy, const float *sx, const float *sy,
                                  const int *cell_start, int G, int *nearest, float *dist2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = qx[i];
    float y = qy[i];
    int cx = min((int)(x * G), G - 1);
    int cy = min((int)(y * G), G - 1);
    float best = FLT_MAX;
    int bi = -1;
    for (int gy = max(cy - 1, 0); gy <= min(cy + 1, G - 1); gy++) {
        for (int gx = max(cx - 1, 0); gx <= min(cx + 1, G - 1); gx++) {
            int c = gy * G + gx;
            int end = cell_start[c + 1];
            for (int k = cell_start[c]; k < end; k++) {
                float dx = sx[k] - x;
                float dy = sy[k] - y;
                float d = dx * dx + dy * dy;
                if (d < best) {
                    best = d;
                    bi = k;
                }
            }
        }
    }
    nearest[i] = bi;
    dist2[i] = best;
}

// ---- segment intersections ----

// twice the signed area of (a, b, c): > 0 when c lies left of a -> b
__device__ float orient(float ax, float ay, float bx, float by, float cx, float cy) {
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

// segments p (x, y = one end, z, w = the other) and q cross at a point inside both
__device__ bool seg_cross(float4 p, float4 q) {
    float o1 = orient(p.x, p.y, p.z, p.w, q.x, q.y);
    float o2 = orient(p.x, p.y, p.z, p.w, q.z, q.w);
    float o3 = orient(q.x, q.y, q.z, q.w, p.x, p.y);
    float o4 = orient(q.x, q.y, q.z, q.w, p.z, p.w);
    return (o1 * o2 < 0.0f) && (o3 * o4 < 0.0f);
}

// cnt[i] += the segments j != i that seg[i] crosses, *total += the crossing pairs; a block
// (blockIdx.x, blockIdx.y) tests the pairs i < j of tile x against tile y (y >= x)
__global__ void seg_intersect_count(const float4 *seg, int *cnt, int *total, int n) {
    __shared__ float4 s_seg[SEG_TILE];
    if (blockIdx.y < blockIdx.x) return;             // each pair once
    int i = blockIdx.x * SEG_TILE + threadIdx.x;
    int j0 = blockIdx.y * SEG_TILE;
    if (j0 + threadIdx.x < n) s_seg[threadIdx.x] = seg[j0 + threadIdx.x];
    __syncthreads();
    if (i >= n) return;
    float4 p = seg[i];
    int hits = 0;
    for (int k = 0; k < SEG_TILE; k++) {
        int j = j0 + k;
        if (j <= i || j >= n) continue;
        if (seg_cross(p, s_seg[k])) {
            hits++;
            atomicAdd(&cnt[j], 1);
        }
    }
    if (hits > 0) {
        atomicAdd(&cnt[i], hits);
        atomicAdd(total, hits);
    }
}

// ---- polygon areas and centroids ----

// edge e runs from vertex e to the next vertex of its polygon p = poly_of[e] (the vertices
// of p are start[p] .. start[p + 1] - 1, closed); relative to the polygon's first vertex
// v0 it adds its cross product to area2[p] (twice the signed area) and its moments to
// mx[p], my[p]: the centroid is v0 + (mx, my) / (3 area2)
__global__ void poly_area_centroid(const float *x, const float *y, const int *poly_of, const int *start,
                                   float *area2, float *mx, float *my, int n) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n) return;
    int p = poly_of[e];
    int s = start[p];
    int f = e + 1;
    if (f == start[p + 1]) f = s;
    float x0 = x[s];
    float y0 = y[s];
    float ax = x[e] - x0;
    float ay = y[e] - y0;
    float bx = x[f] - x0;
    float by = y[f] - y0;
    float cr = ax * by - bx * ay;
    atomicAdd(&area2[p], cr);
    atomicAdd(&mx[p], (ax + bx) * cr);
    atomicAdd(&my[p], (ay + by) * cr);
}

// ---- Delaunay in-circle test ----

// > 0 when d lies inside the circle through a, b, c (counter-clockwise)
__device__ double incircle(double ax, double ay, double bx, double by, double cx, double cy, double dx, double dy) {
    double adx = ax - dx;
    double ady = ay - dy;
    double bdx = bx - dx;
    double bdy = by - dy;
    double cdx = cx - dx;
    double cdy = cy - dy;
    double alift = adx * adx + ady * ady;
    double blift = bdx * bdx + bdy * bdy;
    double clift = cdx * cdx + cdy * cdy;
    return alift * (bdx * cdy - cdx * bdy) + blift * (cdx * ady - adx * cdy) + clift * (adx * bdy - bdx * ady);
}

// triangle t (vertices tri[3t .. 3t + 2], counter-clockwise) and its neighbour nbr[3t + k]
// across the edge opposite its vertex k (-1 on the boundary): bit k of illegal[t] set when
// the neighbour's apex lies strictly inside t's circumcircle; *n_illegal += the bits set
__global__ void delaunay_incircle(const float *X, const float *Y, const int *tri, const int *nbr,
                                  unsigned char *illegal, int *n_illegal, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int count = 0;
    if (t < n) {
        int v[3];
        v[0] = tri[3 * t];
        v[1] = tri[3 * t + 1];
        v[2] = tri[3 * t + 2];
        double ax = X[v[0]];
        double ay = Y[v[0]];
        double bx = X[v[1]];
        double by = Y[v[1]];
        double cx = X[v[2]];
        double cy = Y[v[2]];
        unsigned char flags = 0;
        for (int k = 0; k < 3; k++) {
            int u = nbr[3 * t + k];
            if (u < 0) continue;
            int e0 = v[(k + 1) % 3];
            int e1 = v[(k + 2) % 3];
            int d = -1;
            for (int m = 0; m < 3; m++) {
                int w = tri[3 * u + m];
                if (w != e0 && w != e1) d = w;
            }
            if (incircle(ax, ay, bx, by, cx, cy, X[d], Y[d]) > 0.0) {
                flags |= 1 << k;
                count++;
            }
        }
        illegal[t] = flags;
    }
    for (int o = 16; o > 0; o >>= 1) count += __shfl_down_sync(0xffffffff, count, o);
    if ((threadIdx.x & 31) == 0 && count > 0) atomicAdd(n_illegal, count);
}

// ---- distance transform, column pass ----

// g[y W + x] = the distance along column x from pixel (x, y) to the nearest feature pixel
// (img != 0) of that column, W + H if the column has none (W x H row-major)
__global__ void edt_columns(const unsigned char *img, int *g, int W, int H) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= W) return;
    int inf = W + H;
    int d = inf;
    for (int y = 0; y < H; y++) {
        if (img[y * W + x]) d = 0;
        else if (d < inf) d = d + 1;
        g[y * W + x] = d;
    }
    d = g[(H - 1) * W + x];
    for (int y = H - 2; y >= 0; y--) {
        int gy = g[y * W + x];
        d = min(d + 1, gy);
        g[y * W + x] = d;
    }
}

}
