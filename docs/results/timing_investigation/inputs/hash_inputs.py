"""A digest of each probe's inputs at its default size (seed 0): the arrays' bytes and the
scalars, as the GPU run and the prediction see them.  Inputs drawn from floating-point
sums can differ between CPUs (numpy's SIMD reductions round by the machine's vector
width), so a prediction made on one machine can be of other data than the GPU machine
measured (brandes-level-double, ../blocktail/README.md).  Run it on both and compare:

    python docs/results/timing_investigation/inputs/hash_inputs.py OUT.json JOBS FAMILY...
    python docs/results/timing_investigation/inputs/hash_inputs.py --diff A.json B.json
"""
import hashlib, json, multiprocessing, sys, time

import numpy as np


def digest(pid):
    from kernels_cuda import timing_probes
    t0 = time.time()
    p = timing_probes.get(pid)
    h = hashlib.sha1()
    try:
        for k, a in sorted(p.inputs(seed=0).items()):
            h.update(k.encode())
            h.update(np.ascontiguousarray(a).tobytes() if isinstance(a, np.ndarray) else repr(a).encode())
    except Exception as ex:
        return pid, "error: " + repr(ex)[:200], time.time() - t0
    return pid, h.hexdigest(), time.time() - t0


if __name__ == "__main__":
    if sys.argv[1] == "--diff":
        a, b = (json.load(open(f)) for f in sys.argv[2:4])
        diff = sorted(k for k in a.keys() & b.keys() if a[k] != b[k])
        print(f"{len(a.keys() & b.keys())} probes in both, {len(diff)} with other inputs:")
        for k in diff:
            print(" ", k)
        sys.exit(0)
    from kernels_cuda import timing_probes
    out, jobs, fams = sys.argv[1], int(sys.argv[2]), set(sys.argv[3:])
    ids = [p.id for p in timing_probes.entries() if p.family in fams or "all" in fams]
    res = {}
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for pid, d, dt in pool.imap_unordered(digest, ids):
            res[pid] = d
            print(f"{pid} {d[:12]} {dt:.1f}s", flush=True)
    open(out, "w").write(json.dumps(dict(sorted(res.items())), indent=1) + "\n")
