// Shared-memory tree reductions from seed 001 (Portuguese course notes, "Redução").
// Each block sums 2*blockDim.x floats into output[blockIdx.x]; the host launches again
// on the partial sums until one value is left.  The recursive integer reduction of the
// exercise's answer key (kernel_reducao_soma) is in exercise.cu.

extern "C" {

// =====================================================================================
// seed 001: reduceShared -- interleaved addressing (t % stride == 0).
// Correct, but the active threads are spread out: warps run with few active lanes.
// Launch with 2*blockDim.x*sizeof(float) bytes of dynamic shared memory.
// =====================================================================================
__global__ void reduceShared(float *input, float *output, int N) {
    // Vetor alocado dinamicamente na memória compartilhada
    extern __shared__ float partialSum[];

    // Índice da thread no bloco
    unsigned int t = threadIdx.x;

    // Cada bloco processa 2 * blockDim.x elementos
    unsigned int start = 2 * blockIdx.x * blockDim.x;

    // Cada thread carrega um elemento para a posição t do vetor compartilhado
    if (start + t < N)
        partialSum[t] = input[start + t];
    else
        partialSum[t] = 0.0f;  // preenchimento com zero se passar do fim do vetor

    // Cada thread também carrega um segundo elemento, para a posição blockDim.x + t
    if (start + blockDim.x + t < N)
        partialSum[blockDim.x + t] = input[start + blockDim.x + t];
    else
        partialSum[blockDim.x + t] = 0.0f;

    // Loop de redução: stride aumenta a cada passo (1, 2, 4, ..., blockDim.x)
    for (unsigned int stride = 1; stride <= blockDim.x; stride *= 2) {
        // Garante que todos os valores foram somados antes de prosseguir
        __syncthreads();

        // Threads cujos índices são múltiplos de 'stride' somam com o vizinho à direita
        if (t % stride == 0)
            partialSum[2 * t] += partialSum[2 * t + stride];
    }

    // Sincronização final antes de escrever na memória global
    __syncthreads();

    // Apenas a primeira thread de cada bloco escreve o resultado parcial
    if (t == 0)
        output[blockIdx.x] = partialSum[0];
}

// =====================================================================================
// seed 001: the improved loop (t < stride, stride halving from blockDim.x) -- the seed
// shows only the loop; the rest of the kernel is reduceShared's.  Active threads are
// contiguous, so whole warps retire together.  Adds in a different order than
// reduceShared, so float results differ in the last bits.
// =====================================================================================
__global__ void reduceSharedContiguous(float *input, float *output, int N) {
    extern __shared__ float partialSum[];

    unsigned int t = threadIdx.x;
    unsigned int start = 2 * blockIdx.x * blockDim.x;

    if (start + t < N)
        partialSum[t] = input[start + t];
    else
        partialSum[t] = 0.0f;

    if (start + blockDim.x + t < N)
        partialSum[blockDim.x + t] = input[start + blockDim.x + t];
    else
        partialSum[blockDim.x + t] = 0.0f;

    for (unsigned int stride = blockDim.x; stride > 0; stride /= 2) {
        __syncthreads();
        if (t < stride)
            partialSum[t] += partialSum[t + stride];
    }

    __syncthreads();

    if (t == 0)
        output[blockIdx.x] = partialSum[0];
}

}  // extern "C"
