// Sparse matrix-vector product in CSR format, from seed 003 (Portuguese course notes,
// "Aula 17 - Matriz esparsa e Computação Assíncrona").  Host code: fam_spmv.py.

extern "C" {

// =====================================================================================
// seed 003: multiplicar_csr_kernel -- one thread per row ("CSR scalar").  Rows of
// different lengths make the lanes of a warp loop a different number of times, and
// neighbouring lanes read far-apart parts of valores/indice_coluna (uncoalesced).
// =====================================================================================
__global__ void multiplicar_csr_kernel(
    int num_linhas,
    const int *ponteiro_linha,
    const int *indice_coluna,
    const float *valores,
    const float *vetor_x,
    float *vetor_y)
{
    int linha = blockIdx.x * blockDim.x + threadIdx.x; // Cada thread calcula uma linha
    if (linha < num_linhas) {
        float soma = 0.0f;
        int inicio = ponteiro_linha[linha];      // Índice inicial da linha
        int fim = ponteiro_linha[linha + 1];     // Índice final (não incluso)
        for (int i = inicio; i < fim; i++) {
            int coluna = indice_coluna[i];
            soma += valores[i] * vetor_x[coluna]; // valor não nulo vezes o x correspondente
        }
        vetor_y[linha] = soma; // Armazena o resultado final
    }
}

}  // extern "C"
