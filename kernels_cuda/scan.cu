// Exclusive prefix sums (scan) from seed 001 (Portuguese course notes, "Scan").
// Both seed kernels scan one block; the host makes them scan any length with two small
// glue kernels (block totals, add-back of scanned totals): kernels_cuda/fam_scan.py.

extern "C" {

// =====================================================================================
// seed 001: scan_simples -- Hillis-Steele, O(n log n) additions, one element per thread.
// Reads entrada[gid-1], so each block computes an inclusive scan of the input shifted by
// one: the whole grid yields the exclusive scan once block offsets are added.
// Launch with blockDim.x*sizeof(int) bytes of dynamic shared memory.
// =====================================================================================
__global__ void scan_simples(int *entrada, int *saida, int N) {
    extern __shared__ int XY[];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    // 1. Cada thread lê da entrada (ajustado para scan)
    if (gid > 0 && gid < N)
        XY[tid] = entrada[gid - 1];
    else
        XY[tid] = 0;

    __syncthreads();

    // 2. Para cada passo, somar com o valor `stride` posições atrás
    for (int passo = 1; passo < blockDim.x; passo *= 2) {
        int temp = 0;
        if (tid >= passo)
            temp = XY[tid - passo];
        __syncthreads();
        XY[tid] += temp;
        __syncthreads();
    }

    // 3. Escreve no vetor de saída
    if (gid < N)
        saida[gid] = XY[tid];
}

// =====================================================================================
// seed 001: scan_otimizado -- Blelloch work-efficient scan: up-sweep then down-sweep,
// two elements per thread, exclusive.  Launch with 2*blockDim.x*sizeof(int) bytes of
// dynamic shared memory; blockDim.x a power of two.
// =====================================================================================
__global__ void scan_otimizado(int* entrada, int* saida, int N) {
    extern __shared__ int vetor_auxiliar[];

    int tid = threadIdx.x;
    int inicio_bloco = 2 * blockDim.x * blockIdx.x;
    int indice_global = inicio_bloco + tid;

    int tamanho_bloco = 2 * blockDim.x;

    // Carregamento de dois elementos por thread na memória compartilhada
    int valor_esquerda = 0;
    int valor_direita  = 0;

    if (indice_global < N)
        valor_esquerda = entrada[indice_global];

    if (indice_global + blockDim.x < N)
        valor_direita = entrada[indice_global + blockDim.x];

    vetor_auxiliar[tid] = valor_esquerda;
    vetor_auxiliar[tid + blockDim.x] = valor_direita;

    __syncthreads();

    // --- Fase 1: Up-sweep (redução para soma total do bloco) ---
    for (int passo = 1; passo < tamanho_bloco; passo *= 2) {
        int indice = (tid + 1) * passo * 2 - 1;

        if (indice < tamanho_bloco)
            vetor_auxiliar[indice] += vetor_auxiliar[indice - passo];

        __syncthreads();
    }

    // Zera o último elemento para começar o down-sweep (scan exclusivo)
    if (tid == 0)
        vetor_auxiliar[tamanho_bloco - 1] = 0;

    __syncthreads();

    // --- Fase 2: Down-sweep (distribui os prefixos) ---
    for (int passo = tamanho_bloco / 2; passo >= 1; passo /= 2) {
        int indice = (tid + 1) * passo * 2 - 1;

        if (indice < tamanho_bloco) {
            int valor_anterior = vetor_auxiliar[indice - passo];
            vetor_auxiliar[indice - passo] = vetor_auxiliar[indice];
            vetor_auxiliar[indice] += valor_anterior;
        }

        __syncthreads();
    }

    // Escreve os valores de volta no vetor de saída
    if (indice_global < N)
        saida[indice_global] = vetor_auxiliar[tid];

    if (indice_global + blockDim.x < N)
        saida[indice_global + blockDim.x] = vetor_auxiliar[tid + blockDim.x];
}

// =====================================================================================
// extra (host glue for multi-block scans): the total of each block's segment.
// For an exclusive per-block scan the total is saida[last] + entrada[last]
// (add_last_input = 1); for scan_simples, whose blocks hold inclusive scans of the
// shifted input, it is saida[last] (add_last_input = 0).
// =====================================================================================
__global__ void scan_block_totals(const int *entrada, const int *saida, int *totais, int N,
                                  int elems_per_block, int num_blocks, int add_last_input) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < num_blocks) {
        int last = (b + 1) * elems_per_block - 1;
        if (last > N - 1)
            last = N - 1;
        int total = saida[last];
        if (add_last_input)
            total += entrada[last];
        totais[b] = total;
    }
}

// extra (host glue): add the scanned block totals back: saida[i] += offsets[i / epb]
__global__ void scan_add_offsets(int *saida, const int *offsets, int N, int elems_per_block) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N)
        saida[i] += offsets[i / elems_per_block];
}

}  // extern "C"
