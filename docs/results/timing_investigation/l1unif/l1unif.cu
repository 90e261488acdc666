// Where probe/knn-top8's trips go (session 28): uniform loads that hit L1, a branch that
// waits on them, and the insertion walk through a local array, taken apart
extern "C" {
// one chain every lane follows: p = nxt[p], the same address across the warp
__global__ void uchase(const int *nxt, int *out, int steps) {
    int p = 0;
    for (int s = 0; s < steps; ++s) p = nxt[p];
    out[threadIdx.x] = p;
}
// a trip's load address waits on the previous trip's sum (a uniform load, hits L1)
__global__ void dep_loop(const float2 *pts, const float2 *qs, float *out, int m, int nq) {
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    float2 me = qs[q];
    float s = 0.f;
    int j = 0;
    for (int t = 0; t < m; ++t) {
        float dx = pts[j].x - me.x, dy = pts[j].y - me.y;
        s += dx * dx + dy * dy;
        j = (j + 1 + (s < 0.f)) & (m - 1);          // (s < 0) is never true: j + 1, after s
    }
    out[q] = s;
}
// the knn-top8 loop with its branch, the insertion left as in probes28.cu
#define KNN_K 8
__global__ void knn_top8(const float2 *pts, const float2 *qs, int *idx, int m, int nq) {
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    float2 me = qs[q];
    float best[KNN_K];
    int bi[KNN_K];
    for (int k = 0; k < KNN_K; ++k) { best[k] = 3.4e38f; bi[k] = -1; }
    for (int j = 0; j < m; ++j) {
        float dx = pts[j].x - me.x, dy = pts[j].y - me.y;
        float d = dx * dx + dy * dy;
        if (d < best[KNN_K - 1]) {
            int k = KNN_K - 1;
            while (k > 0 && best[k - 1] > d) {
                best[k] = best[k - 1];
                bi[k] = bi[k - 1];
                --k;
            }
            best[k] = d;
            bi[k] = j;
        }
    }
    for (int k = 0; k < KNN_K; ++k) idx[q * KNN_K + k] = bi[k];
}
}
