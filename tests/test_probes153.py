"""probe-unseen151's kernels (kernels_cuda/probes153.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/dem-contact-list-27cell", "probe/dem-hertz-mindlin-atomic", "probe/dem-verlet-aos-quat",
       "probe/dem-drum-walls-const", "probe/dem-janssen-smem-atomic", "probe/dem-energy-shfl-f64"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen151"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes153.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    R, s = tp.P153_R, tp._p153_spacing()
    bed, lp = tp._p153_bed(20000, rng, layers=20)
    assert bed.dtype == np.float32 and lp == 32
    r = bed[:, 3].astype(np.float64)
    assert abs(r.min() / R - (1 - tp.P153_POLY)) < 1e-3 and abs(r.max() / R - (1 + tp.P153_POLY)) < 1e-3
    k = np.arange(20000)
    jit = bed[:, :3] - (np.c_[k % lp, k // lp % lp, k // lp ** 2] + 0.5) * s
    assert abs(jit.std() / R - tp.P153_JIT) < 5e-5 and abs(jit.mean()) < 1e-7
    i, j, gap = tp._p153_bed_pairs(bed, lp, np.inf)                      # all lattice neighbours
    occ = np.zeros(20 * lp * lp, bool)
    occ[:20000] = True
    occ = occ.reshape(20, lp, lp)                                          # z, y, x
    nadj = (occ[1:] & occ[:-1]).sum() + (occ[:, 1:] & occ[:, :-1]).sum() + (occ[:, :, 1:] & occ[:, :, :-1]).sum()
    assert len(i) == nadj and ((j - i)[:, None] == [1, lp, lp * lp]).any(axis=1).all()
    assert abs((gap < 0).mean() - 0.68) < 0.02 and abs((gap < tp.P153_SKIN * R).mean() - 0.955) < 0.01
    assert gap.min() > -0.03 * R                                          # overlaps under 1.5% of a diameter

    n = 20000
    pos, start, end, nc, cl, gx, gy, gz, inv_h, nn = tp._p153_cd_args(n, rng)
    cxyz, cell = tp._p153_cells(pos, inv_h, (gx, gy, gz))
    assert (np.diff(cell) >= 0).all() and nn == n and len(cl) == n * tp.P153_MAXC and (cl == -1).all()
    assert (start[cell] <= k).all() and (k < end[cell]).all() and (cxyz.max(axis=0) < [gx, gy, gz]).all()
    assert (start >= 0).sum() == len(np.unique(cell)) and 0.6 < (start < 0).mean() < 0.8   # the gas's cells empty
    assert abs((pos[:, 2] > (-(-18000 // 13 ** 2)) * s).mean() - tp.P153_GAS) < 1e-3
    gas = pos[pos[:, 2] > 108 * s].astype(np.float64)                     # no two of the gas touch
    d = np.linalg.norm(gas[:, None, :3] - gas[None, :, :3], axis=2) + np.eye(len(gas))
    assert (d > 2.3 * R).all()

    m = 20000
    pos, vel, om, ci, cj, hist, f, t, dt, mm = tp._p153_hm_args(m, rng)
    assert mm == m == len(ci) and (ci < cj).all() and (np.diff(ci) >= 0).all() and dt == np.float32(tp.P153_DT)
    p = pos.astype(np.float64)
    nrm = tp._p153_unit(p[cj, :3] - p[ci, :3])
    delta = p[ci, 3] + p[cj, 3] - np.linalg.norm(p[cj, :3] - p[ci, :3], axis=1)
    h = hist.reshape(-1, 3).astype(np.float64)
    assert abs((delta > 0).mean() - 0.71) < 0.02 and (delta > -tp.P153_SKIN * R).all()
    assert (h[delta <= 0] == 0).all() and np.abs((h * nrm).sum(axis=1)).max() < 1e-6 * np.abs(h).max()
    ratio = np.linalg.norm(h, axis=1)[delta > 0] / (tp.P153_MU * delta[delta > 0] / 6 * tp.P153_E_STAR / tp.P153_G_STAR)
    assert ratio.max() < 1.2 and abs((ratio > 1).mean() - 1 / 6) < 0.02    # a sixth sliding
    assert abs(vel[:, :3].std() - 5e-3) < 1e-4 and (vel[:, 3] == 0).all() and (f == 0).all()

    n = 50000
    Rd, L = tp._p153_drum_size(n)
    assert abs(tp._p153_drum_size(1 << 22)[0] - 0.149) < 1e-3 and L == tp.P153_DR_ASPECT * Rd
    pos, vel, om, L2 = tp._p153_drum(n, rng)
    assert L2 == L and pos.dtype == np.float32 and (pos[:, 2] > 0).all() and (pos[:, 2] < L).all()
    rho = np.hypot(pos[:, 0], pos[:, 1])
    up = np.array([-np.sin(tp.P153_DR_ALPHA), np.cos(tp.P153_DR_ALPHA)])
    c = tp._p153_fill_depth()
    assert abs((np.pi - np.arccos(c) + c * np.sqrt(1 - c * c)) / np.pi - tp.P153_DR_FILL) < 1e-9
    c0 = c * Rd
    area = np.pi - np.arccos(c) + c * np.sqrt(1 - c * c)          # uniform in the segment: its centroid
    assert rho.max() < Rd and (pos[:, :2] @ up < c0 + 1.1 * R).all()           # (the wall layer pushed in)
    assert abs((pos[:, :2] @ up).mean() / Rd + 2 / 3 * (1 - c * c) ** 1.5 / area) < 0.005
    walls = tp._p153_walls(n)
    F, T, hits, tol, marg = tp._p153_dw_ref(pos[:4000], vel[:4000], om[:4000], walls, tp.P153_DR_SPIN)
    r = pos[:4000, 3]
    wall_layer = (rho[:4000] > Rd - r) | (pos[:4000, 2] < r) | (pos[:4000, 2] > L - r)
    assert (wall_layer[hits > 0]).all() and 0.04 < (hits > 0).mean() < 0.08 and marg > 1e-9
    speed = np.linalg.norm(vel[:, :2], axis=1)
    flowing = c0 - pos[:, :2] @ up < tp.P153_DR_FLOW * Rd
    assert abs(speed[~flowing].mean() / (tp.P153_DR_SPIN * rho[~flowing].mean()) - 1) < 0.05 and flowing.mean() > 0.1
    assert abs(np.median(om[flowing, 2] * pos[flowing, 3] / speed[flowing]) - 1) < 0.05

    pos, ci, cj, fc, sig, z0, inv_dz, mm = tp._p153_sp_args(m, rng)
    p = pos.astype(np.float64)
    l = p[cj, :3] - p[ci, :3]
    nrm = tp._p153_unit(l)
    fn = (fc[:, :3] * nrm).sum(axis=1)
    ft = np.linalg.norm(fc[:, :3] - fn[:, None] * nrm, axis=1)
    assert len(ci) == m and (np.linalg.norm(l, axis=1) < p[ci, 3] + p[cj, 3]).all() and (fn > 0).all()
    assert (ft <= tp.P153_MU * fn * (1 + 1e-5)).all() and abs((ft / fn).mean() - tp.P153_MU / 2) < 0.01
    assert inv_dz == np.float32(1 / tp.P153_SP_DZ) and p[:, 2].max() < tp.P153_SP_BINS * tp.P153_SP_DZ

    g, dt, gx, gy, gz, nn = tp._p153_vv_args(300, rng)
    q = np.c_[g["q0"], g["q1"], g["q2"], g["q3"]].astype(np.float64)
    assert g.dtype.itemsize == 88 and (gx, gy, gz) == (0, np.float32(-tp.P153_G), 0)
    assert np.abs(np.linalg.norm(q, axis=1) - 1).max() < 1e-6
    assert np.allclose(g["inv_inertia"] * 0.4 * g["radius"].astype(np.float64) ** 2, g["inv_mass"], rtol=1e-6)


# ---- dem-contact-list-27cell ----

def test_contact_detect():
    n = 600                                                 # a 10 x 10 bed of 5 layers and 60 falling: 5 blocks
    host = tp._p153_cd_args(n, np.random.default_rng(1), layers=5)
    out = run("probe/dem-contact-list-27cell", host, n)
    lists, margin = tp._p153_cd_ref(host[0])
    assert margin > 1e-6                    # no pair within float32 d^2 and rs^2 rounding (< 5e-7) of the cut
    cl = out[4].reshape(n, tp.P153_MAXC)
    assert all(out[3][i] == len(c) and (cl[i, :len(c)] == c).all() and (cl[i, len(c):] == -1).all()
               for i, c in enumerate(lists))
    assert out[3].max() >= 5 and (out[3] == 0).sum() >= 60


def test_contact_overflow():
    # 20 grains in a clump (each touches all 19 others: only the first 16 stored) and one
    # outside the box (x < 0, clamped into cell 0) touching a grain of cell 0
    R = tp.P153_R
    rng = np.random.default_rng(2)
    clump = np.c_[0.01 + rng.uniform(-0.3, 0.3, (20, 3)) * R, np.full(20, R)]
    edge = np.array([[-0.2 * R, 0.5 * R, 0.5 * R, R], [1.5 * R, 0.5 * R, 0.5 * R, R]])
    pos = np.concatenate([clump, edge]).astype(np.float32)
    h = 2 * R * (1 + tp.P153_POLY)
    g = (12, 12, 12)
    inv_h = np.float32(1 / h)
    cell = tp._p153_cells(pos, inv_h, g)[1]
    o = np.argsort(cell, kind="stable")
    pos, cell = pos[o], cell[o]
    start, end = np.full(12 ** 3, -1, np.int32), np.zeros(12 ** 3, np.int32)
    u, first, cnt = np.unique(cell, return_index=True, return_counts=True)
    start[u], end[u] = first, first + cnt
    n = len(pos)
    host = [pos, start, end, np.zeros(n, np.int32), np.full(n * 16, -1, np.int32), *map(np.int32, g), inv_h,
            np.int32(n)]
    out = run("probe/dem-contact-list-27cell", host, n, policy="random")
    lists, _ = tp._p153_cd_ref(pos)
    cl = out[4].reshape(n, 16)
    for i, c in enumerate(lists):
        assert out[3][i] == len(c) and (cl[i, :min(len(c), 16)] == c[:16]).all()
    assert sorted(out[3]) == [1, 1] + [19] * 20


# ---- dem-hertz-mindlin-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_hertz_mindlin(policy):
    m = 600                                                 # a 6 x 6 bed of ~7 layers: 3 blocks
    host = tp._p153_hm_args(m, np.random.default_rng(3), layers=5)
    # the grain of the contact of least overlap knocked away at 0.2 m/s: the damping
    # outweighs the spring (a tensile normal force), so no friction and no history
    p = host[0].astype(np.float64)
    ci, cj = host[3], host[4]
    d = p[cj, :3] - p[ci, :3]
    delta = p[ci, 3] + p[cj, 3] - np.linalg.norm(d, axis=1)
    k0 = np.flatnonzero(delta > 0)[delta[delta > 0].argmin()]
    host[1][cj[k0], :3] += (0.2 * d[k0] / np.linalg.norm(d[k0])).astype(np.float32)
    out = run("probe/dem-hertz-mindlin-atomic", host, m, policy=policy)
    assert (out[5].reshape(-1, 3)[k0] == 0).all() and (host[5].reshape(-1, 3)[k0] != 0).any()
    F, T, H, tol, htol = tp._p153_hm_ref(*host[:6], float(host[8]))
    got = np.c_[out[6].reshape(-1, 3), out[7].reshape(-1, 3)]
    assert (np.abs(got - np.c_[F, T]) <= tol).all()
    assert (np.linalg.norm(out[5].reshape(-1, 3) - H, axis=1) <= htol).all()
    h0 = host[5].reshape(-1, 3)
    opened = (htol == 0)
    assert opened.sum() > 100 and (out[5].reshape(-1, 3)[opened] == 0).all()
    assert (np.linalg.norm(H, axis=1) < np.linalg.norm(h0, axis=1) - 1e-9).sum() > 30     # Coulomb caps
    assert np.abs(out[6].reshape(-1, 3).sum(axis=0)).max() < 1e-5 * np.abs(F).max()   # Newton's third law


# ---- dem-verlet-aos-quat ----

def _vv_check(g0, g1, dt, grav):
    ref = tp._p153_vv_ref(g0, dt, grav)
    for k in g0.dtype.names:
        old, new = g0[k].astype(np.float64), ref[k]
        bound = 2.0 ** -21 * (np.abs(old) + np.abs(new)) + (2.0 ** -23 if k[0] == "q" else 0)
        assert (np.abs(g1[k] - new) <= bound).all(), k


def test_verlet_step():
    n = 200                                                 # 4 blocks of 64, the last partial
    host, out, *_ = launch("probe/dem-verlet-aos-quat", n)
    _vv_check(host[0], out[0], float(host[1]), [float(v) for v in host[2:5]])
    assert (out[0]["x"] != host[0]["x"]).all() and (out[0]["fx"] == 0).all() and (out[0]["tz"] == 0).all()
    # a grain at rest stays unrotated and falls by dt^2 g; one spinning about z turns about z
    g = host[0][:2].copy()
    for k in ("vx", "vy", "vz", "wx", "wy", "wz", "fx", "fy", "fz", "tx", "ty", "tz", "q1", "q2", "q3"):
        g[k] = 0
    g["q0"] = 1
    g["wz"][1] = 400.0
    dt = np.float32(1e-3)
    h = [g, dt, np.float32(0), np.float32(-9.81), np.float32(0), np.int32(2)]
    o = run("probe/dem-verlet-aos-quat", h, 2)[0]
    _vv_check(g, o, float(dt), [0, float(np.float32(-9.81)), 0])
    assert abs(o["q0"][0] - 1) <= 2.0 ** -23 and o["q3"][0] == 0 and o["vy"][0] == dt * np.float32(-9.81)
    assert abs(o["q3"][1] - 0.2 / np.hypot(1, 0.2)) < 1e-6 and o["q1"][1] == 0 and o["q2"][1] == 0


# ---- dem-drum-walls-const ----

def test_drum_walls():
    n = 300                                                 # a drum of 7.6 mm radius: ~1 in 3 grains at a wall
    host, out, syms, _ = launch("probe/dem-drum-walls-const", n)
    F, T, hits, tol, marg = tp._p153_dw_ref(*host[:3], syms["c_walls"], float(host[5]))
    assert marg > 1e-9 and (hits >= 2).sum() > 10
    df = np.c_[out[3][:, :3] - host[3][:, :3] - F, out[4][:, :3] - host[4][:, :3] - T]
    assert (np.abs(df) <= tol).all()
    assert (out[3][hits == 0] == host[3][hits == 0]).all() and (out[4][hits == 0] == host[4][hits == 0]).all()


def test_drum_walls_corner():
    # the drum at rest: a moving grain in the corner of liners 0 and 1 and the cap z = 0; one
    # at rest on liner 135 (the bottom: the Hertz force alone, no friction, no torque); one
    # at the axis touching nothing
    n = 1 << 22
    Rd, L = tp._p153_drum_size(n)
    walls = tp._p153_walls(n)
    r, step = tp.P153_R, 2 * np.pi / tp.P153_DR_LINERS
    rho = (Rd - 0.99 * r) / np.cos(step / 2)
    spin = np.float32(0)
    pos = np.array([[rho * np.cos(step / 2), rho * np.sin(step / 2), 0.995 * r, r],
                    [0, -(Rd - 0.995 * r), L / 2, r], [0, 0, L / 2, r]], np.float32)
    vel = np.zeros((3, 4), np.float32)
    om = np.zeros((3, 4), np.float32)
    vel[0, :3] = [0.1, -0.2, 0.05]
    om[0, :3] = [30, 0, -50]
    host = [pos, vel, om, np.zeros((3, 4), np.float32), np.zeros((3, 4), np.float32), spin, np.int32(3)]
    out = run("probe/dem-drum-walls-const", host, 3, symbols={"c_walls": walls.ravel()})
    F, T, hits, tol, _ = tp._p153_dw_ref(pos, vel, om, walls, float(spin))
    assert list(hits) == [3, 1, 0]
    assert (np.abs(np.c_[out[3][:, :3] - F, out[4][:, :3] - T]) <= tol).all()
    r1 = float(pos[1, 3])
    d = r1 - (float(pos[1, 1]) - float(walls[135, 1]))     # grain 1: the elastic Hertz force alone, +y
    assert abs(out[3][1, 1] / (4 / 3 * tp.P153_E_STAR * np.sqrt(r1) * d ** 1.5) - 1) < 1e-4
    assert out[4][1, 2] == 0 and (out[3][2] == 0).all() and out[3][0, 2] > 0


# ---- dem-janssen-smem-atomic ----

def _sp_check(host, out):
    ref, mag, cnt = tp._p153_sp_ref(*host[:4], float(host[5]), float(host[6]))
    tol = ((cnt + 1) * 2.0 ** -24)[:, None] * mag        # float32 recursive summation's bound
    assert (np.abs(out[4].reshape(-1, 6) - ref) <= tol).all()
    return cnt


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_stress_profile(policy):
    m = 600                                                 # a 9 x 9 bed of ~3 layers: 3 blocks
    host = tp._p153_sp_args(m, np.random.default_rng(4), layers=20)
    out = run("probe/dem-janssen-smem-atomic", host, m, policy=policy)
    assert (_sp_check(host, out) > 0).sum() >= 2


def test_stress_profile_exact():
    # integer positions and forces: every product and sum exact, whatever the order; one
    # block striding over 300 contacts (grid-stride); midpoints below z0 and beyond the
    # last layer clamped into the first and the last
    rng = np.random.default_rng(5)
    m, npart = 300, 50
    pos = np.c_[rng.integers(0, 8, (npart, 2)), rng.integers(-12, 80, npart), np.ones(npart)].astype(np.float32)
    ci = rng.integers(0, npart, m).astype(np.int32)
    cj = rng.integers(0, npart, m).astype(np.int32)
    fc = np.c_[rng.integers(-20, 21, (m, 3)), np.zeros(m)].astype(np.float32)
    host = [pos, ci, cj, fc, np.zeros(6 * tp.P153_SP_BINS, np.float32), np.float32(0), np.float32(1), np.int32(m)]
    out = run("probe/dem-janssen-smem-atomic", host, 256, policy="random")
    ref, mag, cnt = tp._p153_sp_ref(pos, ci, cj, fc, 0.0, 1.0)
    assert (out[4].reshape(-1, 6) == ref).all() and cnt[0] > 0 and cnt[-1] > 0 and np.abs(ref).max() > 100


# ---- dem-energy-shfl-f64 ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_granular_energy(policy):
    n = 700                                                 # 2 blocks of 512, the second partial
    host, out, *_ = launch("probe/dem-energy-shfl-f64", n, policy=policy)
    ref, pmag = tp._p153_en_ref(*host[:3], float(host[4]))
    # the squared speeds in float32 (3 products, 2 sums: under 5 x 2^-24 each, all terms
    # positive); the rest in double
    assert (np.abs(out[3][:2] - ref[:2]) <= 2.0 ** -21 * ref[:2]).all()
    assert abs(out[3][2] - ref[2]) <= 1e-12 * pmag and ref[2] < 0 and ref[1] > 0.1 * ref[0]
