"""simt's predictions for every racy read-modify-write launch measured so far, on both GPUs,
beside the measured times: racy/'s sweep (27 kernels), racy2/'s `rmw` and `st` kernels
(H100), racy4/'s `once` kernel at 1-8 blocks an SM (H200).  Each case is emulated once,
the way the timing tables are (kernels_cuda.timing_check.emulate), and predicted for
both profiles.  From the repository root, no GPU:

    python docs/results/timing_investigation/racy5/predict.py > docs/results/timing_investigation/racy5/predicted.txt
"""
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
INV = HERE.parent
sys.path.insert(0, str(INV.parents[2]))
for d in ("racy", "racy2", "racy4"):
    sys.path.insert(0, str(INV / d))
import sweep  # noqa: E402
import sweep2  # noqa: E402
from predict import host_data  # noqa: E402
from kernels_cuda.timing_check import emulate  # noqa: E402
from kernels_cuda.timing_probes import TimingProbe  # noqa: E402
from simt import timing  # noqa: E402

ONCE = r'''
extern "C" __global__ void once(const unsigned char *bins, int *hist, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) hist[bins[i]]++;
}
'''
GPUS = ("h100", "h200")


def measured(path, key="case"):
    out = {}
    if path.exists():
        for r in map(json.loads, path.read_text().splitlines()):
            if key in r:
                out[r[key]] = r["ms"]
    return out


def cases():
    """(folder, case, probe, n, {gpu: measured ms})"""
    tmp = Path(tempfile.mkdtemp())
    (tmp / "racy.cu").write_text(sweep.source())
    (tmp / "racy2.cu").write_text(sweep2.source())
    (tmp / "once.cu").write_text(ONCE)
    m1 = {g: measured(INV / "racy" / f"sweep_{g}.jsonl") for g in GPUS}
    for name, w, nb, k, n, b, skew in sweep.CASES:
        yield "racy", name, TimingProbe(
            f"racy/{name}", "racy", f"racy_{w}", n, b, lambda m, b=b, k=k: max(1, m // (b * k)),
            lambda m, rng, w=w, nb=nb, skew=skew: [host_data(w, nb, m, skew, rng), np.zeros(4096, np.int32),
                                                   np.int32(m), np.int32(nb - 1)],
            source=str(tmp / "racy.cu")), n, {g: m1[g].get(name) for g in GPUS}
    m2 = {g: measured(INV / "racy2" / f"sweep2_{g}.jsonl") for g in GPUS}
    n, b = 1 << 24, 256
    for name, kind, w, nb, skew in sweep2.CASES:
        if kind == "ld":
            continue
        yield "racy2", name, TimingProbe(
            f"racy2/{name}", "racy2", f"{kind}_{w}", n, b, lambda m: max(1, m // 256),
            lambda m, rng, w=w, nb=nb, skew=skew: [host_data(w, nb, m, skew, rng), np.zeros(4096, np.int32),
                                                   np.int32(m), np.int32(nb - 1)],
            source=str(tmp / "racy2.cu")), n, {g: m2[g].get(name) for g in GPUS}
    import partial_mb as P
    import occ_mb as O
    m4 = {g: measured(INV / "racy4" / f"occ_{g}.jsonl") for g in GPUS}
    for kind in P.ONCE:
        for bps in O.OCC:
            name = f"{kind}_b{bps}"
            yield "racy4", name, TimingProbe(
                f"racy4/{name}", "racy4", "once", P.N, 256, lambda m: (m + 255) // 256,
                lambda m, rng, kind=kind: [P.bins_for(kind)[:m], np.zeros(64 * 32, np.int32), np.int32(m)],
                shared=O.smem_for(bps), source=str(tmp / "once.cu")), P.N, {g: m4[g].get(name) for g in GPUS}


def main():
    want = set(sys.argv[1:])
    within = {g: [0, 0] for g in GPUS}
    print("# folder, case, then per GPU: measured ms, predicted ms, predicted / measured")
    for folder, name, probe, n, meas in cases():
        if want and name not in want and folder not in want:
            continue
        res = emulate(probe, n)[0]
        cols = []
        for g in GPUS:
            p = timing.predict_result(res, timing.load_profile(g))
            if meas[g]:
                r = p.ms / meas[g]
                within[g][0] += 1 / 1.5 <= r <= 1.5
                within[g][1] += 1
                cols.append(f"{g} {meas[g]:7.3f} {p.ms:7.3f} {r:5.2f}")
            else:
                cols.append(f"{g}       -  {p.ms:7.3f}     -")
        print(f"{folder:6s} {name:20s} " + "   ".join(cols), flush=True)
    for g in GPUS:
        print(f"# {g}: {within[g][0]} of {within[g][1]} within 1.5x")


if __name__ == "__main__":
    main()
