"""probe-unseen98's kernels (kernels_cuda/probes100.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import dataclasses

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import _run, launch, run

IDS = ["probe/logic-sim-level-switch", "probe/fault-sim-local-array", "probe/sta-nldm-level",
       "probe/hpwl-block-reduce", "probe/rudy-congestion-atomics", "probe/sig-popc-histogram"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen98"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes100.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 16
    # logic-sim: types by P100_GATE_P, fan-ins earlier signals, near the gate 75%
    t, a, b, val, base, nn = tp._p100_ls_args(n, rng)
    assert t.dtype == np.uint8 and val.dtype == np.uint64 and base == nn == n and len(val) == 2 * n * tp.P100_LS_W
    np.testing.assert_allclose(np.bincount(t, minlength=8) / n, tp.P100_GATE_P, atol=0.01)
    assert (b[t >= 6] == a[t >= 6]).all() and (b[t < 6] != a[t < 6]).mean() > 0.99
    assert min(a.min(), b.min()) >= 0 and max(a.max(), b.max()) < n
    near = np.abs(a - np.arange(n)) < 3 * tp.P100_LOCAL_SD
    assert 0.77 < near.mean() < 0.82                                          # 75% + the far ones nearby
    assert (val[n * tp.P100_LS_W:] == 0).all() and abs(np.unpackbits(val[:n * 4].view(np.uint8)).mean() - 0.5) < 0.01
    # fault-sim: a levelized circuit every gate of which reaches an output; the good outputs
    ct, i0, i1 = tp._p100_fs_circuit()
    G, PI, PO = tp.P100_FS_G, tp.P100_FS_PI, tp.P100_FS_PO
    g = np.arange(PI, G)
    assert (i0[PI:] < g).all() and (i1[PI:] < g).all() and (i1[PI:][ct[PI:] >= 6] == i0[PI:][ct[PI:] >= 6]).all()
    seen = np.zeros(G, bool)
    seen[-PO:] = True
    for k in range(G - 1, PI - 1, -1):
        if seen[k]:
            seen[[i0[k], i1[k]]] = True
    assert seen.all()
    n = 1 << 14
    syms = tp._p100_fs_syms(n, rng)
    assert all(v.dtype == np.int32 and v.shape == (G,) for v in syms.values())
    pat, good, flist, det, w = tp._p100_fs_args(64, rng)
    assert pat.dtype == good.dtype == np.uint32 and len(pat) == PI * 64 and len(det) == 2 * G * 64 and w == 64
    assert (flist == np.arange(2 * G)).all()
    assert (good.reshape(PO, -1) == tp._p100_fs_sim(pat)[-PO:]).all()
    # sta: 1-4 fan-ins, NLDM tables increasing along both axes, slews and loads within the axes
    ptr, idx, wire, cty, load, at, sl, pred, base, nn = tp._p100_sta_args(n, rng)
    k = np.diff(ptr)
    assert ptr[0] == 0 and k.min() == 1 and k.max() == 4 and abs(k.mean() - 2.4) < 0.05
    assert idx.min() >= 0 and idx.max() < n and base == n and len(at) == len(sl) == 2 * n
    assert (at[n:] == 0).all() and (sl[n:] == 0).all() and (at[:n] >= 0).all() and at.dtype == np.float32
    assert cty.max() == tp.P100_NLDM_T - 1 and (wire > 0).all()
    sa, la, dt, st = tp._p100_nldm_tables()
    assert (np.diff(sa) > 0).all() and (np.diff(la) > 0).all()
    assert (np.diff(dt, axis=1) > 0).all() and (np.diff(dt, axis=2) > 0).all() and (np.diff(st, axis=2) > 0).all()
    assert ((load >= la[0]) & (load <= la[-1])).mean() > 0.998 and load.min() >= 0.0004
    assert ((sl[:n] >= sa[0]) & (sl[:n] <= sa[-1])).mean() > 0.997 and 0.04 < np.median(sl[:n]) < 0.06
    assert set(tp._p100_sta_syms(n, rng)) == {"c_slew_ax", "c_load_ax", "c_delay_tab", "c_oslew_tab"}
    # hpwl: net degrees 2-128 (55% two-pin), pins' cells near the net's id 75%
    ptr, cell, dx, dy, cx, cy, w, h, tot, nn = tp._p100_hpwl_args(n, rng)
    k = np.diff(ptr)
    assert k.min() == 2 and k.max() <= 128 and abs((k == 2).mean() - 0.55) < 0.02 and 4.2 < k.mean() < 5.0
    home = np.repeat(np.arange(n), k)
    assert 0.75 < (np.abs(cell - home) < 4 * tp.P100_PIN_SD).mean() < 0.8
    assert cell.min() >= 0 and cell.max() < n and np.abs(dx).max() <= 0.5 and set(np.unique(w)) == {1, 1.5, 2}
    assert -20 < cx.min() and cx.max() < 1020 and len(tot) == 1
    # rudy: boxes inside the die, ~5.3 bins a net, at most 33 x 33
    box, w, dem, bw, bh, nn = tp._p100_rudy_args(n, rng)
    B = box.reshape(-1, 4)
    assert (B[:, :2] <= B[:, 2:]).all() and B.min() >= 0 and B.max() < tp.P100_RUDY_G
    assert len(dem) == tp.P100_RUDY_G ** 2 and bw == bh == 1
    m, nb = tp._p100_rudy_ref(box, w)
    assert 4.8 < nb.mean() < 5.8 and 100 < nb.max() <= 33 * 33 and 0.6 < (nb <= 4).mean() < 0.7
    assert m.max() > 20 * m.mean()                                            # hot spots
    # sig: 15% golden, 5% 1-4 bits off, the rest around 128
    sig, dist, hist, nn = tp._p100_sig_args(n, rng)
    d, hst = tp._p100_sig_ref(sig)
    assert sig.dtype == np.uint32 and dist.dtype == np.uint16 and len(hist) == 257 and hst.sum() == n
    assert abs((d == 0).mean() - 0.15) < 0.01 and abs(((d >= 1) & (d <= 4)).mean() - 0.05) < 0.01
    assert ((d > 4) & (d < 96)).sum() == 0 and abs(d[d > 4].mean() - 128) < 0.5


# ---- logic-sim-level-switch ----

def test_logic_sim_level():
    n = 1000                                                # 4 blocks, the last partial
    host, (t, a, b, val, *_), *_ = launch("probe/logic-sim-level-switch", n)
    assert set(np.unique(t)) == set(range(8))
    v = val.reshape(-1, tp.P100_LS_W)
    assert (v[:n] == host[3].reshape(-1, tp.P100_LS_W)[:n]).all()           # earlier signals untouched
    assert (v[n:] == tp._p100_ls_ref(t, a, b, host[3], n)).all()
    x, y = v[a[0]], v[b[0]]
    assert (v[n] == {0: x & y, 1: ~(x & y), 2: x | y, 3: ~(x | y), 4: x ^ y, 5: ~(x ^ y), 6: ~x, 7: x}[int(t[0])]).all()


# ---- fault-sim-local-array ----

def test_fault_sim():
    # 128 words (a block a fault) of 48 faults: PI faults, output faults and random ones
    p = tp.get("probe/fault-sim-local-array")
    rng = np.random.default_rng(3)
    nw = 128
    pat, good, flist, det, w = p.args(nw, rng)
    G = tp.P100_FS_G
    pick = np.r_[0, 1, 63, 2 * G - 2, 2 * G - 1, 2 * (G - tp.P100_FS_PO), rng.choice(2 * G, 42, replace=False)]
    fl = flist[pick].copy()
    host = [pat, good, fl, np.zeros(len(fl) * nw, np.uint32), w]
    q = dataclasses.replace(p, grid=lambda n: (-(-n // tp.P100_FS_BLOCK), len(fl)))
    out = _run(q, host, tp._p100_fs_syms(nw, rng), nw, 0, "lockstep")[0]
    ref = tp._p100_fs_ref(pat, fl)
    assert (out[3].reshape(len(fl), nw) == ref).all()
    bits = np.unpackbits(ref.view(np.uint8), axis=1).mean(axis=1)
    # an output stuck at v is seen exactly where the good output is not v
    po = good.reshape(tp.P100_FS_PO, nw)[-1]
    assert (ref[3] == po).all() and (ref[4] == ~po).all()
    assert (bits == 0).any() and (bits > 0.2).any()


# ---- sta-nldm-level ----

def sta_check(host, out, n):
    best, worst, pred, gap = tp._p100_sta_ref(*host[:7])
    np.testing.assert_allclose(out[5][n:], best, rtol=2e-6, atol=0)
    np.testing.assert_allclose(out[6][n:], worst, rtol=2e-6, atol=0)
    ok = gap > 1e-5
    assert ok.mean() > 0.9 and (out[7][ok] == pred[ok]).all()
    assert (out[5][:n] == host[5][:n]).all() and (out[6][:n] == host[6][:n]).all()


def test_sta_level():
    n = 1000
    host, out, *_ = launch("probe/sta-nldm-level", n)
    sta_check(host, out, n)


def test_sta_level_edges():
    # slews and loads on the axes' points, below and above them (extrapolated), one fan-in
    rng = np.random.default_rng(4)
    n = 300
    host = tp._p100_sta_args(n, rng)
    sa, la, *_ = tp._p100_nldm_tables()
    host[4][:9] = np.r_[la, la[0] / 4, la[-1] * 2]
    host[6][:9] = np.r_[sa, sa[0] / 4, sa[-1] * 2]
    host[0][:] = np.arange(n + 1, dtype=np.int32)                          # one fan-in a gate
    host[1] = host[1][:n].copy()
    host[1][:9] = np.arange(9)
    host[2] = host[2][:n].copy()
    out = run("probe/sta-nldm-level", host, n, symbols=tp._p100_sta_syms(n, rng))
    sta_check(host, out, n)
    assert (out[7] == host[1]).all()


# ---- hpwl-block-reduce ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_hpwl(policy):
    n = 600 if policy == "lockstep" else 300                # 3 (2) blocks, the last partial
    host, out, *_ = launch("probe/hpwl-block-reduce", n, policy=policy)
    h = tp._p100_hpwl_ref(*host[:7])
    np.testing.assert_allclose(out[7], h, rtol=1e-6, atol=1e-3)
    np.testing.assert_allclose(out[8][0], h.sum(), rtol=1e-5)
    assert np.diff(host[0]).max() > 20 and (h > 0).all()


def test_hpwl_edge_cases():
    # a net whose pins all sit on one point (0), a net of one pin (0), a net over the die
    rng = np.random.default_rng(5)
    n = 256
    host = tp._p100_hpwl_args(n, rng)
    ptr, cell, dx, dy = host[0], host[1], host[2], host[3]
    s0, s1 = ptr[0], ptr[1]
    cell[s0:s1], dx[s0:s1], dy[s0:s1] = cell[s0], 0.0, 0.0
    ptr[2] = ptr[1] + 1                                     # net 1: one pin
    out = run("probe/hpwl-block-reduce", host, n)
    h = tp._p100_hpwl_ref(*host[:7])
    assert out[7][0] == 0 and out[7][1] == 0
    np.testing.assert_allclose(out[7], h, rtol=1e-6, atol=1e-3)
    np.testing.assert_allclose(out[8][0], h.sum(), rtol=1e-5)


# ---- rudy-congestion-atomics ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_rudy(policy):
    n = 700
    host, out, *_ = launch("probe/rudy-congestion-atomics", n, policy=policy)
    m, nb = tp._p100_rudy_ref(host[0], host[1])
    np.testing.assert_allclose(out[2].reshape(tp.P100_RUDY_G, -1), m, rtol=1e-5, atol=1e-6)
    assert nb.max() >= 40 and (out[2] > 0).sum() > 1000


def test_rudy_edges():
    # boxes ending on the die's far edge (clipped to the last bin), a point box, one box
    # over 32 x 32 bins, and all the rest on one bin
    rng = np.random.default_rng(6)
    n = 300
    G = float(tp.P100_RUDY_G)
    box, w, dem, bw, bh, nn = tp._p100_rudy_args(n, rng)
    B = box.reshape(-1, 4)
    B[0] = [G - 3.5, G - 0.5, G, G]
    B[1] = [10.25, 10.25, 10.25, 10.25]
    B[2] = [100.0, 200.0, 131.5, 231.5]
    B[3:] = [300.2, 300.2, 300.7, 300.9]
    out = run("probe/rudy-congestion-atomics", [box, w, dem, bw, bh, nn], n, policy="random")
    m, nb = tp._p100_rudy_ref(box, w)
    assert list(nb[:3]) == [4, 1, 32 * 32]
    M = out[2].reshape(tp.P100_RUDY_G, -1)
    np.testing.assert_allclose(M, m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(M[300, 300], (w[3:].astype(np.float64) * 1.2).sum(), rtol=1e-4)
    assert M[-1, -1] == np.float32(w[0] * 4.0 / 4)


# ---- sig-popc-histogram ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_sig_compare(policy):
    n = 700
    host, (sig, dist, hist, _), *_ = launch("probe/sig-popc-histogram", n, policy=policy)
    d, hst = tp._p100_sig_ref(host[0])
    assert (dist == d).all() and (hist == hst).all() and hst[0] > 50


def test_sig_compare_extremes():
    # every signature the golden one (one hot bin) or its complement (distance 256)
    rng = np.random.default_rng(7)
    n = 512
    sig, dist, hist, nn = tp._p100_sig_args(n, rng)
    gold = tp._p100_golden()
    s = np.tile(gold, (n, 1))
    s[1::2] = ~gold
    out = run("probe/sig-popc-histogram", [s.ravel(), dist, hist, nn], n, policy="random",
              symbols=tp._p100_sig_syms(n, rng))
    assert (out[1] == np.tile([0, 256], n // 2)).all()
    assert out[2][0] == out[2][256] == n // 2 and out[2].sum() == n
