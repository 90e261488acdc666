"""probe-unseen237's kernels (kernels_cuda/probes239.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/drive-svpwm-sector-ushort4-ballot", "probe/drive-foc-pmsm-montecarlo-euler",
       "probe/drive-igbt-loss-lut-const-shfl", "probe/drive-pwm-harmonics-dft-smem",
       "probe/drive-pmsm-ls-identify-f64-tree", "probe/drive-efficiency-map-smem-hist"]

F32 = np.float32
EPS = 2.0 ** -24                 # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen237"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes239.cu" and len(tp.get(i).note) > 400 for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- svpwm_compare ----

# the six active vectors' upper switches (a, b, c), counter-clockwise from phase a's axis
_VEC = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 1, 1], [0, 0, 1], [1, 0, 1]])


def _svpwm_ref(v, vdc):
    """Space-vector PWM by geometry, in float64: the sector from the command's angle, the
    dwell times of its two bounding vectors (the volt-second balance of
    (2/3) Vdc e^{i k pi/3}), rescaled onto the hexagon when they exceed the period, the
    zero vectors split evenly; (sector 1..6, the three duties, overmodulated, the angle's
    distance to the nearest sector boundary)."""
    v = np.asarray(v, np.float64)
    th = np.arctan2(v[:, 1], v[:, 0]) % (2 * np.pi)
    sec = np.minimum((th // (np.pi / 3)).astype(int), 5)                  # 0..5
    mag = np.hypot(v[:, 0], v[:, 1])
    r = np.sqrt(3) * mag / vdc
    t1 = r * np.sin((sec + 1) * np.pi / 3 - th)
    t2 = r * np.sin(th - sec * np.pi / 3)
    over = t1 + t2 > 1
    g = np.where(over, 1 / np.maximum(t1 + t2, 1e-300), 1.0)
    t1, t2 = t1 * g, t2 * g
    t0h = 0.5 * (1 - t1 - t2)
    duty = t0h[:, None] + t1[:, None] * _VEC[sec] + t2[:, None] * _VEC[(sec + 1) % 6]
    edge = np.abs(((th + np.pi / 6) % (np.pi / 3)) - np.pi / 6)
    return sec + 1, duty, over, edge, t1 + t2


def _check_sv(v, vdc_drive, nper, grid):
    nd = len(vdc_drive)
    host = [np.asarray(v, F32).reshape(-1, 2), np.asarray(vdc_drive, F32), np.int32(nper), np.int32(nd * nper),
            np.zeros((nd * nper, 4), np.uint16), np.zeros(nd, np.int32)]
    out = run("probe/drive-svpwm-sector-ushort4-ballot", host, nd, grid=(grid,))
    vdc = np.repeat(host[1].astype(np.float64), nper)
    sec, duty, over, edge, tsum = _svpwm_ref(host[0], vdc)
    cmp = out[4]
    want = duty * tp.P239_SV_PERIOD
    got = cmp[:, :3].astype(np.float64)
    # float32 dwell times to a few roundoffs (|t| <= 1.16): the counts within 4000 x 1e-6
    # of the exact, so they round to the exact count but where that lies within 0.01 of a
    # half count, and there to a neighbour
    assert (np.abs(got - want) <= 0.5 + 0.01).all()
    sure = np.abs(want - np.floor(want) - 0.5) > 0.01
    assert (got[sure] == np.rint(want[sure])).all()
    # the sector by the kernel's sign tests: the geometric one off the boundaries (a
    # command on a boundary has a zero dwell time there, so either side gives its duties)
    ksec = cmp[:, 3] & 7
    clear = (edge > 1e-5) & (host[0] != 0).any(1)
    assert (ksec[clear] == sec[clear]).all() and (ksec <= 6).all()
    assert (ksec[(host[0] != 0).any(1)] >= 1).all()               # a zero command has no sector: 0
    kover = (cmp[:, 3] & 8) != 0
    firm = np.abs(tsum - 1) > 1e-5
    assert (kover[firm] == over[firm]).all()
    assert (out[5] == kover.reshape(nd, nper).sum(1)).all()
    lo, hi = (out[5] - over.reshape(nd, nper).sum(1)), (~firm).reshape(nd, nper).sum(1)
    assert (np.abs(lo) <= hi).all()
    return cmp, out[5], over


def test_svpwm():
    rng = np.random.default_rng(1)
    host = tp._p239_sv_args(4, rng, nper=2048)
    v, vdc = host[0], host[1]
    m = np.sqrt(3) * np.hypot(v[:, 0], v[:, 1]).astype(np.float64) / np.repeat(vdc, 2048)
    assert m.max() > 0.6 and (vdc > 309).all() and (vdc < 331).all()
    _check_sv(v, vdc, 2048, 5)                                    # 5 blocks: 6.4 trips a thread


def test_svpwm_data():
    rng = np.random.default_rng(2)
    wm, al = tp._p239_sv_profile(20000, rng)
    assert np.abs(wm).max() <= 1.5 * tp.P239_W_RATED and (wm > 0).any() and (wm < 0).any()
    d = np.diff(wm) / tp.P239_TS                                 # the acceleration is the speed's slope
    assert (np.abs(d - al[1:]) < 1e-6 * np.abs(al).max()).mean() > 0.99
    assert (wm == 0).mean() > 0.1                                 # the dwells
    host = tp._p239_sv_args(24, rng, nper=4096)
    _, _, _, _, tsum = _svpwm_ref(host[0], np.repeat(host[1].astype(np.float64), 4096))
    assert 1e-4 < (tsum > 1).mean() < 0.05                       # the fastest moves overmodulate


def test_svpwm_cases():
    rng = np.random.default_rng(3)
    nper = 64
    vdc = np.array([325.0, 310.0], F32)
    ang = rng.uniform(0, 2 * np.pi, 2 * nper)
    mag = np.concatenate([rng.uniform(0, 0.57, nper), rng.uniform(0.5, 0.7, nper)]) * np.repeat(vdc, nper)
    v = np.stack([mag * np.cos(ang), mag * np.sin(ang)], -1)
    v[0] = 0                                                      # no command: all three at 50%
    v[1] = [0.5 * 325 / np.sqrt(3) * np.cos(np.pi / 6), 0.5 * 325 / np.sqrt(3) * np.sin(np.pi / 6)]
    v[2] = [0, 400]                                               # far outside: onto the hexagon's edge
    cmp, nover, over = _check_sv(v, vdc, nper, 1)
    assert cmp[0].tolist() == [2000, 2000, 2000, 0]
    # m = 0.5 at 30 degrees, mid-sector 1: T1 = T2 = 0.25, phase a 0.75, b 0.5, c 0.25
    assert cmp[1].tolist() == [3000, 2000, 1000, 1]
    assert cmp[2, 3] == 2 | 8 and (cmp[2, :3] == [2000, 4000, 0]).all()
    assert nover[0] >= 1 and nover[1] > 5


# ---- foc_pmsm_sim<4> ----

def _foc_ref(cases, nom, nstep, sub=tp.P239_FOC_SUB):
    """The drive's simulation in float64, all cases at once: the same ADC, encoder, filter,
    PIs, MTPA, voltage limit and Euler substeps; (final speed, peak current, ISE of the
    speed, the integral of |q-current error| after the load step)."""
    c = {k: cases[k].astype(np.float64) for k in cases.dtype.names}
    g = {k: float(nom[k]) for k in nom.dtype.names}
    pp, ts, n = int(nom["pp"]), g["ts"], len(cases)
    kp_d, kp_q, ki = c["wc_i"] * g["Ld"], c["wc_i"] * g["Lq"], c["wc_i"] * g["Rs"]
    dL = g["Lq"] - g["Ld"]
    vmax = c["vdc"] / np.sqrt(3)
    id_, iq, wm, thm, int_d, int_q, int_w, thqp, wf, ise, ipk2, eiq = np.zeros((12, n))
    adc = lambda i: np.clip(np.rint(i / g["adc_lsb"]), -g["adc_max"], g["adc_max"]) * g["adc_lsb"]
    for k in range(nstep):
        t = k * ts
        s, co = np.sin(pp * thm), np.cos(pp * thm)
        ial, ibe = id_ * co - iq * s, id_ * s + iq * co
        ia, ib = adc(ial), adc(-0.5 * ial + 0.5 * np.sqrt(3) * ibe)
        ma, mb = ia, (ia + 2 * ib) / np.sqrt(3)
        thq = np.floor(thm * g["enc_cnt"]) / g["enc_cnt"]
        sq, cq = np.sin(pp * thq), np.cos(pp * thq)
        idm, iqm = ma * cq + mb * sq, -ma * sq + mb * cq
        wf = wf + g["w_filt"] * ((thq - thqp) / ts - wf)
        thqp = thq
        ew = c["w_ref"] * min(t / g["t_ramp"], 1.0) - wf
        iqr = c["kp_w"] * ew + int_w
        sat = np.abs(iqr) > g["imax"]
        int_w = np.where(sat, int_w, int_w + c["ki_w"] * ts * ew)
        iqr = np.clip(iqr, -g["imax"], g["imax"])
        idr = (g["psi"] - np.sqrt(g["psi"] ** 2 + 8 * dL * dL * iqr * iqr)) / (4 * dL)
        we = pp * wf
        ed, eq = idr - idm, iqr - iqm
        vd = kp_d * ed + int_d - we * g["Lq"] * iqm
        vq = kp_q * eq + int_q + we * (g["Ld"] * idm + g["psi"])
        m2 = vd * vd + vq * vq
        lim = m2 > vmax * vmax
        gg = vmax / np.sqrt(np.where(lim, m2, 1.0))
        vd, vq = np.where(lim, vd * gg, vd), np.where(lim, vq * gg, vq)
        int_d = np.where(lim, int_d, int_d + ki * ts * ed)
        int_q = np.where(lim, int_q, int_q + ki * ts * eq)
        va, vb = vd * cq - vq * sq, vd * sq + vq * cq
        TL = c["TL"] if t >= g["t_load"] else 0.0
        h = ts / sub
        for _ in range(sub):
            s, co = np.sin(pp * thm), np.cos(pp * thm)
            vdd, vqq = va * co + vb * s, -va * s + vb * co
            wee = pp * wm
            did = (vdd - c["Rs"] * id_ + wee * c["Lq"] * iq) / c["Ld"]
            diq = (vqq - c["Rs"] * iq - wee * (c["Ld"] * id_ + c["psi"])) / c["Lq"]
            te = 1.5 * pp * (c["psi"] * iq + (c["Ld"] - c["Lq"]) * id_ * iq)
            dw = (te - TL - c["B"] * wm) / c["J"]
            id_, iq, thm, wm = id_ + h * did, iq + h * diq, thm + h * wm, wm + h * dw
        ise += ew * ew * ts
        ipk2 = np.maximum(ipk2, id_ * id_ + iq * iq)
        if t >= g["t_load"]:
            eiq += np.abs(eq) * ts
    return np.stack([wm, np.sqrt(ipk2), ise, eiq], -1)


def _run_foc(cases, nom, nstep):
    host = [cases, np.int32(len(cases)), np.int32(nstep), np.zeros((len(cases), 4), F32)]
    out = run("probe/drive-foc-pmsm-montecarlo-euler", host, len(cases), symbols={"c_nom": nom})
    return out[3].astype(np.float64)


def test_foc_fine_sensors():
    # a 2^20-count encoder and a 24-bit ADC of 2^-12 A steps: the control loop smooth, so
    # float32 against float64 differs by roundoff carried through a stable closed loop
    # (~1e-5 seen): the speed, the peak current and the ISE (mostly the ramp's lag) to 1e-4
    rng = np.random.default_rng(4)
    cases = tp._p239_cases(32, rng)                               # a warp of cases
    nom = tp._p239_nominal(adc_lsb=2.0 ** -12, adc_max=2.0 ** 23 - 1, enc_cnt=2.0 ** 20 / (2 * np.pi))
    got = _run_foc(cases, nom, 300)
    want = _foc_ref(cases, nom, 300)
    assert np.allclose(got[:, 0], want[:, 0], rtol=1e-4)
    assert np.allclose(got[:, 1], want[:, 1], rtol=1e-4)
    assert np.allclose(got[:, 2], want[:, 2], rtol=1e-4)
    # the q-current error after the load step is a small difference of large terms: to 2%
    # of the integral, or 2e-6 A s
    assert (np.abs(got[:, 3] - want[:, 3]) <= 0.02 * want[:, 3] + 2e-6).all()
    # the drives reach their commands (overshoot, then the load's droop being recovered)
    assert (np.abs(want[:, 0] / cases["w_ref"] - 1) < 0.15).all()
    assert (want[:, 1] <= tp.P239_IMAX * 1.2).all() and (want[:, 1] > 0.8 * tp.P239_IMAX).mean() > 0.5


def test_foc_real_sensors():
    # the real 10000-count encoder and 12-bit ADC: where float32 and float64 angles straddle
    # an encoder count the measured speed jumps by a count a period (6.3 rad/s) for a period,
    # filtered to ~0.6 rad/s; the loop absorbs it: the speed to 1e-3, the peak current and
    # the ISE to 3e-3, the q-current error (mostly the ADC's quantisation noise) to 10%
    rng = np.random.default_rng(5)
    cases = tp._p239_cases(32, rng)
    nom = tp._p239_foc_symbols(32)["c_nom"]
    got = _run_foc(cases, nom, 300)
    want = _foc_ref(cases, nom, 300)
    assert np.allclose(got[:, 0], want[:, 0], rtol=1e-3)
    assert np.allclose(got[:, 1:3], want[:, 1:3], rtol=3e-3)
    assert np.allclose(got[:, 3], want[:, 3], rtol=0.1)


# ---- igbt_losses ----

def _lut2(tab, j, fr, wt):
    t = tab.astype(np.float64)
    return (1 - wt) * (t[0, j] + fr * (t[0, j + 1] - t[0, j])) + wt * (t[1, j] + fr * (t[1, j + 1] - t[1, j]))


def _loss_ref(smp, lut):
    """The four devices' losses (W) of each period, in float64, from the datasheet tables:
    Vce and Vf times the current over the device's share of the period, the switching
    energies at the period's bus ((Vdc / 300)^1.35 and ^0.6) times fsw; the current's sign
    picks the upper IGBT and lower diode (>= 0) or the other pair."""
    i = smp["i"].astype(np.float64)
    d = smp["d"].astype(np.float64)
    tj = smp["tj"] * 0.01
    vdc = smp["vdc"] * 0.01
    I = np.abs(i)
    u = np.minimum(I / tp.P239_IL_DI, tp.P239_LUT_N - 1 - 0.001)
    j = np.floor(u).astype(int)
    fr = u - j
    wt = (tj - 25) / 125
    vce, vf = _lut2(lut["c_vce"], j, fr, wt), _lut2(lut["c_vf"], j, fr, wt)
    kv = vdc / tp.P239_VNOM
    pt = tp.P239_IL_FSW * _lut2(lut["c_esw"], j, fr, wt) * kv ** tp.P239_KV_IGBT
    pd = tp.P239_IL_FSW * _lut2(lut["c_err"], j, fr, wt) * kv ** tp.P239_KV_DIODE
    pos = smp["i"] >= 0
    z = np.zeros_like(I)
    return np.stack([np.where(pos, d * vce * I + pt, z), np.where(pos, z, d * vf * I + pd),
                     np.where(pos, z, (1 - d) * vce * I + pt), np.where(pos, (1 - d) * vf * I + pd, z)], -1)


def _check_il(smp, nleg, L, lut, gx):
    host = [smp, np.int32(L), F32(tp.P239_IL_FSW), F32(1 / tp.P239_IL_DI), np.zeros((nleg * L, 4), F32),
            np.zeros(4 * nleg), np.zeros(nleg, np.int32)]
    out = run("probe/drive-igbt-loss-lut-const-shfl", host, nleg, symbols=lut, grid=(gx, nleg))
    want = _loss_ref(smp, lut)
    got = out[4].astype(np.float64)
    # a dozen float32 operations (the interpolations, powf to an ulp or two): 1e-5 relative
    assert (np.abs(got - want) <= 1e-5 * np.abs(want) + 1e-30).all()
    assert ((got == 0) == (want == 0)).all()
    # the means: float32 sums of up to L / (256 gx) terms a thread and 5 shuffle levels,
    # then double: (terms + 8) eps relative to the sum of positive terms
    mean = got.reshape(nleg, L, 4).mean(1)                        # of the kernel's own terms
    k = -(-L // (256 * gx)) + 8
    assert (np.abs(out[5].reshape(nleg, 4) - mean) <= 2 * k * EPS * mean + 1e-30).all()
    # the peak: the largest IGBT loss the kernel stored (exactly), bit-cast
    pk = out[6].view(F32)
    assert (pk == got.reshape(nleg, L, 4)[:, :, [0, 2]].max((1, 2)).astype(F32)).all()
    return got, out


def test_igbt_losses():
    rng = np.random.default_rng(6)
    L = 2048
    host = tp._p239_il_args(1, rng, L=L)
    smp = host[0]
    assert 60 < np.percentile(np.abs(smp["i"]), 90) < 600 and 0.3 < (smp["i"] < 0).mean() < 0.7
    assert (smp["tj"] / 100 > tp.P239_T_COOL).all() and (smp["vdc"] / 100 > 300).all()
    got, out = _check_il(smp, 3, L, tp._p239_il_symbols(1), 3)      # 3 blocks a leg: 2.7 trips a thread
    assert (out[5].reshape(3, 4) > 0).all()


def test_igbt_lut_data():
    lut = tp._p239_lut()
    assert all(v.shape == (2, tp.P239_LUT_N) and v.dtype == F32 for v in lut.values())
    # datasheet shapes: monotone in current, the on-state voltage's crossover (NPT IGBT:
    # lower at 150 C at small currents, higher at large), the energies rising with heat
    assert (np.diff(lut["c_vce"], axis=1) > 0).all() and (np.diff(lut["c_esw"], axis=1) > 0).all()
    assert lut["c_vce"][1, 1] < lut["c_vce"][0, 1] and lut["c_vce"][1, -1] > lut["c_vce"][0, -1]
    assert (lut["c_esw"][1] >= lut["c_esw"][0]).all() and lut["c_esw"][0, 0] == 0 and lut["c_err"][1, 0] == 0
    assert 1.4 < lut["c_vce"][0, 10] < 1.6 and 0.015 < lut["c_esw"][1, 10] < 0.02     # 400 A


def test_igbt_cases():
    L = 256
    lut = tp._p239_lut()
    smp = np.zeros(L, tp.P239_LOSSSAMPLE)
    smp["i"] = np.linspace(-700, 700, L).astype(F32)              # past the tables' 600 A: clamped
    smp["i"][:8] = [0.0, 40.0, -40.0, 80.0, 600.0, -600.0, 1e-3, -1e-3]   # on the grid points
    smp["d"] = np.linspace(0, 1, L).astype(F32)
    smp["tj"] = np.where(np.arange(L) % 3 == 0, 2500, np.where(np.arange(L) % 3 == 1, 15000, 9000))
    smp["vdc"] = np.where(np.arange(L) % 2 == 0, 30000, 36000)
    smp["tj"][:8], smp["vdc"][:8] = 2500, 30000                   # 25 C, 300 V: (Vdc / 300)^k = 1
    got, _ = _check_il(smp, 1, L, lut, 1)
    assert (got[0] == 0).all()                                    # no current, no loss
    d = float(smp["d"][1])
    vce, vf, esw, err = (float(lut[k][0, 1]) for k in ("c_vce", "c_vf", "c_esw", "c_err"))
    assert np.allclose(got[1], [d * 40 * vce + 1e4 * esw, 0, 0, (1 - d) * 40 * vf + 1e4 * err], rtol=1e-6)
    d = float(smp["d"][2])
    assert np.allclose(got[2], [0, d * 40 * vf + 1e4 * err, (1 - d) * 40 * vce + 1e4 * esw, 0], rtol=1e-6)


# ---- pwm_harmonics ----

def _harm_ref(states, vdc):
    st = np.asarray(states, np.uint8).reshape(-1, tp.P239_HD_NS)
    v = vdc * ((st & 1).astype(np.float64) - ((st >> 1) & 1))
    X = np.fft.fft(v, axis=1)[:, 1:tp.P239_HD_H + 1]
    amp = 2 / tp.P239_HD_NS * np.abs(X)
    h = np.arange(1, tp.P239_HD_H + 1)
    with np.errstate(divide="ignore"):                            # no fundamental: inf
        thd = np.sqrt((amp[:, 1:] ** 2).sum(1)) / amp[:, 0]
        wthd = np.sqrt(((amp[:, 1:] / h[1:]) ** 2).sum(1)) / amp[:, 0]
    return amp, thd, wthd


def _check_hd(states, vdc):
    nw = np.asarray(states).size // tp.P239_HD_NS
    host = [np.asarray(states, np.uint8).reshape(-1, 4), F32(vdc), np.zeros(nw * tp.P239_HD_H, F32),
            np.zeros(2 * nw, F32)]
    out = run("probe/drive-pwm-harmonics-dft-smem", host, nw)
    amp, thd, wthd = _harm_ref(host[0], float(F32(vdc)))
    got = out[2].reshape(nw, -1).astype(np.float64)
    # a float32 DFT: each of the 4096 terms a +-1 times a twiddle from sincosf (an ulp of a
    # float32 angle up to 2 pi: ~5e-7 each), summed in two float32 chains of 2048 whose
    # partial sums stay below ~N / (2 pi h) for h > 0: an error under ~N^1.5 eps in |X|
    # (0.016 in units of a Vdc-high sample), then scaled by 2 Vdc / N
    tol = tp.P239_HD_NS ** 1.5 * EPS * 2 * vdc / tp.P239_HD_NS
    assert (np.abs(got - amp) <= tol).all()
    # THD and WTHD: float32 sums of 127 squares (~eps 127 relative) over the fundamental's
    # amplitude, within tol of its own; where there is a fundamental
    f = amp[:, 0] > 100 * tol
    assert np.allclose(out[3][0::2][f], thd[f], rtol=1e-4, atol=2 * tol / amp[f, 0].min())
    assert np.allclose(out[3][1::2][f], wthd[f], rtol=1e-4, atol=2 * tol / amp[f, 0].min())
    return got, out[3]


def test_pwm_harmonics():
    rng = np.random.default_rng(7)
    host = tp._p239_hd_args(2, rng)
    got, thd = _check_hd(host[0], tp.P239_HD_VDC)
    assert (np.abs(got[:, 1::2]) < 0.05).all()                    # half-wave symmetry: no even harmonics
    # line-to-line: the triplens cancel but for the phases' 1365.33-sample shift and the dead time
    assert (np.abs(got[:, 2::3]) < 0.02 * got[:, :1]).all()


def test_pwm_theory():
    # the references' data against PWM theory: regular-sampled sinusoidal PWM's line
    # voltage fundamental sqrt(3)/2 M Vdc (M <= 1), space-vector (min-max) the same and
    # linear to M = 2/sqrt(3); the carrier's sidebands at mf +- 2, 2 mf +- 1
    for M, mf, svm in [(0.8, 21, False), (0.8, 21, True), (1.1, 33, True), (0.3, 15, False)]:
        st = tp._p239_pwm_states(M, mf, svm, 0.0, 0.0)
        amp, thd, _ = _harm_ref(st, 1.0)
        assert abs(amp[0, 0] - np.sqrt(3) / 2 * M) < 0.02
        side = amp[0, [mf - 3, mf + 1, 2 * mf - 2, 2 * mf]]
        assert (side > 0.05 * M).all() and thd[0] > 0.3
    # dead time with a lagging current: the fundamental falls short of the command by the
    # lost volt-seconds, a square wave of td fc Vdc a phase in phase with the current:
    # (4 / pi) sqrt(3) td fc cos(phi) Vdc of the line voltage (0.0081 Vdc here)
    a0, _, _ = _harm_ref(tp._p239_pwm_states(0.5, 21, False, 0.5, 0.0), 1.0)
    a1, _, _ = _harm_ref(tp._p239_pwm_states(0.5, 21, False, 0.5, 4e-6 * 50), 1.0)
    assert 0.005 < a0[0, 0] - a1[0, 0] < 0.012


def test_pwm_harmonics_cases():
    n = tp.P239_HD_NS
    t = np.arange(n)
    st = np.zeros((3, n), np.uint8)
    st[0] = np.where(t < n // 2, 1, 2)                            # a square wave of +-Vdc: 4/pi, 4/(3 pi), ...
    st[1] = np.where((t // 64) % 2 == 0, 1, 0) | np.where(t % 7 == 0, 4, 0)     # 32 cycles; phase c ignored
    st[2] = tp._p239_pwm_states(0.9, 39, True, np.pi / 6, 2e-4)
    got, thd = _check_hd(st.ravel(), 400.0)
    h = np.arange(1, tp.P239_HD_H + 1)
    # the sampled square wave: |X_h| = 2 / sin(pi h / N) for odd h (~ 4 N / (pi h)), 0 even
    sq = np.where(h % 2 == 1, 2 / n * 400 * 2 / np.sin(np.pi * h / n), 0)
    assert np.allclose(got[0], sq, rtol=1e-5, atol=1e-2)
    assert got[1, 31] > 100 and np.abs(np.delete(got[1], [31, 95])).max() < 1e-2   # 32 and 96


# ---- pmsm_ls_identify ----

def _ls_ref(x, we, L, ts):
    """The normal equations of the two dq voltage equations over samples 1..L-2 in float64,
    the derivatives by float32 central differences as the kernel forms them; solved by
    numpy: (theta (n, 4), the residual's rms)."""
    x = np.asarray(x, F32).reshape(-1, L, 4)
    we = np.asarray(we, F32).reshape(-1, L)
    inv2ts = F32(0.5) / F32(ts)
    did = ((x[:, 2:, 0] - x[:, :-2, 0]) * inv2ts).astype(np.float64)
    diq = ((x[:, 2:, 1] - x[:, :-2, 1]) * inv2ts).astype(np.float64)
    c = x[:, 1:-1].astype(np.float64)
    w = we[:, 1:-1].astype(np.float64)
    z = np.zeros_like(w)
    Ad = np.stack([c[..., 0], did, -w * c[..., 1], z], -1)
    Aq = np.stack([c[..., 1], w * c[..., 0], diq, w], -1)
    A = np.concatenate([Ad, Aq], 1)
    y = np.concatenate([c[..., 2], c[..., 3]], 1)
    M = np.einsum("nki,nkj->nij", A, A)
    b = np.einsum("nki,nk->ni", A, y)
    th = np.linalg.solve(M, b[..., None])[..., 0]
    res = y - np.einsum("nki,ni->nk", A, th)
    return th, np.sqrt((res ** 2).mean(1))


def _check_id(x, we, L, ts=tp.P239_TS):
    n = len(x) // L
    host = [np.asarray(x, F32).reshape(-1, 4), np.asarray(we, F32).ravel(), np.int32(L), F32(ts),
            np.zeros((n, 4), F32), np.zeros(n, F32)]
    out = run("probe/drive-pmsm-ls-identify-f64-tree", host, n)
    th, rms = _ls_ref(host[0], host[1], L, ts)
    # double sums of float32 inputs (exact products), summed in another order: ~1e-13
    # relative, amplified by the normal equations' condition (< 1e8 here) below 1e-5; then
    # rounded to float32
    assert np.allclose(out[4], th, rtol=2e-6, atol=0)
    # the rms from yy - theta.b: a difference of sums ~1e4 times the residual's square
    assert np.allclose(out[5], rms, rtol=1e-5)
    return out[4].astype(np.float64), out[5]


def test_ls_identify():
    rng = np.random.default_rng(8)
    L = 4096
    args, truth = tp._p239_id_args(3, rng, L=L, truth=True)
    th, rms = _check_id(args[0], args[1], L)
    # the log's own errors (the dead time's residue, noise) bias Rs; the inductances and the
    # flux come out within a few percent of the motors'
    assert np.allclose(th[:, 1:], truth[:, 1:], rtol=0.08)
    assert (np.abs(th[:, 0] / truth[:, 0] - 1) < 0.6).all() and (rms < 2.0).all()


def test_ls_identify_exact_model():
    # a log straight from the model (no inverter, no noise): the estimates are the truth but
    # for the central differences' O(ts^2) error on the multisine's 401 Hz line
    rng = np.random.default_rng(9)
    L = 2048
    theta = np.array([[0.5, 3.0e-3, 6.0e-3, 0.1], [0.3, 2.5e-3, 5.0e-3, 0.12]])
    logs = [tp._p239_id_log(L, rng, th, vdt=0.0, noise_i=0.0, noise_v=0.0) for th in theta]
    est, rms = _check_id(np.concatenate([x for x, _ in logs]), np.concatenate([w for _, w in logs]), L)
    # a central difference of sin(w t) is sin(w ts) / (w ts) of the derivative: 1% low at
    # the 401 Hz line, which carries most of did/dt's energy: the inductances within 2%
    assert np.allclose(est, theta, rtol=0.02) and (rms < 0.5).all()


# ---- efficiency_map ----

def _em_ref(rpm, tq, dt, lm):
    """The cells and the energies in float64; the bins by float32 arithmetic, as the kernel
    forms them."""
    n_rpm = rpm.astype(np.float64)
    T32 = F32(0.1) * tq.astype(F32)
    bs = np.floor(rpm.astype(F32) * F32(1 / 250)).astype(int)
    bt = np.floor((T32 + F32(320)) * F32(0.1)).astype(int)
    ok = (bs < tp.P239_EM_NS) & (bt >= 0) & (bt < tp.P239_EM_NT)
    T = tq * 0.1
    w = n_rpm * 2 * np.pi / 60
    p = {k: float(lm[k]) for k in lm.dtype.names}
    iq = np.abs(T) / p["kt"]
    idw = np.where(w > p["w_base"], p["i_fw"] * (w - p["w_base"]), 0.0)
    i2 = iq * iq + idw * idw
    loss = 1.5 * p["rs"] * i2 + p["kh"] * w ** 1.5 + p["ke"] * w * w + p["kfr"] * w + p["p_inv0"] + p["k_inv"] * np.sqrt(i2)
    cell = (bs * tp.P239_EM_NT + bt)[ok]
    nc = tp.P239_EM_NS * tp.P239_EM_NT
    f = lambda v: np.bincount(cell, v[ok], minlength=nc)
    return np.bincount(cell, minlength=nc), f(loss * dt), f(T * w * dt), f(np.abs(T * w * dt)), ok


def _check_em(rpm, tq, grid, dt=tp.P239_EM_DT):
    lm = tp._p239_lossmodel()
    n = len(rpm)
    nc = tp.P239_EM_NS * tp.P239_EM_NT
    host = [np.asarray(rpm, np.uint16), np.asarray(tq, np.int16), np.int32(n), F32(dt), lm, np.zeros(nc, np.uint32),
            np.zeros(nc, F32), np.zeros(nc, F32)]
    out = run("probe/drive-efficiency-map-smem-hist", host, n, grid=(grid,))
    cnt, eloss, emech, amech, ok = _em_ref(host[0], host[1], float(F32(dt)), lm)
    assert (out[5] == cnt).all()
    # each term to a few float32 roundoffs (sqrtf, a divide), then float32 sums in shared
    # memory in any order and grid block flushes: (count + grid) eps of the terms' sum
    k = (cnt + grid + 8) * EPS
    assert (np.abs(out[6] - eloss) <= k * eloss + 1e-30).all()
    assert (np.abs(out[7] - emech) <= k * amech + 1e-30).all()
    return out, ok


def test_efficiency_map():
    rng = np.random.default_rng(10)
    host = tp._p239_em_args(1 << 15, rng)
    rpm, tq = host[0], host[1]
    assert 0.1 < (rpm == 0).mean() < 0.35 and rpm.max() < 12000 and tq.min() >= -1500 and tq.max() <= 3000
    out, ok = _check_em(rpm, tq, 5)                               # 5 blocks: 25.6 trips a thread
    assert ok.all() and out[5].max() > 0.1 * len(rpm)             # one cell: the parked cars
    e = out[7].reshape(tp.P239_EM_NS, tp.P239_EM_NT)
    assert e[:, 32:].sum() > 0 and e[:, :32].sum() < 0            # motoring and regenerating


def test_drive_cycle_data():
    rng = np.random.default_rng(11)
    rpm, T = tp._p239_drive_cycle(200000, rng)
    v = rpm / 60 * 2 * np.pi * tp.P239_EV_R / tp.P239_EV_G * 3.6        # km/h
    assert v.max() < 140 and 20 < v.mean() < 70
    P = T * rpm / 60 * 2 * np.pi
    assert 3e3 < P[P > 0].mean() < 40e3                           # kW-level traction power
    # cruise at 100 km/h on the flat: the road load alone, ~15 kW
    Tc = tp._p239_road_torque(np.array([100 / 3.6]), np.array([0.0]), 0.0)[0]
    assert 12e3 < Tc * 100 / 3.6 * tp.P239_EV_G / tp.P239_EV_R < 18e3


def test_efficiency_map_cases():
    rpm = np.array([0, 249, 250, 11999, 12000, 3000, 3000, 3000, 3000, 3000, 6000, 6000] * 8, np.uint16)
    tq = np.array([0, 0, 0, 100, 100, -3300, -3199, 3199, 3200, -100, 1500, -1500] * 8, np.int16)
    out, ok = _check_em(rpm, tq, 2)
    # 12000 rpm, 320 N m exactly and -330 N m fall off the map
    assert ok.tolist()[:12] == [True, True, True, True, False, False, True, True, False, True, True, True]
    assert out[5][0 * 64 + 32] == 16 and out[5][1 * 64 + 32] == 8 and out[5][47 * 64 + 33] == 8
