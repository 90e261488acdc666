"""probe-unseen152's kernels (kernels_cuda/probes154.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import struct

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/nids-aho-dfa-thread-pkt", "probe/nids-flow-fnv-atomic64", "probe/nids-portscan-smem-bitmap",
       "probe/nids-entropy-hist-shfl", "probe/nids-token-bucket-u64", "probe/nids-gmm-anomaly-const"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen152"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes154.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _fnv1a_py(b):
    h = 2166136261
    for c in b:
        h = ((h ^ c) * 16777619) & 0xffffffff
    return h


def _classic():
    """The textbook automaton: he, she, his, hers."""
    return [b"he", b"she", b"his", b"hers"]


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 13
    pay, off, kind = tp._p154_payloads(n, rng)
    lens = np.diff(off)
    assert off[0] == 0 and off[-1] == len(pay) and lens.min() >= 1 and lens.max() == tp.P154_PL_MSS
    assert abs((lens <= 200).mean() - .5) < .02 and abs((lens == 1460).mean() - .2) < .02
    assert abs((kind == 0).mean() - .4) < .02 and abs((kind == 2).mean() - .15) < .02
    kb = np.repeat(kind, lens)
    assert set(np.unique(pay[kb == 0])) <= set(tp._p154_text_table()) and (pay[kb == 0] == ord(" ")).mean() > .15
    assert abs((pay[kb == 2] == 0).mean() - (.7 + .3 / 256)) < .01 and len(np.unique(pay[kb == 1])) == 256
    # the signature set and its automaton
    pats = tp._p154_ac_patterns()
    assert len(pats) == len(set(pats)) == tp.P154_AC_PATTERNS and pats[:3] == [b"/etc/passwd", b"/bin/sh", b"cmd.exe"]
    assert all(3 <= len(p) <= 18 for p in pats)
    delta, out = tp._p154_ac_dfa(pats)
    prefixes = {p[:k] for p in pats for k in range(1, len(p) + 1)}
    assert len(out) == len(prefixes) + 1 and out.sum() >= len(pats) and delta.max() == len(out) - 1
    first = {p[0] for p in pats}
    assert (delta[:256][[c not in first for c in range(256)]] == 0).all()
    d, o = tp._p154_ac_dfa(_classic())
    d = d.reshape(-1, 256)
    s, hits = 0, []
    for c in b"ushers":
        s = d[s, c]
        hits.append(int(o[s]))
    assert hits == [0, 0, 0, 2, 0, 1] and len(o) == 10             # "she" and "he" end at 3, "hers" at 5
    args = tp._p154_ac_args(400, rng)
    c, f = tp._p154_ac_ref(args[0], args[1], pats)
    assert (c > 0).mean() > tp.P154_AC_INJECT and (args[2] == delta).all() and (args[3] == out).all()
    # flows: FNV-1a of the 5-tuple's bytes, Zipf ranks, lengths, protocols
    keys, ln, by, pk, mask, nn = tp._p154_fc_args(1 << 16, rng)
    K = keys.reshape(-1, 4)
    assert nn == 1 << 16 and mask == tp.P154_FC_SLOTS - 1 and len(by) == len(pk) == tp.P154_FC_SLOTS
    h = tp._p154_fnv1a(keys)
    for i in range(5):
        sa, da, w2, w3 = (int(x) for x in K[i])
        b = struct.pack("<IIHHB", sa, da, w2 & 0xffff, w2 >> 16, w3 & 0xff)
        assert h[i] == _fnv1a_py(b)
    assert _fnv1a_py(b"a") == 0xe40c292c                          # the published test vector
    assert (tp._p154_fnv1a(np.array([0, 0, 0, 0xffffff00], np.uint32)) == tp._p154_fnv1a(np.zeros(4, np.uint32))).all()
    _, cnt = np.unique(K, axis=0, return_counts=True)
    H = (np.arange(1, tp.P154_FC_FLOWS + 1, dtype=np.float64) ** -tp.P154_FC_ZIPF).sum()
    assert abs(cnt.max() / len(K) - 1 / H) < .01 and (cnt == 1).sum() > 1000
    dport, proto = K[:, 2] >> 16, K[:, 3] & 0xff
    assert ((proto == 17) == np.isin(dport, [53, 123])).all() and abs((ln <= 64).mean() - .4) < .01
    assert abs((ln == 1500).mean() - .35) < .01 and ln.min() >= 40 and ln.max() <= 1500
    assert ((K[:, 0] >> 16) == (10 << 8)).mean() > .3
    # port scans: scanners' attempts all distinct, benign sources few destinations
    so, ip, port, *_, nn = tp._p154_ps_args(4000, rng)
    c = np.diff(so)
    src = np.repeat(np.arange(4000), c)
    pair = np.unique(np.stack([src, ip.astype(np.int64) << 16 | port], 1), axis=0)
    dist = np.bincount(pair[:, 0], minlength=4000)
    scan = c >= 500
    assert abs(scan.mean() - tp.P154_PS_SCAN) < .005 and (dist[scan] == c[scan]).all() and dist[~scan].max() <= 32
    assert 6 < np.median(c[~scan]) < 10 and c.max() <= 4000 and so[-1] == len(ip) == len(port)
    bits, est, flag = tp._p154_ps_ref(so, ip, port)
    assert (flag == scan).all() and (bits <= dist).all() and (bits >= .55 * dist).all()
    # entropy: random payloads of 1460 bytes near 8 bits, text under 5
    e, hi = tp._p154_en_ref(pay, off)
    full = lens == 1460
    assert (e[full & (kind == 1)] > 7.8).all() and (e[kind == 0] < 5).all() and (e[kind == 2] < 4.5).all()
    assert hi[full & (kind == 1)].all() and (kind[hi] == 1).all() and (lens[hi] >= 256).all()
    # token buckets: ascending timestamps a source, Pareto counts
    so, ts, ln, ok, db, nd, rate, burst, nn = tp._p154_tb_args(1 << 14, rng)
    c = np.diff(so)
    assert c.min() == 4 and c.max() <= tp.P154_TB_MAXPK and abs((c >= 40).mean() - .1 ** 1.2) < .01
    src = np.repeat(np.arange(1 << 14), c)
    dt = np.diff(ts.astype(np.int64))
    assert (dt[src[1:] == src[:-1]] >= 0).all() and ts.dtype == np.uint64 and len(ok) == len(ts) == len(ln)
    span = (ts[so[1:] - 1] - ts[so[:-1]]).astype(np.float64)
    assert 5e6 < np.median(span) < 12e6 and rate == 125000 and burst == 15000
    # the mixture: normal flows' scores under thresh but for 1 - P154_GM_Q of them, anomalies above
    x, sc, an, thresh, nn = tp._p154_gm_args(1 << 14, rng)
    syms = tp._p154_gm_syms(1 << 14, rng)
    s, q = tp._p154_gm_ref(x, syms)
    assert len(syms["c_gm_mu"]) == len(syms["c_gm_ivar"]) == 32 * 16 and x.dtype == np.float32
    assert .01 < (s > thresh).mean() < .02 and (s > 50).mean() > .005             # the anomalies, far out
    normal = tp._p154_gm_ref(tp._p154_gm_normal(1 << 14, rng), syms)[0]
    assert (normal > thresh).mean() < 1.5 * (1 - tp.P154_GM_Q) and np.median(normal) < thresh - 5
    w = np.exp(syms["c_gm_logc"].astype(np.float64) + .5 * np.log(syms["c_gm_ivar"].reshape(32, 16)).sum(1) * -1
               + 8 * np.log(2 * np.pi))
    assert abs(w.sum() - 1) < 1e-4


# ---- nids-aho-dfa-thread-pkt ----

def test_ac_scan_packets():
    rng = np.random.default_rng(2)
    pay, off, delta, o, *_ = tp._p154_ac_args(200, rng)
    lens = np.diff(off)
    keep = np.flatnonzero(lens <= 300)[:40]                  # short packets (2 warps) keep the emulator quick
    pay = np.concatenate([pay[off[i]:off[i + 1]] for i in keep])
    off = np.concatenate([[0], np.cumsum(lens[keep])]).astype(np.int32)
    m = len(keep)
    out = run("probe/nids-aho-dfa-thread-pkt", [pay, off, delta, o, np.zeros(m, np.int32), np.zeros(m, np.int32),
                                                 np.int32(m)], m)
    cnt, first = tp._p154_ac_ref(pay, off, tp._p154_ac_patterns())
    assert (out[4] == cnt).all() and (out[5] == first).all() and (cnt > 0).sum() >= 2
    # the textbook automaton: overlapping matches, an empty packet
    pk = [b"ushers", b"", b"hishe", b"xyz", b"hehehe", b"she"]
    delta, o = tp._p154_ac_dfa(_classic())
    pay = np.frombuffer(b"".join(pk), np.uint8).copy()
    off = np.concatenate([[0], np.cumsum([len(p) for p in pk])]).astype(np.int32)
    m = len(pk)
    out = run("probe/nids-aho-dfa-thread-pkt", [pay, off, delta, o, np.zeros(m, np.int32), np.zeros(m, np.int32),
                                                 np.int32(m)], m)
    assert list(out[4]) == [3, 0, 3, 0, 3, 2] and list(out[5]) == [3, -1, 2, -1, 1, 2]
    assert list(out[4]) == list(tp._p154_ac_ref(pay, off, _classic())[0])


# ---- nids-flow-fnv-atomic64 ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_flow_count(policy):
    n = 1024
    host, out, *_ = launch("probe/nids-flow-fnv-atomic64", n, policy=policy)
    by, pk = tp._p154_fc_ref(host[0], host[1], host[4])
    assert (out[2] == by).all() and (out[3] == pk).all() and pk.max() > 80 and pk.sum() == n
    # one slot: every packet on one address; flags and VLAN do not change a flow's slot
    keys = np.tile(np.array([0x0a000001, 0xc0a80001, 443 << 16 | 50000, 6], np.uint32), (256, 1))
    keys[::2, 3] |= np.uint32(0x18 << 8 | 20 << 16)
    ln = np.full(256, 1500, np.uint16)
    z = lambda: [np.zeros(4, np.uint64), np.zeros(4, np.uint32)]
    out = run("probe/nids-flow-fnv-atomic64", [keys.ravel(), ln, *z(), np.uint32(3), np.int32(256)], 256, policy=policy)
    slot = int(tp._p154_fnv1a(keys[:1])[0]) & 3
    assert out[2][slot] == 256 * 1500 and out[3][slot] == 256 and out[3].sum() == 256
    out = run("probe/nids-flow-fnv-atomic64", [host[0][:4 * 512], host[1][:512], np.zeros(1, np.uint64),
                                                np.zeros(1, np.uint32), np.uint32(0), np.int32(512)], 512, policy=policy)
    assert out[2][0] == host[1][:512].astype(np.uint64).sum() and out[3][0] == 512


# ---- nids-portscan-smem-bitmap ----

def _ps_check(host, out):
    bits, est, flag = tp._p154_ps_ref(*host[:3])
    assert (out[3] == bits).all() and (out[5] == flag).all()
    # float32 logf against float64: a few ulps of est (< 5000)
    assert np.allclose(out[4], est, rtol=2e-6, atol=1e-5)
    return bits, est


def test_portscan_distinct():
    n = 300
    host, out, *_ = launch("probe/nids-portscan-smem-bitmap", n)
    bits, est = _ps_check(host, out)
    assert out[5].sum() >= 1 and bits.max() > 400


def test_portscan_edges():
    # no attempts; 1000 to one service; a horizontal scan of 3000 addresses; one destination
    # for each of the 4096 bits, then 500 repeats (every bit set: the saturated estimate)
    cand = 0x0c000000 + np.arange(40000)
    b = tp._p154_dst_hash(cand, np.full(len(cand), 80)) & np.uint64(4095)
    full = cand[np.unique(b, return_index=True)[1]]
    assert len(full) == 4096
    full = np.concatenate([full, full[:500]])
    c = [0, 1000, 3000, len(full)]
    ip = np.concatenate([np.full(1000, 0x08080808), 0x0a140000 + np.arange(3000), full])
    port = np.concatenate([np.full(1000, 443), np.full(3000, 22), np.full(len(full), 80)])
    so = np.concatenate([[0], np.cumsum(c)]).astype(np.int32)
    host = [so, ip.astype(np.uint32), port.astype(np.uint16), np.zeros(4, np.int32), np.zeros(4, np.float32),
            np.zeros(4, np.uint8), np.int32(4)]
    out = run("probe/nids-portscan-smem-bitmap", host, 4, policy="random")
    bits, est = _ps_check(host, out)
    assert list(bits) == [0, 1, bits[2], 4096] and list(out[5]) == [0, 0, 1, 1]
    assert out[4][0] == 0 and abs(est[2] - 3000) < 150 and est[3] == 4096 * np.log(4096)


# ---- nids-entropy-hist-shfl ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_payload_entropy(policy):
    n = 16
    host, out, *_ = launch("probe/nids-entropy-hist-shfl", n, policy=policy)
    e, hi = tp._p154_en_ref(*host[:2])
    # 256 float32 terms -p log2 p (each within a few ulps) summed by a tree, the total <= 8
    assert np.abs(out[2] - e).max() < 2e-5 and (out[3] == hi).all() and 0 < hi.sum() < n


def test_payload_entropy_edges():
    rng = np.random.default_rng(5)
    pk = [b"", b"A" * 300, rng.permutation(256).astype(np.uint8).tobytes(), bytes(range(255)),
          b"\x00\xff" * 256, bytes(1460)]
    pay = np.frombuffer(b"".join(pk), np.uint8).copy()
    off = np.concatenate([[0], np.cumsum([len(p) for p in pk])]).astype(np.int32)
    m = len(pk)
    out = run("probe/nids-entropy-hist-shfl", [pay, off, np.zeros(m, np.float32), np.zeros(m, np.int32), np.int32(m)],
              m, policy="random")
    assert list(out[2][[0, 1, 2, 4, 5]]) == [0, 0, 8, 1, 0] and abs(out[2][3] - np.log2(255)) < 1e-5
    assert list(out[3]) == [0, 0, 1, 0, 0, 0]


# ---- nids-token-bucket-u64 ----

def test_token_bucket():
    n = 40
    host, out, *_ = launch("probe/nids-token-bucket-u64", n)
    ok, db, nd = tp._p154_tb_ref(*host[:3], host[6], host[7])
    assert (out[3] == ok).all() and (out[4] == db).all() and (out[5] == nd).all() and 0 < nd.sum() < len(ok) // 2
    # hand-made: the burst spent in one microsecond, refilled exactly in 12 ms (1500 B at
    # 125 B/ms), 1 us short of it; an idle source; a long pause refilling to the cap only
    t0 = 1_700_000_000_000_000
    ts = [t0] * 11 + [t0 + 12000, t0 + 12000 + 11999, t0 + 12000 + 12000] + [t0, t0 + 60_000_000, t0 + 60_000_000]
    ln = [1500] * 14 + [1500, 15000, 100]
    so = np.array([0, 14, 14, 17], np.int32)
    host = [so, np.array(ts, np.uint64), np.array(ln, np.uint16), np.zeros(17, np.uint8), np.zeros(3, np.uint64),
            np.zeros(3, np.int32), np.uint64(125000), np.uint64(15000), np.int32(3)]
    out = run("probe/nids-token-bucket-u64", host, 3, policy="random")
    assert list(out[3]) == [1] * 10 + [0, 1, 0, 1] + [1, 1, 0]
    assert list(out[4]) == [3000, 0, 100] and list(out[5]) == [2, 0, 1]
    assert (out[3] == tp._p154_tb_ref(*host[:3], host[6], host[7])[0]).all()


# ---- nids-gmm-anomaly-const ----

def test_gmm_score():
    n = 136                                                   # 2 blocks, the last partial
    rng = np.random.default_rng(0)
    host = tp._p154_gm_args(n, rng)
    syms = tp._p154_gm_syms(n, rng)
    x = host[0].reshape(n, 16)
    x[0] = syms["c_gm_mu"][:16]                               # on a component's mean
    x[1] = 1000.0                                             # far outside the traffic: huge q, still finite
    out = run("probe/nids-gmm-anomaly-const", host, n, symbols=syms)
    s, q = tp._p154_gm_ref(host[0], syms)
    # float32: 16-term sums of z^2 / var (relative error ~16 ulps) then log-sum-exp
    assert np.allclose(out[1], s, rtol=2e-6, atol=2e-5)
    away = np.abs(s - host[3]) > 1e-3
    assert (out[2][away] == (s[away] > host[3])).all() and out[2][1] == 1 and out[2][0] == 0
    assert 1 <= out[2].sum() < 20 and s[1] > 1e6 and np.isfinite(out[1]).all()
