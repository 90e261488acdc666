// probe-unseen96: a deep-learning TRAINING course's CUDA assignments (the backward passes
// and the optimizer of a small transformer, written by hand instead of with cuDNN/cuBLAS),
// as a student who knows CUDA basics hands them in:
//   softmax_xent_backward  the softmax cross-entropy gradient of a classifier's logits, a
//                          block a row: the row's max and sum of exps by shared-memory tree
//                          reductions, dlogits = (softmax - onehot(label)) * grad_scale and
//                          the row's loss; rows whose label is IGNORE_INDEX (padding) get a
//                          zero gradient and loss;
//   layernorm_backward     LayerNorm's input gradient from the saved mean and rstd, a warp a
//                          row: the two per-row sums (of dy*gamma and of dy*gamma*xhat) by
//                          __shfl_xor_sync, then dx (dgamma/dbeta are a separate kernel);
//   adamw_step             one AdamW update of a large flat parameter vector (grid-stride
//                          loop), the gradient first scaled by the global-norm clip factor
//                          min(1, max_norm / ||g||) read from device memory;
//   dropout_forward        inverted dropout with a counter-based hash RNG: y = x / (1 - p)
//                          or 0, the keep mask stored as bytes for the backward pass;
//   embedding_backward     the embedding table's gradient, a block a token: the token's
//                          output-gradient row atomicAdded into its word's row of dW
//                          (Zipf-distributed words: frequent words contend), padding tokens
//                          skipped;
//   linear_wgrad           a linear layer's weight gradient dW = X^T dY over the batch, the
//                          classic 16 x 16 shared-memory tiled matrix multiply, X's tile read
//                          row-wise and used transposed.

#define XENT_THREADS 256      // softmax_xent_backward: blockDim.x == XENT_THREADS
#define IGNORE_INDEX -100     // softmax_xent_backward: the label of a padding row
#define WG_TILE 16            // linear_wgrad: blockDim == (WG_TILE, WG_TILE)

extern "C" {

// a 32-bit integer hash (the "lowbias32" finalizer), dropout's RNG
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// d(loss)/d(logits) of the mean softmax cross-entropy over `rows` rows of C logits: a block
// a row; dlogits[r][c] = grad_scale * (softmax(z_r)[c] - (c == label[r])) with grad_scale
// 1 / (the rows not ignored), loss[r] = logsumexp(z_r) - z_r[label[r]]
__global__ void softmax_xent_backward(const float *logits, const int *labels, float *dlogits, float *loss, int C,
                                      float grad_scale, int rows) {
    __shared__ float red[XENT_THREADS];
    int row = blockIdx.x;
    if (row >= rows) return;
    int t = threadIdx.x;
    const float *z = logits + row * C;
    float *dz = dlogits + row * C;
    int y = labels[row];
    if (y == IGNORE_INDEX) {
        for (int c = t; c < C; c += blockDim.x) dz[c] = 0.0f;
        if (t == 0) loss[row] = 0.0f;
        return;
    }

    // the row's maximum
    float m = -FLT_MAX;
    for (int c = t; c < C; c += blockDim.x) m = fmaxf(m, z[c]);
    red[t] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) red[t] = fmaxf(red[t], red[t + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();

    // the sum of exp(z - max)
    float sum = 0.0f;
    for (int c = t; c < C; c += blockDim.x) sum += expf(z[c] - m);
    red[t] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    sum = red[0];

    float inv = 1.0f / sum;
    for (int c = t; c < C; c += blockDim.x) {
        float p = expf(z[c] - m) * inv;
        if (c == y) p -= 1.0f;
        dz[c] = p * grad_scale;
    }
    if (t == 0) loss[row] = logf(sum) + m - z[y];
}

// LayerNorm's backward for the input, a warp a row of H: xhat = (x - mean) rstd, g = dy
// gamma; dx = rstd (g - (sum(g) + xhat sum(g xhat)) / H)
__global__ void layernorm_backward(const float *dy, const float *x, const float *gamma, const float *mean,
                                   const float *rstd, float *dx, int H, int rows) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float *xr = x + row * H;
    const float *dyr = dy + row * H;
    float *dxr = dx + row * H;
    float mu = mean[row];
    float rs = rstd[row];

    float sum_g = 0.0f;
    float sum_gx = 0.0f;
    for (int j = lane; j < H; j += 32) {
        float xhat = (xr[j] - mu) * rs;
        float g = dyr[j] * gamma[j];
        sum_g += g;
        sum_gx += g * xhat;
    }
    for (int o = 16; o > 0; o >>= 1) {
        sum_g += __shfl_xor_sync(0xffffffff, sum_g, o);
        sum_gx += __shfl_xor_sync(0xffffffff, sum_gx, o);
    }

    float invH = 1.0f / H;
    for (int j = lane; j < H; j += 32) {
        float xhat = (xr[j] - mu) * rs;
        float g = dyr[j] * gamma[j];
        dxr[j] = rs * (g - (sum_g + xhat * sum_gx) * invH);
    }
}

// one AdamW step over n parameters (grid-stride): g = grad * min(1, max_norm / (*grad_norm
// + 1e-6)); m, v the moving averages; p -= lr (m / bc1 / (sqrt(v / bc2) + eps) + wd p),
// bc1 = 1 - beta1^t and bc2 = 1 - beta2^t from the host
__global__ void adamw_step(float *param, const float *grad, float *m, float *v, const float *grad_norm, float lr,
                           float beta1, float beta2, float eps, float weight_decay, float bc1, float bc2,
                           float max_norm, int n) {
    float clip = max_norm / (*grad_norm + 1e-6f);
    if (clip > 1.0f) clip = 1.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float g = grad[i] * clip;
        float mi = beta1 * m[i] + (1.0f - beta1) * g;
        float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
        m[i] = mi;
        v[i] = vi;
        float mhat = mi / bc1;
        float vhat = vi / bc2;
        float p = param[i];
        p -= lr * (mhat / (sqrtf(vhat) + eps) + weight_decay * p);
        param[i] = p;
    }
}

// inverted dropout of n activations: element i is dropped when the top 24 bits of
// hash32(seed + i) over 2^24 fall below p; y = x / (1 - p) or 0, mask 1 or 0 (bytes)
__global__ void dropout_forward(const float *x, float *y, unsigned char *mask, float p, unsigned int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int h = hash32(seed + (unsigned int)i);
    float u = (h >> 8) * (1.0f / 16777216.0f);
    if (u < p) {
        y[i] = 0.0f;
        mask[i] = 0;
    } else {
        y[i] = x[i] / (1.0f - p);
        mask[i] = 1;
    }
}

// the embedding table's gradient: a block a token t; dW[tokens[t]][d] += dout[t][d] for d
// < D by atomicAdd (tokens of one word add into one row); padding tokens skipped
__global__ void embedding_backward(const int *tokens, const float *dout, float *dW, int D, int pad_idx,
                                   int n_tokens) {
    int t = blockIdx.x;
    if (t >= n_tokens) return;
    int w = tokens[t];
    if (w == pad_idx) return;
    for (int d = threadIdx.x; d < D; d += blockDim.x) atomicAdd(&dW[w * D + d], dout[t * D + d]);
}

// dW = X^T dY (X batch x in_f, dY batch x out_f, dW in_f x out_f, all row-major), a 16 x 16
// tile of dW a block: thread (tx, ty) sums dW[i][o], i = the tile's row ty, o its column tx,
// over the batch in 16-row steps staged in shared memory
__global__ void linear_wgrad(const float *X, const float *dY, float *dW, int batch, int in_f, int out_f) {
    __shared__ float sX[WG_TILE][WG_TILE];   // sX[k][i]: X[k0 + k][i0 + i]
    __shared__ float sY[WG_TILE][WG_TILE];   // sY[k][o]: dY[k0 + k][o0 + o]
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int i = blockIdx.y * WG_TILE + ty;
    int o = blockIdx.x * WG_TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < batch; k0 += WG_TILE) {
        int k = k0 + ty;
        int xi = blockIdx.y * WG_TILE + tx;
        sX[ty][tx] = (k < batch && xi < in_f) ? X[k * in_f + xi] : 0.0f;
        sY[ty][tx] = (k < batch && o < out_f) ? dY[k * out_f + o] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < WG_TILE; kk++) acc += sX[kk][ty] * sY[kk][tx];
        __syncthreads();
    }
    if (i < in_f && o < out_f) dW[i * out_f + o] = acc;
}

}
