"""probe-unseen71's kernels (kernels_cuda/probes73.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say. The kernels' random numbers are counter-based
hashes, replayed here exactly."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/sir-lattice-hash", "probe/schelling-cas-move", "probe/contact-sir-csr", "probe/walkers-hist-atomic",
       "probe/yardsale-float-atomic", "probe/forestfire-smem-halo"]
M32 = np.uint64(0xFFFFFFFF)


def hash32(x):
    """The kernels' hash32 on uint32 values (any integer array), as uint64."""
    x = np.asarray(x).astype(np.uint64) & M32
    x ^= x >> np.uint64(16)
    x = (x * np.uint64(0x7feb352d)) & M32
    x ^= x >> np.uint64(15)
    x = (x * np.uint64(0x846ca68b)) & M32
    x ^= x >> np.uint64(16)
    return x


def draw(seed, k, ids):
    """hash32(hash32(seed + k) ^ id) for the ids (uint64)."""
    return hash32(hash32((int(seed) + k) & 0xFFFFFFFF) ^ (np.asarray(ids).astype(np.uint64) & M32))


def rand01(seed, k, ids):
    """The kernels' rand01: 24 bits of the draw as a float32 in [0, 1)."""
    return (draw(seed, k, ids) >> np.uint64(8)).astype(np.float32) * np.float32(2.0 ** -24)


def moore(a):
    """The 8 periodic neighbours' sum of a 2-D array."""
    return sum(np.roll(a, (dy, dx), (0, 1)) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)


def copy(host):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in host]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen71"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes73.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_hash_known_values():
    # lowbias32 of 0 is 0; of 1, a fixed value; the uniforms 24-bit multiples in [0, 1)
    assert hash32(0) == 0 and hash32(1) == hash32(np.uint32(1)) and hash32(1) != 1
    u = rand01(7, 0, np.arange(1 << 16))
    assert u.dtype == np.float32 and u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.01
    assert ((u * 2 ** 24) == np.round(u * 2 ** 24)).all()


def test_data():
    rng = np.random.default_rng(0)
    L = 256
    st, tm, *_r, omega, tinf, seed, nn = tp._u71_sir_args(L, rng)
    assert st.dtype == tm.dtype == np.uint8 and len(st) == L * L and nn == L and seed.dtype == np.uint32
    assert abs((st == 1).mean() - 0.05) < 0.01 and abs((st == 0).mean() - 0.7) < 0.01
    assert (tm[st == 1] >= 1).all() and tm.max() == tinf == 7 and (tm[st != 1] == 0).all()
    pinf = tp._u71_sir_syms(L, rng)["c_pinf"]
    assert pinf.dtype == np.float32 and pinf[0] == 0 and np.isclose(pinf[1], 0.15) and (np.diff(pinf) > 0).all()
    new = sir_ref(st, tm, omega, tinf, seed, L, pinf)[2]
    assert 0.05 < new.sum() / (st == 0).sum() < 0.08                    # ~6% of the susceptible infected
    assert 0.3 < (moore((st == 1).reshape(L, L))[st.reshape(L, L) == 0] > 0).mean() < 0.38
    g, claim, gn, cnt, tol, tries, seed, nn = tp._u71_sch_args(L, rng)
    assert g.dtype == np.int32 and (claim == -1).all() and (gn == g).all() and abs((g == 0).mean() - 0.1) < 0.01
    unhappy = sch_unhappy(g, tol, L)
    assert 0.17 < unhappy.sum() / (g != 0).sum() < 0.25                  # ~21% unhappy
    st, rp, con, inf, sn, cnt, beta, gamma, seed, nn = tp._u71_csr_args(1 << 14, rng)
    deg = np.diff(rp)
    assert rp[0] == 0 and 15.8 < deg.mean() < 16.2 and len(con) == rp[-1] and con.max() < 1 << 14
    assert abs((st == 1).mean() - 0.05) < 0.01 and (sn == st).all() and (inf == 0).all()
    x, y, dens, steps, seed, Lw, nn = tp._u71_rw_args(1 << 14, rng)
    assert Lw == 1024 and len(dens) == 1024 * 1024 and x.min() >= 256 and x.max() < 768 and y.min() >= 256
    w, wn, vol, frac, seed, nn = tp._u71_ys_args(1 << 16, rng)
    assert w.dtype == np.float32 and w.min() >= 1 and (w == np.floor(w)).all() and (wn == w).all()
    assert 120 < w.mean() < 200 and w.max() < 1 << 17
    st, nxt, cnt, p, f, seed, nn = tp._u71_ff_args(L, rng)
    assert abs((st == 1).mean() - 0.44) < 0.01 and abs((st == 2).mean() - 0.01) < 0.003 and nn == L


# ---- sir-lattice-hash ----

def sir_ref(st, tm, omega, tinf, seed, L, pinf):
    """(state, timer, newly infected) after one step, flat."""
    s = st.reshape(L, L)
    k = moore((s == 1).astype(np.int64)).ravel()
    idx = np.arange(L * L)
    new = (st == 0) & (k > 0) & (rand01(seed, 0, idx) < pinf[k])
    t1 = tm.astype(np.int64) - 1
    wane = (st == 2) & (rand01(seed, 1, idx) < np.float32(omega))
    ns = np.where(new, 1, np.where(st == 1, np.where(t1 == 0, 2, 1), np.where(wane, 0, st)))
    nt = np.where(new, tinf, np.where(st == 1, t1, tm))
    return ns.astype(np.uint8), nt.astype(np.uint8), new


@pytest.mark.parametrize("policy, L", [("lockstep", 48), ("random", 20)])      # 3 x 3 blocks; 2 x 2, the last partial
def test_sir_lattice_hash(policy, L):
    host, (st, tm, sn, tn, cnt, *_c), syms, _ = launch("probe/sir-lattice-hash", L, policy=policy)
    ns, nt, new = sir_ref(*host[:2], host[5], host[6], host[7], L, syms["c_pinf"])
    assert (sn == ns).all() and (tn == nt).all() and cnt[0] == new.sum() > 10
    assert ((host[0] == 1) & (ns == 2)).any() and ((host[0] == 2) & (ns == 0)).any()


def test_sir_edge_cases():
    # certain infection: the Moore neighbourhoods (wrapped across the corners and edges) of
    # the infectious cells; certain waning; a timer running out
    L = 20
    st = np.zeros((L, L), np.uint8)
    st[0, 0] = st[7, L - 1] = st[12, 5] = 1
    st[3, 3] = 2
    tm = np.where(st == 1, 3, 0).astype(np.uint8)
    tm[12, 5] = 1
    pinf = np.r_[0, np.ones(8)].astype(np.float32)
    host = [st.ravel(), tm.ravel(), np.zeros(L * L, np.uint8), np.zeros(L * L, np.uint8), np.zeros(1, np.int32),
            np.float32(1.0), np.int32(5), np.uint32(0xdeadbeef), np.int32(L)]
    out = run("probe/sir-lattice-hash", copy(host), L, policy="random", symbols={"c_pinf": pinf})
    ns, nt, new = sir_ref(*host[:2], 1.0, 5, 0xdeadbeef, L, pinf)
    assert new.sum() == 24 and out[4][0] == 24 and (out[2] == ns).all() and (out[3] == nt).all()
    s2 = out[2].reshape(L, L)
    assert s2[L - 1, L - 1] == s2[1, 1] == s2[6, 0] == s2[8, 0] == 1 and s2[12, 5] == 2 and s2[3, 3] == 0


# ---- schelling-cas-move ----

def sch_unhappy(g, tol, L):
    a = g.reshape(L, L)
    occ = sum(np.roll(a != 0, (dy, dx), (0, 1)).astype(np.int64) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
              if dy or dx)
    same = sum((np.roll(a, (dy, dx), (0, 1)) == a).astype(np.int64) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
               if dy or dx)
    return ((a != 0) & (same.astype(np.float32) < np.float32(tol) * occ.astype(np.float32))).ravel()


def sch_check(g, claim, gn, cnt, tol, tries, seed, L):
    """The claims and moves are a valid outcome of the racing atomicCAS: each unhappy agent
    moved to the first of its targets that was empty and that it claimed, and every earlier
    empty target of it (all of them if it stayed) went to another agent."""
    unhappy = sch_unhappy(g, tol, L)
    assert cnt[0] == unhappy.sum()
    ags = np.flatnonzero(unhappy)
    T = np.stack([(draw(seed, t, ags) % np.uint64(L * L)).astype(np.int64) for t in range(tries)], 1)
    claimed = np.flatnonzero(claim != -1)
    assert (g[claimed] == 0).all() and unhappy[claim[claimed]].all()
    ref = g.copy()
    moved = contested = 0
    for a, targets in zip(ags, T):
        dest = -1
        for j in targets:
            if g[j] != 0:
                continue
            if claim[j] == a:
                dest = j
                break
            assert claim[j] != -1                          # an empty target it lost went to another
            contested += 1
        if dest >= 0:
            ref[dest], ref[a] = g[a], 0
            moved += 1
    assert (claim[claimed] >= 0).all() and len(claimed) == moved and (gn == ref).all()
    return moved, contested


@pytest.mark.parametrize("policy, L", [("lockstep", 64), ("random", 16)])      # 16 blocks; 2, half of each warp out
def test_schelling_cas_move(policy, L):
    host, (g, claim, gn, cnt, *_c), *_ = launch("probe/schelling-cas-move", L, policy=policy)
    moved, contested = sch_check(host[0], claim, gn, cnt, *host[4:7], L)
    assert moved > L * L // 40 and (gn != 0).sum() == (g != 0).sum() and (np.bincount(gn) == np.bincount(g)).all()
    if L == 64:
        assert contested > 0


def test_schelling_edge_cases():
    # one empty cell wanted by every agent (all unhappy: tol 1.5; 8 tries, 9 agents draw
    # it): exactly one wins it; a lattice with no empty cell: nobody moves; tries 0
    L = 16                                                  # half of each warp outside the lattice
    rng = np.random.default_rng(5)
    g = rng.integers(1, 3, L * L).astype(np.int32)
    g[100] = 0
    for policy in ("lockstep", "random"):
        host = [g, np.full(L * L, -1, np.int32), g.copy(), np.zeros(1, np.int32), np.float32(1.5), np.int32(8),
                np.uint32(99), np.int32(L)]
        out = run("probe/schelling-cas-move", copy(host), L, policy=policy)
        moved, contested = sch_check(host[0], out[1], out[2], out[3], 1.5, 8, 99, L)
        assert out[3][0] == L * L - 1 and moved == 1 and out[2][100] != 0 and contested > 0
    full = np.where(g == 0, 1, g).astype(np.int32)
    host = [full, np.full(L * L, -1, np.int32), full.copy(), np.zeros(1, np.int32), np.float32(1.5), np.int32(3),
            np.uint32(1), np.int32(L)]
    out = run("probe/schelling-cas-move", host, L, policy="random")
    assert (out[1] == -1).all() and (out[2] == full).all() and out[3][0] == L * L


# ---- contact-sir-csr ----

def ct_ref(st, rp, con, beta, gamma, seed):
    n = len(st)
    src = np.repeat(np.arange(n), np.diff(rp))
    hit = (st[src] == 1) & (st[con] == 0) & (rand01(seed, 0, np.arange(len(con))) < np.float32(beta))
    inf = np.zeros(n, np.int32)
    inf[con[hit]] = 1
    sn = st.copy()
    sn[(st == 1) & (rand01(seed, 1, np.arange(n)) < np.float32(gamma))] = 2
    return inf, sn, hit


@pytest.mark.parametrize("policy, n", [("lockstep", 1000), ("random", 600)])   # 4 / 3 blocks, the last partial
def test_contact_sir_csr(policy, n):
    host, (st, rp, con, inf, sn, cnt, *_c), *_ = launch("probe/contact-sir-csr", n, policy=policy)
    rinf, rsn, hit = ct_ref(*host[:3], *host[6:9])
    assert (inf == rinf).all() and (sn == rsn).all() and cnt[0] == rinf.sum() > 0 and (st == host[0]).all()


def test_contact_sir_edge_cases():
    # everyone infectious but one susceptible hub every contact points at (beta 1): one flag,
    # counted once however many atomicOrs race; an empty row; gamma 1 recovers all
    n = 70
    st = np.ones(n, np.uint8)
    st[5] = 0
    deg = np.full(n, 3)
    deg[::4] = 0
    rp = np.r_[0, np.cumsum(deg)].astype(np.int32)
    con = np.full(rp[-1], 5, np.int32)
    con[::2] = 9
    for policy in ("lockstep", "random"):
        host = [st, rp, con, np.zeros(n, np.int32), st.copy(), np.zeros(1, np.int32), np.float32(1.0),
                np.float32(1.0), np.uint32(3), np.int32(n)]
        out = run("probe/contact-sir-csr", copy(host), n, policy=policy)
        assert out[3].tolist() == [int(i == 5) for i in range(n)] and out[5][0] == 1
        assert (out[4] == np.where(st == 1, 2, 0)).all()


# ---- walkers-hist-atomic ----

def rw_ref(x, y, steps, seed, L):
    x, y = x.astype(np.int64), y.astype(np.int64)
    ids = np.arange(len(x))
    for s in range(steps):
        d = draw(seed, s, ids) % np.uint64(5)
        x = np.where(d == 1, (x + 1) % L, np.where(d == 2, (x - 1) % L, x))
        y = np.where(d == 3, (y + 1) % L, np.where(d == 4, (y - 1) % L, y))
    return x, y, np.bincount(y * L + x, minlength=L * L)


@pytest.mark.parametrize("policy, n", [("lockstep", 1000), ("random", 200)])
def test_walkers_hist_atomic(policy, n):
    host, (x, y, dens, steps, seed, L, nn), *_ = launch("probe/walkers-hist-atomic", n, policy=policy)
    rx, ry, rd = rw_ref(host[0], host[1], steps, seed, L)
    assert (x == rx).all() and (y == ry).all() and (dens == rd).all() and dens.sum() == n
    assert 0.04 < (x == host[0]).mean() < 0.3                          # lazy steps: some back in their column


def test_walkers_edge_cases():
    # every walker on the corner cell of a tiny lattice (wrapping both ways, all the atomics
    # on a few cells); 0 steps count the start
    L, n = 4, 300
    for steps in (0, 24):
        host = [np.full(n, L - 1, np.int32), np.zeros(n, np.int32), np.zeros(L * L, np.int32), np.int32(steps),
                np.uint32(11), np.int32(L), np.int32(n)]
        out = run("probe/walkers-hist-atomic", copy(host), n, policy="random")
        rx, ry, rd = rw_ref(host[0], host[1], steps, 11, L)
        assert (out[0] == rx).all() and (out[1] == ry).all() and (out[2] == rd).all()
    assert (out[2] > 0).all() and out[2].sum() == n


# ---- yardsale-float-atomic ----

def ys_ref(w, frac, seed):
    n = len(w)
    i = np.arange(n)
    j = (draw(seed, 0, i) % np.uint64(n)).astype(np.int64)
    stake = np.floor(np.float32(frac) * np.minimum(w, w[j])).astype(np.float32)
    stake[j == i] = 0
    win = (draw(seed, 1, i) & np.uint64(1)) == 0
    sg = np.where(win, 1.0, -1.0) * stake
    out = w.astype(np.float64)
    np.add.at(out, i, sg)
    np.add.at(out, j, -sg)
    return out, stake.astype(np.float64).sum()


@pytest.mark.parametrize("policy, n", [("lockstep", 1000), ("random", 600)])
def test_yardsale_float_atomic(policy, n):
    host, (w, wn, vol, frac, seed, nn), *_ = launch("probe/yardsale-float-atomic", n, policy=policy)
    ref, rvol = ys_ref(host[0], frac, seed)
    assert (wn == ref).all() and vol[0] == rvol > 0 and wn.sum() == w.sum()          # exact: whole units
    assert (wn != w).mean() > 0.5


def test_yardsale_edge_cases():
    # an agent of wealth 0 or 1 stakes nothing; all trades onto two agents (n = 2: j == i
    # for some); a rich agent
    for n, w in ((2, [50.0, 70.0]), (300, np.r_[0, 1, 9, 10, 10000, np.arange(5, 300) % 40])):
        w = np.array(w, np.float32)
        host = [w, w.copy(), np.zeros(1, np.float32), np.float32(0.25), np.uint32(77), np.int32(n)]
        out = run("probe/yardsale-float-atomic", copy(host), n, policy="random")
        ref, rvol = ys_ref(w, 0.25, 77)
        assert (out[1] == ref).all() and out[2][0] == rvol and out[1].sum() == w.sum()


# ---- forestfire-smem-halo ----

def ff_ref(st, p, f, seed, L):
    a = st.reshape(L, L)
    burn = (moore((a == 2).astype(np.int64)) > 0).ravel()
    idx = np.arange(L * L)
    light = rand01(seed, 0, idx) < np.float32(f)
    grow = rand01(seed, 1, idx) < np.float32(p)
    nxt = np.where(st == 2, 0, np.where(st == 1, np.where(burn | light, 2, 1), np.where(grow, 1, 0)))
    return nxt.astype(np.uint8)


@pytest.mark.parametrize("policy, L", [("lockstep", 48), ("random", 32)])
def test_forestfire_smem_halo(policy, L):
    host, (st, nxt, cnt, p, f, seed, nn), *_ = launch("probe/forestfire-smem-halo", L, policy=policy)
    ref = ff_ref(host[0], p, f, seed, L)
    assert (nxt == ref).all() and cnt[0] == (ref == 2).sum() > 0 and ((host[0] == 0) & (ref == 1)).any()


def test_forestfire_edge_cases():
    # a fire on the lattice's corner and on block edges / corners lights trees across the
    # blocks' halos and the periodic wrap; lightning everywhere (f = 1) and growth everywhere
    L = 32
    st = np.ones((L, L), np.uint8)
    st[0, 0] = st[15, 15] = st[16, 7] = st[31, 16] = 2
    st[8, 8] = 0
    for f, p in ((0.0, 0.0), (1.0, 1.0)):
        host = [st.ravel(), np.zeros(L * L, np.uint8), np.zeros(1, np.int32), np.float32(p), np.float32(f),
                np.uint32(5), np.int32(L)]
        out = run("probe/forestfire-smem-halo", copy(host), L, policy="random")
        ref = ff_ref(host[0], p, f, 5, L)
        assert (out[1] == ref).all() and out[2][0] == (ref == 2).sum()
    nx = run("probe/forestfire-smem-halo", [st.ravel(), np.zeros(L * L, np.uint8), np.zeros(1, np.int32),
                                            np.float32(0), np.float32(0), np.uint32(5), np.int32(L)], L)[1]
    nx = nx.reshape(L, L)
    assert nx[L - 1, L - 1] == nx[1, L - 1] == nx[16, 16] == nx[15, 8] == nx[0, 15] == nx[0, 17] == 2
    assert (nx == 2).sum() == 4 * 8 and nx[8, 8] == 0 and nx[0, 0] == 0 and nx[4, 4] == 1
