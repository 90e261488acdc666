// L1-hit latency on the critical path (session 26): dependent loads over a table that
// fits L1, and loops whose branch waits on a load that hits L1 (probe/knn-top8)
extern "C" {
// one warp: p = nxt[p] for `steps` steps over a table of `len` ints (a random cycle);
// lanes start apart but stay in the table, so every load after the first pass hits L1
__global__ void chase(const int *nxt, int *out, int steps) {
    int p = threadIdx.x;
    for (int s = 0; s < steps; ++s) p = nxt[p];
    out[threadIdx.x] = p;
}
// the same through __ldcg (L2 only): the L2-hit latency beside it
__global__ void chase_cg(const int *nxt, int *out, int steps) {
    int p = threadIdx.x;
    for (int s = 0; s < steps; ++s) p = __ldcg(&nxt[p]);
    out[threadIdx.x] = p;
}
// nearest point: a select nvcc makes without a branch
__global__ void nn1(const float2 *pts, const float2 *qs, int *idx, int m, int nq) {
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    float2 me = qs[q];
    float best = 3.4e38f; int bi = -1;
    for (int j = 0; j < m; ++j) {
        float dx = pts[j].x - me.x, dy = pts[j].y - me.y;
        float d = dx * dx + dy * dy;
        if (d < best) { best = d; bi = j; }
    }
    idx[q] = bi;
}
// a branch on every trip's load: count and sum the near ones (nvcc branches on it)
__global__ void near_sum(const float2 *pts, const float2 *qs, float *out, int m, int nq, float r2) {
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    float2 me = qs[q];
    float s = 0.f;
    for (int j = 0; j < m; ++j) {
        float dx = pts[j].x - me.x, dy = pts[j].y - me.y;
        float d = dx * dx + dy * dy;
        if (d < r2) { s += sqrtf(d) * __expf(-d); }
    }
    out[q] = s;
}
}
