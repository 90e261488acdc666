// Stores whose lanes write `per` elements apart, as a thread writing its own run of
// `per` outputs one a trip does (probe/huffman-decode's out[c * per + s]): a warp's store
// touches 32 sectors once the lanes are 32 bytes apart, each only partly written.
extern "C" {

__global__ void st_u8(unsigned char *out, int n, int per) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c * per >= n) return;
    for (int s = 0; s < per; ++s) out[(size_t)c * per + s] = (unsigned char)(c + s);
}

__global__ void st_u32(unsigned *out, int n, int per) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c * per >= n) return;
    for (int s = 0; s < per; ++s) out[(size_t)c * per + s] = (unsigned)(c + s);
}

}
