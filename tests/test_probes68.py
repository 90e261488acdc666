"""probe-unseen66's kernels (kernels_cuda/probes68.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/lif-euler-refrac", "probe/izhikevich-ballot", "probe/hh-expeuler-const", "probe/syn-csr-atomic",
       "probe/stdp-traces", "probe/ratenet-smem-tile"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen66"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes68.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 16
    v, ref, cur = tp._u66_lif_args(n, rng)[:3]
    assert v.dtype == np.float32 and v.min() >= -70 and v.max() < -50 and 0.09 < (ref > 0).mean() < 0.11
    assert ref.min() == 0 and ref.max() == tp.U66_LIF_TREF and 24 < cur.mean() < 26
    assert 0.018 < lif_ref(v, ref, cur)[2].mean() < 0.032
    a = tp._u66_iz_args(n, rng)
    assert (a[2][:round(0.8 * n)] == np.float32(0.02)).all() and (a[5][round(0.8 * n):] == 2).all()
    assert a[4].min() >= -65 and a[4].max() <= -50 and np.allclose(a[1], a[3] * a[0], rtol=1e-6)
    assert 0.018 < iz_ref(*a[:7])[2].mean() < 0.035
    pool = tp._u66_hh_pool()
    assert pool.shape[0] == 5 and pool.shape[1] > 40000 and -80 < pool[0].min() < -70 and pool[0].max() > 20
    assert ((pool[1:4] >= 0) & (pool[1:4] <= 1)).all()
    h = tp._u66_hh_args(n, rng)
    assert all(x.dtype == np.float32 for x in h[:5]) and 9 < h[4].mean() < 11
    assert 0.003 < tp._u66_hh_sim(*h[:5], 0.01, 10)[4].mean() < 0.012            # ~70 Hz over 0.1 ms
    spk, rp, post, w, isyn, nn = tp._u66_csr_args(n, rng)
    deg = np.diff(rp)
    assert rp[0] == 0 and (deg >= 0).all() and 99 < deg.mean() < 101 and len(post) == rp[-1] == len(w)
    assert post.min() >= 0 and post.max() < n and 0.027 < spk.mean() < 0.033 and (isyn == 0).all()
    src = np.repeat(np.arange(n), deg)
    inh = src >= n - round(0.2 * n)
    assert (w[inh] < 0).all() and (w[~inh] > 0).all() and w.min() >= -2 and w.max() <= 0.5
    assert (w * 1024 == np.round(w * 1024)).all()
    w, pre, post, x, y, spk = tp._u66_stdp_args(n, rng)[:6]
    nn = n // 100
    assert len(pre) == len(post) == len(w) == n and (np.diff(pre) >= 0).all() and pre.max() < nn
    assert post.max() < nn and len(x) == len(y) == len(spk) == nn and 0.18 < x.mean() < 0.22
    assert 80 < np.bincount(pre).mean() < 120 and w.min() >= 0 and w.max() < 1
    W, r = tp._u66_rn_args(512, rng)[:2]
    assert len(W) == 512 * 512 and abs(W.std() * np.sqrt(512) - 1.5) < 0.02 and np.abs(r).max() < 0.5


# ---- lif-euler-refrac ----

def lif_ref(v, ref, cur, dt_tau=0.05, v_rest=-65.0, v_reset=-70.0, v_th=-50.0, r_m=1.0, t_ref=4):
    """(v, refrac, spiked, the integrated v before the threshold test) in float64."""
    v = v.astype(np.float64)
    vi = v + dt_tau * (v_rest - v + r_m * cur.astype(np.float64))
    act = ref <= 0
    spk = act & (vi >= v_th)
    vout = np.where(act & ~spk, vi, v_reset)
    rout = np.where(act, np.where(spk, t_ref, ref), ref - 1)
    return vout, rout, spk, np.where(act, vi, np.nan)


def test_lif_euler_refrac():
    n = 1000                                                # 4 blocks, the last partial
    host, (v, ref, cur, spk, *consts, nn), *_ = launch("probe/lif-euler-refrac", n)
    assert nn == n and consts[:4] == [np.float32(x) for x in (0.05, -65, -70, -50)] and consts[5] == 4
    rv, rr, rs, vi = lif_ref(host[0], host[1], host[2])
    assert np.nanmin(np.abs(vi + 50)) > 1e-4                # no neuron within rounding of the threshold
    assert spk.dtype == np.uint8 and (spk == rs).all() and (ref == rr).all() and 10 < rs.sum() < 50
    np.testing.assert_allclose(v, rv, rtol=0, atol=2e-5)
    assert (v[rs | (host[1] > 0)] == -70).all()


def test_lif_edge_cases():
    # refractory neurons ignore even a huge input; v exactly at the threshold spikes; a NaN
    # input current is never read by a refractory neuron
    v = np.array([-50, -60, -55, -69, -50.5, -65], np.float32)
    ref = np.array([0, 1, 4, 0, 0, 3], np.int32)
    cur = np.array([15, 1e6, 1e6, 10, 0, np.nan], np.float32)     # neuron 0: v stays -50
    host = [v, ref, cur, np.full(6, 7, np.uint8), np.float32(0.05), np.float32(-65), np.float32(-70),
            np.float32(-50), np.float32(1), np.int32(4), np.int32(6)]
    out = run("probe/lif-euler-refrac", host, 6, policy="random")
    assert out[3].tolist() == [1, 0, 0, 0, 0, 0] and out[1].tolist() == [4, 0, 3, 0, 0, 2]
    np.testing.assert_allclose(out[0], [-70, -70, -70, -69 + 0.05 * (-65 + 69 + 10), -50.5 + 0.05 * (-14.5), -70],
                               atol=1e-5)


# ---- izhikevich-ballot ----

def iz_ref(v, u, a, b, c, d, cur, steps=4):
    """(v, u, fired, the smallest |v - 30| after any sub-step) in float64."""
    v, u, a, b, c, d, cur = (x.astype(np.float64) for x in (v, u, a, b, c, d, cur))
    fired = np.zeros(len(v), bool)
    gap = np.full(len(v), np.inf)
    for _ in range(steps):
        v = v + (0.04 * v * v + 5 * v + 140 - u + cur) / steps
        u = u + a * (b * v - u) / steps
        gap = np.minimum(gap, np.abs(v - 30))
        f = v >= 30
        v = np.where(f, c, v)
        u = np.where(f, u + d, u)
        fired |= f
    return v, u, fired, gap


def check_spike_list(ids, count, fired):
    """ids[:count] are exactly the neurons that fired, each warp's ascending and contiguous
    (its lanes' __popc offsets in the warp's reserved run), the rest untouched (zero)."""
    got = ids[:count]
    assert count == fired.sum() and (np.sort(got) == np.flatnonzero(fired)).all() and (ids[count:] == 0).all()
    for w in np.unique(got // 32):
        pos = np.flatnonzero(got // 32 == w)
        assert (np.diff(pos) == 1).all() and (np.diff(got[pos]) > 0).all()


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_izhikevich_ballot(policy):
    n = 2000                                                # 8 blocks, the last partial
    host, (v, u, *_p, ids, count, nn), *_ = launch("probe/izhikevich-ballot", n, policy=policy)
    rv, ru, fired, gap = iz_ref(*host[:7])
    assert nn == n and gap.min() > 1e-2 and fired.sum() > 20
    check_spike_list(ids, int(count[0]), fired)
    np.testing.assert_allclose(v, rv, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(u, ru, rtol=1e-5, atol=1e-4)


def test_izhikevich_edge_cases():
    # a warp where every lane fires, one where none does, a partial last warp of 5 lanes
    # (every other one firing), and a neuron firing twice within the step (huge input)
    rng = np.random.default_rng(3)
    n = 69
    v = np.full(n, -65, np.float32)
    v[:32] = 20
    v[64::2] = 20
    cur = np.zeros(n, np.float32)
    cur[40] = 5000
    f = np.float32
    host = [v, (0.2 * v).astype(f), np.full(n, 0.02, f), np.full(n, 0.2, f), (-65 + 15 * rng.random(n)).astype(f),
            np.full(n, 8, f), cur, np.zeros(n, np.int32), np.zeros(1, np.int32), np.int32(n)]
    for policy in ("lockstep", "random"):
        out = run("probe/izhikevich-ballot", [x.copy() if isinstance(x, np.ndarray) else x for x in host], n,
                  policy=policy)
        rv, ru, fired, gap = iz_ref(*host[:7])
        check_spike_list(out[7], int(out[8][0]), fired)
        assert fired[:32].all() and not fired[32:40].any() and fired[40] and fired[64::2].all()
        np.testing.assert_allclose(out[0], rv, rtol=1e-5, atol=1e-4)
        np.testing.assert_allclose(out[1], ru, rtol=1e-5, atol=1e-4)
    assert out[1][40] > 0.2 * -65 + 2 * 8 - 1                 # reset twice: u took d twice


# ---- hh-expeuler-const ----

def hh_check(out, host, params=tp.U66_HH_PARAMS):
    V, m, h, nn, count = tp._u66_hh_sim(*host[:5], params[7], 10, params)
    np.testing.assert_allclose(out[0], V, rtol=0, atol=2e-3)
    for got, ref in zip(out[1:4], (m, h, nn)):
        np.testing.assert_allclose(got, ref, rtol=0, atol=2e-5)
    assert (out[5] == host[5] + count).all()
    return count


def test_hh_expeuler_const():
    n = 1000                                                # 4 blocks, the last partial
    host, after, syms, _ = launch("probe/hh-expeuler-const", n)
    assert (syms["c_hh"] == np.array(tp.U66_HH_PARAMS, np.float32)).all() and after[6] == n
    count = hh_check(after, host)
    assert 0 < count.sum() < 20 and np.isfinite(after[0]).all()


def test_hh_edge_cases():
    # V exactly at vtrap's removable singularities (-40 for m, -55 for n), a neuron crossing
    # 0 mV, spike counts accumulating onto the old ones, and the constants coming from
    # c_hh: no sodium conductance, a 0.02 ms sub-step
    pool = tp._u66_hh_pool()
    nxt = np.r_[pool[0][tp.U66_HH_POOL:], np.full(tp.U66_HH_POOL, np.nan)]      # the pool's state 0.1 ms on
    up = np.flatnonzero((pool[0] > -5) & (pool[0] < -1) & (nxt > 1))[:3]
    s = np.c_[pool[:, up], [[-40, -55, -65, -40.001]] + [[0.05, 0.6, 0.3, 0.1]] + [[0.5, 0.2, 0.3, 0.6]] +
              [[0.3, 0.4, 0.3, 0.5]] + [[10, 10, 0, 10]]].astype(np.float32)
    k = s.shape[1]
    host = [s[0].copy(), s[1].copy(), s[2].copy(), s[3].copy(), s[4].copy(), np.arange(k, dtype=np.int32),
            np.int32(k)]
    out = run("probe/hh-expeuler-const", [x.copy() if isinstance(x, np.ndarray) else x for x in host], k,
              symbols={"c_hh": np.array(tp.U66_HH_PARAMS, np.float32)})
    count = hh_check(out, host)
    assert count[:len(up)].sum() >= 1 and np.isfinite(out[0]).all()
    params = (0.0,) + tp.U66_HH_PARAMS[1:7] + (0.02,)
    out = run("probe/hh-expeuler-const", [x.copy() if isinstance(x, np.ndarray) else x for x in host], k,
              symbols={"c_hh": np.array(params, np.float32)})
    count = hh_check(out, host, params)
    assert count.sum() == 0 and (out[0] < host[0])[:len(up)].all()      # no sodium: no upstroke


# ---- syn-csr-atomic ----

def csr_ref(spk, rp, post, w, isyn):
    out = isyn.astype(np.float64)
    for i in np.flatnonzero(spk):
        np.add.at(out, post[rp[i]:rp[i + 1]], w[rp[i]:rp[i + 1]])
    return out


@pytest.mark.parametrize("policy, n", [("lockstep", 1000), ("random", 400)])   # 4 / 2 blocks, the last partial
def test_syn_csr_atomic(policy, n):
    host, (spk, rp, post, w, isyn, nn), *_ = launch("probe/syn-csr-atomic", n, policy=policy)
    ref = csr_ref(*host[:5])
    assert nn == n and n / 100 < spk.sum() < n / 20 and (isyn == ref).all()   # exact: w multiples of 2^-10
    assert (ref != 0).mean() > 0.8 and (ref < 0).any() and (ref > 0).any()


def test_syn_csr_edge_cases():
    # every neuron spiking onto few targets (many same-address atomics), empty rows, the last
    # neuron's row (row_ptr[n]), and a bias already in the currents
    rng = np.random.default_rng(4)
    n = 300
    deg = rng.integers(0, 40, n)
    deg[::7] = 0
    deg[-1] = 30
    rp = np.r_[0, np.cumsum(deg)].astype(np.int32)
    post = rng.integers(0, 5, rp[-1]).astype(np.int32)
    w = (rng.integers(-2048, 513, rp[-1]) / 1024).astype(np.float32)
    for spk in (np.ones(n, np.uint8), (np.arange(n) == n - 1).astype(np.uint8)):
        isyn = np.full(n, 0.25, np.float32)
        out = run("probe/syn-csr-atomic", [spk, rp, post, w, isyn, np.int32(n)], n, policy="random")
        assert (out[4] == csr_ref(spk, rp, post, w, isyn)).all()
    assert (out[4][:5] != 0.25).any() and (out[4][5:] == 0.25).all()


# ---- stdp-traces ----

def stdp_ref(w, pre, post, x, y, spk, ap, am, wmax):
    sp, sq = spk[pre] != 0, spk[post] != 0
    nw = w.astype(np.float64) + np.where(sq, ap * x[pre].astype(np.float64), 0) \
        - np.where(sp, am * y[post].astype(np.float64), 0)
    return np.where(sp | sq, np.clip(nw, 0, wmax), w), sp | sq


def test_stdp_traces():
    n = 5000                                                # 20 blocks, 50 neurons
    host, (w, *_x), *_ = launch("probe/stdp-traces", n)
    ref, act = stdp_ref(*host[:9])
    assert 0.02 < act.mean() < 0.2 and (w[~act] == host[0][~act]).all() and (w[act] != host[0][act]).any()
    np.testing.assert_allclose(w, ref, rtol=0, atol=1e-6)


def test_stdp_edge_cases():
    # weights clipped at 0 and at w_max, both ends spiking, a synapse onto itself
    w = np.array([0.001, 0.999, 0.5, 0.5, 0.3], np.float32)
    pre = np.array([0, 1, 2, 2, 3], np.int32)
    post = np.array([1, 2, 3, 2, 0], np.int32)
    x = np.array([0.5, 0.9, 0.4, 0.2], np.float32)
    y = np.array([0.3, 0.8, 0.6, 0.1], np.float32)
    spk = np.array([1, 0, 1, 0], np.uint8)
    host = [w, pre, post, x, y, spk, np.float32(0.01), np.float32(0.05), np.float32(1.0), np.int32(5)]
    out = run("probe/stdp-traces", [a.copy() if isinstance(a, np.ndarray) else a for a in host], 5, policy="random")
    ref, act = stdp_ref(*host[:9])
    assert act.tolist() == [True, True, True, True, True]
    np.testing.assert_allclose(out[0], ref, rtol=0, atol=1e-7)
    assert out[0][0] == 0 and out[0][1] == 1                  # both clips


# ---- ratenet-smem-tile ----

def rn_ref(W, r, I, dt_tau=0.1, gain=1.0):
    n = len(r)
    x = W.reshape(n, n).astype(np.float64) @ r.astype(np.float64) + I
    return r + dt_tau * (-r + np.tanh(gain * x))


@pytest.mark.parametrize("policy, n", [("lockstep", 600), ("random", 260)])
def test_ratenet_smem_tile(policy, n):
    # 3 (2) blocks, the last partial; as many tiles, the last partial (random, slow: the
    # fewest units that make a second tile, restaged after every warp's pass over the first)
    host, (W, r, I, rn, dt, g, nn), *_ = launch("probe/ratenet-smem-tile", n, policy=policy)
    assert nn == n and dt == np.float32(0.1) and g == 1
    np.testing.assert_allclose(rn, rn_ref(*host[:3]), rtol=0, atol=2e-6)


def test_ratenet_edge_cases():
    rng = np.random.default_rng(11)
    for n in (1, 256, 257):
        W = rng.standard_normal(n * n).astype(np.float32)
        r = rng.uniform(-1, 1, n).astype(np.float32)
        I = rng.standard_normal(n).astype(np.float32)
        out = run("probe/ratenet-smem-tile", [W, r, I, np.zeros(n, np.float32), np.float32(0.5), np.float32(2.0),
                                              np.int32(n)], n)
        np.testing.assert_allclose(out[3], rn_ref(W, r, I, 0.5, 2.0), rtol=0, atol=5e-6)
