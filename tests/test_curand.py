"""cuRAND's device API (simt/include/curand_kernel.h, simt/curand.py): XORWOW against an
independent Python XORWOW (seeding, draws, skip-ahead by stepping), Philox4x32-10 against
Random123's known answer, the distributions against their formulas, and (GPU) every word
and uniform against CUDA's own curand_kernel.h bit for bit."""
import numpy as np
import pytest

from kern import compile_error, gpu_or_skip, run, same_bytes_on_gpu

M32 = 0xFFFFFFFF


def xorwow_seeded(seed):
    """cuRAND's XORWOW state for (seed, subsequence 0, offset 0): [d, v0..v4]."""
    t0 = (1099087573 * ((seed & M32) ^ 0xaad26b49)) & M32
    t1 = (2591861531 * (((seed >> 32) & M32) ^ 0xf7dcefdd)) & M32
    return [(6615241 + t1 + t0) & M32, (123456789 + t0) & M32, 362436069 ^ t0,
            (521288629 + t1) & M32, 88675123 ^ t1, (5783321 + t0) & M32]


def xorwow_next(s):
    d, v = s[0], s[1:]
    t = v[0] ^ (v[0] >> 2)
    v = v[1:] + [(v[4] ^ (v[4] << 4) ^ t ^ (t << 1)) & M32]
    d = (d + 362437) & M32
    s[:] = [d] + v
    return (v[4] + d) & M32


SRC = r'''
#include <curand_kernel.h>
// thread t: state (seed, subsequence sub[t], offset off[t]); 8 words, then the
// distributions from a copy of the same state
extern "C" __global__ void words(const unsigned long long *sub, const unsigned long long *off,
                                 unsigned long long seed, unsigned int *w, float *u, float *g,
                                 double *ud, float *ln) {
    int t = threadIdx.x;
    curandState s;
    curand_init(seed, sub[t], off[t], &s);
    curandState c = s;
    for (int i = 0; i < 8; ++i) w[8 * t + i] = curand(&s);
    u[2 * t] = curand_uniform(&c);
    u[2 * t + 1] = curand_uniform(&c);
    g[2 * t] = curand_normal(&c);
    g[2 * t + 1] = curand_normal(&c);      // the pair's second, kept in the state
    ud[t] = curand_uniform_double(&c);
    ln[t] = curand_log_normal(&c, 1.0f, 0.5f);
}
// skipahead(n) is n draws; skipahead_sequence(b) after subsequence a is subsequence a + b
extern "C" __global__ void skips(unsigned long long seed, unsigned int *w) {
    int t = threadIdx.x;
    curandState a, b;
    curand_init(seed, 3, 0, &a);
    skipahead((unsigned long long)t, &a);
    curand_init(seed, 1, 0, &b);
    skipahead_sequence(2ull, &b);
    skipahead((unsigned long long)t, &b);
    w[2 * t] = curand(&a);
    w[2 * t + 1] = curand(&b);
}
// Philox4_32_10 through a pointer to global memory, as a setup kernel leaves it
extern "C" __global__ void philox(curandStatePhilox4_32_10_t *states, unsigned long long seed,
                                  unsigned int *w, float *u4) {
    int t = threadIdx.x;
    curand_init(seed, t, 2 * t, &states[t]);
    curandStatePhilox4_32_10_t *p = &states[t];
    for (int i = 0; i < 6; ++i) w[6 * t + i] = curand(p);
    float4 f = curand_uniform4(p);
    uint4 q = curand4(p);
    u4[8 * t] = f.x; u4[8 * t + 1] = f.y; u4[8 * t + 2] = f.z; u4[8 * t + 3] = f.w;
    u4[8 * t + 4] = __uint_as_float(q.x); u4[8 * t + 5] = __uint_as_float(q.w);
    float2 n2 = curand_normal2(p);
    u4[8 * t + 6] = n2.x; u4[8 * t + 7] = n2.y;
}
'''

SEED = 0x1234_5678_9ABC_DEF0


def _words_args(n):
    sub = np.zeros(n, np.uint64)
    off = np.arange(n, dtype=np.uint64) * 37          # subsequence 0: offsets stepped by hand
    return [sub, off, np.uint64(SEED), np.zeros(8 * n, np.uint32), np.zeros(2 * n, np.float32),
            np.zeros(2 * n, np.float32), np.zeros(n, np.float64), np.zeros(n, np.float32)]


def test_xorwow_words_are_curands_from_seed_and_offset():
    n = 8
    (sub, off, _, w, u, g, ud, ln), _ = run(SRC, "words", 1, n, _words_args(n))
    for t in range(n):
        s = xorwow_seeded(SEED)
        for _ in range(int(off[t])):
            xorwow_next(s)
        want = [xorwow_next(s) for _ in range(8)]
        assert w[8 * t:8 * t + 8].tolist() == want, t
    # the uniforms: float(x) * 2^-32 + 2^-33 in one FFMA, in (0, 1]; the doubles from two words
    x = w.reshape(n, 8)
    want = (x[:, :2].astype(np.float32).astype(np.float64) * 2.0 ** -32 + 2.0 ** -33).astype(np.float32)
    np.testing.assert_array_equal(u.reshape(n, 2), want)
    z = x[:, 4].astype(np.uint64) ^ (x[:, 5].astype(np.uint64) << np.uint64(21))
    np.testing.assert_array_equal(ud, z * 2.0 ** -53 + 2.0 ** -54)
    # Box-Muller on words 2 and 3: both normals of the pair, the second from the state
    r = np.sqrt(-2 * np.log(x[:, 2] * 2.0 ** -32 + 2.0 ** -33))
    th = (x[:, 3] * 2.0 ** -32 + 2.0 ** -33) * 2 * np.pi
    np.testing.assert_allclose(g.reshape(n, 2), np.stack([r * np.sin(th), r * np.cos(th)], 1), rtol=2e-5, atol=1e-6)
    r2 = np.sqrt(-2 * np.log(x[:, 6] * 2.0 ** -32 + 2.0 ** -33))
    th2 = (x[:, 7] * 2.0 ** -32 + 2.0 ** -33) * 2 * np.pi
    np.testing.assert_allclose(ln, np.exp(1.0 + 0.5 * r2 * np.sin(th2)), rtol=5e-5)


def test_skipahead_is_draws_and_sequences_add():
    n = 16
    (_, w), _ = run(SRC, "skips", 1, n, [np.uint64(SEED), np.zeros(2 * n, np.uint32)])
    w = w.reshape(n, 2)
    np.testing.assert_array_equal(w[:, 0], w[:, 1])        # subsequence 3 both ways
    assert len(set(w[:, 0].tolist())) == n
    # against stepping by one draw: word t of subsequence 3 is skipahead(t)'s first
    (_, a), _ = run(SRC.replace("skipahead((unsigned long long)t, &a);", "")
                    .replace("w[2 * t] = curand(&a);", "for (int i = 0; i < t; ++i) curand(&a); w[2 * t] = curand(&a);"),
                    "skips", 1, n, [np.uint64(SEED), np.zeros(2 * n, np.uint32)])
    np.testing.assert_array_equal(a.reshape(n, 2)[:, 0], w[:, 0])


def test_philox_gives_random123s_known_answer_and_its_layout():
    n = 4
    states = np.zeros(n * 64, np.uint8)
    (st, _, w, u4), _ = run(SRC, "philox", 1, n, [states, np.uint64(0), np.zeros(6 * n, np.uint32),
                                                 np.zeros(8 * n, np.float32)])
    # Random123's kat_vectors: philox4x32_10(counter 0, key 0)
    assert [hex(x) for x in w[:4]] == ["0x6627e8d5", "0xe169c58d", "0xbc57ac4c", "0x9b00dbd8"]
    # the state as cuRAND lays it out: ctr (uint4), output, key (uint2), STATE, flags, extras
    words = st.view(np.uint32).reshape(n, 16)
    assert words[1, 2] == 1 and words[1, 8:10].tolist() == [0, 0]      # thread 1: subsequence 1
    # curand4 continues the words; uniform4 is their uniforms
    w = w.reshape(n, 6)
    u4 = u4.reshape(n, 8)
    assert len({tuple(r) for r in w.tolist()}) == n
    assert np.all((u4[:, :4] > 0) & (u4[:, :4] <= 1))
    assert np.all(np.isfinite(u4[:, 6:]))


def test_curand_errors_name_the_call():
    msg = compile_error('#include <curand_kernel.h>\nextern "C" __global__ void k(float *o) {\n'
                        "  o[0] = curand_uniform(o);\n}")
    assert msg.startswith('bad.cu:3:10: error: no instance of overloaded function "curand_uniform"')
    assert "(float *)" in msg


@pytest.mark.gpu
def test_curand_on_the_gpu(tmp_path):
    gpu_or_skip()
    n = 32
    args = _words_args(n)
    args[0] = np.arange(n, dtype=np.uint64) * np.uint64(0x10001)      # subsequences of many digits
    from kernels_cuda import crosscheck
    emu, _ = run(SRC, "words", 1, n, [a.copy() if isinstance(a, np.ndarray) else a for a in args])
    (tmp_path / "c.cu").write_text(SRC)
    _, real, _ = crosscheck.real_launch(str(tmp_path / "c.cu"), "words", 1, n, args, repeat=1)
    for k in (3, 4, 6):                     # words, uniforms, uniform doubles: bit for bit
        assert real[k].tobytes() == emu[k].tobytes(), k
    np.testing.assert_allclose(real[5], emu[5], rtol=1e-5, atol=1e-6)    # normals: the GPU's logf, __sincosf
    np.testing.assert_allclose(real[7], emu[7], rtol=1e-5)
    same_bytes_on_gpu(SRC, tmp_path / "s.cu", "skips", 1, 16, [np.uint64(SEED), np.zeros(32, np.uint32)])
    states = np.zeros(4 * 64, np.uint8)
    emu, _ = run(SRC, "philox", 1, 4, [states.copy(), np.uint64(SEED), np.zeros(24, np.uint32), np.zeros(32, np.float32)])
    (tmp_path / "p.cu").write_text(SRC)
    _, real, _ = crosscheck.real_launch(str(tmp_path / "p.cu"), "philox", 1, 4,
                                        [states, np.uint64(SEED), np.zeros(24, np.uint32), np.zeros(32, np.float32)], repeat=1)
    assert real[2].tobytes() == emu[2].tobytes()
    assert real[3][:6 * 4].size and real[3].reshape(4, 8)[:, :6].tobytes() == emu[3].reshape(4, 8)[:, :6].tobytes()
    np.testing.assert_allclose(real[3].reshape(4, 8)[:, 6:], emu[3].reshape(4, 8)[:, 6:], rtol=1e-5, atol=1e-6)
    assert real[0].tobytes() == emu[0].tobytes()          # the states, as cuRAND lays them out
