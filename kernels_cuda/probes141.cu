// probe-unseen139: a computational-acoustics course's CUDA assignments, as a student who
// knows CUDA basics hands them in:
//  - fdtd3d_acoustic: one leapfrog step of the 3-D scalar wave equation (second-order FDTD,
//    7-point Laplacian) on a nx x ny x nz pressure grid, pressure-release (p = 0) walls; a
//    thread a cell, blocks of 32 x 8 in x-y and a grid layer per z;
//  - image_source_rir: a shoebox room's impulse response by the image-source method (Allen
//    & Berkley), a thread an image source (reflection orders -order .. order an axis, the
//    8 parities), its delay rounded to a sample and its amplitude beta^reflections / (4 pi d)
//    added into the RIR by a float atomicAdd (images past the RIR's end skipped);
//  - ray_trace_room: acoustic ray tracing in the same shoebox, a thread a ray from the source
//    (direction hashed, uniform on the sphere), specular bounces on the walls (absorption per
//    wall in __constant__ memory) until the energy falls under e_min or RT_MAX_BOUNCES; a
//    segment passing within rad of the receiver adds its energy to an energy-time histogram
//    by atomicAdd; the bounces of each ray stored;
//  - fir_reverb: convolution reverb by a direct FIR of FIR_TAPS taps (the early part of a
//    room response, in __constant__ memory), the input tile plus its FIR_TAPS - 1 history
//    staged in shared memory, a thread an output sample, a dry/wet mix;
//  - modal_synth: modal synthesis of impact sounds, each sound SOUND_LEN samples from its own
//    bank of n_modes damped sinusoids (omega, decay, amplitude, phase); a block 256 samples of
//    one sound with that sound's modes staged in shared memory, a thread a sample summing
//    a expf(-d t) sinf(w t + phi) over the modes;
//  - spectrogram_db: the magnitude spectrogram of a signal with a small DFT: a block a frame
//    of DFT_N samples (hop apart), Hann-windowed into shared memory with a cos/sin twiddle
//    table, a thread a bin (DFT_BINS of them) doing the direct DFT with the twiddle index
//    (k j) mod DFT_N, the power in dB stored.

#define RT_MAX_BOUNCES 200    // ray_trace_room: the most reflections a ray
#define FIR_TAPS 1024         // fir_reverb: the filter's length
#define FIR_BLOCK 256         // fir_reverb: outputs a block (blockDim.x)
#define SOUND_LEN 16384       // modal_synth: samples a sound
#define MAX_MODES 256         // modal_synth: the most modes a sound (n_modes <= blockDim.x)
#define DFT_N 256             // spectrogram_db: frame length
#define DFT_BINS 128          // spectrogram_db: bins kept (blockDim.x)

// ray_trace_room's wall absorption coefficients (x = 0, x = Lx, y = 0, y = Ly, z = 0, z = Lz)
__constant__ float c_alpha[6];

// fir_reverb's impulse response
__constant__ float c_h[FIR_TAPS];

extern "C" {

// a 32-bit integer hash (lowbias32), for the rays' directions
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// a uniform float in [0, 1) from a hash's top 24 bits
__device__ float uniform01(unsigned int h) {
    return (h >> 8) * (1.0f / 16777216.0f);
}

// p_next = 2 p - p_prev + courant2 * laplacian(p); the boundary cells held at 0
__global__ void fdtd3d_acoustic(const float *p, const float *p_prev, float *p_next, float courant2, int nx, int ny,
                                int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    int i = (z * ny + y) * nx + x;
    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
        p_next[i] = 0.0f;
        return;
    }
    int sxy = nx * ny;
    float c = p[i];
    float lap = p[i - 1] + p[i + 1] + p[i - nx] + p[i + nx] + p[i - sxy] + p[i + sxy] - 6.0f * c;
    p_next[i] = 2.0f * c - p_prev[i] + courant2 * lap;
}

// the image sources of orders -order .. order (each axis) of a Lx x Ly x Lz room with the
// source at (sx, sy, sz), heard at (rx, ry, rz); wall reflection coefficient beta, delay
// d * fs_over_c rounded to the nearest sample
__global__ void image_source_rir(float *rir, float Lx, float Ly, float Lz, float sx, float sy, float sz, float rx,
                                 float ry, float rz, float beta, float fs_over_c, int order, int rir_len) {
    int side = 2 * order + 1;
    int total = side * side * side * 8;
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total) return;
    int par = idx & 7;
    int cell = idx >> 3;
    int mx = cell % side - order;
    int my = (cell / side) % side - order;
    int mz = cell / (side * side) - order;
    int qx = par & 1;
    int qy = (par >> 1) & 1;
    int qz = par >> 2;
    float ix = (1 - 2 * qx) * sx + 2 * mx * Lx;
    float iy = (1 - 2 * qy) * sy + 2 * my * Ly;
    float iz = (1 - 2 * qz) * sz + 2 * mz * Lz;
    float dx = ix - rx;
    float dy = iy - ry;
    float dz = iz - rz;
    float d = sqrtf(dx * dx + dy * dy + dz * dz);
    int k = (int)(d * fs_over_c + 0.5f);
    if (k >= rir_len) return;
    int refl = abs(mx - qx) + abs(mx) + abs(my - qy) + abs(my) + abs(mz - qz) + abs(mz);
    float a = powf(beta, (float)refl) / (4.0f * 3.14159265f * d);
    atomicAdd(&rir[k], a);
}

// n rays from the source (sx, sy, sz) in a Lx x Ly x Lz room; ray i's direction from the
// hashes of seed + 2 i and seed + 2 i + 1; the energy-time histogram etc (bin = path length
// * bins_per_m) gets a ray's energy each time a segment passes within rad of the receiver
__global__ void ray_trace_room(float *etc, int *bounces, float Lx, float Ly, float Lz, float sx, float sy, float sz,
                               float rx, float ry, float rz, float rad, float e_min, float bins_per_m, int n_bins,
                               unsigned int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float u = 2.0f * uniform01(hash32(seed + 2u * i)) - 1.0f;
    float phi = 6.28318531f * uniform01(hash32(seed + 2u * i + 1u));
    float s = sqrtf(1.0f - u * u);
    float dx = s * cosf(phi);
    float dy = s * sinf(phi);
    float dz = u;
    float ox = sx, oy = sy, oz = sz;
    float e = 1.0f;
    float path = 0.0f;
    float rad2 = rad * rad;
    int b;
    for (b = 0; b < RT_MAX_BOUNCES; b++) {
        // the nearest wall along the ray
        float tx = 1e30f, ty = 1e30f, tz = 1e30f;
        if (dx > 0.0f) tx = (Lx - ox) / dx;
        else if (dx < 0.0f) tx = -ox / dx;
        if (dy > 0.0f) ty = (Ly - oy) / dy;
        else if (dy < 0.0f) ty = -oy / dy;
        if (dz > 0.0f) tz = (Lz - oz) / dz;
        else if (dz < 0.0f) tz = -oz / dz;
        float t = tx;
        int axis = 0;
        if (ty < t) { t = ty; axis = 1; }
        if (tz < t) { t = tz; axis = 2; }

        // does the segment pass the receiver?
        float wx = rx - ox, wy = ry - oy, wz = rz - oz;
        float proj = wx * dx + wy * dy + wz * dz;
        if (proj > 0.0f && proj < t) {
            float cx = wx - proj * dx, cy = wy - proj * dy, cz = wz - proj * dz;
            if (cx * cx + cy * cy + cz * cz < rad2) {
                int bin = (int)((path + proj) * bins_per_m);
                if (bin < n_bins) atomicAdd(&etc[bin], e);
            }
        }

        // move to the wall and reflect
        ox += t * dx;
        oy += t * dy;
        oz += t * dz;
        path += t;
        int wall;
        if (axis == 0) {
            wall = dx > 0.0f ? 1 : 0;
            ox = wall ? Lx : 0.0f;
            dx = -dx;
        } else if (axis == 1) {
            wall = dy > 0.0f ? 3 : 2;
            oy = wall == 3 ? Ly : 0.0f;
            dy = -dy;
        } else {
            wall = dz > 0.0f ? 5 : 4;
            oz = wall == 5 ? Lz : 0.0f;
            dz = -dz;
        }
        e *= 1.0f - c_alpha[wall];
        if (e < e_min) {
            b++;
            break;
        }
    }
    bounces[i] = b;
}

// y[i] = dry x[i] + wet sum_k h[k] x[i - k] (x zero before 0); blockDim.x == FIR_BLOCK
__global__ void fir_reverb(const float *x, float *y, float dry, float wet, int n) {
    __shared__ float s_x[FIR_BLOCK + FIR_TAPS - 1];
    int base = blockIdx.x * FIR_BLOCK;
    for (int j = threadIdx.x; j < FIR_BLOCK + FIR_TAPS - 1; j += FIR_BLOCK) {
        int g = base - (FIR_TAPS - 1) + j;
        s_x[j] = (g >= 0 && g < n) ? x[g] : 0.0f;
    }
    __syncthreads();
    int i = base + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < FIR_TAPS; k++) acc += c_h[k] * s_x[threadIdx.x + FIR_TAPS - 1 - k];
    y[i] = dry * s_x[threadIdx.x + FIR_TAPS - 1] + wet * acc;
}

// out[s SOUND_LEN + j] = sum_m amp exp(-decay t) sin(omega t + phase), t = j / fs, the
// modes of sound s at [s n_modes + m]; blockDim.x == 256 (SOUND_LEN a multiple of it)
__global__ void modal_synth(const float *omega, const float *decay, const float *amp, const float *phase,
                            float *out, float inv_fs, int n_modes, int n) {
    __shared__ float s_w[MAX_MODES];
    __shared__ float s_d[MAX_MODES];
    __shared__ float s_a[MAX_MODES];
    __shared__ float s_p[MAX_MODES];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int sound = (blockIdx.x * blockDim.x) / SOUND_LEN;
    int m0 = threadIdx.x;
    if (m0 < n_modes) {
        s_w[m0] = omega[sound * n_modes + m0];
        s_d[m0] = decay[sound * n_modes + m0];
        s_a[m0] = amp[sound * n_modes + m0];
        s_p[m0] = phase[sound * n_modes + m0];
    }
    __syncthreads();
    if (i >= n) return;
    float t = (i % SOUND_LEN) * inv_fs;
    float acc = 0.0f;
    for (int m = 0; m < n_modes; m++) acc += s_a[m] * expf(-s_d[m] * t) * sinf(s_w[m] * t + s_p[m]);
    out[i] = acc;
}

// spec[f DFT_BINS + k] = 10 log10(|X_f[k]|^2 + 1e-12), X_f the DFT of the Hann-windowed
// frame x[f hop .. f hop + DFT_N); a block a frame, blockDim.x == DFT_BINS
__global__ void spectrogram_db(const float *x, float *spec, int hop, int n_frames) {
    __shared__ float s_frame[DFT_N];
    __shared__ float s_cos[DFT_N];
    __shared__ float s_sin[DFT_N];
    int f = blockIdx.x;
    int k = threadIdx.x;
    for (int j = k; j < DFT_N; j += blockDim.x) {
        float ang = 6.28318531f * j / DFT_N;
        float w = 0.5f - 0.5f * cosf(ang);
        s_frame[j] = w * x[f * hop + j];
        s_cos[j] = cosf(ang);
        s_sin[j] = sinf(ang);
    }
    __syncthreads();
    if (f >= n_frames) return;
    float re = 0.0f;
    float im = 0.0f;
    for (int j = 0; j < DFT_N; j++) {
        int t = (k * j) & (DFT_N - 1);
        re += s_frame[j] * s_cos[t];
        im -= s_frame[j] * s_sin[t];
    }
    spec[f * DFT_BINS + k] = 10.0f * log10f(re * re + im * im + 1e-12f);
}

}
