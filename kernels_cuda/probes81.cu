// probe-unseen79: a seismic-imaging / exploration-geophysics course's CUDA assignments, as
// a student who knows CUDA basics hands them in. Traces are stored trace after trace
// (SEG-Y order: sample it of trace tr at tr * nt + it), times in seconds, distances in
// metres:
// - wave2d_fd8: one time step of the 2-D constant-density acoustic wave equation, 8th
//   order in space and 2nd order in time, a thread a grid point (2-D blocks), the 17-point
//   Laplacian read straight from global memory (coefficients in __constant__), the new
//   field written over the previous one;
// - stencil25_zmarch: the 3-D 25-point (8th-order) Laplacian of a volume, as in
//   Micikevicius' "3D finite difference computation on GPUs": a block a 32 x 16 x-y tile
//   marching up a slab of S_ZCH planes of z (blockIdx.z the slab), each plane staged with
//   its 4-point halo in shared memory and the 4 planes in front of and behind the thread's
//   point held in small arrays;
// - nmo_correct: normal-moveout correction of CMP gathers, a thread an output sample: the
//   hyperbolic time t = sqrt(t0^2 + x^2 / v^2) from the trace's offset and the CMP's RMS
//   velocity at t0, the input trace linearly interpolated there, samples stretched more
//   than a threshold muted (zero);
// - cmp_stack: common-midpoint stacking of NMO-corrected traces in shot order, a thread a
//   sample: its trace's midpoint bin from the source and receiver positions, the non-zero
//   (unmuted) samples atomicAdded into the bin's stack trace, the fold counted once a trace;
// - kirchhoff_tmig: post-stack Kirchhoff time migration, a thread an image point: the
//   stacked traces within an aperture summed along the point's diffraction hyperbola
//   (linear interpolation, obliquity weight t0 / t);
// - agc_trace: automatic gain control with a sliding RMS window, a thread a whole trace:
//   a running sum of squares over the window [it - half, it + half] (clipped at the trace's
//   ends) updated as the window slides, each sample divided by the window's RMS (dead
//   traces left zero).

#define FD_R 4                // wave2d_fd8 / stencil25_zmarch: the stencil's radius (8th order)
#define S_BX 32               // stencil25_zmarch: blockDim == (S_BX, S_BY)
#define S_BY 16
#define S_ZCH 16              // stencil25_zmarch: the planes a block marches

// the 8th-order central second-derivative weights: c0 (the centre) .. c4
__constant__ float c_fd8[FD_R + 1] = {-2.84722222f, 1.6f, -0.2f, 0.0253968254f, -0.00178571429f};

extern "C" {

// one leapfrog step of the 2-D acoustic wave equation on an nx x nz grid (row-major, x
// fastest): u_prev <- 2 u - u_prev + vdt2 * lap8(u), vdt2 = (v dt / h)^2 at each point; the
// FD_R points nearest each edge are not updated (the caller's absorbing boundary)
__global__ void wave2d_fd8(const float *u, float *u_prev, const float *vdt2, int nx, int nz) {
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iz = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix < FD_R || ix >= nx - FD_R || iz < FD_R || iz >= nz - FD_R) return;
    int i = iz * nx + ix;
    float lap = 2.0f * c_fd8[0] * u[i];
    for (int k = 1; k <= FD_R; k++) {
        lap += c_fd8[k] * (u[i - k] + u[i + k] + u[i - k * nx] + u[i + k * nx]);
    }
    u_prev[i] = 2.0f * u[i] - u_prev[i] + vdt2[i] * lap;
}

// out = the 25-point 8th-order Laplacian of in (nx x ny x nz, x fastest, unit spacing) at
// every point FD_R or more from each face; nx a multiple of S_BX, ny of S_BY, gridDim.z
// the slabs of S_ZCH planes covering z = FD_R .. nz - FD_R - 1
__global__ void stencil25_zmarch(const float *in, float *out, int nx, int ny, int nz) {
    __shared__ float tile[S_BY + 2 * FD_R][S_BX + 2 * FD_R];
    int ix = blockIdx.x * S_BX + threadIdx.x;
    int iy = blockIdx.y * S_BY + threadIdx.y;
    int tx = threadIdx.x + FD_R;
    int ty = threadIdx.y + FD_R;
    int plane = nx * ny;
    int idx = iy * nx + ix;
    bool inside = ix >= FD_R && ix < nx - FD_R && iy >= FD_R && iy < ny - FD_R;

    int z0 = FD_R + blockIdx.z * S_ZCH;
    int z1 = min(z0 + S_ZCH, nz - FD_R);

    // behind[k] is plane z - 1 - k, infront[k] plane z + 1 + k
    float behind[FD_R];
    float infront[FD_R];
    float cur;
    for (int k = 0; k < FD_R; k++) {
        behind[k] = in[(z0 - 1 - k) * plane + idx];
        infront[k] = in[(z0 + 1 + k) * plane + idx];
    }
    cur = in[z0 * plane + idx];

    for (int z = z0; z < z1; z++) {
        __syncthreads();                       // the last plane's tile is no longer read
        int p = z * plane + idx;
        if (threadIdx.y < FD_R) {              // halo rows above and below
            if (iy >= FD_R) tile[threadIdx.y][tx] = in[p - FD_R * nx];
            if (iy + S_BY < ny) tile[ty + S_BY][tx] = in[p + S_BY * nx];
        }
        if (threadIdx.x < FD_R) {              // halo columns left and right
            if (ix >= FD_R) tile[ty][threadIdx.x] = in[p - FD_R];
            if (ix + S_BX < nx) tile[ty][tx + S_BX] = in[p + S_BX];
        }
        tile[ty][tx] = cur;
        __syncthreads();

        if (inside) {
            float v = 3.0f * c_fd8[0] * cur;
            for (int k = 1; k <= FD_R; k++) {
                v += c_fd8[k] * (tile[ty][tx - k] + tile[ty][tx + k] + tile[ty - k][tx] + tile[ty + k][tx] +
                                 behind[k - 1] + infront[k - 1]);
            }
            out[p] = v;
        }

        // slide the queue one plane up
        for (int k = FD_R - 1; k > 0; k--) behind[k] = behind[k - 1];
        behind[0] = cur;
        cur = infront[0];
        for (int k = 0; k < FD_R - 1; k++) infront[k] = infront[k + 1];
        if (z + FD_R + 1 < nz) infront[FD_R - 1] = in[(z + FD_R + 1) * plane + idx];
    }
}

// NMO correction of ntr traces of nt samples (dt apart), `fold` consecutive traces a CMP:
// out[tr, it] = in[tr] linearly interpolated at t = sqrt(t0^2 + x^2 / v^2), t0 = it dt, x =
// offset[tr], v = vrms[cmp, it]; zero where t0 == 0, where the stretch (t - t0) / t0 exceeds
// smute, or past the trace's end
__global__ void nmo_correct(const float *in, const float *offset, const float *vrms, float *out, float dt,
                            float smute, int fold, int nt, int ntr) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= nt * ntr) return;
    int tr = idx / nt;
    int it = idx - tr * nt;
    float t0 = it * dt;
    float x = offset[tr];
    float v = vrms[(tr / fold) * nt + it];
    float t = sqrtf(t0 * t0 + (x * x) / (v * v));
    float val = 0.0f;
    if (it > 0 && t - t0 <= smute * t0) {
        float s = t / dt;
        int i0 = (int)s;
        float w = s - i0;
        if (i0 + 1 < nt) {
            val = (1.0f - w) * in[tr * nt + i0] + w * in[tr * nt + i0 + 1];
        }
    }
    out[idx] = val;
}

// CMP stack of ntr traces of nt samples (in shot order, NMO-corrected and muted): the
// trace's midpoint (sx + gx) / 2 falls in bin b = (int)((xm - x0) / dbin); each non-zero
// sample is added into stack[b, it] and fold[b] counts the trace (traces outside the nbins
// bins are dropped)
__global__ void cmp_stack(const float *data, const float *sx, const float *gx, float *stack, int *fold, float x0,
                          float dbin, int nbins, int nt, int ntr) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= nt * ntr) return;
    int tr = idx / nt;
    int it = idx - tr * nt;
    float xm = 0.5f * (sx[tr] + gx[tr]);
    int b = (int)((xm - x0) / dbin);
    if (b < 0 || b >= nbins) return;
    if (it == 0) atomicAdd(&fold[b], 1);
    float a = data[idx];
    if (a != 0.0f) atomicAdd(&stack[b * nt + it], a);
}

// Kirchhoff time migration of a zero-offset section (nx traces dx apart, nt samples dt
// apart): image[ix, it0] = the sum over traces j within `aper` traces of ix of the trace
// interpolated at t = sqrt(t0^2 + 4 h^2 / v^2) (h = (j - ix) dx, v = vrms[it0]) weighted by
// t0 / t; times at or past the last sample add nothing
__global__ void kirchhoff_tmig(const float *data, const float *vrms, float *image, float dx, float dt, int aper,
                               int nt, int nx) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= nt * nx) return;
    int ix = idx / nt;
    int it0 = idx - ix * nt;
    float t0 = it0 * dt;
    float v = vrms[it0];
    float s = 4.0f / (v * v);
    int lo = max(ix - aper, 0);
    int hi = min(ix + aper, nx - 1);
    float sum = 0.0f;
    for (int j = lo; j <= hi; j++) {
        float h = (j - ix) * dx;
        float t = sqrtf(t0 * t0 + h * h * s);
        float ft = t / dt;
        int it = (int)ft;
        if (it < nt - 1) {
            float w = ft - it;
            float a = (1.0f - w) * data[j * nt + it] + w * data[j * nt + it + 1];
            float obl = t > 0.0f ? t0 / t : 1.0f;
            sum += obl * a;
        }
    }
    image[idx] = sum;
}

// AGC of ntr traces of nt samples: out[it] = in[it] / sqrt(mean of in^2 over the window
// [it - half, it + half] within the trace); a window of zeros gives zero
__global__ void agc_trace(const float *in, float *out, int half, int nt, int ntr) {
    int tr = blockIdx.x * blockDim.x + threadIdx.x;
    if (tr >= ntr) return;
    const float *x = in + tr * nt;
    float *y = out + tr * nt;
    float s = 0.0f;
    int cnt = 0;
    for (int k = 0; k <= half && k < nt; k++) {
        s += x[k] * x[k];
        cnt++;
    }
    for (int it = 0; it < nt; it++) {
        float rms = sqrtf(s / cnt);
        y[it] = rms > 0.0f ? x[it] / rms : 0.0f;
        int a = it + half + 1;                 // the sample entering the window
        if (a < nt) {
            s += x[a] * x[a];
            cnt++;
        }
        int r = it - half;                     // the sample leaving it
        if (r >= 0) {
            s -= x[r] * x[r];
            cnt--;
        }
    }
}

}
