"""probe-unseen142's kernels (kernels_cuda/probes144.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/life-byte-wrap-global", "probe/life-bitpacked-skip", "probe/grayscott-smem-halo",
       "probe/sandpile-topple-atomics", "probe/hpp-lattice-gas-gather", "probe/eca-256rules-smem"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen142"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes144.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    g, out, w, h = tp._p144_life_args(512, rng)
    assert g.dtype == np.uint8 and set(np.unique(g)) == {0, 1} and w == h == 512
    assert abs(g.mean() - 0.3) < 0.01
    n = 2048
    words, _, ww, hh = tp._p144_lb_args(n, rng)
    assert words.dtype == np.uint32 and ww == n // 32 and hh == n and len(words) == n * ww
    cells = tp._p144_unpack(words, n)
    assert (tp._p144_pack(cells) == words).all()
    patches = cells.reshape(n // 64, 64, ww // 8, 256).mean(axis=(1, 3))
    live = patches > 0
    assert 0.4 < live.mean() < 0.6 and abs(patches[live].mean() - 0.35) < 0.01   # half the patches, 35% alive
    skip = tp._p144_lb_ref(words, n)[1]
    assert 0.4 < skip.mean() < 0.55                                              # ~47% of the words skipped
    assert ((skip.reshape(-1, 32).mean(axis=1) % 1) > 0).mean() > 0.2            # warps diverging
    u, v, *rest = tp._p144_gs_args(256, rng)
    assert u.dtype == v.dtype == np.float32 and rest[-1] == 256 and v.min() >= 0
    seeded = v > 0.1
    assert 0.2 < seeded.mean() < 0.5 and abs(u[seeded].mean() - 0.5) < 0.02 and abs(u[~seeded].mean() - 1) < 0.01
    sp, cp, cnt, nn = tp._p144_sp_args(512, rng)
    assert sp.dtype == np.int32 and (sp == cp).all() and sp.min() == 0 and sp.max() == 7 and cnt[0] == 0
    assert abs((sp >= 4).mean() - tp.P144_SP_HOT) < 0.01
    hg = tp._p144_hpp_args(512, rng)[0]
    assert hg.dtype == np.uint8 and hg.max() <= 15
    bits = np.unpackbits(hg[:, None], axis=1, bitorder="little")[:, :4]
    assert (np.abs(bits.mean(axis=0) - 0.3) < 0.01).all()
    assert 0.07 < np.isin(hg, (5, 10)).mean() < 0.11                            # head-on pairs colliding
    init, rows, live, r0 = tp._p144_eca_args(tp.P144_ECA_N, rng)
    W = tp.P144_ECA_W
    assert len(init) == 16 * W and len(rows) == tp.P144_ECA_N * W and r0 == 0
    assert init[:W].sum() == 1 and init[W // 2] == 1 and abs(init[W:].mean() - 0.5) < 0.02


# ---- life-byte-wrap-global ----

def test_life_byte():
    n = 72                                                  # partial blocks in x and y
    host, (g, out, *_), *_ = launch("probe/life-byte-wrap-global", n)
    ref = tp._p144_life_ref(g.reshape(n, n)).ravel()
    assert (out == ref).all() and (out != g).mean() > 0.2


def test_life_byte_glider_wraps():
    # a glider crossing the corner: 4 generations move it one cell down-right, across both wraps
    n = 40
    g = np.zeros((n, n), np.uint8)
    for y, x in [(0, 1), (1, 2), (2, 0), (2, 1), (2, 2)]:
        g[(y + n - 2) % n, (x + n - 2) % n] = 1
    cur = g.ravel()
    for _ in range(4):
        cur = run("probe/life-byte-wrap-global", [cur, np.zeros(n * n, np.uint8), np.int32(n), np.int32(n)], n)[1]
    assert (cur.reshape(n, n) == np.roll(np.roll(g, 1, 0), 1, 1)).all()


# ---- life-bitpacked-skip ----

@pytest.mark.parametrize("n", [256, 512])
def test_life_bits(n):
    host, (words, out, *_), *_ = launch("probe/life-bitpacked-skip", n)
    ref, skip = tp._p144_lb_ref(words, n)
    assert (out == ref).all() and 0.2 < skip.mean() < 0.8 and (ref[~skip] != 0).mean() > 0.8
    assert (tp._p144_unpack(out, n) == tp._p144_life_ref(tp._p144_unpack(words, n))).all()


def test_life_bits_word_edges():
    # cells on bits 0 and 31 and across the wraps: a blinker straddling two words, a block
    # across the corner
    n = 64
    c = np.zeros((n, n), np.uint8)
    c[10, 31:34] = 1                                        # blinker across words 0 and 1
    c[0, 0] = c[0, n - 1] = c[n - 1, 0] = c[n - 1, n - 1] = 1   # a block through the corner
    words = tp._p144_pack(c)
    out = run("probe/life-bitpacked-skip", [words, np.zeros(n * n // 32, np.uint32), np.int32(n // 32),
                                            np.int32(n)], n)[1]
    got = tp._p144_unpack(out, n)
    assert (got == tp._p144_life_ref(c)).all()
    assert got[9:12, 32].all() and got.sum() == 7


# ---- grayscott-smem-halo ----

def test_grayscott():
    n = 48                                                  # 3 x 3 tiles
    host, out, *_ = launch("probe/grayscott-smem-halo", n)
    u, v = tp._p144_gs_ref(host[0], host[1], n)
    np.testing.assert_allclose(out[2], u, rtol=0, atol=2e-6)
    np.testing.assert_allclose(out[3], v, rtol=0, atol=2e-6)
    assert (out[0] == host[0]).all() and np.abs(out[3] - host[1]).max() > 1e-3


def test_grayscott_halo_wraps():
    # a single spike of v at each corner and edge: its Laplacian reaches across the wraps
    n = 32
    rng = np.random.default_rng(3)
    host = tp._p144_gs_args(n, rng)
    host[0] = np.ones(n * n, np.float32)
    v = np.zeros((n, n), np.float32)
    v[0, 0] = v[n - 1, 17] = v[15, n - 1] = v[16, 16] = 1.0
    host[1] = v.ravel()
    out = run("probe/grayscott-smem-halo", host, n)
    u2, v2 = tp._p144_gs_ref(host[0], host[1], n)
    np.testing.assert_allclose(out[2], u2, rtol=0, atol=1e-6)
    np.testing.assert_allclose(out[3], v2, rtol=0, atol=1e-6)
    vv = out[3].reshape(n, n)
    assert vv[n - 1, 0] > 0.07 and vv[0, n - 1] > 0.07 and vv[0, 17] > 0.07 and vv[15, 0] > 0.07


# ---- sandpile-topple-atomics ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_sandpile(policy):
    n = 40                                                  # partial blocks
    host, (g, out, cnt, _), *_ = launch("probe/sandpile-topple-atomics", n, policy=policy)
    ref, c = tp._p144_sp_ref(g, n)
    assert (out == ref).all() and cnt[0] == c and 0.15 < c / n ** 2 < 0.35
    assert out.sum() < g.sum()                              # grains lost off the edge


def test_sandpile_edges_and_neighbours():
    # a corner cell, an edge cell and an interior cell toppling alone (2, 1 and 0 grains
    # off the grid), then a 2 x 2 block of unstable cells (each one's atomics hitting the
    # others) beside stable ones
    n = 20
    g = np.zeros((n, n), np.int32)
    g[0, 0] = 5
    g[n - 1, 7] = 4
    g[5, 5] = 4
    g[10:12, 10:12] = 7
    g[10, 12] = 3
    out = run("probe/sandpile-topple-atomics", [g.ravel(), g.ravel().copy(), np.zeros(1, np.int32), np.int32(n)],
              n, policy="random")
    ref, c = tp._p144_sp_ref(g.ravel(), n)
    o = out[1].reshape(n, n)
    assert (out[1] == ref).all() and out[2][0] == c == 7
    assert o[0, 0] == 1 and o[0, 1] == o[1, 0] == 1 and o[n - 1, 7] == 0 and o[n - 2, 7] == 1
    assert o[5, 5] == 0 and o[4, 5] == o[6, 5] == o[5, 4] == o[5, 6] == 1
    assert (o[10:12, 10:12] == 5).all() and o[10, 12] == 4
    assert out[1].sum() == g.sum() - 3


# ---- hpp-lattice-gas-gather ----

def test_hpp():
    n = 72
    host, (g, out, _), *_ = launch("probe/hpp-lattice-gas-gather", n)
    ref = tp._p144_hpp_ref(g, n)
    assert (out == ref).all()
    pop = np.unpackbits(out[:, None], axis=1).sum()
    assert pop == np.unpackbits(g[:, None], axis=1).sum()   # particles conserved


def test_hpp_collision_and_wrap():
    n = 32
    g = np.zeros((n, n), np.uint8)
    g[5, 5] = 5                                             # E + W head-on: N + S leave
    g[10, 10] = 10                                          # N + S head-on: E + W leave
    g[0, n - 1] = 1 | 2                                     # E and N off the corner: both wrap
    g[20, 20] = 1 | 2 | 4                                   # three particles: no collision
    out = run("probe/hpp-lattice-gas-gather", [g.ravel(), np.zeros(n * n, np.uint8), np.int32(n)], n)[1]
    o = out.reshape(n, n)
    assert (o == tp._p144_hpp_ref(g.ravel(), n).reshape(n, n)).all()
    assert o[4, 5] == 2 and o[6, 5] == 8 and o[10, 11] == 1 and o[10, 9] == 4
    assert o[0, 0] == 1 and o[n - 1, n - 1] == 2
    assert o[20, 21] == 1 and o[19, 20] == 2 and o[20, 19] == 4 and o.astype(bool).sum() == 9


# ---- eca-256rules-smem ----

@pytest.mark.parametrize("first_rule, random_row", [(26, False), (105, True)])
def test_eca(first_rule, random_row):
    # 8 blocks (the probe runs 4096): rules 26 .. 33 (30 among them) from a single cell and
    # 105 .. 112 (110 among them) from a random row
    n = 8
    rng = np.random.default_rng(1)
    host = tp._p144_eca_args(n, rng)
    if random_row:
        host[0] = (rng.random(tp.P144_ECA_W) < 0.5).astype(np.uint8)
    host[3] = np.int32(first_rule)
    out = run("probe/eca-256rules-smem", host, n)
    rows, live = tp._p144_eca_ref(host[0], n, first_rule)
    assert (out[1] == rows).all() and (out[2] == live).all()
    assert len(set(live.tolist())) > 4


def test_eca_rule90_sierpinski():
    # rule 90 from one cell: row t's live cells 2^popcount(t), before the ring wraps
    W, T = tp.P144_ECA_W, tp.P144_ECA_STEPS
    assert T < W // 2
    host = tp._p144_eca_args(1, np.random.default_rng(2))
    host[3] = np.int32(90)
    out = run("probe/eca-256rules-smem", host, 1)
    assert out[2][0] == sum(2 ** bin(t).count("1") for t in range(1, T + 1))
    assert out[1].sum() == 2 ** bin(T).count("1")
