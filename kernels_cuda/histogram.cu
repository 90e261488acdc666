// Histogram kernels from the seeds.
//   seed 000 (Portuguese course notes): histograma_ingenuo / _atomico / _compartilhado
//   seed 002 (PMPP chapter 9 notes, Chinese): naive, atomic, privatized, coarsened,
//            aggregated, optimized, register, rgb, weighted, 2-D
// Each seed kernel is kept as written; where the seed is wrong a fixed variant sits
// beside it (suffix _atomico / _fixed).  Host code lives in kernels_cuda/fam_histogram.py.

#define BLOCK_SIZE 256
#define NUM_BINS 256
#define COARSEN_FACTOR 4

extern "C" {

// =====================================================================================
// seed 000: histograma_ingenuo -- data race (as written)
// Several threads read-modify-write the same histograma[chunk]; increments are lost.
// =====================================================================================
__global__ void histograma_ingenuo(const int *dados, int *histograma, int N, int numChunks) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        int chunk = dados[i];
        histograma[chunk]++;  // condição de corrida (data race)
    }
}

// =====================================================================================
// seed 000: histograma_atomico -- correct, atomics on global memory serialize
// =====================================================================================
__global__ void histograma_atomico(const int *dados, int *histograma, int N, int numChunks) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        int chunk = dados[i];
        atomicAdd(&histograma[chunk], 1);  // funciona, porém destroi o paralelismo
    }
}

// =====================================================================================
// seed 000: histograma_compartilhado -- as written: per-block histogram in shared
// memory, but hist_local[chunk]++ is NOT atomic: a race inside each block.
// The host merges the per-block histograms (fundir_histogramas_CPU).
// =====================================================================================
__global__ void histograma_compartilhado(const int *dados, int *histogramas_blocos, int N, int numChunks) {
    extern __shared__ int hist_local[];  // memória compartilhada dinâmica
    int tid_global = blockIdx.x * blockDim.x + threadIdx.x;

    // --- Etapa 1: Inicializa o histograma local com zeros ---
    for (int i = threadIdx.x; i < numChunks; i += blockDim.x)
        hist_local[i] = 0;
    __syncthreads();

    // --- Etapa 2: Atualiza o histograma local ---
    if (tid_global < N) {
        int chunk = dados[tid_global];
        hist_local[chunk]++;
    }
    __syncthreads();

    // --- Etapa 3: Copia o histograma local para a memória global ---
    for (int i = threadIdx.x; i < numChunks; i += blockDim.x)
        histogramas_blocos[blockIdx.x * numChunks + i] = hist_local[i];
}

// =====================================================================================
// fixed variant of seed 000's histograma_compartilhado: atomicAdd on shared memory
// (cheap: contention is limited to one block), no global atomics at all.
// =====================================================================================
__global__ void histograma_compartilhado_atomico(const int *dados, int *histogramas_blocos, int N, int numChunks) {
    extern __shared__ int hist_local[];
    int tid_global = blockIdx.x * blockDim.x + threadIdx.x;

    for (int i = threadIdx.x; i < numChunks; i += blockDim.x)
        hist_local[i] = 0;
    __syncthreads();

    if (tid_global < N) {
        int chunk = dados[tid_global];
        atomicAdd(&hist_local[chunk], 1);  // FIX: atomic on shared memory
    }
    __syncthreads();

    for (int i = threadIdx.x; i < numChunks; i += blockDim.x)
        histogramas_blocos[blockIdx.x * numChunks + i] = hist_local[i];
}

// =====================================================================================
// seed 002: histogram_naive -- read-modify-write race (as written)
// =====================================================================================
__global__ void histogram_naive(unsigned char *data, int *histogram, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        histogram[data[i]]++;  // 危险!读-改-写竞争
    }
}

// =====================================================================================
// seed 002: histogram_atomic -- global atomicAdd
// =====================================================================================
__global__ void histogram_atomic(unsigned char *data, int *histogram, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&histogram[data[i]], 1);  // 原子加
    }
}

// =====================================================================================
// seed 002: histogram_privatized -- private histogram per block in shared memory,
// grid-stride loop, one global atomic per bin per block.  Needs blockDim.x >= NUM_BINS.
// =====================================================================================
__global__ void histogram_privatized(unsigned char *data, int *histogram, int n) {
    // 私有直方图(共享内存)
    __shared__ int private_hist[NUM_BINS];

    // 初始化私有直方图
    if (threadIdx.x < NUM_BINS) {
        private_hist[threadIdx.x] = 0;
    }
    __syncthreads();

    // 统计到私有直方图
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;

    while (i < n) {
        atomicAdd(&private_hist[data[i]], 1);  // 共享内存原子操作
        i += stride;
    }
    __syncthreads();

    // 合并到全局直方图
    if (threadIdx.x < NUM_BINS) {
        atomicAdd(&histogram[threadIdx.x], private_hist[threadIdx.x]);
    }
}

// =====================================================================================
// seed 002: histogram_coarsened -- each thread handles COARSEN_FACTOR consecutive items
// =====================================================================================
__global__ void histogram_coarsened(unsigned char *data, int *histogram, int n) {
    __shared__ int private_hist[NUM_BINS];

    // 初始化
    for (int i = threadIdx.x; i < NUM_BINS; i += blockDim.x) {
        private_hist[i] = 0;
    }
    __syncthreads();

    // 每线程处理连续的 COARSEN_FACTOR 个元素
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * COARSEN_FACTOR;

    for (int k = 0; k < COARSEN_FACTOR; k++) {
        int idx = base + k;
        if (idx < n) {
            atomicAdd(&private_hist[data[idx]], 1);
        }
    }
    __syncthreads();

    // 合并
    for (int i = threadIdx.x; i < NUM_BINS; i += blockDim.x) {
        atomicAdd(&histogram[i], private_hist[i]);
    }
}

// =====================================================================================
// seed 002: histogram_aggregated -- warp aggregation with __match_any_sync: lanes with
// the same value elect a leader that adds __popc(mask) once.  Needs blockDim.x >= NUM_BINS.
// =====================================================================================
__global__ void histogram_aggregated(unsigned char *data, int *histogram, int n) {
    __shared__ int private_hist[NUM_BINS];

    // 初始化
    if (threadIdx.x < NUM_BINS) {
        private_hist[threadIdx.x] = 0;
    }
    __syncthreads();

    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n) {
        unsigned char value = data[i];

        // Warp 级投票:找出同值线程
        unsigned int mask = __match_any_sync(__activemask(), value);

        // 只有组内第一个线程执行原子操作
        if (__ffs(mask) - 1 == (threadIdx.x % 32)) {
            atomicAdd(&private_hist[value], __popc(mask));
        }
    }
    __syncthreads();

    // 合并到全局
    if (threadIdx.x < NUM_BINS) {
        atomicAdd(&histogram[threadIdx.x], private_hist[threadIdx.x]);
    }
}

// =====================================================================================
// seed 002: histogram_optimized -- as written.  BUG: 0xFF is used as the "invalid"
// marker for out-of-range items, so every real pixel of value 255 is skipped too.
// =====================================================================================
__global__ void histogram_optimized(unsigned char *data, int *histogram, int n) {
    // 共享内存私有直方图
    __shared__ int private_hist[NUM_BINS];

    // 协作初始化
    for (int i = threadIdx.x; i < NUM_BINS; i += blockDim.x) {
        private_hist[i] = 0;
    }
    __syncthreads();

    // Grid-stride loop + 粗化
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;

    for (int base = tid * COARSEN_FACTOR; base < n; base += stride * COARSEN_FACTOR) {
        // 加载连续的 COARSEN_FACTOR 个元素
        unsigned char values[COARSEN_FACTOR];

        #pragma unroll
        for (int k = 0; k < COARSEN_FACTOR; k++) {
            int idx = base + k;
            values[k] = (idx < n) ? data[idx] : 0xFF;  // 0xFF 作为无效标记
        }

        // 逐个处理,使用 warp 聚合
        #pragma unroll
        for (int k = 0; k < COARSEN_FACTOR; k++) {
            if (values[k] != 0xFF) {
                unsigned int mask = __match_any_sync(__activemask(), values[k]);
                if (__ffs(mask) - 1 == (threadIdx.x % 32)) {
                    atomicAdd(&private_hist[values[k]], __popc(mask));
                }
            }
        }
    }
    __syncthreads();

    // 合并到全局直方图
    for (int i = threadIdx.x; i < NUM_BINS; i += blockDim.x) {
        if (private_hist[i] > 0) {
            atomicAdd(&histogram[i], private_hist[i]);
        }
    }
}

// =====================================================================================
// fixed variant of seed 002's histogram_optimized: the marker must lie outside the
// value range.  Values are held as int and -1 marks "no item"; 255 is a real bin.
// =====================================================================================
__global__ void histogram_optimized_fixed(unsigned char *data, int *histogram, int n) {
    __shared__ int private_hist[NUM_BINS];

    for (int i = threadIdx.x; i < NUM_BINS; i += blockDim.x) {
        private_hist[i] = 0;
    }
    __syncthreads();

    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;

    for (int base = tid * COARSEN_FACTOR; base < n; base += stride * COARSEN_FACTOR) {
        int values[COARSEN_FACTOR];  // FIX: int, so the marker can be out of range

        #pragma unroll
        for (int k = 0; k < COARSEN_FACTOR; k++) {
            int idx = base + k;
            values[k] = (idx < n) ? data[idx] : -1;  // FIX: -1 is never a pixel value
        }

        #pragma unroll
        for (int k = 0; k < COARSEN_FACTOR; k++) {
            if (values[k] >= 0) {
                unsigned int mask = __match_any_sync(__activemask(), values[k]);
                if (__ffs(mask) - 1 == (threadIdx.x % 32)) {
                    atomicAdd(&private_hist[values[k]], __popc(mask));
                }
            }
        }
    }
    __syncthreads();

    for (int i = threadIdx.x; i < NUM_BINS; i += blockDim.x) {
        if (private_hist[i] > 0) {
            atomicAdd(&histogram[i], private_hist[i]);
        }
    }
}

// =====================================================================================
// seed 002: histogram_register -- thread-private histogram in registers (8 bins)
// =====================================================================================
__global__ void histogram_register(unsigned char *data, int *histogram, int n) {
    // 每线程私有直方图(寄存器)
    int local_hist[8] = {0};

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;

    while (i < n) {
        int bin = data[i] % 8;  // 假设只有 8 个桶
        local_hist[bin]++;
        i += stride;
    }

    // 合并到全局
    for (int b = 0; b < 8; b++) {
        atomicAdd(&histogram[b], local_hist[b]);
    }
}

// =====================================================================================
// seed 002: histogram_rgb -- three channel histograms of an interleaved RGB image.
// The seed elides the initialisation and the merge ("// ..."); completed here.
// =====================================================================================
__global__ void histogram_rgb(unsigned char *image, int *hist_r, int *hist_g, int *hist_b, int n) {
    __shared__ int priv_r[256], priv_g[256], priv_b[256];

    // 初始化 (completed: the seed writes "// ...")
    for (int j = threadIdx.x; j < 256; j += blockDim.x) {
        priv_r[j] = 0;
        priv_g[j] = 0;
        priv_b[j] = 0;
    }
    __syncthreads();

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&priv_r[image[3*i + 0]], 1);
        atomicAdd(&priv_g[image[3*i + 1]], 1);
        atomicAdd(&priv_b[image[3*i + 2]], 1);
    }
    __syncthreads();

    // 合并 (completed: the seed writes "// ...")
    for (int j = threadIdx.x; j < 256; j += blockDim.x) {
        if (priv_r[j] > 0) atomicAdd(&hist_r[j], priv_r[j]);
        if (priv_g[j] > 0) atomicAdd(&hist_g[j], priv_g[j]);
        if (priv_b[j] > 0) atomicAdd(&hist_b[j], priv_b[j]);
    }
}

// =====================================================================================
// seed 002: weighted histogram -- the seed gives one line,
//     atomicAdd(&histogram[data[i]], weight[i]);
// wrapped here in a kernel.  Float atomics: the order of the additions is free, so the
// last bits of each bin depend on scheduling.
// =====================================================================================
__global__ void histogram_weighted(const unsigned char *data, const float *weight, float *histogram, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&histogram[data[i]], weight[i]);
    }
}

// =====================================================================================
// seed 002: two-dimensional histogram -- the seed gives the four lines of the body,
// wrapped here in a kernel (joint distribution of two variables).
// =====================================================================================
__global__ void histogram_2d(const unsigned char *data_x, const unsigned char *data_y, int *histogram_2d,
                             int n, int bin_width_x, int bin_width_y, int num_bins_x) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int bin_x = data_x[i] / bin_width_x;
        int bin_y = data_y[i] / bin_width_y;
        int bin = bin_y * num_bins_x + bin_x;
        atomicAdd(&histogram_2d[bin], 1);
    }
}

}  // extern "C"
