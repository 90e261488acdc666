"""probe-unseen206's kernels (kernels_cuda/probes208.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/synth-wavetable-mipmap-voices", "probe/synth-additive-piano-partials-smem",
       "probe/synth-resonator-bank-double-const", "probe/synth-granular-cloud-atomics",
       "probe/synth-mpm-pitch-shfl-ballot", "probe/synth-sampler-int16-mix-const"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen206"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes208.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # wavetables: each level band-limited to 1024 >> l harmonics, level 0's peak 1
    tabs = tp._p208_wt_tables(rng)
    assert tabs.shape == (tp.P208_WT_WAVES, tp.P208_WT_LEVELS, tp.P208_WT_LEN)
    assert np.allclose(np.abs(tabs[:, 0]).max(axis=1), 1)
    spec = np.abs(np.fft.rfft(tabs.astype(np.float64), axis=2))
    for lv in range(tp.P208_WT_LEVELS):
        top = 1024 >> lv
        assert (spec[:, lv, top + 1:] < 1e-3).all() and spec[:, lv, 0].max() < 1e-2
        assert (spec[:, lv, 1] > 100).all()                                 # the fundamental kept
    assert spec[0, 0, 3] / spec[0, 0, 1] == pytest.approx(1 / 3, rel=1e-3)  # a sawtooth's 1/k
    assert spec[1, 0, 2] < 1e-3 and spec[2, 0, 3] / spec[2, 0, 1] == pytest.approx(1 / 9, rel=1e-3)
    v = tp._p208_wt_voices(4096, rng)
    hz = v["inc"] * tp.P208_SR
    key = 69 + 12 * np.log2(hz / 440)
    assert 26 < hz.min() and hz.max() < 4300 and 58 < np.median(key) < 62 and 10 < key.std() < 13
    assert np.abs(key - np.rint(key)).max() < 0.35                          # detuned by cents
    assert 0.27 < (v["wave"] == 0).mean() < 0.33 and set(np.unique(v["wave"])) == set(range(8))
    lv = tp._p208_wt_level(v["inc"])
    assert lv.min() >= 1 and lv.max() <= 8 and 0.6 < ((lv >= 3) & (lv <= 5)).mean()
    assert ((1024 >> lv) * v["inc"] <= 0.5).all() and ((2048 >> lv) * v["inc"] > 0.5).all()   # the right level
    assert (v["amp"] <= 1).all() and v["attack"].min() >= 48 and v["decay"].max() <= 480000
    # additive: partials under 0.45 sr, inharmonic, the counts
    parts, npart = tp._p208_ad_notes(2048, rng)
    assert npart.min() >= 5 and npart.max() == tp.P208_AD_MAXP and 50 < npart.mean() < 70
    live = np.arange(tp.P208_AD_MAXP)[None, :] < npart[:, None]
    assert (parts["freq"][live] < 0.45 * tp.P208_SR).all() and (parts["amp"][~live] == 0).all()
    r = parts["freq"][:, 9] / parts["freq"][:, 0]
    assert (r[npart >= 10] > 10.0).all() and (r[npart >= 10] < 11).all()    # stretched partials
    assert (np.diff(parts["freq"], axis=1)[live[:, 1:]] > 0).all()
    assert 0.005 < (parts["amp"][live] < tp.P208_AD_FLOOR).mean() < 0.03   # the hammer's nodes
    assert parts["amp"].max() < 0.2 and (parts["decay"][live] > 0.6).all()
    # resonators: unit gain at each key's frequency, a semitone's -3 dB band a section
    c = tp._p208_rb_coefs()
    hz = 440 * 2 ** ((np.arange(21, 109) - 69) / 12)

    def gain(f):
        z = np.exp(-1j * 2 * np.pi * f / tp.P208_SR_AN)
        return np.abs((c[:, 0, 0] + c[:, 0, 1] * z + c[:, 0, 2] * z * z) / (1 + c[:, 0, 3] * z + c[:, 0, 4] * z * z))
    assert np.allclose(gain(hz), 1) and np.allclose(gain(hz * 2 ** (1 / 24))[:48], 2 ** -0.5, atol=0.002)
    assert np.allclose(gain(hz * 2 ** (-1 / 24))[:48], 2 ** -0.5, atol=0.002)
    assert 0.58 < gain(hz * 2 ** (1 / 24))[-1] < 0.65                    # the top keys a little narrower (warped)
    assert (c[:, 1] == c[:, 0]).all() and 1 - np.sqrt(c[0, 0, 4]) < 3e-4   # the A0 pole 2.3e-4 inside the circle
    x = tp._p208_rb_clips(64, 3072, rng)
    rms = np.sqrt((x.astype(np.float64) ** 2).mean(axis=0))
    assert x.shape == (3072, 64) and 0.03 < np.median(rms) < 0.1 and rms.min() > 0.001 and np.abs(x).max() < 1
    # granular: sorted onsets, bursts, durations, inside the source
    g = tp._p208_gr_grains(1 << 14, rng)
    assert (np.diff(g["onset"]) >= 0).all() and g["onset"].max() < tp.P208_GR_OUT
    dur = g["len"] / tp.P208_SR
    assert dur.min() >= 0.0099 and dur.max() <= 0.2 and 0.035 < np.median(dur) < 0.045
    assert (g["src_pos"] >= 0).all() and (g["src_pos"] + g["len"] * g["ratio"].astype(float) < tp.P208_GR_SRC - 2).all()
    st = 12 * np.log2(g["ratio"])
    assert 0.35 < (np.abs(st) < 0.5).mean() < 0.45 and 0.17 < (np.abs(st - 7) < 0.5).mean() < 0.23
    per_s = np.bincount(g["onset"] // tp.P208_SR, minlength=30)
    assert per_s.max() > 5 * per_s.min() and per_s.min() < 0.5 * len(g) / 30    # the bursts over a background
    assert 0.45 < g["pan"].mean() < 0.55 and 0.2 < g["pan"].std() < 0.25             # Beta(2, 2)
    src = tp._p208_gr_source(rng)
    assert len(src) == tp.P208_GR_SRC and np.abs(src).max() == pytest.approx(0.9, abs=1e-6)
    # pitch: a voiced singer in C3 .. G5 with rests
    h = tp._p208_pt_args(1024, rng)
    assert len(h[0]) == 1023 * tp.P208_PT_HOP + tp.P208_PT_W
    f0, cl, note, lag, marg = tp._p208_pt_ref(h[0], 1024)
    v = f0 > 0
    assert 0.75 < v.mean() < 0.95 and 120 < f0[v].min() and f0[v].max() < 830 and marg[v].mean() < 0.05
    assert note[v].min() >= 47 and note[v].max() <= 80 and len(np.unique(note[v])) > 10 and (cl[v] > 0.9).mean() > 0.9
    # sampler: the bank, the loops, the score
    bank = tp._p208_sm_bank(rng).reshape(len(tp.P208_SM_ROOTS), tp.P208_SM_ZONE)
    assert np.abs(bank.astype(int)).max(axis=1).min() == 24000
    loops = tp._p208_sm_loops()
    per = tp.P208_SR / (440 * 2 ** ((np.array(tp.P208_SM_ROOTS) - 69) / 12))
    assert (tp.P208_SM_LOOP + loops + 1 < tp.P208_SM_ZONE).all() and np.abs(loops / per - np.rint(loops / per)).max() < 0.05
    s = tp._p208_sm_score(256, 1 << 22, rng)
    assert (np.diff(s["on"]) >= 0).all() and (s["off"] > s["on"]).all() and s["on"].max() < 1 << 22
    assert 2 ** (-1.6 / 12) < s["ratio"].min() and s["ratio"].max() < 2 ** (1.6 / 12)
    assert np.allclose(s["pan_l"] ** 2 + s["pan_r"] ** 2, 1, atol=1e-6) and s["gain"].max() <= 0.5
    fr = np.arange(0, 1 << 22, 480)
    act = ((fr[:, None] >= s["on"]) & (fr[:, None] < s["off"] + 6.91 * 0.25 * tp.P208_SR)).sum(axis=1)
    assert 4 < act.mean() < 10 and act.max() < 40


# ---- synth-wavetable-mipmap-voices ----

def test_wavetable_voices():
    rng = np.random.default_rng(1)
    n, m = 700, 8                                            # a partial last block
    h = tp._p208_wt_args(n, rng, voices=m)
    vs = h[1]
    vs["inc"][:4] = [10 / tp.P208_SR, 16 / 2048, 0.6, 2000 / tp.P208_SR]  # level -1 -> 0, exactly 4, 11 -> 10
    vs["phase"][3] = 1 - 1e-12                               # wraps at once
    vs["wave"][:4] = [0, 1, 2, 7]
    out = run("probe/synth-wavetable-mipmap-voices", h, n, grid=(3, m))
    ref = tp._p208_wt_ref(h[0], vs, n)
    got = out[2].reshape(m, n)
    assert np.abs(got - ref).max() < 2e-6 and np.abs(ref).max() > 0.1
    assert list(tp._p208_wt_level(vs["inc"][:3])) == [0, 4, 10]
    # voice 1 at 16 / 2048 cycles a sample: a period of 128 samples exactly, the square's level 4
    tab = h[0].reshape(tp.P208_WT_WAVES, tp.P208_WT_LEVELS, tp.P208_WT_LEN)[1, 4]
    env = (1 - np.exp(-np.arange(n) / vs["attack"][1])) * np.exp(-np.arange(n) / vs["decay"][1])
    t = np.arange(n)
    k = (vs["phase"][1] + t / 128) % 1 * 2048
    assert np.allclose(got[1], vs["amp"][1] * env * np.interp(k, np.arange(2049), np.append(tab, tab[0])), atol=2e-6)


# ---- synth-additive-piano-partials-smem ----

def test_additive_notes():
    rng = np.random.default_rng(2)
    n, m = 600, 6
    h = tp._p208_ad_args(n, rng, notes=m)
    parts = h[0].reshape(m, tp.P208_AD_MAXP)
    h[1][:4] = [0, 33, tp.P208_AD_MAXP, 1]                   # silent, a chunk and one, all, one partial
    full = tp._p208_ad_notes(2, rng)[0][0]
    parts[2] = full                                           # a bass note's 96 partials
    parts[1, :33] = full[:33]
    parts[1, 5]["amp"] = 0.5 * tp.P208_AD_FLOOR               # below the floor from the start: skipped
    parts[3, 0] = (1000.0, 0.25, 0.0, 0.5)                    # an undamped 1 kHz sine
    out = run("probe/synth-additive-piano-partials-smem", h, n, grid=(3, m))
    ref = tp._p208_ad_ref(h[0], h[1], n, h[4])
    got = out[2].reshape(m, n)
    assert np.abs(got - ref).max() < 2e-5 and np.abs(ref[2]).max() > 0.01
    assert (got[0] == 0).all()
    t = np.arange(n, dtype=np.float32) * np.float32(1 / tp.P208_SR)
    assert np.allclose(got[3], 0.25 * np.sin(2 * np.pi * 1000 * t.astype(float) + 0.5), atol=5e-6)
    # the first block alone: only its 256 samples written
    h[2][:] = 0
    out = run("probe/synth-additive-piano-partials-smem", h, n, grid=(1, m))
    got = out[2].reshape(m, n)
    assert np.abs(got[:, :256] - ref[:, :256]).max() < 2e-5 and (got[:, 256:] == 0).all()


# ---- synth-resonator-bank-double-const ----

def test_resonator_bank():
    rng = np.random.default_rng(3)
    clips, L = 32, 256                                       # 32 of a block of 64: the second warp returns
    h = tp._p208_rb_args(clips, rng, length=L)
    x = h[0].reshape(L, clips)
    x[:, :3] = 0
    x[0, 0] = 1.0                                            # an impulse
    x[:, 2] = 0.5 * np.sin(2 * np.pi * 1760 * np.arange(L) / tp.P208_SR_AN)  # A6, key 72 of 88
    out = run("probe/synth-resonator-bank-double-const", h, clips, symbols=tp._p208_rb_syms(0, rng))
    ref = tp._p208_rb_ref(h[0], clips, L, tp._p208_rb_coefs())
    got = out[1].reshape(tp.P208_RB_BANDS, L // tp.P208_RB_HOP, clips)
    assert np.allclose(got, ref, rtol=1e-5, atol=1e-9)
    assert (got[:, :, 1] == 0).all()                                          # silence in, silence out
    assert np.argmax(got[:, 0, 2]) == 72 and got[72, 0, 2] > 2 * got[[69, 75], 0, 2].max()
    assert np.argmax(got[:, 0, 0]) == 87                                      # the widest band rings most
    assert (got[:, :, 3:] > 0).all()


# ---- synth-granular-cloud-atomics ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_granular_cloud(policy):
    rng = np.random.default_rng(4)
    frames, n = 12000, 24
    src = tp._p208_gr_source(rng, length=48000)
    g = tp._p208_gr_grains(n, rng, out_frames=frames, src_len=len(src))
    g[:4] = g[4]                                             # 5 identical grains: every atomic contended
    g[5]["onset"], g[5]["len"] = frames - 100, 1000          # runs past the end
    g[6]["src_pos"], g[6]["ratio"], g[6]["len"] = len(src) - 1 - 99.5, 1.0, 101    # reads the source's last sample
    g[7]["len"] = 37                                         # a partial trip
    h = [src, np.int32(len(src)), g, np.zeros(2 * frames, np.float32), np.int32(frames), np.int32(n)]
    out = run("probe/synth-granular-cloud-atomics", h, n, policy=policy)
    ref = tp._p208_gr_ref(src, g, frames)
    got = out[3].reshape(frames, 2)
    assert np.abs(got - ref).max() < 2e-6 and np.abs(ref).max() > 0.01
    assert (ref[frames - 99:] != 0).all() and (got[frames - 99:] != 0).all()


# ---- synth-mpm-pitch-shfl-ballot ----

def _check_pitch(audio, n, hop):
    h = [audio.astype(np.float32), np.int32(hop), np.float32(tp.P208_SR_AN), np.zeros(n, np.float32),
         np.zeros(n, np.float32), np.zeros(n, np.uint8), np.zeros(128, np.int32), np.int32(n)]
    out = run("probe/synth-mpm-pitch-shfl-ballot", h, n)
    f0, cl, note, lag, marg = tp._p208_pt_ref(h[0], n, hop=hop)
    ok = ~marg
    assert np.allclose(out[3][ok], f0[ok], rtol=1e-4) and np.allclose(out[4][ok], cl[ok], atol=1e-4)
    assert (out[5][ok] == note[ok]).all()
    assert (out[6] == np.bincount(out[5][out[5] > 0], minlength=128)).all()
    return out, (f0, cl, note, lag, marg)


def test_mpm_pitch_voice():
    rng = np.random.default_rng(5)
    n = 24
    h = tp._p208_pt_args(n, rng)
    out, (f0, cl, note, lag, marg) = _check_pitch(h[0], n, tp.P208_PT_HOP)
    assert marg.sum() <= 2 and (f0 > 0).sum() > n // 2


def test_mpm_pitch_cases():
    rng = np.random.default_rng(6)
    W, sr = tp.P208_PT_W, tp.P208_SR_AN
    t = np.arange(W)
    frames = [np.zeros(W),                                   # silence: nothing at all
              np.full(W, 0.3),                               # DC: never negative, no peak
              0.5 * np.sin(2 * np.pi * t / 100),             # 220.5 Hz exactly: A3
              0.5 * np.sin(2 * np.pi * 1000.0 * t / sr),     # 1 kHz: a lag of 22.05
              0.4 * np.sin(2 * np.pi * 50 * t / sr) + 0.2 * np.sin(2 * np.pi * 100 * t / sr),   # 50 Hz, lag 441
              rng.normal(0, 0.1, W),                         # noise
              0.5 * np.sign(np.sin(2 * np.pi * 300 * t / sr + 0.3)),   # a square wave at 300 Hz
              0.14 * np.sin(2 * np.pi * t / 200) + 0.5 * np.sin(2 * np.pi * t / 100),   # a weak fundamental
              0.5 * np.sin(2 * np.pi * t / 200) + 0.15 * np.sin(2 * np.pi * 29 * t / 200)]   # and a bright partial
    out, (f0, cl, note, lag, marg) = _check_pitch(np.concatenate(frames), len(frames), W)
    assert not marg[1:5].any()                               # (silence's all-zero NSDF is flagged)
    assert list(out[3][:2]) == [0, 0] and list(out[4][:2]) == [0, 0] and list(out[5][:2]) == [0, 0]
    assert out[3][2] == pytest.approx(220.5, rel=1e-5) and out[5][2] == 57 and out[4][2] > 0.99
    assert out[3][3] == pytest.approx(1000, rel=2e-3) and out[5][3] == 83
    assert out[3][4] == pytest.approx(50, rel=2e-3) and lag[4] == 441
    assert out[5][5] == 0 or marg[5]                         # noise: no clear pitch
    assert out[3][6] == pytest.approx(300, rel=5e-3)
    # 110.25 Hz under its octave at -11 dB: the lag-100 lobe's NSDF ~0.85 < PT_K of lag 200's
    assert not marg[7:].any() and lag[7] == 200 and out[3][7] == pytest.approx(110.25, rel=1e-4)
    # the 29th partial at -10 dB ripples every lobe: only each lobe's highest point counts
    assert lag[8] == 200 and out[3][8] == pytest.approx(110.25, rel=1e-4)


# ---- synth-sampler-int16-mix-const ----

def _sm_notes(m, frames, rng):
    s = tp._p208_sm_score(m, frames, rng)
    s["off"] = s["on"] + (s["off"] - s["on"]) // 10           # short notes: releases within the render
    return s


@pytest.mark.parametrize("grid", [None, (3, 1)])
def test_sampler_mix(grid):
    rng = np.random.default_rng(7)
    n, m = 8000, 32
    h = tp._p208_sm_args(n, rng)
    s = _sm_notes(m, n, rng)
    s[0]["on"], s[0]["off"] = 0, 5000
    s[1]["on"], s[1]["off"] = n - 1, n + 10                   # sounds on the last frame only
    s[2]["loop_start"], s[2]["loop_len"], s[2]["on"], s[2]["off"] = 1000, 357, 200, 7000    # wraps ~17 times
    s[3]["gain"], s[3]["on"], s[3]["off"] = 6.0, 4000, 4400   # clips both ways
    s[4]["on"], s[4]["off"] = 100, 100                        # released at once
    h[1] = np.int32(m)
    h[2] = np.float32(1 / 480)                                # 10 ms releases: cut within the render
    syms = {"c_notes": np.concatenate([s, np.zeros(tp.P208_SM_MAXNOTES - m, tp.P208_SM_DTYPE)])}
    out = run("probe/synth-sampler-int16-mix-const", h, n, symbols=syms, grid=grid)
    ref, marg = tp._p208_sm_ref(h[0], s[:m], h[2], n)
    want = np.clip(np.rint(ref), -32768, 32767)
    got = out[3].reshape(n, 2).astype(np.int64)
    d = np.abs(got - want)
    assert d[~marg].max() <= 1 and (d > 0).mean() < 0.01 and marg.sum() <= 2
    assert got.max() == 32767 and got.min() == -32768 and out[4][0] == 32768
    assert (want[4000:4400] == 32767).any() and (want[4000:4400] == -32768).any()
    # no note: silence
    h2 = tp._p208_sm_args(n, rng)
    h2[1] = np.int32(0)
    out = run("probe/synth-sampler-int16-mix-const", h2, n, symbols=syms, grid=grid)
    assert (out[3] == 0).all() and out[4][0] == 0


def test_sampler_peak_random_policy():
    rng = np.random.default_rng(8)
    n, m = 1024, 8
    h = tp._p208_sm_args(n, rng)
    s = _sm_notes(m, n, rng)
    s["gain"] *= 0.3
    h[1] = np.int32(m)
    syms = {"c_notes": np.concatenate([s, np.zeros(tp.P208_SM_MAXNOTES - m, tp.P208_SM_DTYPE)])}
    out = run("probe/synth-sampler-int16-mix-const", h, n, symbols=syms, policy="random")
    ref, marg = tp._p208_sm_ref(h[0], s, h[2], n)
    got = out[3].reshape(n, 2).astype(np.int64)
    assert np.abs(got - np.rint(ref))[~marg].max() <= 1
    assert out[4][0] == np.abs(got).max() and 2000 < out[4][0] < 32767
