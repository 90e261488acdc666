"""probe/bfs-queue-expand taken apart: which link of its per-edge chain sets its time.

Each variant expands the same frontier of the same 2^21-vertex graph
(timing_probes._u54_bfs_state) with dist and the queue restored before every launch:

- ``full``: the probe's kernel (LDG adj, CAS on dist, nvcc's aggregated ATOMG on the
  queue tail whose result places the STG, LDG of row_ptr[u + 1] again each trip);
- ``hoist``: row_ptr[u + 1] read once (``__restrict__``), the rest as ``full``;
- ``red``: the tail atomicAdd's result unused (REDG) and nothing stored in the queue;
- ``cas_only``: no tail atomic in the loop: a lane counts its claims and adds them once
  at the end;
- ``lane_add``: the tail atomicAdd of a lane-varying 1 (not aggregated: an ATOMG lane each);
- ``load_only``: no atomics: a plain load of dist[v] and a count of the -1s.

Median of 15 launches after 3 warm-ups.  From the repository root on the GPU machine:
python docs/results/timing_investigation/bfsq/bfsq_mb.py > bfsq_GPU.jsonl (with a case
name: that case once, for Nsight Compute)."""
import json
import sys

try:
    import cupy as cp
except ImportError:
    cp = None
import numpy as np

SRC = r'''
extern "C" __global__ void full(const int *row_ptr, const int *adj, const int *frontier, int nfront,
                                int *dist, int *next, int *next_len, int level) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nfront) return;
    int u = frontier[g];
    for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
        int v = adj[e];
        if (atomicCAS(&dist[v], -1, level + 1) == -1) {
            int pos = atomicAdd(next_len, 1);
            next[pos] = v;
        }
    }
}
extern "C" __global__ void hoist(const int *__restrict__ row_ptr, const int *__restrict__ adj,
                                 const int *__restrict__ frontier, int nfront, int *dist,
                                 int *next, int *next_len, int level) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nfront) return;
    int u = frontier[g];
    int end = row_ptr[u + 1];
    for (int e = row_ptr[u]; e < end; ++e) {
        int v = adj[e];
        if (atomicCAS(&dist[v], -1, level + 1) == -1) {
            int pos = atomicAdd(next_len, 1);
            next[pos] = v;
        }
    }
}
extern "C" __global__ void red(const int *row_ptr, const int *adj, const int *frontier, int nfront,
                               int *dist, int *next, int *next_len, int level) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nfront) return;
    int u = frontier[g];
    for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
        int v = adj[e];
        if (atomicCAS(&dist[v], -1, level + 1) == -1) atomicAdd(next_len, 1);
    }
}
extern "C" __global__ void cas_only(const int *row_ptr, const int *adj, const int *frontier, int nfront,
                                    int *dist, int *next, int *next_len, int level) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nfront) return;
    int u = frontier[g];
    int c = 0;
    for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
        int v = adj[e];
        if (atomicCAS(&dist[v], -1, level + 1) == -1) ++c;
    }
    if (c) atomicAdd(next_len, c);
}
extern "C" __global__ void lane_add(const int *row_ptr, const int *adj, const int *frontier, int nfront,
                                    int *dist, int *next, int *next_len, int level) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nfront) return;
    int u = frontier[g];
    for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
        int v = adj[e];
        if (atomicCAS(&dist[v], -1, level + 1) == -1) {
            int pos = atomicAdd(next_len, 1 + (v >> 30));
            next[pos] = v;
        }
    }
}
extern "C" __global__ void load_only(const int *row_ptr, const int *adj, const int *frontier, int nfront,
                                     int *dist, int *next, int *next_len, int level) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nfront) return;
    int u = frontier[g];
    int c = 0;
    for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
        int v = adj[e];
        c += dist[v] == -1;
    }
    if (c) atomicAdd(next_len, c);
}
'''
N = 1 << 21
CASES = ["full", "hoist", "red", "cas_only", "lane_add", "load_only"]


def main():
    sys.path.insert(0, ".")
    from kernels_cuda import timing_probes as tp
    row_ptr, adj, frontier, d0, lev = tp._u54_bfs_state(N)
    mod = cp.RawModule(code=SRC)
    dev = cp.cuda.Device()
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(dev.id)["name"].decode(),
                      "frontier": int(len(frontier))}), flush=True)
    rp, ad, fr = cp.asarray(row_ptr), cp.asarray(adj), cp.asarray(frontier)
    dist0 = cp.asarray(d0)
    dist, nxt, nlen = cp.empty_like(dist0), cp.zeros(N, cp.int32), cp.zeros(1, cp.int32)
    ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
    only = set(sys.argv[1:])
    g = -(-len(frontier) // 256)
    for case in CASES:
        if only and case not in only:
            continue
        f = mod.get_function(case)
        t = []
        for it in range(1 if only else 18):
            dist[...] = dist0
            nlen[...] = 0
            cp.cuda.Device().synchronize()
            ev0.record()
            f((g,), (256,), (rp, ad, fr, np.int32(len(frontier)), dist, nxt, nlen, np.int32(lev)))
            ev1.record()
            ev1.synchronize()
            if only or it >= 3:
                t.append(cp.cuda.get_elapsed_time(ev0, ev1))
        print(json.dumps({"case": case, "ms": round(float(np.median(t)), 5),
                          "found": int(nlen.get()[0])}), flush=True)


if __name__ == "__main__":
    main()
