// Image inversion from seed 003 (Portuguese course notes, "Computação assíncrona com
// streams").  The seed splits a 4K image into NSTREAMS chunks and runs copy-in, kernel,
// copy-out per chunk, first synchronously, then on streams.  Streams are a host matter:
// the driver in fam_streams.py launches the kernel once per chunk.

extern "C" {

// =====================================================================================
// seed 003: inverter_pixels -- one thread per pixel, 255 - value
// =====================================================================================
__global__ void inverter_pixels(unsigned char *imagem, int tamanho) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < tamanho) {
        imagem[idx] = 255 - imagem[idx];
    }
}

}  // extern "C"
