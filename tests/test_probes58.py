"""probe-unseen56's kernels (kernels_cuda/probes58.cu) give numpy's (or plain Python's)
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import dataclasses

import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen56"]
    assert ids == ["probe/spgemm-hash-warp", "probe/edge-flux-scatter", "probe/aho-corasick-dna",
                   "probe/random-walk-restart", "probe/lj-verlet-forces", "probe/staggered-dslash"]
    assert all(tp.get(i).source == "probes58.cu" and tp.get(i).note for i in ids)


# ---- spgemm-hash-warp ----

def spgemm_rows(ptr, col, val):
    """C = A A by rows: {row: {column: value}} (structural entries, zeros kept), exact in float64."""
    r, j, v = tp._u56_products(ptr, col, val)
    out = {}
    for rr, jj, vv in zip(r.tolist(), j.tolist(), v.astype(np.float64).tolist()):
        row = out.setdefault(rr, {})
        row[jj] = row.get(jj, 0.0) + vv
    return out


def check_spgemm(host, after):
    ptr, col, val, c_ptr, c_col, c_val, n = after
    exp = spgemm_rows(ptr, col, val)
    for r in range(int(n)):
        lo, hi = int(c_ptr[r]), int(c_ptr[r + 1])
        got = dict(zip(c_col[lo:hi].tolist(), c_val[lo:hi].astype(np.float64).tolist()))
        assert len(got) == hi - lo                  # each column once in the row
        assert got == exp.get(r, {}), r
    return exp


def test_spgemm_hash_warp():
    n = 300                                         # 38 blocks, the last with 4 rows (4 warps idle)
    host, after, *_ = launch("probe/spgemm-hash-warp", n)
    ptr, col = after[0], after[1]
    L = np.diff(ptr)
    assert L.min() >= 3 and L.max() <= tp.U56_SG_MAXLEN
    assert all((np.diff(col[ptr[r]:ptr[r + 1]]) > 0).all() for r in range(n))    # sorted, distinct
    exp = check_spgemm(host, after)
    assert any(v == 0.0 for row in exp.values() for v in row.values())  # cancelled entries stay structural
    # the hash table collides: some row has two columns with the same home slot
    home = lambda c: (c * 2654435761) % (1 << 32) & (tp.U56_SG_HASH - 1)  # noqa: E731
    assert any(len({home(c) for c in row}) < len(row) for row in exp.values())


def test_spgemm_hash_warp_full_rows(monkeypatch):
    """Every row of A 12 entries anywhere in 512 columns: rows of C of ~120 distinct columns of
    144 products, the 256-slot tables half full (long probe chains, wrapping at slot 255)."""
    monkeypatch.setattr(tp, "U56_SG_MINLEN", 12)
    monkeypatch.setattr(tp, "U56_SG_BAND", 512)
    host, after, *_ = launch("probe/spgemm-hash-warp", 512, seed=4)
    c_ptr = after[3]
    assert np.diff(c_ptr).max() >= 110 and np.diff(after[0]).max() == 12
    check_spgemm(host, after)


# ---- edge-flux-scatter ----

def rusanov_residual(edges, nrm, u):
    i, j = edges[:, 0], edges[:, 1]
    ui, uj = u[i].astype(np.float64), u[j].astype(np.float64)
    s = nrm[:, 0].astype(np.float64) + nrm[:, 1]
    F = 0.25 * (ui * ui + uj * uj) * s - 0.5 * np.maximum(abs(ui), abs(uj)) * abs(s) * (uj - ui)
    res, mag = np.zeros(len(u)), np.zeros(len(u))
    np.add.at(res, i, -F)
    np.add.at(res, j, F)
    np.add.at(mag, i, abs(F))
    np.add.at(mag, j, abs(F))
    return res, mag


def test_edge_flux_scatter():
    m = 20                                          # 400 vertices, 1121 edges: 5 blocks, the last partial
    host, (edges, nrm, u, res, ne), *_ = launch("probe/edge-flux-scatter", m)
    edges = edges.reshape(-1, 2)
    nrm = nrm.reshape(-1, 2)
    assert ne == len(edges) == tp._u56_nedges(m) == 1121
    assert (edges[:, 0] < edges[:, 1]).all() and (np.diff(edges[:, 0]) >= 0).all()
    deg = np.bincount(edges.ravel(), minlength=m * m)
    assert deg.min() == 2 and deg.max() == 6 and (deg == 6).sum() == (m - 2) ** 2
    exp, mag = rusanov_residual(edges, nrm, u)
    assert (np.abs(res - exp) <= 1e-6 * mag + 1e-6).all()
    assert abs(float(res.astype(np.float64).sum())) < 1e-3      # conservative: what leaves i enters j
    assert np.count_nonzero(res) == m * m


# ---- aho-corasick-dna ----

def occurrences(text: np.ndarray, pats):
    """(pattern id, end position) of every occurrence of each pattern in text (bytes)."""
    out = []
    for pid, p in enumerate(pats):
        win = np.lib.stride_tricks.sliding_window_view(text, len(p))
        start = np.nonzero((win == np.frombuffer(p, np.uint8)).all(1))[0]
        out += [(pid, int(s) + len(p) - 1) for s in start]
    return out


def check_ac(text_words, pat_count, chunk_count, pats):
    text = text_words.view(np.uint8)
    occ = occurrences(text, pats)
    exp_p = np.bincount([p for p, _ in occ], minlength=tp.U56_AC_NPAT)
    exp_c = np.bincount([e // tp.U56_AC_CHUNK for _, e in occ], minlength=len(text) // tp.U56_AC_CHUNK)
    np.testing.assert_array_equal(pat_count, exp_p)
    np.testing.assert_array_equal(chunk_count, exp_c)
    return occ


def test_ac_automaton_matches_naive():
    """The host's automaton, run over a text in Python, finds exactly the naive occurrences."""
    rng = np.random.default_rng(1)
    pats = tp._u56_ac_patterns(rng)
    go, term, dlink = tp._u56_ac_automaton(pats)
    assert len(term) <= 520 and sorted(t for t in term if t >= 0) == list(range(64))
    text = np.frombuffer(b"ACGT", np.uint8)[rng.integers(0, 4, 5000)]
    st, found = 0, []
    for pos, ch in enumerate(text.tolist()):
        st = int(go[st, tp.U56_AC_CODE[ch]])
        q = st if term[st] >= 0 else int(dlink[st])
        while q >= 0:
            found.append((int(term[q]), pos))
            q = int(dlink[q])
    assert sorted(found) == sorted(occurrences(text, pats))


def test_aho_corasick_dna():
    n = 2 * tp.U56_AC_TILE                          # two blocks: block 1's first thread warms up on block 0's tail
    host, (text, go, term, dlink, ns, pat_count, chunk_count, nw), *_ = launch("probe/aho-corasick-dna", n)
    pats = tp._u56_ac_patterns(np.random.default_rng(0))
    assert sorted(len(p) for p in pats)[0] == 4 and max(len(p) for p in pats) == 8
    occ = check_ac(text, pat_count, chunk_count, pats)
    assert 0.04 < len(occ) / n < 0.1
    lens = [len(p) for p in pats]
    across = [(p, e) for p, e in occ if (e - lens[p] + 1) // tp.U56_AC_CHUNK != e // tp.U56_AC_CHUNK]
    assert len(across) > 50                        # occurrences begun in the previous chunk


def test_aho_corasick_dna_across_tiles(monkeypatch):
    """An 8-base pattern planted at the text's start, across a chunk boundary, across the first
    tile boundary (begun 7 bases before it: the whole warm-up from the 8 bytes before the
    tile) and ending on the second tile's last base is found at each place, once, by the
    thread whose chunk holds its end."""
    pid = "probe/aho-corasick-dna"
    base = tp.get(pid)
    pats = tp._u56_ac_patterns(np.random.default_rng(0))
    p8 = [p for p in pats if len(p) == 8][0]
    at = [0, 3 * tp.U56_AC_CHUNK - 4, tp.U56_AC_TILE - 7, 2 * tp.U56_AC_TILE - 8]

    def args(n, rng):
        a = base.args(n, rng)
        t = a[0].view(np.uint8)
        for s in at:
            t[s:s + 8] = np.frombuffer(p8, np.uint8)
        return a
    monkeypatch.setitem(tp._BY_ID, pid, dataclasses.replace(base, args=args))
    host, (text, go, term, dlink, ns, pat_count, chunk_count, nw), *_ = launch(pid, 3 * tp.U56_AC_TILE)
    occ = check_ac(text, pat_count, chunk_count, pats)
    ends = {e for p, e in occ if pats[p] == p8}
    assert {s + 7 for s in at} <= ends


# ---- random-walk-restart ----

def walks(ptr, adj, start, steps, seed, restart):
    """random_walk_restart's walks in Python: (end, len, visits)."""
    M = 0xFFFFFFFF

    def lowbias32(x):
        x ^= x >> 16
        x = (x * 0x7FEB352D) & M
        x ^= x >> 15
        x = (x * 0x846CA68B) & M
        return x ^ (x >> 16)
    n = len(start)
    end, ln, visits = np.zeros(n, np.int32), np.zeros(n, np.int32), np.zeros(len(ptr) - 1, np.uint32)
    ptr, adj = ptr.tolist(), adj.tolist()
    for w in range(n):
        s = v = int(start[w])
        r = lowbias32(seed ^ w) or 1
        k = 0
        while k < steps:
            b, d = ptr[v], ptr[v + 1] - ptr[v]
            if d == 0:
                break
            r ^= (r << 13) & M
            r ^= r >> 17
            r ^= (r << 5) & M
            v = s if (r & 0xFF) < restart else adj[b + (r >> 8) % d]
            visits[v] += 1
            k += 1
        end[w], ln[w] = v, k
    return end, ln, visits


def test_random_walk_restart():
    n = 600                                         # 3 blocks, the last partial
    host, (ptr, adj, start, end, ln, visits, nw, steps, seed, rs), *_ = launch("probe/random-walk-restart", n)
    assert steps == tp.U56_RW_STEPS and rs == tp.U56_RW_RESTART
    deg = np.diff(ptr)
    assert 0 < (deg == 0).sum() < 0.1 * n and deg.max() > 20
    e, k, vis = walks(ptr, adj, start, int(steps), int(seed), int(rs))
    np.testing.assert_array_equal(end, e)
    np.testing.assert_array_equal(ln, k)
    np.testing.assert_array_equal(visits, vis)
    assert int(visits.sum()) == int(ln.sum())
    assert (ln == steps).sum() > n // 3 and (ln < steps).sum() > n // 10      # full walks and early ends
    assert (ln == 0).sum() == (deg[start] == 0).sum()                            # dangling starts


# ---- lj-verlet-forces ----

def lj_reference(pos, box, cut):
    """All-pairs Lennard-Jones forces and half pair energies in float64, minimum image."""
    p = pos[:, :3].astype(np.float64)
    d = p[:, None, :] - p[None, :, :]
    d -= box * np.rint(d / box)
    r2 = (d * d).sum(2)
    np.fill_diagonal(r2, np.inf)
    inside = r2 < cut * cut
    sr6 = np.where(inside, 1.0 / r2 ** 3, 0.0)
    f = np.where(inside, 48.0 * sr6 * (sr6 - 0.5) / r2, 0.0)
    F = (f[:, :, None] * d).sum(1)
    return F, (2.0 * sr6 * (sr6 - 1.0)).sum(1), (np.abs(f)[:, :, None] * np.abs(d)).sum(1), r2


def test_lj_verlet_forces():
    m = 8                                           # 512 atoms, 4 blocks of 128
    host, (pos, neigh, nn, force, na, box, cutsq), *_ = launch("probe/lj-verlet-forces", m)
    N = m ** 3
    pos, force, neigh = pos.reshape(N, 4), force.reshape(N, 4), neigh.reshape(-1, N)
    F, pe, mag, r2 = lj_reference(pos, float(box), tp.U56_LJ_CUT)
    # the list: exactly the pairs within cutoff + skin, each once
    rl2 = (tp.U56_LJ_CUT + tp.U56_LJ_SKIN) ** 2
    for i in range(0, N, 7):
        listed = neigh[:nn[i], i]
        assert len(set(listed.tolist())) == nn[i]
        assert set(listed.tolist()) == set(np.nonzero(r2[i] < rl2)[0].tolist())
    assert nn.min() < nn.max() and 60 < nn.mean() < 100
    assert (r2[np.isfinite(r2)] > 0.2).all()
    np.testing.assert_array_less(np.abs(force[:, :3] - F), 1e-5 * mag + 1e-4)
    np.testing.assert_allclose(force[:, 3], pe, rtol=1e-4, atol=1e-3 * np.abs(pe).max())
    assert np.abs(force[:, :3].astype(np.float64).sum(0)).max() < 1e-3 * mag.sum()   # Newton's third law


# ---- staggered-dslash ----

def dslash(U, chi, L):
    """D chi on the L^4 lattice (arrays indexed [x3, x2, x1, x0]), complex128."""
    x3, x2, x1, x0 = np.meshgrid(*[np.arange(L)] * 4, indexing="ij")
    coords = [x0, x1, x2, x3]
    out = np.zeros_like(chi)
    for mu in range(4):
        ax = 3 - mu
        eta = (-1.0) ** sum(coords[:mu]) if mu else np.ones((L,) * 4)
        Umu = U[..., mu, :, :]
        fwd = np.einsum("...ab,...b->...a", Umu, np.roll(chi, -1, axis=ax))
        bwd = np.einsum("...ba,...b->...a", np.conj(np.roll(Umu, 1, axis=ax)), np.roll(chi, 1, axis=ax))
        out += eta[..., None] * (fwd - bwd)
    return 0.5 * out


def test_staggered_dslash():
    L = 6                                           # 1296 sites: 6 blocks, the last of 16 sites
    host, (Uf, chif, outf, LL), *_ = launch("probe/staggered-dslash", L)
    U = Uf.view(np.complex64).reshape((L,) * 4 + (4, 3, 3)).astype(np.complex128)
    chi = chif.view(np.complex64).reshape((L,) * 4 + (3,)).astype(np.complex128)
    out = outf.view(np.complex64).reshape((L,) * 4 + (3,))
    uh = np.einsum("...ab,...cb->...ac", U, np.conj(U))
    assert np.abs(uh - np.eye(3)).max() < 1e-5                  # unitary ..
    assert np.abs(np.linalg.det(U) - 1).max() < 1e-5            # .. of determinant 1
    exp = dslash(U, chi, L)
    np.testing.assert_allclose(out, exp, atol=2e-5 * np.abs(chi).max() * 24)
    assert np.abs(out).min() > 0


def test_staggered_dslash_antihermitian():
    """D is anti-Hermitian: <psi, D chi> = -<D psi, chi>, D chi the kernel's, D psi numpy's."""
    L = 4                                           # one block of 256 sites, every site on an edge
    _, (Uf, chif, outf, _), *_ = launch("probe/staggered-dslash", L, seed=2)
    U = Uf.view(np.complex64).reshape((L,) * 4 + (4, 3, 3)).astype(np.complex128)
    chi = chif.view(np.complex64).astype(np.complex128)
    d_chi = outf.view(np.complex64).astype(np.complex128)
    rng = np.random.default_rng(9)
    psi = rng.standard_normal(3 * L ** 4) + 1j * rng.standard_normal(3 * L ** 4)
    d_psi = dslash(U, psi.reshape((L,) * 4 + (3,)), L).ravel()
    lhs, rhs = np.vdot(psi, d_chi), -np.vdot(d_psi, chi)
    assert abs(lhs - rhs) < 1e-5 * np.linalg.norm(psi) * np.linalg.norm(d_chi) * 10


def test_full_size_launch_shapes():
    """The launches as probed: grids for the sizes in timing_probes."""
    g = {p.id: (p.n, p.grid(p.n), p.block) for p in tp.entries() if p.family == "probe-unseen56"}
    assert g["probe/spgemm-hash-warp"] == (1 << 18, 1 << 15, 256)
    assert g["probe/edge-flux-scatter"] == (1024, -(-3141633 // 256), 256)
    assert g["probe/aho-corasick-dna"] == (1 << 26, 2048, 256)
    assert g["probe/random-walk-restart"] == (1 << 20, 4096, 256)
    assert g["probe/lj-verlet-forces"] == (80, 4000, 128)
    assert g["probe/staggered-dslash"] == (32, 4096, 256)
