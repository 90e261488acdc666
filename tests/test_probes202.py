"""probe-unseen200's kernels (kernels_cuda/probes202.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/mna-stamp-csr-atomic", "probe/diode-newton-pnjlim-f64", "probe/rc-net-trap-thomas-local",
       "probe/ac-ladder-float2-smem", "probe/mc-offset-hist-ballot", "probe/ekv-eval-gather-const"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen200"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes202.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # the power grid: its netlist's counts, the pattern, clustered decaps, hot spots, IR drop
    W = 256
    el, v = tp._p202_mn_netlist(W, rng)
    B = (W // tp.P202_MN_PITCH) ** 2
    S = W * W + B + 1
    assert len(el) == tp._p202_mn_count(W) and el.dtype.itemsize == 16 and len(v) == S
    t, a, b, val = el["type"], el["n1"], el["n2"], el["value"]
    assert (t == tp.P202_EL_R).sum() == 2 * W * (W - 1) + 2 * B + 1 and (val > 0).all() and (a != b).all()
    assert a.min() == 0 and max(a.max(), b.max()) == S
    row_ptr, col = tp._p202_mn_pattern(el, S)
    L = np.diff(row_ptr)
    assert L.max() == B + 1 == L[-1] and np.median(L) == 5 and (np.diff(col)[np.diff(np.repeat(np.arange(S), L)) == 0] > 0).all()
    C = val[t == tp.P202_EL_C].reshape(W, W)
    dec = C > 10e-15
    tiles = dec.reshape(8, 32, 8, 32).mean(axis=(1, 3))
    assert 0.2 < dec.mean() < 0.4 and tiles.std() > 0.1 and tiles.min() < 0.1 < 0.6 < tiles.max()   # clustered
    I = val[(t == tp.P202_EL_I) & (b == 0)]
    assert len(I) == W * W and 2e-6 < np.median(I) < 2e-5 and np.percentile(I, 99) > 4 * np.median(I)
    assert 0.85 < v[:W * W].min() and v.max() < 0.91 and v[-1] == np.float32(tp.P202_MN_VDD)
    # the diode networks: a sweep the fastest index over fixed parts
    vs, rs, rl, is1, nf1, is2, nf2, *_ = tp._p202_dn_args(1 << 14, rng)
    ns, lo, hi = tp.P202_DN_SWEEP
    assert (vs[:ns] == np.linspace(lo, hi, ns, dtype=np.float32)).all() and (vs.reshape(-1, ns) == vs[:ns]).all()
    parts = np.stack([rs, rl, is1, nf1, is2, nf2]).reshape(6, -1, ns)
    assert (parts == parts[:, :, :1]).all()
    m = parts[:, :, 0]
    assert abs(m[0].std() / 1e3 - 0.01 / 3) < 5e-4 and abs(m[1].mean() / 1e4 - 1) < 0.01
    assert abs(np.log(m[2] / tp.P202_DN_D1[0]).std() - 0.3) < 0.03 and abs(np.median(m[4]) / tp.P202_DN_D2[0] - 1) < 0.1
    # the nets: lengths, segment counts, layers, drivers, slews
    L, rpu, cpu, rd, cl, tr, *_ = tp._p202_tr_args(1 << 15, rng)
    nseg = np.minimum(8, np.ceil(L / 50))
    assert 2 <= L.min() and L.max() <= 3000 and 35 < np.median(L) < 45
    assert 0.55 < (nseg == 1).mean() < 0.63 and 0.01 < (nseg == 8).mean() < 0.04
    assert np.median(rpu[L < 50]) > 1.8 and np.median(rpu[L > 2000]) < 0.8 and (cpu > 0.15e-15).all()
    assert sorted(np.unique(np.round(8e3 / rd)).tolist()) == [1, 2, 4, 8, 16] and abs(np.median(tr) - 30e-12) < 2e-12
    assert (cl > 0.8e-15).all() and abs(cl.mean() / 1.2e-15 - 2.5) < 0.1
    # the ladders: parts within their clips about the Butterworth values
    par = tp._p202_ac_args(4096, rng)[0].reshape(-1, 16)
    dev = par[:, :11] / tp._p202_ac_nominal()[:11] - 1
    assert np.abs(dev[:, 2:7]).max() <= 0.05 + 1e-6 and np.abs(dev[:, 7:11]).max() <= 0.1 + 1e-6
    assert abs(dev[:, 2:7].std() - 0.02) < 0.002 and np.abs(dev[:, :2]).max() < 0.012 and (par[:, 15] == 0).all()
    q = 2 * np.pi * 1e6 * par[:, 7:11] / par[:, 11:15]
    assert abs(np.median(q) - 40) < 2
    f = tp._p202_ac_freqs()
    assert len(f) == 256 and abs(f[0] - 1e5) < 1 and abs(f[-1] - 1e7) < 10
    # the designs: sigma of the offset from 0.36 to 18 mV
    d = tp._p202_mc_designs()
    assert len(np.unique(d[:, :2], axis=0)) == 64 and (d[:, 3] == 2 * d[:, 1]).all()
    sig = tp.P202_MC_AVT / np.sqrt(d[:, 0] * d[:, 1] * 1e-12)
    assert 0.0003 < sig.min() < 0.0004 and 0.017 < sig.max() < 0.019
    # the standard cells: polarities, rails, locality, voltages
    nd, ng, nsrc, nb, w, l, model, volt, *_ = tp._p202_ek_args(1 << 14, rng)
    pm = model >= 3
    assert (nb == pm).all() and model.max() == 5 and (l == np.float32(0.03)).all()
    assert ((nsrc == 1) <= pm).all() and ((nsrc == 0) <= ~pm).all() and (nd > 1).all()
    assert abs((model % 3 == 0).mean() - 0.7) < 0.03 and abs(pm.mean() - 0.5) < 0.01
    assert np.median(np.abs(ng - nd)) < 200 and np.percentile(np.abs(ng - nd), 95) > 1000
    assert volt[0] == 0 and volt[1] == np.float32(0.9) and volt.min() >= 0 and volt.max() <= np.float32(0.9)
    out = volt[np.intersect1d(nd[~pm & (nsrc == 0)], nd[pm & (nsrc == 1)])]  # the inverters' outputs
    mid = (out > 0.1) & (out < 0.8)
    assert 0.06 < mid.mean() < 0.14 and abs((out > 0.45).mean() - 0.5) < 0.05


# ---- mna-stamp-csr-atomic ----

def _mna_hand():
    """4 nodes: two 2-ohm resistors in parallel (1-2), 0.25 ohm (2-3), 1 ohm to ground (4),
    capacitors 3-0 and 3-4 (g 0.25 and 0.5 at 1 / h = 2^38), currents 0 -> 1, 4 -> 0 and
    2 -> 3, and an element shorted to ground on both ends: every value exact in float32."""
    rows = [(0, 1, 2, 2.0), (0, 2, 1, 2.0), (0, 2, 3, 0.25), (0, 4, 0, 1.0), (1, 3, 0, 2.0 ** -40),
            (1, 3, 4, 2.0 ** -39), (2, 0, 1, 1.5), (2, 4, 0, 0.25), (2, 2, 3, 0.5), (0, 0, 0, 1.0)]
    el = np.array(rows, tp.P202_ELEMENT_DTYPE)
    row_ptr, col = tp._p202_mn_pattern(el, 4)
    v = np.array([0.875, 0.8125, 0.75, 0.5], np.float32)
    return [el, row_ptr, col, v, np.zeros(len(col), np.float32), np.zeros(4, np.float32), np.float32(2.0 ** 38),
            np.int32(len(el))]


@pytest.mark.parametrize("policy, W", [("lockstep", 128), ("random", 32)])
def test_mna_stamp(policy, W):
    h = _mna_hand()
    out = run("probe/mna-stamp-csr-atomic", h, 1, policy=policy, grid=(1, 1))
    dense = np.zeros((4, 4), np.float32)
    dense[np.repeat(np.arange(4), np.diff(h[1])), h[2]] = out[4]
    assert (dense == [[1, -1, 0, 0], [-1, 5, -4, 0], [0, -4, 4.75, -0.5], [0, 0, -0.5, 1.5]]).all()
    assert (out[5] == [1.5, -0.5, 0.8125, -0.375]).all()
    # a W x W grid (W = 128: 16 bumps, the supply node's row of 17 searched by its package
    # resistors; W = 32: one bump)
    h = tp._p202_mn_args(W, np.random.default_rng(1))
    out = run("probe/mna-stamp-csr-atomic", h, W, policy=policy)
    G, Gm, Gc, rhs, rm, rc = tp._p202_mn_ref(*h[:4], h[6])
    # each term rounded to float32 once (1 / R, C / h, g (va - vb)), then added in any order:
    # within (m + 1) 2^-24 of the sum of the terms' magnitudes
    B = (W // tp.P202_MN_PITCH) ** 2
    assert (np.abs(out[4] - G) <= (Gc + 1) * 2.0 ** -24 * Gm).all() and Gc[-1] == B + 1 == np.diff(h[1])[-1]
    assert (np.abs(out[5] - rhs) <= (rc + 1) * 2.0 ** -24 * rm).all() and (Gc > 0).all()
    assert out[4][h[1][-2]:].max() > 1000 and out[5][-1] == np.float32(900)     # the regulator's Norton pair


# ---- diode-newton-pnjlim-f64 ----

def test_diode_op():
    n = 512                                                 # 2 instances' sweeps
    h = tp._p202_dn_args(n, np.random.default_rng(2))
    h[0][:4] = [0.0, -50.0, 100.0, 0.7]                     # off, far reverse, far forward, the knee
    out = run("probe/diode-newton-pnjlim-f64", h, n)
    v1, v2, it = tp._p202_dn_ref(*h[:7])
    assert (out[9] == it).all() and np.abs(out[7] - v1).max() < 1e-12 and np.abs(out[8] - v2).max() < 1e-12
    # the operating points satisfy KCL with the exact diode laws to within reltol of the
    # currents at the node
    r1, r2 = tp._p202_dn_kcl(out[7], out[8], *h[:7])
    scale = np.abs(out[7] - h[0]) / h[1] + np.abs(out[8]) / h[2] + 1e-15
    assert (np.abs(r1) <= 1e-3 * scale).all() and (np.abs(r2) <= 1e-3 * scale).all()
    assert out[7][0] == 0 and out[8][0] == 0 and it[0] == 2
    leak = (h[3][1] + 50 * tp.P202_DN_GMIN) * h[2][1]       # diode 1's reverse current through rl
    assert -50 < out[7][1] < -49.99 and abs(out[8][1] / -leak - 1) < 1e-3 and it[1] == 3
    assert 0.7 < out[7][2] < 0.9 and it[2] > 3 and it[3] > 3 and it.max() < tp.P202_DN_MAXIT
    assert np.bincount(it).argmax() == 3 and it.max() >= 12                 # reverse quick, the knee slow


# ---- rc-net-trap-thomas-local ----

def test_rc_net_tran():
    n = 192
    h = tp._p202_tr_args(n, np.random.default_rng(3))
    h[0][:4] = [50.0, 50.004, 2999.0, 10.0]                  # 1 segment, 2, the 8-segment cap; a lumped RC
    h[1][3], h[3][3], h[4][3], h[5][3] = 2.0, 8000.0, 5e-15, 1e-12
    out = run("probe/rc-net-trap-thomas-local", h, n)
    delay, slew = tp._p202_tr_ref(*h[:6])
    # float32 against float64: the factorization loses up to ~11 bits where the wire's
    # conductance dwarfs the driver's (a 2 um net on an X1 driver): ~3e-4 at worst
    assert (np.abs(out[6] / delay - 1) < 2e-3).all() and (np.abs(out[7] / slew - 1) < 2e-3).all()
    assert delay.min() > 0 and (slew > 0).all() and delay[2] > 10 * np.median(delay)
    # the lumped net (20 ohm of wire against 8 kohm, 7 fF) as one pole of its Elmore delay tau:
    # the fixed step h (tau / 11) samples the 1 ps ramp at 0 and h only, so the trapezoidal
    # rule sees a ramp over h: v = (t - tau (1 - e^(-t / tau))) / h up to h, then
    # 1 - (tau / h) (e^(-(t - h) / tau) - e^(-t / tau)); trapezoidal's error ~(h / tau)^2 / 12
    c0 = 0.5 * h[2][3] * 10
    tau = c0 * 8000 + (c0 + 5e-15) * (8000 + 20)
    hh = (1e-12 + 5 * tau) / tp.P202_TR_STEPS
    t = np.linspace(0, 10 * tau, 400001)
    with np.errstate(over="ignore"):
        vt = np.where(t <= hh, (t - tau * -np.expm1(-t / tau)) / hh,
                      1 - tau / hh * (np.exp(-(t - hh) / tau) - np.exp(-t / tau)))
    t10, t50, t90 = (np.interp(x, vt, t) for x in (0.1, 0.5, 0.9))
    assert abs(out[6][3] / (t50 - 0.5e-12) - 1) < 2e-3 and abs(out[7][3] / (t90 - t10) - 1) < 2e-3


# ---- ac-ladder-float2-smem ----

def test_ac_ladder():
    n = 3
    h = tp._p202_ac_args(n, np.random.default_rng(4))
    par = h[0].reshape(n, 16)
    par[0] = tp._p202_ac_nominal()
    par[0, 11:15] = 0                                       # lossless: Butterworth exactly
    f = tp._p202_ac_freqs()
    f[100] = 1e6                                            # the cutoff itself
    out = run("probe/ac-ladder-float2-smem", h, n, symbols={"c_freq": f})
    H = tp._p202_ac_ref(h[0], f)
    gain, ph = out[1].reshape(n, -1), out[2].reshape(n, -1)
    assert np.abs(gain - 20 * np.log10(np.abs(H))).max() < 1e-3
    assert np.abs((ph - np.degrees(np.angle(H)) + 180) % 360 - 180).max() < 1e-3
    ff = f.astype(np.float64) / 1e6
    assert np.abs(gain[0] + 10 * np.log10(1 + ff ** 18)).max() < 1e-3 and abs(gain[0, 100] + 3.0103) < 1e-3
    assert gain.min() < -170 and -1 < gain[1:, 0].min() and gain[1:, 0].max() < 0    # Q's loss in the passband


# ---- mc-offset-hist-ballot ----

def _mc_hist(vos):
    b = np.clip(np.floor(vos / tp.P202_MC_BINW).astype(np.int64) + 64, 0, 127)
    return np.stack([np.bincount(r, minlength=128) for r in b])


def test_mc_offset():
    n = 3000                                                # 6 trips of 512 threads, the last partial
    syms = tp._p202_mc_syms(n, None)
    h = tp._p202_mc_args(n, None)
    out = run("probe/mc-offset-hist-ballot", h, n, symbols=syms, grid=(2, 64))
    vos = tp._p202_mc_ref(h[0], n, syms["c_design"])
    # float32 against float64: ~1e-9 V apart, so only offsets within 1e-5 of a bin's width of
    # an edge (or of the spec) may land on the other side
    edge = np.abs(vos / tp.P202_MC_BINW - np.round(vos / tp.P202_MC_BINW)) < 1e-5
    spec = np.abs(np.abs(vos) - tp.P202_MC_SPEC) < 1e-8
    hist = out[2].reshape(64, 128)
    assert np.abs(hist - _mc_hist(vos)).sum() <= 2 * edge.sum() and hist.sum() == 64 * n
    assert np.abs(out[3] - (np.abs(vos) < tp.P202_MC_SPEC).sum(axis=1)).max() <= spec.sum()
    assert np.abs(out[4] / (vos ** 2).sum(axis=1) - 1).max() < 1e-5
    assert hist[0, [0, 127]].min() > 50 and (hist[63] > 0).sum() < 12         # tails clamped; a narrow one
    # 3 blocks a design for the first 8 designs: the same trials, the same counts
    h3 = tp._p202_mc_args(n, None)
    out3 = run("probe/mc-offset-hist-ballot", h3, n, symbols=syms, grid=(3, 8))
    assert (out3[2][:8 * 128] == out[2][:8 * 128]).all() and (out3[3][:8] == out[3][:8]).all()
    assert (out3[2][8 * 128:] == 0).all()
    # no trials: nothing counted
    h0 = tp._p202_mc_args(0, None)
    out0 = run("probe/mc-offset-hist-ballot", h0, 0, symbols=syms, grid=(1, 2))
    assert not out0[2].any() and not out0[3].any() and not out0[4].any()


# ---- ekv-eval-gather-const ----

def test_ekv_eval():
    n = 2048
    rng = np.random.default_rng(5)
    h = tp._p202_ek_args(n, rng)
    syms = tp._p202_ek_syms(n, rng)
    nd, ng, ns, nb = h[:4]
    ns[1], nd[1], ng[1], nb[1], h[4][1], h[6][1] = nd[0], ns[0], ng[0], nb[0], h[4][0], h[6][0]   # 0 swapped
    nd[2], ns[2], ng[2], nb[2], h[6][2] = 7, 7, 1, 0, 0     # an NMOS on, its drain on its source: no current
    h[7][7] = 0.25
    out = run("probe/ekv-eval-gather-const", h, n, symbols=syms)
    ids, gm, gds, s_id, s_g = tp._p202_ek_ref(*h[:8])
    # float32's softplus loses ~1e-7 absolute to 1 + e^x's rounding and i_f - i_r cancels:
    # within 5e-6 of the current's scale is (i_f + i_r + sf + sr) clm
    assert (np.abs(out[8] - ids) <= 5e-6 * s_id).all()
    assert (np.abs(out[9] - gm) <= 5e-6 * s_g).all() and (np.abs(out[10] - gds) <= 5e-6 * s_g).all()
    assert out[8][1] == -out[8][0] != 0 and out[8][2] == 0 and out[10][2] > 0
    on = np.abs(ids) > 1e-6
    assert 0.3 < on.mean() < 0.55 and (ids[h[6] >= 3][on[h[6] >= 3]] < 0).mean() > 0.4   # PMOS's into the drain
