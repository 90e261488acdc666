"""probe-unseen246's kernels (kernels_cuda/probes248.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/snn-adex-cond-step-aos-const", "probe/snn-deliver-ring-warp-atomics",
       "probe/snn-hh-cable-cyclic-reduction", "probe/snn-stdp-triplet-ell-bits",
       "probe/snn-isi-stats-warp-ballot", "probe/snn-synchrony-popc-tiles"]

F32 = np.float32
EPS = 2.0 ** -24                 # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen246"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes248.cu" and len(tp.get(i).note) > 400 for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- the data ----

def test_network_data():
    rng = np.random.default_rng(1)
    tab = tp._p248_adex_table()
    assert tab["tref"].tolist() == [20, 20, 10, 10]
    assert np.allclose(tab["exp_lam"], np.exp([-1.0, -1.0, -1.2, -1.2]), rtol=1e-6)
    s = tp._p248_network_state(rng, 100000)
    typ = np.bincount(s["type"], minlength=4) / len(s)
    assert np.allclose(typ, [0.68, 0.12, 0.15, 0.05], atol=0.01)
    assert (s["type"][:80000] < 2).all() and (s["type"][80000:] >= 2).all()    # E first, then I
    assert (s["v"] < -40.5).all() and abs(np.median(s["v"]) + 58) < 1 and (s["rng"] != 0).all()
    assert 0.005 < (s["refr"] > 0).mean() < 0.02                                  # ~5 Hz x 1-2 ms
    # the synapses: degrees, weights (Song et al.: mean 0.5 nS, long tail), delays
    row, post, w, dl = tp._p248_synapses(rng, n=4000, ne=3200, deg=(100.0, 125.0))
    d = np.diff(row)
    assert abs(d[:3200].mean() - 100) < 3 and abs(d[3200:].mean() - 125) < 6
    src = np.repeat(np.arange(4000), d)
    assert (post != src).all() and post.max() < 4000
    e = src < 3200
    assert abs(w[e].mean() - 0.5) < 0.02 and w[e].max() > 4 * w[e].mean() and abs(w[~e].mean() - 2.0) < 0.1
    assert dl.min() >= 1 and dl.max() <= 63 and abs(dl[e].mean() - 15) < 0.3 and abs(dl[~e].mean() - 8) < 0.3
    ids, st = tp._p248_burst(rng, 500, 4000)
    assert len(set(ids.tolist())) == 500 and (np.diff(st.astype(int)) >= 0).all() and st.max() == 9


def test_axon_and_trace_data():
    m, h, n = tp._p248_hh_rest()
    assert np.allclose([m, h, n], [0.0529, 0.5961, 0.3177], atol=2e-4)          # HH's resting gates
    # the triplet rule's traces: a Poisson neuron's trace averages rate x tau
    rng = np.random.default_rng(2)
    rate = np.full(20000, 8.0)
    r1, r2, o1, o2 = tp._p248_traces(rng, rate)
    for tr, tau in ((r1, 16.8), (r2, 101.0), (o1, 33.7), (o2, 125.0)):
        assert abs(tr.mean() - 8e-3 * tau * np.exp(-1 / tau)) < 0.03 * 8e-3 * tau
    ax = tp._p248_axons(rng, 2000)
    assert 60 <= ax["radius_um"].min() and ax["radius_um"].max() <= 300 and np.allclose(np.unique(ax["temp_c"]), [6.3, 9.8, 13.5, 18.5])


def test_spike_train_data():
    rng = np.random.default_rng(3)
    t, off, cls = tp._p248_spike_trains(rng, 600, T=60e3)
    n = np.diff(off)
    assert (t >= 0).all() and (t < 60e3).all()
    for i in range(600):
        assert (np.diff(t[off[i]:off[i + 1]]) > 0).all()
    rate = n / 60.0
    assert 1.5 < rate[cls == 0].mean() < 4.5 and 12 < rate[cls == 2].mean() < 30
    cv = np.array([np.std(np.diff(t[off[i]:off[i + 1]])) / np.mean(np.diff(t[off[i]:off[i + 1]]))
                   for i in range(600) if n[i] > 20])
    c2 = cls[n > 20]
    assert np.median(cv[c2 == 2]) < 0.6 < np.median(cv[c2 == 0]) and np.median(cv[c2 == 1]) > 1.2  # regular, bursty
    # the binned raster: 1 ms bins, up / down states, monosynaptic pairs
    r = tp._p248_raster(rng, 128, T=20000.0)
    bits = np.unpackbits(r.view(np.uint8), bitorder="little").reshape(128, -1)
    assert bits.shape[1] == 20000 and 2 < bits.sum(1).mean() / 20 < 8
    pop = bits.sum(0).reshape(-1, 100).sum(1)
    assert pop.std() > 2 * np.sqrt(pop.mean())                                   # up and down states


# ---- adex_cond_step ----

def _xs32(x):
    x = x ^ (x << np.uint32(13))
    x = x ^ (x >> np.uint32(17))
    return x ^ (x << np.uint32(5))


def _adex_ref(s, ine, ini, tab, c):
    """The step in float64 from the kernel's float32 inputs; the Poisson counts replayed in
    float32 (exact: 24-bit uniforms times 2^-24 and correctly rounded products)."""
    P = tab[s["type"]]
    x = s["rng"].copy()
    p = np.ones(len(s), F32)
    k = np.full(len(s), -1)
    go = np.ones(len(s), bool)
    while go.any():
        x[go] = _xs32(x[go])
        p[go] = p[go] * (((x[go] >> np.uint32(8)) + np.uint32(1)).astype(F32) * F32(2.0 ** -24))
        k[go] += 1
        go &= p > P["exp_lam"]
    f = lambda a: a.astype(np.float64)
    ge = f(s["ge"]) + f(ine) + k * f(P["w_ext"])
    gi = f(s["gi"]) + f(ini)
    v, w = f(s["v"]), f(s["w"])
    dt = float(c["dt"])
    wn = w + dt * (f(P["a"]) * (v - P["EL"]) - w) / P["tau_w"]
    ex = np.minimum((v - P["VT"]) / P["DT"], 20.0)
    terms = [-f(P["gL"]) * (v - P["EL"]), f(P["gL"]) * P["DT"] * np.exp(ex), -ge * (v - c["Ee"]), -gi * (v - c["Ei"]), -w]
    vn = v + dt * sum(terms) / P["C"]
    # float32: the ~6 terms' roundings and expf's (a few ulps) against the sum of their sizes
    vtol = 8 * EPS * (np.abs(v) + dt * sum(np.abs(t) for t in terms) / P["C"]) + 1e-6
    ref = s["refr"] > 0
    fired = ~ref & (vn >= c["Vpeak"])
    out = s.copy()
    out["v"] = np.where(ref | fired, P["Vr"], vn)
    out["w"] = wn + np.where(fired, P["b"], 0)
    out["ge"] = ge * float(c["de"])
    out["gi"] = gi * float(c["di"])
    out["rng"] = x
    out["refr"] = np.where(ref, s["refr"] - 1, np.where(fired, P["tref"], s["refr"]))
    near = ~ref & (np.abs(vn - c["Vpeak"]) <= vtol)
    return out, fired, k, np.where(ref, 0, vtol), near


def _check_adex(host, syms):
    n = int(host[3])
    s0, e0, i0 = host[0].copy(), host[1].copy(), host[2].copy()
    out = run("probe/snn-adex-cond-step-aos-const", host, n, symbols=syms)
    ref, fired, k, vtol, near = _adex_ref(s0, e0, i0, syms["c_adex"], syms["c_sim"])
    assert not near.any()                                  # no neuron within rounding of the spike
    g = out[0]
    assert (g["rng"] == ref["rng"]).all() and (g["refr"] == ref["refr"]).all() and (g["type"] == s0["type"]).all()
    assert (np.abs(g["v"] - ref["v"]) <= vtol + 4 * EPS * np.abs(ref["v"])).all()
    # w: 4 roundings of terms no larger than |w| + |a (v - EL)| + b; ge, gi: 3 and 2 roundings
    assert np.allclose(g["w"], ref["w"], rtol=8 * EPS, atol=8 * EPS * 200)
    assert np.allclose(g["ge"], ref["ge"], rtol=8 * EPS, atol=0)
    assert np.allclose(g["gi"], ref["gi"], rtol=6 * EPS, atol=0)
    assert (out[1] == 0).all() and (out[2] == 0).all()    # the ring's slot cleared
    ns = int(out[5][0])
    assert ns == fired.sum() and sorted(out[4][:ns].tolist()) == np.flatnonzero(fired).tolist()
    assert (out[4][ns:] == 0).all()
    assert out[6].tolist() == np.bincount(s0["type"][fired], minlength=4).tolist()
    return fired, k


def test_adex_network():
    rng = np.random.default_rng(4)
    host = tp._p248_adex_args(2000, rng)                                          # 8 blocks, the last partial
    syms = tp._p248_adex_symbols()
    s = host[0]
    up = rng.choice(2000, 150, replace=False)                                    # racing up: most cross this step
    s["v"][up] = rng.uniform(-42.0, -40.6, 150)
    s["refr"][up[:20]] = 3
    fired, k = _check_adex(host, syms)
    assert 25 < fired.sum() < 130 and k.max() >= 4 and abs(k.mean() - 1.04) < 0.15   # Poisson(1 to 1.2)


def test_adex_cases():
    syms = tp._p248_adex_symbols()
    s = np.zeros(300, tp.P248_NEURON)
    s["type"] = np.arange(300) % 4
    s["v"] = np.linspace(-75.0, -40.3, 300)
    s["w"] = np.linspace(0.0, 300.0, 300)
    s["ge"], s["gi"] = 5.0, 20.0
    s["rng"] = np.arange(1, 301, dtype=np.uint32) * np.uint32(2654435761)
    s["refr"][::7] = 1                                                           # their last refractory step
    host = [s, np.linspace(0, 40, 300).astype(F32), np.zeros(300, F32), np.int32(300), np.zeros(300, np.int32),
            np.zeros(1, np.int32), np.zeros(4, np.int32)]
    host[1][-30:] = 400.0                                                        # a volley: 400 nS
    fired, k = _check_adex(host, syms)
    assert fired[-30:][s["refr"][-30:] == 0].all()


# ---- deliver_spikes_warp ----

def _check_deliver(host):
    ids, st, n = host[0], host[1], int(host[2])
    row, post, w, dl, stp = host[3:8]
    N, ne, t0 = int(host[8]), int(host[9]), int(host[10])
    e0, i0 = host[11].copy(), host[12].copy()
    out = run("probe/snn-deliver-ring-warp-atomics", host, n)
    add = [np.zeros((64, N)), np.zeros((64, N))]
    mag = [np.abs(e0).astype(np.float64), np.abs(i0).astype(np.float64)]
    cnt = [np.zeros((64, N)), np.zeros((64, N))]
    for p, s in zip(ids, st):
        k = np.arange(row[p], row[p + 1])
        c = (w[k] * stp[p]).astype(np.float64)                  # the float32 product, exact in float64
        slot = (t0 + int(s) + dl[k].astype(int)) & 63
        r = int(p >= ne)
        np.add.at(add[r], (slot, post[k]), c)
        np.add.at(mag[r], (slot, post[k]), np.abs(c))
        np.add.at(cnt[r], (slot, post[k]), 1)
    # float atomicAdd in any order: each of a cell's cnt additions rounds by <= eps of the
    # running sum's magnitude
    for r, (got, old) in enumerate(((out[11], e0), (out[12], i0))):
        want = old + add[r]
        assert (np.abs(got - want) <= cnt[r] * 2 * EPS * mag[r]).all()
    return add, cnt


def test_deliver_burst():
    rng = np.random.default_rng(5)
    net = tp._p248_synapses(rng, n=2048, ne=1638, deg=(60.0, 75.0))
    host = tp._p248_deliver_args(300, rng, net=net)                               # 300 spikes: a partial block
    add, cnt = _check_deliver(host)
    assert cnt[0].sum() > 10000 and cnt[1].sum() > 1000 and cnt[0].max() >= 2   # shared targets: contention
    assert cnt[0][:37].sum() > 0 and cnt[0][37].sum() == 0                      # slots wrap around (t0 37)


def test_deliver_cases():
    # neuron 0's 70-synapse row (3 trips), all onto one target and slot; an empty row; an
    # inhibitory spike; spikes in the last step of the interval
    N, ne = 64, 48
    deg = np.zeros(N, np.int64)
    deg[[0, 1, 5, 50]] = [70, 0, 33, 31]
    row = np.concatenate([[0], np.cumsum(deg)]).astype(np.int32)
    m = int(row[-1])
    post = np.full(m, 7, np.int32)
    post[70:] = np.arange(m - 70) % N
    w = np.full(m, 0.25, F32)
    w[70:] = np.linspace(0.1, 3.0, m - 70)
    dl = np.full(m, 12, np.uint8)
    dl[70:] = np.arange(m - 70) % 63 + 1
    stp = np.linspace(0.3, 1.0, N).astype(F32)
    stp[0] = 1.0
    ring = np.zeros((64, N), F32)
    host = [np.array([0, 1, 5, 50], np.int32), np.array([0, 3, 9, 9], np.uint8), np.int32(4), row, post, w, dl, stp,
            np.int32(N), np.int32(ne), np.int32(60), ring.copy(), ring.copy()]
    out = run("probe/snn-deliver-ring-warp-atomics", host, 4)
    assert out[11][(60 + 12) & 63, 7] == 70 * 0.25                                # exact: multiples of 1/4
    _check_deliver(host)


# ---- hh_cable_cr ----

def _vtrap(x, y):
    r = x / y
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.abs(r) < 1e-6, y * (1 - 0.5 * r), x / np.expm1(r))


def _hh_ref(ax, V, M, H, N, nsteps, t0, tc, c):
    """The same scheme in float64, the tridiagonal systems by the Thomas algorithm."""
    V, M, H, N, tc = (np.array(a, np.float64) for a in (V, M, H, N, tc))
    nax, nc = V.shape
    C = {k: float(c[k]) for k in c.dtype.names}
    dt = C["dt"]
    phi = 3.0 ** ((ax["temp_c"].astype(np.float64) - 6.3) / 10)[:, None]
    gax = (1000 * ax["radius_um"].astype(np.float64) * 1e-4 / (2 * C["ri"] * C["dx"] ** 2))[:, None]

    def gs(x, a, b):
        s = a + b
        return a / s + (x - a / s) * np.exp(-dt * s)
    a = np.broadcast_to(-gax, (nax, nc)).copy()
    a[:, 0] = 0
    cc = np.broadcast_to(-gax, (nax, nc)).copy()
    cc[:, -1] = 0
    for step in range(nsteps):
        t = t0 + step * dt
        v = V
        M = gs(M, phi * 0.1 * _vtrap(-(v + 40), 10), phi * 4 * np.exp(-(v + 65) / 18))
        H = gs(H, phi * 0.07 * np.exp(-(v + 65) / 20), phi / (1 + np.exp(-(v + 35) / 10)))
        N = gs(N, phi * 0.01 * _vtrap(-(v + 55), 10), phi * 0.125 * np.exp(-(v + 65) / 80))
        gna, gk = C["gna"] * M ** 3 * H, C["gk"] * N ** 4
        b = C["cm"] / dt + gna + gk + C["gl"] - a - cc
        d = C["cm"] / dt * v + gna * C["ena"] + gk * C["ek"] + C["gl"] * C["el"]
        d[:, 0] += np.where(t < ax["tstim"], ax["istim"], 0)
        cp, dp = np.zeros_like(b), np.zeros_like(b)
        cp[:, 0], dp[:, 0] = cc[:, 0] / b[:, 0], d[:, 0] / b[:, 0]
        for i in range(1, nc):
            den = b[:, i] - a[:, i] * cp[:, i - 1]
            cp[:, i] = cc[:, i] / den
            dp[:, i] = (d[:, i] - a[:, i] * dp[:, i - 1]) / den
        x = np.empty_like(b)
        x[:, -1] = dp[:, -1]
        for i in range(nc - 2, -1, -1):
            x[:, i] = dp[:, i] - cp[:, i] * x[:, i + 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            tc = np.where((tc < 0) & (v < 0) & (x >= 0), t + dt * (-v / (x - v)), tc)
        V = x
    return V, M, H, N, tc


def test_hh_cable():
    # a warm squid giant axon (238 um, 18.5 C) well over threshold and a thin cold one under
    # it, 32 steps of 25 us; the second starts from a perturbed state (the first half
    # depolarised by 5 mV, its m gate off rest)
    rng = np.random.default_rng(6)
    host = tp._p248_hh_args(2, rng, nsteps=32)
    ax = host[0]
    ax[0] = (238.0, 18.5, 9000.0, 0.3)
    ax[1] = (80.0, 6.3, 400.0, 0.3)
    host[1][1, :128] += 5.0
    host[2][1] *= F32(1.3)
    c = tp._p248_hhconf()
    V0, M0, H0, N0, tc0 = (a.copy() for a in (host[1], host[2], host[3], host[4], host[7]))
    out = run("probe/snn-hh-cable-cyclic-reduction", host, 2, symbols={"c_hh": c})
    V, M, H, N, tc = _hh_ref(ax, V0, M0, H0, N0, 32, 0.0, tc0, c)
    # float32 gates (expf, divides: a few ulps a step) and cyclic reduction in float32 (the
    # system's diagonal dominance is weak, 4 gax against C / dt: its solution carries ~1e-5
    # relative error a step); during the upstroke (dV/dt up to ~600 mV/ms) V's error is a
    # ~1e-5 ms shift of the spike: within 0.02 mV, the gates within 2e-4, crossing times 1e-4 ms
    assert np.abs(out[1] - V).max() < 0.02
    for g, r in ((out[2], M), (out[3], H), (out[4], N)):
        assert np.abs(g - r).max() < 2e-4
    assert ((out[7] >= 0) == (tc >= 0)).all() and np.abs(out[7] - tc).max() < 1e-4
    reach = np.flatnonzero(tc[0] >= 0)
    assert reach.min() == 0 and 60 < reach.max() < 255 and (tc[1] < 0).all()    # propagating, not yet at the end
    vel = 4.0 / (tc[0][60] - tc[0][20])                                          # mm/ms (m/s) over 4 mm
    assert 15 < vel < 22                                                          # HH 1952: 18.8 m/s at 18.5 C


def test_hh_sweep_reference():
    # the whole sweep's physics in the reference (no emulation): conduction velocity grows
    # with the radius and the temperature; a quarter of the stimuli under threshold
    rng = np.random.default_rng(7)
    host = tp._p248_hh_args(24, rng, nsteps=80)
    ax = host[0]
    V, M, H, N, tc = _hh_ref(ax, *host[1:5], 80, 0.0, host[7], tp._p248_hhconf())
    fired = tc[:, 0] >= 0
    assert 0.1 < 1 - fired.mean() < 0.45
    ok = fired & (tc[:, 150] > 0)
    vel = 10.0 / (tc[ok, 150] - tc[ok, 50])
    lo = np.polyfit(np.log(ax["radius_um"][ok]), np.log(vel) - 0.5 * np.log(3.0) * (ax["temp_c"][ok] - 6.3) / 10, 1)
    assert 0.25 < lo[0] < 0.65                                                    # ~ sqrt(radius)


# ---- stdp_triplet_ell ----

def _check_stdp(host, syms):
    pre, W0, nin, n = host[0], host[1].copy(), host[2], int(host[3])
    bits = np.unpackbits(host[4].view(np.uint8), bitorder="little")[:n].astype(bool)
    r1, r2, o1, o2 = host[5:9]
    out = run("probe/snn-stdp-triplet-ell-bits", host, n, symbols=syms)
    c = syms["c_stdp"]
    live = np.arange(len(pre))[:, None] < nin[None, :]
    ps = bits[pre] & live
    po = bits[None, :] & live
    upd = ps | po
    w = W0.astype(np.float64)
    w = w - np.where(ps, o1[None, :].astype(np.float64) * (float(c["a2m"]) + float(c["a3m"]) * r2[pre]), 0)
    w = w + np.where(po, r1[pre].astype(np.float64) * (float(c["a2p"]) + float(c["a3p"]) * o2[None, :]), 0)
    w = np.where(upd, np.clip(w, 0, float(c["wmax"])), W0)
    # float32: each update a product and a sum or two (contracted or not): a few ulps of 1
    assert (out[1][~upd] == W0[~upd]).all()
    assert np.abs(out[1] - w).max() <= 8 * EPS
    assert out[9][0] == upd.sum()
    return ps, po, upd, w


def test_stdp_network():
    rng = np.random.default_rng(8)
    host = tp._p248_stdp_args(300, rng)                                           # 3 blocks, the last partial
    syms = tp._p248_stdp_symbols()
    assert host[0].shape[0] == host[2].max() and (host[0] < 300).all()
    spk = np.unpackbits(host[4].view(np.uint8), bitorder="little")[:300].astype(bool)
    spk |= rng.random(300) < 0.03                                                 # a busier millisecond
    host[4] = np.packbits(np.concatenate([spk, np.zeros(20, bool)]), bitorder="little").view(np.uint32).copy()
    host[1][:5, :8] = 0.9999                                                      # some at the bound
    ps, po, upd, w = _check_stdp(host, syms)
    assert ps.sum() > 1000 and po.sum() > 1000 and (ps & po).sum() > 10


def test_stdp_cases():
    n = 64
    syms = tp._p248_stdp_symbols()
    nin = (np.arange(n) % 5 + 1).astype(np.int32)
    pre = np.zeros((5, n), np.int32)
    pre[:] = (np.arange(n)[None, :] + 3 * np.arange(1, 6)[:, None]) % n
    W = np.full((5, n), 0.5, F32)
    W[:, 0], W[:, 1], W[:, 2], W[:, 3] = 0.0, 1.0, 1e-4, 0.99999
    W[nin[None, :] <= np.arange(5)[:, None]] = 7.0                                # padding: never touched
    spk = np.zeros(n, bool)
    spk[[0, 1, 2, 3, 6, 9, 31, 32, 63]] = True
    bits = np.packbits(spk, bitorder="little").view(np.uint32).copy()
    tr = lambda a: np.full(n, a, F32)
    host = [pre, W, nin, np.int32(n), bits, tr(1.5), tr(4.0), tr(2.0), tr(3.0), np.zeros(1, np.int32)]
    ps, po, upd, w = _check_stdp(host, syms)
    assert (w[W == 7.0] == 7.0).all() and w[0, 0] > 0


# ---- isi_stats_warp ----

def _isi_ref(t, off, cls, T):
    n = len(off) - 1
    st = np.zeros(n, tp.P248_ISTATS)
    hist = np.zeros((n, 64), np.int64)
    amb = np.zeros(n, np.int64)
    for i in range(n):
        x = t[off[i]:off[i + 1]]
        isi = (x[1:] - x[:-1]).astype(F32)                     # float32 differences, as the kernel's
        ns, ni = len(x), len(isi)
        sh = isi < F32(6.0)
        onset = sh & ~np.concatenate([[False], sh[:-1]])
        u = np.log10(np.maximum(isi.astype(np.float64), 0.01)) * 16
        b = np.clip(np.floor(u), 0, 63).astype(int)
        amb[i] = (np.abs(u - np.rint(u)) < 1e-4).sum()         # within log10f's rounding of an edge
        hist[i] = np.bincount(b, minlength=64)
        d = isi.astype(np.float64)
        lv = ((d[:-1] - d[1:]) / (d[:-1] + d[1:])) ** 2
        st[i] = (ns / T, d.mean() if ni else 0, d.std() / d.mean() if ni > 1 else 0,
                 3 * lv.sum() / (ni - 1) if ni > 1 else 0, (sh.sum() + onset.sum()) / ns if ns else 0,
                 ns, onset.sum(), cls[i])
    return st, hist, amb


def _check_isi(t, off, cls, T=60.0):
    n = len(off) - 1
    host = [t, off, cls, np.int32(n), F32(T), np.zeros(n, tp.P248_ISTATS), np.zeros((n, 64), np.uint16),
            np.zeros((3, 64), np.uint32)]
    out = run("probe/snn-isi-stats-warp-ballot", host, n)
    st, hist, amb = _isi_ref(t, off, cls, T)
    g = out[5]
    for k in ("nspk", "nburst", "cls"):
        assert (g[k] == st[k]).all(), k
    # rate and burst fraction: one float divide; the mean ISI and CV from double sums of the
    # float32 ISIs (the same ISIs: only the sums' order differs); LV sums ~n / 32 float32
    # terms a lane, then a 5-level butterfly: within (n / 32 + 5) eps of the sum
    assert np.allclose(g["rate"], st["rate"], rtol=2 * EPS, atol=0)
    assert np.allclose(g["burst_frac"], st["burst_frac"], rtol=2 * EPS, atol=0)
    assert np.allclose(g["mean_isi"], st["mean_isi"], rtol=2 * EPS, atol=0)
    assert np.allclose(g["cv"], st["cv"], rtol=1e-6, atol=0)
    assert (np.abs(g["lv"] - st["lv"]) <= (np.maximum(st["nspk"], 32) / 32 + 8) * 4 * EPS * st["lv"] + 1e-7).all()
    # the histogram: exact but for an ISI within log10f's rounding of a bin edge
    d = np.abs(out[6].astype(np.int64) - hist).sum(1)
    assert (d <= 2 * amb).all()
    want = np.stack([out[6][cls == c].astype(np.int64).sum(0) for c in range(3)])
    assert (out[7] == want).all()
    return g, hist


def test_isi_recording():
    rng = np.random.default_rng(9)
    t, off, cls = tp._p248_spike_trains(rng, 43, T=60e3)                       # 6 blocks, 3 warps in the last
    g, hist = _check_isi(t, off, cls)
    assert g["nburst"][cls == 1].min() > 10 and np.median(g["burst_frac"][cls == 1]) > 0.5
    assert np.median(g["lv"][cls == 2]) < 0.5 < np.median(g["lv"][cls == 0])     # regular vs Poisson-like


def test_isi_cases():
    # 0, 1, 2 and 33 spikes; a burst across the first chunk's end (ISIs 30 .. 34 short); a
    # train of 96 bursts back to back; ISIs under 1 ms and over 9 s (the end bins)
    trains = [np.zeros(0), np.array([5.0]), np.array([5.0, 10.5]), np.arange(33) * 40.0 + 1.0]
    x = np.arange(70) * 50.0
    x[31:36] = x[30] + np.arange(1, 6) * 3.0
    trains.append(x)
    trains.append(np.cumsum(np.tile([100.0, 4.0, 4.0], 96)))
    trains.append(np.array([1.0, 1.4, 20000.0, 30000.0, 30000.25]))
    t = np.concatenate(trains).astype(F32)
    off = np.concatenate([[0], np.cumsum([len(a) for a in trains])]).astype(np.int32)
    cls = np.array([0, 1, 2, 0, 1, 2, 0], np.uint8)
    g, hist = _check_isi(t, off, cls)
    assert g["nspk"].tolist() == [0, 1, 2, 33, 70, 288, 5] and g["nburst"].tolist() == [0, 0, 1, 0, 1, 96, 2]
    assert g["cv"][3] == 0 and g["burst_frac"][5] == 1 and hist[6, 0] == 2 and hist[6, 63] == 2


# ---- coincidence_popc ----

def _check_co(r, nbins):
    n, nw = r.shape
    host = [np.ascontiguousarray(r, np.uint32), np.int32(n), np.int32(nw), np.int32(nbins), np.zeros((n, n), np.int32),
            np.zeros((n, n), F32)]
    out = run("probe/snn-synchrony-popc-tiles", host, n)
    b = np.unpackbits(r.view(np.uint8), bitorder="little").reshape(n, -1).astype(np.int64)
    d = b.copy()
    d[:, 1:] |= b[:, :-1]
    d[:, :-1] |= b[:, 1:]
    C = b @ d.T
    assert (out[4] == C).all()
    ni, dj = b.sum(1), d.sum(1)
    E = ni[:, None] * dj[None, :] / nbins
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(E > 0, (C - E) / np.sqrt(E), 0)
    # E in float32 (a product and a quotient: 2 roundings) and rsqrtf (2 ulps): z within
    # 6 eps of (|C| + E) / sqrt(E)
    with np.errstate(divide="ignore", invalid="ignore"):
        tol = np.where(E > 0, 8 * EPS * (C + E) / np.sqrt(E), 0)
    assert (np.abs(out[5] - z) <= tol + 1e-30).all()
    return C, z


def test_synchrony_recording():
    rng = np.random.default_rng(10)
    r = tp._p248_raster(rng, 64, T=1900.0)                                       # 60 words: a partial tile
    C, z = _check_co(r, 1900)
    off = ~np.eye(64, dtype=bool)
    assert z[off].mean() > 0 and z[off].max() > 5                               # up states, monosynaptic pairs


def test_synchrony_cases():
    n, nw = 64, 40
    r = np.zeros((n, nw), np.uint32)
    r[0, 0] = 1                                                                  # bin 0
    r[1, 0] = 2                                                                  # bin 1: with neuron 0
    r[2, 0] = np.uint32(1 << 31)                                                 # bin 31 ...
    r[3, 1] = 1                                                                  # ... and 32: across words
    r[4, nw - 1] = np.uint32(1 << 31)                                            # the last bin
    r[5] = 0xFFFFFFFF                                                            # every bin
    r[6, ::2] = 0x55555555
    r[7, ::3] = 0x80000001
    C, z = _check_co(r, nw * 32)
    assert C[0, 1] == 1 and C[2, 3] == 1 and C[3, 2] == 1 and C[0, 2] == 0 and C[5, 5] == nw * 32
    assert (C[8:, :] == 0).all() and (z[8:, :] == 0).all()                       # silent: E = 0
