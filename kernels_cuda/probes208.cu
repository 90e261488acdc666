// probe-unseen206: a computer-music / sound-synthesis course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - wavetable_voices: a bank of wavetable oscillators, a thread an output sample of a voice
//    (blockIdx.y the voice): the voice's struct (phase and increment in double, so that long
//    notes do not drift), the band-limited mip level from the increment (log2f, ceilf), the
//    phase accumulated in double and wrapped by floor, the table read at two neighbouring
//    entries (the index wrapped by a mask) and interpolated linearly, an attack / decay
//    envelope by two expf; one coalesced store a sample into the voice's track;
//  - additive_notes: additive synthesis of piano notes from their inharmonic partials, a
//    block 256 consecutive samples of a note (blockIdx.y): the note's partials (structs of
//    frequency, amplitude, decay rate, phase) staged into shared memory 32 at a time by the
//    first warp between two __syncthreads, every thread summing them: each partial's decayed
//    amplitude by expf, skipped below -100 dB, its phase in cycles wrapped by floorf and sinf;
//  - resonator_bank: a constant-Q analysis bank of 88 band-pass resonators (one a piano key,
//    a cascade of two RBJ biquads, transposed direct form II in double: the low keys' poles
//    sit within 3e-4 of the unit circle) over many clips, a thread a (clip, key): the
//    coefficients in __constant__ memory (set by the host), the state in small local
//    arrays, a sample at a time (clips interleaved: a warp's loads coalesced), the band's
//    RMS every RB_HOP samples by sqrtf;
//  - granular_cloud: granular synthesis, a warp a grain: the grain's struct, its
//    equal-power pan gains by cosf / sinf, then the lanes stride over its samples: the
//    source read at the grain's playback rate with linear interpolation, a Hann window by
//    cosf, the result added into the interleaved stereo output by two global float
//    atomicAdds (overlapping grains: contended);
//  - mpm_pitch: the McLeod pitch method, a block a frame of a singing voice and a thread a
//    lag: the frame staged in shared memory, the lag's normalised square difference (NSDF)
//    summed over the frame (loops of PT_W - lag trips), the first negative lag found by
//    __ballot_sync, __ffs and a shared atomicMin, the key maxima past it (a local maximum
//    scanning its positive lobe both ways for a higher point), their maximum by
//    __shfl_xor_sync and a shared array, the first key maximum within PT_K of it by another
//    ballot and atomicMin, parabolic interpolation, the frequency, the clarity, the MIDI note as a
//    byte and a global histogram of the sung notes by atomicAdd;
//  - sampler_mix: a sample-based instrument's render, a grid-stride loop over output frames:
//    every note of the score (structs in __constant__ memory) checked against the frame,
//    the sounding ones read from the 16-bit sample bank at their playback rate (sustain
//    loops wrapped by fmodf, linear interpolation, a release by expf after the note-off),
//    panned into left / right, rounded and saturated to 16-bit stereo; the block's peak level
//    by a shared atomicMax and the render's by a global one.

#define TWO_PI 6.28318530718f
#define HALF_PI 1.57079632679f

#define WT_LEN 2048             // wavetable_voices: a table's samples (a power of two)
#define WT_LEVELS 11            // mip levels a waveform: level l keeps harmonics 1 .. 1024 >> l

#define AD_MAXP 96              // additive_notes: partials a note at most
#define AD_CHUNK 32             // partials staged in shared memory at a time
#define AD_FLOOR 1e-5f          // amplitudes below this (-100 dB) are skipped

#define RB_BANDS 88             // resonator_bank: a band a piano key (A0 .. C8)
#define RB_SECT 2               // biquad sections a band
#define RB_HOP 256              // samples an RMS frame

#define PT_W 1024               // mpm_pitch: samples a frame
#define PT_LAGS 512             // lags tried (blockDim.x)
#define PT_K 0.9f               // a peak within PT_K of the highest is taken
#define PT_VOICED 0.5f          // clarity below this: unvoiced

#define SM_MAXNOTES 256         // sampler_mix: notes of the score at most

struct WtVoice {
    double phase;               // starting phase (cycles, 0 .. 1)
    double inc;                 // cycles a sample
    int wave;                   // which waveform
    float amp;                  // peak amplitude
    float attack;               // attack time constant (samples)
    float decay;                // decay time constant (samples)
};

struct Partial {
    float freq;                 // Hz
    float amp;                  // linear amplitude at the onset
    float decay;                // decay rate (1/s)
    float phase;                // starting phase (radians)
};

struct Grain {
    float src_pos;              // first source sample (fractional)
    float ratio;                // playback rate (2^(semitones / 12))
    int onset;                  // first output frame
    int len;                    // samples
    float gain;                 // linear gain
    float pan;                  // 0 left .. 1 right
};

struct SmNote {
    int on;                     // note-on frame
    int off;                    // note-off frame (the release starts)
    int start;                  // the zone's first frame in the sample bank
    int loop_start;             // the sustain loop's first frame, from start
    int loop_len;               // its frames
    float ratio;                // playback rate
    float gain;                 // velocity gain
    float pan_l;                // pan gains
    float pan_r;
};

// the resonators' biquads: b0 b1 b2 a1 a2 (a0 = 1) a section, set by the host
__constant__ double c_rb[RB_BANDS][RB_SECT][5];

// the score played by sampler_mix, set by the host
__constant__ SmNote c_notes[SM_MAXNOTES];

extern "C" {

// voices[v] rendered into out[v * frames .. (v + 1) * frames - 1]; tables[(w * WT_LEVELS + l)
// * WT_LEN ..] waveform w's mip level l
__global__ void wavetable_voices(const float *tables, const WtVoice *voices, float *out, int frames) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = blockIdx.y;
    if (t >= frames) return;
    WtVoice vc = voices[v];
    // the highest level whose harmonics all stay under Nyquist
    int level = (int)ceilf(log2f((float)(vc.inc * WT_LEN)));
    if (level < 0) level = 0;
    if (level > WT_LEVELS - 1) level = WT_LEVELS - 1;
    const float *tab = tables + (vc.wave * WT_LEVELS + level) * WT_LEN;
    double ph = vc.phase + vc.inc * t;
    ph = ph - floor(ph);
    double pos = ph * WT_LEN;
    int i0 = (int)pos;
    float frac = (float)(pos - i0);
    int i1 = (i0 + 1) & (WT_LEN - 1);
    float a = tab[i0];
    float b = tab[i1];
    float s = a + frac * (b - a);
    float tt = (float)t;
    float env = (1.0f - expf(-tt / vc.attack)) * expf(-tt / vc.decay);
    out[(size_t)v * frames + t] = vc.amp * env * s;
}

// note blockIdx.y's npart[note] partials partials[note * AD_MAXP ..] summed into
// out[note * frames + t] at time t * inv_sr
__global__ void additive_notes(const Partial *partials, const int *npart, float *out, int frames, float inv_sr) {
    __shared__ Partial s_p[AD_CHUNK];
    int note = blockIdx.y;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float time = t * inv_sr;
    int np = npart[note];
    float acc = 0.0f;
    for (int base = 0; base < np; base += AD_CHUNK) {
        if (threadIdx.x < AD_CHUNK && base + threadIdx.x < np)
            s_p[threadIdx.x] = partials[note * AD_MAXP + base + threadIdx.x];
        __syncthreads();
        int m = min(AD_CHUNK, np - base);
        for (int j = 0; j < m; j++) {
            float a = s_p[j].amp * expf(-s_p[j].decay * time);
            if (a > AD_FLOOR) {
                float cyc = s_p[j].freq * time;
                cyc = cyc - floorf(cyc);
                acc += a * sinf(TWO_PI * cyc + s_p[j].phase);
            }
        }
        __syncthreads();
    }
    if (t < frames) out[(size_t)note * frames + t] = acc;
}

// clips clips of len samples interleaved (x[t * clips + c]); energy[(band * (len / RB_HOP) +
// frame) * clips + c] the RMS of band blockIdx.y's output over each RB_HOP samples
__global__ void resonator_bank(const float *x, float *energy, int clips, int len) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int band = blockIdx.y;
    if (c >= clips) return;
    double z1[RB_SECT], z2[RB_SECT];
    for (int s = 0; s < RB_SECT; s++) {
        z1[s] = 0.0;
        z2[s] = 0.0;
    }
    int nframes = len / RB_HOP;
    float acc = 0.0f;
    for (int t = 0; t < len; t++) {
        double v = x[(size_t)t * clips + c];
        for (int s = 0; s < RB_SECT; s++) {
            double y = c_rb[band][s][0] * v + z1[s];
            z1[s] = c_rb[band][s][1] * v - c_rb[band][s][3] * y + z2[s];
            z2[s] = c_rb[band][s][2] * v - c_rb[band][s][4] * y;
            v = y;
        }
        float y = (float)v;
        acc += y * y;
        if ((t + 1) % RB_HOP == 0) {
            energy[((size_t)band * nframes + t / RB_HOP) * clips + c] = sqrtf(acc / RB_HOP);
            acc = 0.0f;
        }
    }
}

// ngrains grains of src (src_len samples) added into out (out_frames interleaved stereo
// frames), a warp a grain
__global__ void granular_cloud(const float *src, int src_len, const Grain *grains, float *out, int out_frames,
                               int ngrains) {
    int gid = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (gid >= ngrains) return;
    Grain g = grains[gid];
    float gl = g.gain * cosf(g.pan * HALF_PI);
    float gr = g.gain * sinf(g.pan * HALF_PI);
    float w = TWO_PI / g.len;
    for (int j = lane; j < g.len; j += 32) {
        int o = g.onset + j;
        if (o >= out_frames) break;
        float pos = g.src_pos + j * g.ratio;
        int i0 = (int)pos;
        float fr = pos - i0;
        int i1 = min(i0 + 1, src_len - 1);
        float s = src[i0] + fr * (src[i1] - src[i0]);
        float win = 0.5f - 0.5f * cosf(w * j);
        s *= win;
        atomicAdd(&out[2 * o], gl * s);
        atomicAdd(&out[2 * o + 1], gr * s);
    }
}

// frame blockIdx.x: audio[blockIdx.x * hop .. + PT_W - 1]; its pitch f0 (Hz, 0 unvoiced),
// clarity and MIDI note (0 unvoiced); note_hist[note] += 1 for the voiced frames
__global__ void mpm_pitch(const float *audio, int hop, float sr, float *f0, float *clarity, unsigned char *midi,
                          int *note_hist, int nframes) {
    __shared__ float s_x[PT_W];
    __shared__ float s_n[PT_LAGS];
    __shared__ float s_wmax[PT_LAGS / 32];
    __shared__ int s_zero;
    __shared__ int s_pick;
    int tau = threadIdx.x;
    int lane = tau % 32;
    int wid = tau / 32;
    const float *x = audio + (size_t)blockIdx.x * hop;
    for (int i = tau; i < PT_W; i += blockDim.x) s_x[i] = x[i];
    if (tau == 0) {
        s_zero = PT_LAGS;
        s_pick = PT_LAGS;
    }
    __syncthreads();
    float r = 0.0f, m = 0.0f;
    for (int j = 0; j < PT_W - tau; j++) {
        float a = s_x[j];
        float b = s_x[j + tau];
        r += a * b;
        m += a * a + b * b;
    }
    float nsdf = m > 0.0f ? 2.0f * r / m : 0.0f;
    s_n[tau] = nsdf;
    // the first lag where the NSDF goes negative: the zero-lag lobe ends there
    unsigned int neg = __ballot_sync(0xffffffff, nsdf < 0.0f);
    if (lane == 0 && neg != 0) atomicMin(&s_zero, wid * 32 + __ffs(neg) - 1);
    __syncthreads();
    // the key maxima: past the first negative lag, the highest point of each positive lobe
    // (the first of equal ones); a local maximum scans its lobe both ways
    int peak = 0;
    if (tau > s_zero && tau < PT_LAGS - 1 && nsdf > 0.0f && nsdf > s_n[tau - 1] && nsdf >= s_n[tau + 1]) {
        peak = 1;
        for (int j = tau - 1; j > s_zero && s_n[j] > 0.0f; j--) {
            if (s_n[j] >= nsdf) {
                peak = 0;
                break;
            }
        }
        for (int j = tau + 1; j < PT_LAGS && s_n[j] > 0.0f; j++) {
            if (s_n[j] > nsdf) {
                peak = 0;
                break;
            }
        }
    }
    float v = peak ? nsdf : 0.0f;
    for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
    if (lane == 0) s_wmax[wid] = v;
    __syncthreads();
    float best = 0.0f;
    for (int k = 0; k < PT_LAGS / 32; k++) best = fmaxf(best, s_wmax[k]);
    unsigned int cand = __ballot_sync(0xffffffff, peak && nsdf >= PT_K * best);
    if (lane == 0 && cand != 0) atomicMin(&s_pick, wid * 32 + __ffs(cand) - 1);
    __syncthreads();
    if (tau == s_pick) {
        float a = s_n[tau - 1];
        float c = s_n[tau + 1];
        float den = a - 2.0f * nsdf + c;
        float d = den != 0.0f ? 0.5f * (a - c) / den : 0.0f;
        float clar = nsdf - 0.25f * (a - c) * d;
        float f = 0.0f;
        int note = 0;
        if (clar >= PT_VOICED) {
            f = sr / (tau + d);
            note = (int)rintf(69.0f + 12.0f * log2f(f / 440.0f));
            note = max(1, min(note, 127));
            atomicAdd(&note_hist[note], 1);
        }
        f0[blockIdx.x] = f;
        clarity[blockIdx.x] = clar;
        midi[blockIdx.x] = (unsigned char)note;
    }
    if (tau == 0 && s_pick == PT_LAGS) {          // no peak at all
        f0[blockIdx.x] = 0.0f;
        clarity[blockIdx.x] = 0.0f;
        midi[blockIdx.x] = 0;
    }
}

// frames stereo frames of the score's nnotes notes (c_notes) rendered from the 16-bit bank
// into out (interleaved left / right); release: the release's decay a frame; *peak the
// largest absolute sample written
__global__ void sampler_mix(const short *bank, int nnotes, float release, short *out, int *peak, int frames) {
    __shared__ int s_peak;
    if (threadIdx.x == 0) s_peak = 0;
    __syncthreads();
    for (int f = blockIdx.x * blockDim.x + threadIdx.x; f < frames; f += blockDim.x * gridDim.x) {
        float left = 0.0f, right = 0.0f;
        for (int k = 0; k < nnotes; k++) {
            SmNote nt = c_notes[k];
            if (f < nt.on) continue;
            float env = 1.0f;
            if (f >= nt.off) {
                env = expf(-(f - nt.off) * release);
                if (env < 1e-3f) continue;           // -60 dB: the note is over
            }
            float pos = (f - nt.on) * nt.ratio;
            float loop_end = (float)(nt.loop_start + nt.loop_len);
            if (pos >= loop_end) pos = nt.loop_start + fmodf(pos - nt.loop_start, (float)nt.loop_len);
            int i = (int)pos;
            float fr = pos - i;
            float a = bank[nt.start + i];
            float b = bank[nt.start + i + 1];
            float s = (a + fr * (b - a)) * nt.gain * env;
            left += s * nt.pan_l;
            right += s * nt.pan_r;
        }
        int il = __float2int_rn(left);
        int ir = __float2int_rn(right);
        il = max(-32768, min(il, 32767));
        ir = max(-32768, min(ir, 32767));
        out[2 * f] = (short)il;
        out[2 * f + 1] = (short)ir;
        atomicMax(&s_peak, max(abs(il), abs(ir)));
    }
    __syncthreads();
    if (threadIdx.x == 0) atomicMax(peak, s_peak);
}

}
