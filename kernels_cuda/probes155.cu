// probe-unseen153: a tensor computations / sparse tensor decomposition course's CUDA
// assignments, as a student who knows CUDA basics hands them in:
//  - mttkrp_coo: the mode-1 MTTKRP M = X_(1) (C kr B) of a sparse 3-way tensor in COO form
//    (sorted by i, j, k), rank 16: a thread a nonzero gathers the rank-16 rows B[j] and
//    C[k] and atomicAdds v B[j][r] C[k][r] into M[i][r] (neighbouring threads mostly share
//    a slice i: contended atomics);
//  - mttkrp_csf: the same MTTKRP (rank 32) from the tensor in CSF form (slices -> fibers ->
//    nonzeros), a warp a slice and a lane a rank column: per fiber the nonzeros' C rows
//    summed, scaled by the fiber's B row, the slice's row of M stored (no atomics);
//  - khatri_rao: the Khatri-Rao product K = A kr B of two factor matrices (I x R and J x R,
//    row-major) into an I J x R matrix, a thread an element (row i J + j);
//  - gram_ata: the Gram matrix G = A^T A (32 x 32, double) of a tall float factor matrix, a
//    block (32 x 8 threads) 1024 rows staged 64 at a time in shared memory, each thread 4
//    entries accumulated in double, the block's partial added to G by double atomicAdd;
//  - ttv_mode3: the tensor-times-vector Y = X x_3 v of a dense I x J x K tensor (row-major,
//    k fastest: a hyperspectral cube), a warp a mode-3 fiber, lanes striding over k, a
//    __shfl_down_sync reduction;
//  - gcp_logit_loss: the generalized CP (Bernoulli-logit) loss at sampled entries of a binary
//    tensor (struct samples, the CP weights in __constant__): a thread a sample evaluates
//    the rank-16 model m, the loss log(1 + e^m) - x m (stable form) and its derivative
//    sigmoid(m) - x (stored), the losses summed by a warp shuffle and a double atomicAdd.

#define COO_R 16              // mttkrp_coo: the rank
#define CSF_R 32              // mttkrp_csf: the rank (a lane a column)
#define GR_R 32               // gram_ata: the columns of A (the rank)
#define GR_TILE 64            // gram_ata: rows staged in shared memory at a time
#define GR_ROWS 512           // gram_ata: rows a block
#define GCP_R 16              // gcp_logit_loss: the rank

// gcp_logit_loss's CP weights lambda (set by the host)
__constant__ float c_gcp_lambda[GCP_R];

// gcp_logit_loss's sampled entry: its coordinates and value (0 or 1)
struct Sample {
    int i;
    int j;
    int k;
    float x;
};

extern "C" {

// M[i][r] += v B[j][r] C[k][r] for the nnz nonzeros (ind_i, ind_j, ind_k, vals) of a sparse
// tensor; B, C, M row-major with COO_R columns, M zeroed by the host
__global__ void mttkrp_coo(const int *ind_i, const int *ind_j, const int *ind_k, const float *vals,
                           const float *B, const float *C, float *M, int nnz) {
    int z = blockIdx.x * blockDim.x + threadIdx.x;
    if (z >= nnz) return;
    int i = ind_i[z];
    int j = ind_j[z];
    int k = ind_k[z];
    float v = vals[z];
    for (int r = 0; r < COO_R; r++) {
        atomicAdd(&M[i * COO_R + r], v * B[j * COO_R + r] * C[k * COO_R + r]);
    }
}

// the mode-1 MTTKRP from CSF: slice i's fibers are slice_ptr[i] .. slice_ptr[i + 1], fiber
// f's index j is fiber_j[f] and its nonzeros fiber_ptr[f] .. fiber_ptr[f + 1] (index
// kidx[z], value vals[z]); M[i][r] = sum_f B[j_f][r] sum_z vals[z] C[kidx[z]][r], a warp a
// slice (I slices, every i including the empty ones)
__global__ void mttkrp_csf(const int *slice_ptr, const int *fiber_j, const int *fiber_ptr, const int *kidx,
                           const float *vals, const float *B, const float *C, float *M, int I) {
    int slice = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (slice >= I) return;
    float acc = 0.0f;
    for (int f = slice_ptr[slice]; f < slice_ptr[slice + 1]; f++) {
        float t = 0.0f;
        for (int z = fiber_ptr[f]; z < fiber_ptr[f + 1]; z++) {
            t += vals[z] * C[kidx[z] * CSF_R + lane];
        }
        acc += t * B[fiber_j[f] * CSF_R + lane];
    }
    M[slice * CSF_R + lane] = acc;
}

// K[(i J + j) R + r] = A[i R + r] B[j R + r]: the Khatri-Rao (column-wise Kronecker)
// product of A (I x R) and B (J x R)
__global__ void khatri_rao(const float *A, const float *B, float *K, int I, int J, int R) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= I * J * R) return;
    int r = idx % R;
    int row = idx / R;
    int i = row / J;
    int j = row % J;
    K[idx] = A[i * R + r] * B[j * R + r];
}

// G += A^T A over the I rows of A (I x GR_R floats, row-major); G (GR_R x GR_R doubles)
// zeroed by the host; blockDim (32, 8), a block GR_ROWS rows
__global__ void gram_ata(const float *A, double *G, int I) {
    __shared__ float sA[GR_TILE][GR_R];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int t = ty * blockDim.x + tx;
    int nthreads = blockDim.x * blockDim.y;
    double acc[4];
    for (int q = 0; q < 4; q++) acc[q] = 0.0;
    int row0 = blockIdx.x * GR_ROWS;
    for (int base = row0; base < row0 + GR_ROWS && base < I; base += GR_TILE) {
        for (int e = t; e < GR_TILE * GR_R; e += nthreads) {
            int rr = e / GR_R;
            int c = e % GR_R;
            int row = base + rr;
            sA[rr][c] = row < I ? A[row * GR_R + c] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < GR_TILE; k++) {
            double a = sA[k][tx];
            for (int q = 0; q < 4; q++) {
                acc[q] += a * (double)sA[k][ty + 8 * q];
            }
        }
        __syncthreads();
    }
    for (int q = 0; q < 4; q++) {
        atomicAdd(&G[(ty + 8 * q) * GR_R + tx], acc[q]);
    }
}

// Y[p] = sum_k X[p K + k] v[k] for the IJ mode-3 fibers p = i J + j of a dense tensor,
// a warp a fiber
__global__ void ttv_mode3(const float *X, const float *v, float *Y, int IJ, int K) {
    int fiber = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (fiber >= IJ) return;
    float s = 0.0f;
    for (int k = lane; k < K; k += 32) {
        s += X[fiber * K + k] * v[k];
    }
    for (int off = 16; off > 0; off >>= 1) {
        s += __shfl_down_sync(0xffffffff, s, off);
    }
    if (lane == 0) Y[fiber] = s;
}

// the Bernoulli-logit GCP loss at n sampled entries: m = sum_r lambda[r] A[i][r] B[j][r]
// C[k][r], loss log(1 + e^m) - x m added into *loss (double), the derivative
// sigmoid(m) - x stored in Y[s]; A, B, C row-major with GCP_R columns
__global__ void gcp_logit_loss(const Sample *samples, const float *A, const float *B, const float *C, float *Y,
                               double *loss, int n) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    double f = 0.0;
    if (s < n) {
        Sample e = samples[s];
        float m = 0.0f;
        for (int r = 0; r < GCP_R; r++) {
            m += c_gcp_lambda[r] * A[e.i * GCP_R + r] * B[e.j * GCP_R + r] * C[e.k * GCP_R + r];
        }
        float softplus = fmaxf(m, 0.0f) + log1pf(expf(-fabsf(m)));     // log(1 + e^m) without overflow
        f = (double)(softplus - e.x * m);
        Y[s] = 1.0f / (1.0f + expf(-m)) - e.x;
    }
    for (int off = 16; off > 0; off >>= 1) {
        f += __shfl_down_sync(0xffffffff, f, off);
    }
    if ((threadIdx.x & 31) == 0) atomicAdd(loss, f);
}

}
