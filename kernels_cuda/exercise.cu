// seed 001 (Portuguese course notes): "Exercício: Redução e Scan com CUDA", answer key
// ("Gabarito").  The host launches both kernels with one block of N = 1024 threads on
// the values 1..N.  kernel_reducao_soma is also the catalog's reduction/recursive: the
// host relaunches it on the per-block sums until one value is left.

extern "C" {

// =====================================================================================
// seed 001 gabarito: kernel_reducao_soma -- one element per thread, contiguous tree
// (tid < passo), result of each block in resultado[blockIdx.x].  blockDim.x must be a
// power of two; dynamic shared memory blockDim.x*sizeof(int).
// =====================================================================================
__global__ void kernel_reducao_soma(int* entrada, int* resultado, int N) {
    // Vetor na memória compartilhada (visível a todas as threads do bloco)
    extern __shared__ int soma_parcial[];

    int tid = threadIdx.x;                   // Índice local da thread dentro do bloco
    int i = blockIdx.x * blockDim.x + tid;   // Índice global no vetor de entrada

    // Cada thread copia um valor da memória global para a memória compartilhada
    if (i < N)
        soma_parcial[tid] = entrada[i];
    else
        soma_parcial[tid] = 0;

    __syncthreads(); // Sincroniza todas as threads antes da soma

    // Fase de redução binária: combina pares de elementos
    int passo = blockDim.x / 2;
    while (passo > 0) {
        if (tid < passo)
            soma_parcial[tid] += soma_parcial[tid + passo];

        __syncthreads(); // Garante que todas as somas de um passo terminaram
        passo = passo / 2;
    }

    // Apenas a primeira thread escreve o resultado do bloco
    if (tid == 0)
        resultado[blockIdx.x] = soma_parcial[0];
}

// =====================================================================================
// seed 001 gabarito: kernel_scan_exclusivo -- Blelloch scan of the whole array in ONE
// block: N <= blockDim.x <= 1024 and N a power of two.  Dynamic shared memory
// blockDim.x*sizeof(int).
// =====================================================================================
__global__ void kernel_scan_exclusivo(int* entrada, int* saida, int N) {
    extern __shared__ int dados[];

    int tid = threadIdx.x;

    // Carrega os dados de entrada para memória compartilhada
    if (tid < N)
        dados[tid] = entrada[tid];
    else
        dados[tid] = 0;

    __syncthreads();

    // Etapa 1: up-sweep (redução)
    int passo = 1;
    while (passo < N) {
        int idx = (tid + 1) * passo * 2 - 1;
        if (idx < N)
            dados[idx] += dados[idx - passo];
        __syncthreads();
        passo = passo * 2;
    }

    // Zera o último elemento (torna o scan exclusivo)
    if (tid == 0)
        dados[N - 1] = 0;

    __syncthreads();

    // Etapa 2: down-sweep (distribuição dos prefixos)
    passo = N / 2;
    while (passo >= 1) {
        int idx = (tid + 1) * passo * 2 - 1;
        if (idx < N) {
            int temp = dados[idx - passo];
            dados[idx - passo] = dados[idx];
            dados[idx] += temp;
        }
        __syncthreads();
        passo = passo / 2;
    }

    // Copia o resultado final para a saída
    if (tid < N)
        saida[tid] = dados[tid];
}

}  // extern "C"
