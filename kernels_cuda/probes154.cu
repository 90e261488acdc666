// probe-unseen152: a network-security / intrusion-detection course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - ac_scan_packets: Aho-Corasick multi-pattern matching of captured packet payloads
//    (concatenated, pkt_off their offsets) against a signature set compiled on the host
//    into a full DFA (a 256-entry row of next states a state) and each state's number of
//    patterns ending there; a thread a packet walking its bytes, the matches counted and
//    the end offset of the first match stored (-1 if none);
//  - flow_count: per-flow packet and byte counters: a thread a packet, its 5-tuple (a
//    16-byte struct) hashed by FNV-1a over the tuple's 13 bytes into a table of mask + 1
//    slots (flows sharing a slot add up), a 64-bit atomicAdd of the packet's length and a
//    32-bit atomicAdd of one;
//  - portscan_distinct: a port-scan detector: a block a source host, its connection
//    attempts (dst_ip, dst_port; CSR by source) hashed into a PS_BITS-bit bitmap in shared
//    memory by atomicOr, the set bits counted by __popc and a warp-shuffle reduction, the
//    distinct destinations estimated by linear counting (-m ln(zeros / m)) and the source
//    flagged when the estimate exceeds PS_THRESH;
//  - payload_entropy: the Shannon entropy (bits a byte) of each packet's payload: a block
//    a packet, a 256-bin byte histogram by shared atomicAdd, a thread a bin's -p log2 p,
//    summed by warp shuffles and the warps' partial sums; payloads of at least EN_MIN_LEN
//    bytes above EN_HIGH bits flagged (encrypted or compressed);
//  - token_bucket: a per-source token-bucket rate limiter (rate bytes a second, burst
//    bytes) replayed over a capture: a thread a source walking its packets in time order
//    (microsecond timestamps), tokens kept in micro-bytes in 64-bit integers, each
//    packet's verdict stored (1 pass, 0 drop) and the source's dropped packets and bytes;
//  - gmm_score: anomaly scores of flow records (GM_D standardized NetFlow features) under a
//    GM_K-component diagonal Gaussian mixture trained on normal traffic (means, inverse
//    variances and log normalizers in __constant__): a thread a flow, the components'
//    log-likelihoods in a per-thread array, log-sum-exp, the negative log-likelihood
//    stored and the flow flagged above thresh.

#define AC_ALPHA 256          // ac_scan_packets: a DFA row (bytes)
#define PS_BITS 4096          // portscan_distinct: bitmap bits (blockDim.x == PS_BITS / 32)
#define PS_WORDS 128
#define PS_THRESH 100.0f      // portscan_distinct: distinct destinations that make a scanner
#define EN_MIN_LEN 256        // payload_entropy: the shortest payload flagged
#define EN_HIGH 7.0f          // payload_entropy: bits a byte above which a payload is flagged
#define GM_K 32               // gmm_score: mixture components
#define GM_D 16               // gmm_score: features a flow

struct FlowKey {
    unsigned int saddr;
    unsigned int daddr;
    unsigned short sport;
    unsigned short dport;
    unsigned char proto;
    unsigned char tcp_flags;   // not part of the flow's identity
    unsigned short vlan;       // not part of the flow's identity
};

// gmm_score's model (set by the host): component k's means and inverse variances at
// k * GM_D .. k * GM_D + GM_D - 1, its log weight minus its normalizer in c_gm_logc[k]
__constant__ float c_gm_mu[GM_K * GM_D];
__constant__ float c_gm_ivar[GM_K * GM_D];
__constant__ float c_gm_logc[GM_K];

// FNV-1a over the low nbytes bytes of v, least significant first
__device__ unsigned int fnv1a_bytes(unsigned int h, unsigned int v, int nbytes) {
    for (int b = 0; b < nbytes; b++) {
        h ^= (v >> (8 * b)) & 0xffu;
        h *= 16777619u;
    }
    return h;
}

// a destination (address, port) hashed to a bit of the port-scan bitmap
__device__ unsigned int dst_hash(unsigned int ip, unsigned int port) {
    unsigned int h = ip * 0x9E3779B1u ^ port * 0x85EBCA6Bu;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    return h;
}

extern "C" {

// the matches of the DFA's patterns in each of n packets: payload[pkt_off[i] .. pkt_off[i + 1]]
// packet i, delta[s * AC_ALPHA + c] the state after byte c in state s (0 the root),
// out_cnt[s] the patterns that end on reaching s
__global__ void ac_scan_packets(const unsigned char *payload, const int *pkt_off, const int *delta,
                                const int *out_cnt, int *match_cnt, int *first_end, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int beg = pkt_off[i];
    int end = pkt_off[i + 1];
    int s = 0;
    int cnt = 0;
    int first = -1;
    for (int j = beg; j < end; j++) {
        s = delta[s * AC_ALPHA + payload[j]];
        int o = out_cnt[s];
        if (o > 0) {
            cnt += o;
            if (first < 0) first = j - beg;
        }
    }
    match_cnt[i] = cnt;
    first_end[i] = first;
}

// packets and bytes of each flow slot: n packets' keys and IP lengths, slot
// fnv1a(saddr, daddr, sport, dport, proto) & mask
__global__ void flow_count(const FlowKey *keys, const unsigned short *len, unsigned long long *bytes,
                           unsigned int *pkts, unsigned int mask, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    FlowKey k = keys[i];
    unsigned int h = 2166136261u;
    h = fnv1a_bytes(h, k.saddr, 4);
    h = fnv1a_bytes(h, k.daddr, 4);
    h = fnv1a_bytes(h, k.sport, 2);
    h = fnv1a_bytes(h, k.dport, 2);
    h = fnv1a_bytes(h, k.proto, 1);
    unsigned int slot = h & mask;
    atomicAdd(&bytes[slot], (unsigned long long)len[i]);
    atomicAdd(&pkts[slot], 1u);
}

// distinct destinations of each of n sources (a block a source, blockDim.x == PS_WORDS):
// its attempts dst_ip[j], dst_port[j] for j in src_off[s] .. src_off[s + 1]
__global__ void portscan_distinct(const int *src_off, const unsigned int *dst_ip, const unsigned short *dst_port,
                                  int *bits_set, float *est, unsigned char *scanner, int n) {
    __shared__ unsigned int bitmap[PS_WORDS];
    __shared__ int warp_sum[PS_WORDS / 32];
    int s = blockIdx.x;
    int t = threadIdx.x;
    bitmap[t] = 0;
    __syncthreads();
    int beg = src_off[s];
    int end = src_off[s + 1];
    for (int j = beg + t; j < end; j += blockDim.x) {
        unsigned int h = dst_hash(dst_ip[j], dst_port[j]);
        unsigned int b = h & (PS_BITS - 1);
        atomicOr(&bitmap[b >> 5], 1u << (b & 31));
    }
    __syncthreads();
    int c = __popc(bitmap[t]);
    for (int off = 16; off > 0; off >>= 1) c += __shfl_down_sync(0xffffffff, c, off);
    if ((t & 31) == 0) warp_sum[t >> 5] = c;
    __syncthreads();
    if (t == 0) {
        int total = 0;
        for (int w = 0; w < PS_WORDS / 32; w++) total += warp_sum[w];
        int zeros = PS_BITS - total;
        float e;
        if (zeros == 0) e = PS_BITS * logf((float)PS_BITS);       // saturated
        else e = -PS_BITS * logf((float)zeros / PS_BITS);
        bits_set[s] = total;
        est[s] = e;
        scanner[s] = e > PS_THRESH ? 1 : 0;
    }
}

// the byte entropy of each of n payloads (a block a packet, blockDim.x == 256)
__global__ void payload_entropy(const unsigned char *payload, const int *pkt_off, float *ent, int *high, int n) {
    __shared__ int hist[256];
    __shared__ float part[8];
    int p = blockIdx.x;
    int t = threadIdx.x;
    hist[t] = 0;
    __syncthreads();
    int beg = pkt_off[p];
    int len = pkt_off[p + 1] - beg;
    for (int j = t; j < len; j += blockDim.x) atomicAdd(&hist[payload[beg + j]], 1);
    __syncthreads();
    float h = 0.0f;
    int c = hist[t];
    if (c > 0) {
        float q = (float)c / (float)len;
        h = -q * log2f(q);
    }
    for (int off = 16; off > 0; off >>= 1) h += __shfl_down_sync(0xffffffff, h, off);
    if ((t & 31) == 0) part[t >> 5] = h;
    __syncthreads();
    if (t == 0) {
        float e = 0.0f;
        for (int w = 0; w < 8; w++) e += part[w];
        ent[p] = e;
        high[p] = (len >= EN_MIN_LEN && e > EN_HIGH) ? 1 : 0;
    }
}

// a token bucket (rate bytes/s, burst bytes, full at a source's first packet) replayed over
// each of n sources' packets ts[j] (microseconds, ascending), len[j] (bytes) for j in
// src_off[s] .. src_off[s + 1]
__global__ void token_bucket(const int *src_off, const unsigned long long *ts, const unsigned short *len,
                             unsigned char *pass, unsigned long long *drop_bytes, int *drops,
                             unsigned long long rate, unsigned long long burst, int n) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n) return;
    int beg = src_off[s];
    int end = src_off[s + 1];
    unsigned long long cap = burst * 1000000ull;      // micro-bytes
    unsigned long long tokens = cap;
    unsigned long long last = 0;
    if (beg < end) last = ts[beg];
    unsigned long long dropped = 0;
    int nd = 0;
    for (int j = beg; j < end; j++) {
        unsigned long long t = ts[j];
        tokens += (t - last) * rate;                   // rate bytes/s = micro-bytes/us
        if (tokens > cap) tokens = cap;
        last = t;
        unsigned long long cost = (unsigned long long)len[j] * 1000000ull;
        if (tokens >= cost) {
            tokens -= cost;
            pass[j] = 1;
        } else {
            pass[j] = 0;
            dropped += len[j];
            nd++;
        }
    }
    drop_bytes[s] = dropped;
    drops[s] = nd;
}

// the negative log-likelihood of each of n flows x[i * GM_D ..] under the mixture, flagged
// (anom 1) above thresh
__global__ void gmm_score(const float *x, float *score, int *anom, float thresh, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi[GM_D];
    for (int d = 0; d < GM_D; d++) xi[d] = x[i * GM_D + d];
    float ll[GM_K];
    float m = -FLT_MAX;
    for (int k = 0; k < GM_K; k++) {
        float q = 0.0f;
        for (int d = 0; d < GM_D; d++) {
            float z = xi[d] - c_gm_mu[k * GM_D + d];
            q += z * z * c_gm_ivar[k * GM_D + d];
        }
        ll[k] = c_gm_logc[k] - 0.5f * q;
        m = fmaxf(m, ll[k]);
    }
    float sum = 0.0f;
    for (int k = 0; k < GM_K; k++) sum += expf(ll[k] - m);
    float nll = -(m + logf(sum));
    score[i] = nll;
    anom[i] = nll > thresh ? 1 : 0;
}

}
