// How fast DRAM streams as a function of a launch's size: copies of 1 MiB to 512 MiB
// per buffer, in the shapes the catalog uses.

// calibrate.cu's cal_copy: a grid-stride float4 copy (launched with 32 blocks per SM)
extern "C" __global__ void grid_copy(const float4 *in, float4 *out, int n4) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x)
        out[i] = in[i];
}

// one float per thread, one block per 256 floats (races/case1's shape)
extern "C" __global__ void elem_copy(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

// scan/decoupled-lookback's tile without the scan: each warp copies 4 rows of 32 float4
// (16 floats a thread), the tile is the block's index
extern "C" __global__ void tile_copy(const float4 *in, float4 *out, int n4) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int base = blockIdx.x * (blockDim.x * 4) + warp * 128 + lane;
    float4 v0, v1, v2, v3;
    if (base + 96 < n4) {
        v0 = in[base]; v1 = in[base + 32]; v2 = in[base + 64]; v3 = in[base + 96];
        out[base] = v0; out[base + 32] = v1; out[base + 64] = v2; out[base + 96] = v3;
    }
}

// the same with the tile taken from an atomic ticket, as scan_lookback takes it (modulo
// the tile count, so the counter needs no reset between launches)
extern "C" __global__ void ticket_copy(const float4 *in, float4 *out, int *ticket, int n4) {
    __shared__ int tile_sh[1];
    if (threadIdx.x == 0)
        tile_sh[0] = atomicAdd(ticket, 1) % gridDim.x;
    __syncthreads();
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int base = tile_sh[0] * (blockDim.x * 4) + warp * 128 + lane;
    float4 v0, v1, v2, v3;
    if (base + 96 < n4) {
        v0 = in[base]; v1 = in[base + 32]; v2 = in[base + 64]; v3 = in[base + 96];
        out[base] = v0; out[base + 32] = v1; out[base + 64] = v2; out[base + 96] = v3;
    }
}
