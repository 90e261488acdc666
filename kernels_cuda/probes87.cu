// probe-unseen85: a computer-networking / packet-processing course's CUDA assignments, as
// a student who knows CUDA basics hands them in (a thread a packet in every one):
//  - ipv4_forward: a router's fast path over IPv4 headers kept in 64-byte slots (up to
//    60 header bytes, IHL 5 .. 15 with options): the header checksum verified byte by
//    byte as 16-bit one's-complement words (version, IHL and checksum checked), then TTL
//    decremented with RFC 1624's incremental checksum update HC' = ~(~HC + ~m + m');
//    a status per packet (forwarded, bad header, TTL expired);
//  - lpm_lookup: longest-prefix match of IPv4 destinations in a leaf-pushed multibit trie
//    of 8-bit strides in global memory (256-entry nodes, an entry a next hop or, with the
//    top bit set, a child node's index): up to four dependent loads a lookup;
//  - acl_classify: first-match packet classification of 5-tuples against an ordered
//    access-control list kept field by field in __constant__ memory (masked source and
//    destination prefixes, a protocol or any, source and destination port ranges), the
//    rule's index stored; the list ends with a catch-all;
//  - rss_toeplitz: receive-side scaling: the Microsoft Toeplitz hash of (source address,
//    destination address, source port, destination port) with a 40-byte key, a bit of the
//    input at a time, the queue from a 128-entry indirection table, the packets a queue
//    counted in shared memory and added to the global counts once a block;
//  - cms_update: per-flow byte accounting in a count-min sketch (CMS_DEPTH rows of
//    CMS_WIDTH 32-bit counters): the 5-tuple hashed by MurmurHash3 with a seed a row, the
//    packet's length atomicAdded into one counter of each row;
//  - ids_scan: an intrusion-detection payload scan: an Aho-Corasick automaton over bytes
//    (a full DFA table of unsigned shorts, states x 256) staged in shared memory, each
//    thread walking its packet's payload a byte at a time, the patterns seen OR-ed into a
//    bit mask and alerting packets counted by one atomicAdd each.

#define HDR_SLOT 64              // ipv4_forward: bytes a header's slot
#define ST_FORWARD 0
#define ST_BAD_HEADER 1
#define ST_TTL_EXPIRED 2

#define TRIE_FANOUT 256          // lpm_lookup: 8-bit strides
#define TRIE_LEVELS 4
#define TRIE_CHILD 0x80000000u   // an entry with this bit is a child node's index

#define ACL_MAX_RULES 1024       // acl_classify: room in the __constant__ tables

#define RSS_KEY_LEN 40           // rss_toeplitz: the key's bytes
#define RSS_INDIR 128            // the indirection table's entries (a power of 2)
#define RSS_QUEUES 16            // receive queues

#define CMS_DEPTH 4              // cms_update: rows (hash functions)
#define CMS_WIDTH 65536          // counters a row (a power of 2)

#define AC_MAX_STATES 88         // ids_scan: the automaton's states at most (44 KiB of shared)

// acl_classify's rules (set by the host), rule r: (src & src_mask) == src_ip,
// (dst & dst_mask) == dst_ip, proto == c_acl_proto[r] unless that is 0 (any), and the
// ports within [lo, hi] packed as lo | hi << 16
__constant__ unsigned int c_acl_src_ip[ACL_MAX_RULES];
__constant__ unsigned int c_acl_src_mask[ACL_MAX_RULES];
__constant__ unsigned int c_acl_dst_ip[ACL_MAX_RULES];
__constant__ unsigned int c_acl_dst_mask[ACL_MAX_RULES];
__constant__ unsigned int c_acl_sport[ACL_MAX_RULES];
__constant__ unsigned int c_acl_dport[ACL_MAX_RULES];
__constant__ unsigned int c_acl_proto[ACL_MAX_RULES];

// rss_toeplitz's secret key and indirection table (set by the host)
__constant__ unsigned char c_rss_key[RSS_KEY_LEN];
__constant__ unsigned char c_rss_indir[RSS_INDIR];

// cms_update's seeds, one a row (set by the host)
__constant__ unsigned int c_cms_seed[CMS_DEPTH];

extern "C" {

// verify an IPv4 header and forward it: decrement TTL, patch the checksum
__global__ void ipv4_forward(unsigned char *hdr, unsigned char *status, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned char *h = hdr + (size_t)i * HDR_SLOT;
    int version = h[0] >> 4;
    int ihl = h[0] & 0x0f;                       // header length in 32-bit words
    if (version != 4 || ihl < 5) {
        status[i] = ST_BAD_HEADER;
        return;
    }
    // one's-complement sum of the header's 16-bit words, checksum field included
    unsigned int sum = 0;
    for (int k = 0; k < ihl * 4; k += 2) sum += (h[k] << 8) | h[k + 1];
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    if (sum != 0xffff) {
        status[i] = ST_BAD_HEADER;
        return;
    }
    int ttl = h[8];
    if (ttl <= 1) {
        status[i] = ST_TTL_EXPIRED;              // would send ICMP time exceeded
        return;
    }
    // RFC 1624 eqn. 3: the word holding TTL and protocol changes from m to m'
    unsigned int m_old = (ttl << 8) | h[9];
    unsigned int m_new = ((ttl - 1) << 8) | h[9];
    unsigned int hc = (h[10] << 8) | h[11];
    unsigned int s = (~hc & 0xffff) + (~m_old & 0xffff) + m_new;
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    hc = ~s & 0xffff;
    h[8] = ttl - 1;
    h[10] = hc >> 8;
    h[11] = hc & 0xff;
    status[i] = ST_FORWARD;
}

// longest-prefix match of n IPv4 addresses in a leaf-pushed 8-8-8-8 multibit trie (the
// root is node 0); a next hop of 0 means no route
__global__ void lpm_lookup(const unsigned int *trie, const unsigned int *addr, unsigned int *next_hop, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int a = addr[i];
    unsigned int node = 0;
    unsigned int e = 0;
    for (int level = 0; level < TRIE_LEVELS; level++) {
        unsigned int chunk = (a >> (24 - 8 * level)) & 0xff;
        e = trie[node * TRIE_FANOUT + chunk];
        if (!(e & TRIE_CHILD)) break;            // a next hop: done
        node = e & ~TRIE_CHILD;
    }
    next_hop[i] = e;
}

// the first of nrules ACL rules each packet matches (-1 if none)
__global__ void acl_classify(const unsigned int *src, const unsigned int *dst, const unsigned int *ports,
                             const unsigned char *proto, int *match, int nrules, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int s = src[i];
    unsigned int d = dst[i];
    unsigned int sp = ports[i] >> 16;
    unsigned int dp = ports[i] & 0xffff;
    unsigned int pr = proto[i];
    int m = -1;
    for (int r = 0; r < nrules; r++) {
        if ((s & c_acl_src_mask[r]) != c_acl_src_ip[r]) continue;
        if ((d & c_acl_dst_mask[r]) != c_acl_dst_ip[r]) continue;
        if (c_acl_proto[r] != 0 && c_acl_proto[r] != pr) continue;
        unsigned int sr = c_acl_sport[r];
        unsigned int dr = c_acl_dport[r];
        if (sp < (sr & 0xffff) || sp > (sr >> 16)) continue;
        if (dp < (dr & 0xffff) || dp > (dr >> 16)) continue;
        m = r;
        break;
    }
    match[i] = m;
}

// the Toeplitz RSS hash of each packet's (src, dst, sport, dport), big-endian as on the
// wire, its receive queue, and the packets a queue (queue_count, added to)
__global__ void rss_toeplitz(const unsigned int *src, const unsigned int *dst, const unsigned int *ports,
                             unsigned int *hash, unsigned char *queue, unsigned int *queue_count, int n) {
    __shared__ unsigned int s_count[RSS_QUEUES];
    if (threadIdx.x < RSS_QUEUES) s_count[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int in[3];
        in[0] = src[i];
        in[1] = dst[i];
        in[2] = ports[i];                        // sport << 16 | dport
        // v: the 32 key bits starting at the current input bit
        unsigned int v = (c_rss_key[0] << 24) | (c_rss_key[1] << 16) | (c_rss_key[2] << 8) | c_rss_key[3];
        unsigned int h = 0;
        for (int w = 0; w < 3; w++) {
            for (int b = 31; b >= 0; b--) {
                if ((in[w] >> b) & 1) h ^= v;
                int kb = 32 * w + 63 - b;        // the key bit that slides in
                v = (v << 1) | ((c_rss_key[kb >> 3] >> (7 - (kb & 7))) & 1);
            }
        }
        int q = c_rss_indir[h & (RSS_INDIR - 1)];
        hash[i] = h;
        queue[i] = q;
        atomicAdd(&s_count[q], 1u);
    }
    __syncthreads();
    if (threadIdx.x < RSS_QUEUES) atomicAdd(&queue_count[threadIdx.x], s_count[threadIdx.x]);
}

__device__ unsigned int rotl32(unsigned int x, int r) {
    return (x << r) | (x >> (32 - r));
}

// MurmurHash3's block mix
__device__ unsigned int murmur_mix(unsigned int h, unsigned int k) {
    k *= 0xcc9e2d51u;
    k = rotl32(k, 15);
    k *= 0x1b873593u;
    h ^= k;
    h = rotl32(h, 13);
    return h * 5 + 0xe6546b64u;
}

// MurmurHash3_x86_32 of the 16-byte key (src, dst, ports, proto) with a seed
__device__ unsigned int flow_hash(unsigned int src, unsigned int dst, unsigned int ports, unsigned int proto,
                                  unsigned int seed) {
    unsigned int h = seed;
    h = murmur_mix(h, src);
    h = murmur_mix(h, dst);
    h = murmur_mix(h, ports);
    h = murmur_mix(h, proto);
    h ^= 16;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

// add each packet's length to its flow's counter in every row of the count-min sketch
__global__ void cms_update(const unsigned int *src, const unsigned int *dst, const unsigned int *ports,
                           const unsigned char *proto, const unsigned short *len, unsigned int *sketch, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int s = src[i];
    unsigned int d = dst[i];
    unsigned int p = ports[i];
    unsigned int pr = proto[i];
    unsigned int bytes = len[i];
    for (int r = 0; r < CMS_DEPTH; r++) {
        unsigned int h = flow_hash(s, d, p, pr, c_cms_seed[r]);
        atomicAdd(&sketch[r * CMS_WIDTH + (h & (CMS_WIDTH - 1))], bytes);
    }
}

// scan each packet's payload (bytes offset[i] .. offset[i + 1]) with an Aho-Corasick DFA
// of nstates states (trans: nstates x 256, out: each state's pattern bits)
__global__ void ids_scan(const unsigned char *payload, const unsigned int *offset, const unsigned short *trans,
                         const unsigned int *out, unsigned int *alerts, unsigned int *n_alert, int nstates, int n) {
    __shared__ unsigned short s_trans[AC_MAX_STATES * 256];
    __shared__ unsigned int s_out[AC_MAX_STATES];
    for (int k = threadIdx.x; k < nstates * 256; k += blockDim.x) s_trans[k] = trans[k];
    for (int k = threadIdx.x; k < nstates; k += blockDim.x) s_out[k] = out[k];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int beg = offset[i];
    unsigned int end = offset[i + 1];
    int state = 0;
    unsigned int found = 0;
    for (unsigned int k = beg; k < end; k++) {
        state = s_trans[state * 256 + payload[k]];
        found |= s_out[state];
    }
    alerts[i] = found;
    if (found) atomicAdd(n_alert, 1u);
}

}
