// probe-unseen86: a radio-astronomy instrumentation course's CUDA assignments (a digital
// backend from the ADC to images and pulsar searches), as a student who knows CUDA
// basics hands them in:
//   pfb_fir        the polyphase filter bank's FIR front end: 8-bit real ADC samples,
//                  a thread an output (spectrum s, channel c) summing PFB_TAPS taps
//                  x[(s + p) nchan + c] h[p nchan + c] (the window-sinc prototype filter
//                  from the host); the FFT across channels that follows is cuFFT's;
//   fx_xmac        the FX correlator's X engine: channelized complex voltages
//                  V[t][chan][ant] (float2) of XM_NANT antennas, a thread a baseline
//                  (i <= j, autocorrelations included; its antenna pair from a
//                  host-built table) and blockIdx.y the channel, the channel's samples
//                  of XM_TCHUNK time steps staged in shared memory by every block, each
//                  thread accumulating V_i conj(V_j) over time in registers, the
//                  visibilities stored channel-major;
//   dedisperse     incoherent brute-force dedispersion of an 8-bit filterbank
//                  fb[chan][time]: a thread an output (DM trial, time sample), summing
//                  the channels along the cold-plasma delay curve (the delays in samples
//                  precomputed on the host, a row a DM trial);
//   grid_vis       visibility gridding for imaging: a thread a visibility (u, v in
//                  wavelengths), its nearest uv cell and oversampled offset, the 7 x 7
//                  footprint of a separable tabulated convolution function (an
//                  exponential-times-sinc, GRID_OVER samples a cell) added to the complex
//                  grid by float atomicAdd on the real and imaginary parts; visibilities
//                  whose footprint leaves the grid are dropped;
//   rfi_flag       RFI flagging of detected filterbank power data[chan][time]: a block a
//                  channel computes the channel's mean and standard deviation (a
//                  shared-memory tree reduction of the sum and the sum of squares), then
//                  flags every sample more than thresh sigma from the mean, replaces it
//                  by the mean and counts the flags (shared atomicAdd, one store a block);
//   beamform       a delay-and-sum (phase-shift) tied-array beamformer: a thread a
//                  (time sample, channel, beam) output, summing the antennas' voltages
//                  V[chan][ant][time] times exp(i k (x_a l + y_a m)) (sincosf a term,
//                  the antenna positions in __constant__ memory) and detecting the beam's
//                  power |B|^2.

#define PFB_TAPS 8            // pfb_fir: taps a channel
#define XM_NANT 64            // fx_xmac: antennas
#define XM_NBL (XM_NANT * (XM_NANT + 1) / 2)   // baselines, autocorrelations included
#define XM_TCHUNK 32          // fx_xmac: time samples staged in shared memory at once
#define GRID_SUP 7            // grid_vis: the convolution function's support (cells)
#define GRID_OVER 8           // grid_vis: its samples a cell
#define RFI_BLOCK 256         // rfi_flag: threads a block (a block a channel)
#define BF_NANT 64            // beamform: antennas

// beamform's antenna positions (east, north; metres), set by the host
__constant__ float c_ant_x[BF_NANT];
__constant__ float c_ant_y[BF_NANT];

extern "C" {

// y[s nchan + c] = sum_p h[p nchan + c] x[(s + p) nchan + c] for nspec spectra of nchan
// channels (x holds (nspec + PFB_TAPS - 1) nchan samples)
__global__ void pfb_fir(const signed char *x, const float *h, float *y, int nchan, int nspec) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= nchan * nspec) return;
    int s = idx / nchan;
    int c = idx % nchan;
    float acc = 0.0f;
    for (int p = 0; p < PFB_TAPS; p++) {
        acc += h[p * nchan + c] * (float)x[(s + p) * nchan + c];
    }
    y[idx] = acc;
}

// vis[c XM_NBL + b] = sum_t V[t][c][ant1[b]] conj(V[t][c][ant2[b]]): a thread a baseline
// b = blockIdx.x blockDim.x + threadIdx.x, blockIdx.y the channel; every block of a channel
// stages the channel's antennas, XM_TCHUNK time samples at a time (ntime a multiple)
__global__ void fx_xmac(const float2 *V, const int *ant1, const int *ant2, float2 *vis, int nchan, int ntime) {
    __shared__ float2 sV[XM_TCHUNK][XM_NANT];
    int c = blockIdx.y;
    int tid = threadIdx.x;
    int b = blockIdx.x * blockDim.x + tid;
    int i = 0;
    int j = 0;
    if (b < XM_NBL) {
        i = ant1[b];
        j = ant2[b];
    }
    float accRe = 0.0f;
    float accIm = 0.0f;
    for (int t0 = 0; t0 < ntime; t0 += XM_TCHUNK) {
        // stage XM_TCHUNK time samples of this channel's antennas
        for (int k = tid; k < XM_TCHUNK * XM_NANT; k += blockDim.x) {
            int tt = k / XM_NANT;
            int a = k % XM_NANT;
            sV[tt][a] = V[((t0 + tt) * nchan + c) * XM_NANT + a];
        }
        __syncthreads();
        if (b < XM_NBL) {
            for (int tt = 0; tt < XM_TCHUNK; tt++) {
                float2 p = sV[tt][i];
                float2 q = sV[tt][j];
                accRe += p.x * q.x + p.y * q.y;
                accIm += p.y * q.x - p.x * q.y;
            }
        }
        __syncthreads();
    }
    if (b < XM_NBL) vis[c * XM_NBL + b] = make_float2(accRe, accIm);
}

// out[d nout + t] = sum_c fb[c nin + t + delay[d nchan + c]] for DM trial d = blockIdx.y
__global__ void dedisperse(const unsigned char *fb, const int *delay, float *out, int nchan, int nin, int nout) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int d = blockIdx.y;
    if (t >= nout) return;
    float sum = 0.0f;
    for (int c = 0; c < nchan; c++) {
        sum += (float)fb[c * nin + t + delay[d * nchan + c]];
    }
    out[d * nout + t] = sum;
}

// grid[(iv + dy) gsize + iu + dx] += wt C(dx - fu / GRID_OVER) C(dy - fv / GRID_OVER) vis
// over the 7 x 7 footprint around the nearest cell (iu, iv) of each visibility; gcf holds
// C at x = k / GRID_OVER - (GRID_SUP / 2 + 1), k = 0 .. (GRID_SUP + 1) GRID_OVER
__global__ void grid_vis(const float *u, const float *v, const float2 *vis, const float *wt, const float *gcf,
                         float2 *grid, float inv_du, int gsize, int nvis) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nvis) return;
    const int half = GRID_SUP / 2;
    float gu = u[i] * inv_du + gsize / 2;
    float gv = v[i] * inv_du + gsize / 2;
    int iu = (int)rintf(gu);
    int iv = (int)rintf(gv);
    if (iu - half < 0 || iu + half >= gsize || iv - half < 0 || iv + half >= gsize) return;
    int fu = (int)rintf((gu - iu) * GRID_OVER);     // -GRID_OVER/2 .. GRID_OVER/2
    int fv = (int)rintf((gv - iv) * GRID_OVER);
    float2 val = vis[i];
    float w = wt[i];
    for (int dy = -half; dy <= half; dy++) {
        float cy = gcf[(dy + half + 1) * GRID_OVER - fv];
        int row = (iv + dy) * gsize;
        for (int dx = -half; dx <= half; dx++) {
            float cx = gcf[(dx + half + 1) * GRID_OVER - fu];
            float k = w * cx * cy;
            float *cell = (float *)&grid[row + iu + dx];
            atomicAdd(cell, k * val.x);
            atomicAdd(cell + 1, k * val.y);
        }
    }
}

// a block a channel of data[chan][time]: mean and sigma, then samples with |x - mean| >
// thresh sigma set to the mean and flagged (flags[c ntime + t] = 1, else 0), the
// channel's count in nflag[c]
__global__ void rfi_flag(float *data, unsigned char *flags, int *nflag, int ntime, float thresh) {
    __shared__ float s_sum[RFI_BLOCK];
    __shared__ float s_sq[RFI_BLOCK];
    __shared__ int s_cnt;
    int c = blockIdx.x;
    int tid = threadIdx.x;
    float *row = data + c * ntime;
    unsigned char *frow = flags + c * ntime;
    if (tid == 0) s_cnt = 0;

    float sum = 0.0f;
    float sq = 0.0f;
    for (int t = tid; t < ntime; t += blockDim.x) {
        float x = row[t];
        sum += x;
        sq += x * x;
    }
    s_sum[tid] = sum;
    s_sq[tid] = sq;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            s_sum[tid] += s_sum[tid + s];
            s_sq[tid] += s_sq[tid + s];
        }
        __syncthreads();
    }
    float mean = s_sum[0] / ntime;
    float sigma = sqrtf(s_sq[0] / ntime - mean * mean);
    float limit = thresh * sigma;

    int cnt = 0;
    for (int t = tid; t < ntime; t += blockDim.x) {
        float x = row[t];
        if (fabsf(x - mean) > limit) {
            row[t] = mean;
            frow[t] = 1;
            cnt++;
        } else {
            frow[t] = 0;
        }
    }
    if (cnt > 0) atomicAdd(&s_cnt, cnt);
    __syncthreads();
    if (tid == 0) nflag[c] = s_cnt;
}

// power[(b nchan + c) ntime + t] = |sum_a V[(c BF_NANT + a) ntime + t] exp(i k_c (x_a l_b +
// y_a m_b))|^2, k_c = 2 pi freq[c] / c0; blockIdx.y the channel, blockIdx.z the beam
__global__ void beamform(const float2 *V, const float *freq, const float *beam_l, const float *beam_m, float *power,
                         int nchan, int ntime) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y;
    int b = blockIdx.z;
    if (t >= ntime) return;
    float k = 6.28318531f * freq[c] / 299792458.0f;
    float l = beam_l[b];
    float m = beam_m[b];
    float re = 0.0f;
    float im = 0.0f;
    for (int a = 0; a < BF_NANT; a++) {
        float phase = k * (c_ant_x[a] * l + c_ant_y[a] * m);
        float s, co;
        sincosf(phase, &s, &co);
        float2 x = V[(c * BF_NANT + a) * ntime + t];
        re += x.x * co - x.y * s;
        im += x.x * s + x.y * co;
    }
    power[(b * nchan + c) * ntime + t] = re * re + im * im;
}

}
