"""probe-unseen178's kernels (kernels_cuda/probes180.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/pitch-control-logistic", "probe/track-sg-kinematics", "probe/team-heatmap-smem",
       "probe/pass-network-atomic", "probe/xg-logit-struct", "probe/nearest-opp-shfl"]
U = 2.0 ** -24                                              # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen178"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes180.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    x, y = tp._p180_tracks(20000, rng, noise=0)
    assert x.dtype == np.float32 and x.shape == y.shape == (20000, 22)
    v = np.hypot(np.diff(x, axis=0), np.diff(y, axis=0)) * 25
    assert 1.2 < np.median(v) < 2 and 1.6 < v.mean() < 2.2 and 4.5 < np.percentile(v, 99) < 7 and v.max() < 12
    a = np.abs(np.diff(v, axis=0)) * 25
    assert np.percentile(a, 99) < 6                                           # smooth: no teleporting
    assert x[:, 0].mean() < 15 and x[:, 11].mean() > 90 and abs(y[:, 0].mean() - 34) < 3           # the keepers
    assert x[:, 1:11].mean() < x[:, 12:].mean() and 15 < x[:, 1:11].std() < 25
    off = (x < 0) | (x >= 105) | (y < 0) | (y >= 68)
    assert 0 < off.mean() < 0.02
    pl, ball, pc, gw, gh, cell = tp._p180_pc_args(500, rng)
    assert pl.dtype.itemsize == 16 and len(pl) == 500 * 22 and (gw, gh, cell) == (105, 68, 1) and len(pc) == 500 * 105 * 68
    p = pl.reshape(500, 22)
    sp = np.hypot(p["vx"], p["vy"])
    assert 1.2 < np.median(sp) < 2 and sp.max() < 12
    b = ball.reshape(500, 2)
    dd = np.hypot(p["x"][:, 1:11] - b[:, :1], p["y"][:, 1:11] - b[:, 1:])
    car = dd.argmin(axis=1)
    assert np.allclose(dd.min(axis=1), 0.5, atol=1e-5) and (car[::50] == car[49::50]).all() and len(set(car)) > 3
    x, y, s, a, frames, seg, fps = tp._p180_tk_args(1000, rng)
    assert len(x) == 22000 and frames == 1000 and seg == tp.P180_TK_SEG == 70000 and fps == 25
    jit = np.diff(x.reshape(1000, 22), 2, axis=0).std()
    assert 0.05 < jit < 0.1                                                   # ~ sqrt(6) 0.03 m of jitter
    x, y, heat, n = tp._p180_hm_args(20000, rng)
    assert n == 20000 * 22 and len(heat) == 2 * 53 * 34 and heat.dtype == np.uint32
    d = np.isnan(x).reshape(20000, 22)
    assert (np.isnan(y) == np.isnan(x)).all() and 0.007 < d.mean() < 0.013
    assert 15 < d.sum() / (d[1:] & ~d[:-1]).sum() < 35                         # in runs of ~25 frames
    ev, links, att, prog, n = tp._p180_pn_args(1 << 18, rng)
    m = len(att) // 22
    assert ev.dtype.itemsize == 32 and n == len(ev) == 1 << 18 and len(links) == 11 * len(att) == len(prog) * 11
    assert (np.diff(ev["match"]) >= 0).all() and ev["match"][-1] == m - 1 and 800 < n / m < 1300
    assert ev["passer"].min() == 0 and ev["passer"].max() == 10 and (ev["receiver"] != ev["passer"]).all()
    done = ev["receiver"] >= 0
    assert 0.77 < done.mean() < 0.85 and ev["receiver"].min() == -1 and ev["receiver"].max() == 10
    same = (ev["team"][1:] == ev["team"][:-1]) & (ev["match"][1:] == ev["match"][:-1]) & done[:-1]
    assert 0.6 < same.mean() and (ev["passer"][1:][same] == ev["receiver"][:-1][same]).all()   # passing moves
    assert (~done[:-1][ev["team"][1:] == ev["team"][:-1]]).mean() < 0.01        # possession lost on the last pass
    who = np.bincount(ev["passer"] + 11 * ev["team"], minlength=22) / n
    assert who[0] < 0.02 and who[[1, 2, 5]].min() > 0.05                       # keepers pass least, CBs and CMs most
    share = np.bincount(ev["match"], ev["team"] == 0) / np.bincount(ev["match"])
    assert 0.15 < np.percentile(share[:-1], 95) - np.percentile(share[:-1], 5) < 0.45
    gain = (ev["x1"] - ev["x0"])[done]
    assert 0 <= ev["x0"].min() and ev["x1"].max() <= 105 and 0.15 < (gain >= 10).mean() < 0.35
    s, xg, n = tp._p180_xg_args(1 << 18, rng)
    assert s.dtype.itemsize == 32 and len(xg) == n == 1 << 18
    assert np.allclose(np.bincount(s["situation"]) / n, tp.P180_XG_SIT, atol=0.005)
    pen = s["situation"] == 4
    assert (s["x"][pen] == 94).all() and (s["y"][pen] == 34).all() and (s["defenders"][pen] == 0).all()
    assert 0.16 < (s["body"] == 1).mean() < 0.2 and (s["assist"][s["body"] == 1] == 2).mean() > 0.75
    dist = np.hypot(105 - s["x"], s["y"] - 34)
    box = (s["x"] >= 88.5) & (np.abs(s["y"] - 34) <= 20.16)
    assert 0.55 < box.mean() < 0.75 and 12 < np.median(dist) < 17 and (dist > 40).mean() < 0.005
    ref, _ = tp._p180_xg_ref(s)
    assert 0.08 < ref[~pen].mean() < 0.12 and 0.03 < ref[s["situation"] == 3].mean() < 0.08


# ---- pitch-control-logistic ----

@pytest.mark.parametrize("frames, cell, policy", [(2, 5.0, "lockstep"), (1, 7.0, "random")])
def test_pitch_control(frames, cell, policy):
    rng = np.random.default_rng(3)
    h = tp._p180_pc_args(frames, rng, cell=cell)
    out = run("probe/pitch-control-logistic", h, frames, policy=policy)
    ref = tp._p180_pc_ref(h[0], h[1], int(h[3]), int(h[4]), h[5]).ravel()
    # tball - tau (tau up to ~26 s) is off by ~2 float32 ulps (~2.5e-6 s) at most: each player's
    # control, hence the share, within K 2.5e-6 (~1e-5) of numpy's; expf, the divisions and the
    # 22 sums a few ulps more (~1e-6 seen)
    assert np.abs(out[2] - ref).max() < 1e-5 and ref.min() < 0.01 and ref.max() > 0.99
    assert len(ref) == frames * int(h[3]) * int(h[4])


def test_pitch_control_edges():
    # mirror images: home at exact half-metres, away at their mirror images across halfway,
    # standing, the ball on halfway: the halfway column (cell 5: 21 columns, the 11th centred on
    # 52.5) is split exactly, columns c and 20 - c share out to 1
    rng = np.random.default_rng(4)
    home = np.round(rng.uniform([2, 2], [50, 66], (11, 2)) * 2) / 2
    p = np.zeros(22, tp.P180_PLAYER_DTYPE)
    p["x"][:11], p["y"][:11] = home[:, 0], home[:, 1]
    p["x"][11:], p["y"][11:] = 105 - home[:, 0], home[:, 1]
    h = [p, np.float32([52.5, 20.0]), np.zeros(21 * 13, np.float32), np.int32(21), np.int32(13), np.float32(5)]
    out = run("probe/pitch-control-logistic", h, 1)[2].reshape(13, 21)
    assert (out[:, 10] == 0.5).all() and np.abs(out + out[:, ::-1] - 1).max() < 4 * U
    assert out[:, 0].mean() > 0.9 and out[:, -1].mean() < 0.1                  # each team owns its own end
    # nobody within reach (everyone 1 km away): every control underflows to 0, the share 0.5
    p["x"], p["y"] = -1000, -1000
    out = run("probe/pitch-control-logistic", h, 1)[2]
    assert (out == 0.5).all()


# ---- track-sg-kinematics ----

@pytest.mark.parametrize("frames, seg, policy", [(120, 50, "lockstep"), (40, 70000, "random")])
def test_track_kinematics(frames, seg, policy):
    rng = np.random.default_rng(5)
    h = tp._p180_tk_args(frames, rng, seg=seg)
    out = run("probe/track-sg-kinematics", h, frames, policy=policy)
    s, a, bs, ba = tp._p180_tk_ref(h[0], h[1], frames, seg)
    # within the float32 error bounds worked out term by term (~4e-4 m/s, ~0.02 m/s^2 typically)
    assert (np.abs(out[2] - s) <= bs).all() and (np.abs(out[3] - a) <= ba).all()
    assert np.median(bs) < 1e-3 and np.median(ba) < 0.05 and 1 < np.median(s) < 3 and np.abs(a).max() > 1


def test_track_kinematics_edges():
    # one player standing, one running at 3.125 m/s (0.125 m a frame, exact) along x: the
    # 7-frame filter's speed 3.125 away from the halves' ends, 14 / 28, 20 / 28, 25 / 28 of it
    # in the first three frames of a half (frames clamped), no acceleration away from them
    frames, seg = 100, 40
    x = np.full((frames, 22), 30.5, np.float32)
    y = np.full((frames, 22), 20.25, np.float32)
    x[:, 1] = 10 + 0.125 * np.arange(frames)
    h = [x.ravel(), y.ravel(), np.zeros(22 * frames, np.float32), np.zeros(22 * frames, np.float32),
         np.int32(frames), np.int32(seg), np.float32(25)]
    out = run("probe/track-sg-kinematics", h, frames)
    sp = out[2].reshape(frames, 22)
    acc = out[3].reshape(frames, 22)
    assert sp[:, 0].max() < 1e-4 and np.abs(acc[:, 0]).max() < 1e-2 and (sp[:, 2:] == sp[:, :1]).all()
    f = np.arange(frames) % seg
    g = np.minimum(f, seg - 1 - f)                         # frames to the half's nearer end
    g[80:] = np.minimum(f[80:], frames - 1 - np.arange(80, frames))  # the last half is 20 frames long
    expect = 3.125 * np.array([14, 20, 25, 28])[np.minimum(g, 3)] / 28
    assert np.abs(sp[:, 1] - expect).max() < 2e-4 and np.abs(acc[g >= 3, 1]).max() < 1e-2
    assert (acc[f == 0, 1] > 5).all() and (acc[(f == seg - 1) | (np.arange(frames) == frames - 1), 1] < -5).all()


# ---- team-heatmap-smem ----

@pytest.mark.parametrize("frames, policy", [(200, "lockstep"), (60, "random")])
def test_team_heatmap(frames, policy):
    rng = np.random.default_rng(6)
    h = tp._p180_hm_args(frames, rng)
    # the grid sized for a third of the frames: each thread strides over ~3 samples
    out = run("probe/team-heatmap-smem", h, frames // 3, policy=policy)
    ref = tp._p180_hm_ref(h[0], h[1])
    assert (out[2] == ref).all() and ref.sum() > 0.97 * frames * 22 and ref[:1802].sum() > 0.45 * ref.sum()


def test_team_heatmap_edges():
    # the pitch's edges: 0 is in, 105 and 68 out, as are NaN and negatives; 104.99 the last (1 m) column
    x = np.float32([0, 105, 104.99, 52.0, np.nan, -0.01, 1.99, 2.0, 0, 50] + [10] * 12)
    y = np.float32([0, 10, 67.99, 68, 30, 30, 2.0, 1.99, np.nan, 33.99] + [40] * 12)
    h = [x, y, np.zeros(2 * 53 * 34, np.uint32), np.int32(22)]
    out = run("probe/team-heatmap-smem", h, 1)[2].reshape(2, 34, 53)
    assert out.sum() == 5 + 12 and out[0, 0, 0] == 1 and out[0, 33, 52] == 1 and out[0, 1, 0] == 1
    assert out[0, 0, 1] == 1 and out[0, 16, 25] == 1 and out[1, 20, 5] == 11 and out[0, 20, 5] == 1
    assert (out == tp._p180_hm_ref(x, y).reshape(2, 34, 53)).all()


# ---- pass-network-atomic ----

@pytest.mark.parametrize("n, policy", [(3000, "lockstep"), (1500, "random")])
def test_pass_network(n, policy):
    host, out, *_ = launch("probe/pass-network-atomic", n, policy=policy)
    m = len(host[2]) // 22
    links, att, prog = tp._p180_pn_ref(host[0], m)
    assert (out[1] == links).all() and (out[2] == att).all() and (out[3] == prog).all()
    assert m >= 2 and att.sum() == n and links.sum() == (host[0]["receiver"] >= 0).sum() and prog.sum() > 0
    a = att.reshape(m, 2, 11)
    assert links.max() > 5 and (a[:, :, 0] <= a.mean(axis=2)).all()           # keepers pass least


def test_pass_network_edges():
    # exactly 10 m forward counts as progressive, 9.99 m does not, nor a lost pass however far;
    # the last match's away striker to himself (never drawn, but counted where it says)
    ev = np.zeros(5, tp.P180_PASS_DTYPE)
    ev["match"] = [0, 0, 0, 2, 2]
    ev["team"] = [0, 0, 1, 1, 1]
    ev["passer"] = [3, 3, 0, 10, 10]
    ev["receiver"] = [5, 5, -1, 10, 9]
    ev["x0"], ev["x1"] = [40, 40, 10, 60, 60], [50, 49.99, 90, 59, 75]
    h = [ev, np.zeros(3 * 2 * 121, np.int32), np.zeros(66, np.int32), np.zeros(66, np.int32), np.int32(5)]
    out = run("probe/pass-network-atomic", h, 5)
    links = out[1].reshape(3, 2, 11, 11)
    att, prog = out[2].reshape(3, 2, 11), out[3].reshape(3, 2, 11)
    assert links[0, 0, 3, 5] == 2 and links[2, 1, 10, 10] == 1 and links[2, 1, 10, 9] == 1 and links.sum() == 4
    assert att[0, 0, 3] == 2 and att[0, 1, 0] == 1 and att[2, 1, 10] == 2 and att.sum() == 5
    assert prog[0, 0, 3] == 1 and prog[2, 1, 10] == 1 and prog.sum() == 2


# ---- xg-logit-struct ----

@pytest.mark.parametrize("n, policy", [(3000, "lockstep"), (500, "random")])
def test_xg_model(n, policy):
    host, out, syms, _ = launch("probe/xg-logit-struct", n, policy=policy)
    assert (syms["c_xg"] == np.float32(tp.P180_XG_COEF)).all()
    ref, S = tp._p180_xg_ref(host[0])
    # float32 logit: 12 products and sums of magnitude S at most 14 S u off (atan2f's couple
    # of ulps of the angle included), times the logistic's slope xg (1 - xg); expf and the
    # division a few ulps of xg more
    tol = ref * (1 - ref) * 14 * S * U + 8 * U * ref
    assert (np.abs(out[1] - ref) <= tol).all() and (host[0]["situation"] == 4).any()
    pen = host[0]["situation"] == 4
    assert (out[1][pen] == np.float32(0.76)).all() and (ref < 0.02).any() and (ref[~pen] > 0.3).any()


def test_xg_model_edges():
    # on the goal line between the posts (the goal mouth's angle pi), on it outside them (0), a
    # penalty, straight in front 11 m out
    s = np.zeros(4, tp.P180_SHOT_DTYPE)
    s["x"], s["y"] = [105, 105, 94, 94], [35, 40, 34, 34]
    s["situation"] = [0, 0, 4, 0]
    h = [s, np.zeros(4, np.float32), np.int32(4)]
    out = run("probe/xg-logit-struct", h, 4, symbols=tp._p180_xg_syms(4, None))[1]
    c = np.float32(tp.P180_XG_COEF).astype(float)
    lg = lambda z: 1 / (1 + np.exp(-z))
    ang = 2 * np.arctan(3.66 / 11)
    expect = [lg(c[0] + c[1] + np.pi * c[2] + c[3]), lg(c[0] + 6 * c[1] + 36 * c[3]), c[12],
              lg(c[0] + 11 * c[1] + ang * c[2] + 121 * c[3])]
    assert np.abs(out - expect).max() < 1e-6 and out[0] > 0.5 and out[1] < 0.2


# ---- nearest-opp-shfl ----

@pytest.mark.parametrize("frames, policy", [(60, "lockstep"), (9, "random")])
def test_nearest_opponent(frames, policy):
    # 60: 30 blocks of 2 frames; 9: the last block's second warp idle
    host, out, *_ = launch("probe/nearest-opp-shfl", frames, seed=1, policy=policy)
    near, ids, pressed, gap = tp._p180_no_ref(host[0], host[1])
    # a distance from float32 differences: a few ulps; the slots and counts exact where no two
    # distances compared (nor one and 3 m) are within 1e-5 of each other
    assert (np.abs(out[2] - near.ravel()) <= 4 * U * near.ravel()).all()
    ok = gap > 1e-5
    assert ok.mean() > 0.95 and (out[3].reshape(-1, 22)[ok] == ids[ok]).all()
    fine = ok.all(axis=1)
    assert (out[4].reshape(-1, 2)[fine] == pressed[fine]).all() and pressed.sum() > 0


def test_nearest_opponent_edges():
    # home player 0 at (50, 30) with away players 11 and 12 exactly 4 m either side of him (the
    # first of them named); the other home players far up the left, the other away ones far right
    x = np.float32([50] + list(range(10, 20)) + [46, 54] + [100] * 9)
    y = np.float32([30] + list(np.arange(10) * 6 + 0.5) + [30, 30] + list(range(60, 69)))
    h = [x, y, np.zeros(22, np.float32), np.zeros(22, np.int32), np.zeros(2, np.int32), np.int32(1)]
    out = run("probe/nearest-opp-shfl", h, 1)
    assert out[3][0] == 11 and out[2][0] == 4 and out[3][11] == out[3][12] == 0 and out[2][12] == 4
    assert list(out[4]) == [0, 0]
    x[11] = 47                                             # exactly 3 m: not under pressure (< 3 m is)
    out = run("probe/nearest-opp-shfl", h, 1)
    assert out[3][0] == 11 and out[2][0] == 3 and list(out[4]) == [0, 0]
    x[11] = 47.5
    out = run("probe/nearest-opp-shfl", h, 1)
    assert out[2][0] == 2.5 and list(out[4]) == [1, 1]
    near, ids, pressed, _ = tp._p180_no_ref(x, y)
    assert (out[3] == ids.ravel()).all() and (out[4] == pressed.ravel()).all()
