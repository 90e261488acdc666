"""probe-unseen96's kernels (kernels_cuda/probes98.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import dataclasses

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import _run, launch, run

IDS = ["probe/xent-softmax-grad-rows", "probe/layernorm-bwd-warp", "probe/adamw-clip-gridstride",
       "probe/dropout-hash-bytemask", "probe/embedding-grad-atomic-zipf", "probe/linear-wgrad-smem16"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen96"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes98.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 12
    # xent: float32 logits, labels in range or ignored (~5%), grad_scale 1 / kept rows
    z, lab, dz, loss, C, scale, nn = tp._p98_xent_args(n, rng)
    assert z.dtype == np.float32 and len(z) == n * C == n * 1000 and lab.dtype == np.int32 and nn == n
    ign = lab == tp.P98_XENT_IGNORE
    assert 0.03 < ign.mean() < 0.07 and lab[~ign].min() >= 0 and lab[~ign].max() < C
    assert scale == np.float32(1 / (~ign).sum())
    zr = z.reshape(n, C)
    r = np.flatnonzero(~ign)
    assert 0.3 < (zr[r].argmax(axis=1) == lab[r]).mean() < 0.8          # a half-trained classifier
    # layernorm: the saved mean and rstd are x's rows'
    dy, x, g, mean, rstd, dx, H, nn = tp._p98_ln_args(256, rng)
    xr = x.reshape(256, H).astype(np.float64)
    assert H == 768 and all(a.dtype == np.float32 for a in (dy, x, g, mean, rstd))
    np.testing.assert_allclose(mean, xr.mean(axis=1), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(rstd, 1 / np.sqrt(xr.var(axis=1) + 1e-5), rtol=1e-6)
    assert 0.4 < 1 / rstd.max() and 1 / rstd.min() < 2.1 and np.abs(g - 1).max() < 0.6
    # adamw: v positive, the norm the gradient's, clipping on at the default size's norm
    m = 1 << 16
    p, gr, mm, v, norm, *rest = tp._p98_adam_args(m, rng)
    assert all(a.dtype == np.float32 for a in (p, gr, mm, v, norm)) and v.min() > 0 and rest[-1] == m
    np.testing.assert_allclose(norm[0], np.sqrt((gr.astype(np.float64) ** 2).sum()), rtol=1e-6)
    assert tp.P98_ADAM_GSD * np.sqrt(1 << 24) > 2 * tp.P98_ADAM_MAXNORM         # clipped at 2^24
    assert rest[5] == np.float32(1 - 0.9 ** 10) and rest[6] == np.float32(1 - 0.999 ** 10)
    assert tp._p98_adam_grid(1 << 24) == 1024 and tp._p98_adam_grid(1000) == 4
    # dropout: ~10% dropped
    x, y, mk, pp, seed, nn = tp._p98_drop_args(1 << 16, rng)
    yr, kr = tp._p98_drop_ref(x)
    assert mk.dtype == np.uint8 and abs(kr.mean() - 0.9) < 0.01
    # embedding: ~38% padding, Zipf words (the top one ~9% of the words), exact gradients
    tok, dout, dW, D, pad, nn = tp._p98_emb_args(1 << 15, rng)
    assert tok.dtype == np.int32 and D == 256 and len(dW) == 32000 * 256 and len(dout) == (1 << 15) * D
    words = tok[tok != pad]
    assert 0.33 < (tok == pad).mean() < 0.42 and words.min() >= 1 and words.max() < 32000
    cnt = np.bincount(words)
    assert 0.07 < cnt.max() / len(words) < 0.11 and (cnt > 0).sum() > 5000
    assert (tok.reshape(-1, 512)[:, :128] != pad).all()                      # sequences at least 128 long
    assert (dout * 64 == np.round(dout * 64)).all() and 0.9 < dout.std() < 1.1
    # linear wgrad: batch = in_f = out_f = n
    X, dY, dWg, b, i, o = tp._p98_wg_args(48, rng)
    assert (b, i, o) == (48, 48, 48) and len(X) == len(dY) == len(dWg) == 48 * 48
    assert abs(X.std() - 1) < 0.05 and abs(dY.std() - 0.1) < 0.005
    assert tp._p98_wg_grid(48) == (3, 3) and tp._p98_wg_grid(768) == (48, 48) and tp.get(IDS[5]).n == 768


# ---- xent-softmax-grad-rows ----

def test_xent_softmax_grad():
    rng = np.random.default_rng(3)
    n = 6
    host = tp._p98_xent_args(n, rng)
    host[1][3] = tp.P98_XENT_IGNORE                         # one padding row
    host[1][4] = 999                                        # the last class (the last thread's last pass)
    host[5] = np.float32(1 / (host[1] != tp.P98_XENT_IGNORE).sum())
    out = run("probe/xent-softmax-grad-rows", host, n)
    d, loss = tp._p98_xent_ref(host[0], host[1], host[5])
    np.testing.assert_allclose(out[2].reshape(n, -1), d, rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(out[3], loss, rtol=1e-5, atol=1e-6)
    assert (out[2].reshape(n, -1)[3] == 0).all() and out[3][3] == 0
    assert np.abs(out[2].reshape(n, -1).sum(axis=1)).max() < 1e-6 and (loss[loss > 0] > 0.01).all()


# ---- layernorm-bwd-warp ----

def test_layernorm_bwd():
    n = 20                                                  # 3 blocks, the last with 4 rows
    host, out, *_ = launch("probe/layernorm-bwd-warp", n)
    ref = tp._p98_ln_ref(*host[:5])
    np.testing.assert_allclose(out[5].reshape(n, -1), ref, rtol=0, atol=2e-5 * np.abs(ref).max())
    assert np.abs(ref.sum(axis=1)).max() < 1e-3                        # dx sums to ~0 a row


# ---- adamw-clip-gridstride ----

def test_adamw_gridstride():
    # 5000 parameters on a 4-block grid (5 trips a thread, the last partial); the clip
    # factor below 1, then a norm below max_norm (no clipping)
    rng = np.random.default_rng(4)
    n = 5000
    p = dataclasses.replace(tp.get("probe/adamw-clip-gridstride"), grid=lambda n: 4)
    for scale in (1e3, 1.0):
        host = tp._p98_adam_args(n, rng)
        host[1] = (host[1] * np.float32(scale)).astype(np.float32)
        host[4] = np.array([np.sqrt((host[1].astype(np.float64) ** 2).sum())], np.float32)
        after = _run(p, [a.copy() if isinstance(a, np.ndarray) else a for a in host], {}, n, 0, "lockstep")[0]
        ref = tp._p98_adam_ref(*host[:13])
        for got, want in zip((after[0], after[2], after[3]), ref):
            np.testing.assert_allclose(got, want, rtol=3e-6, atol=1e-6 * np.abs(want).max())
        assert (host[4][0] > 1.0) == (scale > 1)
        assert (after[0] != host[0]).mean() > 0.99


def test_adamw_launch():
    n = 3000                                                # the default grid rule: 12 blocks, one trip
    host, out, *_ = launch("probe/adamw-clip-gridstride", n)
    ref = tp._p98_adam_ref(*host[:13])
    for got, want in zip((out[0], out[2], out[3]), ref):
        np.testing.assert_allclose(got, want, rtol=3e-6, atol=1e-6 * np.abs(want).max())


# ---- dropout-hash-bytemask ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_dropout(policy):
    n = 3000                                                # the last block partial
    host, out, *_ = launch("probe/dropout-hash-bytemask", n, policy=policy)
    y, k = tp._p98_drop_ref(host[0])
    assert (out[1] == y).all() and (out[2] == k).all()
    assert 0.85 < k.mean() < 0.95 and (out[1][k == 0] == 0).all()


# ---- embedding-grad-atomic-zipf ----

@pytest.mark.parametrize("policy, n", [("lockstep", 700), ("random", 64)])
def test_embedding_grad(policy, n):
    # 700: a full sequence and a partial one (random interleaving is slow: fewer tokens, a
    # word 4 times among them)
    host, out, *_ = launch("probe/embedding-grad-atomic-zipf", n, policy=policy)
    ref = tp._p98_emb_ref(host[0], host[1])
    assert (out[2].reshape(-1, 256) == ref).all()           # exact: the sums are in 1/64ths
    tok = host[0]
    assert np.bincount(tok[tok != 0]).max() >= 4            # repeated words: contended rows
    assert (tok == 0).any() or n < 512                      # padding
    assert (out[2].reshape(-1, 256)[0] == 0).all()          # the padding row untouched


# ---- linear-wgrad-smem16 ----

def test_linear_wgrad():
    n = 40                                                  # 3 x 3 blocks, the edge tiles and the last k step partial
    host, out, *_ = launch("probe/linear-wgrad-smem16", n)
    np.testing.assert_allclose(out[2].reshape(n, n), tp._p98_wg_ref(*host[:2], n, n, n), rtol=0, atol=1e-5)


def test_linear_wgrad_ragged():
    # a batch (75) not a multiple of the tile and in_f != out_f (the grid from n = the larger)
    rng = np.random.default_rng(9)
    b, i, o = 75, 24, 40
    X = rng.standard_normal((b, i)).astype(np.float32).ravel()
    dY = rng.standard_normal((b, o)).astype(np.float32).ravel()
    host = [X, dY, np.full(i * o, np.nan, np.float32), np.int32(b), np.int32(i), np.int32(o)]
    out = run("probe/linear-wgrad-smem16", host, 40)
    np.testing.assert_allclose(out[2].reshape(i, o), tp._p98_wg_ref(X, dY, b, i, o), rtol=0, atol=2e-5)
