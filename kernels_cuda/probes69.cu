// probe-unseen67: a quantum-computing course's state-vector simulator, as a student who
// knows CUDA basics writes it: the state is 2^nq single-precision complex amplitudes
// (cuFloatComplex, float2; qubit q is bit q of the index), the reductions and the sampling
// table in double.  A general single-qubit gate on target qubit k, a thread an amplitude
// pair (the index with a zero inserted at bit k, its partner 2^k further on), the 2x2
// matrix in __constant__ memory; a CNOT, a thread a pair of the target, the pairs whose
// control bit is clear returning at once; a layer of Hadamards on the HT_LOG low qubits in
// one pass, a block a tile of 2^HT_LOG amplitudes in shared memory, one radix-2 butterfly
// stage (and a barrier) a qubit; the expectation value of a Pauli-Z string, a thread an
// amplitude (its sign the parity of __popc(index & mask)), summed in double by warp
// shuffles, a shared array of warp sums and one double atomicAdd a block; sampling
// measurement shots, a thread a shot binary-searching its uniform number in the prefix sum
// of the probabilities (double); and QAOA's MaxCut cost layer, a thread an amplitude
// counting the cut edges of its bit string (the graph's edges in __constant__ memory) and
// multiplying the amplitude by exp(-i gamma cut) through sincosf.
#include <cuComplex.h>

#define HT_LOG 10                      // hadamard_low_tile: qubits per tile
#define HT_TILE (1 << HT_LOG)          // amplitudes per tile (blockDim.x == HT_TILE / 2)
#define EZ_BLOCK 256                   // expect_z: blockDim.x
#define QAOA_MAX_EDGES 128             // qaoa_cost_phase: room for the graph's edges

// the single-qubit gate (set by the host): row-major 2x2, re and im apart
__constant__ float c_gate_re[4];
__constant__ float c_gate_im[4];

// the MaxCut graph's edges (u, v) (set by the host)
__constant__ int c_edge_u[QAOA_MAX_EDGES];
__constant__ int c_edge_v[QAOA_MAX_EDGES];

extern "C" {

// the index of pair i's first amplitude: i with a 0 inserted at bit k
__device__ int insert_zero(int i, int k) {
    int low = i & ((1 << k) - 1);
    return ((i >> k) << (k + 1)) | low;
}

// psi <- U psi on qubit `target`, U = c_gate; npairs = 2^(nq - 1)
__global__ void apply_gate_1q(cuFloatComplex *psi, int target, int npairs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npairs) return;
    int i0 = insert_zero(i, target);
    int i1 = i0 | (1 << target);
    cuFloatComplex a0 = psi[i0];
    cuFloatComplex a1 = psi[i1];
    cuFloatComplex u00 = make_cuFloatComplex(c_gate_re[0], c_gate_im[0]);
    cuFloatComplex u01 = make_cuFloatComplex(c_gate_re[1], c_gate_im[1]);
    cuFloatComplex u10 = make_cuFloatComplex(c_gate_re[2], c_gate_im[2]);
    cuFloatComplex u11 = make_cuFloatComplex(c_gate_re[3], c_gate_im[3]);
    psi[i0] = cuCaddf(cuCmulf(u00, a0), cuCmulf(u01, a1));
    psi[i1] = cuCaddf(cuCmulf(u10, a0), cuCmulf(u11, a1));
}

// CNOT(control, target): swaps the amplitudes of each target pair whose control bit is 1;
// npairs = 2^(nq - 1)
__global__ void apply_cnot(cuFloatComplex *psi, int control, int target, int npairs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npairs) return;
    int i0 = insert_zero(i, target);
    if (((i0 >> control) & 1) == 0) return;
    int i1 = i0 | (1 << target);
    cuFloatComplex tmp = psi[i0];
    psi[i0] = psi[i1];
    psi[i1] = tmp;
}

// H on each of qubits 0 .. HT_LOG - 1: block b transforms amplitudes b HT_TILE ..
// (b + 1) HT_TILE - 1 in shared memory; blockDim.x == HT_TILE / 2
__global__ void hadamard_low_tile(cuFloatComplex *psi) {
    __shared__ cuFloatComplex tile[HT_TILE];
    int t = threadIdx.x;
    int base = blockIdx.x * HT_TILE;
    tile[t] = psi[base + t];
    tile[t + HT_TILE / 2] = psi[base + t + HT_TILE / 2];
    __syncthreads();
    const float r = 0.70710678f;
    for (int q = 0; q < HT_LOG; q++) {
        int i0 = insert_zero(t, q);
        int i1 = i0 | (1 << q);
        cuFloatComplex a = tile[i0];
        cuFloatComplex b = tile[i1];
        tile[i0] = make_cuFloatComplex((a.x + b.x) * r, (a.y + b.y) * r);
        tile[i1] = make_cuFloatComplex((a.x - b.x) * r, (a.y - b.y) * r);
        __syncthreads();
    }
    psi[base + t] = tile[t];
    psi[base + t + HT_TILE / 2] = tile[t + HT_TILE / 2];
}

// *result += <psi| Z_mask |psi> = sum |psi[x]|^2 (-1)^popc(x & mask); blockDim.x == EZ_BLOCK
__global__ void expect_z(const cuFloatComplex *psi, unsigned mask, double *result, int n) {
    __shared__ double warp_sums[EZ_BLOCK / 32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    double v = 0.0;
    if (i < n) {
        cuFloatComplex a = psi[i];
        double p = (double)a.x * a.x + (double)a.y * a.y;
        if (__popc((unsigned)i & mask) & 1)
            v = -p;
        else
            v = p;
    }
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < EZ_BLOCK / 32) ? warp_sums[lane] : 0.0;
        for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
        if (lane == 0) atomicAdd(result, v);
    }
}

// shots[s] = the outcome of shot s: the first x with cdf[x] > u[s] (dim - 1 when none),
// cdf the inclusive prefix sum of the dim probabilities
__global__ void sample_shots(const double *cdf, const double *u, int *shots, int dim, int nshots) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nshots) return;
    double r = u[s];
    int lo = 0;
    int hi = dim - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (cdf[mid] > r)
            hi = mid;
        else
            lo = mid + 1;
    }
    shots[s] = lo;
}

// psi[x] *= exp(-i gamma C(x)), C(x) the number of the num_edges edges (c_edge_u[e],
// c_edge_v[e]) that bit string x cuts (its two ends' bits differ)
__global__ void qaoa_cost_phase(cuFloatComplex *psi, int num_edges, float gamma, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= n) return;
    int cut = 0;
    for (int e = 0; e < num_edges; e++) {
        int bu = (x >> c_edge_u[e]) & 1;
        int bv = (x >> c_edge_v[e]) & 1;
        cut += bu ^ bv;
    }
    float s, c;
    sincosf(-gamma * cut, &s, &c);
    psi[x] = cuCmulf(psi[x], make_cuFloatComplex(c, s));
}

}
