// The three race conditions of seed 004 (INF351 slides, "Condiciones de carrera").
// The slides' images were lost; these are small kernels written for each case, each
// broken one beside its fix.  Host code: kernels_cuda/fam_races.py.

#define TAM_BLOQUE 256

extern "C" {

// =====================================================================================
// seed 004, Caso 1 -- BROKEN.  "Una hebra debe leer/escribir datos a cargo de otras
// hebras y también escribir/leer el suyo."  An in-place 3-point stencil: thread i reads
// datos[i-1] and datos[i+1], which threads i-1 and i+1 overwrite.  Whether a thread sees
// its neighbour's old or new value depends on which warp ran first.
// =====================================================================================
__global__ void race_case1_broken(int *datos, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int izq = (i > 0) ? datos[i - 1] : 0;
        int der = (i < n - 1) ? datos[i + 1] : 0;
        datos[i] = izq + datos[i] + der;  // carrera: el vecino puede haber escrito ya
    }
}

// seed 004, Caso 1 -- FIXED: "Solución: Doble búfer".  Read one buffer, write another.
__global__ void race_case1_fixed(const int *entrada, int *salida, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int izq = (i > 0) ? entrada[i - 1] : 0;
        int der = (i < n - 1) ? entrada[i + 1] : 0;
        salida[i] = izq + entrada[i] + der;
    }
}

// =====================================================================================
// seed 004, Caso 2 -- BROKEN.  "Las hebras deben escribir datos que serán leídos por las
// que pertenecen al mismo bloque, como ocurre al trabajar con memoria compartida."
// Reverse each block through shared memory: thread t reads the element written by
// thread TAM_BLOQUE-1-t, which belongs to another warp -- and there is no barrier.
// Launch with blockDim.x == TAM_BLOQUE.
// =====================================================================================
__global__ void race_case2_broken(const int *entrada, int *salida, int n) {
    __shared__ int tile[TAM_BLOQUE];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = (i < n) ? entrada[i] : 0;
    // falta __syncthreads(): el otro warp quizá aún no escribió tile[TAM_BLOQUE-1-t]
    if (i < n)
        salida[i] = tile[TAM_BLOQUE - 1 - t];
}

// seed 004, Caso 2 -- FIXED: "Solución: __syncthreads();"
__global__ void race_case2_fixed(const int *entrada, int *salida, int n) {
    __shared__ int tile[TAM_BLOQUE];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = (i < n) ? entrada[i] : 0;
    __syncthreads();  // FIX: every write of the block lands before any read
    if (i < n)
        salida[i] = tile[TAM_BLOQUE - 1 - t];
}

// =====================================================================================
// seed 004, Caso 3 -- BROKEN.  "Hebras diferentes deben sobrescribir el mismo dato."
// The slides' Ejemplo 1 without atomics: a type-0 thread adds 1 to valores[tId], a
// type-1 thread to valores[tId+1].  When thread tId is type 1 and thread tId+1 type 0
// both read-modify-write valores[tId+1]; lanes of one warp store together, one update is
// lost.
// =====================================================================================
__global__ void race_case3_broken(int* tipos, int* valores, int N){
    int tId = threadIdx.x + blockIdx.x * blockDim.x;
    if (tId < N){
        int tipo = tipos[tId];
        valores[tipo == 0 ? tId : (tId + 1) % N] += 1;  // leer-modificar-escribir: carrera
    }
}

// seed 004, Caso 3 -- FIXED: "Solución: ???" -- atomics.  Same as the slides' atomic
// `kernel` (atomics.cu).
__global__ void race_case3_fixed(int* tipos, int* valores, int N){
    int tId = threadIdx.x + blockIdx.x * blockDim.x;
    if (tId < N){
        int tipo = tipos[tId];
        if (tipo == 0) atomicAdd(&valores[tId], 1);
        else atomicAdd(&valores[(tId + 1) % N], 1);
    }
}

}  // extern "C"
