// probe-unseen70: a radar / sensor-array signal-processing course's CUDA assignments, as a
// student who knows CUDA basics hands them in; complex baseband samples are
// cuFloatComplex (float2).  Pulse compression as a time-domain matched filter, a thread an
// output sample of a pulse correlating PC_TAPS input samples with the conjugated chirp
// replica, which the block first copies into shared memory; a corner turn of the data
// cube (pulse-major to range-major) through a padded 32 x 32 shared tile, each sample
// multiplied by its pulse's slow-time window weight on the way; Doppler processing of
// DD_PULSES pulses as a naive DFT, a warp a range bin whose lanes hold one pulse each and
// broadcast it to the others with __shfl_sync, the twiddles by sincosf; cell-averaging
// CFAR along range over a range-Doppler power map, a thread a cell summing its training
// cells on both sides of the guard cells (fewer at the edges), the threshold factor and
// window in a __constant__ struct, detections appended to a list through one global
// atomicAdd each; narrowband beamforming of a BF_NCH-element array, a thread a (beam,
// snapshot) summing the channels times the conjugated steering weights from a __constant__
// float2 table, the snapshots stored channel-interleaved as the ADC delivers them; and the
// sample covariance matrix R = X X^H / CV_NSNAP of each range gate (MVDR training), a
// block a gate with its CV_NCH x CV_NSNAP snapshots staged in shared memory and a thread
// an element of R.
#include <cuComplex.h>

#define PC_TAPS 64                 // pulse_compress: the replica's length (blockDim.x >= PC_TAPS)
#define CT_TILE 32                 // corner_turn_window: the tile (blockDim (CT_TILE, CT_ROWS))
#define CT_ROWS 8
#define DD_PULSES 32               // doppler_dft_warp: pulses a CPI (one a lane)
#define BF_NCH 16                  // beamform: array elements
#define BF_NBEAM 16                // beams (gridDim.y)
#define CV_NCH 16                  // covariance: array elements (blockDim (CV_NCH, CV_NCH))
#define CV_NSNAP 32                // snapshots a range gate (2 CV_NCH: Reed-Mallett-Brennan)

// cfar_ca's window and threshold (set by the host)
struct CfarParams {
    int guard;                     // guard cells on each side of the cell under test
    int train;                     // training cells on each side, beyond the guard cells
    float alpha;                   // threshold factor over the training cells' mean
};
__constant__ CfarParams c_cfar;

// beamform's steering weights (set by the host): beam b's weight on channel c at [b][c]
__constant__ float2 c_steer[BF_NBEAM * BF_NCH];

extern "C" {

// y[p][r] = sum_k x[p][r + k] conj(h[k]), k < PC_TAPS (samples past the pulse's end count
// as 0), for npulse pulses of nrange samples each (pulse-major); a thread an output sample
__global__ void pulse_compress(const cuFloatComplex *x, const cuFloatComplex *replica, cuFloatComplex *y,
                               int nrange, int npulse) {
    __shared__ cuFloatComplex h[PC_TAPS];
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int p = blockIdx.y;
    if (threadIdx.x < PC_TAPS) h[threadIdx.x] = cuConjf(replica[threadIdx.x]);
    __syncthreads();
    if (r >= nrange || p >= npulse) return;
    const cuFloatComplex *pulse = x + (size_t)p * nrange;
    cuFloatComplex acc = make_cuFloatComplex(0.0f, 0.0f);
    for (int k = 0; k < PC_TAPS; k++) {
        if (r + k < nrange) acc = cuCaddf(acc, cuCmulf(pulse[r + k], h[k]));
    }
    y[(size_t)p * nrange + r] = acc;
}

// corner turn: out[r][p] = win[p] in[p][r] for npulse x nrange samples (pulse-major in,
// range-major out); blockDim (CT_TILE, CT_ROWS), a block a CT_TILE x CT_TILE tile
__global__ void corner_turn_window(const cuFloatComplex *in, const float *win, cuFloatComplex *out, int npulse,
                                   int nrange) {
    __shared__ cuFloatComplex tile[CT_TILE][CT_TILE + 1];
    int r = blockIdx.x * CT_TILE + threadIdx.x;
    int p0 = blockIdx.y * CT_TILE;
    for (int j = threadIdx.y; j < CT_TILE; j += CT_ROWS) {
        int p = p0 + j;
        if (p < npulse && r < nrange) {
            cuFloatComplex v = in[(size_t)p * nrange + r];
            float w = win[p];
            tile[j][threadIdx.x] = make_cuFloatComplex(v.x * w, v.y * w);
        }
    }
    __syncthreads();
    int p = p0 + threadIdx.x;
    int r0 = blockIdx.x * CT_TILE;
    for (int j = threadIdx.y; j < CT_TILE; j += CT_ROWS) {
        int rr = r0 + j;
        if (rr < nrange && p < npulse) out[(size_t)rr * npulse + p] = tile[threadIdx.x][j];
    }
}

// Y[r][d] = sum_p z[r][p] exp(-2 pi i p d / DD_PULSES) for nrange range bins, z and Y
// range-major (a range bin's DD_PULSES pulses contiguous); a warp a range bin, lane d
// loading pulse d and computing Doppler bin d
__global__ void doppler_dft_warp(const cuFloatComplex *z, cuFloatComplex *Y, int nrange) {
    int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    int r = gtid / 32;
    int d = threadIdx.x % 32;
    if (r >= nrange) return;
    cuFloatComplex mine = z[(size_t)r * DD_PULSES + d];
    cuFloatComplex acc = make_cuFloatComplex(0.0f, 0.0f);
    for (int p = 0; p < DD_PULSES; p++) {
        float zr = __shfl_sync(0xffffffff, mine.x, p);
        float zi = __shfl_sync(0xffffffff, mine.y, p);
        float s, c;
        sincosf(-2.0f * 3.14159265f * p * d / DD_PULSES, &s, &c);
        acc.x += zr * c - zi * s;
        acc.y += zr * s + zi * c;
    }
    Y[(size_t)r * DD_PULSES + d] = acc;
}

// cell-averaging CFAR along range on an ndopp x nrange power map (Doppler-major): cell
// (d, r) is a detection when pw > alpha * the mean of its training cells (those inside the
// map); detection k (in any order) goes to det_range[k], det_dopp[k], det_snr[k] (pw over
// the mean), the first max_det of them, *ndet counting all
__global__ void cfar_ca(const float *pw, int *det_range, int *det_dopp, float *det_snr, int *ndet, int max_det,
                        int nrange, int ndopp) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int d = blockIdx.y;
    if (r >= nrange || d >= ndopp) return;
    const float *row = pw + (size_t)d * nrange;
    float sum = 0.0f;
    int cnt = 0;
    for (int k = c_cfar.guard + 1; k <= c_cfar.guard + c_cfar.train; k++) {
        if (r - k >= 0) {
            sum += row[r - k];
            cnt++;
        }
        if (r + k < nrange) {
            sum += row[r + k];
            cnt++;
        }
    }
    float noise = sum / cnt;
    float cut = row[r];
    if (cut > c_cfar.alpha * noise) {
        int k = atomicAdd(ndet, 1);
        if (k < max_det) {
            det_range[k] = r;
            det_dopp[k] = d;
            det_snr[k] = cut / noise;
        }
    }
}

// y[b][t] = sum_c conj(c_steer[b][c]) x[t][c] for nsnap snapshots of BF_NCH channels
// (snapshot-major: a snapshot's channels contiguous) and BF_NBEAM beams (blockIdx.y)
__global__ void beamform(const cuFloatComplex *x, cuFloatComplex *y, int nsnap) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (t >= nsnap) return;
    cuFloatComplex acc = make_cuFloatComplex(0.0f, 0.0f);
    for (int c = 0; c < BF_NCH; c++) {
        cuFloatComplex w = c_steer[b * BF_NCH + c];
        acc = cuCaddf(acc, cuCmulf(cuConjf(w), x[(size_t)t * BF_NCH + c]));
    }
    y[(size_t)b * nsnap + t] = acc;
}

// R[g] = X_g X_g^H / CV_NSNAP for ngates range gates, X_g gate g's CV_NCH x CV_NSNAP
// snapshots (channel-major), R[g] row-major; a block a gate, blockDim (CV_NCH, CV_NCH),
// thread (x = j, y = i) computing R[g][i][j]
__global__ void covariance(const cuFloatComplex *x, cuFloatComplex *R, int ngates) {
    __shared__ cuFloatComplex s_x[CV_NCH][CV_NSNAP];
    int g = blockIdx.x;
    if (g >= ngates) return;
    int i = threadIdx.y;
    int j = threadIdx.x;
    int tid = i * CV_NCH + j;
    const cuFloatComplex *xg = x + (size_t)g * CV_NCH * CV_NSNAP;
    for (int k = tid; k < CV_NCH * CV_NSNAP; k += CV_NCH * CV_NCH) s_x[k / CV_NSNAP][k % CV_NSNAP] = xg[k];
    __syncthreads();
    cuFloatComplex acc = make_cuFloatComplex(0.0f, 0.0f);
    for (int s = 0; s < CV_NSNAP; s++) acc = cuCaddf(acc, cuCmulf(s_x[i][s], cuConjf(s_x[j][s])));
    R[((size_t)g * CV_NCH + i) * CV_NCH + j] = make_cuFloatComplex(acc.x / CV_NSNAP, acc.y / CV_NSNAP);
}

}
