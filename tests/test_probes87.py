"""probe-unseen85's kernels (kernels_cuda/probes87.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import ipaddress

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/ipv4-ttl-checksum", "probe/lpm-multibit-trie", "probe/acl-first-match-const",
       "probe/rss-toeplitz-queues", "probe/cms-flow-bytes", "probe/ids-aho-corasick-smem"]

# Microsoft's RSS verification suite: (source, sport, destination, dport, IPv4-only hash, with TCP ports)
RSS_VECTORS = [("66.9.149.187", 2794, "161.142.100.80", 1766, 0x323e8fc2, 0x51ccc178),
               ("199.92.111.2", 14230, "65.69.140.83", 4739, 0xd718262a, 0xc626b0ea),
               ("24.19.198.95", 12898, "12.22.207.184", 38024, 0xd2d0a5de, 0x5c2b394a),
               ("38.27.205.30", 48228, "209.142.163.6", 2217, 0x82989176, 0xafc7327f),
               ("153.39.163.191", 44251, "202.188.127.2", 1303, 0x5d1809c5, 0x10e828a2)]


def ip(s):
    return int(ipaddress.IPv4Address(s))


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen85"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes87.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 12
    # ipv4: IHL 5 for ~75%, checksums right but for ~2%, ~1% TTL 1
    hdr, st, nn = tp._p87_ipv4_args(n, rng)
    h = hdr.reshape(n, 64)
    ihl = h[:, 0] & 15
    assert hdr.dtype == np.uint8 and nn == n and (h[:, 0] >> 4 == 4).all() and ihl.min() == 5 and ihl.max() == 15
    assert abs((ihl == 5).mean() - (1 - tp.P87_OPT)) < 0.03
    good = tp._p87_hdr_sum(h) == 0xffff
    assert 0.01 < (~good).mean() < 0.03
    tot = h[:, 2].astype(int) * 256 + h[:, 3]
    assert (tot >= ihl * 4)[good].all() and (h[good, 8] >= 1).all() and 0.004 < (h[:, 8] == 1).mean() < 0.02
    _, status = tp._p87_ipv4_ref(hdr)
    assert set(np.unique(status)) == {0, 1, 2} and (status == 1).sum() == (~good).sum()
    # lpm: a BGP-like table without duplicates, host bits zero, the trie agreeing with it
    ln, pfx, nh = tp._p87_routes()
    key = ln.astype(np.uint64) << np.uint64(32) | pfx
    assert len(np.unique(key)) == len(ln) > 25000 and 0.45 < (ln == 24).mean() < 0.6 and ln.min() == 8
    assert ((pfx.astype(np.uint64) & ((np.uint64(1) << (32 - ln).astype(np.uint64)) - np.uint64(1))) == 0).all()
    assert nh.min() >= 1 and nh.max() <= 64
    trie, addr, out, nn = tp._p87_lpm_args(n, rng)
    assert trie.dtype == np.uint32 and len(trie) % 256 == 0 and 15000 < len(trie) // 256 < 20000
    ref, mlen = tp._p87_lpm_ref(addr)
    assert 0.85 <= (mlen >= 0).mean() < 0.93
    d = tp._p87_trie_depth(addr)
    assert 2.6 < d.mean() < 3.0 and d.min() >= 1 and 0.8 < (d == 3).mean() < 0.9
    # walk the trie in numpy: the table's answer
    node, res, live = np.zeros(n, np.int64), np.zeros(n, np.uint32), np.ones(n, bool)
    for lv in range(4):
        e = trie[node * 256 + ((addr.astype(np.int64) >> (24 - 8 * lv)) & 255)]
        res = np.where(live, e, res)
        live &= (e & tp.P87_TRIE_CHILD) != 0
        node = np.where(live, e & 0x7fffffff, 0)
    assert (res == ref).all() and not live.any()
    # acl: specific rules first, a catch-all last; packets aimed at rules match them or earlier ones
    rules = tp._p87_acl_rules()
    assert all(f.dtype == np.uint32 and len(f) == tp.P87_ACL_RULES for f in rules)
    si, sm, di, dm, sp, dp, pr = rules
    assert (si & ~sm == 0).all() and (di & ~dm == 0).all() and sm[-1] == dm[-1] == pr[-1] == 0
    assert sp[-1] == dp[-1] == 65535 << 16 and ((sp & 0xffff) <= sp >> 16).all() and ((dp & 0xffff) <= dp >> 16).all()
    syms = tp._p87_acl_syms(n, rng)
    assert len(syms) == 7 and all(v.shape == (tp.P87_ACL_MAX,) for v in syms.values())
    src, dst, ports, proto, match, nr, nn = tp._p87_acl_args(n, rng)
    assert nr == tp.P87_ACL_RULES and proto.dtype == np.uint8 and set(np.unique(proto)) <= {6, 17}
    m = tp._p87_acl_ref(src, dst, ports, proto)
    assert (m >= 0).all() and 0.5 < (m < 32).mean() < 0.7 and 10 < np.median(m) < 50 and m.mean() > 100
    assert m.reshape(-1, 32).max(axis=1).mean() > 480
    # traces: Zipf flows, a few elephant ones; lengths as P87_LENS
    s, dd, pp, pro, ln = tp._p87_trace(1 << 16, rng)
    flows, cnt = np.unique(s.astype(np.uint64) << np.uint64(32) | dd, return_counts=True)
    assert 0.08 < cnt.max() / len(s) < 0.2 and len(flows) > 10000
    assert ((pp >> 16) >= 32768).all() and set(np.unique(pp & 0xffff)) == {22, 53, 80, 443}
    assert ((pro == 17) == ((pp & 0xffff) == 53)).all() and ln.min() >= 64 and ln.max() <= 1500
    assert abs((ln == 64).mean() - 0.45) < 0.02 and abs((ln == 1500).mean() - 0.35) < 0.02
    rss = tp._p87_rss_args(n, rng)
    assert len(rss) == 7 and rss[5].shape == (16,)
    sk = tp._p87_cms_args(n, rng)[5]
    assert sk.dtype == np.uint32 and len(sk) == 4 * 65536
    # RSS: the reference gives Microsoft's published hashes
    a = np.array([[ip(v[0]), ip(v[2]), v[1] << 16 | v[3]] for v in RSS_VECTORS], np.uint32)
    assert list(tp._p87_rss_ref(*a.T)[0]) == [v[5] for v in RSS_VECTORS]
    two = a[:, :2].astype(">u4").view(np.uint8).reshape(-1, 8)
    assert list(tp._p87_toeplitz(two)) == [v[4] for v in RSS_VECTORS]
    # ids: 86 states in 43 KiB; the automaton finds what bytes.find does; ~3% alerting
    pay, off, trans, out, al, na, ns, nn = tp._p87_ids_args(n, rng)
    assert ns == len(out) == 86 <= tp.P87_AC_MAX and trans.dtype == np.uint16 and trans.max() < ns
    ln = np.diff(off.astype(np.int64))
    assert off[0] == 0 and off[-1] == len(pay) and ln.min() >= 64 and ln.max() == tp.P87_SNAP == 256
    assert 0.57 < (ln == 256).mean() < 0.62 and (ln.reshape(-1, 32).max(axis=1) == 256).all()
    kinds = [np.isin(pay[off[i]:off[i + 1]], np.frombuffer(b"".join(map(str.encode, tp.P87_IDS_WORDS)),
                                                            np.uint8)).all() for i in range(300)]
    assert 0.3 < np.mean(kinds) < 0.5                                               # the text payloads
    ref = tp._p87_ids_ref(pay, off)
    assert 0.02 < (ref != 0).mean() < 0.05 and (np.bitwise_or.reduce(ref) == (1 << 12) - 1)
    T = trans.reshape(ns, 256)
    for i in range(200):
        st, f = 0, 0
        for c in pay[off[i]:off[i + 1]]:
            st = T[st, c]
            f |= out[st]
        assert f == ref[i]


# ---- ipv4-ttl-checksum ----

def test_ipv4_forward():
    rng = np.random.default_rng(3)
    n = 600                                                 # 3 blocks, the last partial
    host = tp._p87_ipv4_args(n, rng)
    h = host[0].reshape(n, 64)
    h[0, 8] = 1                                             # TTL 1, TTL 2, TTL 0 (expired)
    h[1, 8] = 2
    h[2, 8] = 0
    h[3, 0] = 0x66                                          # version 6, IHL 4
    h[4, 0] = 0x44
    h[5, 0], h[5, 8] = 0x4f, 30                             # IHL 15: 60 bytes summed
    h[6, 0], h[6, 8] = 0x45, 30
    tp._p87_set_csum(h[:7])                                 # each re-checksummed
    h[6, 12] ^= 0x80                                        # then a flipped source-address bit
    # a header whose checksum field is 0x0000 (~HC = 0xffff in the patch)
    h[7, 0], h[7, 8], h[7, 9], h[7, 10:12] = 0x45, 65, 6, 0
    sm = int(tp._p87_hdr_sum(h[7:8])[0])
    need = (0xffff - sm) % 0xffff                           # add this to the last word to sum to 0xffff
    w = (int(h[7, 18]) << 8 | int(h[7, 19])) + need
    w = (w & 0xffff) + (w >> 16)
    h[7, 18], h[7, 19] = w >> 8, w & 0xff
    assert tp._p87_hdr_sum(h[7:8])[0] == 0xffff and h[7, 10] == h[7, 11] == 0
    ref_h, ref_st = tp._p87_ipv4_ref(host[0])
    hdr, st, _ = run("probe/ipv4-ttl-checksum", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    assert (st == ref_st).all() and list(st[:8]) == [2, 0, 2, 1, 1, 0, 1, 0]
    assert (hdr == ref_h).all()
    g = hdr.reshape(n, 64)
    assert (tp._p87_hdr_sum(g[st == 0]) == 0xffff).all() and g[1, 8] == 1
    assert (g[st == 0, 8] == h[st == 0, 8] - 1).all() and (g[st != 0] == h[st != 0]).all()
    keep = np.r_[0:8, 9, 12:64]
    assert (g[:, keep] == h[:, keep]).all()                 # only TTL and the checksum written
    assert 0.015 < (st == 1).mean() < 0.04


# ---- lpm-multibit-trie ----

def test_lpm_lookup():
    n = 700
    rng = np.random.default_rng(4)
    host = tp._p87_lpm_args(n, rng)
    ln, pfx, nh = tp._p87_routes()
    r24, r8 = np.flatnonzero(ln == 24)[5], np.flatnonzero(ln == 8)[0]
    r32 = np.flatnonzero(ln == 32)[0]
    host[1][:8] = [0, 0xffffffff, pfx[r24], pfx[r24] | 0xff, pfx[r8] | 0xabcdef, pfx[r32], pfx[r32] ^ 1,
                   pfx[r32] ^ 0x100]
    _, addr, out, _ = run("probe/lpm-multibit-trie", host, n)
    ref, mlen = tp._p87_lpm_ref(addr)
    assert (out == ref).all()
    assert out[0] == 0 and out[2] == out[3] == nh[r24] and out[5] == nh[r32] and mlen[5] == 32
    assert mlen[6] < 32 and mlen[4] >= 8
    assert (mlen < 0).any() and len(np.unique(mlen[mlen >= 0])) > 8
    d = tp._p87_trie_depth(addr)
    assert set(np.unique(d)) == {1, 2, 3, 4}


# ---- acl-first-match-const ----

def test_acl_classify():
    n = 260                                                 # 2 blocks, the last partial
    host, (src, dst, ports, proto, match, *_), *_ = launch("probe/acl-first-match-const", n)
    assert (match == tp._p87_acl_ref(src, dst, ports, proto)).all()
    assert (match >= 0).all() and (match < 32).any() and match.max() > 480


def test_acl_short_list_and_port_edges():
    # the list cut after the first rule with a 64-port destination range (packets matching
    # none: -1); packets on the edges of that range (inside at both ends, then one port
    # outside each end)
    n = 400
    rng = np.random.default_rng(5)
    host = tp._p87_acl_args(n, rng)
    si, sm, di, dm, sp, dp, pr = tp._p87_acl_rules()
    r = next(k for k in range(tp.P87_ACL_RULES) if (dp[k] >> 16) - (dp[k] & 0xffff) == 63)
    nrules = r + 1
    assert 32 < nrules < 100
    lo, hi = dp[r] & 0xffff, dp[r] >> 16
    for j, d_ in enumerate([lo, hi, lo - 1, hi + 1]):
        host[0][j] = si[r] | (0x1234 & ~sm[r])
        host[1][j] = di[r] | (0x4321 & ~dm[r])
        host[2][j] = (sp[r] >> 16) << 16 | d_
        host[3][j] = pr[r] or 6
    host[5] = np.int32(nrules)
    src, dst, ports, proto, match, *_ = run("probe/acl-first-match-const", host, n, symbols=tp._p87_acl_syms(n, rng))
    ref = tp._p87_acl_ref(src, dst, ports, proto, nrules=nrules)
    assert (match == ref).all()
    assert match[0] <= r and match[1] <= r and match[2] != r and match[3] != r
    assert (match < 0).any() and (match >= 0).mean() > 0.5 and match.max() < nrules


# ---- rss-toeplitz-queues ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_rss_toeplitz(policy):
    n = 300
    rng = np.random.default_rng(6)
    host = tp._p87_rss_args(n, rng)
    for k, v in enumerate(RSS_VECTORS):
        host[0][k], host[1][k], host[2][k] = ip(v[0]), ip(v[2]), v[1] << 16 | v[3]
    host[5][:] = 7                                          # the counts are added to
    out = run("probe/rss-toeplitz-queues", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n,
              policy=policy, symbols=tp._p87_rss_syms(n, rng))
    h, q, cnt = tp._p87_rss_ref(*host[:3])
    assert list(out[3][:5]) == [v[5] for v in RSS_VECTORS]
    assert (out[3] == h).all() and (out[4] == q).all() and (out[5] == cnt + 7).all()
    assert out[5].sum() == n + 16 * 7 and (cnt > 0).sum() >= 14


# ---- cms-flow-bytes ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_cms_update(policy):
    n = 700
    host, out, *_ = launch("probe/cms-flow-bytes", n, policy=policy)
    sk, cols = tp._p87_cms_ref(*host[:5])
    assert (out[5] == sk).all() and out[5].sum() == 4 * host[4].astype(np.int64).sum()
    # a count-min estimate never falls below the flow's true bytes; the elephant's is exact-ish
    key = host[0].astype(np.uint64) << np.uint64(32) | host[1]
    flows, first, inv = np.unique(key, return_index=True, return_inverse=True)
    true = np.bincount(inv, weights=host[4].astype(np.float64))
    est = out[5].reshape(4, -1)[np.arange(4)[:, None], cols[:, first]].min(axis=0)
    assert (est >= true).all() and (est == true).mean() > 0.9
    # a warp's lanes on one counter: the heavy flows
    assert max(32 - len(np.unique(c)) for c in cols[0][:672].reshape(-1, 32)) >= 3


# ---- ids-aho-corasick-smem ----

def ids_host(payloads, rng):
    """ids_scan's arguments for the given payloads (the probe's DFA)."""
    n = len(payloads)
    host = tp._p87_ids_args(n, rng)
    off = np.r_[0, np.cumsum([len(p) for p in payloads])].astype(np.uint32)
    host[0] = np.frombuffer(b"".join(payloads), np.uint8).copy()
    host[1] = off
    return host


def test_ids_scan():
    rng = np.random.default_rng(7)
    base = tp._p87_ids_args(150, rng)
    pay, off = base[0], base[1].astype(np.int64)
    # the probe's payloads cut to 40 .. 120 bytes (the emulator is slow on 1460-byte loops),
    # then hand-made ones: signatures at the start and the end, overlapping ones, one split
    # across two packets (no alert), an empty payload, a near miss
    payloads = [pay[off[i]:off[i] + rng.integers(40, 120)].tobytes() for i in range(80)]
    pat = tp.P87_AC_PATTERNS
    payloads[:10] = [b"/etc/passwd and more", b"GET /x HTTP/1.1\r\n\r\nwget ", b"x../../etc/passwd%00",
                     b"UNION SELECTcmd.exe<script", b"GET /cgi-bin/a.sh HTTP/1.1 () { :; }; /bin/sh",
                     b"xxxx/etc/pas", b"swd yyyy", b"", b"UNION SELEC", b"\x90" * 20]
    host = ids_host(payloads, rng)
    for i in (12, 30, 77):                                  # signatures in the probe's own payloads
        p = pat[i % len(pat)]
        at = host[1][i] + 5
        host[0][at:at + len(p)] = np.frombuffer(p, np.uint8)
    n = len(payloads)
    out = run("probe/ids-aho-corasick-smem", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n,
              policy="random")
    ref = tp._p87_ids_ref(host[0], host[1])
    bit = {p: 1 << k for k, p in enumerate(pat)}
    assert list(ref[:10]) == [bit[b"/etc/passwd"], bit[b"wget "], bit[b"../../"] | bit[b"/etc/passwd"] | bit[b"%00"],
                              bit[b"UNION SELECT"] | bit[b"cmd.exe"] | bit[b"<script"], bit[b"() {"] | bit[b"/bin/sh"],
                              0, 0, 0, 0, bit[b"\x90" * 8]]
    assert (out[4] == ref).all() and out[5][0] == (ref != 0).sum() and (ref[10:] != 0).sum() >= 3
